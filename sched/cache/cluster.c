/* cluster.c - the scheduler's cache: filing objects by key, node and quota
 * accounting, and ClusterQueues rebuilt from Kueue objects (see
 * cluster.h). Workload assembly is in workload.c. */
#include "cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resid.h"
#include "satmath.h"
#include "workload.h"

const char *workload_kind_name(enum wl_kind k)
{
    static const char *const names[WL_KIND_MAX] = {"Job", "JobSet", "PodGroup",
                                                   "Pod"};
    return (unsigned)k < WL_KIND_MAX ? names[k] : "Unknown";
}

void cluster_init(struct cluster *c)
{
    memset(c, 0, sizeof(*c));
}

static void index_free(struct obj_entry **index)
{
    struct obj_entry *e, *tmp;
    HASH_ITER(hh, *index, e, tmp)
    {
        HASH_DEL(*index, e);
        object_free(e->obj);
        free(e->key);
        free(e);
    }
}

static void cq_free(struct cq *q)
{
    for (uint32_t g = 0; q && g < q->n_groups; g++) {
        free(q->groups[g].res_ids);
        free(q->groups[g].flavors);
        free(q->groups[g].nominal);
        free(q->groups[g].usage);
    }
    if (q) {
        free(q->groups);
        free(q->pending);
        free(q->admitted);
        free(q->name);
        free(q);
    }
}

void cluster_release(struct cluster *c)
{
    qtree_release(&c->tree); /* before the ClusterQueues it points to */
    struct pod *p, *ptmp;
    HASH_ITER(hh, c->pods, p, ptmp)
    {
        HASH_DEL(c->pods, p);
        object_free(p->obj);
        free(p->request);
        free(p->key);
        free(p);
    }
    struct workload *w, *wtmp;
    HASH_ITER(hh, c->workloads, w, wtmp)
    {
        HASH_DEL(c->workloads, w);
        workload_free(w);
    }
    struct node *n, *ntmp;
    HASH_ITER(hh, c->nodes, n, ntmp)
    {
        HASH_DEL(c->nodes, n);
        object_free(n->obj);
        free(n->alloc);
        free(n->used);
        free(n->name);
        free(n);
    }
    free(c->nodes_v);
    struct cq *q, *qtmp;
    HASH_ITER(hh, c->cqs, q, qtmp)
    {
        HASH_DEL(c->cqs, q);
        object_free(q->obj);
        cq_free(q);
    }
    free(c->cqs_v);
    free(c->busy);
    free(c->usage_changed);
    free(c->changed);
    free(c->fresh);
    free(c->stragglers);
    struct flavor *f, *ftmp;
    HASH_ITER(hh, c->flavors, f, ftmp)
    {
        HASH_DEL(c->flavors, f);
        object_free(f->obj);
        free(f->name);
        free(f);
    }
    /* Jobs and JobSets last: pods created from their templates point into
     * them. */
    index_free(&c->lqs);
    index_free(&c->pcs);
    index_free(&c->wpcs);
    index_free(&c->namespaces);
    index_free(&c->cohorts);
    index_free(&c->jobs);
    index_free(&c->jobsets);
    cluster_init(c);
}

struct obj_entry *cluster_find(struct obj_entry *index, const char *key)
{
    struct obj_entry *e = NULL;
    HASH_FIND_STR(index, key, e);
    return e;
}

struct node *cluster_node(struct cluster *c, const char *name)
{
    struct node *n = NULL;
    HASH_FIND_STR(c->nodes, name, n);
    return n;
}

struct cq *cluster_cq(struct cluster *c, const char *name)
{
    struct cq *q = NULL;
    HASH_FIND_STR(c->cqs, name, q);
    return q;
}

struct flavor *cluster_flavor(struct cluster *c, const char *name)
{
    struct flavor *f = NULL;
    HASH_FIND_STR(c->flavors, name, f);
    return f;
}

