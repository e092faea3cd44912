/* scheduler.h - the line between a backend (the simulator, the Kubernetes
 * API) and the scheduler: events in, actions out. Every backend uses this
 * and nothing else of the scheduler.
 *
 * A backend owns the world. It tells the scheduler what happens there, one
 * event at a time (objects added, updated and deleted, pod phases, Job
 * status, the clock, the outcome of an action it started), then calls
 * scheduler_run(), which applies what the events imply and runs cycles
 * until one changes nothing. Decisions leave through struct backend_ops.
 * Between calls the backend may read the cluster (scheduler_cluster()),
 * never change it: the functions that change the cache are not in its
 * include path. Pointers into the cluster are valid until the next event.
 *
 * Every event returns 0 or a negative errno and leaves the cache
 * consistent whatever it returns. Events are idempotent the way informers
 * need: an update of an object not known is an add, an add of one known is
 * an update, a delete of one not known changes nothing. */
#ifndef ORDO_SCHEDULER_H
#define ORDO_SCHEDULER_H

#include <stdint.h>

#include "cluster.h"
#include "objects.h"
#include "plugins.h"
#include "sched_config.h"

/* Opaque to backends: the line and the decision core see its definition
 * (line/scheduler_int.h). */
struct scheduler;

/* An action that the backend started and that will end later: its outcome
 * comes back as an event (scheduler_pod_bound or scheduler_pod_bind_failed
 * for bind, the pod's deletion for evict, the Job's pods for resume). An
 * action that returns 0 is done; a negative errno says it failed and that
 * the scheduler undoes what it assumed at once. */
#define BACKEND_STARTED 1

/* What the scheduler asks of the world. Each action returns 0 (done),
 * BACKEND_STARTED, or a negative errno. The scheduler calls them from
 * scheduler_run() only, and never knows which kind of backend it has; an
 * action may report its outcome through the events below before it
 * returns (a backend that answers at once, as the simulator does). The
 * pointers are valid for the call only. */
struct backend_ops {
    /* Binds pod p to node n (the pod is already assumed there). */
    int (*bind)(void *data, const struct pod *p, const struct node *n);
    /* Evicts pod p of a preempted workload: the backend removes it from
     * its node and reports the pod gone (scheduler_pod_phase FAILED, or
     * its deletion), and may say how (scheduler_evict_outcome). */
    int (*evict)(void *data, const struct pod *p);
    /* Resumes the suspended Job or JobSet of admitted workload w
     * (spec.suspend false): its controller then makes its pods, which the
     * cycle places. NULL: the backend cannot, and such workloads stay
     * pending. */
    int (*resume)(void *data, const struct workload *w);
};

/* A scheduler with started plugins (plugins stay the caller's: stop them
 * after scheduler_free) and an empty cluster, acting through backend
 * (data is passed to each action). 0 or -ENOMEM. */
int scheduler_new(const struct sched_config *cfg,
                  const struct plugin_registry *plugins,
                  const struct backend_ops *backend, void *backend_data,
                  struct scheduler **ret);
/* Frees the scheduler and every object it holds. Accepts NULL. */
void scheduler_free(struct scheduler *s);

/* ---- events in ------------------------------------------------------------
 * A backend calls these outside scheduler_run(), or from within an action
 * for that action's own outcome, in the order things happened. Each
 * returns 0 or a negative errno and, whatever it returns, leaves the
 * cache consistent; what an event implies for queues and quota is applied
 * at once or by the next scheduler_run(). */

/* The clock moved to now_ns (virtual or wall time, ns). Called before the
 * events of that instant; later events are stamped with it. 0, or -EINVAL
 * when it would go back (nothing changes then). */
int scheduler_clock(struct scheduler *s, int64_t now_ns);

/* Object o appeared: a Node, Pod, Namespace, PriorityClass, Job, JobSet,
 * or a Kueue object (ResourceFlavor, ClusterQueue, LocalQueue, Cohort,
 * WorkloadPriorityClass, Topology, AdmissionCheck). Takes o, whatever the
 * result. Objects may come in any order: what refers to one not known yet
 * waits for it.
 * One that is known already (an informer's replay) is an update. 0,
 * -EEXIST (a Job or JobSet whose key another kind's workload has: o
 * freed), -ENOTSUP (see scheduler_object_updated) or -ENOMEM. */
