/* visibility.h - pending workloads per ClusterQueue and LocalQueue, in
 * the order the cycle takes them, as Kueue's visibility API serves them
 * (PendingWorkloadsSummary, visibility.kueue.x-k8s.io/v1beta2), with the
 * reason each one waits. Reads the scheduler as a backend does. */
#ifndef ORDO_VISIBILITY_H
#define ORDO_VISIBILITY_H

#include <stddef.h>

#include "scheduler.h"

#define VISIBILITY_GROUP   "visibility.kueue.x-k8s.io"
#define VISIBILITY_VERSION "v1beta2"

#define VISIBILITY_LIMIT_DEFAULT 1000   /* Kueue's */
#define VISIBILITY_LIMIT_MAX     100000 /* Kueue's cap */

/* The PendingWorkloadsSummary of ClusterQueue cq (lq NULL), or of
 * LocalQueue ns/lq (cq NULL), items offset..offset+limit, as JSON into
 * *ret (free it). 0, -ENOENT (no such queue) or -ENOMEM. */
int visibility_pending(struct scheduler *s, const char *cq, const char *ns,
                       const char *lq, size_t offset, size_t limit, char **ret);

/* Every ClusterQueue's pending count and first `limit` workloads, as JSON
 * ({"clusterQueues": [{"name", "pending", "items"}]}). 0 or -ENOMEM. */
int visibility_overview(struct scheduler *s, size_t limit, char **ret);

/* The discovery documents an aggregated API server serves, for path
 * "/apis" (APIGroupList), "/apis/GROUP" (APIGroup) or
 * "/apis/GROUP/VERSION" (APIResourceList), a trailing "/" allowed: static
 * JSON, or NULL for any other path. */
const char *visibility_discovery(const char *path);

#endif
