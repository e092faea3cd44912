/* test_decode_time.c - RFC 3339 times as Kubernetes reads metav1.Time (Go's
 * time.Parse(time.RFC3339)): every rule, Go's leniencies, and the
 * saturation of valid times that do not fit int64 nanoseconds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode_helpers.h"

#define S 1000000000LL

static int64_t must_parse(const char *s)
{
    int64_t ns = 12345;
    int r = decode_parse_time(s, &ns);
    if (r != 0)
        print_error("\"%s\" was refused\n", s);
    assert_int_equal(r, 0);
    return ns;
}

static void must_refuse(const char *s)
{
    int64_t ns = 12345;
    int r = decode_parse_time(s, &ns);
    if (r == 0)
        print_error("\"%s\" was accepted\n", s);
    assert_int_equal(r, -EINVAL);
    assert_int_equal(ns, 12345); /* untouched */
}

static void test_valid(void **state)
{
    assert_int_equal(must_parse("1970-01-01T00:00:00Z"), 0);
    assert_int_equal(must_parse("2008-01-01T01:01:01Z"), 1199149261LL * S);
    assert_int_equal(must_parse("2003-01-01T01:01:01.000003Z"),
                     1041382861LL * S + 3000);
    assert_int_equal(must_parse("1970-01-01T01:00:00+01:00"), 0);
    assert_int_equal(must_parse("1969-12-31T18:30:00-05:30"), 0);
    /* before the epoch, with a fraction: -1 s + 0.5 s */
    assert_int_equal(must_parse("1969-12-31T23:59:59.5Z"), -S / 2);
    assert_int_equal(must_parse("1900-01-01T00:00:00Z"), -2208988800LL * S);
    assert_int_equal(must_parse("2024-12-31T23:59:59Z"), 1735689599LL * S);
    /* fraction digits past the ninth are dropped (Go truncates) */
    assert_int_equal(must_parse("1970-01-01T00:00:00.1234567899Z"), 123456789);
    assert_int_equal(must_parse("1970-01-01T00:00:00.1Z"), S / 10);
}

static void test_calendar(void **state)
{
    /* leap years: every 4th, not every 100th, every 400th */
    assert_int_equal(must_parse("2024-02-29T00:00:00Z"), 1709164800LL * S);
    must_parse("2000-02-29T00:00:00Z");
    must_refuse("1900-02-29T00:00:00Z");
    must_refuse("2023-02-29T00:00:00Z");
    must_refuse("2024-02-30T00:00:00Z");
    must_refuse("2024-04-31T00:00:00Z");
    must_refuse("2024-06-31T00:00:00Z");
    must_refuse("2024-09-31T00:00:00Z");
    must_refuse("2024-11-31T00:00:00Z");
    must_parse("2024-01-31T00:00:00Z");
    must_parse("2024-12-31T00:00:00Z");
    must_refuse("2024-12-32T00:00:00Z");
    must_refuse("2024-01-00T00:00:00Z");
    must_refuse("2024-00-10T00:00:00Z");
    must_refuse("2024-13-01T00:00:00Z");
    must_refuse("2020-13-01T00:00:00Z");
}

static void test_clock(void **state)
{
    must_parse("2024-01-01T23:59:59Z");
    must_refuse("2024-01-01T24:00:00Z");
    must_refuse("2024-01-01T00:60:00Z");
    must_refuse("2024-01-01T00:00:60Z"); /* no leap seconds */
    must_refuse("2024-01-01T00:00:99Z");
    /* Go's general parser reads the hour ("15") as one or two digits */
    assert_int_equal(must_parse("1970-01-01T5:00:00Z"), 5 * 3600 * S);
    must_refuse("1970-01-01T:00:00Z");
    must_refuse("1970-01-01T123:00:00Z");
    /* minutes, seconds, month and day are two digits */
    must_refuse("1970-01-01T05:0:00Z");
    must_refuse("1970-01-01T05:00:0Z");
    must_refuse("1970-1-01T05:00:00Z");
    must_refuse("1970-01-1T05:00:00Z");
}

