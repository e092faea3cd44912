/* queue.h - the order of a ClusterQueue's pending workloads: its QUEUE
 * plugin's (strict-fifo, best-effort-fifo, or a user's). The list itself
 * is the cache's (cq_queue_push, cq_queue_remove). */
#ifndef ORDO_QUEUE_H
#define ORDO_QUEUE_H

#include "cluster.h"

/* Sorts q's queue with its QUEUE plugin when it changed. */
void queue_sort(struct cq *q);

#endif
