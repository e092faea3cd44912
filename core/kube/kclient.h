/* kclient.h - asynchronous Kubernetes API-server client on a libcurl multi
 * handle; for now it evicts pods (the scheduler's preemption victims).
 *
 * Nothing here blocks. kclient_evict_pod() only queues a transfer; the
 * daemon's event loop moves transfers on, either with kclient_process() or
 * by driving kclient_multi() itself and then calling kclient_complete().
 * Callbacks run only from kclient_process()/kclient_complete(), never from
 * the call that started the eviction, so a caller is never re-entered. When
 * kclient_evict_pod() returns an error its callback is never called.
 *
 * Eviction policy (one eviction = one or two HTTP requests):
 *
 *   POST {base}/api/v1/namespaces/{ns}/pods/{name}/eviction (policy/v1)
 *     200, 201          -> KEVICT_EVICTED
 *     404               -> KEVICT_GONE (the pod is already gone, no DELETE)
 *     429 (a PodDisruptionBudget refuses), 500 whose Status message says
 *     the pod has more than one PodDisruptionBudget, 403 (forbidden: RBAC
 *     or an admission policy)
 *                       -> KEVICT_REFUSED (no DELETE: a refusal is not
 *                          overridden; the caller reports it and tries
 *                          again later)
 *     405, 501, or a 404 whose Status names no pod ("the server could not
 *     find the requested resource"): the Eviction API is not there
 *                       -> fall back to DELETE (below)
 *     anything else, no complete answer (transport error, timeout, a body
 *     over max_response_bytes) -> KEVICT_FAILED
 *   DELETE {base}/api/v1/namespaces/{ns}/pods/{name} (v1 DeleteOptions)
 *     200, 202          -> KEVICT_DELETED
 *     404               -> KEVICT_GONE
 *     409 with a uid    -> KEVICT_GONE (the uid precondition failed: a new
 *                          pod took the name; the one we meant is gone;
 *                          without a uid a 409 cannot mean that: FAILED)
 *     anything else, no complete answer -> KEVICT_FAILED
 *
 * Both requests carry the pod's uid as a precondition when one is given, and
 * gracePeriodSeconds when it is not negative.
 *
 * A client is not thread-safe: one thread (the event loop) uses it.
 * kclient_new() calls curl_global_init() (kclient_free() balances it):
 * create the first client before starting other threads. */
#ifndef ORDO_KCLIENT_H
#define ORDO_KCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

/* Defaults for the options left 0. */
#define KCLIENT_DEFAULT_TIMEOUT_MS   30000L
#define KCLIENT_DEFAULT_MAX_RESPONSE ((size_t)1 << 20)
#define KCLIENT_DEFAULT_USER_AGENT   "ordo-scheduler"
#define KCLIENT_MAX_RESPONSE_LIMIT   ((size_t)1 << 30) /* max_response_bytes */

struct kclient_options {
    /* Required: "https://10.0.0.1:6443" or "http://127.0.0.1:8080"; a
     * trailing '/' is ignored. Only http:// and https:// are accepted. */
    const char *base_url;
    /* Sent as "Authorization: Bearer <token>". NULL: no header. */
    const char *bearer_token;
    /* PEM bundle to verify the server with. NULL: the system store. */
    const char *ca_file;
    /* Do not verify the server's certificate or name (tests only). */
    bool insecure_skip_verify;
    /* Limit on each HTTP request, connection included. 0: default. */
    long timeout_ms;
    /* NULL: KCLIENT_DEFAULT_USER_AGENT. */
    const char *user_agent;
    /* Largest response body kept; a longer one fails the request.
     * 0: KCLIENT_DEFAULT_MAX_RESPONSE. */
    size_t max_response_bytes;

    /* TLS and credentials held in memory (kubeconfig.h fills these;
     * kclient_tls.c applies them). Buffers are copied by kclient_new(). */
    /* PEM bundle to verify the server with, instead of ca_file. */
    const void *ca_data;
    size_t ca_len;
    /* PEM client certificate and its key (both or neither). */
    const void *client_cert_data;
    size_t client_cert_len;
    const void *client_key_data;
    size_t client_key_len;
    /* Name the server's certificate is checked against (and sent as SNI)
     * instead of base_url's host; the connection still goes to that host.
     * The Host header carries this name too. */
    const char *tls_server_name;
    /* "http://", "https://", "socks5://"... proxy for every request. NULL:
     * libcurl's default (the https_proxy/no_proxy environment). */
    const char *proxy_url;
    /* Credentials that change while the client runs (a rotated token file,
     * an exec plugin): asked as each request starts; a client certificate
     * it gives wins over client_cert/key_data. Not with bearer_token. The
     * source is not copied: it must outlive the client. NULL: none. */
    struct kclient_cred_source *cred;
};

/* What a credential source answers: pointers it owns, valid until its next
 * call. Any member may be NULL/0 (no token, no client certificate). */
struct kclient_cred {
    const char *token;
    const void *cert;
    size_t cert_len;
    const void *key;
    size_t key_len;
};

/* get() returns 0 and fills *ret, or a negative errno: the request is then
 * not started and the call that would start it returns that error. It must
 * not block for long; kubeconfig.h says when its source may (an exec
 * plugin's refresh, under a timeout). */
struct kclient_cred_source {
    int (*get)(void *data, struct kclient_cred *ret);
    void *data;
};

