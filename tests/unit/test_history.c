/* test_history.c - a workload's history as the cache records it
 * (sched/cache/history.c): the bound and what is dropped first, a reason
 * noted only when it changes (again after an admission), pods placed noted
 * once per admission, and the names of the event types. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "workload.h"

static size_t count_type(const struct wl_history *h, enum wl_event_type t)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n; i++)
        n += h->ev[i].type == t;
    return n;
}

/* Past WL_HISTORY_MAX the oldest WAITING notes go first: CREATED and the
 * admissions stay, the newest reasons stay, and n_dropped counts. */
static void test_bound_drops_waiting_first(void **state)
{
    struct cluster c = {0};
    struct workload w = {0};
    assert_int_equal(workload_note(&c, &w, WL_EV_CREATED, NULL, NULL, NULL), 0);
    assert_int_equal(
        workload_note(&c, &w, WL_EV_ADMITTED, "q", "main: cpu=f", NULL), 0);
    char text[32];
    for (int i = 0; i < 3 * WL_HISTORY_MAX; i++) {
        c.now_ns = i;
        snprintf(text, sizeof(text), "reason %d", i);
        assert_int_equal(workload_note(&c, &w, WL_EV_WAITING, "q", text, NULL),
                         0);
        assert_true(w.history.n <= WL_HISTORY_MAX);
    }
    const struct wl_history *h = &w.history;
    assert_int_equal(h->ev[0].type, WL_EV_CREATED);
    assert_int_equal(h->ev[1].type, WL_EV_ADMITTED);
    assert_string_equal(h->ev[h->n - 1].detail, "reason 767");
    assert_int_equal(h->n + h->n_dropped, 2 + 3 * WL_HISTORY_MAX);
    /* What is kept is in time order, the oldest reasons gone. */
    for (size_t i = 3; i < h->n; i++)
        assert_true(h->ev[i - 1].t_ns <= h->ev[i].t_ns);
    assert_true(h->ev[2].t_ns > 0);
    workload_history_release(&w.history);
    assert_int_equal(w.history.n, 0);
    assert_null(w.history.ev);
    workload_history_release(NULL);
}

/* Without WAITING notes to drop, the oldest others after CREATED go. */
static void test_bound_without_waiting(void **state)
{
    struct cluster c = {0};
    struct workload w = {0};
    workload_note(&c, &w, WL_EV_CREATED, NULL, NULL, NULL);
    for (int i = 0; i < WL_HISTORY_MAX; i++) {
        c.now_ns = i + 1;
        workload_note(&c, &w, i % 2 ? WL_EV_EVICTED : WL_EV_ADMITTED, "q", NULL,
                      i % 2 ? "ns/other" : NULL);
    }
    assert_true(w.history.n <= WL_HISTORY_MAX);
    assert_int_equal(w.history.n + w.history.n_dropped, WL_HISTORY_MAX + 1);
    assert_int_equal(w.history.ev[0].type, WL_EV_CREATED);
    assert_int_equal(w.history.ev[w.history.n - 1].t_ns, WL_HISTORY_MAX);
    workload_history_release(&w.history);
}

/* A reason is noted when its text changes, not each time it is set; a
 * new pending period (after an admission) notes it again. */
static void test_reason_changes(void **state)
{
    struct cluster c = {.now_ns = 5};
    struct cq q = {.name = "team-a"};
    struct workload w = {.cq = &q};
    assert_true(workload_set_reason(&c, &w, "no quota for %s", "cpu"));
    assert_false(workload_set_reason(&c, &w, "no quota for %s", "cpu"));
    c.now_ns = 7;
    assert_false(workload_set_reason(&c, &w, "no quota for cpu"));
    assert_int_equal(count_type(&w.history, WL_EV_WAITING), 1);
    assert_true(workload_set_reason(&c, &w, "no room on nodes"));
    assert_true(workload_set_reason(&c, &w, "no quota for cpu"));
    assert_int_equal(count_type(&w.history, WL_EV_WAITING), 3);
    const struct wl_event *e = &w.history.ev[0];
    assert_int_equal(e->t_ns, 5);
    assert_string_equal(e->cq, "team-a");
    assert_string_equal(e->detail, "no quota for cpu");
    assert_string_equal(w.reason, "no quota for cpu");
    /* The same text as the last note is not noted again ... */
    assert_false(workload_note_reason(&c, &w, "no quota for cpu"));
    /* ... unless the workload was admitted since. */
    workload_note(&c, &w, WL_EV_ADMITTED, "team-a", NULL, NULL);
    assert_true(workload_note_reason(&c, &w, "no quota for cpu"));
    assert_false(workload_note_reason(&c, &w, ""));
    assert_int_equal(count_type(&w.history, WL_EV_WAITING), 4);
    workload_history_release(&w.history);
}

