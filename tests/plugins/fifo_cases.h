/* fifo_cases.h - the cmocka cases both FIFO queue plugins must pass: the
 * descriptor, init/fini and the shared queue order (priority, queue time,
 * name). Included by test_strict_fifo.c and test_best_effort_fifo.c, which
 * define FIFO_NAME first and add FIFO_CASES to their test list. */
#ifndef ORDO_TESTS_FIFO_CASES_H
#define ORDO_TESTS_FIFO_CASES_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mock_host.h"

#ifndef FIFO_NAME
#error "define FIFO_NAME before including fifo_cases.h"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct ordo_plugin fifo_plugin;

static int fifo_setup(void **state)
{
    mock_reset();
    memset(&fifo_plugin, 0, sizeof(fifo_plugin));
    fifo_plugin.name = FIFO_NAME;
    return ordo_plugin.init(mock_host(), &fifo_plugin, state);
}

static int fifo_teardown(void **state)
{
    ordo_plugin.fini(*state);
    return mock_live_allocs() == 0 ? 0 : -1;
}

static bool less(void **state, const struct ordo_workload *a,
                 const struct ordo_workload *b)
{
    return ordo_plugin.queue->less(*state, a, b);
}

static void test_descriptor(void **state)
{
    (void)state;
    assert_int_equal(ordo_plugin.abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(ordo_plugin.abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(ordo_plugin.struct_size,
                     sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(ordo_plugin.kind, ORDO_PLUGIN_QUEUE);
    assert_string_equal(ordo_plugin.name, FIFO_NAME);
    assert_string_equal(ordo_plugin.version, "1.0.0");
    assert_non_null(ordo_plugin.summary);
    assert_true(strlen(ordo_plugin.summary) > 0);
    assert_null(strchr(ordo_plugin.summary, '\n'));
    assert_non_null(ordo_plugin.init);
    assert_non_null(ordo_plugin.fini);
    assert_non_null(ordo_plugin.queue);
    assert_non_null(ordo_plugin.queue->less);
    assert_non_null(ordo_plugin.queue->on_not_admitted);
    assert_null(ordo_plugin.quota);
    assert_null(ordo_plugin.preempt);
    assert_null(ordo_plugin.place);
}

static void test_init_fini(void **state)
{
    (void)state;
    mock_reset();
    struct ordo_plugin p = {.name = FIFO_NAME};
    void *a = NULL, *b = NULL;
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &a), 0);
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &b), 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b); /* two instances, no shared state */
    assert_int_equal(mock_live_allocs(), 2);
    ordo_plugin.fini(a);
    ordo_plugin.fini(b);
    ordo_plugin.fini(NULL);
    assert_int_equal(mock_live_allocs(), 0);
    assert_int_equal(p.n_logs, 0);
}

static void test_init_out_of_memory(void **state)
{
    (void)state;
    mock_reset();
    struct ordo_plugin p = {.name = FIFO_NAME};
    void *self = NULL;
    mock_fail_alloc(true);
    assert_int_equal(ordo_plugin.init(mock_host(), &p, &self), -ENOMEM);
    mock_fail_alloc(false);
    assert_int_equal(p.n_logs, 1);
    assert_int_equal(p.last_level, ORDO_LOG_ERROR);
    assert_int_equal(mock_live_allocs(), 0);
}

static void test_priority_first(void **state)
{
    struct ordo_workload hi = {
        .name = "ns/hi", .priority = 10, .queue_time = 200};
    struct ordo_workload lo = {
        .name = "ns/lo", .priority = 0, .queue_time = 100};
    struct ordo_workload neg = {
        .name = "ns/neg", .priority = -5, .queue_time = 0};
    /* A higher priority overtakes an earlier arrival. */
    assert_true(less(state, &hi, &lo));
    assert_false(less(state, &lo, &hi));
    assert_true(less(state, &lo, &neg));
    assert_false(less(state, &neg, &lo));
    struct ordo_workload max = {.name = "ns/max", .priority = INT32_MAX};
    struct ordo_workload min = {.name = "ns/min", .priority = INT32_MIN};
    assert_true(less(state, &max, &min));
    assert_false(less(state, &min, &max));
}

