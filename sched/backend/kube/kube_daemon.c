/* kube_daemon.c - the event loop of ordo-scheduler against a cluster, and
 * the small kubeconfig reader it uses until a full one replaces it (see
 * kube_daemon.h). */
#include "kube_daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doc.h"
#include "kube_backend.h"
#include "log.h"

#define LOOP_WAIT_MS   200 /* longest poll: signals are seen this fast */
#define RUN_EVERY_NS   1000000000LL  /* a cycle at least this often */
#define EVICT_RETRY_NS 10000000000LL /* failed evictions tried again */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

void kube_daemon_conn_release(struct kube_conn *c)
{
    if (!c)
        return;
    free(c->server);
    free(c->token);
    free(c->ca_file);
    *c = (struct kube_conn){0};
}

static const char *scalar(const struct doc_node *map, const char *key)
{
    const struct doc_node *n = doc_map_get(map, key);
    const char *s = NULL;
    return n && !doc_is_null(n) && doc_get_string(n, &s) == 0 && *s ? s : NULL;
}

/* The entry of seq (clusters, users, contexts) called name: its field. */
static const struct doc_node *named(const struct doc_node *root,
                                    const char *seq, const char *name,
                                    const char *field)
{
    const struct doc_node *list = doc_map_get(root, seq);
    for (size_t i = 0; list && list->type == DOC_SEQ && i < list->n; i++) {
        const char *n = scalar(list->items[i], "name");
        if (n && name && strcmp(n, name) == 0)
            return doc_map_get(list->items[i], field);
    }
    return NULL;
}

static char *dup_rel(const char *path, const char *file)
{
    if (!file)
        return NULL;
    const char *slash = strrchr(path, '/');
    char *out = NULL;
    if (file[0] == '/' || !slash)
        return strdup(file);
    if (asprintf(&out, "%.*s/%s", (int)(slash - path), path, file) < 0)
        return NULL;
    return out;
}

int kube_daemon_read_kubeconfig(const char *path, const char *context,
                                struct kube_conn *ret, struct err *e)
{
    *ret = (struct kube_conn){0};
    struct doc *d = NULL;
    int r = doc_load_file(path, &d, e);
    if (r < 0)
        return r;
    const struct doc_node *root = d->n_docs ? d->docs[0] : NULL;
    const char *ctx = context ? context : scalar(root, "current-context");
    const struct doc_node *c =
        ctx ? named(root, "contexts", ctx, "context") : NULL;
    const struct doc_node *cl =
        c ? named(root, "clusters", scalar(c, "cluster"), "cluster") : NULL;
    const struct doc_node *user =
        c ? named(root, "users", scalar(c, "user"), "user") : NULL;
    if (!ctx)
        r = err_set(e, EINVAL, "%s: no current-context, and none was given",
                    path);
    else if (!c)
        r = err_set(e, EINVAL, "%s: no context \"%s\"", path, ctx);
    else if (!cl || !scalar(cl, "server"))
        r = err_set(e, EINVAL, "%s: context \"%s\": its cluster has no server",
                    path, ctx);
    if (r == 0) {
        bool insecure = false;
        const struct doc_node *in = doc_map_get(cl, "insecure-skip-tls-verify");
        if (in && doc_get_bool(in, &insecure) < 0)
            r = err_set(e, EINVAL,
                        "%s: insecure-skip-tls-verify: expected a boolean",
                        path);
        ret->insecure = insecure;
        ret->server = strdup(scalar(cl, "server"));
        ret->ca_file = dup_rel(path, scalar(cl, "certificate-authority"));
        ret->token = user && scalar(user, "token")
                         ? strdup(scalar(user, "token"))
                         : NULL;
        if (!ret->server ||
            (scalar(cl, "certificate-authority") && !ret->ca_file))
            r = err_set(e, ENOMEM, "%s: out of memory", path);
    }
    doc_free(d);
    if (r < 0)
        kube_daemon_conn_release(ret);
    return r;
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
                struct krequests *q)
{
    bool was_synced = false;
    int64_t last_run = 0, last_retry = mono_ns();
    while (!stop_requested) {
        /* Wall time never goes back for the scheduler. */
        int64_t now = wall_ns();
        if (now >= scheduler_cluster(s)->now_ns)
            scheduler_clock(s, now);
        int r = krequests_process(q, LOOP_WAIT_MS);
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
        }
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

int kube_daemon_run(const struct sched_config *cfg,
                    const struct plugin_registry *plugins,
                    const struct kube_daemon_options *opt)
{
    struct kube_conn conn = {0};
    struct err e;
    struct kclient *kc = NULL;
    struct krequests *q = NULL;
    struct kube_backend *kb = NULL;
    struct scheduler *s = NULL;
    int rc = 1, r;
    if (opt->kubeconfig && kube_daemon_read_kubeconfig(
                               opt->kubeconfig, opt->context, &conn, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: --kubeconfig: %s\n", e.msg);
        return 1;
    }
    struct kclient_options ko = {
        .base_url = opt->server ? opt->server : conn.server,
        .bearer_token = opt->token ? opt->token : conn.token,
        .ca_file = opt->ca_file ? opt->ca_file : conn.ca_file,
        .insecure_skip_verify = opt->insecure_skip_verify || conn.insecure,
        /* Lists of a large cluster come in pages, each one may be big. */
        .max_response_bytes = (size_t)64 << 20,
    };
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
    struct kube_backend_options bo = {
        .evict_grace_seconds = opt->evict_grace_seconds,
        .lease_namespace = opt->lease_namespace,
    };
    if ((r = krequests_new(kc, &qo, &q)) < 0 ||
        (r = kube_backend_new(kc, q, &bo, &kb)) < 0 ||
        (r = scheduler_new(cfg, plugins, &kube_backend_ops, kb, &s)) < 0 ||
        (r = kube_backend_start(kb, s)) < 0) {
        fprintf(stderr, "ordo-scheduler: starting: %s\n", strerror(-r));
        goto out;
    }
    install_signals();
    LOG_I("watching %s", ko.base_url);
    r = loop(s, kb, q);
    if (r < 0)
        fprintf(stderr, "ordo-scheduler: event loop: %s\n", strerror(-r));
    else
        LOG_I("stopping");
    rc = r < 0 ? 1 : 0;
out:
    /* The backend's requests first, then what they ran on. */
    kube_backend_free(kb);
    krequests_free(q);
    kclient_free(kc);
    scheduler_free(s);
    kube_daemon_conn_release(&conn);
    return rc;
}
