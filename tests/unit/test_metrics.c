/* test_metrics.c - the metrics registry and its Prometheus text format:
 * exact decimals, escaping of label values, cumulative histogram buckets
 * with +Inf, gauges hidden until set, series of objects gone freed, bad
 * names refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

static char *text(const struct metrics *m)
{
    char *s = NULL;
    size_t n = 0;
    assert_int_equal(metrics_format(m, &s, &n), 0);
    assert_int_equal(strlen(s), n);
    return s;
}

static void test_values(void **state)
{
    (void)state;
    char b[48];
    metrics_format_value(5000000, 1000000000, b, sizeof(b));
    assert_string_equal(b, "0.005");
    metrics_format_value(2500000000LL, 1000000000, b, sizeof(b));
    assert_string_equal(b, "2.5");
    metrics_format_value(3000, 1000, b, sizeof(b));
    assert_string_equal(b, "3");
    metrics_format_value(-1500, 1000, b, sizeof(b));
    assert_string_equal(b, "-1.5");
    metrics_format_value(METRICS_INF, 1000, b, sizeof(b));
    assert_string_equal(b, "+Inf");
    metrics_format_value(42, 1, b, sizeof(b));
    assert_string_equal(b, "42");
    metrics_format_value(INT64_MIN, 1000, b, sizeof(b));
    assert_string_equal(b, "-9223372036854775.808");
}

static void test_counter_escaping(void **state)
{
    (void)state;
    struct metrics *m;
    struct metric_family *f;
    assert_int_equal(metrics_new(&m), 0);
    struct metric_desc d = {.name = "x_total",
                            .help = "Things.\nback\\slash",
                            .type = METRIC_COUNTER,
                            .labels = {"cq", "reason"}};
    assert_int_equal(metrics_register(m, &d, &f), 0);
    assert_int_equal(metrics_register(m, &d, &f), -EINVAL); /* taken */
    const char *v1[] = {"b", "say \"hi\"\n\\"}, *v2[] = {"a", NULL};
    struct metric_series *s1 = metrics_series(f, v1);
    struct metric_series *s2 = metrics_series(f, v2);
    assert_ptr_equal(metrics_series(f, v1), s1); /* resolved once */
    metrics_add(s1, 3);
    metrics_add(s1, -2); /* counters never go down */
    assert_int_equal(metrics_value(s1), 3);
    char *s = text(m);
    assert_string_equal(
        s, "# HELP x_total Things.\\nback\\\\slash\n"
           "# TYPE x_total counter\n"
           "x_total{cq=\"a\",reason=\"\"} 0\n"
           "x_total{cq=\"b\",reason=\"say \\\"hi\\\"\\n\\\\\"} 3\n");
    free(s);
    (void)s2;
    metrics_free(m);
}

static void test_histogram(void **state)
{
    (void)state;
    struct metrics *m;
    struct metric_family *f;
    static const int64_t b[] = {1000000000LL, 2500000000LL, 5000000000LL};
    assert_int_equal(metrics_new(&m), 0);
    struct metric_desc d = {.name = "wait_seconds",
                            .help = "Wait.",
                            .type = METRIC_HISTOGRAM,
                            .labels = {"cq"},
                            .divisor = 1000000000,
                            .buckets = b,
                            .n_buckets = 3};
    assert_int_equal(metrics_register(m, &d, &f), 0);
    const char *v[] = {"q"};
    struct metric_series *h = metrics_series(f, v);
    metrics_observe(h, 1000000000LL); /* on a bound: in it (le) */
    metrics_observe(h, 3000000000LL);
    metrics_observe(h, 9000000000LL); /* above every bound: +Inf only */
    metrics_add(h, 5);                /* not for histograms */
    assert_int_equal(metrics_value(h), 3);
    char *s = text(m);
    assert_string_equal(s, "# HELP wait_seconds Wait.\n"
                           "# TYPE wait_seconds histogram\n"
                           "wait_seconds_bucket{cq=\"q\",le=\"1\"} 1\n"
                           "wait_seconds_bucket{cq=\"q\",le=\"2.5\"} 1\n"
                           "wait_seconds_bucket{cq=\"q\",le=\"5\"} 2\n"
                           "wait_seconds_bucket{cq=\"q\",le=\"+Inf\"} 3\n"
                           "wait_seconds_sum{cq=\"q\"} 13\n"
                           "wait_seconds_count{cq=\"q\"} 3\n");
    free(s);
    metrics_free(m);
}

