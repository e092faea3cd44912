/* queueing.c - workloads in their queues (see private/workload.h): the
 * LocalQueue, ClusterQueue and priority they resolve to, admission
 * records, eviction and requeueing, and what their progress decides
 * (Kueue's reclaimablePods, finishing). */
#include "workload.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "recover.h"
#include "resid.h"

bool workload_set_reason(const struct cluster *c, struct workload *w,
                         const char *fmt, ...)
{
    char text[REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (strcmp(text, w->reason) == 0)
        return false;
    memcpy(w->reason, text, sizeof(text));
    (void)workload_note_reason(c, w, w->reason); /* out of memory: counted */
    return true;
}

bool workload_uses_fr(const struct workload *w, const struct flavor *f,
                      int32_t id)
{
    if (!w->admitted_cq)
        return false;
    for (uint32_t k = 0; k < w->n_charges; k++)
        if (w->charges[k].flavor == f && w->charges[k].res == id &&
            w->charges[k].per_pod > 0)
            return true;
    return false;
}

int workload_record_charges(struct workload *w, const struct cq *q)
{
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    size_t cap = 0, n = 0;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        cap += w->podsets[ps].n_req + 1;
    struct wl_charge *v = calloc(cap ? cap : 1, sizeof(*v));
    char *ver = q->built_version ? strdup(q->built_version) : NULL;
    if (!v || (q->built_version && !ver)) {
        free(v);
        free(ver);
        return -ENOMEM;
    }
    for (uint32_t ps = 0; w->flavors && ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            const struct flavor *f = w->flavors[ps * q->n_groups + g];
            if (!f || cq_group_flavor_index(grp, f) < 0)
                continue;
            for (uint32_t i = 0; i <= s->n_req && n < cap; i++) {
                int32_t id = i < s->n_req ? s->req_ids[i] : pods_id;
                if (cq_group_res_index(grp, id) < 0)
                    continue;
                v[n++] = (struct wl_charge){
                    f, id, ps, i < s->n_req ? s->req_milli[i] : 1000};
            }
        }
    }
    free(w->charges);
    w->charges = v;
    w->n_charges = (uint32_t)n;
    free(w->admitted_cq_version);
    w->admitted_cq_version = ver;
    return 0;
}

static uint32_t podset_reclaimable(const struct workload *w, uint32_t ps);

uint32_t workload_pending_pods(const struct workload *w, uint32_t ps)
{
    return ps < w->n_podsets ? w->podsets[ps].n_pending : 0;
}

bool workload_ready(const struct workload *w)
{
    /* A suspended job has no pods yet: admission resumes it. */
    if (w->suspended)
        return true;
    /* A pod group is complete when all its pods exist (pods that failed or
     * were evicted do not count: replacements take their place). */
    if (w->kind == WL_POD_GROUP && w->n_pods - w->pods_failed < w->group_total)
        return false;
    /* A Job's pods that its status says succeeded are never made again
     * (reclaimablePods): the rest is the gang. */
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (workload_pending_pods(w, ps) <
            w->podsets[ps].count - podset_reclaimable(w, ps))
            return false;
    return true;
}

