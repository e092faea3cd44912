/* test_kube_status.c - unit tests for what Ordo writes to a cluster
 * (sched/backend/kube/kube_workload.c, kube_queue_status.c,
 * kube_pod_status.c): scheduler state built through scheduler.h events,
 * cycles run, then the Workload object, its conditions with Kueue's reasons
 * and messages, its admission, ClusterQueue and LocalQueue status and the
 * PodScheduled condition, read back from the JSON. */
#include "events_helpers.h"
#include "kube_pod_status.h"
#include "kube_queue_status.h"
#include "kube_status_helpers.h"
#include "kube_workload.h"

#define JOB_PRIO(name, prio, cpu)                                              \
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " name           \
    "\n  namespace: ns\n  uid: uid-" name "\n  labels: "                       \
    "{kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: " prio     \
    "}\nspec:\n  parallelism: 1\n  template:\n    spec:\n"                     \
    "      schedulerName: ordo-scheduler\n"                                    \
    "      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"
#define WPC(name, value)                                                       \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"   \
    "metadata: {name: " name "}\nvalue: " value "\n"

static struct json_object *wl_object(struct fx *f, const char *key,
                                     const struct kube_wl_opts *o)
{
    struct json_object *obj;
    assert_int_equal(kube_workload_object(fx_c(f), fx_wl(f, key), o, &obj), 0);
    return obj;
}

