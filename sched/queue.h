/* queue.h - a ClusterQueue's pending workloads, ordered by its QUEUE
 * plugin (strict-fifo, best-effort-fifo, or a user's). */
#ifndef ORDO_QUEUE_H
#define ORDO_QUEUE_H

#include "cluster.h"

/* Appends w (pending) to q's queue and lists q among c's busy queues;
 * the order is restored lazily. 0 or -ENOMEM. */
int queue_push(struct cluster *c, struct cq *q, struct workload *w);
/* Removes w from q's queue when it is there. */
void queue_remove(struct cq *q, struct workload *w);
/* Sorts q's queue with its QUEUE plugin when it changed. */
void queue_sort(struct cq *q);

#endif
