/* test_kclient.c - unit tests for core/kclient.c: pod eviction and its
 * DELETE fallback against the fake API server of tests/lib. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fake_apiserver.h"
#include "kclient.h"
#include "test_helpers.h"

/* Callbacks and cmocka tests ignore parameters, as the build allows
 * (-Wno-unused-parameter); this keeps a bare -Wextra build clean too. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define PDB_429                                                                \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"              \
    "\"status\":\"Failure\",\"reason\":\"TooManyRequests\",\"message\":"       \
    "\"Cannot evict pod as it would violate the pod's disruption budget.\","   \
    "\"code\":429}"
#define PDB_REFUSED                                                            \
    "eviction refused by a PodDisruptionBudget (429 TooManyRequests: Cannot "  \
    "evict pod as it would violate the pod's disruption budget.)"
#define NO_API      "no Eviction API (405 Method Not Allowed)"
#define SUCCESS_201 "{\"kind\":\"Status\",\"status\":\"Success\",\"code\":201}"
#define EVICT_PATH  "/api/v1/namespaces/ns/pods/name/eviction"
#define POD_PATH    "/api/v1/namespaces/ns/pods/name"

/* What one callback saw. */
struct outcome {
    int calls;
    enum kclient_evict_outcome outcome;
    long http;
    bool used_delete;
    char why[1024], name[256];
};

static void on_done(void *data, const struct kclient_evict_result *res)
{
    struct outcome *o = data;
    o->calls++;
    o->outcome = res->outcome;
    o->http = res->http_status;
    o->used_delete = res->used_delete;
    snprintf(o->why, sizeof(o->why), "%s", res->why);
    snprintf(o->name, sizeof(o->name), "%s", res->name);
}

static struct kclient *client_new(const char *token, long timeout_ms,
                                  size_t max_response)
{
    struct kclient_options opt = {.base_url = fake_srv.base,
                                  .bearer_token = token,
                                  .timeout_ms = timeout_ms,
                                  .max_response_bytes = max_response};
    struct kclient *kc = NULL;
    assert_int_equal(kclient_new(&opt, &kc), 0);
    assert_non_null(kc);
    return kc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs the client until nothing is pending, for at most 5 seconds. */
static void drain(struct kclient *kc)
{
    double deadline = now_s() + 5.0;
    while (kclient_pending(kc) > 0) {
        assert_true(kclient_process(kc, 50) >= 0);
        assert_true(now_s() < deadline);
    }
}

/* Evicts ns/name with one fresh client and returns the outcome. */
static struct outcome evict_with(const char *uid, int64_t grace,
                                 long timeout_ms, size_t max_response)
{
    struct outcome o = {0};
    struct kclient *kc = client_new(NULL, timeout_ms, max_response);
    assert_int_equal(
        kclient_evict_pod(kc, "ns", "name", uid, grace, on_done, &o), 0);
    assert_int_equal(o.calls, 0); /* never from kclient_evict_pod itself */
    assert_int_equal(kclient_pending(kc), 1);
    drain(kc);
    kclient_free(kc);
    assert_int_equal(o.calls, 1);
    return o;
}

static struct outcome evict_one(const char *uid, int64_t grace)
{
    return evict_with(uid, grace, 0, 0);
}

/* Parses a recorded body and returns the value at a dotted path. */
static struct json_object *jpath(struct json_object *root, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    struct json_object *o = root;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o;
         k = strtok_r(NULL, ".", &save))
        if (!json_object_object_get_ex(o, k, &o))
            o = NULL;
    return o;
}

static void assert_jstr(struct json_object *root, const char *path,
                        const char *want)
{
    struct json_object *o = jpath(root, path);
    if (!o || !json_object_is_type(o, json_type_string) ||
        strcmp(json_object_get_string(o), want) != 0) {
        print_error("%s: want \"%s\", body %s\n", path, want,
                    json_object_to_json_string(root));
        fail();
    }
}

static void assert_request(size_t i, const char *method, const char *path)
{
    assert_true(i < fake_srv.n_records);
    assert_string_equal(fake_srv.records[i].method, method);
    assert_string_equal(fake_srv.records[i].path, path);
}

