/* kube_events.h - Kubernetes Events from Ordo (core/v1 Events, as
 * client-go's tools/record writes them): Scheduled and FailedScheduling on
 * pods, Preempted on the Workloads of preemption victims, with
 * involvedObject, source and reportingComponent "ordo-scheduler".
 *
 * The recorder correlates as client-go's EventCorrelator does
 * (tools/record/events_cache.go): an event seen again (same object, type,
 * reason and message) is the same Event with its count raised; past 10
 * different messages for one (object, type, reason) within 10 minutes
 * they are combined into one Event "(combined from similar events): ...";
 * and a token bucket per (source, object, type), burst 25, one more every
 * 5 minutes, drops the rest. Each cache keeps its 4096 most recent keys.
 * Events that pass go to the write queue (kube_writes.h): a POST the first
 * time, then patches of count, lastTimestamp and message. Times are the
 * caller's clock (ns). */
#ifndef ORDO_KUBE_EVENTS_H
#define ORDO_KUBE_EVENTS_H

#include <stdint.h>

#include "cluster.h"
#include "kube_workload.h"
#include "kube_writes.h"

#define KUBE_EVENTS_BURST     25
#define KUBE_EVENTS_REFILL_NS (INT64_C(300) * 1000000000)
#define KUBE_EVENTS_AGG_MAX   10
#define KUBE_EVENTS_AGG_NS    (INT64_C(600) * 1000000000)
#define KUBE_EVENTS_CACHE_MAX 4096
#define KUBE_EVENTS_COMBINED  "(combined from similar events): "

/* The object an event is about (strings borrowed for the call). */
struct kube_event_obj {
    const char *api_version, *kind, *ns, *name, *uid;
};

struct kube_ev_entry;

struct kube_recorder {
    struct kube_writes *q;                  /* not owned */
    char *instance;                         /* reportingInstance, source.host */
    struct kube_ev_entry *spam, *agg, *log; /* uthash, oldest first */
    /* Recorded, dropped by the spam filter, combined by aggregation, and
     * raised counts of events seen again. */
    uint64_t recorded, dropped, combined, repeated;
};

/* A recorder writing to q; instance names this scheduler (its host or pod
 * name; NULL: none). 0 or -ENOMEM. */
int kube_events_init(struct kube_recorder *r, struct kube_writes *q,
                     const char *instance);
/* Frees the caches. Accepts NULL. */
void kube_events_release(struct kube_recorder *r);

/* Records an event of type ("Normal", "Warning") and reason about obj at
 * now_ns. Returns 1 when it went to the write queue, 0 when the spam
 * filter dropped it, or -ENOMEM / -EINVAL (obj has no name or
 * namespace). */
int kube_events_record(struct kube_recorder *r, int64_t now_ns,
                       const struct kube_event_obj *obj, const char *type,
                       const char *reason, const char *message);

/* kube-scheduler's events: Scheduled ("Successfully assigned ns/pod to
 * node") and FailedScheduling (Warning, message: why; NULL: the pod's
 * workload's reason). */
int kube_events_scheduled(struct kube_recorder *r, int64_t now_ns,
                          const struct pod *p, const struct node *n);
int kube_events_failed_scheduling(struct kube_recorder *r, int64_t now_ns,
                                  const struct pod *p, const char *message);
/* Kueue's Preempted event on the Workload of victim w, with the message of
 * its Preempted condition. -EINVAL when w was not preempted. */
int kube_events_preempted(struct kube_recorder *r, int64_t now_ns,
                          const struct cluster *c, const struct workload *w,
                          const struct kube_wl_opts *o);

#endif
