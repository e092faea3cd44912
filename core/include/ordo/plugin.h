/* ordo/plugin.h - the public C ABI between ordo-scheduler and its plugins.
 *
 * This is the only header a plugin includes. One shared object is one plugin
 * of one kind and exports exactly one symbol, ORDO_PLUGIN_SYMBOL, a const
 * struct ordo_plugin_descriptor. The host checks its first three fields (ABI
 * major, minor, struct size) before reading anything else, so they are
 * frozen forever; everything after them, here and in struct ordo_host, is
 * append-only within a major version (a new field bumps ORDO_ABI_MINOR).
 *
 * Ownership (A6 of the design): the host owns every handle it passes in.
 * Call-scoped handles (workloads, nodes, ClusterQueues, flavors) are valid
 * until the op returns; a cycle is valid until the cycle ends. Scratch memory
 * comes from host->cycle_alloc and is released by the host at cycle end.
 * Long-lived state is allocated in init (host->alloc), returned through
 * ret_self, passed back to every op and released in fini. Nothing crosses the
 * boundary that the other side must free().
 *
 * Threading (A7): every op runs on the scheduling thread, never blocks, does
 * no I/O and calls host functions only from inside an op. Plugins keep no
 * mutable globals: the same .so may be instantiated twice.
 *
 * Build a plugin with:
 *   cc -shared -fPIC $(pkg-config --cflags ordo-plugin) my.c -o my.so
 * See docs/plugin-guide.md. */
#ifndef ORDO_PLUGIN_H
#define ORDO_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORDO_ABI_MAJOR 1
#define ORDO_ABI_MINOR 4

/* Name of the one exported symbol. */
#define ORDO_PLUGIN_SYMBOL "ordo_plugin"

/* Each kind serves one extension point of the scheduling cycle:
 * heads (QUEUE) -> QUOTA -> PREEMPT -> PLACE -> commit. */
enum ordo_plugin_kind {
    ORDO_PLUGIN_QUEUE = 1,   /* order workloads of a ClusterQueue */
    ORDO_PLUGIN_QUOTA = 2,   /* assign flavors, decide fit under quota */
    ORDO_PLUGIN_PREEMPT = 3, /* choose victims */
    ORDO_PLUGIN_PLACE = 4    /* filter and score nodes for a pod set */
};

/* What a decision op answers. Every non-OK verdict carries a reason set
 * with host->reason(); the host prefixes the plugin's name. Unknown values
 * from a newer plugin are treated as ORDO_ERROR. */
enum ordo_verdict {
    ORDO_OK = 0,            /* fits / passes */
    ORDO_SKIP = 1,          /* the plugin has no opinion */
    ORDO_UNSCHEDULABLE = 2, /* not now; preemption or waiting may help */
    ORDO_UNRESOLVABLE = 3,  /* never, whatever happens; skip preemption */
    ORDO_ERROR = 4          /* the plugin failed; the workload is not
                               admitted this cycle and keeps the reason */
};

/* Opaque handles; see the ownership rules above. */
struct ordo_plugin;   /* the host's record of a plugin instance */
struct ordo_cycle;    /* one scheduling cycle (its snapshot and scratch) */
struct ordo_workload; /* a gang: pod sets that are admitted together */
struct ordo_cq;       /* a ClusterQueue */
struct ordo_flavor;   /* a ResourceFlavor */
struct ordo_node;     /* a node */

/* Resources are interned: an id per resource name, stable for the life of
 * the process. Quantities are int64 milli-units ("1" = 1000, "1Ki" =
 * 1024000); never floating point. */
typedef int32_t ordo_resource_id;
#define ORDO_RESOURCE_NONE ((ordo_resource_id)-1)

enum ordo_log_level {
    ORDO_LOG_DEBUG = 0,
    ORDO_LOG_INFO = 1,
    ORDO_LOG_WARNING = 2,
    ORDO_LOG_ERROR = 3
};