static void test_evict_accepted(void **state)
{
    fake_rule("POST", EVICT_PATH, 201, SUCCESS_201);
    struct outcome o = evict_one("uid-1", 30);
    assert_int_equal(o.outcome, KEVICT_EVICTED);
    assert_int_equal(o.http, 201);
    assert_false(o.used_delete);
    assert_string_equal(o.why, "evicted (201 Created)");
    assert_string_equal(o.name, "name");
    assert_int_equal(fake_srv.n_records, 1);
    assert_request(0, "POST", EVICT_PATH);
    struct record *rec = &fake_srv.records[0];
    assert_string_equal(rec->ctype, "application/json");
    assert_string_equal(rec->accept, "application/json");
    assert_string_equal(rec->agent, KCLIENT_DEFAULT_USER_AGENT);
    assert_string_equal(rec->auth, "");
    struct json_object *b = json_tokener_parse(rec->body);
    assert_non_null(b);
    assert_jstr(b, "apiVersion", "policy/v1");
    assert_jstr(b, "kind", "Eviction");
    assert_jstr(b, "metadata.name", "name");
    assert_jstr(b, "metadata.namespace", "ns");
    assert_jstr(b, "deleteOptions.preconditions.uid", "uid-1");
    assert_int_equal(
        json_object_get_int64(jpath(b, "deleteOptions.gracePeriodSeconds")),
        30);
    json_object_put(b);
}

static void test_evict_server_defaults(void **state)
{
    fake_rule("POST", EVICT_PATH, 200, "{}");
    struct outcome o = evict_one(NULL, -1);
    assert_int_equal(o.outcome, KEVICT_EVICTED);
    assert_int_equal(fake_srv.n_records, 1);
    struct json_object *b = json_tokener_parse(fake_srv.records[0].body);
    assert_non_null(b);
    assert_jstr(b, "kind", "Eviction");
    assert_null(jpath(b, "deleteOptions"));
    json_object_put(b);
}

/* A PodDisruptionBudget's refusal is reported, never overridden. */
static void test_pdb_refusal_reported(void **state)
{
    fake_rule("POST", EVICT_PATH, 429, PDB_429);
    struct outcome o = evict_one("uid-1", 0);
    assert_int_equal(o.outcome, KEVICT_REFUSED);
    assert_int_equal(o.http, 429);
    assert_false(o.used_delete);
    assert_string_equal(o.why, PDB_REFUSED);
    assert_int_equal(fake_srv.n_records, 1);
    assert_request(0, "POST", EVICT_PATH);
}

/* Without the Eviction API the pod is deleted instead. */
static void test_no_eviction_api_then_delete(void **state)
{
    fake_rule("POST", EVICT_PATH, 405, "");
    fake_rule("DELETE", POD_PATH, 200, "{\"kind\":\"Pod\"}");
    struct outcome o = evict_one("uid-1", 0);
    assert_int_equal(o.outcome, KEVICT_DELETED);
    assert_int_equal(o.http, 200);
    assert_true(o.used_delete);
    assert_string_equal(o.why, NO_API "; deleted instead");
    assert_int_equal(fake_srv.n_records, 2);
    assert_request(0, "POST", EVICT_PATH);
    assert_request(1, "DELETE", POD_PATH);
    struct json_object *b = json_tokener_parse(fake_srv.records[1].body);
    assert_non_null(b);
    assert_jstr(b, "apiVersion", "v1");
    assert_jstr(b, "kind", "DeleteOptions");
    assert_jstr(b, "preconditions.uid", "uid-1");
    struct json_object *g = jpath(b, "gracePeriodSeconds");
    assert_non_null(g);
    assert_int_equal(json_object_get_int64(g), 0);
    json_object_put(b);
}

#define STATUS(reason, message)                                                \
    "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"" reason         \
    "\",\"message\":\"" message "\"}"

/* One eviction's answers and what must come of them. */
struct outcome_case {
    const char *what;
    unsigned evict_status;
    const char *evict_body;
    unsigned delete_status; /* 0: no DELETE may be made */
    const char *delete_body, *uid;
    enum kclient_evict_outcome want;
    const char *why; /* exact */
};

