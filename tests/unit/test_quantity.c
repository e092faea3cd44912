/* test_quantity.c - unit tests for core/quantity.c: parsing Kubernetes
 * quantities into milli-units and printing them back in canonical form.
 *
 * Most cases come from k8s.io/apimachinery/pkg/api/resource/quantity_test.go:
 * TestQuantityParse (valid table and its "invalid" list), TestQuantityString
 * (expected and alternate forms), TestQuantityParseEmit, TestMilliNewSet and
 * TestNewSet. Upstream keeps nano precision and arbitrary magnitude, Ordo
 * keeps int64 milli-units, so the expected milli-value is upstream's
 * MilliValue() (finer values rounded away from zero), the canonical text is
 * what upstream prints for that milli-value, and values whose milli-value
 * overflows int64 are -ERANGE here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "quantity.h"

#define DSI QUANTITY_DECIMAL_SI
#define BSI QUANTITY_BINARY_SI
#define DEX QUANTITY_DECIMAL_EXPONENT

struct valid_case {
    const char *in;
    int64_t milli;
    enum quantity_format format;
    const char *canonical;
};

static const struct valid_case valid_cases[] = {
    /* TestQuantityParse: zeros keep the suffix family. */
    {"0", 0, DSI, "0"},
    {"0n", 0, DSI, "0"},
    {"0u", 0, DSI, "0"},
    {"0m", 0, DSI, "0"},
    {"0Ki", 0, BSI, "0"},
    {"0k", 0, DSI, "0"},
    {"0Mi", 0, BSI, "0"},
    {"0M", 0, DSI, "0"},
    {"0Gi", 0, BSI, "0"},
    {"0G", 0, DSI, "0"},
    {"0Ti", 0, BSI, "0"},
    {"0T", 0, DSI, "0"},

    /* TestQuantityParse: "Quantity less numbers are allowed". */
    {"1", 1000, DSI, "1"},

    /* TestQuantityParse: binary suffixes. */
    {"1Ki", 1024000, BSI, "1Ki"},
    {"8Ki", 8192000, BSI, "8Ki"},
    {"7Mi", 7340032000, BSI, "7Mi"},
    {"6Gi", 6442450944000, BSI, "6Gi"},
    {"5Ti", 5497558138880000, BSI, "5Ti"},
    {"4Pi", 4503599627370496000, BSI, "4Pi"},
    {"10Ti", 10995116277760000, BSI, "10Ti"},
    {"100Ti", 109951162777600000, BSI, "100Ti"},

    /* TestQuantityParse: decimal suffixes. */
    {"5n", 1, DSI, "1m"},
    {"4u", 1, DSI, "1m"},
    {"3m", 3, DSI, "3m"},
    {"9", 9000, DSI, "9"},
    {"8k", 8000000, DSI, "8k"},
    {"50k", 50000000, DSI, "50k"},
    {"7M", 7000000000, DSI, "7M"},
    {"6G", 6000000000000, DSI, "6G"},
    {"5T", 5000000000000000, DSI, "5T"},
    {"40T", 40000000000000000, DSI, "40T"},
    {"300T", 300000000000000000, DSI, "300T"},
    {"2P", 2000000000000000000, DSI, "2P"},

    /* TestQuantityParse: decimal exponents. */
    {"1E-3", 1, DEX, "1e-3"},
    {"1e3", 1000000, DEX, "1e3"},
    {"1E6", 1000000000, DEX, "1e6"},
    {"1e9", 1000000000000, DEX, "1e9"},
    {"1E12", 1000000000000000, DEX, "1e12"},
    {"1e15", 1000000000000000000, DEX, "1e15"},

    /* TestQuantityParse: "Nonstandard but still parsable". */
    {"1e14", 100000000000000000, DEX, "100e12"},
    {"1e13", 10000000000000000, DEX, "10e12"},
    {"100.035k", 100035000, DSI, "100035"},

    /* TestQuantityParse: "Things that look like floating point". */
    {"0.001", 1, DSI, "1m"},
    {"0.0005k", 500, DSI, "500m"},
    {"0.005", 5, DSI, "5m"},
    {"0.05", 50, DSI, "50m"},
    {"0.5", 500, DSI, "500m"},
    {"0.00050k", 500, DSI, "500m"},
    {"0.00500", 5, DSI, "5m"},
    {"0.05000", 50, DSI, "50m"},
    {"0.50000", 500, DSI, "500m"},
    {"0.5e0", 500, DEX, "500e-3"},
    {"0.5e-1", 50, DEX, "50e-3"},
    {"0.5e-2", 5, DEX, "5e-3"},
    {"10.035M", 10035000000, DSI, "10035k"},
    {"1.2e3", 1200000, DEX, "1200"},
    {"1.3E+6", 1300000000, DEX, "1300e3"},
    {"1.40e9", 1400000000000, DEX, "1400e6"},
    {"1.53E12", 1530000000000000, DEX, "1530e9"},
    {"1.6e15", 1600000000000000000, DEX, "1600e12"},
    {"9.01", 9010, DSI, "9010m"},
    {"8.1k", 8100000, DSI, "8100"},
    {"7.123456M", 7123456000, DSI, "7123456"},
    {"6.987654321G", 6987654321000, DSI, "6987654321"},
    {"5.444T", 5444000000000000, DSI, "5444G"},
    {"40.1T", 40100000000000000, DSI, "40100G"},
    {"300.2T", 300200000000000000, DSI, "300200G"},
    {"2.5P", 2500000000000000000, DSI, "2500T"},

    /* TestQuantityParse: "Things that saturate/round". */
    {"3.001n", 1, DSI, "1m"},
    {"1.1E-9", 1, DEX, "1e-3"},
    {"0.0000000001", 1, DSI, "1m"},
    {"0.0000000005", 1, DSI, "1m"},
    {"0.00000000050", 1, DSI, "1m"},
    {"0.5e-9", 1, DEX, "1e-3"},
    {"0.9n", 1, DSI, "1m"},
    {"0.00000012345", 1, DSI, "1m"},
    {"0.00000012354", 1, DSI, "1m"},

    /* TestQuantityParse: "We'll accept fractional binary stuff, too." */
    {"100.035Ki", 102435840, BSI, "102435840m"},
    {"0.5Mi", 524288000, BSI, "512Ki"},
    {"0.05Gi", 53687091200, BSI, "53687091200m"},
    {"0.025Ti", 27487790694400, BSI, "27487790694400m"},

    /* TestQuantityParse: "Things written by trolls". */
    {"0.000000000001Ki", 1, DSI, "1m"}, /* rounds up, changes format */
    {".001", 1, DSI, "1m"},
    {".0001k", 100, DSI, "100m"},
    {"1.", 1000, DSI, "1"},
    {"1.G", 1000000000000, DSI, "1G"},

    /* TestQuantityParseEmit. */
    {"1Mi", 1048576000, BSI, "1Mi"},
    {"1Gi", 1073741824000, BSI, "1Gi"},
    {"1024Mi", 1073741824000, BSI, "1Gi"},
    {"1000M", 1000000000000, DSI, "1G"},
    {".001Ki", 1024, BSI, "1024m"},
    {".000001Ki", 2, DSI, "2m"},    /* below 1: DSI; upstream "1024u" */
    {".000000001Ki", 1, DSI, "1m"}, /* upstream "1024n" */

    /* TestQuantityString alternates: non-canonical input. */
    {"307200Ki", 314572800000, BSI, "300Mi"},
    {"1025024Mi", 1074815565824000, BSI, "1001Gi"},
    {"1024Gi", 1099511627776000, BSI, "1Ti"},
    {"5000m", 5000, DSI, "5"},
    {"0.001T", 1000000000000, DSI, "1G"},
    {"1000u", 1, DSI, "1m"},
    {"1.08", 1080, DSI, "1080m"},
    {"1080000000n", 1080, DSI, "1080m"},
    {".001e12", 1000000000000, DEX, "1e9"},
    {"0.001e0", 1, DEX, "1e-3"},
    {"00", 0, DSI, "0"},

    /* Ordo's own cases (quantity.h and the examples Ordo documents). */
    {"100m", 100, DSI, "100m"},
    {"0.1m", 1, DSI, "1m"},
    {"1n", 1, DSI, "1m"},
    {"1.5", 1500, DSI, "1500m"},
    {"1500m", 1500, DSI, "1500m"},
    {"1.5k", 1500000, DSI, "1500"},
    {"1.5Gi", 1610612736000, BSI, "1536Mi"},
    {"2048Mi", 2147483648000, BSI, "2Gi"},
    {"1025", 1025000, DSI, "1025"},
    {"1025Ki", 1049600000, BSI, "1025Ki"},
    {"1023Ki", 1047552000, BSI, "1023Ki"},
    {"0.5Ki", 512000, BSI, "512"},
    {"1.5Ki", 1536000, BSI, "1536"},
    {"9223372036854775807m", INT64_MAX, DSI, "9223372036854775807m"},
    {"9223372036854775.807", INT64_MAX, DSI, "9223372036854775807m"},
    {"-9223372036854775808m", INT64_MIN, DSI, "-9223372036854775808m"},
    {"9223372036854775", 9223372036854775000, DSI, "9223372036854775"},
    {"8191Ti", 9006099743113216000, BSI, "8191Ti"},
    {"8388Ti", 9222703533785088000, BSI, "8388Ti"},
    {"8Pi", 9007199254740992000, BSI, "8Pi"},
    {"0.001E", 1000000000000000000, DSI, "1P"},
    {"0.000000000000000000000000001", 1, DSI, "1m"},
    {"000000000000000000000001", 1000, DSI, "1"},
    {"000000000000000000000001.000000000000000000000000", 1000, DSI, "1"},
    {"+1", 1000, DSI, "1"},
    {"-1", -1000, DSI, "-1"},
    {"-0", 0, DSI, "0"},
    {"+0.0Mi", 0, BSI, "0"},
    {"-5n", -1, DSI, "-1m"}, /* away from zero, like AsScaledInt64 */
    {"-0.0001", -1, DSI, "-1m"},
    {"-1.5Gi", -1610612736000, BSI, "-1536Mi"},
    {"1e-3", 1, DEX, "1e-3"},
    {"1e+3", 1000000, DEX, "1e3"},
    {"1e03", 1000000, DEX, "1e3"},
    {"1e0", 1000, DEX, "1"},
    {"15e-1", 1500, DEX, "1500e-3"},
    {"1e-99999", 1, DEX, "1e-3"},
    {"0e99999", 0, DEX, "0"},
    {"0e-9223372036854775808", 0, DEX, "0"},
    {"1e-9223372036854775808", 1, DEX, "1e-3"},
};

