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
#include "kube_leader.h"
#include "kubeconfig.h"
#include "log.h"

#define LOOP_WAIT_MS   200 /* longest poll: signals are seen this fast */
#define RUN_EVERY_NS   1000000000LL  /* a cycle at least this often */
#define EVICT_RETRY_NS 10000000000LL /* failed evictions tried again */
#define DRAIN_NS       10000000000LL /* SIGTERM: binds in flight finish */
#define RELEASE_NS     5000000000LL  /* SIGTERM: the lease given back */
#define FLUSH_NS       5000000000LL  /* status writes sent before exiting */
#define FLUSH_SLICE_NS 100000000LL   /* ... the lease renewed between */

/* SIGTERM/SIGINT received (a second one skips the drain); SIGHUP. */
static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
    if (sig == SIGHUP)
        reload_requested = 1;
    else if (stop_requested < 2)
        stop_requested++;
}

/* What the loop runs on. */
struct daemon {
    const struct kube_daemon_options *opt;
    struct scheduler *s;
    struct kube_backend *kb;
    struct krequests *q;
    struct kube_leader *leader; /* NULL until made, or no election */
    struct kube_obs *ob;        /* metrics and endpoints */
    /* What a new leader rebuilds its backend and scheduler from. */
    struct kclient *kc;
    const struct sched_config *cfg;
    const struct plugin_registry *plugins;
    struct kube_backend_options bo;
};

/* How the loop ended, besides a negative errno. */
enum { LOOP_STOP = 0, LOOP_RELOAD, LOOP_LOST };

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

/* Whether this replica may schedule and write now. */
static bool leading(const struct daemon *d)
{
    return !d->opt->leader_elect || kube_leader_is_leader(d->leader);
}

/* krequest_options.may_write: the fence in front of every write. */
static bool may_write(void *data)
{
    return leading(data);
}

/* Who leads, for /readyz and the metrics' replica_role. */
static const char *replica_role(void *data)
{
    const struct daemon *d = data;
    if (!d->leader)
        return "standalone";
    return leading(d) ? "leader" : "follower";
}

static const char *replica_holder(void *data)
{
    const struct daemon *d = data;
    return d->leader ? kube_leader_holder(d->leader) : NULL;
}

static void on_lease(void *data, enum kinf_event ev, struct json_object *obj)
{
    struct daemon *d = data;
    if (ev != KINF_DELETED)
        kube_leader_observe(d->leader, obj);
}

static void config_warning(const char *msg, void *data)
{
    (void)data;
    LOG_W("SIGHUP: %s", msg);
}

/* SIGHUP: whether --config loads (else why, with its file and field). */
static bool config_loads(const struct kube_daemon_options *opt)
{
    if (!opt->config_path)
        return true;
    struct sched_config cfg;
    struct err e;
    config_init_defaults(&cfg);
    int r = config_load_checked(&cfg, opt->config_path, opt->strict,
                                config_warning, NULL, &e);
    config_release(&cfg);
    if (r < 0)
        LOG_E("SIGHUP: %s; the running configuration stays", e.msg);
    return r == 0;
}

/* One cycle's worth of work, for the leader only. */
static void lead(struct daemon *d, int64_t *last_run, int64_t *last_retry)
{
    int64_t m = mono_ns();
    int r;
    if (kube_backend_take_changed(d->kb) || m - *last_run >= RUN_EVERY_NS) {
        *last_run = m;
        r = scheduler_run(d->s);
        if (r < 0)
            LOG_E("scheduling cycle: %s", strerror(-r));
        else if (r > 0)
            LOG_V(1, "admitted=%d", r);
        if ((r = kube_backend_write_status(d->kb)) < 0)
            LOG_E("status writes: %s", strerror(-r));
    }
    /* At the write queue's rate, whatever the cycle did. */
    if ((r = kube_backend_drain_writes(d->kb)) < 0)
        LOG_E("status writes: %s", strerror(-r));
    if (m - *last_retry >= EVICT_RETRY_NS) {
        *last_retry = m;
        kube_backend_retry_actions(d->kb);
    }
}

/* A fresh backend (its informers list everything again) and scheduler.
 * 0 or a negative errno. */
