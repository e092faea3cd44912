/* test_decode_limits.c - input that Kubernetes (or Kueue) would reject is
 * rejected by the decoders, with the field named: negative quantities,
 * out-of-range integers, invalid names and labels; and what is not an error
 * but must not fail open (a Node's Ready condition). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode_helpers.h"

/* snprintf into an array, asserting that it fits. */
#define FMT(buf, ...)                                                          \
    assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

#define POD_HEAD                                                               \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"          \
    "spec:\n"

/* ---- negative quantities ------------------------------------------------ */

static void test_negative_pod_quantities(void **state)
{
    must_fail(POD_HEAD "  containers:\n"
                       "  - name: c\n"
                       "    resources:\n"
                       "      requests:\n"
                       "        cpu: \"-100\"\n",
              "t.yaml:9: Pod ns/p: spec.containers[0].resources.requests.cpu: "
              "must be non-negative, got \"-100\"");
    must_fail(POD_HEAD "  containers:\n"
                       "  - name: a\n"
                       "  - name: b\n"
                       "    resources: {limits: {memory: -1Gi}}\n",
              "spec.containers[1].resources.limits.memory: must be "
              "non-negative, got \"-1Gi\"");
    must_fail(POD_HEAD "  initContainers:\n"
                       "  - {name: i, resources: {requests: {cpu: -1m}}}\n"
                       "  containers: [{name: c}]\n",
              "spec.initContainers[0].resources.requests.cpu: must be "
              "non-negative, got \"-1m\"");
    /* Below a milli-unit it still counts: -0.1m rounds to -1m. */
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  overhead: {cpu: -0.0001}\n",
              "t.yaml:6: Pod ns/p: spec.overhead.cpu: must be non-negative, "
              "got \"-0.0001\"");
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  resources: {requests: {memory: -5}}\n",
              "spec.resources.requests.memory: must be non-negative");
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  resources: {limits: {cpu: -2}}\n",
              "spec.resources.limits.cpu: must be non-negative, got \"-2\"");

    /* Zero, also written with a sign, is fine. */
    struct object *o = must_decode(POD_HEAD "  containers:\n"
                                            "  - name: c\n"
                                            "    resources: {requests: "
                                            "{cpu: '-0', memory: 0}}\n");
    assert_int_equal(resource_list_get(&o->u.pod.spec.requests, "cpu"), 0);
    object_free(o);
}

static void test_negative_template_quantities(void **state)
{
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
              "spec:\n  template:\n    spec:\n      containers:\n"
              "      - {name: c, resources: {requests: {nvidia.com/gpu: "
              "-8}}}\n",
              "t.yaml:8: Job default/j: spec.template.spec.containers[0]."
              "resources.requests.nvidia.com/gpu: must be non-negative, got "
              "\"-8\"");
    must_fail("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
              "metadata: {name: js, namespace: ml}\n"
              "spec:\n  replicatedJobs:\n"
              "  - name: w\n    template:\n      spec:\n"
              "        template: {spec: {containers: [{name: w, resources: "
              "{limits: {cpu: '-1'}}}]}}\n",
              "JobSet ml/js: spec.replicatedJobs[0].template.spec.template."
              "spec.containers[0].resources.limits.cpu: must be "
              "non-negative, got \"-1\"");
}

static void test_negative_node_quantities(void **state)
{
    must_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
              "status:\n  capacity: {cpu: '4', memory: -16Gi}\n",
              "t.yaml:5: Node n1: status.capacity.memory: must be "
              "non-negative, got \"-16Gi\"");
    must_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
              "status:\n  capacity: {cpu: '4'}\n"
              "  allocatable:\n    cpu: -500m\n",
              "t.yaml:7: Node n1: status.allocatable.cpu: must be "
              "non-negative, got \"-500m\"");
}

#define CQ_QUOTA(fields)                                                       \
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"                 \
    "metadata: {name: cq}\nspec:\n  cohortName: all\n  resourceGroups:\n"      \
    "  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"               \
    "      resources:\n      - {name: cpu, " fields "}\n"