/* How a head that was not admitted affects its queue. */
enum ordo_queue_action {
    ORDO_QUEUE_HOLD = 0, /* it stays the head and blocks its queue
                            (StrictFIFO) */
    ORDO_QUEUE_NEXT = 1  /* park it until something relevant changes and
                            let the next one try (BestEffortFIFO) */
};

/* The QUOTA plugin's answer for one workload (Kueue's assignment mode). */
enum ordo_quota_mode {
    ORDO_QUOTA_FIT = 0,     /* fits in unused quota (maybe borrowing) */
    ORDO_QUOTA_PREEMPT = 1, /* fits only if workloads are preempted */
    ORDO_QUOTA_NOFIT = 2    /* does not fit */
};

/* A ClusterQueue's flavorFungibility (Kueue's values, same order). */
enum ordo_fungibility {
    ORDO_MAY_STOP_SEARCH = 0,
    ORDO_TRY_NEXT_FLAVOR = 1
};
enum ordo_fungibility_preference {
    ORDO_PREFERENCE_NONE = 0, /* behaves as BorrowingOverPreemption */
    ORDO_BORROWING_OVER_PREEMPTION = 1,
    ORDO_PREEMPTION_OVER_BORROWING = 2
};
/* Which flavorFungibility field host->cq_fungibility reads. */
enum ordo_fungibility_field {
    ORDO_WHEN_CAN_BORROW = 0,
    ORDO_WHEN_CAN_PREEMPT = 1,
    ORDO_PREFERENCE = 2
};

/* A ClusterQueue's preemption policies (Kueue's values). */
enum ordo_preemption_policy {
    ORDO_PREEMPT_NEVER = 0,
    ORDO_PREEMPT_LOWER_PRIORITY = 1,
    ORDO_PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY = 2,
    ORDO_PREEMPT_ANY = 3
};
/* Bits of host->preemption_candidate_queues. */
#define ORDO_CANDIDATES_OWN    1u
#define ORDO_CANDIDATES_COHORT 2u

enum ordo_preemption_field {
    ORDO_WITHIN_CLUSTER_QUEUE = 0,
    ORDO_RECLAIM_WITHIN_COHORT = 1,
    ORDO_BORROW_WITHIN_COHORT = 2
};

/* ---- the host's function table ------------------------------------------
 * Passed to init; valid for the life of the plugin. Call only from inside an
 * op, on the scheduling thread (log may be called from any thread). */
struct ordo_host {
    /* Frozen. */
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t struct_size;

    /* Logging: every line carries the plugin's name (p). */
    void (*log)(const struct ordo_plugin *p, enum ordo_log_level level,
                const char *fmt, ...) __attribute__((format(printf, 3, 4)));

    /* Long-lived memory: host->free() frees what host->alloc() returned. */
    void *(*alloc)(size_t size); /* zeroed; NULL on OOM */
    void (*free)(void *ptr);     /* NULL-safe */
    /* Scratch memory, zeroed, released by the host when the cycle ends. */
    void *(*cycle_alloc)(struct ordo_cycle *cy, size_t size);

