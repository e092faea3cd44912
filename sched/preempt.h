/* preempt.h - preemption as the cycle carries it out (preempt.c). */
#ifndef ORDO_PREEMPT_H
#define ORDO_PREEMPT_H

#include "cycle.h"

/* Runs the PREEMPT plugin for a PREEMPT entry and evicts the victims it
 * chose once the host agrees they help. Returns 1 when preemptions were
 * issued (the entry waits at the head of its queue, its reason set), 0 when
 * none (reason set), -ENOMEM. */
int preempt_try(struct ordo_cycle *cy, struct entry *e);

/* Charges (sign 1) or releases (-1) a preemptor's usage on its
 * ClusterQueue for the rest of the cycle. */
void preempt_hold_usage(const struct qtree *t, struct entry *e, int sign);

/* A PREEMPT entry that found nothing to preempt: holds, for the rest of
 * the cycle, the quota it waits for where its ClusterQueue cannot always
 * reclaim (reclaimWithinCohort not Any). */
void preempt_reserve(struct ordo_cycle *cy, struct entry *e);

/* Gives back the node room a preemptor held since its victims left. */
void preempt_release_room(struct cluster *c, struct workload *w);

/* A preemptor whose QUOTA plugin answer no longer fits: places it with the
 * flavors it preempted for. 0 with the pods placed (as place_gang), 1 when
 * that does not fit either, -ENOMEM. */
int preempt_place_as_preempted(struct ordo_cycle *cy, struct entry *e,
                               struct pod ***ret_pods, struct node ***ret_nodes,
                               size_t *ret_n);

/* Evicts victim: records by whom (a workload key when preemptor, else
 * why) and Kueue's reason class (static, may be NULL), then asks the
 * backend to evict each bound pod. */
void preempt_evict(struct ordo_cycle *cy, struct workload *victim,
                   const char *by, bool preemptor, const char *class);

#endif
