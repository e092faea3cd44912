/* test_events_restart.c - unit tests for a scheduler that starts next to
 * pods already bound (a restart, or a cluster that ran before Ordo): a
 * workload whose bound pods record their admission (ANNOT_ADMISSION_*) is
 * admitted with it exactly, whatever the node labels say; a gang found
 * half bound is completed within it, or evicted whole when it cannot be;
 * no ClusterQueue goes over quota; pods without a record keep the
 * inference from node labels; a pod with spec.nodeName is never bound. */
#include "events_helpers.h"

/* Flavors fa (nodes pool=a) and fb (pool=b); ClusterQueue cq lists both
 * for cpu, `qa` and `qb` of each; LocalQueue ns/lq. */
#define RS_FLAVORS FX_RF("fa", "pool: a") FX_RF("fb", "pool: b")
#define RS_CQ(name, qa, qb)                                                    \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"            \
    "metadata: {name: " name "}\nspec:\n  namespaceSelector: {}\n"             \
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"           \
    "    - {name: fa, resources: [{name: cpu, nominalQuota: " qa "}]}\n"       \
    "    - {name: fb, resources: [{name: cpu, nominalQuota: " qb "}]}\n"
#define RS_NODE(name, pool, cpu)                                               \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name                  \
    ", labels: {pool: " pool "}}\nstatus: {allocatable: {cpu: '" cpu "'}}\n"
/* Pod i of Job ns/job bound to node; annotations (a flow map's entries)
 * may be empty. */
#define RS_BOUND_POD(job, i, node, annotations)                                \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " job "-" i            \
    "\n  namespace: ns\n  annotations: {" annotations "}\n"                    \
    "  ownerReferences:\n"                                                     \
    "  - {apiVersion: batch/v1, kind: Job, name: " job ", uid: uid-" job       \
    ", controller: true}\n"                                                    \
    "spec:\n  schedulerName: ordo-scheduler\n  nodeName: " node "\n"           \
    "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
/* What the Kubernetes backend's Binding writes. */
#define RS_REC(job, cq, flavors)                                               \
    "ordo.dev/workload: ns/" job ", ordo.dev/cluster-queue: " cq               \
    ", ordo.dev/pod-set: main, ordo.dev/flavors: '" flavors "'"

static const struct flavor *podset_flavor(struct fx *f, const char *key)
{
    const struct workload *w = fx_wl(f, key);
    assert_non_null(w->flavors);
    return w->flavors[0];
}

static void test_recorded_flavors_win(void **state)
{
    struct fx *f = *state;
    /* The pods run on a pool=a node, which suggests fa; they record fb. */
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n1", "a", "8") FX_JOB("ns", "a", "lq", "2", "1")
                      RS_BOUND_POD("a", "0", "n1", RS_REC("a", "cq", "cpu=fb"))
                          RS_BOUND_POD("a", "1", "n1",
                                       RS_REC("a", "cq", "cpu=fa")));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    /* The first bound pod's record wins over the other's (logged). */
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 2000);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
    assert_string_equal(podset_flavor(f, "ns/a")->name, "fb");
    assert_string_equal(fx_wl(f, "ns/a")->admitted_cq->name, "cq");
    assert_int_equal(f->n_binds, 0);
    assert_int_equal(f->n_evicts, 0);
    /* A rebuild (a new Kueue object) charges it again as recorded. */
    fx_add(f, FX_LQ("ns", "other", "cq"));
    fx_run(f);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 2000);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
}

/* Informers deliver in any order: bound pods listed before their Job (in
 * an earlier batch) are adopted when the Job comes, and their admission
 * is recovered as if they had come after it: charged, half-bound gang
 * completed, nothing bound twice. */
static void test_pods_before_their_job(void **state)
{
    struct fx *f = *state;
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n1", "a", "8") RS_NODE("n2", "b", "8")
                      RS_BOUND_POD("a", "0", "n1", RS_REC("a", "cq", "cpu=fb"))
                          RS_BOUND_POD("a", "1", "n1",
                                       RS_REC("a", "cq", "cpu=fb")));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "absent");
    fx_add(f, FX_JOB("ns", "a", "lq", "3", "1") FX_JOB_POD("ns", "a", "2", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_wl(f, "ns/a")->n_pods, 3);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 3000);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
    /* Only the pending pod is bound, on fb's node; the two bound stay. */
    assert_int_equal(f->n_binds, 1);
    assert_int_equal(f->n_evicts, 0);
    assert_string_equal(fx_node_of(f, "ns/a-2"), "n2");
    assert_string_equal(fx_node_of(f, "ns/a-0"), "n1");
    assert_string_equal(fx_node_of(f, "ns/a-1"), "n1");
}

