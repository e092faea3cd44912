/* test_validate_fields.c - the strict reading of Kueue input: unknown fields
 * with a suggestion, fields Ordo does not implement, older and unknown API
 * versions, documents Ordo does not read, every error of an object with the
 * line of its key, and --strict turning warnings into errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode.h"
#include "doc.h"
#include "manifest.h"
#include "suggest.h"
#include "test_helpers.h"

/* What decoding one document gave. */
struct result {
    int r;
    struct diag_list diags;
};

/* Decodes the first document of yaml (named q.yaml), strict or not. */
static struct result decode(const char *yaml, bool strict)
{
    struct result res;
    struct doc *d = NULL;
    struct err e = {{0}};
    struct object *o = NULL;
    struct decode_options opt = {.strict = strict};
    diag_list_init(&res.diags);
    int r = doc_parse(yaml, strlen(yaml), "q.yaml", &d, &e);
    if (r < 0)
        print_error("parse: %s\n", e.msg);
    assert_int_equal(r, 0);
    res.r = decode_document(d->docs[0], "q.yaml", &opt, &o, &res.diags);
    object_free(o);
    doc_free(d);
    return res;
}

static void print_diags(const struct diag_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        print_error("  [%zu] %s (line %u): %s\n", i,
                    diag_level_name(l->items[i].level), l->items[i].line,
                    l->items[i].msg);
}

/* Asserts that diagnostic i is exactly `msg` at `level`. */
static void expect_diag(const struct result *res, size_t i,
                        enum diag_level level, const char *msg)
{
    if (i >= res->diags.n || res->diags.items[i].level != level ||
        strcmp(res->diags.items[i].msg, msg) != 0) {
        print_error("want [%zu] %s: %s\ngot:\n", i, diag_level_name(level),
                    msg);
        print_diags(&res->diags);
        fail();
    }
}

static void expect_count(const struct result *res, size_t n)
{
    if (res->diags.n != n) {
        print_error("want %zu diagnostics, got:\n", n);
        print_diags(&res->diags);
        fail();
    }
}

/* One warning by default (the object is read), the same text as an error
 * with strict (the object is not). */
static void warns(const char *yaml, const char *msg)
{
    struct result res = decode(yaml, false);
    assert_int_equal(res.r, 0);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_WARNING, msg);
    diag_list_release(&res.diags);
    res = decode(yaml, true);
    assert_int_equal(res.r, -EINVAL);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_ERROR, msg);
    diag_list_release(&res.diags);
}

#define CQ      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
#define CQ_META CQ "metadata:\n  name: team-a\n"
#define RG                                                                     \
    "  resourceGroups:\n"                                                      \
    "  - coveredResources: [cpu]\n"                                            \
    "    flavors:\n"                                                           \
    "    - name: default\n"                                                    \
    "      resources:\n"                                                       \
    "      - name: cpu\n"

static void test_suggest(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("preemption", "preemption"), 0);
    assert_int_equal(suggest_distance("preemtion", "preemption"), 1);
    assert_int_equal(suggest_distance("wieght", "weight"), 1); /* a swap */
    assert_int_equal(suggest_distance("", "abc"), 3);
    assert_int_equal(suggest_distance("Cohort", "cohort"), 0);
    static const char *const names[] = {"nominalQuota", "borrowingLimit",
                                        "lendingLimit", NULL, "name"};
    assert_string_equal(suggest_closest("nominalQuote", names, 5),
                        "nominalQuota");
    assert_string_equal(suggest_closest("borrowingLimt", names, 5),
                        "borrowingLimit");
    assert_string_equal(suggest_closest("nam", names, 5), "name");
    assert_null(suggest_closest("xyz", names, 5));
    /* Short words get one edit at most. */
    assert_null(suggest_closest("nm", names, 5));
}

