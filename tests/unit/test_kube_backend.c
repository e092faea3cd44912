/* test_kube_backend.c - the Kubernetes backend against the fake API
 * server, with the real scheduler and plugins: informers feed the cluster,
 * nothing is scheduled before all synced, a bind carries the admission
 * annotations (with the ClusterQueue version that decided it), and its
 * outcomes (201, 409 on the same or another node, an
 * unclear 5xx resolved by reading the pod) land as the backend promises;
 * an object the decoder refuses is skipped and reported. */
#include "events_helpers.h"

#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fake_apiserver.h"
#include "kube_backend.h"
#include "kube_int.h"
#include "kube_status.h"
#include "kube_workload.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define EMPTY "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}"
#define LIST(items)                                                            \
    "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[" items "]}"
#define NODE(name)                                                             \
    "{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"2\"},"         \
    "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\","           \
    "\"pods\":\"110\"}}}"
#define CQ_SPEC(quota)                                                         \
    "{\"namespaceSelector\":{},\"resourceGroups\":[{\"coveredResources\":"     \
    "[\"cpu\"],\"flavors\":[{\"name\":\"default-flavor\",\"resources\":[{"     \
    "\"name\":\"cpu\",\"nominalQuota\":" quota "}]}]}]}"
#define POD_JSON(node)                                                         \
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p1\","   \
    "\"namespace\":\"default\",\"uid\":\"u-1\",\"resourceVersion\":\"9\","     \
    "\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},\"spec\":{"            \
    "\"schedulerName\":\"ordo-scheduler\"," node "\"containers\":[{\"name\":"  \
    "\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}"
#define BINDING_PATH "/api/v1/namespaces/default/pods/p1/binding"

static int64_t fake_now;

static int64_t test_clock(void *data)
{
    return fake_now;
}

struct env {
    struct fx *f;
    struct kclient *kc;
    struct krequests *q;
    struct kube_backend *kb;
    int rejected;
    char why[512];
    char whys[4096]; /* every refusal's first 160 bytes, one a line */
};

static void on_rejected(void *data, struct json_object *obj, const char *why)
{
    struct env *e = data;
    e->rejected++;
    snprintf(e->why, sizeof(e->why), "%s", why);
    size_t n = strlen(e->whys);
    snprintf(e->whys + n, sizeof(e->whys) - n, "%.160s\n", why);
}

/* The cluster every case starts from; quota is the ClusterQueue's cpu. */
static void script_pods(const char *quota_json, const char *pods_json)
{
    fake_rule("GET", "/api/v1/nodes", 200, LIST(NODE("n1") "," NODE("n2")))
        ->query = "limit";
    fake_rule("GET", "/api/v1/namespaces", 200,
              LIST("{\"metadata\":{\"name\":\"default\"}}"))
        ->query = "limit";
    fake_rule("GET", "/apis/kueue.x-k8s.io/v1beta2/resourceflavors", 200,
              LIST("{\"metadata\":{\"name\":\"default-flavor\"},\"spec\":{}}"))
        ->query = "limit";
    fake_rule("GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", 200,
              quota_json)
        ->query = "limit";
    fake_rule("GET", "/apis/kueue.x-k8s.io/v1beta2/localqueues", 200,
              LIST("{\"metadata\":{\"name\":\"lq\",\"namespace\":\"default\"},"
                   "\"spec\":{\"clusterQueue\":\"cq\"}}"))
        ->query = "limit";
    fake_rule("GET", "/api/v1/pods", 200, pods_json)->query = "limit";
}

static void script(const char *quota_json)
{
    script_pods(quota_json, LIST(POD_JSON("")));
}

/* Whether the next env_new() writes status back. */
static bool env_writes;

static void env_new(struct env *e, void **state)
{
    memset(e, 0, sizeof(*e));
    e->f = *state;
    fake_reset();
    fake_now = 1000;
    struct kclient_options ko = {.base_url = fake_srv.base};
    assert_int_equal(kclient_new(&ko, &e->kc), 0);
    struct krequest_options o = {.now_ms = test_clock, .seed = 3};
    assert_int_equal(krequests_new(e->kc, &o, &e->q), 0);
    struct kube_backend_options bo = {.evict_grace_seconds = -1,
                                      .rejected = on_rejected,
                                      .hook_data = e,
                                      .write_status = env_writes};
    assert_int_equal(kube_backend_new(e->kc, e->q, &bo, &e->kb), 0);
    /* The fixture's scheduler acts through its own backend: make one that
     * acts through this one. */
    scheduler_free(e->f->s);
    assert_int_equal(scheduler_new(&e->f->cfg, &e->f->plugins,
                                   &kube_backend_ops, e->kb, &e->f->s),
                     0);
}

static void env_free(struct env *e)
{
    kube_backend_free(e->kb);
    krequests_free(e->q);
    kclient_free(e->kc);
}