/* Kueue's CRD: nominalQuota, borrowingLimit and lendingLimit are >= 0. */
static void test_negative_kueue_quota(void **state)
{
    const char *pfx = "spec.resourceGroups[0].flavors[0].resources[0].";
    char want[256];
    FMT(want, "%snominalQuota: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: -1"), want);
    FMT(want, "%sborrowingLimit: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: 1, borrowingLimit: -1m"), want);
    FMT(want, "%slendingLimit: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: 1, lendingLimit: '-1'"), want);
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
              "metadata: {name: c}\nspec:\n  parentName: root\n"
              "  resourceGroups:\n  - coveredResources: [cpu]\n"
              "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "
              "1, lendingLimit: -3}]}]\n",
              "lendingLimit: must be >= 0");
    struct object *o = must_decode(
        CQ_QUOTA("nominalQuota: 0, borrowingLimit: 0, lendingLimit: 0"));
    object_free(o);
}

/* ---- a Node's Ready condition ------------------------------------------- */

static bool ready_of(const char *status)
{
    char yaml[1024];
    FMT(yaml, "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n%s", status);
    struct object *o = must_decode(yaml);
    bool ready = o->u.node.ready;
    object_free(o);
    return ready;
}

static void test_node_ready(void **state)
{
    /* no conditions at all: hand-written for the simulator, Ready */
    assert_true(ready_of(""));
    assert_true(ready_of("status: {capacity: {cpu: '1'}}\n"));
    assert_true(ready_of("status: {conditions: null}\n"));
    assert_true(ready_of("status:\n  conditions:\n"
                         "  - {type: MemoryPressure, status: 'False'}\n"
                         "  - {type: Ready, status: 'True'}\n"));
    /* anything but Ready=True is not Ready */
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: Unknown}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'False'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'true'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: ''}\n"));
    /* a list without a Ready condition */
    assert_false(ready_of("status: {conditions: []}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: DiskPressure, status: 'False'}\n"));
    /* the first Ready condition counts */
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: Unknown}\n"
                          "  - {type: Ready, status: 'True'}\n"));
}

/* Malformed conditions are not an error but not Ready either. */
static void test_node_ready_malformed(void **state)
{
    assert_false(ready_of("status: {conditions: {type: Ready, status: "
                          "'True'}}\n"));
    assert_false(ready_of("status: {conditions: Ready}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'True'}\n"
                          "  - [Ready, 'True']\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - Ready\n  - {type: Ready, status: 'True'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: [True]}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: {name: Ready}, status: 'True'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: null}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'True'}\n"
                          "  - {status: 'True'}\n"));
}

/* ---- names ------------------------------------------------------------- */

/* s repeated to n characters. */
static const char *rep(char *buf, const char *s, size_t n)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i % len];
    buf[n] = '\0';
    return buf;
}

static void node_named(const char *name, const char *want)
{
    char yaml[1024];
    FMT(yaml, "apiVersion: v1\nkind: Node\nmetadata: {name: '%s'}\n", name);
    if (!want) {
        object_free(must_decode(yaml));
        return;
    }
    must_fail(yaml, want);
}

static void test_object_names(void **state)
{
    char buf[1024], want[400];
    node_named("node-1", NULL);
    node_named("gpu-7.zone-a.example.com", NULL);
    node_named("1abc", NULL);
    node_named(rep(buf, "a", 253), NULL);
    node_named(rep(buf, "ab.c", 253), NULL);
    FMT(want,
        "t.yaml:3: Node: metadata.name: invalid name \"%s...\": must be "
        "no more than 253 characters",
        rep(buf, "a", 64));
    node_named(rep(buf, "a", 254), want);
    node_named("My_Node", "t.yaml:3: Node: metadata.name: invalid name "
                          "\"My_Node\": a lowercase RFC 1123 subdomain must "
                          "consist of lower case alphanumeric characters, "
                          "'-' or '.', and must start and end with an "
                          "alphanumeric character");
    const char *bad[] = {"Node", "a..b", "a.-b", "a-.b", ".a", "a.", "-a",
                         "a-",   "a_b",  "a b",  "a/b",  "..", "ü"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        node_named(bad[i], "lowercase RFC 1123 subdomain");

    /* a Namespace's name is a label: no dots, at most 63 */
    object_free(must_decode("apiVersion: v1\nkind: Namespace\n"
                            "metadata: {name: team-a}\n"));
    FMT(buf, "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n",
        rep(want, "n", 63));
    object_free(must_decode(buf));
    FMT(buf, "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n",
        rep(want, "n", 64));
    must_fail(buf, "Namespace: metadata.name: invalid name \"nnnn");
    must_fail(buf, "\": must be no more than 63 characters");
    must_fail("apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}\n",
              "t.yaml:3: Namespace: metadata.name: invalid name \"team.a\": "
              "a lowercase RFC 1123 label must consist of lower case "
              "alphanumeric characters or '-'");

    /* every kind: Kueue's too */
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
              "metadata: {name: Team-A}\nspec: {}\n",
              "ClusterQueue: metadata.name: invalid name \"Team-A\"");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
              "metadata: {name: gpu_a100}\n",
              "ResourceFlavor: metadata.name: invalid name \"gpu_a100\"");
    must_fail("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
              "metadata: {name: High}\nvalue: 10\n",
              "PriorityClass: metadata.name: invalid name \"High\"");
}