static const struct outcome_case outcome_cases[] = {
    {"forbidden", 403,
     STATUS("Forbidden", "cannot create resource pods/eviction"), 0, NULL, "u1",
     KEVICT_REFUSED,
     "eviction refused (403 Forbidden: cannot create resource pods/eviction)"},
    {"PDB refuses", 429, PDB_429, 0, NULL, "u1", KEVICT_REFUSED, PDB_REFUSED},
    {"no eviction subresource", 405, "", 200, "{}", NULL, KEVICT_DELETED,
     NO_API "; deleted instead"},
    {"eviction not implemented", 501, "not json", 200, "{}", NULL,
     KEVICT_DELETED, "no Eviction API (501 Not Implemented); deleted instead"},
    {"subresource not found", 404,
     STATUS("NotFound", "the server could not find the requested resource"),
     200, "{}", "u1", KEVICT_DELETED,
     "no Eviction API (404 NotFound: the server could not find the requested "
     "resource); deleted instead"},
    {"several PDBs", 500,
     STATUS("InternalError", "Internal error occurred: This pod has more "
                             "than one PodDisruptionBudget, which the "
                             "eviction subresource does not support."),
     0, NULL, "u1", KEVICT_REFUSED,
     "eviction refused by a PodDisruptionBudget (500 InternalError: Internal "
     "error occurred: This pod has more than one PodDisruptionBudget, which "
     "the eviction subresource does not support.)"},
    {"pod gone before eviction", 404,
     STATUS("NotFound", "pods \\\"name\\\" not found"), 0, NULL, "u1",
     KEVICT_GONE, "pod not found (404 NotFound: pods \"name\" not found)"},
    {"pod gone before delete", 405, "", 404, "{\"reason\":\"NotFound\"}", "u1",
     KEVICT_GONE, NO_API "; pod already gone (404 NotFound)"},
    {"pod replaced before delete", 405, "", 409,
     STATUS("Conflict", "Precondition failed: UID in precondition: u1"), "u1",
     KEVICT_GONE,
     NO_API "; pod replaced, uid precondition failed (409 Conflict: "
            "Precondition failed: UID in precondition: u1)"},
    {"409 without a uid", 405, "", 409, "", NULL, KEVICT_FAILED,
     NO_API "; delete failed (409 Conflict)"},
    {"server error on eviction", 500,
     STATUS("InternalError", "etcdserver: request timed out"), 0, NULL, "u1",
     KEVICT_FAILED,
     "eviction failed (500 InternalError: etcdserver: request timed out)"},
    {"not a Status", 502, "<html>\r\nbad gateway</html>", 0, NULL, "u1",
     KEVICT_FAILED, "eviction failed (502 Bad Gateway)"},
    {"server error on delete", 405, "", 500,
     STATUS("InternalError", "boom\\nline"), "u1", KEVICT_FAILED,
     NO_API "; delete failed (500 InternalError: boom line)"},
};

static void test_outcomes(void **state)
{
    for (size_t i = 0; i < sizeof(outcome_cases) / sizeof(outcome_cases[0]);
         i++) {
        const struct outcome_case *c = &outcome_cases[i];
        fake_reset();
        fake_rule("POST", EVICT_PATH, c->evict_status, c->evict_body);
        if (c->delete_status)
            fake_rule("DELETE", POD_PATH, c->delete_status, c->delete_body);
        struct outcome o = evict_one(c->uid, -1);
        long http = c->delete_status ? c->delete_status : c->evict_status;
        size_t requests = c->delete_status ? 2 : 1;
        if (o.outcome != c->want || strcmp(o.why, c->why) != 0 ||
            o.used_delete != (c->delete_status != 0) || o.http != http ||
            fake_srv.n_records != requests)
            fail_msg("%s: got %s, HTTP %ld, %zu requests, \"%s\"", c->what,
                     kclient_evict_result_name(o.outcome), o.http,
                     fake_srv.n_records, o.why);
        if (c->delete_status)
            assert_request(1, "DELETE", POD_PATH);
    }
}

