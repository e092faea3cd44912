/* test_klease.c - unit tests for core/kube/klease.c, the leader-election
 * state machine: a fake clock and fake API answers drive it (acquire,
 * expiry on our clock, 409, the renew deadline, a paused leader, release). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klease.h"

#define WALL0 1764820800000000LL /* 2025-12-04T04:00:00Z, in us */

static struct klease *make(const char *id)
{
    struct klease_config c = {.identity = id,
                              .ns = "kube-system",
                              .name = "ordo-scheduler",
                              .lease_ms = 15000,
                              .renew_deadline_ms = 10000,
                              .retry_ms = 2000};
    struct klease *kl;
    assert_int_equal(klease_new(&c, &kl), 0);
    return kl;
}

/* A Lease as the API server answers it. */
static char *lease(const char *holder, const char *rv, int transitions)
{
    static char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
             "\"metadata\":{\"name\":\"ordo-scheduler\",\"namespace\":"
             "\"kube-system\",\"resourceVersion\":\"%s\"},\"spec\":{"
             "\"holderIdentity\":\"%s\",\"leaseDurationSeconds\":15,"
             "\"acquireTime\":\"2025-12-04T03:00:00.000000Z\","
             "\"renewTime\":\"2025-12-04T03:59:%02d.000000Z\","
             "\"leaseTransitions\":%d}}",
             rv, holder, atoi(rv) % 60, transitions);
    return buf;
}

static const char *spec_str(const char *body, const char *key)
{
    static char v[256];
    struct json_object *o = json_tokener_parse(body), *s, *x;
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "spec", &s));
    v[0] = '\0';
    if (json_object_object_get_ex(s, key, &x))
        snprintf(v, sizeof(v), "%s", json_object_get_string(x));
    json_object_put(o);
    return v;
}

/* Tick at t and expect a GET. */
static void expect_get(struct klease *kl, int64_t t)
{
    struct klease_action a;
    assert_int_equal(klease_tick(kl, t, WALL0 + t * 1000, &a), 0);
    assert_int_equal(a.what, KLEASE_GET);
}

/* Become leader at t by creating the Lease. */
static void acquire_new(struct klease *kl, int64_t t)
{
    struct klease_action a;
    expect_get(kl, t);
    assert_int_equal(klease_got(kl, t, WALL0 + t * 1000, 404, "", &a), 0);
    assert_int_equal(a.what, KLEASE_CREATE);
    assert_string_equal(spec_str(a.body, "holderIdentity"), "me");
    free(a.body);
    klease_wrote(kl, t + 5, 201, lease("me", "10", 0));
    assert_int_equal(klease_role(kl), KLEASE_LEADER);
}

static void test_config(void **state)
{
    struct klease *kl;
    struct klease_config c = {.identity = "x",
                              .ns = "n",
                              .name = "l",
                              .lease_ms = 15000,
                              .renew_deadline_ms = 15000,
                              .retry_ms = 2000};
    assert_int_equal(klease_new(&c, &kl), -EINVAL); /* renew >= lease */
    c.renew_deadline_ms = 10000;
    c.retry_ms = 10000;
    assert_int_equal(klease_new(&c, &kl), -EINVAL); /* retry >= renew */
    c.retry_ms = 2000;
    c.identity = "";
    assert_int_equal(klease_new(&c, &kl), -EINVAL);
    c.identity = "x";
    assert_int_equal(klease_new(&c, &kl), 0);
    assert_string_equal(klease_path(kl),
                        "/apis/coordination.k8s.io/v1/namespaces/n/leases/l");
    klease_free(kl);
    klease_free(NULL);
}

static void test_formats(void **state)
{
    char buf[64];
    assert_string_equal(klease_microtime(WALL0 + 1234567, buf, sizeof(buf)),
                        "2025-12-04T04:00:01.234567Z");
    assert_string_equal(klease_microtime(WALL0, buf, sizeof(buf)),
                        "2025-12-04T04:00:00.000000Z");
    uint8_t r[16];
    for (int i = 0; i < 16; i++)
        r[i] = (uint8_t)(0x11 * i);
    char id[128];
    assert_string_equal(klease_identity("node-1", r, id, sizeof(id)),
                        "node-1_00112233-4455-4677-8899-aabbccddeeff");
}

static void test_create_when_absent(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    expect_get(kl, 0);
    assert_int_equal(klease_got(kl, 1, WALL0 + 1000, 404, "", &a), 0);
    assert_int_equal(a.what, KLEASE_CREATE);
    assert_false(klease_is_leader(kl, 1)); /* not before the answer */
    assert_string_equal(spec_str(a.body, "holderIdentity"), "me");
    assert_string_equal(spec_str(a.body, "leaseDurationSeconds"), "15");
    assert_string_equal(spec_str(a.body, "leaseTransitions"), "0");
    assert_string_equal(spec_str(a.body, "renewTime"),
                        "2025-12-04T04:00:00.001000Z");
    assert_string_equal(spec_str(a.body, "acquireTime"),
                        spec_str(a.body, "renewTime"));
    free(a.body);
    klease_wrote(kl, 3, 201, lease("me", "5", 0));
    assert_true(klease_is_leader(kl, 3));
    /* Leader until renew_deadline after the write was sent (at 1). */
    assert_true(klease_is_leader(kl, 10000));
    assert_false(klease_is_leader(kl, 10001));
    klease_free(kl);
}

