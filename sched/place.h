/* place.h - node placement of a workload's pods (place.c). */
#ifndef ORDO_PLACE_H
#define ORDO_PLACE_H

#include "cycle.h"

/* Places `count` pending pods of every pod set of wl (with all_pending,
 * every pending pod instead), all or nothing. Returns 0 with the pods
 * assumed on their nodes (node usage charged) and listed in ret_pods /
 * ret_nodes (cycle scratch memory, n entries); 1 when they do not all fit,
 * nothing charged and cy->reason saying why; -ENOMEM. */
int place_gang(struct ordo_cycle *cy, struct workload *wl, bool all_pending,
               struct pod ***ret_pods, struct node ***ret_nodes, size_t *ret_n);

/* Binds pods assumed on their nodes through the backend; a pod the backend
 * refuses goes back to pending and its workload to the stragglers. */
void place_bind(struct ordo_cycle *cy, struct pod **pods, struct node **nodes,
                size_t n);

#endif