/* Inputs that must be rejected. */
struct invalid_case {
    const char *in;
    int rc;
    const char *reason; /* NULL: not checked */
};

static const struct invalid_case invalid_cases[] = {
    /* TestQuantityParse: empty string and the "invalid" list. */
    {"", -EINVAL, "empty quantity"},
    {"1.1.M", -EINVAL, "more than one decimal point"},
    {"1+1.0M", -EINVAL, NULL},
    {"0.1mi", -EINVAL, "unknown suffix \"mi\""},
    {"0.1am", -EINVAL, "unknown suffix"},
    {"aoeu", -EINVAL, "no digits"},
    {".5i", -EINVAL, "unknown suffix \"i\""},
    {"1i", -EINVAL, "unknown suffix \"i\""},
    {"-3.01i", -EINVAL, NULL},
    {"-3.01e-", -EINVAL, "exponent has no digits"},
    {" 1", -EINVAL, "whitespace in quantity"},
    {"1 ", -EINVAL, "whitespace in quantity"},
    /* TestQuantityParseNonNumericPanic. */
    {"Non-Numeric", -EINVAL, NULL},

    /* Ordo's grammar: no digit-less numbers (upstream's fast path reads
     * some of these as 0, see quantity.c). */
    {"Mi", -EINVAL, "no digits"},
    {"k", -EINVAL, "no digits"},
    {"e3", -EINVAL, "no digits"},
    {"+", -EINVAL, "no digits"},
    {"-", -EINVAL, "no digits"},
    {".", -EINVAL, "no digits"},
    {"-.", -EINVAL, "no digits"},
    {"+.Ki", -EINVAL, "no digits"},
    {"1.2.3", -EINVAL, "more than one decimal point"},
    {"1..", -EINVAL, "more than one decimal point"},
    {"5 Gi", -EINVAL, "whitespace in quantity"},
    {"1\t", -EINVAL, "whitespace in quantity"},
    {"1Gi2", -EINVAL, "unknown suffix"},
    {"--1", -EINVAL, "more than one sign"},
    {"+-1", -EINVAL, "more than one sign"},
    {"1-", -EINVAL, "unknown suffix"},
    {"1K", -EINVAL, "unknown suffix \"K\""},
    {"1Gb", -EINVAL, "unknown suffix \"Gb\""},
    {"1GB", -EINVAL, "unknown suffix \"GB\""},
    {"1GiB", -EINVAL, "unknown suffix \"GiB\""},
    {"1KI", -EINVAL, "unknown suffix \"KI\""},
    {"1e", -EINVAL, "exponent has no digits"},
    {"1e+", -EINVAL, "exponent has no digits"},
    {"1E-", -EINVAL, "exponent has no digits"},
    {"1e1.5", -EINVAL, "malformed exponent"},
    {"1e3Ki", -EINVAL, "malformed exponent"},
    {"1ee3", -EINVAL, "malformed exponent"},
    {"1e--3", -EINVAL, "malformed exponent"},
    {"1e9223372036854775808", -EINVAL, "exponent out of range"},
    {"0e-9223372036854775809", -EINVAL, "exponent out of range"},
    {"0x10", -EINVAL, "unknown suffix"},
    {"1,5", -EINVAL, "unknown suffix"},
    {"\xc2\xb5", -EINVAL, "no digits"},
    {"1\xc2\xb5", -EINVAL, "unknown suffix"},

    /* Milli-values outside int64. */
    {"9223372036854775807", -ERANGE, "value out of range"},
    {"9223372036854775808m", -ERANGE, "value out of range"},
    {"-9223372036854775809m", -ERANGE, "value out of range"},
    {"9223372036854775.8071", -ERANGE, "value out of range"},
    {"9223372036854776", -ERANGE, "value out of range"},
    {"10E", -ERANGE, "value out of range"},
    {"8E", -ERANGE, "value out of range"},
    {"1E", -ERANGE, "value out of range"},
    {"12E", -ERANGE, "value out of range"},
    {"1000E", -ERANGE, "value out of range"},
    {"1.01E", -ERANGE, "value out of range"},
    {"1E18", -ERANGE, "value out of range"},
    {"1.7E18", -ERANGE, "value out of range"},
    {"1e16", -ERANGE, "value out of range"},
    {"1e9223372036854775807", -ERANGE, "value out of range"},
    {"3Ei", -ERANGE, "value out of range"},
    {"9Ei", -ERANGE, "value out of range"},
    {"8389Ti", -ERANGE, "value out of range"},
    {"9223372036854775807Ki", -ERANGE, "value out of range"},
    {"-9223372036854775807Ki", -ERANGE, "value out of range"},
    {"100000000000000000000000000000000000000000", -ERANGE,
     "value out of range"},
    {"-100000000000000000000000000000000000000000.5", -ERANGE,
     "value out of range"},
};

