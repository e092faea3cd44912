/* kube_backend.h - the Kubernetes backend: informers (core/kube/
 * kinformer.h) feed the scheduler's events, and its actions become API
 * requests (bind, evict, resume).
 *
 * Events: every object an informer reports is decoded (core/decode.h) and
 * sent as scheduler_object_added / _updated / _deleted; a Pod's update
 * carries its phase; a Job's or JobSet's status goes to
 * scheduler_job_status. An object the decoder refuses is skipped with a
 * log line and handed to the rejected hook (an Event on it, later). Leases
 * go to their own hook. Nothing is scheduled before every informer synced
 * (kube_backend_synced()).
 *
 * Actions (kube_bind.c):
 *   bind    POST pods/{name}/binding with the pod's uid as precondition and
 *           the admission in metadata.annotations (they land on the pod:
 *           ordo.dev/workload, ordo.dev/cluster-queue, ordo.dev/pod-set,
 *           ordo.dev/flavors "res=flavor,..."). 201 bound. 409 "already
 *           assigned to node" the same node: bound; another: a lost race,
 *           the pod is read again and its real node reported (never retried
 *           blindly). 5xx or no answer: unknown, resolved by a GET of the
 *           pod. Other answers: failed. An outcome does not count as a
 *           change (kube_backend_take_changed()): a pod taken back is
 *           placed again by the next periodic cycle, not at once, so that
 *           a bind the server keeps refusing does not spin.
 *   evict   kube_evict.h
 *   resume  PATCH spec.suspend=false (merge patch), retried on 5xx. */
#ifndef ORDO_KUBE_BACKEND_H
#define ORDO_KUBE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kinformer.h"
#include "krequest.h"
#include "kube_evict.h"
#include "scheduler.h"

/* The resources watched, in this order. */
enum kube_res {
    KRES_NAMESPACE = 0,
    KRES_NODE,
    KRES_PRIORITY_CLASS,
    KRES_RESOURCE_FLAVOR,
    KRES_COHORT,
    KRES_CLUSTER_QUEUE,
    KRES_LOCAL_QUEUE,
    KRES_WORKLOAD_PRIORITY_CLASS,
    KRES_TOPOLOGY,
    KRES_ADMISSION_CHECK,
    KRES_JOB,
    KRES_JOBSET,
    KRES_POD,
    KRES_LEASE,
    KRES_MAX
};

struct kube_backend_options {
    int64_t evict_grace_seconds; /* < 0: the pod's own */
    const char *lease_namespace; /* NULL: "kube-system" */
    /* An object the decoder refused (why: the decoder's message). */
    void (*rejected)(void *data, struct json_object *obj, const char *why);
    /* A Lease of lease_namespace changed (deleted: ev KINF_DELETED). */
    void (*lease)(void *data, enum kinf_event ev, struct json_object *obj);
    void *hook_data;
    /* Write Workload objects, queue and pod status and Events
     * (kube_status.h); workloads_off: all but the Workload objects. */
    bool write_status, workloads_off;
    /* Their rate (a second) and burst; 0: KUBE_STATUS_RATE, _BURST. */
    uint32_t write_rate, write_burst;
};

struct kube_backend_stats {
    uint64_t events, rejected, binds, bound, bind_conflicts, bind_unknown,
        bind_failed, resumes, resume_failed;
    uint64_t writes, writes_failed; /* status writes sent, failed */
    uint64_t status_full;           /* passes that filed everything */
};

struct kube_backend;

/* The backend_ops the scheduler is made with (data: the backend). */
extern const struct backend_ops kube_backend_ops;

/* A backend over kc and q (neither owned; free them after it). 0 and *ret
 * (free with kube_backend_free()), -EINVAL or -ENOMEM. */
int kube_backend_new(struct kclient *kc, struct krequests *q,
                     const struct kube_backend_options *opt,
                     struct kube_backend **ret);
/* Cancels its requests and frees it. Accepts NULL. */
void kube_backend_free(struct kube_backend *kb);
/* Gives it the scheduler made with kube_backend_ops and kb (not owned)
 * and starts the informers. 0 or a negative errno. */
int kube_backend_start(struct kube_backend *kb, struct scheduler *s);

/* Every informer listed once. */
bool kube_backend_synced(const struct kube_backend *kb);
/* Whether an event arrived since the last call (and forgets it). */
bool kube_backend_take_changed(struct kube_backend *kb);
void kube_backend_get_stats(const struct kube_backend *kb,
                            struct kube_backend_stats *ret);
/* After scheduler_run(): files what changed in the write queue
 * (kube_status.h). 0 or a negative errno. */
int kube_backend_write_status(struct kube_backend *kb);
/* Sends the writes the rate allows now (asynchronously). 0 or a negative
 * errno. */
int kube_backend_drain_writes(struct kube_backend *kb);
/* Before exiting: files what the last cycle changed and sends the
 * pending status writes, waiting for their answers, until none is left
 * or deadline_ns (CLOCK_MONOTONIC) passes. 0 (all out), -ETIMEDOUT
 * (some left) or a negative errno. */
int kube_backend_flush(struct kube_backend *kb, int64_t deadline_ns);
/* Binds (and the reads that resolve them) and resumes in flight. */
size_t kube_backend_ops_in_flight(const struct kube_backend *kb);
/* Evicts again the pods whose eviction failed (kube_evict_retry()) and
 * resumes again the jobs whose resume failed (kube_resume_retry()). */
void kube_backend_retry_actions(struct kube_backend *kb);
/* The informer of a resource, to read (tests, status). */
struct kinformer *kube_backend_informer(const struct kube_backend *kb,
                                        enum kube_res r);

/* The Binding for pod p on node n with its admission annotations, as JSON
 * text (free it). NULL on no memory. */
char *kube_binding_json(const struct cluster *c, const struct pod *p,
                        const char *node);

#endif
