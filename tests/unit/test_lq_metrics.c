/* test_lq_metrics.c - unit tests for the LocalQueue metrics
 * (sched/obs/lq_metrics.h) on an in-process scheduler: pending, reserving
 * and admitted counts and quota per LocalQueue, admissions by priority
 * class, a deleted LocalQueue's series gone (counters too),
 * --no-local-queue-metrics registering none, and ordo_build_info. */
#include "events_helpers.h"

#include "config.h"
#include "sched_metrics.h"

/* The value of the sample whose line starts with `prefix` (name and
 * labels), or -1 when absent. */
static double sample(struct sched_metrics *m, const char *prefix)
{
    char *s;
    size_t n;
    assert_int_equal(sched_metrics_format(m, &s, &n), 0);
    double v = -1;
    size_t pl = strlen(prefix);
    for (char *line = s; line && *line;) {
        char *end = strchr(line, '\n');
        if (strncmp(line, prefix, pl) == 0 && line[pl] == ' ')
            v = strtod(line + pl + 1, NULL);
        line = end ? end + 1 : NULL;
    }
    free(s);
    return v;
}

#define LQ(fam, labels)                                                        \
    "kueue_local_queue_" fam "{name=\"lq\",namespace=\"ns\"" labels            \
    "replica_role=\"standalone\"}"
#define LQ2(fam, labels)                                                       \
    "kueue_local_queue_" fam "{name=\"lq2\",namespace=\"ns\"" labels           \
    "replica_role=\"standalone\"}"

static void test_counts_and_quota(void **state)
{
    struct fx *f = *state;
    struct sched_metrics *m;
    assert_int_equal(sched_metrics_new(f->s, NULL, &m), 0);
    /* 3 cpu: x (2) and y (1) of lq are admitted; z (2) of lq and w (1)
     * of lq2 wait, until y goes and w fits. */
    fx_add(f, FX_QUEUES("3") FX_LQ("ns", "lq2", "cq") FX_NODE("n1", "8", "")
                  FX_POD("ns", "x", "lq", "2") FX_POD("ns", "y", "lq", "1"));
    fx_run(f);
    fx_add(f, FX_POD("ns", "z", "lq", "2") FX_POD("ns", "w", "lq2", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/z"), "pending");
    assert_string_equal(fx_state(f, "ns/w"), "pending");
    double pending =
        sample(m, LQ("pending_workloads", ",status=\"active\",")) +
        sample(m, LQ("pending_workloads", ",status=\"inadmissible\","));
    assert_true(pending == 1);
    pending = sample(m, LQ2("pending_workloads", ",status=\"active\",")) +
              sample(m, LQ2("pending_workloads", ",status=\"inadmissible\","));
    assert_true(pending == 1);
    assert_true(sample(m, LQ("reserving_active_workloads", ",")) == 2);
    assert_true(sample(m, LQ("admitted_active_workloads", ",")) == 2);
    assert_true(sample(m, LQ2("admitted_active_workloads", ",")) == 0);
    assert_true(sample(m, LQ("resource_usage",
                             ",flavor=\"default\",resource=\"cpu\",")) == 3);
    assert_true(sample(m, LQ("resource_reservation",
                             ",flavor=\"default\",resource=\"cpu\",")) == 3);
    /* lq2 has its ClusterQueue's pairs at 0. */
    assert_true(sample(m, LQ2("resource_usage",
                              ",flavor=\"default\",resource=\"cpu\",")) == 0);
    assert_true(sample(m, LQ("admitted_workloads_total",
                             ",priority_class=\"\",")) == 2);
    /* y goes: w (lq2) fits, z still waits. */
    fx_delete(f, OBJ_POD, "ns/y");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/w"), "admitted");
    assert_true(sample(m, LQ2("admitted_active_workloads", ",")) == 1);
    assert_true(sample(m, LQ2("admitted_workloads_total",
                              ",priority_class=\"\",")) == 1);
    assert_true(sample(m, LQ("resource_usage",
                             ",flavor=\"default\",resource=\"cpu\",")) == 2);
    assert_true(sample(m, LQ2("resource_usage",
                              ",flavor=\"default\",resource=\"cpu\",")) == 1);
    /* lq2 deleted: every series of it gone, the counter too; lq's kept. */
    fx_delete(f, OBJ_LOCAL_QUEUE, "ns/lq2");
    fx_run(f);
    assert_true(sample(m, LQ2("admitted_workloads_total",
                              ",priority_class=\"\",")) == -1);
    assert_true(sample(m, LQ2("admitted_active_workloads", ",")) == -1);
    assert_true(sample(m, LQ2("pending_workloads", ",status=\"active\",")) ==
                -1);
    assert_true(sample(m, LQ2("resource_usage",
                              ",flavor=\"default\",resource=\"cpu\",")) == -1);
    assert_true(sample(m, LQ("admitted_workloads_total",
                             ",priority_class=\"\",")) == 2);
    assert_true(sample(m, "ordo_build_info{version=\"" PACKAGE_VERSION "\"}") ==
                1);
    sched_metrics_free(m);
}

static void test_off(void **state)
{
    struct fx *f = *state;
    struct sched_metrics *m;
    struct sched_metrics_options o = {.no_local_queue_metrics = true};
    assert_int_equal(sched_metrics_new(f->s, &o, &m), 0);
    fx_add(f,
           FX_QUEUES("3") FX_NODE("n1", "8", "") FX_POD("ns", "x", "lq", "2"));
    fx_run(f);
    char *s;
    size_t n;
    assert_int_equal(sched_metrics_format(m, &s, &n), 0);
    assert_null(strstr(s, "kueue_local_queue_"));
    assert_non_null(strstr(s, "kueue_admitted_active_workloads{"));
    free(s);
    sched_metrics_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_counts_and_quota, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_off, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
