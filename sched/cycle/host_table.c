/* host.c - the host function table handed to plugins (struct ordo_host).
 *
 * Plugins see opaque handles; here they are the scheduler's own structs.
 * Every function only reads the cache, except the assignment writers, which
 * validate what a plugin asks for before recording it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cycle.h"
#include "host_table.h"
#include "labels.h"
#include "log.h"
#include "plugins.h"
#include "preempt.h"
#include "quantity.h"
#include "resid.h"
#include "workload.h"

#define WL(h) ((const struct workload *)(h))
#define CQ(h) ((const struct cq *)(h))
#define FL(h) ((const struct flavor *)(h))
#define ND(h) ((const struct node *)(h))

static void host_log(const struct ordo_plugin *p, enum ordo_log_level level,
                     const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    const char *name = p ? p->desc->name : "plugin";
    switch (level) {
    case ORDO_LOG_DEBUG:
        log_write(LOG_INFO, 4, name, 0, "%s", msg);
        break;
    case ORDO_LOG_INFO:
        log_write(LOG_INFO, 1, name, 0, "%s", msg);
        break;
    case ORDO_LOG_WARNING:
        log_write(LOG_WARNING, 0, name, 0, "%s", msg);
        break;
    default:
        log_write(LOG_ERROR, 0, name, 0, "%s", msg);
    }
}

static void *host_alloc(size_t size)
{
    return calloc(1, size ? size : 1);
}

static void host_free(void *ptr)
{
    free(ptr);
}

static void *host_cycle_alloc(struct ordo_cycle *cy, size_t size)
{
    return cy ? arena_alloc(cy->scratch, size) : NULL;
}

static void host_reason(struct ordo_cycle *cy, const char *fmt, ...)
{
    if (!cy)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cy->reason, sizeof(cy->reason), fmt, ap);
    va_end(ap);
}

static int host_config_int(const struct ordo_plugin *p, const char *key,
                           int64_t def, int64_t *ret)
{
    const struct doc_node *v = p ? doc_map_get(p->args, key) : NULL;
    *ret = def;
    if (doc_is_null(v))
        return 0;
    return doc_get_int64(v, ret) < 0 ? -EINVAL : 0;
}

static int host_config_string(const struct ordo_plugin *p, const char *key,
                              const char *def, const char **ret)
{
    const struct doc_node *v = p ? doc_map_get(p->args, key) : NULL;
    *ret = def;
    if (doc_is_null(v))
        return 0;
    if (v->type != DOC_SCALAR)
        return -EINVAL;
    return doc_get_string(v, ret) < 0 ? -EINVAL : 0;
}

static ordo_resource_id host_resource_id(const char *name)
{
    return resid_lookup(name);
}

static const char *host_resource_name(ordo_resource_id id)
{
    return resid_name(id);
}

static const char *host_wl_name(const struct ordo_workload *wl)
{
    return WL(wl)->key;
}

static int32_t host_wl_priority(const struct ordo_workload *wl)
{
    return WL(wl)->priority;
}

static int64_t host_wl_queue_time(const struct ordo_workload *wl)
{
    return WL(wl)->queue_ns;
}

static const struct ordo_cq *host_wl_cq(const struct ordo_workload *wl)
{
    return (const struct ordo_cq *)WL(wl)->cq;
}

static uint32_t host_wl_n_podsets(const struct ordo_workload *wl)
{
    return WL(wl)->n_podsets;
}

static const struct podset *podset_of(const struct ordo_workload *wl,
                                      uint32_t ps)
{
    return ps < WL(wl)->n_podsets ? &WL(wl)->podsets[ps] : NULL;
}

static const char *host_ps_name(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = podset_of(wl, ps);
    return s ? s->name : NULL;
}

static uint32_t host_ps_count(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = podset_of(wl, ps);
    return s ? s->count : 0;
}

/* Kueue: when a ClusterQueue covers "pods", every pod set requests one
 * "pods" per pod. It is shown to plugins as one more request. */
static bool counts_pods(const struct workload *w)
{
    int32_t id = resid_lookup(RESOURCE_PODS);
    for (uint32_t g = 0; w->cq && id >= 0 && g < w->cq->n_groups; g++)
        if (cq_group_res_index(&w->cq->groups[g], id) >= 0)
            return true;
    return false;
}

