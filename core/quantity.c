/* quantity.c - Kubernetes resource.Quantity parsing and canonical formatting
 * (see quantity.h).
 *
 * The rules follow k8s.io/apimachinery/pkg/api/resource (quantity.go,
 * suffix.go, amount.go, math.go):
 *
 *   <quantity> ::= <sign>? <number> <suffix>
 *   <number>   ::= <digits> | <digits>. | <digits>.<digits> | .<digits>
 *   <suffix>   ::= "" | n | u | m | k | M | G | T | P | E       (decimal SI)
 *                | Ki | Mi | Gi | Ti | Pi | Ei                 (binary SI)
 *                | (e|E) <sign>? <digits>  (exponent, fits int64)
 *
 * The value is computed exactly with integer arithmetic (no floating point):
 * the digit string D, the number of fraction digits F and the suffix give
 * value = D * 10^(exp - F) or D * 2^bits / 10^F, and the milli-value is
 * ceil(|value| * 1000) with the sign put back afterwards, i.e. finer values
 * round away from zero like int64Amount.AsScaledInt64(Milli) does.
 * Kubernetes first rounds to nano (away from zero) when parsing and then to
 * milli in MilliValue(); both round the magnitude up, so rounding once to
 * milli gives the same result.
 *
 * Where Ordo deliberately differs from upstream (see also the report that came
 * with this file):
 *   - a number without any digit ("+", ".", "-.", "Mi", "k", "e3") is an
 *     error; upstream's fast path happens to read those as 0;
 *   - an exponent is taken at its full int64 value; upstream truncates it to
 *     int32, so "1e4294967296" reads as 1 there and is -ERANGE here;
 *   - a value whose milli-value does not fit int64 is -ERANGE; upstream keeps
 *     it (or caps binary SI at 2^63-1) and MilliValue() then overflows. */
#include "quantity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

/* Largest magnitudes of a positive and a negative int64. */
#define MAG_POS ((u128)INT64_MAX)
#define MAG_NEG ((u128)INT64_MAX + 1)

enum suffix_base {
    BASE_10,
    BASE_2,
};

struct suffix_def {
    const char *text;
    enum suffix_base base;
    int exp; /* power of 10 for BASE_10, power of 2 for BASE_2 */
};

static const struct suffix_def suffixes[] = {
    {"", BASE_10, 0},   {"n", BASE_10, -9}, {"u", BASE_10, -6},
    {"m", BASE_10, -3}, {"k", BASE_10, 3},  {"M", BASE_10, 6},
    {"G", BASE_10, 9},  {"T", BASE_10, 12}, {"P", BASE_10, 15},
    {"E", BASE_10, 18}, {"Ki", BASE_2, 10}, {"Mi", BASE_2, 20},
    {"Gi", BASE_2, 30}, {"Ti", BASE_2, 40}, {"Pi", BASE_2, 50},
    {"Ei", BASE_2, 60},
};

/* Suffixes people write by mistake, with a reason naming them. Anything else
 * gets the plain "unknown suffix". */
/* clang-format off */
#define UNKNOWN_SUFFIX(s) {s, "unknown suffix \"" s "\""}
/* clang-format on */
static const struct {
    const char *text;
    const char *reason;
} unknown_suffixes[] = {
    UNKNOWN_SUFFIX("K"),   UNKNOWN_SUFFIX("KB"),  UNKNOWN_SUFFIX("Kb"),
    UNKNOWN_SUFFIX("kB"),  UNKNOWN_SUFFIX("kb"),  UNKNOWN_SUFFIX("KiB"),
    UNKNOWN_SUFFIX("ki"),  UNKNOWN_SUFFIX("KI"),  UNKNOWN_SUFFIX("MB"),
    UNKNOWN_SUFFIX("Mb"),  UNKNOWN_SUFFIX("mb"),  UNKNOWN_SUFFIX("MiB"),
    UNKNOWN_SUFFIX("mi"),  UNKNOWN_SUFFIX("MI"),  UNKNOWN_SUFFIX("GB"),
    UNKNOWN_SUFFIX("Gb"),  UNKNOWN_SUFFIX("gb"),  UNKNOWN_SUFFIX("GiB"),
    UNKNOWN_SUFFIX("gi"),  UNKNOWN_SUFFIX("GI"),  UNKNOWN_SUFFIX("g"),
    UNKNOWN_SUFFIX("TB"),  UNKNOWN_SUFFIX("Tb"),  UNKNOWN_SUFFIX("TiB"),
    UNKNOWN_SUFFIX("ti"),  UNKNOWN_SUFFIX("t"),   UNKNOWN_SUFFIX("PB"),
    UNKNOWN_SUFFIX("PiB"), UNKNOWN_SUFFIX("pi"),  UNKNOWN_SUFFIX("p"),
    UNKNOWN_SUFFIX("EB"),  UNKNOWN_SUFFIX("EiB"), UNKNOWN_SUFFIX("ei"),
    UNKNOWN_SUFFIX("i"),   UNKNOWN_SUFFIX("B"),   UNKNOWN_SUFFIX("b"),
    UNKNOWN_SUFFIX("%"),
};

