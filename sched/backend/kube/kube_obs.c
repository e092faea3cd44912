/* kube_obs.c - the daemon's metrics and endpoints (kube_obs.h): the
 * families only the cluster mode has, refreshed at each scrape, and the
 * HTTP server's socket in the loop's wait. */
#include "kube_obs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube_int.h"
#include "kube_webhook.h"
#include "log.h"

struct kube_obs {
    struct kube_obs_options o;
    struct scheduler *s;
    struct kube_backend *kb;
    struct sched_metrics *m;
    struct http_server *http, *hook;
    struct kube_webhook wh;
    struct metric_family *synced, *writes, *sent, *reviews;
};

static const char *role(void *data)
{
    const struct kube_obs *ob = data;
    const char *r =
        ob->o.replica.role ? ob->o.replica.role(ob->o.replica.data) : NULL;
    return r ? r : "standalone";
}

static int64_t mono_ns(void *data)
{
    (void)data;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Pod bindings are the binds; every request counts by verb and code. */
static void on_request(void *data, enum kreq_method m, bool stream,
                       const char *url, long status, int64_t latency_ms)
{
    struct kube_obs *ob = data;
    if (!ob->m)
        return;
    const char *verb = stream ? "WATCH" : kreq_method_name(m);
    sched_metrics_api_request(ob->m, verb, status, latency_ms * 1000000LL);
    static const char bind[] = "/binding";
    size_t n = strlen(url);
    if (m == KREQ_POST && n > sizeof(bind) &&
        strcmp(url + n - (sizeof(bind) - 1), bind) == 0)
        sched_metrics_bind(ob->m, status >= 200 && status < 300,
                           latency_ms * 1000000LL);
}

static void on_scrape(void *data, struct metrics *reg)
{
    struct kube_obs *ob = data;
    (void)reg;
    const char *r = role(ob);
    metrics_family_clear(ob->synced);
    for (int i = 0; i < KRES_MAX; i++) {
        const char *v[] = {kube_resources[i].kind, r};
        const struct kinformer *inf = kube_backend_informer(ob->kb, i);
        metrics_set(metrics_series(ob->synced, v),
                    inf && kinformer_synced(inf));
    }
    const char *v[] = {r};
    metrics_family_clear(ob->writes);
    metrics_set(metrics_series(ob->writes, v),
                (int64_t)ob->kb->writes.n_pending);
    metrics_set(metrics_series(ob->sent, v), (int64_t)ob->kb->writes.sent);
}

/* Ready once every informer listed once: the names of those that did
 * not. */
static bool ready(void *data, char *buf, size_t n)
{
    struct kube_obs *ob = data;
    size_t len = 0;
    bool ok = true;
    buf[0] = '\0';
    for (int i = 0; i < KRES_MAX; i++) {
        const struct kinformer *inf = kube_backend_informer(ob->kb, i);
        if (inf && kinformer_synced(inf))
            continue;
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s not synced",
                                    ok ? "" : ", ", kube_resources[i].kind);
        ok = false;
    }
    return ok;
}

/* The webhook's view of the informers' cache. */
static const struct object *cache_get(void *data, enum object_kind kind,
                                      const char *key)
{
    struct kube_obs *ob = data;
    return cluster_get_object(scheduler_cluster(ob->s), kind, key);
}

static unsigned on_review(void *data, const char *url, const char *body,
                          size_t len, char **ret_body)
{
    struct kube_obs *ob = data;
    struct kube_webhook_outcome out;
    (void)url; /* every path: the registration names one */
    unsigned code = kube_webhook_review(&ob->wh, body, len, ret_body, &out);
    const char *result = code != 200   ? "error"
                         : out.patched ? "patched"
                                       : "unchanged";
    if (code != 200)
        LOG_W("webhook: %s", out.what);
    else
        LOG_V(1, "webhook: %s", out.what);
    const char *v[] = {result};
    if (ob->reviews)
        metrics_add(metrics_series(ob->reviews, v), 1);
    return code;
}

static int start_webhook(struct kube_obs *ob, struct err *e)
{
    if (!ob->o.webhook_cert || !ob->o.webhook_key)
        return err_set(e, EINVAL,
                       "--webhook-listen needs --webhook-cert and "
                       "--webhook-key: the API server calls webhooks over "
                       "HTTPS only");
    ob->wh = (struct kube_webhook){
        .rule = ob->o.webhook_rule, .get = cache_get, .get_data = ob};
    struct http_server_options ho = {
        .listen = ob->o.webhook_listen,
        .cert_file = ob->o.webhook_cert,
        .key_file = ob->o.webhook_key,
        .post = on_review,
        .post_data = ob,
        .max_body = KUBE_WEBHOOK_MAX_BODY,
        .post_only = true,
        .reload_tls = true,
        .flag = "--webhook",
    };
    int r = http_server_new(&ho, &ob->hook, e);
    if (r < 0)
        return r;
    LOG_I("serving the pod webhook on %s (port %u) over TLS",
          ob->o.webhook_listen, (unsigned)http_server_port(ob->hook));
    return 0;
}

