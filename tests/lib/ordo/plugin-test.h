/* ordo/plugin-test.h - the plugin test kit: a mock struct ordo_host for
 * testing plugins without the scheduler. Installed with <ordo/plugin.h>;
 * link libordo-plugin-test.a (pkg-config ordo-plugin-test). In the Ordo
 * tree it is tests/lib/ordo/plugin-test.h (tests include "mock_host.h").
 *
 * The opaque handles of <ordo/plugin.h> are defined here as plain fixtures
 * that a test fills with designated initializers. Every list is a fixed-size
 * array ended by its first zero entry (a NULL name, key or pointer), so a
 * fixture never carries counts:
 *
 *     static struct ordo_flavor on_demand = {
 *         .name = "on-demand",
 *         .labels = {{"instance-type", "on-demand"}},
 *     };
 *     static struct ordo_cq cq = {
 *         .name = "team-a",
 *         .groups = {{
 *             .resources = {"cpu", "memory"},
 *             .flavors = {{&on_demand, {{"cpu", 4000, 1000}}}},
 *         }},
 *     };
 *     struct ordo_workload wl = {
 *         .name = "ns/a", .cq = &cq,
 *         .annotations = {{"ordo.dev/expected-runtime", "15m"}},
 *         .podsets = {{.name = "main", .count = 2,
 *                      .requests = {{"cpu", 1000}}}},
 *     };
 *
 * A plugin is tested by calling its descriptor's ops with mock_host(), a
 * struct ordo_plugin (name, config args, clock, captured log) and a struct
 * ordo_cycle (nodes, scratch memory, recorded assignment, captured reason).
 * Resource names are interned on first use; quantities are milli-units.
 * The test binary links exactly one plugin (its `ordo_plugin`). */
#ifndef ORDO_PLUGIN_TEST_H
#define ORDO_PLUGIN_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ordo/plugin.h>

#define MOCK_MAX      8   /* entries of every fixture list */
#define MOCK_TEXT_MAX 512 /* captured reason / log message, with the NUL */

struct mock_label {
    const char *key;
    const char *value;
};

/* A quantity of a named resource. */
struct mock_qty {
    const char *resource;
    int64_t milli;
};

struct ordo_flavor {
    const char *name;
    struct mock_label labels[MOCK_MAX]; /* nodeLabels */
    const char *taints[MOCK_MAX];       /* NoSchedule taint keys */
    const char *tolerations[MOCK_MAX];  /* keys the flavor tolerates */
};

/* Quota of one resource in one flavor of a ClusterQueue. */
struct mock_quota {
    const char *resource;
    int64_t nominal;
    int64_t usage; /* what cq_usage reports */
};

/* Kueue's quota arithmetic for one (flavor, resource) of a ClusterQueue
 * (cq_available, cq_potential_available, cq_borrowing_level,
 * cq_fits_below_root): a flat-cohort model of reference section 3.7
 * without lending limits. The ClusterQueue's cohort (ordo_cq.cohort) is the
 * root, and the rest of the cohort contributes cohort_nominal quota of which
 * it uses cohort_usage. With N and U the nominal quota and usage of the
 * pair's mock_quota, O = cohort_nominal, OU = cohort_usage and
 * BL = borrowing_limit:
 *
 *     without a cohort  available = max(0, N - U), potential = N
 *     with a cohort     available = max(0, min(N + O - U - OU,
 *                                              N - U + BL if limited))
 *                       potential = min(N + O, N + BL if limited)
 *     level(req)        = 0 without a cohort or when U + req <= N, else
 *                         cohort_height (0 counts as 1: a cohort of CQs)
 *     fits_below_root(req) = req <= N, or req <= below_root_quota when set
 *                         (the subtree quota of a cohort below the root
 *                         that holds the ClusterQueue)
 *
 * When `fixed` is set, available and potential are answered as given; the
 * rest of the model still applies. A listed pair without an entry has all
 * of these zero; a pair the ClusterQueue does not list answers 0 / false.
 * Sums saturate. (Kept apart from mock_quota so that its three-field
 * initializers stay complete.) */
