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
        cmocka_unit_test(test_verbosity),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