int kube_obs_new(const struct kube_obs_options *o, struct krequest_options *qo,
                 struct kube_obs **ret)
{
    struct kube_obs *ob = calloc(1, sizeof(*ob));
    if (!ob)
        return -ENOMEM;
    if (o)
        ob->o = *o;
    qo->on_result = on_request;
    qo->result_data = ob;
    *ret = ob;
    return 0;
}

int kube_obs_start(struct kube_obs *ob, struct scheduler *s,
                   struct kube_backend *kb, struct err *e)
{
    ob->s = s;
    ob->kb = kb;
    struct sched_metrics_options mo = {.now_ns = mono_ns,
                                       .replica_role = role,
                                       .on_scrape = on_scrape,
                                       .data = ob,
                                       .no_local_queue_metrics =
                                           ob->o.no_local_queue_metrics};
    int r = sched_metrics_new(s, &mo, &ob->m);
    if (r < 0)
        return err_set(e, -r, "metrics: %s", strerror(-r));
    struct metrics *reg = sched_metrics_registry(ob->m);
    const struct metric_desc synced = {
        .name = "ordo_informer_synced",
        .help = "1 once the informer of a kind listed.",
        .type = METRIC_GAUGE,
        .labels = {"kind", "replica_role"}};
    const struct metric_desc writes = {.name = "ordo_write_queue_depth",
                                       .help =
                                           "Status writes waiting to be sent.",
                                       .type = METRIC_GAUGE,
                                       .labels = {"replica_role"}};
    const struct metric_desc sent = {.name = "ordo_status_writes_total",
                                     .help = "Status writes sent.",
                                     .type = METRIC_COUNTER,
                                     .labels = {"replica_role"}};
    const struct metric_desc reviews = {
        .name = "ordo_webhook_admission_reviews_total",
        .help = "AdmissionReviews answered by the pod webhook, by result "
                "(patched, unchanged, error).",
        .type = METRIC_COUNTER,
        .labels = {"result"}};
    if ((r = metrics_register(reg, &synced, &ob->synced)) < 0 ||
        (r = metrics_register(reg, &writes, &ob->writes)) < 0 ||
        (r = metrics_register(reg, &sent, &ob->sent)) < 0 ||
        (r = metrics_register(reg, &reviews, &ob->reviews)) < 0)
        return err_set(e, -r, "metrics: %s", strerror(-r));
    if (ob->o.webhook_listen && (r = start_webhook(ob, e)) < 0)
        return r;
    if (!ob->o.listen)
        return 0;
    struct http_server_options ho = {
        .listen = ob->o.listen,
        .cert_file = ob->o.cert_file,
        .key_file = ob->o.key_file,
        .client_ca_file = ob->o.client_ca_file,
        .client_names = ob->o.client_names,
        .s = s,
        .metrics = ob->m,
        .ready = ready,
        .ready_data = ob,
        .replica = ob->o.replica,
        .reload_tls = true,
    };
    if ((r = http_server_new(&ho, &ob->http, e)) < 0)
        return r;
    LOG_I("serving /metrics /healthz /readyz /queues on %s (port %u)%s%s",
          ob->o.listen, (unsigned)http_server_port(ob->http),
          ob->o.cert_file ? " over TLS" : "",
          ob->o.client_ca_file ? ", client certificates of --listen-client-ca "
                                 "required but for the probes"
                               : "");
    return 0;
}

int kube_obs_rebind(struct kube_obs *ob, struct scheduler *s,
                    struct kube_backend *kb)
{
    if (!ob)
        return 0;
    ob->s = s;
    ob->kb = kb;
    if (ob->http)
        http_server_set_scheduler(ob->http, s);
    return ob->m ? sched_metrics_rebind(ob->m, s) : 0;
}

void kube_obs_free(struct kube_obs *ob)
{
    if (!ob)
        return;
    http_server_free(ob->http);
    http_server_free(ob->hook);
    sched_metrics_free(ob->m);
    free(ob);
}

/* Rotated certificates (cert-manager), every few seconds. */
static void reload(struct http_server *h, const char *what)
{
    struct err e;
    if (!h || !http_server_reload_due(h))
        return;
    int r = http_server_reload(h, &e);
    if (r > 0)
        LOG_I("%s: certificate and key read again", what);
    else if (r < 0)
        LOG_E("%s: %s", what, e.msg);
}

int kube_obs_process(struct kube_obs *ob, struct krequests *q, int timeout_ms)
{
    if (!ob || (!ob->http && !ob->hook))
        return krequests_process(q, timeout_ms);
    struct curl_waitfd w[2];
    unsigned n = 0;
    struct http_server *srv[2] = {ob->http, ob->hook};
    for (int i = 0; i < 2; i++) {
        if (!srv[i] || http_server_fd(srv[i]) < 0)
            continue;
        int64_t t = http_server_timeout_ms(srv[i]);
        if (t >= 0 && t < timeout_ms)
            timeout_ms = (int)t;
        w[n++] = (struct curl_waitfd){.fd = http_server_fd(srv[i]),
                                      .events = CURL_WAIT_POLLIN};
    }
    int r = krequests_process_fds(q, timeout_ms, n ? w : NULL, n);
    for (int i = 0; i < 2; i++)
        if (srv[i])
            http_server_run(srv[i]);
    reload(ob->hook, "webhook");
    reload(ob->http, "--listen");
    return r;
}
