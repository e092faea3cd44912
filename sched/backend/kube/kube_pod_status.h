/* kube_pod_status.h - the PodScheduled condition Ordo writes on the pods
 * it has not placed, as kube-scheduler does (status False, reason
 * Unschedulable, the message the scheduler gives: why the workload
 * waits), and True once a pod is bound. A strategic merge patch of the
 * pod's status: conditions merge by type, so only PodScheduled changes. */
#ifndef ORDO_KUBE_POD_STATUS_H
#define ORDO_KUBE_POD_STATUS_H

#include <stdint.h>

#include <json-c/json.h>

#include "cluster.h"
#include "kube_writes.h"

#define KUBE_POD_UNSCHEDULABLE "Unschedulable"

/* {"status": {"conditions": [PodScheduled]}} for pod p (*ret, new):
 * False/Unschedulable with message (NULL: its workload's reason) while it
 * has no node, True once bound. since_ns: lastTransitionTime. 0 or
 * -ENOMEM. */
int kube_pod_scheduled(const struct pod *p, const char *message,
                       int64_t since_ns, struct json_object **ret);

/* Files it in q under "Pod/status <ns>/<name>", keeping the time while the
 * status holds. 0, -EINVAL (the pod has no name) or -ENOMEM. */
int kube_pod_status_put(struct kube_writes *q, const struct pod *p,
                        const char *message, int64_t now_ns);

#endif
