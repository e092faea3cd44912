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
 * for every such pod the cluster still holds. */
#ifndef ORDO_KUBE_EVICT_H
#define ORDO_KUBE_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "kclient.h"

struct kube_evict_req;

struct kube_evict {
    struct kclient *kc;    /* not owned */
    struct cluster *c;     /* not owned; must outlive pending requests */
    int64_t grace_seconds; /* < 0: the pod's own terminationGracePeriod */
    /* Outcomes so far, by enum kclient_evict_outcome. */
    uint64_t outcomes[KEVICT_OUTCOME_MAX];
    /* Keys of pods whose eviction failed, for kube_evict_retry(). */
    char **retry;
    size_t n_retry, cap_retry;
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

/* Starts eviction again for every pod whose eviction failed and that the
 * cluster still holds, bound, in an evicting workload. Returns how many
 * were started, or a negative errno (the rest stay on the list). */
int kube_evict_retry(struct kube_evict *ke);

#endif