int scheduler_object_added(struct scheduler *s, struct object *o);

/* Object o is the new version of the object of its kind and key (an
 * informer's MODIFIED). Takes o. One not known is added. The change takes
 * effect on what it touches, without rebuilding anything else: a Node's
 * room and labels; a ClusterQueue's or Cohort's quota (admitted usage is
 * charged again, nothing is evicted); the pending workloads of a
 * LocalQueue, Namespace or WorkloadPriorityClass; a pending Job's pod
 * counts (an admitted Job whose counts change is stopped and queued again,
 * Kueue's rule); a Pod's phase. 0, -ENOTSUP (a JobSet's replicated jobs
 * changed, which its API forbids: o is freed, the old one stays) or
 * -ENOMEM. */
int scheduler_object_updated(struct scheduler *s, struct object *o);

/* The object of kind and key ("ns/name" or "name") is gone (an informer's
 * DELETED); one not known is no change. A Node takes no new pods (its pods
 * stay until their own deletions come, as the pod garbage collector sends
 * them); a Pod is gone (its room freed; an evicting workload whose last
 * bound pod it was queues again; a plain pod's workload ends); a Job's or
 * JobSet's workload leaves when its pods are gone; a ClusterQueue or
 * ResourceFlavor still in use stays terminating, admitting nothing, until
 * what was admitted with it is gone. 0 or -ENOMEM. */
int scheduler_object_deleted(struct scheduler *s, enum object_kind kind,
                             const char *key);

/* Pod key's phase changed to phase: POD_PHASE_RUNNING (it runs where it
 * was bound: a bind confirmed), POD_PHASE_SUCCEEDED or POD_PHASE_FAILED
 * (it leaves its node and stays, counted, until deleted). A single pod's
 * or a pod group's workload finishes when its pods succeeded. 0, -ENOENT
 * (no such pod) or -EINVAL (another phase). */
int scheduler_pod_phase(struct scheduler *s, const char *key,
                        enum pod_phase phase);

/* The status of Job or JobSet key (kind OBJ_JOB or OBJ_JOBSET) is st, as
 * its controller wrote it (st is read, not kept). The scheduler gives back
 * the quota of pods that will not run again (Kueue's reclaimablePods) and
 * finishes the workload when st says it completed. 0, -ENOENT (no such
 * object) or -EINVAL (st lists more replicated jobs than the JobSet
 * has). */
int scheduler_job_status(struct scheduler *s, enum object_kind kind,
                         const char *key, const struct job_status *st);

/* A bind that returned BACKEND_STARTED ended: bound (nothing changes: the
 * pod was assumed there), or failed (the scheduler takes the pod off its
 * node). After a failure, a workload another of whose pods is bound or
 * has a bind in flight (a gang) is never left split: it is stopped whole
 * (its bound pods evicted, the reason naming the pod and why, as
 * evicted_by), and queues again when they are gone. Otherwise its
 * admitted workload places the pod again, within its admission, at the
 * next scheduler_run(). A pod no longer where the bind put it is no
 * change. why: the backend's words ("node n1 not found", "pod deleted",
 * "lost a race"), or NULL. 0 or -ENOENT. */
int scheduler_pod_bound(struct scheduler *s, const char *key);
int scheduler_pod_bind_failed_why(struct scheduler *s, const char *key,
                                  const char *why);
/* scheduler_pod_bind_failed_why without a why. */
int scheduler_pod_bind_failed(struct scheduler *s, const char *key);

/* How the eviction of pod key went (the backend's words: "deleted",
 * "evicted", why it failed), kept on its workload's record; the pod's
 * deletion is its own event. 0 or -ENOENT. */
int scheduler_evict_outcome(struct scheduler *s, const char *key,
                            const char *how);

/* Applies what the events imply (frees what was deleted, queues what
 * arrived, stops workloads whose Job changed, brings progress up to date)
 * and runs cycles until one admits nothing (bounded); actions are called
 * from here only. Returns the number of workloads admitted, or a negative
 * errno. */
