/* sim_int.h - what the parts of the simulator share: its own records of
 * pods and of the Jobs and JobSets its controllers run, the event heap
 * (sim_events.c), pods coming and going (sim_pods.c), the emulated
 * controllers (sim_jobs.c), invariants (sim_check.c) and the loop
 * (sim.c). Not an interface for anything outside the simulator.
 *
 * The simulator is a backend like any other: it changes the scheduler's
 * cluster only through the events of scheduler.h and reads it otherwise.
 * What only a simulated world knows (which child Job of a JobSet a pod is
 * of, how long it runs, when it started, where it ran after it is gone)
 * lives here. */
#ifndef ORDO_SIM_INT_H
#define ORDO_SIM_INT_H

#include <uthash.h>

#include "queue_rule.h"
#include "resid.h"
#include "sim.h"

/* ---- small readers the outputs share ------------------------------------ */

/* A resource's name, "?" for an id the table does not have. */
static inline const char *sim_res_name(int32_t id)
{
    const char *n = resid_name(id);
    return n ? n : "?";
}

/* Position of q in c->cqs_v, or -1: its index when that is where it is
 * (a cluster built by cluster_rebuild_queues), else by search (one built
 * by hand). */
static inline long sim_cq_slot(const struct cluster *c, const struct cq *q)
{
    if (!q)
        return -1;
    if (q->index < c->n_cqs && c->cqs_v[q->index] == q)
        return q->index;
    for (uint32_t i = 0; i < c->n_cqs; i++)
        if (c->cqs_v[i] == q)
            return i;
    return -1;
}

/* ---- the event heap (sim_events.c) -------------------------------------- */

enum sim_event_type {
    EV_ARRIVE = 0, /* an object arrives (added, or updated when known) */
    EV_POD_DONE,   /* a running pod's runtime is over */
    EV_DELETE,     /* ordo.dev/sim-delete: the object of kind and key goes */
    EV_DELETE_POD  /* ordo.dev/sim-delete-pods: pod `index` of Job key */
};

struct sim_pod;

struct sim_event {
    int64_t t_ns;
    uint64_t seq; /* ties: manifest order, then creation order */
    enum sim_event_type type;
    struct object *obj;    /* EV_ARRIVE: owned until filed */
    struct object *shadow; /* EV_ARRIVE of a Job or JobSet: the controller's
                              own copy (owned until filed) */
    struct sim_pod *pod;   /* EV_POD_DONE */
    uint64_t run;          /* EV_POD_DONE: stale when the pod ran again */
    enum object_kind kind; /* EV_DELETE */
    char *key;             /* EV_DELETE, EV_DELETE_POD (owned) */
    uint64_t index;        /* EV_DELETE_POD */
};

struct sim_heap {
    struct sim_event *v;
    size_t n, cap;
    uint64_t seq;
};

/* Pushes ev (its seq is set here). 0 or -ENOMEM. */
int sim_heap_push(struct sim_heap *h, struct sim_event ev);
/* The earliest event (by time, then seq); h must not be empty. */
struct sim_event sim_heap_pop(struct sim_heap *h);
/* Frees the heap and the objects of events still in it. */
void sim_heap_release(struct sim_heap *h);

/* ---- records: pods and the jobs the controllers run (sim_pods.c) -------- */

enum sim_pod_state { SP_PENDING = 0, SP_RUNNING, SP_DONE, SP_GONE };

/* A Job or JobSet replicated job's pods as its controller counts them:
 * pods not finished, pods that succeeded (never less: a deleted pod that
 * succeeded still counts, as in a Job's status), and per child Job of a
 * JobSet the same. */
struct sim_podset {
    uint32_t active, succeeded;
    uint32_t n_children;
    uint32_t *child_active, *child_succeeded;
};

struct sim_job {
    char *key; /* "ns/name" */
    enum object_kind kind;
    struct object *spec; /* the controller's copy, newest first */
    uint64_t seq;        /* arrival order: controllers run in it */
    /* Pods that ever joined it, by index (the number in their name). */
    struct sim_pod **pods;
    size_t n_pods, cap_pods;
    uint32_t n_podsets;
    struct sim_podset *ps;
    bool dirty;   /* listed in sim.dirty */
    bool deleted; /* the Job is gone: its controller does nothing */
    UT_hash_handle hh;
};

struct sim_pod {
    struct sim_pod_ran ran; /* first: sim_ran lists point here */
    char *key;
    struct sim_job *job; /* the Job or JobSet it is counted for, or NULL */
    uint32_t child;      /* a JobSet pod's child Job */
    enum sim_pod_state state;
    uint64_t run; /* bumped each time it starts running */
    UT_hash_handle hh;
};

struct sim;

/* Files pod o at the current time through the scheduler (takes it) and
 * records it: the workload it joined, its controller's counts, and when it
 * runs already (spec.nodeName), its end. child: its child Job when a
 * JobSet's controller made it. 0 or a negative errno. */
int sim_pod_add(struct sim *sm, struct object *o, uint32_t child);
/* Pod sp (the scheduler's p) started running on node (the bind). 0 or
 * -ENOMEM. */
int sim_pod_started(struct sim *sm, struct sim_pod *sp, const struct pod *p,
                    const char *node);
/* Pod sp's runtime is over: it succeeded. 0 or a negative errno. */
int sim_pod_done(struct sim *sm, struct sim_pod *sp);
/* Pod sp reached a phase (SP_DONE, SP_GONE) the scheduler heard of
 * already (an update of the pod). 0 or -ENOMEM. */
