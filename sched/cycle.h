/* cycle.h - the state of one scheduling cycle, shared by the cycle
 * (cycle.c) and the host table (host.c): the entry being decided, its
 * assignment and the reason the current plugin gave. */
#ifndef ORDO_CYCLE_H
#define ORDO_CYCLE_H

#include "scheduler.h"

struct arena;

struct ordo_cycle {
    struct scheduler *s;
    struct cluster *c;
    struct arena *scratch; /* host->cycle_alloc, freed at cycle end */
    struct workload *wl;   /* the entry being decided */
    struct flavor **assign; /* [ps * n_groups + g] for wl->cq */
    uint32_t borrowing; /* level the QUOTA plugin reported */
    const int64_t *need; /* preemption: what the preemptor takes, per FR */
    const int64_t *short_fr; /* of it, the FRs that do not fit now (> 0):
                                the ones preemption is for */
    int sim_removed;     /* what-if removals not yet put back */
    char reason[256];
};

/* Clears the entry state for wl (allocating its assignment in scratch). */
int cycle_begin_entry(struct ordo_cycle *cy, struct workload *wl);

#endif