/* The LocalQueue/ClusterQueue of w, or NULL with the reason set. */
static struct cq *resolve_cq(struct cluster *c, struct workload *w)
{
    char key[512];
    const char *lq = w->local_queue;
    struct obj_entry *e;
    w->ns_mismatch = false;
    if (!lq) {
        snprintf(key, sizeof(key), "%s/default", w->ns);
        if (!cluster_find(c->lqs, key)) {
            workload_set_reason(c, w,
                                "no queue: label %s not set and no "
                                "LocalQueue \"default\" in namespace %s",
                                LABEL_QUEUE_NAME, w->ns);
            return NULL;
        }
        /* Kueue writes the default into the job's queue-name label. */
        lq = "default";
        char *copy = strdup(lq);
        if (copy)
            w->local_queue = copy;
    }
    snprintf(key, sizeof(key), "%s/%s", w->ns, lq);
    if (!(e = cluster_find(c->lqs, key))) {
        workload_set_reason(c, w, "LocalQueue %s doesn't exist", lq);
        return NULL;
    }
    const struct local_queue *l = &e->obj->u.local_queue;
    struct cq *q = cluster_cq(c, l->cluster_queue);
    if (!q) {
        workload_set_reason(c, w, "ClusterQueue %s doesn't exist",
                            l->cluster_queue);
        return NULL;
    }
    if (l->stop_policy != STOP_POLICY_NONE && w->state == WL_PENDING) {
        workload_set_reason(c, w, "LocalQueue %s is inactive", lq);
        return NULL;
    }
    const struct label_selector *sel =
        q->obj->u.cluster_queue.namespace_selector;
    /* A Namespace carries kubernetes.io/metadata.name (decode_namespace);
     * one not (yet) known has only that label. */
    struct strmap_entry name_label = {"kubernetes.io/metadata.name", w->ns};
    struct strmap only_name = {.n = 1, .items = &name_label};
    const struct strmap *nsl = &only_name;
    struct obj_entry *ns = cluster_find(c->namespaces, w->ns);
    if (ns)
        nsl = &ns->obj->meta.labels;
    if (!label_selector_matches(sel, nsl) && w->state == WL_PENDING) {
        /* Kueue queues it all the same (it counts as pending there), never
         * as a head: it is inadmissible until the namespace changes, and
         * blocks nothing, StrictFIFO included. */
        workload_set_reason(c, w,
                            "namespace %s is not selected by ClusterQueue "
                            "%s",
                            w->ns, q->name);
        w->ns_mismatch = true;
        return q;
    }
    if (!q->active && w->state == WL_PENDING) {
        workload_set_reason(c, w, "ClusterQueue %s is inactive: %s", q->name,
                            q->inactive_reason);
        return q; /* queued, but its CQ admits nothing */
    }
    return q;
}

/* Flavors of a workload that was running before Ordo saw it: per group, the
 * first flavor whose nodeLabels all match the node of a pod of the set. */
static int infer_flavors(struct workload *w, struct cq *q)
{
    free(w->flavors);
    w->flavors = calloc((size_t)w->n_podsets * (q->n_groups ? q->n_groups : 1),
                        sizeof(*w->flavors));
    if (!w->flavors)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct node *node = NULL;
        for (size_t i = 0; i < w->n_pods && !node; i++)
            if (w->pods[i]->podset == ps && w->pods[i]->node)
                node = w->pods[i]->node;
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            struct flavor *pick = grp->n_flavors ? grp->flavors[0] : NULL;
            for (uint32_t f = 0; node && f < grp->n_flavors; f++) {
                const struct flavor *fl = grp->flavors[f];
                if (!fl->obj)
                    continue;
                const struct strmap *nl =
                    &fl->obj->u.resource_flavor.node_labels;
                bool match = true;
                for (size_t k = 0; k < nl->n && match; k++) {
                    const char *v =
                        strmap_get(&node->obj->meta.labels, nl->items[k].key);
                    match = v && strcmp(v, nl->items[k].value) == 0;
                }
                if (match) {
                    pick = grp->flavors[f];
                    break;
                }
            }
            w->flavors[ps * q->n_groups + g] = pick;
        }
    }
    w->flavor_groups = q->n_groups;
    return 0;
}

/* Whether some pod of w has no node. */
static bool has_pending(const struct workload *w)
{
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (w->podsets[ps].n_pending > 0)
            return true;
    return false;
}

/* Whether w was found running with pods still to place: such workloads
 * are charged after every other one found running (they must fit). */
static bool found_partial(const struct workload *w)
{
    return w->state == WL_ADMITTED && !w->admitted_cq && has_pending(w);
}

