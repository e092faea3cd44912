/* test_kube_writes.c - unit tests for the write queue
 * (sched/backend/kube/kube_writes.c: a POST, then merge patches of what
 * changed, coalescing, the token bucket, Workload writes off, failures,
 * retiring what left), the scheduler's change lists that say what to file,
 * and
 * the Event recorder (kube_events.c: counts, aggregation and the spam
 * filter of client-go's correlator), on the exact requests. */
#include "events_helpers.h"
#include "kube_events.h"
#include "kube_status_helpers.h"
#include "kube_writes.h"

#define SEC INT64_C(1000000000)

struct sink {
    char method[FX_MAX][8];
    char path[FX_MAX][256];
    char type[FX_MAX][64];
    char body[FX_MAX][1024];
    size_t n;
    int answer;
};

static int sink_send(void *data, const struct kube_request *req)
{
    struct sink *s = data;
    if (s->answer < 0)
        return s->answer;
    if (s->n < FX_MAX) {
        snprintf(s->method[s->n], sizeof(s->method[0]), "%s", req->method);
        snprintf(s->path[s->n], sizeof(s->path[0]), "%s", req->path);
        snprintf(s->type[s->n], sizeof(s->type[0]), "%s", req->content_type);
        snprintf(s->body[s->n], sizeof(s->body[0]), "%s", req->body);
        s->n++;
    }
    return 0;
}

static struct json_object *parse(const char *text)
{
    struct json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    return o;
}

static void test_post_then_patches(void **state)
{
    (void)state;
    struct kube_writes q;
    struct sink s = {0};
    kube_writes_init(&q, 100, 100, 0);
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "w", "/c", "/c/w",
                                     NULL, parse("{\"a\":1,\"b\":{\"x\":1}}")),
                     0);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[0], "POST");
    assert_string_equal(s.path[0], "/c");
    assert_string_equal(s.type[0], "application/json");
    assert_string_equal(s.body[0], "{\"a\":1,\"b\":{\"x\":1}}");
    /* The same state again: nothing to send. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "w", "/c", "/c/w",
                                     NULL, parse("{\"a\":1,\"b\":{\"x\":1}}")),
                     0);
    assert_false(kube_writes_pending(&q, "w"));
    /* Two states before a drain: one patch, from what was sent to the
     * latest, only what changed; a member gone is null. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "w", "/c", "/c/w",
                                     NULL, parse("{\"a\":2,\"b\":{\"x\":1}}")),
                     0);
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "w", "/c", "/c/w",
                                     NULL, parse("{\"a\":1,\"b\":{\"y\":2}}")),
                     0);
    assert_int_equal(q.coalesced, 1);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[1], "PATCH");
    assert_string_equal(s.path[1], "/c/w");
    assert_string_equal(s.type[1], "application/merge-patch+json");
    assert_string_equal(s.body[1], "{\"b\":{\"y\":2,\"x\":null}}");
    /* A failure reported later: the whole state goes again. */
    kube_writes_failed(&q, "w", false);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[2], "PATCH");
    assert_string_equal(s.body[2], "{\"a\":1,\"b\":{\"y\":2}}");
    kube_writes_failed(&q, "w", true);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[3], "POST");
    /* A callback error keeps the write pending. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_QUEUE, "cq", NULL, "/cq",
                                     NULL, parse("{\"n\":1}")),
                     0);
    s.answer = -EIO;
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), -EIO);
    assert_true(kube_writes_pending(&q, "cq"));
    s.answer = 0;
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.body[4], "{\"n\":1}");
    kube_writes_forget(&q, "cq");
    assert_null(kube_writes_state(&q, "cq"));
    kube_writes_release(&q);
}

static void test_rate_and_order(void **state)
{
    (void)state;
    struct kube_writes q;
    struct sink s = {0};
    kube_writes_init(&q, 2, 3, 0);
    const char *keys[] = {"k0", "k1", "k2", "k3", "k4", "k5"};
    for (int i = 0; i < 6; i++)
        assert_int_equal(kube_writes_put(&q, KUBE_WRITE_POD, keys[i], NULL,
                                         keys[i], NULL, parse("{\"v\":1}")),
                         0);
    /* k0 again: it keeps its place. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_POD, "k0", NULL, "k0", NULL,
                                     parse("{\"v\":2}")),
                     0);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 3); /* burst */
    assert_string_equal(s.path[0], "k0");
    assert_string_equal(s.body[0], "{\"v\":2}");
    assert_string_equal(s.path[2], "k2");
    assert_int_equal(kube_writes_drain(&q, SEC / 4, sink_send, &s), 0);
    assert_int_equal(kube_writes_drain(&q, SEC / 2, sink_send, &s), 1);
    assert_string_equal(s.path[3], "k3");
    assert_int_equal(kube_writes_drain(&q, 100 * SEC, sink_send, &s), 2);
    assert_int_equal(q.n_pending, 0);
    /* Workload writes off: dropped. */
    q.workloads_off = true;
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "w", "/c", "/c/w",
                                     NULL, parse("{}")),
                     0);
    assert_int_equal(q.dropped, 1);
    assert_false(kube_writes_pending(&q, "w"));
    kube_writes_release(&q);
}

