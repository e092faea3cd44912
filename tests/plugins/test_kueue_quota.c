/* test_kueue_quota.c - unit tests for plugins/quota/kueue_quota.c: Kueue's
 * flavor assignment with borrowing, preemption modes and flavorFungibility
 * (reference sections 3.5-3.7), driven through the plugin's descriptor
 * against the mock host and its flat-cohort quota model (mock_host.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mock_host.h"

#define CPU(n) ((int64_t)(n)*1000)
#define KI     ((int64_t)1024 * 1000)
#define MI     (1024 * KI)
#define GI     (1024 * MI)

static const struct ordo_flavor on_demand = {
    .name = "on-demand",
    .labels = {{"instance-type", "on-demand"}},
};
static const struct ordo_flavor spot = {
    .name = "spot",
    .labels = {{"instance-type", "spot"}},
};
static const struct ordo_flavor reserved = {
    .name = "reserved",
    .labels = {{"instance-type", "reserved"}},
};
static const struct ordo_flavor a100 = {
    .name = "a100",
    .labels = {{"gpu", "a100"}},
    .taints = {"gpu"},
    .tolerations = {"gpu"},
};
static const struct ordo_flavor h100 = {
    .name = "h100",
    .labels = {{"gpu", "h100"}},
    .taints = {"gpu"},
};

static struct ordo_plugin plugin;

static int setup(void **state)
{
    mock_reset();
    memset(&plugin, 0, sizeof(plugin));
    plugin.name = "kueue-quota";
    return ordo_plugin.init(mock_host(), &plugin, state);
}

static int teardown(void **state)
{
    ordo_plugin.fini(*state);
    return mock_live_allocs() == 0 ? 0 : -1;
}

/* Runs assign for wl in a fresh cycle (fair sharing as given); the op must
 * decide, set the borrowing level once, and give a reason exactly when the
 * mode is not FIT. */
static enum ordo_quota_mode run(void **state, struct ordo_cycle *cy,
                                const struct ordo_workload *wl, bool fair)
{
    enum ordo_quota_mode mode = (enum ordo_quota_mode)99;
    mock_cycle_init(cy, wl, NULL);
    cy->fair_sharing = fair;
    assert_int_equal(ordo_plugin.quota->assign(*state, cy, wl, &mode), ORDO_OK);
    assert_int_equal(cy->n_borrowing_calls, 1);
    assert_int_equal(cy->n_reasons, mode == ORDO_QUOTA_FIT ? 0 : 1);
    if (mode == ORDO_QUOTA_NOFIT)
        assert_int_equal(cy->borrowing, 0);
    return mode;
}

/* Asserts the mode, pod set 0's flavor for group 0 (NULL: not checked),
 * the borrowing level and the reason (NULL: none). */
static void expect(void **state, const struct ordo_workload *wl, bool fair,
                   enum ordo_quota_mode want_mode,
                   const struct ordo_flavor *want_flavor, uint32_t want_level,
                   const char *want_reason)
{
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, wl, fair), want_mode);
    if (want_flavor)
        assert_ptr_equal(cy.assigned[0][0], want_flavor);
    assert_int_equal(cy.borrowing, want_level);
    if (want_reason)
        assert_string_equal(cy.reason, want_reason);
    else
        assert_int_equal(cy.n_reasons, 0);
    mock_cycle_end(&cy);
}

/* One pod set "main" of count pods of cpu each. */
static struct ordo_workload cpu_workload(const struct ordo_cq *cq,
                                         uint32_t count, int64_t cpu)
{
    return (struct ordo_workload){
        .name = "ns/a",
        .cq = cq,
        .podsets = {{.name = "main",
                     .count = count,
                     .requests = {{"cpu", cpu}}}},
    };
}

/* ---- descriptor and mock ---------------------------------------------- */

