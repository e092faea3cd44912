/* events.c - what a backend reports, applied to the cache (see
 * private/events.h): objects added, updated and deleted by kind, pod
 * phases, Job status, and the batch step that queues what arrived and
 * lets go what was deleted.
 *
 * An update takes effect on what it touches, never by rebuilding the
 * world: a Node's room, a ClusterQueue's or Cohort's quota (the tree is
 * rebuilt from ClusterQueues and cohorts, admitted usage charged again),
 * the pending workloads of a LocalQueue, Namespace or priority class
 * queued again, the ClusterQueues' state when an AdmissionCheck comes or
 * goes. Only objects of the Kueue kinds that arrive anew rebuild
 * every queue, once per batch. */
#include "events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static int add_new(struct cluster *c, struct object *o)
{
    int r;
    switch (o->kind) {
    case OBJ_NODE:
        return cluster_node_add(c, o);
    case OBJ_POD:
        r = workload_add_pod(c, o);
        if (r == -EEXIST)
            object_free(o);
        return r;
    case OBJ_JOB:
    case OBJ_JOBSET:
        return workload_add_owner(c, o);
    case OBJ_RESOURCE_FLAVOR:
        c->queues_dirty = true;
        return cluster_flavor_put(c, o);
    case OBJ_CLUSTER_QUEUE:
        c->queues_dirty = true;
        return cluster_cq_put(c, o);
    case OBJ_PRIORITY_CLASS:
    case OBJ_TOPOLOGY:
        return cluster_index_put(cluster_index_of(c, o->kind), o);
    case OBJ_LOCAL_QUEUE:
    case OBJ_WORKLOAD_PRIORITY_CLASS:
        /* Workloads follow their class's value, and wait for a class they
         * name that was missing (workload_enqueue). */
    case OBJ_NAMESPACE:
    case OBJ_COHORT:
    case OBJ_ADMISSION_CHECK: /* the ClusterQueues naming it change state */
        c->queues_dirty = true;
        return cluster_index_put(cluster_index_of(c, o->kind), o);
    default:
        object_free(o);
        return 0;
    }
}

static int update_pod(struct cluster *c, struct object *o);

int cluster_add(struct cluster *c, struct object *o)
{
    char key[512];
    if (o->kind == OBJ_POD) {
        /* The store's own lookup says whether it is known (one per pod). */
        int r = workload_add_pod(c, o);
        return r == -EEXIST ? update_pod(c, o) : r;
    }
    object_key(o, key, sizeof(key));
    const struct flavor *f =
        o->kind == OBJ_RESOURCE_FLAVOR ? cluster_flavor(c, o->meta.name) : NULL;
    /* An object that arrives again is an update (informers replay; a
     * flavor only named so far is new). */
    bool known = o->kind == OBJ_RESOURCE_FLAVOR
                     ? f && f->obj
                     : cluster_get_object(c, o->kind, key) != NULL;
    return known ? cluster_update(c, o) : add_new(c, o);
}

/* ---- queued again: the pending workloads a change concerns ----------- */

typedef bool (*wl_pred)(const struct workload *w, const void *arg);

/* Queues every pending workload pred picks again (re-resolving its queue
 * and priority), leaving each ClusterQueue's list once. */
static int requeue_where(struct cluster *c, wl_pred pred, const void *arg)
{
    if (c->queues_dirty)
        return 0; /* the full rebuild at the next sync does it */
    struct workload **v = NULL;
    size_t n = 0, cap = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        if (w->state != WL_PENDING || !pred(w, arg))
            continue;
        if (GROW_ARRAY(v, n, cap) < 0) {
            free(v);
            return -ENOMEM;
        }
        v[n++] = w;
        if (w->queued && w->cq)
            w->cq->sweep = true; /* its list is filtered below */
        w->queued = false;
    }
    for (size_t i = 0; i < n; i++) {
        struct cq *q = v[i]->cq;
        if (!q || !q->sweep)
            continue;
        /* One pass per ClusterQueue drops the ones taken out. */
        size_t keep = 0;
        for (size_t k = 0; k < q->n_pending; k++)
            if (q->pending[k]->queued)
                q->pending[keep++] = q->pending[k];
        q->n_pending = keep;
        q->requeue_gen++;
        q->sweep = false;
    }
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++)
        r = workload_enqueue(c, v[i]);
    free(v);
    cluster_wake_parked(c);
    return r;
}

