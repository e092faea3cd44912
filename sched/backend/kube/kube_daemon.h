/* kube_daemon.h - ordo-scheduler against a cluster: one event loop over
 * the API client (curl multi poll with a timeout), the informers feeding
 * the scheduler, scheduler_run() when something changed and every informer
 * synced, wall-clock time. SIGTERM and SIGINT end it cleanly.
 *
 * Connection settings come from --server/--token or from a kubeconfig
 * (kube_daemon_read_kubeconfig(): current or named context, its cluster's
 * server, certificate-authority and insecure-skip-tls-verify, its user's
 * token). A fuller reader (exec credentials, client certificates,
 * in-cluster) is meant to replace it behind the same call:
 *   int kubeconfig_load(const char *path, const char *context,
 *                       struct kclient_options *ret, struct err *e); */
#ifndef ORDO_KUBE_DAEMON_H
#define ORDO_KUBE_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "plugins.h"
#include "sched_config.h"

struct kube_daemon_options {
    const char *kubeconfig, *context;     /* NULL: none / the current one */
    const char *server, *token, *ca_file; /* over the kubeconfig's */
    bool insecure_skip_verify;
    uint32_t qps, burst;         /* 0: krequest.h's defaults */
    int64_t evict_grace_seconds; /* < 0: the pod's own */
    const char *lease_namespace; /* NULL: kube-system */
};

/* What a kubeconfig says (strings owned by the struct; release with
 * kube_daemon_conn_release()). */
struct kube_conn {
    char *server, *token, *ca_file;
    bool insecure;
};

/* Reads path's context (NULL: current-context). 0, or a negative errno
 * with e naming the file and what is missing. */
int kube_daemon_read_kubeconfig(const char *path, const char *context,
                                struct kube_conn *ret, struct err *e);
void kube_daemon_conn_release(struct kube_conn *c);

/* Runs until SIGTERM/SIGINT. 0 when stopped by a signal, 1 on an error
 * (printed). */
int kube_daemon_run(const struct sched_config *cfg,
                    const struct plugin_registry *plugins,
                    const struct kube_daemon_options *opt);

#endif
