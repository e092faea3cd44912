/* test_events_queues.c - unit tests for the events-in interface
 * (sched/scheduler.h) on the Kueue queue kinds: a ClusterQueue's quota and
 * cohortName changed (the tree rebuilt, admitted usage kept), a
 * ClusterQueue deleted while in use (terminating until its workloads are
 * gone) or unused, a Cohort changed and deleted, a LocalQueue changed and
 * deleted, a ResourceFlavor changed, and deleted while in use. */
#include "events_helpers.h"

static int64_t nominal(struct fx *f, const char *cq)
{
    const struct cq *q = cluster_get_cq(fx_c(f), cq);
    assert_non_null(q);
    return q->groups[0].nominal[0];
}

static void test_cq_quota_lowered_raised(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("4") FX_NODE("n1", "8", "") FX_POD("ns", "x", "lq", "2")
                  FX_POD("ns", "y", "lq", "2"));
    fx_run(f);
    fx_add(f, FX_POD("ns", "z", "lq", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/z"), "pending");
    /* Lowered under what is admitted: Kueue lets it run; nothing new. */
    fx_update(f, FX_CQ("cq", "", "default", "2"));
    fx_run(f);
    assert_int_equal(nominal(f, "cq"), 2000);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    assert_string_equal(fx_state(f, "ns/y"), "admitted");
    assert_int_equal(f->n_evicts, 0);
    fx_delete(f, OBJ_POD, "ns/x");
    fx_run(f);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    assert_string_equal(fx_state(f, "ns/z"), "pending");
    /* Raised: the waiting one fits. */
    fx_update(f, FX_CQ("cq", "", "default", "6"));
    fx_run(f);
    assert_int_equal(nominal(f, "cq"), 6000);
    assert_string_equal(fx_state(f, "ns/z"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
}

static void test_cq_cohort_name(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a") FX_CQ("a", "", "default", "1")
                  FX_CQ("b", "", "default", "4") FX_LQ("ns", "lq", "a")
                      FX_NODE("n1", "8", "") FX_POD("ns", "big", "lq", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/big"), "pending");
    /* In one cohort, a borrows b's unused quota. */
    fx_update(f, FX_CQ("a", "  cohortName: org\n", "default", "1")
                     FX_CQ("b", "  cohortName: org\n", "default", "4"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/big"), "admitted");
    const struct cq *a = cluster_get_cq(fx_c(f), "a");
    assert_non_null(a->qnode->parent);
    assert_string_equal(a->qnode->parent->name, "org");
    /* Out of it again: the admitted usage stays where it was charged. */
    fx_update(f, FX_CQ("a", "", "default", "1"));
    fx_run(f);
    a = cluster_get_cq(fx_c(f), "a");
    assert_null(a->qnode->parent);
    assert_int_equal(fx_usage(f, "a", "default", "cpu"), 2000);
    assert_string_equal(fx_state(f, "ns/big"), "admitted");
}

static void test_cq_deleted_in_use(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("4") FX_NODE("n1", "8", "") FX_POD("ns", "x", "lq", "2")
                  FX_POD("ns", "y", "lq", "3"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    assert_string_equal(fx_state(f, "ns/y"), "pending");
    /* Kueue's finalizer: it stays while x is admitted to it, admitting
     * nothing. */
    fx_delete(f, OBJ_CLUSTER_QUEUE, "cq");
    fx_add(f, FX_POD("ns", "w", "lq", "1"));
    fx_run(f);
    const struct cq *q = cluster_get_cq(fx_c(f), "cq");
    assert_non_null(q);
    assert_true(q->terminating);
    assert_false(q->active);
    assert_string_equal(fx_state(f, "ns/w"), "pending");
    assert_contains(fx_wl(f, "ns/w")->reason, "being deleted");
    assert_contains(fx_wl(f, "ns/y")->reason, "being deleted");
    /* x gone: so is the ClusterQueue. */
    fx_delete(f, OBJ_POD, "ns/x");
    fx_run(f);
    assert_null(cluster_get_cq(fx_c(f), "cq"));
    assert_null(cluster_get_object(fx_c(f), OBJ_CLUSTER_QUEUE, "cq"));
    assert_int_equal(fx_c(f)->n_cqs, 0);
    assert_contains(fx_wl(f, "ns/w")->reason, "ClusterQueue cq doesn't exist");
    assert_null(fx_wl(f, "ns/w")->cq);
    /* One of that name again takes them. */
    fx_add(f, FX_CQ("cq", "", "default", "4"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/w"), "admitted");
    assert_string_equal(fx_state(f, "ns/y"), "admitted");
}

static void test_cq_deleted_unused(void **state)
{
    struct fx *f = *state;
    fx_add(f,
           FX_QUEUES("1") FX_NODE("n1", "8", "") FX_POD("ns", "y", "lq", "3"));
    fx_run(f);
    fx_delete(f, OBJ_CLUSTER_QUEUE, "cq");
    fx_run(f);
    assert_null(cluster_get_cq(fx_c(f), "cq"));
    assert_contains(fx_wl(f, "ns/y")->reason, "ClusterQueue cq doesn't exist");
}

#define COHORT(quota)                                                          \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"                  \
    "metadata: {name: org}\nspec:\n  resourceGroups:\n"                        \
    "  - coveredResources: [cpu]\n    flavors:\n"                              \
    "    - {name: default, resources: [{name: cpu, nominalQuota: " quota       \
    "}]}\n"

static void test_cohort_changed_deleted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a") COHORT("4")
                  FX_CQ("cq", "  cohortName: org\n", "default", "0")
                      FX_LQ("ns", "lq", "cq") FX_NODE("n1", "8", "")
                          FX_POD("ns", "x", "lq", "2"));
    fx_run(f);
    /* The cohort's own quota lends to its ClusterQueue. */
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    fx_update(f, COHORT("3"));
    fx_add(f, FX_POD("ns", "y", "lq", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/y"), "pending");
    const struct cq *q = cluster_get_cq(fx_c(f), "cq");
    int i =
        qtree_fr(&fx_c(f)->tree, q->groups[0].flavors[0], resid_lookup("cpu"));
    assert_true(i >= 0);
    assert_int_equal(q->qnode->parent->subtree[i], 3000);
    assert_int_equal(qnode_usage(q->qnode->parent, i), 2000);
    fx_update(f, COHORT("4"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/y"), "admitted");
    /* Deleted: the cohort is only a name now, with no quota. */
    fx_delete(f, OBJ_COHORT, "org");
    fx_run(f);
    q = cluster_get_cq(fx_c(f), "cq");
    assert_false(q->qnode->parent->exists);
    assert_int_equal(q->qnode->parent->subtree[i], 0);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
}

static void test_local_queue_changed_deleted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a") FX_CQ("small", "", "default", "0")
                  FX_CQ("big", "", "default", "4") FX_LQ("ns", "lq", "small")
                      FX_NODE("n1", "8", "") FX_POD("ns", "p", "lq", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p"), "pending");
    assert_string_equal(fx_wl(f, "ns/p")->cq->name, "small");
    /* Its workloads follow it to the other ClusterQueue. */
    fx_update(f, FX_LQ("ns", "lq", "big"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p"), "admitted");
    assert_string_equal(fx_wl(f, "ns/p")->admitted_cq->name, "big");
    assert_int_equal(cluster_get_cq(fx_c(f), "small")->n_pending, 0);
    /* Deleted: admitted ones run on, new ones wait for it. */
    fx_delete(f, OBJ_LOCAL_QUEUE, "ns/lq");
    fx_add(f, FX_POD("ns", "q", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p"), "admitted");
    assert_string_equal(fx_state(f, "ns/q"), "pending");
    assert_contains(fx_wl(f, "ns/q")->reason, "LocalQueue lq doesn't exist");
    assert_null(fx_wl(f, "ns/q")->cq);
}

static void test_flavor_deleted_in_use(void **state)
{
    struct fx *f = *state;
    fx_add(f,
           FX_QUEUES("4") FX_NODE("n1", "8", "") FX_POD("ns", "x", "lq", "2"));
    fx_run(f);
    /* Kueue's finalizer: it stays while x uses it; nothing new is
     * admitted with it. */
    fx_delete(f, OBJ_RESOURCE_FLAVOR, "default");
    fx_add(f, FX_POD("ns", "y", "lq", "1"));
    fx_run(f);
    assert_non_null(
        cluster_get_object(fx_c(f), OBJ_RESOURCE_FLAVOR, "default"));
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    assert_string_equal(fx_state(f, "ns/y"), "pending");
    assert_contains(fx_wl(f, "ns/y")->reason,
                    "ResourceFlavor default is being deleted");
    fx_delete(f, OBJ_POD, "ns/x");
    fx_run(f);
    assert_null(cluster_get_object(fx_c(f), OBJ_RESOURCE_FLAVOR, "default"));
    assert_contains(fx_wl(f, "ns/y")->reason,
                    "ResourceFlavor default not found");
    /* Back: the ClusterQueue admits again. */
    fx_add(f, FX_RF("default", "pool: a"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/y"), "admitted");
}

static void test_flavor_changed(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: b") FX_CQ("cq", "", "default", "4")
                  FX_LQ("ns", "lq", "cq") FX_NODE("n1", "8", "")
                      FX_POD("ns", "x", "lq", "2"));
    fx_run(f);
    /* Its nodes are pool=b: none. */
    assert_string_equal(fx_state(f, "ns/x"), "pending");
    fx_update(f, FX_RF("default", "pool: a"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/x"), "n1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cq_quota_lowered_raised, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_cq_cohort_name, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_cq_deleted_in_use, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_cq_deleted_unused, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_cohort_changed_deleted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_local_queue_changed_deleted,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_flavor_deleted_in_use, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_flavor_changed, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests_name("events_queues", tests, NULL, NULL);
}
