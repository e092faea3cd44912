/* kube_daemon.h - ordo-scheduler against a cluster: one event loop over
 * the API client (curl multi poll with a timeout), the informers feeding
 * the scheduler, scheduler_run() when something changed and every informer
 * synced, wall-clock time. SIGTERM and SIGINT end it cleanly.
 *
 * The connection comes from core/kube/kubeconfig.h: --kubeconfig FILE,
 * else KUBECONFIG or $HOME/.kube/config, else in-cluster; --context NAME
 * picks a context. --server alone reads no kubeconfig. --server, --token,
 * --certificate-authority and --insecure-skip-tls-verify win over the
 * kubeconfig's fields. A 401 calls kubeconfig_invalidate() (exec and
 * tokenFile credentials are fetched again) through krequest.h.
 *
 * After each cycle the backend writes status (kube_status.h): Workload
 * objects (not with no_workload_writes), queue and pod status, Events. */
#ifndef ORDO_KUBE_DAEMON_H
#define ORDO_KUBE_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "kube_obs.h"
#include "plugins.h"
#include "sched_config.h"

struct kube_daemon_options {
    const char *kubeconfig, *context;     /* NULL: KUBECONFIG / current */
    const char *server, *token, *ca_file; /* over the kubeconfig's */
    bool insecure_skip_verify;
    uint32_t qps, burst;         /* 0: krequest.h's defaults */
    int64_t evict_grace_seconds; /* < 0: the pod's own */
    const char *lease_namespace; /* NULL: kube-system */
    bool no_workload_writes;     /* no Workload objects (Kueue's own) */
    /* --listen HOST:PORT (+ --listen-cert/--listen-key): the endpoints
     * of http_server.h; who leads, for /readyz and replica_role. */
    struct kube_obs_options obs;
};

/* Runs until SIGTERM/SIGINT. 0 when stopped by a signal, 1 on an error
 * (printed). */
int kube_daemon_run(const struct sched_config *cfg,
                    const struct plugin_registry *plugins,
                    const struct kube_daemon_options *opt);

#endif