static void test_invalid_names(void **state)
{
    static const char *const bad_names[] = {
        "",   "Name", "a/b",  "a%2Fb", "a b", "../x",        "x?y",
        "-a", "a-",   "a..b", ".a",    "a_b", "caf\xc3\xa9",
    };
    static const char *const bad_ns[] = {"", "NS", "a.b", "a/b", "-ns"};
    char long_name[300];
    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    struct outcome o = {0};
    struct kclient *kc = client_new(NULL, 0, 0);
    for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
        assert_int_equal(
            kclient_evict_pod(kc, "ns", bad_names[i], NULL, -1, on_done, &o),
            -EINVAL);
    for (size_t i = 0; i < sizeof(bad_ns) / sizeof(bad_ns[0]); i++)
        assert_int_equal(
            kclient_evict_pod(kc, bad_ns[i], "name", NULL, -1, on_done, &o),
            -EINVAL);
    assert_int_equal(
        kclient_evict_pod(kc, "ns", long_name, NULL, -1, on_done, &o), -EINVAL);
    assert_int_equal(kclient_evict_pod(kc, NULL, "a", NULL, -1, on_done, &o),
                     -EINVAL);
    assert_int_equal(kclient_evict_pod(kc, "ns", NULL, NULL, -1, on_done, &o),
                     -EINVAL);
    assert_int_equal(kclient_evict_pod(kc, "ns", "a", "", -1, on_done, &o),
                     -EINVAL);
    assert_int_equal(kclient_evict_pod(kc, "ns", "a", NULL, -1, NULL, &o),
                     -EINVAL);
    assert_int_equal(kclient_evict_pod(NULL, "ns", "a", NULL, -1, on_done, &o),
                     -EINVAL);
    assert_int_equal(kclient_pending(kc), 0);
    assert_int_equal(kclient_process(kc, 10), 0);
    kclient_free(kc);
    assert_int_equal(o.calls, 0);
    assert_int_equal(fake_srv.n_records, 0);

    /* What is valid: a dotted subdomain name, 63-character labels. */
    fake_rule("POST", NULL, 201, SUCCESS_201);
    kc = client_new(NULL, 0, 0);
    assert_int_equal(kclient_evict_pod(kc, "kube-system", "web-0.x1.y", NULL,
                                       -1, on_done, &o),
                     0);
    drain(kc);
    kclient_free(kc);
    assert_int_equal(o.outcome, KEVICT_EVICTED);
    assert_request(0, "POST",
                   "/api/v1/namespaces/kube-system/pods/web-0.x1.y"
                   "/eviction");
}

static void test_connection_refused(void **state)
{
    /* A socket that is bound but not listening owns the port: refused. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sin = {.sin_family = AF_INET};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sin);
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    char base[64];
    snprintf(base, sizeof(base), "http://127.0.0.1:%u",
             (unsigned)ntohs(sin.sin_port));
    struct kclient_options opt = {.base_url = base};
    struct kclient *kc = NULL;
    assert_int_equal(kclient_new(&opt, &kc), 0);
    struct outcome o = {0};
    assert_int_equal(
        kclient_evict_pod(kc, "ns", "name", "uid-1", -1, on_done, &o), 0);
    drain(kc);
    kclient_free(kc);
    close(fd);
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.outcome, KEVICT_FAILED);
    assert_int_equal(o.http, 0);
    assert_false(o.used_delete);
    assert_contains(o.why, "eviction failed: ");
    assert_contains(o.why, "onnect"); /* curl's "Failed to connect ..." */
}

static void test_timeout(void **state)
{
    fake_rule("POST", EVICT_PATH, 201, SUCCESS_201)->delay_ms = 1000;
    struct outcome o = evict_with(NULL, -1, 100, 0);
    assert_int_equal(o.outcome, KEVICT_FAILED);
    assert_int_equal(o.http, 0);
    assert_contains(o.why, "timed out");
}

static void test_response_cap(void **state)
{
    static char big[4096 + sizeof(PDB_429)];
    memset(big, ' ', 4096); /* JSON whitespace before a valid Status */
    memcpy(big + 4096, PDB_429, sizeof(PDB_429));
    fake_rule("POST", EVICT_PATH, 429, big);
    struct outcome o = evict_with(NULL, -1, 0, 1024);
    assert_int_equal(o.outcome, KEVICT_FAILED);
    assert_int_equal(o.http, 0);
    assert_string_equal(o.why,
                        "eviction failed: response body over 1024 bytes");
    assert_int_equal(fake_srv.n_records, 1); /* no DELETE on a cut answer */
}

static void test_many_in_flight(void **state)
{
    static const char *const names[] = {"a", "b", "c", "d", "e"};
    static const enum kclient_evict_outcome want[] = {
        KEVICT_EVICTED, KEVICT_GONE, KEVICT_DELETED, KEVICT_FAILED,
        KEVICT_REFUSED};
    fake_rule("POST", "/api/v1/namespaces/ns/pods/a/eviction", 201, "")
        ->delay_ms = 200;
    fake_rule("POST", "/api/v1/namespaces/ns/pods/b/eviction", 404, "");
    fake_rule("POST", "/api/v1/namespaces/ns/pods/c/eviction", 405, "")
        ->delay_ms = 100;
    fake_rule("DELETE", "/api/v1/namespaces/ns/pods/c", 200, "{}");
    fake_rule("POST", "/api/v1/namespaces/ns/pods/d/eviction", 500, "");
    fake_rule("POST", "/api/v1/namespaces/ns/pods/e/eviction", 429, PDB_429);
    struct kclient *kc = client_new(NULL, 0, 0);
    struct outcome o[5] = {0};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(
            kclient_evict_pod(kc, "ns", names[i], NULL, -1, on_done, &o[i]), 0);
    assert_int_equal(kclient_pending(kc), 5);
    drain(kc);
    kclient_free(kc);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(o[i].calls, 1);
        assert_string_equal(o[i].name, names[i]);
        assert_int_equal(o[i].outcome, want[i]);
    }
    assert_int_equal(fake_srv.n_records, 6);
}

