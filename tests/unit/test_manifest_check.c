/* test_manifest_check.c - the checks across objects (core/manifest_check.h):
 * each reference rule, with the object's file and line; Cohort cycles
 * naming every member; workloads Ordo will not schedule; strict mode
 * making missing references errors; the simulator's note; a consistent
 * set that yields nothing; and the AdmissionCheck kind's decoding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "manifest.h"
#include "manifest_check.h"
#include "test_helpers.h"

#define MAX_FINDINGS 16

struct findings {
    size_t n;
    enum manifest_severity sev[MAX_FINDINGS];
    unsigned line[MAX_FINDINGS];
    char msg[MAX_FINDINGS][1024];
};

static void collect(enum manifest_severity sev, const char *file, unsigned line,
                    const char *msg, void *userdata)
{
    struct findings *f = userdata;
    assert_string_equal(file, "test.yaml");
    if (f->n < MAX_FINDINGS) {
        f->sev[f->n] = sev;
        f->line[f->n] = line;
        snprintf(f->msg[f->n], sizeof(f->msg[0]), "%s", msg);
    }
    f->n++;
}

static void save_err(const struct err *e, void *userdata)
{
    *(struct err *)userdata = *e;
}

/* Loads yaml (which must decode) and checks it; returns the counts. */
static struct manifest_check_counts run(const char *yaml, bool strict,
                                        bool world, struct findings *f)
{
    struct manifest_set set;
    struct manifest_check_opts opts = {.strict = strict, .whole_world = world};
    struct manifest_check_counts counts;
    memset(f, 0, sizeof(*f));
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(manifest_check(&set, &opts, collect, f, &counts), 0);
    manifest_set_release(&set);
    assert_int_equal(counts.n_warnings + counts.n_errors, f->n);
    return counts;
}

static void assert_has(const struct findings *f, size_t i, const char *part)
{
    assert_true(i < f->n);
    if (!strstr(f->msg[i], part))
        fail_msg("finding %zu: \"%s\" lacks \"%s\"", i, f->msg[i], part);
}

#define RF(name, extra)                                                        \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"          \
    "metadata: {name: " name "}\n" extra
#define CQ(name, spec)                                                         \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"            \
    "metadata: {name: " name "}\nspec:\n  namespaceSelector: {}\n"             \
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"           \
    "    - name: default\n      resources: [{name: cpu, nominalQuota: "        \
    "4}]\n" spec
#define LQ(ns, name, cq)                                                       \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"              \
    "metadata: {namespace: " ns ", name: " name "}\nspec: {clusterQueue: " cq  \
    "}\n"
#define COHORT(name, parent)                                                   \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"                  \
    "metadata: {name: " name "}\nspec: {parentName: " parent "}\n"
#define AC(name)                                                               \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\n"          \
    "metadata: {name: " name "}\nspec: {controllerName: example.com/ctl}\n"
#define JOB(name, labels, scheduler, extra)                                    \
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " name "\n"      \
    "  namespace: team\n  labels: {" labels "}\nspec:\n  template:\n"          \
    "    spec:\n      schedulerName: " scheduler "\n" extra                    \
    "      containers: [{name: c}]\n"

/* Everything names what is there: nothing to say. */
static void test_consistent(void **state)
{
    struct findings f;
    struct manifest_check_counts c =
        run(RF("default",
               "spec: {topologyName: dc, nodeLabels: {pool: "
               "a}}\n") "---\napiVersion: "
                        "kueue.x-k8s.io/v1beta2\nkind: "
                        "Topology\n"
                        "metadata: {name: dc}\nspec:\n  "
                        "levels: [{nodeLabel: "
                        "kubernetes.io/hostname}]\n"
                        "---\napiVersion: "
                        "kueue.x-k8s.io/v1beta2\nkind: "
                        "WorkloadPriorityClass\nmetadata: "
                        "{name: high}\nvalue: 100\n"
                        "---\napiVersion: "
                        "scheduling.k8s.io/v1\nkind: "
                        "PriorityClass\n"
                        "metadata: {name: batch}\nvalue: "
                        "10\n" CQ("cq", "  cohortName: org\n")
                            COHORT("org", "root") LQ("team", "main", "cq")
                                JOB("a",
                                    "kueue.x-k8s.io/"
                                    "queue-name: main, "
                                    "kueue.x-k8s.io/"
                                    "priority-class: "
                                    "high",
                                    "ordo-scheduler",
                                    "      "
                                    "priorityClassName: "
                                    "batch\n") JOB("b", "", "ordo-scheduler",
                                                   "      priorityClassName: "
                                                   "system-node-critical\n")
                                    LQ("team", "default", "cq"),
            false, false, &f);
    /* An implicit cohort (root) and a built-in PriorityClass are fine. */
    for (size_t i = 0; i < f.n && i < MAX_FINDINGS; i++)
        fprintf(stderr, "unexpected: %s\n", f.msg[i]);
    assert_int_equal(f.n, 0);
    assert_int_equal(c.n_errors, 0);
}

