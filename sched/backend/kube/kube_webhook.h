/* kube_webhook.h - the mutating admission webhook that brings jobs
 * written for Kueue to Ordo: an admission.k8s.io/v1 AdmissionReview in,
 * an AdmissionReview out whose JSONPatch sets schedulerName to
 * "ordo-scheduler" where queue_rule.h says the object is Ordo's:
 *   Pod     /spec/schedulerName
 *   Job     /spec/template/spec/schedulerName
 *   JobSet  /spec/replicatedJobs/N/template/spec/template/spec/schedulerName
 *           for each replicated job whose pods name no other scheduler
 * so that a Job's pods are Ordo's from the start. Only CREATE is mutated
 * (schedulerName cannot change afterwards); the answer is always
 * allowed: the webhook defaults, it never refuses (failurePolicy: Ignore
 * semantics on our side too).
 *
 * The owner chain (pod -> Job -> JobSet) and namespaces' labels come from
 * the informers' cache (get). A pod whose Job or JobSet is in the cache
 * follows that owner: its workload is the owner's, so a pod is left
 * unchanged when the owner's own pods are not Ordo's (a Job made before
 * the webhook ran), since Ordo would never place it. An owner not in the
 * cache: the rule is applied to what the review carries; when that has no
 * queue label, the pod is allowed unchanged (said in the outcome). */
#ifndef ORDO_KUBE_WEBHOOK_H
#define ORDO_KUBE_WEBHOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "objects.h"
#include "queue_rule.h"

#define KUBE_WEBHOOK_MAX_BODY  ((size_t)4 << 20) /* bytes of one review */
#define KUBE_WEBHOOK_MAX_DEPTH 64                /* JSON nesting */

/* The cached object of kind and key ("ns/name"), or NULL. */
typedef const struct object *(*kube_webhook_get_fn)(void *data,
                                                    enum object_kind kind,
                                                    const char *key);

struct kube_webhook {
    const struct queue_rule *rule; /* NULL: the defaults */
    kube_webhook_get_fn get;       /* NULL: nothing is cached */
    void *get_data;
};

/* What one review decided, for the log. */
struct kube_webhook_outcome {
    bool patched;
    char what[512]; /* "Pod ns/name: schedulerName set (queue q)", ... */
};

/* Answers the AdmissionReview body[0..len): 200 with *ret_body a new
 * AdmissionReview (JSON), or 400 with *ret_body a message saying what is
 * wrong with the review; 500 with "out of memory". *ret_body is malloc'd
 * (the caller frees it) or NULL when even that failed. ret_out may be
 * NULL. Never reads past len. */
unsigned kube_webhook_review(const struct kube_webhook *w, const char *body,
                             size_t len, char **ret_body,
                             struct kube_webhook_outcome *ret_out);

#endif
