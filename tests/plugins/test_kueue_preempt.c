/* test_kueue_preempt.c - unit tests for plugins/preempt/kueue_preempt.c:
 * Kueue's choice of victims (reference sections 4.1-4.4), driven through
 * the plugin's descriptor against the mock host's preemption model (one
 * abstract quantity: the preemptor needs cy.need, has cy.free, and
 * cy.nominal_headroom without borrowing; each removed candidate frees its
 * .frees; see mock_host.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mock_host.h"

#define NEVER ORDO_PREEMPT_NEVER
#define LOWER ORDO_PREEMPT_LOWER_PRIORITY
#define NEWER ORDO_PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY
#define ANY   ORDO_PREEMPT_ANY

#define MAX_CANDS 8

/* An admitted workload of ClusterQueue q. */
#define ADMITTED(nm, q, prio, at, fr)                                          \
    {                                                                          \
        .name = (nm), .priority = (prio), .queue_time = (at), .cq = (q),      \
        .admitted_cq = (q), .admitted_time = (at), .frees = (fr)               \
    }

static const char *const reason_no_fit =
    "no set of lower-priority workloads to preempt would make it fit";

static struct ordo_plugin plugin;
/* team-a is the preemptor's ClusterQueue. */
static struct ordo_cq cq_a, cq_b, cq_c;
static struct ordo_workload pre;

static int setup(void **state)
{
    mock_reset();
    memset(&plugin, 0, sizeof(plugin));
    plugin.name = "kueue-preempt";
    memset(&cq_a, 0, sizeof(cq_a));
    memset(&cq_b, 0, sizeof(cq_b));
    memset(&cq_c, 0, sizeof(cq_c));
    cq_a.name = "team-a";
    cq_a.cohort = "all";
    cq_b.name = "team-b";
    cq_b.cohort = "all";
    cq_c.name = "team-c";
    cq_c.cohort = "all";
    memset(&pre, 0, sizeof(pre));
    pre.name = "ns/pre";
    pre.priority = 10;
    pre.queue_time = 100;
    pre.cq = &cq_a;
    return ordo_plugin.init(mock_host(), &plugin, state);
}

static int teardown(void **state)
{
    ordo_plugin.fini(*state);
    return mock_live_allocs() == 0 ? 0 : -1;
}

static void policies(struct ordo_cq *cq, enum ordo_preemption_policy within,
                     enum ordo_preemption_policy reclaim,
                     enum ordo_preemption_policy borrow)
{
    cq->within_cluster_queue = within;
    cq->reclaim_within_cohort = reclaim;
    cq->borrow_within_cohort = borrow;
}

struct result {
    enum ordo_verdict v;
    uint32_t victims[MAX_CANDS];
    uint32_t n;
};

/* Runs select_victims over cands[0..n) in cy and checks what holds for
 * every answer: the snapshot is as it was, victims are distinct candidates,
 * a non-OK verdict has a reason and no victims. */
static struct result run(void **state, struct ordo_cycle *cy,
                         const struct ordo_workload *cands, uint32_t n)
{
    const struct ordo_workload *ptrs[MAX_CANDS];
    struct result r;
    assert_true(n <= MAX_CANDS);
    for (uint32_t i = 0; i < n; i++)
        ptrs[i] = &cands[i];
    memset(&r, 0, sizeof(r));
    r.n = 99;
    r.v = ordo_plugin.preempt->select_victims(*state, cy, &pre, ptrs, n,
                                               r.victims, &r.n);
    assert_int_equal(cy->n_removed, 0);
    assert_int_equal(cy->n_sim_remove, cy->n_sim_restore);
    if (r.v == ORDO_OK) {
        assert_true(r.n > 0 && r.n <= n);
        for (uint32_t i = 0; i < r.n; i++) {
            assert_true(r.victims[i] < n);
            for (uint32_t j = 0; j < i; j++)
                assert_int_not_equal(r.victims[i], r.victims[j]);
        }
    } else {
        assert_int_equal(r.n, 0);
        assert_true(cy->n_reasons >= 1);
    }
    return r;
}

/* A cycle for the preemptor with the model's quantities. */
static void cycle(struct ordo_cycle *cy, int64_t need, int64_t free,
                  int64_t headroom)
{
    mock_cycle_init(cy, &pre, NULL);
    cy->need = need;
    cy->free = free;
    cy->nominal_headroom = headroom;
}