struct mock_fr_quota {
    const struct ordo_flavor *flavor;
    const char *resource;
    int64_t cohort_nominal;
    int64_t cohort_usage;
    bool has_borrowing_limit;
    int64_t borrowing_limit;
    uint32_t cohort_height;
    int64_t below_root_quota;
    bool fixed;
    int64_t available;
    int64_t potential;
    /* host->preemption_candidate_queues for the pair when not 0 (else it
     * follows the ClusterQueue's policies); MOCK_NO_CANDIDATES for none */
    uint32_t candidates;
};
#define MOCK_NO_CANDIDATES 0x100u

struct mock_flavor_quotas {
    const struct ordo_flavor *flavor;
    struct mock_quota quotas[MOCK_MAX];
};

struct mock_group {
    const char *resources[MOCK_MAX]; /* coveredResources */
    struct mock_flavor_quotas flavors[MOCK_MAX];
};

struct ordo_cq {
    const char *name;
    struct mock_group groups[MOCK_MAX];
    const char *cohort; /* NULL: no cohort (cq_has_cohort) */
    /* flavorFungibility (cq_fungibility); zero is Kueue's MayStopSearch /
     * no preference. */
    enum ordo_fungibility when_can_borrow;
    enum ordo_fungibility when_can_preempt;
    enum ordo_fungibility_preference preference;
    /* preemption (cq_preemption); zero is Never. */
    enum ordo_preemption_policy within_cluster_queue;
    enum ordo_preemption_policy reclaim_within_cohort;
    enum ordo_preemption_policy borrow_within_cohort;
    /* The quota model of its (flavor, resource) pairs (mock_fr_quota). */
    struct mock_fr_quota fr_quotas[MOCK_MAX];
    /* The preemption model (see struct ordo_cycle): how much more than its
     * nominal quota it uses (cq_over_nominal_for while borrowed, less what
     * the removed workloads admitted to it free, is > 0), its share
     * (fs_target_share, less the same) and the preemptor's share against it
     * (fs_preemptor_share, less what the removed workloads admitted to the
     * preemptor's ClusterQueue free). */
    int64_t borrowed;
    int64_t fs_share;
    int64_t fs_preemptor_share;
    /* borrowWithinCohort.maxPriorityThreshold (cq_max_priority_threshold) */
    bool has_threshold;
    int32_t threshold;
    /* host->preemption_candidates answers false (Kueue's NoCandidates) */
    bool no_preemption_candidates;
    /* host->preemptor_advantage against candidates of this ClusterQueue */
    bool advantage;
};

struct mock_podset {
    const char *name;
    uint32_t count;
    struct mock_qty requests[MOCK_MAX];   /* of one pod */
    struct mock_label selector[MOCK_MAX]; /* nodeSelector */
    const char *tolerations[MOCK_MAX];    /* taint keys tolerated */
    /* The template's metadata (ps_label, ps_annotation, ...). */
    struct mock_label labels[MOCK_MAX];
    struct mock_label annotations[MOCK_MAX];
};

struct ordo_workload {
    const char *name;
    int32_t priority;
    int64_t queue_time;
    const struct ordo_cq *cq;
    struct mock_podset podsets[MOCK_MAX];
    /* Preemption: the ClusterQueue it is admitted to (wl_admitted_cq; NULL
     * while pending), when (wl_admitted_time), whether it is being evicted
     * (wl_evicting), and the quota its removal frees in the model. */
    const struct ordo_cq *admitted_cq;
    int64_t admitted_time;
    bool evicting;
    int64_t frees;
    /* ABI 1.4 metadata. Unset, the namespace is "", the object name the
     * part of name after '/', the kind "Job" and the owner none. */
    const char *namespace_;
    const char *object_name;
    const char *kind;
    struct mock_label labels[MOCK_MAX];
    struct mock_label annotations[MOCK_MAX];
    int64_t creation_time;  /* wl_creation_time, ns */
    const char *owner_kind; /* wl_owner, with owner_name */
    const char *owner_name;
};

struct ordo_node {
    const char *name;
    bool unschedulable;
    struct mock_label labels[MOCK_MAX];
    const char *taints[MOCK_MAX]; /* NoSchedule taint keys */
    struct mock_qty allocatable[MOCK_MAX];
    struct mock_qty free[MOCK_MAX]; /* absent: free = allocatable */
};

