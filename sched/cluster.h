/* cluster.h - the scheduler's view of the cluster: the cache that every
 * decision reads and that only events (from a backend) and commits (from the
 * cycle) change.
 *
 * It holds the typed objects of core/objects.h, indexed by key, and what is
 * derived from them: nodes with their free capacity per resource id,
 * ClusterQueues with quota and usage per (flavor, resource), and workloads
 * (gangs of pods) with their state and admission. The same structure serves
 * the simulator and the Kubernetes backend. */
#ifndef ORDO_CLUSTER_H
#define ORDO_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "objects.h"
#include "quota_tree.h"

struct cq;
struct workload;
struct ordo_plugin;

struct flavor {
    char *name;
    struct object *obj; /* NULL when referenced but missing */
    UT_hash_handle hh;
};

struct node {
    char *name;
    struct object *obj;
    int64_t *alloc; /* per resource id (resid_count slots) */
    int64_t *used;  /* bound and assumed pods */
    int32_t n_ids;  /* slots in alloc/used */
    uint32_t index; /* position in cluster.nodes_v */
    UT_hash_handle hh;
};

enum pod_phase_sim {
    PODSTATE_PENDING = 0, /* no node yet */
    PODSTATE_BOUND,       /* bound (or assumed) to a node, running */
    PODSTATE_SUCCEEDED,
    PODSTATE_FAILED
};

struct pod {
    char *key; /* "ns/name" */
    struct object *obj;
    struct workload *wl; /* NULL when not Ordo's */
    uint32_t podset;
    uint32_t child; /* simulator: the JobSet replica (child Job) it is of */
    struct node *node;
    /* The node it was last bound to, kept when it goes (for the report). */
    const struct node *ran_on;
    enum pod_phase_sim state;
    int64_t bound_at_ns;
    int64_t *request; /* per resource id, n_ids slots, for node usage */
    int32_t n_ids;
    UT_hash_handle hh;
};

enum wl_kind { WL_JOB = 0, WL_JOBSET, WL_POD_GROUP, WL_POD, WL_KIND_MAX };
const char *wl_kind_name(enum wl_kind k);

enum wl_state {
    WL_PENDING = 0, /* waiting for admission */
    WL_ADMITTED,    /* quota reserved, pods bound or being bound */
    WL_FINISHED
};

struct podset {
    char *name;
    uint32_t count;     /* pods admitted together */
    uint32_t reclaimable; /* of count, no longer needed (Kueue's
                             reclaimablePods): their quota is given back */
    uint32_t n_req;     /* resources of one pod */
    int32_t *req_ids;   /* resource ids */
    int64_t *req_milli; /* request of one pod */
    const struct pod_spec *spec; /* template (owned by the top object) */
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
    struct flavor **flavors; /* [ps * flavor_groups + g] */
    uint32_t flavor_groups;  /* the admitted CQ's group count then */
    /* Its quota usage, fixed at admission (workload_record_charges). */
    struct wl_charge *charges;
    uint32_t n_charges;
    bool borrows;
    int64_t admitted_ns, finished_ns;
    bool has_admitted, has_finished;
    uint32_t evictions;
    bool queued;      /* in its CQ's pending list, or charged to it */
    bool straggling;  /* admitted, with pods that still need a node */
    bool evicting;    /* preempted: its pods are going away */
    bool preempting;  /* issued preemptions: first in line until admitted */
    /* Its Job or JobSet is suspended: no pods until admission resumes it.
     * `resumes`: it was created suspended, so it is managed Kueue's way
     * (admission resumes it, eviction suspends it again). */
    bool suspended, resumes;
    char evicted_by[128]; /* last preemptor, for the record */
    const char *evict_class; /* Kueue's Preempted reason (static), or NULL */
    /* How its pods went at the last eviction (the backend's word: deleted,
     * evicted through the API, or why that failed). */
    char evict_note[256];
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
    /* A preemptor holds the node room its victims left (see preempt.c). */
    struct pod **held_pods;
    struct node **held_nodes;
    size_t n_held;
    /* BestEffortFIFO parking: not retried until the CQ's requeue
     * generation moves past this value. */
    bool parked;
    bool ns_mismatch; /* its namespace fails its ClusterQueue's selector */
    uint64_t parked_gen;
    /* Pods that belong to it, in creation order. */
    size_t n_pods, cap_pods;
    struct pod **pods;
    uint32_t succeeded; /* pods that succeeded (Job completions) */
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
    uint32_t n_groups;
    struct cq_group *groups;
    struct ordo_plugin *queue_plugin;
    struct qnode *qnode; /* its node in cluster.tree */
    bool active;
    char inactive_reason[160];
    uint64_t requeue_gen; /* bumped when parked workloads may fit again */
    /* Pending workloads, kept sorted by the QUEUE plugin. */
    size_t n_pending, cap_pending;
    struct workload **pending;
    bool dirty; /* pending needs sorting */
    /* Admitted workloads charged to it, in no order (workload.cq_slot):
     * preemption looks for candidates here, not among all workloads. */
    uint32_t n_admitted, cap_admitted;
    struct workload **admitted;
    UT_hash_handle hh;
};

