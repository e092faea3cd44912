/* sim_int.h - what the parts of the simulator share (sim.c: clock, events,
 * loading; sim_jobs.c: the emulated Job/JobSet controllers; sim_check.c:
 * invariants). Not an interface for anything outside the simulator. */
#ifndef ORDO_SIM_INT_H
#define ORDO_SIM_INT_H

#include <uthash.h>

#include "sim.h"

struct sim_event;

/* A value last seen under a string key (usage samples, invariants). */
struct last_value {
    char *key;
    int64_t usage;
    uint64_t tree_gen; /* invariants: the tree the usage was read from */
    UT_hash_handle hh;
};

/* --sim-check: what the invariants remember between instants. */
struct sim_checker {
    struct last_value *checked; /* usage at the last check */
    FILE *out;                  /* where violations are printed */
};

struct sim {
    struct scheduler s;
    const struct sim_options *opt;
    struct sim_event *heap;
    size_t n_heap, cap_heap;
    uint64_t seq;
    size_t processed;
    struct sim_history history;
    struct last_value *last;
    struct sim_checker check;
    bool tty;
    size_t violations;
};

/* a + b for times (ns >= 0), saturating at INT64_MAX: an instant that far
 * away never comes. */
static inline int64_t sim_time_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Files an object in the cluster at the current time (sim.c). */
int sim_add(struct sim *sm, struct object *o);

/* The controllers (sim_jobs.c): reconcile every workload whose pods or
 * state changed since the last call, in creation order. 0 or -ENOMEM. */
int sim_reconcile_changed(struct sim *sm);

/* The invariants (sim_check.c) of cluster c at its current time: prints
 * each violation on ck->out and returns how many. */
size_t sim_check_invariants(struct sim_checker *ck, const struct cluster *c);
/* Frees what the checker remembers. */
void sim_checker_release(struct sim_checker *ck);

/* Frees every entry of a last_value hash. */
void sim_last_values_free(struct last_value **h);

#endif
