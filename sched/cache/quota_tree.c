/* quota_tree.c - ClusterQueues and cohorts as one quota tree, with Kueue's
 * arithmetic (see quota_tree.h). */
#include "quota_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "resid.h"
#include "satmath.h"

/* ---- saturating arithmetic: QUOTA_INF stays infinite ---------------------- */

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (a == QUOTA_INF || b == QUOTA_INF)
        return QUOTA_INF;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? QUOTA_INF : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (a == QUOTA_INF)
        return QUOTA_INF;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? QUOTA_INF : INT64_MIN;
    return r;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

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
    if (t->n_fr == t->cap_fr) {
        uint32_t cap = t->cap_fr ? t->cap_fr * 2 : 16;
        struct fr_key *v = realloc(t->frs, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        t->frs = v;
        t->cap_fr = cap;
    }
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
    if (parent->n_children == parent->cap_children) {
        uint32_t cap = parent->cap_children ? parent->cap_children * 2 : 4;
        struct qnode **v = realloc(parent->children, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        parent->children = v;
        parent->cap_children = cap;
    }
    parent->children[parent->n_children++] = child;
    child->parent = parent;
    return 0;
}

/* Fills quota arrays of n from resource groups (CQ or Cohort spec). */
static int set_quotas(struct qtree *t, struct cluster *c, struct qnode *n,
                      const struct resource_group *groups, size_t n_groups)
{
    for (size_t g = 0; g < n_groups; g++) {
        const struct resource_group *rg = &groups[g];
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor *fl = cluster_flavor(c, rg->flavors[f].name);
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
static int collect_frs(struct qtree *t, struct cluster *c,
                       const struct resource_group *groups, size_t n_groups)
{
    for (size_t g = 0; g < n_groups; g++) {
        const struct resource_group *rg = &groups[g];
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor *fl = cluster_flavor(c, rg->flavors[f].name);
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

int qtree_build(struct qtree *t, struct cluster *c)
{
    qtree_release(t);
    struct obj_entry *e, *etmp;
    /* FRs first: node arrays are sized by their number. */
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        const struct cluster_queue *spec = &c->cqs_v[i]->obj->u.cluster_queue;
        if (collect_frs(t, c, spec->resource_groups, spec->n_resource_groups))
            return -ENOMEM;
    }
    HASH_ITER(hh, c->cohorts, e, etmp)
    {
        const struct cohort *co = &e->obj->u.cohort;
        if (collect_frs(t, c, co->resource_groups, co->n_resource_groups))
            return -ENOMEM;
    }
    /* Cohorts: defined by objects, or only named. */
    HASH_ITER(hh, c->cohorts, e, etmp)
    {
        const struct cohort *co = &e->obj->u.cohort;
        struct qnode *n = cohort_get(t, e->obj->meta.name);
        if (!n)
            return -ENOMEM;
        n->exists = true;
        n->weight_milli = co->fair_sharing_weight_milli;
        set_quotas(t, c, n, co->resource_groups, co->n_resource_groups);
        if (co->parent_name) {
            struct qnode *p = cohort_get(t, co->parent_name);
            if (!p || add_child(p, n) < 0)
                return -ENOMEM;
        }
    }
    t->cq_nodes = calloc(c->n_cqs ? c->n_cqs : 1, sizeof(*t->cq_nodes));
    if (!t->cq_nodes)
        return -ENOMEM;
    t->n_cq = c->n_cqs;
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        struct cq *q = c->cqs_v[i];
        const struct cluster_queue *spec = &q->obj->u.cluster_queue;
        struct qnode *n = qnode_new(t, q->name);
        if (!n)
            return -ENOMEM;
        t->cq_nodes[i] = n;
        n->cq = q;
        n->weight_milli = spec->fair_sharing_weight_milli;
        q->qnode = n;
        set_quotas(t, c, n, spec->resource_groups, spec->n_resource_groups);
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

/* ---- fair sharing ---------------------------------------------------------- */

int64_t qtree_usage_reaching(const struct qnode *from, const struct qnode *to,
                             int i, int64_t val)
{
    for (int d = 0; from && from != to && val > 0 && d < 64; d++) {
        int64_t local = max64(0, sat_sub(qnode_local_quota(from, i),
                                         qnode_usage(from, i)));
        val = max64(0, sat_sub(val, local));
        from = from->parent;
    }
    return val;
}

bool qtree_borrows_on(const struct qtree *t, const struct qnode *n,
                      const int64_t *extra)
{
    for (uint32_t i = 0; i < t->n_fr; i++)
        if (extra[i] > 0 &&
            sat_add(qnode_usage(n, (int)i), extra[i]) > n->subtree[i])
            return true;
    return false;
}

/* Whether borrowed/lendable a is above b (exact). */
static bool ratio_above(int64_t ab, int64_t al, int64_t bb, int64_t bl)
{
    return (__int128)ab * bl > (__int128)bb * al;
}

/* The dominant resource share of n (Kueue's dominantResourceShare): per
 * resource name, what n borrows over the flavors against what its parent
 * could lend of it; the largest ratio, as a fraction. The extra usage is
 * `extra` itself, or, with `from` set, what of it reaches n from
 * ClusterQueue node `from`. */
static void dominant_share(const struct qtree *t, const struct qnode *n,
                           const int64_t *extra, const struct qnode *from,
                           struct qtree_share *ret)
{
    *ret = (struct qtree_share){.weight_milli = n->weight_milli};
    if (!n->parent || n->parent->in_cycle)
        return;
    for (uint32_t i = 0; i < t->n_fr; i++) {
        int32_t res = t->frs[i].res;
        bool first = true;
        for (uint32_t j = 0; j < i; j++)
            if (t->frs[j].res == res)
                first = false;
        if (!first)
            continue;
        int64_t borrowed = 0, lendable = 0;
        for (uint32_t j = i; j < t->n_fr; j++) {
            if (t->frs[j].res != res)
                continue;
            int64_t more = extra ? extra[j] : 0;
            if (from && more > 0)
                more = qtree_usage_reaching(from, n, (int)j, more);
            int64_t use = sat_add(qnode_usage(n, (int)j), more);
            borrowed = sat_add(borrowed, max64(0, sat_sub(use, n->subtree[j])));
            lendable = sat_add(lendable, potential(n->parent, (int)j, 0));
        }
        if (borrowed > 0)
            ret->borrowing = true;
        if (lendable <= 0 || borrowed <= 0)
            continue;
        if (!ret->borrowed ||
            ratio_above(borrowed, lendable, ret->borrowed, ret->lendable)) {
            ret->borrowed = borrowed;
            ret->lendable = lendable;
        }
    }
}

/* Kueue's roundedWeightedShare: ceil(borrowed * 1000 / lendable / weight),
 * QUOTA_INF for a zero-weight borrower. */
static int64_t rounded_share(const struct qtree_share *s)
{
    if (!s->borrowed)
        return 0; /* not borrowing, or from a parent that lends nothing */
    if (s->weight_milli <= 0)
        return QUOTA_INF;
    __int128 num = (__int128)s->borrowed * 1000000;
    __int128 den = (__int128)s->lendable * s->weight_milli;
    __int128 q = (num + den - 1) / den;
    return q >= QUOTA_INF ? QUOTA_INF - 1 : (int64_t)q;
}

/* qtree_weighted_share, with the extra usage as for dominant_share. */
static int64_t weighted_share(const struct qtree *t, const struct qnode *n,
                              const int64_t *extra, const struct qnode *from,
                              bool *ret_borrowing)
{
    struct qtree_share s;
    dominant_share(t, n, extra, from, &s);
    *ret_borrowing = s.borrowing;
    return rounded_share(&s);
}

int64_t qtree_weighted_share(const struct qtree *t, const struct qnode *n,
                             const int64_t *extra, bool *ret_borrowing)
{
    return weighted_share(t, n, extra, NULL, ret_borrowing);
}

void qtree_share(const struct qtree *t, const struct qnode *n,
                 const int64_t *extra, struct qtree_share *ret)
{
    dominant_share(t, n, extra, NULL, ret);
}

/* Sign of x - y for unsigned 128-bit products, or 2 when one overflows. */
static int cmp_products(unsigned __int128 a, uint64_t b, unsigned __int128 c,
                        uint64_t d)
{
    unsigned __int128 x, y;
    if (__builtin_mul_overflow(a, b, &x) || __builtin_mul_overflow(c, d, &y))
        return 2;
    return x < y ? -1 : x > y;
}

int qtree_share_cmp(const struct qtree_share *a, const struct qtree_share *b)
{
    bool az = a->weight_milli <= 0 && a->borrowed;
    bool bz = b->weight_milli <= 0 && b->borrowed;
    if (az || bz) {
        if (az != bz)
            return az ? 1 : -1;
        /* Two zero-weight borrowers: the unweighted ratios. */
        return ratio_above(a->borrowed, a->lendable, b->borrowed, b->lendable)
                   ? 1
               : ratio_above(b->borrowed, b->lendable, a->borrowed, a->lendable)
                   ? -1
                   : 0;
    }
    bool a0 = !a->borrowed, b0 = !b->borrowed;
    if (a0 || b0)
        return a0 == b0 ? 0 : a0 ? -1 : 1;
    /* (ab / al) / aw against (bb / bl) / bw, exactly where it fits. */
    int r = cmp_products((unsigned __int128)a->borrowed * (uint64_t)b->lendable,
                         (uint64_t)b->weight_milli,
                         (unsigned __int128)b->borrowed * (uint64_t)a->lendable,
                         (uint64_t)a->weight_milli);
    if (r != 2)
        return r;
    /* Past 128 bits (quantities near INT64_MAX): to 1e-12 of the ratio. */
    unsigned __int128 x = (unsigned __int128)a->borrowed * 1000000000000ULL /
                          (uint64_t)a->lendable / (uint64_t)a->weight_milli;
    unsigned __int128 y = (unsigned __int128)b->borrowed * 1000000000000ULL /
                          (uint64_t)b->lendable / (uint64_t)b->weight_milli;
    return x < y ? -1 : x > y;
}

/* ---- fair-sharing target order ------------------------------------------ */

struct fs_walk {
    const struct qnode *p; /* the preemptor's ClusterQueue */
    const int64_t *need;   /* its usage, per FR */
    const struct qnode *const *targets;
    const int64_t *rank;
    uint32_t n;
};

static bool on_path(const struct fs_walk *w, const struct qnode *n)
{
    for (const struct qnode *x = w->p; x; x = x->parent)
        if (x == n)
            return true;
    return false;
}

static int64_t target_index(const struct fs_walk *w, const struct qnode *n)
{
    for (uint32_t k = 0; k < w->n; k++)
        if (w->targets[k] == n)
            return k;
    return -1;
}

/* Share of n against its parent, the preemptor's usage counted on its
 * path. */
static int64_t walk_share(const struct fs_walk *w, const struct qnode *n)
{
    bool borrowing;
    return weighted_share(n->tree, n, w->need, on_path(w, n) ? w->p : NULL,
                          &borrowing);
}

/* Kueue prunes a ClusterQueue without candidates or that does not borrow
 * (the preemptor's own excepted), and a cohort that does not borrow (those
 * on the preemptor's path excepted) or whose children are all pruned.
 * Returns the lowest rank of a target reachable under n, or -1. */
static int64_t walk_viable(const struct fs_walk *w, const struct qnode *n,
                           int depth)
{
    if (!n || n->in_cycle || depth > 64)
        return -1;
    if (n->cq) {
        int64_t k = target_index(w, n);
        if (k < 0 || (n != w->p && walk_share(w, n) == 0))
            return -1;
        return w->rank[k];
    }
    if (!on_path(w, n) && walk_share(w, n) == 0)
        return -1;
    int64_t best = -1;
    for (uint32_t i = 0; i < n->n_children; i++) {
        int64_t r = walk_viable(w, n->children[i], depth + 1);
        if (r >= 0 && (best < 0 || r < best))
            best = r;
    }
    return best;
}

static int64_t walk_next(const struct fs_walk *w, const struct qnode *c,
                         int depth)
{
    const struct qnode *best_cq = NULL, *best_co = NULL;
    int64_t cq_share = 0, cq_rank = 0, co_share = 0, co_rank = 0;
    for (uint32_t i = 0; i < c->n_children && depth <= 64; i++) {
        const struct qnode *ch = c->children[i];
        int64_t r = walk_viable(w, ch, depth + 1);
        if (r < 0)
            continue;
        int64_t share = walk_share(w, ch);
        if (ch->cq) {
            if (!best_cq || share > cq_share ||
                (share == cq_share && r < cq_rank)) {
                best_cq = ch;
                cq_share = share;
                cq_rank = r;
            }
        } else if (!best_co || share > co_share ||
                   (share == co_share && r < co_rank)) {
            best_co = ch;
            co_share = share;
            co_rank = r;
        }
    }
    /* A cohort wins a tie: the most unfair node may be inside it. */
    if (best_co && (!best_cq || co_share >= cq_share))
        return walk_next(w, best_co, depth + 1);
    return best_cq ? target_index(w, best_cq) : -1;
}

int64_t qtree_fs_next_target(const struct qnode *p, const int64_t *need,
                             const struct qnode *const *targets,
                             const int64_t *rank, uint32_t n)
{
    struct fs_walk w = {p, need, targets, rank, n};
    if (!p || !need)
        return -1;
    if (!p->parent)
        return target_index(&w, p);
    const struct qnode *root = qtree_root(p);
    if (walk_viable(&w, root, 0) < 0)
        return -1;
    return walk_next(&w, root, 0);
}
