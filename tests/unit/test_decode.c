/* test_decode.c - decoding real Kubernetes objects and Kueue objects into
 * typed structs, and the errors for invalid ones (file:line: Kind name:
 * field.path: what). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode.h"
#include "doc.h"
#include "test_helpers.h"

/* Decodes the first document of a YAML string. Returns decode_object's
 * result; *ret gets the object, msg the error. */
static int decode_yaml(const char *yaml, struct object **ret, char *msg)
{
    struct doc *d = NULL;
    struct err e = {{0}};
    int r = doc_parse_yaml(yaml, strlen(yaml), "t.yaml", &d, &e);
    if (r == 0) {
        assert_true(d->n_docs >= 1);
        r = decode_object(d->docs[0], "t.yaml", ret, &e);
    }
    if (msg)
        strcpy(msg, e.msg);
    doc_free(d);
    return r;
}

static struct object *must_decode(const char *yaml)
{
    struct object *o = NULL;
    char msg[ERR_MSG_MAX];
    int r = decode_yaml(yaml, &o, msg);
    if (r != 0)
        print_error("decode failed (%d): %s\n", r, msg);
    assert_int_equal(r, 0);
    return o;
}

/* Asserts decoding fails with a message containing `want`. */
static void must_fail(const char *yaml, const char *want)
{
    struct object *o = NULL;
    char msg[ERR_MSG_MAX] = "";
    int r = decode_yaml(yaml, &o, msg);
    if (r == 0)
        object_free(o);
    assert_int_equal(r, -EINVAL);
    assert_contains(msg, want);
}

/* Sets the scalar of metadata.<key> in a document tree. */
static void set_meta(struct doc_node *doc, const char *key, const char *value)
{
    struct doc_node *meta = NULL;
    for (size_t i = 0; i < doc->n; i++)
        if (strcmp(doc->keys[i], "metadata") == 0)
            meta = doc->items[i];
    assert_non_null(meta);
    for (size_t i = 0; i < meta->n; i++)
        if (strcmp(meta->keys[i], key) == 0)
            meta->items[i]->scalar = value;
}

/* Loads a fixture. Their placeholder names ("nameValue", "namespaceValue")
 * are not valid Kubernetes names, which the decoder refuses (see
 * test_fixture_names_refused), so they are lowercased first: everything else
 * is decoded as the fixture has it. */
static struct object *load_fixture(const char *name)
{
    char path[1024];
    struct doc *d = NULL;
    struct err e = {{0}};
    struct object *o = NULL;
    snprintf(path, sizeof(path), "%s/k8s-api/%s", test_data_dir(), name);
    int r = doc_load_file(path, &d, &e);
    if (r < 0)
        print_error("%s\n", e.msg);
    assert_int_equal(r, 0);
    assert_int_equal(d->n_docs, 1);
    set_meta(d->docs[0], "name", "namevalue");
    set_meta(d->docs[0], "namespace", "namespacevalue");
    r = decode_object(d->docs[0], path, &o, &e);
    if (r < 0)
        print_error("%s\n", e.msg);
    assert_int_equal(r, 0);
    doc_free(d);
    return o;
}

static void check_fixture_meta(const struct object *o)
{
    assert_string_equal(o->meta.name, "namevalue");
    assert_string_equal(o->meta.uid, "uidValue");
    assert_string_equal(o->meta.resource_version, "resourceVersionValue");
    assert_string_equal(strmap_get(&o->meta.labels, "labelsKey"),
                        "labelsValue");
    assert_string_equal(strmap_get(&o->meta.annotations, "annotationsKey"),
                        "annotationsValue");
    assert_true(o->meta.has_creation);
    /* 2008-01-01T01:01:01Z */
    assert_int_equal(o->meta.creation_ns, 1199149261LL * 1000000000LL);
    assert_true(o->meta.deleting);
    assert_int_equal(o->meta.n_owners, 1);
    assert_string_equal(o->meta.owners[0].kind, "kindValue");
    assert_true(o->meta.owners[0].controller);
    assert_ptr_equal(object_meta_controller(&o->meta), &o->meta.owners[0]);
}

