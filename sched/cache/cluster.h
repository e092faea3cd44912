/* cluster.h - the scheduler's view of the cluster, as anyone may read it:
 * the cache that every decision reads and that only events (from a
 * backend, through scheduler.h) and commits (from the cycle) change.
 *
 * It holds the typed objects of core/objects.h, indexed by key, and what is
 * derived from them: nodes with their free capacity per resource id,
 * ClusterQueues with quota and usage per (flavor, resource), and workloads
 * (gangs of pods) with their state and admission. The same structure serves
 * the simulator and the Kubernetes backend.
 *
 * This header has the types and the lookups that change nothing. What
 * changes the cache is declared in private/ (store.h, workload.h,
 * events.h), which only the cache, the line and the decision core include:
 * a backend that calls one of those functions does not build. */
#ifndef ORDO_CLUSTER_H
#define ORDO_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "history.h"
#include "objects.h"
#include "quota_tree.h"

#define ORDO_SCHEDULER_NAME      "ordo-scheduler"
#define LABEL_QUEUE_NAME         "kueue.x-k8s.io/queue-name"
#define LABEL_PRIORITY_CLASS     "kueue.x-k8s.io/priority-class"
#define ANNOT_POD_GROUP          "kueue.x-k8s.io/pod-group-name"
#define ANNOT_POD_GROUP_COUNT    "kueue.x-k8s.io/pod-group-total-count"
#define ANNOT_RETRIABLE_IN_GROUP "kueue.x-k8s.io/retriable-in-group"
#define LABEL_JOBSET_NAME        "jobset.sigs.k8s.io/jobset-name"
#define LABEL_REPLICATED_JOB     "jobset.sigs.k8s.io/replicatedjob-name"
/* The admission a pod was bound under, on the pod: its ClusterQueue, the
 * flavor of each resource of its pod set ("cpu=a,memory=a"), its pod set
 * and its workload ("ns/name" of the top object). The Kubernetes backend's
 * Binding writes them; after a restart the cache admits bound pods'
 * workloads with them (recover.c). CQ_VERSION is the ClusterQueue's
 * metadata.resourceVersion whose quota the admission was decided against
 * (workload.admitted_cq_version): it tells a decision made before a quota
 * change from one made after; nothing reads it back. */
#define ANNOT_ADMISSION_CQ         "ordo.dev/cluster-queue"
#define ANNOT_ADMISSION_CQ_VERSION "ordo.dev/cluster-queue-version"
#define ANNOT_ADMISSION_FLAVORS    "ordo.dev/flavors"
#define ANNOT_ADMISSION_POD_SET    "ordo.dev/pod-set"
#define ANNOT_ADMISSION_WORKLOAD   "ordo.dev/workload"

/* The most pods one workload may have (its pod sets together: a Job's
 * parallelism, a JobSet's replicas x parallelism summed, a pod group's
 * total count): Kubernetes' own limit for an Indexed Job's completions and
 * parallelism. A workload above it is filed and queued, shown as pending
 * with a reason, but never admitted, and the simulator makes none of its
 * pods. */
#define WORKLOAD_PODS_MAX 100000

struct cq;
struct workload;
struct cluster_changes;
struct ordo_plugin;

struct flavor {
    char *name;
    struct object *obj; /* NULL when referenced but missing */
    /* Deleted while admitted workloads use it: it stays (Kueue's
     * resource-in-use finalizer) until they are gone, and no ClusterQueue
     * that lists it admits meanwhile. */
    bool terminating;
    UT_hash_handle hh;
};

struct node {
    char *name;
    struct object *obj;
    int64_t *alloc; /* per resource id (resid_count slots) */
    int64_t *used;  /* bound and assumed pods */
    int32_t n_ids;  /* slots in alloc/used */
    uint32_t index; /* position in cluster.nodes_v */
    /* Deleted: out of nodes_v and the hash, kept for the pods still bound
     * to it until they are gone (freed with the cluster). */
    bool retired;
    UT_hash_handle hh;
};