static bool in_namespace(const struct workload *w, const void *ns)
{
    return strcmp(w->ns, ns) == 0;
}

/* Of LocalQueue "ns/name": the one named by its label, or "default" when
 * it has none. */
static bool of_local_queue(const struct workload *w, const void *key)
{
    const char *slash = strchr(key, '/');
    size_t ns_len = slash ? (size_t)(slash - (const char *)key) : 0;
    const char *name = slash ? slash + 1 : key;
    return strlen(w->ns) == ns_len && strncmp(w->ns, key, ns_len) == 0 &&
           strcmp(w->local_queue ? w->local_queue : "default", name) == 0;
}

static bool names_wpc(const struct workload *w, const void *name)
{
    const char *v = strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS);
    return v && strcmp(v, name) == 0;
}

/* ---- updates ---------------------------------------------------------- */

static int update_pod(struct cluster *c, struct object *o)
{
    char key[512];
    struct pod *p = cluster_pod(c, object_key(o, key, sizeof(key)));
    if (!p)
        return add_new(c, o);
    struct object *old = p->obj;
    p->obj = o;
    if (p->wl)
        workload_repoint_pod(p->wl, old, o);
    object_free(old);
    const char *node = o->u.pod.spec.node_name;
    switch (o->u.pod.phase) {
    case POD_PHASE_SUCCEEDED:
        if (p->state != PODSTATE_SUCCEEDED)
            cluster_pod_succeeded(c, p);
        return 0;
    case POD_PHASE_FAILED:
        if (p->state != PODSTATE_FAILED)
            cluster_pod_gone(c, p);
        return 0;
    default:
        break;
    }
    if (node && p->state == PODSTATE_PENDING) {
        /* Bound by someone else: it takes its room there. */
        p->node = cluster_node(c, node);
        if (p->node)
            node_charge(p->node, p, 1);
        pod_set_state(c, p, PODSTATE_BOUND);
    }
    return 0;
}

static int update_owner(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct obj_entry *e = cluster_find(*cluster_index_of(c, o->kind), key);
    if (!e)
        return add_new(c, o);
    struct workload *w = cluster_workload(c, key);
    if (w && w->top != e->obj)
        w = NULL; /* another kind's workload of that name */
    uint32_t n =
        o->kind == OBJ_JOB ? 1 : (uint32_t)o->u.jobset.n_replicated_jobs;
    if (w && n != w->n_podsets) {
        /* A JobSet's replicatedJobs are immutable (its API refuses such a
         * change): the old object stays. */
        object_free(o);
        return -ENOTSUP;
    }
    struct object *old = e->obj;
    e->obj = o;
    /* Its pods are made from templates the backend owns: only the
     * workload points into the object. */
    bool counts = w && workload_set_top(w, o);
    object_free(old);
    if (!w)
        return 0;
    if (w->state == WL_PENDING) {
        /* Kueue makes a workload without quota match its job: pod counts
         * and requests, queue and priority class follow. */
        const char *lq = strmap_get(&o->meta.labels, LABEL_QUEUE_NAME);
        if (lq && (!w->local_queue || strcmp(lq, w->local_queue) != 0)) {
            char *copy = strdup(lq);
            if (!copy)
                return -ENOMEM;
            free(w->local_queue);
            w->local_queue = copy;
        }
        if (workload_apply_spec(w) < 0)
            return -ENOMEM;
        return workload_requeue(c, w);
    }
    /* Kueue: a running job that no longer matches its workload is
     * stopped, and a new workload made from it queues (the pod template
     * of a running Job is immutable; its parallelism is not). */
    if (w->state == WL_ADMITTED && counts) {
        w->respec = true;
        return cluster_mark_stop(c, w);
    }
    return 0;
}