static uint32_t host_ps_n_requests(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = podset_of(wl, ps);
    return s ? s->n_req + counts_pods(WL(wl)) : 0;
}

static void host_ps_request(const struct ordo_workload *wl, uint32_t ps,
                            uint32_t i, ordo_resource_id *ret_id,
                            int64_t *ret_milli)
{
    const struct podset *s = podset_of(wl, ps);
    *ret_id = ORDO_RESOURCE_NONE;
    *ret_milli = 0;
    if (s && i < s->n_req) {
        *ret_id = s->req_ids[i];
        *ret_milli = s->req_milli[i];
    } else if (s && i == s->n_req && counts_pods(WL(wl))) {
        *ret_id = resid_lookup(RESOURCE_PODS);
        *ret_milli = 1000;
    }
}

static bool host_ps_matches_node(const struct ordo_workload *wl, uint32_t ps,
                                 const struct ordo_node *node)
{
    const struct podset *s = podset_of(wl, ps);
    const struct node *n = ND(node);
    return s && node_matches_pod(&s->spec->node_selector,
                                 s->spec->required_affinity,
                                 &n->obj->meta.labels, n->name);
}

static bool host_ps_tolerates_node(struct ordo_cycle *cy,
                                   const struct ordo_workload *wl, uint32_t ps,
                                   const struct ordo_node *node)
{
    const struct podset *s = podset_of(wl, ps);
    const struct node *n = ND(node);
    if (!s)
        return false;
    struct toleration tols[128];
    size_t k = 0;
    for (size_t i = 0; i < s->spec->n_tolerations && k < 128; i++)
        tols[k++] = s->spec->tolerations[i];
    /* The assigned flavors' tolerations, when deciding for this entry. */
    const struct workload *w = WL(wl);
    if (cy && cy->wl == w && cy->assign && w->cq) {
        for (uint32_t g = 0; g < w->cq->n_groups; g++) {
            const struct flavor *f = cy->assign[ps * w->cq->n_groups + g];
            if (!f || !f->obj)
                continue;
            const struct resource_flavor *rf = &f->obj->u.resource_flavor;
            for (size_t i = 0; i < rf->n_tolerations && k < 128; i++)
                tols[k++] = rf->tolerations[i];
        }
    }
    return !taints_find_untolerated(n->obj->u.node.taints,
                                    n->obj->u.node.n_taints, tols, k);
}

/* Why a pod set cannot use a flavor, in the order Kueue checks. */
enum flavor_mismatch {
    FLAVOR_MATCHES = 0,
    FLAVOR_NOT_FOUND, /* referenced, no ResourceFlavor object */
    FLAVOR_TAINT,     /* a nodeTaint the pod set does not tolerate */
    FLAVOR_AFFINITY   /* its nodeLabels fail the selector or affinity */
};

/* Kueue's flavor check (checkFlavorForPodSets): the pod set's tolerations
 * plus the flavor's must tolerate the flavor's NoSchedule/NoExecute
 * nodeTaints; its node selector and required affinity, restricted to the
 * label keys the flavor declares, must match the flavor's nodeLabels. */
static enum flavor_mismatch flavor_check(const struct podset *s,
                                         const struct flavor *fl,
                                         const struct taint **ret_taint)
{
    if (!fl->obj)
        return FLAVOR_NOT_FOUND;
    const struct resource_flavor *rf = &fl->obj->u.resource_flavor;
    size_t n_tols = s->spec->n_tolerations + rf->n_tolerations;
    struct toleration tols[64];
    if (n_tols > 64)
        n_tols = 64;
    size_t k = 0;
    for (size_t i = 0; i < s->spec->n_tolerations && k < n_tols; i++)
        tols[k++] = s->spec->tolerations[i];
    for (size_t i = 0; i < rf->n_tolerations && k < n_tols; i++)
        tols[k++] = rf->tolerations[i];
    const struct taint *t =
        taints_find_untolerated(rf->node_taints, rf->n_node_taints, tols, k);
    if (t) {
        if (ret_taint)
            *ret_taint = t;
        return FLAVOR_TAINT;
    }
    const struct strmap *labels = &rf->node_labels;
    for (size_t i = 0; i < s->spec->node_selector.n; i++) {
        const struct strmap_entry *e = &s->spec->node_selector.items[i];
        const char *v = strmap_get(labels, e->key);
        if (v && strcmp(v, e->value) != 0)
            return FLAVOR_AFFINITY;
    }
    const struct node_selector *aff = s->spec->required_affinity;
    if (aff && aff->n_terms) {
        bool any = false;
        for (size_t t2 = 0; t2 < aff->n_terms && !any; t2++) {
            const struct node_selector_term *term = &aff->terms[t2];
            bool ok = true;
            for (size_t r = 0; r < term->n_exprs && ok; r++) {
                const struct selector_requirement *req =
                    &term->match_expressions[r];
                if (strmap_has(labels, req->key))
                    ok = node_selector_requirement_matches(req, labels);
            }
            any = ok;
        }
        if (!any)
            return FLAVOR_AFFINITY;
    }
    return FLAVOR_MATCHES;
}