static void check_fixture_pod_spec(const struct pod_spec *s)
{
    assert_string_equal(s->scheduler_name, "schedulerNameValue");
    assert_string_equal(s->node_name, "nodeNameValue");
    assert_string_equal(s->priority_class_name, "priorityClassNameValue");
    assert_true(s->has_priority);
    assert_string_equal(strmap_get(&s->node_selector, "nodeSelectorKey"),
                        "nodeSelectorValue");
    /* Enum fields carry placeholder strings: kept as unknown, which never
     * matches, rather than rejected. */
    assert_int_equal(s->n_tolerations, 1);
    assert_int_equal(s->tolerations[0].op, TOLERATION_OP_UNKNOWN);
    assert_int_equal(s->tolerations[0].effect, TAINT_EFFECT_UNKNOWN);
    assert_true(s->tolerations[0].has_seconds);
    assert_int_equal(s->tolerations[0].toleration_seconds, 5);
    assert_non_null(s->required_affinity);
    assert_int_equal(s->required_affinity->n_terms, 1);
    assert_int_equal(s->required_affinity->terms[0].match_expressions[0].op,
                     SELECTOR_OP_UNKNOWN);
    assert_int_equal(s->n_containers, 1);
    assert_int_equal(s->n_init_containers, 1);
    assert_int_equal(s->n_scheduling_gates, 1);
}

static void test_fixture_pod(void **state)
{
    const char *files[] = {"core.v1.Pod.json", "core.v1.Pod.yaml"};
    for (size_t i = 0; i < 2; i++) {
        struct object *o = load_fixture(files[i]);
        assert_int_equal(o->kind, OBJ_POD);
        assert_string_equal(o->meta.namespace_, "namespacevalue");
        check_fixture_meta(o);
        check_fixture_pod_spec(&o->u.pod.spec);
        assert_int_equal(o->u.pod.spec.priority, 25);
        assert_int_equal(o->u.pod.phase, POD_PHASE_UNKNOWN);
        object_free(o);
    }
}

static void test_fixture_job(void **state)
{
    const char *files[] = {"batch.v1.Job.json", "batch.v1.Job.yaml"};
    for (size_t i = 0; i < 2; i++) {
        struct object *o = load_fixture(files[i]);
        assert_int_equal(o->kind, OBJ_JOB);
        check_fixture_meta(o);
        const struct job_spec *js = &o->u.job.spec;
        /* parallelism 1, completions 2 in the fixture */
        assert_int_equal(js->parallelism, 1);
        assert_true(js->has_completions);
        assert_int_equal(js->completions, 2);
        assert_true(js->suspend);
        assert_string_equal(
            strmap_get(&js->template.meta.labels, "labelsKey"), "labelsValue");
        check_fixture_pod_spec(&js->template.spec);
        object_free(o);
    }
}

static void test_fixture_node(void **state)
{
    struct object *o = load_fixture("core.v1.Node.json");
    assert_int_equal(o->kind, OBJ_NODE);
    assert_null(o->meta.namespace_); /* cluster-scoped */
    check_fixture_meta(o);
    assert_true(o->u.node.unschedulable);
    assert_int_equal(o->u.node.n_taints, 1);
    assert_string_equal(o->u.node.taints[0].key, "keyValue");
    assert_int_equal(o->u.node.taints[0].effect, TAINT_EFFECT_UNKNOWN);
    assert_true(resource_list_has(&o->u.node.capacity, "capacityKey"));
    assert_true(resource_list_has(&o->u.node.allocatable, "allocatableKey"));
    object_free(o);
}

static void test_fixture_others(void **state)
{
    struct object *o = load_fixture("core.v1.Namespace.json");
    assert_int_equal(o->kind, OBJ_NAMESPACE);
    check_fixture_meta(o);
    object_free(o);

    o = load_fixture("scheduling.k8s.io.v1.PriorityClass.json");
    assert_int_equal(o->kind, OBJ_PRIORITY_CLASS);
    check_fixture_meta(o);
    assert_int_equal(o->u.priority_class.value, 2);
    assert_true(o->u.priority_class.global_default);
    assert_string_equal(o->u.priority_class.preemption_policy,
                        "preemptionPolicyValue");
    object_free(o);
}

