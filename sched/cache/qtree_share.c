/* qtree_share.c - fair sharing over the quota tree (see quota_tree.h):
 * dominant resource shares, their comparison, and the order in which
 * fair-sharing preemption looks for targets (Kueue's fair_sharing.go and
 * TargetClusterQueueOrdering). */
#include "quota_tree.h"

#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "qtree_math.h"
#include "resid.h"

/* ---- fair sharing ------------------------------------------------------- */

int64_t qtree_usage_reaching(const struct qnode *from, const struct qnode *to,
                             int i, int64_t val)
{
    for (int d = 0; from && from != to && val > 0 && d < 64; d++) {
        int64_t local =
            max64(0, sat_sub(qnode_local_quota(from, i), qnode_usage(from, i)));
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
            lendable =
                sat_add(lendable, qtree_potential_available(n->parent, (int)j));
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