struct kclient;

/* Creates a client; the options' strings are copied. Returns 0 and sets
 * *ret (owned by the caller, free with kclient_free()), -EINVAL for missing
 * or malformed options (no base URL, a scheme other than http/https, a
 * token or user agent with control characters, an empty CA path, a
 * negative timeout, a response cap over KCLIENT_MAX_RESPONSE_LIMIT, half
 * a client key pair, ca_file with ca_data, bearer_token with cred),
 * -ENOMEM, or -EIO when libcurl cannot be set up. */
int kclient_new(const struct kclient_options *opt, struct kclient **ret);

/* Cancels every transfer in flight WITHOUT calling its callback and frees
 * the client. Accepts NULL. Must not be called from a callback. Free the
 * users of kclient_xfer_add() (krequests_free()) first. */
void kclient_free(struct kclient *kc);

/* The multi handle, owned by the client, for a loop that waits on its
 * sockets and timers itself (curl_multi_fdset/poll/socket_action); call
 * kclient_complete() after driving it. Do not add or remove handles. */
CURLM *kclient_multi(struct kclient *kc);

/* Waits up to timeout_ms (>= 0) for activity (curl_multi_poll), performs,
 * and completes finished transfers, calling their callbacks. Returns the
 * number of evictions still pending (0 at once, without waiting, when none
 * is), -EINVAL for a NULL kc or a negative timeout, or -ENOMEM/-EIO when
 * libcurl fails. */
int kclient_process(struct kclient *kc, int timeout_ms);

/* Completes the transfers libcurl reports finished: starts DELETE
 * fallbacks and calls callbacks. Returns the number of evictions still
 * pending, or -EINVAL when kc is NULL. */
int kclient_complete(struct kclient *kc);

/* Evictions started and whose callback has not been called yet. */
size_t kclient_pending(const struct kclient *kc);

enum kclient_evict_outcome {
    KEVICT_EVICTED = 0, /* the eviction was accepted */
    KEVICT_DELETED,     /* the eviction was refused; the pod was deleted */
    KEVICT_GONE,        /* the pod (with that uid) no longer exists */
    KEVICT_FAILED,      /* the pod may still be there; see why */
    KEVICT_REFUSED,     /* a PodDisruptionBudget or policy refused: no DELETE */
    KEVICT_OUTCOME_MAX
};

/* "evicted", "deleted", "gone", "failed", "refused"; "unknown" out of
 * range. Static. */
const char *kclient_evict_result_name(enum kclient_evict_outcome s);

struct kclient_evict_result {
    enum kclient_evict_outcome outcome;
    /* Of the last request made; 0 when it got no complete answer
     * (connection, TLS, timeout, a body over the cap). */
    long http_status;
    bool used_delete; /* the DELETE fallback was tried */
    /* One line for a human, e.g. "eviction refused by a
     * PodDisruptionBudget (429 TooManyRequests: Cannot evict pod as it
     * would violate the pod's disruption budget.)", or "no Eviction API
     * (405 Method Not Allowed); deleted instead". Owned by the client,
     * valid during the callback. */
    const char *why;
    const char *ns, *name; /* as given; valid during the callback */
};

/* Called once per eviction, from kclient_process()/kclient_complete(). It
 * may start new evictions; it must not free the client. */
typedef void (*kclient_evict_cb)(void *data,
                                 const struct kclient_evict_result *res);

/* Starts evicting pod ns/name. ns must be a DNS-1123 label and name a
 * DNS-1123 subdomain (what Kubernetes accepts for them); uid, when not
 * NULL, must not be empty and makes both requests conditional on it;
 * grace_seconds < 0 leaves the grace period to the server. Returns 0 (cb
 * will be called exactly once, later, unless the client is freed first),
 * -EINVAL (bad names, uid or cb; cb is never called), -ENOMEM or -EIO. */
int kclient_evict_pod(struct kclient *kc, const char *ns, const char *name,
                      const char *uid, int64_t grace_seconds,
                      kclient_evict_cb cb, void *data);

/* ---- transfers of other subsystems (krequest.h) --------------------------
 * They share the client's multi handle, connections and options. Such a
 * transfer's CURLOPT_PRIVATE points to a struct kclient_xfer (the first
 * member of its owner's record) whose done is not NULL; kclient_complete()
 * takes the finished handle out of the multi handle and calls done. */
struct kclient_xfer {
    void (*done)(struct kclient_xfer *x, CURLcode rc);
};

/* Sets the options every request of kc shares on easy: headers (JSON,
 * authorization), user agent, timeout, TLS, HTTP/2 when offered. 0,
 * -EINVAL, -ENOMEM or -EIO. */
int kclient_easy_setup(struct kclient *kc, CURL *easy);
/* The base URL without a trailing '/', and the shared header list (owned
 * by the client), for a transfer that needs headers of its own. */
const char *kclient_base_url(const struct kclient *kc);
const struct curl_slist *kclient_headers(const struct kclient *kc);
/* Adds easy (its PRIVATE a struct kclient_xfer with done set) to the
 * multi handle. 0, -EINVAL, -ENOMEM or -EIO. */
int kclient_xfer_add(struct kclient *kc, CURL *easy);
/* Takes an unfinished transfer out without calling its done. */
void kclient_xfer_remove(struct kclient *kc, CURL *easy);

#endif
