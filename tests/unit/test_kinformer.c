/* test_kinformer.c - unit tests for core/kube/kinformer.c against the fake
 * API server: paginated lists, watch lines across chunks, bookmarks,
 * duplicates, 410 relists with the deletes they imply, a broken stream
 * resumed from its resourceVersion, a resource served only later. The
 * request queue runs on the test's clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_apiserver.h"
#include "kinformer.h"
#include "test_helpers.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define PODS "/api/v1/pods"
#define POD(name, rv)                                                          \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"a\","                \
    "\"resourceVersion\":\"" rv "\"}}"
#define WPOD(name, rv)                                                         \
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name   \
    "\",\"namespace\":\"a\",\"resourceVersion\":\"" rv "\"}}"

static int64_t fake_now;

static int64_t test_clock(void *data)
{
    return fake_now;
}

/* What the informer reported, as "+a/x" "~a/x" "-a/x" lines. */
struct seen {
    char log[2048];
    int synced, unserved;
};

static void on_event(void *data, enum kinf_event ev, struct json_object *obj)
{
    struct seen *s = data;
    char kb[256];
    const char *key = kinformer_key(obj, kb, sizeof(kb));
    assert_non_null(key);
    /* Items of a list get the kind the list left out. */
    struct json_object *k = NULL;
    assert_true(json_object_object_get_ex(obj, "kind", &k));
    assert_string_equal(json_object_get_string(k), "Pod");
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof(s->log) - n, "%c%s ",
             ev == KINF_ADDED     ? '+'
             : ev == KINF_UPDATED ? '~'
                                  : '-',
             key);
}

static void on_synced(void *data)
{
    ((struct seen *)data)->synced++;
}

static void on_unserved(void *data, long status, const char *why)
{
    assert_int_equal(status, 404);
    ((struct seen *)data)->unserved++;
}

struct env {
    struct kclient *kc;
    struct krequests *q;
    struct kinformer *inf;
    struct seen seen;
};

static void env_new(struct env *e, const char *path, bool keep)
{
    fake_reset();
    memset(e, 0, sizeof(*e));
    fake_now = 1000;
    struct kclient_options ko = {.base_url = fake_srv.base};
    assert_int_equal(kclient_new(&ko, &e->kc), 0);
    struct krequest_options o = {.backoff_base_ms = 100,
                                 .backoff_max_ms = 1000,
                                 .now_ms = test_clock,
                                 .seed = 7};
    assert_int_equal(krequests_new(e->kc, &o, &e->q), 0);
    struct kinformer_config cfg = {.path = path,
                                   .kind = "Pod",
                                   .api_version = "v1",
                                   .page_size = 2,
                                   .watch_timeout_s = 60,
                                   .absent_retry_ms = 5000,
                                   .keep_objects = keep};
    struct kinformer_ops ops = {on_event, on_synced, on_unserved};
    assert_int_equal(kinformer_new(e->q, &cfg, &ops, &e->seen, &e->inf), 0);
}

static void env_free(struct env *e)
{
    kinformer_free(e->inf);
    krequests_free(e->q);
    kclient_free(e->kc);
}

static void drive(struct env *e)
{
    for (int i = 0; i < 2000; i++) {
        assert_true(krequests_process(e->q, 20) >= 0);
        if (krequests_in_flight(e->q) == 0 && krequests_due_in_ms(e->q) != 0)
            return;
    }
    fail_msg("the informer never settled");
}

static struct record *record(size_t i)
{
    assert_true(i < fake_srv.n_records);
    return &fake_srv.records[i];
}

