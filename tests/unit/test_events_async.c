/* test_events_async.c - unit tests for actions that end later
 * (sched/scheduler.h: BACKEND_STARTED): a bind started then failed takes
 * the pod off its node and places it again within its workload's
 * admission, or, in a gang another of whose pods is bound, stops the
 * whole workload; started then bound changes nothing; an eviction started keeps
 * the victim's quota until the pod's deletion comes back. The decision
 * core never knows which kind of backend it has. */
#include "events_helpers.h"

static void test_bind_started_then_failed(void **state)
{
    struct fx *f = *state;
    f->bind_answer = BACKEND_STARTED;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "")
                  FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    /* Started: the pod is assumed where the bind goes. */
    assert_int_equal(f->n_binds, 1);
    assert_string_equal(fx_state(f, "ns/solo"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
    assert_int_equal(fx_free(f, "n1", "cpu"), 3000);
    /* The bind fails: the assumption is undone at once... */
    assert_int_equal(
        scheduler_pod_bind_failed_why(f->s, "ns/solo", "lost a race"), 0);
    assert_null(fx_node_of(f, "ns/solo"));
    assert_int_equal(cluster_get_pod(fx_c(f), "ns/solo")->state,
                     PODSTATE_PENDING);
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    assert_string_equal(fx_state(f, "ns/solo"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 1000);
    /* ...and, alone in its workload, it is placed again within the
     * admission (a straggler), nothing evicted. */
    fx_run(f);
    assert_int_equal(f->n_binds, 2);
    assert_string_equal(f->binds[1], "ns/solo@n1");
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
    assert_int_equal(fx_wl(f, "ns/solo")->evictions, 0);
    assert_int_equal(f->n_evicts, 0);
    /* This time it is bound: nothing changes. */
    assert_int_equal(scheduler_pod_bound(f->s, "ns/solo"), 0);
    fx_run(f);
    assert_int_equal(f->n_binds, 2);
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
    /* The outcome of a pod that is gone, or was never there. */
    assert_int_equal(scheduler_pod_bind_failed(f->s, "ns/nobody"), -ENOENT);
    assert_int_equal(scheduler_pod_bound(f->s, "ns/nobody"), -ENOENT);
}

/* A gang whose binds fail in part is never left split: stopped whole,
 * its bound pods evicted, queued again and admitted again later. */
static void test_gang_bind_failed_in_part(void **state)
{
    struct fx *f = *state;
    f->bind_answer = BACKEND_STARTED;
    fx_add(f,
           FX_QUEUES("10") FX_NODE("n1", "8", "")
               FX_JOB("ns", "a", "lq", "4", "1") FX_JOB_POD("ns", "a", "0", "1")
                   FX_JOB_POD("ns", "a", "1", "1")
                       FX_JOB_POD("ns", "a", "2", "1")
                           FX_JOB_POD("ns", "a", "3", "1"));
    fx_run(f);
    assert_int_equal(f->n_binds, 4);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
    /* Two binds go through, one fails, one is still in flight. */
    assert_int_equal(scheduler_pod_bound(f->s, "ns/a-0"), 0);
    assert_int_equal(scheduler_pod_bound(f->s, "ns/a-1"), 0);
    assert_int_equal(
        scheduler_pod_bind_failed_why(f->s, "ns/a-2", "node n1 not found"), 0);
    assert_null(fx_node_of(f, "ns/a-2"));
    fx_run(f);
    /* Stopped whole: every pod bound or binding is evicted, none placed
     * again within the old admission. */
    assert_int_equal(f->n_evicts, 3);
    assert_string_equal(f->evicts[0], "ns/a-0");
    assert_string_equal(f->evicts[1], "ns/a-1");
    assert_string_equal(f->evicts[2], "ns/a-3");
    const struct workload *w = fx_wl(f, "ns/a");
    assert_int_equal(w->evictions, 1);
    assert_contains(w->evicted_by, "bind of pod ns/a-2 to node n1 failed");
    assert_contains(w->evicted_by, "node n1 not found");
    /* Its history says so (--explain). */
    bool seen = false;
    for (size_t i = 0; i < w->history.n; i++)
        seen |= w->history.ev[i].type == WL_EV_EVICTED &&
                w->history.ev[i].detail &&
                strstr(w->history.ev[i].detail, "ns/a-2");
    assert_true(seen);
    /* The pods gone, it queued again and was admitted again: the pod
     * left and the new pods its controller makes are placed. */
    assert_false(w->evicting);
    fx_add(f, FX_JOB_POD("ns", "a", "4", "1") FX_JOB_POD("ns", "a", "5", "1")
                  FX_JOB_POD("ns", "a", "6", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/a-2"), "n1");
    assert_string_equal(fx_node_of(f, "ns/a-4"), "n1");
    assert_string_equal(fx_node_of(f, "ns/a-6"), "n1");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    /* A failure that comes back for a pod already taken is no change. */
    assert_int_equal(scheduler_pod_bind_failed(f->s, "ns/a-0"), -ENOENT);
}

/* A gang pod whose bind fails while its workload is already stopping
 * (its last bound pod): the workload queues again, nothing split. */
static void test_gang_bind_failed_while_evicting(void **state)
{
    struct fx *f = *state;
    f->bind_answer = BACKEND_STARTED;
    f->evict_deletes = false;
    fx_add(f,
           FX_QUEUES("10") FX_NODE("n1", "8", "")
               FX_JOB("ns", "a", "lq", "2", "1") FX_JOB_POD("ns", "a", "0", "1")
                   FX_JOB_POD("ns", "a", "1", "1"));
    fx_run(f);
    assert_int_equal(scheduler_pod_bind_failed(f->s, "ns/a-0"), 0);
    fx_run(f);
    assert_int_equal(f->n_evicts, 1);
    assert_string_equal(f->evicts[0], "ns/a-1");
    assert_true(fx_wl(f, "ns/a")->evicting);
    assert_contains(fx_wl(f, "ns/a")->evicted_by, "failed: refused");
    /* The evicted pod's bind fails too: nothing is bound any more. */
    assert_int_equal(scheduler_pod_bind_failed(f->s, "ns/a-1"), 0);
    fx_run(f);
    assert_false(fx_wl(f, "ns/a")->evicting);
    assert_int_equal(fx_wl(f, "ns/a")->evictions, 1);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    assert_string_equal(fx_node_of(f, "ns/a-1"), "n1");
}

static void test_bind_failed_at_once(void **state)
{
    struct fx *f = *state;
    /* An action that fails at once is undone the same way. */
    f->bind_answer = -EIO;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "")
                  FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/solo"), "admitted");
    assert_null(fx_node_of(f, "ns/solo"));
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    f->bind_answer = BACKEND_STARTED;
    fx_run(f);
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
}

#define PRIO_POD(name, prio)                                                   \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                 \
    "\n  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"           \
    "spec:\n  schedulerName: ordo-scheduler\n  priority: " prio "\n"           \
    "  containers: [{name: c, resources: {requests: {cpu: '4'}}}]\n"

static void test_evict_started(void **state)
{
    struct fx *f = *state;
    f->evict_deletes = false; /* evictions come back later */
    fx_add(f, FX_RF("default", "pool: a")
                  FX_CQ("cq",
                        "  preemption: {withinClusterQueue: "
                        "LowerPriority}\n",
                        "default", "4") FX_LQ("ns", "lq", "cq")
                      FX_NODE("n1", "4", "") PRIO_POD("low", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/low"), "admitted");
    fx_add(f, PRIO_POD("high", "10"));
    fx_run(f);
    /* The eviction is started: low keeps its quota and room until its
     * pod is gone. */
    assert_int_equal(f->n_evicts, 1);
    assert_string_equal(f->evicts[0], "ns/low");
    assert_true(fx_wl(f, "ns/low")->evicting);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 4000);
    assert_string_equal(fx_state(f, "ns/high"), "pending");
    /* It comes back as the pod's deletion. */
    assert_int_equal(scheduler_evict_outcome(f->s, "ns/low", "evicted"), 0);
    fx_delete(f, OBJ_POD, "ns/low");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/high"), "admitted");
    assert_string_equal(fx_node_of(f, "ns/high"), "n1");
    assert_contains(fx_wl(f, "ns/low")->evict_note, "pod ns/low: evicted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bind_started_then_failed, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_gang_bind_failed_in_part, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_gang_bind_failed_while_evicting,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_bind_failed_at_once, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_evict_started, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests_name("events_async", tests, NULL, NULL);
}