static void test_recorded_cq_not_local_queue(void **state)
{
    struct fx *f = *state;
    /* Its LocalQueue points elsewhere now: the recorded ClusterQueue is
     * the one charged. */
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") RS_CQ("cq2", "4", "4")
                  FX_LQ("ns", "lq", "cq2") RS_NODE("n1", "b", "8")
                      FX_JOB("ns", "a", "lq", "1", "1") RS_BOUND_POD(
                          "a", "0", "n1", RS_REC("a", "cq", "cpu=fb")));
    fx_run(f);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 1000);
    assert_int_equal(fx_usage(f, "cq2", "fb", "cpu"), 0);
}

static void test_unrecorded_pods_inferred(void **state)
{
    struct fx *f = *state;
    /* Bound by an older Ordo or by hand: flavors from the node's labels,
     * the queue from the LocalQueue, as before. A record naming another
     * workload is not this one's. */
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n1", "b", "8") FX_JOB("ns", "a", "lq", "1", "1")
                      RS_BOUND_POD("a", "0", "n1", "")
                          FX_JOB("ns", "b", "lq", "1", "1") RS_BOUND_POD(
                              "b", "0", "n1", RS_REC("x", "cq", "cpu=fa")));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_string_equal(fx_state(f, "ns/b"), "admitted");
    assert_string_equal(podset_flavor(f, "ns/a")->name, "fb");
    assert_string_equal(podset_flavor(f, "ns/b")->name, "fb");
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 2000);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
    assert_int_equal(f->n_binds, 0);
}

static void test_half_bound_completed(void **state)
{
    struct fx *f = *state;
    /* Its pending pod comes first, its bound pods after (informers list
     * in any order); the record says fb, whose nodes are pool=b. */
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n1", "a", "8") RS_NODE("n2", "b", "8") FX_JOB(
                      "ns", "a", "lq", "3", "1") FX_JOB_POD("ns", "a", "2", "1")
                      RS_BOUND_POD("a", "0", "n2", RS_REC("a", "cq", "cpu=fb"))
                          RS_BOUND_POD("a", "1", "n2",
                                       RS_REC("a", "cq", "cpu=fb")));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 3000);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
    /* The straggler is placed within the admission: on fb's node. */
    assert_int_equal(f->n_binds, 1);
    assert_string_equal(f->binds[0], "ns/a-2@n2");
    assert_int_equal(f->n_evicts, 0);
    assert_int_equal(fx_wl(f, "ns/a")->evictions, 0);
    /* The bound pods were not bound again. */
    assert_int_equal(fx_free(f, "n2", "cpu"), 5000);
}

/* Pod i of Job ns/job that ran on node and succeeded, with its record. */
#define RS_DONE_POD(job, i, node, annotations)                                 \
    RS_BOUND_POD(job, i, node, annotations) "status: {phase: Succeeded}\n"

/* A restart after a gang's binds were cut short and its bound pods have
 * all finished since: no pod is bound, but the finished ones record the
 * admission and the Job runs unsuspended, so it is admitted still, its
 * last pod placed within it (not queued for a gang of pods its controller
 * will never make again). */