/* Formatting a given milli-value (TestQuantityString, TestMilliNewSet,
 * TestNewSet, and the examples in quantity.h). */
struct format_case {
    int64_t milli;
    enum quantity_format format;
    const char *out;
};

static const struct format_case format_cases[] = {
    /* TestQuantityString. */
    {1073741824000, BSI, "1Gi"},
    {314572800000, BSI, "300Mi"},
    {6144000, BSI, "6Ki"},
    {1074815565824000, BSI, "1001Gi"},
    {1099511627776000, BSI, "1Ti"},
    {5000, BSI, "5"},
    {500, BSI, "500m"},
    {1000000000000, DSI, "1G"},
    {1, DSI, "1m"},
    {80, DSI, "80m"},
    {1080, DSI, "1080m"},
    {300000000000, DSI, "300M"},
    {1000000000000000, DSI, "1T"},
    {1234567000000000, DSI, "1234567M"},
    {1234567, BSI, "1234567m"},
    {3000000, DSI, "3k"},
    {1025000, BSI, "1025"},
    {0, DSI, "0"},
    {0, BSI, "0"},
    {1000000000000, DEX, "1e9"},
    {1, DEX, "1e-3"},
    {80, DEX, "80e-3"},
    {300000000000, DEX, "300e6"},
    {1000000000000000, DEX, "1e12"},
    {1000000, DEX, "1e3"},
    {3000000, DEX, "3e3"},
    {0, DEX, "0"},
    /* TestMilliNewSet. */
    {1000, DSI, "1"},
    {1234000, DSI, "1234"},
    {1024, BSI, "1024m"},
    {1000000, QUANTITY_FORMAT_MAX, "1e3"}, /* unknown format: exponent */
    {1048576, BSI, "1048576m"},
    /* TestNewSet (units * 1000). */
    {1000000, DSI, "1k"},
    {1234000000, DSI, "1234k"},
    {1024000, BSI, "1Ki"},
    {1000000000, QUANTITY_FORMAT_MAX, "1e6"},
    {1048576000, BSI, "1Mi"},
    /* quantity.h and Ordo's examples. */
    {1500, DSI, "1500m"},
    {1500000, DSI, "1500"},
    {1500, DEX, "1500e-3"},
    {1000, DEX, "1"},
    {1610612736000, BSI, "1536Mi"},
    {2147483648000, BSI, "2Gi"},
    {1023000, BSI, "1023"},
    {1024500, BSI, "1024500m"}, /* not whole units */
    {1000000000000000000, DSI, "1P"},
    {1000000000000000000, DEX, "1e15"},
    {INT64_MAX, DSI, "9223372036854775807m"},
    {INT64_MAX, BSI, "9223372036854775807m"},
    {INT64_MAX, DEX, "9223372036854775807e-3"},
    {INT64_MIN, DSI, "-9223372036854775808m"},
    {INT64_MIN, BSI, "-9223372036854775808m"},
    {INT64_MIN, DEX, "-9223372036854775808e-3"},
    {INT64_MAX / 1000 * 1000, DSI, "9223372036854775"},
    {9007199254740992000, BSI, "8Pi"},
    {-1024000, BSI, "-1Ki"},
    {-1023000, BSI, "-1023"},
};

