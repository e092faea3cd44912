/* test_kube_evict.c - unit tests for sched/kube_evict.c: a preempted
 * workload's pods go through the Eviction API of the fake API server, the
 * outcome lands on the workload, failed evictions are retried, and a
 * PodDisruptionBudget's refusal is reported and retried with backoff,
 * never overridden by DELETE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "fake_apiserver.h"
#include "kclient.h"
#include "kube_evict.h"
#include "manifest.h"
#include "test_helpers.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define EVICT(pod) "/api/v1/namespaces/team/pods/" pod "/eviction"
#define POD(pod)   "/api/v1/namespaces/team/pods/" pod
#define PDB_429                                                                \
    "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":"                  \
    "\"TooManyRequests\",\"message\":\"Cannot evict pod as it would violate "  \
    "the pod's disruption budget.\",\"code\":429}"
#define INTERNAL_500                                                           \
    "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":"                  \
    "\"InternalError\",\"message\":\"etcdserver: request timed out\"}"

/* Two single-pod workloads of ours, a and b, in namespace team. */
static const char manifests[] =
    "apiVersion: v1\nkind: Pod\n"
    "metadata: {name: a, namespace: team, uid: uid-a}\n"
    "spec:\n  schedulerName: ordo-scheduler\n"
    "  containers: [{name: c, image: x}]\n"
    "---\n"
    "apiVersion: v1\nkind: Pod\n"
    "metadata: {name: b, namespace: team, uid: uid-b}\n"
    "spec:\n  schedulerName: ordo-scheduler\n"
    "  containers: [{name: c, image: x}]\n";

struct fixture {
    struct cluster c;
    struct kclient *kc;
    struct kube_evict ke;
};

static int setup(void **state)
{
    if (fake_start(state) < 0)
        return -1;
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    cluster_init(&f->c);
    struct manifest_set s;
    manifest_set_init(&s);
    if (manifest_load_buffer(&s, manifests, sizeof(manifests) - 1, "pods.yaml",
                             NULL, NULL) < 0 ||
        s.n != 2)
        return -1;
    for (size_t i = 0; i < s.n; i++) {
        if (cluster_add(&f->c, s.objects[i]) < 0)
            return -1;
        s.objects[i] = NULL; /* the cluster owns it now */
    }
    s.n = 0;
    manifest_set_release(&s);
    struct kclient_options opt = {.base_url = fake_srv.base,
                                  .timeout_ms = 5000};
    if (kclient_new(&opt, &f->kc) < 0)
        return -1;
    kube_evict_init(&f->ke, f->kc, &f->c, -1);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    kclient_free(f->kc);
    kube_evict_release(&f->ke);
    cluster_release(&f->c);
    free(f);
    return fake_stop(state);
}

/* The pod as the cycle hands it over: bound, its workload evicting. */
static struct pod *victim(struct fixture *f, const char *key)
{
    struct pod *p = NULL;
    HASH_FIND_STR(f->c.pods, key, p);
    assert_non_null(p);
    assert_non_null(p->wl);
    p->state = PODSTATE_BOUND;
    p->wl->evicting = true;
    return p;
}

static void drain(struct fixture *f)
{
    for (int i = 0; i < 200 && kclient_pending(f->kc); i++)
        assert_true(kclient_process(f->kc, 100) >= 0);
    assert_int_equal(kclient_pending(f->kc), 0);
    assert_int_equal(f->ke.in_flight, 0);
}

static void test_evicted_recorded(void **state)
{
    struct fixture *f = *state;
    fake_rule("POST", EVICT("a"), 201, "{\"kind\":\"Status\",\"code\":201}");
    struct pod *p = victim(f, "team/a");
    assert_int_equal(kube_evict_pod(&f->ke, p), 0);
    assert_int_equal(f->ke.in_flight, 1);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_EVICTED], 1);
    assert_contains(p->wl->evict_note, "pod team/a: evicted");
    /* The uid rides along; the pod stays until the watch says it left. */
    assert_contains(fake_srv.records[0].body, "\"uid-a\"");
    assert_int_equal(p->state, PODSTATE_BOUND);
    assert_int_equal(f->ke.n_retry, 0);
}

struct refusals {
    int calls, first;
    char key[64], why[256];
};

