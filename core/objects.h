/* objects.h - the typed Kubernetes and Kueue objects Ordo reads.
 *
 * Each decoded object owns an arena holding all its strings and arrays;
 * object_free() releases it (and the few heap resource lists). Only the
 * fields Ordo uses are kept; unknown fields of the input are ignored.
 *
 * Field names follow the upstream APIs exactly (core/v1, batch/v1,
 * jobset.x-k8s.io/v1alpha2, kueue.x-k8s.io/v1beta2); enum values of Kueue
 * objects are validated as Kueue's webhooks do, while core Kubernetes objects
 * (already validated by an API server) keep unknown enum values as *_UNKNOWN. */
#ifndef ORDO_OBJECTS_H
#define ORDO_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labels.h"
#include "resources.h"
#include "strmap.h"

struct arena;

enum object_kind {
    OBJ_NAMESPACE = 0,
    OBJ_NODE,
    OBJ_POD,
    OBJ_JOB,
    OBJ_JOBSET,
    OBJ_PRIORITY_CLASS,
    OBJ_RESOURCE_FLAVOR,
    OBJ_CLUSTER_QUEUE,
    OBJ_LOCAL_QUEUE,
    OBJ_COHORT,
    OBJ_WORKLOAD_PRIORITY_CLASS,
    OBJ_TOPOLOGY,
    OBJ_ADMISSION_CHECK,
    OBJ_KIND_MAX
};

/* "Pod", "ClusterQueue", ... */
const char *object_kind_name(enum object_kind k);
/* True for namespaced kinds (Pod, Job, JobSet, LocalQueue). */
bool object_kind_namespaced(enum object_kind k);

struct owner_ref {
    const char *api_version;
    const char *kind;
    const char *name;
    const char *uid;
    bool controller;
};

/* Times are int64 nanoseconds since the Unix epoch. */
struct object_meta {
    const char *name;
    const char *namespace_; /* NULL for cluster-scoped kinds */
    const char *uid;
    const char *resource_version;
    struct strmap labels;
    struct strmap annotations;
    bool has_creation;
    int64_t creation_ns;
    bool deleting; /* deletionTimestamp set */
    int64_t deletion_ns;
    size_t n_owners;
    struct owner_ref *owners;
};

/* The controlling owner reference (controller: true), or NULL. */
const struct owner_ref *object_meta_controller(const struct object_meta *m);

/* What of a pod spec the scheduler uses. `requests` is the effective request
 * of one pod as kube-scheduler computes it: the sum of the containers and
 * restartable init containers (sidecars), at least the largest init
 * container step, pod-level requests where given, plus overhead; a missing
 * container request defaults to its limit. */
struct pod_spec {
    const char *scheduler_name; /* "default-scheduler" when absent */
    const char *node_name;      /* NULL when unbound */
    const char *priority_class_name;
    bool has_priority;
    int32_t priority;
    const char *restart_policy;
    struct strmap node_selector;
    struct node_selector *required_affinity; /* NULL when absent */
    size_t n_tolerations;
    struct toleration *tolerations;
    size_t n_containers;
    size_t n_init_containers;
    size_t n_scheduling_gates;
    struct resource_list requests; /* heap; released by object_free */
};

/* A pod template: its metadata (labels, annotations) and spec. */
struct pod_template {
    struct object_meta meta;
    struct pod_spec spec;
};

enum pod_phase {
    POD_PHASE_PENDING = 0, /* also when status is absent */
    POD_PHASE_RUNNING,
    POD_PHASE_SUCCEEDED,
    POD_PHASE_FAILED,
    POD_PHASE_UNKNOWN,
    POD_PHASE_MAX
};

struct pod_object {
    struct pod_spec spec;
    enum pod_phase phase;
};

struct node_object {
    bool unschedulable;
    size_t n_taints;
    struct taint *taints;
    struct resource_list capacity;    /* heap */
    struct resource_list allocatable; /* heap; capacity when absent */
    bool ready; /* condition Ready=True, or no conditions reported */
};

struct job_spec {
    int32_t parallelism; /* default 1 */
    bool has_completions;
    int32_t completions;
    bool suspend;
    struct pod_template template;
};

struct job {
    struct job_spec spec;
};

struct replicated_job {
    const char *name;
    int32_t replicas; /* default 1 */
    struct object_meta template_meta;
    struct job_spec spec;
};

struct jobset {
    bool suspend;
    size_t n_replicated_jobs;
    struct replicated_job *replicated_jobs;
};

struct priority_class {
    int32_t value;
    bool global_default;
    const char *preemption_policy; /* NULL = PreemptLowerPriority */
};

struct resource_flavor {
    struct strmap node_labels;
    size_t n_node_taints;
    struct taint *node_taints;
    size_t n_tolerations;
    struct toleration *tolerations;
    const char *topology_name; /* NULL when not a TAS flavor */
};