static void test_descriptor(void **state)
{
    (void)state;
    assert_int_equal(ordo_plugin.abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(ordo_plugin.abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(ordo_plugin.struct_size,
                     sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(ordo_plugin.kind, ORDO_PLUGIN_QUOTA);
    assert_string_equal(ordo_plugin.name, "kueue-quota");
    assert_string_equal(ordo_plugin.version, "1.0.0");
    assert_non_null(ordo_plugin.summary);
    assert_null(strchr(ordo_plugin.summary, '\n'));
    assert_non_null(ordo_plugin.quota);
    assert_non_null(ordo_plugin.quota->assign);
    assert_null(ordo_plugin.queue);
    assert_null(ordo_plugin.preempt);
    assert_null(ordo_plugin.place);
}

static void test_init_fini(void **state)
{
    (void)state;
    mock_reset();
    struct ordo_plugin p = {.name = "kueue-quota"};
    void *self = NULL;
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), 0);
    assert_int_equal(mock_live_allocs(), 1);
    ordo_plugin.fini(self);
    ordo_plugin.fini(NULL);
    assert_int_equal(mock_live_allocs(), 0);

    mock_fail_alloc(true);
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -ENOMEM);
    mock_fail_alloc(false);
    assert_int_equal(p.last_level, ORDO_LOG_ERROR);
    assert_int_equal(mock_live_allocs(), 0);
}

/* The mock answers the quota arithmetic of mock_host.h. */
static void test_mock_quota_model(void **state)
{
    (void)state;
    const struct ordo_host *h = mock_host();
    assert_non_null(h->cq_available);
    assert_non_null(h->cq_potential_available);
    assert_non_null(h->cq_borrowing_level);
    assert_non_null(h->cq_fits_below_root);
    assert_non_null(h->cq_has_cohort);
    assert_non_null(h->cq_fungibility);
    assert_non_null(h->cq_preemption);
    assert_non_null(h->fair_sharing);
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_borrow = ORDO_TRY_NEXT_FLAVOR,
        .preference = ORDO_PREEMPTION_OVER_BORROWING,
        .reclaim_within_cohort = ORDO_PREEMPT_ANY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(6)}}},
                        {&spot, {{"cpu", 0, 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(10),
                       .cohort_usage = CPU(7), .has_borrowing_limit = true,
                       .borrowing_limit = CPU(2), .cohort_height = 2,
                       .below_root_quota = CPU(12)},
                      {&spot, "cpu", .fixed = true, .available = CPU(1),
                       .potential = CPU(3)}},
    };
    struct ordo_cycle cy;
    mock_cycle_init(&cy, NULL, NULL);
    ordo_resource_id cpu = mock_resource("cpu");
    /* min(8 + 10 - 6 - 7, 8 - 6 + 2) = 4; min(18, 10) = 10. */
    assert_int_equal(h->cq_available(&cy, &cq, &on_demand, cpu), CPU(4));
    assert_int_equal(h->cq_potential_available(&cy, &cq, &on_demand, cpu),
                     CPU(10));
    assert_int_equal(h->cq_borrowing_level(&cy, &cq, &on_demand, cpu, CPU(2)),
                     0);
    assert_int_equal(h->cq_borrowing_level(&cy, &cq, &on_demand, cpu, CPU(3)),
                     2);
    assert_true(h->cq_fits_below_root(&cq, &on_demand, cpu, CPU(12)));
    assert_false(h->cq_fits_below_root(&cq, &on_demand, cpu, CPU(13)));
    assert_int_equal(h->cq_available(&cy, &cq, &spot, cpu), CPU(1));
    assert_int_equal(h->cq_potential_available(&cy, &cq, &spot, cpu), CPU(3));
    /* Unlisted pairs. */
    assert_int_equal(h->cq_available(&cy, &cq, &a100, cpu), 0);
    assert_int_equal(h->cq_potential_available(&cy, &cq, &a100, cpu), 0);
    assert_false(h->cq_fits_below_root(&cq, &a100, cpu, 0));
    assert_true(h->cq_has_cohort(&cq));
    assert_int_equal(h->cq_fungibility(&cq, ORDO_WHEN_CAN_BORROW),
                     ORDO_TRY_NEXT_FLAVOR);
    assert_int_equal(h->cq_fungibility(&cq, ORDO_WHEN_CAN_PREEMPT),
                     ORDO_MAY_STOP_SEARCH);
    assert_int_equal(h->cq_fungibility(&cq, ORDO_PREFERENCE),
                     ORDO_PREEMPTION_OVER_BORROWING);
    assert_int_equal(h->cq_preemption(&cq, ORDO_WITHIN_CLUSTER_QUEUE),
                     ORDO_PREEMPT_NEVER);
    assert_int_equal(h->cq_preemption(&cq, ORDO_RECLAIM_WITHIN_COHORT),
                     ORDO_PREEMPT_ANY);
    assert_false(h->fair_sharing(&cy));
    cy.fair_sharing = true;
    assert_true(h->fair_sharing(&cy));
    /* Without a cohort: nominal only, never borrowing. */
    cq.cohort = NULL;
    assert_int_equal(h->cq_available(&cy, &cq, &on_demand, cpu), CPU(2));
    assert_int_equal(h->cq_potential_available(&cy, &cq, &on_demand, cpu),
                     CPU(8));
    assert_int_equal(h->cq_borrowing_level(&cy, &cq, &on_demand, cpu, CPU(5)),
                     0);
    mock_cycle_end(&cy);
}

