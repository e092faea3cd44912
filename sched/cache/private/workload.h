/* workload.h - workloads (gangs): assembling them from Jobs, JobSets, pod
 * groups and single pods (workload.c), and queueing them: their queue and
 * priority, admission records, eviction, progress and finish
 * (queueing.c). Private to the cache, the line and the decision core.
 *
 * A pod is Ordo's when spec.schedulerName is "ordo-scheduler". Its workload
 * is, in order: the JobSet it belongs to (label
 * jobset.sigs.k8s.io/jobset-name: in a cluster its pods are owned by the
 * JobSet's child Jobs, which are not workloads of their own), the Job that
 * controls it (batch/v1 owner reference), its pod group
 * (kueue.x-k8s.io/pod-group-name annotation or label, size from
 * kueue.x-k8s.io/pod-group-total-count), or the pod alone. The queue is the
 * kueue.x-k8s.io/queue-name label of the top object (or the namespace's
 * LocalQueue "default" when it exists); without one the workload is not
 * Ordo's to schedule. */
#ifndef ORDO_WORKLOAD_H
#define ORDO_WORKLOAD_H

#include "store.h"

/* ---- assembly (workload.c) ---------------------------------------------- */

/* Files a Pod (takes ownership): attaches it to its workload, creating a
 * pod-group or single-pod workload when needed; a pod with a node is running
 * and charged to it. 0, -EEXIST (a pod of that key is there: o is still
 * the caller's) or -ENOMEM. */
int workload_add_pod(struct cluster *c, struct object *o);

/* Files a Job or JobSet (takes ownership) and creates its workload when it
 * is Ordo's (pod template schedulerName). 0, -EEXIST (o freed) or
 * -ENOMEM. */
int workload_add_owner(struct cluster *c, struct object *o);

/* Sets w's pod set counts and requests from its Job's or JobSet's spec
 * (w->top), as Kueue does for a workload without quota, or for the new
 * workload of a job that changed. 0 or -ENOMEM. */
int workload_apply_spec(struct workload *w);
/* w's Job or JobSet object is now o (w->top and the pod sets' templates
 * point into it; the caller frees the old one). Returns whether the pod
 * counts o asks for differ from w's. */
bool workload_set_top(struct workload *w, struct object *o);
/* Pod object old of w is replaced by o: what pointed into old points into
 * o. */
void workload_repoint_pod(struct workload *w, const struct object *old,
                          struct object *o);

/* ---- queueing (queueing.c) ---------------------------------------------- */

/* Re-resolves every workload's LocalQueue and ClusterQueue, rebuilds queue
 * membership and quota usage from admitted workloads. */
int workload_requeue_all(struct cluster *c);

/* Queues one workload (pending: into its ClusterQueue; admitted: charged
 * to it). Idempotent until workload_requeue_all(). One found running
 * (bound before Ordo saw it) is admitted with the admission its bound pods
 * record (recover.h), exactly, else with flavors inferred from its nodes'
 * labels; a record that cannot be honoured, or whose pods still to place
 * would exceed the quota, has it evicted whole by the line
 * (cluster_mark_stop, w->stop_why). */
int workload_enqueue(struct cluster *c, struct workload *w);

/* Queues the n workloads of v (workload_enqueue), those found running
 * with pods still to place last, in creation order: whether they fit is
 * judged once the others are charged. Reorders v. 0 or -ENOMEM. */
int workload_enqueue_batch(struct cluster *c, struct workload **v, size_t n);

/* Resolves pending workload w's queue again (it leaves the queue it was
 * in): after its LocalQueue, Namespace, priority class or spec changed.
 * 0 or -ENOMEM. */
int workload_requeue(struct cluster *c, struct workload *w);

/* After a ClusterQueue changed, lays admitted workload w's flavors out by
 * q's resource groups. 0 or -ENOMEM. */
int workload_remap_flavors(struct workload *w, const struct cq *q);

/* Whether admitted workload w takes quota of resource id in flavor f
 * ("pods" included where its ClusterQueue covered it), by its charges. */
bool workload_uses_fr(const struct workload *w, const struct flavor *f,
                      int32_t id);

/* Records what admitting w to q with its flavors (laid out by q's groups)
 * charges (w->charges): from then on its usage, whatever q lists later;
 * and the version of q whose quota decided it (w->admitted_cq_version,
 * a copy of q->built_version). 0 or -ENOMEM. */
int workload_record_charges(struct workload *w, const struct cq *q);

/* Whether every pod set has its pods (pending) so the gang can be bound.
 * O(pod sets): from the counts pod_set_state() keeps. */
bool workload_ready(const struct workload *w);

/* Pods of pod set ps that have no node yet (O(1)). */
uint32_t workload_pending_pods(const struct workload *w, uint32_t ps);

/* Sets w->reason (printf rules); a reason that differs from the last
 * one is noted in its history (WL_EV_WAITING). Returns whether the text
 * changed: callers log a reason only then. */
bool workload_set_reason(const struct cluster *c, struct workload *w,
                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An evicted workload whose pods are gone: releases its quota, clears its
 * admission and queues it again (keeping its creation time for order). */
void workload_requeue_evicted(struct cluster *c, struct workload *w);

/* Marks the workload finished and releases its quota. */
void workload_finish(struct cluster *c, struct workload *w);

/* Brings what w's progress decides up to date: the quota of pods it no
 * longer needs (Kueue's reclaimablePods: from its Job's status, a pod
 * group's from its pods that succeeded) is given back, and w finishes when
 * its Job's status says it completed (a pod group when all its pods
 * succeeded, a pod when it did). */
void workload_progress(struct cluster *c, struct workload *w);

/* ---- history (history.c) ------------------------------------------------ */

/* Appends an event at c->now_ns to w's history; cq, detail and by (any
 * may be NULL) are copied. Keeps at most WL_HISTORY_MAX events (history.h
 * says which go first). 0, or -ENOMEM (the event is lost and counted in
 * n_dropped). */
int workload_note(const struct cluster *c, struct workload *w,
                  enum wl_event_type type, const char *cq, const char *detail,
                  const char *by);
/* Notes WL_EV_WAITING with reason when it differs from the last WAITING
 * note since w's last admission (a new pending period notes it again); one
 * that differs only in its numbers from a WAITING note that ends the
 * history is folded into it (history.h). Returns whether it noted or
 * folded. */
bool workload_note_reason(const struct cluster *c, struct workload *w,
                          const char *reason);
/* Notes WL_EV_ADMITTED: w's admitted ClusterQueue and its flavors from its
 * charges ("podset: resource=flavor, ..."). 0 or -ENOMEM. */
int workload_note_admitted(const struct cluster *c, struct workload *w);
/* Notes WL_EV_PLACED once per admission, when every pod of admitted w has
 * a node (or succeeded): called as a pod is bound. */
void workload_note_placed(const struct cluster *c, struct workload *w);
/* Frees the events (workload_free). Accepts NULL. */
void workload_history_release(struct wl_history *h);

#endif