static void test_finished_pods_keep_admission(void **state)
{
    struct fx *f = *state;
    fx_add(f, RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n1", "a", "8") RS_NODE("n2", "b", "8")
                      FX_JOB("ns", "a", "lq", "3", "1")
                          RS_DONE_POD("a", "0", "n2", RS_REC("a", "cq", "cpu=fb"))
                              RS_DONE_POD("a", "1", "n2",
                                          RS_REC("a", "cq", "cpu=fb"))
                                  FX_JOB_POD("ns", "a", "2", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_string_equal(fx_wl(f, "ns/a")->admitted_cq->name, "cq");
    assert_int_equal(f->n_binds, 1);
    assert_string_equal(f->binds[0], "ns/a-2@n2");
    assert_int_equal(f->n_evicts, 0);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);

    /* A suspended Job's finished pods are an old admission's: it queues. */
    fx_add(f, "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: b\n"
              "  namespace: ns\n  uid: uid-b\n"
              "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
              "spec:\n  suspend: true\n  parallelism: 1\n  template:\n"
              "    spec:\n      schedulerName: ordo-scheduler\n"
              "      containers: [{name: c, resources: {requests: {cpu: '9'}}}]\n"
                  RS_DONE_POD("b", "0", "n2", RS_REC("b", "cq", "cpu=fb")));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/b"), "pending");
}

/* The same after a restart with quota for the pods still to come only:
 * the Job's status says 3 of its 5 pods succeeded, so the admission
 * needs room for 2 (Kueue's reclaimablePods), which fb's 4 CPUs hold. */
static void test_finished_pods_reclaimed(void **state)
{
    struct fx *f = *state;
    fx_add(f, RS_FLAVORS RS_CQ("cq", "0", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n2", "b", "8") FX_JOB("ns", "a", "lq", "5", "1"));
    /* As the Kubernetes backend delivers it: the Job, then its status. */
    struct job_status st = {.succeeded = 3};
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOB, "ns/a", &st), 0);
    fx_add(f, RS_DONE_POD("a", "0", "n2", RS_REC("a", "cq", "cpu=fb"))
                      RS_DONE_POD("a", "1", "n2", RS_REC("a", "cq", "cpu=fb"))
                          RS_DONE_POD("a", "2", "n2",
                                      RS_REC("a", "cq", "cpu=fb"))
                              FX_JOB_POD("ns", "a", "3", "1")
                                  FX_JOB_POD("ns", "a", "4", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(f->n_evicts, 0);
    assert_int_equal(f->n_binds, 2);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 2000);
}

/* Without the status (no completions known) the same admission would
 * need 5 CPUs of fb's 4: it cannot be honoured, so it is stopped whole;
 * none of its pods is bound on the way. */
static void test_finished_pods_record_too_big(void **state)
{
    struct fx *f = *state;
    fx_add(f, RS_FLAVORS RS_CQ("cq", "0", "4") FX_LQ("ns", "lq", "cq")
                  RS_NODE("n2", "b", "8") FX_JOB("ns", "a", "lq", "5", "1")
                      RS_DONE_POD("a", "0", "n2", RS_REC("a", "cq", "cpu=fb"))
                          RS_DONE_POD("a", "1", "n2",
                                      RS_REC("a", "cq", "cpu=fb"))
                              RS_DONE_POD("a", "2", "n2",
                                          RS_REC("a", "cq", "cpu=fb"))
                                  FX_JOB_POD("ns", "a", "3", "1")
                                      FX_JOB_POD("ns", "a", "4", "1"));
    fx_run(f);
    assert_string_not_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(f->n_binds, 0);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 0);
}

static void test_half_bound_flavor_gone(void **state)
{
    struct fx *f = *state;
    /* ns/a records a flavor that no longer exists, ns/b a ClusterQueue
     * that no longer exists, ns/c a flavor its ClusterQueue no longer
     * lists. None is completed: each is evicted whole and queued again,
     * and nothing is charged meanwhile. */
    fx_add(f,
           RS_FLAVORS FX_RF("fc", "pool: b") RS_CQ("cq", "4", "4") FX_LQ(
               "ns", "lq", "cq") RS_NODE("n0", "a", "8") RS_NODE("n1", "b", "8")
               FX_JOB("ns", "a", "lq", "2", "1")
                   RS_BOUND_POD("a", "0", "n1", RS_REC("a", "cq", "cpu=gone"))
                       FX_JOB_POD("ns", "a", "1", "1")
                           FX_JOB("ns", "b", "lq", "2", "1") RS_BOUND_POD(
                               "b", "0", "n1", RS_REC("b", "old", "cpu=fb"))
                               FX_JOB_POD("ns", "b", "1", "1")
                                   FX_JOB("ns", "c", "lq", "2", "1")
                                       RS_BOUND_POD("c", "0", "n1",
                                                    RS_REC("c", "cq", "cpu=fc"))
                                           FX_JOB_POD("ns", "c", "1", "1"));
    fx_run(f);
    assert_int_equal(f->n_evicts, 3);
    assert_null(cluster_get_pod(fx_c(f), "ns/a-0"));
    assert_null(cluster_get_pod(fx_c(f), "ns/b-0"));
    assert_null(cluster_get_pod(fx_c(f), "ns/c-0"));
    const char *keys[] = {"ns/a", "ns/b", "ns/c"};
    const char *why[] = {"ResourceFlavor gone", "ClusterQueue old",
                         "no longer lists ResourceFlavor fc"};
    for (int i = 0; i < 3; i++) {
        const struct workload *w = fx_wl(f, keys[i]);
        assert_string_equal(fx_state(f, keys[i]), "pending");
        assert_int_equal(w->evictions, 1);
        if (!strstr(w->evicted_by, why[i]))
            fail_msg("%s: evicted by \"%s\", not \"%s\"", keys[i],
                     w->evicted_by, why[i]);
    }
    /* Its pending pod alone is not a gang: nothing is bound, and never
     * was (no split workload). */
    assert_int_equal(f->n_binds, 0);
    assert_int_equal(fx_usage(f, "cq", "fa", "cpu"), 0);
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 0);
    /* Its controller makes the evicted pod again: queued, admitted anew
     * (the Job's whole gang), by the cycle's own choice. */
    fx_add(f, FX_JOB_POD("ns", "a", "0b", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/a"), "admitted");
    assert_int_equal(
        fx_usage(f, "cq", "fb", "cpu") + fx_usage(f, "cq", "fa", "cpu"), 2000);
}

static void test_fully_bound_flavor_gone(void **state)
{
    struct fx *f = *state;
    /* A record that cannot be honoured is not guessed at, even when every
     * pod runs: evicted whole, queued again. */
    fx_add(f,
           RS_FLAVORS RS_CQ("cq", "4", "4") FX_LQ("ns", "lq", "cq") RS_NODE(
               "n1", "b", "8") FX_JOB("ns", "a", "lq", "2", "1")
               RS_BOUND_POD("a", "0", "n1", RS_REC("a", "cq", "cpu=gone"))
                   RS_BOUND_POD("a", "1", "n1", RS_REC("a", "cq", "cpu=gone")));
    fx_run(f);
    assert_int_equal(f->n_evicts, 2);
    assert_string_equal(fx_state(f, "ns/a"), "pending");
    assert_int_equal(fx_usage(f, "cq", "fb", "cpu"), 0);
}

/* Usage of cq on fa and fb never above quota_milli. */
static void assert_within(struct fx *f, const char *cq, int64_t quota_milli)
{
    int64_t a = fx_usage(f, cq, "fa", "cpu"), b = fx_usage(f, cq, "fb", "cpu");
    if (a > quota_milli || b > quota_milli)
        fail_msg("%s over quota: fa %lld fb %lld of %lld", cq, (long long)a,
                 (long long)b, (long long)quota_milli);
}

static void test_near_quota_never_exceeded(void **state)
{
    struct fx *f = *state;
    f->bind_answer = BACKEND_STARTED;
    /* Two ClusterQueues of 4 cpu, 3 of each taken by a running Job (cq1 on
     * fa, cq2 on fb); pending Jobs of 2 cpu in each, listed before the
     * running pods; in cq1 a Job found half bound (1 of 2 pods) whose
     * record is valid but whose second pod would take cq1 to 5. */
    fx_add(f, RS_FLAVORS RS_CQ("cq1", "4", "0") RS_CQ("cq2", "0", "4")
                  FX_LQ("ns", "lq1", "cq1") FX_LQ("ns", "lq2", "cq2")
                      RS_NODE("n1", "a", "16") RS_NODE("n2", "b", "16")
                          FX_JOB("ns", "p1", "lq1", "2", "1")
                              FX_JOB_POD("ns", "p1", "0", "1")
                                  FX_JOB_POD("ns", "p1", "1", "1")
                                      FX_JOB("ns", "p2", "lq2", "2", "1")
                                          FX_JOB_POD("ns", "p2", "0", "1")
                                              FX_JOB_POD("ns", "p2", "1", "1"));
    fx_add(f, FX_JOB("ns", "h", "lq1", "2", "1")
                  RS_BOUND_POD("h", "0", "n1", RS_REC("h", "cq1", "cpu=fa"))
                      FX_JOB_POD("ns", "h", "1", "1"));
    fx_add(f,
           FX_JOB("ns", "r1", "lq1", "3", "1") RS_BOUND_POD(
               "r1", "0", "n1", RS_REC("r1", "cq1", "cpu=fa"))
               RS_BOUND_POD("r1", "1", "n1", RS_REC("r1", "cq1", "cpu=fa"))
                   RS_BOUND_POD("r1", "2", "n1", RS_REC("r1", "cq1", "cpu=fa"))
                       FX_JOB("ns", "r2", "lq2", "3", "1") RS_BOUND_POD(
                           "r2", "0", "n2", RS_REC("r2", "cq2", "cpu=fb"))
                           RS_BOUND_POD("r2", "1", "n2",
                                        RS_REC("r2", "cq2", "cpu=fb"))
                               RS_BOUND_POD("r2", "2", "n2",
                                            RS_REC("r2", "cq2", "cpu=fb")));
    fx_run(f);
    assert_within(f, "cq1", 4000);
    assert_within(f, "cq2", 4000);
    assert_int_equal(fx_usage(f, "cq1", "fa", "cpu"), 3000);
    assert_int_equal(fx_usage(f, "cq2", "fb", "cpu"), 3000);
    assert_string_equal(fx_state(f, "ns/r1"), "admitted");
    assert_string_equal(fx_state(f, "ns/r2"), "admitted");
    assert_string_equal(fx_state(f, "ns/p1"), "pending");
    assert_string_equal(fx_state(f, "ns/p2"), "pending");
    /* The half-bound one is evicted whole, not completed over quota. */
    assert_int_equal(f->n_binds, 0);
    assert_int_equal(f->n_evicts, 1);
    assert_string_equal(f->evicts[0], "ns/h-0");
    if (!strstr(fx_wl(f, "ns/h")->evicted_by, "exceed ClusterQueue cq1"))
        fail_msg("evicted by: %s", fx_wl(f, "ns/h")->evicted_by);
    /* A later cycle admits nothing either; a finished running Job frees
     * its quota, and a pending one takes it. */
    fx_run(f);
    assert_int_equal(f->n_binds, 0);
    assert_within(f, "cq1", 4000);
    struct job_status st = {.complete = true, .succeeded = 3};
    assert_int_equal(scheduler_job_status(f->s, OBJ_JOB, "ns/r1", &st), 0);
    fx_run(f);
    assert_within(f, "cq1", 4000);
    assert_within(f, "cq2", 4000);
    assert_int_equal(fx_usage(f, "cq2", "fb", "cpu"), 3000);
    assert_string_equal(fx_state(f, "ns/p2"), "pending");
    assert_int_equal(fx_usage(f, "cq1", "fa", "cpu"), 2000);
}

static void test_bound_pod_never_bound_again(void **state)
{
    struct fx *f = *state;
    f->bind_answer = BACKEND_STARTED;
    fx_add(f, FX_QUEUES("10") FX_NODE("n1", "4", "")
                  FX_POD("ns", "solo", "lq", "1"));
    fx_run(f);
    assert_int_equal(f->n_binds, 1);
    /* The informer says it is bound; then the bind's answer is a failure
     * (a conflict: it was bound already). It stays where it is. */
    fx_update(f, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\n"
                 "  namespace: ns\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"
                 "spec:\n  schedulerName: ordo-scheduler\n  nodeName: n1\n"
                 "  containers: [{name: c, resources: {requests: {cpu: "
                 "'1'}}}]\n");
    assert_int_equal(scheduler_pod_bind_failed(f->s, "ns/solo"), 0);
    assert_string_equal(fx_node_of(f, "ns/solo"), "n1");
    fx_run(f);
    assert_int_equal(f->n_binds, 1);
    assert_int_equal(fx_free(f, "n1", "cpu"), 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorded_flavors_win, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_pods_before_their_job, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_recorded_cq_not_local_queue,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_unrecorded_pods_inferred, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_finished_pods_keep_admission,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_finished_pods_reclaimed,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_finished_pods_record_too_big,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_half_bound_completed, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_half_bound_flavor_gone, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_fully_bound_flavor_gone, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_near_quota_never_exceeded,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_bound_pod_never_bound_again,
                                        fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
