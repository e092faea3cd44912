/* node_fit.h - what the host itself requires of a node before any PLACE
 * plugin sees it (node_fit.c): whatever plugins are configured, a pod is
 * never bound to a node that lacks room, is cordoned, NotReady or being
 * deleted, lacks a nodeLabel of a flavor assigned to its pod set, or has a
 * NoSchedule/NoExecute taint that neither the pod set nor those flavors
 * tolerate. Plugins only narrow and rank within that. */
#ifndef ORDO_NODE_FIT_H
#define ORDO_NODE_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "entry.h"

/* The checks of one placement (one workload, the cycle's assignment): what
 * does not change while its pods are placed is decided once per
 * (pod set, node) and kept in cycle scratch. */
struct node_fit {
    struct ordo_cycle *cy;
    const struct workload *wl;
    uint32_t n_nodes;
    /* [ps * n_nodes + node index]: NODE_FIT_UNKNOWN, _OK or _REFUSED; NULL
     * when scratch ran out, then every check is made in full. */
    uint8_t *known;
};

/* Starts the checks of the placement of n_pods pods of wl in cy
 * (cy->assign its flavors). */
void node_fit_begin(struct node_fit *nf, struct ordo_cycle *cy,
                    const struct workload *wl, size_t n_pods);

/* True when one pod of pod set ps (pod: its requests) may go on n. False
 * with the reason in cy->reason, e.g. "node a100-1 lacks label
 * gpu=h100 of flavor h100"; when want_reason is false a refusal already
 * known may leave cy->reason as it was (callers keep the first reason
 * only). */
bool node_fit_check(struct node_fit *nf, uint32_t ps, const struct pod *pod,
                    const struct node *n, bool want_reason);

#endif
