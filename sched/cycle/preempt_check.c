/* preempt_check.c - the host's own checks on a PREEMPT plugin, which it
 * does not trust: the what-if removals it lends during select_victims
 * (candidates only, each at most once, all put back after the op), and its
 * verdict re-checked against the preemptor's ClusterQueue's preemption
 * policy with the host's data and Kueue's rules, independently of the
 * plugin:
 *   - a victim of the preemptor's own ClusterQueue satisfies
 *     withinClusterQueue; one of another ClusterQueue satisfies
 *     reclaimWithinCohort, and that ClusterQueue uses more than its
 *     nominal quota on a (flavor, resource) the preemptor needs, both
 *     judged before any victim is removed;
 *   - without fair sharing, while the preemptor would still borrow with
 *     its victims gone, another ClusterQueue's victim needs hierarchical
 *     advantage, or borrowWithinCohort LowerPriority with a lower priority
 *     (at most maxPriorityThreshold when set);
 *   - the set is minimal as Kueue's fill-back leaves it: the preemptor
 *     fits with it removed and not with any one victim spared, either
 *     within Available (borrowing allowed) or within nominal quota.
 * Kueue's victim searches satisfy all of these, so a plugin that follows
 * Kueue is never refused. */
#include <stdio.h>
#include <string.h>

#include "host_kueue.h"
#include "preempt.h"
#include "workload.h"

/* ---- what-ifs ------------------------------------------------------------ */

