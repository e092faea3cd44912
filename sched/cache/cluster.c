/* cluster.c - the store (see private/store.h): objects by key, pods,
 * workloads and ClusterQueues, quota accounting, pod counts and the lists
 * the line and the cycle work from. It decides nothing and calls nothing
 * above it: nodes and their room are in nodes.c, what leaves the store in
 * removal.c, workload assembly in workload.c, queueing in queueing.c,
 * ClusterQueues and the quota tree in queues.c, events in events.c. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "resid.h"
#include "satmath.h"
#include "changes.h"
#include "workload.h" /* the history (history.c) */

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

void cq_groups_free(struct cq_group *groups, size_t n)
{
    for (size_t g = 0; groups && g < n; g++) {
        free(groups[g].res_ids);
        free(groups[g].flavors);
        free(groups[g].nominal);
        free(groups[g].usage);
    }
    free(groups);
}

static void cq_free(struct cq *q)
{
    if (!q)
        return;
    cq_groups_free(q->groups, q->n_groups);
    free(q->pending);
    free(q->admitted);
    free(q->built_version);
    free(q->name);
    free(q);
}

static void node_free(struct node *n)
{
    if (!n)
        return;
    object_free(n->obj);
    free(n->alloc);
    free(n->used);
    free(n->name);
    free(n);
}

void cluster_planned_pod_free(struct pod *p)
{
    if (!p)
        return;
    free(p->request);
    free(p);
}

void workload_free(struct workload *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->n_podsets; i++) {
        free(w->podsets[i].name);
        free(w->podsets[i].req_ids);
        free(w->podsets[i].req_milli);
    }
    free(w->podsets);
    free(w->flavors);
    free(w->admitted_cq_version);
    free(w->charges);
    free(w->preempt_assign);
    for (size_t i = 0; w->held_planned && i < w->n_held; i++)
        cluster_planned_pod_free(w->held_pods[i]);
    free(w->held_pods);
    free(w->held_nodes);
    free(w->pods);
    for (size_t i = 0; i < w->n_kept; i++)
        object_free(w->kept[i]);
    free(w->kept);
    workload_history_release(&w->history);
    free(w->key);
    free(w->ns);
    free(w->local_queue);
    free(w);
}

void cluster_pod_free(struct pod *p)
{
    if (!p)
        return;
    object_free(p->obj);
    free(p->request);
    free(p->key);
    free(p);
}

int cluster_orphan_add(struct cluster *c, const char *owner, const char *pod)
{
    struct pod_orphans *o = NULL;
    HASH_FIND_STR(c->orphans, owner, o);
    if (!o) {
        o = calloc(1, sizeof(*o));
        if (!o || !(o->owner = strdup(owner))) {
            free(o);
            return -ENOMEM;
        }
        HASH_ADD_KEYPTR(hh, c->orphans, o->owner, strlen(o->owner), o);
    }
    char *k = strdup(pod);
    if (!k || GROW_ARRAY(o->pods, o->n, o->cap) < 0) {
        free(k);
        return -ENOMEM;
    }
    o->pods[o->n++] = k;
    return 0;
}

struct pod_orphans *cluster_orphans_take(struct cluster *c, const char *owner)
{
    struct pod_orphans *o = NULL;
    HASH_FIND_STR(c->orphans, owner, o);
    if (o)
        HASH_DEL(c->orphans, o);
    return o;
}

void cluster_orphans_free(struct pod_orphans *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++)
        free(o->pods[i]);
    free(o->pods);
    free(o->owner);
    free(o);
}

