/* workload.h - assembling workloads (gangs) from Jobs, JobSets, pod groups
 * and single pods, and resolving their queue and priority.
 *
 * A pod is Ordo's when spec.schedulerName is "ordo-scheduler". Its workload
 * is, in order: the Job that controls it (batch/v1 owner reference), the
 * JobSet it belongs to (label jobset.sigs.k8s.io/jobset-name), its pod group
 * (kueue.x-k8s.io/pod-group-name annotation or label, size from
 * kueue.x-k8s.io/pod-group-total-count), or the pod alone. The queue is the
 * kueue.x-k8s.io/queue-name label of the top object (or the namespace's
 * LocalQueue "default" when it exists); without one the workload is not
 * Ordo's to schedule. */
#ifndef ORDO_WORKLOAD_H
#define ORDO_WORKLOAD_H

#include "cluster.h"

#define ORDO_SCHEDULER_NAME "ordo-scheduler"
#define LABEL_QUEUE_NAME "kueue.x-k8s.io/queue-name"
#define LABEL_PRIORITY_CLASS "kueue.x-k8s.io/priority-class"
#define ANNOT_POD_GROUP "kueue.x-k8s.io/pod-group-name"
#define ANNOT_POD_GROUP_COUNT "kueue.x-k8s.io/pod-group-total-count"
#define ANNOT_RETRIABLE_IN_GROUP "kueue.x-k8s.io/retriable-in-group"
#define LABEL_JOBSET_NAME "jobset.sigs.k8s.io/jobset-name"
#define LABEL_REPLICATED_JOB "jobset.sigs.k8s.io/replicatedjob-name"

/* The most pods one workload may have (its pod sets together: a Job's
 * parallelism, a JobSet's replicas x parallelism summed, a pod group's
 * total count): Kubernetes' own limit for an Indexed Job's completions and
 * parallelism. A workload above it is filed and queued, shown as pending
 * with a reason, but never admitted, and the simulator makes none of its
 * pods. */
#define WORKLOAD_PODS_MAX 100000

/* Files a Pod (takes ownership): attaches it to its workload, creating a
 * pod-group or single-pod workload when needed; a pod with a node is running
 * and charged to it. */
int workload_add_pod(struct cluster *c, struct object *o);

/* Files a Job or JobSet (takes ownership) and creates its workload when it
 * is Ordo's (pod template schedulerName) and not suspended. */
int workload_add_owner(struct cluster *c, struct object *o);

/* Re-resolves every workload's LocalQueue and ClusterQueue, rebuilds queue
 * membership and quota usage from admitted workloads. */
int workload_requeue_all(struct cluster *c);

/* Queues one workload (pending: into its ClusterQueue; admitted: charged
 * to it). Idempotent until workload_requeue_all(). */
int workload_enqueue(struct cluster *c, struct workload *w);

/* Whether admitted workload w takes quota of resource id in flavor f
 * ("pods" included where its ClusterQueue covered it), by its charges. */
bool workload_uses_fr(const struct workload *w, const struct flavor *f,
                      int32_t id);

/* Records what admitting w to q with its flavors (laid out by q's groups)
 * charges (w->charges): from then on its usage, whatever q lists later.
 * 0 or -ENOMEM. */
int workload_record_charges(struct workload *w, const struct cq *q);

/* Whether every pod set has its pods (pending) so the gang can be bound.
 * O(pod sets): from the counts pod_set_state() keeps. */
bool workload_ready(const struct workload *w);

/* Pods of pod set ps that have no node yet (O(1)). */
uint32_t workload_pending_pods(const struct workload *w, uint32_t ps);

/* Moves pod p of JobSet workload w to child Job `child` of its pod set
 * (the simulator's JobSet controller), keeping the per-child counts. */
void workload_set_pod_child(struct workload *w, struct pod *p, uint32_t child);

/* Sets w->reason (printf rules). */
void workload_set_reason(struct workload *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An evicted workload whose pods are gone: releases its quota, clears its
 * admission and queues it again (keeping its creation time for order). */
void workload_requeue_evicted(struct cluster *c, struct workload *w);

/* Marks the workload finished and releases its quota. */
void workload_finish(struct cluster *c, struct workload *w);

void workload_free(struct workload *w);

#endif