/* ---- fit and borrowing ------------------------------------------------ */

static void test_fit_within_nominal(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand,
                         {{"cpu", CPU(8), CPU(2)}, {"memory", 64 * GI, 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(8)}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 2,
                     .requests = {{"cpu", CPU(3)}, {"memory", 4 * GI}}}},
    };
    /* 2 + 6 = 8 = nominal: fits without borrowing. */
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_int_equal(cy.n_assign_calls, 1);
    assert_int_equal(cy.borrowing, 0);
    mock_cycle_end(&cy);
}

/* A ClusterQueue in a cohort with two cpu flavors: on-demand (nominal 4,
 * 3 used, 8 free in the cohort) and spot (nominal 8, free). */
static struct ordo_cq borrow_then_fit(enum ordo_fungibility when_can_borrow)
{
    return (struct ordo_cq){
        .name = "team-a",
        .cohort = "all",
        .when_can_borrow = when_can_borrow,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(3)}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(8)}},
    };
}

static void test_borrow_may_stop_search(void **state)
{
    struct ordo_cq cq = borrow_then_fit(ORDO_MAY_STOP_SEARCH);
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(2));
    /* 3 + 2 > 4: borrows from the cohort (level 1) and stops there. */
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);
}

static void test_borrow_try_next_flavor(void **state)
{
    struct ordo_cq cq = borrow_then_fit(ORDO_TRY_NEXT_FLAVOR);
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(2));
    /* spot fits without borrowing. */
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 0, NULL);

    /* Nothing better later: the borrowing flavor is taken after all. */
    cq.groups[0].flavors[1].quotas[0].usage = CPU(7);
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);
}

static void test_both_borrow_lower_level_preferred(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_borrow = ORDO_TRY_NEXT_FLAVOR,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(2), CPU(2)}}},
                        {&spot, {{"cpu", CPU(2), CPU(2)}}},
                        {&reserved, {{"cpu", CPU(2), CPU(2)}}}},
        }},
        .fr_quotas =
            {{&on_demand, "cpu", .cohort_nominal = CPU(8), .cohort_height = 2},
             {&spot, "cpu", .cohort_nominal = CPU(8), .cohort_height = 1},
             {&reserved, "cpu", .cohort_nominal = CPU(8), .cohort_height = 1}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    /* All borrow: spot borrows closest; reserved ties and comes later. */
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 1, NULL);

    /* Same levels everywhere: the first flavor wins. */
    cq.fr_quotas[0].cohort_height = 1;
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);
}

static void test_borrowing_limit(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(20),
                       .has_borrowing_limit = true, .borrowing_limit = CPU(2)}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(2));
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);

    /* 7 > potential min(24, 4 + 2). */
    wl.podsets[0].requests[0].milli = CPU(7);
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (7) > maximum capacity (6)");
}

static void test_exceeds_potential(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .within_cluster_queue = ORDO_PREEMPT_ANY,
        .borrow_within_cohort = ORDO_PREEMPT_ANY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(4)}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 3, CPU(3));
    /* 9 > 4 + 4, whatever preemption could do. */
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (9) > maximum capacity (8)");
}

/* ---- preemption ------------------------------------------------------- */

static void test_preempt_within_nominal(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(6)}}}},
        }},
    };
    struct ordo_workload wl = cpu_workload(&cq, 2, CPU(2));
    /* 4 <= 8 nominal but only 2 unused. */
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed");

    /* Without a preemption policy there is nothing to preempt (Kueue's
     * NoCandidates), yet it is a Preempt assignment: the host holds the
     * quota it waits for. */
    cq.within_cluster_queue = ORDO_PREEMPT_NEVER;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed");
}