static void test_local_queue_cluster_queue(void **state)
{
    struct findings f;
    struct manifest_check_counts c =
        run(RF("default", "") LQ("team", "main", "taem-a"), false, false, &f);
    assert_int_equal(f.n, 1);
    assert_int_equal(c.n_warnings, 1);
    assert_int_equal(f.sev[0], MANIFEST_WARNING);
    assert_int_equal(f.line[0], 6); /* the LocalQueue's document */
    assert_has(&f, 0,
               "LocalQueue team/main: spec.clusterQueue: ClusterQueue taem-a "
               "doesn't exist");
}

static void test_cluster_queue_flavors(void **state)
{
    struct findings f;
    run("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
        "metadata: {name: cq}\nspec:\n  resourceGroups:\n"
        "  - coveredResources: [cpu]\n    flavors:\n"
        "    - {name: spot, resources: [{name: cpu, nominalQuota: 1}]}\n"
        "    - {name: on-demand, resources: [{name: cpu, nominalQuota: 1}]}\n"
        "  - coveredResources: [memory]\n    flavors:\n"
        "    - {name: spot-mem, resources: [{name: memory, nominalQuota: "
        "1}]}\n" RF("on-demand", ""),
        false, false, &f);
    assert_int_equal(f.n, 1);
    /* Kueue's words, in the ClusterQueue's order. */
    assert_has(&f, 0,
               "ClusterQueue cq: spec.resourceGroups: references missing "
               "ResourceFlavor(s): spot,spot-mem");
}

static void test_cluster_queue_admission_checks(void **state)
{
    struct findings f;
    run(RF("default", "") AC("prov")
            CQ("cq", "  admissionChecksStrategy:\n    admissionChecks:\n"
                     "    - {name: zeta}\n    - {name: prov}\n"
                     "    - {name: alpha}\n"),
        false, false, &f);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.sev[0], MANIFEST_WARNING);
    assert_has(&f, 0, "references missing AdmissionCheck(s): alpha,zeta");
    /* One that exists is never Active: Ordo runs no controller. */
    assert_int_equal(f.sev[1], MANIFEST_WARNING);
    assert_has(&f, 1, "references inactive AdmissionCheck(s): prov");
    assert_has(&f, 1, "Ordo runs no admission check controller");
    /* v1beta1's plain list of names is read too. */
    run(RF("default", "") AC(
            "prov") "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
                    "ClusterQueue\n"
                    "metadata: {name: old}\nspec:\n  admissionChecks: [prov]\n",
        false, false, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0,
               "ClusterQueue old: references inactive AdmissionCheck(s): prov");
}

static void test_flavor_topology(void **state)
{
    struct findings f;
    run(RF("tas", "spec: {topologyName: dc, nodeLabels: {pool: a}}\n"), false,
        false, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0,
               "ResourceFlavor tas: spec.topologyName: there is no Topology "
               "\"dc\" for TAS flavor \"tas\"");
}

static void test_cohort_cycle(void **state)
{
    struct findings f;
    /* a -> b -> c -> a, with d hanging below the cycle and e apart. */
    struct manifest_check_counts c =
        run(COHORT("d", "a") COHORT("a", "b") COHORT("b", "c") COHORT("c", "a")
                COHORT("e", "root"),
            false, false, &f);
    assert_int_equal(f.n, 1);
    assert_int_equal(c.n_errors, 1);
    assert_int_equal(f.sev[0], MANIFEST_ERROR);
    assert_has(&f, 0,
               "Cohort a: spec.parentName: cohort has a cycle: "
               "a -> b -> c -> a");
    /* Reported once, whichever member comes first. */
    run(COHORT("y", "x") COHORT("x", "y"), false, false, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0,
               "Cohort y: spec.parentName: cohort has a cycle: "
               "y -> x -> y");
    /* A chain into an implicit cohort is no cycle. */
    run(COHORT("p", "q") COHORT("q", "implicit"), false, false, &f);
    assert_int_equal(f.n, 0);
}

