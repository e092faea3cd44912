/* strict_fifo.c - the "strict-fifo" QUEUE plugin: Kueue's StrictFIFO.
 *
 * Workloads go in priority order, then first come first served (see
 * fifo_order.h). A head that is not admitted stays the head and blocks every
 * workload behind it in its ClusterQueue; only a higher-priority arrival
 * overtakes it (reference section 3.2). */
#include <errno.h>

#include <ordo/plugin.h>

#include "fifo_order.h"

struct strict_fifo {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

static int strict_fifo_init(const struct ordo_host *host,
                            const struct ordo_plugin *p, void **ret_self)
{
    struct strict_fifo *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

static void strict_fifo_fini(void *self)
{
    struct strict_fifo *s = self;
    if (s)
        s->host->free(s);
}

static bool strict_fifo_less(void *self, const struct ordo_workload *a,
                             const struct ordo_workload *b)
{
    const struct strict_fifo *s = self;
    return fifo_order_less(s->host, a, b);
}

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
    .less = strict_fifo_less,
    .on_not_admitted = strict_fifo_on_not_admitted,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "strict-fifo",
    .version = "1.0.0",
    .summary = "priority, then FIFO; a head that does not fit blocks its queue",
    .init = strict_fifo_init,
    .fini = strict_fifo_fini,
    .queue = &strict_fifo_ops,
};
