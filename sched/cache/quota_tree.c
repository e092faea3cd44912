/* quota_tree.c - ClusterQueues and cohorts as one quota tree, with Kueue's
 * arithmetic (see quota_tree.h). */
#include "qtree_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "grow.h"
#include "resid.h"
#include "qtree_math.h"
#include "satmath.h"

/* ---- building ------------------------------------------------------------------- */

int qtree_fr(const struct qtree *t, const struct flavor *f, int32_t res)
{
    for (uint32_t i = 0; i < t->n_fr; i++)
        if (t->frs[i].flavor == f && t->frs[i].res == res)
            return (int)i;
    return -1;
}

static int fr_intern(struct qtree *t, const struct flavor *f, int32_t res)
{
    int i = qtree_fr(t, f, res);
    if (i >= 0)
        return i;
    if (GROW_ARRAY(t->frs, t->n_fr, t->cap_fr) < 0)
        return -ENOMEM;
    t->frs[t->n_fr] = (struct fr_key){f, res};
    return (int)t->n_fr++;
}

static void qnode_free(struct qnode *n)
{
    if (!n)
        return;
    free(n->name);
    free(n->children);
    free(n->nominal);
    free(n->borrowing_limit);
    free(n->lending_limit);
    free(n->subtree);
    free(n->baseline);
    free(n->usage);
    free(n);
}

void qtree_release(struct qtree *t)
{
    struct qnode *n, *tmp;
    HASH_ITER(hh, t->cohorts, n, tmp)
    {
        HASH_DEL(t->cohorts, n);
        qnode_free(n);
    }
    for (uint32_t i = 0; i < t->n_cq; i++) {
        if (t->cq_nodes[i] && t->cq_nodes[i]->cq)
            t->cq_nodes[i]->cq->qnode = NULL;
        qnode_free(t->cq_nodes[i]);
    }
    free(t->cq_nodes);
    free(t->frs);
    memset(t, 0, sizeof(*t));
}

static struct qnode *qnode_new(const struct qtree *t, const char *name)
{
    uint32_t n_fr = t->n_fr;
    struct qnode *n = calloc(1, sizeof(*n));
    if (!n)
        return NULL;
    n->tree = t;
    size_t sz = (n_fr ? n_fr : 1) * sizeof(int64_t);
    n->name = strdup(name);
    n->nominal = calloc(1, sz);
    n->borrowing_limit = malloc(sz);
    n->lending_limit = malloc(sz);
    n->subtree = calloc(1, sz);
    n->baseline = calloc(1, sz);
    n->usage = calloc(1, sz);
    n->weight_milli = 1000;
    if (!n->name || !n->nominal || !n->borrowing_limit || !n->lending_limit ||
        !n->subtree || !n->usage || !n->baseline) {
        qnode_free(n);
        return NULL;
    }
    for (uint32_t i = 0; i < n_fr; i++)
        n->borrowing_limit[i] = n->lending_limit[i] = QUOTA_UNSET;
    return n;
}

static struct qnode *cohort_get(struct qtree *t, const char *name)
{
    struct qnode *n = NULL;
    HASH_FIND_STR(t->cohorts, name, n);
    if (n)
        return n;
    n = qnode_new(t, name);
    if (n)
        HASH_ADD_KEYPTR(hh, t->cohorts, n->name, strlen(n->name), n);
    return n;
}

static int add_child(struct qnode *parent, struct qnode *child)
{
    if (GROW_ARRAY(parent->children, parent->n_children,
                   parent->cap_children) < 0)
        return -ENOMEM;
    parent->children[parent->n_children++] = child;
    child->parent = parent;
    return 0;
}

/* Fills quota arrays of n from resource groups (CQ or Cohort spec). */
static int set_quotas(struct qtree *t, const struct flavor *flavors,
                      struct qnode *n, const struct resource_group *groups,
                      size_t n_groups)
{
    for (size_t g = 0; g < n_groups; g++) {
        const struct resource_group *rg = &groups[g];
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor *fl = NULL;
            HASH_FIND_STR(flavors, rg->flavors[f].name, fl);
            for (size_t r = 0; fl && r < rg->flavors[f].n_resources; r++) {
                const struct resource_quota *q = &rg->flavors[f].resources[r];
                int i = qtree_fr(t, fl, resid_lookup(q->name));
                if (i < 0)
                    continue;
                n->nominal[i] = q->nominal_quota;
                n->borrowing_limit[i] =
                    q->has_borrowing_limit ? q->borrowing_limit : QUOTA_UNSET;
                n->lending_limit[i] =
                    q->has_lending_limit ? q->lending_limit : QUOTA_UNSET;
            }
        }
    }
    return 0;
}