static void check_format(int64_t milli, enum quantity_format format,
                         const char *want)
{
    struct quantity q = {.milli = milli, .format = format};
    char buf[QUANTITY_STR_MAX];
    int n = quantity_format(&q, buf, sizeof(buf));
    if (n < 0 || strcmp(buf, want) != 0 || (size_t)n != strlen(want))
        fail_msg("format(%" PRId64 ", %d): got %d \"%s\", want \"%s\"", milli,
                 (int)format, n, n < 0 ? "" : buf, want);
}

static void check_valid(const char *in, int64_t milli,
                        enum quantity_format format, const char *canonical)
{
    struct quantity q = {.milli = 12345, .format = QUANTITY_FORMAT_MAX};
    const char *reason = "unset";
    int r = quantity_parse(in, &q, &reason);
    if (r != 0)
        fail_msg("parse(\"%s\"): %d (%s)", in, r, reason);
    if (q.milli != milli)
        fail_msg("parse(\"%s\"): milli %" PRId64 ", want %" PRId64, in, q.milli,
                 milli);
    if (q.format != format)
        fail_msg("parse(\"%s\"): format %d, want %d", in, (int)q.format,
                 (int)format);
    check_format(q.milli, q.format, canonical);
}

static void test_parse_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
        const struct valid_case *c = &valid_cases[i];
        check_valid(c->in, c->milli, c->format, c->canonical);
    }
}