static void drive(struct env *e)
{
    for (int i = 0; i < 4000; i++) {
        assert_true(krequests_process(e->q, 20) >= 0);
        if (kube_backend_synced(e->kb) && kube_backend_take_changed(e->kb))
            assert_true(scheduler_run(e->f->s) >= 0);
        if (krequests_in_flight(e->q) == 0 && krequests_due_in_ms(e->q) != 0)
            return;
    }
    fail_msg("never settled");
}

static struct record *find(const char *method, const char *path, int nth)
{
    for (size_t i = 0; i < fake_srv.n_records; i++)
        if (strcmp(fake_srv.records[i].method, method) == 0 &&
            strcmp(fake_srv.records[i].path, path) == 0 && nth-- == 0)
            return &fake_srv.records[i];
    return NULL;
}

static const char *pod_node(struct env *e)
{
    const struct pod *p =
        cluster_get_pod(scheduler_cluster(e->f->s), "default/p1");
    return p && p->node ? p->node->name : NULL;
}

static void start(struct env *e)
{
    struct rule *def = fake_rule("GET", NULL, 200, EMPTY);
    def->sticky = true;
    assert_int_equal(kube_backend_start(e->kb, e->f->s), 0);
    assert_false(kube_backend_synced(e->kb));
    drive(e);
}

static void test_bind_annotations(void **state)
{
    struct env e;
    env_new(&e, state);
    script(LIST("{\"metadata\":{\"name\":\"cq\",\"resourceVersion\":\"3\"},"
                "\"spec\":" CQ_SPEC("4") "}"));
    fake_rule("POST", BINDING_PATH, 201, "{\"kind\":\"Status\"}");
    start(&e);
    assert_true(kube_backend_synced(e.kb));
    struct record *b = find("POST", BINDING_PATH, 0);
    assert_non_null(b);
    struct json_object *root = json_tokener_parse(b->body), *v = NULL;
    assert_non_null(root);
    assert_true(json_pointer_get(root, "/target/name", &v) == 0);
    char node[64];
    snprintf(node, sizeof(node), "%s", json_object_get_string(v));
    assert_true(strcmp(node, "n1") == 0 || strcmp(node, "n2") == 0);
    assert_true(json_pointer_get(root, "/metadata/uid", &v) == 0);
    assert_string_equal(json_object_get_string(v), "u-1");
    assert_true(
        json_pointer_get(root, "/metadata/annotations/ordo.dev~1cluster-queue",
                         &v) == 0);
    assert_string_equal(json_object_get_string(v), "cq");
    assert_true(json_pointer_get(
                    root, "/metadata/annotations/ordo.dev~1flavors", &v) == 0);
    assert_string_equal(json_object_get_string(v), "cpu=default-flavor");
    assert_true(json_pointer_get(
                    root, "/metadata/annotations/ordo.dev~1workload", &v) == 0);
    assert_string_equal(json_object_get_string(v), "default/p1");
    assert_true(json_pointer_get(
                    root, "/metadata/annotations/ordo.dev~1pod-set", &v) == 0);
    assert_true(json_pointer_get(
                    root,
                    "/metadata/annotations/ordo.dev~1cluster-queue-version",
                    &v) == 0);
    assert_string_equal(json_object_get_string(v), "3");
    json_object_put(root);
    assert_string_equal(fx_state(e.f, "default/p1"), "admitted");
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.binds, 1);
    assert_int_equal(st.bound, 1);
    assert_string_equal(pod_node(&e), node);
    env_free(&e);
}

/* ClusterQueue cq at resourceVersion rv ("" for none), cpu quota cpu. */
#define VER_CQ(rv, cpu)                                                        \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"            \
    "metadata: {name: cq" rv "}\nspec:\n  namespaceSelector: {}\n"             \
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"           \
    "    - {name: default, resources: [{name: cpu, nominalQuota: " cpu "}]}\n"

/* The cluster-queue-version annotation of pod key's Binding, or NULL
 * (into buf). */
static const char *cq_version_of(struct fx *f, const char *key, char *buf,
                                 size_t size)
{
    const struct pod *p = cluster_get_pod(fx_c(f), key);
    assert_non_null(p);
    char *body = kube_binding_json(fx_c(f), p, "n1");
    assert_non_null(body);
    struct json_object *root = json_tokener_parse(body), *v = NULL;
    free(body);
    assert_non_null(root);
    const char *out = NULL;
    if (json_pointer_get(
            root, "/metadata/annotations/ordo.dev~1cluster-queue-version",
            &v) == 0) {
        snprintf(buf, size, "%s", json_object_get_string(v));
        out = buf;
    }
    json_object_put(root);
    return out;
}

/* Each admission's Binding names the ClusterQueue version whose quota
 * decided it: the one the cache held then, not the latest; an update
 * moves it for later admissions only; a ClusterQueue without a version
 * gives none. */