static void test_namespaces(void **state)
{
    char buf[400], ns[80];
    must_fail("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
              "Team}\nspec: {containers: []}\n",
              "t.yaml:3: Pod: metadata.namespace: invalid namespace \"Team\": "
              "a lowercase RFC 1123 label");
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, "
              "namespace: team.a}\nspec: {template: {spec: {}}}\n",
              "Job: metadata.namespace: invalid namespace \"team.a\"");
    FMT(buf,
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {name: lq, namespace: %s}\nspec: {clusterQueue: cq}\n",
        rep(ns, "t", 64));
    must_fail(buf, "LocalQueue: metadata.namespace: invalid namespace \"tttt");
    FMT(buf,
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {name: lq, namespace: %s}\nspec: {clusterQueue: cq}\n",
        rep(ns, "t", 63));
    object_free(must_decode(buf));
    /* dropped for a cluster-scoped kind, as the API server does */
    struct object *o =
        must_decode("apiVersion: v1\nkind: Node\n"
                    "metadata: {name: n, namespace: Any_Thing}\n");
    assert_null(o->meta.namespace_);
    object_free(o);
}

/* A Job's name is its pods' job-name label value: at most 63 characters,
 * unless its selector is manual. */
static void test_job_name(void **state)
{
    char buf[600], name[80];
    FMT(buf,
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\n"
        "spec: {template: {spec: {}}}\n",
        rep(name, "j", 63));
    object_free(must_decode(buf));
    FMT(buf,
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\n"
        "spec: {template: {spec: {}}}\n",
        rep(name, "j", 64));
    must_fail(buf, ": metadata.name: must be no more than 63 characters (it "
                   "is the value of the pods' batch.kubernetes.io/job-name "
                   "label)");
    FMT(buf,
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\n"
        "spec: {manualSelector: true, template: {spec: {}}}\n",
        rep(name, "j", 64));
    object_free(must_decode(buf));
}

#define JOBSET(name, rjob, replicas, parallelism)                              \
    "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"                     \
    "metadata: {name: " name ", namespace: ml}\n"                              \
    "spec:\n  replicatedJobs:\n"                                               \
    "  - name: " rjob "\n    replicas: " replicas "\n    template:\n"          \
    "      spec:\n        parallelism: " parallelism "\n"                      \
    "        template: {spec: {containers: [{name: w}]}}\n"

/* The JobSet webhook: child Job names are DNS-1035 labels, and replicas *
 * parallelism fits an int32. */