static void test_wait_for_expiry_on_our_clock(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    /* Another holds it; its renewTime is an hour old by the wall clock,
     * which does not matter: expiry counts from our observation. */
    expect_get(kl, 100000);
    assert_int_equal(
        klease_got(kl, 100000, WALL0, 200, lease("other", "7", 3), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_int_equal(a.at_ms, 102000);
    assert_string_equal(klease_holder(kl), "other");
    /* Before the retry period nothing is sent. */
    assert_int_equal(klease_tick(kl, 101000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    /* The holder renews (new resourceVersion): the clock restarts. */
    expect_get(kl, 110000);
    assert_int_equal(
        klease_got(kl, 110000, WALL0, 200, lease("other", "8", 3), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    /* Unchanged since 110000: not expired at 124999, expired at 125000. */
    expect_get(kl, 124999);
    assert_int_equal(
        klease_got(kl, 124999, WALL0, 200, lease("other", "8", 3), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    expect_get(kl, 127000);
    assert_int_equal(
        klease_got(kl, 127000, WALL0, 200, lease("other", "8", 3), &a), 0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    assert_string_equal(spec_str(a.body, "holderIdentity"), "me");
    assert_string_equal(spec_str(a.body, "leaseTransitions"), "4");
    assert_string_not_equal(spec_str(a.body, "acquireTime"),
                            "2025-12-04T03:00:00.000000Z");
    struct json_object *o = json_tokener_parse(a.body), *m, *rv;
    assert_true(json_object_object_get_ex(o, "metadata", &m));
    assert_true(json_object_object_get_ex(m, "resourceVersion", &rv));
    assert_string_equal(json_object_get_string(rv), "8");
    json_object_put(o);
    free(a.body);
    klease_wrote(kl, 127010, 200, lease("me", "9", 4));
    assert_true(klease_is_leader(kl, 127010));
    assert_int_equal(klease_transitions(kl), 4);
    klease_free(kl);
}

static void test_conflict_on_acquire(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    expect_get(kl, 0);
    assert_int_equal(klease_got(kl, 0, WALL0, 200, lease("", "3", 1), &a), 0);
    assert_int_equal(a.what, KLEASE_UPDATE); /* released: at once */
    assert_true(klease_may_send(kl, 0));     /* an acquisition */
    assert_string_equal(spec_str(a.body, "leaseTransitions"), "2");
    free(a.body);
    klease_wrote(kl, 10, 409, "{}"); /* another replica won */
    assert_false(klease_is_leader(kl, 10));
    assert_int_equal(klease_role(kl), KLEASE_FOLLOWER);
    /* The next try sees the winner and waits. */
    expect_get(kl, 2000);
    assert_int_equal(
        klease_got(kl, 2000, WALL0, 200, lease("other", "4", 2), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    klease_free(kl);
}

static void test_renew_and_conflict(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    acquire_new(kl, 0);
    /* Renewed every retry period, from when the last write was sent. */
    assert_int_equal(klease_tick(kl, 1999, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    expect_get(kl, 2000);
    assert_int_equal(klease_got(kl, 2001, WALL0, 200, lease("me", "10", 0), &a),
                     0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    assert_string_equal(spec_str(a.body, "leaseTransitions"), "0");
    free(a.body);
    klease_wrote(kl, 2002, 200, lease("me", "11", 0));
    assert_true(klease_is_leader(kl, 12000)); /* from 2001 */
    assert_false(klease_is_leader(kl, 12001));
    /* A renew answered 409: someone else wrote it; lost at once. */
    expect_get(kl, 4001);
    assert_int_equal(klease_got(kl, 4001, WALL0, 200, lease("me", "11", 0), &a),
                     0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    free(a.body);
    klease_wrote(kl, 4002, 409, "{}");
    assert_false(klease_is_leader(kl, 4002));
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    assert_int_equal(klease_tick(kl, 6000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT); /* never again */
    klease_free(kl);
}

static void test_renew_deadline(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    acquire_new(kl, 0);
    /* Every renew fails (no answer): still leader until the deadline. */
    for (int64_t t = 2000; t < 10000; t += 2000) {
        expect_get(kl, t);
        assert_int_equal(klease_got(kl, t, WALL0, 0, NULL, &a), 0);
        assert_int_equal(a.what, KLEASE_WAIT);
        assert_true(klease_is_leader(kl, t));
    }
    /* The wait never goes past the deadline. */
    assert_int_equal(klease_tick(kl, 9000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_true(a.at_ms <= 10000);
    assert_false(klease_is_leader(kl, 10000));
    assert_int_equal(klease_tick(kl, 10000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    klease_free(kl);
}

static void test_another_holds_it_while_we_lead(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    acquire_new(kl, 0);
    expect_get(kl, 2000);
    assert_int_equal(
        klease_got(kl, 2000, WALL0, 200, lease("other", "12", 1), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    assert_false(klease_is_leader(kl, 2000));
    klease_free(kl);
}

/* A leader stopped (SIGSTOP, a VM pause) past its lease: it knows it is
 * not leader before sending anything, and makes no write, even when the
 * GET it had sent before the pause is answered only now. */
static void test_paused_leader(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    acquire_new(kl, 0);
    expect_get(kl, 2000);
    /* Paused 30 s; meanwhile another took over. */
    assert_false(klease_is_leader(kl, 32000));
    assert_int_equal(
        klease_got(kl, 32000, WALL0, 200, lease("me", "10", 0), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_null(a.body);
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    assert_int_equal(klease_tick(kl, 32001, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    klease_free(kl);

    /* A renew asked for before the pause is not sent after it. */
    kl = make("me");
    acquire_new(kl, 0);
    expect_get(kl, 2000);
    assert_int_equal(klease_got(kl, 2000, WALL0, 200, lease("me", "10", 0), &a),
                     0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    free(a.body);
    assert_true(klease_may_send(kl, 2001));
    assert_false(klease_may_send(kl, 30000));
    klease_free(kl);

    /* Paused between ticks: the first tick after it sends nothing. */
    kl = make("me");
    acquire_new(kl, 0);
    assert_false(klease_is_leader(kl, 40000));
    assert_int_equal(klease_tick(kl, 40000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    klease_free(kl);

    /* A renew answered after the deadline does not make a leader. */
    kl = make("me");
    acquire_new(kl, 0);
    expect_get(kl, 2000);
    assert_int_equal(klease_got(kl, 2000, WALL0, 200, lease("me", "10", 0), &a),
                     0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    free(a.body);
    klease_wrote(kl, 30000, 200, lease("me", "11", 0));
    assert_false(klease_is_leader(kl, 30000));
    assert_int_equal(klease_role(kl), KLEASE_LOST);
    klease_free(kl);
}

static void test_release(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    acquire_new(kl, 0);
    assert_int_equal(klease_release(kl, 100, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    assert_false(klease_is_leader(kl, 100)); /* no write after this */
    assert_string_equal(spec_str(a.body, "holderIdentity"), "");
    assert_string_equal(spec_str(a.body, "leaseDurationSeconds"), "1");
    assert_string_equal(spec_str(a.body, "leaseTransitions"), "0");
    free(a.body);
    assert_int_equal(klease_tick(kl, 3000, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    klease_wrote(kl, 110, 200, lease("", "11", 0));
    assert_int_equal(klease_role(kl), KLEASE_RELEASED);
    assert_false(klease_is_leader(kl, 110));
    assert_false(klease_may_send(kl, 110));
    klease_free(kl);

    /* A follower has nothing to give back. */
    kl = make("me");
    assert_int_equal(klease_release(kl, 0, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_int_equal(klease_role(kl), KLEASE_RELEASED);
    klease_free(kl);

    /* A renew in flight: released after its answer, not leading meanwhile. */
    kl = make("me");
    acquire_new(kl, 0);
    expect_get(kl, 2000);
    assert_int_equal(klease_release(kl, 2001, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    assert_false(klease_is_leader(kl, 2001));
    assert_int_equal(klease_got(kl, 2002, WALL0, 200, lease("me", "10", 0), &a),
                     0);
    assert_int_equal(a.what, KLEASE_WAIT); /* no renew when stopping */
    assert_int_equal(klease_release(kl, 2003, WALL0, &a), 0);
    assert_int_equal(a.what, KLEASE_UPDATE);
    free(a.body);
    klease_free(kl);
}

static void test_watch_observation(void **state)
{
    struct klease *kl = make("me");
    struct klease_action a;
    expect_get(kl, 0);
    assert_int_equal(klease_got(kl, 0, WALL0, 200, lease("other", "7", 0), &a),
                     0);
    /* The watch reports a renew at 14000: expiry moves to 29000. */
    struct json_object *o = json_tokener_parse(lease("other", "8", 0));
    klease_observe(kl, 14000, o);
    json_object_put(o);
    o = json_tokener_parse("{\"metadata\":{\"name\":\"x\"},\"spec\":{"
                           "\"holderIdentity\":\"y\"}}");
    klease_observe(kl, 15000, o); /* another Lease: ignored */
    json_object_put(o);
    assert_string_equal(klease_holder(kl), "other");
    expect_get(kl, 16000);
    assert_int_equal(
        klease_got(kl, 16000, WALL0, 200, lease("other", "8", 0), &a), 0);
    assert_int_equal(a.what, KLEASE_WAIT);
    klease_free(kl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_create_when_absent),
        cmocka_unit_test(test_wait_for_expiry_on_our_clock),
        cmocka_unit_test(test_conflict_on_acquire),
        cmocka_unit_test(test_renew_and_conflict),
        cmocka_unit_test(test_renew_deadline),
        cmocka_unit_test(test_another_holds_it_while_we_lead),
        cmocka_unit_test(test_paused_leader),
        cmocka_unit_test(test_release),
        cmocka_unit_test(test_watch_observation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