/* The slot of w among the op's candidates (sorted by seq), or NULL. */
static bool *whatif_slot(struct ordo_cycle *cy, const struct workload *w)
{
    uint32_t lo = 0, hi = cy->n_whatif_cands;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct workload *c = cy->whatif_cands[mid];
        if (c == w)
            return &cy->whatif_out[mid];
        if (c->seq < w->seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void preempt_whatif_begin(struct ordo_cycle *cy, struct workload *const *cands,
                          bool *out, uint32_t n)
{
    cy->whatif_cands = cands;
    cy->whatif_out = out;
    cy->n_whatif_cands = n;
    cy->whatif_removed = 0;
    memset(out, 0, (size_t)n * sizeof(*out));
}

void preempt_whatif_remove(struct ordo_cycle *cy,
                           const struct ordo_workload *wl)
{
    struct workload *w = (struct workload *)wl;
    bool *out = cy && w ? whatif_slot(cy, w) : NULL;
    if (!out || *out || w->state != WL_ADMITTED || !w->admitted_cq)
        return;
    cq_charge(w->admitted_cq, w, -1);
    *out = true;
    cy->whatif_removed++;
}

void preempt_whatif_restore(struct ordo_cycle *cy,
                            const struct ordo_workload *wl)
{
    struct workload *w = (struct workload *)wl;
    bool *out = cy && w ? whatif_slot(cy, w) : NULL;
    if (!out || !*out)
        return;
    cq_charge(w->admitted_cq, w, 1);
    *out = false;
    cy->whatif_removed--;
}

uint32_t preempt_whatif_end(struct ordo_cycle *cy)
{
    uint32_t left = cy->whatif_removed;
    for (uint32_t i = 0; cy->whatif_removed && i < cy->n_whatif_cands; i++)
        if (cy->whatif_out[i])
            preempt_whatif_restore(
                cy, (const struct ordo_workload *)cy->whatif_cands[i]);
    cy->whatif_cands = NULL;
    cy->whatif_out = NULL;
    cy->n_whatif_cands = 0;
    cy->whatif_removed = 0;
    return left;
}

/* ---- the policy ---------------------------------------------------------- */

static const char *policy_name(enum preemption_policy pol)
{
    switch (pol) {
    case PREEMPTION_NEVER:
        return "Never";
    case PREEMPTION_LOWER_PRIORITY:
        return "LowerPriority";
    case PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return "LowerOrNewerEqualPriority";
    case PREEMPTION_ANY:
        return "Any";
    default:
        return "unknown";
    }
}

/* Why field's policy pol refuses v to p, into why. */
static void policy_why(const char *field, enum preemption_policy pol,
                       const struct workload *p, const struct workload *v,
                       char *why, size_t size)
{
    if (pol == PREEMPTION_LOWER_PRIORITY ||
        pol == PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY)
        snprintf(why, size,
                 "%.200s: %s is %s and its priority %d is not below the "
                 "preemptor's %d%s",
                 v->key, field, policy_name(pol), v->priority, p->priority,
                 pol == PREEMPTION_LOWER_PRIORITY
                     ? ""
                     : " (nor equal, queued after the preemptor)");
    else
        snprintf(why, size, "%.200s: %s is %s", v->key, field,
                 policy_name(pol));
}

bool preempt_check_policy(struct ordo_cycle *cy, const struct entry *e,
                          struct workload *const *v, uint32_t n, char *why,
                          size_t size)
{
    const struct workload *p = e->wl;
    const struct cluster_queue *spec = &p->cq->obj->u.cluster_queue;
    for (uint32_t k = 0; k < n; k++) {
        const struct cq *cq = v[k]->admitted_cq;
        bool own = cq == p->cq;
        enum preemption_policy pol =
            own ? spec->within_cluster_queue : spec->reclaim_within_cohort;
        if (!host_policy_allows(pol, p, v[k])) {
            policy_why(own ? "withinClusterQueue" : "reclaimWithinCohort", pol,
                       p, v[k], why, size);
            return false;
        }
        if (!own && !host_cq_over_nominal_for(cy, (const struct ordo_cq *)cq)) {
            snprintf(why, size,
                     "%.200s: its ClusterQueue %.200s does not use more than "
                     "its nominal quota of what the preemptor needs",
                     v[k]->key, cq->name);
            return false;
        }
    }
    return true;
}

/* ---- the set ------------------------------------------------------------- */

/* Without fair sharing, a preemptor that still borrows after the
 * preemption reclaims from another ClusterQueue only with hierarchical
 * advantage, or under borrowWithinCohort (Kueue's
 * ReclaimWhileBorrowing). */
static bool borrowing_allows(struct ordo_cycle *cy, const struct entry *e,
                             const struct workload *v, char *why, size_t size)
{
    const struct workload *p = e->wl;
    const struct cluster_queue *spec = &p->cq->obj->u.cluster_queue;
    if (v->admitted_cq == p->cq || !e->borrows_after ||
        (cy->s->config && cy->s->config->fair_sharing) ||
        host_preemptor_advantage(cy, (const struct ordo_cq *)v->admitted_cq))
        return true;
    char what[160];
    if (spec->borrow_within_cohort != PREEMPTION_LOWER_PRIORITY)
        snprintf(what, sizeof(what), "borrowWithinCohort is Never");
    else if (v->priority >= p->priority)
        snprintf(what, sizeof(what),
                 "under borrowWithinCohort LowerPriority its priority %d is "
                 "not below the preemptor's %d",
                 v->priority, p->priority);
    else if (spec->has_max_priority_threshold &&
             v->priority > spec->max_priority_threshold)
        snprintf(what, sizeof(what),
                 "its priority %d is above borrowWithinCohort's "
                 "maxPriorityThreshold %d",
                 v->priority, spec->max_priority_threshold);
    else
        return true;
    snprintf(why, size,
             "%.200s: the preemptor would still borrow, has no hierarchical "
             "advantage over ClusterQueue %.200s, and %s",
             v->key, v->admitted_cq->name, what);
    return false;
}

/* Whether the preemptor fits the snapshot as charged now. */
static bool fits(const struct entry *e, bool allow_borrowing)
{
    return qtree_first_short(e->wl->cq->qnode, e->usage, allow_borrowing) < 0;
}

static void charge_all(struct workload *const *v, uint32_t n, int sign)
{
    for (uint32_t k = 0; k < n; k++)
        cq_charge(v[k]->admitted_cq, v[k], sign);
}

bool preempt_check_set(struct ordo_cycle *cy, const struct entry *e,
                       struct workload *const *v, uint32_t n, char *why,
                       size_t size)
{
    for (uint32_t k = 0; k < n; k++)
        if (!borrowing_allows(cy, e, v[k], why, size))
            return false;
    /* Fill-back leaves no victim that could be spared, judged as the
     * search that found the set judged fit: with borrowing, or within
     * nominal quota. Fitting only grows as usage is removed, so one pass
     * over "all removed but one" decides. */
    charge_all(v, n, -1);
    bool fit_b = fits(e, true), fit_n = fits(e, false);
    int64_t spare_b = -1, spare_n = -1;
    for (uint32_t k = 0;
         k < n && ((fit_b && spare_b < 0) || (fit_n && spare_n < 0)); k++) {
        cq_charge(v[k]->admitted_cq, v[k], 1);
        if (fit_b && spare_b < 0 && fits(e, true))
            spare_b = k;
        if (fit_n && spare_n < 0 && fits(e, false))
            spare_n = k;
        cq_charge(v[k]->admitted_cq, v[k], -1);
    }
    charge_all(v, n, 1);
    if ((fit_b && spare_b < 0) || (fit_n && spare_n < 0))
        return true;
    if (!fit_b) {
        snprintf(why, size, "victims that would not free enough quota");
        return false;
    }
    /* Within nominal implies within Available: spare_b comes first. */
    snprintf(why, size, "%u victims where fewer do: %.200s is not needed", n,
             v[spare_b]->key);
    return false;
}
