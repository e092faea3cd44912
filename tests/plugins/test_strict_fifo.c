/* test_strict_fifo.c - unit tests for plugins/queue/strict_fifo.c: the
 * shared FIFO order (fifo_cases.h) and Kueue's StrictFIFO requeueing, where
 * a head that was not admitted keeps blocking its ClusterQueue. */
#define FIFO_NAME "strict-fifo"
#include "fifo_cases.h"

/* Whatever the verdict, the head stays and holds the queue. */
static void test_not_admitted_holds(void **state)
{
    static const enum ordo_verdict verdicts[] = {
        ORDO_OK, ORDO_SKIP, ORDO_UNSCHEDULABLE, ORDO_UNRESOLVABLE, ORDO_ERROR,
    };
    struct ordo_workload head = {.name = "ns/head", .priority = 1};
    for (size_t i = 0; i < ARRAY_LEN(verdicts); i++)
        assert_int_equal(
            ordo_plugin.queue->on_not_admitted(*state, &head, verdicts[i]),
            ORDO_QUEUE_HOLD);
}

/* A small head that does not fit still blocks a later one that would:
 * the queue order puts it first and on_not_admitted keeps it there. */
static void test_head_blocks_queue(void **state)
{
    struct ordo_workload big = {.name = "ns/big", .queue_time = 1};
    struct ordo_workload small = {.name = "ns/small", .queue_time = 2};
    assert_true(ordo_plugin.queue->less(*state, &big, &small));
    assert_int_equal(
        ordo_plugin.queue->on_not_admitted(*state, &big, ORDO_UNSCHEDULABLE),
        ORDO_QUEUE_HOLD);
    assert_true(ordo_plugin.queue->less(*state, &big, &small));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIFO_CASES,
        cmocka_unit_test_setup_teardown(test_not_admitted_holds, fifo_setup,
                                        fifo_teardown),
        cmocka_unit_test_setup_teardown(test_head_blocks_queue, fifo_setup,
                                        fifo_teardown),
    };
    return cmocka_run_group_tests_name("strict-fifo", tests, NULL, NULL);
}