/* A recorded admission that cannot be honoured: nothing is charged, and
 * the line evicts the workload whole (its pods go, it queues again). */
static int reject_record(struct cluster *c, struct workload *w, const char *why)
{
    LOG_W("workload %s: the admission its bound pods record cannot be "
          "honoured: %s; it is evicted and queued again",
          w->key, why);
    snprintf(w->stop_why, sizeof(w->stop_why), "%s", why);
    free(w->flavors);
    w->flavors = NULL;
    free(w->charges);
    w->charges = NULL;
    w->n_charges = 0;
    free(w->admitted_cq_version);
    w->admitted_cq_version = NULL;
    w->admitted_cq = NULL;
    return cluster_mark_stop(c, w);
}

/* The admission of workload w found running (bound before Ordo saw it):
 * the one its bound pods record (ANNOT_ADMISSION_*), exactly, else its
 * queue's ClusterQueue with flavors inferred from node labels. Sets
 * w->admitted_cq (*ret_q), flavors and, for a recorded one, charges.
 * 1 when admitted, 0 when not (no queue, or evicted whole: a record that
 * cannot be honoured, or whose pods still to place would exceed the
 * quota), -ENOMEM. */
static int found_admission(struct cluster *c, struct workload *w,
                           struct cq **ret_q)
{
    if (w->stopping || w->evicting)
        return 0;
    struct recorded rec;
    int r = recover_read(c, w, &rec);
    if (r == -EINVAL)
        return reject_record(c, w, rec.why) < 0 ? -ENOMEM : 0;
    if (r < 0)
        return r;
    struct cq *q = r ? rec.cq : resolve_cq(c, w);
    if (!q)
        return 0; /* running, but no queue to charge */
    w->admitted_cq = q;
    /* Pods its Job's status says are done take no quota (Kueue's
     * reclaimablePods): counted before the record is charged or checked. */
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        w->podsets[ps].reclaimable = podset_reclaimable(w, ps);
    if (r) {
        free(w->flavors);
        w->flavors = rec.flavors;
        w->flavor_groups = q->n_groups;
        if (workload_record_charges(w, q) < 0)
            return -ENOMEM;
        /* Running pods keep what they hold (Kueue evicts nothing when
         * quota shrinks); pods still to place must fit. */
        char fr[192] = "";
        int fits = 1;
        bool partial = has_pending(w);
        if (partial && (fits = recover_fits(w, fr, sizeof(fr))) < 0)
            return -ENOMEM;
        if (partial && !fits) {
            char why[sizeof(w->stop_why)];
            snprintf(why, sizeof(why),
                     "its pods still to place would exceed ClusterQueue %s's "
                     "quota of %s",
                     q->name, fr);
            return reject_record(c, w, why) < 0 ? -ENOMEM : 0;
        }
        LOG_V(2, "workload found running wl=\"%s\" cq=\"%s\" (recorded)",
              w->key, q->name);
    } else if (infer_flavors(w, q) < 0) {
        return -ENOMEM;
    }
    *ret_q = q;
    /* Its controller now sees a queue to give quota back to. */
    return cluster_mark_changed(c, w) < 0 ? -ENOMEM : 1;
}

/* Each group of q gets the flavor the pod set had that the group lists
 * (none when the group is new to it). */