static bool host_ps_matches_flavor(const struct ordo_workload *wl, uint32_t ps,
                                   const struct ordo_flavor *f)
{
    const struct podset *s = podset_of(wl, ps);
    return s && flavor_check(s, FL(f), NULL) == FLAVOR_MATCHES;
}

static const char *host_ps_flavor_mismatch(const struct ordo_workload *wl,
                                           uint32_t ps,
                                           const struct ordo_flavor *f,
                                           char *buf, size_t size)
{
    const struct podset *s = podset_of(wl, ps);
    const struct taint *t = NULL;
    if (!s || !buf || size == 0)
        return NULL;
    const char *name = FL(f)->name;
    switch (flavor_check(s, FL(f), &t)) {
    case FLAVOR_MATCHES:
        return NULL;
    case FLAVOR_NOT_FOUND:
        snprintf(buf, size, "flavor %s not found", name);
        break;
    case FLAVOR_TAINT:
        /* corev1.Taint's String(): key=value:Effect, or key:Effect. */
        snprintf(buf, size, "untolerated taint %s%s%s:%s in flavor %s", t->key,
                 t->value[0] ? "=" : "", t->value,
                 taint_effect_to_string(t->effect), name);
        break;
    case FLAVOR_AFFINITY:
        snprintf(buf, size, "flavor %s doesn't match node affinity", name);
        break;
    }
    return buf;
}

static const char *host_cq_name(const struct ordo_cq *cq)
{
    return CQ(cq)->name;
}

static uint32_t host_cq_n_groups(const struct ordo_cq *cq)
{
    return CQ(cq)->n_groups;
}

static int32_t host_cq_group_of(const struct ordo_cq *cq, ordo_resource_id id)
{
    for (uint32_t g = 0; g < CQ(cq)->n_groups; g++)
        if (cq_group_res_index(&CQ(cq)->groups[g], id) >= 0)
            return (int32_t)g;
    return -1;
}

static uint32_t host_cq_group_n_flavors(const struct ordo_cq *cq, uint32_t g)
{
    return g < CQ(cq)->n_groups ? CQ(cq)->groups[g].n_flavors : 0;
}

static const struct ordo_flavor *host_cq_group_flavor(const struct ordo_cq *cq,
                                                      uint32_t g, uint32_t i)
{
    if (g >= CQ(cq)->n_groups || i >= CQ(cq)->groups[g].n_flavors)
        return NULL;
    return (const struct ordo_flavor *)CQ(cq)->groups[g].flavors[i];
}

/* Index into a group's [flavor][resource] arrays, or -1. */
static int fr_index(const struct cq *q, const struct flavor *f, int32_t id,
                    const struct cq_group **ret_group)
{
    for (uint32_t g = 0; g < q->n_groups; g++) {
        const struct cq_group *grp = &q->groups[g];
        int r = cq_group_res_index(grp, id);
        if (r < 0)
            continue;
        int fi = cq_group_flavor_index(grp, f);
        if (fi < 0)
            return -1;
        *ret_group = grp;
        return fi * (int)grp->n_res + r;
    }
    return -1;
}

static bool host_cq_nominal(const struct ordo_cq *cq,
                            const struct ordo_flavor *f, ordo_resource_id id,
                            int64_t *ret_milli)
{
    const struct cq_group *grp;
    int i = fr_index(CQ(cq), FL(f), id, &grp);
    if (i < 0)
        return false;
    *ret_milli = grp->nominal[i];
    return true;
}

