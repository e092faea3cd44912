/* kube_evict.h - the Kubernetes backend's evict action: the pods of a
 * preempted workload leave through the Eviction API (core/kclient.h), and
 * how each one went is recorded on its workload.
 *
 * kube_evict_pod() has the shape of backend_ops.evict. It only starts the
 * request; the pod stays in the cluster (and its workload's quota stays
 * charged) until the watch reports it deleted (scheduler_object_deleted(),
 * scheduler.h) as for any pod that ends. So an accepted eviction, a
 * DELETE fallback and a pod already gone all end the same way: by the watch.
 * A failed request (the API server did not answer, or refused both eviction
 * and delete) leaves the pod where it is; kube_evict_retry() tries again
 * for every such pod the cluster still holds.
 *
 * A refusal (a PodDisruptionBudget: 429; policy: 403) is never overridden
 * by DELETE: it is recorded on the workload, reported once in the log and
 * through the refused hook (a Warning Event on the pod), and tried again
 * with backoff, KUBE_EVICT_BACKOFF_MIN_NS doubling to
 * KUBE_EVICT_BACKOFF_MAX_NS, by the cluster's clock. The workload stays
 * evicting, its quota charged, until its pods are really gone. */
#ifndef ORDO_KUBE_EVICT_H
#define ORDO_KUBE_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "kclient.h"

#define KUBE_EVICT_BACKOFF_MIN_NS (INT64_C(10) * 1000000000)
#define KUBE_EVICT_BACKOFF_MAX_NS (INT64_C(300) * 1000000000)

struct kube_evict_req;

/* A pod whose eviction is to be tried again (kube_evict_retry). */
struct kube_evict_again {
    char *key;          /* owned */
    int64_t due_ns;     /* not before (the cluster's clock) */
    int64_t backoff_ns; /* after a refusal: the next wait; 0: failed */
    uint32_t refusals;
    bool in_flight; /* a refused one tried again, its answer not in */
};

struct kube_evict {
    struct kclient *kc;    /* not owned */
    struct cluster *c;     /* not owned; must outlive pending requests */
    int64_t grace_seconds; /* < 0: the pod's own terminationGracePeriod */
    /* Outcomes so far, by enum kclient_evict_outcome. */
    uint64_t outcomes[KEVICT_OUTCOME_MAX];
    /* Pods whose eviction failed or was refused, for kube_evict_retry(). */
    struct kube_evict_again *retry;
    size_t n_retry, cap_retry;
    /* Called on each refusal of pod key (why: the API's words), the first
     * one with first set; NULL: none. */
    void (*refused)(void *data, const char *key, const char *why, bool first);
    void *hook_data;
    /* Requests whose callback has not run (owned). */
    struct kube_evict_req *reqs;
    size_t in_flight;
};

/* Sets up ke to evict through kc for cluster c. */
void kube_evict_init(struct kube_evict *ke, struct kclient *kc,
                     struct cluster *c, int64_t grace_seconds);
/* Frees the retry list and the records of requests still in flight: free
 * the client first (it drops them without callbacks). Accepts NULL. */
void kube_evict_release(struct kube_evict *ke);

/* backend_ops.evict: data is a struct kube_evict. Starts evicting pod p.
 * Returns 0, -EINVAL when the pod has no name or namespace, or what
 * kclient_evict_pod() returns. */
int kube_evict_pod(void *data, const struct pod *p);

/* Starts eviction again for every pod whose eviction failed, or was
 * refused and whose backoff is over, and that the cluster still holds,
 * bound, in an evicting workload; the others are forgotten. Returns how
 * many were started, or a negative errno (the rest stay on the list). */
int kube_evict_retry(struct kube_evict *ke);

#endif
