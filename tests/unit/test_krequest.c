/* test_krequest.c - unit tests for core/kube/krequest.c against the fake
 * API server: methods and bodies, Retry-After, backoff, the rate limit and
 * watch streams split into lines. The queue runs on a clock the test
 * moves, so nothing depends on real time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_apiserver.h"
#include "krequest.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static int64_t fake_now;

static int64_t test_clock(void *data)
{
    return fake_now;
}

struct done {
    int calls;
    long status;
    unsigned attempts;
    bool error, aborted;
    char body[512];
};

static void on_done(void *data, const struct kreq_result *res)
{
    struct done *d = data;
    d->calls++;
    d->status = res->status;
    d->attempts = res->attempts;
    d->error = res->error != NULL;
    d->aborted = res->aborted;
    snprintf(d->body, sizeof(d->body), "%s", res->body);
}

struct env {
    struct kclient *kc;
    struct krequests *q;
};

static void env_new(struct env *e, uint32_t qps, uint32_t burst)
{
    fake_reset();
    fake_now = 1000;
    struct kclient_options ko = {.base_url = fake_srv.base,
                                 .bearer_token = "tok"};
    assert_int_equal(kclient_new(&ko, &e->kc), 0);
    struct krequest_options o = {.qps = qps,
                                 .burst = burst,
                                 .backoff_base_ms = 100,
                                 .backoff_max_ms = 1000,
                                 .now_ms = test_clock,
                                 .seed = 42};
    assert_int_equal(krequests_new(e->kc, &o, &e->q), 0);
}

static void env_free(struct env *e)
{
    krequests_free(e->q);
    kclient_free(e->kc);
}

/* Runs the queue until nothing is in a transfer and nothing is due now. */
static void drive(struct env *e)
{
    for (int i = 0; i < 2000; i++) {
        assert_true(krequests_process(e->q, 20) >= 0);
        if (krequests_in_flight(e->q) == 0 && krequests_due_in_ms(e->q) != 0)
            return;
    }
    fail_msg("the queue never settled");
}

static size_t n_records(void)
{
    pthread_mutex_lock(&fake_srv.lock);
    size_t n = fake_srv.n_records;
    pthread_mutex_unlock(&fake_srv.lock);
    return n;
}

static void test_methods(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    fake_rule("GET", "/api/v1/pods", 200, "{\"items\":[]}");
    fake_rule("POST", "/api/v1/namespaces/a/pods/p/binding", 201, "{}");
    fake_rule("PATCH", "/apis/batch/v1/namespaces/a/jobs/j", 200, "{}");
    fake_rule("DELETE", "/api/v1/namespaces/a/pods/p", 200, "{}");
    struct done d[4] = {0};
    struct kreq_spec get = {.method = KREQ_GET, .path = "/api/v1/pods?limit=5"};
    struct kreq_spec post = {.method = KREQ_POST,
                             .path = "/api/v1/namespaces/a/pods/p/binding",
                             .body = "{\"kind\":\"Binding\"}"};
    struct kreq_spec patch = {.method = KREQ_PATCH,
                              .path = "/apis/batch/v1/namespaces/a/jobs/j",
                              .body = "{\"spec\":{\"suspend\":false}}"};
    struct kreq_spec del = {.method = KREQ_DELETE,
                            .path = "/api/v1/namespaces/a/pods/p"};
    assert_int_equal(krequest_start(e.q, &get, on_done, NULL, &d[0], NULL), 0);
    assert_int_equal(krequest_start(e.q, &post, on_done, NULL, &d[1], NULL), 0);
    assert_int_equal(krequest_start(e.q, &patch, on_done, NULL, &d[2], NULL),
                     0);
    assert_int_equal(krequest_start(e.q, &del, on_done, NULL, &d[3], NULL), 0);
    /* Nothing is called back from the start. */
    assert_int_equal(d[0].calls + d[1].calls + d[2].calls + d[3].calls, 0);
    drive(&e);
    assert_int_equal(krequests_pending(e.q), 0);
    assert_int_equal(d[0].status, 200);
    assert_string_equal(d[0].body, "{\"items\":[]}");
    assert_int_equal(d[1].status, 201);
    assert_int_equal(d[2].status, 200);
    assert_int_equal(d[3].status, 200);
    assert_int_equal(n_records(), 4);
    for (size_t i = 0; i < 4; i++) {
        struct record *r = &fake_srv.records[i];
        assert_string_equal(r->auth, "Bearer tok");
        if (strcmp(r->method, "GET") == 0)
            assert_string_equal(r->query, "limit=5");
        if (strcmp(r->method, "POST") == 0) {
            assert_string_equal(r->ctype, "application/json");
            assert_string_equal(r->body, "{\"kind\":\"Binding\"}");
        }
        if (strcmp(r->method, "PATCH") == 0) {
            assert_string_equal(r->ctype, "application/merge-patch+json");
            assert_string_equal(r->body, "{\"spec\":{\"suspend\":false}}");
        }
    }
    env_free(&e);
}

