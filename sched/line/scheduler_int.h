/* scheduler_int.h - the scheduler as the line (scheduler.c) and the
 * decision core (cycle/) see it: its definition, and the cache functions
 * that change things. Backends include scheduler.h only. */
#ifndef ORDO_SCHEDULER_INT_H
#define ORDO_SCHEDULER_INT_H

#include "events.h"
#include "scheduler.h"

struct scheduler {
    struct cluster cluster;
    struct plugin_registry plugins;
    const struct sched_config *config;
    const struct backend_ops *backend;
    void *backend_data;
    uint64_t cycles;
    uint64_t admissions;
    uint64_t parked; /* heads parked by BestEffortFIFO, ever */
    uint64_t evictions;
    const struct scheduler_observer *obs; /* metrics; NULL: none */
    void *obs_data;
};

/* Calls the observer's fn, when there is one. */
#define SCHED_OBSERVE(s, fn, ...)                                              \
    do {                                                                       \
        if ((s)->obs && (s)->obs->fn)                                          \
            (s)->obs->fn((s)->obs_data, __VA_ARGS__);                          \
    } while (0)

/* Sets up s in place (see scheduler_new); the cluster starts empty and
 * the plugins are filled in by the caller. */
void scheduler_init(struct scheduler *s, const struct sched_config *cfg,
                    const struct backend_ops *backend, void *backend_data);
/* Releases the cluster (plugins are stopped by their owner). */
void scheduler_release(struct scheduler *s);

#endif
