/* kube_writes.h - the writes the Kubernetes backend owes the API server
 * (Workload objects and their status, ClusterQueue and LocalQueue status,
 * pod conditions, Events), queued by object and handed out at a bounded
 * rate. It does no I/O: the backend drains it through a callback that
 * turns each write into an HTTP request.
 *
 * A write is the state Ordo wants an object (or its status) to have, as
 * JSON. The queue remembers, per key, the last state it handed out
 * (what the server has, as far as Ordo knows): draining sends the merge
 * patch from that state to the latest one, so a newer state replaces one
 * not sent yet and the patch says only what changed. An object that must
 * be created first (a Workload, an Event) goes out once as a POST of its
 * whole state, then as patches. Pending writes leave in the order they
 * first became pending; at most `rate` per second leave, with a burst
 * (a token bucket on the caller's clock). */
#ifndef ORDO_KUBE_WRITES_H
#define ORDO_KUBE_WRITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* A token bucket in integers: `per` tokens every period_ns, at most burst
 * kept. Time is the caller's (ns); it never goes back. */
struct kube_bucket {
    int64_t burst, per, period_ns;
    int64_t level; /* tokens x period_ns */
    int64_t last_ns;
};

/* Full at now_ns. per, period_ns > 0; burst >= 1. */
void kube_bucket_init(struct kube_bucket *b, int64_t burst, int64_t per,
                      int64_t period_ns, int64_t now_ns);
/* Takes a token if there is one at now_ns: true, or false (nothing
 * changes but the refill). */
bool kube_bucket_take(struct kube_bucket *b, int64_t now_ns);
/* Whole tokens available at now_ns (refills). */
int64_t kube_bucket_tokens(struct kube_bucket *b, int64_t now_ns);

enum kube_write_kind {
    KUBE_WRITE_WORKLOAD = 0, /* a Workload object or its status */
    KUBE_WRITE_QUEUE,        /* ClusterQueue / LocalQueue status */
    KUBE_WRITE_POD,          /* a pod's status conditions */
    KUBE_WRITE_EVENT,        /* an Event */
    KUBE_WRITE_KIND_MAX
};

/* One request, as the drain callback gets it (valid for the call). */
struct kube_request {
    enum kube_write_kind kind;
    const char *key;
    const char *method;       /* "POST" or "PATCH" */
    const char *path;         /* absolute API path */
    const char *content_type; /* "application/json", a patch type */
    const char *body;         /* JSON text */
};

/* Sends one request: 0 (handed to the client: the queue counts it as
 * the server's state), or a negative errno (it stays pending and is tried
 * again at the next drain). A request the client started and that failed
 * later is reported with kube_writes_failed(). */
typedef int (*kube_write_fn)(void *data, const struct kube_request *req);

struct kube_write_entry;

struct kube_writes {
    struct kube_write_entry *by_key; /* uthash, every key known */
    /* Pending entries, oldest first (a doubly linked list). */
    struct kube_write_entry *head, *tail;
    size_t n_pending;
    struct kube_bucket bucket;
    /* Workload writes are dropped (Kueue writes them, or nobody wants
     * them): KUBE_WRITE_WORKLOAD puts change nothing. */
    bool workloads_off;
    /* Counters: states put, states that replaced an unsent one, requests
     * handed out, failures reported, puts dropped by workloads_off, keys
     * retired (kube_writes_retire). */
    uint64_t puts, coalesced, sent, failed, dropped, retired;
};

/* An empty queue handing out at most rate requests per second, burst at
 * once (both >= 1), full at now_ns. */
void kube_writes_init(struct kube_writes *q, int64_t rate, int64_t burst,
                      int64_t now_ns);
/* Frees every entry. Accepts NULL. */
void kube_writes_release(struct kube_writes *q);

/* The state object key should have: state (taken, a JSON object) replaces
 * the latest one. create_path: where to POST it while it has not been
 * created (NULL: the object exists, e.g. a ClusterQueue's status);
 * patch_path and patch_type: where and how its patches go. A state equal
 * to what the server has leaves nothing pending. 0 or -ENOMEM (state is
 * released). */
int kube_writes_put(struct kube_writes *q, enum kube_write_kind kind,
                    const char *key, const char *create_path,
                    const char *patch_path, const char *patch_type,
                    struct json_object *state);

/* The latest state put for key (borrowed, valid until the next put or
 * forget of key), or NULL. */
const struct json_object *kube_writes_state(const struct kube_writes *q,
                                            const char *key);
/* Whether key has a write pending. */
bool kube_writes_pending(const struct kube_writes *q, const char *key);

/* A request for key that the client started failed: what the server has
 * is unknown again, so the next drain sends the whole latest state (a
 * POST again when not_created: the create itself failed). Unknown key: no
 * change. */
void kube_writes_failed(struct kube_writes *q, const char *key,
                        bool not_created);
/* Drops key (its object was deleted): nothing more is sent for it. */
void kube_writes_forget(struct kube_writes *q, const char *key);
/* Key's object left the cluster: it is forgotten once its pending write,
 * if any, has been handed out (a failure of that write is then not sent
 * again). A put before then keeps it. Unknown key: no change. */
void kube_writes_retire(struct kube_writes *q, const char *key);
/* How many keys the queue knows (its memory). */
size_t kube_writes_count(const struct kube_writes *q);

/* Hands out pending requests, oldest first, while the bucket has tokens
 * at now_ns (a callback error costs its token and ends the drain). Returns
 * how many were handed out, or a negative errno (-ENOMEM building one, or
 * the callback's). */
int kube_writes_drain(struct kube_writes *q, int64_t now_ns, kube_write_fn fn,
                      void *data);

#endif
