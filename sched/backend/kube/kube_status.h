/* kube_status.h - the status the Kubernetes backend writes back: after
 * each scheduler_run() the Workload objects, ClusterQueue and LocalQueue
 * status and the PodScheduled condition of pods that wait go into the
 * write queue (kube_writes.h, which sends only what changed): those the
 * scheduler's change lists name (scheduler_take_changes, its usage
 * changes), everything at the first cycle and every
 * KUBE_STATUS_RESYNC_NS; with the
 * Events Scheduled, FailedScheduling (when a pod's reason changes),
 * Preempted and one on each object the decoder refused; the queue drains
 * through krequest.h, asynchronously, and a write that fails is sent
 * whole again (kube_writes_failed()). Off unless
 * kube_backend_options.write_status. */
#ifndef ORDO_KUBE_STATUS_H
#define ORDO_KUBE_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kube_backend.h"

struct pod;

/* Defaults of --write-qps and --write-burst: a 2,000-pod batch makes about
 * 4,000 writes (an Event and a Workload per admission, their status), so
 * 100 a second keeps status within seconds of decisions, under the client's
 * 200 so binds keep their share. */
#define KUBE_STATUS_RATE  100 /* writes a second */
#define KUBE_STATUS_BURST 400 /* at once */
/* After each cycle only what the change lists name is filed; everything
 * is filed again this often (a safety net: the queue sends only what
 * differs). */
#define KUBE_STATUS_RESYNC_NS (INT64_C(300) * 1000000000)

/* Sets the queue and the event recorder up (when write_status). 0 or
 * -ENOMEM. */
int kube_status_init(struct kube_backend *kb);
/* Cancels the writes in flight and frees the queue and the recorder. */
void kube_status_release(struct kube_backend *kb);

/* Events on what the backend did (no-ops when writes are off). */
void kube_status_scheduled(struct kube_backend *kb, const char *pod_key);
void kube_status_preempted(struct kube_backend *kb, const struct pod *p);
void kube_status_rejected(struct kube_backend *kb, struct json_object *obj,
                          const char *why);
/* A watched object was deleted (a Pod, ClusterQueue or LocalQueue, by
 * kind and key): its status writes are forgotten once the last is out. */
void kube_status_object_gone(struct kube_backend *kb, enum kube_res res,
                             const char *key);
/* The uid the API server gave workload wl_key's Workload object (from
 * its POST's answer, or read after a 409), or NULL. */
const char *kube_status_workload_uid(const struct kube_backend *kb,
                                     const char *wl_key);
/* kube_evict's refused hook (data: the backend): a Warning Event
 * EvictionRefused on the pod, its message why; the recorder makes
 * repeats one Event with a count. */
void kube_status_evict_refused(void *data, const char *pod_key, const char *why,
                               bool first);

#endif