static int update_kueue(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct obj_entry **index = cluster_index_of(c, o->kind);
    struct obj_entry *e = index ? cluster_find(*index, key) : NULL;
    struct cq *q;
    int r;
    switch (o->kind) {
    case OBJ_RESOURCE_FLAVOR:
        if (!cluster_flavor(c, key) || !cluster_flavor(c, key)->obj)
            return add_new(c, o);
        /* Its labels, taints and tolerations are read where they are
         * needed; a terminating one stays so. The workloads it did not
         * suit get another try (Kueue requeues the inadmissible ones). */
        cluster_wake_parked(c);
        return cluster_flavor_put(c, o);
    case OBJ_CLUSTER_QUEUE:
        if (!(q = cluster_cq(c, key)))
            return add_new(c, o);
        if ((r = cluster_cq_put(c, o)) < 0)
            return r;
        return queues_refresh(c, q);
    case OBJ_COHORT:
        if (!e)
            return add_new(c, o);
        if ((r = cluster_index_put(index, o)) < 0)
            return r;
        return queues_refresh(c, NULL);
    case OBJ_ADMISSION_CHECK:
        /* None is ever Active (no controller runs): an update changes no
         * ClusterQueue's state. */
        return e ? cluster_index_put(index, o) : add_new(c, o);
    case OBJ_LOCAL_QUEUE:
        if (!e)
            return add_new(c, o);
        if ((r = cluster_index_put(index, o)) < 0)
            return r;
        queues_drain_refresh(c);
        return requeue_where(c, of_local_queue, key);
    case OBJ_NAMESPACE:
        if (!e)
            return add_new(c, o);
        if ((r = cluster_index_put(index, o)) < 0)
            return r;
        return requeue_where(c, in_namespace, key);
    case OBJ_WORKLOAD_PRIORITY_CLASS: {
        if (!e)
            return add_new(c, o);
        int32_t value = o->u.workload_priority_class.value;
        if ((r = cluster_index_put(index, o)) < 0)
            return r;
        /* Kueue updates the priority of the workloads of the class,
         * admitted ones too (they are preempted by it). */
        struct workload *w, *tmp;
        HASH_ITER(hh, c->workloads, w, tmp)
        if (w->state == WL_ADMITTED && names_wpc(w, key))
            w->priority = value;
        return requeue_where(c, names_wpc, key);
    }
    default:
        /* PriorityClass, Topology: kept. A pod's priority is fixed when it
         * is created, so workloads keep theirs. */
        return index ? cluster_index_put(index, o) : (object_free(o), 0);
    }
}

int cluster_update(struct cluster *c, struct object *o)
{
    switch (o->kind) {
    case OBJ_NODE:
        return cluster_node_update(c, o);
    case OBJ_POD:
        return update_pod(c, o);
    case OBJ_JOB:
    case OBJ_JOBSET:
        return update_owner(c, o);
    default:
        return update_kueue(c, o);
    }
}

/* ---- deletes ---------------------------------------------------------- */

int cluster_pod_delete(struct cluster *c, struct pod *p)
{
    struct workload *w = p->wl;
    int r = cluster_pod_unlink(c, p);
    if (r < 0 || !w || w->dead)
        return r;
    if (w->evicting) {
        /* One of the pods its eviction (or its Job's deletion) waits
         * for. */
        if (w->pods_bound == 0)
            workload_requeue_evicted(c, w);
        return 0;
    }
    if (w->kind != WL_POD)
        return 0; /* its controller or user makes another */
    /* A plain pod deleted by someone else: nothing makes it again, so its
     * workload ends, as an eviction ends it. */
    if (w->state == WL_ADMITTED)
        workload_finish(c, w);
    else if (w->state == WL_PENDING)
        return cluster_workload_unlink(c, w);
    return 0;
}