static void assert_victims(const struct result *r, const uint32_t *want,
                           uint32_t n)
{
    assert_int_equal(r->v, ORDO_OK);
    assert_int_equal(r->n, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(r->victims[i], want[i]);
}

#define VICTIMS(r, ...)                                                        \
    assert_victims((r), (const uint32_t[]){__VA_ARGS__},                       \
                   sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static void assert_unschedulable(const struct ordo_cycle *cy,
                                 const struct result *r, const char *want)
{
    assert_int_equal(r->v, ORDO_UNSCHEDULABLE);
    if (want)
        assert_string_equal(cy->reason, want);
}

/* ---- descriptor -------------------------------------------------------- */

static void test_descriptor(void **state)
{
    (void)state;
    assert_int_equal(ordo_plugin.abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(ordo_plugin.abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(ordo_plugin.struct_size,
                     sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(ordo_plugin.kind, ORDO_PLUGIN_PREEMPT);
    assert_string_equal(ordo_plugin.name, "kueue-preempt");
    assert_non_null(ordo_plugin.version);
    assert_non_null(ordo_plugin.summary);
    assert_null(strchr(ordo_plugin.summary, '\n'));
    assert_non_null(ordo_plugin.preempt);
    assert_non_null(ordo_plugin.preempt->select_victims);
    assert_null(ordo_plugin.queue);
    assert_null(ordo_plugin.quota);
    assert_null(ordo_plugin.place);
}

static void test_init_fini(void **state)
{
    (void)state;
    mock_reset();
    struct ordo_plugin p = {.name = "kueue-preempt"};
    void *self = NULL;
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), 0);
    assert_int_equal(mock_live_allocs(), 1);
    ordo_plugin.fini(self);
    ordo_plugin.fini(NULL);
    assert_int_equal(mock_live_allocs(), 0);
    mock_fail_alloc(true);
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -ENOMEM);
    assert_int_equal(p.n_logs, 1);
    mock_fail_alloc(false);
}

/* ---- withinClusterQueue (4.1) ------------------------------------------- */

static void test_within_never(void **state)
{
    policies(&cq_a, NEVER, NEVER, NEVER);
    struct ordo_workload c[] = {ADMITTED("ns/low", &cq_a, 1, 50, 4)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 1);
    assert_unschedulable(&cy, &r,
                         "no workload may be preempted under the preemption "
                         "policies of ClusterQueue team-a");
    assert_int_equal(cy.n_sim_remove, 0);
    mock_cycle_end(&cy);
}

static void test_within_lower_priority(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/higher", &cq_a, 20, 50, 4),
        ADMITTED("ns/equal", &cq_a, 10, 300, 4),
        ADMITTED("ns/lower", &cq_a, 5, 50, 4),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 2);
    mock_cycle_end(&cy);
}

static void test_within_lower_priority_not_equal(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {ADMITTED("ns/equal", &cq_a, 10, 300, 4)};
    c[0].queue_time = 500; /* newer, but LowerPriority ignores that */
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 1);
    assert_unschedulable(&cy, &r, NULL);
    mock_cycle_end(&cy);
}