static void test_workload_references(void **state)
{
    struct findings f;
    run(RF("default", "") CQ("cq", "") LQ("team", "main", "cq") LQ("other",
                                                                   "mian", "cq")
            JOB("typo", "kueue.x-k8s.io/queue-name: mian", "ordo-scheduler", "")
                JOB("wpc",
                    "kueue.x-k8s.io/queue-name: main, "
                    "kueue.x-k8s.io/priority-class: urgent",
                    "ordo-scheduler", "      priorityClassName: batch\n"),
        false, false, &f);
    assert_int_equal(f.n, 3);
    /* A LocalQueue of that name in another namespace does not count. */
    assert_has(&f, 0,
               "Job team/typo: metadata.labels[kueue.x-k8s.io/queue-name]: "
               "LocalQueue mian doesn't exist in namespace team");
    assert_has(&f, 1,
               "Job team/wpc: spec.template.spec.priorityClassName: no "
               "PriorityClass with name batch was found");
    assert_has(&f, 2,
               "Job team/wpc: metadata.labels[kueue.x-k8s.io/priority-class]: "
               "WorkloadPriorityClass urgent not found");
}

static void test_no_queue(void **state)
{
    struct findings f;
    /* Ordo's pods without a queue and no "default" LocalQueue: nobody
     * schedules them. Other schedulers' pods without a queue are not
     * Ordo's business. */
    run(JOB("lost", "", "ordo-scheduler", "")
            JOB("web", "", "default-scheduler", ""),
        false, false, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0,
               "Job team/lost: no queue: label kueue.x-k8s.io/queue-name not "
               "set and no LocalQueue \"default\" in namespace team");
}

static void test_not_ordos(void **state)
{
    struct findings f;
    run(RF("default", "") CQ("cq", "") LQ("team", "main", "cq")
            JOB("kube", "kueue.x-k8s.io/queue-name: main", "default-scheduler",
                "") "---\napiVersion: v1\nkind: Pod\nmetadata:\n"
                    "  name: solo\n  namespace: team\n"
                    "  labels: {kueue.x-k8s.io/queue-name: main}\n"
                    "spec:\n  schedulerName: volcano\n"
                    "  containers: [{name: c}]\n",
        false, false, &f);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.sev[0], MANIFEST_WARNING);
    assert_has(&f, 0,
               "Job team/kube: metadata.labels[kueue.x-k8s.io/queue-name] is "
               "set, but spec.template.spec.schedulerName is "
               "\"default-scheduler\", not ordo-scheduler: kube-scheduler or "
               "Kueue will handle it, not Ordo");
    assert_has(&f, 1,
               "Pod team/solo: metadata.labels[kueue.x-k8s.io/queue-name] is "
               "set, but spec.schedulerName is \"volcano\", not "
               "ordo-scheduler: volcano or Kueue will handle it");
}

/* The left_out callback: how many, and the last one's queue. */
struct left {
    size_t n;
    char queue[64], why[256];
};

static void on_left(const struct object *o, const char *queue, const char *why,
                    void *data)
{
    struct left *l = data;
    (void)o;
    l->n++;
    snprintf(l->queue, sizeof(l->queue), "%s", queue);
    snprintf(l->why, sizeof(l->why), "%s", why);
}

/* podDefaulting applied: Kueue-style objects become Ordo's, and what the
 * rule leaves out is named once, with its reason. */
