/* changes.h - what changed since a backend last asked, for its status
 * writes (scheduler_take_changes, scheduler.h): the workloads whose
 * record changed (state, pods, reason, history) or that left, and the
 * ClusterQueues and LocalQueues they were in. Off until the first take,
 * so that a backend that never asks pays nothing. */
#ifndef ORDO_CHANGES_H
#define ORDO_CHANGES_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"

enum { CHANGES_WORKLOADS = 0, CHANGES_CQS, CHANGES_LQS, CHANGES_KINDS };

/* Notes that w changed (its key, its ClusterQueues, its LocalQueue "ns/lq");
 * nothing while tracking is off. Out of memory makes the next take say
 * "everything". */
void changes_note(const struct cluster *c, const struct workload *w);
/* Hands over what changed (ret[k]: ret_n[k] strings, each and the arrays
 * owned by the caller) and starts anew; *ret_all: treat everything as
 * changed (the first take, or a key lost). 0 or -ENOMEM (nothing lost). */
int changes_take(struct cluster *c, char **ret[CHANGES_KINDS],
                 size_t ret_n[CHANGES_KINDS], bool *ret_all);
/* Frees ch. Accepts NULL. */
void changes_free(struct cluster_changes *ch);

#endif