static void test_pages_then_watch(void **state)
{
    struct env e;
    env_new(&e, PODS, true);
    struct rule *r = fake_rule("GET", PODS, 200,
                               "{\"kind\":\"PodList\",\"metadata\":{"
                               "\"continue\":\"t/1=\"},\"items\":[" POD(
                                   "x", "1") "," POD("y", "2") "]}");
    r->query = "limit=2";
    r = fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" POD(
                      "z", "3") "]}");
    r->query = "continue=t/1=";
    r = fake_rule("GET", PODS, 200, NULL);
    r->query = "watch=1";
    /* A line split inside its JSON, a replay of what the list said (no
     * event), an update, a bookmark and a delete. */
    r->chunks[0] = "{\"type\":\"ADDED\",\"object\":" WPOD("x", "1") "}\n{\"ty";
    r->chunks[1] = "pe\":\"MODIFIED\",\"object\":" WPOD("y", "11") "}\n";
    r->chunks[2] = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
                   "\"metadata\":{\"resourceVersion\":\"12\"}}}\n"
                   "not json\n";
    r->chunks[3] = "{\"type\":\"DELETED\",\"object\":" WPOD("z", "13") "}\n";
    r->chunk_pause_ms = 5;
    r = fake_rule("GET", PODS, 200, NULL);
    r->query = "resourceVersion=13";
    r->chunks[0] = "{\"type\":\"ADDED\",\"object\":" WPOD("w", "14") "}\n";
    assert_int_equal(kinformer_start(e.inf), 0);
    assert_int_equal(kinformer_start(e.inf), -EALREADY);
    assert_false(kinformer_synced(e.inf));
    drive(&e);
    assert_string_equal(e.seen.log, "+a/x +a/y +a/z ~a/y -a/z +a/w ");
    assert_int_equal(e.seen.synced, 1);
    assert_true(kinformer_synced(e.inf));
    assert_int_equal(kinformer_count(e.inf), 3);
    assert_non_null(kinformer_get(e.inf, "a/w"));
    assert_null(kinformer_get(e.inf, "a/z"));
    assert_string_equal(kinformer_resource_version(e.inf), "14");
    assert_string_equal(record(0)->query, "limit=2");
    assert_string_equal(record(1)->query, "limit=2&continue=t/1=");
    assert_contains(record(2)->query, "watch=1&resourceVersion=10");
    assert_contains(record(2)->query, "allowWatchBookmarks=true");
    assert_contains(record(2)->query, "timeoutSeconds=60");
    assert_contains(record(3)->query, "resourceVersion=13");
    /* The server ended the second watch: the third resumes at once from
     * the last resourceVersion (and finds no rule: 418, so it lists again
     * later). */
    assert_contains(record(4)->query, "resourceVersion=14");
    struct kinformer_stats st;
    kinformer_get_stats(e.inf, &st);
    assert_int_equal(st.pages, 2);
    assert_int_equal(st.bad_lines, 1);
    env_free(&e);
}

static void test_gone_relists(void **state)
{
    struct env e;
    env_new(&e, PODS, false);
    struct rule *r =
        fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[" POD(
                      "x", "1") "," POD("y", "2") "]}");
    r->query = "limit=2";
    r = fake_rule("GET", PODS, 200, NULL);
    r->query = "watch=1";
    r->chunks[0] =
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
        "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410}}\n";
    r->chunks[1] = "{\"type\":\"ADDED\",\"object\":" WPOD("never", "9") "}\n";
    r = fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"20\"},\"items\":[" POD(
                      "x", "1") "," POD("q", "19") "]}");
    r->query = "limit=2";
    /* Then a watch answered 410 outright: list again. */
    r = fake_rule("GET", PODS, 410, "{\"code\":410}");
    r->query = "resourceVersion=20";
    r = fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"30\"},\"items\":[" POD(
                      "q", "19") "]}");
    r->query = "limit=2";
    assert_int_equal(kinformer_start(e.inf), 0);
    drive(&e);
    /* x unchanged (no event), q new, and at the end of the list y, gone
     * while the watch was too old; then x gone. The line after the ERROR is
     * never read. */
    assert_string_equal(e.seen.log, "+a/x +a/y +a/q -a/y -a/x ");
    assert_int_equal(e.seen.synced, 1);
    assert_int_equal(kinformer_count(e.inf), 1);
    /* Objects not kept: only keys. The relists' deletes still said the
     * kind and the key (on_event checks both). */
    assert_null(kinformer_get(e.inf, "a/q"));
    struct kinformer_stats st;
    kinformer_get_stats(e.inf, &st);
    assert_int_equal(st.relists, 2);
    /* The watch from 30 found no rule (418): a fourth list waits. */
    assert_int_equal(st.lists, 4);
    assert_true(krequests_due_in_ms(e.q) > 0);
    env_free(&e);
}

