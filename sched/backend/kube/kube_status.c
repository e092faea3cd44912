/* kube_status.c - the backend's status writes (see kube_status.h): what
 * the cluster says after a cycle filed in the write queue, the queue
 * drained into requests, their answers fed back. */
#include "kube_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube_int.h"
#include "kube_pod_status.h"
#include "kube_queue_status.h"
#include "kube_workload.h"
#include "log.h"

#define PATH_MAX_KEY 700

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

static void refs_release(struct kube_backend *kb);
static const char *uid_of(void *data, const char *key);

static int64_t now_of(const struct kube_backend *kb)
{
    return scheduler_cluster(kb->s)->now_ns;
}

int kube_status_init(struct kube_backend *kb)
{
    if (!kb->opt.write_status)
        return 0;
    kube_writes_init(&kb->writes,
                     kb->opt.write_rate ? kb->opt.write_rate : KUBE_STATUS_RATE,
                     kb->opt.write_burst ? kb->opt.write_burst
                                         : KUBE_STATUS_BURST,
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
    refs_release(kb);
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

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) &&
                   json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* ---- Workload objects: names and uids ------------------------------------ */

struct kube_wl_ref {
    char *key; /* the workload's */
    char *obj; /* its Workload's "ns/name" */
    char *uid; /* metadata.uid from the API server, or NULL */
    UT_hash_handle hh, hh_obj;
};

static void ref_free(struct kube_backend *kb, struct kube_wl_ref *ref)
{
    HASH_DEL(kb->wl_refs, ref);
    HASH_DELETE(hh_obj, kb->wl_refs_obj, ref);
    free(ref->key);
    free(ref->obj);
    free(ref->uid);
    free(ref);
}

static void refs_release(struct kube_backend *kb)
{
    struct kube_wl_ref *ref, *tmp;
    HASH_ITER(hh, kb->wl_refs, ref, tmp)
    ref_free(kb, ref);
    for (size_t i = 0; i < kb->n_refile; i++)
        free(kb->refile[i]);
    free(kb->refile);
    kb->refile = NULL;
    kb->n_refile = kb->cap_refile = 0;
}

/* Retires the write keys of obj ("ns/name"). */
static void retire_obj(struct kube_backend *kb, const char *obj)
{
    char k[PATH_MAX_KEY];
    snprintf(k, sizeof(k), "Workload %s", obj);
    kube_writes_retire(&kb->writes, k);
    snprintf(k, sizeof(k), "Workload/status %s", obj);
    kube_writes_retire(&kb->writes, k);
}

/* Workload key's Workload is name in ns (its ref made or renamed). */
static int ref_set(struct kube_backend *kb, const char *key, const char *ns,
                   const char *name)
{
    char obj[PATH_MAX_KEY];
    snprintf(obj, sizeof(obj), "%s/%s", ns, name);
    struct kube_wl_ref *ref = NULL;
    HASH_FIND_STR(kb->wl_refs, key, ref);
    if (ref && strcmp(ref->obj, obj) == 0)
        return 0;
    if (ref) {
        /* Its Job was made again under the same name: a new Workload. */
        retire_obj(kb, ref->obj);
        ref_free(kb, ref);
    }
    if (!(ref = calloc(1, sizeof(*ref))) || !(ref->key = strdup(key)) ||
        !(ref->obj = strdup(obj))) {
        if (ref) {
            free(ref->key);
            free(ref);
        }
        return -ENOMEM;
    }
    HASH_ADD_KEYPTR(hh, kb->wl_refs, ref->key, strlen(ref->key), ref);
    HASH_ADD_KEYPTR(hh_obj, kb->wl_refs_obj, ref->obj, strlen(ref->obj), ref);
    return 0;
}

/* kube_wl_opts.uid_of: the uid of workload key's Workload; a miss puts
 * the workload being filed on the refile list. */
static const char *uid_of(void *data, const char *key)
{
    struct kube_backend *kb = data;
    struct kube_wl_ref *ref = NULL;
    HASH_FIND_STR(kb->wl_refs, key, ref);
    if (ref && ref->uid)
        return ref->uid;
    if (!kb->filing)
        return NULL;
    for (size_t i = 0; i < kb->n_refile; i++)
        if (strcmp(kb->refile[i], kb->filing) == 0)
            return NULL;
    if (kb->n_refile == kb->cap_refile) {
        size_t cap = kb->cap_refile ? 2 * kb->cap_refile : 8;
        char **v = realloc(kb->refile, cap * sizeof(*v));
        if (!v)
            return NULL;
        kb->refile = v;
        kb->cap_refile = cap;
    }
    char *k = strdup(kb->filing);
    if (k)
        kb->refile[kb->n_refile++] = k;
    return NULL;
}

const char *kube_status_workload_uid(const struct kube_backend *kb,
                                     const char *wl_key)
{
    struct kube_wl_ref *ref = NULL;
    HASH_FIND_STR(kb->wl_refs, wl_key, ref);
    return ref ? ref->uid : NULL;
}

/* The API server's answer names the uid of Workload obj ("ns/name"). */
static void uid_learned(struct kube_backend *kb, const char *obj,
                        const char *body)
{
    struct json_object *root = body && *body ? json_tokener_parse(body) : NULL;
    struct json_object *meta = NULL;
    json_object_object_get_ex(root, "metadata", &meta);
    const char *uid = jstr(meta, "uid");
    struct kube_wl_ref *ref = NULL;
    HASH_FIND(hh_obj, kb->wl_refs_obj, obj, strlen(obj), ref);
    if (ref && uid && *uid && (!ref->uid || strcmp(ref->uid, uid) != 0)) {
        char *copy = strdup(uid);
        if (copy) {
            free(ref->uid);
            ref->uid = copy;
            kb->uid_learned = true;
            kb->changed = true; /* the waiting messages, at the next cycle */
        }
    }
    json_object_put(root);
}

/* ---- filing what changed ------------------------------------------------ */

/* Files w: its Workload and, while it waits, its pods' PodScheduled. */
static int file_workload(struct kube_backend *kb, const struct cluster *c,
                         const struct workload *w)
{
    const struct kube_wl_opts wo = {.uid_of = uid_of, .data = kb};
    char name[KUBE_NAME_MAX];
    int r = 0;
    if (kube_workload_name(w, name, sizeof(name)) == 0 && w->ns)
        r = ref_set(kb, w->key, w->ns, name);
    kb->filing = w->key;
    if (r == 0)
        r = kube_workload_put(&kb->writes, c, w, &wo);
    kb->filing = NULL;
    for (size_t i = 0; r == 0 && w->state == WL_PENDING && i < w->n_pods; i++) {
        const struct pod *p = w->pods[i];
        if (!p->node && p->obj && p->obj->meta.name && p->obj->meta.namespace_)
            r = put_waiting_pod(kb, p);
    }
    return r == -EINVAL ? 0 : r; /* an object without a name: none */
}

/* Workload key left the cluster: its writes go once the last is out. */
static void workload_left(struct kube_backend *kb, const char *key)
{
    struct kube_wl_ref *ref = NULL;
    HASH_FIND_STR(kb->wl_refs, key, ref);
    if (!ref)
        return;
    retire_obj(kb, ref->obj);
    ref_free(kb, ref);
}

static int file_lq(struct kube_backend *kb, const struct cluster *c,
                   const char *key, int64_t now)
{
    if (!cluster_get_object(c, OBJ_LOCAL_QUEUE, key))
        return 0; /* none (a workload's default queue), or deleted */
    return kube_lq_status_put(&kb->writes, c, key, now);
}

static int file_all_queues(struct kube_backend *kb, const struct cluster *c,
                           int64_t now)
{
    int r = 0;
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        r = kube_cq_status_put(&kb->writes, c, c->cqs_v[i], now);
    struct obj_entry *e, *etmp;
    HASH_ITER(hh, c->lqs, e, etmp)
    {
        if (r == 0)
            r = kube_lq_status_put(&kb->writes, c, e->key, now);
    }
    return r;
}

/* Everything: the first pass, and every KUBE_STATUS_RESYNC_NS. */
static int file_all(struct kube_backend *kb, const struct cluster *c,
                    int64_t now)
{
    int r = 0;
    struct workload *w, *wtmp;
    HASH_ITER(hh, c->workloads, w, wtmp)
    {
        if (r == 0)
            r = file_workload(kb, c, w);
    }
    return r < 0 ? r : file_all_queues(kb, c, now);
}

static bool listed(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

/* What the change lists name (a workload: its objects and waiting pods;
 * a queue: its status): the cost is theirs, not the cluster's. */
static int file_changed(struct kube_backend *kb, const struct cluster *c,
                        const struct scheduler_changes *ch, int64_t now)
{
    int r = 0;
    for (size_t i = 0; r == 0 && i < ch->n_workloads; i++) {
        const struct workload *w = cluster_get_workload(c, ch->workloads[i]);
        if (w)
            r = file_workload(kb, c, w);
    }
    const struct cq **used = NULL;
    uint32_t n_used = 0;
    if (r == 0)
        r = scheduler_take_usage_changed(kb->s, &used, &n_used);
    for (uint32_t i = 0; r == 0 && i < n_used; i++)
        if (!listed(ch->cqs, ch->n_cqs, used[i]->name))
            r = kube_cq_status_put(&kb->writes, c, used[i], now);
    free(used);
    for (size_t i = 0; r == 0 && i < ch->n_cqs; i++) {
        const struct cq *q = cluster_get_cq(c, ch->cqs[i]);
        if (q)
            r = kube_cq_status_put(&kb->writes, c, q, now);
    }
    for (size_t i = 0; r == 0 && i < ch->n_lqs; i++)
        r = file_lq(kb, c, ch->lqs[i], now);
    if (r == 0 && kb->queues_dirty)
        r = file_all_queues(kb, c, now);
    return r;
}

int kube_backend_write_status(struct kube_backend *kb)
{
    if (!kb->opt.write_status || !kb->s)
        return 0;
    const struct cluster *c = scheduler_cluster(kb->s);
    int64_t now = now_of(kb);
    struct scheduler_changes ch;
    int r = scheduler_take_changes(kb->s, &ch);
    if (r < 0)
        return r;
    for (size_t i = 0; i < ch.n_workloads; i++)
        if (!cluster_get_workload(c, ch.workloads[i]))
            workload_left(kb, ch.workloads[i]);
    /* Those whose messages waited for a uid, once one came: filed with
     * the changes (they go back on the list if theirs is still missing). */
    char **refile = kb->uid_learned ? kb->refile : NULL;
    size_t n_refile = kb->uid_learned ? kb->n_refile : 0;
    if (kb->uid_learned) {
        kb->refile = NULL;
        kb->n_refile = kb->cap_refile = 0;
        kb->uid_learned = false;
    }
    bool full = ch.all || kb->status_full_ns == 0 ||
                now - kb->status_full_ns >= KUBE_STATUS_RESYNC_NS;
    if (full) {
        kb->status_full_ns = now ? now : 1;
        kb->st.status_full++;
        r = file_all(kb, c, now);
        const struct cq **used = NULL;
        uint32_t n_used = 0;
        if (scheduler_take_usage_changed(kb->s, &used, &n_used) == 0)
            free(used); /* all filed: the list starts anew */
    } else {
        r = file_changed(kb, c, &ch, now);
    }
    for (size_t i = 0; i < n_refile; i++) {
        const struct workload *w = cluster_get_workload(c, refile[i]);
        if (r == 0 && w && !full)
            r = file_workload(kb, c, w);
        free(refile[i]);
    }
    free(refile);
    if (r == 0)
        kb->queues_dirty = false;
    scheduler_changes_release(&ch);
    return r == -EINVAL ? 0 : r; /* an object without a name: none */
}

void kube_status_object_gone(struct kube_backend *kb, enum kube_res res,
                             const char *key)
{
    if (!kb->opt.write_status)
        return;
    const char *kind = res == KRES_POD             ? "Pod/status"
                       : res == KRES_CLUSTER_QUEUE ? "ClusterQueue/status"
                       : res == KRES_LOCAL_QUEUE   ? "LocalQueue/status"
                                                   : NULL;
    if (!kind)
        return;
    char k[PATH_MAX_KEY];
    snprintf(k, sizeof(k), "%s %s", kind, key);
    kube_writes_retire(&kb->writes, k);
}

/* Whether the queue still has the Workload object of "ns/name". */
static bool object_known(const struct kube_backend *kb, const char *nsname)
{
    char key[600];
    snprintf(key, sizeof(key), "Workload %s", nsname);
    return kube_writes_state(&kb->writes, key) != NULL;
}

static void uid_read(void *data, const struct kreq_result *res)
{
    struct kube_write_op *op = data;
    op->req = NULL;
    if (res->status == 200)
        uid_learned(op->kb, op->key, res->body);
    else
        LOG_V(1, "Workload %s: its uid not read: HTTP %ld", op->key,
              res->status);
    write_op_free(op);
}

/* The Workload obj ("ns/name") exists already (a 409 to its POST, after a
 * restart): its uid is read. */
static void read_uid(struct kube_backend *kb, const char *obj)
{
    const char *slash = strchr(obj, '/');
    struct kube_write_op *op = slash ? calloc(1, sizeof(*op)) : NULL;
    if (!op)
        return;
    op->kb = kb;
    op->next = kb->write_ops;
    if (kb->write_ops)
        kb->write_ops->prev = op;
    kb->write_ops = op;
    char path[PATH_MAX_KEY + 64];
    snprintf(path, sizeof(path),
             "/apis/kueue.x-k8s.io/v1beta2/namespaces/%.*s/workloads/%s",
             (int)(slash - obj), obj, slash + 1);
    struct kreq_spec spec = {
        .method = KREQ_GET, .path = path, .retry_unsure = true};
    if (!(op->key = strdup(obj)) ||
        krequest_start(kb->q, &spec, uid_read, NULL, op, &op->req) < 0)
        write_op_free(op);
}

static void write_done(void *data, const struct kreq_result *res)
{
    struct kube_write_op *op = data;
    struct kube_backend *kb = op->kb;
    op->req = NULL;
    long st = res->status;
    bool wl_obj = strncmp(op->key, "Workload ", 9) == 0;
    if (op->post && wl_obj && st >= 200 && st < 300)
        uid_learned(kb, op->key + 9, res->body);
    if (op->post && wl_obj && st == 409)
        read_uid(kb, op->key + 9);
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
    const struct kube_wl_opts wo = {.uid_of = uid_of, .data = kb};
    kube_events_preempted(&kb->rec, now_of(kb), scheduler_cluster(kb->s), w,
                          &wo);
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

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int kube_backend_flush(struct kube_backend *kb, int64_t deadline_ns)
{
    if (!kb || !kb->opt.write_status || !kb->s)
        return 0;
    int r = kube_backend_write_status(kb); /* what the last cycle changed */
    while (r >= 0 && (kb->writes.n_pending > 0 || kb->write_ops)) {
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now >= deadline_ns)
            break;
        /* The write bucket runs on the scheduler's clock: wall time. */
        int64_t wall = clock_ns(CLOCK_REALTIME);
        if (wall > now_of(kb))
            scheduler_clock(kb->s, wall);
        if ((r = kube_backend_drain_writes(kb)) < 0)
            break;
        int64_t left_ms = (deadline_ns - now) / 1000000;
        r = krequests_process(kb->q, left_ms < 50 ? (int)left_ms : 50);
    }
    if (r < 0)
        return r;
    return kb->writes.n_pending > 0 || kb->write_ops ? -ETIMEDOUT : 0;
}
