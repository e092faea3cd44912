/* fair_share.c - the admission order of a cycle under fair sharing
 * (Kueue's, reference section 5.1; see fair_share.h): a tournament at each
 * cohort level, the child whose dominant resource share with its candidate's
 * usage added is lowest winning, children that would not borrow first. */
#include "fair_share.h"

#include "arena.h"
#include "workload.h"

struct fs_pick {
    struct entry *e;
    bool borrowing; /* the competing child would borrow with e admitted */
    struct qtree_share share; /* its dominant resource share then */
};

/* Whether a goes before b at one cohort level. */
static bool fs_better(const struct fs_pick *a, const struct fs_pick *b)
{
    if (a->e->wl->preempting != b->e->wl->preempting)
        return a->e->wl->preempting;
    if (a->borrowing != b->borrowing)
        return !a->borrowing;
    int r = qtree_share_cmp(&a->share, &b->share);
    if (r != 0)
        return r < 0;
    return entry_cmp(a->e, b->e) < 0;
}

/* The part of e's usage that reaches node `child` (an ancestor of e's
 * ClusterQueue, or the ClusterQueue itself): usage kept within local quota
 * on the way does not count in child's share. NULL when e has no usage. */
static const int64_t *fs_extra(struct ordo_cycle *cy, const struct qnode *child,
                               const struct entry *e)
{
    const struct qtree *t = &cy->c->tree;
    const struct qnode *from = e->wl->cq->qnode;
    if (!e->usage || !from)
        return NULL;
    if (from == child)
        return e->usage;
    int64_t *v = arena_calloc(cy->scratch, t->n_fr ? t->n_fr : 1, sizeof(*v));
    if (!v)
        return e->usage;
    for (uint32_t i = 0; i < t->n_fr; i++)
        v[i] = e->usage[i] > 0
                   ? qtree_usage_reaching(from, child, (int)i, e->usage[i])
                   : 0;
    return v;
}

/* Winner among the remaining entries under node x (NULL when none): at
 * each cohort, each child competes with its own winner, judged by the share
 * of that child with the winner's usage added. */
static struct entry *fs_winner(struct ordo_cycle *cy, const struct qnode *x,
                               struct entry *entries, size_t n, int depth)
{
    if (x->cq) {
        for (size_t i = 0; i < n; i++)
            if (!entries[i].done && entries[i].wl->cq == x->cq)
                return &entries[i];
        return NULL;
    }
    if (depth > 64)
        return NULL;
    struct fs_pick best = {0};
    for (uint32_t k = 0; k < x->n_children; k++) {
        const struct qnode *child = x->children[k];
        struct fs_pick p = {.e = fs_winner(cy, child, entries, n, depth + 1)};
        if (!p.e)
            continue;
        const int64_t *extra = fs_extra(cy, child, p.e);
        if (extra)
            qtree_share(&cy->c->tree, child, extra, &p.share);
        /* Kueue's FairSharingPrioritizeNonBorrowing: borrowing on the
         * (flavor, resource) pairs this entry requests. */
        p.borrowing = extra && qtree_borrows_on(&cy->c->tree, child, extra);
        if (!best.e || fs_better(&p, &best))
            best = p;
    }
    return best.e;
}

struct entry *fair_share_next(struct ordo_cycle *cy, struct entry *entries,
                              size_t n)
{
    /* Preemptors first, whatever their tree: the room they freed is
     * theirs. */
    for (size_t i = 0; i < n; i++)
        if (!entries[i].done && entries[i].wl->preempting)
            return &entries[i];
    for (size_t i = 0; i < n; i++) {
        if (entries[i].done)
            continue;
        const struct qnode *root = entries[i].wl->cq->qnode;
        if (!root)
            return &entries[i];
        for (int d = 0; root->parent && d < 64; d++)
            root = root->parent;
        struct entry *w = fs_winner(cy, root, entries, n, 0);
        return w ? w : &entries[i];
    }
    return NULL;
}