static void test_broken_stream_resumes(void **state)
{
    struct env e;
    env_new(&e, PODS, false);
    struct rule *r =
        fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[]}");
    r->query = "limit=2";
    r = fake_rule("GET", PODS, 200, NULL);
    r->query = "resourceVersion=5";
    r->chunks[0] = "{\"type\":\"ADDED\",\"object\":" WPOD("x", "7") "}\n{\"ty";
    r->drop = true;
    r = fake_rule("GET", PODS, 200, NULL);
    r->query = "resourceVersion=7";
    r->chunks[0] = "{\"type\":\"MODIFIED\",\"object\":" WPOD("x", "8") "}\n";
    assert_int_equal(kinformer_start(e.inf), 0);
    drive(&e);
    assert_string_equal(e.seen.log, "+a/x ");
    /* The resume waits for the backoff. */
    size_t before = fake_srv.n_records;
    int64_t w = krequests_due_in_ms(e.q);
    assert_in_range(w, 50, 100);
    fake_now += w;
    drive(&e);
    assert_true(fake_srv.n_records > before);
    assert_contains(record(before)->query, "resourceVersion=7");
    assert_string_equal(e.seen.log, "+a/x ~a/x ");
    env_free(&e);
}

static void test_unserved_then_served(void **state)
{
    struct env e;
    env_new(&e, "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", true);
    const char *p = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues";
    fake_rule("GET", p, 404, "{\"code\":404}");
    fake_rule("GET", p, 404, "{\"code\":404}");
    struct rule *r = fake_rule(
        "GET", p, 200,
        "{\"metadata\":{\"resourceVersion\":\"3\"},\"items\":[{\"metadata\":"
        "{\"name\":\"cq\",\"resourceVersion\":\"2\"}}]}");
    r->query = "limit=2";
    assert_int_equal(kinformer_start(e.inf), 0);
    drive(&e);
    /* Reported once, synced (nothing to wait for), no objects. */
    assert_int_equal(e.seen.unserved, 1);
    assert_int_equal(e.seen.synced, 1);
    assert_true(kinformer_unserved(e.inf));
    assert_int_equal(krequests_due_in_ms(e.q), 5000);
    fake_now += 5000;
    drive(&e);
    assert_int_equal(e.seen.unserved, 1); /* not again */
    assert_int_equal(fake_srv.n_records, 2);
    fake_now += 5000;
    drive(&e);
    assert_false(kinformer_unserved(e.inf));
    assert_int_equal(e.seen.synced, 1);
    assert_int_equal(kinformer_count(e.inf), 1);
    assert_non_null(kinformer_get(e.inf, "cq"));
    env_free(&e);
}

static void test_server_error_retries_list(void **state)
{
    struct env e;
    env_new(&e, PODS, false);
    fake_rule("GET", PODS, 503, "{}");
    struct rule *r =
        fake_rule("GET", PODS, 200,
                  "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[" POD(
                      "x", "1") "]}");
    r->query = "limit=2";
    assert_int_equal(kinformer_start(e.inf), 0);
    drive(&e);
    assert_false(kinformer_synced(e.inf));
    fake_now += krequests_due_in_ms(e.q);
    drive(&e);
    assert_true(kinformer_synced(e.inf));
    assert_string_equal(e.seen.log, "+a/x ");
    env_free(&e);
}

/* A pod object named name whose field "x" nests depth arrays; with kind
 * and apiVersion when typed (a watch event's object). Caller frees. */