/* A callback may start another eviction on the same client. */
struct chain {
    struct kclient *kc;
    struct outcome first, second;
};

static void chain_done(void *data, const struct kclient_evict_result *res)
{
    struct chain *ch = data;
    on_done(&ch->first, res);
    assert_int_equal(kclient_evict_pod(ch->kc, "ns", "second", NULL, -1,
                                       on_done, &ch->second),
                     0);
}

static void test_callback_starts_eviction(void **state)
{
    fake_rule("POST", NULL, 201, SUCCESS_201);
    fake_rule("POST", NULL, 201, SUCCESS_201);
    struct chain ch = {.kc = client_new(NULL, 0, 0)};
    assert_int_equal(
        kclient_evict_pod(ch.kc, "ns", "first", NULL, -1, chain_done, &ch), 0);
    drain(ch.kc);
    kclient_free(ch.kc);
    assert_int_equal(ch.first.calls, 1);
    assert_int_equal(ch.second.calls, 1);
    assert_string_equal(ch.second.name, "second");
    assert_int_equal(ch.second.outcome, KEVICT_EVICTED);
    assert_request(1, "POST", "/api/v1/namespaces/ns/pods/second/eviction");
}

static void test_free_in_flight(void **state)
{
    for (int i = 0; i < 3; i++)
        fake_rule("POST", NULL, 429, PDB_429)->delay_ms = 300;
    struct outcome o = {0};
    /* Never driven at all. */
    struct kclient *kc = client_new(NULL, 0, 0);
    assert_int_equal(kclient_evict_pod(kc, "ns", "a", "uid-1", -1, on_done, &o),
                     0);
    kclient_free(kc);
    /* Requests sent, answers not there yet. */
    kc = client_new(NULL, 0, 0);
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof(name), "p%d", i);
        assert_int_equal(
            kclient_evict_pod(kc, "ns", name, "uid-1", 5, on_done, &o), 0);
    }
    double until = now_s() + 0.1;
    while (now_s() < until)
        assert_int_equal(kclient_process(kc, 10), 3);
    kclient_free(kc);
    assert_int_equal(o.calls, 0);
}

static void test_bearer_token(void **state)
{
    fake_rule("POST", EVICT_PATH, 201, SUCCESS_201);
    struct kclient_options opt = {.base_url = fake_srv.base,
                                  .bearer_token = "s3cr3t.t0ken",
                                  .user_agent = "ordo-test/1"};
    struct kclient *kc = NULL;
    assert_int_equal(kclient_new(&opt, &kc), 0);
    struct outcome o = {0};
    assert_int_equal(kclient_evict_pod(kc, "ns", "name", NULL, -1, on_done, &o),
                     0);
    drain(kc);
    kclient_free(kc);
    assert_int_equal(o.outcome, KEVICT_EVICTED);
    assert_string_equal(fake_srv.records[0].auth, "Bearer s3cr3t.t0ken");
    assert_string_equal(fake_srv.records[0].agent, "ordo-test/1");
}

