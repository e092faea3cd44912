/* test_events_jobs.c - unit tests for the events-in interface
 * (sched/scheduler.h) on Jobs and JobSets: parallelism changed while
 * pending (the pod set follows) and while admitted (Kueue's rule: stopped,
 * queued again as a new workload), deleted pending and admitted (its quota
 * is released when its pods are gone), a JobSet's immutable replicated
 * jobs, and Job status (reclaimable quota, finishing). */
#include "events_helpers.h"

static void admit_a(struct fx *f, const char *quota)
{
    char yaml[4096];
    snprintf(yaml, sizeof(yaml),
             FX_RF("default", "pool: a") FX_CQ("cq", "", "default", "%s")
                 FX_LQ("ns", "lq", "cq") FX_NODE("n1", "4", "")
                     FX_JOB("ns", "a", "lq", "2", "1")
                         FX_JOB_POD("ns", "a", "0", "1")
                             FX_JOB_POD("ns", "a", "1", "1"),
             quota);
    fx_add(f, yaml);
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
}

static void test_parallelism_pending(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("10") FX_JOB("ns", "a", "lq", "2", "1"));
    fx_run(f);
    const struct workload *w = fx_wl(f, "ns/a");
    assert_int_equal(w->podsets[0].count, 2);
    /* Kueue makes a workload without quota match its job. */
    fx_update(f, FX_JOB("ns", "a", "lq", "3", "2"));
    fx_run(f);
    w = fx_wl(f, "ns/a");
    assert_int_equal(w->podsets[0].count, 3);
    assert_int_equal(w->podsets[0].req_milli[0], 2000);
    assert_int_equal(w->pods_wanted, 3);
    assert_string_equal(fx_state(f, "ns/a"), "pending");
    fx_update(f, FX_JOB("ns", "a", "lq", "200000", "1"));
    fx_run(f);
    assert_true(fx_wl(f, "ns/a")->over_cap);
    assert_contains(fx_wl(f, "ns/a")->reason, "has 200000 pods");
    fx_update(f, FX_JOB("ns", "a", "lq", "1", "1"));
    fx_run(f);
    assert_false(fx_wl(f, "ns/a")->over_cap);
    /* With its pod there, it is admitted for the new count. */
    fx_add(f, FX_NODE("n1", "4", "") FX_JOB_POD("ns", "a", "0", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 1000);
}