int workload_remap_flavors(struct workload *w, const struct cq *q)
{
    uint32_t ng = q->n_groups ? q->n_groups : 1;
    struct flavor **v = calloc((size_t)w->n_podsets * ng, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        for (uint32_t g = 0; g < q->n_groups; g++)
            for (uint32_t k = 0; k < w->flavor_groups; k++) {
                struct flavor *f = w->flavors[ps * w->flavor_groups + k];
                if (f && cq_group_flavor_index(&q->groups[g], f) >= 0) {
                    v[ps * q->n_groups + g] = f;
                    break;
                }
            }
    free(w->flavors);
    w->flavors = v;
    w->flavor_groups = q->n_groups;
    return 0;
}

int workload_requeue_all(struct cluster *c)
{
    for (uint32_t i = 0; i < c->n_busy; i++)
        c->busy[i]->busy = false;
    c->n_busy = 0;
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        struct cq *q = c->cqs_v[i];
        q->n_pending = 0;
        q->n_admitted = 0;
        for (uint32_t g = 0; g < q->n_groups; g++)
            memset(q->groups[g].usage, 0,
                   (size_t)q->groups[g].n_res * q->groups[g].n_flavors *
                       sizeof(int64_t));
        cluster_mark_usage(c, q);
    }
    struct workload *w, *tmp;
    size_t n = 0;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        w->queued = false;
        n += found_partial(w);
        if (!found_partial(w) && workload_enqueue(c, w) < 0)
            return -ENOMEM;
    }
    c->n_fresh = 0;
    if (n == 0)
        return 0;
    /* Workloads found running with pods still to place fit or not once
     * every running one is charged, in creation order. */
    struct workload **v = malloc(n * sizeof(*v));
    if (!v)
        return -ENOMEM;
    n = 0;
    HASH_ITER(hh, c->workloads, w, tmp)
    if (found_partial(w))
        v[n++] = w;
    int r = workload_enqueue_batch(c, v, n);
    free(v);
    return r;
}

static int cmp_seq(const void *a, const void *b)
{
    const struct workload *x = *(const struct workload *const *)a;
    const struct workload *y = *(const struct workload *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int workload_enqueue_batch(struct cluster *c, struct workload **v, size_t n)
{
    size_t late = 0;
    for (size_t i = 0; i < n; i++) {
        if (found_partial(v[i]))
            v[late++] = v[i]; /* v[late] was enqueued already */
        else if (workload_enqueue(c, v[i]) < 0)
            return -ENOMEM;
    }
    if (late > 1)
        qsort(v, late, sizeof(*v), cmp_seq);
    for (size_t i = 0; i < late; i++)
        if (workload_enqueue(c, v[i]) < 0)
            return -ENOMEM;
    return 0;
}

/* A workload whose kueue.x-k8s.io/priority-class label names a
 * WorkloadPriorityClass takes its current value (Kueue updates workloads
 * when the class changes). Returns false when the class does not exist:
 * Kueue makes no Workload for such a job until it does. */
static bool refresh_wpc_priority(struct cluster *c, struct workload *w)
{
    const char *wpc = strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS);
    if (!wpc)
        return true;
    struct obj_entry *e = cluster_find(c->wpcs, wpc);
    if (!e)
        return false;
    w->priority = e->obj->u.workload_priority_class.value;
    return true;
}

/* The reason of a workload above WORKLOAD_PODS_MAX, whatever else it
 * waits for. */
static void over_cap_reason(const struct cluster *c, struct workload *w)
{
    workload_set_reason(c, w,
                        "%s %s has %llu pods; Ordo admits at most %u pods "
                        "per workload",
                        workload_kind_name(w->kind), w->key,
                        (unsigned long long)w->pods_wanted,
                        (unsigned)WORKLOAD_PODS_MAX);
}

int workload_enqueue(struct cluster *c, struct workload *w)
{
    if (w->queued || w->state == WL_FINISHED)
        return 0;
    w->cq = NULL;
    if (!refresh_wpc_priority(c, w) && w->state == WL_PENDING) {
        workload_set_reason(
            c, w, "WorkloadPriorityClass %s not found",
            strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS));
        if (w->over_cap)
            over_cap_reason(c, w);
        return 0;
    }
    if (w->state == WL_ADMITTED) {
        struct cq *q = w->admitted_cq;
        bool found_running = false;
        if (!q) {
            int r = found_admission(c, w, &q);
            if (r <= 0)
                return r; /* no queue to charge, or going away */
            found_running = true;
        }
        if (w->flavors && workload_remap_flavors(w, q) < 0)
            return -ENOMEM;
        /* Charged as admitted: only a workload found running (flavors
         * inferred) records its charges here. */
        if (!w->charges && workload_record_charges(w, q) < 0)
            return -ENOMEM;
        w->cq = q;
        w->queued = true;
        if (cq_add_admitted(q, w) < 0)
            return -ENOMEM;
        cq_charge(q, w, 1);
        if (found_running) {
            (void)workload_note_admitted(c, w); /* out of memory: counted */
            workload_note_placed(c, w);
            /* Its pods without a node are placed within the admission. */
            if (has_pending(w))
                return cluster_mark_straggler(c, w);
        }
        return 0;
    }
    struct cq *q = resolve_cq(c, w);
    if (w->over_cap)
        over_cap_reason(c, w); /* queued, never a head (queue_head) */
    if (!q)
        return 0;
    w->cq = q;
    w->queued = true;
    /* Parked in a queue's generation, which means nothing in another (or
     * a rebuilt) one: tried again, as a rebuild tries every parked one. */
    w->parked = false;
    return cq_queue_push(c, q, w);
}