/* TestQuantityParse also tries every case with a "-" and a "+" in front. */
static void test_parse_signed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
        const struct valid_case *c = &valid_cases[i];
        char in[128], canonical[64];
        if (c->in[0] == '-' || c->in[0] == '+')
            continue;
        snprintf(in, sizeof(in), "+%s", c->in);
        check_valid(in, c->milli, c->format, c->canonical);

        snprintf(in, sizeof(in), "-%s", c->in);
        snprintf(canonical, sizeof(canonical), "%s%s", c->milli ? "-" : "",
                 c->canonical);
        check_valid(in, -c->milli, c->format, canonical);
    }
}

static void test_parse_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(invalid_cases) / sizeof(invalid_cases[0]);
         i++) {
        const struct invalid_case *c = &invalid_cases[i];
        struct quantity q = {.milli = 4242, .format = BSI};
        const char *reason = NULL;
        int r = quantity_parse(c->in, &q, &reason);
        if (r != c->rc)
            fail_msg("parse(\"%s\"): %d, want %d", c->in, r, c->rc);
        if (!reason || !*reason)
            fail_msg("parse(\"%s\"): no reason", c->in);
        if (c->reason && strcmp(reason, c->reason) != 0)
            fail_msg("parse(\"%s\"): reason \"%s\", want \"%s\"", c->in, reason,
                     c->reason);
        /* Nothing is stored on failure. */
        assert_int_equal(q.milli, 4242);
        assert_int_equal(q.format, BSI);
        /* A NULL reason pointer is allowed. */
        assert_int_equal(quantity_parse(c->in, &q, NULL), c->rc);
    }
    struct quantity q;
    const char *reason = NULL;
    assert_int_equal(quantity_parse(NULL, &q, &reason), -EINVAL);
    assert_string_equal(reason, "empty quantity");
}

