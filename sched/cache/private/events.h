/* events.h - what a backend reports, applied to the cache (events.c): the
 * one dispatcher above the store, workload assembly and the queues. The
 * line (scheduler.c) calls these for the events of scheduler.h; tests call
 * them on a bare cluster. Private to the cache and the line. */
#ifndef ORDO_EVENTS_H
#define ORDO_EVENTS_H

#include "queues.h"

/* Takes ownership of o and files it. Pods are attached to their workload
 * (or become one); Jobs and JobSets become workloads; objects of the Kueue
 * kinds have the queues rebuilt at the next cluster_sync(). One that
 * exists already is updated (cluster_update). Returns 0, -EEXIST (a Job
 * whose key another kind's workload has; o is freed) or -ENOMEM. */
int cluster_add(struct cluster *c, struct object *o);

/* Object o (taken) is the new version of its object; one not known is
 * added. What changed takes effect on what it touches (see events.c).
 * 0, -ENOTSUP (a JobSet whose replicated jobs changed: o freed, the old
 * one stays) or -ENOMEM. */
int cluster_update(struct cluster *c, struct object *o);

/* The object of kind and key is gone; one not known is no change. A Node
 * leaves (its pods stay until they are deleted); a Job or JobSet's
 * workload leaves when its pods are gone; a ClusterQueue or ResourceFlavor
 * in use stays, terminating, until what was admitted with it is gone. 0 or
 * -ENOMEM. */
int cluster_delete(struct cluster *c, enum object_kind kind, const char *key);

/* Pod p is deleted: it leaves its node and the store; an evicting
 * workload whose last bound pod it was is requeued; a plain pod's
 * workload ends (admitted) or leaves (pending). 0 or -ENOMEM. */
int cluster_pod_delete(struct cluster *c, struct pod *p);

/* Brings queues up to date after a batch of events: frees what was
 * deleted (cluster_purge), rebuilds ClusterQueues when Kueue objects
 * arrived, else queues new workloads; ClusterQueues and ResourceFlavors
 * that were terminating go when nothing admitted uses them. 0 or
 * -ENOMEM. */
int cluster_sync(struct cluster *c);

/* Brings the progress of every workload that changed since the last call
 * up to date (workload_progress), in creation order. 0 or -ENOMEM. */
int cluster_progress_changed(struct cluster *c);

/* Pod p failed (or its eviction ended it): it leaves its node and counts as
 * failed; when the last pod of an evicting workload is gone, the workload
 * gives its quota back and queues again. */
void cluster_pod_gone(struct cluster *c, struct pod *p);

/* Pod p succeeded: it leaves its node (where it ran stays p->node). */
void cluster_pod_succeeded(struct cluster *c, struct pod *p);

/* The status of the Job or JobSet of kind and key is st: its workload's
 * progress follows (workload_progress). 0, -ENOENT (no such object) or
 * -EINVAL (st does not fit the object: a JobSet status listing more
 * replicated jobs than it has). */
int cluster_job_status(struct cluster *c, enum object_kind kind,
                       const char *key, const struct job_status *st);

#endif