static void test_options(void **state)
{
    static const struct kclient_options bad[] = {
        {.base_url = NULL},
        {.base_url = ""},
        {.base_url = "ftp://h"},
        {.base_url = "http://"},
        {.base_url = "https:///x"},
        {.base_url = "http://h/?q"},
        {.base_url = "http://h", .bearer_token = "a\r\nX-Evil: 1"},
        {.base_url = "http://h", .bearer_token = ""},
        {.base_url = "http://h", .user_agent = "a\nb"},
        {.base_url = "http://h", .ca_file = ""},
        {.base_url = "http://h", .timeout_ms = -1},
        {.base_url = "http://h", .max_response_bytes = (size_t)1 << 31},
    };
    struct kclient *kc = NULL;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(kclient_new(&bad[i], &kc), -EINVAL);
        assert_null(kc);
    }
    assert_int_equal(kclient_new(NULL, &kc), -EINVAL);
    struct kclient_options ok = {.base_url = "https://10.0.0.1:6443",
                                 .ca_file = "/nonexistent/ca.crt"};
    assert_int_equal(kclient_new(&ok, NULL), -EINVAL);
    assert_int_equal(kclient_new(&ok, &kc), 0);
    assert_non_null(kclient_multi(kc));
    assert_int_equal(kclient_pending(kc), 0);
    double t0 = now_s();
    assert_int_equal(kclient_process(kc, 1000), 0); /* returns at once */
    assert_true(now_s() - t0 < 0.5);
    kclient_free(kc);
    kclient_free(NULL);
    assert_int_equal(kclient_pending(NULL), 0);
    assert_null(kclient_multi(NULL));
    assert_int_equal(kclient_process(NULL, 0), -EINVAL);
    assert_int_equal(kclient_complete(NULL), -EINVAL);
    assert_string_equal(kclient_evict_result_name(KEVICT_EVICTED), "evicted");
    assert_string_equal(kclient_evict_result_name(KEVICT_DELETED), "deleted");
    assert_string_equal(kclient_evict_result_name(KEVICT_GONE), "gone");
    assert_string_equal(kclient_evict_result_name(KEVICT_FAILED), "failed");
    assert_string_equal(kclient_evict_result_name(KEVICT_REFUSED), "refused");
    assert_string_equal(kclient_evict_result_name(KEVICT_OUTCOME_MAX),
                        "unknown");
}

/* The write gate's answers, in order (then false). */
static bool gate_answers[4];
static int gate_asked;

static bool gate(void *data)
{
    (void)data;
    return gate_asked < 4 && gate_answers[gate_asked++];
}

/* Fencing: an eviction the gate refuses is not sent and fails later from
 * kclient_complete() (the caller retries it), as does one the gate
 * refuses as it is about to leave, and a DELETE fallback refused after
 * its eviction was sent. */
static void test_write_gate(void **state)
{
    (void)state;
    /* 405: the Eviction API is missing, so DELETE is the fallback. */
    fake_rule("POST", EVICT_PATH, 405, "{}");
    struct kclient_options opt = {.base_url = fake_srv.base, .may_write = gate};
    struct kclient *kc = NULL;
    assert_int_equal(kclient_new(&opt, &kc), 0);
    struct outcome o = {0};
    gate_asked = 0;
    gate_answers[0] = false;
    assert_int_equal(
        kclient_evict_pod(kc, "ns", "name", "uid-1", -1, on_done, &o), 0);
    assert_int_equal(o.calls, 0);
    drain(kc);
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.outcome, KEVICT_FAILED);
    assert_int_equal(o.http, 0);
    assert_string_equal(o.why, "eviction not sent: not the leader");
    assert_int_equal(fake_srv.n_records, 0);
    /* Open as it is handed to curl, shut as it would leave: not sent. */
    struct outcome o1 = {0};
    gate_asked = 0;
    gate_answers[0] = true;
    gate_answers[1] = false;
    assert_int_equal(
        kclient_evict_pod(kc, "ns", "name", "uid-1", -1, on_done, &o1), 0);
    drain(kc);
    assert_int_equal(o1.calls, 1);
    assert_int_equal(o1.outcome, KEVICT_FAILED);
    assert_string_equal(o1.why, "eviction not sent: not the leader");
    assert_int_equal(gate_asked, 2);
    assert_int_equal(fake_srv.n_records, 0);
    /* Open for the eviction (handed over, leaving), shut for its
     * fallback. */
    struct outcome o2 = {0};
    gate_asked = 0;
    gate_answers[0] = true;
    gate_answers[1] = true;
    gate_answers[2] = false;
    assert_int_equal(
        kclient_evict_pod(kc, "ns", "name", "uid-1", -1, on_done, &o2), 0);
    drain(kc);
    assert_int_equal(o2.calls, 1);
    assert_int_equal(o2.outcome, KEVICT_FAILED);
    assert_int_equal(gate_asked, 3);
    assert_int_equal(fake_srv.n_records, 1); /* the POST, no DELETE */
    assert_request(0, "POST", EVICT_PATH);
    kclient_free(kc);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fake_start, fake_stop)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_evict_accepted),
        T(test_write_gate),
        T(test_evict_server_defaults),
        T(test_pdb_refusal_reported),
        T(test_no_eviction_api_then_delete),
        T(test_outcomes),
        T(test_invalid_names),
        T(test_connection_refused),
        T(test_timeout),
        T(test_response_cap),
        T(test_many_in_flight),
        T(test_callback_starts_eviction),
        T(test_free_in_flight),
        T(test_bearer_token),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests_name("kclient", tests, NULL, NULL);
}
