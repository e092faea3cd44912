/* satmath.h - saturating int64 arithmetic for quantities and times.
 *
 * Quota and node accounting add and multiply int64 milli-units (count x
 * per-pod request, sums over pod sets and pods); times add durations to
 * nanosecond timestamps. None of it may wrap: a result out of range is
 * held at INT64_MAX (or INT64_MIN), and INT64_MAX then means "too large to
 * count". Whoever checks a fit treats a saturated need as one that never
 * fits (SAT_MAX is never <= anything, not even SAT_MAX). */
#ifndef ORDO_SATMATH_H
#define ORDO_SATMATH_H

#include <stdbool.h>
#include <stdint.h>

#define SAT_MAX INT64_MAX

static inline int64_t sat_add64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t sat_sub64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t sat_mul64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

/* Whether need (>= 0) fits in have: a saturated need never does. */
static inline bool sat_fits(int64_t need, int64_t have)
{
    return need != SAT_MAX && need <= have;
}

#endif