static void test_bind_cq_version(void **state)
{
    struct fx *f = *state;
    char buf[32];
    fx_add(f, FX_RF("default", "pool: a") VER_CQ(", resourceVersion: '7'", "2")
                  FX_LQ("ns", "lq", "cq") FX_NODE("n1", "8", "")
                      FX_POD("ns", "p1", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p1"), "admitted");
    assert_string_equal(cq_version_of(f, "ns/p1", buf, sizeof(buf)), "7");
    fx_update(f, VER_CQ(", resourceVersion: '12'", "4"));
    fx_add(f, FX_POD("ns", "p2", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p2"), "admitted");
    assert_string_equal(cq_version_of(f, "ns/p2", buf, sizeof(buf)), "12");
    /* Admitted before the change: still the version that decided it. */
    assert_string_equal(cq_version_of(f, "ns/p1", buf, sizeof(buf)), "7");
    fx_update(f, VER_CQ("", "4"));
    fx_add(f, FX_POD("ns", "p3", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/p3"), "admitted");
    assert_null(cq_version_of(f, "ns/p3", buf, sizeof(buf)));
    assert_string_equal(cq_version_of(f, "ns/p2", buf, sizeof(buf)), "12");
}

/* The node the bind chose, from its request. */
static const char *bound_to(char *buf, size_t size)
{
    struct record *b = find("POST", BINDING_PATH, 0);
    assert_non_null(b);
    struct json_object *root = json_tokener_parse(b->body), *v = NULL;
    assert_true(json_pointer_get(root, "/target/name", &v) == 0);
    snprintf(buf, size, "%s", json_object_get_string(v));
    json_object_put(root);
    return buf;
}

static void test_conflict_same_node(void **state)
{
    struct env e;
    env_new(&e, state);
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"));
    /* Both nodes named: whichever the bind chose, one rule says "same". */
    fake_rule("POST", BINDING_PATH, 409,
              "{\"kind\":\"Status\",\"code\":409,\"message\":\"pod p1 is "
              "already assigned to node \\\"n1\\\"\"}");
    start(&e);
    char node[64];
    bound_to(node, sizeof(node));
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    if (strcmp(node, "n1") == 0) {
        assert_int_equal(st.bound, 1);
        assert_int_equal(st.bind_conflicts, 0);
        assert_null(find("GET", "/api/v1/namespaces/default/pods/p1", 0));
    } else {
        /* Lost to n1: read again, found on n1. */
        assert_int_equal(st.bind_conflicts, 1);
        assert_non_null(find("GET", "/api/v1/namespaces/default/pods/p1", 0));
    }
    env_free(&e);
}

static void test_lost_race_reads_pod(void **state)
{
    struct env e;
    env_new(&e, state);
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"));
    fake_rule("POST", BINDING_PATH, 409,
              "{\"kind\":\"Status\",\"code\":409,\"message\":\"pod p1 is "
              "already assigned to node \\\"elsewhere\\\"\"}");
    fake_rule("GET", "/api/v1/namespaces/default/pods/p1", 200,
              POD_JSON("\"nodeName\":\"n2\","));
    start(&e);
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.bind_conflicts, 1);
    assert_int_equal(st.bind_failed, 1);
    /* Where the API server says it is; not bound again blindly. */
    assert_string_equal(pod_node(&e), "n2");
    assert_null(find("POST", BINDING_PATH, 1));
    env_free(&e);
}

static void test_unclear_answer_resolved(void **state)
{
    struct env e;
    env_new(&e, state);
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"));
    fake_rule("POST", BINDING_PATH, 503, "{}");
    start(&e);
    char node[64], pod[1024];
    bound_to(node, sizeof(node));
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.bind_unknown, 1);
    /* The GET found no such pod (the default answer): taken back, and not
     * bound again before a periodic cycle. */
    assert_int_equal(st.bind_failed, 1);
    env_free(&e);
    /* Again, the pod read back on the chosen node: bound. */
    env_new(&e, state);
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"));
    fake_rule("POST", BINDING_PATH, 503, "{}");
    snprintf(pod, sizeof(pod), "%s", POD_JSON("\"nodeName\":\"NODE\","));
    char *at = strstr(pod, "NODE");
    char tail[1024];
    snprintf(tail, sizeof(tail), "%s", at + 4);
    snprintf(at, sizeof(pod) - (size_t)(at - pod), "%s%s", node, tail);
    fake_rule("GET", "/api/v1/namespaces/default/pods/p1", 200, pod);
    start(&e);
    kube_backend_get_stats(e.kb, &st);
    char again[64];
    assert_string_equal(bound_to(again, sizeof(again)), node);
    assert_int_equal(st.bind_unknown, 1);
    assert_int_equal(st.bound, 1);
    assert_string_equal(pod_node(&e), node);
    env_free(&e);
}

static void test_rejected_skipped(void **state)
{
    struct env e;
    env_new(&e, state);
    /* A quota of -1 is refused; the rest of the cluster still comes in. */
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("-1") "}"));
    start(&e);
    assert_int_equal(e.rejected, 1);
    assert_contains(e.why, "ClusterQueue cq");
    assert_non_null(cluster_get_node(scheduler_cluster(e.f->s), "n1"));
    assert_null(find("POST", BINDING_PATH, 0)); /* no queue: not admitted */
    env_free(&e);
}

/* A pod in the queue; extra is spliced into its spec ("" or ",..."),
 * labels into its labels. Caller frees. */
static char *hostile_pod(const char *name, const char *labels, const char *cpu,
                         const char *extra)
{
    char *s = NULL;
    assert_true(
        asprintf(&s,
                 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
                 "\"uid\":\"u-%s\",\"resourceVersion\":\"9\",\"labels\":{"
                 "\"kueue.x-k8s.io/queue-name\":\"lq\"%s}},\"spec\":{"
                 "\"schedulerName\":\"ordo-scheduler\",\"containers\":[{"
                 "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
                 "\"%s\"}}}]%s}}",
                 name, name, labels, cpu, extra) > 0);
    return s;
}

/* Objects no API server should serve but a hostile or broken one might:
 * nested 200 deep, a label value and an annotation of 4 MiB, a quantity
 * of 1e400, a priority
 * that is no integer or past int64. Each is refused alone with its reason
 * (the daemon logs it and posts an Event), nothing crashes, and the good
 * pod beside them is still bound. */
static void test_hostile_objects_skipped(void **state)
{
    struct env e;
    env_new(&e, state);
    size_t big = (size_t)4 << 20;
    char *label = malloc(big + 16), *deep = malloc(2 * 200 + 16);
    char *annot = malloc(big + 32);
    assert_non_null(label);
    assert_non_null(annot);
    /* Closes the labels and opens the annotations (see hostile_pod). */
    strcpy(annot, "},\"annotations\":{\"big\":\"");
    memset(annot + strlen(annot), 'v', big);
    strcpy(annot + 24 + big, "\"");
    assert_non_null(deep);
    strcpy(label, ",\"big\":\"");
    memset(label + strlen(label), 'v', big);
    strcpy(label + 8 + big, "\"");
    strcpy(deep, ",\"x\":");
    memset(deep + 5, '[', 200);
    memset(deep + 205, ']', 200);
    deep[405] = '\0';
    char *pods[] = {
        hostile_pod("h-deep", "", "1", deep),
        hostile_pod("h-label", label, "1", ""),
        hostile_pod("h-annot", annot, "1", ""),
        hostile_pod("h-cpu", "", "1e400", ""),
        hostile_pod("h-prio", "", "1", ",\"priority\":1e308"),
        hostile_pod("h-int", "", "1", ",\"priority\":123456789012345678901234"),
    };
    size_t n = 0;
    for (size_t i = 0; i < 6; i++)
        n += strlen(pods[i]) + 1;
    char *list = malloc(n + 1024);
    assert_non_null(list);
    strcpy(list, "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[");
    for (size_t i = 0; i < 6; i++) {
        strcat(list, pods[i]);
        strcat(list, ",");
        free(pods[i]);
    }
    strcat(list, POD_JSON("") "]}");
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"),
        list);
    fake_rule("POST", BINDING_PATH, 201, "{\"kind\":\"Status\"}");
    start(&e);
    assert_true(kube_backend_synced(e.kb));
    assert_int_equal(e.rejected, 6);
    assert_contains(e.whys, "nesting too deep");
    assert_contains(e.whys, "metadata.labels.big: invalid label value");
    assert_contains(e.whys, "metadata.annotations: too long: 4194307 bytes");
    assert_contains(e.whys, "requests.cpu: invalid quantity \"1e400\"");
    assert_contains(e.whys, "spec.priority: expected an integer");
    assert_contains(e.whys, "integer out of range");
    assert_non_null(find("POST", BINDING_PATH, 0));
    assert_string_equal(fx_state(e.f, "default/p1"), "admitted");
    for (size_t i = 0; i < 6; i++) {
        char key[64];
        static const char *const names[] = {"h-deep", "h-label", "h-annot",
                                            "h-cpu",  "h-prio",  "h-int"};
        snprintf(key, sizeof(key), "default/%s", names[i]);
        assert_null(cluster_get_pod(scheduler_cluster(e.f->s), key));
    }
    env_free(&e);
    free(list);
    free(label);
    free(annot);
    free(deep);
}

#define CONTAINERS                                                             \
    "\"schedulerName\":\"ordo-scheduler\",\"containers\":[{\"name\":\"c\","    \
    "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]"

/* On a cluster a JobSet's pods are owned by its child Jobs: the child Job
 * is no workload of its own, the pod belongs to the JobSet, which is
 * resumed once admitted, and its pod bound. */
static void test_jobset_child_pods(void **state)
{
    struct env e;
    env_new(&e, state);
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"),
        LIST("{\"metadata\":{\"name\":\"js-w-0-x\",\"namespace\":"
             "\"default\",\"uid\":\"u-2\",\"labels\":{\"jobset.sigs.k8s.io/"
             "jobset-name\":\"js\",\"jobset.sigs.k8s.io/replicatedjob-name\":"
             "\"w\"},\"ownerReferences\":[{\"apiVersion\":\"batch/v1\","
             "\"kind\":\"Job\",\"name\":\"js-w-0\",\"uid\":\"j\","
             "\"controller\":true}]},\"spec\":{" CONTAINERS "}}"));
    fake_rule("GET", "/apis/jobset.x-k8s.io/v1alpha2/jobsets", 200,
              LIST("{\"metadata\":{\"name\":\"js\",\"namespace\":"
                   "\"default\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
                   "\"lq\"}},\"spec\":{\"suspend\":true,\"replicatedJobs\":[{"
                   "\"name\":\"w\",\"replicas\":1,\"template\":{\"spec\":{"
                   "\"parallelism\":1,\"template\":{\"spec\":{" CONTAINERS
                   "}}}}}]}}"))
        ->query = "limit";
    fake_rule("GET", "/apis/batch/v1/jobs", 200,
              LIST("{\"metadata\":{\"name\":\"js-w-0\",\"namespace\":"
                   "\"default\",\"ownerReferences\":[{\"apiVersion\":"
                   "\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":"
                   "\"js\",\"uid\":\"s\",\"controller\":true}]},\"spec\":{"
                   "\"parallelism\":1,\"template\":{\"spec\":{" CONTAINERS
                   "}}}}"))
        ->query = "limit";
    fake_rule("PATCH",
              "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/"
              "jobsets/js",
              200, "{}");
    fake_rule("POST", "/api/v1/namespaces/default/pods/js-w-0-x/binding", 201,
              "{}");
    start(&e);
    assert_null(
        cluster_get_workload(scheduler_cluster(e.f->s), "default/js-w-0"));
    assert_string_equal(fx_state(e.f, "default/js"), "admitted");
    struct record *r =
        find("PATCH",
             "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/js", 0);
    assert_non_null(r);
    assert_string_equal(r->body, "{\"spec\":{\"suspend\":false}}");
    assert_string_equal(r->ctype, "application/merge-patch+json");
    assert_non_null(
        find("POST", "/api/v1/namespaces/default/pods/js-w-0-x/binding", 0));
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.resumes, 1);
    assert_int_equal(st.bound, 1);
    env_free(&e);
}