/* Interns every FR that a ClusterQueue or Cohort lists. */
static int collect_frs(struct qtree *t, const struct flavor *flavors,
                       const struct resource_group *groups, size_t n_groups)
{
    for (size_t g = 0; g < n_groups; g++) {
        const struct resource_group *rg = &groups[g];
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor *fl = NULL;
            HASH_FIND_STR(flavors, rg->flavors[f].name, fl);
            for (size_t r = 0; fl && r < rg->n_covered; r++) {
                int32_t id = resid_intern(rg->covered_resources[r]);
                if (id < 0 || fr_intern(t, fl, id) < 0)
                    return -ENOMEM;
            }
        }
    }
    return 0;
}

int64_t qnode_local_quota(const struct qnode *n, int i)
{
    if (n->lending_limit[i] == QUOTA_UNSET)
        return 0;
    return max64(0, sat_sub(n->subtree[i], n->lending_limit[i]));
}

/* Subtree quotas and heights, bottom up. Nodes in a cycle are skipped. */
static void compute_subtree(struct qtree *t, struct qnode *n, int depth)
{
    if (depth > 64 || n->in_cycle)
        return;
    n->height = 0;
    for (uint32_t i = 0; i < t->n_fr; i++)
        n->subtree[i] = n->nominal[i];
    for (uint32_t k = 0; k < n->n_children; k++) {
        struct qnode *ch = n->children[k];
        compute_subtree(t, ch, depth + 1);
        if (ch->height + 1 > n->height)
            n->height = ch->height + 1;
        for (uint32_t i = 0; i < t->n_fr; i++)
            n->subtree[i] = sat_add(
                n->subtree[i], sat_sub(ch->subtree[i], qnode_local_quota(ch, (int)i)));
    }
    if (!n->cq && n->height == 0)
        n->height = 1; /* an empty cohort */
}

/* Marks nodes whose parent chain loops, and reports the loop on the CQs
 * below it. */
static void detect_cycles(struct qtree *t)
{
    struct qnode *n, *tmp;
    HASH_ITER(hh, t->cohorts, n, tmp)
    {
        const struct qnode *slow = n, *fast = n;
        while (fast && fast->parent) {
            slow = slow->parent;
            fast = fast->parent->parent;
            if (slow == fast) {
                n->in_cycle = true;
                break;
            }
        }
    }
}

static bool under_cycle(const struct qnode *n, char *path, size_t size)
{
    size_t len = 0;
    for (int depth = 0; n && depth < 64; depth++, n = n->parent) {
        if (n->in_cycle) {
            const struct qnode *m = n;
            path[0] = '\0';
            for (int k = 0; k < 8 && m; k++, m = m->parent) {
                int w = snprintf(path + len, size - len, "%s%s",
                                 k ? " -> " : "", m->name);
                if (w < 0 || (size_t)w >= size - len)
                    break;
                len += (size_t)w;
            }
            return true;
        }
    }
    return false;
}

int qtree_build(struct qtree *t, struct cq *const *cqs, uint32_t n_cqs,
                const struct obj_entry *cohorts, const struct flavor *flavors)
{
    qtree_release(t);
    const struct obj_entry *e, *etmp;
    /* FRs first: node arrays are sized by their number. */
    for (uint32_t i = 0; i < n_cqs; i++) {
        const struct cluster_queue *spec = &cqs[i]->obj->u.cluster_queue;
        if (collect_frs(t, flavors, spec->resource_groups,
                        spec->n_resource_groups))
            return -ENOMEM;
    }
    HASH_ITER(hh, cohorts, e, etmp)
    {
        const struct cohort *co = &e->obj->u.cohort;
        if (collect_frs(t, flavors, co->resource_groups, co->n_resource_groups))
            return -ENOMEM;
    }
    /* Cohorts: defined by objects, or only named. */
    HASH_ITER(hh, cohorts, e, etmp)
    {
        const struct cohort *co = &e->obj->u.cohort;
        struct qnode *n = cohort_get(t, e->obj->meta.name);
        if (!n)
            return -ENOMEM;
        n->exists = true;
        n->weight_milli = co->fair_sharing_weight_milli;
        set_quotas(t, flavors, n, co->resource_groups, co->n_resource_groups);
        if (co->parent_name) {
            struct qnode *p = cohort_get(t, co->parent_name);
            if (!p || add_child(p, n) < 0)
                return -ENOMEM;
        }
    }
    t->cq_nodes = calloc(n_cqs ? n_cqs : 1, sizeof(*t->cq_nodes));
    if (!t->cq_nodes)
        return -ENOMEM;
    t->n_cq = n_cqs;
    for (uint32_t i = 0; i < n_cqs; i++) {
        struct cq *q = cqs[i];
        const struct cluster_queue *spec = &q->obj->u.cluster_queue;
        struct qnode *n = qnode_new(t, q->name);
        if (!n)
            return -ENOMEM;
        t->cq_nodes[i] = n;
        n->cq = q;
        n->weight_milli = spec->fair_sharing_weight_milli;
        q->qnode = n;
        set_quotas(t, flavors, n, spec->resource_groups,
                   spec->n_resource_groups);
        if (spec->cohort_name) {
            struct qnode *p = cohort_get(t, spec->cohort_name);
            if (!p || add_child(p, n) < 0)
                return -ENOMEM;
        }
    }
    detect_cycles(t);
    struct qnode *n, *tmp;
    HASH_ITER(hh, t->cohorts, n, tmp)
    if (!n->parent)
        compute_subtree(t, n, 0);
    for (uint32_t i = 0; i < t->n_cq; i++) {
        struct qnode *cn = t->cq_nodes[i];
        char path[256];
        if (!cn->parent)
            compute_subtree(t, cn, 0);
        if (under_cycle(cn, path, sizeof(path)) && cn->cq->active) {
            cn->cq->active = false;
            snprintf(cn->cq->inactive_reason,
                     sizeof(cn->cq->inactive_reason),
                     "cohort %s has a cycle in its parents (%s ...)",
                     cn->parent ? cn->parent->name : cn->name, path);
        }
    }
    return 0;
}