/* Gives an admitted workload's quota back to its ClusterQueue. */
static void release_admission(struct workload *w)
{
    if (w->state == WL_ADMITTED && w->admitted_cq) {
        cq_charge(w->admitted_cq, w, -1);
        cq_remove_admitted(w->admitted_cq, w);
    }
}

void workload_requeue_evicted(struct cluster *c, struct workload *w)
{
    if (w->deleting) {
        /* Its Job is gone, and now its pods: so is it. */
        w->evicting = false;
        (void)cluster_workload_unlink(c, w); /* out of memory: it stays */
        return;
    }
    release_admission(w);
    cluster_release_room(w);
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        w->podsets[ps].reclaimable = 0;
    w->state = WL_PENDING;
    (void)cluster_mark_changed(c, w); /* out of memory: seen next change */
    w->evicting = false;
    w->admitted_cq = NULL;
    w->queued = false;
    w->parked = false;
    w->evictions++;
    free(w->flavors);
    w->flavors = NULL;
    free(w->charges);
    w->charges = NULL;
    w->n_charges = 0;
    free(w->admitted_cq_version);
    w->admitted_cq_version = NULL;
    /* A plain pod has no controller to make it again: once evicted it is
     * done, and so is a group marked retriable-in-group "false" (Kueue
     * finishes such a workload too). */
    bool done =
        w->kind == WL_POD || (w->kind == WL_POD_GROUP && w->not_retriable);
    if (!done)
        (void)workload_note(c, w, WL_EV_REQUEUED, NULL, NULL, NULL);
    /* The reason stays for the record; only a requeued one waits. */
    char why[REASON_MAX];
    snprintf(why, sizeof(why), "evicted: %s%s%s%s%s",
             strchr(w->evicted_by, '/') ? "preempted by " : "", w->evicted_by,
             w->evict_class ? " (" : "", w->evict_class ? w->evict_class : "",
             w->evict_class ? ")" : "");
    if (!done)
        workload_set_reason(c, w, "%s", why);
    else
        memcpy(w->reason, why, sizeof(why));
    if (done) {
        w->state = WL_FINISHED;
        w->finished_ns = c->now_ns;
        w->has_finished = true;
        if (c->on_finish)
            c->on_finish(c->on_finish_data, w);
        (void)workload_note(c, w, WL_EV_FINISHED, NULL,
                            "evicted, and nothing makes its pods again",
                            NULL);
        return;
    }
    if (w->kind == WL_POD_GROUP)
        /* Its user makes replacement pods, which fill the pod sets again
         * (podset_for_pod); the evicted ones no longer count. */
        for (uint32_t ps = 0; ps < w->n_podsets; ps++)
            w->podsets[ps].count = 0;
    if (w->respec) {
        /* Stopped because its Job changed: the new workload Kueue makes
         * has the new counts and queues from now. */
        (void)workload_apply_spec(w); /* out of memory: the old counts */
        w->queue_ns = c->now_ns;
    }
    workload_enqueue(c, w);
    cluster_wake_parked(c);
}

