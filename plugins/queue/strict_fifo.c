/* strict_fifo.c - the "strict-fifo" QUEUE plugin: Kueue's StrictFIFO.
 *
 * Workloads go in priority order, then first come first served (see
 * fifo_order.h, which has all but on_not_admitted). A head that is not
 * admitted stays the head and blocks every workload behind it in its
 * ClusterQueue; only a higher-priority arrival overtakes it (reference
 * section 3.2). */
#include <ordo/plugin.h>

#include "fifo_order.h"

static enum ordo_queue_action
strict_fifo_on_not_admitted(void *self, const struct ordo_workload *wl,
                            enum ordo_verdict verdict)
{
    (void)self;
    (void)wl;
    (void)verdict;
    return ORDO_QUEUE_HOLD;
}

static const struct ordo_queue_ops strict_fifo_ops = {
    .less = fifo_less,
    .on_not_admitted = strict_fifo_on_not_admitted,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "strict-fifo",
    .version = "1.0.0",
    .summary = "priority, then FIFO; a head that does not fit blocks its queue",
    .init = fifo_init,
    .fini = fifo_fini,
    .queue = &strict_fifo_ops,
};
