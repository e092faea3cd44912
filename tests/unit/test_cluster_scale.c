/* test_cluster_scale.c - unit tests for what keeps the cache's costs in
 * what changed (sched/cluster.c, sched/workload.c): pod counts per pod set
 * kept as pods change state, the list of changed workloads the simulator's
 * controllers reconcile, the ClusterQueues with pending workloads, the
 * ClusterQueues whose usage changed, the O(1) wake-up of parked workloads,
 * and the cap on pods per workload. The cluster is built in-process from
 * manifests. */
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
#include "test_helpers.h"
#include "events.h"

/* Two ClusterQueues; a Job of 3 pods whose pods exist (made by someone
 * else), a pending single pod in the other queue. */
static const char manifests[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
    "status: {allocatable: {cpu: '8'}}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
    "metadata: {name: default}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
    "metadata: {name: team-a}\nspec:\n  namespaceSelector: {}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
    "    - {name: default, resources: [{name: cpu, nominalQuota: 4}]}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
    "metadata: {name: team-b}\nspec:\n  namespaceSelector: {}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
    "    - {name: default, resources: [{name: cpu, nominalQuota: 4}]}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: a, name: lq}\nspec: {clusterQueue: team-a}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
    "metadata: {namespace: b, name: lq}\nspec: {clusterQueue: team-b}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: trio\n"
    "  namespace: a\n  uid: u-trio\n"
    "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
    "spec:\n  parallelism: 3\n  template:\n    spec:\n"
    "      schedulerName: ordo-scheduler\n"
    "      containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\n"
    "  namespace: b\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"
    "spec:\n  schedulerName: ordo-scheduler\n"
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n";

/* Pod i of Job trio, as its controller makes it. */
static const char trio_pod[] =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trio-%d\n  namespace: a\n"
    "  ownerReferences:\n  - {apiVersion: batch/v1, kind: Job, name: trio,\n"
    "     uid: u-trio, controller: true}\n"
    "spec:\n  schedulerName: ordo-scheduler\n"
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n";

static void add_yaml(struct cluster *c, const char *text)
{
    struct manifest_set set;
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, text, strlen(text), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(set.n_errors, 0);
    for (size_t i = 0; i < set.n; i++) {
        assert_int_equal(cluster_add(c, set.objects[i]), 0);
        set.objects[i] = NULL;
    }
    set.n = 0;
    manifest_set_release(&set);
}

static void add_trio_pods(struct cluster *c, int n)
{
    for (int i = 0; i < n; i++) {
        char buf[sizeof(trio_pod) + 16];
        snprintf(buf, sizeof(buf), trio_pod, i);
        add_yaml(c, buf);
    }
}

static int setup(void **state)
{
    struct cluster *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    cluster_init(c);
    add_yaml(c, manifests);
    assert_int_equal(cluster_sync(c), 0);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct cluster *c = *state;
    cluster_release(c);
    free(c);
    resid_reset();
    return 0;
}

static struct workload *wl(struct cluster *c, const char *key)
{
    struct workload *w = NULL;
    HASH_FIND_STR(c->workloads, key, w);
    assert_non_null(w);
    return w;
}

static struct pod *pod(struct cluster *c, const char *key)
{
    struct pod *p = NULL;
    HASH_FIND_STR(c->pods, key, p);
    assert_non_null(p);
    return p;
}

/* The changed workloads, taken, as "key,key". */
static void take_changed(struct cluster *c, char *buf, size_t size)
{
    struct workload **v = NULL;
    size_t n = 0;
    assert_int_equal(cluster_take_changed(c, &v, &n), 0);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        assert_false(v[i]->changed);
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "",
                 v[i]->key);
    }
    free(v);
}

static void test_pod_counts(void **state)
{
    struct cluster *c = *state;
    struct workload *w = wl(c, "a/trio");
    assert_false(workload_ready(w));
    add_trio_pods(c, 3);
    const struct podset *s = &w->podsets[0];
    assert_int_equal(s->n_pending, 3);
    assert_int_equal(workload_pending_pods(w, 0), 3);
    assert_true(workload_ready(w));

    pod_set_state(c, pod(c, "a/trio-0"), PODSTATE_BOUND);
    pod_set_state(c, pod(c, "a/trio-1"), PODSTATE_BOUND);
    assert_int_equal(s->n_pending, 1);
    assert_int_equal(s->n_bound, 2);
    assert_int_equal(w->pods_bound, 2);
    assert_false(workload_ready(w));

    pod_set_state(c, pod(c, "a/trio-0"), PODSTATE_SUCCEEDED);
    cluster_pod_gone(c, pod(c, "a/trio-1"));
    cluster_pod_gone(c, pod(c, "a/trio-2"));
    assert_int_equal(s->n_pending, 0);
    assert_int_equal(s->n_bound, 0);
    assert_int_equal(s->n_succeeded, 1);
    assert_int_equal(s->n_failed, 2);
    assert_int_equal(w->pods_succeeded, 1);
    assert_int_equal(w->pods_failed, 2);
    assert_int_equal(w->pods_bound, 0);
    /* Setting the state it has changes nothing. */
    pod_set_state(c, pod(c, "a/trio-0"), PODSTATE_SUCCEEDED);
    assert_int_equal(s->n_succeeded, 1);
}