static void test_zone(void **state)
{
    assert_int_equal(must_parse("1970-01-01T23:59:00+23:59"), 0);
    assert_int_equal(must_parse("1970-01-01T00:00:00-00:00"), 0);
    /* Go's general parser tests the offset with > (24 and 60 pass) */
    assert_int_equal(must_parse("1970-01-02T00:00:00+24:00"), 0);
    assert_int_equal(must_parse("1970-01-01T01:00:00+00:60"), 0);
    must_refuse("1970-01-01T00:00:00+25:00");
    must_refuse("1970-01-01T00:00:00+00:61");
    must_refuse("1970-01-01T00:00:00+0100");
    must_refuse("1970-01-01T00:00:00+01");
    must_refuse("1970-01-01T00:00:00+1:00");
    must_refuse("1970-01-01T00:00:00 Z");
    must_refuse("2020-01-01T00:00:00"); /* the zone is required */
    must_refuse("2020-01-01T00:00:00UTC");
}

static void test_syntax(void **state)
{
    must_refuse("");
    must_refuse("yesterday");
    must_refuse("2020-01-01");
    must_refuse("2020-01-01 00:00:00Z");
    /* Go matches the layout's T and Z exactly */
    must_refuse("2020-01-01t00:00:00Z");
    must_refuse("2020-01-01T00:00:00z");
    must_refuse("2020-01-01T00:00:00Zjunk");
    must_refuse("2020-01-01T00:00:00+01:00junk");
    must_refuse("2020-01-01T00:00:00.Z");
    must_refuse("2020-01-01T00:00:00.");
    must_refuse("020-01-01T00:00:00Z");
    must_refuse("+020-01-01T00:00:00Z");
    must_refuse("10000-01-01T00:00:00Z");
    /* ',' before the fraction, as Go's general parser allows */
    assert_int_equal(must_parse("1970-01-01T00:00:00,25Z"), S / 4);
}

/* Years 0000-9999 are valid; the int64 ns range is
 * 1677-09-21T00:12:43.145224192Z .. 2262-04-11T23:47:16.854775807Z. */
static void test_saturation(void **state)
{
    assert_int_equal(must_parse("2262-04-11T23:47:16.854775807Z"), INT64_MAX);
    assert_int_equal(must_parse("2262-04-11T23:47:16.854775806Z"),
                     INT64_MAX - 1);
    assert_int_equal(must_parse("2262-04-12T00:47:16.854775806+01:00"),
                     INT64_MAX - 1);
    assert_int_equal(must_parse("2262-04-11T23:47:16.854775808Z"), INT64_MAX);
    assert_int_equal(must_parse("2262-04-11T23:47:17Z"), INT64_MAX);
    assert_int_equal(must_parse("9999-12-31T23:59:59.999999999-24:00"),
                     INT64_MAX);
    assert_int_equal(must_parse("1677-09-21T00:12:43.145224192Z"), INT64_MIN);
    assert_int_equal(must_parse("1677-09-21T00:12:43.145224193Z"),
                     INT64_MIN + 1);
    assert_int_equal(must_parse("1677-09-21T00:12:43.145224191Z"), INT64_MIN);
    assert_int_equal(must_parse("1677-09-21T00:12:42Z"), INT64_MIN);
    assert_int_equal(must_parse("0000-01-01T00:00:00+24:00"), INT64_MIN);
    must_parse("0000-02-29T00:00:00Z"); /* year 0 is a leap year */
}

/* The decoder names the object and the field, and keeps saturated times. */
static void test_decoded(void **state)
{
    must_fail("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
              "  creationTimestamp: \"2024-02-30T00:00:00Z\"\n",
              "t.yaml:5: Node n: metadata.creationTimestamp: invalid RFC 3339 "
              "time \"2024-02-30T00:00:00Z\"");
    must_fail("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
              "  deletionTimestamp: \"2024-01-01T00:00:60Z\"\n",
              "metadata.deletionTimestamp: invalid RFC 3339 time");
    struct object *o =
        must_decode("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
                    "  creationTimestamp: \"9999-12-31T23:59:59Z\"\n"
                    "  deletionTimestamp: \"0001-01-01T00:00:00Z\"\n");
    assert_true(o->meta.has_creation);
    assert_int_equal(o->meta.creation_ns, INT64_MAX);
    assert_true(o->meta.deleting);
    assert_int_equal(o->meta.deletion_ns, INT64_MIN);
    object_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),   cmocka_unit_test(test_calendar),
        cmocka_unit_test(test_clock),   cmocka_unit_test(test_zone),
        cmocka_unit_test(test_syntax),  cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_decoded),
    };
    return cmocka_run_group_tests_name("decode_time", tests, NULL, NULL);
}