enum pod_phase_sim {
    PODSTATE_PENDING = 0, /* no node yet */
    PODSTATE_BOUND,       /* bound (or assumed) to a node, running */
    PODSTATE_SUCCEEDED,
    PODSTATE_FAILED,
    PODSTATE_GONE /* deleted: out of the store, freed at the next batch */
};

struct pod {
    char *key; /* "ns/name" */
    struct object *obj;
    struct workload *wl; /* NULL when not Ordo's */
    uint32_t podset;
    /* Its node while bound; kept when it succeeds (where it ran). */
    struct node *node;
    enum pod_phase_sim state;
    int64_t *request; /* per resource id, n_ids slots, for node usage */
    int32_t n_ids;
    UT_hash_handle hh;
};

enum wl_kind { WL_JOB = 0, WL_JOBSET, WL_POD_GROUP, WL_POD, WL_KIND_MAX };
const char *workload_kind_name(enum wl_kind k);

enum wl_state {
    WL_PENDING = 0, /* waiting for admission */
    WL_ADMITTED,    /* quota reserved, pods bound or being bound */
    WL_FINISHED
};

struct podset {
    char *name;
    uint32_t count;              /* pods admitted together */
    uint32_t reclaimable;        /* of count, no longer needed (Kueue's
                                    reclaimablePods): their quota is given back */
    uint32_t n_req;              /* resources of one pod */
    int32_t *req_ids;            /* resource ids */
    int64_t *req_milli;          /* request of one pod */
    const struct pod_spec *spec; /* template (owned by the top object) */
    /* Its pods by state, kept as they change (pod_set_state), so that
     * nothing rescans a workload's pods to count them. */
    uint32_t n_pending, n_bound, n_succeeded, n_failed;
    /* What the status of its Job says succeeded (scheduler_job_status): a
     * Job's pods, a JobSet replicated job's child Jobs. */
    uint32_t status_succeeded;
};

/* What an admission charges per pod of a pod set on one (flavor,
 * resource): Kueue keeps it whatever the ClusterQueue lists later. */
struct wl_charge {
    const struct flavor *flavor;
    int32_t res;
    uint32_t ps;
    int64_t per_pod; /* milli-units */
};

/* Room for a reason: Kueue's messages list every flavor tried. */
#define REASON_MAX 1024