static int rebuild(struct daemon *d)
{
    kube_obs_rebind(d->ob, NULL, NULL); /* before what it reads goes */
    kube_backend_free(d->kb);
    scheduler_free(d->s);
    d->kb = NULL;
    d->s = NULL;
    int r = kube_backend_new(d->kc, d->q, &d->bo, &d->kb);
    if (r == 0)
        r = scheduler_new(d->cfg, d->plugins, &kube_backend_ops, d->kb, &d->s);
    if (r == 0)
        r = kube_obs_rebind(d->ob, d->s, d->kb);
    if (r == 0)
        r = kube_backend_start(d->kb, d->s);
    return r;
}

/* The loop proper, once everything is made: LOOP_* or a negative errno. */
static int loop(struct daemon *d)
{
    bool was_synced = false, was_leading = false, catching_up = false;
    int64_t last_run = 0, last_retry = mono_ns();
    while (!stop_requested) {
        /* Wall time never goes back for the scheduler. */
        int64_t now = wall_ns();
        if (now >= scheduler_cluster(d->s)->now_ns)
            scheduler_clock(d->s, now);
        int r = kube_obs_process(d->ob, d->q, LOOP_WAIT_MS);
        if (r < 0)
            return r;
        if (d->leader) {
            kube_leader_step(d->leader);
            if (kube_leader_role(d->leader) == KLEASE_LOST)
                return LOOP_LOST;
        }
        if (reload_requested) {
            reload_requested = 0;
            if (config_loads(d->opt))
                return LOOP_RELOAD;
        }
        if (!kube_backend_synced(d->kb))
            continue;
        if (!was_synced) {
            LOG_I("every informer synced; %s",
                  leading(d) ? "scheduling" : "standing by");
            was_synced = true;
        }
        /* A standby keeps its informers current and runs no cycle. A new
         * leader's scheduler is built afresh from a full list, as after a
         * restart: admissions are recovered from bound pods only at a
         * scheduler's first batch, and a warm standby's watches may lag
         * behind its predecessor's last binds. */
        bool now_leading = leading(d);
        if (now_leading && !was_leading && d->leader) {
            LOG_I("leader: listing everything again before scheduling");
            if ((r = rebuild(d)) < 0)
                return r;
            catching_up = true;
        }
        was_leading = now_leading;
        if (catching_up && kube_backend_synced(d->kb)) {
            LOG_I("leader: caught up with the API server; scheduling");
            catching_up = false;
        }
        if (now_leading && !catching_up)
            lead(d, &last_run, &last_retry);
    }
    return LOOP_STOP;
}

/* SIGTERM, or a reload: no more cycles; the binds in flight finish
 * (bounded), then the lease is given back so a standby takes over at
 * once. */
static void shut_down(struct daemon *d)
{
    int64_t until = mono_ns() + DRAIN_NS;
    size_t n = kube_backend_ops_in_flight(d->kb);
    if (n)
        LOG_I("stopping: %zu binds and resumes in flight", n);
    while (kube_backend_ops_in_flight(d->kb) && mono_ns() < until &&
           stop_requested < 2) {
        if (krequests_process(d->q, 100) < 0)
            break;
        if (d->leader)
            kube_leader_step(d->leader);
    }
    /* Status writes still owed go out, for a bounded time, in slices
     * between which the lease is renewed (a standby owes none: its gate
     * refuses them). */
    int64_t flush_until = mono_ns() + FLUSH_NS;
    int fr = 0;
    while (leading(d) && mono_ns() < flush_until) {
        int64_t slice = mono_ns() + FLUSH_SLICE_NS;
        fr = kube_backend_flush(d->kb,
                                slice < flush_until ? slice : flush_until);
        if (fr != -ETIMEDOUT)
            break;
        if (d->leader)
            kube_leader_step(d->leader);
    }
    if (fr == -ETIMEDOUT)
        LOG_W("stopping with status writes not sent");
    if (!d->leader)
        return;
    bool held = kube_leader_is_leader(d->leader);
    kube_leader_release(d->leader);
    until = mono_ns() + RELEASE_NS;
    for (;;) {
        enum klease_role role = kube_leader_role(d->leader);
        if (role == KLEASE_RELEASED || role == KLEASE_LOST ||
            mono_ns() >= until || krequests_process(d->q, 50) < 0)
            break;
        kube_leader_step(d->leader);
    }
    if (!held)
        return; /* a standby: nothing to give back */
    if (kube_leader_role(d->leader) == KLEASE_RELEASED)
        LOG_I("leader election: lease released");
    else
        LOG_W("leader election: the lease was not given back; it expires");
}