/* As the fixtures are, their names are refused, as an API server would. */
static void test_fixture_names_refused(void **state)
{
    const char *files[] = {"core.v1.Pod.json", "batch.v1.Job.yaml",
                           "core.v1.Node.json", "core.v1.Namespace.json",
                           "scheduling.k8s.io.v1.PriorityClass.json"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[1024];
        struct doc *d = NULL;
        struct err e = {{0}};
        struct object *o = NULL;
        snprintf(path, sizeof(path), "%s/k8s-api/%s", test_data_dir(),
                 files[i]);
        assert_int_equal(doc_load_file(path, &d, &e), 0);
        assert_int_equal(decode_object(d->docs[0], path, &o, &e), -EINVAL);
        assert_contains(e.msg, "metadata.name: invalid name \"nameValue\": a "
                               "lowercase RFC 1123 ");
        /* once the name is valid, the namespace is checked */
        set_meta(d->docs[0], "name", "namevalue");
        int r = decode_object(d->docs[0], path, &o, &e);
        if (strstr(files[i], "Pod") || strstr(files[i], "Job")) {
            assert_int_equal(r, -EINVAL);
            assert_contains(e.msg, "metadata.namespace: invalid namespace "
                                   "\"namespaceValue\"");
        } else {
            assert_int_equal(r, 0);
            object_free(o);
        }
        doc_free(d);
    }
}

/* Every fixture parses; the kinds Ordo does not read are reported as
 * ignored, not as errors. */
static void test_fixture_ignored_kinds(void **state)
{
    const char *files[] = {
        "coordination.k8s.io.v1.Lease.json", "coordination.k8s.io.v1.Lease.yaml",
        "core.v1.Binding.json", "core.v1.Event.json", "core.v1.Status.json",
        "events.k8s.io.v1.Event.json", "policy.v1.Eviction.json",
        "policy.v1.PodDisruptionBudget.json",
        "resource.k8s.io.v1.ResourceClaim.json",
        "resource.k8s.io.v1.ResourceSlice.json",
        "scheduling.k8s.io.v1beta1.PodGroup.json",
        "scheduling.k8s.io.v1beta1.Workload.json",
        "apidiscovery.k8s.io.v2.APIGroupDiscovery.json"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[1024];
        struct doc *d = NULL;
        struct err e;
        struct object *o = NULL;
        snprintf(path, sizeof(path), "%s/k8s-api/%s", test_data_dir(),
                 files[i]);
        assert_int_equal(doc_load_file(path, &d, &e), 0);
        assert_int_equal(decode_object(d->docs[0], path, &o, &e),
                         DECODE_IGNORED);
        doc_free(d);
    }
}

static void test_pod_requests(void **state)
{
    struct object *o = must_decode(
        "apiVersion: v1\nkind: Pod\n"
        "metadata: {name: p, namespace: ml}\n"
        "spec:\n"
        "  schedulerName: ordo-scheduler\n"
        "  initContainers:\n"
        "  - name: big-init\n"
        "    resources: {requests: {cpu: '3', memory: 1Gi}}\n"
        "  - name: sidecar\n"
        "    restartPolicy: Always\n"
        "    resources: {requests: {cpu: 500m}}\n"
        "  - name: after-sidecar\n"
        "    resources: {limits: {cpu: '4'}}\n"
        "  containers:\n"
        "  - name: a\n"
        "    resources:\n"
        "      requests: {cpu: '1', memory: 512Mi}\n"
        "      limits: {nvidia.com/gpu: 2, memory: 1Gi}\n"
        "  - name: b\n"
        "    resources: {requests: {cpu: 250m}}\n"
        "  overhead: {cpu: 100m}\n");
    const struct pod_spec *s = &o->u.pod.spec;
    assert_string_equal(s->scheduler_name, "ordo-scheduler");
    assert_null(s->node_name);
    /* containers 1.25 + sidecar 0.5 = 1.75; init steps: 3, then 4 + 0.5
     * (after-sidecar's limit defaults its request); max 4.5; + overhead */
    assert_int_equal(resource_list_get(&s->requests, "cpu"), 4600);
    /* memory: containers 512Mi, init 1Gi -> 1Gi */
    assert_int_equal(resource_list_get(&s->requests, "memory"),
                     1073741824LL * 1000);
    /* GPU request defaulted from the limit */
    assert_int_equal(resource_list_get(&s->requests, "nvidia.com/gpu"), 2000);
    assert_string_equal(o->meta.namespace_, "ml");
    assert_int_equal(o->u.pod.phase, POD_PHASE_PENDING);
    object_free(o);
}