int workload_requeue(struct cluster *c, struct workload *w)
{
    if (w->state != WL_PENDING)
        return 0;
    if (w->queued && w->cq)
        cq_queue_remove(w->cq, w);
    w->queued = false;
    int r = workload_enqueue(c, w);
    if (w->cq)
        w->cq->requeue_gen++; /* parked ones there get another try */
    return r;
}

void workload_finish(struct cluster *c, struct workload *w)
{
    release_admission(w);
    cluster_release_room(w);
    w->state = WL_FINISHED;
    (void)cluster_mark_changed(c, w);
    w->finished_ns = c->now_ns;
    w->has_finished = true;
    w->reason[0] = '\0';
    if (c->on_finish)
        c->on_finish(c->on_finish_data, w);
    (void)workload_note(c, w, WL_EV_FINISHED,
                        w->admitted_cq ? w->admitted_cq->name : NULL, NULL,
                        NULL);
    /* Quota came free: parked workloads may fit now. */
    cluster_wake_parked(c);
}

/* Pods of pod set ps that will never be needed again (Kueue's
 * reclaimablePods): a Job's count minus the completions its status says
 * are still to come; a JobSet's parallelism per child Job that succeeded
 * (a running child gives nothing back); a pod group's pods that
 * succeeded. */
static uint32_t podset_reclaimable(const struct workload *w, uint32_t ps)
{
    const struct podset *s = &w->podsets[ps];
    uint64_t target = s->count, succeeded = s->n_succeeded;
    if (w->kind == WL_JOBSET) {
        const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
        uint64_t n =
            (uint64_t)s->status_succeeded * (uint32_t)rj->spec.parallelism;
        return n < s->count ? (uint32_t)n : s->count;
    }
    if (w->kind == WL_JOB) {
        const struct job_spec *js = &w->top->u.job.spec;
        target = js->has_completions ? (uint32_t)js->completions
                                     : (uint32_t)js->parallelism;
        succeeded = s->status_succeeded;
    }
    uint64_t left = succeeded < target ? target - succeeded : 0;
    return left < s->count ? s->count - (uint32_t)left : 0;
}

/* Whether w is done: its Job's or JobSet's status says so; a pod group
 * when group-total-count of its pods succeeded (replacements of evicted
 * ones included), a single pod when it succeeded. */
static bool workload_done(const struct workload *w)
{
    if (w->kind == WL_JOB || w->kind == WL_JOBSET)
        return w->complete;
    if (w->n_pods == 0)
        return false;
    if (w->kind == WL_POD_GROUP)
        return w->pods_succeeded >= w->group_total;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (w->podsets[ps].n_succeeded < w->podsets[ps].count)
            return false;
    return true;
}

void workload_progress(struct cluster *c, struct workload *w)
{
    if (w->state == WL_FINISHED)
        return;
    if (w->state == WL_ADMITTED && w->admitted_cq) {
        bool changed = false;
        for (uint32_t ps = 0; ps < w->n_podsets; ps++)
            changed |= podset_reclaimable(w, ps) != w->podsets[ps].reclaimable;
        if (changed) {
            cq_charge(w->admitted_cq, w, -1);
            for (uint32_t ps = 0; ps < w->n_podsets; ps++)
                w->podsets[ps].reclaimable = podset_reclaimable(w, ps);
            cq_charge(w->admitted_cq, w, 1);
            cluster_wake_parked(c);
        }
    }
    if (workload_done(w)) {
        workload_finish(c, w);
        LOG_V(2, "workload finished wl=\"%s\"", w->key);
    }
}
