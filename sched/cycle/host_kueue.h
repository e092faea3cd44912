/* host_kueue.h - the Kueue-specific computations of the host table
 * (host_kueue.c), for host_table.c to put in the table and for the host's
 * own checks on the PREEMPT plugin (preempt.c, preempt_check.c) to call
 * directly; and the handle casts both table files use. Each host_<slot>
 * function is the ordo_host slot of that name (ordo/plugin.h says what it
 * answers). */
#ifndef ORDO_HOST_KUEUE_H
#define ORDO_HOST_KUEUE_H

#include <ordo/plugin.h>

#include "entry.h"

/* Plugins see opaque handles; they are the scheduler's own structs. */
#define WL(h) ((const struct workload *)(h))
#define CQ(h) ((const struct cq *)(h))
#define FL(h) ((const struct flavor *)(h))
#define ND(h) ((const struct node *)(h))

/* Pod set ps of wl, or NULL when there is none. */
static inline const struct podset *host_podset(const struct ordo_workload *wl,
                                               uint32_t ps)
{
    return ps < WL(wl)->n_podsets ? &WL(wl)->podsets[ps] : NULL;
}

/* Where (f, id) is in cq's quota: the index into its group's
 * [flavor][resource] arrays, the group in ret_group; -1 when cq does not
 * list the pair. */
int host_cq_slot(const struct cq *cq, const struct flavor *f, int32_t id,
                 const struct cq_group **ret_group);

/* Kueue's preemption policy predicate (withinClusterQueue,
 * reclaimWithinCohort values): whether preemptor p may preempt v. */
bool host_policy_allows(enum preemption_policy pol, const struct workload *p,
                        const struct workload *v);

/* Pod sets against flavors (Kueue's checkFlavorForPodSets). */
bool host_ps_matches_flavor(const struct ordo_workload *wl, uint32_t ps,
                            const struct ordo_flavor *f);
const char *host_ps_flavor_mismatch(const struct ordo_workload *wl, uint32_t ps,
                                    const struct ordo_flavor *f, char *buf,
                                    size_t size);

/* Quota over the cohort tree. */
int64_t host_cq_available(struct ordo_cycle *cy, const struct ordo_cq *cq,
                          const struct ordo_flavor *f, ordo_resource_id id);
int64_t host_cq_potential_available(struct ordo_cycle *cy,
                                    const struct ordo_cq *cq,
                                    const struct ordo_flavor *f,
                                    ordo_resource_id id);
uint32_t host_cq_borrowing_level(struct ordo_cycle *cy,
                                 const struct ordo_cq *cq,
                                 const struct ordo_flavor *f,
                                 ordo_resource_id id, int64_t request);
bool host_cq_fits_below_root(const struct ordo_cq *cq,
                             const struct ordo_flavor *f, ordo_resource_id id,
                             int64_t request);

/* Preemption: cy->wl is the preemptor, cy->need what it takes. */
bool host_cq_over_nominal_for(struct ordo_cycle *cy, const struct ordo_cq *cq);
bool host_preemptor_fits(struct ordo_cycle *cy, bool allow_borrowing);
int64_t host_fs_preemptor_share(struct ordo_cycle *cy,
                                const struct ordo_cq *target);
int64_t host_fs_target_share(struct ordo_cycle *cy,
                             const struct ordo_cq *target);
bool host_preemption_candidates(struct ordo_cycle *cy,
                                const struct ordo_flavor *f,
                                ordo_resource_id id);
uint32_t host_preemption_candidate_queues(struct ordo_cycle *cy,
                                          const struct ordo_flavor *f,
                                          ordo_resource_id id);
bool host_preemptor_advantage(struct ordo_cycle *cy,
                              const struct ordo_cq *target);
int64_t host_fs_next_target(struct ordo_cycle *cy,
                            const struct ordo_cq *const *cqs,
                            const int64_t *rank, uint32_t n);

#endif
