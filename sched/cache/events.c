/* events.c - what a backend reports, applied to the cache (see
 * private/events.h): objects filed by kind, pod phases, Job status, and the
 * batch step that queues what arrived. */
#include "events.h"

#include <errno.h>
#include <stdlib.h>

int cluster_add(struct cluster *c, struct object *o)
{
    switch (o->kind) {
    case OBJ_NODE:
        return cluster_node_add(c, o);
    case OBJ_POD:
        return workload_add_pod(c, o);
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
        c->queues_dirty = true;
        return cluster_index_put(cluster_index_of(c, o->kind), o);
    default:
        object_free(o);
        return 0;
    }
}

int cluster_update(struct cluster *c, struct object *o)
{
    char key[512];
    switch (o->kind) {
    case OBJ_NODE:
    case OBJ_POD:
    case OBJ_JOB:
    case OBJ_JOBSET:
        if (!cluster_get_object(c, o->kind, object_key(o, key, sizeof(key))))
            return cluster_add(c, o);
        object_free(o);
        return -ENOTSUP;
    default:
        return cluster_add(c, o);
    }
}

int cluster_delete(struct cluster *c, enum object_kind kind, const char *key)
{
    return cluster_get_object(c, kind, key) ? -ENOTSUP : 0;
}

int cluster_sync(struct cluster *c)
{
    if (c->queues_dirty) {
        c->queues_dirty = false;
        return cluster_rebuild_queues(c);
    }
    for (size_t i = 0; i < c->n_fresh; i++)
        if (workload_enqueue(c, c->fresh[i]) < 0)
            return -ENOMEM;
    c->n_fresh = 0;
    return 0;
}

int cluster_progress_changed(struct cluster *c)
{
    struct workload **v = NULL;
    size_t n = 0;
    int r = cluster_take_changed(c, &v, &n);
    for (size_t i = 0; r == 0 && i < n; i++)
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
    if (!w || !w->evicting || w->pods_bound > 0)
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
