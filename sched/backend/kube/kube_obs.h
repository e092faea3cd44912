/* kube_obs.h - what an operator sees of ordo-scheduler against a cluster:
 * the metrics (sched_metrics.h, plus the API client's requests, binds,
 * the write queue and the informers) and the HTTP endpoints
 * (http_server.h, --listen), and the admission webhook (kube_webhook.h,
 * --webhook-listen), served on the daemon's own loop. */
#ifndef ORDO_KUBE_OBS_H
#define ORDO_KUBE_OBS_H

#include "http_server.h"
#include "kube_backend.h"
#include "queue_rule.h"

struct kube_obs_options {
    const char *listen;               /* NULL: no endpoints */
    const char *cert_file, *key_file; /* TLS for them */
    const char *client_ca_file;       /* client certificates (http_server.h) */
    const char *client_names;         /* their common names, comma-separated */
    bool no_local_queue_metrics;      /* sched_metrics.h */
    struct replica_info replica;      /* who leads; NULL role: standalone */
    /* --webhook-listen HOST:PORT with --webhook-cert/--webhook-key (both
     * required): the admission webhook of kube_webhook.h, on every
     * replica, the files read again when they change; rule: the
     * configuration's podDefaulting (NULL: the defaults). */
    const char *webhook_listen;
    const char *webhook_cert, *webhook_key;
    const struct queue_rule *webhook_rule;
};

struct kube_obs;

/* Before the request queue is made: its options get on_result (the API
 * client's metrics). 0 and *ret (free with kube_obs_free()) or -ENOMEM. */
int kube_obs_new(const struct kube_obs_options *o, struct krequest_options *qo,
                 struct kube_obs **ret);
/* Once the scheduler and backend are made, before the backend starts:
 * the metrics and the listening socket. 0, or a negative errno with why
 * in e. */
int kube_obs_start(struct kube_obs *ob, struct scheduler *s,
                   struct kube_backend *kb, struct err *e);
/* A new leader's fresh scheduler and backend (kube_daemon.c rebuilds
 * them): the metrics follow them, counters kept. NULL, NULL first, before
 * the old ones are freed (nothing may be scraped in between). 0 or
 * -ENOMEM. ob may be NULL. */
int kube_obs_rebind(struct kube_obs *ob, struct scheduler *s,
                    struct kube_backend *kb);
/* Frees (before the scheduler). Accepts NULL. */
void kube_obs_free(struct kube_obs *ob);

/* The loop's wait: krequests_process() waiting on the endpoints' socket
 * too, then answering what is ready. Returns what krequests_process
 * does. */
int kube_obs_process(struct kube_obs *ob, struct krequests *q, int timeout_ms);

#endif
