/* kube_status.c - the backend's status writes (see kube_status.h): what
 * the cluster says after a cycle filed in the write queue, the queue
 * drained into requests, their answers fed back. */
#include "kube_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube_int.h"
#include "kube_pod_status.h"
#include "kube_queue_status.h"
#include "kube_workload.h"
#include "log.h"

/* A status write in flight (owned by kb->write_ops until its answer). */
struct kube_write_op {
    struct kube_backend *kb;
    struct kube_write_op *prev, *next;
    struct kreq *req;
    char *key;
    bool post;
};

static void write_op_free(struct kube_write_op *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        op->kb->write_ops = op->next;
    if (op->next)
        op->next->prev = op->prev;
    free(op->key);
    free(op);
}

static int64_t now_of(const struct kube_backend *kb)
{
    return scheduler_cluster(kb->s)->now_ns;
}

int kube_status_init(struct kube_backend *kb)
{
    if (!kb->opt.write_status)
        return 0;
    kube_writes_init(&kb->writes, KUBE_STATUS_RATE, KUBE_STATUS_BURST,
                     now_of(kb));
    kb->writes.workloads_off = kb->opt.workloads_off;
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) < 0)
        host[0] = '\0';
    return kube_events_init(&kb->rec, &kb->writes, *host ? host : NULL);
}

void kube_status_release(struct kube_backend *kb)
{
    if (!kb->opt.write_status)
        return;
    while (kb->write_ops) {
        krequest_cancel(kb->write_ops->req);
        write_op_free(kb->write_ops);
    }
    kube_events_release(&kb->rec);
    kube_writes_release(&kb->writes);
    free(kb->last_preempted);
    kb->last_preempted = NULL;
}

/* The message of the PodScheduled condition filed for key, copied into
 * buf ("" when none). */
static void pod_message(const struct kube_backend *kb, const char *key,
                        char *buf, size_t size)
{
    const struct json_object *st = kube_writes_state(&kb->writes, key);
    struct json_object *s = NULL, *conds = NULL, *msg = NULL;
    buf[0] = '\0';
    if (st && json_object_object_get_ex(st, "status", &s) &&
        json_object_object_get_ex(s, "conditions", &conds) &&
        json_object_array_length(conds) > 0 &&
        json_object_object_get_ex(json_object_array_get_idx(conds, 0),
                                  "message", &msg))
        snprintf(buf, size, "%s", json_object_get_string(msg));
}

/* A pod that waits: PodScheduled False, and FailedScheduling when why it
 * waits changed. */
static int put_waiting_pod(struct kube_backend *kb, const struct pod *p)
{
    const struct object_meta *m = &p->obj->meta;
    char key[600], before[REASON_MAX], after[REASON_MAX];
    snprintf(key, sizeof(key), "Pod/status %s/%s", m->namespace_, m->name);
    pod_message(kb, key, before, sizeof(before));
    int r = kube_pod_status_put(&kb->writes, p, NULL, now_of(kb));
    if (r < 0)
        return r;
    pod_message(kb, key, after, sizeof(after));
    if (*after && strcmp(before, after) != 0)
        r = kube_events_failed_scheduling(&kb->rec, now_of(kb), p, after);
    return r < 0 ? r : 0;
}

int kube_backend_write_status(struct kube_backend *kb)
{
    if (!kb->opt.write_status || !kb->s)
        return 0;
    const struct cluster *c = scheduler_cluster(kb->s);
    int64_t now = now_of(kb);
    int r = 0;
    const struct kube_wl_opts wo = {0};
    struct workload *w, *wtmp;
    HASH_ITER(hh, c->workloads, w, wtmp)
    {
        if (r == 0)
            r = kube_workload_put(&kb->writes, c, w, &wo);
        for (size_t i = 0; r == 0 && w->state == WL_PENDING && i < w->n_pods;
             i++) {
            const struct pod *p = w->pods[i];
            if (!p->node && p->obj && p->obj->meta.name &&
                p->obj->meta.namespace_)
                r = put_waiting_pod(kb, p);
        }
    }
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        r = kube_cq_status_put(&kb->writes, c, c->cqs_v[i], now);
    struct obj_entry *e, *etmp;
    HASH_ITER(hh, c->lqs, e, etmp)
    {
        if (r == 0)
            r = kube_lq_status_put(&kb->writes, c, e->key, now);
    }
    return r == -EINVAL ? 0 : r; /* an object without a name: none */
}

/* Whether the queue still has the Workload object of "ns/name". */
static bool object_known(const struct kube_backend *kb, const char *nsname)
{
    char key[600];
    snprintf(key, sizeof(key), "Workload %s", nsname);
    return kube_writes_state(&kb->writes, key) != NULL;
}

