/* scheduler.c - the line between the world and the decisions (see
 * scheduler.h): a backend's events go to the cache (cache/events.c), and
 * scheduler_run() brings the cache up to date and runs cycles (cycle/)
 * until one changes nothing; decisions leave through the backend's
 * actions. */
#include "scheduler_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "cycle.h"
#include "log.h"
#include "queue.h"

/* Cycles run at one instant until one admits nothing; this bounds them
 * when something keeps changing without progress. */
#define CYCLES_PER_RUN_MAX 100000

void scheduler_init(struct scheduler *s, const struct sched_config *cfg,
                    const struct backend_ops *backend, void *backend_data)
{
    memset(s, 0, sizeof(*s));
    cluster_init(&s->cluster);
    s->config = cfg;
    s->backend = backend;
    s->backend_data = backend_data;
}

void scheduler_release(struct scheduler *s)
{
    if (s)
        cluster_release(&s->cluster);
}

int scheduler_new(const struct sched_config *cfg,
                  const struct plugin_registry *plugins,
                  const struct backend_ops *backend, void *backend_data,
                  struct scheduler **ret)
{
    struct scheduler *s = malloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    scheduler_init(s, cfg, backend, backend_data);
    if (plugins) {
        s->plugins = *plugins;
        plugins_set_clock(plugins, &s->cluster.now_ns); /* host->now */
    }
    *ret = s;
    return 0;
}

void scheduler_free(struct scheduler *s)
{
    if (!s)
        return;
    scheduler_release(s);
    free(s);
}

const struct cluster *scheduler_cluster(const struct scheduler *s)
{
    return &s->cluster;
}

int scheduler_queue_position(struct scheduler *s, const char *key,
                             struct scheduler_queue_position *ret)
{
    const struct workload *w = cluster_workload(&s->cluster, key);
    *ret = (struct scheduler_queue_position){0};
    if (!w || w->state != WL_PENDING || !w->queued || !w->cq)
        return -ENOENT;
    struct cq *q = w->cq;
    queue_assign_plugin(s, q);
    queue_sort(q);
    for (size_t i = 0; i < q->n_pending; i++) {
        const struct workload *x = q->pending[i];
        bool same_lq = strcmp(x->ns, w->ns) == 0 &&
                       (x->local_queue && w->local_queue
                            ? strcmp(x->local_queue, w->local_queue) == 0
                            : x->local_queue == w->local_queue);
        ret->cq_len++;
        ret->lq_len += same_lq;
        if (x == w) {
            ret->cq_pos = ret->cq_len;
            ret->lq_pos = ret->lq_len;
        }
    }
    return ret->cq_pos ? 0 : -ENOENT;
}

void scheduler_set_observer(struct scheduler *s,
                            const struct scheduler_observer *o, void *data)
{
    s->obs = o;
    s->obs_data = data;
    s->cluster.on_finish = o ? o->finished : NULL;
    s->cluster.on_finish_data = data;
}

void scheduler_get_stats(const struct scheduler *s, struct scheduler_stats *ret)
{
    ret->cycles = s->cycles;
    ret->admissions = s->admissions;
    ret->parked = s->parked;
    ret->evictions = s->evictions;
}

int scheduler_take_usage_changed(struct scheduler *s, const struct cq ***ret,
                                 uint32_t *ret_n)
{
    struct cq **v = NULL;
    int r = cluster_take_usage_changed(&s->cluster, &v, ret_n);
    *ret = (const struct cq **)v;
    return r;
}