static void test_no_candidates_tries_next_flavor(void **state)
{
    /* All policies Never: on-demand could only fit by preempting, which
     * finds no candidates, so the scan goes on to spot. */
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_preempt = ORDO_MAY_STOP_SEARCH,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(7)}}},
                        {&spot, {{"cpu", CPU(8), CPU(4)}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(4),
                       .cohort_usage = CPU(4)}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(3));
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 0, NULL);

    /* reclaimWithinCohort alone finds candidates in the cohort: on-demand
     * needs preemption and the scan may stop there. */
    cq.reclaim_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 1,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed");

    /* ... but not without a cohort: both flavors have no candidates, and
     * the first stays. */
    cq.cohort = NULL;
    cq.groups[0].flavors[1].quotas[0].usage = CPU(6);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed, insufficient "
           "unused quota for cpu in flavor spot, 1 more needed");
}

static void test_preempt_may_stop_search(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .when_can_preempt = ORDO_MAY_STOP_SEARCH,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 1 more needed");
}

/* A Preempt flavor whose victims may come from its own ClusterQueue gets
 * the borrowing level it would have with them gone: 0 when the request
 * fits nominal quota (Kueue's level after SimulatePreemption). */
static void test_preempt_level_without_victims(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_preempt = ORDO_MAY_STOP_SEARCH,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(8)}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(4),
                       .cohort_usage = CPU(4)}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(2));
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed");
    /* Victims only in other ClusterQueues leave its usage, and level. */
    cq.within_cluster_queue = ORDO_PREEMPT_NEVER;
    cq.reclaim_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 1,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 2 more needed");
}

/* A flavor where nothing could be preempted (Kueue's NoCandidates) is
 * passed over like NoFit, even with whenCanPreempt MayStopSearch. */
static void test_preempt_no_candidates(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .when_can_preempt = ORDO_MAY_STOP_SEARCH,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .no_preemption_candidates = true,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 0, NULL);

    /* Nothing to preempt anywhere: still PREEMPT (Kueue's NoCandidates is
     * a Preempt assignment), on the first flavor, so that the host can
     * hold the quota it waits for. */
    cq.groups[0].flavors[1].quotas[0].usage = CPU(8);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 1 more needed, insufficient "
           "unused quota for cpu in flavor spot, 1 more needed");
}

/* NoCandidates ranks below a flavor with candidates even when
 * whenCanPreempt would stop the scan and the preference puts the lower
 * borrowing level first. */
static void test_no_candidates_ranks_last(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_preempt = ORDO_TRY_NEXT_FLAVOR,
        .preference = ORDO_PREEMPTION_OVER_BORROWING,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .borrow_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}},
                        {&spot, {{"cpu", CPU(0), 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .candidates = MOCK_NO_CANDIDATES},
                      {&spot, "cpu", .cohort_nominal = CPU(4),
                       .cohort_usage = CPU(4)}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &spot, 1,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 1 more needed, insufficient "
           "unused quota for cpu in flavor spot, 1 more needed");
}

/* Kueue prefers reclaiming what others borrow (candidates only in other
 * ClusterQueues) to preempting its own lower-priority workloads. */
static void test_reclaim_over_preempt(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_preempt = ORDO_TRY_NEXT_FLAVOR,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .reclaim_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(8)}}},
                        {&spot, {{"cpu", CPU(8), CPU(2)}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .candidates = ORDO_CANDIDATES_OWN},
                      {&spot, "cpu", .cohort_usage = CPU(6),
                       .candidates = ORDO_CANDIDATES_COHORT}},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(6));
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &spot, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 6 more needed, insufficient "
           "unused quota for cpu in flavor spot, 6 more needed");
    /* Candidates in both kinds of queue count as Preempt: the first. */
    cq.fr_quotas[1].candidates = ORDO_CANDIDATES_OWN | ORDO_CANDIDATES_COHORT;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 6 more needed, insufficient "
           "unused quota for cpu in flavor spot, 6 more needed");
    /* MayStopSearch takes the first flavor that can preempt at all. */
    cq.fr_quotas[1].candidates = ORDO_CANDIDATES_COHORT;
    cq.when_can_preempt = ORDO_MAY_STOP_SEARCH;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 6 more needed");
}

