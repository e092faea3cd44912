/* test_kube_leader.c - unit tests for sched/backend/kube/kube_leader.c
 * against the fake API server: the Lease requests it sends for the
 * election's actions (GET, POST to create, PUT to release with the
 * resourceVersion read) and the write gate it gives the daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fake_apiserver.h"
#include "kube_leader.h"

#define LEASES "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
#define LEASE  LEASES "/ordo-scheduler"
#define MINE                                                                   \
    "{\"metadata\":{\"name\":\"ordo-scheduler\",\"namespace\":\"kube-"         \
    "system\",\"resourceVersion\":\"41\"},\"spec\":{\"holderIdentity\":"       \
    "\"me\",\"leaseDurationSeconds\":15,\"leaseTransitions\":0}}"
#define OTHERS                                                                 \
    "{\"metadata\":{\"name\":\"ordo-scheduler\",\"namespace\":\"kube-"         \
    "system\",\"resourceVersion\":\"7\"},\"spec\":{\"holderIdentity\":"        \
    "\"other\",\"leaseDurationSeconds\":15,\"leaseTransitions\":3}}"

static struct kube_leader *make(struct kclient **ret_kc)
{
    struct kclient_options ko = {.base_url = fake_srv.base};
    assert_int_equal(kclient_new(&ko, ret_kc), 0);
    struct kube_leader_options o = {.ns = "kube-system",
                                    .name = "ordo-scheduler",
                                    .identity = "me",
                                    .lease_ms = 15000,
                                    .renew_deadline_ms = 10000,
                                    .retry_ms = 2000};
    struct kube_leader *l;
    assert_int_equal(kube_leader_new(*ret_kc, &o, &l), 0);
    return l;
}

/* Steps until the role is want or n requests were recorded (5 s at
 * most: a bound on a broken run, not a timing assertion). */
static void step_until(struct kube_leader *l, enum klease_role want, size_t n)
{
    struct timespec pause = {0, 1000000};
    for (int i = 0; i < 5000; i++) {
        kube_leader_step(l);
        pthread_mutex_lock(&fake_srv.lock);
        size_t got = fake_srv.n_records;
        pthread_mutex_unlock(&fake_srv.lock);
        if (kube_leader_role(l) == want && got >= n)
            return;
        nanosleep(&pause, NULL);
    }
    fail_msg("role %d, want %d", kube_leader_role(l), want);
}

static const char *spec_of(size_t i, const char *key)
{
    static char v[128];
    struct json_object *o = json_tokener_parse(fake_srv.records[i].body);
    struct json_object *s, *x;
    assert_non_null(o);
    v[0] = '\0';
    if (json_object_object_get_ex(o, "spec", &s) &&
        json_object_object_get_ex(s, key, &x))
        snprintf(v, sizeof(v), "%s", json_object_get_string(x));
    json_object_put(o);
    return v;
}

static void test_create_lead_release(void **state)
{
    (void)state;
    fake_rule("GET", LEASE, 404, "{\"kind\":\"Status\",\"code\":404}");
    fake_rule("POST", LEASES, 201, MINE);
    fake_rule("PUT", LEASE, 200, MINE);
    struct kclient *kc;
    struct kube_leader *l = make(&kc);
    assert_string_equal(kube_leader_identity(l), "me");
    assert_false(kube_leader_may_write(l)); /* not before it leads */
    step_until(l, KLEASE_LEADER, 2);
    assert_true(kube_leader_is_leader(l));
    assert_true(kube_leader_may_write(l));
    assert_string_equal(fake_srv.records[0].method, "GET");
    assert_string_equal(fake_srv.records[1].method, "POST");
    assert_string_equal(fake_srv.records[1].path, LEASES);
    assert_string_equal(spec_of(1, "holderIdentity"), "me");
    kube_leader_release(l);
    assert_false(kube_leader_may_write(l)); /* at once */
    step_until(l, KLEASE_RELEASED, 3);
    assert_string_equal(fake_srv.records[2].method, "PUT");
    assert_string_equal(fake_srv.records[2].path, LEASE);
    assert_string_equal(spec_of(2, "holderIdentity"), "");
    assert_string_equal(spec_of(2, "leaseDurationSeconds"), "1");
    assert_non_null(
        strstr(fake_srv.records[2].body, "\"resourceVersion\":\"41\""));
    kube_leader_free(l);
    kclient_free(kc);
}

static void test_held_by_another(void **state)
{
    (void)state;
    fake_rule("GET", LEASE, 200, OTHERS);
    struct kclient *kc;
    struct kube_leader *l = make(&kc);
    step_until(l, KLEASE_FOLLOWER, 1);
    for (int i = 0; i < 50; i++)
        kube_leader_step(l);
    assert_false(kube_leader_may_write(l));
    assert_int_equal(kube_leader_role(l), KLEASE_FOLLOWER);
    /* It waits out the lease: nothing but the one GET was sent. */
    assert_int_equal(fake_srv.n_records, 1);
    kube_leader_release(l); /* nothing to give back */
    assert_int_equal(kube_leader_role(l), KLEASE_RELEASED);
    kube_leader_free(l);
    kclient_free(kc);
    kube_leader_free(NULL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fake_start, fake_stop)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_create_lead_release),
        T(test_held_by_another),
    };
    return cmocka_run_group_tests_name("kube_leader", tests, NULL, NULL);
}