/* Files o by key. The Kueue kinds and the other configuration-like kinds
 * are replaced when they exist already (as `kubectl apply` of a changed
 * object does); the old object is freed. */
static int index_add(struct obj_entry **index, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct obj_entry *old = cluster_find(*index, key);
    if (old) {
        object_free(old->obj);
        old->obj = o;
        return 0;
    }
    struct obj_entry *e = calloc(1, sizeof(*e));
    if (!e || !(e->key = strdup(key))) {
        free(e);
        object_free(o);
        return -ENOMEM;
    }
    e->obj = o;
    HASH_ADD_KEYPTR(hh, *index, e->key, strlen(e->key), e);
    return 0;
}

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

static int add_node(struct cluster *c, struct object *o)
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
    if (c->n_nodes == c->cap_nodes) {
        uint32_t cap = c->cap_nodes ? c->cap_nodes * 2 : 64;
        struct node **v = realloc(c->nodes_v, cap * sizeof(*v));
        if (!v)
            goto oom;
        c->nodes_v = v;
        c->cap_nodes = cap;
    }
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

static int add_flavor(struct cluster *c, struct object *o)
{
    struct flavor *f = cluster_flavor(c, o->meta.name);
    if (f && f->obj) {
        object_free(f->obj); /* an update */
        f->obj = o;
        return 0;
    }
    if (!f) {
        f = calloc(1, sizeof(*f));
        if (!f || !(f->name = strdup(o->meta.name))) {
            free(f);
            object_free(o);
            return -ENOMEM;
        }
        HASH_ADD_KEYPTR(hh, c->flavors, f->name, strlen(f->name), f);
    }
    f->obj = o;
    return 0;
}

static int add_cq(struct cluster *c, struct object *o)
{
    struct cq *old = cluster_cq(c, o->meta.name);
    if (old) {
        /* An update: rebuilt with the queues at the next cluster_sync().
         * Its groups point into the object only through names. */
        object_free(old->obj);
        old->obj = o;
        return 0;
    }
    struct cq *q = calloc(1, sizeof(*q));
    if (!q || !(q->name = strdup(o->meta.name))) {
        free(q);
        object_free(o);
        return -ENOMEM;
    }
    q->obj = o;
    q->cluster = c;
    HASH_ADD_KEYPTR(hh, c->cqs, q->name, strlen(q->name), q);
    return 0;
}

void cluster_wake_parked(struct cluster *c)
{
    c->wake_gen++;
}

void workload_count_pod(struct workload *w, const struct pod *p, int sign)
{
    uint32_t d = (uint32_t)sign; /* unsigned wrap: +1 or -1 */
    bool active = false;
    switch (p->state) {
    case PODSTATE_BOUND:
        w->pods_bound += d;
        active = true;
        break;
    case PODSTATE_SUCCEEDED:
        w->pods_succeeded += d;
        break;
    case PODSTATE_FAILED:
        w->pods_failed += d;
        break;
    default:
        active = true;
    }
    if (p->podset >= w->n_podsets)
        return;
    struct podset *s = &w->podsets[p->podset];
    switch (p->state) {
    case PODSTATE_PENDING:
        s->n_pending += d;
        break;
    case PODSTATE_BOUND:
        s->n_bound += d;
        break;
    case PODSTATE_SUCCEEDED:
        s->n_succeeded += d;
        break;
    case PODSTATE_FAILED:
        s->n_failed += d;
        break;
    }
    if (!s->child_active || p->child >= s->n_children)
        return;
    if (p->state == PODSTATE_SUCCEEDED)
        s->child_succeeded[p->child] += d;
    else if (active)
        s->child_active[p->child] += d;
}

void pod_set_state(struct cluster *c, struct pod *p, enum pod_phase_sim s)
{
    if (p->state == s)
        return;
    struct workload *w = p->wl;
    if (w)
        workload_count_pod(w, p, -1);
    p->state = s;
    if (w) {
        workload_count_pod(w, p, 1);
        /* Out of memory only delays the controllers' next look at it. */
        (void)cluster_mark_changed(c, w);
    }
}