static void test_pod_defaults(void **state)
{
    struct object *o = must_decode(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec:\n  containers: [{name: a}]\n"
        "status: {phase: Running}\n");
    assert_string_equal(o->meta.namespace_, "default");
    assert_string_equal(o->u.pod.spec.scheduler_name, "default-scheduler");
    assert_true(resource_list_is_zero(&o->u.pod.spec.requests));
    assert_int_equal(o->u.pod.phase, POD_PHASE_RUNNING);
    object_free(o);
}

static void test_job_and_jobset(void **state)
{
    struct object *o = must_decode(
        "apiVersion: batch/v1\nkind: Job\n"
        "metadata:\n  name: train\n  namespace: ml\n"
        "  labels: {kueue.x-k8s.io/queue-name: team-a}\n"
        "spec:\n  parallelism: 4\n  completions: 3\n  suspend: false\n"
        "  template:\n"
        "    metadata: {annotations: {ordo.dev/sim-runtime: 10m}}\n"
        "    spec:\n      containers:\n      - name: t\n"
        "        resources: {requests: {cpu: 2}}\n");
    assert_int_equal(o->kind, OBJ_JOB);
    assert_int_equal(o->u.job.spec.parallelism, 3); /* capped by completions */
    assert_false(o->u.job.spec.suspend);
    assert_string_equal(strmap_get(&o->meta.labels,
                                   "kueue.x-k8s.io/queue-name"),
                        "team-a");
    assert_string_equal(strmap_get(&o->u.job.spec.template.meta.annotations,
                                   "ordo.dev/sim-runtime"),
                        "10m");
    assert_int_equal(
        resource_list_get(&o->u.job.spec.template.spec.requests, "cpu"), 2000);
    object_free(o);

    o = must_decode(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
        "metadata: {name: js, namespace: ml}\n"
        "spec:\n  replicatedJobs:\n"
        "  - name: leader\n    template:\n      spec:\n"
        "        template: {spec: {containers: [{name: l}]}}\n"
        "  - name: workers\n    replicas: 3\n    template:\n      spec:\n"
        "        parallelism: 2\n"
        "        template: {spec: {containers: [{name: w, resources: "
        "{requests: {nvidia.com/gpu: 8}}}]}}\n");
    assert_int_equal(o->kind, OBJ_JOBSET);
    assert_int_equal(o->u.jobset.n_replicated_jobs, 2);
    assert_string_equal(o->u.jobset.replicated_jobs[0].name, "leader");
    assert_int_equal(o->u.jobset.replicated_jobs[0].replicas, 1);
    assert_int_equal(o->u.jobset.replicated_jobs[1].replicas, 3);
    assert_int_equal(o->u.jobset.replicated_jobs[1].spec.parallelism, 2);
    object_free(o);
}

static const char *full_cq =
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: ClusterQueue\n"
    "metadata:\n  name: team-a\n"
    "spec:\n"
    "  cohortName: research\n"
    "  queueingStrategy: StrictFIFO\n"
    "  namespaceSelector:\n"
    "    matchExpressions:\n"
    "    - {key: team, operator: In, values: [a, shared]}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu, memory]\n"
    "    flavors:\n"
    "    - name: on-demand\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 9, borrowingLimit: 1, lendingLimit: 5}\n"
    "      - {name: memory, nominalQuota: 36Gi}\n"
    "    - name: spot\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 500m}\n"
    "      - {name: memory, nominalQuota: 0}\n"
    "  - coveredResources: [nvidia.com/gpu]\n"
    "    flavors:\n"
    "    - name: a100\n"
    "      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]\n"
    "  flavorFungibility:\n"
    "    whenCanBorrow: TryNextFlavor\n"
    "    whenCanPreempt: TryNextFlavor\n"
    "    preference: PreemptionOverBorrowing\n"
    "  preemption:\n"
    "    withinClusterQueue: LowerOrNewerEqualPriority\n"
    "    reclaimWithinCohort: Any\n"
    "    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}\n"
    "  stopPolicy: Hold\n"
    "  fairSharing: {weight: 1.5}\n"
    "  admissionChecksStrategy:\n"
    "    admissionChecks: [{name: prov}]\n";

