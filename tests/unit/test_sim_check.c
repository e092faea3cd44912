/* test_sim_check.c - unit tests for the simulator's invariants
 * (sched/sim_check.c, --sim-check) on a cluster built in-process from
 * manifests: a sane cluster passes, and usage below zero anywhere (a
 * node's, a ClusterQueue's, a cohort's) or a negative workload charge is
 * reported. Decoding rejects negative requests, so the negative values are
 * written into the cache by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "resid.h"
#include "sim_int.h"
#include "test_helpers.h"
#include "events.h"

/* Team a's ClusterQueue in cohort org, with a pod of its Job already
 * running on node-1 (admitted and charged as after a restart). */
static const char manifests[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
    "status: {allocatable: {cpu: '8', memory: 8Gi}}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
    "metadata: {name: default}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
    "metadata: {name: team-a}\nspec:\n  cohortName: org\n"
    "  namespaceSelector: {}\n  resourceGroups:\n"
    "  - coveredResources: [cpu]\n    flavors:\n"
    "    - {name: default, resources: [{name: cpu, nominalQuota: 4}]}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: ns, name: lq}\nspec: {clusterQueue: team-a}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: runner\n"
    "  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"
    "spec:\n  schedulerName: ordo-scheduler\n  nodeName: node-1\n"
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n";

struct fixture {
    struct cluster c;
    struct sim_checker ck;
    char *out;
    size_t len;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    assert_non_null(fx);
    cluster_init(&fx->c);
    struct manifest_set set;
    manifest_set_init(&set);
    assert_int_equal(manifest_load_buffer(&set, manifests, strlen(manifests),
                                          "test.yaml", NULL, NULL),
                     0);
    assert_int_equal(set.n_errors, 0);
    for (size_t i = 0; i < set.n; i++) {
        assert_int_equal(cluster_add(&fx->c, set.objects[i]), 0);
        set.objects[i] = NULL;
    }
    set.n = 0;
    manifest_set_release(&set);
    assert_int_equal(cluster_sync(&fx->c), 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    sim_checker_release(&fx->ck);
    cluster_release(&fx->c);
    free(fx->out);
    free(fx);
    resid_reset();
    return 0;
}

/* Runs the invariants; the violations printed are in fx->out. */
static size_t check(struct fixture *fx)
{
    free(fx->out);
    fx->out = NULL;
    FILE *m = open_memstream(&fx->out, &fx->len);
    assert_non_null(m);
    fx->ck.out = m;
    size_t n = sim_check_invariants(&fx->ck, &fx->c);
    fclose(m);
    fx->ck.out = NULL;
    return n;
}

static struct workload *runner(struct fixture *fx)
{
    struct workload *w = NULL;
    HASH_FIND_STR(fx->c.workloads, "ns/runner", w);
    assert_non_null(w);
    return w;
}

static void test_sane(void **state)
{
    struct fixture *fx = *state;
    struct workload *w = runner(fx);
    assert_int_equal(w->state, WL_ADMITTED);
    assert_true(w->n_charges > 0);
    assert_int_equal(check(fx), 0);
    assert_string_equal(fx->out, "");
}

static void test_node_negative(void **state)
{
    struct fixture *fx = *state;
    struct node *n = cluster_node(&fx->c, "node-1");
    assert_non_null(n);
    int32_t cpu = resid_lookup("cpu");
    n->used[cpu] = -1000;
    assert_int_equal(check(fx), 1);
    assert_contains(fx->out,
                    "invariant violated at t=0s: node node-1: cpu used -1000 "
                    "< 0\n");
}

static void test_cq_negative(void **state)
{
    struct fixture *fx = *state;
    struct cq *q = cluster_cq(&fx->c, "team-a");
    assert_non_null(q);
    /* Released twice: the ClusterQueue goes 1000m below zero (what it
     * gives back beyond what it holds does not reach the cohort). */
    cq_charge(q, runner(fx), -1);
    cq_charge(q, runner(fx), -1);
    assert_int_equal(check(fx), 1);
    assert_contains(fx->out, "ClusterQueue team-a: cpu in flavor default used "
                             "-1000 < 0\n");
}

static void test_cohort_negative(void **state)
{
    struct fixture *fx = *state;
    struct qnode *co = NULL;
    HASH_FIND_STR(fx->c.tree.cohorts, "org", co);
    assert_non_null(co);
    int fr = qtree_fr(&fx->c.tree, cluster_flavor(&fx->c, "default"),
                      resid_lookup("cpu"));
    assert_true(fr >= 0);
    co->usage[fr] = -3;
    assert_int_equal(check(fx), 1);
    assert_contains(fx->out, "cohort org: cpu in flavor default used -3 < 0\n");
}

static void test_charge_negative(void **state)
{
    struct fixture *fx = *state;
    struct workload *w = runner(fx);
    /* A charge per pod below zero, then more pods given back than it has:
     * both take a negative amount. */
    w->charges[0].per_pod = -1000;
    assert_int_equal(check(fx), 1);
    assert_contains(fx->out, "workload ns/runner pod set main: charges 1 x "
                             "-1000 of cpu in flavor default (negative)\n");
    w->charges[0].per_pod = 1000;
    w->podsets[0].reclaimable = 2;
    assert_true(check(fx) >= 1);
    assert_contains(fx->out, "workload ns/runner pod set main: charges -1 x "
                             "1000 of cpu in flavor default (negative)\n");
    w->podsets[0].reclaimable = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sane, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_negative, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cq_negative, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cohort_negative, setup, teardown),
        cmocka_unit_test_setup_teardown(test_charge_negative, setup, teardown),
    };
    return cmocka_run_group_tests_name("sim_check", tests, NULL, NULL);
}
