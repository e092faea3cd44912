/* test_nominal_quota.c - unit tests for plugins/quota/nominal_quota.c:
 * flavor assignment within a ClusterQueue's nominal quota (Kueue reference
 * sections 3.6-3.7, without borrowing or preemption), driven through the
 * plugin's descriptor against the mock host. */
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
    .taints = {"spot"},
};
static const struct ordo_flavor a100 = {
    .name = "a100",
    .labels = {{"gpu", "a100"}},
};

static struct ordo_plugin plugin;

static int setup(void **state)
{
    mock_reset();
    memset(&plugin, 0, sizeof(plugin));
    plugin.name = "nominal-quota";
    return ordo_plugin.init(mock_host(), &plugin, state);
}

static int teardown(void **state)
{
    ordo_plugin.fini(*state);
    return mock_live_allocs() == 0 ? 0 : -1;
}

/* Runs assign for wl in a fresh cycle; the op must decide (ORDO_OK). */
static enum ordo_quota_mode assign(void **state, struct ordo_cycle *cy,
                                   const struct ordo_workload *wl)
{
    enum ordo_quota_mode mode = (enum ordo_quota_mode)99;
    mock_cycle_init(cy, wl, NULL);
    assert_int_equal(ordo_plugin.quota->assign(*state, cy, wl, &mode), ORDO_OK);
    assert_int_equal(cy->n_borrowing_calls, 1);
    assert_int_equal(cy->borrowing, 0);
    return mode;
}

/* Asserts a NOFIT whose one reason is want. */
static void assert_nofit(void **state, const struct ordo_workload *wl,
                         const char *want)
{
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, wl), ORDO_QUOTA_NOFIT);
    assert_int_equal(cy.n_reasons, 1);
    assert_string_equal(cy.reason, want);
    mock_cycle_end(&cy);
}

/* A ClusterQueue "team-a" with one group {cpu, memory} of one flavor. */
static struct ordo_cq one_flavor(int64_t cpu_nominal, int64_t cpu_usage)
{
    return (struct ordo_cq){
        .name = "team-a",
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand,
                         {{"cpu", cpu_nominal, cpu_usage},
                          {"memory", 64 * GI, 0}}}},
        }},
    };
}

/* ---- tests --------------------------------------------------------------- */

static void test_descriptor(void **state)
{
    (void)state;
    assert_int_equal(ordo_plugin.abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(ordo_plugin.abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(ordo_plugin.struct_size,
                     sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(ordo_plugin.kind, ORDO_PLUGIN_QUOTA);
    assert_string_equal(ordo_plugin.name, "nominal-quota");
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
    struct ordo_plugin p = {.name = "nominal-quota"};
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

static void test_fits(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), CPU(2));
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 2,
                     .requests = {{"cpu", CPU(1)}, {"memory", 4 * GI}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_int_equal(cy.n_assign_calls, 1);
    assert_int_equal(cy.n_reasons, 0);
    mock_cycle_end(&cy);
}

static void test_exact_fit(void **state)
{
    /* 6 used + 2 pods x 1 cpu = 8 = nominal; memory 2 x 32Gi = 64Gi. */
    struct ordo_cq cq = one_flavor(CPU(8), CPU(6));
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 2,
                     .requests = {{"cpu", CPU(1)}, {"memory", 32 * GI}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    mock_cycle_end(&cy);

    /* One milli-cpu more does not. */
    wl.podsets[0].requests[0].milli = CPU(1) + 1;
    assert_nofit(state, &wl,
                 "insufficient unused quota for cpu in flavor on-demand, 2m "
                 "more needed");
}

static void test_one_resource_short(void **state)
{
    /* 6 used + 2 x 3 = 12 > 8: 4 more needed; memory fits. */
    struct ordo_cq cq = one_flavor(CPU(8), CPU(6));
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 2,
                     .requests = {{"memory", GI}, {"cpu", CPU(3)}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_NOFIT);
    assert_string_equal(
        cy.reason,
        "insufficient unused quota for cpu in flavor on-demand, 4 more needed");
    assert_int_equal(cy.n_reasons, 1);
    assert_int_equal(cy.n_assign_calls, 0);
    assert_null(cy.assigned[0][0]);
    mock_cycle_end(&cy);
}

static void test_shortfall_formatting(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), CPU(6) + 500);
    /* cpu: 6.5 + 3 = 9.5 > 8. */
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(3)}}}},
    };
    assert_nofit(state, &wl,
                 "insufficient unused quota for cpu in flavor on-demand, "
                 "1500m more needed");

    /* memory: 63.5Gi used + 2 x 1Gi = 65.5Gi > 64Gi: 1536Mi more. */
    cq.groups[0].flavors[0].quotas[1].usage = 63 * GI + 512 * MI;
    wl.podsets[0] = (struct mock_podset){
        .name = "main", .count = 2, .requests = {{"memory", GI}}};
    assert_nofit(state, &wl,
                 "insufficient unused quota for memory in flavor on-demand, "
                 "1536Mi more needed");

    /* Bytes that are not a whole Ki print plainly. */
    cq.groups[0].flavors[0].quotas[1].usage = 64 * GI - 100 * 1000;
    wl.podsets[0] = (struct mock_podset){
        .name = "main", .count = 1, .requests = {{"memory", KI}}};
    assert_nofit(state, &wl,
                 "insufficient unused quota for memory in flavor on-demand, "
                 "924 more needed");
}

