/* kube_workload.h - the Kueue v1beta2 Workload object of each workload
 * Ordo queues, built from the scheduler's record (cluster.h, history.h):
 * metadata as Kueue names and labels it, spec (queue, priority, pod sets
 * with their counts and requests), and status (Kueue's conditions with
 * its reasons and messages, the admission with flavors and usage).
 *
 * Pure builders: they read the cluster and return new json-c objects
 * (the caller owns them). kube_workload_put() files the object and its
 * status in the write queue (kube_writes.h), which sends the merge patch
 * of what changed. */
#ifndef ORDO_KUBE_WORKLOAD_H
#define ORDO_KUBE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cluster.h"
#include "kube_writes.h"

#define KUBE_WORKLOAD_API "kueue.x-k8s.io/v1beta2"
/* A Kubernetes object name and its NUL. */
#define KUBE_NAME_MAX 254

/* What the builders cannot know from the cluster. uid_of: the uid the API
 * server gave the Workload object of workload key (for the Preempted
 * message), or NULL; uid_of itself may be NULL (Kueue writes "UNKNOWN"). */
struct kube_wl_opts {
    const char *(*uid_of)(void *data, const char *wl_key);
    void *data;
};

/* The name Kueue gives w's Workload into buf (KUBE_NAME_MAX): for a Job,
 * JobSet or single pod "<kind>-<name>-<hash>" (GetWorkloadNameForOwner
 * WithGVK: the first 5 hex digits of the SHA-1 of kind, group, name and
 * uid, one per line; the prefix cut at 247 characters), for a pod group
 * the group's name. 0, -EINVAL (no object name) or -ENAMETOOLONG. */
int kube_workload_name(const struct workload *w, char *buf, size_t size);

/* The whole Workload object of w, status included (*ret, new). 0,
 * -EINVAL or -ENOMEM. */
int kube_workload_object(const struct cluster *c, const struct workload *w,
                         const struct kube_wl_opts *o,
                         struct json_object **ret);
/* {"status": {...}} of w alone (*ret, new): conditions, admission when it
 * holds quota, reclaimablePods. 0 or -ENOMEM. */
int kube_workload_status(const struct cluster *c, const struct workload *w,
                         const struct kube_wl_opts *o,
                         struct json_object **ret);

/* The last eviction of w in Kueue's words: returns the Evicted reason
 * ("Preempted", "ClusterQueueStopped", "LocalQueueStopped", or
 * "OutOfSync" when its Job changed under it), the message into buf, and
 * the Preempted reason (InClusterQueue, ...) into *ret_preempted, NULL when
 * no workload preempted it. */
const char *kube_workload_eviction(const struct cluster *c,
                                   const struct workload *w,
                                   const struct kube_wl_opts *o, char *buf,
                                   size_t size, const char **ret_preempted);

/* Files w's Workload in q: the object without status (created by POST,
 * then patched) under key "Workload <ns>/<name>", and its status (patched
 * on the status subresource) under "Workload/status <ns>/<name>".
 * Condition times that did not change status are kept from the last state
 * put. 0 or a negative errno. */
int kube_workload_put(struct kube_writes *q, const struct cluster *c,
                      const struct workload *w, const struct kube_wl_opts *o);
/* Forgets w's two keys in q (the workload left). */
void kube_workload_forget(struct kube_writes *q, const struct workload *w);

#endif