/* Appends v to a growing array of pointers. */
static int push_ptr(void ***v, size_t *n, size_t *cap, void *item)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        void **nv = realloc(*v, nc * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = item;
    return 0;
}

int cluster_mark_changed(struct cluster *c, struct workload *w)
{
    if (w->changed)
        return 0;
    int r = push_ptr((void ***)&c->changed, &c->n_changed, &c->cap_changed, w);
    if (r == 0)
        w->changed = true;
    return r;
}

static int cmp_wl_seq(const void *a, const void *b)
{
    const struct workload *x = *(const struct workload *const *)a;
    const struct workload *y = *(const struct workload *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cluster_take_changed(struct cluster *c, struct workload ***ret,
                         size_t *ret_n)
{
    struct workload **v = c->changed;
    size_t n = c->n_changed;
    c->changed = NULL;
    c->n_changed = c->cap_changed = 0;
    for (size_t i = 0; i < n; i++)
        v[i]->changed = false;
    /* Creation order: the order in which a walk over all workloads would
     * have met them. */
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_wl_seq);
    *ret = v;
    *ret_n = n;
    return 0;
}

int cluster_mark_busy(struct cluster *c, struct cq *q)
{
    if (q->busy)
        return 0;
    size_t n = c->n_busy, cap = c->cap_busy;
    int r = push_ptr((void ***)&c->busy, &n, &cap, q);
    if (r < 0)
        return r;
    c->n_busy = (uint32_t)n;
    c->cap_busy = (uint32_t)cap;
    q->busy = true;
    c->busy_sorted =
        c->n_busy < 2 ||
        (c->busy_sorted && c->busy[c->n_busy - 2]->index < q->index);
    return 0;
}

static int cmp_cq_index(const void *a, const void *b)
{
    const struct cq *x = *(const struct cq *const *)a;
    const struct cq *y = *(const struct cq *const *)b;
    return x->index < y->index ? -1 : x->index > y->index;
}

void cluster_busy_refresh(struct cluster *c)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < c->n_busy; i++) {
        struct cq *q = c->busy[i];
        /* Only queues of the current cqs_v take part in cycles. */
        if (q->n_pending == 0 || q->index >= c->n_cqs ||
            c->cqs_v[q->index] != q) {
            q->busy = false;
            continue;
        }
        c->busy[keep++] = q;
    }
    c->n_busy = keep;
    if (!c->busy_sorted && keep > 1)
        qsort(c->busy, keep, sizeof(*c->busy), cmp_cq_index);
    c->busy_sorted = true;
}

void cluster_mark_usage(struct cluster *c, struct cq *q)
{
    if (!c || q->usage_changed)
        return;
    size_t n = c->n_usage_changed, cap = c->cap_usage_changed;
    if (push_ptr((void ***)&c->usage_changed, &n, &cap, q) < 0)
        return; /* out of memory: that sample is missed */
    c->n_usage_changed = (uint32_t)n;
    c->cap_usage_changed = (uint32_t)cap;
    q->usage_changed = true;
}

int cluster_take_usage_changed(struct cluster *c, struct cq ***ret,
                               uint32_t *ret_n)
{
    struct cq **v = c->usage_changed;
    uint32_t n = c->n_usage_changed;
    c->usage_changed = NULL;
    c->n_usage_changed = c->cap_usage_changed = 0;
    for (uint32_t i = 0; i < n; i++)
        v[i]->usage_changed = false;
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_cq_index);
    *ret = v;
    *ret_n = n;
    return 0;
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