static void test_unknown_spec_field(void **state)
{
    (void)state;
    warns(CQ_META "spec:\n  preemtion:\n    withinClusterQueue: Never\n",
          "q.yaml:6: ClusterQueue team-a: spec.preemtion: unknown field "
          "(did you mean \"preemption\"?)");
    warns(CQ_META "spec:\n  queueingStratgy: StrictFIFO\n",
          "q.yaml:6: ClusterQueue team-a: spec.queueingStratgy: unknown field "
          "(did you mean \"queueingStrategy\"?)");
    /* Nothing close: no suggestion. */
    warns(CQ_META "spec:\n  colour: blue\n",
          "q.yaml:6: ClusterQueue team-a: spec.colour: unknown field");
    /* v1beta2 has no spec.cohort: not read, cohortName suggested. */
    warns(CQ_META "spec:\n  cohort: c1\n",
          "q.yaml:6: ClusterQueue team-a: spec.cohort: unknown field (did "
          "you mean \"cohortName\"?)");
}

static void test_unknown_nested_fields(void **state)
{
    (void)state;
    warns(CQ_META "spec:\n  cohortName: c\n" RG
                  "        nominalQuota: 4\n        borrowingLimt: 2\n",
          "q.yaml:14: ClusterQueue team-a: spec.resourceGroups[0].flavors[0]"
          ".resources[0].borrowingLimt: unknown field (did you mean "
          "\"borrowingLimit\"?)");
    warns(CQ_META "spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n"
                  "    flavors:\n    - name: default\n      resource: []\n"
                  "      resources: [{name: cpu, nominalQuota: 1}]\n",
          "q.yaml:10: ClusterQueue team-a: spec.resourceGroups[0].flavors[0]"
          ".resource: unknown field (did you mean \"resources\"?)");
    warns(CQ_META "spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n"
                  "    flavours: []\n"
                  "    flavors: [{name: f, resources: [{name: cpu, "
                  "nominalQuota: 1}]}]\n",
          "q.yaml:8: ClusterQueue team-a: spec.resourceGroups[0].flavours: "
          "unknown field (did you mean \"flavors\"?)");
    warns(CQ_META "spec:\n  preemption:\n    borrowWithinCohort:\n"
                  "      polcy: Never\n",
          "q.yaml:8: ClusterQueue team-a: spec.preemption.borrowWithinCohort"
          ".polcy: unknown field (did you mean \"policy\"?)");
    warns(CQ_META "spec:\n  flavorFungibility: {whenCanBorow: Borrow}\n",
          "q.yaml:6: ClusterQueue team-a: spec.flavorFungibility."
          "whenCanBorow: unknown field (did you mean \"whenCanBorrow\"?)");
    warns(CQ_META "spec:\n  fairSharing: {wieght: 2}\n",
          "q.yaml:6: ClusterQueue team-a: spec.fairSharing.wieght: unknown "
          "field (did you mean \"weight\"?)");
    warns(CQ_META "spec:\n  namespaceSelector:\n    matchLabel: {a: b}\n",
          "q.yaml:7: ClusterQueue team-a: spec.namespaceSelector.matchLabel: "
          "unknown field (did you mean \"matchLabels\"?)");
    warns(CQ "metadata:\n  name: team-a\n  lables: {a: b}\n",
          "q.yaml:5: ClusterQueue team-a: metadata.lables: unknown field "
          "(did you mean \"labels\"?)");
    warns(CQ_META "spek: {}\n",
          "q.yaml:5: ClusterQueue team-a: spek: unknown field (did you mean "
          "\"spec\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
          "metadata: {name: f}\nspec:\n  nodeLabel: {a: b}\n",
          "q.yaml:5: ResourceFlavor f: spec.nodeLabel: unknown field (did "
          "you mean \"nodeLabels\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
          "metadata: {name: f}\nspec:\n  tolerations:\n  - key: a\n"
          "    operater: Exists\n    operator: Exists\n",
          "q.yaml:7: ResourceFlavor f: spec.tolerations[0].operater: unknown "
          "field (did you mean \"operator\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
          "metadata: {name: q, namespace: ns}\n"
          "spec: {clusterQueue: a, stopPolicy: None, stopPolcy: Hold}\n",
          "q.yaml:4: LocalQueue ns/q: spec.stopPolcy: unknown field (did you "
          "mean \"stopPolicy\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
          "metadata: {name: co}\nspec: {parent: root}\n",
          "q.yaml:4: Cohort co: spec.parent: unknown field (did you mean "
          "\"parentName\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
          "metadata: {name: t}\nspec:\n  levels:\n  - nodeLabel: rack\n"
          "    nodelabel: x\n",
          "q.yaml:7: Topology t: spec.levels[0].nodelabel: unknown field (did "
          "you mean \"nodeLabel\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"
          "metadata: {name: w}\nvalue: 10\ndescripton: x\n",
          "q.yaml:5: WorkloadPriorityClass w: descripton: unknown field (did "
          "you mean \"description\"?)");
}

