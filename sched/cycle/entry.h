/* entry.h - the state of one scheduling cycle and of the entry being
 * decided, shared by its phases (cycle.c, fair_share.c), preemption
 * (preempt.c, preempt_check.c), placement (place.c) and the host table
 * (host_table.c, host_kueue.c): the cycle's snapshot and scratch, the
 * assignment and the reason the current plugin gave; what admitting an
 * entry takes, and the host's own quota re-check of it (entry.c).
 *
 * Below every other file of sched/cycle: entry.c calls none of them. */
#ifndef ORDO_ENTRY_H
#define ORDO_ENTRY_H

#include "scheduler_int.h"

struct arena;

struct ordo_cycle {
    struct scheduler *s;
    struct cluster *c;
    struct arena *scratch;   /* host->cycle_alloc, freed at cycle end */
    struct workload *wl;     /* the entry being decided */
    struct flavor **assign;  /* [ps * n_groups + g] for wl->cq */
    uint32_t borrowing;      /* level the QUOTA plugin reported */
    const int64_t *need;     /* preemption: what the preemptor takes, per FR */
    const int64_t *short_fr; /* of it, the FRs that do not fit now (> 0):
                                the ones preemption is for */
    /* What-if removals (preempt_check.c) during a PREEMPT op: its
     * candidates, by seq, which of them are removed now, and how many. */
    struct workload *const *whatif_cands;
    bool *whatif_out;
    uint32_t n_whatif_cands, whatif_removed;
    char reason[REASON_MAX];
};

/* One head in a cycle: what the QUOTA plugin answered and what the host
 * made of it. */
struct entry {
    struct workload *wl;
    struct flavor **assign;
    enum ordo_quota_mode mode;
    enum ordo_verdict verdict;
    uint32_t borrowing;
    int64_t *usage;     /* per FR of the quota tree: what admitting it takes */
    bool borrows_after; /* a preemptor: still borrows with its victims gone */
    bool done;
    bool reserved; /* a preemptor: its usage is held for the cycle */
    /* Its ClusterQueue's requeue generation when it became the head: a
     * wake-up during the cycle (an eviction freeing quota) is not lost. */
    uint64_t gen;
    char reason[REASON_MAX];
};

/* Clears the entry state of cy for wl (allocating its assignment in
 * scratch). 0 or -ENOMEM. */
int entry_begin(struct ordo_cycle *cy, struct workload *wl);

/* A plugin's verdict, anything unknown taken as ORDO_ERROR. */
static inline enum ordo_verdict entry_verdict(int v)
{
    return v >= ORDO_OK && v <= ORDO_ERROR ? (enum ordo_verdict)v : ORDO_ERROR;
}

/* What admitting e takes, per FR of the quota tree, into e->usage (cycle
 * scratch); false with why set when a requested resource has no assigned
 * flavor its ClusterQueue lists. */
bool entry_usage(struct ordo_cycle *cy, struct entry *e, char *why,
                 size_t size);

/* The host's own check of e's assignment against the snapshot as charged
 * so far this cycle (Kueue's Available); false with why set. */
bool entry_quota_recheck(struct ordo_cycle *cy, struct entry *e, char *why,
                         size_t size);

/* Sets w->preempting, keeping the cluster's count of them. */
void entry_set_preempting(struct cluster *c, struct workload *w, bool on);

/* The admission order of entries (qsort): a workload that issued
 * preemptions first, then lower borrowing level, higher priority, earlier
 * queue time, name. */
int entry_cmp(const void *a, const void *b);

#endif