static void test_earlier_first(void **state)
{
    struct ordo_workload early = {
        .name = "ns/z", .priority = 3, .queue_time = 1000};
    struct ordo_workload late = {
        .name = "ns/a", .priority = 3, .queue_time = 1001};
    assert_true(less(state, &early, &late));
    assert_false(less(state, &late, &early));
    struct ordo_workload first = {.name = "ns/x", .queue_time = INT64_MIN};
    struct ordo_workload last = {.name = "ns/w", .queue_time = INT64_MAX};
    assert_true(less(state, &first, &last));
    assert_false(less(state, &last, &first));
}

static void test_name_breaks_ties(void **state)
{
    struct ordo_workload a = {.name = "ns/a", .queue_time = 5};
    struct ordo_workload ab = {.name = "ns/ab", .queue_time = 5};
    struct ordo_workload b = {.name = "ns/b", .queue_time = 5};
    struct ordo_workload upper = {.name = "ns/B", .queue_time = 5};
    assert_true(less(state, &a, &b));
    assert_false(less(state, &b, &a));
    assert_true(less(state, &a, &ab)); /* a prefix goes first */
    assert_false(less(state, &ab, &a));
    assert_true(less(state, &upper, &a)); /* bytes, like strcmp */
    /* Irreflexive. */
    assert_false(less(state, &a, &a));
    assert_false(less(state, &ab, &ab));
}

/* Sorting with less gives one order whatever the input order, and every
 * distinct pair is ordered exactly one way. */
static void test_total_order(void **state)
{
    struct ordo_workload w[] = {
        {.name = "ns/c", .priority = 0, .queue_time = 10},
        {.name = "ns/a", .priority = 1, .queue_time = 30},
        {.name = "ns/e", .priority = 0, .queue_time = 5},
        {.name = "ns/b", .priority = 0, .queue_time = 10},
        {.name = "ns/d", .priority = 1, .queue_time = 20},
        {.name = "ns/f", .priority = -1, .queue_time = 0},
    };
    static const char *const want[] = {"ns/d", "ns/a", "ns/e",
                                       "ns/b", "ns/c", "ns/f"};
    const size_t n = ARRAY_LEN(w);

    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            bool ij = less(state, &w[i], &w[j]);
            bool ji = less(state, &w[j], &w[i]);
            if (i == j)
                assert_false(ij);
            else
                assert_true(ij != ji);
        }

    /* Insertion sort from two different starting orders. */
    for (int rev = 0; rev < 2; rev++) {
        const struct ordo_workload *q[ARRAY_LEN(w)];
        for (size_t i = 0; i < n; i++)
            q[i] = &w[rev ? n - 1 - i : i];
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && less(state, q[j], q[j - 1]); j--) {
                const struct ordo_workload *t = q[j];
                q[j] = q[j - 1];
                q[j - 1] = t;
            }
        for (size_t i = 0; i < n; i++)
            assert_string_equal(q[i]->name, want[i]);
    }
}

/* The shared cases, for the test list. */
#define FIFO_CASES                                                             \
    cmocka_unit_test(test_descriptor), cmocka_unit_test(test_init_fini),       \
        cmocka_unit_test(test_init_out_of_memory),                             \
        cmocka_unit_test_setup_teardown(test_priority_first, fifo_setup,       \
                                        fifo_teardown),                        \
        cmocka_unit_test_setup_teardown(test_earlier_first, fifo_setup,        \
                                        fifo_teardown),                        \
        cmocka_unit_test_setup_teardown(test_name_breaks_ties, fifo_setup,     \
                                        fifo_teardown),                        \
        cmocka_unit_test_setup_teardown(test_total_order, fifo_setup,          \
                                        fifo_teardown)

#endif
