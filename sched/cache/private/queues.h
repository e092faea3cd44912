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

/* After a ClusterQueue, Cohort or ResourceFlavor changed: rebuilds every
 * ClusterQueue's groups and the quota tree from ClusterQueues and cohorts
 * only, and charges the admitted workloads again as they were admitted
 * (no workload is rebuilt). Pending workloads are queued again in
 * `changed` and in every ClusterQueue whose active state changed. Nothing
 * when a full rebuild is due. 0 or -ENOMEM. */
int queues_refresh(struct cluster *c, const struct cq *changed);

/* Takes ClusterQueue q out (nothing is admitted to it any more): its
 * pending workloads wait for a ClusterQueue of its name. 0 or -ENOMEM. */
int queues_remove_cq(struct cluster *c, struct cq *q);

/* Whether an admitted workload's charges use flavor f. */
bool queues_flavor_in_use(const struct cluster *c, const struct flavor *f);

/* Whether some ClusterQueue or LocalQueue is HoldAndDrain (c->drain). */
void queues_drain_refresh(struct cluster *c);

#endif