static void test_parse_long_input(void **state)
{
    (void)state;
    static char in[100000];
    struct quantity q;

    /* 0.000...0001 with ~100000 digits still rounds up to 1m. */
    memset(in, '0', sizeof(in) - 1);
    in[1] = '.';
    in[sizeof(in) - 2] = '1';
    in[sizeof(in) - 1] = '\0';
    assert_int_equal(quantity_parse(in, &q, NULL), 0);
    assert_int_equal(q.milli, 1);

    /* ...and the same without the 1 is zero. */
    in[sizeof(in) - 2] = '0';
    assert_int_equal(quantity_parse(in, &q, NULL), 0);
    assert_int_equal(q.milli, 0);

    /* 000...0001Ki: leading zeros do not count against the range. */
    memset(in, '0', sizeof(in) - 1);
    strcpy(in + sizeof(in) - 4, "1Ki");
    assert_int_equal(quantity_parse(in, &q, NULL), 0);
    assert_int_equal(q.milli, 1024000);

    /* 1000...000 is out of range however it is written. */
    memset(in, '0', sizeof(in) - 1);
    in[0] = '1';
    in[sizeof(in) - 1] = '\0';
    assert_int_equal(quantity_parse(in, &q, NULL), -ERANGE);
}

static void test_format_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]);
         i++) {
        const struct format_case *c = &format_cases[i];
        check_format(c->milli, c->format, c->out);
        /* TestQuantityString: negatives print with a "-" (never "-0"). */
        if (c->milli > 0) {
            char neg[64];
            snprintf(neg, sizeof(neg), "-%s", c->out);
            check_format(-c->milli, c->format, neg);
        }
    }
}

