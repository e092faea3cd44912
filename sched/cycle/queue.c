/* queue.c - a ClusterQueue's pending workloads as the cycle sees them (see
 * queue.h): its QUEUE plugin given by its queueing strategy, the order
 * that plugin's `less` gives, and the head of that order; the cache keeps
 * the list (cq_queue_push). */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugins.h"
#include "watchdog.h"
#include "workload.h"

void queue_assign_plugin(struct scheduler *s, struct cq *cq)
{
    struct ordo_plugin *p =
        cq->obj->u.cluster_queue.queueing_strategy == QUEUEING_STRICT_FIFO
            ? s->plugins.queue_strict
            : s->plugins.queue_best_effort;
    if (cq->queue_plugin != p) {
        cq->queue_plugin = p;
        cq->dirty = true;
    }
}

static int queue_cmp(const void *a, const void *b, void *arg)
{
    const struct ordo_plugin *p = arg;
    const struct ordo_workload *wa = *(const struct ordo_workload *const *)a;
    const struct ordo_workload *wb = *(const struct ordo_workload *const *)b;
    struct watchdog_mark m;
    watchdog_enter(&m, p->desc->name, "less");
    int r = p->desc->queue->less(p->self, wa, wb)   ? -1
            : p->desc->queue->less(p->self, wb, wa) ? 1
                                                    : 0;
    watchdog_leave(&m);
    return r;
}

void queue_sort(struct cq *cq)
{
    const struct ordo_plugin *p = cq->queue_plugin;
    if (!p || cq->n_pending == 0)
        return;
    /* An order that reads host->now (ageing) goes stale as time passes:
     * sorted again whenever the clock moved since. */
    int64_t now = p->clock_ns ? *p->clock_ns : 0;
    if (!cq->dirty && !(p->reads_clock && cq->sorted_ns != now))
        return;
    /* Workloads are handed to plugins as opaque ordo_workload handles. */
    qsort_r(cq->pending, cq->n_pending, sizeof(*cq->pending), queue_cmp,
            cq->queue_plugin);
    cq->dirty = false;
    cq->sorted_ns = now;
}

/* A Job or JobSet whose controller is still creating its pods (new, or
 * recreating them after an eviction) keeps its place: in a StrictFIFO
 * ClusterQueue nothing behind it is admitted meanwhile, as in Kueue, where
 * the Workload object queues whether or not its pods exist. */
struct workload *queue_head(const struct cluster *c, struct cq *cq)
{
    bool strict =
        cq->obj->u.cluster_queue.queueing_strategy == QUEUEING_STRICT_FIFO;
    queue_sort(cq);
    /* A workload that issued preemptions stays the head until it is
     * admitted (Kueue's sticky preemptor): what it freed is for it. */
    for (size_t i = 0; c->n_preempting && i < cq->n_pending; i++)
        if (cq->pending[i]->preempting && workload_ready(cq->pending[i]))
            return cq->pending[i];
    uint64_t gen = cq_requeue_gen(c, cq);
    for (size_t i = 0; i < cq->n_pending; i++) {
        struct workload *w = cq->pending[i];
        /* Never a head: outside the namespaceSelector, or more pods than
         * Ordo admits (the reason says so). */
        if (w->ns_mismatch || w->over_cap ||
            (w->parked && w->parked_gen >= gen))
            continue;
        w->parked = false;
        if (!workload_ready(w)) {
            workload_set_reason(c, w, "waiting for the pods of the workload to "
                                   "be created");
            if (strict && (w->kind == WL_JOB || w->kind == WL_JOBSET))
                return NULL;
            continue;
        }
        return w;
    }
    return NULL;
}