static void test_request_above_nominal(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), 0);
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 3,
                     .requests = {{"cpu", CPU(4)}}}},
    };
    assert_nofit(state, &wl,
                 "insufficient quota for cpu in flavor on-demand, previously "
                 "considered podsets requests (0) + current podset request "
                 "(12) > maximum capacity (8)");
}

static void test_second_flavor_when_first_full(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(4)}}},
                        {&spot, {{"cpu", CPU(8), CPU(1)}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(2)}},
                     .tolerations = {"spot"}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &spot);
    assert_int_equal(cy.n_assign_calls, 1);
    mock_cycle_end(&cy);

    /* Not tolerating spot's taint: on-demand is the only candidate. */
    wl.podsets[0].tolerations[0] = NULL;
    assert_nofit(state, &wl,
                 "insufficient unused quota for cpu in flavor on-demand, 2 "
                 "more needed");
}

/* When no flavor fits, the reason names the one that came closest. */
static void test_closest_flavor_reported(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand,
                         {{"cpu", CPU(4), CPU(4)}, {"memory", GI, GI}}},
                        {&spot, {{"cpu", CPU(4), CPU(3)}, {"memory", GI, 0}}},
                        {&a100, {{"cpu", CPU(4), CPU(2)}, {"memory", GI, 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(3)}, {"memory", 512 * MI}},
                     .tolerations = {"spot"}}},
    };
    /* on-demand is short on both, spot 2 cpu, a100 1 cpu. */
    assert_nofit(state, &wl,
                 "insufficient unused quota for cpu in flavor a100, 1 more "
                 "needed");
}

static void test_flavor_label_mismatch(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
    };
    /* Selects spot: on-demand, though free, does not match. */
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}},
                     .selector = {{"instance-type", "spot"}},
                     .tolerations = {"spot"}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &spot);
    mock_cycle_end(&cy);

    /* Without the toleration nothing matches. */
    wl.podsets[0].tolerations[0] = NULL;
    assert_nofit(state, &wl,
                 "no flavor matches the node selector / tolerations of pod "
                 "set main");

    /* A label the flavors do not declare is left to placement. */
    wl.podsets[0].selector[0] = (struct mock_label){"zone", "a"};
    assign(state, &cy, &wl);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    mock_cycle_end(&cy);
}

static void test_uncovered_resource(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), 0);
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}, {"nvidia.com/gpu", 1000}}}},
    };
    assert_nofit(state, &wl,
                 "resource nvidia.com/gpu is not covered by ClusterQueue "
                 "team-a");

    /* A zero request of an uncovered resource is ignored. */
    wl.podsets[0].requests[1].milli = 0;
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    mock_cycle_end(&cy);
}

/* The second pod set does not fit after the first took quota: the whole
 * workload does not fit. */
static void test_podsets_all_or_nothing(void **state)
{
    /* 2 used + 3 (driver) + 2 x 1 (workers) = 7 > 6. */
    struct ordo_cq cq = one_flavor(CPU(6), CPU(2));
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets =
            {{.name = "driver", .count = 1, .requests = {{"cpu", CPU(3)}}},
             {.name = "workers", .count = 2, .requests = {{"cpu", CPU(1)}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_NOFIT);
    assert_int_equal(cy.n_reasons, 1);
    assert_string_equal(cy.reason,
                        "pod set workers: insufficient unused quota for cpu "
                        "in flavor on-demand, 1 more needed");
    mock_cycle_end(&cy);

    /* The workers alone fit. */
    wl.podsets[0].count = 0;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    mock_cycle_end(&cy);

    /* Together over the nominal quota even with nothing else running: the
     * maximum-capacity reason counts the earlier pod set's part. */
    wl.podsets[0].count = 1;
    cq.groups[0].flavors[0].quotas[0] = (struct mock_quota){"cpu", CPU(4), 0};
    assert_nofit(state, &wl,
                 "pod set workers: insufficient quota for cpu in flavor "
                 "on-demand, previously considered podsets requests (3) + "
                 "current podset request (2) > maximum capacity (4)");
}

/* The first pod set takes on-demand; what it took pushes the second one
 * to spot. */
static void test_podsets_share_usage(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu"},
            .flavors = {{&on_demand, {{"cpu", CPU(4), CPU(1)}}},
                        {&spot, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "driver",
                     .count = 1,
                     .requests = {{"cpu", CPU(2)}},
                     .tolerations = {"spot"}},
                    {.name = "workers",
                     .count = 2,
                     .requests = {{"cpu", CPU(1)}},
                     .tolerations = {"spot"}},
                    {.name = "tiny",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}},
                     .tolerations = {"spot"}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand); /* 1 + 2 = 3 <= 4 */
    assert_ptr_equal(cy.assigned[1][0], &spot);      /* 3 + 2 > 4 */
    assert_ptr_equal(cy.assigned[2][0], &on_demand); /* 3 + 1 = 4 */
    assert_int_equal(cy.n_reasons, 0);
    mock_cycle_end(&cy);
}

static void test_resource_groups(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{.resources = {"cpu", "memory"},
                    .flavors = {{&on_demand,
                                 {{"cpu", CPU(8), 0}, {"memory", GI, 0}}}}},
                   {.resources = {"nvidia.com/gpu"},
                    .flavors = {{&a100, {{"nvidia.com/gpu", 4000, 1000}}}}}},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"nvidia.com/gpu", 3000}, {"cpu", CPU(1)}}},
                    {.name = "cpu-only",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_ptr_equal(cy.assigned[0][1], &a100);
    assert_ptr_equal(cy.assigned[1][0], &on_demand);
    assert_null(cy.assigned[1][1]); /* requests nothing of that group */
    assert_int_equal(cy.n_assign_calls, 3);
    mock_cycle_end(&cy);

    /* One GPU more than the gpu group holds. */
    wl.podsets[0].requests[0].milli = 4000;
    assert_nofit(state, &wl,
                 "pod set main: insufficient unused quota for nvidia.com/gpu "
                 "in flavor a100, 1 more needed");
}