int cq_add_admitted(struct cq *q, struct workload *w)
{
    if (q->n_admitted == q->cap_admitted) {
        uint32_t cap = q->cap_admitted ? q->cap_admitted * 2 : 16;
        struct workload **v = realloc(q->admitted, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        q->admitted = v;
        q->cap_admitted = cap;
    }
    w->cq_slot = q->n_admitted;
    q->admitted[q->n_admitted++] = w;
    return 0;
}

void cq_remove_admitted(struct cq *q, struct workload *w)
{
    uint32_t i = w->cq_slot;
    if (i >= q->n_admitted || q->admitted[i] != w) {
        for (i = 0; i < q->n_admitted && q->admitted[i] != w; i++)
            ;
        if (i == q->n_admitted)
            return;
    }
    struct workload *last = q->admitted[--q->n_admitted];
    q->admitted[i] = last;
    last->cq_slot = i;
}

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
    return 0;
}

void cluster_planned_pod_free(struct pod *p)
{
    if (!p)
        return;
    free(p->request);
    free(p);
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

int cq_queue_push(struct cluster *c, struct cq *q, struct workload *w)
{
    if (cluster_mark_busy(c, q) < 0)
        return -ENOMEM;
    if (q->n_pending == q->cap_pending) {
        size_t cap = q->cap_pending ? q->cap_pending * 2 : 16;
        struct workload **v = realloc(q->pending, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        q->pending = v;
        q->cap_pending = cap;
    }
    q->pending[q->n_pending++] = w;
    q->dirty = true;
    return 0;
}

void cq_queue_remove(struct cq *q, struct workload *w)
{
    for (size_t i = 0; i < q->n_pending; i++) {
        if (q->pending[i] == w) {
            memmove(&q->pending[i], &q->pending[i + 1],
                    (q->n_pending - i - 1) * sizeof(*q->pending));
            q->n_pending--;
            return;
        }
    }
}

int cluster_mark_straggler(struct cluster *c, struct workload *w)
{
    if (w->straggling)
        return 0;
    if (c->n_stragglers == c->cap_stragglers) {
        size_t cap = c->cap_stragglers ? c->cap_stragglers * 2 : 16;
        struct workload **v = realloc(c->stragglers, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        c->stragglers = v;
        c->cap_stragglers = cap;
    }
    c->stragglers[c->n_stragglers++] = w;
    w->straggling = true;
    return 0;
}

int cluster_mark_fresh(struct cluster *c, struct workload *w)
{
    if (c->n_fresh == c->cap_fresh) {
        size_t cap = c->cap_fresh ? c->cap_fresh * 2 : 64;
        struct workload **v = realloc(c->fresh, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        c->fresh = v;
        c->cap_fresh = cap;
    }
    c->fresh[c->n_fresh++] = w;
    return 0;
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

int cluster_add(struct cluster *c, struct object *o)
{
    switch (o->kind) {
    case OBJ_NODE:
        return add_node(c, o);
    case OBJ_POD:
        return workload_add_pod(c, o);
    case OBJ_JOB:
    case OBJ_JOBSET:
        return workload_add_owner(c, o);
    case OBJ_RESOURCE_FLAVOR:
        c->queues_dirty = true;
        return add_flavor(c, o);
    case OBJ_CLUSTER_QUEUE:
        c->queues_dirty = true;
        return add_cq(c, o);
    case OBJ_LOCAL_QUEUE:
        c->queues_dirty = true;
        return index_add(&c->lqs, o);
    case OBJ_PRIORITY_CLASS:
        return index_add(&c->pcs, o);
    case OBJ_WORKLOAD_PRIORITY_CLASS:
        /* Workloads follow their class's value, and wait for a class they
         * name that was missing (workload_enqueue). */
        c->queues_dirty = true;
        return index_add(&c->wpcs, o);
    case OBJ_NAMESPACE:
        c->queues_dirty = true;
        return index_add(&c->namespaces, o);
    case OBJ_COHORT:
        c->queues_dirty = true;
        return index_add(&c->cohorts, o);
    default:
        object_free(o);
        return 0;
    }
}

int cq_group_flavor_index(const struct cq_group *g, const struct flavor *f)
{
    for (uint32_t i = 0; i < g->n_flavors; i++)
        if (g->flavors[i] == f)
            return (int)i;
    return -1;
}

int cq_group_res_index(const struct cq_group *g, int32_t id)
{
    for (uint32_t i = 0; i < g->n_res; i++)
        if (g->res_ids[i] == id)
            return (int)i;
    return -1;
}

/* Charges delta to (group g, flavor index fi, resource index ri) of q,
 * through the quota tree so that cohorts see it too. */
static void charge_slot(struct cq *q, uint32_t g, uint32_t fi, uint32_t ri,
                        int64_t delta)
{
    struct cq_group *grp = &q->groups[g];
    int i = q->qnode ? qtree_fr(q->qnode->tree, grp->flavors[fi],
                                grp->res_ids[ri])
                     : -1;
    if (i >= 0)
        qtree_add_usage(q->qnode, i, delta);
    else
        grp->usage[fi * grp->n_res + ri] =
            sat_add64(grp->usage[fi * grp->n_res + ri], delta);
}

void cq_charge(struct cq *q, const struct workload *wl, int sign)
{
    cluster_mark_usage(q->cluster, q);
    for (uint32_t k = 0; k < wl->n_charges; k++) {
        const struct wl_charge *ch = &wl->charges[k];
        const struct podset *s = &wl->podsets[ch->ps];
        int64_t delta = sat_mul64(
            (int64_t)sign * (int64_t)(s->count - s->reclaimable), ch->per_pod);
        int i = q->qnode ? qtree_fr(q->qnode->tree, ch->flavor, ch->res) : -1;
        if (i >= 0) {
            /* Through the tree, even where q no longer lists the pair. */
            qtree_add_usage(q->qnode, i, delta);
            continue;
        }
        for (uint32_t g = 0; g < q->n_groups; g++) {
            int fi = cq_group_flavor_index(&q->groups[g], ch->flavor);
            int ri = cq_group_res_index(&q->groups[g], ch->res);
            if (fi >= 0 && ri >= 0) {
                charge_slot(q, g, (uint32_t)fi, (uint32_t)ri, delta);
                break;
            }
        }
    }
}

/* Builds the groups of one ClusterQueue from its object. Usage is rebuilt
 * by the caller from admitted workloads. */
static int cq_build(struct cluster *c, struct cq *q)
{
    const struct cluster_queue *spec = &q->obj->u.cluster_queue;
    struct cq_group *groups =
        calloc(spec->n_resource_groups ? spec->n_resource_groups : 1,
               sizeof(*groups));
    if (!groups)
        return -ENOMEM;
    q->active = true;
    q->inactive_reason[0] = '\0';
    for (size_t g = 0; g < spec->n_resource_groups; g++) {
        const struct resource_group *rg = &spec->resource_groups[g];
        struct cq_group *out = &groups[g];
        out->n_res = (uint32_t)rg->n_covered;
        out->n_flavors = (uint32_t)rg->n_flavors;
        out->res_ids = calloc(rg->n_covered, sizeof(*out->res_ids));
        out->flavors = calloc(rg->n_flavors, sizeof(*out->flavors));
        out->nominal = calloc(rg->n_covered * rg->n_flavors, sizeof(int64_t));
        out->usage = calloc(rg->n_covered * rg->n_flavors, sizeof(int64_t));
        if (!out->res_ids || !out->flavors || !out->nominal || !out->usage)
            goto oom;
        for (size_t r = 0; r < rg->n_covered; r++)
            if ((out->res_ids[r] = resid_intern(rg->covered_resources[r])) < 0)
                goto oom;
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor_quotas *fq = &rg->flavors[f];
            out->flavors[f] = cluster_flavor(c, fq->name);
            if ((!out->flavors[f] || !out->flavors[f]->obj) && q->active) {
                q->active = false;
                snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                         "ResourceFlavor %s not found", fq->name);
            }
            for (size_t r = 0; r < fq->n_resources; r++)
                out->nominal[f * rg->n_covered + r] =
                    fq->resources[r].nominal_quota;
        }
    }
    if (spec->stop_policy != STOP_POLICY_NONE) {
        q->active = false;
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "ClusterQueue %s is stopped (stopPolicy %s)", q->name,
                 spec->stop_policy == STOP_POLICY_HOLD ? "Hold"
                                                       : "HoldAndDrain");
    }
    for (uint32_t g = 0; g < q->n_groups; g++) {
        free(q->groups[g].res_ids);
        free(q->groups[g].flavors);
        free(q->groups[g].nominal);
        free(q->groups[g].usage);
    }
    free(q->groups);
    q->groups = groups;
    q->n_groups = (uint32_t)spec->n_resource_groups;
    return 0;
oom:
    for (size_t g = 0; g < spec->n_resource_groups; g++) {
        free(groups[g].res_ids);
        free(groups[g].flavors);
        free(groups[g].nominal);
        free(groups[g].usage);
    }
    free(groups);
    return -ENOMEM;
}

/* Flavors referenced by a ClusterQueue exist as (possibly empty) entries so
 * that pointers stay stable when the ResourceFlavor arrives later. */
static int ensure_flavors(struct cluster *c, const struct cluster_queue *spec)
{
    for (size_t g = 0; g < spec->n_resource_groups; g++) {
        for (size_t f = 0; f < spec->resource_groups[g].n_flavors; f++) {
            const char *name = spec->resource_groups[g].flavors[f].name;
            if (cluster_flavor(c, name))
                continue;
            struct flavor *fl = calloc(1, sizeof(*fl));
            if (!fl || !(fl->name = strdup(name))) {
                free(fl);
                return -ENOMEM;
            }
            HASH_ADD_KEYPTR(hh, c->flavors, fl->name, strlen(fl->name), fl);
        }
    }
    return 0;
}

static int cmp_cq_name(const void *a, const void *b)
{
    return strcmp((*(struct cq *const *)a)->name, (*(struct cq *const *)b)->name);
}

int cluster_rebuild_queues(struct cluster *c)
{
    struct cq *q, *tmp;
    uint32_t n = HASH_COUNT(c->cqs);
    struct cq **v = calloc(n ? n : 1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    uint32_t i = 0;
    HASH_ITER(hh, c->cqs, q, tmp)
    {
        if (ensure_flavors(c, &q->obj->u.cluster_queue) < 0 ||
            cq_build(c, q) < 0) {
            free(v);
            return -ENOMEM;
        }
        if (!q->in_v) {
            /* Wake-ups count for it from now on. */
            q->in_v = true;
            q->wake_base = c->wake_gen;
        }
        q->requeue_gen++;
        v[i++] = q;
    }
    qsort(v, n, sizeof(*v), cmp_cq_name);
    for (i = 0; i < n; i++)
        v[i]->index = i;
    free(c->cqs_v);
    c->cqs_v = v;
    c->n_cqs = n;
    if (qtree_build(&c->tree, c) < 0)
        return -ENOMEM;
    c->drain = false;
    for (uint32_t k = 0; k < n; k++)
        c->drain |= v[k]->obj->u.cluster_queue.stop_policy ==
                    STOP_POLICY_HOLD_AND_DRAIN;
    struct obj_entry *e, *etmp;
    HASH_ITER(hh, c->lqs, e, etmp)
    c->drain |= e->obj->u.local_queue.stop_policy == STOP_POLICY_HOLD_AND_DRAIN;
    /* Usage from admitted workloads, and queue membership. */
    int r = workload_requeue_all(c);
    if (r == 0) {
        qtree_mark_baseline(&c->tree);
        c->tree_gen++;
    }
    return r;
}