static void test_format_nospace(void **state)
{
    (void)state;
    struct quantity q = {.milli = 1536, .format = DSI}; /* "1536m" */
    char buf[QUANTITY_STR_MAX];
    assert_int_equal(quantity_format(&q, buf, 6), 5);
    assert_string_equal(buf, "1536m");
    assert_int_equal(quantity_format(&q, buf, 5), -ENOSPC);
    assert_int_equal(quantity_format(&q, buf, 0), -ENOSPC);
    assert_int_equal(quantity_format(&q, NULL, 0), -ENOSPC);

    /* The longest outputs fit QUANTITY_STR_MAX. */
    q.milli = INT64_MIN;
    q.format = DEX;
    int n = quantity_format(&q, buf, sizeof(buf));
    assert_true(n > 0 && n < QUANTITY_STR_MAX);
}

static void test_str(void **state)
{
    (void)state;
    char buf[QUANTITY_STR_MAX];
    assert_ptr_equal(quantity_str(1500, DSI, buf), buf);
    assert_string_equal(buf, "1500m");
    assert_string_equal(quantity_str(1610612736000, BSI, buf), "1536Mi");
    assert_string_equal(quantity_str(1000000, DEX, buf), "1e3");
    assert_string_equal(quantity_str(-1500, DSI, buf), "-1500m");
    assert_string_equal(quantity_str(0, BSI, buf), "0");
}

/* format -> parse gives the same milli-value, and formatting that again in
 * the same format gives the same text. */
static void check_round_trip(int64_t milli, enum quantity_format format)
{
    struct quantity q = {.milli = milli, .format = format}, back;
    char text[QUANTITY_STR_MAX], again[QUANTITY_STR_MAX];
    const char *reason = NULL;
    assert_true(quantity_format(&q, text, sizeof(text)) > 0);
    int r = quantity_parse(text, &back, &reason);
    if (r != 0)
        fail_msg("round trip %" PRId64 " (%d): \"%s\": %s", milli, (int)format,
                 text, reason);
    if (back.milli != milli)
        fail_msg("round trip %" PRId64 " (%d): \"%s\" -> %" PRId64, milli,
                 (int)format, text, back.milli);
    back.format = format;
    assert_true(quantity_format(&back, again, sizeof(again)) > 0);
    assert_string_equal(text, again);
}

static void test_round_trip(void **state)
{
    (void)state;
    static const int64_t values[] = {
        0,
        1,
        -1,
        999,
        1000,
        1001,
        1500,
        1023999,
        1024000,
        1024001,
        1025000,
        1048576000,
        1610612736000,
        1000000000000000000,
        1152921504606846976,
        INT64_MAX,
        INT64_MIN,
        INT64_MAX - 1,
        INT64_MIN + 1,
        INT64_MAX / 1000 * 1000,
        INT64_MIN / 1000 * 1000,
        9007199254740992000,
        -9007199254740992000,
    };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        for (int f = 0; f <= QUANTITY_FORMAT_MAX; f++)
            check_round_trip(values[i], (enum quantity_format)f);

    /* Powers of ten and of 1024, and their neighbours. */
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10)
        for (int f = 0; f < QUANTITY_FORMAT_MAX; f++)
            for (int64_t d = -1; d <= 1; d++) {
                check_round_trip(p + d, (enum quantity_format)f);
                check_round_trip(-(p + d), (enum quantity_format)f);
            }
    for (int64_t p = 1000; p <= INT64_MAX / 1024; p *= 1024)
        for (int64_t k = 1; k < 8; k++)
            check_round_trip(p * k, BSI);

    /* A deterministic pseudo-random sweep over all magnitudes. */
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (x % 64));
        if (x & 1)
            v = -v;
        if (i % 3 == 0)
            v -= v % 1000; /* whole units, for the binary suffixes */
        check_round_trip(v, (enum quantity_format)(i % 3));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_signed),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_parse_long_input),
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_format_nospace),
        cmocka_unit_test(test_str),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests_name("quantity", tests, NULL, NULL);
}