/* ---- usage ----------------------------------------------------------------------- */

const struct qnode *qtree_root(const struct qnode *n)
{
    for (int d = 0; n && n->parent && d < 64; d++)
        n = n->parent;
    return n;
}

static bool any_cq(const struct qnode *n, int depth,
                   bool (*fn)(struct cq *q, void *data), void *data)
{
    if (!n || n->in_cycle || depth > 64)
        return false;
    if (n->cq)
        return fn(n->cq, data);
    for (uint32_t i = 0; i < n->n_children; i++)
        if (any_cq(n->children[i], depth + 1, fn, data))
            return true;
    return false;
}

bool qtree_any_cq(const struct qnode *n, bool (*fn)(struct cq *q, void *data),
                  void *data)
{
    return any_cq(n, 0, fn, data);
}

/* The slot of FR i in a CQ's groups: usage[g][idx]. */
static int64_t *cq_usage_slot(const struct qnode *n, int i)
{
    const struct qtree *t = n->tree;
    const struct cq *q = n->cq;
    const struct fr_key *k = &t->frs[i];
    for (uint32_t g = 0; g < q->n_groups; g++) {
        int r = cq_group_res_index(&q->groups[g], k->res);
        if (r < 0)
            continue;
        int f = cq_group_flavor_index(&q->groups[g], k->flavor);
        if (f < 0)
            return NULL;
        return &q->groups[g].usage[(uint32_t)f * q->groups[g].n_res + (uint32_t)r];
    }
    return NULL;
}

void qtree_mark_baseline(struct qtree *t)
{
    struct qnode *n, *tmp;
    HASH_ITER(hh, t->cohorts, n, tmp)
    for (uint32_t i = 0; i < t->n_fr; i++)
        n->baseline[i] = qnode_usage(n, (int)i);
    for (uint32_t k = 0; k < t->n_cq; k++)
        for (uint32_t i = 0; t->cq_nodes[k] && i < t->n_fr; i++)
            t->cq_nodes[k]->baseline[i] = qnode_usage(t->cq_nodes[k], (int)i);
}

int64_t qnode_usage(const struct qnode *n, int i)
{
    if (!n->cq)
        return n->usage[i];
    int64_t *slot = cq_usage_slot(n, i);
    return slot ? *slot : n->usage[i];
}

static void set_usage(struct qnode *n, int i, int64_t v)
{
    if (!n->cq) {
        n->usage[i] = v;
        return;
    }
    int64_t *slot = cq_usage_slot(n, i);
    if (slot)
        *slot = v;
    else
        n->usage[i] = v;
}

void qtree_add_usage(struct qnode *n, int i, int64_t val)
{
    for (int depth = 0; n && val != 0 && depth < 64; depth++) {
        int64_t usage = qnode_usage(n, i), lq = qnode_local_quota(n, i);
        int64_t pass;
        if (val > 0) {
            pass = max64(0, sat_sub(val, max64(0, sat_sub(lq, usage))));
        } else {
            int64_t stored = sat_sub(usage, lq);
            pass = stored > 0 ? -min64(-val, stored) : 0;
        }
        /* Usage is a count, not a quota: exact, never infinite (the fit
         * checks keep it below SAT_MAX; see headroom). */
        set_usage(n, i, sat_add64(usage, val));
        if (n->in_cycle)
            return;
        n = n->parent;
        val = pass;
    }
}

