/* recover.h - the admission a workload's bound pods record (recover.c):
 * after a restart, or when Ordo starts next to a running cluster, pods
 * that are already bound carry the admission they were bound under
 * (ANNOT_ADMISSION_* in cluster.h, written by the Kubernetes backend's
 * Binding). Reading the record decides nothing: queueing.c admits the
 * workload with it, or evicts it whole when it cannot be honoured.
 * Private to the cache. */
#ifndef ORDO_RECOVER_H
#define ORDO_RECOVER_H

#include "store.h"

/* What a workload's bound pods record. */
struct recorded {
    struct cq *cq;
    /* Per pod set per resource group of cq ([ps * cq->n_groups + g]), NULL
     * where the pod set takes nothing of the group; owned (free it). */
    struct flavor **flavors;
    char why[256]; /* when the record cannot be honoured */
};

/* Reads the admission the bound pods of w record, the first bound pod's
 * when they disagree (each disagreement logged). Returns 0 when no bound
 * pod records one (the caller infers), 1 with *ret filled, -EINVAL when
 * the record cannot be honoured (its ClusterQueue or a flavor no longer
 * exists or is no longer listed, a pod set has no record or a malformed
 * one: ret->why says which), or -ENOMEM. */
int recover_read(const struct cluster *c, const struct workload *w,
                 struct recorded *ret);

/* Whether pod p of w finished (Succeeded or Failed) on a node under a
 * recorded admission while w's Job or JobSet runs unsuspended: w was
 * admitted then and still is (Kueue suspends a Job it evicts), though
 * none of its pods may be bound now (all that ran finished, one whose
 * bind was cut short still to place). */
bool recover_pod_ran(const struct workload *w, const struct pod *p);

/* Whether what w's charges (workload_record_charges) take of its admitted
 * ClusterQueue fits there now, borrowing included (Kueue's
 * workloadFits); *ret_fr names the (flavor, resource) that does not. 1,
 * 0, or -ENOMEM. */
int recover_fits(const struct workload *w, char *ret_fr, size_t n);

#endif
