/* test_resource_fit.c - unit tests for plugins/place/resource_fit.c: the
 * node filter (schedulable, selector, taints, assigned flavor's labels, free
 * room) with its verdicts and reasons, the LeastAllocated / MostAllocated
 * scores, and the scoringStrategy argument, against the mock host. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mock_host.h"

#define CPU(n) ((int64_t)(n)*1000)
#define GI     ((int64_t)1024 * 1024 * 1024 * 1000)

static const struct ordo_flavor on_demand = {
    .name = "on-demand",
    .labels = {{"instance-type", "on-demand"}},
};
static const struct ordo_flavor spot = {
    .name = "spot",
    .labels = {{"instance-type", "spot"}, {"zone", "b"}},
    .taints = {"spot"},
};

static const struct ordo_cq cq = {
    .name = "team-a",
    .groups = {{
                   .resources = {"cpu", "memory"},
                   .flavors =
                       {{&on_demand, {{"cpu", CPU(100), 0}, {"memory", GI, 0}}},
                        {&spot, {{"cpu", CPU(100), 0}, {"memory", GI, 0}}}},
               },
               {
                   .resources = {"example.com/fpga"},
                   .flavors = {{&on_demand, {{"example.com/fpga", 8000, 0}}}},
               }},
};

/* Half used, on-demand. */
static const struct ordo_node n1 = {
    .name = "n1",
    .labels = {{"instance-type", "on-demand"}, {"zone", "a"}},
    .allocatable = {{"cpu", CPU(4)}, {"memory", 8 * GI}},
    .free = {{"cpu", CPU(1) + 500}, {"memory", 4 * GI}},
};
/* Empty, spot, tainted. */
static const struct ordo_node n2 = {
    .name = "n2",
    .labels = {{"instance-type", "spot"}, {"zone", "b"}},
    .taints = {"spot"},
    .allocatable = {{"cpu", CPU(4)}, {"memory", 8 * GI}},
};
/* Cordoned. */
static const struct ordo_node n3 = {
    .name = "n3",
    .unschedulable = true,
    .labels = {{"instance-type", "on-demand"}},
    .allocatable = {{"cpu", CPU(4)}, {"memory", 8 * GI}},
};

static struct ordo_plugin plugin;

/* Initialises the plugin with plugin.args as the test left them. */
static int start(void **state)
{
    plugin.name = "resource-fit";
    return ordo_plugin.init(mock_host(), &plugin, state);
}

static int setup(void **state)
{
    mock_reset();
    memset(&plugin, 0, sizeof(plugin));
    return start(state);
}

static int setup_most(void **state)
{
    mock_reset();
    memset(&plugin, 0, sizeof(plugin));
    plugin.args[0] =
        (struct mock_arg){.key = "scoringStrategy", .str = "MostAllocated"};
    return start(state);
}

static int teardown(void **state)
{
    ordo_plugin.fini(*state);
    return mock_live_allocs() == 0 ? 0 : -1;
}

/* A one-pod-set workload of team-a requesting cpu and memory. */
static struct ordo_workload workload(int64_t cpu, int64_t memory)
{
    return (struct ordo_workload){
        .name = "ns/a",
        .cq = &cq,
        .podsets = {{.name = "main",
                     .count = 3,
                     .requests = {{"cpu", cpu}, {"memory", memory}}}},
    };
}

/* Runs filter for pod set 0 of wl on node in cycle cy (already started);
 * returns the verdict, checking that a reason comes with every non-OK one. */
static enum ordo_verdict filter(void **state, struct ordo_cycle *cy,
                                const struct ordo_workload *wl,
                                const struct ordo_node *node)
{
    mock_clear_reason(cy);
    enum ordo_verdict v = ordo_plugin.place->filter(*state, cy, wl, 0, node);
    assert_int_equal(cy->n_reasons, v == ORDO_OK ? 0 : 1);
    return v;
}