static void test_flavor_without_quota_for_resource(void **state)
{
    struct ordo_cq cq = {
        .name = "team-a",
        .groups = {{
            .resources = {"cpu", "memory"},
            .flavors = {{&on_demand, {{"cpu", CPU(8), 0}}}},
        }},
    };
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}, {"memory", GI}}}},
    };
    assert_nofit(state, &wl,
                 "flavor on-demand has no quota for memory in ClusterQueue "
                 "team-a");
}

static void test_nothing_requested(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), CPU(8));
    struct ordo_workload none = {.name = "ns/none", .cq = &cq};
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &none), ORDO_QUOTA_FIT);
    assert_int_equal(cy.n_assign_calls, 0);
    mock_cycle_end(&cy);

    /* A zero request takes its group's flavor (as in Kueue) but no quota,
     * so it fits a full flavor. */
    struct ordo_workload zero = {
        .name = "ns/zero",
        .cq = &cq,
        .podsets = {{.name = "main", .count = 4, .requests = {{"cpu", 0}}}},
    };
    assert_int_equal(assign(state, &cy, &zero), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    assert_int_equal(cy.n_assign_calls, 1);
    mock_cycle_end(&cy);

    /* So does a pod set of zero pods. */
    zero.podsets[0] = (struct mock_podset){
        .name = "main", .count = 0, .requests = {{"cpu", CPU(100)}}};
    assert_int_equal(assign(state, &cy, &zero), ORDO_QUOTA_FIT);
    assert_ptr_equal(cy.assigned[0][0], &on_demand);
    mock_cycle_end(&cy);
}

static void test_huge_requests_saturate(void **state)
{
    struct ordo_cq cq = one_flavor(INT64_MAX, 0);
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = UINT32_MAX,
                     .requests = {{"cpu", INT64_MAX / 2}}}},
    };
    struct ordo_cycle cy;
    assert_int_equal(assign(state, &cy, &wl), ORDO_QUOTA_FIT);
    mock_cycle_end(&cy);

    cq.groups[0].flavors[0].quotas[0].nominal = INT64_MAX - 1;
    assert_nofit(state, &wl,
                 "insufficient quota for cpu in flavor on-demand, previously "
                 "considered podsets requests (0) + current podset request "
                 "(9223372036854775807m) > maximum capacity "
                 "(9223372036854775806m)");
}

static void test_cycle_memory_failure(void **state)
{
    struct ordo_cq cq = one_flavor(CPU(8), 0);
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 1,
                     .requests = {{"cpu", CPU(1)}}}},
    };
    struct ordo_cycle cy;
    enum ordo_quota_mode mode = ORDO_QUOTA_FIT;
    mock_cycle_init(&cy, &wl, NULL);
    cy.fail_cycle_alloc = true;
    assert_int_equal(ordo_plugin.quota->assign(*state, &cy, &wl, &mode),
                     ORDO_ERROR);
    assert_int_equal(mode, ORDO_QUOTA_NOFIT);
    assert_int_equal(cy.n_reasons, 1);
    assert_true(strlen(cy.reason) > 0);
    assert_int_equal(cy.n_assign_calls, 0);
    mock_cycle_end(&cy);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_init_fini),
        T(test_fits),
        T(test_exact_fit),
        T(test_one_resource_short),
        T(test_shortfall_formatting),
        T(test_request_above_nominal),
        T(test_second_flavor_when_first_full),
        T(test_closest_flavor_reported),
        T(test_flavor_label_mismatch),
        T(test_uncovered_resource),
        T(test_podsets_all_or_nothing),
        T(test_podsets_share_usage),
        T(test_resource_groups),
        T(test_flavor_without_quota_for_resource),
        T(test_nothing_requested),
        T(test_huge_requests_saturate),
        T(test_cycle_memory_failure),
    };
#undef T
    return cmocka_run_group_tests_name("nominal-quota", tests, NULL, NULL);
}