static void test_parallelism_admitted(void **state)
{
    struct fx *f = *state;
    admit_a(f, "10");
    assert_int_equal(scheduler_clock(f->s, INT64_C(60000000000)), 0);
    /* Kueue: the running job no longer matches its workload: it is
     * stopped (its pods evicted) and a new workload with the new count
     * queues. */
    fx_update(f, FX_JOB("ns", "a", "lq", "3", "1"));
    fx_run(f);
    assert_int_equal(f->n_evicts, 2);
    const struct workload *w = fx_wl(f, "ns/a");
    assert_string_equal(fx_state(f, "ns/a"), "pending");
    assert_int_equal(w->evictions, 1);
    assert_int_equal(w->podsets[0].count, 3);
    assert_true(w->queue_ns == INT64_C(60000000000));
    assert_contains(w->evicted_by, "its Job changed");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 0);
    assert_int_equal(fx_free(f, "n1", "cpu"), 4000);
    fx_add(f, FX_JOB_POD("ns", "a", "2", "1") FX_JOB_POD("ns", "a", "3", "1")
                  FX_JOB_POD("ns", "a", "4", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 3000);
    /* The same count again changes nothing. */
    fx_update(f, FX_JOB("ns", "a", "lq", "3", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(f->n_evicts, 2);
}

static void test_deleted_pending(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("1") FX_NODE("n1", "4", "") FX_JOB(
                  "ns", "b", "lq", "2", "1") FX_JOB_POD("ns", "b", "0", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/b"), "pending");
    assert_int_equal(cluster_get_cq(fx_c(f), "cq")->n_pending, 1);
    fx_delete(f, OBJ_JOB, "ns/b");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/b"), "absent");
    assert_null(cluster_get_object(fx_c(f), OBJ_JOB, "ns/b"));
    assert_int_equal(cluster_get_cq(fx_c(f), "cq")->n_pending, 0);
    /* Its pod is nobody's now, until the garbage collector deletes it. */
    assert_null(cluster_get_pod(fx_c(f), "ns/b-0")->wl);
    fx_delete(f, OBJ_POD, "ns/b-0");
    fx_run(f);
    assert_null(cluster_get_pod(fx_c(f), "ns/b-0"));
}

static void test_deleted_admitted(void **state)
{
    struct fx *f = *state;
    admit_a(f, "2");
    fx_add(f, FX_POD("ns", "next", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/next"), "pending");
    fx_delete(f, OBJ_JOB, "ns/a");
    fx_run(f);
    /* Its quota stays until its pods are gone. */
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    assert_string_equal(fx_state(f, "ns/next"), "pending");
    fx_delete(f, OBJ_POD, "ns/a-0");
    fx_run(f);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    fx_delete(f, OBJ_POD, "ns/a-1");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "absent");
    /* Released: the next workload is admitted. */
    assert_string_equal(fx_state(f, "ns/next"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 1000);
    /* A Job of that name again is a new one. */
    fx_add(f, FX_JOB("ns", "a", "lq", "1", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "pending");
    assert_int_equal(fx_wl(f, "ns/a")->evictions, 0);
}

#define JOBSET(replicas)                                                       \
    "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"                \
    "metadata: {name: js, namespace: ns, labels: "                             \
    "{kueue.x-k8s.io/queue-name: lq}}\nspec:\n  replicatedJobs:\n"             \
    "  - name: w\n    replicas: " replicas "\n    template:\n      spec:\n"    \
    "        parallelism: 1\n        template:\n          spec:\n"             \
    "            schedulerName: ordo-scheduler\n"                              \
    "            containers: [{name: c, resources: {requests: "                \
    "{cpu: '1'}}}]\n"

static void test_jobset(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("10") JOBSET("2"));
    fx_run(f);
    assert_int_equal(fx_wl(f, "ns/js")->podsets[0].count, 2);
    /* Replicas may change while it waits; its replicated jobs may not. */
    fx_update(f, JOBSET("3"));
    assert_int_equal(fx_wl(f, "ns/js")->podsets[0].count, 3);
    assert_int_equal(
        fx_feed(
            f,
            "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
            "metadata: {name: js, namespace: ns}\nspec:\n"
            "  replicatedJobs:\n  - {name: a, template: {spec: {template: "
            "{spec: {schedulerName: ordo-scheduler, containers: "
            "[{name: c}]}}}}}\n"
            "  - {name: b, template: {spec: {template: {spec: "
            "{schedulerName: ordo-scheduler, containers: [{name: c}]}}}}}\n",
            true, false),
        -ENOTSUP);
    assert_int_equal(fx_wl(f, "ns/js")->n_podsets, 1);
    fx_delete(f, OBJ_JOBSET, "ns/js");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/js"), "absent");
}

/* As a cluster delivers a JobSet: its child Jobs (owned by it, with its
 * labels) and their pods, owned by the child Jobs. The child Jobs are no
 * workloads of their own; their pods join the JobSet's, in the pod set of
 * their replicated job, and run it. */
#define CHILD_JOB(i)                                                           \
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: js-w-" i         \
    "\n  namespace: ns\n  uid: uid-js-w-" i "\n  labels: "                     \
    "{jobset.sigs.k8s.io/jobset-name: js, "                                    \
    "jobset.sigs.k8s.io/replicatedjob-name: w}\n  ownerReferences:\n"          \
    "  - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, "      \
    "uid: uid-js, controller: true}\n"                                         \
    "spec:\n  parallelism: 1\n  template:\n    spec:\n"                        \
    "      schedulerName: ordo-scheduler\n"                                    \
    "      containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
#define CHILD_POD(i)                                                           \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: js-w-" i "-0"          \
    "\n  namespace: ns\n  labels: {jobset.sigs.k8s.io/jobset-name: js, "       \
    "jobset.sigs.k8s.io/replicatedjob-name: w}\n  ownerReferences:\n"          \
    "  - {apiVersion: batch/v1, kind: Job, name: js-w-" i ", uid: uid-js-w-" i \
    ", controller: true}\n"                                                    \
    "spec:\n  schedulerName: ordo-scheduler\n"                                 \
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"

static void test_jobset_child_jobs(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "") JOBSET("2") CHILD_JOB("0")
                  CHILD_JOB("1") CHILD_POD("0") CHILD_POD("1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/js-w-0"), "absent");
    assert_string_equal(fx_state(f, "ns/js-w-1"), "absent");
    const struct workload *w = fx_wl(f, "ns/js");
    assert_non_null(w);
    assert_int_equal(w->n_pods, 2);
    if (strcmp(fx_state(f, "ns/js"), "admitted") != 0)
        fail_msg("ns/js: %s: %s", fx_state(f, "ns/js"), w->reason);
    assert_non_null(fx_node_of(f, "ns/js-w-0-0"));
    assert_non_null(fx_node_of(f, "ns/js-w-1-0"));
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
}

static void test_job_status(void **state)
{
    struct fx *f = *state;
    fx_add(
        f,
        FX_QUEUES("10") FX_NODE(
            "n1", "4",
            "") "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: w\n"
                "  namespace: ns\n  uid: uid-w\n"
                "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                "spec:\n  parallelism: 2\n  completions: 3\n  template:\n"
                "    spec:\n      schedulerName: ordo-scheduler\n"
                "      containers: [{name: c, resources: {requests: "
                "{cpu: '1'}}}]\n" FX_JOB_POD("ns", "w", "0", "1")
                    FX_JOB_POD("ns", "w", "1", "1"));
    fx_run(f);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    /* Two of three done: the last wave needs one pod (Kueue's
     * reclaimablePods), the other's quota comes back. */
    struct job_status st = {.succeeded = 2};
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOB, "ns/w", &st), 0);
    assert_int_equal(fx_wl(f, "ns/w")->podsets[0].reclaimable, 1);
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 1000);
    st = (struct job_status){.succeeded = 3, .complete = true};
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOB, "ns/w", &st), 0);
    assert_string_equal(fx_state(f, "ns/w"), "finished");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 0);
    /* A status for no Job, or of the wrong kind. */
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOB, "ns/none", &st),
                     -ENOENT);
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOBSET, "ns/w", &st),
                     -ENOENT);
}