/* A reason whose numbers alone change (amounts, counts, quantities with
 * their units) is folded into the note before it: the latest text, how
 * many times, when last. Another kind of reason, or another event in
 * between, gets a note of its own. */
static void test_reason_folds_numbers(void **state)
{
    struct cluster c = {.now_ns = 10};
    struct cq q = {.name = "q"};
    struct workload w = {.cq = &q};
    assert_true(workload_set_reason(&c, &w, "insufficient quota for cpu in "
                                            "flavor f, 3 more needed"));
    c.now_ns = 20;
    assert_true(workload_set_reason(&c, &w, "insufficient quota for cpu in "
                                            "flavor f, 1500m more needed"));
    c.now_ns = 30;
    assert_true(workload_set_reason(&c, &w, "insufficient quota for cpu in "
                                            "flavor f, 12 more needed"));
    assert_int_equal(w.history.n, 1);
    const struct wl_event *e = &w.history.ev[0];
    assert_int_equal(e->t_ns, 10);
    assert_int_equal(e->changes, 2);
    assert_int_equal(e->t_last_ns, 30);
    assert_string_equal(e->detail, "insufficient quota for cpu in flavor f, "
                                   "12 more needed");
    /* Another resource is another reason, and so is another word after a
     * number (10Gi vs 10 Gi pods: not a unit). */
    assert_true(workload_set_reason(&c, &w, "insufficient quota for memory in "
                                            "flavor f, 1Gi more needed"));
    assert_int_equal(w.history.n, 2);
    assert_true(workload_set_reason(&c, &w, "insufficient quota for memory in "
                                            "flavor f, 2Gim more needed"));
    assert_int_equal(w.history.n, 3);
    /* An event in between: the next reason is noted afresh. */
    workload_note(&c, &w, WL_EV_REQUEUED, "q", NULL, NULL);
    assert_true(workload_set_reason(&c, &w, "insufficient quota for memory in "
                                            "flavor f, 3Gim more needed"));
    assert_int_equal(w.history.n, 5);
    assert_int_equal(w.history.ev[4].changes, 0);
    workload_history_release(&w.history);
}

/* PLACED once per admission, when every pod of every pod set has a node
 * (or succeeded), and never without an admission. */
static void test_placed_once(void **state)
{
    struct cluster c = {0};
    struct cq q = {.name = "team-a"};
    struct podset ps[2] = {{.name = "a", .count = 2},
                           {.name = "b", .count = 1}};
    struct workload w = {
        .podsets = ps, .n_podsets = 2, .admitted_cq = &q, .state = WL_ADMITTED};
    ps[0].n_bound = 2;
    ps[1].n_bound = 1;
    workload_note_placed(&c, &w); /* no admission noted */
    assert_int_equal(w.history.n, 0);
    workload_note(&c, &w, WL_EV_ADMITTED, "team-a", NULL, NULL);
    ps[1].n_bound = 0;
    ps[1].n_pending = 1;
    workload_note_placed(&c, &w); /* pod set b waits */
    assert_int_equal(count_type(&w.history, WL_EV_PLACED), 0);
    ps[1].n_pending = 0;
    ps[1].n_succeeded = 1;
    workload_note_placed(&c, &w);
    workload_note_placed(&c, &w);
    assert_int_equal(count_type(&w.history, WL_EV_PLACED), 1);
    workload_note(&c, &w, WL_EV_EVICTED, "team-a", NULL, "ns/x");
    workload_note(&c, &w, WL_EV_ADMITTED, "team-a", NULL, NULL);
    workload_note_placed(&c, &w);
    assert_int_equal(count_type(&w.history, WL_EV_PLACED), 2);
    assert_string_equal(w.history.ev[w.history.n - 1].cq, "team-a");
    workload_history_release(&w.history);
}

static void test_type_names(void **state)
{
    static const char *const want[] = {"created",  "waiting", "admitted",
                                       "placed",   "evicted", "requeued",
                                       "finished", "deleted"};
    for (int t = 0; t < WL_EV_TYPE_MAX; t++)
        assert_string_equal(wl_event_type_name((enum wl_event_type)t), want[t]);
    assert_string_equal(wl_event_type_name(WL_EV_TYPE_MAX), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_drops_waiting_first),
        cmocka_unit_test(test_bound_without_waiting),
        cmocka_unit_test(test_reason_changes),
        cmocka_unit_test(test_reason_folds_numbers),
        cmocka_unit_test(test_placed_once),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests_name("history", tests, NULL, NULL);
}
