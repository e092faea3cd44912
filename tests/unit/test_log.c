/* test_log.c - log line format (klog-like) and verbosity filtering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "log.h"
#include "test_helpers.h"

static long long fixed_clock(void *userdata)
{
    /* 2026-12-02 15:04:05.000123 UTC */
    return 1796223845LL * 1000000000LL + 123456;
}

static char *capture(void (*fn)(void))
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(f);
    log_set_stream(f);
    fn();
    fclose(f);
    log_set_stream(NULL);
    return buf;
}

static void emit_levels(void)
{
    LOG_I("admitted workload wl=\"%s\" cq=\"%s\"", "ns/job", "a");
    LOG_W("slow cycle took=%dms", 12);
    LOG_E("bind failed");
    LOG_V(2, "hidden at -v 1");
    LOG_V(1, "shown at -v 1");
}

static void test_format(void **state)
{
    log_set_clock(fixed_clock, NULL);
    log_set_verbosity(1);
    char *out = capture(emit_levels);
    assert_contains(out, "I1202 15:04:05.000123 test_log.c:");
    assert_contains(out, "] admitted workload wl=\"ns/job\" cq=\"a\"\n");
    assert_contains(out, "W1202 15:04:05.000123 test_log.c:");
    assert_contains(out, "] slow cycle took=12ms\n");
    assert_contains(out, "E1202 15:04:05.000123 test_log.c:");
    assert_contains(out, "shown at -v 1");
    assert_null(strstr(out, "hidden"));
    log_set_clock(NULL, NULL);
}

static long long virtual_clock(void *userdata)
{
    return *(const long long *)userdata;
}

/* The simulator's clock: seconds since the start of the run, no date. */
static void test_virtual_clock(void **state)
{
    long long now = 12500000000LL + 999999; /* 12.500999s: milliseconds */
    log_set_virtual_clock(virtual_clock, &now);
    log_set_verbosity(1);
    char *out = capture(emit_levels);
    assert_contains(out, "I[  12.500s] test_log.c:");
    assert_contains(out, "W[  12.500s] test_log.c:");
    now = 3723LL * 1000000000LL;
    out = capture(emit_levels);
    assert_contains(out, "E[3723.000s] test_log.c:");
    /* log_set_clock goes back to dates. */
    log_set_clock(fixed_clock, NULL);
    out = capture(emit_levels);
    assert_contains(out, "I1202 15:04:05.000123 test_log.c:");
    assert_null(strstr(out, "s] "));
    log_set_clock(NULL, NULL);
    log_set_verbosity(0);
}

static void test_verbosity(void **state)
{
    log_set_verbosity(-3);
    assert_int_equal(log_get_verbosity(), 0);
    log_set_verbosity(4);
    assert_int_equal(log_get_verbosity(), 4);
    log_set_verbosity(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_virtual_clock),
        cmocka_unit_test(test_verbosity),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