int sim_pod_finished(struct sim *sm, struct sim_pod *sp,
                     enum sim_pod_state state);
/* Pod sp is deleted (evicted, deleted out of band, its node or its Job
 * gone): the scheduler hears so, its controller replaces it unless its Job
 * is gone. 0 or a negative errno. */
int sim_pod_delete(struct sim *sm, struct sim_pod *sp);
struct sim_pod *sim_pod_find(struct sim *sm, const char *key);
struct sim_job *sim_job_find(struct sim *sm, const char *key);
/* Files a Job or JobSet's controller copy (takes it; the scheduler gets its
 * own copy of the object); a newer copy of a known one replaces it. 0 or
 * -ENOMEM. */
int sim_job_put(struct sim *sm, struct object *shadow);
/* The Job or JobSet of key is deleted: its controller forgets it, and the
 * garbage collector deletes its pods after the scheduler hears of it. 0
 * or a negative errno. */
int sim_job_delete(struct sim *sm, enum object_kind kind, const char *key);
/* Lists j for its controller's next look. 0 or -ENOMEM. */
int sim_job_mark(struct sim *sm, struct sim_job *j);
/* Frees every record (after the scheduler: its pods point into them). */
void sim_records_release(struct sim *sm);

/* ---- the controllers (sim_jobs.c) ------------------------------------ */

/* Reconciles every Job and JobSet listed since the last call, in arrival
 * order: makes their pods, reports their status. 0 or a negative errno. */
int sim_reconcile(struct sim *sm);

/* ---- invariants (sim_check.c) ------------------------------------------- */

/* A value last seen under a string key (usage samples, invariants). */
struct last_value {
    char *key;
    int64_t usage;
    uint64_t tree_gen; /* invariants: the tree the usage was read from */
    UT_hash_handle hh;
};

/* --sim-check: what the invariants remember between instants. */
struct sim_checker {
    struct last_value *checked; /* usage at the last check */
    FILE *out;                  /* where violations are printed */
};

/* The invariants of cluster c at its current time: prints each violation
 * on ck->out and returns how many. */
size_t sim_check_invariants(struct sim_checker *ck, const struct cluster *c);
/* Frees what the checker remembers. */
void sim_checker_release(struct sim_checker *ck);

/* Frees every entry of a last_value hash. */
void sim_last_values_free(struct last_value **h);

/* ---- loading (sim_load.c, sim_copy.c) ------------------------------------ */

/* The controllers' own copy of Job or JobSet o (what they read of it), in
 * arena a (the simulator's). NULL when o is not one, or out of memory. */
struct object *sim_copy_owner(struct arena *a, const struct object *o);
/* Releases what copy c holds outside the arena (its request lists).
 * Accepts NULL. */
void sim_copy_release(struct object *c);

/* Loads the manifests of paths onto sm's heap as events (arrivals,
 * deletions), after checking every annotation of the simulator. 0, or a
 * negative errno after printing why. */
int sim_load(struct sim *sm, char **paths, int n_paths);

/* ---- the report's history (sim_report_hist.c) --------------------------- */

struct json_object;

/* Seconds as a JSON number: an integer when whole, else the exact decimal
 * text with up to three fraction digits ("12.5"). NULL: out of memory. */
struct json_object *sim_json_seconds(int64_t ns);
/* w's history, [{t, type, cq, detail, by}] (new reference, or NULL). */
struct json_object *sim_history_json(const struct workload *w);
/* w's admission periods, oldest first, [{cq, flavors, admitted, placed,
 * ended, end, evictedBy, reason}] (new reference, or NULL). */
struct json_object *sim_admissions_json(const struct workload *w);

/* ---- --explain (sim_explain.c) ------------------------------------------ */

/* Prints on out what happened to workload key and where it stands now
 * (ran: the simulator's records of its pods). 0, or -ENOENT after printing
 * on err that there is no such workload, with the closest names. */
int sim_explain(FILE *out, FILE *err, struct scheduler *s,
                const struct sim_ran *ran, const char *key);

/* ---- the simulation (sim.c) --------------------------------------------- */

struct arena;

struct json_object;

struct sim {
    struct scheduler *s;
    struct arena *copies; /* the controllers' copies (sim_copy_owner) */
    const struct sim_options *opt;
    struct sim_heap heap;
    size_t processed;
    int64_t now_ns;
    struct sim_history history;
    struct last_value *last;
    struct sim_checker check;
    bool tty;
    size_t violations;
    /* Records. */
    struct sim_pod *pods;
    struct sim_job *jobs;
    struct sim_ran *ran;
    uint64_t job_seq;
    size_t pods_added; /* pods filed, ever */
    size_t n_gone;     /* records of pods that went, ever */
    struct sim_job **dirty;
    size_t n_dirty, cap_dirty;
    /* Controller copies replaced by newer ones: pods made from them still
     * point into them; records replaced by new ones of the same key. */
    struct object **old_specs;
    size_t n_old_specs, cap_old_specs;
    struct sim_job **old_jobs;
    size_t n_old_jobs, cap_old_jobs;
    struct sim_pod **old_pods;
    size_t n_old_pods, cap_old_pods;
    /* podDefaulting (queue_rule.h), applied to the manifests as the
     * webhook would; the queued workloads it leaves out (a JSON array for
     * the report's leftOut, NULL when none). */
    const struct queue_rule *rule;
    struct json_object *left_out;
};

/* a + b for times (ns >= 0), saturating at INT64_MAX: an instant that far
 * away never comes. */
static inline int64_t sim_time_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

#endif