static void test_jobset_limits(void **state)
{
    object_free(must_decode(JOBSET("train", "workers", "100", "8")));
    /* The longest child name is the last index's: 30 + 1 + 30 + 2 = 63
     * characters, then 64. */
    object_free(
        must_decode(JOBSET("a23456789012345678901234567890",
                           "workers-6789012345678901234567", "10", "1")));
    must_fail(JOBSET("a23456789012345678901234567890",
                     "workers-67890123456789012345678", "10", "1"),
              "t.yaml:6: JobSet ml/a23456789012345678901234567890: "
              "spec.replicatedJobs[0].name: child Job name "
              "\"a23456789012345678901234567890-workers-678901234567890123456"
              "78-9\": must be no more than 63 characters");
    must_fail(JOBSET("1train", "w", "1", "1"),
              "spec.replicatedJobs[0].name: child Job name \"1train-w-0\": a "
              "DNS-1035 label must consist of lower case alphanumeric "
              "characters or '-', start with an alphabetic character");
    must_fail(JOBSET("train", "W", "1", "1"),
              "child Job name \"train-W-0\": a DNS-1035 label");
    must_fail(JOBSET("train", "w", "65536", "32768"),
              "t.yaml:6: JobSet ml/train: spec.replicatedJobs[0]: the product "
              "of replicas and parallelism must not exceed 2147483647");
    object_free(must_decode(JOBSET("train", "w", "65536", "32767")));
    /* the parallelism as written counts, not the one capped by completions */
    must_fail(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
        "metadata: {name: js, namespace: ml}\n"
        "spec:\n  replicatedJobs:\n"
        "  - name: w\n    replicas: 65536\n    template:\n"
        "      spec:\n        parallelism: 32768\n        completions: 1\n"
        "        template: {spec: {containers: [{name: w}]}}\n",
        "the product of replicas and parallelism must not exceed");
}

/* ---- labels ------------------------------------------------------------ */

static void pod_label(const char *key, const char *value, const char *want)
{
    char yaml[4096];
    FMT(yaml,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n"
        "    '%s': '%s'\nspec: {containers: []}\n",
        key, value);
    if (!want) {
        struct object *o = must_decode(yaml);
        assert_string_equal(strmap_get(&o->meta.labels, key), value);
        object_free(o);
        return;
    }
    must_fail(yaml, want);
}

static void test_labels(void **state)
{
    char k[400], v[300], want[600];
    pod_label("app", "web", NULL);
    pod_label("app.kubernetes.io/name", "My_Value.1-x", NULL);
    pod_label("Tier", "", NULL);
    pod_label(rep(k, "k", 63), rep(v, "v", 63), NULL);
    FMT(k, "%s/name", rep(v, "p", 253));
    pod_label(k, "x", NULL);

    FMT(want,
        "t.yaml:6: Pod p: metadata.labels.app: invalid label value "
        "\"%s\": must be no more than 63 characters",
        rep(k, "v", 64));
    pod_label("app", rep(v, "v", 64), want);
    /* a valid name names the object; an invalid one does not */
    must_fail("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
              "  namespace: team-a\n  labels: {app: 'a b'}\n"
              "spec: {containers: []}\n",
              "t.yaml:6: Pod team-a/p: metadata.labels.app: invalid label");
    must_fail("apiVersion: v1\nkind: Pod\nmetadata:\n  name: 'P Q'\n"
              "  labels: {app: 'a b'}\nspec: {containers: []}\n",
              "t.yaml:5: Pod: metadata.labels.app: invalid label");
    /* longer values are quoted in part */
    FMT(want, "invalid label value \"%s...\": must be no more than 63",
        rep(k, "v", 64));
    pod_label("app", rep(v, "v", 65), want);
    pod_label(rep(k, "k", 64), "x",
              "invalid label key \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
              "kkkkkkkkkkkkkkkkkkkk\": name part must be no more than 63 "
              "characters");
    FMT(k, "%s/name", rep(v, "p", 254));
    pod_label(k, "x", "prefix part must be no more than 253 characters");
    pod_label("Example.com/name", "x",
              "invalid label key \"Example.com/name\": prefix part a "
              "lowercase RFC 1123 subdomain must consist");
    pod_label("a/b/c", "x", "invalid label key \"a/b/c\": a qualified name");
    pod_label("/x", "x", "prefix part must be non-empty");
    pod_label("x/", "x", "name part must be non-empty");
    pod_label("-x", "x", "invalid label key \"-x\": name part must consist");
    pod_label("x", "-x",
              "metadata.labels.x: invalid label value \"-x\": a valid label "
              "must be an empty string or consist of alphanumeric characters");
    pod_label("x", "a b", "invalid label value \"a b\"");
}

/* Every map of labels: templates, nodeSelector, matchLabels, a flavor's
 * nodeLabels. */
