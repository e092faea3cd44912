/* kube_daemon.h - ordo-scheduler against a cluster: one event loop over
 * the API client (curl multi poll with a timeout), the informers feeding
 * the scheduler, scheduler_run() when something changed and every informer
 * synced, wall-clock time. SIGTERM and SIGINT end it cleanly. With
 * leader election a standby lists and watches but runs no cycle and
 * writes nothing; a new leader rebuilds its backend and scheduler from a
 * full list (admissions recovered as after a restart); every write is gated
 * on leading now (krequest.h's may_write). Leadership lost: exit 1, as
 * kube-scheduler. SIGHUP: --config is loaded again to check it; a good
 * one ends the loop as SIGTERM does, for the caller to exec again.
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
    uint32_t write_qps, write_burst; /* status writes; 0: kube_status.h's */
    int64_t evict_grace_seconds; /* < 0: the pod's own */
    bool no_workload_writes;     /* no Workload objects (Kueue's own) */
    /* --listen HOST:PORT (+ --listen-cert/--listen-key): the endpoints
     * of http_server.h; who leads, for /readyz and replica_role. */
    struct kube_obs_options obs;
    /* Leader election (kube_leader.h). Off: this replica always leads.
     * The Lease lease_namespace/lease_name (NULL: kube-system,
     * ordo-scheduler); durations 0: 15 s, 10 s, 2 s. */
    bool leader_elect;
    const char *lease_namespace, *lease_name;
    int64_t lease_ms, renew_deadline_ms, retry_ms;
    /* SIGHUP: this file is loaded again to check it (NULL: the built-in
     * defaults, always good). */
    const char *config_path;
    bool strict;
};

/* The exit status after a SIGHUP whose configuration loads: the caller
 * starts the program again (exec) with the same arguments. */
#define KUBE_DAEMON_RELOAD 3

/* Runs until SIGTERM/SIGINT (then: no more cycles, binds in flight
 * finish for up to 10 s, the lease is given back). 0 when stopped by a
 * signal, KUBE_DAEMON_RELOAD after a good SIGHUP, 1 on an error or when
 * leadership is lost (printed). */
int kube_daemon_run(const struct sched_config *cfg,
                    const struct plugin_registry *plugins,
                    const struct kube_daemon_options *opt);

#endif
