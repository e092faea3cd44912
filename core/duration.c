/* duration.c - Go-style duration parsing and formatting (see duration.h). */
#include "duration.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *unit;
    int64_t ns;
} units[] = {
    {"ns", 1LL},        {"us", 1000LL},           {"\xc2\xb5s", 1000LL},
    {"ms", 1000000LL},  {"s", 1000000000LL},      {"m", 60000000000LL},
    {"h", 3600000000000LL},
};

int duration_parse(const char *s, int64_t *ret_ns)
{
    if (!s || !*s)
        return -EINVAL;
    if (strcmp(s, "0") == 0) {
        *ret_ns = 0;
        return 0;
    }
    __int128 total = 0;
    const char *p = s;
    while (*p) {
        __int128 whole = 0, frac = 0, scale = 1;
        int digits = 0;
        while (*p >= '0' && *p <= '9') {
            whole = whole * 10 + (*p++ - '0');
            digits++;
            if (whole > (__int128)INT64_MAX)
                return -ERANGE;
        }
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9') {
                if (scale < 1000000000000000000LL) {
                    frac = frac * 10 + (*p - '0');
                    scale *= 10;
                }
                p++;
                digits++;
            }
        }
        if (digits == 0)
            return -EINVAL;
        size_t best = 0;
        int64_t unit_ns = 0;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t n = strlen(units[i].unit);
            if (n > best && strncmp(p, units[i].unit, n) == 0) {
                best = n;
                unit_ns = units[i].ns;
            }
        }
        if (!best)
            return -EINVAL;
        p += best;
        total += whole * unit_ns + frac * unit_ns / scale;
        if (total > (__int128)INT64_MAX)
            return -ERANGE;
    }
    *ret_ns = (int64_t)total;
    return 0;
}

const char *duration_format(int64_t ns, char *buf, size_t size)
{
    int64_t s = ns / 1000000000LL, rem = ns % 1000000000LL;
    int64_t h = s / 3600, m = (s % 3600) / 60, sec = s % 60;
    char frac[16] = "";
    if (rem) {
        snprintf(frac, sizeof(frac), ".%09lld", (long long)rem);
        for (size_t n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
            frac[n - 1] = '\0';
    }
    if (h)
        snprintf(buf, size, "%lldh%lldm%lld%ss", (long long)h, (long long)m,
                 (long long)sec, frac);
    else if (m)
        snprintf(buf, size, "%lldm%lld%ss", (long long)m, (long long)sec, frac);
    else
        snprintf(buf, size, "%lld%ss", (long long)sec, frac);
    return buf;
}