static void test_retry_after(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    struct rule *r = fake_rule("POST", "/x", 429, "{\"code\":429}");
    r->header = "Retry-After: 2";
    fake_rule("POST", "/x", 201, "{}");
    struct done d = {0};
    struct kreq_spec s = {.method = KREQ_POST, .path = "/x", .body = "{}"};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(d.calls, 0);
    assert_int_equal(n_records(), 1);
    assert_int_equal(krequests_due_in_ms(e.q), 2000);
    fake_now += 1999;
    drive(&e);
    assert_int_equal(n_records(), 1); /* not before the server said */
    fake_now += 1;
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.status, 201);
    assert_int_equal(d.attempts, 2);
    env_free(&e);
}

struct result_log {
    int calls;
    enum kreq_method m;
    bool stream;
    long status;
    int64_t latency_ms;
    char url[256];
};

static void on_result(void *data, enum kreq_method m, bool stream,
                      const char *url, long status, int64_t latency_ms)
{
    struct result_log *l = data;
    l->calls++;
    l->m = m;
    l->stream = stream;
    l->status = status;
    l->latency_ms = latency_ms;
    snprintf(l->url, sizeof(l->url), "%s", url);
}

/* on_result reports each request once, when it ends: the last status and
 * the time since it was queued, retries included. */
static void test_on_result(void **state)
{
    struct env e;
    struct result_log log = {0};
    fake_reset();
    fake_now = 1000;
    struct kclient_options ko = {.base_url = fake_srv.base,
                                 .bearer_token = "tok"};
    assert_int_equal(kclient_new(&ko, &e.kc), 0);
    struct krequest_options o = {.now_ms = test_clock,
                                 .seed = 42,
                                 .on_result = on_result,
                                 .result_data = &log};
    assert_int_equal(krequests_new(e.kc, &o, &e.q), 0);
    struct rule *r = fake_rule("POST", "/x/binding", 429, "{}");
    r->header = "Retry-After: 2";
    fake_rule("POST", "/x/binding", 201, "{}");
    struct done d = {0};
    struct kreq_spec s = {
        .method = KREQ_POST, .path = "/x/binding", .body = "{}"};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(log.calls, 0); /* a retry is not an end */
    fake_now += 2000;
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(log.calls, 1);
    assert_int_equal(log.m, KREQ_POST);
    assert_false(log.stream);
    assert_int_equal(log.status, 201);
    assert_int_equal(log.latency_ms, 2000);
    assert_non_null(strstr(log.url, "/x/binding"));
    env_free(&e);
}

/* The caller's descriptors are waited on with the sockets: a readable
 * pipe comes back with POLLIN set. */
static void test_extra_fds(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "x", 1), 1);
    struct curl_waitfd w = {.fd = p[0], .events = CURL_WAIT_POLLIN};
    assert_true(krequests_process_fds(e.q, 10000, &w, 1) >= 0);
    assert_true(w.revents & CURL_WAIT_POLLIN);
    close(p[0]);
    close(p[1]);
    env_free(&e);
}