static int64_t score(void **state, const struct ordo_workload *wl,
                     const struct ordo_node *node)
{
    struct ordo_cycle cy;
    int64_t s = -1;
    mock_cycle_init(&cy, wl, NULL);
    assert_int_equal(ordo_plugin.place->score(*state, &cy, wl, 0, node, &s),
                     ORDO_OK);
    mock_cycle_end(&cy);
    assert_in_range(s, 0, 100);
    return s;
}

/* ---- tests --------------------------------------------------------------- */

static void test_descriptor(void **state)
{
    (void)state;
    assert_int_equal(ordo_plugin.abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(ordo_plugin.abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(ordo_plugin.struct_size,
                     sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(ordo_plugin.kind, ORDO_PLUGIN_PLACE);
    assert_string_equal(ordo_plugin.name, "resource-fit");
    assert_string_equal(ordo_plugin.version, "1.0.0");
    assert_non_null(ordo_plugin.summary);
    assert_null(strchr(ordo_plugin.summary, '\n'));
    assert_non_null(ordo_plugin.place);
    assert_non_null(ordo_plugin.place->filter);
    assert_non_null(ordo_plugin.place->score);
    assert_null(ordo_plugin.queue);
    assert_null(ordo_plugin.quota);
    assert_null(ordo_plugin.preempt);
}

static void test_init_scoring_strategy(void **state)
{
    (void)state;
    static const char *const good[] = {NULL, "LeastAllocated", "MostAllocated"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        mock_reset();
        struct ordo_plugin p = {.name = "resource-fit"};
        if (good[i])
            p.args[0] = (struct mock_arg){.key = "scoringStrategy", .str = good[i]};
        void *self = NULL;
        assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), 0);
        assert_non_null(self);
        assert_int_equal(p.n_logs, 0);
        ordo_plugin.fini(self);
        assert_int_equal(mock_live_allocs(), 0);
    }
    ordo_plugin.fini(NULL);
}

static void test_init_bad_scoring_strategy(void **state)
{
    (void)state;
    mock_reset();
    struct ordo_plugin p = {
        .name = "resource-fit",
        .args = {{.key = "scoringStrategy", .str = "Balanced"}},
    };
    void *self = NULL;
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -EINVAL);
    assert_int_equal(p.n_logs, 1);
    assert_int_equal(p.last_level, ORDO_LOG_ERROR);
    assert_non_null(strstr(p.last_log, "\"Balanced\""));
    assert_int_equal(mock_live_allocs(), 0);

    /* Case matters, as in kube-scheduler's config. */
    p.args[0].str = "leastallocated";
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -EINVAL);

    /* Not a string. */
    p.args[0] = (struct mock_arg){.key = "scoringStrategy", .num = 1, .is_int = true};
    p.n_logs = 0;
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -EINVAL);
    assert_int_equal(p.n_logs, 1);
    assert_int_equal(p.last_level, ORDO_LOG_ERROR);
    assert_int_equal(mock_live_allocs(), 0);

    /* Out of memory. */
    p.args[0] = (struct mock_arg){0};
    mock_fail_alloc(true);
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -ENOMEM);
    mock_fail_alloc(false);
    assert_int_equal(mock_live_allocs(), 0);
}

static void test_fits(void **state)
{
    struct ordo_workload wl = workload(CPU(1), GI);
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_OK);
    assert_string_equal(cy.reason, "");
    mock_cycle_end(&cy);
}

static void test_exact_fit(void **state)
{
    /* Exactly the free cpu and memory of n1. */
    struct ordo_workload wl = workload(CPU(1) + 500, 4 * GI);
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_OK);
    wl.podsets[0].requests[0].milli++;
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNSCHEDULABLE);
    assert_string_equal(cy.reason,
                        "node n1: insufficient cpu (needs 1501m, free 1500m)");
    mock_cycle_end(&cy);
}

