/* test_events_meta.c - unit tests for the events-in interface
 * (sched/scheduler.h) on Namespaces, PriorityClasses,
 * WorkloadPriorityClasses and Topologies: a Namespace's labels changed
 * (namespaceSelector evaluated again) or deleted, a WorkloadPriorityClass
 * changed (its workloads follow, admitted ones too) or deleted, a
 * PriorityClass changed or deleted (a pod's priority is fixed when it is
 * created), Topologies kept, replaced and dropped. */
#include "events_helpers.h"

#define SELECTIVE_CQ                                                           \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"            \
    "metadata: {name: cq}\nspec:\n"                                            \
    "  namespaceSelector: {matchLabels: {team: a}}\n"                          \
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"           \
    "    - {name: default, resources: [{name: cpu, nominalQuota: 8}]}\n"
#define NAMESPACE(labels)                                                      \
    "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns, labels: "      \
    "{" labels "}}\n"

static void test_namespace_labels(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a") SELECTIVE_CQ FX_LQ("ns", "lq", "cq")
                  NAMESPACE("team: b") FX_NODE("n1", "8", "")
                      FX_POD("ns", "p", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p"), "pending");
    assert_contains(fx_wl(f, "ns/p")->reason, "is not selected");
    /* Its labels now match the selector: evaluated again, admitted. */
    fx_update(f, NAMESPACE("team: a"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p"), "admitted");
    /* Deleted: a namespace not known has only its name label. */
    fx_delete(f, OBJ_NAMESPACE, "ns");
    assert_null(cluster_get_object(fx_c(f), OBJ_NAMESPACE, "ns"));
    fx_add(f, FX_POD("ns", "q", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/q"), "pending");
    assert_true(fx_wl(f, "ns/q")->ns_mismatch);
    assert_string_equal(fx_state(f, "ns/p"), "admitted");
}

#define WPC(value)                                                             \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"   \
    "metadata: {name: high}\nvalue: " value "\n"
#define WPC_POD(name, cpu)                                                     \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                 \
    "\n  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq, "            \
    "kueue.x-k8s.io/priority-class: high}\n"                                   \
    "spec:\n  schedulerName: ordo-scheduler\n"                                 \
    "  containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

static void test_workload_priority_class(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("2") WPC("100") FX_NODE("n1", "8", "")
                  WPC_POD("runs", "2") WPC_POD("waits", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/runs"), "admitted");
    assert_string_equal(fx_state(f, "ns/waits"), "pending");
    assert_int_equal(fx_wl(f, "ns/waits")->priority, 100);
    /* Kueue updates the priority of the class's workloads, admitted ones
     * too. */
    fx_update(f, WPC("200"));
    fx_run(f);
    assert_int_equal(fx_wl(f, "ns/waits")->priority, 200);
    assert_int_equal(fx_wl(f, "ns/runs")->priority, 200);
    /* Deleted: a pending workload naming it waits for it. */
    fx_delete(f, OBJ_WORKLOAD_PRIORITY_CLASS, "high");
    fx_run(f);
    assert_contains(fx_wl(f, "ns/waits")->reason,
                    "WorkloadPriorityClass high not found");
    assert_false(fx_wl(f, "ns/waits")->queued);
    assert_string_equal(fx_state(f, "ns/runs"), "admitted");
    fx_add(f, WPC("50"));
    fx_run(f);
    assert_true(fx_wl(f, "ns/waits")->queued);
    assert_int_equal(fx_wl(f, "ns/waits")->priority, 50);
}

#define PC(value)                                                              \
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"             \
    "metadata: {name: pc}\nvalue: " value "\n"
#define PC_POD(name)                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                 \
    "\n  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"           \
    "spec:\n  schedulerName: ordo-scheduler\n  priorityClassName: pc\n"        \
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"

static void test_priority_class(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("0") PC("10") PC_POD("old"));
    fx_run(f);
    assert_int_equal(fx_wl(f, "ns/old")->priority, 10);
    /* A pod's priority is fixed when it is created: old keeps its own,
     * a new one takes the class's new value. */
    fx_update(f, PC("20"));
    fx_add(f, PC_POD("new"));
    fx_run(f);
    assert_int_equal(fx_wl(f, "ns/old")->priority, 10);
    assert_int_equal(fx_wl(f, "ns/new")->priority, 20);
    assert_int_equal(cluster_get_object(fx_c(f), OBJ_PRIORITY_CLASS, "pc")
                         ->u.priority_class.value,
                     20);
    fx_delete(f, OBJ_PRIORITY_CLASS, "pc");
    fx_add(f, PC_POD("later"));
    fx_run(f);
    assert_null(cluster_get_object(fx_c(f), OBJ_PRIORITY_CLASS, "pc"));
    assert_int_equal(fx_wl(f, "ns/later")->priority, 0);
    assert_int_equal(fx_wl(f, "ns/new")->priority, 20);
}

#define TOPOLOGY(levels)                                                       \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"                \
    "metadata: {name: dc}\nspec:\n  levels: [" levels "]\n"

static void test_topology(void **state)
{
    struct fx *f = *state;
    fx_add(f, TOPOLOGY("{nodeLabel: rack}"));
    const struct object *t = cluster_get_object(fx_c(f), OBJ_TOPOLOGY, "dc");
    assert_non_null(t);
    assert_int_equal(t->u.topology.n_levels, 1);
    fx_update(f, TOPOLOGY("{nodeLabel: block}, {nodeLabel: rack}"));
    t = cluster_get_object(fx_c(f), OBJ_TOPOLOGY, "dc");
    assert_int_equal(t->u.topology.n_levels, 2);
    assert_string_equal(t->u.topology.levels[0], "block");
    fx_delete(f, OBJ_TOPOLOGY, "dc");
    assert_null(cluster_get_object(fx_c(f), OBJ_TOPOLOGY, "dc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_namespace_labels, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_workload_priority_class, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_priority_class, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_topology, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests_name("events_meta", tests, NULL, NULL);
}
