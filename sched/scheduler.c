/* scheduler.c - the line between the world and the decisions: a backend
 * (the simulator, the Kubernetes API) feeds events into the cache and
 * calls scheduler_run(), which runs cycles (cycle/) until one changes
 * nothing; decisions leave through the backend's actions (scheduler.h). */
#include "scheduler.h"

#include <string.h>

#include "cycle.h"
#include "log.h"

/* Cycles run at one instant until one admits nothing; this bounds them
 * when something keeps changing without progress. */
#define CYCLES_PER_RUN_MAX 100000

void scheduler_init(struct scheduler *s, const struct sched_config *cfg,
                    const struct backend_ops *backend, void *backend_data)
{
    memset(s, 0, sizeof(*s));
    cluster_init(&s->cluster);
    s->config = cfg;
    s->backend = backend;
    s->backend_data = backend_data;
}

void scheduler_release(struct scheduler *s)
{
    if (s)
        cluster_release(&s->cluster);
}

int scheduler_run(struct scheduler *s)
{
    int total = 0;
    for (int i = 0; i < CYCLES_PER_RUN_MAX; i++) {
        int r = cluster_sync(&s->cluster);
        if (r < 0)
            return r;
        uint64_t parked = s->parked, evictions = s->evictions;
        r = cycle_run(s);
        if (r < 0)
            return r;
        if (r == 0 && s->parked == parked && s->evictions == evictions)
            return total;
        total += r;
    }
    LOG_W("stopped after %d cycles at one instant", CYCLES_PER_RUN_MAX);
    return total;
}