/* A credential source whose token changes when it is invalidated, as an
 * exec plugin's does when it runs again. */
struct rotating {
    int generation, invalidated;
    char token[16];
};

static int rotating_get(void *data, struct kclient_cred *ret)
{
    struct rotating *c = data;
    snprintf(c->token, sizeof(c->token), "tok%d", c->generation);
    *ret = (struct kclient_cred){.token = c->token};
    return 0;
}

static void rotating_invalidate(void *data)
{
    struct rotating *c = data;
    c->invalidated++;
    c->generation++;
}

/* A 401 refreshes the credential and tries once more with the new token;
 * a second 401 is the answer. */
static void test_unauthorized(void **state)
{
    fake_reset();
    fake_now = 1000;
    struct rotating rot = {.generation = 1};
    struct kclient_cred_source src = {.get = rotating_get, .data = &rot};
    struct kclient_options ko = {.base_url = fake_srv.base, .cred = &src};
    struct env e;
    assert_int_equal(kclient_new(&ko, &e.kc), 0);
    struct krequest_options o = {.now_ms = test_clock,
                                 .seed = 42,
                                 .on_unauthorized = rotating_invalidate,
                                 .auth_data = &rot};
    assert_int_equal(krequests_new(e.kc, &o, &e.q), 0);
    fake_rule("POST", "/u", 401, "{\"code\":401}");
    fake_rule("POST", "/u", 201, "{}");
    struct done d = {0};
    struct kreq_spec s = {.method = KREQ_POST, .path = "/u", .body = "{}"};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.status, 201);
    assert_int_equal(d.attempts, 2);
    assert_int_equal(rot.invalidated, 1);
    assert_int_equal(n_records(), 2);
    assert_string_equal(fake_srv.records[0].auth, "Bearer tok1");
    assert_string_equal(fake_srv.records[1].auth, "Bearer tok2");

    fake_rule("GET", "/v", 401, "{}");
    fake_rule("GET", "/v", 401, "{}");
    fake_rule("GET", "/v", 200, "{}");
    struct kreq_spec g = {.method = KREQ_GET, .path = "/v"};
    d = (struct done){0};
    assert_int_equal(krequest_start(e.q, &g, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.status, 401);
    assert_int_equal(d.attempts, 2);
    assert_int_equal(rot.invalidated, 3);
    env_free(&e);
}

static void test_backoff(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    fake_rule("GET", "/y", 503, "{}");
    fake_rule("GET", "/y", 500, "{}");
    fake_rule("GET", "/y", 200, "{\"ok\":1}");
    fake_rule("POST", "/z", 503, "{}");
    struct done d = {0}, dz = {0};
    struct kreq_spec s = {
        .method = KREQ_GET, .path = "/y", .retry_unsure = true};
    struct kreq_spec z = {.method = KREQ_POST, .path = "/z"};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    assert_int_equal(krequest_start(e.q, &z, on_done, NULL, &dz, NULL), 0);
    drive(&e);
    /* A write not known to be safe is handed back at once. */
    assert_int_equal(dz.calls, 1);
    assert_int_equal(dz.status, 503);
    assert_int_equal(dz.attempts, 1);
    /* The first retry waits in [base/2, base]; the second in [base, 2 base]. */
    int64_t w = krequests_due_in_ms(e.q);
    assert_in_range(w, 50, 100);
    fake_now += w - 1;
    drive(&e);
    assert_int_equal(n_records(), 2);
    fake_now += 1;
    drive(&e);
    assert_int_equal(n_records(), 3);
    w = krequests_due_in_ms(e.q);
    assert_in_range(w, 100, 200);
    fake_now += w;
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.status, 200);
    assert_int_equal(d.attempts, 3);
    env_free(&e);
}