#define JOB_PATH "/apis/batch/v1/namespaces/default/jobs/j"

/* A resume the API server refuses is sent again after a backoff that
 * doubles (10 s, 20 s), by the cluster's clock, until it is applied: a
 * job left suspended would hold its admitted quota for ever. */
static void test_resume_retried(void **state)
{
    struct env e;
    env_new(&e, state);
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"),
        EMPTY);
    fake_rule("GET", "/apis/batch/v1/jobs", 200,
              LIST("{\"metadata\":{\"name\":\"j\",\"namespace\":\"default\","
                   "\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},"
                   "\"spec\":{\"suspend\":true,\"parallelism\":1,"
                   "\"template\":{\"spec\":{" CONTAINERS "}}}}"))
        ->query = "limit";
    fake_rule("PATCH", JOB_PATH, 403, "{\"kind\":\"Status\"}");
    fake_rule("PATCH", JOB_PATH, 403, "{\"kind\":\"Status\"}");
    fake_rule("PATCH", JOB_PATH, 200, "{}");
    struct scheduler *s = e.f->s;
    const int64_t t0 = INT64_C(1000) * 1000000000;
    assert_int_equal(scheduler_clock(s, t0), 0);
    start(&e);
    assert_string_equal(fx_state(e.f, "default/j"), "admitted");
    assert_non_null(find("PATCH", JOB_PATH, 0));
    assert_null(find("PATCH", JOB_PATH, 1));
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.resume_failed, 1);
    assert_int_equal(e.kb->n_resume_retry, 1);

    /* Not before its backoff. */
    assert_int_equal(scheduler_clock(s, t0 + INT64_C(9) * 1000000000), 0);
    assert_int_equal(kube_resume_retry(e.kb), 0);
    assert_int_equal(scheduler_clock(s, t0 + INT64_C(11) * 1000000000), 0);
    assert_int_equal(kube_resume_retry(e.kb), 1);
    assert_int_equal(kube_resume_retry(e.kb), 0); /* its answer to come */
    drive(&e);
    assert_non_null(find("PATCH", JOB_PATH, 1));
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.resume_failed, 2);

    /* The second wait is twice the first. */
    assert_int_equal(scheduler_clock(s, t0 + INT64_C(30) * 1000000000), 0);
    assert_int_equal(kube_resume_retry(e.kb), 0);
    assert_int_equal(scheduler_clock(s, t0 + INT64_C(32) * 1000000000), 0);
    assert_int_equal(kube_resume_retry(e.kb), 1);
    drive(&e);
    assert_non_null(find("PATCH", JOB_PATH, 2));
    assert_int_equal(e.kb->n_resume_retry, 0); /* applied: forgotten */
    assert_int_equal(kube_resume_retry(e.kb), 0);
    assert_null(find("PATCH", JOB_PATH, 3));
    env_free(&e);
}