static void test_preempt_try_next_flavor(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .when_can_preempt = ORDO_TRY_NEXT_FLAVOR,
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}},
                        {&spot, {{"cpu", CPU(8), CPU(8)}}},
                        {&reserved, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    /* A later flavor that fits wins over the preempting ones. */
    expect(state, &wl, false, ORDO_QUOTA_FIT, &reserved, 0, NULL);

    /* All need preemption: the first of them. */
    cq.groups[0].flavors[2].quotas[0].usage = CPU(8);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor on-demand, 1 more needed, insufficient "
           "unused quota for cpu in flavor reserved, 1 more needed, "
           "insufficient unused quota for cpu in flavor spot, 1 more needed");
}

/* on-demand fits by borrowing (level 1); spot needs preemption to reclaim
 * its nominal quota that the cohort borrowed (level 0). Both TryNextFlavor,
 * so the scan ends and the preference decides. */
static struct ordo_cq borrow_or_preempt(enum ordo_fungibility_preference pref)
{
    return (struct ordo_cq){
        .name = "team-a",
        .cohort = "all",
        .when_can_borrow = ORDO_TRY_NEXT_FLAVOR,
        .when_can_preempt = ORDO_TRY_NEXT_FLAVOR,
        .preference = pref,
        .reclaim_within_cohort = ORDO_PREEMPT_ANY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(2), CPU(2)}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(8)},
                      {&spot, "cpu", .cohort_usage = CPU(8)}},
    };
}

static void test_preference(void **state)
{
    struct ordo_cq cq = borrow_or_preempt(ORDO_BORROWING_OVER_PREEMPTION);
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(4));
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);

    cq = borrow_or_preempt(ORDO_PREFERENCE_NONE);
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 1, NULL);

    cq = borrow_or_preempt(ORDO_PREEMPTION_OVER_BORROWING);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &spot, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for cpu in flavor spot, 4 more needed");
}

/* Preemption is worth trying beyond nominal only when a subtree below the
 * root could hold the request, when borrowWithinCohort allows it, or with
 * fair sharing and reclaimWithinCohort. */
static void test_preempt_beyond_nominal(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .reclaim_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(2)}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(8),
                       .cohort_usage = CPU(7)}},
    };
    /* 6 > nominal 4; available 4 + 8 - 2 - 7 = 3. */
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(6));
    const char *why = "couldn't assign flavors to pod set main: insufficient "
                      "unused quota for cpu in flavor on-demand, 3 more needed";
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0, why);

    /* A cohort below the root holds 6. */
    cq.fr_quotas[0].below_root_quota = CPU(6);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 1, why);
    cq.fr_quotas[0].below_root_quota = 0;

    cq.borrow_within_cohort = ORDO_PREEMPT_LOWER_PRIORITY;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 1, why);
    cq.borrow_within_cohort = ORDO_PREEMPT_NEVER;

    /* Fair sharing with reclaimWithinCohort. */
    expect(state, &wl, true, ORDO_QUOTA_PREEMPT, &on_demand, 1, why);
    cq.reclaim_within_cohort = ORDO_PREEMPT_NEVER;
    expect(state, &wl, true, ORDO_QUOTA_NOFIT, NULL, 0, why);
}

/* ---- requests and groups ---------------------------------------------- */

static void test_pods_resource_counted(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu", "pods"},
            .flavors = {{&on_demand,
                         {{"cpu", CPU(100), 0}, {"pods", 4000, 2000}}}},
        }},
    };
    /* As the host reports it: "pods" is one more request of 1 per pod. */
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 2,
                     .requests = {{"cpu", CPU(1)}, {"pods", 1000}}}},
    };
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 0, NULL);

    /* 3 pods within the nominal 4, 2 in use: nothing to preempt, a
     * Preempt assignment all the same. */
    wl.podsets[0].count = 3;
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 0,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for pods in flavor on-demand, 1 more needed");
    wl.podsets[0].count = 5;
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "pods in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (5) > maximum capacity (4)");
}

static void test_uncovered_resource(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}, {"nvidia.com/gpu", 1000}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_NOFIT);
    assert_string_equal(cy.reason, "couldn't assign flavors to pod set main: "
                                   "resource nvidia.com/gpu unavailable in "
                                   "ClusterQueue team-a");
    assert_int_equal(cy.n_assign_calls, 0);
    mock_cycle_end(&cy);
}