static void test_within_lower_or_newer_equal(void **state)
{
    policies(&cq_a, NEWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/equal-older", &cq_a, 10, 50, 2),
        ADMITTED("ns/equal-same", &cq_a, 10, 100, 2),
        ADMITTED("ns/equal-newer", &cq_a, 10, 200, 2),
        ADMITTED("ns/higher-newer", &cq_a, 11, 300, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 4);
    VICTIMS(&r, 2);
    mock_cycle_end(&cy);

    /* Without the newer one, nothing qualifies. */
    cycle(&cy, 2, 0, 0);
    r = run(state, &cy, c, 2);
    assert_unschedulable(&cy, &r, NULL);
    mock_cycle_end(&cy);
}

static void test_within_any(void **state)
{
    policies(&cq_a, ANY, NEVER, NEVER);
    struct ordo_workload c[] = {ADMITTED("ns/higher", &cq_a, 99, 50, 2)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
}

/* ---- reclaimWithinCohort ------------------------------------------------ */

/* The preemptor's ClusterQueue fits within nominal (hierarchical advantage)
 * once team-b gives back what it borrows. */
static void test_reclaim_never(void **state)
{
    policies(&cq_a, NEVER, NEVER, NEVER);
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {ADMITTED("ns/b-low", &cq_b, 1, 50, 4)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 4);
    struct result r = run(state, &cy, c, 1);
    assert_unschedulable(&cy, &r, NULL);
    mock_cycle_end(&cy);
}

static void test_reclaim_lower_priority(void **state)
{
    policies(&cq_a, NEVER, LOWER, NEVER);
    cq_b.borrowed = 8;
    struct ordo_workload c[] = {
        ADMITTED("ns/b-higher", &cq_b, 20, 50, 4),
        ADMITTED("ns/b-equal", &cq_b, 10, 60, 4),
        ADMITTED("ns/b-lower", &cq_b, 5, 40, 4),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 4);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 2);
    mock_cycle_end(&cy);
}

static void test_reclaim_any(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {ADMITTED("ns/b-higher", &cq_b, 20, 50, 4)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 4);
    struct result r = run(state, &cy, c, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
}

static void test_other_cq_not_over_nominal(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 0;
    struct ordo_workload c[] = {ADMITTED("ns/b-low", &cq_b, 1, 50, 4)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 4);
    struct result r = run(state, &cy, c, 1);
    assert_unschedulable(&cy, &r, NULL);
    mock_cycle_end(&cy);
}

/* team-b stops borrowing once its first workload is gone: its second one
 * is no longer a candidate, and team-c gives the rest. */
static void test_over_nominal_rechecked(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 2;
    cq_c.borrowed = 2;
    struct ordo_workload c[] = {
        ADMITTED("ns/b1", &cq_b, 1, 50, 2),
        ADMITTED("ns/b2", &cq_b, 1, 40, 2),
        ADMITTED("ns/c1", &cq_c, 5, 50, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 4, 0, 4);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 0, 2);
    mock_cycle_end(&cy);
}

/* ---- ordering (4.2) ----------------------------------------------------- */

static void test_order_evicting_first(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/low", &cq_a, 1, 300, 2),
        ADMITTED("ns/evicting", &cq_a, 5, 50, 2),
    };
    c[1].evicting = true;
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 2);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

static void test_order_other_cq_first(void **state)
{
    policies(&cq_a, LOWER, ANY, NEVER);
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {
        ADMITTED("ns/a-low", &cq_a, 1, 300, 2),
        ADMITTED("ns/b-high", &cq_b, 50, 50, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 2);
    struct result r = run(state, &cy, c, 2);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

static void test_order_lower_priority_first(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/five", &cq_a, 5, 300, 2),
        ADMITTED("ns/one", &cq_a, 1, 50, 2),
        ADMITTED("ns/three", &cq_a, 3, 400, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

static void test_order_most_recently_admitted_first(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/old", &cq_a, 1, 100, 2),
        ADMITTED("ns/new", &cq_a, 1, 200, 2),
        ADMITTED("ns/mid", &cq_a, 1, 150, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

static void test_order_name_last(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/b", &cq_a, 1, 100, 2),
        ADMITTED("ns/a", &cq_a, 1, 100, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 2);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

/* ---- minimal set -------------------------------------------------------- */

/* Walk: low (1), mid (+3 = 4), high (+3 = 7 >= 6) fits. Fill-back puts mid
 * back (4 < 6: needed, removed again), then low (6 >= 6: not needed). */
static void test_minimal_set_fill_back(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/third", &cq_a, 3, 100, 3),
        ADMITTED("ns/first", &cq_a, 1, 100, 1),
        ADMITTED("ns/second", &cq_a, 2, 100, 3),
        ADMITTED("ns/unused", &cq_a, 4, 100, 9),
    };
    struct ordo_cycle cy;
    cycle(&cy, 6, 0, 0);
    struct result r = run(state, &cy, c, 4);
    VICTIMS(&r, 2, 0);
    /* Three removals in the walk, mid removed again in fill-back. */
    assert_int_equal(cy.n_sim_remove, 4);
    assert_int_equal(cy.n_sim_restore, 4);
    mock_cycle_end(&cy);
}

static void test_stops_at_first_fit(void **state)
{
    policies(&cq_a, ANY, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/a", &cq_a, 1, 100, 5),
        ADMITTED("ns/b", &cq_a, 2, 100, 5),
        ADMITTED("ns/c", &cq_a, 3, 100, 5),
    };
    struct ordo_cycle cy;
    cycle(&cy, 3, 0, 0);
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 0);
    assert_int_equal(cy.n_sim_remove, 1);
    mock_cycle_end(&cy);
}

static void test_no_fit_restores_snapshot(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/a", &cq_a, 1, 100, 1),
        ADMITTED("ns/b", &cq_a, 2, 100, 1),
        ADMITTED("ns/c", &cq_a, 30, 100, 10),
    };
    struct ordo_cycle cy;
    cycle(&cy, 5, 0, 0);
    struct result r = run(state, &cy, c, 3);
    assert_unschedulable(&cy, &r, reason_no_fit);
    assert_int_equal(cy.n_sim_remove, 2);
    assert_int_equal(cy.n_sim_restore, 2);
    mock_cycle_end(&cy);
}

static void test_pending_and_duplicate_candidates(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/a", &cq_a, 1, 100, 1),
        {.name = "ns/pending", .priority = 0, .cq = &cq_a, .frees = 9},
    };
    const struct ordo_workload *ptrs[] = {&c[0], &c[1], &c[0]};
    uint32_t victims[3], n = 0;
    struct ordo_cycle cy;
    /* Needs 2: only a real second workload would do. */
    cycle(&cy, 2, 0, 0);
    enum ordo_verdict v = ordo_plugin.preempt->select_victims(
        *state, &cy, &pre, ptrs, 3, victims, &n);
    assert_int_equal(v, ORDO_UNSCHEDULABLE);
    assert_int_equal(n, 0);
    assert_int_equal(cy.n_removed, 0);
    assert_int_equal(cy.n_sim_remove, cy.n_sim_restore);
    mock_cycle_end(&cy);

    cycle(&cy, 1, 0, 0);
    v = ordo_plugin.preempt->select_victims(*state, &cy, &pre, ptrs, 3,
                                            victims, &n);
    assert_int_equal(v, ORDO_OK);
    assert_int_equal(n, 1);
    assert_true(victims[0] == 0 || victims[0] == 2);
    mock_cycle_end(&cy);
}

static void test_errors(void **state)
{
    policies(&cq_a, LOWER, NEVER, NEVER);
    struct ordo_workload c[] = {ADMITTED("ns/a", &cq_a, 1, 100, 1)};
    const struct ordo_workload *ptrs[] = {&c[0]};
    uint32_t victims[1], n = 7;
    struct ordo_cycle cy;
    cycle(&cy, 1, 0, 0);
    cy.fail_cycle_alloc = true;
    assert_int_equal(ordo_plugin.preempt->select_victims(
                         *state, &cy, &pre, ptrs, 1, victims, &n),
                     ORDO_ERROR);
    assert_int_equal(n, 0);
    assert_string_equal(cy.reason, "out of cycle memory");
    mock_cycle_end(&cy);

    cycle(&cy, 1, 0, 0);
    assert_int_equal(ordo_plugin.preempt->select_victims(*state, &cy, &pre,
                                                         NULL, 1, victims, &n),
                     ORDO_ERROR);
    assert_int_equal(cy.n_reasons, 1);
    mock_cycle_end(&cy);

    pre.cq = NULL;
    cycle(&cy, 1, 0, 0);
    assert_int_equal(ordo_plugin.preempt->select_victims(
                         *state, &cy, &pre, ptrs, 1, victims, &n),
                     ORDO_ERROR);
    assert_string_equal(cy.reason, "the workload has no ClusterQueue");
    mock_cycle_end(&cy);
}

/* ---- borrowWithinCohort (4.3) ------------------------------------------- */

/* team-a borrows (no nominal headroom, already over nominal); team-b
 * borrows too and has a lower-priority workload. */
static void borrow_case(void **state, enum ordo_preemption_policy borrow,
                        int32_t victim_priority, bool want_victim)
{
    policies(&cq_a, NEVER, ANY, borrow);
    cq_a.borrowed = 1;
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {
        ADMITTED("ns/b", &cq_b, victim_priority, 100, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 1);
    if (want_victim)
        VICTIMS(&r, 0);
    else
        assert_unschedulable(&cy, &r, reason_no_fit);
    mock_cycle_end(&cy);
}

static void test_borrow_within_cohort_never(void **state)
{
    borrow_case(state, NEVER, 1, false);
}

static void test_borrow_within_cohort_lower_priority(void **state)
{
    borrow_case(state, LOWER, 1, true);
    /* Not lower: reclaiming is allowed only without borrowing. */
    borrow_case(state, LOWER, 10, false);
}

/* maxPriorityThreshold: only victims at or below it may be taken while
 * borrowing. */
static void test_borrow_within_cohort_threshold(void **state)
{
    cq_a.has_threshold = true;
    cq_a.threshold = 5;
    borrow_case(state, LOWER, 5, true);
    borrow_case(state, LOWER, 6, false);
    cq_a.has_threshold = false;
}

/* Hierarchical advantage: team-a fits within nominal once the cohort gives
 * back, so even a higher-priority workload of a borrowing ClusterQueue
 * may go with borrowWithinCohort Never. */
static void test_hierarchical_reclaim(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {ADMITTED("ns/b", &cq_b, 50, 100, 2)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 2);
    struct result r = run(state, &cy, c, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
}

/* Advantage higher up (host->preemptor_advantage: the preemptor's side of
 * the common cohort fits within its subtree quota) makes a borrower of
 * another subtree a victim even with borrowWithinCohort Never and no
 * nominal headroom. */
static void test_hierarchical_reclaim_cohort_level(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_a.borrowed = 1;
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {ADMITTED("ns/b", &cq_b, 50, 100, 2)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    struct result r = run(state, &cy, c, 1);
    assert_unschedulable(&cy, &r, reason_no_fit);
    mock_cycle_end(&cy);

    cq_b.advantage = true;
    cycle(&cy, 2, 0, 0);
    r = run(state, &cy, c, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
    cq_b.advantage = false;
}

/* borrowWithinCohort Never, no advantage: when team-a is strictly under
 * nominal the attempt without borrowing comes first and may reclaim from
 * team-b; when it is not, only the attempt with borrowing runs, which
 * skips team-b's workload. */
static void attempts_case(void **state, bool a_over_nominal, bool want_fit)
{
    policies(&cq_a, LOWER, LOWER, NEVER);
    cq_a.borrowed = a_over_nominal ? 1 : 0;
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {
        ADMITTED("ns/a", &cq_a, 1, 100, 1),
        ADMITTED("ns/b", &cq_b, 1, 100, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 1);
    struct result r = run(state, &cy, c, 2);
    if (want_fit)
        VICTIMS(&r, 1, 0);
    else
        assert_unschedulable(&cy, &r, reason_no_fit);
    mock_cycle_end(&cy);
}

static void test_attempts_under_nominal(void **state)
{
    attempts_case(state, false, true);
    attempts_case(state, true, false);
}

/* borrowWithinCohort Never; candidates: team-a's own "ns/a" (frees 1) and
 * team-b's "ns/b" (frees 2), team-b borrowing 4; the preemptor's pod set
 * assigned flavor f. The caller checks the result and ends cy. */
static struct result run_own_and_borrower(void **state, struct ordo_cycle *cy,
                                          const struct ordo_flavor *f)
{
    policies(&cq_a, LOWER, LOWER, NEVER);
    cq_b.borrowed = 4;
    struct ordo_workload c[] = {
        ADMITTED("ns/a", &cq_a, 1, 100, 1),
        ADMITTED("ns/b", &cq_b, 1, 100, 2),
    };
    cycle(cy, 2, 0, 1);
    cy->assigned[0][0] = f;
    return run(state, cy, c, 2);
}

/* "Under nominal" read from the assignment: usage < nominal on the
 * requested (flavor, resource), whatever cq_over_nominal_for says. */
static void test_attempts_under_nominal_from_assignment(void **state)
{
    static const struct ordo_flavor on_demand = {.name = "on-demand"};
    for (int usage = 3; usage <= 4; usage++) {
        cq_a.groups[0] = (struct mock_group){
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", 4000, usage * 1000}}}},
        };
        pre.podsets[0] = (struct mock_podset){
            .name = "main", .count = 1, .requests = {{"cpu", 2000}}};
        struct ordo_cycle cy;
        struct result r = run_own_and_borrower(state, &cy, &on_demand);
        if (usage < 4)
            VICTIMS(&r, 1, 0);
        else
            assert_unschedulable(&cy, &r, reason_no_fit);
        mock_cycle_end(&cy);
    }
}

/* Only the pairs that need preemption count: memory at nominal quota but
 * fitting as it is (the cohort lends it) does not stop the attempt without
 * borrowing that cpu, under nominal and short, allows. */
static void test_attempts_under_nominal_needing_preemption(void **state)
{
    static const struct ordo_flavor on_demand = {.name = "on-demand"};
    cq_a.groups[0] = (struct mock_group){
        .resources = {"cpu", "memory"},
        .flavors = {{&on_demand,
                     {{"cpu", 4000, 3000}, {"memory", 4000, 4000}}}},
    };
    cq_a.fr_quotas[0] = (struct mock_fr_quota){
        .flavor = &on_demand, .resource = "memory", .cohort_nominal = 8000};
    pre.podsets[0] =
        (struct mock_podset){.name = "main",
                             .count = 1,
                             .requests = {{"cpu", 2000}, {"memory", 1000}}};
    struct ordo_cycle cy;
    struct result r = run_own_and_borrower(state, &cy, &on_demand);
    VICTIMS(&r, 1, 0);
    mock_cycle_end(&cy);
}

/* ---- fair sharing (4.4) ------------------------------------------------- */

/* team-b borrows, share 5; the preemptor's share against it is given;
 * removing b's workload (2) leaves team-b at 3. */
static struct result fs_case(void **state, struct ordo_cycle *cy,
                             int64_t preemptor_share, uint32_t s0, uint32_t s1,
                             uint32_t n_strategies)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 4;
    cq_b.fs_share = 5;
    cq_b.fs_preemptor_share = preemptor_share;
    static struct ordo_workload c[1];
    c[0] = (struct ordo_workload)ADMITTED("ns/b", &cq_b, 50, 100, 2);
    cycle(cy, 2, 0, 0);
    cy->fair_sharing = true;
    cy->fs_strategies[0] = s0;
    cy->fs_strategies[1] = s1;
    cy->n_fs_strategies = n_strategies;
    return run(state, cy, c, 1);
}

static void test_fs_strategies_decide_differently(void **state)
{
    struct ordo_cycle cy;
    /* S2-a: 4 <= 3 fails. */
    struct result r = fs_case(state, &cy, 4, 1, 0, 1);
    assert_unschedulable(&cy, &r,
                         "no set of workloads to preempt under fair sharing "
                         "would make it fit");
    mock_cycle_end(&cy);
    /* S2-b: 4 < 5 passes. */
    r = fs_case(state, &cy, 4, 2, 0, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
    /* S2-a then S2-b: the retry takes it. */
    r = fs_case(state, &cy, 4, 1, 2, 2);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
    /* No strategy configured: Kueue's default [S2-a, S2-b]. */
    r = fs_case(state, &cy, 4, 0, 0, 0);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
}

static void test_fs_final_share(void **state)
{
    struct ordo_cycle cy;
    /* S2-a: 3 <= 3 passes. */
    struct result r = fs_case(state, &cy, 3, 1, 0, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
    /* S2-b: 5 < 5 fails. */
    r = fs_case(state, &cy, 5, 2, 0, 1);
    assert_unschedulable(&cy, &r, NULL);
    mock_cycle_end(&cy);
}

static void test_fs_unknown_strategy(void **state)
{
    struct ordo_cycle cy;
    struct result r = fs_case(state, &cy, 1, 7, 0, 1);
    assert_int_equal(r.v, ORDO_ERROR);
    assert_string_equal(cy.reason,
                        "unknown fair sharing preemption strategy 7");
    mock_cycle_end(&cy);
}

/* Own-CQ candidates go without share checks; borrowWithinCohort is
 * ignored (Never here) and team-c, not borrowing, gives nothing. */
static void test_fs_own_cq_and_not_borrowing(void **state)
{
    policies(&cq_a, LOWER, ANY, NEVER);
    cq_a.fs_preemptor_share = 100;
    cq_c.borrowed = 0;
    cq_c.fs_share = 1000;
    struct ordo_workload c[] = {
        ADMITTED("ns/c", &cq_c, 1, 100, 2),
        ADMITTED("ns/a", &cq_a, 1, 100, 2),
    };
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 0);
    cy.fair_sharing = true;
    struct result r = run(state, &cy, c, 2);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

/* team-b has the highest share: its workload goes first although team-c's
 * comes first in candidate order; after it team-b's share drops below
 * team-c's and team-c gives the rest. */
static void test_fs_target_highest_share(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 8;
    cq_b.fs_share = 8;
    cq_b.fs_preemptor_share = 1;
    cq_c.borrowed = 8;
    cq_c.fs_share = 6;
    cq_c.fs_preemptor_share = 1;
    struct ordo_workload c[] = {
        ADMITTED("ns/b1", &cq_b, 9, 100, 3),
        ADMITTED("ns/c1", &cq_c, 1, 100, 2),
        ADMITTED("ns/b2", &cq_b, 8, 100, 3),
    };
    struct ordo_cycle cy;
    cycle(&cy, 5, 0, 0);
    cy.fair_sharing = true;
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 2, 1);
    mock_cycle_end(&cy);
}

/* The target order is the host's (Kueue walks the cohort tree, where
 * team-c may sit in a cohort with the higher share): team-c's workload goes
 * first although team-b has the higher share of the two. */
static void test_fs_target_order_from_host(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 8;
    cq_b.fs_share = 8;
    cq_b.fs_preemptor_share = 1;
    cq_c.borrowed = 8;
    cq_c.fs_share = 6;
    cq_c.fs_preemptor_share = 1;
    struct ordo_workload c[] = {
        ADMITTED("ns/b1", &cq_b, 9, 100, 3),
        ADMITTED("ns/c1", &cq_c, 1, 100, 2),
        ADMITTED("ns/b2", &cq_b, 8, 100, 3),
    };
    struct ordo_cycle cy;
    cycle(&cy, 5, 0, 0);
    cy.fair_sharing = true;
    cy.fs_force_target = &cq_c;
    struct result r = run(state, &cy, c, 3);
    VICTIMS(&r, 1, 2);
    assert_true(cy.n_next_target_calls >= 2);
    mock_cycle_end(&cy);
}

/* FairSharingPreemptWithinNominal: team-a stays within nominal with the
 * workload, so team-b's workload goes whatever the shares. */
static void test_fs_within_nominal(void **state)
{
    policies(&cq_a, NEVER, ANY, NEVER);
    cq_b.borrowed = 4;
    cq_b.fs_share = 1;
    cq_b.fs_preemptor_share = 50;
    struct ordo_workload c[] = {ADMITTED("ns/b", &cq_b, 50, 100, 2)};
    struct ordo_cycle cy;
    cycle(&cy, 2, 0, 2);
    cy.fair_sharing = true;
    cy.fs_strategies[0] = 1;
    cy.n_fs_strategies = 1;
    struct result r = run(state, &cy, c, 1);
    VICTIMS(&r, 0);
    mock_cycle_end(&cy);
}

/* Fill-back applies to fair sharing too. */
static void test_fs_fill_back(void **state)
{
    policies(&cq_a, ANY, NEVER, NEVER);
    struct ordo_workload c[] = {
        ADMITTED("ns/small", &cq_a, 1, 100, 1),
        ADMITTED("ns/big", &cq_a, 2, 100, 5),
    };
    struct ordo_cycle cy;
    cycle(&cy, 5, 0, 0);
    cy.fair_sharing = true;
    struct result r = run(state, &cy, c, 2);
    VICTIMS(&r, 1);
    mock_cycle_end(&cy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_init_fini),
        T(test_within_never),
        T(test_within_lower_priority),
        T(test_within_lower_priority_not_equal),
        T(test_within_lower_or_newer_equal),
        T(test_within_any),
        T(test_reclaim_never),
        T(test_reclaim_lower_priority),
        T(test_reclaim_any),
        T(test_other_cq_not_over_nominal),
        T(test_over_nominal_rechecked),
        T(test_order_evicting_first),
        T(test_order_other_cq_first),
        T(test_order_lower_priority_first),
        T(test_order_most_recently_admitted_first),
        T(test_order_name_last),
        T(test_minimal_set_fill_back),
        T(test_stops_at_first_fit),
        T(test_no_fit_restores_snapshot),
        T(test_pending_and_duplicate_candidates),
        T(test_errors),
        T(test_borrow_within_cohort_never),
        T(test_borrow_within_cohort_lower_priority),
        T(test_borrow_within_cohort_threshold),
        T(test_hierarchical_reclaim_cohort_level),
        T(test_hierarchical_reclaim),
        T(test_attempts_under_nominal),
        T(test_attempts_under_nominal_needing_preemption),
        T(test_attempts_under_nominal_from_assignment),
        T(test_fs_strategies_decide_differently),
        T(test_fs_final_share),
        T(test_fs_unknown_strategy),
        T(test_fs_own_cq_and_not_borrowing),
        T(test_fs_target_highest_share),
        T(test_fs_target_order_from_host),
        T(test_fs_within_nominal),
        T(test_fs_fill_back),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
