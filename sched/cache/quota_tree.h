/* quota_tree.h - Kueue's quota arithmetic over ClusterQueues and cohorts.
 *
 * Every ClusterQueue and Cohort is a node with, per (flavor, resource) pair
 * ("FR"), a nominal quota, an optional borrowing limit and lending limit,
 * the quota of its subtree and its usage. Cohorts come from Cohort objects
 * and from names that ClusterQueues (cohortName) and Cohorts (parentName)
 * refer to; a cohort that does not exist as an object has no quota of its
 * own. The arithmetic is that of Kueue's resource_node.go (see
 * docs/design.md, "Quota"), in saturating int64 milli-units.
 *
 * A ClusterQueue's own usage lives in its cq_group arrays (charged by
 * cq_charge); the tree keeps cohort usage and is kept in step through
 * qtree_add_usage(). */
#ifndef ORDO_QUOTA_TREE_H
#define ORDO_QUOTA_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

struct cq;
struct flavor;

#define QUOTA_UNSET (-1) /* borrowing/lending limit not set */
#define QUOTA_INF INT64_MAX

struct qtree;

struct qnode {
    const struct qtree *tree;
    char *name;          /* cohort name, or the CQ's */
    struct cq *cq;       /* non-NULL for a ClusterQueue leaf */
    struct qnode *parent;
    struct qnode **children;
    uint32_t n_children;
    size_t cap_children;
    int height;          /* 0 for a CQ; 1 + max(children) for a cohort */
    int64_t weight_milli; /* fair sharing weight */
    bool exists;         /* cohort: a Cohort object defines it */
    bool in_cycle;       /* part of (or under) a parentName cycle */
    /* Per FR (tree->n_fr entries). */
    int64_t *nominal, *borrowing_limit, *lending_limit, *subtree;
    /* A cohort's usage; a CQ's is in its groups, except on pairs it no
     * longer lists that admissions still charge. */
    int64_t *usage;
    /* Usage when the tree was last rebuilt (qtree_mark_baseline): what
     * admissions before the rebuild left, wherever the rebuild put it. */
    int64_t *baseline;
    UT_hash_handle hh; /* cohorts by name */
};

struct fr_key {
    const struct flavor *flavor;
    int32_t res;
};

struct qtree {
    struct qnode *cohorts; /* hash by name */
    struct qnode **cq_nodes; /* one per cluster->cqs_v entry, same order */
    uint32_t n_cq;
    struct fr_key *frs;
    uint32_t n_fr;
    size_t cap_fr;
};

/* Building the tree and moving usage through it: private/qtree_build.h. */

/* Index of (flavor, resource), or -1 when no queue or cohort lists it. */
int qtree_fr(const struct qtree *t, const struct flavor *f, int32_t res);

/* The root of the tree n is in (n itself for a ClusterQueue without a
 * cohort). */
const struct qnode *qtree_root(const struct qnode *n);

/* Calls fn for every ClusterQueue in the subtree of n (n's own when n is
 * one), depth first, until fn returns true; returns whether one did. Nodes
 * in a parentName cycle are skipped. */
bool qtree_any_cq(const struct qnode *n, bool (*fn)(struct cq *q, void *data),
                  void *data);

/* Usage of node n for FR i (a CQ's from its groups). */
int64_t qnode_usage(const struct qnode *n, int i);

/* Kueue's Available(cq, fr): what the CQ can still take now, borrowing
 * included (>= 0), and never more than qtree_headroom. */
int64_t qtree_available(const struct qnode *n, int i);
/* How much usage of CQ node n on FR i may grow by before a node on its
 * path would reach INT64_MAX (usage is counted exactly, never saturated);
 * qtree_available is never more. */
int64_t qtree_headroom(const struct qnode *n, int i);
/* Kueue's workloadFits: need[fr] (over every FR of the tree) fits CQ node
 * n now, every FR within Available and, without borrowing, usage + need
 * within nominal. Returns -1 when it fits, else the first FR that does
 * not. */
int qtree_first_short(const struct qnode *n, const int64_t *need,
                      bool allow_borrowing);
/* Kueue's PotentialAvailable(cq, fr): the most it could ever hold. */
int64_t qtree_potential_available(const struct qnode *n, int i);
/* Height of the lowest subtree in which val more fits: 0 when the CQ does
 * not borrow for it. */
int qtree_borrowing_level(const struct qnode *n, int i, int64_t val);
/* Kueue's mayReclaimInHierarchy: val more of FR i fits in a subtree on
 * n's path below the root (n's nominal quota included), with the usage
 * there now; false for a ClusterQueue without a cohort. */
bool qtree_fits_below_root(const struct qnode *n, int i, int64_t val);
/* Local quota (what a node keeps from its parent): SubtreeQuota minus
 * lendingLimit when a lending limit is set, else 0. */
int64_t qnode_local_quota(const struct qnode *n, int i);

/* How much of `val` more usage of ClusterQueue node `from` on FR i reaches
 * its ancestor `to` (from itself: all of it): each node on the way keeps
 * what fits in its local quota. */
int64_t qtree_usage_reaching(const struct qnode *from, const struct qnode *to,
                             int i, int64_t val);

/* Whether node n, with `extra` (per FR) added, would use more than its
 * subtree quota on an FR where extra > 0. */
bool qtree_borrows_on(const struct qtree *t, const struct qnode *n,
                      const int64_t *extra);

/* Dominant resource share of node n (per mille of what its parent can
 * lend), with `extra` (per FR, may be NULL) added to its usage; divided by
 * the node's fair-sharing weight and rounded up (Kueue's
 * roundedWeightedShare). QUOTA_INF when a zero-weight node borrows. Sets
 * *ret_borrowing when n borrows on any FR. */
int64_t qtree_weighted_share(const struct qtree *t, const struct qnode *n,
                             const int64_t *extra, bool *ret_borrowing);

/* The same share as a fraction, for exact comparisons (Kueue's DRS). */
struct qtree_share {
    int64_t borrowed, lendable; /* the dominant resource's ratio */
    int64_t weight_milli;
    bool borrowing; /* on any resource, even where the parent lends none */
};
void qtree_share(const struct qtree *t, const struct qnode *n,
                 const int64_t *extra, struct qtree_share *ret);
/* Kueue's CompareDRS: < 0 when a has the lower share (preferred for
 * admission), > 0 when higher. Zero-weight borrowers come above all others
 * and compare their unweighted shares among themselves. */
int qtree_share_cmp(const struct qtree_share *a, const struct qtree_share *b);

/* Kueue's fair-sharing preemption target order (the walk of
 * TargetClusterQueueOrdering): from the root of p's tree, at each cohort
 * the child with the highest weighted share (the preemptor's usage `need`
 * counted on p's path), among children that hold one of the n ClusterQueue
 * nodes `targets` and borrow, or lie on p's path (p itself always
 * qualifies); a cohort wins a tie with a ClusterQueue, ties among
 * ClusterQueues (or cohorts) go to the lower rank (of their best target).
 * Returns the index in targets of the ClusterQueue reached, or -1. */
int64_t qtree_fs_next_target(const struct qnode *p, const int64_t *need,
                             const struct qnode *const *targets,
                             const int64_t *rank, uint32_t n);

#endif