/* An object that left: its entry goes once its last write is out (memory
 * does not grow with churn); one with nothing pending goes at once. */
static void test_retire(void **state)
{
    (void)state;
    struct kube_writes q;
    struct sink s = {0};
    kube_writes_init(&q, 100, 100, 0);
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "a", "/c", "/c/a",
                                     NULL, parse("{\"v\":1}")),
                     0);
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_QUEUE, "b", NULL, "/b",
                                     NULL, parse("{\"v\":1}")),
                     0);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 2);
    assert_int_equal(kube_writes_count(&q), 2);
    /* a's final state is pending when it leaves: sent, then forgotten. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_WORKLOAD, "a", "/c", "/c/a",
                                     NULL, parse("{\"v\":2}")),
                     0);
    kube_writes_retire(&q, "a");
    assert_non_null(kube_writes_state(&q, "a"));
    /* b has nothing pending: gone at once. */
    kube_writes_retire(&q, "b");
    assert_null(kube_writes_state(&q, "b"));
    assert_int_equal(kube_writes_count(&q), 1);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[2], "PATCH");
    assert_string_equal(s.body[2], "{\"v\":2}");
    assert_null(kube_writes_state(&q, "a"));
    assert_int_equal(kube_writes_count(&q), 0);
    assert_int_equal(q.retired, 2);
    /* A key retired and put again before its write went out is kept. */
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_QUEUE, "c", NULL, "/c",
                                     NULL, parse("{\"v\":1}")),
                     0);
    kube_writes_retire(&q, "c");
    assert_int_equal(kube_writes_put(&q, KUBE_WRITE_QUEUE, "c", NULL, "/c",
                                     NULL, parse("{\"v\":3}")),
                     0);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_non_null(kube_writes_state(&q, "c"));
    kube_writes_retire(&q, "nobody"); /* unknown: no change */
    assert_int_equal(kube_writes_count(&q), 1);
    kube_writes_release(&q);
}

/* The scheduler's change lists: the first take says "everything"; then
 * only what a cycle touched, and a workload that left. */