/* AdmissionCheck is a Kueue kind too: its spec and parameters. */
static void test_admission_check_fields(void **state)
{
    (void)state;
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\n"
          "metadata: {name: prov}\nspec:\n  controlerName: x\n"
          "  controllerName: y\n",
          "q.yaml:5: AdmissionCheck prov: spec.controlerName: unknown field "
          "(did you mean \"controllerName\"?)");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\n"
          "metadata: {name: prov}\nspec:\n  controllerName: y\n"
          "  parameters:\n    apiGroup: a.b\n    kind: K\n    name: n\n"
          "    nme: n\n",
          "q.yaml:10: AdmissionCheck prov: spec.parameters.nme: unknown field "
          "(did you mean \"name\"?)");
}

static void test_unsupported_fields(void **state)
{
    (void)state;
    warns(CQ_META "spec:\n  admissionChecksStrategy:\n    admissionChecks:\n"
                  "    - name: prov\n",
          "q.yaml:6: ClusterQueue team-a: spec.admissionChecksStrategy: "
          "unsupported: Ordo does not implement admission checks yet");
    warns(CQ_META "spec:\n  admissionScope:\n"
                  "    admissionMode: UsageBasedAdmissionFairSharing\n",
          "q.yaml:6: ClusterQueue team-a: spec.admissionScope: unsupported: "
          "Ordo does not implement Admission Fair Sharing; the field is "
          "ignored");
    warns(CQ_META "spec:\n  concurrentAdmissionPolicy: {migration: {mode: "
                  "TryPreferredFlavors}}\n",
          "q.yaml:6: ClusterQueue team-a: spec.concurrentAdmissionPolicy: "
          "unsupported: Ordo does not implement concurrent admission "
          "(workload migration between flavors); the field is ignored");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
          "metadata: {name: q}\nspec:\n  clusterQueue: a\n"
          "  fairSharing: {weight: 2}\n",
          "q.yaml:6: LocalQueue default/q: spec.fairSharing: unsupported: "
          "Ordo does not implement Admission Fair Sharing, the only use of a "
          "LocalQueue's weight; the field is ignored");
    warns("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
          "metadata: {name: f}\nspec:\n  nodeLabels: {rack: a}\n"
          "  topologyName: default\n",
          "q.yaml:6: ResourceFlavor f: spec.topologyName: unsupported: Ordo "
          "does not implement topology-aware scheduling yet; the flavor's "
          "nodes are used without a topology");
    /* A null unsupported field is as good as absent. */
    struct result res = decode(CQ_META "spec:\n  admissionScope: null\n", true);
    assert_int_equal(res.r, 0);
    expect_count(&res, 0);
    diag_list_release(&res.diags);
}

/* Core Kubernetes kinds stay lenient: an API server has checked them. */
static void test_core_kinds_lenient(void **state)
{
    (void)state;
    static const char *const docs[] = {
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, lables: {}}\n"
        "spec:\n  containerz: []\n  containers: [{name: c, image: i}]\n",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
        "spec:\n  paralelism: 2\n  template:\n    spec:\n"
        "      containers: [{name: c, image: i}]\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspek: {}\n",
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\nextra: 1\n",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
        "metadata: {name: p}\nvalue: 1\nvalu: 2\n",
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        struct result res = decode(docs[i], true);
        if (res.r != 0 || res.diags.n)
            print_diags(&res.diags);
        assert_int_equal(res.r, 0);
        expect_count(&res, 0);
        diag_list_release(&res.diags);
    }
}