/* The number part of a parsed quantity: digits int_digits[0..n_int) followed
 * by frac_digits[0..n_frac), without the '.'. */
struct digits {
    const char *int_digits;
    size_t n_int;
    const char *frac_digits;
    size_t n_frac;
};

static int fail(const char **reterr_reason, int code, const char *reason)
{
    if (reterr_reason)
        *reterr_reason = reason;
    return code;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

static unsigned digit_at(const struct digits *d, size_t i)
{
    char c = i < d->n_int ? d->int_digits[i] : d->frac_digits[i - d->n_int];
    return (unsigned)(c - '0');
}

static bool digits_zero(const struct digits *d)
{
    for (size_t i = 0; i < d->n_int + d->n_frac; i++)
        if (digit_at(d, i) != 0)
            return false;
    return true;
}

static u128 pow10_u128(unsigned n)
{
    u128 r = 1;
    while (n--)
        r *= 10;
    return r;
}

/* Computes ceil(D * mul / 10^div) where D is the digit string in d, and
 * stores it in *ret. Returns false when the result exceeds limit (limit must
 * be below 2^64, mul below 2^100). Works for digit strings of any length. */
static bool scale_digits(const struct digits *d, u128 mul, uint64_t div,
                         u128 limit, u128 *ret)
{
    size_t total = d->n_int + d->n_frac;
    size_t lead = 0;
    while (lead < total && digit_at(d, lead) == 0)
        lead++;
    size_t n = total - lead;
    if (n == 0) {
        *ret = 0;
        return true;
    }

    /* D = hi * 10^div + lo, lo being the last min(n, div) digits. */
    size_t n_hi = div < n ? n - (size_t)div : 0;
    u128 hi = 0;
    for (size_t i = 0; i < n_hi; i++) {
        hi = hi * 10 + digit_at(d, lead + i);
        if (hi > limit)
            return false;
    }

    /* floor(lo * mul / 10^div) by Horner's rule from the last digit; c
     * stays below mul, inexact records any non-zero remainder. */
    u128 c = 0;
    bool inexact = false;
    for (size_t i = total; i > lead + n_hi; i--) {
        u128 v = (u128)digit_at(d, i - 1) * mul + c;
        inexact |= v % 10 != 0;
        c = v / 10;
    }
    /* The implicit zeros left of lo when div > n: only divide c further. */
    for (uint64_t z = (uint64_t)(n - n_hi); z < div && c != 0; z++) {
        inexact |= c % 10 != 0;
        c /= 10;
    }
    if (inexact)
        c++;

    if (hi != 0 && mul > limit / hi)
        return false;
    u128 r = hi * mul;
    if (c > limit - r)
        return false;
    *ret = r + c;
    return true;
}

/* ceil(|value| * 10^target) for a decimal suffix: value = D * 10^(exp - F).
 * exp10 is the suffix's power of ten; D must not be zero. */
static bool scale_decimal(const struct digits *d, int64_t exp10, int target,
                          u128 limit, u128 *ret)
{
    s128 s = (s128)exp10 - (s128)d->n_frac + target;
    if (s >= 0) {
        if (s > 19)
            return false; /* D is not zero, so this is at least 10^20 */
        return scale_digits(d, pow10_u128((unsigned)s), 0, limit, ret);
    }
    s128 div = -s;
    return scale_digits(d, 1, div > UINT64_MAX ? UINT64_MAX : (uint64_t)div,
                        limit, ret);
}

/* ceil(|value| * 10^target) for a binary suffix: value = D * 2^bits / 10^F.
 * target is 3 (milli) or 9 (nano). */
static bool scale_binary(const struct digits *d, int bits, int target,
                         u128 limit, u128 *ret)
{
    u128 mul = (u128)1 << bits;
    uint64_t div = 0;
    if (d->n_frac < (size_t)target)
        mul *= pow10_u128((unsigned)target - (unsigned)d->n_frac);
    else
        div = (uint64_t)(d->n_frac - (size_t)target);
    return scale_digits(d, mul, div, limit, ret);
}

/* Parses the exponent of an "e"/"E" suffix like strconv.ParseInt(s, 10, 64):
 * optional sign, at least one digit, nothing else, int64 range. */
static int parse_exponent(const char *s, int64_t *ret, const char **reason)
{
    bool negative = false;
    if (*s == '+' || *s == '-')
        negative = *s++ == '-';
    if (!*s) {
        *reason = "exponent has no digits";
        return -EINVAL;
    }
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    bool overflow = false;
    for (; *s; s++) {
        if (!is_digit(*s)) {
            *reason = "malformed exponent";
            return -EINVAL;
        }
        unsigned dg = (unsigned)(*s - '0');
        if (v > (limit - dg) / 10)
            overflow = true;
        else
            v = v * 10 + dg;
    }
    if (overflow) {
        *reason = "exponent out of range";
        return -EINVAL;
    }
    if (negative)
        *ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *ret = (int64_t)v;
    return 0;
}

static const char *unknown_suffix_reason(const char *suffix)
{
    for (size_t i = 0;
         i < sizeof(unknown_suffixes) / sizeof(unknown_suffixes[0]); i++)
        if (strcmp(suffix, unknown_suffixes[i].text) == 0)
            return unknown_suffixes[i].reason;
    return "unknown suffix";
}

int quantity_parse(const char *s, struct quantity *ret,
                   const char **reterr_reason)
{
    if (!s || !*s)
        return fail(reterr_reason, -EINVAL, "empty quantity");
    for (const char *c = s; *c; c++)
        if (is_space(*c))
            return fail(reterr_reason, -EINVAL, "whitespace in quantity");

    const char *p = s;
    bool negative = false;
    if (*p == '+' || *p == '-')
        negative = *p++ == '-';
    if (*p == '+' || *p == '-')
        return fail(reterr_reason, -EINVAL, "more than one sign");

    struct digits d = {.int_digits = p};
    while (is_digit(*p))
        p++;
    d.n_int = (size_t)(p - d.int_digits);
    d.frac_digits = p;
    if (*p == '.') {
        d.frac_digits = ++p;
        while (is_digit(*p))
            p++;
        d.n_frac = (size_t)(p - d.frac_digits);
        if (*p == '.')
            return fail(reterr_reason, -EINVAL, "more than one decimal point");
    }
    if (d.n_int + d.n_frac == 0)
        return fail(reterr_reason, -EINVAL, "no digits");

    const char *suffix = p;
    const struct suffix_def *def = NULL;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        if (strcmp(suffix, suffixes[i].text) == 0) {
            def = &suffixes[i];
            break;
        }
    }

    enum quantity_format format;
    int64_t exp10 = 0;
    if (def) {
        format = def->base == BASE_2 ? QUANTITY_BINARY_SI : QUANTITY_DECIMAL_SI;
        exp10 = def->exp;
    } else if ((suffix[0] == 'e' || suffix[0] == 'E') && suffix[1]) {
        const char *reason;
        int r = parse_exponent(suffix + 1, &exp10, &reason);
        if (r < 0)
            return fail(reterr_reason, r, reason);
        format = QUANTITY_DECIMAL_EXPONENT;
    } else if (suffix[0] == 'e') {
        return fail(reterr_reason, -EINVAL, "exponent has no digits");
    } else {
        return fail(reterr_reason, -EINVAL, unknown_suffix_reason(suffix));
    }

    bool ok = true;
    u128 mag = 0;
    u128 limit = negative ? MAG_NEG : MAG_POS;
    if (digits_zero(&d)) {
        /* Zero with any suffix or exponent; keeps the suffix's format. */
    } else if (format == QUANTITY_BINARY_SI) {
        ok = scale_binary(&d, (int)exp10, 3, limit, &mag);
        /* Like ParseQuantity: a binary quantity strictly between 0 and 1
         * (after rounding to nano) is kept as decimal SI. */
        u128 nano;
        if (ok && scale_binary(&d, (int)exp10, 9, 999999999, &nano))
            format = QUANTITY_DECIMAL_SI;
    } else {
        ok = scale_decimal(&d, exp10, 3, limit, &mag);
    }
    if (!ok)
        return fail(reterr_reason, -ERANGE, "value out of range");

    int64_t milli;
    if (!negative)
        milli = (int64_t)mag;
    else if (mag == MAG_NEG)
        milli = INT64_MIN;
    else
        milli = -(int64_t)mag;
    ret->milli = milli;
    ret->format = format;
    return 0;
}

