/* kube_int.h - what the files of the Kubernetes backend share: the
 * backend's definition and its requests in flight. */
#ifndef ORDO_KUBE_INT_H
#define ORDO_KUBE_INT_H

#include "kube_backend.h"
#include "kube_events.h"
#include "kube_writes.h"

/* A watched resource (kube_put.c): its collection (NULL: the Leases of
 * the lease namespace), kind and apiVersion, and the object kind it
 * decodes to (-1: not decoded). */
struct kube_res_info {
    const char *path, *kind, *api_version;
    int obj_kind;
};
extern const struct kube_res_info kube_resources[KRES_MAX];

/* Which informer an event came from. */
struct kube_res_ctx {
    struct kube_backend *kb;
    enum kube_res res;
};

/* A bind, the GET that resolves one, or a resume, in flight (owned by the
 * backend until its callback). */
enum kube_op_kind { KOP_BIND = 0, KOP_BIND_GET, KOP_RESUME };

struct kube_op {
    struct kube_backend *kb;
    struct kube_op *prev, *next; /* kb->ops */
    struct kreq *req;
    enum kube_op_kind kind;
    bool conflict; /* the GET follows a lost race */
    char *key, *ns, *name, *node;
};

/* A job whose resume failed, sent again after backoff_ns
 * (KUBE_RESUME_BACKOFF_MIN_NS doubling to _MAX_NS, the cluster's clock). */
struct kube_resume_again {
    char *key;      /* the workload's key (owned) */
    int64_t due_ns; /* not before; INT64_MAX: sent, its answer to come */
    int64_t backoff_ns;
};
#define KUBE_RESUME_BACKOFF_MIN_NS (INT64_C(10) * 1000000000)
#define KUBE_RESUME_BACKOFF_MAX_NS (INT64_C(60) * 1000000000)

struct kube_backend {
    struct kclient *kc;
    struct krequests *q;
    struct scheduler *s;
    struct kube_backend_options opt;
    struct kinformer *inf[KRES_MAX];
    struct kube_res_ctx ctx[KRES_MAX];
    struct kube_evict ke;
    bool started, changed;
    struct kube_op *ops;
    struct kube_resume_again *resume_retry; /* kube_bind.c */
    size_t n_resume_retry, cap_resume_retry;
    struct kube_backend_stats st;
    /* Status writes (kube_status.c). */
    struct kube_writes writes;
    struct kube_write_op *write_ops; /* in flight (kube_status.c) */
    struct kube_recorder rec;
    char *last_preempted; /* workload of the last Preempted event */
    uint32_t last_preempted_evictions;
    /* Each workload's Workload object: its name and the uid the API
     * server gave it (kube_status.c), by workload key and by "ns/name". */
    struct kube_wl_ref *wl_refs, *wl_refs_obj;
    /* Workloads whose status named a Workload uid not known yet: filed
     * again when one comes. */
    char **refile;
    size_t n_refile, cap_refile;
    const char *filing;     /* the workload being filed */
    bool uid_learned;       /* a uid came since the refile list was last read */
    bool queues_dirty;      /* a queue object changed: every queue re-filed */
    int64_t status_full_ns; /* the last pass over everything */
};

/* An object from the API server (JSON) decoded and sent to the scheduler
 * as added or updated (kube_put.c; kube_bind.c uses it for a pod read again). 0
 * or a negative errno; a refused object is 0 (skipped). */
int kube_backend_put(struct kube_backend *kb, enum kube_res res,
                     struct json_object *obj, bool added);

/* Unlinks and frees op (its request ended or is cancelled). */
void kube_op_free(struct kube_op *op);

/* backend_ops.bind, .evict (through kb->ke) and .resume (kube_bind.c). */
int kube_bind_pod(void *data, const struct pod *p, const struct node *n);
int kube_evict_pod_of(void *data, const struct pod *p);
int kube_resume(void *data, const struct workload *w);
/* Sends again the resumes that failed and whose backoff is over, for
 * workloads still admitted whose job is still suspended; forgets the
 * others. How many were sent, or a negative errno (the rest wait). */
int kube_resume_retry(struct kube_backend *kb);
/* Frees the resume retry list. */
void kube_resume_release(struct kube_backend *kb);

#endif
