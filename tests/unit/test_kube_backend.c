/* test_kube_backend.c - the Kubernetes backend against the fake API
 * server, with the real scheduler and plugins: informers feed the cluster,
 * nothing is scheduled before all synced, a bind carries the admission
 * annotations, and its outcomes (201, 409 on the same or another node, an
 * unclear 5xx resolved by reading the pod) land as the backend promises;
 * an object the decoder refuses is skipped and reported. */
#include "events_helpers.h"

#include <unistd.h>

#include <json-c/json.h>

#include "fake_apiserver.h"
#include "kube_backend.h"

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
    struct kube_backend_options bo = {
        .evict_grace_seconds = -1, .rejected = on_rejected, .hook_data = e};
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
    script(LIST("{\"metadata\":{\"name\":\"cq\"},\"spec\":" CQ_SPEC("4") "}"));
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
    json_object_put(root);
    assert_string_equal(fx_state(e.f, "default/p1"), "admitted");
    struct kube_backend_stats st;
    kube_backend_get_stats(e.kb, &st);
    assert_int_equal(st.binds, 1);
    assert_int_equal(st.bound, 1);
    assert_string_equal(pod_node(&e), node);
    env_free(&e);
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
 * nested 200 deep, a label value of 4 MiB, a quantity of 1e400, a priority
 * that is no integer or past int64. Each is refused alone with its reason
 * (the daemon logs it and posts an Event), nothing crashes, and the good
 * pod beside them is still bound. */
static void test_hostile_objects_skipped(void **state)
{
    struct env e;
    env_new(&e, state);
    size_t big = (size_t)4 << 20;
    char *label = malloc(big + 16), *deep = malloc(2 * 200 + 16);
    assert_non_null(label);
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
        hostile_pod("h-cpu", "", "1e400", ""),
        hostile_pod("h-prio", "", "1", ",\"priority\":1e308"),
        hostile_pod("h-int", "", "1", ",\"priority\":123456789012345678901234"),
    };
    size_t n = 0;
    for (size_t i = 0; i < 5; i++)
        n += strlen(pods[i]) + 1;
    char *list = malloc(n + 1024);
    assert_non_null(list);
    strcpy(list, "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[");
    for (size_t i = 0; i < 5; i++) {
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
    assert_int_equal(e.rejected, 5);
    assert_contains(e.whys, "nesting too deep");
    assert_contains(e.whys, "metadata.labels.big: invalid label value");
    assert_contains(e.whys, "requests.cpu: invalid quantity \"1e400\"");
    assert_contains(e.whys, "spec.priority: expected an integer");
    assert_contains(e.whys, "integer out of range");
    assert_non_null(find("POST", BINDING_PATH, 0));
    assert_string_equal(fx_state(e.f, "default/p1"), "admitted");
    for (size_t i = 0; i < 5; i++) {
        char key[64];
        static const char *const names[] = {"h-deep", "h-label", "h-cpu",
                                            "h-prio", "h-int"};
        snprintf(key, sizeof(key), "default/%s", names[i]);
        assert_null(cluster_get_pod(scheduler_cluster(e.f->s), key));
    }
    env_free(&e);
    free(list);
    free(label);
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
        T(test_bind_annotations),    T(test_conflict_same_node),
        T(test_lost_race_reads_pod), T(test_unclear_answer_resolved),
        T(test_rejected_skipped),    T(test_hostile_objects_skipped),
        T(test_jobset_child_pods),
    };
    return cmocka_run_group_tests_name("kube_backend", tests, group_setup,
                                       group_teardown);
}
