/* history.h - a workload's history in the scheduler's clock: what happened
 * to it and when (created, each admission, its pods placed, each eviction
 * and who caused it, each change of the reason it waits, finished). The
 * what-if tool's --explain, the report's admission periods and the
 * timeline plot read it; nothing decides from it.
 *
 * Types only, for anyone who reads the cache (cluster.h includes it). The
 * cache appends (workload_note, private/workload.h); a record lives and
 * dies with its workload. Events are in time order (equal times keep the
 * order they happened in). */
#ifndef ORDO_HISTORY_H
#define ORDO_HISTORY_H

#include <stddef.h>
#include <stdint.h>

enum wl_event_type {
    WL_EV_CREATED = 0, /* first seen (its arrival) */
    WL_EV_WAITING,     /* pending; detail: the reason, when it changed */
    WL_EV_ADMITTED,    /* quota reserved: cq, detail: its flavors,
                          "podset: resource=flavor, ..." */
    WL_EV_PLACED,      /* every pod of the admission has a node */
    WL_EV_EVICTED,     /* stopped: detail: why; by: the preemptor's key
                          when a workload preempted it, else NULL */
    WL_EV_REQUEUED,    /* its pods are gone: pending again */
    WL_EV_FINISHED,    /* completed (or its last pod ended) */
    WL_EV_DELETED,     /* its object was deleted */
    WL_EV_TYPE_MAX
};

struct wl_event {
    int64_t t_ns;
    enum wl_event_type type;
    char *cq;     /* the ClusterQueue concerned, or NULL (owned) */
    char *detail; /* see the types, or NULL (owned) */
    char *by;     /* WL_EV_EVICTED: the preemptor, or NULL (owned) */
    /* WL_EV_WAITING: later reasons that differ from this one only in their
     * numbers ("3 more needed", "2 more needed") are folded into it: detail
     * is the latest, `changes` counts them, t_last_ns is when the latest
     * came. A queue under churn rewrites its amounts every cycle; a note
     * each time would cost memory per workload per cycle. */
    uint32_t changes;
    int64_t t_last_ns;
};

/* At most this many events per workload; past it the oldest WAITING
 * events go first, then n_dropped counts what could not be kept. */
#define WL_HISTORY_MAX 256

struct wl_history {
    size_t n, cap;
    struct wl_event *ev; /* owned */
    size_t n_dropped;
};

/* The event's type as the report and --explain print it ("admitted"). */
const char *wl_event_type_name(enum wl_event_type t);

#endif
