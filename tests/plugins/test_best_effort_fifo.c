/* test_best_effort_fifo.c - unit tests for
 * plugins/queue/best_effort_fifo.c: the shared FIFO order (fifo_cases.h)
 * and Kueue's BestEffortFIFO requeueing, where a head that was not admitted
 * is parked and the next workload gets its turn. */
#define FIFO_NAME "best-effort-fifo"
#include "fifo_cases.h"

/* Whatever the verdict, the head is parked and the next one tries. */
static void test_not_admitted_moves_on(void **state)
{
    static const enum ordo_verdict verdicts[] = {
        ORDO_OK, ORDO_SKIP, ORDO_UNSCHEDULABLE, ORDO_UNRESOLVABLE, ORDO_ERROR,
    };
    struct ordo_workload head = {.name = "ns/head", .priority = 1};
    for (size_t i = 0; i < ARRAY_LEN(verdicts); i++)
        assert_int_equal(
            ordo_plugin.queue->on_not_admitted(*state, &head, verdicts[i]),
            ORDO_QUEUE_NEXT);
}

/* The order is the same as strict-fifo's; only the requeueing differs. */
static void test_same_order_as_strict(void **state)
{
    struct ordo_workload big = {.name = "ns/big", .queue_time = 1};
    struct ordo_workload small = {.name = "ns/small", .queue_time = 2};
    struct ordo_workload urgent = {
        .name = "ns/urgent", .priority = 100, .queue_time = 3};
    assert_true(ordo_plugin.queue->less(*state, &big, &small));
    assert_true(ordo_plugin.queue->less(*state, &urgent, &big));
    assert_int_equal(
        ordo_plugin.queue->on_not_admitted(*state, &big, ORDO_UNSCHEDULABLE),
        ORDO_QUEUE_NEXT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIFO_CASES,
        cmocka_unit_test_setup_teardown(test_not_admitted_moves_on, fifo_setup,
                                        fifo_teardown),
        cmocka_unit_test_setup_teardown(test_same_order_as_strict, fifo_setup,
                                        fifo_teardown),
    };
    return cmocka_run_group_tests_name("best-effort-fifo", tests, NULL, NULL);
}
