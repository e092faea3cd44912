/* watchdog.h - the cycle watchdog. Plugins run in-process and are trusted
 * code: one that hangs would stall the scheduler without a word. Every
 * plugin op call is bracketed by watchdog_enter / watchdog_leave, which
 * only store pointers, and each scheduling cycle arms a timer (one
 * timer_settime); a cycle that runs past its time makes the SIGALRM
 * handler write one line naming the plugin and op running (or "no plugin
 * op running" when the host itself is stuck) and abort the process. */
#ifndef ORDO_WATCHDOG_H
#define ORDO_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

/* Which plugin op is running; kept on the caller's stack for the call. */
struct watchdog_mark {
    const char *plugin; /* the plugin's name */
    const char *op;     /* the op: "select_victims", "init", ... */
    const struct watchdog_mark *prev;
};

/* The innermost op running, NULL when none (read by the handler). */
extern const struct watchdog_mark *volatile watchdog_current;

static inline void watchdog_enter(struct watchdog_mark *m, const char *plugin,
                                  const char *op)
{
    m->plugin = plugin;
    m->op = op;
    m->prev = watchdog_current;
    /* The handler must never see the mark before its fields. */
    atomic_signal_fence(memory_order_release);
    watchdog_current = m;
}

static inline void watchdog_leave(const struct watchdog_mark *m)
{
    watchdog_current = m->prev;
}

/* Sets the watchdog up for cycles of at most timeout_ns (> 0): a
 * CLOCK_MONOTONIC timer and a SIGALRM handler. 0 turns it off (nothing is
 * set up). Returns 0 or a negative errno. */
int watchdog_start(int64_t timeout_ns);

/* Removes the timer and the handler. Safe when not started. */
void watchdog_stop(void);

/* Start of a cycle: the timer counts timeout_ns from now. A no-op when the
 * watchdog is off. */
void watchdog_arm(void);

/* End of a cycle. Only a flag: a timer that still expires after the cycle
 * finds it clear and does nothing; the next arm restarts it. */
void watchdog_disarm(void);

#endif
