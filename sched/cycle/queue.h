/* queue.h - a ClusterQueue's pending workloads as the cycle sees them: in
 * its QUEUE plugin's order (strict-fifo, best-effort-fifo, or a user's),
 * and the head that order gives. The list itself is the cache's
 * (cq_queue_push, cq_queue_remove). */
#ifndef ORDO_QUEUE_H
#define ORDO_QUEUE_H

#include "scheduler_int.h"

/* Gives cq the QUEUE plugin of its queueing strategy, as it is looked at:
 * only ClusterQueues with pending workloads need one. */
void queue_assign_plugin(struct scheduler *s, struct cq *cq);

/* Sorts cq's pending workloads with its QUEUE plugin when they changed. */
void queue_sort(struct cq *cq);

/* The head of cq, sorted first: a preemptor waiting for its victims, else
 * the first workload in order that is not parked (parked ones come back
 * when the requeue generation moved) and whose pods all exist; NULL when
 * none. */
struct workload *queue_head(const struct cluster *c, struct cq *cq);

#endif