/* A job Kueue resumed, stopped because its parallelism changed while its
 * pod was still waiting for a node: admitted again with room planned for
 * its pods, the waiting pod takes that room. */
static void test_resumed_job_changed(void **state)
{
    struct fx *f = *state;
    fx_add(
        f,
        FX_QUEUES("10") FX_NODE(
            "n1", "4",
            "") "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: s\n"
                "  namespace: ns\n  uid: uid-s\n"
                "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                "spec:\n  parallelism: 1\n  suspend: true\n  template:\n"
                "    spec:\n      schedulerName: ordo-scheduler\n"
                "      containers: [{name: c, resources: {requests: "
                "{cpu: '1'}}}]\n");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/s"), "admitted");
    assert_int_equal(f->n_resumes, 1);
    /* Its pod comes, and in the same breath its parallelism changes. */
    fx_add(f, FX_JOB_POD("ns", "s", "0", "1"));
    fx_update(f, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: s\n"
                 "  namespace: ns\n  uid: uid-s\n"
                 "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                 "spec:\n  parallelism: 2\n  suspend: true\n  template:\n"
                 "    spec:\n      schedulerName: ordo-scheduler\n"
                 "      containers: [{name: c, resources: {requests: "
                 "{cpu: '1'}}}]\n");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/s"), "admitted");
    assert_int_equal(fx_wl(f, "ns/s")->evictions, 1);
    assert_int_equal(fx_wl(f, "ns/s")->podsets[0].count, 2);
    assert_int_equal(f->n_resumes, 2);
    assert_non_null(fx_node_of(f, "ns/s-0"));
    assert_string_equal(fx_node_of(f, "ns/s-0"), "n1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parallelism_pending, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_parallelism_admitted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_deleted_pending, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_deleted_admitted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_jobset, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_jobset_child_jobs, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_job_status, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_resumed_job_changed, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests_name("events_jobs", tests, NULL, NULL);
}