/* Every error of an object, in the order of the input, each at its key. */
static void test_every_error(void **state)
{
    (void)state;
    struct result res = decode(CQ_META "spec:\n"                    /* 5 */
                                       "  queueingStrategy: Fast\n" /* 6 */
                                       "  preemtion: {}\n"          /* 7 */
                                       "  resourceGroups:\n"        /* 8 */
                                       "  - coveredResources: [cpu, memory]\n"
                                       "    flavors:\n"               /* 10 */
                                       "    - name: default\n"        /* 11 */
                                       "      resources:\n"           /* 12 */
                                       "      - name: cpu\n"          /* 13 */
                                       "        nominalQuota: -1\n"   /* 14 */
                                       "        borrowingLimit: 2\n"  /* 15 */
                                       "      - name: memory\n"       /* 16 */
                                       "        nominalQuota: 5 Gi\n" /* 17 */
                                       "  stopPolicy:\n"              /* 18 */
                                       "    Hold\n"                   /* 19 */
                                       "  fairSharing:\n"             /* 20 */
                                       "    weight: -2\n",            /* 21 */
                               false);
    assert_int_equal(res.r, -EINVAL);
    expect_count(&res, 6);
    expect_diag(&res, 0, DIAG_ERROR,
                "q.yaml:6: ClusterQueue team-a: spec.queueingStrategy: "
                "unsupported value \"Fast\" (one of: BestEffortFIFO, "
                "StrictFIFO)");
    expect_diag(&res, 1, DIAG_WARNING,
                "q.yaml:7: ClusterQueue team-a: spec.preemtion: unknown field "
                "(did you mean \"preemption\"?)");
    expect_diag(&res, 2, DIAG_ERROR,
                "q.yaml:14: ClusterQueue team-a: spec.resourceGroups[0]."
                "flavors[0].resources[0].nominalQuota: must be >= 0");
    expect_diag(&res, 3, DIAG_ERROR,
                "q.yaml:15: ClusterQueue team-a: spec.resourceGroups[0]."
                "flavors[0].resources[0].borrowingLimit: must be nil when "
                "cohortName is empty");
    expect_diag(&res, 4, DIAG_ERROR,
                "q.yaml:17: ClusterQueue team-a: spec.resourceGroups[0]."
                "flavors[0].resources[1].nominalQuota: invalid quantity "
                "\"5 Gi\": whitespace in quantity");
    /* The value is on the next line: the message points at the key. */
    expect_diag(&res, 5, DIAG_ERROR,
                "q.yaml:21: ClusterQueue team-a: spec.fairSharing.weight: "
                "must be >= 0");
    diag_list_release(&res.diags);

    /* decode_object() keeps the first of them. */
    const char *yaml = CQ_META "spec:\n  fairSharing: {weight: -1}\n"
                               "  queueingStrategy: Fast\n";
    struct doc *d = NULL;
    struct err e = {{0}};
    struct object *o = NULL;
    assert_int_equal(doc_parse(yaml, strlen(yaml), "q.yaml", &d, &e), 0);
    assert_int_equal(decode_object(d->docs[0], "q.yaml", &o, &e), -EINVAL);
    assert_string_equal(e.msg, "q.yaml:6: ClusterQueue team-a: "
                               "spec.fairSharing.weight: must be >= 0");
    doc_free(d);
}

/* JSON has no lines: the order found is kept. */
static void test_json_order(void **state)
{
    (void)state;
    struct result res =
        decode("{\"apiVersion\": \"kueue.x-k8s.io/v1beta2\", \"kind\": "
               "\"LocalQueue\", \"metadata\": {\"name\": \"q\"}, \"spec\": "
               "{\"clusterQueu\": \"a\", \"stopPolicy\": \"Later\"}}",
               false);
    assert_int_equal(res.r, -EINVAL);
    expect_count(&res, 3);
    expect_diag(&res, 0, DIAG_WARNING,
                "q.yaml: LocalQueue default/q: spec.clusterQueu: unknown "
                "field (did you mean \"clusterQueue\"?)");
    expect_diag(&res, 1, DIAG_ERROR,
                "q.yaml: LocalQueue default/q: spec.clusterQueue: required");
    expect_diag(&res, 2, DIAG_ERROR,
                "q.yaml: LocalQueue default/q: spec.stopPolicy: unsupported "
                "value \"Later\" (one of: None, Hold, HoldAndDrain)");
    diag_list_release(&res.diags);
}