static int64_t host_cq_usage(struct ordo_cycle *cy, const struct ordo_cq *cq,
                             const struct ordo_flavor *f, ordo_resource_id id)
{
    const struct cq_group *grp;
    int i = fr_index(CQ(cq), FL(f), id, &grp);
    return i < 0 ? 0 : grp->usage[i];
}

static const char *host_flavor_name(const struct ordo_flavor *f)
{
    return FL(f)->name;
}

static uint32_t host_n_nodes(struct ordo_cycle *cy)
{
    return cy ? cy->c->n_nodes : 0;
}

static const struct ordo_node *host_node_at(struct ordo_cycle *cy, uint32_t i)
{
    if (!cy || i >= cy->c->n_nodes)
        return NULL;
    return (const struct ordo_node *)cy->c->nodes_v[i];
}

static const char *host_node_name(const struct ordo_node *n)
{
    return ND(n)->name;
}

static const char *host_node_label(const struct ordo_node *n, const char *key)
{
    return strmap_get(&ND(n)->obj->meta.labels, key);
}

static bool host_node_schedulable(const struct ordo_node *n)
{
    const struct node *nd = ND(n);
    return !nd->obj->u.node.unschedulable && nd->obj->u.node.ready &&
           !nd->obj->meta.deleting;
}

static int64_t host_node_allocatable(const struct ordo_node *n,
                                     ordo_resource_id id)
{
    const struct node *nd = ND(n);
    return id >= 0 && id < nd->n_ids ? nd->alloc[id] : 0;
}

static int64_t host_node_free(struct ordo_cycle *cy, const struct ordo_node *n,
                              ordo_resource_id id)
{
    return node_free_capacity(ND(n), id);
}

static int host_assign_flavor(struct ordo_cycle *cy, uint32_t ps, uint32_t g,
                              const struct ordo_flavor *f)
{
    if (!cy || !cy->wl || !cy->wl->cq || ps >= cy->wl->n_podsets ||
        g >= cy->wl->cq->n_groups ||
        cq_group_flavor_index(&cy->wl->cq->groups[g], FL(f)) < 0)
        return -EINVAL;
    cy->assign[ps * cy->wl->cq->n_groups + g] = (struct flavor *)FL(f);
    return 0;
}

static void host_assign_borrowing(struct ordo_cycle *cy, uint32_t level)
{
    if (cy)
        cy->borrowing = level;
}

static const struct ordo_flavor *host_assigned_flavor(struct ordo_cycle *cy,
                                                      uint32_t ps,
                                                      ordo_resource_id id)
{
    if (!cy || !cy->wl || !cy->wl->cq || !cy->assign ||
        ps >= cy->wl->n_podsets)
        return NULL;
    int32_t g = host_cq_group_of((const struct ordo_cq *)cy->wl->cq, id);
    if (g < 0)
        return NULL;
    return (const struct ordo_flavor *)
        cy->assign[ps * cy->wl->cq->n_groups + (uint32_t)g];
}

static const char *host_flavor_node_label(const struct ordo_flavor *f,
                                          const char *key)
{
    return FL(f)->obj ? strmap_get(&FL(f)->obj->u.resource_flavor.node_labels,
                                   key)
                      : NULL;
}

static uint32_t host_flavor_n_node_labels(const struct ordo_flavor *f)
{
    return FL(f)->obj
               ? (uint32_t)FL(f)->obj->u.resource_flavor.node_labels.n
               : 0;
}

static void host_flavor_node_label_at(const struct ordo_flavor *f, uint32_t i,
                                      const char **ret_key,
                                      const char **ret_value)
{
    *ret_key = *ret_value = NULL;
    if (i < host_flavor_n_node_labels(f)) {
        const struct strmap_entry *e =
            &FL(f)->obj->u.resource_flavor.node_labels.items[i];
        *ret_key = e->key;
        *ret_value = e->value;
    }
}

/* FR index of (f, id) in q's tree, or -1 when q does not list it. */
static int cq_fr(const struct cq *q, const struct flavor *f, int32_t id)
{
    const struct cq_group *grp;
    if (!q->qnode || fr_index(q, f, id, &grp) < 0)
        return -1;
    return qtree_fr(q->qnode->tree, f, id);
}