/* One resource of one flavor in a resource group: quantities in
 * milli-units. */
struct resource_quota {
    const char *name;
    int64_t nominal_quota;
    bool has_borrowing_limit; /* absent = unlimited */
    int64_t borrowing_limit;
    bool has_lending_limit;   /* absent = everything is lendable */
    int64_t lending_limit;
};

struct flavor_quotas {
    const char *name;
    size_t n_resources; /* == the group's n_covered, same order */
    struct resource_quota *resources;
};

struct resource_group {
    size_t n_covered;
    const char **covered_resources;
    size_t n_flavors;
    struct flavor_quotas *flavors;
};

enum queueing_strategy {
    QUEUEING_BEST_EFFORT_FIFO = 0, /* default */
    QUEUEING_STRICT_FIFO,
    QUEUEING_STRATEGY_MAX
};

enum stop_policy {
    STOP_POLICY_NONE = 0,
    STOP_POLICY_HOLD,
    STOP_POLICY_HOLD_AND_DRAIN,
    STOP_POLICY_MAX
};

enum fungibility_policy {
    FUNGIBILITY_MAY_STOP_SEARCH = 0,
    FUNGIBILITY_TRY_NEXT_FLAVOR,
    FUNGIBILITY_POLICY_MAX
};

enum fungibility_preference {
    FUNGIBILITY_PREFERENCE_NONE = 0, /* behaves as BorrowingOverPreemption */
    FUNGIBILITY_BORROWING_OVER_PREEMPTION,
    FUNGIBILITY_PREEMPTION_OVER_BORROWING,
    FUNGIBILITY_PREFERENCE_MAX
};

/* Values of withinClusterQueue, reclaimWithinCohort and
 * borrowWithinCohort.policy (each field allows a subset). */
enum preemption_policy {
    PREEMPTION_NEVER = 0,
    PREEMPTION_LOWER_PRIORITY,
    PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY,
    PREEMPTION_ANY,
    PREEMPTION_POLICY_MAX
};

struct cluster_queue {
    size_t n_resource_groups;
    struct resource_group *resource_groups;
    const char *cohort_name; /* NULL when not in a cohort */
    enum queueing_strategy queueing_strategy;
    struct label_selector *namespace_selector; /* NULL (nil) = no namespace */
    enum fungibility_policy when_can_borrow;  /* default MayStopSearch */
    enum fungibility_policy when_can_preempt; /* default TryNextFlavor */
    enum fungibility_preference fungibility_preference;
    enum preemption_policy within_cluster_queue;  /* default Never */
    enum preemption_policy reclaim_within_cohort; /* default Never */
    enum preemption_policy borrow_within_cohort;  /* default Never */
    bool has_max_priority_threshold;
    int32_t max_priority_threshold;
    enum stop_policy stop_policy;
    int64_t fair_sharing_weight_milli; /* default 1000 (weight 1) */
    size_t n_admission_checks;
    const char **admission_checks;
};

struct local_queue {
    const char *cluster_queue;
    enum stop_policy stop_policy;
    int64_t fair_sharing_weight_milli; /* default 1000 */
};

struct cohort {
    const char *parent_name; /* NULL for a root */
    size_t n_resource_groups;
    struct resource_group *resource_groups;
    int64_t fair_sharing_weight_milli; /* default 1000 */
};

struct workload_priority_class {
    int32_t value;
    const char *description;
};

struct topology {
    size_t n_levels;
    const char **levels; /* nodeLabel of each level, highest first */
};

/* kueue.x-k8s.io/v1beta2 AdmissionCheck: what a ClusterQueue's
 * admissionChecksStrategy names. Ordo runs no admission check controller,
 * so none is ever Active (a ClusterQueue naming one admits nothing). */
struct admission_check {
    const char *controller_name;
    const char *parameters_api_group; /* NULL when no parameters */
    const char *parameters_kind;
    const char *parameters_name;
};

struct object {
    enum object_kind kind;
    const char *api_version;
    const char *file; /* where it was read from, for messages */
    unsigned line;    /* 0 when unknown */
    struct object_meta meta;
    struct arena *arena; /* owns everything above and below */
    union {
        struct pod_object pod;
        struct node_object node;
        struct job job;
        struct jobset jobset;
        struct priority_class priority_class;
        struct resource_flavor resource_flavor;
        struct cluster_queue cluster_queue;
        struct local_queue local_queue;
        struct cohort cohort;
        struct workload_priority_class workload_priority_class;
        struct topology topology;
        struct admission_check admission_check;
    } u;
};

void object_free(struct object *o); /* NULL-safe */

/* "namespace/name" or "name" into buf; returns buf. */
const char *object_key(const struct object *o, char *buf, size_t size);

#endif