static void test_versions(void **state)
{
    (void)state;
    /* An unknown version of a Kueue kind: an error, not read. */
    struct result res = decode("apiVersion: kueue.x-k8s.io/v1\n"
                               "kind: ClusterQueue\nmetadata: {name: a}\n",
                               false);
    assert_int_equal(res.r, -EINVAL);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_ERROR,
                "q.yaml:1: ClusterQueue a: apiVersion: unknown version "
                "\"kueue.x-k8s.io/v1\" of a Kueue kind (Ordo reads "
                "kueue.x-k8s.io/v1beta2, and v1beta1): not read");
    diag_list_release(&res.diags);
    res = decode("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\n"
                 "metadata: {name: a}\n",
                 false);
    assert_int_equal(res.r, -EINVAL);
    diag_list_release(&res.diags);

    /* v1beta1, nothing that differs: read, with a note. */
    res = decode("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"
                 "metadata: {name: old}\nspec:\n  namespaceSelector: {}\n",
                 true);
    assert_int_equal(res.r, 0);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_NOTE,
                "q.yaml:1: ClusterQueue old: kueue.x-k8s.io/v1beta1 is an "
                "older version (deprecated by Kueue), read as "
                "kueue.x-k8s.io/v1beta2");
    diag_list_release(&res.diags);

    /* v1beta1 fields that differ: a warning each (errors with strict). */
    const char *old = "apiVersion: kueue.x-k8s.io/v1beta1\n"
                      "kind: ClusterQueue\nmetadata: {name: old}\nspec:\n"
                      "  cohort: c1\n"
                      "  admissionChecks: [prov]\n"
                      "  flavorFungibility: {whenCanBorrow: Borrow}\n";
    res = decode(old, false);
    assert_int_equal(res.r, 0);
    expect_count(&res, 4);
    expect_diag(&res, 1, DIAG_WARNING,
                "q.yaml:5: ClusterQueue old: spec.cohort: "
                "kueue.x-k8s.io/v1beta1 field, read as v1beta2 "
                "spec.cohortName");
    expect_diag(&res, 2, DIAG_WARNING,
                "q.yaml:6: ClusterQueue old: spec.admissionChecks: "
                "unsupported: Ordo does not implement admission checks yet");
    expect_diag(&res, 3, DIAG_WARNING,
                "q.yaml:7: ClusterQueue old: "
                "spec.flavorFungibility.whenCanBorrow: kueue.x-k8s.io/v1beta1 "
                "value \"Borrow\", read as MayStopSearch (v1beta2 removed it)");
    diag_list_release(&res.diags);
    res = decode(old, true);
    assert_int_equal(res.r, -EINVAL);
    assert_int_equal(diag_list_count(&res.diags, 0, DIAG_ERROR), 3);
    diag_list_release(&res.diags);

    /* What v1beta1 reads, and v1beta2 does not accept. */
    struct doc *d = NULL;
    struct err e;
    struct object *o = NULL;
    assert_int_equal(doc_parse(old, strlen(old), "q.yaml", &d, &e), 0);
    assert_int_equal(decode_object(d->docs[0], "q.yaml", &o, &e), 0);
    assert_string_equal(o->u.cluster_queue.cohort_name, "c1");
    assert_int_equal(o->u.cluster_queue.n_admission_checks, 1);
    assert_string_equal(o->u.cluster_queue.admission_checks[0], "prov");
    assert_int_equal(o->u.cluster_queue.when_can_borrow,
                     FUNGIBILITY_MAY_STOP_SEARCH);
    object_free(o);
    doc_free(d);
    res = decode(CQ_META "spec:\n  flavorFungibility: {whenCanBorrow: "
                         "Borrow}\n",
                 false);
    assert_int_equal(res.r, -EINVAL);
    diag_list_release(&res.diags);
}