/* Objects that are only looked up by key ("ns/name" or "name"). */
struct obj_entry {
    char *key;
    struct object *obj;
    UT_hash_handle hh;
};

struct cluster {
    struct flavor *flavors;
    struct node *nodes;
    struct node **nodes_v; /* by index, for iteration */
    uint32_t n_nodes, cap_nodes;
    struct pod *pods;
    struct workload *workloads;
    uint64_t next_seq; /* for workload.seq */
    struct cq *cqs;
    struct cq **cqs_v; /* sorted by name, for stable iteration */
    uint32_t n_cqs;
    struct obj_entry *lqs, *pcs, *wpcs, *namespaces, *jobs, *jobsets,
        *cohorts, *topologies;
    struct qtree tree; /* ClusterQueues and cohorts */
    uint64_t tree_gen; /* bumped each time the tree is rebuilt */
    int64_t now_ns;
    /* Workloads added since the last cluster_sync(). */
    struct workload **fresh;
    size_t n_fresh, cap_fresh;
    bool queues_dirty; /* a Kueue object changed: rebuild everything */
    bool drain;        /* some ClusterQueue or LocalQueue is HoldAndDrain */
    /* Preemptors holding node room until their next cycle. */
    struct workload **holders;
    size_t n_holders, cap_holders;
    /* Admitted workloads with pods that have no node yet. */
    struct workload **stragglers;
    size_t n_stragglers, cap_stragglers;
    /* Workloads with `preempting` set (cycle_set_preempting): when 0,
     * a queue's head is the first workload that can go. */
    uint32_t n_preempting;
};

/* Lifecycle. */
void cluster_init(struct cluster *c);
void cluster_release(struct cluster *c); /* frees every object it holds */

/* Takes ownership of o and files it. Pods are attached to their workload
 * (or become one); Jobs and JobSets become workloads. Returns 0, -EEXIST
 * (same key already there; o is freed) or -ENOMEM. */
int cluster_add(struct cluster *c, struct object *o);

/* Rebuilds ClusterQueues (quota, flavors, active state) from the current
 * objects; called after objects of the Kueue kinds change. */
int cluster_rebuild_queues(struct cluster *c);

/* Brings queues up to date after a batch of cluster_add() calls: rebuilds
 * ClusterQueues when Kueue objects changed, else queues new workloads. */
int cluster_sync(struct cluster *c);
/* A pod of ours ended (evicted or deleted): it leaves its node; when the
 * last pod of an evicting workload is gone, the workload gives its quota
 * back and queues again. */
void cluster_pod_gone(struct cluster *c, struct pod *p);

/* Something freed quota or node room: every parked workload gets another
 * try (BestEffortFIFO). */
void cluster_wake_parked(struct cluster *c);

/* Records that preemptor w holds node room. */
int cluster_mark_holder(struct cluster *c, struct workload *w);

/* Records that admitted workload w has a pod without a node. */
int cluster_mark_straggler(struct cluster *c, struct workload *w);
/* Records a new workload for the next cluster_sync(). */
int cluster_mark_fresh(struct cluster *c, struct workload *w);

struct obj_entry *cluster_find(struct obj_entry *index, const char *key);
struct node *cluster_node(struct cluster *c, const char *name);
struct cq *cluster_cq(struct cluster *c, const char *name);
struct flavor *cluster_flavor(struct cluster *c, const char *name);

/* Node accounting: free capacity of id (allocatable - used). */
int64_t node_free(const struct node *n, int32_t id);
/* Adds (sign 1) or removes (sign -1) a pod's request on a node. */
int node_charge(struct node *n, const struct pod *p, int sign);

/* Quota accounting of an admission: adds (sign 1) or removes (-1) the
 * workload's usage on its admitted ClusterQueue. */
void cq_charge(struct cq *cq, const struct workload *wl, int sign);
/* Files w among q's admitted workloads (0 or -ENOMEM) / takes it out. */
int cq_add_admitted(struct cq *q, struct workload *w);
void cq_remove_admitted(struct cq *q, struct workload *w);
/* Index of flavor f in group g, or -1. */
int cq_group_flavor_index(const struct cq_group *g, const struct flavor *f);
/* Index of resource id in group g, or -1. */
int cq_group_res_index(const struct cq_group *g, int32_t id);

/* The pod's request for resource id (0 when none). */
int64_t pod_request(const struct pod *p, int32_t id);

#endif