static void test_label_maps(void **state)
{
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
              "spec:\n  template:\n    metadata:\n      labels: {'a/b/c': x}\n"
              "    spec: {}\n",
              "t.yaml:7: Job default/j: spec.template.metadata.labels.a/b/c: "
              "invalid label key");
    must_fail("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
              "metadata: {name: js}\nspec:\n  replicatedJobs:\n"
              "  - name: w\n    template:\n"
              "      metadata: {labels: {role: '-w'}}\n"
              "      spec: {template: {spec: {}}}\n",
              "spec.replicatedJobs[0].template.metadata.labels.role: invalid "
              "label value \"-w\"");
    must_fail(POD_HEAD "  nodeSelector: {disktype: 'ssd drive'}\n"
                       "  containers: []\n",
              "t.yaml:5: Pod ns/p: spec.nodeSelector.disktype: invalid label "
              "value \"ssd drive\"");
    must_fail(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
        "metadata: {name: rf}\nspec:\n  nodeLabels: {'cloud/pool/x': a}\n",
        "ResourceFlavor rf: spec.nodeLabels.cloud/pool/x: invalid label "
        "key");
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
              "metadata: {name: cq}\nspec:\n"
              "  namespaceSelector: {matchLabels: {team: 'a,b'}}\n",
              "ClusterQueue cq: spec.namespaceSelector.matchLabels.team: "
              "invalid label value \"a,b\"");
}

/* ---- other integers ---------------------------------------------------- */

#define PC(name, value, extra)                                                 \
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"                  \
    "metadata: {name: " name "}\nvalue: " value "\n" extra

static void test_priority_class_values(void **state)
{
    object_free(must_decode(PC("high", "1000000000", "")));
    object_free(must_decode(PC("low", "-2147483648", "")));
    must_fail(PC("high", "1000000001", ""),
              "t.yaml:4: PriorityClass high: value: maximum allowed value of a "
              "user defined priority is 1000000000");
    object_free(must_decode(PC("system-node-critical", "2000001000", "")));
    object_free(must_decode(PC("system-cluster-critical", "2000000000", "")));
    must_fail(PC("system-cluster-critical", "2000001000", ""),
              "PriorityClass system-cluster-critical: value: value of "
              "system-cluster-critical PriorityClass must be 2000000000");
    must_fail(PC("system-node-critical", "2000001000", "globalDefault: true\n"),
              "globalDefault: globalDefault of system-node-critical "
              "PriorityClass must be false");
    must_fail(PC("system-high", "10", ""),
              "t.yaml:3: PriorityClass system-high: metadata.name: priority "
              "class names with 'system-' prefix are reserved for system use "
              "only");
}

static void pod_group(const char *meta, const char *want)
{
    char yaml[1024];
    FMT(yaml,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
        "  namespace: ns\n%sspec: {containers: []}\n",
        meta);
    if (!want) {
        object_free(must_decode(yaml));
        return;
    }
    must_fail(yaml, want);
}

/* Kueue's pod webhook: group name and total count come together, the count
 * an integer >= 1. */
static void test_pod_group_count(void **state)
{
    pod_group("  labels: {kueue.x-k8s.io/pod-group-name: g}\n"
              "  annotations: {kueue.x-k8s.io/pod-group-total-count: '3'}\n",
              NULL);
    pod_group("  annotations: {kueue.x-k8s.io/pod-group-name: g, "
              "kueue.x-k8s.io/pod-group-total-count: '+1'}\n",
              NULL);
    pod_group("  labels: {kueue.x-k8s.io/pod-group-name: g}\n"
              "  annotations: {kueue.x-k8s.io/pod-group-total-count: '-3'}\n",
              "t.yaml:7: Pod ns/p: metadata.annotations.kueue.x-k8s.io/"
              "pod-group-total-count: must be an integer of at least 1, got "
              "\"-3\"");
    const char *bad[] = {
        "0", "", "1.5", "3 ", "0x10", "two", "9223372036854775808"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char meta[256];
        FMT(meta,
            "  labels: {kueue.x-k8s.io/pod-group-name: g}\n"
            "  annotations: {kueue.x-k8s.io/pod-group-total-count: "
            "'%s'}\n",
            bad[i]);
        pod_group(meta, "pod-group-total-count: must be an integer of at "
                        "least 1");
    }
    pod_group("  labels: {kueue.x-k8s.io/pod-group-name: g}\n"
              "  annotations: {kueue.x-k8s.io/pod-group-total-count: "
              "'9223372036854775807'}\n",
              NULL);
    pod_group("  labels: {kueue.x-k8s.io/pod-group-name: g}\n",
              "Pod ns/p: metadata.annotations.kueue.x-k8s.io/"
              "pod-group-total-count: required with "
              "kueue.x-k8s.io/pod-group-name");
    pod_group("  annotations: {kueue.x-k8s.io/pod-group-total-count: '2'}\n",
              "Pod ns/p: metadata.labels.kueue.x-k8s.io/pod-group-name: "
              "required with kueue.x-k8s.io/pod-group-total-count");
}