static void test_cluster_queue(void **state)
{
    struct object *o = must_decode(full_cq);
    const struct cluster_queue *cq = &o->u.cluster_queue;
    assert_int_equal(o->kind, OBJ_CLUSTER_QUEUE);
    assert_null(o->meta.namespace_);
    assert_string_equal(cq->cohort_name, "research");
    assert_int_equal(cq->queueing_strategy, QUEUEING_STRICT_FIFO);
    assert_non_null(cq->namespace_selector);
    assert_int_equal(cq->namespace_selector->n_exprs, 1);
    assert_int_equal(cq->n_resource_groups, 2);
    const struct resource_group *g = &cq->resource_groups[0];
    assert_int_equal(g->n_covered, 2);
    assert_int_equal(g->n_flavors, 2);
    assert_string_equal(g->flavors[0].name, "on-demand");
    const struct resource_quota *q = &g->flavors[0].resources[0];
    assert_string_equal(q->name, "cpu");
    assert_int_equal(q->nominal_quota, 9000);
    assert_true(q->has_borrowing_limit);
    assert_int_equal(q->borrowing_limit, 1000);
    assert_true(q->has_lending_limit);
    assert_int_equal(q->lending_limit, 5000);
    assert_false(g->flavors[0].resources[1].has_borrowing_limit);
    assert_int_equal(g->flavors[0].resources[1].nominal_quota,
                     36LL * 1073741824 * 1000);
    assert_int_equal(g->flavors[1].resources[0].nominal_quota, 500);
    assert_int_equal(cq->when_can_borrow, FUNGIBILITY_TRY_NEXT_FLAVOR);
    assert_int_equal(cq->fungibility_preference,
                     FUNGIBILITY_PREEMPTION_OVER_BORROWING);
    assert_int_equal(cq->within_cluster_queue,
                     PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY);
    assert_int_equal(cq->reclaim_within_cohort, PREEMPTION_ANY);
    assert_int_equal(cq->borrow_within_cohort, PREEMPTION_LOWER_PRIORITY);
    assert_true(cq->has_max_priority_threshold);
    assert_int_equal(cq->max_priority_threshold, 100);
    assert_int_equal(cq->stop_policy, STOP_POLICY_HOLD);
    assert_int_equal(cq->fair_sharing_weight_milli, 1500);
    assert_int_equal(cq->n_admission_checks, 1);
    assert_string_equal(cq->admission_checks[0], "prov");
    object_free(o);
}

static void test_cluster_queue_defaults(void **state)
{
    struct object *o = must_decode(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
        "metadata: {name: empty}\nspec: {}\n");
    const struct cluster_queue *cq = &o->u.cluster_queue;
    assert_null(cq->cohort_name);
    assert_null(cq->namespace_selector); /* nil: matches no namespace */
    assert_int_equal(cq->queueing_strategy, QUEUEING_BEST_EFFORT_FIFO);
    assert_int_equal(cq->when_can_borrow, FUNGIBILITY_MAY_STOP_SEARCH);
    assert_int_equal(cq->when_can_preempt, FUNGIBILITY_TRY_NEXT_FLAVOR);
    assert_int_equal(cq->within_cluster_queue, PREEMPTION_NEVER);
    assert_int_equal(cq->stop_policy, STOP_POLICY_NONE);
    assert_int_equal(cq->fair_sharing_weight_milli, 1000);
    object_free(o);

    /* {} selects every namespace; v1beta1's spec.cohort is read too */
    o = must_decode("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"
                    "metadata: {name: old}\n"
                    "spec: {cohort: c1, namespaceSelector: {}}\n");
    assert_string_equal(o->u.cluster_queue.cohort_name, "c1");
    assert_non_null(o->u.cluster_queue.namespace_selector);
    object_free(o);
}

