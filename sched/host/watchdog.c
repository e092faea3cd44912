/* watchdog.c - the cycle watchdog (see watchdog.h). The message is built
 * in advance as far as it can be; the handler only copies strings into a
 * buffer, write(2)s it and abort()s, all async-signal-safe. */
#include "watchdog.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"

const struct watchdog_mark *volatile watchdog_current;

static struct {
    bool started;
    timer_t timer;
    struct itimerspec arm;
    struct sigaction old;
    char prefix[128]; /* "ordo-scheduler: watchdog: ... 30s: " */
} wd;

/* Set while a cycle runs; the handler ignores an expiry without it. */
static volatile sig_atomic_t wd_in_cycle;

/* Appends s to buf (at *len, size bytes, one kept for the newline). */
static void put(char *buf, size_t size, size_t *len, const char *s)
{
    while (s && *s && *len + 2 < size)
        buf[(*len)++] = *s++;
}

static void on_alarm(int sig)
{
    (void)sig;
    if (!wd_in_cycle)
        return;
    const struct watchdog_mark *m = watchdog_current;
    char buf[512];
    size_t len = 0;
    put(buf, sizeof(buf), &len, wd.prefix);
    if (m) {
        put(buf, sizeof(buf), &len, "plugin ");
        put(buf, sizeof(buf), &len, m->plugin ? m->plugin : "?");
        put(buf, sizeof(buf), &len, " op ");
        put(buf, sizeof(buf), &len, m->op ? m->op : "?");
        put(buf, sizeof(buf), &len, " is running");
    } else {
        put(buf, sizeof(buf), &len,
            "no plugin op running (the host is "
            "stuck)");
    }
    put(buf, sizeof(buf), &len, "; aborting");
    buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
    abort();
}

int watchdog_start(int64_t timeout_ns)
{
    char when[32];
    watchdog_stop();
    if (timeout_ns <= 0)
        return 0;
    snprintf(wd.prefix, sizeof(wd.prefix),
             "ordo-scheduler: watchdog: a scheduling cycle ran longer than "
             "%s (cycleTimeout): ",
             duration_format(timeout_ns, when, sizeof(when)));
    wd.arm.it_value.tv_sec = (time_t)(timeout_ns / 1000000000);
    wd.arm.it_value.tv_nsec = (long)(timeout_ns % 1000000000);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, &wd.old) < 0)
        return -errno;
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGALRM;
    if (timer_create(CLOCK_MONOTONIC, &sev, &wd.timer) < 0) {
        int r = -errno;
        sigaction(SIGALRM, &wd.old, NULL);
        return r;
    }
    wd.started = true;
    return 0;
}

void watchdog_stop(void)
{
    if (!wd.started)
        return;
    wd_in_cycle = 0;
    timer_delete(wd.timer);
    sigaction(SIGALRM, &wd.old, NULL);
    wd.started = false;
}

void watchdog_arm(void)
{
    if (!wd.started)
        return;
    wd_in_cycle = 1;
    timer_settime(wd.timer, 0, &wd.arm, NULL);
}

void watchdog_disarm(void)
{
    wd_in_cycle = 0;
}
