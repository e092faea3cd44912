/* fifo_order.h - what the strict-fifo and best-effort-fifo plugins share;
 * each stays one descriptor in its own file, and they differ only in
 * on_not_admitted.
 *
 * The queue order (Kueue's heap order, reference section 3.1): higher
 * priority first, then the earlier queue-order timestamp, then the
 * workload name, so that the order is total and the same on every run.
 * And the plugin's state (the host table), init, fini and less.
 *
 * Header-only and static inline so that each plugin stays one shared object
 * that needs nothing but <ordo/plugin.h>. */
#ifndef ORDO_PLUGINS_FIFO_ORDER_H
#define ORDO_PLUGINS_FIFO_ORDER_H

#include <errno.h>

#include <ordo/plugin.h>

/* strcmp() without <string.h>: bytes compared as unsigned char; NULL sorts
 * like "". */
static inline int fifo_order_strcmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)(a ? a : "");
    const unsigned char *y = (const unsigned char *)(b ? b : "");
    while (*x && *x == *y) {
        x++;
        y++;
    }
    return (int)*x - (int)*y;
}

/* True when a goes before b. A strict weak order; total over workloads
 * with distinct names ("ns/name" is unique). */
static inline bool fifo_order_less(const struct ordo_host *host,
                                   const struct ordo_workload *a,
                                   const struct ordo_workload *b)
{
    int32_t pa = host->wl_priority(a);
    int32_t pb = host->wl_priority(b);
    if (pa != pb)
        return pa > pb;
    int64_t ta = host->wl_queue_time(a);
    int64_t tb = host->wl_queue_time(b);
    if (ta != tb)
        return ta < tb;
    return fifo_order_strcmp(host->wl_name(a), host->wl_name(b)) < 0;
}

/* A FIFO plugin instance: all it keeps is the host table. */
struct fifo_queue {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

/* The descriptor's init. */
static inline int fifo_init(const struct ordo_host *host,
                            const struct ordo_plugin *p, void **ret_self)
{
    struct fifo_queue *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

/* The descriptor's fini. */
static inline void fifo_fini(void *self)
{
    struct fifo_queue *s = self;
    if (s)
        s->host->free(s);
}

/* The queue op less: the order above. */
static inline bool fifo_less(void *self, const struct ordo_workload *a,
                             const struct ordo_workload *b)
{
    const struct fifo_queue *s = self;
    return fifo_order_less(s->host, a, b);
}

#endif