static void test_change_lists(void **state)
{
    struct fx *f = *state;
    struct scheduler_changes ch;
    fx_add(f,
           FX_QUEUES("10") FX_NODE("n1", "8", "") FX_POD("ns", "a", "lq", "1")
               FX_POD("ns", "b", "lq", "1") FX_POD("ns", "c", "lq", "1"));
    fx_run(f);
    assert_int_equal(scheduler_take_changes(f->s, &ch), 0);
    assert_true(ch.all);
    scheduler_changes_release(&ch);
    assert_int_equal(scheduler_take_changes(f->s, &ch), 0);
    assert_false(ch.all);
    assert_int_equal(ch.n_workloads, 0);
    scheduler_changes_release(&ch);
    /* One new workload: it alone, with its queues. */
    fx_add(f, FX_POD("ns", "d", "lq", "1"));
    fx_run(f);
    assert_int_equal(scheduler_take_changes(f->s, &ch), 0);
    assert_false(ch.all);
    assert_int_equal(ch.n_workloads, 1);
    assert_string_equal(ch.workloads[0], "ns/d");
    assert_int_equal(ch.n_cqs, 1);
    assert_string_equal(ch.cqs[0], "cq");
    assert_int_equal(ch.n_lqs, 1);
    assert_string_equal(ch.lqs[0], "ns/lq");
    scheduler_changes_release(&ch);
    /* One that waits (too big), then deleted: listed, and no longer in
     * the cluster. */
    fx_add(f, FX_POD("ns", "big", "lq", "20"));
    fx_run(f);
    assert_int_equal(scheduler_take_changes(f->s, &ch), 0);
    assert_int_equal(ch.n_workloads, 1);
    assert_string_equal(fx_state(f, "ns/big"), "pending");
    scheduler_changes_release(&ch);
    fx_delete(f, OBJ_POD, "ns/big");
    fx_run(f);
    assert_int_equal(scheduler_take_changes(f->s, &ch), 0);
    assert_int_equal(ch.n_workloads, 1);
    assert_string_equal(ch.workloads[0], "ns/big");
    assert_null(cluster_get_workload(fx_c(f), "ns/big"));
    scheduler_changes_release(&ch);
    scheduler_changes_release(NULL);
}

static void test_bucket(void **state)
{
    (void)state;
    struct kube_bucket b;
    kube_bucket_init(&b, 25, 1, 300 * SEC, 0);
    for (int i = 0; i < 25; i++)
        assert_true(kube_bucket_take(&b, 0));
    assert_false(kube_bucket_take(&b, 299 * SEC));
    assert_true(kube_bucket_take(&b, 300 * SEC));
    assert_false(kube_bucket_take(&b, 300 * SEC));
    /* Long idle: full again, never more. */
    assert_int_equal(kube_bucket_tokens(&b, INT64_MAX / 2), 25);
}

static const struct kube_event_obj POD = {"v1", "Pod", "ns", "p", "uid-p"};

static void test_event_count(void **state)
{
    (void)state;
    struct kube_writes q;
    struct kube_recorder r;
    struct sink s = {0};
    kube_writes_init(&q, 100, 100, 0);
    assert_int_equal(kube_events_init(&r, &q, "host-1"), 0);
    assert_int_equal(kube_events_record(&r, 16 * SEC, &POD, "Warning",
                                        "FailedScheduling", "no room"),
                     1);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[0], "POST");
    assert_string_equal(s.path[0], "/api/v1/namespaces/ns/events");
    struct json_object *ev = parse(s.body[0]);
    assert_string_equal(kj_str(ev, "metadata.name"), "p.3b9aca000");
    assert_string_equal(kj_str(ev, "involvedObject.kind"), "Pod");
    assert_string_equal(kj_str(ev, "involvedObject.uid"), "uid-p");
    assert_string_equal(kj_str(ev, "reason"), "FailedScheduling");
    assert_string_equal(kj_str(ev, "type"), "Warning");
    assert_string_equal(kj_str(ev, "message"), "no room");
    assert_string_equal(kj_str(ev, "source.component"), "ordo-scheduler");
    assert_string_equal(kj_str(ev, "reportingComponent"), "ordo-scheduler");
    assert_string_equal(kj_str(ev, "reportingInstance"), "host-1");
    assert_int_equal(kj_int(ev, "count"), 1);
    assert_string_equal(kj_str(ev, "firstTimestamp"), "1970-01-01T00:00:16Z");
    json_object_put(ev);
    /* Seen again: the same Event, count 2, patched. */
    assert_int_equal(kube_events_record(&r, 20 * SEC, &POD, "Warning",
                                        "FailedScheduling", "no room"),
                     1);
    assert_int_equal(kube_writes_drain(&q, 0, sink_send, &s), 1);
    assert_string_equal(s.method[1], "PATCH");
    assert_string_equal(s.path[1], "/api/v1/namespaces/ns/events/p.3b9aca000");
    assert_string_equal(s.type[1], "application/strategic-merge-patch+json");
    assert_string_equal(
        s.body[1], "{\"count\":2,\"lastTimestamp\":\"1970-01-01T00:00:20Z\"}");
    assert_int_equal(r.repeated, 1);
    kube_events_release(&r);
    kube_writes_release(&q);
}