static char *deep_pod(const char *name, const char *rv, int depth, bool typed)
{
    size_t n = strlen(name) + 2 * (size_t)depth + 256;
    char *s = malloc(n);
    assert_non_null(s);
    int k = snprintf(s, n,
                     "{%s\"metadata\":{\"name\":\"%s\",\"namespace\":"
                     "\"a\",\"resourceVersion\":\"%s\"},\"x\":",
                     typed ? "\"kind\":\"Pod\",\"apiVersion\":\"v1\"," : "",
                     name, rv);
    memset(s + k, '[', (size_t)depth);
    memset(s + k + depth, ']', (size_t)depth);
    strcpy(s + k + 2 * depth, "}");
    return s;
}

static char *watch_line_of(const char *type, char *obj)
{
    char *s = NULL;
    assert_true(asprintf(&s, "{\"type\":\"%s\",\"object\":%s}\n", type, obj) >
                0);
    free(obj);
    return s;
}

/* Hostile objects from the server: one nested 200 deep in a list page
 * reaches the caller (whose decoder refuses it alone) and the page and its
 * other item still count; a watch line nested 5000 deep and one whose name
 * is a mebibyte long are skipped (counted as bad lines) and the stream
 * goes on. */
static void test_hostile_objects(void **state)
{
    struct env e;
    env_new(&e, PODS, false);
    char *big = malloc((1 << 20) + 1);
    assert_non_null(big);
    memset(big, 'n', 1 << 20);
    big[1 << 20] = '\0';
    char *page = NULL, *deep = deep_pod("d", "1", 200, false);
    assert_true(asprintf(&page,
                         "{\"metadata\":{\"resourceVersion\":\"5\"},"
                         "\"items\":[%s," POD("y", "2") "]}",
                         deep) > 0);
    free(deep);
    /* Lines longer than a chunk: the watch answer as one body. */
    char *too_deep = watch_line_of("ADDED", deep_pod("t", "6", 5000, true));
    char *long_name = watch_line_of("ADDED", deep_pod(big, "7", 1, true));
    char *lines = NULL;
    assert_true(
        asprintf(&lines,
                 "%s%s{\"type\":\"ADDED\",\"object\":" WPOD("w", "8") "}\n",
                 too_deep, long_name) > 0);
    struct rule *r = fake_rule("GET", PODS, 200, page);
    r->query = "limit=2";
    r = fake_rule("GET", PODS, 200, lines);
    r->query = "watch=1";
    assert_int_equal(kinformer_start(e.inf), 0);
    drive(&e);
    assert_string_equal(e.seen.log, "+a/d +a/y +a/w ");
    assert_int_equal(e.seen.synced, 1);
    struct kinformer_stats st;
    kinformer_get_stats(e.inf, &st);
    assert_int_equal(st.bad_lines, 2);
    env_free(&e);
    free(page);
    free(too_deep);
    free(long_name);
    free(lines);
    free(big);
}

static void test_invalid(void **state)
{
    struct env e;
    env_new(&e, PODS, false);
    struct kinformer *inf = NULL;
    struct kinformer_config cfg = {
        .path = "pods", .kind = "Pod", .api_version = "v1"};
    struct kinformer_ops ops = {on_event, NULL, NULL};
    assert_int_equal(kinformer_new(e.q, &cfg, &ops, NULL, &inf), -EINVAL);
    cfg.path = PODS;
    ops.event = NULL;
    assert_int_equal(kinformer_new(e.q, &cfg, &ops, NULL, &inf), -EINVAL);
    kinformer_free(NULL);
    env_free(&e);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_pages_then_watch),          T(test_gone_relists),
        T(test_broken_stream_resumes),     T(test_unserved_then_served),
        T(test_server_error_retries_list), T(test_invalid),
        T(test_hostile_objects),
    };
    return cmocka_run_group_tests_name("kinformer", tests, fake_start,
                                       fake_stop);
}