struct workload {
    char *key; /* "ns/name" of the top object */
    enum wl_kind kind;
    char *ns;
    uint64_t seq;       /* creation order in the cluster */
    uint32_t cq_slot;   /* index in admitted_cq->admitted */
    struct object *top; /* Job, JobSet, or first pod of the group */
    char *local_queue;  /* NULL when not set */
    struct cq *cq;      /* resolved ClusterQueue, NULL when missing */
    int32_t priority;
    int64_t created_ns; /* creation (arrival) */
    int64_t queue_ns;   /* queue-order time: creation or last eviction */
    uint32_t n_podsets;
    struct podset *podsets;
    uint32_t group_total; /* pod group: pods it is made of */
    enum wl_state state;
    /* Admission: flavor per pod set per resource group of cq. */
    struct cq *admitted_cq;
    /* admitted_cq's built_version when it was admitted (NULL: unknown). */
    char *admitted_cq_version;
    struct flavor **flavors; /* [ps * flavor_groups + g] */
    uint32_t flavor_groups;  /* the admitted CQ's group count then */
    /* Its quota usage, fixed at admission (workload_record_charges). */
    struct wl_charge *charges;
    uint32_t n_charges;
    bool borrows;
    int64_t admitted_ns, finished_ns;
    bool has_admitted, has_finished;
    uint32_t evictions;
    bool queued;     /* in its CQ's pending list, or charged to it */
    bool straggling; /* admitted, with pods that still need a node */
    bool evicting;   /* preempted: its pods are going away */
    bool preempting; /* issued preemptions: first in line until admitted */
    /* Its Job or JobSet is suspended: no pods until admission resumes it.
     * `resumes`: it was created suspended, so it is managed Kueue's way
     * (admission resumes it, eviction suspends it again). */
    bool suspended, resumes;
    /* The status of its Job or JobSet says it completed. */
    bool complete;
    /* A pod of its group said kueue.x-k8s.io/retriable-in-group "false". */
    bool not_retriable;
    /* Its Job or JobSet was deleted: it goes when its pods are gone. */
    bool deleting;
    /* Out of the store (deleted), freed at the next batch. */
    bool dead;
    /* Admitted, its Job's pod counts changed: Kueue makes it a new
     * workload, so it is stopped and queued again with the new counts. */
    bool respec, stopping;
    char evicted_by[128];    /* last preemptor, for the record */
    const char *evict_class; /* Kueue's Preempted reason (static), or NULL */
    /* How its pods went at the last eviction (the backend's word: deleted,
     * evicted through the API, or why that failed). */
    char evict_note[256];
    /* Why the line stops it, when not because its Job changed (a
     * recorded admission that cannot be honoured): evicted_by then. */
    char stop_why[128];
    /* Pending since evicted_by preempted it: it does not preempt that
     * workload back until it is admitted again (no preemption loops). */
    bool spares_preemptor;
    bool evicted_by_preemptor; /* evicted_by is a workload's key */
    int64_t evicted_ns;        /* when, last */
    /* The flavors it preempted for ([ps * preempt_groups + g]): tried when
     * the QUOTA plugin's new choice finds no room on nodes. */
    struct flavor **preempt_assign;
    uint32_t preempt_groups;
    bool preempt_borrows;
    /* Node room held for it (cluster_hold_room): a preemptor's where its
     * victims were, or, held_planned, an admitted job's planned pods
     * (owned) until its real pods come. */
    struct pod **held_pods;
    struct node **held_nodes;
    size_t n_held;
    bool held_planned;
    /* BestEffortFIFO parking: not retried until the CQ's requeue
     * generation moves past this value. */
    bool parked;
    bool ns_mismatch; /* its namespace fails its ClusterQueue's selector */
    uint64_t parked_gen;
    /* Pods that belong to it, in creation order; n_dead of them are gone
     * (PODSTATE_GONE) until the next batch takes them out. */
    size_t n_pods, cap_pods;
    struct pod **pods;
    uint32_t n_dead;
    /* Objects of its deleted or replaced pods (or of its deleted Job) that
     * top and the pod sets' specs point into: freed with it. */
    struct object **kept;
    size_t n_kept, cap_kept;
    /* Of them, whatever their pod set: bound, succeeded, failed (or
     * gone). */
    uint32_t pods_bound, pods_succeeded, pods_failed;
    /* Pods its pod sets run together (a JobSet's replicas x parallelism
     * summed, a pod group's total count), without wrapping; above
     * WORKLOAD_PODS_MAX it is never admitted. */
    uint64_t pods_wanted;
    bool over_cap;
    bool changed;              /* listed in cluster.changed */
    struct wl_history history; /* what happened to it (history.h) */
    UT_hash_handle hh;
    /* Last: long and cold, away from the flags the queues scan. */
    char reason[REASON_MAX]; /* why pending, last seen */
};

/* One resource group of a ClusterQueue, as arrays [flavor][resource]. */
struct cq_group {
    uint32_t n_res, n_flavors;
    int32_t *res_ids;
    struct flavor **flavors;
    int64_t *nominal; /* [f * n_res + r] */
    int64_t *usage;   /* admitted workloads, same indexing */
};