    /* Sets the reason of the verdict the current op is about to return
     * (printf rules; the host copies it). */
    void (*reason)(struct ordo_cycle *cy, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

    /* The plugin's own arguments from the scheduler configuration
     * (pluginConfig[].args), typed, with a default when absent. Return 0, or
     * -EINVAL when present with the wrong type (the plugin says so; read
     * arguments in init so that a bad one stops startup). */
    int (*config_int)(const struct ordo_plugin *p, const char *key,
                      int64_t def, int64_t *ret);
    int (*config_string)(const struct ordo_plugin *p, const char *key,
                         const char *def, const char **ret);

    /* Resources. */
    ordo_resource_id (*resource_id)(const char *name); /* NONE if unknown */
    const char *(*resource_name)(ordo_resource_id id);

    /* Workloads. Strings are owned by the host. */
    const char *(*wl_name)(const struct ordo_workload *wl); /* "ns/name" */
    int32_t (*wl_priority)(const struct ordo_workload *wl);
    /* Queue-order timestamp (creation, or last eviction), ns. */
    int64_t (*wl_queue_time)(const struct ordo_workload *wl);
    const struct ordo_cq *(*wl_cq)(const struct ordo_workload *wl);
    uint32_t (*wl_n_podsets)(const struct ordo_workload *wl);
    const char *(*ps_name)(const struct ordo_workload *wl, uint32_t ps);
    uint32_t (*ps_count)(const struct ordo_workload *wl, uint32_t ps);
    /* The pod set's resources: index i < ps_n_requests gives id and the
     * request of ONE pod. */
    uint32_t (*ps_n_requests)(const struct ordo_workload *wl, uint32_t ps);
    void (*ps_request)(const struct ordo_workload *wl, uint32_t ps,
                       uint32_t i, ordo_resource_id *ret_id,
                       int64_t *ret_milli);
    /* Kubernetes matching of one pod of the set against a node: node
     * selector and required affinity. */
    bool (*ps_matches_node)(const struct ordo_workload *wl, uint32_t ps,
                            const struct ordo_node *node);
    /* Whether one pod of the set tolerates the node's NoSchedule and
     * NoExecute taints, with its own tolerations plus those of the flavors
     * assigned to it in this cycle (Kueue adds a flavor's tolerations to
     * the pods it admits). */
    bool (*ps_tolerates_node)(struct ordo_cycle *cy,
                              const struct ordo_workload *wl, uint32_t ps,
                              const struct ordo_node *node);
    /* Same, against a flavor's nodeLabels (only the keys the flavor
     * declares) and nodeTaints (tolerating with the flavor's tolerations
     * too). */
    bool (*ps_matches_flavor)(const struct ordo_workload *wl, uint32_t ps,
                              const struct ordo_flavor *f);

    /* ClusterQueues: resource groups, flavors in order, quota and usage. */
    const char *(*cq_name)(const struct ordo_cq *cq);
    uint32_t (*cq_n_groups)(const struct ordo_cq *cq);
    /* The group covering id, or -1. */
    int32_t (*cq_group_of)(const struct ordo_cq *cq, ordo_resource_id id);
    uint32_t (*cq_group_n_flavors)(const struct ordo_cq *cq, uint32_t g);
    const struct ordo_flavor *(*cq_group_flavor)(const struct ordo_cq *cq,
                                                 uint32_t g, uint32_t i);
    /* Nominal quota of (flavor, resource); false when the CQ does not list
     * that pair. */
    bool (*cq_nominal)(const struct ordo_cq *cq, const struct ordo_flavor *f,
                       ordo_resource_id id, int64_t *ret_milli);
    /* Usage of (flavor, resource) in this cycle's snapshot, including the
     * admissions made earlier in the same cycle. */
    int64_t (*cq_usage)(struct ordo_cycle *cy, const struct ordo_cq *cq,
                        const struct ordo_flavor *f, ordo_resource_id id);
    const char *(*flavor_name)(const struct ordo_flavor *f);

    /* Nodes. */
    uint32_t (*n_nodes)(struct ordo_cycle *cy);
    const struct ordo_node *(*node_at)(struct ordo_cycle *cy, uint32_t i);
    const char *(*node_name)(const struct ordo_node *n);
    const char *(*node_label)(const struct ordo_node *n, const char *key);
    bool (*node_schedulable)(const struct ordo_node *n);
    int64_t (*node_allocatable)(const struct ordo_node *n,
                                ordo_resource_id id);
    /* Allocatable minus every pod bound or assumed on the node, including
     * pods placed earlier in this placement. */
    int64_t (*node_free)(struct ordo_cycle *cy, const struct ordo_node *n,
                         ordo_resource_id id);

    /* Writing the QUOTA plugin's assignment: pod set ps takes flavor f for
     * every resource of group g. Returns 0 or -EINVAL (the host checks that
     * f is in that group of the workload's ClusterQueue). */
    int (*assign_flavor)(struct ordo_cycle *cy, uint32_t ps, uint32_t g,
                         const struct ordo_flavor *f);
    /* The assignment's borrowing level: 0 when it does not borrow, else
     * the height of the lowest cohort subtree its usage fits in (see
     * cq_borrowing_level). Entries that borrow less are admitted first. */
    void (*assign_borrowing)(struct ordo_cycle *cy, uint32_t level);
    /* The flavor assigned to pod set ps for resource id (PLACE plugins use
     * it to keep pods on that flavor's nodes); NULL when none. */
    const struct ordo_flavor *(*assigned_flavor)(struct ordo_cycle *cy,
                                                 uint32_t ps,
                                                 ordo_resource_id id);
    /* A flavor's nodeLabels value for key, NULL when it declares none. */
    const char *(*flavor_node_label)(const struct ordo_flavor *f,
                                     const char *key);
    uint32_t (*flavor_n_node_labels)(const struct ordo_flavor *f);
    void (*flavor_node_label_at)(const struct ordo_flavor *f, uint32_t i,
                                 const char **ret_key, const char **ret_value);

    /* Kueue's quota arithmetic over ClusterQueues and cohorts, in this
     * cycle's snapshot (admissions earlier in the cycle included). All
     * amounts are for one (flavor, resource) of the ClusterQueue; 0 / false
     * when the ClusterQueue does not list that pair. */
    /* What the ClusterQueue can still take now, borrowing included. */
    int64_t (*cq_available)(struct ordo_cycle *cy, const struct ordo_cq *cq,
                            const struct ordo_flavor *f, ordo_resource_id id);
    /* The most it could ever hold (nominal, cohort and limits). */
    int64_t (*cq_potential_available)(struct ordo_cycle *cy,
                                      const struct ordo_cq *cq,
                                      const struct ordo_flavor *f,
                                      ordo_resource_id id);
    /* 0 when `request` more stays within nominal quota, else the height of
     * the lowest cohort subtree in which it fits. */
    uint32_t (*cq_borrowing_level)(struct ordo_cycle *cy,
                                   const struct ordo_cq *cq,
                                   const struct ordo_flavor *f,
                                   ordo_resource_id id, int64_t request);
    /* Whether `request` could fit without borrowing beyond a subtree below
     * the root (nominal quota, or a cohort below the root): the condition
     * under which reclaiming quota by preemption is worth trying. */
    bool (*cq_fits_below_root)(const struct ordo_cq *cq,
                               const struct ordo_flavor *f,
                               ordo_resource_id id, int64_t request);
    bool (*cq_has_cohort)(const struct ordo_cq *cq);
    uint32_t (*cq_fungibility)(const struct ordo_cq *cq,
                               enum ordo_fungibility_field field);
    uint32_t (*cq_preemption)(const struct ordo_cq *cq,
                              enum ordo_preemption_field field);
    /* Whether fair sharing is on (fairSharing.enable). */
    bool (*fair_sharing)(struct ordo_cycle *cy);

    /* Preemption (PREEMPT plugins). The workload being decided is the
     * preemptor; candidates are admitted workloads of its cohort tree. */
    /* The ClusterQueue a workload is admitted to (NULL when pending). */
    const struct ordo_cq *(*wl_admitted_cq)(const struct ordo_workload *wl);
    /* When it was last admitted, ns (candidates: most recent first). */
    int64_t (*wl_admitted_time)(const struct ordo_workload *wl);
    /* Whether it is being evicted already (its pods are going away). */
    bool (*wl_evicting)(const struct ordo_workload *wl);
    /* Whether two ClusterQueues are the same. */
    bool (*cq_same)(const struct ordo_cq *a, const struct ordo_cq *b);
    /* Whether cq uses more than its nominal quota on a (flavor, resource)
     * the preemptor's assignment needs: only then may it give quota back. */
    bool (*cq_over_nominal_for)(struct ordo_cycle *cy,
                                const struct ordo_cq *cq);
    /* What-if: remove (or put back) a candidate's quota usage in this
     * cycle's snapshot. Every removal must be put back before the op
     * returns; the host checks. sim_remove and sim_restore, the names of
     * ABI 1.3 and before, are deprecated aliases of the same slots (an
     * anonymous union: C11 and C++; __extension__ lets -std=c99 -pedantic
     * builds through): they are what-ifs, not the simulator. */
    __extension__ union {
        void (*whatif_remove)(struct ordo_cycle *cy,
                              const struct ordo_workload *wl);
        void (*sim_remove)(struct ordo_cycle *cy,
                           const struct ordo_workload *wl); /* deprecated */
    };
    __extension__ union {
        void (*whatif_restore)(struct ordo_cycle *cy,
                               const struct ordo_workload *wl);
        void (*sim_restore)(struct ordo_cycle *cy,
                            const struct ordo_workload *wl); /* deprecated */
    };
    /* Whether the preemptor's assignment fits the snapshot as it is now:
     * every (flavor, resource) within Available, and, without
     * allow_borrowing, within nominal quota too. */
    bool (*preemptor_fits)(struct ordo_cycle *cy, bool allow_borrowing);
    /* The preemptor's share and a candidate's ClusterQueue share (fair
     * sharing), computed at the children of their lowest common ancestor,
     * with the preemptor's workload added on its side: per mille of what
     * the parent can lend, divided by the weight, rounded up (Kueue's
     * roundedWeightedShare); INT64_MAX for a zero-weight borrower. */
    int64_t (*fs_preemptor_share)(struct ordo_cycle *cy,
                                  const struct ordo_cq *target);
    int64_t (*fs_target_share)(struct ordo_cycle *cy,
                               const struct ordo_cq *target);
    /* The fair sharing preemption strategies configured, in order
     * (1 = LessThanOrEqualToFinalShare, 2 = LessThanInitialShare); returns
     * how many (at most 2) were written into ret. */
    uint32_t (*fs_strategies)(struct ordo_cycle *cy, uint32_t ret[2]);
    /* preemption.borrowWithinCohort.maxPriorityThreshold of cq: false when
     * unset. */
    bool (*cq_max_priority_threshold)(const struct ordo_cq *cq,
                                      int32_t *ret);
    /* Formats milli-units of resource id the way Kubernetes prints a
     * Quantity ("1500m", "4", "1536Mi" for memory-like resources) into buf
     * (size bytes; 32 is always enough) and returns buf. */
    const char *(*format_quantity)(ordo_resource_id id, int64_t milli,
                                   char *buf, size_t size);
    /* Whether the workload being decided could preempt anything on
     * (f, id) of its ClusterQueue: an admitted workload that uses it, in
     * its own ClusterQueue allowed by withinClusterQueue, or in another
     * ClusterQueue of its cohort tree that uses more than its nominal quota
     * there, allowed by reclaimWithinCohort. false is Kueue's
     * NoCandidates, which flavor assignment passes over like NoFit. */
    bool (*preemption_candidates)(struct ordo_cycle *cy,
                                  const struct ordo_flavor *f,
                                  ordo_resource_id id);
    /* Kueue's hierarchical advantage against a candidate of ClusterQueue
     * target: the preemptor's side of their lowest common cohort (its
     * ClusterQueue, or the cohort below the common one) holds what the
     * preemptor needs within its own subtree quota. */
    bool (*preemptor_advantage)(struct ordo_cycle *cy,
                                const struct ordo_cq *target);

    /* ABI 1.1. Kueue's fair-sharing target order: walking down from the
     * root of the preemptor's cohort tree, at each cohort the child with
     * the highest share (the preemptor's workload counted on its path)
     * among those that hold one of the n ClusterQueues cqs and borrow, or
     * lie on the preemptor's path; a cohort wins a tie with a
     * ClusterQueue, ClusterQueues tie on the lower rank. Returns the index
     * in cqs of the ClusterQueue reached, or -1 when none qualifies. */
    int64_t (*fs_next_target)(struct ordo_cycle *cy,
                              const struct ordo_cq *const *cqs,
                              const int64_t *rank, uint32_t n);

    /* ABI 1.2. Where the workload being decided has preemption candidates
     * on (f, id), as preemption_candidates judges them: ORDO_CANDIDATES_OWN
     * when in its own ClusterQueue, ORDO_CANDIDATES_COHORT when in other
     * ClusterQueues of its cohort tree, both, or 0 (Kueue's NoCandidates).
     * Candidates only in other queues make it Kueue's Reclaim, which flavor
     * assignment prefers to priority-based Preempt. */
    uint32_t (*preemption_candidate_queues)(struct ordo_cycle *cy,
                                            const struct ordo_flavor *f,
                                            ordo_resource_id id);

    /* ABI 1.3. Why pod set ps cannot use flavor f (ps_matches_flavor is
     * false), in Kueue's words: "untolerated taint key=value:Effect in
     * flavor f", "flavor f doesn't match node affinity" or "flavor f not
     * found". Writes it into buf (size bytes) and returns buf; NULL when
     * the flavor suits the pod set. */
    const char *(*ps_flavor_mismatch)(const struct ordo_workload *wl,
                                      uint32_t ps, const struct ordo_flavor *f,
                                      char *buf, size_t size);

    /* ABI 1.4. ------------------------------------------------------------
     * Read these only when host->abi_minor >= 4 (an older ordo-scheduler
     * does not have them). Strings are owned by the host: those of a
     * workload live as long as the handle (the op), those of the
     * configuration as long as the plugin. */

    /* More typed arguments, like config_int (absent or null: def; 0, or
     * -EINVAL when present with the wrong type). A quantity is Kubernetes
     * syntax ("500m", "2Gi", 4) in milli-units; a duration is Go syntax
     * ("90s", "1h30m") in ns; a boolean is true or false (YAML 1.1 words
     * too). config_list reads a list of strings: writes up to cap of them
     * into ret (owned by the host, valid for the plugin's life) and their
     * total number into *ret_n (0 when absent). Callable from init and
     * from any op. */
    int (*config_quantity)(const struct ordo_plugin *p, const char *key,
                           int64_t def, int64_t *ret_milli);
    int (*config_duration)(const struct ordo_plugin *p, const char *key,
                           int64_t def, int64_t *ret_ns);
    int (*config_bool)(const struct ordo_plugin *p, const char *key,
                       bool def, bool *ret);
    int (*config_list)(const struct ordo_plugin *p, const char *key,
                       const char **ret, uint32_t cap, uint32_t *ret_n);

    /* The scheduler's clock, ns since the Unix epoch: the virtual time in
     * the simulator, the wall clock against a cluster. Per instance (keep
     * p in self to call it from queue->less, which has no cycle). Callable
     * from init and from any op. */
    int64_t (*now)(const struct ordo_plugin *p);

    /* The workload's top object: the Job, the JobSet, the pod group
     * (its first pod's metadata; the name is the group's) or the Pod.
     * Callable from any op that is given the workload. */
    const char *(*wl_namespace)(const struct ordo_workload *wl);
    const char *(*wl_object_name)(const struct ordo_workload *wl); /* no ns */
    /* "Job", "JobSet", "PodGroup" or "Pod". */
    const char *(*wl_kind)(const struct ordo_workload *wl);
    /* Its labels and annotations: the value for key (NULL when absent), or
     * the i-th pair of n (i < n; both NULL past the end). */
    const char *(*wl_label)(const struct ordo_workload *wl, const char *key);
    uint32_t (*wl_n_labels)(const struct ordo_workload *wl);
    void (*wl_label_at)(const struct ordo_workload *wl, uint32_t i,
                        const char **ret_key, const char **ret_value);
    const char *(*wl_annotation)(const struct ordo_workload *wl,
                                 const char *key);
    uint32_t (*wl_n_annotations)(const struct ordo_workload *wl);
    void (*wl_annotation_at)(const struct ordo_workload *wl, uint32_t i,
                             const char **ret_key, const char **ret_value);
    /* metadata.creationTimestamp of the top object (its arrival in the
     * simulator), ns; unlike wl_queue_time it does not move on eviction. */
    int64_t (*wl_creation_time)(const struct ordo_workload *wl);
    /* The top object's controller owner reference (controller: true):
     * true with its kind and name, or false with both NULL. */
    bool (*wl_owner)(const struct ordo_workload *wl, const char **ret_kind,
                     const char **ret_name);

    /* The pod template of pod set ps (for a pod group or a Pod, the pod's
     * own metadata): labels and annotations, as for the workload. Meant
     * for PLACE plugins; callable from any op given the workload. */
    const char *(*ps_label)(const struct ordo_workload *wl, uint32_t ps,
                            const char *key);
    uint32_t (*ps_n_labels)(const struct ordo_workload *wl, uint32_t ps);
    void (*ps_label_at)(const struct ordo_workload *wl, uint32_t ps,
                        uint32_t i, const char **ret_key,
                        const char **ret_value);
    const char *(*ps_annotation)(const struct ordo_workload *wl, uint32_t ps,
                                 const char *key);
    uint32_t (*ps_n_annotations)(const struct ordo_workload *wl, uint32_t ps);
    void (*ps_annotation_at)(const struct ordo_workload *wl, uint32_t ps,
                             uint32_t i, const char **ret_key,
                             const char **ret_value);
};


/* ---- op tables, one per kind ---------------------------------------------
 * `self` is what init returned. Every op runs on the scheduling thread, may
 * not block, and may touch only self, its arguments and the host table. */

struct ordo_queue_ops {
    /* Called when the host orders a ClusterQueue's pending workloads, many
     * times per cycle. Returns true when a goes before b; must be a strict
     * weak order. */
    bool (*less)(void *self, const struct ordo_workload *a,
                 const struct ordo_workload *b);
    /* Called once for a head the cycle did not admit, with the verdict it
     * got. Returns what happens to the queue behind it. */
    enum ordo_queue_action (*on_not_admitted)(void *self,
                                              const struct ordo_workload *wl,
                                              enum ordo_verdict verdict);
};

struct ordo_quota_ops {
    /* Called once per head at the start of each cycle (nomination), against
     * the snapshot as it was before any admission of this cycle; the host
     * re-checks a FIT against what earlier entries of the cycle took before
     * it admits (Kueue's processEntry). Chooses flavors with
     * host->assign_flavor and sets *ret_mode; returns ORDO_OK when it
     * decided (whatever the mode), another verdict with a reason when it
     * could not. On NOFIT or PREEMPT, host->reason says why. */
    enum ordo_verdict (*assign)(void *self, struct ordo_cycle *cy,
                                const struct ordo_workload *wl,
                                enum ordo_quota_mode *ret_mode);
};

struct ordo_preempt_ops {
    /* Called for a head whose assignment mode is PREEMPT, with the
     * workloads the host allows as victims. Writes the chosen ones' indexes
     * into ret_victims (capacity n_candidates) and their number into
     * *ret_n; returns ORDO_OK, or ORDO_UNSCHEDULABLE with a reason when no
     * set of victims would do. The host trusts none of it: each victim must
     * be a candidate (at most n_candidates of them, none twice), allowed by
     * the preemptor's ClusterQueue's preemption policy, and the set
     * minimal (no victim whose removal is not needed) and enough to fit
     * quota and nodes; otherwise nothing is evicted. What-if removals
     * (whatif_remove) left in place are put back by the host and the
     * verdict refused. */
    enum ordo_verdict (*select_victims)(
        void *self, struct ordo_cycle *cy, const struct ordo_workload *wl,
        const struct ordo_workload *const *candidates, uint32_t n_candidates,
        uint32_t *ret_victims, uint32_t *ret_n);
};

struct ordo_place_ops {
    /* Called for each (pod of a pod set, node) the host considers while it
     * places a workload; host->node_free already counts the pods placed so
     * far. ORDO_OK when the pod can go there. */
    enum ordo_verdict (*filter)(void *self, struct ordo_cycle *cy,
                                const struct ordo_workload *wl, uint32_t ps,
                                const struct ordo_node *node);
    /* Optional. Called for nodes that passed every filter; writes 0..100
     * (higher is better) into *ret_score. An out-of-range score is ignored
     * with a warning. */
    enum ordo_verdict (*score)(void *self, struct ordo_cycle *cy,
                               const struct ordo_workload *wl, uint32_t ps,
                               const struct ordo_node *node,
                               int64_t *ret_score);
};

/* ---- declared arguments (ABI 1.4) ----------------------------------------
 * A plugin lists the pluginConfig[].args it reads. The host then refuses at
 * startup an argument the plugin does not declare or one of the wrong type,
 * naming the plugin and the argument, and --list-plugins -v 1 prints them.
 * A plugin built for ABI 1.4 declares every argument it reads (n_args 0:
 * it takes none); one built for an older ABI declares nothing and gets any
 * args, as before. */
enum ordo_arg_type {
    ORDO_ARG_INT = 1,        /* config_int: an integer */
    ORDO_ARG_STRING = 2,     /* config_string: a scalar */
    ORDO_ARG_QUANTITY = 3,   /* config_quantity: "500m", "2Gi", 4 */
    ORDO_ARG_DURATION = 4,   /* config_duration: "90s", "1h30m" */
    ORDO_ARG_BOOL = 5,       /* config_bool: true / false */
    ORDO_ARG_STRING_LIST = 6 /* config_list: a list of scalars */
};

struct ordo_arg {
    const char *name; /* the key in args, unique within the plugin */
    uint32_t type;    /* enum ordo_arg_type */
    const char *def;  /* the default as text, for people; NULL: none. The
                         loader checks that it reads as its type (lists
                         excepted). The getter's def is what counts. */
    const char *help; /* one line */
};

/* ---- the descriptor -------------------------------------------------------- */
struct ordo_plugin_descriptor {
    /* Frozen: checked by the host before any other field is read. */
    uint32_t abi_major;   /* ORDO_ABI_MAJOR the plugin was built with */
    uint32_t abi_minor;   /* ORDO_ABI_MINOR the plugin was built with */
    uint32_t struct_size; /* sizeof(struct ordo_plugin_descriptor) */
    /* Identity, readable without initialising the plugin. */
    uint32_t kind;       /* enum ordo_plugin_kind */
    const char *name;    /* unique, [a-z0-9-]{1,63}, e.g. "strict-fifo" */
    const char *version; /* the plugin's own version, e.g. "1.0.0" */
    const char *summary; /* one line for --list-plugins */