static void on_refused_hook(void *data, const char *key, const char *why,
                            bool first)
{
    struct refusals *r = data;
    r->calls++;
    r->first += first;
    snprintf(r->key, sizeof(r->key), "%s", key);
    snprintf(r->why, sizeof(r->why), "%s", why);
}

/* A PodDisruptionBudget's refusal: recorded, no DELETE, tried again after
 * a backoff that doubles; the pod stays (its quota charged) meanwhile. */
static void test_pdb_refusal_backs_off(void **state)
{
    struct fixture *f = *state;
    struct refusals rf = {0};
    f->ke.refused = on_refused_hook;
    f->ke.hook_data = &rf;
    f->c.now_ns = 1000;
    fake_rule("POST", EVICT("b"), 429, PDB_429);
    struct pod *p = victim(f, "team/b");
    assert_int_equal(kube_evict_pod(&f->ke, p), 0);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_REFUSED], 1);
    assert_int_equal(f->ke.outcomes[KEVICT_DELETED], 0);
    assert_int_equal(fake_srv.n_records, 1); /* no DELETE */
    assert_contains(p->wl->evict_note,
                    "pod team/b: eviction refused by a PodDisruptionBudget");
    assert_contains(p->wl->evict_note, "disruption budget");
    assert_contains(p->wl->evict_note, "tried again in 10 s");
    assert_int_equal(rf.calls, 1);
    assert_int_equal(rf.first, 1);
    assert_string_equal(rf.key, "team/b");
    assert_contains(rf.why, "PodDisruptionBudget");
    assert_int_equal(p->state, PODSTATE_BOUND);
    assert_true(p->wl->evicting);
    assert_int_equal(f->ke.n_retry, 1);
    /* Not before its time. */
    f->c.now_ns += KUBE_EVICT_BACKOFF_MIN_NS - 1;
    assert_int_equal(kube_evict_retry(&f->ke), 0);
    assert_int_equal(fake_srv.n_records, 1);
    /* Then again, refused again: the wait doubles, reported once. */
    f->c.now_ns += 1;
    fake_rule("POST", EVICT("b"), 429, PDB_429);
    assert_int_equal(kube_evict_retry(&f->ke), 1);
    assert_int_equal(kube_evict_retry(&f->ke), 0); /* in flight: not twice */
    drain(f);
    assert_int_equal(fake_srv.n_records, 2);
    assert_string_equal(fake_srv.records[1].method, "POST");
    assert_int_equal(rf.calls, 2);
    assert_int_equal(rf.first, 1);
    assert_contains(p->wl->evict_note, "tried again in 20 s");
    f->c.now_ns += 2 * KUBE_EVICT_BACKOFF_MIN_NS - 1;
    assert_int_equal(kube_evict_retry(&f->ke), 0);
    /* The budget allows it now: evicted, nothing left to retry. */
    f->c.now_ns += 1;
    fake_rule("POST", EVICT("b"), 201, "{}");
    assert_int_equal(kube_evict_retry(&f->ke), 1);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_EVICTED], 1);
    assert_int_equal(f->ke.n_retry, 0);
    assert_contains(p->wl->evict_note, "pod team/b: evicted");
    for (size_t i = 0; i < fake_srv.n_records; i++)
        assert_string_equal(fake_srv.records[i].method, "POST");
}

/* The backoff stops at its cap. */
static void test_pdb_backoff_capped(void **state)
{
    struct fixture *f = *state;
    f->c.now_ns = 0;
    struct pod *p = victim(f, "team/a");
    for (int i = 0; i < 8; i++)
        fake_rule("POST", EVICT("a"), 429, PDB_429);
    assert_int_equal(kube_evict_pod(&f->ke, p), 0);
    drain(f);
    int64_t want[] = {10, 20, 40, 80, 160, 300, 300, 300};
    for (int i = 0; i < 8; i++) {
        char s[32];
        snprintf(s, sizeof(s), "tried again in %lld s", (long long)want[i]);
        assert_contains(p->wl->evict_note, s);
        if (i == 7)
            break;
        f->c.now_ns += want[i] * 1000000000LL;
        assert_int_equal(kube_evict_retry(&f->ke), 1);
        drain(f);
    }
    assert_int_equal(fake_srv.n_records, 8);
}

