/* best_effort_fifo.c - the "best-effort-fifo" QUEUE plugin: Kueue's
 * BestEffortFIFO.
 *
 * Workloads go in priority order, then first come first served (see
 * fifo_order.h). A head that is not admitted is parked until something
 * relevant changes and the next workload of its ClusterQueue gets its turn,
 * so one that cannot fit does not block smaller ones behind it (reference
 * section 3.2). */
#include <errno.h>

#include <ordo/plugin.h>

#include "fifo_order.h"

struct best_effort_fifo {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

static int best_effort_fifo_init(const struct ordo_host *host,
                                 const struct ordo_plugin *p, void **ret_self)
{
    struct best_effort_fifo *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

static void best_effort_fifo_fini(void *self)
{
    struct best_effort_fifo *s = self;
    if (s)
        s->host->free(s);
}

static bool best_effort_fifo_less(void *self, const struct ordo_workload *a,
                                  const struct ordo_workload *b)
{
    const struct best_effort_fifo *s = self;
    return fifo_order_less(s->host, a, b);
}

static enum ordo_queue_action
best_effort_fifo_on_not_admitted(void *self, const struct ordo_workload *wl,
                                 enum ordo_verdict verdict)
{
    (void)self;
    (void)wl;
    (void)verdict;
    return ORDO_QUEUE_NEXT;
}

static const struct ordo_queue_ops best_effort_fifo_ops = {
    .less = best_effort_fifo_less,
    .on_not_admitted = best_effort_fifo_on_not_admitted,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "best-effort-fifo",
    .version = "1.0.0",
    .summary =
        "priority, then FIFO; a head that does not fit lets the next one try",
    .init = best_effort_fifo_init,
    .fini = best_effort_fifo_fini,
    .queue = &best_effort_fifo_ops,
};
