/* removal.c - what leaves the store (see private/store.h): deleted pods
 * and workloads, unlinked at once and freed by the next batch
 * (cluster_purge), so that nothing held during a cycle dangles; deleted
 * nodes and ClusterQueues, retired (kept for what still points to them);
 * the objects a workload keeps; the workloads the line must stop. */
#include "store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "grow.h"

int cluster_index_remove(struct obj_entry **index, const char *key)
{
    struct obj_entry *e = cluster_find(*index, key);
    if (!e)
        return 0;
    HASH_DEL(*index, e);
    object_free(e->obj);
    free(e->key);
    free(e);
    return 1;
}

int cluster_node_remove(struct cluster *c, struct node *n)
{
    if (GROW_ARRAY(c->retired_nodes, c->n_retired_nodes, c->cap_retired_nodes) <
        0)
        return -ENOMEM;
    HASH_DEL(c->nodes, n);
    memmove(&c->nodes_v[n->index], &c->nodes_v[n->index + 1],
            (c->n_nodes - n->index - 1) * sizeof(*c->nodes_v));
    c->n_nodes--;
    for (uint32_t i = n->index; i < c->n_nodes; i++)
        c->nodes_v[i]->index = i;
    n->retired = true;
    c->retired_nodes[c->n_retired_nodes++] = n;
    return 0;
}

int cluster_cq_retire(struct cluster *c, struct cq *q)
{
    if (GROW_ARRAY(c->retired_cqs, c->n_retired_cqs, c->cap_retired_cqs) < 0)
        return -ENOMEM;
    HASH_DEL(c->cqs, q);
    c->retired_cqs[c->n_retired_cqs++] = q;
    /* Its usage is sampled no more. */
    uint32_t keep = 0;
    for (uint32_t i = 0; i < c->n_usage_changed; i++)
        if (c->usage_changed[i] != q)
            c->usage_changed[keep++] = c->usage_changed[i];
    c->n_usage_changed = keep;
    q->usage_changed = false;
    q->n_pending = 0;
    return 0;
}

bool workload_refers_to(const struct workload *w, const struct object *o)
{
    if (w->top == o)
        return true;
    for (uint32_t ps = 0; o->kind == OBJ_POD && ps < w->n_podsets; ps++)
        if (w->podsets[ps].spec == &o->u.pod.spec)
            return true;
    return false;
}

int workload_keep_object(struct workload *w, struct object *o)
{
    if (GROW_ARRAY(w->kept, w->n_kept, w->cap_kept) < 0)
        return -ENOMEM;
    w->kept[w->n_kept++] = o;
    return 0;
}

int cluster_pod_unlink(struct cluster *c, struct pod *p)
{
    if (GROW_ARRAY(c->dead_pods, c->n_dead_pods, c->cap_dead_pods) < 0)
        return -ENOMEM;
    struct workload *w = p->wl;
    if (w && w->n_dead == 0 &&
        GROW_ARRAY(c->compact, c->n_compact, c->cap_compact) < 0)
        return -ENOMEM;
    if (p->node && p->state == PODSTATE_BOUND)
        node_charge(p->node, p, -1);
    HASH_DEL(c->pods, p);
    pod_set_state(c, p, PODSTATE_GONE);
    p->node = NULL;
    c->dead_pods[c->n_dead_pods++] = p;
    if (w && w->n_dead++ == 0)
        c->compact[c->n_compact++] = w;
    /* Room held with its pods (a preemptor's) counts p: given back. */
    if (w && w->n_held && !w->held_planned)
        cluster_release_room(w);
    cluster_wake_parked(c);
    return 0;
}

int cluster_workload_unlink(struct cluster *c, struct workload *w)
{
    if (GROW_ARRAY(c->dead_wls, c->n_dead_wls, c->cap_dead_wls) < 0)
        return -ENOMEM;
    if (w->state == WL_ADMITTED && w->admitted_cq) {
        cq_charge(w->admitted_cq, w, -1);
        cq_remove_admitted(w->admitted_cq, w);
    } else if (w->queued && w->cq) {
        cq_queue_remove(w->cq, w);
    }
    cluster_release_room(w);
    if (w->preempting && c->n_preempting > 0)
        c->n_preempting--;
    w->preempting = false;
    changes_note(c, w); /* it left: its status is forgotten */
    HASH_DEL(c->workloads, w);
    w->dead = true;
    c->dead_wls[c->n_dead_wls++] = w;
    cluster_wake_parked(c);
    return 0;
}

int cluster_mark_stop(struct cluster *c, struct workload *w)
{
    if (w->stopping)
        return 0;
    if (GROW_ARRAY(c->to_stop, c->n_to_stop, c->cap_to_stop) < 0)
        return -ENOMEM;
    c->to_stop[c->n_to_stop++] = w;
    w->stopping = true;
    return 0;
}

/* Drops the dead workloads from list v of *n. */
static void drop_dead(struct workload **v, size_t *n)
{
    size_t keep = 0;
    for (size_t i = 0; i < *n; i++)
        if (!v[i]->dead)
            v[keep++] = v[i];
    *n = keep;
}

void cluster_purge(struct cluster *c)
{
    if (!c->n_dead_pods && !c->n_dead_wls)
        return;
    drop_dead(c->fresh, &c->n_fresh);
    drop_dead(c->stragglers, &c->n_stragglers);
    drop_dead(c->changed, &c->n_changed);
    drop_dead(c->to_stop, &c->n_to_stop);
    /* Gone pods leave their workloads' lists, keeping their order. */
    for (size_t i = 0; i < c->n_compact; i++) {
        struct workload *w = c->compact[i];
        size_t keep = 0;
        for (size_t k = 0; !w->dead && k < w->n_pods; k++)
            if (w->pods[k]->state != PODSTATE_GONE)
                w->pods[keep++] = w->pods[k];
        if (!w->dead)
            w->n_pods = keep;
        w->n_dead = 0;
    }
    c->n_compact = 0;
    /* Pods still there are no dead workload's any more (their deletion
     * follows, as the garbage collector's). */
    for (size_t i = 0; i < c->n_dead_wls; i++) {
        struct workload *w = c->dead_wls[i];
        for (size_t k = 0; k < w->n_pods; k++)
            if (w->pods[k]->state != PODSTATE_GONE)
                w->pods[k]->wl = NULL;
    }
    for (size_t i = 0; i < c->n_dead_pods; i++) {
        struct pod *p = c->dead_pods[i];
        struct workload *w = p->wl;
        /* What its workload's top or pod sets point into stays. */
        if (w && !w->dead && p->obj && workload_refers_to(w, p->obj) &&
            workload_keep_object(w, p->obj) == 0)
            p->obj = NULL;
        cluster_pod_free(p);
    }
    c->n_dead_pods = 0;
    for (size_t i = 0; i < c->n_dead_wls; i++)
        workload_free(c->dead_wls[i]);
    c->n_dead_wls = 0;
}