static void test_zero_uncovered_ignored(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}, {"nvidia.com/gpu", 0}}}},
    };
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 0, NULL);

    /* Nothing requested at all: nothing to assign. */
    struct ordo_workload none = {.name = "ns/none", .cq = &cq};
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &none, false), ORDO_QUOTA_FIT);
    assert_int_equal(cy.n_assign_calls, 0);
    mock_cycle_end(&cy);
}

/* A zero request of a covered resource still gets a flavor of its group
 * (Kueue: "zero resource request defined in clusterQueue should get flavor
 * assigned"), so the group's flavors must suit the pod set. */
static void test_zero_request_gets_flavor(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{.resources = {"cpu"},
                    .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}}}},
                   {.resources = {"nvidia.com/gpu"},
                    .flavors = {{&h100, {{"nvidia.com/gpu", 8000, 0}}},
                                {&a100, {{"nvidia.com/gpu", 8000, 8000}}}}}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"nvidia.com/gpu", 0}, {"cpu", CPU(1)}}}},
    };
    /* h100's taint is not tolerated; a100 (all used) fits a zero. */
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_ptr_equal(cy.assigned[0][1], &a100);
    assert_int_equal(cy.n_assign_calls, 2);
    mock_cycle_end(&cy);

    /* With no flavor of the group suiting it, the workload does not fit. */
    cq.groups[1].flavors[1] = (struct mock_flavor_quotas){0};
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: untolerated taint "
           "gpu:NoSchedule in flavor h100");
}

static void test_podsets_accumulate(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(6), 0}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets =
            {{.name = "driver", .count = 1, .requests = {{"cpu", CPU(4)}}},
             {.name = "workers", .count = 3, .requests = {{"cpu", CPU(1)}}},
             {.name = "tiny", .count = 1, .requests = {{"cpu", CPU(2)}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand); /* 4 <= 6 */
    assert_ptr_equal(cy.assigned[1][0], &spot);      /* 4 + 3 > 6 */
    assert_ptr_equal(cy.assigned[2][0], &on_demand); /* 4 + 2 = 6 */
    mock_cycle_end(&cy);

    /* Only on-demand: the workers see the driver's part. */
    cq.groups[0].flavors[1].flavor = NULL;
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set workers: insufficient quota "
           "for cpu in flavor on-demand, previously considered podsets "
           "requests (4) + current podset request (3) > maximum capacity (6)");
}

static void test_multi_group(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .groups = {{.resources = {"cpu", "memory"},
                    .flavors = {{&on_demand,
                                 {{"cpu", CPU(8), 0},
                                  {"memory", 64 * GI, 0}}}}},
                   {.resources = {"nvidia.com/gpu"},
                    .flavors = {{&h100, {{"nvidia.com/gpu", 8000, 0}}},
                                {&a100, {{"nvidia.com/gpu", 2000, 1000}}}}}},
        .fr_quotas = {{&a100, "nvidia.com/gpu", .cohort_nominal = 8000,
                       .cohort_height = 2}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"nvidia.com/gpu", 2000},
                                  {"cpu", CPU(4)},
                                  {"memory", 8 * GI}}},
                    {.name = "cpu-only",
                     .count = 2,
                     .requests = {{"cpu", CPU(1)}}}},
    };
    /* h100 is tainted and not tolerated: a100, borrowing at level 2. */
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_ptr_equal(cy.assigned[0][1], &a100);
    assert_ptr_equal(cy.assigned[1][0], &on_demand);
    assert_null(cy.assigned[1][1]); /* requests nothing of that group */
    assert_int_equal(cy.n_assign_calls, 3);
    assert_int_equal(cy.borrowing, 2);
    mock_cycle_end(&cy);

    /* A group that does not fit makes the pod set not fit. */
    wl.podsets[0].requests[0].milli = 12000;
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "nvidia.com/gpu in flavor a100, previously considered podsets "
           "requests (0) + current podset request (12) > maximum capacity "
           "(10), untolerated taint gpu:NoSchedule in flavor h100");
}