static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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
    struct daemon d = {.opt = opt};
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
    if (opt->leader_elect) {
        ko.may_write = may_write; /* evictions: the same fence */
        ko.gate_data = &d;
    }
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
    struct krequest_options qo = {.qps = opt->qps,
                                  .burst = opt->burst,
                                  .may_write =
                                      opt->leader_elect ? may_write : NULL,
                                  .gate_data = &d};
    if (conf && ko.cred) {
        qo.on_unauthorized = on_unauthorized;
        qo.auth_data = conf;
    }
    struct kube_backend_options bo = {
        .evict_grace_seconds = opt->evict_grace_seconds,
        .lease_namespace = opt->lease_namespace,
        .lease = opt->leader_elect ? on_lease : NULL,
        .hook_data = &d,
        .write_status = true,
        .workloads_off = opt->no_workload_writes,
        .write_rate = opt->write_qps,
        .write_burst = opt->write_burst,
    };
    struct kube_leader_options lo = {
        .ns = opt->lease_namespace ? opt->lease_namespace : "kube-system",
        .name = opt->lease_name ? opt->lease_name : "ordo-scheduler",
        .lease_ms = opt->lease_ms ? opt->lease_ms : 15000,
        .renew_deadline_ms =
            opt->renew_deadline_ms ? opt->renew_deadline_ms : 10000,
        .retry_ms = opt->retry_ms ? opt->retry_ms : 2000,
    };
    if (opt->leader_elect && (r = kube_leader_new(kc, &lo, &d.leader)) < 0) {
        fprintf(stderr,
                "ordo-scheduler: leader election on %s/%s: %s (the lease "
                "duration must exceed the renew deadline, which must "
                "exceed the retry period)\n",
                lo.ns, lo.name, strerror(-r));
        goto out;
    }
    struct kube_obs_options oo = opt->obs;
    if (d.leader)
        oo.replica = (struct replica_info){
            .role = replica_role, .holder = replica_holder, .data = &d};
    d.kc = kc;
    d.cfg = cfg;
    d.plugins = plugins;
    d.bo = bo;
    if ((r = kube_obs_new(&oo, &qo, &d.ob)) < 0 ||
        (r = krequests_new(kc, &qo, &d.q)) < 0 ||
        (r = kube_backend_new(kc, d.q, &bo, &d.kb)) < 0 ||
        (r = scheduler_new(cfg, plugins, &kube_backend_ops, d.kb, &d.s)) < 0) {
        fprintf(stderr, "ordo-scheduler: starting: %s\n", strerror(-r));
        goto out;
    }
    if (kube_obs_start(d.ob, d.s, d.kb, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        goto out;
    }
    if ((r = kube_backend_start(d.kb, d.s)) < 0) {
        fprintf(stderr, "ordo-scheduler: starting: %s\n", strerror(-r));
        goto out;
    }
    install_signals();
    LOG_I("watching %s", ko.base_url);
    if (d.leader)
        LOG_I("leader election: lease %s/%s identity=\"%s\"", lo.ns, lo.name,
              kube_leader_identity(d.leader));
    r = loop(&d);
    if (r < 0) {
        fprintf(stderr, "ordo-scheduler: event loop: %s\n", strerror(-r));
    } else if (r == LOOP_LOST) {
        /* As kube-scheduler: exit, the Deployment starts us again as a
         * standby with a cache built from scratch. */
        fprintf(stderr, "ordo-scheduler: leadership lost; exiting\n");
    } else {
        LOG_I(r == LOOP_RELOAD ? "SIGHUP: configuration loads; starting "
                                 "again"
                               : "stopping");
        shut_down(&d);
    }
    rc = r < 0 || r == LOOP_LOST ? 1
         : r == LOOP_RELOAD      ? KUBE_DAEMON_RELOAD
                                 : 0;
out:
    /* The backend's requests first, then what they ran on; the kubeconfig
     * (the client's credential source) last. */
    kube_backend_free(d.kb);
    krequests_free(d.q);
    kube_obs_free(d.ob); /* after the queue: no request reports to it */
    kube_leader_free(d.leader);
    kclient_free(kc);
    scheduler_free(d.s);
    kubeconfig_free(conf);
    return rc;
}
