/* cycle.h - the state of one scheduling cycle, shared by the cycle
 * (cycle.c, place.c, preempt.c) and the host table (host.c): the entry
 * being decided, its assignment and the reason the current plugin gave. */
#ifndef ORDO_CYCLE_H
#define ORDO_CYCLE_H

#include "scheduler_int.h"

struct arena;

/* One scheduling cycle (cycle.c): heads, nomination, order, then each
 * entry's quota re-check, preemption, placement and commit. Returns the
 * admissions made, or a negative errno. */
int cycle_run(struct scheduler *s);

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
    /* What-if removals (host.c) during a PREEMPT op: its candidates, by
     * seq, which of them are removed now, and how many. */
    struct workload *const *sim_cands;
    bool *sim_out;
    uint32_t n_sim_cands, sim_removed;
    char reason[REASON_MAX];
};

/* One head in a cycle: what the QUOTA plugin answered and what the host
 * made of it (cycle.c, preempt.c). */
struct entry {
    struct workload *wl;
    struct flavor **assign;
    enum ordo_quota_mode mode;
    enum ordo_verdict verdict;
    uint32_t borrowing;
    int64_t *usage; /* per FR of the quota tree: what admitting it takes */
    bool borrows_after; /* a preemptor: still borrows with its victims gone */
    bool done;
    bool reserved; /* a preemptor: its usage is held for the cycle */
    /* Its queue's requeue generation when it became the head: a wake-up
     * during the cycle (an eviction freeing quota) is not lost. */
    uint64_t gen;
    char reason[REASON_MAX];
};

/* Clears the entry state for wl (allocating its assignment in scratch). */
int cycle_begin_entry(struct ordo_cycle *cy, struct workload *wl);

/* A plugin's verdict, anything unknown taken as ORDO_ERROR. */
static inline enum ordo_verdict cycle_verdict(int v)
{
    return v >= ORDO_OK && v <= ORDO_ERROR ? (enum ordo_verdict)v : ORDO_ERROR;
}

/* What admitting e takes, per FR of the quota tree, into e->usage (cycle
 * scratch); false with why set when a requested resource has no assigned
 * flavor its ClusterQueue lists. */
bool cycle_entry_usage(struct ordo_cycle *cy, struct entry *e, char *why,
                       size_t size);

/* The host's own check of e's assignment against the snapshot as charged
 * so far this cycle (Kueue's Available); false with why set. */
bool cycle_quota_recheck(struct ordo_cycle *cy, struct entry *e, char *why,
                         size_t size);

/* Sets w->preempting, keeping the cluster's count of them. */
void cycle_set_preempting(struct cluster *c, struct workload *w, bool on);

#endif
