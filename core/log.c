/* log.c - klog-like log lines (see log.h). Used by sched/ and topology/. */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

static int log_verbosity;
static FILE *log_stream;
static log_clock_fn log_clock;
static void *log_clock_data;
static int log_clock_virtual; /* log_set_virtual_clock: seconds, no date */

void log_set_verbosity(int v)
{
    log_verbosity = v < 0 ? 0 : v;
}

int log_get_verbosity(void)
{
    return log_verbosity;
}

void log_set_stream(FILE *f)
{
    log_stream = f;
}

void log_set_clock(log_clock_fn fn, void *userdata)
{
    log_clock = fn;
    log_clock_data = userdata;
    log_clock_virtual = 0;
}

void log_set_virtual_clock(log_clock_fn fn, void *userdata)
{
    log_set_clock(fn, userdata);
    log_clock_virtual = fn != NULL;
}

static long long log_now_ns(void)
{
    if (log_clock)
        return log_clock(log_clock_data);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void log_write(enum log_level level, int verbosity, const char *file, int line,
               const char *fmt, ...)
{
    static const char letters[LOG_LEVEL_MAX] = {'I', 'W', 'E'};

    if (level == LOG_INFO && verbosity > log_verbosity)
        return;
    if ((unsigned)level >= LOG_LEVEL_MAX)
        level = LOG_ERROR;
    FILE *out = log_stream ? log_stream : stderr;

    long long ns = log_now_ns();
    time_t sec = (time_t)(ns / 1000000000LL);
    struct tm tm;
    gmtime_r(&sec, &tm);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;

    /* One fprintf per line part, under the stream lock, so that lines from
     * an agent's helper threads do not interleave. */
    flockfile(out);
    if (log_clock_virtual)
        fprintf(out, "%c[%4lld.%03llds] %s:%d] ", letters[level],
                ns / 1000000000LL, (ns % 1000000000LL) / 1000000LL, base, line);
    else
        fprintf(out, "%c%02d%02d %02d:%02d:%02d.%06lld %s:%d] ", letters[level],
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                (ns % 1000000000LL) / 1000, base, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    funlockfile(out);
}
