/* duration.h - Go-style durations ("90s", "1h30m", "1.5h", "250ms"), as
 * used by the simulator's annotations and command line. */
#ifndef ORDO_DURATION_H
#define ORDO_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Parses s into nanoseconds: a sequence of decimal numbers, each with an
 * optional fraction and a unit (ns, us, µs, ms, s, m, h); "0" alone is
 * allowed. Negative durations are rejected. 0, -EINVAL or -ERANGE. */
int duration_parse(const char *s, int64_t *ret_ns);

/* Formats ns compactly: "0s", "45s", "1m30s", "2h0m5s", "1.5s". Returns
 * buf. */
const char *duration_format(int64_t ns, char *buf, size_t size);

#endif