/* Without the Eviction API (405) the pod is deleted instead. */
static void test_no_eviction_api_deleted(void **state)
{
    struct fixture *f = *state;
    fake_rule("POST", EVICT("b"), 405, "");
    fake_rule("DELETE", POD("b"), 200, "{\"kind\":\"Pod\"}");
    struct pod *p = victim(f, "team/b");
    assert_int_equal(kube_evict_pod(&f->ke, p), 0);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_DELETED], 1);
    assert_contains(p->wl->evict_note, "pod team/b: no Eviction API (405");
    assert_contains(p->wl->evict_note, "deleted instead");
    assert_int_equal(fake_srv.n_records, 2);
}

static void test_failed_is_retried(void **state)
{
    struct fixture *f = *state;
    fake_rule("POST", EVICT("a"), 500, INTERNAL_500);
    struct pod *p = victim(f, "team/a");
    assert_int_equal(kube_evict_pod(&f->ke, p), 0);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_FAILED], 1);
    assert_contains(p->wl->evict_note, "etcdserver: request timed out");
    assert_contains(p->wl->evict_note, "; will retry");
    assert_int_equal(f->ke.n_retry, 1);

    fake_rule("POST", EVICT("a"), 201, "{}");
    assert_int_equal(kube_evict_retry(&f->ke), 1);
    assert_int_equal(f->ke.n_retry, 0);
    drain(f);
    assert_int_equal(f->ke.outcomes[KEVICT_EVICTED], 1);
    assert_contains(p->wl->evict_note, "pod team/a: evicted");
    assert_null(strstr(p->wl->evict_note, "retry"));
    assert_int_equal(fake_srv.n_records, 2);
}

/* A failed pod that is no longer wanted (its workload stopped evicting, or
 * it left its node) is dropped from the retry list, not evicted again. */
static void test_retry_skips_unwanted(void **state)
{
    struct fixture *f = *state;
    fake_rule("POST", EVICT("a"), 500, INTERNAL_500);
    fake_rule("POST", EVICT("b"), 500, INTERNAL_500);
    struct pod *a = victim(f, "team/a"), *b = victim(f, "team/b");
    assert_int_equal(kube_evict_pod(&f->ke, a), 0);
    assert_int_equal(kube_evict_pod(&f->ke, b), 0);
    drain(f);
    assert_int_equal(f->ke.n_retry, 2);
    a->wl->evicting = false;
    b->state = PODSTATE_SUCCEEDED;
    assert_int_equal(kube_evict_retry(&f->ke), 0);
    assert_int_equal(f->ke.n_retry, 0);
    assert_int_equal(fake_srv.n_records, 2);
}

static void test_pod_without_namespace(void **state)
{
    struct fixture *f = *state;
    struct pod *p = victim(f, "team/a");
    const char *ns = p->obj->meta.namespace_;
    p->obj->meta.namespace_ = NULL;
    assert_int_equal(kube_evict_pod(&f->ke, p), -EINVAL);
    p->obj->meta.namespace_ = ns;
    assert_int_equal(f->ke.in_flight, 0);
    assert_int_equal(fake_srv.n_records, 0);
}

/* Freeing the client with requests in flight drops their callbacks; the
 * records of those requests are freed by kube_evict_release() (ASan). */
static void test_release_in_flight(void **state)
{
    struct fixture *f = *state;
    fake_rule("POST", EVICT("a"), 201, "{}")->delay_ms = 300;
    assert_int_equal(kube_evict_pod(&f->ke, victim(f, "team/a")), 0);
    assert_int_equal(kube_evict_pod(&f->ke, victim(f, "team/b")), 0);
    assert_int_equal(f->ke.in_flight, 2);
    kclient_free(f->kc);
    f->kc = NULL;
    kube_evict_release(&f->ke);
    assert_int_equal(f->ke.in_flight, 0);
    assert_null(f->ke.reqs);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_evicted_recorded),      T(test_pdb_refusal_backs_off),
        T(test_pdb_backoff_capped),    T(test_no_eviction_api_deleted),
        T(test_failed_is_retried),     T(test_retry_skips_unwanted),
        T(test_pod_without_namespace), T(test_release_in_flight),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
