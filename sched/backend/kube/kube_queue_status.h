/* kube_queue_status.h - the status Ordo writes on Kueue's queues:
 * ClusterQueue status (workload counts, reservation and usage per flavor
 * and resource with what is borrowed, condition Active with Kueue's
 * reasons) and LocalQueue status (counts, its workloads' usage per
 * flavor, Active). Pure builders returning new json-c objects
 * {"status": {...}}, and the puts that file them in the write queue. */
#ifndef ORDO_KUBE_QUEUE_STATUS_H
#define ORDO_KUBE_QUEUE_STATUS_H

#include <stdint.h>

#include <json-c/json.h>

#include "cluster.h"
#include "kube_writes.h"

/* Kueue's Active reason for q: "Ready" when active, else "Terminating",
 * "Stopped", "FlavorNotFound", "AdmissionCheckNotFound",
 * "AdmissionCheckInactive" or "Unknown" (a cohort cycle). Static. */
const char *kube_cq_active_reason(const struct cq *q);

/* q's status (*ret, new); Active's lastTransitionTime is now_ns. 0 or
 * -ENOMEM. */
int kube_cq_status(const struct cluster *c, const struct cq *q, int64_t now_ns,
                   struct json_object **ret);
/* The status of LocalQueue key ("ns/name") (*ret, new). It counts the
 * cluster's workloads (one pass). 0, -ENOENT (no such LocalQueue) or
 * -ENOMEM. */
int kube_lq_status(const struct cluster *c, const char *key, int64_t now_ns,
                   struct json_object **ret);

/* File them in q under "ClusterQueue/status <name>" and
 * "LocalQueue/status <ns>/<name>", keeping Active's time while its status
 * holds. 0 or a negative errno. */
int kube_cq_status_put(struct kube_writes *q, const struct cluster *c,
                       const struct cq *cq, int64_t now_ns);
int kube_lq_status_put(struct kube_writes *q, const struct cluster *c,
                       const char *key, int64_t now_ns);

#endif