/* A failed resume of a job that is gone is not sent again. */
static void test_resume_of_gone_job_forgotten(void **state)
{
    struct env e;
    env_new(&e, state);
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"),
        EMPTY);
    fake_rule("GET", "/apis/batch/v1/jobs", 200,
              LIST("{\"metadata\":{\"name\":\"j\",\"namespace\":\"default\","
                   "\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"}},"
                   "\"spec\":{\"suspend\":true,\"parallelism\":1,"
                   "\"template\":{\"spec\":{" CONTAINERS "}}}}"))
        ->query = "limit";
    fake_rule("PATCH", JOB_PATH, 403, "{\"kind\":\"Status\"}");
    struct scheduler *s = e.f->s;
    const int64_t t0 = INT64_C(1000) * 1000000000;
    assert_int_equal(scheduler_clock(s, t0), 0);
    start(&e);
    assert_int_equal(e.kb->n_resume_retry, 1);
    assert_int_equal(scheduler_object_deleted(s, OBJ_JOB, "default/j"), 0);
    assert_int_equal(scheduler_clock(s, t0 + INT64_C(61) * 1000000000), 0);
    assert_int_equal(kube_resume_retry(e.kb), 0);
    assert_int_equal(e.kb->n_resume_retry, 0);
    assert_null(find("PATCH", JOB_PATH, 1));
    env_free(&e);
}