static int64_t host_cq_available(struct ordo_cycle *cy,
                                 const struct ordo_cq *cq,
                                 const struct ordo_flavor *f,
                                 ordo_resource_id id)
{
    int i = cq_fr(CQ(cq), FL(f), id);
    return i < 0 ? 0 : qtree_available(CQ(cq)->qnode, i);
}

static int64_t host_cq_potential_available(struct ordo_cycle *cy,
                                           const struct ordo_cq *cq,
                                           const struct ordo_flavor *f,
                                           ordo_resource_id id)
{
    int i = cq_fr(CQ(cq), FL(f), id);
    return i < 0 ? 0 : qtree_potential_available(CQ(cq)->qnode, i);
}

static uint32_t host_cq_borrowing_level(struct ordo_cycle *cy,
                                        const struct ordo_cq *cq,
                                        const struct ordo_flavor *f,
                                        ordo_resource_id id, int64_t request)
{
    int i = cq_fr(CQ(cq), FL(f), id);
    if (i < 0)
        return 0;
    int level = qtree_borrowing_level(CQ(cq)->qnode, i, request);
    return level < 0 ? 0 : (uint32_t)level;
}

static bool host_cq_fits_below_root(const struct ordo_cq *cq,
                                    const struct ordo_flavor *f,
                                    ordo_resource_id id, int64_t request)
{
    int i = cq_fr(CQ(cq), FL(f), id);
    if (i < 0)
        return false;
    return CQ(cq)->qnode && qtree_fits_below_root(CQ(cq)->qnode, i, request);
}

static bool host_cq_has_cohort(const struct ordo_cq *cq)
{
    return CQ(cq)->obj->u.cluster_queue.cohort_name != NULL;
}

static uint32_t host_cq_fungibility(const struct ordo_cq *cq,
                                    enum ordo_fungibility_field field)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    switch (field) {
    case ORDO_WHEN_CAN_BORROW:
        return (uint32_t)spec->when_can_borrow;
    case ORDO_WHEN_CAN_PREEMPT:
        return (uint32_t)spec->when_can_preempt;
    case ORDO_PREFERENCE:
        return (uint32_t)spec->fungibility_preference;
    }
    return 0;
}

static uint32_t host_cq_preemption(const struct ordo_cq *cq,
                                   enum ordo_preemption_field field)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    switch (field) {
    case ORDO_WITHIN_CLUSTER_QUEUE:
        return (uint32_t)spec->within_cluster_queue;
    case ORDO_RECLAIM_WITHIN_COHORT:
        return (uint32_t)spec->reclaim_within_cohort;
    case ORDO_BORROW_WITHIN_COHORT:
        return (uint32_t)spec->borrow_within_cohort;
    }
    return 0;
}

static bool host_fair_sharing(struct ordo_cycle *cy)
{
    return cy && cy->s->config && cy->s->config->fair_sharing;
}

/* ---- preemption ---------------------------------------------------------- */

static const struct ordo_cq *host_wl_admitted_cq(const struct ordo_workload *wl)
{
    const struct workload *w = WL(wl);
    return w->state == WL_ADMITTED ? (const struct ordo_cq *)w->admitted_cq
                                   : NULL;
}

static int64_t host_wl_admitted_time(const struct ordo_workload *wl)
{
    return WL(wl)->admitted_ns;
}

static bool host_wl_evicting(const struct ordo_workload *wl)
{
    return WL(wl)->evicting;
}

static bool host_cq_same(const struct ordo_cq *a, const struct ordo_cq *b)
{
    return a == b;
}

static const struct qnode *lowest_common(const struct qnode *a,
                                         const struct qnode *b);

/* Kueue: a ClusterQueue other than the preemptor's may give quota back
 * only while it uses more than its nominal quota on a (flavor, resource)
 * that needs preemption, and so does every cohort between it and the
 * lowest common ancestor with the preemptor (over its subtree quota). */
