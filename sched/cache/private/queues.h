/* queues.h - ClusterQueues built from their objects and the quota tree
 * over them (queues.c). Private to the cache and the line. */
#ifndef ORDO_QUEUES_H
#define ORDO_QUEUES_H

#include "workload.h"

/* Rebuilds every ClusterQueue (quota, flavors, active state) from the
 * current objects, the quota tree, and every workload's queue membership
 * and usage (workload_requeue_all): after objects of the Kueue kinds
 * arrived. 0 or -ENOMEM. */
int cluster_rebuild_queues(struct cluster *c);

#endif