static void test_rule(void **state)
{
    (void)state;
    const char *yaml =
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n" RF(
            "default", "") CQ("cq", "") LQ("team", "main", "cq")
            JOB("kueue-style", "kueue.x-k8s.io/queue-name: main",
                "default-scheduler", "")
                JOB("gang", "kueue.x-k8s.io/queue-name: main", "volcano", "")
                    JOB("none", "a: b", "default-scheduler", "")
        /* A pod of kueue-style, and one of gang: they go with their Job. */
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ks-0\n"
        "  namespace: team\n  ownerReferences: [{apiVersion: batch/v1, "
        "kind: Job, name: kueue-style, uid: u1, controller: true}]\n"
        "spec:\n  containers: [{name: c}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: g-0\n"
        "  namespace: team\n  ownerReferences: [{apiVersion: batch/v1, "
        "kind: Job, name: gang, uid: u2, controller: true}]\n"
        "spec:\n  containers: [{name: c}]\n"
        /* A labelled pod in kube-system: the default selector says no. */
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: sys\n"
        "  namespace: kube-system\n"
        "  labels: {kueue.x-k8s.io/queue-name: main}\n"
        "spec:\n  containers: [{name: c}]\n";
    struct manifest_set set;
    struct queue_rule rule = {0};
    struct left l = {0};
    struct manifest_check_opts opts = {
        .rule = &rule, .left_out = on_left, .left_out_data = &l};
    struct manifest_check_counts counts;
    struct findings f = {0};
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(manifest_check(&set, &opts, collect, &f, &counts), 0);
    const char *want[] = {
        "kueue-style", "ordo-scheduler",    "gang", "volcano",
        "none",        "default-scheduler", "ks-0", "ordo-scheduler",
        "g-0",         "default-scheduler", "sys",  "default-scheduler"};
    size_t seen = 0;
    for (size_t i = 0; i < set.n; i++) {
        const struct pod_spec *sp = queue_rule_spec(set.objects[i]);
        for (size_t j = 0; sp && j < sizeof(want) / sizeof(want[0]); j += 2)
            if (strcmp(set.objects[i]->meta.name, want[j]) == 0) {
                assert_string_equal(sp->scheduler_name, want[j + 1]);
                seen++;
            }
    }
    assert_int_equal(seen, 6);
    assert_int_equal(opts.n_defaulted, 2);
    manifest_set_release(&set);
    /* gang and sys; the pod of gang goes with its Job, unnamed. */
    assert_int_equal(f.n, 3);
    assert_has(&f, 0,
               "Job team/gang has queue label main but its "
               "spec.template.spec.schedulerName is \"volcano\": Ordo will "
               "not schedule it");
    assert_has(&f, 1,
               "Pod kube-system/sys has queue label main but its "
               "namespace kube-system is not selected by "
               "managedJobsNamespaceSelector");
    assert_has(&f, 2, "LocalQueue main doesn't exist in namespace kube-system");
    assert_int_equal(l.n, 2);
    assert_string_equal(l.queue, "main");
    assert_non_null(strstr(l.why, "kube-system"));
}

/* An unlabelled Job in a namespace with a LocalQueue "default" is Ordo's
 * (Kueue's LocalQueueDefaulting), and queued there: nothing to say. */
static void test_rule_default_queue(void **state)
{
    (void)state;
    const char *yaml =
        RF("default", "") CQ("cq", "") LQ("team", "default", "cq")
            JOB("bare", "a: b", "default-scheduler", "");
    struct manifest_set set;
    struct queue_rule rule = {0};
    struct manifest_check_opts opts = {.rule = &rule};
    struct manifest_check_counts counts;
    struct findings f = {0};
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(manifest_check(&set, &opts, collect, &f, &counts), 0);
    assert_int_equal(opts.n_defaulted, 1);
    assert_int_equal(f.n, 0);
    for (size_t i = 0; i < set.n; i++)
        if (set.objects[i]->kind == OBJ_JOB)
            assert_string_equal(queue_rule_spec(set.objects[i])->scheduler_name,
                                "ordo-scheduler");
    manifest_set_release(&set);
}

static void test_jobset_schedulers(void **state)
{
    struct findings f;
    run(RF("default", "") CQ("cq", "") LQ(
            "team", "main",
            "cq") "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
                  "metadata:\n  name: js\n  namespace: team\n"
                  "  labels: {kueue.x-k8s.io/queue-name: main}\nspec:\n"
                  "  replicatedJobs:\n"
                  "  - name: driver\n    template:\n      spec:\n        "
                  "template:\n"
                  "          spec:\n            schedulerName: ordo-scheduler\n"
                  "            containers: [{name: c}]\n"
                  "  - name: workers\n    template:\n      spec:\n        "
                  "template:\n"
                  "          spec:\n            containers: [{name: c}]\n",
        false, false, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0,
               "JobSet team/js: spec.replicatedJobs[1].template.spec.template."
               "spec.schedulerName is \"default-scheduler\" but "
               "replicatedJobs[0]'s is \"ordo-scheduler\"");
}

static void test_strict(void **state)
{
    struct findings f;
    const char *yaml = RF("default", "") CQ("cq", "") AC("prov")
        CQ("gated", "  admissionChecksStrategy:\n    admissionChecks:\n"
                    "    - {name: prov}\n") LQ("team", "main", "nope")
            JOB("kube", "kueue.x-k8s.io/queue-name: absent",
                "default-scheduler", "");
    struct manifest_check_counts c = run(yaml, false, false, &f);
    assert_int_equal(c.n_errors, 0);
    assert_int_equal(c.n_warnings, 4);
    c = run(yaml, true, false, &f);
    /* Missing references become errors; what Ordo will not schedule stays
     * a warning. */
    assert_int_equal(c.n_errors, 2);
    assert_int_equal(c.n_warnings, 2);
    assert_has(&f, 0, "references inactive AdmissionCheck(s): prov");
    assert_int_equal(f.sev[0], MANIFEST_WARNING);
    assert_has(&f, 1, "ClusterQueue nope doesn't exist");
    assert_int_equal(f.sev[1], MANIFEST_ERROR);
    assert_has(&f, 2, "LocalQueue absent doesn't exist");
    assert_int_equal(f.sev[2], MANIFEST_ERROR);
    assert_has(&f, 3, "kube-scheduler or Kueue will handle it, not Ordo");
    assert_int_equal(f.sev[3], MANIFEST_WARNING);
}