    /* Called once at startup on the main thread, before any op. Returns 0
     * with its state in *ret_self (may be NULL), or a negative errno after
     * logging why and freeing what it allocated. Required. */
    int (*init)(const struct ordo_host *host, const struct ordo_plugin *p,
                void **ret_self);
    /* Called once at shutdown; accepts NULL and half-initialised state.
     * Optional. */
    void (*fini)(void *self);

    /* The ops of this plugin's kind; exactly the one matching `kind` must
     * be non-NULL, with its required ops set. */
    const struct ordo_queue_ops *queue;
    const struct ordo_quota_ops *quota;
    const struct ordo_preempt_ops *preempt;
    const struct ordo_place_ops *place;

    /* ABI 1.4: the arguments it reads (n_args of them; args may be NULL
     * when n_args is 0). Read by the host only from a descriptor whose
     * abi_minor is 4 or more. */
    const struct ordo_arg *args;
    uint32_t n_args;
};

/* The number of entries of a static array, for .n_args. */
#define ORDO_N_ARGS(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* Declares the one exported descriptor. */
#define ORDO_PLUGIN_DESCRIPTOR                                                 \
    extern const struct ordo_plugin_descriptor ordo_plugin;                    \
    const struct ordo_plugin_descriptor ordo_plugin

/* Fills the frozen fields. */
#define ORDO_PLUGIN_HEADER                                                     \
    .abi_major = ORDO_ABI_MAJOR, .abi_minor = ORDO_ABI_MINOR,                  \
    .struct_size = sizeof(struct ordo_plugin_descriptor)

#ifdef __cplusplus
}
#endif

#endif