static void test_insufficient(void **state)
{
    struct ordo_workload wl = workload(CPU(2), GI);
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNSCHEDULABLE);
    assert_string_equal(cy.reason,
                        "node n1: insufficient cpu (needs 2, free 1500m)");

    wl = workload(CPU(1), 5 * GI);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNSCHEDULABLE);
    assert_string_equal(cy.reason,
                        "node n1: insufficient memory (needs 5Gi, free 4Gi)");

    /* More than the node has at all: preemption cannot help. */
    wl = workload(CPU(5), GI);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason,
                        "node n1: insufficient cpu (needs 5, free 1500m)");

    /* A resource the node does not have. */
    wl.podsets[0].requests[0] = (struct mock_qty){"example.com/fpga", 1000};
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNRESOLVABLE);
    assert_string_equal(
        cy.reason, "node n1: insufficient example.com/fpga (needs 1, free 0)");

    /* A zero request is no constraint. */
    wl.podsets[0].requests[0].milli = 0;
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_OK);

    /* A saturated (uncountable) request fits nowhere, not even a node
     * whose allocatable saturates too. */
    static const struct ordo_node huge = {
        .name = "huge",
        .labels = {{"instance-type", "on-demand"}},
        .allocatable = {{"cpu", INT64_MAX}, {"memory", INT64_MAX}},
    };
    wl = workload(INT64_MAX, GI);
    assert_int_equal(filter(state, &cy, &wl, &huge), ORDO_UNRESOLVABLE);
    wl = workload(INT64_MAX - 1, GI);
    assert_int_equal(filter(state, &cy, &wl, &huge), ORDO_OK);
    mock_cycle_end(&cy);
}

static void test_node_constraints(void **state)
{
    struct ordo_workload wl = workload(CPU(1), GI);
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);

    assert_int_equal(filter(state, &cy, &wl, &n3), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason, "node n3 is unschedulable");

    assert_int_equal(filter(state, &cy, &wl, &n2), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason,
                        "node n2 has a taint that pod set main does not "
                        "tolerate");
    wl.podsets[0].tolerations[0] = "spot";
    assert_int_equal(filter(state, &cy, &wl, &n2), ORDO_OK);

    wl.podsets[0].selector[0] = (struct mock_label){"zone", "b"};
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason,
                        "node n1 does not match the node selector / affinity "
                        "of pod set main");
    assert_int_equal(filter(state, &cy, &wl, &n2), ORDO_OK);
    mock_cycle_end(&cy);
}

static void test_flavor_labels(void **state)
{
    struct ordo_workload wl = workload(CPU(1), GI);
    wl.podsets[0].tolerations[0] = "spot";
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);

    /* No flavor assigned: any node. */
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_OK);

    /* Assigned spot (instance-type=spot, zone=b) for cpu and memory. */
    assert_int_equal(mock_host()->assign_flavor(&cy, 0, 0, &spot), 0);
    assert_int_equal(filter(state, &cy, &wl, &n1), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason,
                        "node n1 lacks flavor label instance-type=spot");
    assert_int_equal(filter(state, &cy, &wl, &n2), ORDO_OK);

    /* A node with the first label but not the second. */
    struct ordo_node n4 = n2;
    n4.name = "n4";
    n4.labels[1] = (struct mock_label){"zone", "c"};
    assert_int_equal(filter(state, &cy, &wl, &n4), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason, "node n4 lacks flavor label zone=b");
    n4.labels[1] = (struct mock_label){0};
    assert_int_equal(filter(state, &cy, &wl, &n4), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason, "node n4 lacks flavor label zone=b");

    /* On-demand for the fpga group as well: both flavors' labels apply. */
    wl.podsets[0].requests[2] = (struct mock_qty){"example.com/fpga", 1000};
    assert_int_equal(mock_host()->assign_flavor(&cy, 0, 1, &on_demand), 0);
    assert_int_equal(filter(state, &cy, &wl, &n2), ORDO_UNRESOLVABLE);
    assert_string_equal(cy.reason,
                        "node n2 lacks flavor label instance-type=on-demand");
    mock_cycle_end(&cy);
}