void cluster_release(struct cluster *c)
{
    changes_free(c->changes);
    c->changes = NULL;
    qtree_release(&c->tree); /* before the ClusterQueues it points to */
    struct pod_orphans *po, *po_tmp;
    HASH_ITER(hh, c->orphans, po, po_tmp)
    {
        HASH_DEL(c->orphans, po);
        cluster_orphans_free(po);
    }
    for (size_t i = 0; i < c->n_dead_pods; i++)
        cluster_pod_free(c->dead_pods[i]);
    for (size_t i = 0; i < c->n_dead_wls; i++)
        workload_free(c->dead_wls[i]);
    for (size_t i = 0; i < c->n_retired_nodes; i++)
        node_free(c->retired_nodes[i]);
    for (size_t i = 0; i < c->n_retired_cqs; i++) {
        object_free(c->retired_cqs[i]->obj);
        cq_free(c->retired_cqs[i]);
    }
    free(c->dead_pods);
    free(c->dead_wls);
    free(c->compact);
    free(c->retired_nodes);
    free(c->retired_cqs);
    free(c->to_stop);
    struct pod *p, *ptmp;
    HASH_ITER(hh, c->pods, p, ptmp)
    {
        HASH_DEL(c->pods, p);
        cluster_pod_free(p);
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
        node_free(n);
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
    index_free(&c->lqs);
    index_free(&c->pcs);
    index_free(&c->wpcs);
    index_free(&c->namespaces);
    index_free(&c->cohorts);
    index_free(&c->topologies);
    index_free(&c->admission_checks);
    index_free(&c->jobs);
    index_free(&c->jobsets);
    cluster_init(c);
}

/* ---- lookups ------------------------------------------------------------- */

struct obj_entry *cluster_find(struct obj_entry *index, const char *key)
{
    struct obj_entry *e = NULL;
    HASH_FIND_STR(index, key, e);
    return e;
}

struct node *cluster_node(const struct cluster *c, const char *name)
{
    struct node *n = NULL;
    HASH_FIND_STR(c->nodes, name, n);
    return n;
}

struct cq *cluster_cq(const struct cluster *c, const char *name)
{
    struct cq *q = NULL;
    HASH_FIND_STR(c->cqs, name, q);
    return q;
}

struct flavor *cluster_flavor(const struct cluster *c, const char *name)
{
    struct flavor *f = NULL;
    HASH_FIND_STR(c->flavors, name, f);
    return f;
}

struct pod *cluster_pod(const struct cluster *c, const char *key)
{
    struct pod *p = NULL;
    HASH_FIND_STR(c->pods, key, p);
    return p;
}

struct workload *cluster_workload(const struct cluster *c, const char *key)
{
    struct workload *w = NULL;
    HASH_FIND_STR(c->workloads, key, w);
    return w;
}

const struct pod *cluster_get_pod(const struct cluster *c, const char *key)
{
    return cluster_pod(c, key);
}

const struct workload *cluster_get_workload(const struct cluster *c,
                                            const char *key)
{
    return cluster_workload(c, key);
}

const struct node *cluster_get_node(const struct cluster *c, const char *name)
{
    return cluster_node(c, name);
}

const struct cq *cluster_get_cq(const struct cluster *c, const char *name)
{
    return cluster_cq(c, name);
}

struct obj_entry **cluster_index_of(struct cluster *c, enum object_kind kind)
{
    switch (kind) {
    case OBJ_NAMESPACE:
        return &c->namespaces;
    case OBJ_JOB:
        return &c->jobs;
    case OBJ_JOBSET:
        return &c->jobsets;
    case OBJ_PRIORITY_CLASS:
        return &c->pcs;
    case OBJ_LOCAL_QUEUE:
        return &c->lqs;
    case OBJ_COHORT:
        return &c->cohorts;
    case OBJ_WORKLOAD_PRIORITY_CLASS:
        return &c->wpcs;
    case OBJ_TOPOLOGY:
        return &c->topologies;
    case OBJ_ADMISSION_CHECK:
        return &c->admission_checks;
    default:
        return NULL;
    }
}

const struct object *cluster_get_object(const struct cluster *c,
                                        enum object_kind kind, const char *key)
{
    const struct pod *p;
    const struct node *n;
    const struct cq *q;
    const struct flavor *f;
    switch (kind) {
    case OBJ_POD:
        p = cluster_pod(c, key);
        return p ? p->obj : NULL;
    case OBJ_NODE:
        n = cluster_node(c, key);
        return n ? n->obj : NULL;
    case OBJ_CLUSTER_QUEUE:
        q = cluster_cq(c, key);
        return q ? q->obj : NULL;
    case OBJ_RESOURCE_FLAVOR:
        f = cluster_flavor(c, key);
        return f ? f->obj : NULL;
    default:
        break;
    }
    struct obj_entry **index = cluster_index_of((struct cluster *)c, kind);
    const struct obj_entry *e = index ? cluster_find(*index, key) : NULL;
    return e ? e->obj : NULL;
}

/* ---- filing -------------------------------------------------------------- */

int cluster_index_put(struct obj_entry **index, struct object *o)
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

int cluster_flavor_put(struct cluster *c, struct object *o)
{
    struct flavor *f = cluster_flavor(c, o->meta.name);
    if (!f) {
        f = calloc(1, sizeof(*f));
        if (!f || !(f->name = strdup(o->meta.name))) {
            free(f);
            object_free(o);
            return -ENOMEM;
        }
        HASH_ADD_KEYPTR(hh, c->flavors, f->name, strlen(f->name), f);
    }
    object_free(f->obj); /* an update */
    f->obj = o;
    return 0;
}

int cluster_cq_put(struct cluster *c, struct object *o)
{
    struct cq *old = cluster_cq(c, o->meta.name);
    if (old) {
        /* Its groups point into the object only through names. */
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

/* ---- pod counts and the lists -------------------------------------------- */

void cluster_wake_parked(struct cluster *c)
{
    c->wake_gen++;
}

void workload_count_pod(struct workload *w, const struct pod *p, int sign)
{
    uint32_t d = (uint32_t)sign; /* unsigned wrap: +1 or -1 */
    switch (p->state) {
    case PODSTATE_BOUND:
        w->pods_bound += d;
        break;
    case PODSTATE_SUCCEEDED:
        w->pods_succeeded += d;
        break;
    case PODSTATE_FAILED:
        w->pods_failed += d;
        break;
    default:
        break;
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
    case PODSTATE_GONE:
        break;
    }
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
        /* Out of memory only delays the line's next look at it. */
        (void)cluster_mark_changed(c, w);
        if (s == PODSTATE_BOUND)
            workload_note_placed(c, w);
    }
}

int cluster_mark_changed(struct cluster *c, struct workload *w)
{
    changes_note(c, w);
    if (w->changed)
        return 0;
    if (GROW_ARRAY(c->changed, c->n_changed, c->cap_changed) < 0)
        return -ENOMEM;
    c->changed[c->n_changed++] = w;
    w->changed = true;
    return 0;
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
    if (GROW_ARRAY(c->busy, c->n_busy, c->cap_busy) < 0)
        return -ENOMEM;
    c->busy[c->n_busy++] = q;
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
    if (GROW_ARRAY(c->usage_changed, c->n_usage_changed, c->cap_usage_changed) <
        0)
        return; /* out of memory: that sample is missed */
    c->usage_changed[c->n_usage_changed++] = q;
    q->usage_changed = true;
}

int cluster_take_usage_changed(struct cluster *c, struct cq ***ret,
                               uint32_t *ret_n)
{
    struct cq **v = c->usage_changed;
    uint32_t n = c->n_usage_changed;
    c->usage_changed = NULL;
    c->n_usage_changed = 0;
    c->cap_usage_changed = 0;
    for (uint32_t i = 0; i < n; i++)
        v[i]->usage_changed = false;
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_cq_index);
    *ret = v;
    *ret_n = n;
    return 0;
}

int cluster_mark_straggler(struct cluster *c, struct workload *w)
{
    if (w->straggling)
        return 0;
    if (GROW_ARRAY(c->stragglers, c->n_stragglers, c->cap_stragglers) < 0)
        return -ENOMEM;
    c->stragglers[c->n_stragglers++] = w;
    w->straggling = true;
    return 0;
}

int cluster_mark_fresh(struct cluster *c, struct workload *w)
{
    if (GROW_ARRAY(c->fresh, c->n_fresh, c->cap_fresh) < 0)
        return -ENOMEM;
    c->fresh[c->n_fresh++] = w;
    return 0;
}

/* ---- ClusterQueues: pending and admitted workloads, quota usage ---------- */

int cq_add_admitted(struct cq *q, struct workload *w)
{
    if (GROW_ARRAY(q->admitted, q->n_admitted, q->cap_admitted) < 0)
        return -ENOMEM;
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

int cq_queue_push(struct cluster *c, struct cq *q, struct workload *w)
{
    if (cluster_mark_busy(c, q) < 0)
        return -ENOMEM;
    if (GROW_ARRAY(q->pending, q->n_pending, q->cap_pending) < 0)
        return -ENOMEM;
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

/* Charges delta to (group g, flavor index fi, resource index ri) of q,
 * through the quota tree so that cohorts see it too. */
static void charge_slot(struct cq *q, uint32_t g, uint32_t fi, uint32_t ri,
                        int64_t delta)
{
    struct cq_group *grp = &q->groups[g];
    int i = q->qnode
                ? qtree_fr(q->qnode->tree, grp->flavors[fi], grp->res_ids[ri])
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