static void test_event_aggregation(void **state)
{
    (void)state;
    struct kube_writes q;
    struct kube_recorder r;
    kube_writes_init(&q, 100, 100, 0);
    assert_int_equal(kube_events_init(&r, &q, NULL), 0);
    char msg[32];
    for (int i = 0; i < 9; i++) {
        snprintf(msg, sizeof(msg), "reason %d", i);
        assert_int_equal(kube_events_record(&r, (i + 1) * SEC, &POD, "Warning",
                                            "FailedScheduling", msg),
                         1);
    }
    assert_int_equal(r.combined, 0);
    assert_int_equal(q.n_pending, 9);
    /* The 10th different message in 10 minutes: combined. */
    assert_int_equal(kube_events_record(&r, 10 * SEC, &POD, "Warning",
                                        "FailedScheduling", "reason 9"),
                     1);
    assert_int_equal(r.combined, 1);
    assert_int_equal(q.n_pending, 10);
    const struct json_object *ev =
        kube_writes_state(&q, "Event ns/p.2540be400");
    assert_non_null(ev);
    assert_string_equal(kj_str((struct json_object *)ev, "message"),
                        "(combined from similar events): reason 9");
    /* Another: counted on the combined Event. */
    assert_int_equal(kube_events_record(&r, 11 * SEC, &POD, "Warning",
                                        "FailedScheduling", "reason 10"),
                     1);
    assert_int_equal(q.n_pending, 10);
    ev = kube_writes_state(&q, "Event ns/p.2540be400");
    assert_int_equal(kj_int((struct json_object *)ev, "count"), 2);
    assert_string_equal(kj_str((struct json_object *)ev, "message"),
                        "(combined from similar events): reason 10");
    kube_events_release(&r);
    kube_writes_release(&q);
}

static void test_event_spam_filter(void **state)
{
    (void)state;
    struct kube_writes q;
    struct kube_recorder r;
    kube_writes_init(&q, 100, 100, 0);
    assert_int_equal(kube_events_init(&r, &q, NULL), 0);
    int passed = 0;
    for (int i = 0; i < 30; i++)
        passed += kube_events_record(&r, SEC, &POD, "Normal", "Scheduled", "x");
    assert_int_equal(passed, 25);
    assert_int_equal(r.dropped, 5);
    /* Another object has its own bucket. */
    struct kube_event_obj other = POD;
    other.name = "q";
    assert_int_equal(
        kube_events_record(&r, SEC, &other, "Normal", "Scheduled", "x"), 1);
    /* One more every 5 minutes; the count went on meanwhile. */
    assert_int_equal(
        kube_events_record(&r, 200 * SEC, &POD, "Normal", "Scheduled", "x"), 0);
    assert_int_equal(
        kube_events_record(&r, 302 * SEC, &POD, "Normal", "Scheduled", "x"), 1);
    const struct json_object *ev = kube_writes_state(&q, "Event ns/p.3b9aca00");
    assert_int_equal(kj_int((struct json_object *)ev, "count"), 32);
    kube_events_release(&r);
    kube_writes_release(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_post_then_patches),
        cmocka_unit_test(test_rate_and_order),
        cmocka_unit_test(test_bucket),
        cmocka_unit_test(test_retire),
        cmocka_unit_test_setup_teardown(test_change_lists, fx_setup,
                                        fx_teardown),
        cmocka_unit_test(test_event_count),
        cmocka_unit_test(test_event_aggregation),
        cmocka_unit_test(test_event_spam_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