/* The cycle's pod set index is the one filtered. */
static void test_second_podset(void **state)
{
    struct ordo_workload wl = {
        .name = "ns/a",
        .cq = &cq,
        .podsets =
            {{.name = "driver", .count = 1, .requests = {{"cpu", CPU(1)}}},
             {.name = "workers", .count = 4, .requests = {{"cpu", CPU(3)}}}},
    };
    struct ordo_cycle cy;
    mock_cycle_init(&cy, &wl, NULL);
    assert_int_equal(ordo_plugin.place->filter(*state, &cy, &wl, 0, &n1),
                     ORDO_OK);
    assert_int_equal(ordo_plugin.place->filter(*state, &cy, &wl, 1, &n1),
                     ORDO_UNSCHEDULABLE);
    assert_string_equal(cy.reason,
                        "node n1: insufficient cpu (needs 3, free 1500m)");
    mock_cycle_end(&cy);
}

/* n1 is half used, n2 empty; pod: 1 cpu, 1Gi.
 *   LeastAllocated: n1 (500m/4 -> 12, 3Gi/8Gi -> 37) = 24,
 *                   n2 (3/4 -> 75, 7Gi/8Gi -> 87) = 81.
 *   MostAllocated:  n1 (3500m/4 -> 87, 5Gi/8Gi -> 62) = 74,
 *                   n2 (1/4 -> 25, 1Gi/8Gi -> 12) = 18. */
static void test_score_least_allocated(void **state)
{
    struct ordo_workload wl = workload(CPU(1), GI);
    assert_int_equal(score(state, &wl, &n1), 24);
    assert_int_equal(score(state, &wl, &n2), 81);
}

static void test_score_most_allocated(void **state)
{
    struct ordo_workload wl = workload(CPU(1), GI);
    assert_int_equal(score(state, &wl, &n1), 74);
    assert_int_equal(score(state, &wl, &n2), 18);
}

static void test_score_edges(void **state)
{
    /* Nothing requested, or only what the node has no allocatable of. */
    struct ordo_workload wl = workload(0, 0);
    assert_int_equal(score(state, &wl, &n2), 0);
    wl.podsets[0].requests[0] = (struct mock_qty){"example.com/fpga", 1000};
    assert_int_equal(score(state, &wl, &n2), 0);

    /* Requesting everything, and more than is free. */
    wl = workload(CPU(4), 8 * GI);
    assert_int_equal(score(state, &wl, &n2), 0);
    assert_int_equal(score(state, &wl, &n1), 0);

    /* Huge quantities do not overflow; free above allocatable clamps. */
    struct ordo_node big = {
        .name = "big",
        .allocatable = {{"cpu", INT64_MAX}, {"memory", INT64_MAX / 3}},
        .free = {{"cpu", INT64_MAX}, {"memory", INT64_MAX}},
    };
    wl = workload(1, 1);
    assert_int_equal(score(state, &wl, &big), 100);
    wl = workload(INT64_MAX / 2, 1); /* cpu half free: (50 + 100) / 2 */
    assert_int_equal(score(state, &wl, &big), 75);
}

static void test_score_most_edges(void **state)
{
    struct ordo_workload wl = workload(CPU(4), 8 * GI);
    assert_int_equal(score(state, &wl, &n2), 100);
    wl = workload(0, 0);
    assert_int_equal(score(state, &wl, &n2), 0);
}

int main(void)
{
#define T(f)      cmocka_unit_test_setup_teardown(f, setup, teardown)
#define T_MOST(f) cmocka_unit_test_setup_teardown(f, setup_most, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_init_scoring_strategy),
        cmocka_unit_test(test_init_bad_scoring_strategy),
        T(test_fits),
        T(test_exact_fit),
        T(test_insufficient),
        T(test_node_constraints),
        T(test_flavor_labels),
        T(test_second_podset),
        T(test_score_least_allocated),
        T_MOST(test_score_most_allocated),
        T(test_score_edges),
        T_MOST(test_score_most_edges),
    };
#undef T
#undef T_MOST
    return cmocka_run_group_tests_name("resource-fit", tests, NULL, NULL);
}