static void test_other_kueue_kinds(void **state)
{
    struct object *o = must_decode(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {name: lq, namespace: team-a}\n"
        "spec: {clusterQueue: cq, stopPolicy: HoldAndDrain}\n");
    assert_string_equal(o->u.local_queue.cluster_queue, "cq");
    assert_int_equal(o->u.local_queue.stop_policy, STOP_POLICY_HOLD_AND_DRAIN);
    assert_string_equal(o->meta.namespace_, "team-a");
    object_free(o);

    o = must_decode(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: child}\n"
        "spec:\n  parentName: root\n  fairSharing: {weight: 0}\n"
        "  resourceGroups:\n  - coveredResources: [cpu]\n"
        "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, "
        "lendingLimit: 10}]}]\n");
    assert_string_equal(o->u.cohort.parent_name, "root");
    assert_int_equal(o->u.cohort.fair_sharing_weight_milli, 0);
    /* a cohort may lend more than its own nominal quota */
    assert_int_equal(
        o->u.cohort.resource_groups[0].flavors[0].resources[0].lending_limit,
        10000);
    object_free(o);

    o = must_decode(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
        "metadata: {name: gpu}\n"
        "spec:\n  nodeLabels: {cloud.com/gpu: a100}\n"
        "  nodeTaints: [{key: gpu, value: 'true', effect: NoSchedule}]\n"
        "  tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n"
        "  topologyName: dc\n");
    const struct resource_flavor *rf = &o->u.resource_flavor;
    assert_string_equal(strmap_get(&rf->node_labels, "cloud.com/gpu"), "a100");
    assert_int_equal(rf->n_node_taints, 1);
    assert_int_equal(rf->node_taints[0].effect, TAINT_EFFECT_NO_SCHEDULE);
    assert_int_equal(rf->tolerations[0].op, TOLERATION_OP_EXISTS);
    assert_string_equal(rf->topology_name, "dc");
    object_free(o);

    o = must_decode("apiVersion: kueue.x-k8s.io/v1beta2\n"
                    "kind: WorkloadPriorityClass\n"
                    "metadata: {name: high}\nvalue: 10000\n"
                    "description: for production\n");
    assert_int_equal(o->u.workload_priority_class.value, 10000);
    object_free(o);

    o = must_decode("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
                    "metadata: {name: dc}\nspec:\n  levels:\n"
                    "  - nodeLabel: cloud.com/block\n"
                    "  - nodeLabel: cloud.com/rack\n"
                    "  - nodeLabel: kubernetes.io/hostname\n");
    assert_int_equal(o->u.topology.n_levels, 3);
    assert_string_equal(o->u.topology.levels[2], "kubernetes.io/hostname");
    object_free(o);
}

#define CQ_HEAD                                                                \
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"                 \
    "metadata: {name: team-a}\nspec:\n"