static void test_ignored_kinds(void **state)
{
    (void)state;
    struct result res = decode("apiVersion: v1\nkind: ConfigMap\n"
                               "metadata: {name: cm, namespace: ns}\n",
                               true);
    assert_int_equal(res.r, DECODE_IGNORED);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_NOTE,
                "q.yaml:1: ConfigMap ns/cm (v1): not read by Ordo");
    diag_list_release(&res.diags);

    /* A workload Ordo does not schedule. */
    const char *pt = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
                     "metadata:\n  name: pt\n  namespace: ml\n"
                     "  labels: {kueue.x-k8s.io/queue-name: team}\n";
    res = decode(pt, false);
    assert_int_equal(res.r, DECODE_IGNORED);
    expect_count(&res, 1);
    expect_diag(&res, 0, DIAG_WARNING,
                "q.yaml:1: PyTorchJob ml/pt (kubeflow.org/v1): unsupported by "
                "Ordo: a workload of LocalQueue \"team\" (label "
                "kueue.x-k8s.io/queue-name) of a kind Ordo does not read; it "
                "is not scheduled");
    diag_list_release(&res.diags);
    res = decode(pt, true);
    assert_int_equal(res.r, -EINVAL);
    expect_count(&res, 1);
    assert_int_equal(res.diags.items[0].level, DIAG_ERROR);
    diag_list_release(&res.diags);
    /* Without the label it is only not read. */
    res = decode("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\n",
                 true);
    assert_int_equal(res.r, DECODE_IGNORED);
    expect_diag(&res, 0, DIAG_NOTE,
                "q.yaml:1: RayJob r (ray.io/v1): not read by Ordo");
    diag_list_release(&res.diags);

    res = decode("apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                 "kind: Configuration\n",
                 false);
    assert_int_equal(res.r, DECODE_IGNORED);
    expect_diag(&res, 0, DIAG_WARNING,
                "q.yaml:1: Configuration (no name) "
                "(config.kueue.x-k8s.io/v1beta2): unsupported by Ordo: "
                "Kueue's own configuration is not read (Ordo's settings are "
                "in --config, a SchedulerConfiguration)");
    diag_list_release(&res.diags);
    /* A Kueue kind Ordo does not read. */
    res = decode("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
                 "metadata: {name: w, namespace: ns}\n",
                 true);
    assert_int_equal(res.r, DECODE_IGNORED);
    expect_diag(&res, 0, DIAG_NOTE,
                "q.yaml:1: Workload ns/w (kueue.x-k8s.io/v1beta2): not read "
                "by Ordo");
    diag_list_release(&res.diags);
}

struct seen {
    size_t errors, warnings, notes;
    char last_error[ERR_MSG_MAX];
};

static void on_error(const struct err *e, void *userdata)
{
    struct seen *s = userdata;
    s->errors++;
    strcpy(s->last_error, e->msg);
}

static void on_diag(const struct diag *d, void *userdata)
{
    struct seen *s = userdata;
    s->warnings += d->level == DIAG_WARNING;
    s->notes += d->level == DIAG_NOTE;
}

/* The manifest reader hands warnings and notes on, and counts them. */
static void test_manifest_strict(void **state)
{
    (void)state;
    static const char yaml[] =
        CQ_META "spec:\n  preemtion: {}\n"
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n";
    for (int strict = 0; strict <= 1; strict++) {
        struct manifest_set s;
        struct seen seen = {0};
        manifest_set_init(&s);
        s.strict = strict;
        s.on_diag = on_diag;
        s.diag_userdata = &seen;
        int r = manifest_load_buffer(&s, yaml, strlen(yaml), "q.yaml", on_error,
                                     &seen);
        assert_int_equal(r, strict ? -EINVAL : 0);
        assert_int_equal(s.n, strict ? 0 : 1);
        assert_int_equal(s.n_ignored, 1);
        assert_int_equal(s.n_errors, strict);
        assert_int_equal(s.n_warnings, strict ? 0 : 1);
        assert_int_equal(seen.errors, strict);
        assert_int_equal(seen.warnings, strict ? 0 : 1);
        assert_int_equal(seen.notes, 1);
        if (strict)
            assert_string_equal(seen.last_error,
                                "q.yaml:6: ClusterQueue team-a: "
                                "spec.preemtion: unknown field (did you mean "
                                "\"preemption\"?)");
        manifest_set_release(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_unknown_spec_field),
        cmocka_unit_test(test_unknown_nested_fields),
        cmocka_unit_test(test_admission_check_fields),
        cmocka_unit_test(test_unsupported_fields),
        cmocka_unit_test(test_core_kinds_lenient),
        cmocka_unit_test(test_every_error),
        cmocka_unit_test(test_json_order),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_ignored_kinds),
        cmocka_unit_test(test_manifest_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
