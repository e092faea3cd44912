/* kube_daemon.c - the event loop of ordo-scheduler against a cluster: the
 * connection from kubeconfig.h and the flags, the request queue, the
 * backend and the scheduler (see kube_daemon.h). */
#include "kube_daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube_backend.h"
#include "kubeconfig.h"
#include "log.h"

#define LOOP_WAIT_MS   200 /* longest poll: signals are seen this fast */
#define RUN_EVERY_NS   1000000000LL  /* a cycle at least this often */
#define EVICT_RETRY_NS 10000000000LL /* failed evictions tried again */
#define FLUSH_NS       5000000000LL  /* status writes sent before exiting */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The loop proper, once everything is made. 0 or a negative errno. */
static int loop(struct scheduler *s, struct kube_backend *kb,
                struct krequests *q, struct kube_obs *ob)
{
    bool was_synced = false;
    int64_t last_run = 0, last_retry = mono_ns();
    while (!stop_requested) {
        /* Wall time never goes back for the scheduler. */
        int64_t now = wall_ns();
        if (now >= scheduler_cluster(s)->now_ns)
            scheduler_clock(s, now);
        int r = kube_obs_process(ob, q, LOOP_WAIT_MS);
        if (r < 0)
            return r;
        if (!kube_backend_synced(kb))
            continue;
        if (!was_synced) {
            LOG_I("every informer synced; scheduling");
            was_synced = true;
        }
        int64_t m = mono_ns();
        if (kube_backend_take_changed(kb) || m - last_run >= RUN_EVERY_NS) {
            last_run = m;
            r = scheduler_run(s);
            if (r < 0)
                LOG_E("scheduling cycle: %s", strerror(-r));
            else if (r > 0)
                LOG_V(1, "admitted=%d", r);
            if ((r = kube_backend_write_status(kb)) < 0)
                LOG_E("status writes: %s", strerror(-r));
        }
        /* At the write queue's rate, whatever the cycle did. */
        if ((r = kube_backend_drain_writes(kb)) < 0)
            LOG_E("status writes: %s", strerror(-r));
        if (m - last_retry >= EVICT_RETRY_NS) {
            last_retry = m;
            kube_backend_retry_evictions(kb);
        }
    }
    return 0;
}

static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* A 401: the exec plugin runs again, the token file is read again. */
static void on_unauthorized(void *data)
{
    LOG_W("the API server refused our credentials (401); fetching them "
          "again");
    kubeconfig_invalidate(data);
}

/* Whether a kubeconfig (or in-cluster) is read: not with --server alone,
 * whose server would otherwise get the kubeconfig's credentials. */
static bool wants_kubeconfig(const struct kube_daemon_options *opt)
{
    return opt->kubeconfig || opt->context || !opt->server;
}

int kube_daemon_run(const struct sched_config *cfg,
                    const struct plugin_registry *plugins,
                    const struct kube_daemon_options *opt)
{
    struct err e;
    struct kubeconfig *conf = NULL;
    struct kclient *kc = NULL;
    struct krequests *q = NULL;
    struct kube_backend *kb = NULL;
    struct scheduler *s = NULL;
    struct kube_obs *ob = NULL;
    int rc = 1, r;
    struct kclient_options ko = {
        /* Lists of a large cluster come in pages, each one may be big. */
        .max_response_bytes = (size_t)64 << 20,
    };
    if (wants_kubeconfig(opt)) {
        struct kubeconfig_load_options lo = {.kubeconfig = opt->kubeconfig,
                                             .context = opt->context};
        kubeconfig_options_from_env(&lo);
        if (kubeconfig_load(&lo, &conf, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
            return 1;
        }
        kubeconfig_client_options(conf, &ko);
        LOG_I("using %s", kubeconfig_describe(conf));
    }
    /* The flags win over the kubeconfig's fields, as kubectl's do. */
    if (opt->server)
        ko.base_url = opt->server;
    if (opt->token) {
        ko.bearer_token = opt->token;
        ko.cred = NULL;
    }
    if (opt->ca_file) {
        ko.ca_file = opt->ca_file;
        ko.ca_data = NULL;
        ko.ca_len = 0;
    }
    if (opt->insecure_skip_verify)
        ko.insecure_skip_verify = true;
    if (!ko.base_url) {
        fprintf(stderr, "ordo-scheduler: no API server: give --kubeconfig "
                        "FILE or --server URL\n");
        goto out;
    }
    if ((r = kclient_new(&ko, &kc)) < 0) {
        fprintf(stderr, "ordo-scheduler: API client for %s: %s\n", ko.base_url,
                strerror(-r));
        goto out;
    }
    struct krequest_options qo = {.qps = opt->qps, .burst = opt->burst};
    if (conf && ko.cred) {
        qo.on_unauthorized = on_unauthorized;
        qo.auth_data = conf;
    }
    struct kube_backend_options bo = {
        .evict_grace_seconds = opt->evict_grace_seconds,
        .lease_namespace = opt->lease_namespace,
        .write_status = true,
        .workloads_off = opt->no_workload_writes,
    };
    if ((r = kube_obs_new(&opt->obs, &qo, &ob)) < 0 ||
        (r = krequests_new(kc, &qo, &q)) < 0 ||
        (r = kube_backend_new(kc, q, &bo, &kb)) < 0 ||
        (r = scheduler_new(cfg, plugins, &kube_backend_ops, kb, &s)) < 0) {
        fprintf(stderr, "ordo-scheduler: starting: %s\n", strerror(-r));
        goto out;
    }
    if (kube_obs_start(ob, s, kb, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        goto out;
    }
    if ((r = kube_backend_start(kb, s)) < 0) {
        fprintf(stderr, "ordo-scheduler: starting: %s\n", strerror(-r));
        goto out;
    }
    install_signals();
    LOG_I("watching %s", ko.base_url);
    r = loop(s, kb, q, ob);
    if (r < 0)
        fprintf(stderr, "ordo-scheduler: event loop: %s\n", strerror(-r));
    else
        LOG_I("stopping");
    /* Status writes still owed go out first, for a bounded time. */
    if (kube_backend_flush(kb, mono_ns() + FLUSH_NS) == -ETIMEDOUT)
        LOG_W("stopping with status writes not sent");
    rc = r < 0 ? 1 : 0;
out:
    /* The backend's requests first, then what they ran on; the kubeconfig
     * (the client's credential source) last. */
    kube_backend_free(kb);
    krequests_free(q);
    kube_obs_free(ob); /* after the queue: no request reports to it */
    kclient_free(kc);
    scheduler_free(s);
    kubeconfig_free(conf);
    return rc;
}