/* One configuration argument, as the YAML would hold it: text (str: a
 * string, a quantity "2Gi" or a duration "90s"), an integer (is_int, num),
 * a boolean (is_bool, b) or a list of strings (is_list, list). */
struct mock_arg {
    const char *key;
    const char *str;
    int64_t num;
    bool is_int;
    bool is_bool;
    bool b;
    bool is_list;
    const char *list[MOCK_MAX];
};

/* The host's record of a plugin instance. */
struct ordo_plugin {
    const char *name;
    struct mock_arg args[MOCK_MAX];
    int64_t now; /* what host->now answers, ns */
    /* Captured by host->log. */
    int n_logs;
    enum ordo_log_level last_level;
    char last_log[MOCK_TEXT_MAX];
};

struct ordo_cycle {
    /* Set by mock_cycle_init. */
    const struct ordo_workload *wl; /* whose assignment is recorded */
    const struct ordo_node *nodes[MOCK_MAX];
    /* Test knobs. */
    bool fail_cycle_alloc; /* host->cycle_alloc returns NULL */
    bool fair_sharing;     /* what host->fair_sharing answers */
    /* Recorded: the flavor of (pod set, group), borrowing, reasons. */
    const struct ordo_flavor *assigned[MOCK_MAX][MOCK_MAX];
    int n_assign_calls;
    uint32_t borrowing;
    int n_borrowing_calls;
    int n_reasons;
    char reason[MOCK_TEXT_MAX];
    /* Scratch memory, freed by mock_cycle_end. */
    void **scratch;
    size_t n_scratch;
    /* The preemption model, one abstract quantity: preemptor_fits(cy,
     * borrowing) is need <= free + what every removed workload frees, and,
     * without borrowing, also need <= nominal_headroom + what the removed
     * workloads admitted to wl's ClusterQueue free. fs_strategies answers
     * fs_strategies[0 .. n_fs_strategies). Removals are recorded (removing
     * a workload twice, or restoring one not removed, aborts) and
     * counted. */
    int64_t need;
    int64_t free;
    int64_t nominal_headroom;
    uint32_t fs_strategies[2];
    uint32_t n_fs_strategies;
    uint32_t n_next_target_calls; /* fs_next_target */
    /* fs_next_target answers this queue while it is offered (a tree walk
     * that prefers it), else the flat highest share. */
    const struct ordo_cq *fs_force_target;
    const struct ordo_workload *removed[4 * MOCK_MAX]; /* now removed */
    uint32_t n_removed;
    int n_sim_remove;
    int n_sim_restore;
    int n_fits_calls;
};

/* The descriptor of the plugin under test: each test binary links exactly
 * one plugin .c, which defines it. */
extern const struct ordo_plugin_descriptor ordo_plugin;

/* The host table; every function pointer is set. */
const struct ordo_host *mock_host(void);

/* Clears the interned resources and the allocation knobs and counters.
 * Call it in each test's setup. */
void mock_reset(void);
/* Number of host->alloc blocks not yet given to host->free. */
long mock_live_allocs(void);
/* Makes host->alloc return NULL (true) or work again (false). */
void mock_fail_alloc(bool fail);

/* Interns name, returning its id (registering it when new). */
ordo_resource_id mock_resource(const char *name);

/* Checks p's args against what the plugin under test declares (ABI 1.4),
 * as the scheduler does at startup: returns 0, or -EINVAL with why (an
 * undeclared argument, or one of the wrong type) in buf (size bytes). */
int mock_check_args(const struct ordo_plugin *p, char *buf, size_t size);

/* Starts a cycle for wl over a NULL-terminated node list (may be NULL). */
void mock_cycle_init(struct ordo_cycle *cy, const struct ordo_workload *wl,
                     const struct ordo_node *const *nodes);
/* Frees the cycle's scratch memory. */
void mock_cycle_end(struct ordo_cycle *cy);
/* Clears the captured reason (before the next op of the same cycle). */
void mock_clear_reason(struct ordo_cycle *cy);

#endif
