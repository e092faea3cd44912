/* decode_time.c - decode_parse_time() (decode.h): RFC 3339 times to int64
 * ns since the epoch, exactly as Kubernetes' metav1.Time reads them. Pure
 * text arithmetic: no time_t, no locale, no time zone database. */
#include "decode.h"

#include <errno.h>

static int parse_digits(const char **p, int n, int *ret)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return -EINVAL;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *ret = v;
    return 0;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_leap_year(int y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in_month(int mon, int year)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31};
    return mon == 2 && is_leap_year(year) ? 29 : days[mon - 1];
}

/* Days from 1970-01-01 to year-mon-day of the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil): exact in int64, no time_t involved. */
static int64_t days_from_civil(int64_t y, int mon, int day)
{
    y -= mon <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (mon > 2 ? mon - 3 : mon + 9) + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* What Go's time.Parse(time.RFC3339, s) accepts, as metav1.Time reads it:
 * its fixed-width fast path and, when that fails, the general layout parser,
 * which also takes a one-digit hour, ',' before the fraction and zone
 * offsets up to 24:00 and 00:60 (format.go: "some people do write offsets of
 * 24 hours or 60 minutes"). Digits of the fraction past the ninth are
 * dropped, as Go truncates. */
int decode_parse_time(const char *s, int64_t *ret_ns)
{
    int year, mon, day, hour, min, sec;
    const char *p = s;

    if (parse_digits(&p, 4, &year) < 0 || *p++ != '-' ||
        parse_digits(&p, 2, &mon) < 0 || *p++ != '-' ||
        parse_digits(&p, 2, &day) < 0 || *p++ != 'T' || !is_digit(*p))
        return -EINVAL;
    hour = *p++ - '0';
    if (is_digit(*p))
        hour = hour * 10 + (*p++ - '0');
    if (*p++ != ':' || parse_digits(&p, 2, &min) < 0 || *p++ != ':' ||
        parse_digits(&p, 2, &sec) < 0)
        return -EINVAL;
    if (mon < 1 || mon > 12 || day < 1 || day > days_in_month(mon, year) ||
        hour > 23 || min > 59 || sec > 59)
        return -EINVAL;
    int64_t frac_ns = 0;
    if ((*p == '.' || *p == ',') && is_digit(p[1])) {
        int digits = 0;
        for (p++; is_digit(*p); p++) {
            if (digits < 9) {
                frac_ns = frac_ns * 10 + (*p - '0');
                digits++;
            }
        }
        for (; digits < 9; digits++)
            frac_ns *= 10;
    }
    int offset_s = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (parse_digits(&p, 2, &oh) < 0 || *p++ != ':' ||
            parse_digits(&p, 2, &om) < 0 || oh > 24 || om > 60)
            return -EINVAL;
        offset_s = sign * (oh * 3600 + om * 60);
    } else {
        return -EINVAL;
    }
    if (*p)
        return -EINVAL;
    int64_t secs = days_from_civil(year, mon, day) * 86400 + hour * 3600 +
                   min * 60 + sec - offset_s;
    /* Years 0000-9999 are valid but only about 1678-2262 fit int64 ns:
     * saturate outside. */
    __int128 ns = (__int128)secs * 1000000000 + frac_ns;
    if (ns > INT64_MAX)
        ns = INT64_MAX;
    else if (ns < INT64_MIN)
        ns = INT64_MIN;
    *ret_ns = (int64_t)ns;
    return 0;
}