static void test_dropped_connection(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    struct rule *r = fake_rule("GET", "/d", 200, NULL);
    r->chunks[0] = "{\"items\":";
    r->drop = true;
    fake_rule("GET", "/d", 200, "{\"items\":[]}");
    struct done d = {0};
    struct kreq_spec s = {
        .method = KREQ_GET, .path = "/d", .retry_unsure = true};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(d.calls, 0);
    fake_now += krequests_due_in_ms(e.q);
    drive(&e);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.status, 200);
    assert_string_equal(d.body, "{\"items\":[]}");
    assert_int_equal(d.attempts, 2);
    env_free(&e);
}

static void test_gives_up(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    struct done d = {0};
    /* Nothing matches: 418, not retried. Then 429 past max_attempts. */
    struct kreq_spec s = {
        .method = KREQ_GET, .path = "/none", .retry_unsure = true};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, NULL), 0);
    drive(&e);
    assert_int_equal(d.status, 418);
    for (int i = 0; i < KREQ_DEFAULT_MAX_ATTEMPTS; i++)
        fake_rule("GET", "/busy", 429, "{}");
    struct kreq_spec b = {.method = KREQ_GET, .path = "/busy"};
    struct done db = {0};
    assert_int_equal(krequest_start(e.q, &b, on_done, NULL, &db, NULL), 0);
    for (int i = 0; i < 100 && !db.calls; i++) {
        drive(&e);
        fake_now += 1000;
    }
    assert_int_equal(db.status, 429);
    assert_int_equal(db.attempts, KREQ_DEFAULT_MAX_ATTEMPTS);
    env_free(&e);
}

static void test_rate_limit(void **state)
{
    struct env e;
    env_new(&e, 1, 2); /* 1 a second, 2 at once */
    struct done d[5] = {0};
    for (int i = 0; i < 5; i++) {
        fake_rule("GET", "/r", 200, "{}");
        struct kreq_spec s = {.method = KREQ_GET, .path = "/r"};
        assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d[i], NULL),
                         0);
    }
    drive(&e);
    assert_int_equal(n_records(), 2);
    assert_int_equal(krequests_due_in_ms(e.q), 1000);
    fake_now += 999;
    drive(&e);
    assert_int_equal(n_records(), 2);
    fake_now += 1;
    drive(&e);
    assert_int_equal(n_records(), 3);
    fake_now += 5000; /* the bucket holds 2 at most */
    drive(&e);
    assert_int_equal(n_records(), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(d[i].status, 200);
    env_free(&e);
}

struct lines {
    int n;
    char got[8][64];
    int stop_at; /* 1-based; 0: never */
};

static int on_line(void *data, const char *line, size_t len)
{
    struct lines *l = data;
    assert_int_equal(strlen(line), len);
    if (l->n < 8)
        snprintf(l->got[l->n], sizeof(l->got[0]), "%s", line);
    l->n++;
    return l->stop_at && l->n == l->stop_at;
}

static struct done stream_done;

static void on_stream_done(void *data, const struct kreq_result *res)
{
    on_done(&stream_done, res);
}

static void test_stream_lines(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    struct rule *r = fake_rule("GET", "/w", 200, NULL);
    r->chunks[0] = "{\"a\":1}\n{\"b\"";
    r->chunks[1] = ":2}\r\n\n{\"c\":";
    r->chunks[2] = "3";
    r->chunks[3] = "}\n{\"d\":4}";
    r->chunk_pause_ms = 5;
    struct lines l = {0};
    memset(&stream_done, 0, sizeof(stream_done));
    struct kreq_spec s = {.method = KREQ_GET, .path = "/w", .stream = true};
    assert_int_equal(krequest_start(e.q, &s, on_stream_done, on_line, &l, NULL),
                     0);
    drive(&e);
    assert_int_equal(stream_done.calls, 1);
    assert_int_equal(stream_done.status, 200);
    assert_false(stream_done.aborted);
    /* The last piece has no newline: not a line. */
    assert_int_equal(l.n, 3);
    assert_string_equal(l.got[0], "{\"a\":1}");
    assert_string_equal(l.got[1], "{\"b\":2}");
    assert_string_equal(l.got[2], "{\"c\":3}");
    env_free(&e);
}