static bool host_cq_over_nominal_for(struct ordo_cycle *cy,
                                     const struct ordo_cq *cq)
{
    const struct qnode *n = CQ(cq)->qnode;
    const int64_t *mask = cy ? (cy->short_fr ? cy->short_fr : cy->need)
                             : NULL;
    if (!mask || !n || !cy->wl || !cy->wl->cq || !cy->wl->cq->qnode)
        return false;
    const struct qnode *lca = lowest_common(n, cy->wl->cq->qnode);
    for (uint32_t i = 0; i < cy->c->tree.n_fr; i++) {
        if (mask[i] <= 0 || qnode_usage(n, (int)i) <= n->nominal[i])
            continue;
        bool all = true;
        for (const struct qnode *a = n->parent; a && a != lca && all;
             a = a->parent)
            all = qnode_usage(a, (int)i) > a->subtree[i];
        if (all)
            return true;
    }
    return false;
}

static bool host_preemptor_fits(struct ordo_cycle *cy, bool allow_borrowing)
{
    if (!cy || !cy->need || !cy->wl || !cy->wl->cq || !cy->wl->cq->qnode)
        return false;
    return qtree_first_short(cy->wl->cq->qnode, cy->need, allow_borrowing) < 0;
}

/* The ancestor of n directly under lca (n itself when its parent is lca). */
static const struct qnode *child_under(const struct qnode *n,
                                       const struct qnode *lca)
{
    for (int d = 0; n && n->parent != lca && d < 64; d++)
        n = n->parent;
    return n;
}

static const struct qnode *lowest_common(const struct qnode *a,
                                         const struct qnode *b)
{
    for (const struct qnode *x = a; x; x = x->parent)
        for (const struct qnode *y = b; y; y = y->parent)
            if (x == y)
                return x;
    return NULL;
}

/* The share, at the children of the lowest common ancestor of the
 * preemptor's ClusterQueue and target, of the preemptor's side (with its
 * workload added) or of the target's side. */
static int64_t share_at_lca(struct ordo_cycle *cy, const struct ordo_cq *target,
                            bool preemptor_side)
{
    if (!cy || !cy->wl || !cy->wl->cq->qnode || !CQ(target)->qnode)
        return 0;
    const struct qnode *p = cy->wl->cq->qnode, *t = CQ(target)->qnode;
    const struct qnode *lca = lowest_common(p, t);
    bool borrowing;
    if (!lca)
        return 0;
    const struct qnode *n = preemptor_side ? p : t;
    const struct qnode *side = n == lca ? n : child_under(n, lca);
    return qtree_weighted_share(&cy->c->tree, side,
                                preemptor_side ? cy->need : NULL, &borrowing);
}

static int64_t host_fs_preemptor_share(struct ordo_cycle *cy,
                                       const struct ordo_cq *target)
{
    return share_at_lca(cy, target, true);
}

static int64_t host_fs_target_share(struct ordo_cycle *cy,
                                    const struct ordo_cq *target)
{
    return share_at_lca(cy, target, false);
}

static uint32_t host_fs_strategies(struct ordo_cycle *cy, uint32_t ret[2])
{
    const struct sched_config *cfg = cy ? cy->s->config : NULL;
    if (!cfg) {
        ret[0] = 1;
        ret[1] = 2;
        return 2;
    }
    uint32_t n = (uint32_t)cfg->n_fs_strategies;
    for (uint32_t i = 0; i < n && i < 2; i++)
        ret[i] = cfg->fs_strategies[i];
    return n;
}

static bool host_cq_max_priority_threshold(const struct ordo_cq *cq,
                                           int32_t *ret)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    if (!spec->has_max_priority_threshold)
        return false;
    *ret = spec->max_priority_threshold;
    return true;
}

static const char *host_format_quantity(ordo_resource_id id, int64_t milli,
                                        char *buf, size_t size)
{
    const char *name = resid_name(id);
    bool binary = name && (strcmp(name, "memory") == 0 ||
                           strcmp(name, "ephemeral-storage") == 0 ||
                           strncmp(name, "hugepages-", 10) == 0);
    struct quantity q = {milli, binary ? QUANTITY_BINARY_SI
                                       : QUANTITY_DECIMAL_SI};
    if (!buf || size == 0)
        return "";
    if (quantity_format(&q, buf, size) < 0)
        snprintf(buf, size, "%lldm", (long long)milli);
    return buf;
}