int scheduler_take_changes(struct scheduler *s, struct scheduler_changes *ret)
{
    char **v[CHANGES_KINDS];
    size_t n[CHANGES_KINDS];
    *ret = (struct scheduler_changes){0};
    int r = changes_take(&s->cluster, v, n, &ret->all);
    if (r < 0)
        return r;
    ret->workloads = v[CHANGES_WORKLOADS];
    ret->n_workloads = n[CHANGES_WORKLOADS];
    ret->cqs = v[CHANGES_CQS];
    ret->n_cqs = n[CHANGES_CQS];
    ret->lqs = v[CHANGES_LQS];
    ret->n_lqs = n[CHANGES_LQS];
    return 0;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void scheduler_changes_release(struct scheduler_changes *ch)
{
    if (!ch)
        return;
    free_strv(ch->workloads, ch->n_workloads);
    free_strv(ch->cqs, ch->n_cqs);
    free_strv(ch->lqs, ch->n_lqs);
    *ch = (struct scheduler_changes){0};
}

/* ---- events in ---------------------------------------------------------- */

int scheduler_clock(struct scheduler *s, int64_t now_ns)
{
    if (now_ns < s->cluster.now_ns)
        return -EINVAL;
    s->cluster.now_ns = now_ns;
    return 0;
}

int scheduler_object_added(struct scheduler *s, struct object *o)
{
    return cluster_add(&s->cluster, o);
}

int scheduler_object_updated(struct scheduler *s, struct object *o)
{
    return cluster_update(&s->cluster, o);
}

int scheduler_object_deleted(struct scheduler *s, enum object_kind kind,
                             const char *key)
{
    return cluster_delete(&s->cluster, kind, key);
}

int scheduler_pod_phase(struct scheduler *s, const char *key,
                        enum pod_phase phase)
{
    struct pod *p = cluster_pod(&s->cluster, key);
    if (!p)
        return -ENOENT;
    switch (phase) {
    case POD_PHASE_RUNNING:
        return 0; /* where it was bound */
    case POD_PHASE_SUCCEEDED:
        cluster_pod_succeeded(&s->cluster, p);
        return 0;
    case POD_PHASE_FAILED:
        cluster_pod_gone(&s->cluster, p);
        return 0;
    default:
        return -EINVAL;
    }
}

int scheduler_job_status(struct scheduler *s, enum object_kind kind,
                         const char *key, const struct job_status *st)
{
    return cluster_job_status(&s->cluster, kind, key, st);
}

int scheduler_pod_bound(struct scheduler *s, const char *key)
{
    return cluster_pod(&s->cluster, key) ? 0 : -ENOENT;
}

/* Another pod of w than p is bound, or has a bind in flight (both are
 * PODSTATE_BOUND: a pod is assumed where its bind goes). */
static bool others_bound(const struct workload *w, const struct pod *p)
{
    for (size_t i = 0; i < w->n_pods; i++)
        if (w->pods[i] != p && w->pods[i]->state == PODSTATE_BOUND)
            return true;
    return false;
}

int scheduler_pod_bind_failed(struct scheduler *s, const char *key)
{
    return scheduler_pod_bind_failed_why(s, key, NULL);
}

int scheduler_pod_bind_failed_why(struct scheduler *s, const char *key,
                                  const char *why)
{
    struct pod *p = cluster_pod(&s->cluster, key);
    if (!p)
        return -ENOENT;
    if (p->state != PODSTATE_BOUND || !p->node)
        return 0; /* not where the bind put it any more */
    if (p->obj && p->obj->u.pod.spec.node_name) {
        /* The API server says it is bound (spec.nodeName): it is never
         * bound again. */
        LOG_W("bind of pod %s failed, but it is bound to %s", key,
              p->obj->u.pod.spec.node_name);
        return 0;
    }
    const char *node = p->node->name;
    struct workload *w = p->wl;
    bool gang = w && w->state == WL_ADMITTED && !w->evicting && !w->stopping &&
                others_bound(w, p);
    if (gang) {
        /* A gang is never left split: the whole workload is stopped, its
         * bound pods evicted, and it queues again when they are gone. */
        snprintf(w->stop_why, sizeof(w->stop_why),
                 "bind of pod %s to node %s failed: %s", key, node,
                 why && *why ? why : "refused");
        LOG_W("workload %s: %s; the gang is evicted and queued again", w->key,
              w->stop_why);
    }
    node_charge(p->node, p, -1);
    p->node = NULL;
    pod_set_state(&s->cluster, p, PODSTATE_PENDING);
    cluster_wake_parked(&s->cluster);
    if (!w || w->dead || w->state != WL_ADMITTED)
        return 0;
    if (gang)
        return cluster_mark_stop(&s->cluster, w);
    if (w->evicting) {
        /* Stopped already: this pod was the last it waited for. */
        if (w->pods_bound == 0)
            workload_requeue_evicted(&s->cluster, w);
        return 0;
    }
    if (w->stopping)
        return 0;
    /* Placed again within its admission (place_stragglers). */
    return cluster_mark_straggler(&s->cluster, w);
}

int scheduler_evict_outcome(struct scheduler *s, const char *key,
                            const char *how)
{
    struct pod *p = cluster_pod(&s->cluster, key);
    if (!p)
        return -ENOENT;
    if (p->wl)
        snprintf(p->wl->evict_note, sizeof(p->wl->evict_note), "pod %s: %s",
                 key, how ? how : "");
    return 0;
}

/* Stops admitted workload w (its Job changed under it, see events.c): its
 * pods are evicted through the backend, and when they are gone it queues
 * again as a new workload. */
static void stop_workload(struct scheduler *s, struct workload *w)
{
    w->stopping = false;
    if (w->state != WL_ADMITTED || w->evicting)
        return;
    if (w->stop_why[0])
        snprintf(w->evicted_by, sizeof(w->evicted_by), "%s", w->stop_why);
    else
        snprintf(w->evicted_by, sizeof(w->evicted_by),
                 "its %s changed (Kueue makes it a new workload)",
                 workload_kind_name(w->kind));
    w->stop_why[0] = '\0';
    w->evict_class = NULL;
    w->evicting = true;
    w->spares_preemptor = false;
    w->evicted_by_preemptor = false;
    w->evicted_ns = s->cluster.now_ns;
    s->evictions++;
    SCHED_OBSERVE(s, evicted, w, "Stopped", NULL, NULL);
    (void)workload_note(&s->cluster, w, WL_EV_EVICTED,
                        w->admitted_cq ? w->admitted_cq->name : NULL,
                        w->evicted_by, NULL);
    LOG_V(2, "stopping workload wl=\"%s\" by=\"%s\"", w->key, w->evicted_by);
    /* Kueue suspends a job it resumed: its controller makes no new pods
     * until the workload is admitted again. */
    if (w->resumes)
        w->suspended = true;
    bool any = false;
    for (size_t i = 0; i < w->n_pods; i++)
        any |= w->pods[i]->state == PODSTATE_BOUND;
    if (!any) {
        workload_requeue_evicted(&s->cluster, w);
        return;
    }
    /* The pods go through the backend; the last one gone requeues it. */
    for (size_t i = 0; i < w->n_pods && w->evicting; i++) {
        struct pod *p = w->pods[i];
        if (p->state != PODSTATE_BOUND)
            continue;
        int r = s->backend->evict ? s->backend->evict(s->backend_data, p)
                                  : -ENOTSUP;
        if (r < 0) {
            snprintf(w->evict_note, sizeof(w->evict_note),
                     "pod %s: eviction not started: %s", p->key, strerror(-r));
            LOG_E("evicting pod %s failed: %s", p->key, strerror(-r));
        }
    }
}

/* Stops the workloads the cache listed (cluster.to_stop). */
static void stop_listed(struct scheduler *s)
{
    struct cluster *c = &s->cluster;
    for (size_t i = 0; i < c->n_to_stop; i++)
        stop_workload(s, c->to_stop[i]);
    c->n_to_stop = 0;
}

int scheduler_run(struct scheduler *s)
{
    struct cluster *c = &s->cluster;
    int total = 0, r = cluster_sync(c);
    if (r == 0)
        stop_listed(s);
    /* What the events changed decides first: quota given back, workloads
     * finished. */
    if (r < 0 || (r = cluster_progress_changed(c)) < 0)
        return r;
    for (int i = 0; i < CYCLES_PER_RUN_MAX; i++) {
        r = cluster_sync(&s->cluster);
        if (r < 0)
            return r;
        stop_listed(s); /* admissions found that cannot be honoured */
        uint64_t parked = s->parked, evictions = s->evictions;
        r = cycle_run(s);
        if (r < 0)
            return r;
        if (r == 0 && s->parked == parked && s->evictions == evictions)
            return (r = cluster_progress_changed(&s->cluster)) < 0 ? r : total;
        total += r;
    }
    LOG_W("stopped after %d cycles at one instant", CYCLES_PER_RUN_MAX);
    r = cluster_progress_changed(&s->cluster);
    return r < 0 ? r : total;
}