#define GANG_POD(i)                                                            \
    "{\"metadata\":{\"name\":\"g-" i "\",\"namespace\":\"default\","           \
    "\"uid\":\"pu-" i "\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\","  \
    "\"kind\":\"Job\",\"name\":\"g\",\"uid\":\"ju\",\"controller\":true}]},"   \
    "\"spec\":{" CONTAINERS "}}"

/* A gang of two whose second bind goes to a node deleted meanwhile: not
 * left split, the bound pod is evicted and the Workload says why. */
static void test_gang_bind_to_deleted_node(void **state)
{
    struct env e;
    env_new(&e, state);
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"),
        LIST(GANG_POD("0") "," GANG_POD("1")));
    fake_rule("GET", "/apis/batch/v1/jobs", 200,
              LIST("{\"metadata\":{\"name\":\"g\",\"namespace\":\"default\","
                   "\"uid\":\"ju\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
                   "\"lq\"}},\"spec\":{\"parallelism\":2,\"template\":{"
                   "\"spec\":{" CONTAINERS "}}}}"))
        ->query = "limit";
    fake_rule("POST", "/api/v1/namespaces/default/pods/g-0/binding", 201, "{}");
    fake_rule("POST", "/api/v1/namespaces/default/pods/g-1/binding", 404,
              "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\","
              "\"message\":\"nodes \\\"n1\\\" not found\",\"details\":{"
              "\"name\":\"n1\",\"kind\":\"nodes\"}}");
    fake_rule("POST", "/api/v1/namespaces/default/pods/g-0/eviction", 201,
              "{}");
    start(&e);
    /* Evictions go through the client's own requests. */
    for (int i = 0; i < 400 && kclient_pending(e.kc) > 0; i++)
        assert_true(krequests_process(e.q, 20) >= 0);
    assert_int_equal(kclient_pending(e.kc), 0);
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.binds, 2);
    assert_int_equal(st.bind_failed, 1);
    /* Not placed again within the admission: the bound pod is evicted. */
    assert_null(find("POST", "/api/v1/namespaces/default/pods/g-1/binding", 1));
    assert_non_null(
        find("POST", "/api/v1/namespaces/default/pods/g-0/eviction", 0));
    const struct workload *w = fx_wl(e.f, "default/g");
    assert_true(w->evicting);
    assert_contains(w->evicted_by, "bind of pod default/g-1 to node");
    assert_contains(w->evicted_by, "deleted");
    char msg[512];
    assert_string_equal(kube_workload_eviction(scheduler_cluster(e.f->s), w,
                                               NULL, msg, sizeof(msg), NULL),
                        "BindFailed");
    assert_contains(msg, "default/g-1");
    env_free(&e);
}

#define PODN(name, cpu)                                                        \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\","          \
    "\"uid\":\"u-" name "\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"        \
    "\"lq\"}},\"spec\":{\"schedulerName\":\"ordo-scheduler\","                 \
    "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"    \
    "\"" cpu "\"}}}]}}"
#define PODN_YAML(name, cpu)                                                   \
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                      \
    "\n  namespace: default\n  uid: u-" name                                   \
    "\n  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n"                     \
    "  schedulerName: ordo-scheduler\n"                                        \
    "  containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

