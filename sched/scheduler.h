/* scheduler.h - the scheduler: the cluster cache, the plugins, the
 * configuration and the backend it acts through.
 *
 * A backend (the simulator, later the Kubernetes API) feeds events into the
 * cluster and calls scheduler_run() when they are applied; the scheduler
 * runs cycles and leaves through the backend's actions. */
#ifndef ORDO_SCHEDULER_H
#define ORDO_SCHEDULER_H

#include "cluster.h"
#include "sched_config.h"
#include "plugins.h"

/* What the scheduler asks of the world. Each action returns 0 or a negative
 * errno; on error the scheduler undoes its assumption. */
struct backend_ops {
    /* Binds pod p to node n (the pod is already assumed there). */
    int (*bind)(void *data, struct pod *p, struct node *n);
    /* Evicts pod p of a preempted workload: the backend removes it from
     * its node and reports the pod gone with cluster_pod_gone(). */
    int (*evict)(void *data, struct pod *p);
    /* Resumes the suspended Job or JobSet of admitted workload w
     * (spec.suspend false): its controller then makes its pods, which the
     * cycle places. NULL: the backend cannot, and such workloads stay
     * pending. */
    int (*resume)(void *data, struct workload *w);
};

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
};

/* Sets up the scheduler with started plugins; the cluster starts empty. */
void scheduler_init(struct scheduler *s, const struct sched_config *cfg,
                    const struct backend_ops *backend, void *backend_data);
/* Releases the cluster (plugins are stopped by their owner). */
void scheduler_release(struct scheduler *s);

/* Applies pending queue changes and runs cycles until one admits nothing
 * (bounded). Returns the number of workloads admitted, or a negative errno. */
int scheduler_run(struct scheduler *s);

#endif