static int delete_owner(struct cluster *c, enum object_kind kind,
                        const char *key)
{
    struct obj_entry **index = cluster_index_of(c, kind);
    struct obj_entry *e = cluster_find(*index, key);
    if (!e)
        return 0;
    struct workload *w = cluster_workload(c, key);
    if (w && w->top != e->obj)
        w = NULL;
    if (w && workload_keep_object(w, e->obj) < 0)
        return -ENOMEM;
    HASH_DEL(*index, e);
    if (!w)
        object_free(e->obj);
    free(e->key);
    free(e);
    if (!w)
        return 0;
    w->deleting = true;
    (void)workload_note(c, w, WL_EV_DELETED, NULL, NULL, NULL);
    if (w->state == WL_ADMITTED && w->pods_bound > 0) {
        /* Its quota stays charged until its pods are gone (the garbage
         * collector deletes them); meanwhile nothing preempts or drains
         * it. */
        w->evicting = true;
        return 0;
    }
    return cluster_workload_unlink(c, w);
}

static int delete_flavor(struct cluster *c, const char *name)
{
    struct flavor *f = cluster_flavor(c, name);
    if (!f || !f->obj)
        return 0;
    if (queues_flavor_in_use(c, f)) {
        /* Kueue's finalizer: it stays until what was admitted with it is
         * gone. */
        if (!f->terminating)
            c->n_terminating++;
        f->terminating = true;
    } else {
        object_free(f->obj);
        f->obj = NULL;
    }
    return queues_refresh(c, NULL);
}

static int delete_cq(struct cluster *c, const char *name)
{
    struct cq *q = cluster_cq(c, name);
    if (!q || q->terminating)
        return 0;
    if (q->n_admitted == 0 && !c->queues_dirty)
        return queues_remove_cq(c, q);
    /* Kueue's finalizer: it stays, admitting nothing, until the workloads
     * admitted to it are gone (checked at every batch). */
    q->terminating = true;
    c->n_terminating++;
    return queues_refresh(c, q);
}

int cluster_delete(struct cluster *c, enum object_kind kind, const char *key)
{
    struct obj_entry **index = cluster_index_of(c, kind);
    struct node *n;
    struct pod *p;
    switch (kind) {
    case OBJ_NODE:
        /* Nothing new goes there; its pods are gone when the backend says
         * so (the pod garbage collector deletes them). */
        return (n = cluster_node(c, key)) ? cluster_node_remove(c, n) : 0;
    case OBJ_POD:
        return (p = cluster_pod(c, key)) ? cluster_pod_delete(c, p) : 0;
    case OBJ_JOB:
    case OBJ_JOBSET:
        return delete_owner(c, kind, key);
    case OBJ_RESOURCE_FLAVOR:
        return delete_flavor(c, key);
    case OBJ_CLUSTER_QUEUE:
        return delete_cq(c, key);
    case OBJ_COHORT:
    case OBJ_ADMISSION_CHECK:
        return cluster_index_remove(index, key) ? queues_refresh(c, NULL) : 0;
    case OBJ_LOCAL_QUEUE:
        if (!cluster_index_remove(index, key))
            return 0;
        queues_drain_refresh(c);
        /* Its admitted workloads run on; pending ones wait for it. */
        return requeue_where(c, of_local_queue, key);
    case OBJ_NAMESPACE:
        return cluster_index_remove(index, key)
                   ? requeue_where(c, in_namespace, key)
                   : 0;
    case OBJ_WORKLOAD_PRIORITY_CLASS:
        return cluster_index_remove(index, key)
                   ? requeue_where(c, names_wpc, key)
                   : 0;
    default:
        if (index)
            cluster_index_remove(index, key);
        return 0;
    }
}

