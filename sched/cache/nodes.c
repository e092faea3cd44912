/* nodes.c - nodes in the store (see private/store.h): added and updated
 * from their objects, their room (allocatable less what bound and assumed
 * pods take), and node room held for a workload. */
#include "store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "resid.h"
#include "satmath.h"

/* Grows a per-resource-id array to n slots, zero-filling. */
static int grow_ids(int64_t **v, int32_t old_n, int32_t n)
{
    if (n <= old_n)
        return 0;
    int64_t *nv = realloc(*v, (size_t)n * sizeof(*nv));
    if (!nv)
        return -ENOMEM;
    memset(nv + old_n, 0, (size_t)(n - old_n) * sizeof(*nv));
    *v = nv;
    return 0;
}

/* Makes room in a node for every interned resource id. */
static int node_fit_ids(struct node *n)
{
    int32_t count = resid_count();
    if (grow_ids(&n->alloc, n->n_ids, count) < 0 ||
        grow_ids(&n->used, n->n_ids, count) < 0)
        return -ENOMEM;
    if (count > n->n_ids)
        n->n_ids = count;
    return 0;
}

int cluster_node_add(struct cluster *c, struct object *o)
{
    if (cluster_node(c, o->meta.name)) {
        object_free(o);
        return -EEXIST;
    }
    struct node *n = calloc(1, sizeof(*n));
    if (!n || !(n->name = strdup(o->meta.name)))
        goto oom;
    const struct resource_list *al = &o->u.node.allocatable;
    for (size_t i = 0; i < al->n; i++)
        if (resid_intern(al->items[i].name) < 0)
            goto oom;
    if (node_fit_ids(n) < 0)
        goto oom;
    for (size_t i = 0; i < al->n; i++)
        n->alloc[resid_lookup(al->items[i].name)] = al->items[i].milli;
    /* A node that does not say how many pods it takes gets the kubelet's
     * default maxPods. */
    if (!resource_list_has(al, RESOURCE_PODS)) {
        int32_t id = resid_intern(RESOURCE_PODS);
        if (id < 0 || node_fit_ids(n) < 0)
            goto oom;
        n->alloc[id] = 110 * 1000;
    }
    if (GROW_ARRAY(c->nodes_v, c->n_nodes, c->cap_nodes) < 0)
        goto oom;
    n->obj = o;
    n->index = c->n_nodes;
    c->nodes_v[c->n_nodes++] = n;
    HASH_ADD_KEYPTR(hh, c->nodes, n->name, strlen(n->name), n);
    /* New room: workloads parked for lack of it may fit now. */
    cluster_wake_parked(c);
    return 0;
oom:
    if (n) {
        free(n->alloc);
        free(n->used);
        free(n->name);
        free(n);
    }
    object_free(o);
    return -ENOMEM;
}

int64_t node_free_capacity(const struct node *n, int32_t id)
{
    if (id < 0 || id >= n->n_ids)
        return 0;
    return sat_sub64(n->alloc[id], n->used[id]);
}

int node_charge(struct node *n, const struct pod *p, int sign)
{
    if (node_fit_ids(n) < 0)
        return -ENOMEM;
    for (int32_t id = 0; id < p->n_ids && id < n->n_ids; id++)
        n->used[id] = sat_add64(n->used[id], sign * p->request[id]);
    return 0;
}

/* Fills n's allocatable from its object: what it says, and the kubelet's
 * default maxPods when it does not say how many pods it takes. */
static int node_set_alloc(struct node *n)
{
    const struct resource_list *al = &n->obj->u.node.allocatable;
    for (size_t i = 0; i < al->n; i++)
        if (resid_intern(al->items[i].name) < 0)
            return -ENOMEM;
    int32_t pods = resid_intern(RESOURCE_PODS);
    if (pods < 0 || node_fit_ids(n) < 0)
        return -ENOMEM;
    memset(n->alloc, 0, (size_t)n->n_ids * sizeof(*n->alloc));
    for (size_t i = 0; i < al->n; i++)
        n->alloc[resid_lookup(al->items[i].name)] = al->items[i].milli;
    if (!resource_list_has(al, RESOURCE_PODS))
        n->alloc[pods] = 110 * 1000;
    return 0;
}

int cluster_node_update(struct cluster *c, struct object *o)
{
    struct node *n = cluster_node(c, o->meta.name);
    if (!n)
        return cluster_node_add(c, o);
    /* Its pods stay; its room is what the new object says less what they
     * use. Labels, taints, unschedulable and Ready are read from the
     * object where they are needed. */
    object_free(n->obj);
    n->obj = o;
    if (node_set_alloc(n) < 0)
        return -ENOMEM;
    cluster_wake_parked(c);
    return 0;
}

/* ---- node room held for a workload --------------------------------------- */

int cluster_hold_room(struct workload *w, struct pod **pods,
                      struct node **nodes, size_t n, bool planned)
{
    struct pod **hp = malloc((n ? n : 1) * sizeof(*hp));
    struct node **hn = malloc((n ? n : 1) * sizeof(*hn));
    if (!hp || !hn) {
        free(hp);
        free(hn);
        return -ENOMEM;
    }
    memcpy(hp, pods, n * sizeof(*hp));
    memcpy(hn, nodes, n * sizeof(*hn));
    cluster_release_room(w);
    w->held_pods = hp;
    w->held_nodes = hn;
    w->n_held = n;
    w->held_planned = planned;
    /* Room planned for an admitted job's pods: pods of it that wait
     * already (made for an earlier admission) take it, as the ones its
     * controller makes now will. */
    bool pending = false;
    for (uint32_t ps = 0; ps < w->n_podsets && !pending; ps++)
        pending = w->podsets[ps].n_pending > 0;
    if (planned && pending && w->state == WL_ADMITTED && w->admitted_cq)
        return cluster_mark_straggler(w->admitted_cq->cluster, w);
    return 0;
}

void cluster_release_room(struct workload *w)
{
    for (size_t k = 0; k < w->n_held; k++) {
        node_charge(w->held_nodes[k], w->held_pods[k], -1);
        if (w->held_planned)
            cluster_planned_pod_free(w->held_pods[k]);
    }
    free(w->held_pods);
    free(w->held_nodes);
    w->held_pods = NULL;
    w->held_nodes = NULL;
    w->n_held = 0;
    w->held_planned = false;
}

void cluster_release_planned(struct workload *w, uint32_t ps, uint32_t k)
{
    if (!w->held_planned)
        return;
    size_t keep = 0;
    for (size_t i = 0; i < w->n_held; i++) {
        struct pod *p = w->held_pods[i];
        if (k > 0 && p->podset == ps) {
            node_charge(w->held_nodes[i], p, -1);
            cluster_planned_pod_free(p);
            k--;
            continue;
        }
        w->held_pods[keep] = p;
        w->held_nodes[keep++] = w->held_nodes[i];
    }
    w->n_held = keep;
    if (keep == 0)
        cluster_release_room(w);
}