static void test_workload_pending_then_admitted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("1") FX_NODE("n1", "8", "")
                  FX_JOB("ns", "j1", "lq", "2", "1")
                      FX_JOB_POD("ns", "j1", "0", "1")
                          FX_JOB_POD("ns", "j1", "1", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/j1"), "pending");
    struct json_object *obj = wl_object(f, "ns/j1", NULL);
    /* Kueue's name: kind, name, 5 hex digits of SHA-1("Job\nbatch\nj1\n
     * uid-j1"). */
    assert_string_equal(kj_str(obj, "metadata.name"), "job-j1-aa15a");
    assert_string_equal(kj_str(obj, "apiVersion"), "kueue.x-k8s.io/v1beta2");
    assert_string_equal(kj_str(obj, "kind"), "Workload");
    assert_string_equal(kj_str(obj, "metadata.namespace"), "ns");
    struct json_object *labels = kj_at(obj, "metadata.labels");
    struct json_object *v;
    assert_true(
        json_object_object_get_ex(labels, "kueue.x-k8s.io/queue-name", &v));
    assert_string_equal(json_object_get_string(v), "lq");
    assert_true(
        json_object_object_get_ex(labels, "kueue.x-k8s.io/job-uid", &v));
    assert_string_equal(json_object_get_string(v), "uid-j1");
    assert_string_equal(kj_str(obj, "metadata.ownerReferences.0.kind"), "Job");
    assert_string_equal(kj_str(obj, "metadata.ownerReferences.0.apiVersion"),
                        "batch/v1");
    assert_string_equal(kj_str(obj, "metadata.ownerReferences.0.uid"),
                        "uid-j1");
    assert_true(json_object_get_boolean(
        kj_at(obj, "metadata.ownerReferences.0.controller")));
    assert_string_equal(kj_str(obj, "spec.queueName"), "lq");
    assert_int_equal(kj_int(obj, "spec.priority"), 0);
    assert_null(kj_at(obj, "spec.priorityClassRef"));
    assert_string_equal(kj_str(obj, "spec.podSets.0.name"), "main");
    assert_int_equal(kj_int(obj, "spec.podSets.0.count"), 2);
    assert_string_equal(
        kj_str(obj, "spec.podSets.0.template.spec.containers.0.resources."
                    "requests.cpu"),
        "1");
    /* Waiting: QuotaReserved False, Kueue's reason, Ordo's message. */
    assert_cond(obj, "status.conditions", "QuotaReserved", "False", "Pending",
                fx_wl(f, "ns/j1")->reason);
    assert_contains(fx_wl(f, "ns/j1")->reason, "insufficient");
    assert_null(kj_cond(obj, "status.conditions", "Admitted"));
    assert_null(kj_at(obj, "status.admission"));
    json_object_put(obj);

    fx_update(f, FX_CQ("cq", "", "default", "4"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/j1"), "admitted");
    obj = wl_object(f, "ns/j1", NULL);
    assert_cond(obj, "status.conditions", "QuotaReserved", "True",
                "QuotaReserved", "Quota reserved in ClusterQueue cq");
    assert_cond(obj, "status.conditions", "Admitted", "True", "Admitted",
                "The workload is admitted");
    assert_null(kj_cond(obj, "status.conditions", "Evicted"));
    assert_string_equal(kj_str(obj, "status.admission.clusterQueue"), "cq");
    assert_string_equal(
        kj_str(obj, "status.admission.podSetAssignments.0.name"), "main");
    assert_string_equal(
        kj_str(obj, "status.admission.podSetAssignments.0.flavors.cpu"),
        "default");
    assert_string_equal(
        kj_str(obj, "status.admission.podSetAssignments.0.resourceUsage.cpu"),
        "2");
    assert_int_equal(kj_int(obj, "status.admission.podSetAssignments.0.count"),
                     2);
    json_object_put(obj);
}

static const char *uid_of(void *data, const char *key)
{
    (void)data;
    return strcmp(key, "ns/high") == 0 ? "wl-uid-high" : NULL;
}

static void test_workload_preempted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a") FX_CQ(
                  "cq", "  preemption: {withinClusterQueue: LowerPriority}\n",
                  "default", "2") FX_LQ("ns", "lq", "cq") FX_NODE("n1", "8", "")
                  WPC("low", "1") WPC("high", "100") JOB_PRIO("low", "low", "2")
                      FX_JOB_POD("ns", "low", "0", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/low"), "admitted");
    fx_add(f, JOB_PRIO("high", "high", "2") FX_JOB_POD("ns", "high", "0", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/high"), "admitted");
    assert_string_equal(fx_state(f, "ns/low"), "pending");
    struct kube_wl_opts o = {.uid_of = uid_of};
    struct json_object *obj = wl_object(f, "ns/low", &o);
    const char *msg = "Preempted to accommodate a workload (UID: wl-uid-high, "
                      "JobUID: uid-high) due to prioritization in the "
                      "ClusterQueue; preemptor path: /cq; preemptee path: /cq";
    assert_cond(obj, "status.conditions", "Evicted", "True", "Preempted", msg);
    assert_cond(obj, "status.conditions", "Preempted", "True", "InClusterQueue",
                msg);
    assert_cond(obj, "status.conditions", "Requeued", "True", "Preempted", msg);
    assert_cond(obj, "status.conditions", "Admitted", "False", "NoReservation",
                "The workload has no reservation");
    assert_cond(obj, "status.conditions", "QuotaReserved", "False", "Pending",
                fx_wl(f, "ns/low")->reason);
    assert_null(kj_at(obj, "status.admission"));
    assert_string_equal(kj_str(obj, "spec.priorityClassRef.kind"),
                        "WorkloadPriorityClass");
    assert_string_equal(kj_str(obj, "spec.priorityClassRef.name"), "low");
    assert_int_equal(kj_int(obj, "spec.priority"), 1);
    json_object_put(obj);
    /* The preemptor gone, low is admitted again: Kueue turns Evicted and
     * Preempted False, "Previously: ...". */
    fx_delete(f, OBJ_POD, "ns/high-0");
    fx_delete(f, OBJ_JOB, "ns/high");
    fx_add(f, FX_JOB_POD("ns", "low", "1", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/low"), "admitted");
    obj = wl_object(f, "ns/low", NULL);
    char prev[600];
    snprintf(prev, sizeof(prev), "Previously: %s",
             "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: "
             "UNKNOWN) due to prioritization in the ClusterQueue; preemptor "
             "path: UNKNOWN; preemptee path: /cq");
    assert_cond(obj, "status.conditions", "Evicted", "False", "QuotaReserved",
                prev);
    assert_cond(obj, "status.conditions", "Preempted", "False", "QuotaReserved",
                prev);
    assert_cond(obj, "status.conditions", "QuotaReserved", "True",
                "QuotaReserved", "Quota reserved in ClusterQueue cq");
    json_object_put(obj);
}

static void test_workload_put_patches_changes(void **state)
{
    struct fx *f = *state;
    struct kube_writes q;
    kube_writes_init(&q, 100, 100, 0);
    fx_add(f,
           FX_QUEUES("1") FX_NODE("n1", "8", "") FX_POD("ns", "p", "lq", "2"));
    fx_run(f);
    assert_int_equal(kube_workload_put(&q, fx_c(f), fx_wl(f, "ns/p"), NULL), 0);
    assert_int_equal(q.n_pending, 2); /* the object, then its status */
    const struct json_object *st = NULL;
    char skey[300];
    char name[KUBE_NAME_MAX];
    assert_int_equal(kube_workload_name(fx_wl(f, "ns/p"), name, sizeof(name)),
                     0);
    assert_int_equal(strncmp(name, "pod-p-", 6), 0);
    snprintf(skey, sizeof(skey), "Workload/status ns/%s", name);
    st = kube_writes_state(&q, skey);
    assert_non_null(st);
    /* Admitted: one patch pending for the status, still coalesced. */
    fx_update(f, FX_CQ("cq", "", "default", "4"));
    fx_run(f);
    assert_int_equal(kube_workload_put(&q, fx_c(f), fx_wl(f, "ns/p"), NULL), 0);
    assert_int_equal(q.n_pending, 2);
    assert_true(q.coalesced >= 1);
    /* Off: nothing more is filed. */
    q.workloads_off = true;
    uint64_t puts = q.puts;
    assert_int_equal(kube_workload_put(&q, fx_c(f), fx_wl(f, "ns/p"), NULL), 0);
    assert_int_equal(q.puts, puts);
    assert_int_equal(q.dropped, 1);
    kube_writes_release(&q);
}

static void test_cq_lq_status(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("3") FX_NODE("n1", "8", "") FX_POD("ns", "a", "lq", "2")
                  FX_POD("ns", "b", "lq", "2") FX_CQ("lost", "", "nope", "1")
                      FX_LQ("ns", "orphan", "missing"));
    fx_run(f);
    struct json_object *st;
    assert_int_equal(kube_cq_status(fx_c(f), cluster_get_cq(fx_c(f), "cq"),
                                    INT64_C(1000000000), &st),
                     0);
    assert_int_equal(kj_int(st, "status.pendingWorkloads"), 1);
    assert_int_equal(kj_int(st, "status.reservingWorkloads"), 1);
    assert_int_equal(kj_int(st, "status.admittedWorkloads"), 1);
    assert_string_equal(kj_str(st, "status.flavorsUsage.0.name"), "default");
    assert_string_equal(kj_str(st, "status.flavorsUsage.0.resources.0.name"),
                        "cpu");
    assert_string_equal(kj_str(st, "status.flavorsUsage.0.resources.0.total"),
                        "2");
    assert_string_equal(
        kj_str(st, "status.flavorsUsage.0.resources.0.borrowed"), "0");
    assert_string_equal(
        kj_str(st, "status.flavorsReservation.0.resources.0.total"), "2");
    assert_cond(st, "status.conditions", "Active", "True", "Ready",
                "Can admit new workloads");
    assert_string_equal(kj_str(st, "status.conditions.0.lastTransitionTime"),
                        "1970-01-01T00:00:01Z");
    json_object_put(st);
    assert_int_equal(
        kube_cq_status(fx_c(f), cluster_get_cq(fx_c(f), "lost"), 0, &st), 0);
    assert_cond(st, "status.conditions", "Active", "False", "FlavorNotFound",
                "Can't admit new workloads: ResourceFlavor nope not found");
    json_object_put(st);

    assert_int_equal(kube_lq_status(fx_c(f), "ns/lq", 0, &st), 0);
    assert_int_equal(kj_int(st, "status.pendingWorkloads"), 1);
    assert_int_equal(kj_int(st, "status.admittedWorkloads"), 1);
    assert_string_equal(kj_str(st, "status.flavorsUsage.0.name"), "default");
    assert_string_equal(kj_str(st, "status.flavorsUsage.0.resources.0.total"),
                        "2");
    assert_cond(st, "status.conditions", "Active", "True", "Ready",
                "Can submit new workloads to localQueue");
    json_object_put(st);
    assert_int_equal(kube_lq_status(fx_c(f), "ns/orphan", 0, &st), 0);
    assert_cond(st, "status.conditions", "Active", "False",
                "ClusterQueueDoesNotExist",
                "Can't submit new workloads to clusterQueue");
    json_object_put(st);
    assert_int_equal(kube_lq_status(fx_c(f), "ns/none", 0, &st), -ENOENT);

    /* The put keeps Active's time while it stays True. */
    struct kube_writes q;
    kube_writes_init(&q, 10, 10, 0);
    const struct cq *cq = cluster_get_cq(fx_c(f), "cq");
    assert_int_equal(kube_cq_status_put(&q, fx_c(f), cq, INT64_C(5000000000)),
                     0);
    assert_int_equal(kube_cq_status_put(&q, fx_c(f), cq, INT64_C(9000000000)),
                     0);
    struct json_object *last =
        (struct json_object *)kube_writes_state(&q, "ClusterQueue/status cq");
    assert_string_equal(kj_str(last, "status.conditions.0.lastTransitionTime"),
                        "1970-01-01T00:00:05Z");
    kube_writes_release(&q);
}

static void test_pod_scheduled(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_QUEUES("1") FX_NODE("n1", "8", "") FX_POD(
                  "ns", "big", "lq", "2") FX_POD("ns", "small", "lq", "1"));
    fx_run(f);
    struct json_object *st;
    const struct pod *p = cluster_get_pod(fx_c(f), "ns/big");
    assert_int_equal(kube_pod_scheduled(p, NULL, 0, &st), 0);
    assert_cond(st, "status.conditions", "PodScheduled", "False",
                "Unschedulable", fx_wl(f, "ns/big")->reason);
    json_object_put(st);
    p = cluster_get_pod(fx_c(f), "ns/small");
    assert_int_equal(kube_pod_scheduled(p, NULL, 0, &st), 0);
    assert_string_equal(kj_str(st, "status.conditions.0.status"), "True");
    assert_null(kj_at(st, "status.conditions.0.reason"));
    json_object_put(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_workload_pending_then_admitted,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_workload_preempted, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_workload_put_patches_changes,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_cq_lq_status, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_pod_scheduled, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
