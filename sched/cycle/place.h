/* place.h - node placement of a workload's pods (place.c). */
#ifndef ORDO_PLACE_H
#define ORDO_PLACE_H

#include "cycle.h"

/* Places `count` pending pods of every pod set of wl (with all_pending,
 * every pending pod instead), all or nothing; for a job created suspended,
 * which has no pods yet, planned ones (place_planned). Returns 0 with the pods
 * assumed on their nodes (node usage charged) and listed in ret_pods /
 * ret_nodes (cycle scratch memory, n entries); 1 when they do not all fit,
 * nothing charged and cy->reason saying why; -ENOMEM. */
int place_gang(struct ordo_cycle *cy, struct workload *wl, bool all_pending,
               struct pod ***ret_pods, struct node ***ret_nodes, size_t *ret_n);

/* Plans a Job or JobSet that has no pods yet (created suspended, admitted
 * Kueue's way): places a stand-in for every pod of every pod set, all or
 * nothing. Returns 0 with them charged on their nodes, in ret_pods /
 * ret_nodes (n entries, cycle scratch; the pods themselves on the heap, to
 * free with cluster_planned_pod_free unless cluster_hold_room takes them); 1 when they do
 * not all fit, nothing charged and cy->reason saying why; -ENOMEM. */
int place_planned(struct ordo_cycle *cy, struct workload *wl,
                  struct pod ***ret_pods, struct node ***ret_nodes,
                  size_t *ret_n);

/* Binds pods assumed on their nodes through the backend; a pod the backend
 * refuses goes back to pending and its workload to the stragglers. */
void place_bind(struct ordo_cycle *cy, struct pod **pods, struct node **nodes,
                size_t n);

#endif