/* ---- the batch step ---------------------------------------------------- */

/* ClusterQueues and ResourceFlavors deleted while in use go once nothing
 * admitted uses them. */
static int finish_terminating(struct cluster *c)
{
    int r = 0;
    for (uint32_t i = 0; c->n_terminating && r == 0 && i < c->n_cqs; i++) {
        struct cq *q = c->cqs_v[i];
        if (q->terminating && q->n_admitted == 0) {
            r = queues_remove_cq(c, q);
            i = (uint32_t)-1; /* cqs_v changed: from the start */
        }
    }
    struct flavor *f, *tmp;
    bool refresh = false;
    HASH_ITER(hh, c->flavors, f, tmp)
    {
        if (!f->terminating || queues_flavor_in_use(c, f))
            continue;
        f->terminating = false;
        object_free(f->obj);
        f->obj = NULL;
        c->n_terminating--;
        refresh = true;
    }
    return r == 0 && refresh ? queues_refresh(c, NULL) : r;
}

int cluster_sync(struct cluster *c)
{
    cluster_purge(c);
    int r = 0;
    if (c->queues_dirty) {
        c->queues_dirty = false;
        r = cluster_rebuild_queues(c);
    } else {
        r = workload_enqueue_batch(c, c->fresh, c->n_fresh);
        if (r == 0)
            c->n_fresh = 0;
    }
    return r == 0 && c->n_terminating ? finish_terminating(c) : r;
}

int cluster_progress_changed(struct cluster *c)
{
    struct workload **v = NULL;
    size_t n = 0;
    int r = cluster_take_changed(c, &v, &n);
    for (size_t i = 0; r == 0 && i < n; i++)
        if (!v[i]->dead)
            workload_progress(c, v[i]);
    free(v);
    return r;
}

void cluster_pod_gone(struct cluster *c, struct pod *p)
{
    if (p->node && p->state == PODSTATE_BOUND)
        node_charge(p->node, p, -1);
    p->node = NULL;
    pod_set_state(c, p, PODSTATE_FAILED);
    cluster_wake_parked(c);
    struct workload *w = p->wl;
    if (!w || w->dead || !w->evicting || w->pods_bound > 0)
        return; /* not evicting, or still going */
    workload_requeue_evicted(c, w);
}

void cluster_pod_succeeded(struct cluster *c, struct pod *p)
{
    bool bound = p->state == PODSTATE_BOUND;
    pod_set_state(c, p, PODSTATE_SUCCEEDED);
    if (bound && p->node)
        node_charge(p->node, p, -1);
    /* Capacity came free: parked workloads may fit now. */
    cluster_wake_parked(c);
    struct workload *w = p->wl;
    /* The last pod of a workload going away (a deleted Job's). */
    if (bound && w && !w->dead && w->evicting && w->pods_bound == 0)
        workload_requeue_evicted(c, w);
}

int cluster_job_status(struct cluster *c, enum object_kind kind,
                       const char *key, const struct job_status *st)
{
    if ((kind != OBJ_JOB && kind != OBJ_JOBSET) ||
        !cluster_get_object(c, kind, key))
        return -ENOENT;
    struct workload *w = cluster_workload(c, key);
    if (!w || w->top->kind != kind)
        return 0; /* not Ordo's */
    if (kind == OBJ_JOBSET && st->n_replicated > w->n_podsets)
        return -EINVAL;
    if (kind == OBJ_JOB && w->n_podsets > 0)
        w->podsets[0].status_succeeded =
            st->succeeded > 0 ? (uint32_t)st->succeeded : 0;
    for (uint32_t i = 0; kind == OBJ_JOBSET && i < st->n_replicated; i++)
        w->podsets[i].status_succeeded =
            st->replicated_succeeded[i] > 0
                ? (uint32_t)st->replicated_succeeded[i]
                : 0;
    w->complete = st->complete;
    workload_progress(c, w);
    return 0;
}