static void test_stream_abort_and_error(void **state)
{
    struct env e;
    env_new(&e, 0, 0);
    struct rule *r = fake_rule("GET", "/w", 200, NULL);
    r->chunks[0] = "one\ntwo\nthree\n";
    fake_rule("GET", "/gone", 410, "{\"code\":410}");
    struct lines l = {.stop_at = 2}, l2 = {0};
    memset(&stream_done, 0, sizeof(stream_done));
    struct kreq_spec s = {.method = KREQ_GET, .path = "/w", .stream = true};
    assert_int_equal(krequest_start(e.q, &s, on_stream_done, on_line, &l, NULL),
                     0);
    drive(&e);
    assert_int_equal(l.n, 2);
    assert_true(stream_done.aborted);
    /* A stream answered with an error keeps its body, gives no lines. */
    memset(&stream_done, 0, sizeof(stream_done));
    s.path = "/gone";
    assert_int_equal(
        krequest_start(e.q, &s, on_stream_done, on_line, &l2, NULL), 0);
    drive(&e);
    assert_int_equal(l2.n, 0);
    assert_int_equal(stream_done.status, 410);
    assert_string_equal(stream_done.body, "{\"code\":410}");
    env_free(&e);
}

static void test_cancel_and_invalid(void **state)
{
    struct env e;
    env_new(&e, 1, 1);
    struct done d = {0};
    struct kreq *h = NULL;
    struct kreq_spec s = {.method = KREQ_GET, .path = "/c", .delay_ms = 500};
    assert_int_equal(krequest_start(e.q, &s, on_done, NULL, &d, &h), 0);
    assert_non_null(h);
    krequest_cancel(h);
    assert_int_equal(krequests_pending(e.q), 0);
    fake_now += 1000;
    drive(&e);
    assert_int_equal(d.calls, 0);
    assert_int_equal(n_records(), 0);
    struct kreq_spec bad = {.method = KREQ_GET, .path = "no-slash"};
    assert_int_equal(krequest_start(e.q, &bad, on_done, NULL, &d, NULL),
                     -EINVAL);
    bad.path = "/a b";
    assert_int_equal(krequest_start(e.q, &bad, on_done, NULL, &d, NULL),
                     -EINVAL);
    struct kreq_spec st = {.method = KREQ_GET, .path = "/s", .stream = true};
    assert_int_equal(krequest_start(e.q, &st, on_done, NULL, &d, NULL),
                     -EINVAL); /* a stream needs on_line */
    env_free(&e);
}

static bool gate_open;
static int gate_calls;

static int gate_open_calls = -1; /* >= 0: open for that many more calls */

static bool test_gate(void *data)
{
    gate_calls++;
    if (gate_open_calls >= 0)
        return gate_open_calls-- > 0;
    return gate_open;
}

struct refused {
    int calls;
    bool refused;
    long status;
};

static void on_refusable(void *data, const struct kreq_result *res)
{
    struct refused *d = data;
    d->calls++;
    d->refused = res->refused;
    d->status = res->status;
}

/* Fencing: a write is not sent unless may_write says so right before the
 * attempt, a retry included; GETs always go. */
