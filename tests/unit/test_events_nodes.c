/* test_events_nodes.c - unit tests for the events-in interface
 * (sched/scheduler.h) on Nodes and Pods: a Node updated (room, cordon,
 * taint, Ready) or deleted, a Pod updated or deleted out of band, and the
 * informers' rules (an update of an unknown object adds it, a delete of
 * one changes nothing). An in-process scheduler with the real plugins and
 * a fake backend (events_helpers.h). */
#include "events_helpers.h"

/* n1 (4 cpu) and Job ns/a of two 1-cpu pods, admitted and bound on n1. */
static void admit_a(struct fx *f)
{
    fx_add(f,
           FX_QUEUES("10") FX_NODE("n1", "4", "")
               FX_JOB("ns", "a", "lq", "2", "1") FX_JOB_POD("ns", "a", "0", "1")
                   FX_JOB_POD("ns", "a", "1", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    assert_int_equal(fx_free(f, "n1", "cpu"), 2000);
}

static void test_node_room_follows_update(void **state)
{
    struct fx *f = *state;
    admit_a(f);
    /* More room: its pods stay, the room is the new allocatable less
     * what they use. */
    fx_update(f, FX_NODE("n1", "6", ""));
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    assert_string_equal(fx_node_of(f, "ns/a-1"), "n1");
    /* Less than its pods use: they run on, nothing new fits. */
    fx_update(f, FX_NODE("n1", "1", ""));
    assert_int_equal(fx_free(f, "n1", "cpu"), -1000);
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    fx_add(f, FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "pending");
    assert_contains(fx_wl(f, "ns/solo")->reason, "insufficient cpu");
    /* Room again: the parked pod is tried and placed. */
    fx_update(f, FX_NODE("n1", "8", ""));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
}

/* A node that takes no new pods (cordoned, tainted, NotReady): pods on it
 * stay, a new one waits, with the host's reason (node_fit.c, checked
 * before any PLACE plugin), until it takes pods again. */
static void check_closed(struct fx *f, const char *closed, const char *why)
{
    admit_a(f);
    fx_update(f, closed);
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    fx_add(f, FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "pending");
    assert_null(fx_node_of(f, "ns/solo"));
    assert_contains(fx_wl(f, "ns/solo")->reason, why);
    fx_update(f, FX_NODE("n1", "4", ""));
    fx_run(f);
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
}

static void test_node_cordoned(void **state)
{
    check_closed(*state, FX_NODE("n1", "4", "spec: {unschedulable: true}\n"),
                 "node n1 is unschedulable (cordoned)");
}

static void test_node_tainted(void **state)
{
    check_closed(*state,
                 FX_NODE("n1", "4",
                         "spec: {taints: [{key: gpu, effect: NoSchedule}]}\n"),
                 "node n1 has taint gpu:NoSchedule that pod set");
}

static void test_node_not_ready(void **state)
{
    check_closed(*state,
                 "---\napiVersion: v1\nkind: Node\n"
                 "metadata: {name: n1, labels: {pool: a}}\n"
                 "status:\n  allocatable: {cpu: '4'}\n"
                 "  conditions: [{type: Ready, status: 'False'}]\n",
                 "node n1 is not Ready");
}

/* A Node whose deletion waits on a finalizer: no new pods either. */
static void test_node_being_deleted(void **state)
{
    check_closed(*state,
                 "---\napiVersion: v1\nkind: Node\n"
                 "metadata: {name: n1, labels: {pool: a},\n"
                 "  deletionTimestamp: '2026-01-01T00:00:00Z',\n"
                 "  finalizers: [example.com/drain]}\n"
                 "status: {allocatable: {cpu: '4'}}\n",
                 "node n1 is being deleted");
}

static void test_node_deleted(void **state)
{
    struct fx *f = *state;
    admit_a(f);
    fx_delete(f, OBJ_NODE, "n1");
    assert_null(cluster_get_node(fx_c(f), "n1"));
    /* Its pods are gone when the backend says so; until then they hold
     * their quota. */
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    fx_add(f, FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "pending");
    /* The pod garbage collector deletes them: the Job's workload keeps its
     * admission (its controller makes new pods), with nowhere to go. */
    fx_delete(f, OBJ_POD, "ns/a-0");
    fx_delete(f, OBJ_POD, "ns/a-1");
    fx_run(f);
    assert_null(cluster_get_pod(fx_c(f), "ns/a-0"));
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    fx_add(f, FX_JOB_POD("ns", "a", "2", "1"));
    fx_run(f);
    assert_null(fx_node_of(f, "ns/a-2"));
    /* A node again: the new pod and the waiting one go there. */
    fx_add(f, FX_NODE("n2", "4", ""));
    fx_run(f);
    assert_string_equal(fx_node_of(f, "ns/a-2"), "n2");
    assert_string_equal(fx_node_of(f, "ns/solo"), "n2");
}

static void test_job_pod_deleted(void **state)
{
    struct fx *f = *state;
    admit_a(f);
    fx_delete(f, OBJ_POD, "ns/a-1");
    fx_run(f);
    /* Its room is free, its quota stays with the admission. */
    assert_null(cluster_get_pod(fx_c(f), "ns/a-1"));
    assert_int_equal(fx_free(f, "n1", "cpu"), 3000);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    /* Its controller's replacement is placed within the admission. */
    fx_add(f, FX_JOB_POD("ns", "a", "2", "1"));
    fx_run(f);
    assert_string_equal(fx_node_of(f, "ns/a-2"), "n1");
    assert_int_equal(fx_free(f, "n1", "cpu"), 2000);
    /* A pod of that name again is a new pod. */
    fx_add(f, FX_JOB_POD("ns", "a", "1", "1"));
    assert_non_null(cluster_get_pod(fx_c(f), "ns/a-1"));
}

static void test_plain_pod_deleted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "") FX_POD(
                  "ns", "solo", "lq", "1") FX_POD("ns", "waits", "lq", "9"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "admitted");
    /* Nothing makes a plain pod again: its workload ends, its quota and
     * room are given back. */
    fx_delete(f, OBJ_POD, "ns/solo");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "finished");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 0);
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    /* A pending one deleted: its workload leaves. */
    fx_delete(f, OBJ_POD, "ns/waits");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/waits"), "absent");
    assert_int_equal(cluster_get_cq(fx_c(f), "cq")->n_pending, 0);
}