static const char *decimal_suffix(int exp)
{
    static const char *const names[] = {"n", "u", "m", "",  "k",
                                        "M", "G", "T", "P", "E"};
    if (exp < -9 || exp > 18 || exp % 3 != 0)
        return NULL;
    return names[(exp + 9) / 3];
}

int quantity_format(const struct quantity *q, char *buf, size_t size)
{
    static const char *const binary[] = {"",   "Ki", "Mi", "Gi",
                                         "Ti", "Pi", "Ei"};
    char tmp[QUANTITY_STR_MAX];
    int64_t v = q->milli;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    const char *sign = v < 0 ? "-" : "";
    unsigned format = (unsigned)q->format;
    int n;

    /* Like CanonicalizeBytes: an unknown format prints as an exponent. */
    if (format >= QUANTITY_FORMAT_MAX)
        format = QUANTITY_DECIMAL_EXPONENT;

    /* Binary SI only for whole units of at least 1024 in magnitude. */
    if (format == QUANTITY_BINARY_SI && (m < 1024000 || m % 1000 != 0))
        format = QUANTITY_DECIMAL_SI;

    if (m == 0) {
        n = snprintf(tmp, sizeof(tmp), "0");
    } else if (format == QUANTITY_BINARY_SI) {
        uint64_t units = m / 1000;
        unsigned e = 0;
        while (units >= 1024 && units % 1024 == 0 && e < 6) {
            units /= 1024;
            e++;
        }
        n = snprintf(tmp, sizeof(tmp), "%s%" PRIu64 "%s", sign, units,
                     binary[e]);
    } else {
        /* Move factors of ten into the exponent, then back out until the
         * exponent is a multiple of three (AsCanonicalBytes). This never
         * grows the mantissa beyond m. */
        int e = -3;
        while (m >= 10 && m % 10 == 0) {
            m /= 10;
            e++;
        }
        while (e % 3 != 0) {
            m *= 10;
            e--;
        }
        const char *suffix = decimal_suffix(e);
        if (format == QUANTITY_DECIMAL_SI && suffix)
            n = snprintf(tmp, sizeof(tmp), "%s%" PRIu64 "%s", sign, m, suffix);
        else if (e == 0)
            n = snprintf(tmp, sizeof(tmp), "%s%" PRIu64, sign, m);
        else
            n = snprintf(tmp, sizeof(tmp), "%s%" PRIu64 "e%d", sign, m, e);
    }

    if (n < 0 || (size_t)n >= size)
        return -ENOSPC;
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}

const char *quantity_str(int64_t milli, enum quantity_format format,
                         char buf[QUANTITY_STR_MAX])
{
    struct quantity q = {.milli = milli, .format = format};
    if (quantity_format(&q, buf, QUANTITY_STR_MAX) < 0)
        buf[0] = '\0'; /* cannot happen: QUANTITY_STR_MAX always fits */
    return buf;
}
