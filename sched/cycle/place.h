/* place.h - node placement of a workload's pods (place.c). */
#ifndef ORDO_PLACE_H
#define ORDO_PLACE_H

#include "entry.h"

/* What a placement came to (errors apart: the functions return 0 or a
 * negative errno). */
enum place_outcome {
    PLACE_PLACED,  /* every pod assumed on a node, node usage charged */
    PLACE_NO_ROOM, /* not all fit: nothing charged, cy->reason says why */
};

/* Pods and the nodes they are assumed on, pods[i] on nodes[i]; the arrays
 * are cycle scratch. */
struct placement {
    struct pod **pods;
    struct node **nodes;
    size_t n;
};

/* Places `count` pending pods of every pod set of wl (with all_pending,
 * every pending pod instead), all or nothing; for a job created suspended,
 * which has no pods yet, planned ones (place_planned). 0 with the outcome
 * in *ret_outcome and, when PLACE_PLACED, the pods in *ret; -ENOMEM. */
int place_gang(struct ordo_cycle *cy, struct workload *wl, bool all_pending,
               struct placement *ret, enum place_outcome *ret_outcome);

/* Plans a Job or JobSet that has no pods yet (created suspended, admitted
 * Kueue's way): places a stand-in for every pod of every pod set, all or
 * nothing. As place_gang; the stand-ins themselves are on the heap, to
 * free with cluster_planned_pod_free unless cluster_hold_room takes
 * them. */
int place_planned(struct ordo_cycle *cy, struct workload *wl,
                  struct placement *ret, enum place_outcome *ret_outcome);

/* Undoes a placement that is not committed: its pods leave their nodes;
 * planned ones are freed. */
void place_undo(const struct placement *pl);

/* Binds pods assumed on their nodes through the backend; a pod the backend
 * refuses goes back to pending and its workload to the stragglers. */
void place_bind(struct ordo_cycle *cy, const struct placement *pl);

#endif