static void test_pod_updated(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "")
                  FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_int_equal(fx_free(f, "n1", "cpu"), 3000);
    /* An update saying it succeeded: it leaves its node, its workload
     * finishes. */
    fx_update(f,
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\n"
              "  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"
              "spec:\n  schedulerName: ordo-scheduler\n  nodeName: n1\n"
              "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
              "status: {phase: Succeeded}\n");
    fx_run(f);
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    assert_int_equal(cluster_get_pod(fx_c(f), "ns/solo")->state,
                     PODSTATE_SUCCEEDED);
    assert_string_equal(fx_state(f, "ns/solo"), "finished");
}

static void test_informer_rules(void **state)
{
    struct fx *f = *state;
    /* A delete of an unknown object changes nothing. */
    fx_delete(f, OBJ_NODE, "nowhere");
    fx_delete(f, OBJ_POD, "ns/nobody");
    fx_delete(f, OBJ_CLUSTER_QUEUE, "none");
    /* An update of an unknown one adds it; an add of a known one updates
     * it. */
    fx_update(f, FX_NODE("n1", "4", ""));
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    fx_add(f, FX_NODE("n1", "2", ""));
    assert_int_equal(fx_free(f, "n1", "cpu"), 2000);
    assert_int_equal(fx_c(f)->n_nodes, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_node_room_follows_update, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_cordoned, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_tainted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_being_deleted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_not_ready, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_deleted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_job_pod_deleted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_plain_pod_deleted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_pod_updated, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_informer_rules, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests_name("events_nodes", tests, NULL, NULL);
}
