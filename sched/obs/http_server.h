/* http_server.h - the operator's endpoints on one port (--listen
 * HOST:PORT), served by libmicrohttpd inside the caller's event loop: no
 * thread of its own, so nothing but the loop touches the scheduler.
 *
 *   /metrics   the Prometheus exposition (sched_metrics.h)
 *   /healthz   200 "ok": the process and its loop are alive
 *   /readyz    200 when every informer synced once, else 503 naming those
 *              missing; either way which replica leads
 *   /queues    every ClusterQueue's pending workloads (visibility.h), and
 *              Kueue's visibility paths under it:
 *              /queues/clusterqueues/NAME/pendingworkloads and
 *              /queues/namespaces/NS/localqueues/NAME/pendingworkloads,
 *              with ?limit= (default 1000, at most 100000) and ?offset=; a
 *              follower answers 503 (its view lacks the leader's
 *              admissions)
 *
 * The loop waits on http_server_fd() (an epoll descriptor that is ready
 * when any connection is) as long as http_server_timeout_ms() says, then
 * calls http_server_run(). Sockets are non-blocking: a slow client holds
 * its own connection only, and connections idle past 10 s are closed; at
 * most 64 at once. With a certificate and key it speaks HTTPS only, and
 * with reload_tls the files are read again when they change (checked every
 * 10 s; cert-manager rotates them in place): the listening socket is kept,
 * connections open then are closed, and a pair that does not load keeps
 * the old one. With client_ca_file, the CA is read again with them.
 *
 * With post set, POST requests are read (at most max_body bytes, else 413)
 * and answered by it; post_only serves nothing else (the webhook's port,
 * kube_webhook.h), and then s may be NULL. */
#ifndef ORDO_HTTP_SERVER_H
#define ORDO_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "sched_metrics.h"
#include "scheduler.h"

/* Who leads (the lease's view; NULL callbacks: standalone). */
struct replica_info {
    /* "leader", "follower" or "standalone". Static or kept by data. */
    const char *(*role)(void *data);
    /* The lease holder's identity, or NULL when none is known. */
    const char *(*holder)(void *data);
    void *data;
};

struct http_server_options {
    const char *listen;               /* HOST:PORT; PORT 0: any free one */
    const char *cert_file, *key_file; /* PEM; both or neither (TLS) */
    /* PEM CA bundle (TLS only): every path but /healthz, /livez and
     * /readyz then needs a client certificate it signed (the API
     * server's front-proxy CA, for the aggregated visibility API): 401
     * without one, 403 with another. NULL: no client certificates. */
    const char *client_ca_file;
    /* With it: the common names allowed, comma-separated (NULL: any). */
    const char *client_names;
    struct scheduler *s;              /* /queues */
    struct sched_metrics *metrics;    /* /metrics; NULL: 404 */
    /* Readiness: true when ready, else why into buf (what is missing).
     * NULL: ready. */
    bool (*ready)(void *data, char *buf, size_t n);
    void *ready_data;
    struct replica_info replica;
    /* POST: the code, and *ret_body (malloc'd; JSON when 200, else text;
     * NULL: 500). NULL: POST is 405. */
    unsigned (*post)(void *data, const char *url, const char *body, size_t len,
                     char **ret_body);
    void *post_data;
    size_t max_body;
    bool post_only;
    bool reload_tls;
    const char *flag; /* the flag in messages; NULL: "--listen" */
};

struct http_server;

/* Listens (the pointers in o must outlive the server). 0 and *ret (free
 * with http_server_free()), or a negative errno with why in e. */
int http_server_new(const struct http_server_options *o,
                    struct http_server **ret, struct err *e);
/* Closes every connection and the socket. Accepts NULL. */
void http_server_free(struct http_server *h);
/* The scheduler /queues reads from now on (a new leader's; NULL: /queues
 * answers 503 until set). */
void http_server_set_scheduler(struct http_server *h, struct scheduler *s);

/* The port bound (the one chosen, for PORT 0). */
uint16_t http_server_port(const struct http_server *h);
/* The descriptor to wait on for reading. */
int http_server_fd(const struct http_server *h);
/* How long the loop may wait before http_server_run() is due; -1: as long
 * as it likes. */
int64_t http_server_timeout_ms(const struct http_server *h);
/* Accepts, reads and answers what is ready; never blocks. */
void http_server_run(struct http_server *h);

/* With reload_tls: true once every 10 s (time to call
 * http_server_reload()). */
bool http_server_reload_due(struct http_server *h);
/* Reads the certificate and key again if they changed: 0 when they did
 * not, 1 when the new pair is in use, or a negative errno with why in e
 * (the old pair still in use; -EIO: the socket is lost and the server
 * serves nothing more). */
int http_server_reload(struct http_server *h, struct err *e);

#endif