static void write_done(void *data, const struct kreq_result *res)
{
    struct kube_write_op *op = data;
    struct kube_backend *kb = op->kb;
    op->req = NULL;
    long st = res->status;
    if (st < 200 || st >= 300) {
        kb->st.writes_failed++;
        if (st == 409 && op->post) {
            /* It exists already (a restart): patch it whole. */
            kube_writes_failed(&kb->writes, op->key, false);
        } else if (st == 404 && strncmp(op->key, "Workload/status ", 16) == 0 &&
                   object_known(kb, op->key + 16)) {
            /* Sent before the POST of its Workload was answered. */
            kube_writes_failed(&kb->writes, op->key, false);
        } else if (st == 404 || (st >= 400 && st < 500 && st != 429)) {
            /* Gone, or refused as it is: retrying changes nothing. */
            LOG_W("status write %s: HTTP %ld %.200s; dropped", op->key, st,
                  res->body);
            kube_writes_forget(&kb->writes, op->key);
        } else {
            LOG_V(1, "status write %s: %s; sent again later", op->key,
                  res->error ? res->error : "server error");
            kube_writes_failed(&kb->writes, op->key, op->post);
        }
    }
    write_op_free(op);
}

static int write_send(void *data, const struct kube_request *req)
{
    struct kube_backend *kb = data;
    struct kube_write_op *op = calloc(1, sizeof(*op));
    if (!op)
        return -ENOMEM;
    op->kb = kb;
    op->post = strcmp(req->method, "POST") == 0;
    op->next = kb->write_ops;
    if (kb->write_ops)
        kb->write_ops->prev = op;
    kb->write_ops = op;
    if (!(op->key = strdup(req->key))) {
        write_op_free(op);
        return -ENOMEM;
    }
    struct kreq_spec spec = {
        .method = op->post ? KREQ_POST : KREQ_PATCH,
        .path = req->path,
        .body = req->body,
        .content_type = req->content_type,
    };
    int r = krequest_start(kb->q, &spec, write_done, NULL, op, &op->req);
    if (r < 0) {
        write_op_free(op);
        return r;
    }
    kb->st.writes++;
    return 0;
}

int kube_backend_drain_writes(struct kube_backend *kb)
{
    if (!kb->opt.write_status || !kb->s || kb->writes.n_pending == 0)
        return 0;
    int r = kube_writes_drain(&kb->writes, now_of(kb), write_send, kb);
    return r < 0 ? r : 0;
}

void kube_status_scheduled(struct kube_backend *kb, const char *pod_key)
{
    if (!kb->opt.write_status)
        return;
    const struct pod *p = cluster_get_pod(scheduler_cluster(kb->s), pod_key);
    if (p && p->node && p->obj &&
        kube_events_scheduled(&kb->rec, now_of(kb), p, p->node) < 0)
        LOG_V(1, "Scheduled event of %s: not recorded", pod_key);
}

void kube_status_preempted(struct kube_backend *kb, const struct pod *p)
{
    const struct workload *w = p->wl;
    if (!kb->opt.write_status || !w || !w->evict_class)
        return;
    /* One event per eviction of the workload, not one per pod. */
    if (kb->last_preempted && strcmp(kb->last_preempted, w->key) == 0 &&
        kb->last_preempted_evictions == w->evictions)
        return;
    char *k = strdup(w->key);
    if (!k)
        return;
    free(kb->last_preempted);
    kb->last_preempted = k;
    kb->last_preempted_evictions = w->evictions;
    const struct kube_wl_opts wo = {0};
    kube_events_preempted(&kb->rec, now_of(kb), scheduler_cluster(kb->s), w,
                          &wo);
}

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) &&
                   json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

void kube_status_rejected(struct kube_backend *kb, struct json_object *obj,
                          const char *why)
{
    if (!kb->opt.write_status || !kb->s)
        return;
    struct json_object *meta = NULL;
    json_object_object_get_ex(obj, "metadata", &meta);
    const char *ns = jstr(meta, "namespace");
    /* Events of cluster-scoped objects live in "default", as kubectl's. */
    struct kube_event_obj o = {
        .api_version = jstr(obj, "apiVersion"),
        .kind = jstr(obj, "kind"),
        .ns = ns ? ns : "default",
        .name = jstr(meta, "name"),
        .uid = jstr(meta, "uid"),
    };
    if (o.name && o.kind)
        kube_events_record(&kb->rec, now_of(kb), &o, "Warning", "Rejected",
                           why);
}

void kube_status_evict_refused(void *data, const char *pod_key, const char *why,
                               bool first)
{
    struct kube_backend *kb = data;
    (void)first; /* the recorder counts repeats on one Event */
    if (!kb->opt.write_status || !kb->s)
        return;
    const struct pod *p = cluster_get_pod(scheduler_cluster(kb->s), pod_key);
    if (!p || !p->obj)
        return;
    struct kube_event_obj o = {.api_version = "v1",
                               .kind = "Pod",
                               .ns = p->obj->meta.namespace_,
                               .name = p->obj->meta.name,
                               .uid = p->obj->meta.uid};
    if (kube_events_record(&kb->rec, now_of(kb), &o, "Warning",
                           "EvictionRefused", why) < 0)
        LOG_V(1, "EvictionRefused event of %s: not recorded", pod_key);
}
