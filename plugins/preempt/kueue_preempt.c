/* kueue_preempt.c - the "kueue-preempt" PREEMPT plugin: Kueue's choice of
 * victims (reference sections 4.1-4.4), over the candidates the host gives
 * (admitted workloads of the preemptor's cohort tree that use a (flavor,
 * resource) its assignment needs) and the host's what-if functions.
 *
 * Policies (4.1). Never; LowerPriority (victim priority < preemptor's);
 * LowerOrNewerEqualPriority (lower, or equal and the preemptor's queue time
 * strictly earlier than the victim's); Any. withinClusterQueue applies to
 * candidates admitted to the preemptor's ClusterQueue, reclaimWithinCohort
 * to the others, which must also use more than their nominal quota on a
 * needed (flavor, resource) (host->cq_over_nominal_for), re-checked while
 * victims are removed in a what-if. Unknown policy values count as Never.
 *
 * Ordering (4.2). Already evicting first; other ClusterQueues before the
 * preemptor's own; lower priority; most recently admitted first; name; then
 * (ties only) the workload handle and the host's index, so that the order is
 * total and a candidate listed twice is seen, and used, once.
 *
 * Classical algorithm (4.3), when fair sharing is off. Other-CQ candidates
 * are classified as
 *   - HierarchicalReclaim when the preemptor has "hierarchical advantage":
 *     its ClusterQueue fits the request within its own nominal quota. The
 *     host exposes no per-level subtree quota, so this is probed once,
 *     before anything else is removed, as host->preemptor_fits(cy, false)
 *     with every other-CQ candidate removed (nominal is then the only
 *     limit left that removals cannot lift); the advantage is thus the same
 *     for all other-CQ candidates, i.e. only the ClusterQueue level of
 *     Kueue's walk up the cohort tree is modelled;
 *   - ReclaimWhileBorrowing when borrowWithinCohort is LowerPriority, the
 *     candidate's priority is strictly lower than the preemptor's and, when
 *     maxPriorityThreshold is set, at most the threshold;
 *   - ReclaimWithoutBorrowing otherwise (skipped in attempts that allow
 *     borrowing).
 * Attempts (allowBorrowing): [true] when there is no other-CQ candidate, or
 * borrowWithinCohort is Never and the ClusterQueue is not strictly under
 * nominal on the needed resources; [false, true] when borrowWithinCohort is
 * Never and there is no hierarchical candidate; else [true, false]. "Under
 * nominal" is usage < nominal for every (flavor, resource) the preemptor's
 * assignment requests (host->assigned_flavor, cq_usage, cq_nominal; the
 * implicit "pods" resource is not seen); when no such pair can be read it
 * falls back to "not over nominal" (!cq_over_nominal_for), and hierarchical
 * advantage implies it. Each attempt walks the ordered candidates, removes
 * each valid one in a what-if and stops as soon as preemptor_fits(cy,
 * allowBorrowing); then fills back from the second-to-last target down to
 * the first, keeping each one that is not needed. Since the advantage is
 * global, Kueue's "hierarchical before other cross-CQ candidates" split of
 * the order has no effect and the walk uses the 4.2 order.
 *
 * Fair sharing (4.4). Own-CQ candidates per withinClusterQueue, without
 * share checks; other-CQ candidates per reclaimWithinCohort (and
 * borrowWithinCohort ignored), only while their ClusterQueue is over
 * nominal. Target ClusterQueue choice: Kueue descends the cohort tree into
 * the child with the highest dominant resource share; here every
 * ClusterQueue with candidates left competes with one number, its
 * host->fs_target_share (the preemptor's own ClusterQueue:
 * fs_preemptor_share of itself, i.e. with the preemptor's usage added),
 * the highest wins and ties go to the ClusterQueue whose next candidate
 * comes first in the order above; a ClusterQueue that is no longer over
 * nominal is dropped (Kueue: its share fell to 0). The first configured
 * strategy runs over the candidates, choosing the target again after each
 * victim; candidates that failed it are retried with the second strategy,
 * at most one victim per ClusterQueue. Strategies: 1 =
 * LessThanOrEqualToFinalShare (S2-a): fs_preemptor_share(target) <=
 * fs_target_share(target) with the candidate removed; 2 =
 * LessThanInitialShare (S2-b): fs_preemptor_share(target) <
 * fs_target_share(target) before the removal. The shares are taken when a
 * ClusterQueue is chosen, as in Kueue. With FairSharingPreemptWithinNominal
 * (beta, on in Kueue) other-CQ candidates are taken without share checks
 * when the preemptor's ClusterQueue stays within nominal with the workload,
 * probed like the hierarchical advantage above.
 * FairSharingReevaluatePreemptionCandidates (a second S2-a pass) is not
 * modelled. Fill-back allows borrowing.
 *
 * Every what-if removal is put back before the op returns. No fit in any
 * attempt answers ORDO_UNSCHEDULABLE with a reason; a bad argument or no
 * scratch memory answers ORDO_ERROR. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ordo/plugin.h>

struct kueue_preempt {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

enum variant {
    V_NEVER = 0,
    V_WITHIN_CQ,
    V_HIERARCHICAL,
    V_RECLAIM_WITHOUT_BORROWING,
    V_RECLAIM_WHILE_BORROWING
};

struct cand {
    const struct ordo_workload *wl;
    const struct ordo_cq *cq; /* admitted to */
    const char *name;
    int64_t admitted;
    int64_t queue_time;
    int32_t prio;
    uint32_t idx;   /* in the host's candidates array */
    uint32_t fs_cq; /* fair sharing: its ClusterQueue, in run.fs_cqs */
    bool own;       /* admitted to the preemptor's ClusterQueue */
    bool evicting;
    bool dup;      /* the same workload again: never used */
    bool eligible; /* passes the policies (and, at the start, nominal) */
    bool removed;  /* currently removed in a what-if by this op */
    bool avail;    /* fair sharing: still to be considered in this pass */
    bool retry;    /* fair sharing: failed the first strategy */
    enum variant variant;
};