static void test_changed_list(void **state)
{
    struct cluster *c = *state;
    char buf[256];
    /* New workloads are changed, in creation order. */
    take_changed(c, buf, sizeof(buf));
    assert_string_equal(buf, "a/trio,b/solo");
    take_changed(c, buf, sizeof(buf));
    assert_string_equal(buf, "");
    /* A pod of solo, then of trio: listed once each, by creation. */
    pod_set_state(c, pod(c, "b/solo"), PODSTATE_BOUND);
    add_trio_pods(c, 2);
    pod_set_state(c, pod(c, "b/solo"), PODSTATE_SUCCEEDED);
    take_changed(c, buf, sizeof(buf));
    assert_string_equal(buf, "a/trio,b/solo");
    /* Finishing is a change too. */
    workload_finish(c, wl(c, "b/solo"));
    take_changed(c, buf, sizeof(buf));
    assert_string_equal(buf, "b/solo");
}

static void test_busy_queues(void **state)
{
    struct cluster *c = *state;
    struct cq *a = cluster_cq(c, "team-a"), *b = cluster_cq(c, "team-b");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->index, 0);
    assert_int_equal(b->index, 1);
    cluster_busy_refresh(c);
    assert_int_equal(c->n_busy, 2);
    assert_ptr_equal(c->busy[0], a);
    assert_ptr_equal(c->busy[1], b);
    /* A queue with nothing pending leaves the list. */
    a->n_pending = 0;
    cluster_busy_refresh(c);
    assert_int_equal(c->n_busy, 1);
    assert_ptr_equal(c->busy[0], b);
    assert_false(a->busy);
}

static void test_wake_parked(void **state)
{
    struct cluster *c = *state;
    struct cq *a = cluster_cq(c, "team-a"), *b = cluster_cq(c, "team-b");
    uint64_t ga = cq_requeue_gen(c, a), gb = cq_requeue_gen(c, b);
    cluster_wake_parked(c);
    assert_true(cq_requeue_gen(c, a) == ga + 1);
    assert_true(cq_requeue_gen(c, b) == gb + 1);
    /* A queue that joins later counts the wake-ups from then on, like
     * the others after a rebuild (which moves every queue once). */
    add_yaml(c, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
                "metadata: {name: team-c}\nspec: {namespaceSelector: {}}\n");
    assert_int_equal(cluster_sync(c), 0);
    struct cq *cc = cluster_cq(c, "team-c");
    assert_non_null(cc);
    assert_true(cq_requeue_gen(c, cc) == 1);
    assert_true(cq_requeue_gen(c, a) == ga + 2);
    cluster_wake_parked(c);
    assert_true(cq_requeue_gen(c, cc) == 2);
}

static void test_usage_changed(void **state)
{
    struct cluster *c = *state;
    struct cq **v = NULL;
    uint32_t n = 0;
    /* The rebuild marked every queue. */
    assert_int_equal(cluster_take_usage_changed(c, &v, &n), 0);
    assert_int_equal(n, 2);
    free(v);
    assert_int_equal(cluster_take_usage_changed(c, &v, &n), 0);
    assert_int_equal(n, 0);
    free(v);
    /* A charge marks its queue only. */
    struct cq *b = cluster_cq(c, "team-b");
    cq_charge(b, wl(c, "b/solo"), 1);
    assert_int_equal(cluster_take_usage_changed(c, &v, &n), 0);
    assert_int_equal(n, 1);
    assert_ptr_equal(v[0], b);
    assert_false(b->usage_changed);
    free(v);
}

static void test_pods_cap(void **state)
{
    struct cluster *c = *state;
    add_yaml(c, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: at-cap\n"
                "  namespace: a\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                "spec:\n  parallelism: 100000\n  template:\n    spec:\n"
                "      schedulerName: ordo-scheduler\n"
                "      containers: [{name: c}]\n"
                "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
                "  name: over-cap\n  namespace: a\n"
                "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                "spec:\n  parallelism: 100001\n  template:\n    spec:\n"
                "      schedulerName: ordo-scheduler\n"
                "      containers: [{name: c}]\n");
    assert_int_equal(cluster_sync(c), 0);
    struct workload *at = wl(c, "a/at-cap"), *over = wl(c, "a/over-cap");
    assert_false(at->over_cap);
    assert_string_equal(at->reason, "");
    assert_true(over->over_cap);
    /* Queued in its ClusterQueue (it counts as pending there). */
    assert_true(over->queued);
    assert_ptr_equal(over->cq, cluster_cq(c, "team-a"));
    assert_string_equal(over->reason,
                        "Job a/over-cap has 100001 pods; Ordo admits at most "
                        "100000 pods per workload");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pod_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_queues, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wake_parked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_usage_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pods_cap, setup, teardown),
    };
    return cmocka_run_group_tests_name("cluster_scale", tests, NULL, NULL);
}