static void test_write_gate(void **state)
{
    fake_reset();
    fake_now = 1000;
    struct env e;
    struct kclient_options ko = {.base_url = fake_srv.base};
    assert_int_equal(kclient_new(&ko, &e.kc), 0);
    struct krequest_options o = {.backoff_base_ms = 100,
                                 .backoff_max_ms = 1000,
                                 .now_ms = test_clock,
                                 .seed = 42,
                                 .may_write = test_gate};
    assert_int_equal(krequests_new(e.kc, &o, &e.q), 0);
    fake_rule("GET", "/g", 200, "{}");
    fake_rule("POST", "/w", 503, "{}");
    fake_rule("POST", "/w", 201, "{}");
    gate_open = false;
    struct refused g = {0}, w = {0}, w2 = {0};
    struct kreq_spec get = {.method = KREQ_GET, .path = "/g"};
    struct kreq_spec write = {
        .method = KREQ_POST, .path = "/w", .retry_unsure = true};
    assert_int_equal(krequest_start(e.q, &get, on_refusable, NULL, &g, NULL),
                     0);
    assert_int_equal(krequest_start(e.q, &write, on_refusable, NULL, &w, NULL),
                     0);
    drive(&e);
    assert_int_equal(g.status, 200);
    assert_int_equal(w.calls, 1);
    assert_true(w.refused);
    assert_int_equal(w.status, 0);
    assert_int_equal(n_records(), 1); /* the write never left */
    /* Open: the write goes, fails 503; closed before its retry: refused
     * without a second request. */
    gate_open = true;
    assert_int_equal(krequest_start(e.q, &write, on_refusable, NULL, &w2, NULL),
                     0);
    drive(&e);
    assert_int_equal(n_records(), 2);
    assert_int_equal(w2.calls, 0);
    gate_open = false;
    fake_now += krequests_due_in_ms(e.q);
    int before = gate_calls;
    drive(&e);
    assert_true(gate_calls > before);
    assert_int_equal(w2.calls, 1);
    assert_true(w2.refused);
    assert_int_equal(n_records(), 2);
    env_free(&e);
}

/* The gate is asked again as the request is about to leave: a write
 * handed to curl while leading, whose lease is lost before curl sends it
 * (a long cycle, no free connection), is refused unsent. */
static void test_write_gate_at_send(void **state)
{
    fake_reset();
    fake_now = 1000;
    struct env e;
    struct kclient_options ko = {.base_url = fake_srv.base};
    assert_int_equal(kclient_new(&ko, &e.kc), 0);
    struct krequest_options o = {.now_ms = test_clock, .seed = 42,
                                 .may_write = test_gate};
    assert_int_equal(krequests_new(e.kc, &o, &e.q), 0);
    fake_rule("POST", "/w", 201, "{}");
    struct refused w = {0};
    struct kreq_spec write = {.method = KREQ_POST, .path = "/w"};
    gate_calls = 0;
    gate_open_calls = 1; /* yes at dispatch, no as it leaves */
    assert_int_equal(krequest_start(e.q, &write, on_refusable, NULL, &w, NULL),
                     0);
    drive(&e);
    gate_open_calls = -1;
    assert_int_equal(gate_calls, 2);
    assert_int_equal(w.calls, 1);
    assert_true(w.refused);
    assert_int_equal(w.status, 0);
    assert_int_equal(n_records(), 0); /* it never left */
    env_free(&e);
}

/* A result in a log line: the HTTP status, or curl's words, never both
 * glued together ("Empty reply from server0"). */
static void test_result_what(void **state)
{
    char buf[64];
    struct kreq_result r = {.status = 503};
    assert_string_equal(kreq_result_what(&r, buf, sizeof(buf)), "HTTP 503");
    r = (struct kreq_result){.error = "Empty reply from server"};
    assert_string_equal(kreq_result_what(&r, buf, sizeof(buf)),
                        "Empty reply from server");
    char tiny[5];
    assert_string_equal(kreq_result_what(&r, tiny, sizeof(tiny)), "Empt");
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_methods),
        T(test_retry_after),
        T(test_unauthorized),
        T(test_backoff),
        T(test_dropped_connection),
        T(test_gives_up),
        T(test_rate_limit),
        T(test_stream_lines),
        T(test_stream_abort_and_error),
        T(test_cancel_and_invalid),
        T(test_on_result),
        T(test_extra_fds),
        T(test_write_gate),
        T(test_write_gate_at_send),
        T(test_result_what),
    };
    return cmocka_run_group_tests_name("krequest", tests, fake_start,
                                       fake_stop);
}
