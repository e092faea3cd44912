/* queue.c - pending workloads of a ClusterQueue (see queue.h). The order
 * comes from the QUEUE plugin's `less`; the host only stores and sorts. */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugins.h"
#include "watchdog.h"

int queue_push(struct cluster *c, struct cq *q, struct workload *w)
{
    if (cluster_mark_busy(c, q) < 0)
        return -ENOMEM;
    if (q->n_pending == q->cap_pending) {
        size_t cap = q->cap_pending ? q->cap_pending * 2 : 16;
        struct workload **v = realloc(q->pending, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        q->pending = v;
        q->cap_pending = cap;
    }
    q->pending[q->n_pending++] = w;
    q->dirty = true;
    return 0;
}

void queue_remove(struct cq *q, struct workload *w)
{
    for (size_t i = 0; i < q->n_pending; i++) {
        if (q->pending[i] == w) {
            memmove(&q->pending[i], &q->pending[i + 1],
                    (q->n_pending - i - 1) * sizeof(*q->pending));
            q->n_pending--;
            return;
        }
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

void queue_sort(struct cq *q)
{
    if (!q->dirty || !q->queue_plugin || q->n_pending == 0)
        return;
    /* Workloads are handed to plugins as opaque ordo_workload handles. */
    qsort_r(q->pending, q->n_pending, sizeof(*q->pending), queue_cmp,
            q->queue_plugin);
    q->dirty = false;
}
