/* best_effort_fifo.c - the "best-effort-fifo" QUEUE plugin: Kueue's
 * BestEffortFIFO.
 *
 * Workloads go in priority order, then first come first served (see
 * fifo_order.h, which has all but on_not_admitted). A head that is not
 * admitted is parked until something relevant changes and the next
 * workload of its ClusterQueue gets its turn, so one that cannot fit does
 * not block smaller ones behind it (reference section 3.2). */
#include <ordo/plugin.h>

#include "fifo_order.h"

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
    .less = fifo_less,
    .on_not_admitted = best_effort_fifo_on_not_admitted,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "best-effort-fifo",
    .version = "1.0.0",
    .summary =
        "priority, then FIFO; a head that does not fit lets the next one try",
    .init = fifo_init,
    .fini = fifo_fini,
    .queue = &best_effort_fifo_ops,
};