struct candidate_query {
    struct ordo_cycle *cy;
    const struct workload *p;
    const struct cq *own;
    const struct cluster_queue *spec;
    const struct flavor *f;
    ordo_resource_id id;
    int fr;         /* index of (f, id) in the tree, or -1 */
    uint32_t found; /* ORDO_CANDIDATES_* seen so far */
    bool any;       /* the walk stops at the first candidate */
};

/* Whether q has an admitted workload that p may preempt on (f, id). */
static bool has_candidate(const struct candidate_query *k, struct cq *q)
{
    enum preemption_policy pol;
    if (q == k->own) {
        pol = k->spec->within_cluster_queue;
    } else {
        /* Other queues only while they use more than their nominal. */
        if (k->fr < 0 || !q->qnode ||
            qnode_usage(q->qnode, k->fr) <= q->qnode->nominal[k->fr])
            return false;
        pol = k->spec->reclaim_within_cohort;
    }
    for (uint32_t i = 0; i < q->n_admitted; i++) {
        const struct workload *w = q->admitted[i];
        if (w->state == WL_ADMITTED && !w->evicting && w->flavors &&
            w != k->p && preempt_policy_allows(pol, k->p, w) &&
            workload_uses_fr(w, k->f, k->id))
            return true;
    }
    return false;
}

/* qtree_any_cq callback: records where candidates are. */
static bool cq_has_candidate(struct cq *q, void *data)
{
    struct candidate_query *k = data;
    uint32_t bit = q == k->own ? ORDO_CANDIDATES_OWN : ORDO_CANDIDATES_COHORT;
    if (!(k->found & bit) && has_candidate(k, q))
        k->found |= bit;
    return k->any ? k->found != 0
                  : k->found == (ORDO_CANDIDATES_OWN | ORDO_CANDIDATES_COHORT);
}

static uint32_t candidate_queues(struct ordo_cycle *cy,
                                 const struct ordo_flavor *f,
                                 ordo_resource_id id, bool any)
{
    if (!cy || !cy->wl || !cy->wl->cq || !cy->wl->cq->qnode)
        return 0;
    struct candidate_query k = {
        .cy = cy,
        .p = cy->wl,
        .own = cy->wl->cq,
        .spec = &cy->wl->cq->obj->u.cluster_queue,
        .f = FL(f),
        .id = id,
        .fr = qtree_fr(&cy->c->tree, FL(f), id),
        .any = any,
    };
    qtree_any_cq(qtree_root(k.own->qnode), cq_has_candidate, &k);
    return k.found;
}

static bool host_preemption_candidates(struct ordo_cycle *cy,
                                       const struct ordo_flavor *f,
                                       ordo_resource_id id)
{
    return candidate_queues(cy, f, id, true) != 0;
}

static uint32_t host_preemption_candidate_queues(struct ordo_cycle *cy,
                                                 const struct ordo_flavor *f,
                                                 ordo_resource_id id)
{
    return candidate_queues(cy, f, id, false);
}

static bool host_preemptor_advantage(struct ordo_cycle *cy,
                                     const struct ordo_cq *target)
{
    if (!cy || !cy->need || !cy->wl || !cy->wl->cq || !cy->wl->cq->qnode ||
        !CQ(target)->qnode)
        return false;
    const struct qnode *p = cy->wl->cq->qnode;
    const struct qnode *lca = lowest_common(p, CQ(target)->qnode);
    if (!lca || lca == p)
        return false;
    /* Kueue (collectCandidatesForHierarchicalReclaim): the preemptor has
     * the advantage over the subtrees hanging off its path above the
     * lowest node where its whole request fits in quota: its own
     * ClusterQueue, or any cohort up to the one below the common one. */
    const struct qnode *side = child_under(p, lca);
    for (const struct qnode *n = p; n; n = n->parent) {
        bool any = false, fits = true;
        for (uint32_t i = 0; i < cy->c->tree.n_fr && fits; i++) {
            if (cy->need[i] <= 0)
                continue;
            any = true;
            int64_t reach = qtree_usage_reaching(p, n, (int)i, cy->need[i]);
            fits = reach <= n->subtree[i] - qnode_usage(n, (int)i);
        }
        if (!any)
            return false;
        if (fits)
            return true;
        if (n == side)
            break;
    }
    return false;
}