static void test_whole_world(void **state)
{
    struct findings f;
    run(LQ("team", "main", "cq"), false, true, &f);
    assert_int_equal(f.n, 1);
    assert_has(&f, 0, "in the simulator the manifests are the whole cluster");
    run(LQ("team", "main", "cq"), false, false, &f);
    assert_null(strstr(f.msg[0], "simulator"));
}

/* Loads yaml, expecting one decode error containing part. */
static void assert_decode_error(const char *yaml, const char *part)
{
    struct manifest_set set;
    struct err e = {{0}};
    manifest_set_init(&set);
    assert_int_equal(manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml",
                                          save_err, &e),
                     -EINVAL);
    assert_int_equal(set.n_errors, 1);
    if (!strstr(e.msg, part))
        fail_msg("\"%s\" lacks \"%s\"", e.msg, part);
    manifest_set_release(&set);
}

/* The AdmissionCheck kind, read so that references to it can be checked,
 * and the ClusterQueue's names of them in both API versions. */
static void test_admission_check_decoding(void **state)
{
    struct manifest_set set;
    const char *yaml =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\n"
        "metadata: {name: prov}\nspec:\n"
        "  controllerName: kueue.x-k8s.io/provisioning-request\n"
        "  parameters: {apiGroup: kueue.x-k8s.io, kind: "
        "ProvisioningRequestConfig, name: prov-config}\n";
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(set.n, 1);
    const struct object *o = set.objects[0];
    assert_int_equal(o->kind, OBJ_ADMISSION_CHECK);
    assert_string_equal(object_kind_name(o->kind), "AdmissionCheck");
    assert_null(o->meta.namespace_);
    assert_string_equal(o->u.admission_check.controller_name,
                        "kueue.x-k8s.io/provisioning-request");
    assert_string_equal(o->u.admission_check.parameters_kind,
                        "ProvisioningRequestConfig");
    assert_string_equal(o->u.admission_check.parameters_name, "prov-config");
    manifest_set_release(&set);
    assert_decode_error("apiVersion: kueue.x-k8s.io/v1beta2\n"
                        "kind: AdmissionCheck\nmetadata: {name: x}\n"
                        "spec: {parameters: {apiGroup: a, kind: K, name: n}}\n",
                        "AdmissionCheck x: spec.controllerName: required");
    assert_decode_error("apiVersion: kueue.x-k8s.io/v1beta2\n"
                        "kind: AdmissionCheck\nmetadata: {name: x}\n"
                        "spec: {controllerName: c, parameters: {apiGroup: a, "
                        "kind: 9K, name: n}}\n",
                        "spec.parameters.kind: invalid \"9K\"");
    assert_decode_error("apiVersion: kueue.x-k8s.io/v1beta2\n"
                        "kind: AdmissionCheck\nmetadata: {name: x}\n"
                        "spec: {controllerName: c, parameters: {kind: K, "
                        "name: n}}\n",
                        "spec.parameters.apiGroup: required");
    assert_decode_error("apiVersion: kueue.x-k8s.io/v1beta1\n"
                        "kind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
                        "  admissionChecks: [a]\n"
                        "  admissionChecksStrategy: {admissionChecks: "
                        "[{name: a}]}\n",
                        "spec.admissionChecks: either admissionChecks or "
                        "admissionChecksStrategy can be set, but not both");
    assert_decode_error(
        "apiVersion: kueue.x-k8s.io/v1beta1\n"
        "kind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
        "  admissionChecks: [{name: a}]\n",
        "spec.admissionChecks[0]: expected a string, got a map");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consistent),
        cmocka_unit_test(test_local_queue_cluster_queue),
        cmocka_unit_test(test_cluster_queue_flavors),
        cmocka_unit_test(test_cluster_queue_admission_checks),
        cmocka_unit_test(test_flavor_topology),
        cmocka_unit_test(test_cohort_cycle),
        cmocka_unit_test(test_workload_references),
        cmocka_unit_test(test_no_queue),
        cmocka_unit_test(test_not_ordos),
        cmocka_unit_test(test_jobset_schedulers),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_rule_default_queue),
        cmocka_unit_test(test_whole_world),
        cmocka_unit_test(test_admission_check_decoding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