int scheduler_run(struct scheduler *s);

/* ---- what a backend may read ----------------------------------------- */

/* The cluster as the scheduler sees it, to read between calls. */
const struct cluster *scheduler_cluster(const struct scheduler *s);

struct scheduler_stats {
    uint64_t cycles;
    uint64_t admissions;
    uint64_t parked; /* heads parked by BestEffortFIFO, ever */
    uint64_t evictions;
};
void scheduler_get_stats(const struct scheduler *s,
                         struct scheduler_stats *ret);

/* Where a pending workload stands: 1-based, in its ClusterQueue's order
 * (its QUEUE plugin's, the order the cycle takes heads in) among all the
 * ClusterQueue's pending workloads, and among those of its LocalQueue. */
struct scheduler_queue_position {
    size_t cq_pos, cq_len;
    size_t lq_pos, lq_len;
};
/* The position of workload key (*ret). -ENOENT when there is no such
 * workload or it is not pending in a ClusterQueue. Brings the order up to
 * date when the pending list changed; decides nothing. */
int scheduler_queue_position(struct scheduler *s, const char *key,
                             struct scheduler_queue_position *ret);

/* The ClusterQueues whose usage changed since the last call, by index,
 * into *ret (free it; *ret_n entries): what a backend reports or samples.
 * 0 or -ENOMEM. */
int scheduler_take_usage_changed(struct scheduler *s, const struct cq ***ret,
                                 uint32_t *ret_n);

/* What changed since the last call, for a backend that writes status
 * back: the keys of workloads whose record changed (state, pods, reason,
 * history) or that left the cluster (cluster_get_workload() finds none),
 * and the names of the ClusterQueues and keys ("ns/name") of the
 * LocalQueues they were in. all: treat everything as changed (the first
 * call, which starts the tracking, or a change lost to no memory). The
 * strings and arrays are the caller's: scheduler_changes_release(). The
 * cost is the changes', not the cluster's. 0 or -ENOMEM (nothing lost:
 * the next call has it). */
struct scheduler_changes {
    bool all;
    char **workloads, **cqs, **lqs;
    size_t n_workloads, n_cqs, n_lqs;
};
int scheduler_take_changes(struct scheduler *s, struct scheduler_changes *ret);
/* Frees what ch holds and empties it. Accepts NULL. */
void scheduler_changes_release(struct scheduler_changes *ch);
/* ---- what a backend may observe -------------------------------------- */

/* Callbacks the scheduler makes as it decides (metrics; each may be
 * NULL). They run inside scheduler_run() or an event, must be cheap and
 * must not call back into the scheduler. Pointers are valid for the call
 * only. */
struct scheduler_observer {
    /* A cycle begins at the cluster's clock now_ns; it ends having
     * admitted `admitted` workloads. */
    void (*cycle_begin)(void *data, int64_t now_ns);
    void (*cycle_end)(void *data, int admitted);
    /* A head was tried: admitted or not (why: w->reason). */
    void (*attempt)(void *data, const struct workload *w, bool admitted);
    /* w got its quota (w->admitted_cq), pending since w->queue_ns. */
    void (*admitted)(void *data, const struct workload *w);
    /* Admitted w is evicted: reason is Kueue's (Preempted,
     * ClusterQueueStopped, LocalQueueStopped) or Ordo's (Stopped: its Job
     * changed, or its recorded admission cannot be honoured); a preempted
     * one names its preemptor (NULL when gone) and Kueue's preemption
     * reason (InClusterQueue, ...). */
    void (*evicted)(void *data, const struct workload *w, const char *reason,
                    const struct workload *preemptor,
                    const char *preempt_reason);
    /* w issued a preemption of n_victims workloads. */
    void (*preemption)(void *data, const struct workload *w,
                       uint32_t n_victims);
    /* w finished (succeeded, or evicted with nothing to run again). */
    void (*finished)(void *data, const struct workload *w);
};
/* Sets the observer (o and data stay the caller's; NULL: none). */
void scheduler_set_observer(struct scheduler *s,
                            const struct scheduler_observer *o, void *data);

#endif