static void test_errors_kueue(void **state)
{
    must_fail(CQ_HEAD "  resourceGroups:\n"
                      "  - coveredResources: [cpu]\n"
                      "    flavors:\n"
                      "    - name: f\n"
                      "      resources:\n"
                      "      - name: cpu\n"
                      "        nominalQuota: 1.2.3\n",
              "t.yaml:11: ClusterQueue team-a: spec.resourceGroups[0]."
              "flavors[0].resources[0].nominalQuota: invalid quantity "
              "\"1.2.3\"");
    must_fail(CQ_HEAD "  resourceGroups:\n  - coveredResources: [cpu]\n"
                      "    flavors: [{name: f, resources: [{name: cpu, "
                      "nominalQuota: 1, borrowingLimit: 1}]}]\n",
              "resources[0].borrowingLimit: must be nil when cohortName is "
              "empty");
    must_fail(CQ_HEAD "  cohortName: c\n  resourceGroups:\n"
                      "  - coveredResources: [cpu]\n"
                      "    flavors: [{name: f, resources: [{name: cpu, "
                      "nominalQuota: 1, lendingLimit: 2}]}]\n",
              "lendingLimit: must be less than or equal to nominalQuota");
    must_fail(CQ_HEAD "  resourceGroups:\n"
                      "  - coveredResources: [cpu, memory]\n"
                      "    flavors: [{name: f, resources: [{name: memory, "
                      "nominalQuota: 1}, {name: cpu, nominalQuota: 1}]}]\n",
              "spec.resourceGroups[0].flavors[0].resources[0].name: must be "
              "\"cpu\"");
    must_fail(CQ_HEAD "  resourceGroups:\n"
                      "  - coveredResources: [cpu, memory]\n"
                      "    flavors: [{name: f, resources: [{name: cpu, "
                      "nominalQuota: 1}]}]\n",
              "must list the 2 covered resources, has 1");
    must_fail(CQ_HEAD "  resourceGroups:\n"
                      "  - coveredResources: [cpu]\n"
                      "    flavors: [{name: f, resources: [{name: cpu, "
                      "nominalQuota: 1}]}]\n"
                      "  - coveredResources: [cpu]\n"
                      "    flavors: [{name: g, resources: [{name: cpu, "
                      "nominalQuota: 1}]}]\n",
              "resource \"cpu\" is already covered by resourceGroups[0]");
    must_fail(CQ_HEAD "  resourceGroups:\n"
                      "  - coveredResources: [cpu]\n"
                      "    flavors: [{name: f, resources: [{name: cpu, "
                      "nominalQuota: 1}]}]\n"
                      "  - coveredResources: [memory]\n"
                      "    flavors: [{name: f, resources: [{name: memory, "
                      "nominalQuota: 1}]}]\n",
              "flavor \"f\" appears twice");
    must_fail(CQ_HEAD "  queueingStrategy: FIFO\n",
              "t.yaml:5: ClusterQueue team-a: spec.queueingStrategy: "
              "unsupported value \"FIFO\" (one of: BestEffortFIFO, "
              "StrictFIFO)");
    must_fail(CQ_HEAD "  preemption:\n    borrowWithinCohort:\n"
                      "      policy: LowerPriority\n",
              "spec.preemption.borrowWithinCohort.policy: must be Never when "
              "reclaimWithinCohort is Never");
    must_fail(CQ_HEAD "  flavorFungibility: {preference: "
                      "BorrowingOverPreemption}\n",
              "spec.flavorFungibility.preference: only allowed when");
    must_fail(CQ_HEAD "  preemption: {withinClusterQueue: Any}\n",
              "spec.preemption.withinClusterQueue: unsupported value \"Any\"");
    must_fail(CQ_HEAD "  fairSharing: {weight: -1}\n",
              "spec.fairSharing.weight: must be >= 0");
    must_fail(CQ_HEAD "  resourceGroups: {cpu: 1}\n",
              "spec.resourceGroups: expected a list, got a map");
    must_fail(CQ_HEAD "  namespaceSelector:\n    matchExpressions:\n"
                      "    - {key: a, operator: Gt, values: ['1']}\n",
              "spec.namespaceSelector.matchExpressions[0].operator: "
              "unsupported operator \"Gt\"");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
              "metadata: {name: lq, namespace: ns}\nspec: {}\n",
              "t.yaml:4: LocalQueue ns/lq: spec.clusterQueue: required");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
              "metadata: {name: t}\nspec:\n  levels:\n"
              "  - nodeLabel: kubernetes.io/hostname\n"
              "  - nodeLabel: rack\n",
              "spec.levels[0].nodeLabel: kubernetes.io/hostname may only be "
              "the last level");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
              "metadata: {name: rf}\nspec:\n"
              "  nodeTaints: [{key: k, effect: Sometimes}]\n",
              "spec.nodeTaints[0].effect: unsupported value \"Sometimes\"");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
              "metadata: {name: rf}\nspec:\n"
              "  tolerations: [{key: k, operator: Exists, effect: NoSchedule, "
              "tolerationSeconds: 5}]\n",
              "spec.tolerations[0].tolerationSeconds: only allowed with "
              "effect NoExecute");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
              "metadata: {name: rf}\nspec: {topologyName: dc}\n",
              "spec.topologyName: requires at least one entry in nodeLabels");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\n"
              "kind: WorkloadPriorityClass\nmetadata: {name: w}\n"
              "value: 3000000000\n",
              "value: 3000000000 does not fit a 32-bit integer");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
              "metadata: {name: c}\nspec: {parentName: c}\n",
              "spec.parentName: a cohort cannot be its own parent");
}

