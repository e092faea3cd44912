/* preempt.h - preemption as the cycle carries it out (preempt.c), and the
 * host's checks on the PREEMPT plugin (preempt_check.c). Above placement
 * (a preemption must let the preemptor's pods fit) and the host table's
 * Kueue computations; the cycle calls it, never the other way round. */
#ifndef ORDO_PREEMPT_H
#define ORDO_PREEMPT_H

#include "place.h"

/* What a PREEMPT entry's try came to (errors apart). */
enum preempt_outcome {
    PREEMPT_ISSUED,  /* victims are being evicted: the entry waits at the
                        head of its ClusterQueue, its reason set */
    PREEMPT_NONE,    /* nothing to preempt, or no victims chosen */
    PREEMPT_REFUSED, /* the host refused the plugin's answer (its checks,
                        preempt_check.c): nothing evicted */
};

/* Runs the PREEMPT plugin for a PREEMPT entry and evicts the victims it
 * chose once the host agrees they help. 0 with the outcome in
 * *ret_outcome (e->reason says why when not PREEMPT_ISSUED), or
 * -ENOMEM. */
int preempt_try(struct ordo_cycle *cy, struct entry *e,
                enum preempt_outcome *ret_outcome);

/* Charges (sign 1) or releases (-1) a preemptor's usage on its
 * ClusterQueue for the rest of the cycle. */
void preempt_hold_usage(const struct qtree *t, struct entry *e, int sign);

/* A PREEMPT entry that found nothing to preempt: holds, for the rest of
 * the cycle, the quota it waits for where its ClusterQueue cannot always
 * reclaim (reclaimWithinCohort not Any). */
void preempt_reserve(struct ordo_cycle *cy, struct entry *e);

/* A preemptor whose QUOTA plugin answer no longer fits: places it with the
 * flavors it preempted for. 0 with *ret_outcome: PLACE_PLACED with the
 * pods in *ret (as place_gang) and e's assignment, usage and borrowing
 * switched to those flavors; PLACE_NO_ROOM when it has none to try or they
 * do not fit quota or nodes now, e unchanged. -ENOMEM. */
int preempt_place_as_preempted(struct ordo_cycle *cy, struct entry *e,
                               struct placement *ret,
                               enum place_outcome *ret_outcome);

/* Evicts victim: records by whom (a workload key when preemptor, else
 * why) and Kueue's reason class (static, may be NULL), then asks the
 * backend to evict each bound pod. */
void preempt_evict(struct ordo_cycle *cy, struct workload *victim,
                   const char *by, bool preemptor, const char *class);

/* ---- preempt_check.c: the host's checks on the PREEMPT plugin --------- */

/* What-if removals lent to the plugin (host->whatif_remove / whatif_restore):
 * only of the op's candidates (cands, n of them, sorted by seq; out is
 * scratch for n flags), each at most once; a second removal, or a restore
 * of a workload not removed, is a no-op. */
void preempt_whatif_begin(struct ordo_cycle *cy, struct workload *const *cands,
                          bool *out, uint32_t n);
void preempt_whatif_remove(struct ordo_cycle *cy,
                           const struct ordo_workload *wl);
void preempt_whatif_restore(struct ordo_cycle *cy,
                            const struct ordo_workload *wl);
/* Ends the op: puts back what the plugin left removed and returns how
 * many there were. */
uint32_t preempt_whatif_end(struct ordo_cycle *cy);

/* Kueue's preemption policy of the preemptor's ClusterQueue, re-checked
 * for each of the n victims the plugin chose, before any is removed:
 * withinClusterQueue for those of its own ClusterQueue; for the others
 * reclaimWithinCohort, and their ClusterQueue uses more than its nominal
 * quota on a (flavor, resource) the preemptor needs (cy->wl, need and
 * short_fr set). false with why ("victim: rule broken") set. */
bool preempt_check_policy(struct ordo_cycle *cy, const struct entry *e,
                          struct workload *const *v, uint32_t n, char *why,
                          size_t size);

/* After preemption_helps (e->borrows_after known): without fair sharing,
 * a preemptor still borrowing takes from other ClusterQueues only with
 * hierarchical advantage or under borrowWithinCohort; and the set is
 * minimal as Kueue's fill-back leaves it, within Available or within
 * nominal quota (no victim can be spared). false with why set. */
bool preempt_check_set(struct ordo_cycle *cy, const struct entry *e,
                       struct workload *const *v, uint32_t n, char *why,
                       size_t size);

#endif