static void test_flavor_not_matching_skipped(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}},
                        {&spot, {{"cpu", CPU(8), CPU(7)}}}},
        }},
    };
    /* Selects spot: on-demand, though free, is skipped. */
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}},
                     .selector = {{"instance-type", "spot"}}}},
    };
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 0, NULL);

    /* The reason names the flavor that was considered. */
    wl.podsets[0].requests[0].milli = CPU(2);
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &spot, 0,
           "couldn't assign flavors to pod set main: flavor on-demand doesn't "
           "match node affinity, insufficient unused quota for cpu in flavor "
           "spot, 1 more needed");

    /* Nothing matches. */
    wl.podsets[0].selector[0].value = "reserved";
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: flavor on-demand doesn't "
           "match node affinity, flavor spot doesn't match node affinity");
}

/* ---- modes and reasons ------------------------------------------------ */

static void test_workload_mode_and_reason_prefix(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .within_cluster_queue = ORDO_PREEMPT_LOWER_PRIORITY,
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), CPU(4)}}}},
        }},
    };
    /* The driver fits, the workers need preemption: PREEMPT, named. */
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets =
            {{.name = "driver", .count = 1, .requests = {{"cpu", CPU(2)}}},
             {.name = "workers", .count = 2, .requests = {{"cpu", CPU(2)}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(run(state, &cy, &wl, false), ORDO_QUOTA_PREEMPT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_ptr_equal(cy.assigned[1][0], &on_demand);
    assert_string_equal(cy.reason, "couldn't assign flavors to pod set "
                                   "workers: insufficient unused quota for "
                                   "cpu in flavor on-demand, 2 more needed");
    mock_cycle_end(&cy);

    /* The first pod set that fails gives the NOFIT reason. */
    wl.podsets[0].requests[0].milli = CPU(9);
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set driver: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (9) > maximum capacity (8)");

    /* One pod set: the same wording. */
    wl.podsets[1].name = NULL;
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set driver: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (9) > maximum capacity (8)");
}

/* When no flavor fits, the reason lists every flavor tried, sorted, as
 * Kueue's Status message. Requests above nominal quota, no
 * borrowWithinCohort: preemption is not worth trying, so each flavor is
 * NoFit. */
static void test_all_flavors_reported(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand, {{"cpu", CPU(2), 0}, {"memory", MI, 0}}},
                        {&spot, {{"cpu", CPU(2), 0}, {"memory", MI, 0}}},
                        {&reserved, {{"cpu", CPU(2), 0}, {"memory", MI, 0}}}},
        }},
        /* on-demand exceeds its maximum capacity: the farthest. */
        .fr_quotas = {{&on_demand, "cpu", 0, 0},
                      {&spot, "cpu", CPU(10), CPU(10)},
                      {&reserved, "cpu", CPU(10), CPU(9)},
                      {&on_demand, "memory", 4 * GI, 0},
                      {&spot, "memory", 4 * GI, 0},
                      {&reserved, "memory", 4 * GI, 0}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(4)}, {"memory", 512 * MI}}}},
    };
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (4) > maximum capacity (2), "
           "insufficient unused quota for cpu in flavor reserved, 1 more "
           "needed, insufficient unused quota for cpu in flavor spot, 2 more "
           "needed");

    /* Memory short in spot and reserved, in binary units; cpu, fitting
     * there, adds nothing. */
    cq.fr_quotas[1].cohort_usage = 0;
    cq.fr_quotas[2].cohort_usage = 0;
    cq.fr_quotas[4].cohort_usage = 4 * GI + MI;
    cq.fr_quotas[5].cohort_usage = 4 * GI - 256 * MI + MI;
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (4) > maximum capacity (2), "
           "insufficient unused quota for memory in flavor reserved, 256Mi "
           "more needed, insufficient unused quota for memory in flavor spot, "
           "512Mi more needed");
}

/* The flavor's representative mode is Kueue's: the least preferred of its
 * resources' modes under the preference. With PreemptionOverBorrowing a
 * flavor whose cpu borrows (Fit, level 1) and whose memory needs preemption
 * (Preempt, level 0) is represented by (Fit, 1): whenCanPreempt
 * TryNextFlavor does not move past it, though the pod set needs
 * preemption. */