/* Runs what the daemon's loop runs, status writes included. */
static void drive_writes(struct env *e)
{
    for (int i = 0; i < 4000; i++) {
        assert_true(krequests_process(e->q, 20) >= 0);
        if (kube_backend_synced(e->kb) && kube_backend_take_changed(e->kb)) {
            assert_true(scheduler_run(e->f->s) >= 0);
            assert_int_equal(kube_backend_write_status(e->kb), 0);
        }
        assert_int_equal(kube_backend_drain_writes(e->kb), 0);
        if (krequests_in_flight(e->q) == 0 && krequests_due_in_ms(e->q) != 0 &&
            e->kb->writes.n_pending == 0)
            return;
    }
    fail_msg("never settled");
}

static void start_writes(struct env *e)
{
    fake_rule("POST", NULL, 201, "{\"metadata\":{\"uid\":\"wl-uid\"}}")
        ->sticky = true;
    fake_rule("PATCH", NULL, 200, "{}")->sticky = true;
    fake_rule("GET", NULL, 200, EMPTY)->sticky = true;
    assert_int_equal(kube_backend_start(e->kb, e->f->s), 0);
    drive_writes(e);
}

/* The Workload object name of plain pod name (uid u-<name>). */
static void pod_wl_name(const char *pod, char *buf, size_t size)
{
    char uid[64];
    snprintf(uid, sizeof(uid), "u-%s", pod);
    struct object top = {0};
    top.meta.name = (char *)pod;
    top.meta.uid = uid;
    struct workload w = {0};
    w.kind = WL_POD;
    w.top = &top;
    w.key = (char *)pod;
    assert_int_equal(kube_workload_name(&w, buf, size), 0);
}

/* Status writes file only what changed after the first pass; what left
 * is forgotten once its last write is out; Workload uids come from the
 * POST's answer. */
static void test_status_writes_follow_changes(void **state)
{
    struct env e;
    env_writes = true;
    env_new(&e, state);
    env_writes = false;
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("8") "}"),
        LIST(PODN("p1", "1") "," PODN("p2", "1") "," PODN("p3", "1")));
    start_writes(&e);
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.status_full, 1);
    assert_string_equal(fx_state(e.f, "default/p3"), "admitted");
    /* Taken from the POST's answer, for Preempted messages. */
    assert_string_equal(kube_status_workload_uid(e.kb, "default/p1"), "wl-uid");
    /* A cycle with one change files that workload and its queues only:
     * its Workload and status, the ClusterQueue, the LocalQueue. */
    uint64_t puts = e.kb->writes.puts;
    fx_add(e.f, PODN_YAML("p4", "1"));
    assert_true(scheduler_run(e.f->s) >= 0);
    assert_int_equal(kube_backend_write_status(e.kb), 0);
    assert_int_equal(e.kb->writes.puts - puts, 4);
    /* Nothing changed: nothing filed. */
    puts = e.kb->writes.puts;
    assert_true(scheduler_run(e.f->s) >= 0);
    assert_int_equal(kube_backend_write_status(e.kb), 0);
    assert_int_equal(e.kb->writes.puts - puts, 0);
    drive_writes(&e);
    /* One that waits, then is deleted: its writes are forgotten. */
    char name[KUBE_NAME_MAX], k[400];
    pod_wl_name("p5", name, sizeof(name));
    fx_add(e.f, PODN_YAML("p5", "100"));
    assert_true(scheduler_run(e.f->s) >= 0);
    assert_int_equal(kube_backend_write_status(e.kb), 0);
    snprintf(k, sizeof(k), "Workload/status default/%s", name);
    assert_non_null(kube_writes_state(&e.kb->writes, k));
    assert_non_null(kube_writes_state(&e.kb->writes, "Pod/status default/p5"));
    drive_writes(&e);
    size_t known = kube_writes_count(&e.kb->writes);
    assert_int_equal(scheduler_object_deleted(e.f->s, OBJ_POD, "default/p5"),
                     0);
    kube_status_object_gone(e.kb, KRES_POD, "default/p5");
    assert_true(scheduler_run(e.f->s) >= 0);
    assert_int_equal(kube_backend_write_status(e.kb), 0);
    drive_writes(&e);
    assert_null(kube_writes_state(&e.kb->writes, k));
    snprintf(k, sizeof(k), "Workload default/%s", name);
    assert_null(kube_writes_state(&e.kb->writes, k));
    assert_null(kube_writes_state(&e.kb->writes, "Pod/status default/p5"));
    assert_null(kube_status_workload_uid(e.kb, "default/p5"));
    /* The queue status it changed is re-filed, nothing else is left. */
    assert_int_equal(kube_writes_count(&e.kb->writes), known - 3);
    env_free(&e);
}

/* A victim's Preempted message names its preemptor's Workload uid, learnt
 * from the preemptor's POST after the message was first filed. */