static void test_errors_core(void **state)
{
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
              "spec:\n  parallelism: '3'\n  template: {spec: {}}\n",
              "t.yaml:5: Job default/j: spec.parallelism: expected an "
              "integer, got a string");
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
              "spec: {parallelism: 2}\n",
              "Job default/j: spec.template: required");
    must_fail("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\n"
              "spec:\n  containers:\n  - name: c\n    resources:\n"
              "      requests: {memory: 5 Gi}\n",
              "t.yaml:8: Pod n/p: spec.containers[0].resources.requests."
              "memory: invalid quantity \"5 Gi\"");
    must_fail("apiVersion: v1\nkind: Pod\nmetadata: {namespace: n}\n"
              "spec: {containers: []}\n",
              "Pod: metadata.name: required");
    must_fail("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
              "Pod default/p: spec: required");
    must_fail("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
              "  creationTimestamp: yesterday\nspec: {}\n",
              "metadata.creationTimestamp: invalid RFC 3339 time");
    must_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
              "status: {allocatable: {cpu: [1]}}\n",
              "Node n: status.allocatable.cpu: expected a quantity, got a "
              "list");
    must_fail("kind: Pod\nmetadata: {name: p}\n", "apiVersion: missing");
    must_fail("- a\n- b\n", "expected a map");
    must_fail("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
              "metadata: {name: js}\nspec:\n  replicatedJobs:\n"
              "  - {name: a, template: {spec: {template: {spec: {}}}}}\n"
              "  - {name: a, template: {spec: {template: {spec: {}}}}}\n",
              "spec.replicatedJobs[1].name: duplicate replicated job \"a\"");
}

static void test_json_errors(void **state)
{
    const char *json = "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\","
                       "\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":"
                       "\"q\"},\"spec\":{\"queueingStrategy\":3}}";
    struct doc *d = NULL;
    struct err e = {{0}};
    struct object *o = NULL;
    assert_int_equal(doc_parse_json(json, strlen(json), "q.json", &d, &e), 0);
    assert_int_equal(decode_object(d->docs[0], "q.json", &o, &e), -EINVAL);
    /* JSON carries no line numbers */
    assert_contains(e.msg, "q.json: ClusterQueue q: spec.queueingStrategy:");
    doc_free(d);
}

static void test_unknown_kind(void **state)
{
    struct object *o = NULL;
    assert_int_equal(decode_yaml("apiVersion: v1\nkind: ConfigMap\n"
                                 "metadata: {name: x}\n",
                                 &o, NULL),
                     DECODE_IGNORED);
    /* right kind, other group: not ours either */
    assert_int_equal(decode_yaml("apiVersion: example.com/v1\nkind: Job\n"
                                 "metadata: {name: x}\n",
                                 &o, NULL),
                     DECODE_IGNORED);
    assert_null(o);
}

static void test_parse_time(void **state)
{
    int64_t ns;
    assert_int_equal(decode_parse_time("1970-01-01T00:00:00Z", &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(decode_parse_time("2003-01-01T01:01:01.000003Z", &ns), 0);
    assert_int_equal(ns, 1041382861LL * 1000000000LL + 3000);
    assert_int_equal(decode_parse_time("1970-01-01T01:00:00+01:00", &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(decode_parse_time("2020-13-01T00:00:00Z", &ns), -EINVAL);
    assert_int_equal(decode_parse_time("2020-01-01 00:00:00Z", &ns), -EINVAL);
    assert_int_equal(decode_parse_time("2020-01-01T00:00:00", &ns), -EINVAL);
    assert_int_equal(decode_parse_time("2020-01-01T00:00:00Zjunk", &ns),
                     -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_pod),
        cmocka_unit_test(test_fixture_job),
        cmocka_unit_test(test_fixture_node),
        cmocka_unit_test(test_fixture_others),
        cmocka_unit_test(test_fixture_names_refused),
        cmocka_unit_test(test_fixture_ignored_kinds),
        cmocka_unit_test(test_pod_requests),
        cmocka_unit_test(test_pod_defaults),
        cmocka_unit_test(test_job_and_jobset),
        cmocka_unit_test(test_cluster_queue),
        cmocka_unit_test(test_cluster_queue_defaults),
        cmocka_unit_test(test_other_kueue_kinds),
        cmocka_unit_test(test_errors_kueue),
        cmocka_unit_test(test_errors_core),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_unknown_kind),
        cmocka_unit_test(test_parse_time),
    };
    return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