static void test_representative_mode_follows_preference(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .when_can_borrow = ORDO_MAY_STOP_SEARCH,
        .when_can_preempt = ORDO_TRY_NEXT_FLAVOR,
        .preference = ORDO_PREEMPTION_OVER_BORROWING,
        .reclaim_within_cohort = ORDO_PREEMPT_ANY,
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand,
                         {{"cpu", CPU(2), CPU(2)}, {"memory", 8 * GI, 0}}},
                        {&spot, {{"cpu", CPU(8), 0}, {"memory", 8 * GI, 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = CPU(8)},
                      {&on_demand, "memory", .cohort_usage = 8 * GI}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}, {"memory", GI}}}},
    };
    expect(state, &wl, false, ORDO_QUOTA_PREEMPT, &on_demand, 1,
           "couldn't assign flavors to pod set main: insufficient unused "
           "quota for memory in flavor on-demand, 1Gi more needed");

    /* BorrowingOverPreemption represents it by (Preempt, 0): next flavor. */
    cq.preference = ORDO_BORROWING_OVER_PREEMPTION;
    expect(state, &wl, false, ORDO_QUOTA_FIT, &spot, 0, NULL);
}

/* count x request saturates at INT64_MAX: too large to count, it never
 * fits, not even a quota that saturates too (a cohort of INT64_MAX). */
static void test_huge_requests_saturate(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .cohort = "all",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", INT64_MAX, 0}}}},
        }},
        .fr_quotas = {{&on_demand, "cpu", .cohort_nominal = INT64_MAX}},
    };
    struct ordo_workload wl = cpu_workload(&cq, UINT32_MAX, INT64_MAX / 2);
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, the request is too large to count (more "
           "than 9223372036854775807m)");

    /* Just countable (2 x (INT64_MAX / 2)), and past a maximum capacity one
     * less. */
    cq.cohort = NULL;
    cq.groups[0].flavors[0].quotas[0].nominal = INT64_MAX - 2;
    wl = cpu_workload(&cq, 2, INT64_MAX / 2);
    expect(state, &wl, false, ORDO_QUOTA_NOFIT, NULL, 0,
           "couldn't assign flavors to pod set main: insufficient quota for "
           "cpu in flavor on-demand, previously considered podsets requests "
           "(0) + current podset request (9223372036854775806m) > maximum "
           "capacity (9223372036854775805m)");
    cq.groups[0].flavors[0].quotas[0].nominal = INT64_MAX - 1;
    expect(state, &wl, false, ORDO_QUOTA_FIT, &on_demand, 0, NULL);
}

static void test_cycle_memory_failure(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = cpu_workload(&cq, 1, CPU(1));
    struct ordo_cycle cy;
    enum ordo_quota_mode mode = ORDO_QUOTA_FIT;
    mock_cycle_init(&cy, &wl, NULL);
    cy.fail_cycle_alloc = true;
    assert_int_equal(ordo_plugin.quota->assign(*state, &cy, &wl, &mode),
                     ORDO_ERROR);
    assert_int_equal(mode, ORDO_QUOTA_NOFIT);
    assert_int_equal(cy.n_reasons, 1);
    assert_string_equal(cy.reason, "out of cycle memory");
    assert_int_equal(cy.n_assign_calls, 0);
    assert_int_equal(cy.borrowing, 0);
    mock_cycle_end(&cy);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_init_fini),
        cmocka_unit_test(test_mock_quota_model),
        T(test_fit_within_nominal),
        T(test_borrow_may_stop_search),
        T(test_borrow_try_next_flavor),
        T(test_both_borrow_lower_level_preferred),
        T(test_borrowing_limit),
        T(test_exceeds_potential),
        T(test_preempt_within_nominal),
        T(test_no_candidates_tries_next_flavor),
        T(test_preempt_may_stop_search),
        T(test_preempt_no_candidates),
        T(test_no_candidates_ranks_last),
        T(test_reclaim_over_preempt),
        T(test_preempt_level_without_victims),
        T(test_preempt_try_next_flavor),
        T(test_preference),
        T(test_preempt_beyond_nominal),
        T(test_pods_resource_counted),
        T(test_uncovered_resource),
        T(test_zero_uncovered_ignored),
        T(test_zero_request_gets_flavor),
        T(test_podsets_accumulate),
        T(test_multi_group),
        T(test_flavor_not_matching_skipped),
        T(test_workload_mode_and_reason_prefix),
        T(test_all_flavors_reported),
        T(test_representative_mode_follows_preference),
        T(test_huge_requests_saturate),
        T(test_cycle_memory_failure),
    };
#undef T
    return cmocka_run_group_tests_name("kueue-quota", tests, NULL, NULL);
}