struct cq {
    char *name;
    struct object *obj;
    /* obj's metadata.resourceVersion when groups (the quota cycles use)
     * were last built from it; NULL when it has none. */
    char *built_version;
    uint32_t n_groups;
    struct cq_group *groups;
    struct ordo_plugin *queue_plugin;
    struct qnode *qnode;     /* its node in cluster.tree */
    struct cluster *cluster; /* the cluster it is filed in */
    uint32_t index;          /* position in cluster.cqs_v */
    bool active;
    char inactive_reason[160];
    /* Deleted while workloads are admitted to it (Kueue's finalizer): it
     * admits nothing and goes when they are gone. */
    bool terminating;
    /* Parked workloads may fit again when cq_requeue_gen() moves past the
     * value they were parked at: this queue's own bumps (rebuilds) plus
     * the cluster's wake-ups since it joined cqs_v (wake_base). */
    uint64_t requeue_gen, wake_base;
    bool in_v;          /* has been in cqs_v (wake_base is set) */
    bool busy;          /* listed in cluster.busy */
    bool usage_changed; /* listed in cluster.usage_changed */
    bool sweep;         /* events.c: its pending list is being filtered */
    /* Pending workloads, kept sorted by the QUEUE plugin. */
    size_t n_pending, cap_pending;
    struct workload **pending;
    bool dirty;        /* pending needs sorting */
    int64_t sorted_ns; /* the clock at the last sort (queue_sort) */
    /* Admitted workloads charged to it, in no order (workload.cq_slot):
     * preemption looks for candidates here, not among all workloads. */
    uint32_t n_admitted;
    size_t cap_admitted;
    struct workload **admitted;
    UT_hash_handle hh;
};

/* Objects that are only looked up by key ("ns/name" or "name"). */
struct obj_entry {
    char *key;
    struct object *obj;
    UT_hash_handle hh;
};

/* Pods of ours whose Job or JobSet is not known yet (a pod listed before
 * its owner, as informers deliver them in any order), by the owner's key:
 * the keys of the pods, adopted when the owner's workload is made. */
struct pod_orphans {
    char *owner; /* "ns/name" of the Job or JobSet */
    char **pods; /* pod keys (owned) */
    size_t n, cap;
    UT_hash_handle hh;
};

struct cluster {
    struct flavor *flavors;
    struct node *nodes;
    struct node **nodes_v; /* by index, for iteration */
    uint32_t n_nodes;
    size_t cap_nodes;
    struct pod *pods;
    struct workload *workloads;
    uint64_t next_seq; /* for workload.seq */
    struct cq *cqs;
    struct cq **cqs_v; /* sorted by name, for stable iteration */
    uint32_t n_cqs;
    /* ClusterQueues that may have pending workloads (every one that has
     * some is here): the cycle looks for heads only in these. Sorted by
     * index when busy_sorted. */
    struct cq **busy;
    uint32_t n_busy;
    size_t cap_busy;
    bool busy_sorted;
    /* ClusterQueues whose usage changed since cluster_take_usage_changed()
     * (the simulator samples only those). */
    struct cq **usage_changed;
    uint32_t n_usage_changed;
    size_t cap_usage_changed;
    /* Wake-ups of parked workloads (cluster_wake_parked), for
     * cq_requeue_gen(). */
    uint64_t wake_gen;
    /* Workloads whose pods, state or status changed since
     * cluster_take_changed() (the line brings their progress up to date),
     * each once. */
    struct workload **changed;
    size_t n_changed, cap_changed;
    struct obj_entry *lqs, *pcs, *wpcs, *namespaces, *jobs, *jobsets, *cohorts,
        *topologies;
    struct obj_entry *admission_checks; /* what ClusterQueues name */
    struct pod_orphans *orphans;        /* pods waiting for their owner */
    struct qtree tree;                  /* ClusterQueues and cohorts */
    uint64_t tree_gen; /* bumped each time the tree is rebuilt */
    int64_t now_ns;
    /* Workloads added since the last cluster_sync(). */
    struct workload **fresh;
    size_t n_fresh, cap_fresh;
    bool queues_dirty; /* a Kueue object arrived: rebuild the queues */
    bool drain;        /* some ClusterQueue or LocalQueue is HoldAndDrain */
    /* Admitted workloads with pods that have no node yet. */
    struct workload **stragglers;
    size_t n_stragglers, cap_stragglers;
    /* Workloads with `preempting` set (cycle_set_preempting): when 0,
     * a queue's head is the first workload that can go. */
    uint32_t n_preempting;
    /* Deleted pods and workloads, and workloads with deleted pods: freed
     * and compacted by the next batch (cluster_purge), so that pointers
     * held during a cycle stay valid. */
    struct pod **dead_pods;
    size_t n_dead_pods, cap_dead_pods;
    struct workload **dead_wls;
    size_t n_dead_wls, cap_dead_wls;
    struct workload **compact;
    size_t n_compact, cap_compact;
    /* Deleted nodes and ClusterQueues that something may still point to:
     * freed with the cluster. */
    struct node **retired_nodes;
    size_t n_retired_nodes, cap_retired_nodes;
    struct cq **retired_cqs;
    size_t n_retired_cqs, cap_retired_cqs;
    /* Admitted workloads the line must stop (their pods evicted through the
     * backend) before the next cycle. */
    struct workload **to_stop;
    size_t n_to_stop, cap_to_stop;
    /* ClusterQueues, ResourceFlavors and workloads waiting to go. */
    uint32_t n_terminating;
    /* What changed for a backend's status writes (private/changes.h);
     * NULL until it first asks. */
    struct cluster_changes *changes;
    /* Told of each workload that finishes (the line's observer). */
    void (*on_finish)(void *data, const struct workload *w);
    void *on_finish_data;
};