static int64_t host_fs_next_target(struct ordo_cycle *cy,
                                   const struct ordo_cq *const *cqs,
                                   const int64_t *rank, uint32_t n)
{
    if (!cy || !cy->need || !cy->wl || !cy->wl->cq || !cqs || !rank || !n)
        return -1;
    const struct qnode **nodes = arena_calloc(cy->scratch, n, sizeof(*nodes));
    if (!nodes)
        return -1;
    for (uint32_t k = 0; k < n; k++)
        nodes[k] = cqs[k] ? CQ(cqs[k])->qnode : NULL;
    return qtree_fs_next_target(cy->wl->cq->qnode, cy->need, nodes, rank, n);
}

static const struct ordo_host host = {
    .abi_major = ORDO_ABI_MAJOR,
    .abi_minor = ORDO_ABI_MINOR,
    .struct_size = sizeof(struct ordo_host),
    .log = host_log,
    .alloc = host_alloc,
    .free = host_free,
    .cycle_alloc = host_cycle_alloc,
    .reason = host_reason,
    .config_int = host_config_int,
    .config_string = host_config_string,
    .resource_id = host_resource_id,
    .resource_name = host_resource_name,
    .wl_name = host_wl_name,
    .wl_priority = host_wl_priority,
    .wl_queue_time = host_wl_queue_time,
    .wl_cq = host_wl_cq,
    .wl_n_podsets = host_wl_n_podsets,
    .ps_name = host_ps_name,
    .ps_count = host_ps_count,
    .ps_n_requests = host_ps_n_requests,
    .ps_request = host_ps_request,
    .ps_matches_node = host_ps_matches_node,
    .ps_tolerates_node = host_ps_tolerates_node,
    .ps_matches_flavor = host_ps_matches_flavor,
    .cq_name = host_cq_name,
    .cq_n_groups = host_cq_n_groups,
    .cq_group_of = host_cq_group_of,
    .cq_group_n_flavors = host_cq_group_n_flavors,
    .cq_group_flavor = host_cq_group_flavor,
    .cq_nominal = host_cq_nominal,
    .cq_usage = host_cq_usage,
    .flavor_name = host_flavor_name,
    .n_nodes = host_n_nodes,
    .node_at = host_node_at,
    .node_name = host_node_name,
    .node_label = host_node_label,
    .node_schedulable = host_node_schedulable,
    .node_allocatable = host_node_allocatable,
    .node_free = host_node_free,
    .assign_flavor = host_assign_flavor,
    .assign_borrowing = host_assign_borrowing,
    .assigned_flavor = host_assigned_flavor,
    .flavor_node_label = host_flavor_node_label,
    .flavor_n_node_labels = host_flavor_n_node_labels,
    .flavor_node_label_at = host_flavor_node_label_at,
    .cq_available = host_cq_available,
    .cq_potential_available = host_cq_potential_available,
    .cq_borrowing_level = host_cq_borrowing_level,
    .cq_fits_below_root = host_cq_fits_below_root,
    .cq_has_cohort = host_cq_has_cohort,
    .cq_fungibility = host_cq_fungibility,
    .cq_preemption = host_cq_preemption,
    .fair_sharing = host_fair_sharing,
    .wl_admitted_cq = host_wl_admitted_cq,
    .wl_admitted_time = host_wl_admitted_time,
    .wl_evicting = host_wl_evicting,
    .cq_same = host_cq_same,
    .cq_over_nominal_for = host_cq_over_nominal_for,
    .whatif_remove = preempt_whatif_remove, /* preempt_check.c */
    .whatif_restore = preempt_whatif_restore,
    .preemptor_fits = host_preemptor_fits,
    .fs_preemptor_share = host_fs_preemptor_share,
    .fs_target_share = host_fs_target_share,
    .fs_strategies = host_fs_strategies,
    .cq_max_priority_threshold = host_cq_max_priority_threshold,
    .format_quantity = host_format_quantity,
    .preemption_candidates = host_preemption_candidates,
    .preemptor_advantage = host_preemptor_advantage,
    .fs_next_target = host_fs_next_target,
    .preemption_candidate_queues = host_preemption_candidate_queues,
    .ps_flavor_mismatch = host_ps_flavor_mismatch,
};

const struct ordo_host *host_table(void)
{
    return &host;
}