/* ---- Available, PotentialAvailable, borrowing ---------------------------- */

/* Kueue's Available of node n for FR i, and in *ret_room how much n's
 * usage may grow by before a node on its path (where qtree_add_usage would
 * carry it) reaches SAT_MAX: huge quotas saturate to QUOTA_INF, but usage
 * is a count and must stay countable. One walk for both. */
static int64_t available(const struct qnode *n, int i, int depth,
                         int64_t *ret_room)
{
    int64_t usage = qnode_usage(n, i);
    int64_t own = sat_sub64(SAT_MAX - 1, max64(0, usage));
    int64_t lq = qnode_local_quota(n, i);
    int64_t local_avail = max64(0, sat_sub(lq, usage));
    if (!n->parent || depth > 64 || n->parent->in_cycle) {
        *ret_room = own;
        if (n->parent && depth <= 64 && !n->in_cycle) {
            int64_t pu = max64(0, qnode_usage(n->parent, i));
            *ret_room = min64(own, sat_add64(local_avail,
                                             sat_sub64(SAT_MAX - 1, pu)));
        }
        return sat_sub(n->subtree[i], usage);
    }
    int64_t parent_room;
    int64_t from_parent = available(n->parent, i, depth + 1, &parent_room);
    *ret_room = min64(own, sat_add64(local_avail, parent_room));
    if (n->borrowing_limit[i] != QUOTA_UNSET) {
        int64_t cap = sat_add(sat_sub(sat_sub(n->subtree[i], lq),
                                      max64(0, sat_sub(usage, lq))),
                              n->borrowing_limit[i]);
        from_parent = min64(from_parent, cap);
    }
    return sat_add(local_avail, from_parent);
}

int64_t qtree_headroom(const struct qnode *n, int i)
{
    int64_t room;
    available(n, i, 0, &room);
    return max64(0, room);
}

int64_t qtree_available(const struct qnode *n, int i)
{
    int64_t room;
    int64_t v = available(n, i, 0, &room);
    return max64(0, min64(v, room));
}

int qtree_first_short(const struct qnode *n, const int64_t *need,
                      bool allow_borrowing)
{
    for (uint32_t i = 0; i < n->tree->n_fr; i++) {
        if (need[i] <= 0)
            continue;
        if (!sat_fits(need[i], qtree_available(n, (int)i)) ||
            (!allow_borrowing &&
             sat_add64(qnode_usage(n, (int)i), need[i]) > n->nominal[i]))
            return (int)i;
    }
    return -1;
}

static int64_t potential(const struct qnode *n, int i, int depth)
{
    if (!n->parent || depth > 64 || n->parent->in_cycle)
        return n->subtree[i];
    int64_t v = sat_add(qnode_local_quota(n, i), potential(n->parent, i, depth + 1));
    if (n->borrowing_limit[i] != QUOTA_UNSET)
        v = min64(v, sat_add(n->subtree[i], n->borrowing_limit[i]));
    return v;
}

int64_t qtree_potential_available(const struct qnode *n, int i)
{
    return potential(n, i, 0);
}

/* Kueue's FindHeightOfLowestSubtreeThatFits: the lowest node on n's path
 * whose subtree holds val more of FR i (n itself when it stays within
 * nominal quota, or has no cohort), or NULL when none does; *ret_level is
 * its height (the root's when none). */
static const struct qnode *lowest_fit(const struct qnode *n, int i,
                                      int64_t val, int *ret_level)
{
    int64_t usage = qnode_usage(n, i);
    *ret_level = 0;
    if (!n->parent || sat_add(usage, val) <= n->nominal[i])
        return n;
    int64_t remaining = sat_sub(val, max64(0, sat_sub(qnode_local_quota(n, i), usage)));
    const struct qnode *a = n->parent;
    for (int depth = 0; a && depth < 64; depth++, a = a->parent) {
        *ret_level = a->height;
        if (a->subtree[i] >= sat_add(qnode_usage(a, i), remaining))
            return a;
        remaining = sat_sub(remaining, max64(0, sat_sub(qnode_local_quota(a, i),
                                                        qnode_usage(a, i))));
    }
    return NULL;
}

int qtree_borrowing_level(const struct qnode *n, int i, int64_t val)
{
    int level;
    lowest_fit(n, i, val, &level);
    return level;
}

bool qtree_fits_below_root(const struct qnode *n, int i, int64_t val)
{
    int level;
    const struct qnode *a = lowest_fit(n, i, val, &level);
    return a && a->parent;
}