/* A ClusterQueue's candidates in fair sharing: those with c[i].fs_cq == index,
 * in order; cur only moves forward. */
struct fs_cq {
    const struct ordo_cq *cq;
    uint32_t cur;
    bool own;
    bool dropped;
};

struct run {
    const struct ordo_host *h;
    struct ordo_cycle *cy;
    const struct ordo_workload *wl;
    const struct ordo_cq *cq; /* the preemptor's */
    int32_t prio;
    int64_t queue_time;
    struct cand *c; /* sorted */
    uint32_t n;
    uint32_t *t; /* targets: positions in c */
    uint32_t nt;
    struct fs_cq *fs_cqs;
    uint32_t n_fs_cqs;
    /* fs_pick's arguments to the host, n_fs_cqs entries each. */
    const struct ordo_cq **pick_cqs;
    int64_t *pick_rank;
    uint32_t *pick_fs_cq;
};

/* ---- helpers ----------------------------------------------------------- */

/* Scratch memory for n items of size bytes; NULL on overflow or OOM. */
static void *alloc_array(const struct ordo_host *h, struct ordo_cycle *cy,
                         size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return h->cycle_alloc(cy, n * size);
}

static bool satisfies(uint32_t policy, int32_t pprio, int64_t pqt,
                      int32_t cprio, int64_t cqt)
{
    switch (policy) {
    case ORDO_PREEMPT_LOWER_PRIORITY:
        return cprio < pprio;
    case ORDO_PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return cprio < pprio || (cprio == pprio && pqt < cqt);
    case ORDO_PREEMPT_ANY:
        return true;
    default:
        return false; /* Never, or a value this plugin does not know */
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? -1 : x > y;
}

/* Kueue's CandidatesOrdering (4.2). */
static int cmp_cand(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    if (a->evicting != b->evicting)
        return a->evicting ? -1 : 1;
    if (a->own != b->own)
        return a->own ? 1 : -1;
    if (a->prio != b->prio)
        return a->prio < b->prio ? -1 : 1;
    if (a->admitted != b->admitted)
        return a->admitted > b->admitted ? -1 : 1;
    int r = strcmp(a->name ? a->name : "", b->name ? b->name : "");
    if (r != 0)
        return r;
    r = cmp_ptr(a->wl, b->wl);
    if (r != 0)
        return r;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void whatif_remove(struct run *x, uint32_t i)
{
    if (x->c[i].removed)
        return;
    x->h->whatif_remove(x->cy, x->c[i].wl);
    x->c[i].removed = true;
}

static void whatif_restore(struct run *x, uint32_t i)
{
    if (!x->c[i].removed)
        return;
    x->h->whatif_restore(x->cy, x->c[i].wl);
    x->c[i].removed = false;
}

/* Puts back every removal this op made, last first. */
static void restore_all(struct run *x)
{
    for (uint32_t k = x->nt; k-- > 0;)
        whatif_restore(x, x->t[k]);
    for (uint32_t i = x->n; i-- > 0;)
        whatif_restore(x, i);
}

static bool fits(struct run *x, bool allow_borrowing)
{
    return x->h->preemptor_fits(x->cy, allow_borrowing);
}

static void add_target(struct run *x, uint32_t i)
{
    x->t[x->nt++] = i;
}

/* Kueue's fillBackWorkloads: from the second-to-last target down to the
 * first, put it back and keep it out of the targets when the preemptor
 * still fits. The targets stay removed; order is kept. */
static void fill_back(struct run *x, bool allow_borrowing)
{
    if (x->nt < 2)
        return;
    for (uint32_t k = x->nt - 1; k-- > 0;) {
        uint32_t i = x->t[k];
        whatif_restore(x, i);
        if (fits(x, allow_borrowing)) {
            memmove(&x->t[k], &x->t[k + 1],
                    (x->nt - k - 1) * sizeof(x->t[0]));
            x->nt--;
        } else {
            whatif_remove(x, i);
        }
    }
}

/* Whether the preemptor's ClusterQueue would fit the workload within its
 * nominal quota once the rest of the cohort gave back what it borrows:
 * preemptor_fits without borrowing, every other-CQ candidate removed. */
static bool probe_within_nominal(struct run *x)
{
    bool any = false;
    for (uint32_t i = 0; i < x->n; i++)
        if (!x->c[i].own && !x->c[i].dup) {
            whatif_remove(x, i);
            any = true;
        }
    bool ok = any && fits(x, false);
    for (uint32_t i = x->n; i-- > 0;)
        whatif_restore(x, i);
    return ok;
}

/* The preemptor's whole request on (f, id), over its pod sets. */
static int64_t request_on(struct run *x, const struct ordo_flavor *f,
                          ordo_resource_id id)
{
    const struct ordo_host *h = x->h;
    int64_t total = 0;
    uint32_t n_ps = h->wl_n_podsets(x->wl);
    for (uint32_t ps = 0; ps < n_ps; ps++) {
        uint32_t count = h->ps_count(x->wl, ps);
        uint32_t n_req = h->ps_n_requests(x->wl, ps);
        if (h->assigned_flavor(x->cy, ps, id) != f)
            continue;
        for (uint32_t i = 0; i < n_req; i++) {
            ordo_resource_id rid = ORDO_RESOURCE_NONE;
            int64_t milli = 0;
            h->ps_request(x->wl, ps, i, &rid, &milli);
            if (rid != id || milli <= 0)
                continue;
            int64_t add = milli > INT64_MAX / (count ? count : 1)
                              ? INT64_MAX
                              : milli * (int64_t)count;
            total = total > INT64_MAX - add ? INT64_MAX : total + add;
        }
    }
    return total;
}

/* Kueue's queueUnderNominalInResourcesNeedingPreemption: usage < nominal on
 * every (flavor, resource) of the assignment that needs preemption (the
 * request is more than Available); a pair that fits as it is does not
 * count. Falls back to "not over nominal" when no pair can be read. */
static bool under_nominal(struct run *x)
{
    const struct ordo_host *h = x->h;
    bool seen = false;
    uint32_t n_ps = h->wl_n_podsets(x->wl);
    for (uint32_t ps = 0; ps < n_ps; ps++) {
        uint32_t n_req = h->ps_n_requests(x->wl, ps);
        if (h->ps_count(x->wl, ps) == 0)
            continue;
        for (uint32_t i = 0; i < n_req; i++) {
            ordo_resource_id id = ORDO_RESOURCE_NONE;
            int64_t milli = 0, nominal = 0;
            h->ps_request(x->wl, ps, i, &id, &milli);
            if (milli <= 0 || id == ORDO_RESOURCE_NONE)
                continue;
            const struct ordo_flavor *f = h->assigned_flavor(x->cy, ps, id);
            if (!f || !h->cq_nominal(x->cq, f, id, &nominal))
                continue;
            if (request_on(x, f, id) <= h->cq_available(x->cy, x->cq, f, id))
                continue;
            seen = true;
            if (h->cq_usage(x->cy, x->cq, f, id) >= nominal)
                return false;
        }
    }
    return seen ? true : !h->cq_over_nominal_for(x->cy, x->cq);
}

/* ---- classical (4.3) --------------------------------------------------- */

/* Kueue's candidateIsValid. */
static bool classical_valid(struct run *x, const struct cand *c,
                            bool allow_borrowing)
{
    if (!c->eligible || c->dup || c->removed)
        return false;
    if (c->own)
        return true;
    if (allow_borrowing && c->variant == V_RECLAIM_WITHOUT_BORROWING)
        return false;
    return x->h->cq_over_nominal_for(x->cy, c->cq);
}

/* One attempt: true with the (filled-back, still removed) targets. */
static bool minimal_preemptions(struct run *x, bool allow_borrowing)
{
    x->nt = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        if (!classical_valid(x, &x->c[i], allow_borrowing))
            continue;
        whatif_remove(x, i);
        add_target(x, i);
        if (fits(x, allow_borrowing)) {
            fill_back(x, allow_borrowing);
            return true;
        }
    }
    restore_all(x);
    x->nt = 0;
    return false;
}

static bool classical(struct run *x)
{
    const struct ordo_host *h = x->h;
    uint32_t within = h->cq_preemption(x->cq, ORDO_WITHIN_CLUSTER_QUEUE);
    uint32_t reclaim = h->cq_preemption(x->cq, ORDO_RECLAIM_WITHIN_COHORT);
    uint32_t borrow = h->cq_preemption(x->cq, ORDO_BORROW_WITHIN_COHORT);
    bool forbidden = borrow == ORDO_PREEMPT_NEVER;
    bool has_other = false;
    int32_t threshold = 0;
    bool has_threshold = h->cq_max_priority_threshold &&
                         h->cq_max_priority_threshold(x->cq, &threshold);

    for (uint32_t i = 0; i < x->n; i++) {
        struct cand *c = &x->c[i];
        if (c->dup)
            continue;
        if (c->own) {
            c->eligible = satisfies(within, x->prio, x->queue_time, c->prio,
                                    c->queue_time);
            c->variant = c->eligible ? V_WITHIN_CQ : V_NEVER;
        } else {
            c->eligible = satisfies(reclaim, x->prio, x->queue_time,
                                    c->prio, c->queue_time) &&
                          h->cq_over_nominal_for(x->cy, c->cq);
            has_other = has_other || c->eligible;
        }
    }
    bool advantage = has_other && probe_within_nominal(x);
    bool any_advantage = advantage;
    for (uint32_t i = 0; i < x->n; i++) {
        struct cand *c = &x->c[i];
        if (c->own || c->dup || !c->eligible)
            continue;
        /* The advantage may also hold higher up: the preemptor's side of
         * the common cohort fits within its own subtree quota. */
        bool adv = advantage || (h->preemptor_advantage &&
                                 h->preemptor_advantage(x->cy, c->cq));
        any_advantage |= adv;
        if (adv)
            c->variant = V_HIERARCHICAL;
        else if (forbidden || c->prio >= x->prio ||
                 (has_threshold && c->prio > threshold))
            c->variant = V_RECLAIM_WITHOUT_BORROWING;
        else
            c->variant = V_RECLAIM_WHILE_BORROWING;
    }

    bool attempts[2];
    uint32_t n_attempts;
    if (!has_other || (forbidden && !any_advantage && !under_nominal(x))) {
        attempts[0] = true;
        n_attempts = 1;
    } else if (forbidden && !any_advantage) {
        attempts[0] = false;
        attempts[1] = true;
        n_attempts = 2;
    } else {
        attempts[0] = true;
        attempts[1] = false;
        n_attempts = 2;
    }
    for (uint32_t a = 0; a < n_attempts; a++)
        if (minimal_preemptions(x, attempts[a]))
            return true;
    return false;
}

/* ---- fair sharing (4.4) ------------------------------------------------ */

/* Position of the ClusterQueue's next candidate in this pass, or -1. */
static int64_t fs_cq_head(struct run *x, uint32_t fi)
{
    struct fs_cq *fc = &x->fs_cqs[fi];
    while (fc->cur < x->n) {
        const struct cand *c = &x->c[fc->cur];
        if (c->fs_cq == fi && c->avail)
            return fc->cur;
        fc->cur++;
    }
    return -1;
}

/* The next target ClusterQueue, or -1 when none is left: the host walks
 * the cohort tree down from its root (Kueue's target order) among the
 * ClusterQueues that still have a candidate and give quota back. */
static int64_t fs_pick(struct run *x)
{
    const struct ordo_host *h = x->h;
    uint32_t m = 0;
    for (uint32_t fi = 0; fi < x->n_fs_cqs; fi++) {
        struct fs_cq *fc = &x->fs_cqs[fi];
        if (fc->dropped)
            continue;
        int64_t head = fs_cq_head(x, fi);
        if (head < 0 || (!fc->own && !h->cq_over_nominal_for(x->cy, fc->cq))) {
            fc->dropped = true;
            continue;
        }
        x->pick_cqs[m] = fc->cq;
        x->pick_rank[m] = head; /* candidates are sorted: lower is better */
        x->pick_fs_cq[m++] = fi;
    }
    if (m == 0)
        return -1;
    int64_t k = h->fs_next_target(x->cy, x->pick_cqs, x->pick_rank, m);
    return k >= 0 && (uint64_t)k < m ? (int64_t)x->pick_fs_cq[k] : -1;
}

/* Whether strategy s lets the candidate go; it is already removed in
 * a what-if, so fs_target_share is the target's share after removal. */
static bool fs_passes(struct run *x, uint32_t s, const struct ordo_cq *cq,
                      int64_t preemptor_new, int64_t target_old)
{
    if (s == 2)
        return preemptor_new < target_old;
    return preemptor_new <= x->h->fs_target_share(x->cy, cq);
}

/* First pass with strategy s. True when the preemptor fits. */
static bool fs_first(struct run *x, uint32_t s, bool within_nominal)
{
    const struct ordo_host *h = x->h;
    int64_t fi;
    while ((fi = fs_pick(x)) >= 0) {
        struct fs_cq *fc = &x->fs_cqs[fi];
        int64_t head = fs_cq_head(x, (uint32_t)fi);
        if (fc->own || within_nominal) {
            uint32_t i = (uint32_t)head;
            x->c[i].avail = false;
            whatif_remove(x, i);
            add_target(x, i);
            if (fits(x, true))
                return true;
            continue;
        }
        int64_t preemptor_new = h->fs_preemptor_share(x->cy, fc->cq);
        int64_t target_old = h->fs_target_share(x->cy, fc->cq);
        while ((head = fs_cq_head(x, (uint32_t)fi)) >= 0) {
            uint32_t i = (uint32_t)head;
            x->c[i].avail = false;
            whatif_remove(x, i);
            if (fs_passes(x, s, fc->cq, preemptor_new, target_old)) {
                add_target(x, i);
                if (fits(x, true))
                    return true;
                break; /* choose the target again */
            }
            whatif_restore(x, i);
            x->c[i].retry = true;
        }
    }
    return false;
}

/* Second pass with strategy s over the candidates the first one refused:
 * one try per ClusterQueue. True when the preemptor fits. */
static bool fs_second(struct run *x, uint32_t s)
{
    const struct ordo_host *h = x->h;
    for (uint32_t i = 0; i < x->n; i++)
        x->c[i].avail = x->c[i].retry && !x->c[i].removed;
    for (uint32_t fi = 0; fi < x->n_fs_cqs; fi++) {
        x->fs_cqs[fi].cur = 0;
        x->fs_cqs[fi].dropped = false;
    }
    int64_t fi;
    while ((fi = fs_pick(x)) >= 0) {
        struct fs_cq *fc = &x->fs_cqs[fi];
        uint32_t i = (uint32_t)fs_cq_head(x, (uint32_t)fi);
        int64_t preemptor_new = h->fs_preemptor_share(x->cy, fc->cq);
        int64_t target_old = h->fs_target_share(x->cy, fc->cq);
        x->c[i].avail = false;
        whatif_remove(x, i);
        if (fs_passes(x, s, fc->cq, preemptor_new, target_old)) {
            add_target(x, i);
            if (fits(x, true))
                return true;
        } else {
            whatif_restore(x, i);
        }
        fc->dropped = true;
    }
    return false;
}

/* Returns 1 when the preemptor fits (targets removed), 0 when not, -1 on
 * an unknown strategy or no memory (reason set). */
static int fair_sharing(struct run *x)
{
    const struct ordo_host *h = x->h;
    uint32_t within = h->cq_preemption(x->cq, ORDO_WITHIN_CLUSTER_QUEUE);
    uint32_t reclaim = h->cq_preemption(x->cq, ORDO_RECLAIM_WITHIN_COHORT);
    uint32_t strategies[2] = {0, 0};
    uint32_t ns = h->fs_strategies(x->cy, strategies);
    if (ns == 0) { /* Kueue's default */
        strategies[0] = 1;
        strategies[1] = 2;
        ns = 2;
    }
    if (ns > 2)
        ns = 2;
    for (uint32_t k = 0; k < ns; k++)
        if (strategies[k] != 1 && strategies[k] != 2) {
            h->reason(x->cy, "unknown fair sharing preemption strategy %u",
                      strategies[k]);
            return -1;
        }

    x->fs_cqs = alloc_array(h, x->cy, x->n, sizeof(*x->fs_cqs));
    x->pick_cqs = alloc_array(h, x->cy, x->n, sizeof(*x->pick_cqs));
    x->pick_rank = alloc_array(h, x->cy, x->n, sizeof(*x->pick_rank));
    x->pick_fs_cq = alloc_array(h, x->cy, x->n, sizeof(*x->pick_fs_cq));
    if (!x->fs_cqs || !x->pick_cqs || !x->pick_rank || !x->pick_fs_cq) {
        h->reason(x->cy, "out of cycle memory");
        return -1;
    }
    x->n_fs_cqs = 0;
    bool has_other = false;
    for (uint32_t i = 0; i < x->n; i++) {
        struct cand *c = &x->c[i];
        if (c->dup)
            continue;
        if (c->own)
            c->eligible = satisfies(within, x->prio, x->queue_time, c->prio,
                                    c->queue_time);
        else
            c->eligible = satisfies(reclaim, x->prio, x->queue_time,
                                    c->prio, c->queue_time) &&
                          h->cq_over_nominal_for(x->cy, c->cq);
        if (!c->eligible)
            continue;
        has_other = has_other || !c->own;
        c->avail = true;
        uint32_t fi = 0;
        while (fi < x->n_fs_cqs && !h->cq_same(x->fs_cqs[fi].cq, c->cq))
            fi++;
        if (fi == x->n_fs_cqs) {
            x->fs_cqs[fi] = (struct fs_cq){.cq = c->cq, .own = c->own};
            x->n_fs_cqs++;
        }
        c->fs_cq = fi;
    }
    bool within_nominal = has_other && probe_within_nominal(x);
    if (fs_first(x, strategies[0], within_nominal) ||
        (ns > 1 && fs_second(x, strategies[1]))) {
        fill_back(x, true);
        return 1;
    }
    restore_all(x);
    x->nt = 0;
    return 0;
}

/* ---- the op ------------------------------------------------------------ */

static enum ordo_verdict kueue_preempt_select(
    void *self, struct ordo_cycle *cy, const struct ordo_workload *wl,
    const struct ordo_workload *const *candidates, uint32_t n_candidates,
    uint32_t *ret_victims, uint32_t *ret_n)
{
    const struct kueue_preempt *s = self;
    const struct ordo_host *h = s ? s->host : NULL;
    if (!h)
        return ORDO_ERROR;
    if (ret_n)
        *ret_n = 0;
    if (!cy || !wl || !ret_victims || !ret_n ||
        (n_candidates > 0 && !candidates)) {
        if (cy)
            h->reason(cy, "called without a workload, candidates or room "
                          "for the answer");
        return ORDO_ERROR;
    }
    struct run x = {
        .h = h,
        .cy = cy,
        .wl = wl,
        .cq = h->wl_cq(wl),
        .prio = h->wl_priority(wl),
        .queue_time = h->wl_queue_time(wl),
    };
    if (!x.cq) {
        h->reason(cy, "the workload has no ClusterQueue");
        return ORDO_ERROR;
    }
    if (n_candidates == 0) {
        h->reason(cy, "no set of lower-priority workloads to preempt would "
                      "make it fit");
        return ORDO_UNSCHEDULABLE;
    }
    x.c = alloc_array(h, cy, n_candidates, sizeof(*x.c));
    x.t = alloc_array(h, cy, n_candidates, sizeof(*x.t));
    if (!x.c || !x.t) {
        h->reason(cy, "out of cycle memory");
        return ORDO_ERROR;
    }
    /* Candidates that cannot be eligible (4.3, 4.4: the policy of their
     * side, and another ClusterQueue only while over its nominal quota)
     * are dropped before the sort: heads that can preempt nothing end here,
     * cheaply. */
    uint32_t within = h->cq_preemption(x.cq, ORDO_WITHIN_CLUSTER_QUEUE);
    uint32_t reclaim = h->cq_preemption(x.cq, ORDO_RECLAIM_WITHIN_COHORT);
    for (uint32_t i = 0; i < n_candidates; i++) {
        const struct ordo_workload *w = candidates[i];
        const struct ordo_cq *cq = w ? h->wl_admitted_cq(w) : NULL;
        if (!cq)
            continue; /* not admitted: nothing to take back */
        bool own = h->cq_same(cq, x.cq);
        int32_t prio = h->wl_priority(w);
        int64_t queue_time = h->wl_queue_time(w);
        if (!satisfies(own ? within : reclaim, x.prio, x.queue_time, prio,
                       queue_time) ||
            (!own && !h->cq_over_nominal_for(cy, cq)))
            continue;
        x.c[x.n++] = (struct cand){
            .wl = w,
            .cq = cq,
            .name = h->wl_name(w),
            .admitted = h->wl_admitted_time(w),
            .queue_time = queue_time,
            .prio = prio,
            .idx = i,
            .own = own,
            .evicting = h->wl_evicting(w),
        };
    }
    if (x.n == 0) {
        h->reason(cy, "no workload may be preempted under the preemption "
                      "policies of ClusterQueue %s",
                  h->cq_name(x.cq));
        return ORDO_UNSCHEDULABLE;
    }
    qsort(x.c, x.n, sizeof(*x.c), cmp_cand);
    for (uint32_t i = 1; i < x.n; i++)
        x.c[i].dup = x.c[i].wl == x.c[i - 1].wl;

    bool fair = h->fair_sharing(cy);
    int r = fair ? fair_sharing(&x) : (classical(&x) ? 1 : 0);
    uint32_t nv = 0;
    if (r > 0)
        for (uint32_t k = 0; k < x.nt; k++)
            ret_victims[nv++] = x.c[x.t[k]].idx;
    restore_all(&x);
    if (r < 0)
        return ORDO_ERROR;
    bool any_eligible = false;
    for (uint32_t i = 0; i < x.n && !any_eligible; i++)
        any_eligible = x.c[i].eligible;
    if (r == 0 || nv == 0) {
        if (!any_eligible)
            h->reason(cy, "no workload may be preempted under the preemption "
                          "policies of ClusterQueue %s",
                      h->cq_name(x.cq));
        else if (fair)
            h->reason(cy, "no set of workloads to preempt under fair sharing "
                          "would make it fit");
        else
            h->reason(cy, "no set of lower-priority workloads to preempt "
                          "would make it fit");
        return ORDO_UNSCHEDULABLE;
    }
    *ret_n = nv;
    return ORDO_OK;
}

static int kueue_preempt_init(const struct ordo_host *host,
                              const struct ordo_plugin *p, void **ret_self)
{
    struct kueue_preempt *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

static void kueue_preempt_fini(void *self)
{
    struct kueue_preempt *s = self;
    if (s)
        s->host->free(s);
}

static const struct ordo_preempt_ops kueue_preempt_ops = {
    .select_victims = kueue_preempt_select,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_PREEMPT,
    .name = "kueue-preempt",
    .version = "1.0.0",
    .summary = "Kueue's preemption: policies, candidate order, minimal set "
               "with fill-back, fair sharing strategies",
    .init = kueue_preempt_init,
    .fini = kueue_preempt_fini,
    .preempt = &kueue_preempt_ops,
};