static void test_preempted_names_uid(void **state)
{
    struct env e;
    env_writes = true;
    env_new(&e, state);
    env_writes = false;
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":{\"namespaceSelector\":"
             "{},\"preemption\":{\"withinClusterQueue\":\"LowerPriority\"},"
             "\"resourceGroups\":[{\"coveredResources\":[\"cpu\"],\"flavors\":"
             "[{\"name\":\"default-flavor\",\"resources\":[{\"name\":\"cpu\","
             "\"nominalQuota\":1}]}]}]}}"),
        LIST(PODN("low", "1")));
    start_writes(&e);
    assert_string_equal(fx_state(e.f, "default/low"), "admitted");
    fx_add(e.f, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: high\n"
                "  namespace: default\n  uid: u-high\n"
                "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n"
                "  schedulerName: ordo-scheduler\n  priority: 10\n"
                "  containers: [{name: c, resources: {requests: {cpu: '1'}}}]"
                "\n");
    assert_true(scheduler_run(e.f->s) >= 0);
    assert_true(fx_wl(e.f, "default/low")->evicting);
    assert_int_equal(kube_backend_write_status(e.kb), 0);
    drive_writes(&e);
    char name[KUBE_NAME_MAX], k[400];
    pod_wl_name("low", name, sizeof(name));
    snprintf(k, sizeof(k), "Workload/status default/%s", name);
    struct json_object *st =
        (struct json_object *)kube_writes_state(&e.kb->writes, k);
    assert_non_null(st);
    struct json_object *conds = NULL, *s1 = NULL;
    assert_true(json_object_object_get_ex(st, "status", &s1));
    assert_true(json_object_object_get_ex(s1, "conditions", &conds));
    bool seen = false;
    for (size_t i = 0; i < json_object_array_length(conds); i++) {
        struct json_object *c = json_object_array_get_idx(conds, i), *m;
        if (json_object_object_get_ex(c, "message", &m) &&
            strstr(json_object_get_string(m), "Preempted to accommodate")) {
            assert_non_null(strstr(json_object_get_string(m), "UID: wl-uid"));
            seen = true;
        }
    }
    assert_true(seen);
    env_free(&e);
}

static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* On the way out the writes the last cycle owes are filed and sent; a
 * deadline already past sends nothing and says so. */
static void test_flush_before_exit(void **state)
{
    struct env e;
    env_writes = true;
    env_new(&e, state);
    env_writes = false;
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("8") "}"),
        LIST(PODN("p1", "1")));
    start_writes(&e);
    size_t before = fake_srv.n_records;
    fx_add(e.f, PODN_YAML("p2", "1"));
    assert_true(scheduler_run(e.f->s) >= 0);
    /* Past the deadline: filed, not sent. */
    assert_int_equal(kube_backend_flush(e.kb, 0), -ETIMEDOUT);
    assert_true(e.kb->writes.n_pending > 0);
    /* With time: everything goes out and is answered. */
    assert_int_equal(kube_backend_flush(e.kb, mono_now() + 30 * 1000000000LL),
                     0);
    assert_int_equal(e.kb->writes.n_pending, 0);
    assert_null(e.kb->write_ops);
    assert_non_null(find("POST",
                         "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/"
                         "workloads",
                         1));
    assert_true(fake_srv.n_records > before);
    assert_int_equal(kube_backend_flush(NULL, 0), 0);
    env_free(&e);
}

/* A Workload that exists already (409 to its POST, after a restart): its
 * uid is read back. */
static void test_workload_uid_after_conflict(void **state)
{
    struct env e;
    env_writes = true;
    env_new(&e, state);
    env_writes = false;
    script_pods(
        LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("8") "}"),
        LIST(PODN("p1", "1")));
    char name[KUBE_NAME_MAX], path[400];
    pod_wl_name("p1", name, sizeof(name));
    snprintf(path, sizeof(path),
             "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads/%s",
             name);
    fake_rule("POST",
              "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/"
              "workloads",
              409, "{\"kind\":\"Status\",\"reason\":\"AlreadyExists\"}");
    fake_rule("GET", path, 200, "{\"metadata\":{\"uid\":\"old-uid\"}}");
    start_writes(&e);
    assert_non_null(find("GET", path, 0));
    assert_string_equal(kube_status_workload_uid(e.kb, "default/p1"),
                        "old-uid");
    env_free(&e);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)

static int group_setup(void **state)
{
    return fake_start(state);
}

static int group_teardown(void **state)
{
    return fake_stop(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_bind_annotations),
        T(test_bind_cq_version),
        T(test_conflict_same_node),
        T(test_lost_race_reads_pod),
        T(test_unclear_answer_resolved),
        T(test_rejected_skipped),
        T(test_hostile_objects_skipped),
        T(test_jobset_child_pods),
        T(test_resume_retried),
        T(test_resume_of_gone_job_forgotten),
        T(test_gang_bind_to_deleted_node),
        T(test_status_writes_follow_changes),
        T(test_workload_uid_after_conflict),
        T(test_preempted_names_uid),
        T(test_flush_before_exit),
    };
    return cmocka_run_group_tests_name("kube_backend", tests, group_setup,
                                       group_teardown);
}