static void test_gauges(void **state)
{
    (void)state;
    struct metrics *m;
    struct metric_family *f, *g;
    assert_int_equal(metrics_new(&m), 0);
    struct metric_desc d = {.name = "quota",
                            .help = "Q.",
                            .type = METRIC_GAUGE,
                            .labels = {"resource"},
                            .divisor = 1000};
    assert_int_equal(metrics_register(m, &d, &f), 0);
    struct metric_desc d2 = {.name = "up", .help = "", .type = METRIC_GAUGE};
    assert_int_equal(metrics_register(m, &d2, &g), 0);
    const char *cpu[] = {"cpu"}, *mem[] = {"memory"};
    struct metric_series *c = metrics_series(f, cpu);
    (void)metrics_series(f, mem); /* never set: not shown */
    metrics_set(c, 1500);
    metrics_set(metrics_series(g, NULL), 1);
    char *s = text(m);
    assert_string_equal(s, "# HELP quota Q.\n# TYPE quota gauge\n"
                           "quota{resource=\"cpu\"} 1.5\n"
                           "# HELP up \n# TYPE up gauge\nup 1\n");
    free(s);
    metrics_family_clear(f);
    metrics_set(metrics_series(f, mem), METRICS_INF);
    s = text(m);
    assert_non_null(strstr(s, "quota{resource=\"memory\"} +Inf\n"));
    assert_null(strstr(s, "cpu"));
    free(s);
    metrics_free(m);
}

static bool not_b(void *data, const char *const *values)
{
    (*(int *)data)++;
    return strcmp(values[0], "b") != 0;
}

/* Series of an object gone are freed; the others keep their values. */
static void test_retain(void **state)
{
    (void)state;
    struct metrics *m;
    struct metric_family *f;
    assert_int_equal(metrics_new(&m), 0);
    struct metric_desc d = {
        .name = "n_total", .type = METRIC_COUNTER, .labels = {"q"}};
    assert_int_equal(metrics_register(m, &d, &f), 0);
    const char *a[] = {"a"}, *b[] = {"b"}, *c[] = {"c"};
    metrics_add(metrics_series(f, a), 1);
    metrics_add(metrics_series(f, b), 2);
    metrics_add(metrics_series(f, c), 3);
    int calls = 0;
    metrics_family_retain(f, not_b, &calls);
    assert_int_equal(calls, 3);
    char *s = text(m);
    assert_non_null(strstr(s, "n_total{q=\"a\"} 1\n"));
    assert_null(strstr(s, "q=\"b\""));
    assert_non_null(strstr(s, "n_total{q=\"c\"} 3\n"));
    free(s);
    /* b again starts from 0. */
    metrics_add(metrics_series(f, b), 5);
    s = text(m);
    assert_non_null(strstr(s, "n_total{q=\"b\"} 5\n"));
    free(s);
    metrics_free(m);
}

static void test_bad(void **state)
{
    (void)state;
    struct metrics *m;
    struct metric_family *f;
    static const int64_t down[] = {5, 1};
    assert_int_equal(metrics_new(&m), 0);
    struct metric_desc bad[] = {
        {.name = "1x", .type = METRIC_GAUGE},
        {.name = "a-b", .type = METRIC_GAUGE},
        {.name = "ok", .type = METRIC_GAUGE, .labels = {"a:b"}},
        {.name = "ok", .type = METRIC_GAUGE, .labels = {"__x"}},
        {.name = "ok",
         .type = METRIC_HISTOGRAM,
         .labels = {"le"},
         .buckets = down,
         .n_buckets = 1},
        {.name = "ok", .type = METRIC_HISTOGRAM},
        {.name = "ok",
         .type = METRIC_HISTOGRAM,
         .buckets = down,
         .n_buckets = 2},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(metrics_register(m, &bad[i], &f), -EINVAL);
    struct metric_desc ok = {.name = "ns:ok_total", .type = METRIC_COUNTER};
    assert_int_equal(metrics_register(m, &ok, &f), 0);
    metrics_add(NULL, 1); /* NULL series: ignored */
    metrics_free(m);
    metrics_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_counter_escaping),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_gauges),
        cmocka_unit_test(test_retain),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
