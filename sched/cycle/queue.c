/* queue.c - the order of a ClusterQueue's pending workloads (see queue.h):
 * the QUEUE plugin's `less`; the cache keeps the list (cq_queue_push). */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugins.h"
#include "watchdog.h"

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

void queue_sort(struct cq *q)
{
    if (!q->dirty || !q->queue_plugin || q->n_pending == 0)
        return;
    /* Workloads are handed to plugins as opaque ordo_workload handles. */
    qsort_r(q->pending, q->n_pending, sizeof(*q->pending), queue_cmp,
            q->queue_plugin);
    q->dirty = false;
}