/* 300,000 labels decode (and are checked) with every value kept: the map is
 * indexed, so this is linear. */
static void test_many_labels(void **state)
{
    const size_t n = 300000;
    size_t size = n * 40 + 256, len = 0;
    char *yaml = malloc(size);
    assert_non_null(yaml);
    len += (size_t)snprintf(yaml + len, size - len,
                            "apiVersion: v1\nkind: Pod\nmetadata:\n"
                            "  name: p\n  labels:\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(yaml + len, size - len,
                                "    example.com/k%zu: v%zu\n", i, i);
    snprintf(yaml + len, size - len, "spec: {containers: []}\n");
    struct object *o = must_decode(yaml);
    free(yaml);
    assert_int_equal(o->meta.labels.n, n);
    for (size_t i = 0; i < n; i += 7) {
        char k[64], v[32];
        FMT(k, "example.com/k%zu", i);
        FMT(v, "v%zu", i);
        assert_string_equal(strmap_get(&o->meta.labels, k), v);
        assert_string_equal(o->meta.labels.items[i].key, k);
    }
    object_free(o);
}

/* The API server's 256 KiB for an object's annotations, keys and values
 * together: exactly that loads, one byte more is refused naming the field,
 * on a Pod and on a Job's pod template. */
static void test_annotations_size(void **state)
{
    const size_t limit = 256 * 1024, key = 1; /* "a" */
    for (int over = 0; over <= 1; over++) {
        for (int tmpl = 0; tmpl <= 1; tmpl++) {
            size_t vlen = limit - key + (size_t)over;
            char *yaml = malloc(vlen + 512);
            assert_non_null(yaml);
            int n = snprintf(
                yaml, 512, "%s",
                tmpl ? "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, "
                       "namespace: ns}\nspec:\n  template:\n    metadata:\n"
                       "      annotations: {a: "
                     : "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
                       "  namespace: ns\n  annotations: {a: ");
            memset(yaml + n, 'v', vlen);
            snprintf(yaml + n + vlen, 256, "%s",
                     tmpl ? "}\n    spec: {restartPolicy: Never, containers: "
                            "[{name: c}]}\n"
                          : "}\nspec: {containers: [{name: c}]}\n");
            if (over)
                must_fail(yaml, tmpl ? "spec.template.metadata.annotations: "
                                       "too long: 262145 bytes, must have at "
                                       "most 262144"
                                     : "metadata.annotations: too long: 262145 "
                                       "bytes, must have at most 262144");
            else
                object_free(must_decode(yaml));
            free(yaml);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_negative_pod_quantities),
        cmocka_unit_test(test_negative_template_quantities),
        cmocka_unit_test(test_negative_node_quantities),
        cmocka_unit_test(test_negative_kueue_quota),
        cmocka_unit_test(test_node_ready),
        cmocka_unit_test(test_node_ready_malformed),
        cmocka_unit_test(test_object_names),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_job_name),
        cmocka_unit_test(test_jobset_limits),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_many_labels),
        cmocka_unit_test(test_label_maps),
        cmocka_unit_test(test_priority_class_values),
        cmocka_unit_test(test_pod_group_count),
        cmocka_unit_test(test_annotations_size),
    };
    return cmocka_run_group_tests_name("decode_limits", tests, NULL, NULL);
}
