/* log.h - leveled, klog-like log lines for the daemons.
 *
 *   I1202 15:04:05.000123 cycle.c:42] admitted workload wl="ns/job" cq="a"
 *
 * Only sched/ and topology/ log; core/ and plugins/ return errors instead.
 * Info lines carry a verbosity: LOG_V(2, ...) prints with -v 2 or higher. */
#ifndef ORDO_LOG_H
#define ORDO_LOG_H

#include <stdio.h>

enum log_level {
    LOG_INFO = 0,
    LOG_WARNING,
    LOG_ERROR,
    LOG_LEVEL_MAX
};

/* Sets the verbosity (-v N) and the stream (default stderr). */
void log_set_verbosity(int v);
int log_get_verbosity(void);
void log_set_stream(FILE *f);

/* Clock used for timestamps, so the simulator can log virtual time. It
 * returns nanoseconds since the Unix epoch. NULL restores the wall clock. */
typedef long long (*log_clock_fn)(void *userdata);
void log_set_clock(log_clock_fn fn, void *userdata);
/* A virtual clock (the simulator's): fn returns nanoseconds since the start
 * of the run, and lines carry it as seconds instead of a date:
 *   I[  12.500s] cycle.c:42] admitted workload wl="ns/job" cq="a"
 * log_set_clock() (NULL included) goes back to dates. */
void log_set_virtual_clock(log_clock_fn fn, void *userdata);

void log_write(enum log_level level, int verbosity, const char *file,
               int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define LOG_I(...) log_write(LOG_INFO, 0, __FILE__, __LINE__, __VA_ARGS__)
#define LOG_V(v, ...) log_write(LOG_INFO, (v), __FILE__, __LINE__, __VA_ARGS__)
#define LOG_W(...) log_write(LOG_WARNING, 0, __FILE__, __LINE__, __VA_ARGS__)
#define LOG_E(...) log_write(LOG_ERROR, 0, __FILE__, __LINE__, __VA_ARGS__)

#endif
