/* host_kueue.c - the Kueue-specific computations of the host table
 * (host_table.c assembles it): Kueue's flavor check for a pod set; quota
 * over the cohort tree (Available, PotentialAvailable, borrowing level,
 * fitting below the root); and for PREEMPT plugins, which ClusterQueues
 * may give quota back, the preemptor's fit, preemption candidates,
 * hierarchical advantage, fair-sharing shares and the target walk.
 * Everything reads the cycle's snapshot; nothing here writes it. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "host_kueue.h"
#include "labels.h"
#include "workload.h"

/* ---- pod sets and flavors ------------------------------------------------ */

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

bool host_ps_matches_flavor(const struct ordo_workload *wl, uint32_t ps,
                            const struct ordo_flavor *f)
{
    const struct podset *s = host_podset(wl, ps);
    return s && flavor_check(s, FL(f), NULL) == FLAVOR_MATCHES;
}

const char *host_ps_flavor_mismatch(const struct ordo_workload *wl, uint32_t ps,
                                    const struct ordo_flavor *f, char *buf,
                                    size_t size)
{
    const struct podset *s = host_podset(wl, ps);
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

/* ---- quota over the cohort tree ------------------------------------------ */

int host_cq_slot(const struct cq *cq, const struct flavor *f, int32_t id,
                 const struct cq_group **ret_group)
{
    for (uint32_t g = 0; g < cq->n_groups; g++) {
        const struct cq_group *grp = &cq->groups[g];
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

/* FR index of (f, id) in cq's tree, or -1 when cq does not list it. */
static int tree_fr(const struct cq *cq, const struct flavor *f, int32_t id)
{
    const struct cq_group *grp;
    if (!cq->qnode || host_cq_slot(cq, f, id, &grp) < 0)
        return -1;
    return qtree_fr(cq->qnode->tree, f, id);
}

int64_t host_cq_available(struct ordo_cycle *cy, const struct ordo_cq *cq,
                          const struct ordo_flavor *f, ordo_resource_id id)
{
    int i = tree_fr(CQ(cq), FL(f), id);
    return i < 0 ? 0 : qtree_available(CQ(cq)->qnode, i);
}

int64_t host_cq_potential_available(struct ordo_cycle *cy,
                                    const struct ordo_cq *cq,
                                    const struct ordo_flavor *f,
                                    ordo_resource_id id)
{
    int i = tree_fr(CQ(cq), FL(f), id);
    return i < 0 ? 0 : qtree_potential_available(CQ(cq)->qnode, i);
}

uint32_t host_cq_borrowing_level(struct ordo_cycle *cy,
                                 const struct ordo_cq *cq,
                                 const struct ordo_flavor *f,
                                 ordo_resource_id id, int64_t request)
{
    int i = tree_fr(CQ(cq), FL(f), id);
    if (i < 0)
        return 0;
    int level = qtree_borrowing_level(CQ(cq)->qnode, i, request);
    return level < 0 ? 0 : (uint32_t)level;
}

bool host_cq_fits_below_root(const struct ordo_cq *cq,
                             const struct ordo_flavor *f, ordo_resource_id id,
                             int64_t request)
{
    int i = tree_fr(CQ(cq), FL(f), id);
    if (i < 0)
        return false;
    return CQ(cq)->qnode && qtree_fits_below_root(CQ(cq)->qnode, i, request);
}

/* ---- preemption ---------------------------------------------------------- */

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

int64_t host_fs_preemptor_share(struct ordo_cycle *cy,
                                const struct ordo_cq *target)
{
    return share_at_lca(cy, target, true);
}

int64_t host_fs_target_share(struct ordo_cycle *cy,
                             const struct ordo_cq *target)
{
    return share_at_lca(cy, target, false);
}

/* Kueue: a ClusterQueue other than the preemptor's may give quota back
 * only while it uses more than its nominal quota on a (flavor, resource)
 * that needs preemption, and so does every cohort between it and the
 * lowest common ancestor with the preemptor (over its subtree quota). */
bool host_cq_over_nominal_for(struct ordo_cycle *cy, const struct ordo_cq *cq)
{
    const struct qnode *n = CQ(cq)->qnode;
    const int64_t *mask = cy ? (cy->short_fr ? cy->short_fr : cy->need) : NULL;
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

bool host_preemptor_fits(struct ordo_cycle *cy, bool allow_borrowing)
{
    if (!cy || !cy->need || !cy->wl || !cy->wl->cq || !cy->wl->cq->qnode)
        return false;
    return qtree_first_short(cy->wl->cq->qnode, cy->need, allow_borrowing) < 0;
}

/* Kueue's preemption policy predicate (withinClusterQueue,
 * reclaimWithinCohort values): whether preemptor p may preempt v. */
bool host_policy_allows(enum preemption_policy pol, const struct workload *p,
                        const struct workload *v)
{
    switch (pol) {
    case PREEMPTION_LOWER_PRIORITY:
        return v->priority < p->priority;
    case PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return v->priority < p->priority ||
               (v->priority == p->priority && p->queue_ns < v->queue_ns);
    case PREEMPTION_ANY:
        return true;
    default:
        return false;
    }
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

/* Whether cq has an admitted workload that p may preempt on (f, id). */
static bool has_candidate(const struct candidate_query *k, struct cq *cq)
{
    enum preemption_policy pol;
    if (cq == k->own) {
        pol = k->spec->within_cluster_queue;
    } else {
        /* Other ClusterQueues only while they use more than their nominal. */
        if (k->fr < 0 || !cq->qnode ||
            qnode_usage(cq->qnode, k->fr) <= cq->qnode->nominal[k->fr])
            return false;
        pol = k->spec->reclaim_within_cohort;
    }
    for (uint32_t i = 0; i < cq->n_admitted; i++) {
        const struct workload *w = cq->admitted[i];
        if (w->state == WL_ADMITTED && !w->evicting && w->flavors &&
            w != k->p && host_policy_allows(pol, k->p, w) &&
            workload_uses_fr(w, k->f, k->id))
            return true;
    }
    return false;
}

/* qtree_any_cq callback: records where candidates are. */
static bool cq_has_candidate(struct cq *cq, void *data)
{
    struct candidate_query *k = data;
    uint32_t bit = cq == k->own ? ORDO_CANDIDATES_OWN : ORDO_CANDIDATES_COHORT;
    if (!(k->found & bit) && has_candidate(k, cq))
        k->found |= bit;
    return k->any ? k->found != 0
                  : k->found == (ORDO_CANDIDATES_OWN | ORDO_CANDIDATES_COHORT);
}

static uint32_t candidate_cqs(struct ordo_cycle *cy,
                              const struct ordo_flavor *f, ordo_resource_id id,
                              bool any)
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

bool host_preemption_candidates(struct ordo_cycle *cy,
                                const struct ordo_flavor *f,
                                ordo_resource_id id)
{
    return candidate_cqs(cy, f, id, true) != 0;
}

uint32_t host_preemption_candidate_queues(struct ordo_cycle *cy,
                                          const struct ordo_flavor *f,
                                          ordo_resource_id id)
{
    return candidate_cqs(cy, f, id, false);
}

bool host_preemptor_advantage(struct ordo_cycle *cy,
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

int64_t host_fs_next_target(struct ordo_cycle *cy,
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
