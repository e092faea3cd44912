/* fair_share.h - the admission order of a cycle with fair sharing on
 * (fair_share.c). */
#ifndef ORDO_FAIR_SHARE_H
#define ORDO_FAIR_SHARE_H

#include "entry.h"

/* The next of the n entries to process (NULL when all are done):
 * preemptors first, then trees in the order of their first remaining
 * entry, and within a tree the tournament winner from its root. */
struct entry *fair_share_next(struct ordo_cycle *cy, struct entry *entries,
                              size_t n);

#endif