/* What a Job's or JobSet's status says (the Kubernetes API's): a Job's
 * status.succeeded and its Complete condition; a JobSet's
 * replicatedJobsStatus[i].succeeded (child Jobs that succeeded, in the
 * order of spec.replicatedJobs) and its Completed condition. */
struct job_status {
    bool complete;
    int32_t succeeded;
    uint32_t n_replicated;
    const int32_t *replicated_succeeded;
};

/* The requeue generation of q: parked workloads of q whose parked_gen is
 * below it get another try. */
static inline uint64_t cq_requeue_gen(const struct cluster *c,
                                      const struct cq *q)
{
    return q->requeue_gen + (c->wake_gen - q->wake_base);
}

/* Whether p is a planned pod: it has no object. */
static inline bool pod_planned(const struct pod *p)
{
    return p->obj == NULL;
}

/* Index of flavor f in group g, or -1. */
static inline int cq_group_flavor_index(const struct cq_group *g,
                                        const struct flavor *f)
{
    for (uint32_t i = 0; i < g->n_flavors; i++)
        if (g->flavors[i] == f)
            return (int)i;
    return -1;
}

/* Index of resource id in group g, or -1. */
static inline int cq_group_res_index(const struct cq_group *g, int32_t id)
{
    for (uint32_t i = 0; i < g->n_res; i++)
        if (g->res_ids[i] == id)
            return (int)i;
    return -1;
}

/* Lookups by key ("ns/name" for pods and workloads, the name for nodes and
 * ClusterQueues); NULL when absent. */
const struct pod *cluster_get_pod(const struct cluster *c, const char *key);
const struct workload *cluster_get_workload(const struct cluster *c,
                                            const char *key);
const struct node *cluster_get_node(const struct cluster *c, const char *name);
const struct cq *cluster_get_cq(const struct cluster *c, const char *name);
/* The object of kind and key the cluster holds, or NULL. */
const struct object *cluster_get_object(const struct cluster *c,
                                        enum object_kind kind, const char *key);

/* Node accounting: free capacity of id (allocatable - used). */
int64_t node_free_capacity(const struct node *n, int32_t id);

#endif
