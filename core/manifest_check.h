/* manifest_check.h - checks across the objects of a manifest set, after
 * each decoded on its own: what an object names is in the set (a
 * LocalQueue's ClusterQueue; a ClusterQueue's ResourceFlavors and
 * AdmissionChecks; a ResourceFlavor's Topology; a workload's LocalQueue,
 * WorkloadPriorityClass and PriorityClass), Cohort parents form no cycle,
 * and a workload queued for Kueue has pods Ordo schedules.
 *
 * A missing reference is a warning (the object may be in the cluster
 * already) or, in strict mode, an error. A cycle is always an error; what
 * Ordo will not schedule (a queued workload whose pods name another
 * scheduler, a ClusterQueue that names an AdmissionCheck) is a warning.
 * Used by `ordo-scheduler --validate` and by the simulator's load. */
#ifndef ORDO_MANIFEST_CHECK_H
#define ORDO_MANIFEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"
#include "queue_rule.h"

/* The scheduler name that makes a pod Ordo's, and the labels Kueue reads
 * (the same as sched/cache/cluster.h's, which core/ cannot include). */
#define MANIFEST_CHECK_SCHEDULER   "ordo-scheduler"
#define MANIFEST_CHECK_LABEL_QUEUE "kueue.x-k8s.io/queue-name"
#define MANIFEST_CHECK_LABEL_WPC   "kueue.x-k8s.io/priority-class"

enum manifest_severity {
    MANIFEST_WARNING = 0,
    MANIFEST_ERROR,
};

/* An object with a queue label that the rule leaves to another scheduler:
 * its queue and why (valid during the call). */
typedef void (*manifest_left_out_fn)(const struct object *o, const char *queue,
                                     const char *why, void *data);

struct manifest_check_opts {
    bool strict;      /* a missing reference is an error */
    bool whole_world; /* the set is all there is (the simulator) */
    /* Kueue's rule (queue_rule.h), as the webhook applies it: first every
     * Pod, Job and JobSet it brings to Ordo gets schedulerName
     * ordo-scheduler (the set's objects change), in the order JobSets,
     * Jobs, Pods, owners and namespaces looked up in the set; one with a
     * queue label that stays out is a warning "Job ns/name has queue label
     * Q but WHY: Ordo will not schedule it", told to left_out too. NULL:
     * nothing is changed, and a queued workload whose pods are not Ordo's
     * is warned about by its schedulerName alone. */
    const struct queue_rule *rule;
    manifest_left_out_fn left_out;
    void *left_out_data;
    size_t n_defaulted; /* set by manifest_check(): objects changed */
};

struct manifest_check_counts {
    size_t n_warnings;
    size_t n_errors;
};

/* One finding about the object read at file:line (line 0: unknown). msg is
 * "Kind key: field: what", valid during the call. */
typedef void (*manifest_check_fn)(enum manifest_severity severity,
                                  const char *file, unsigned line,
                                  const char *msg, void *userdata);

/* Runs every check over s, calling on_finding (may be NULL) for each, in
 * the order of s's objects; ret_counts (may be NULL) gets how many of each
 * severity. 0 or -ENOMEM (nothing reported then). */
int manifest_check(const struct manifest_set *s,
                   struct manifest_check_opts *opts,
                   manifest_check_fn on_finding, void *userdata,
                   struct manifest_check_counts *ret_counts);

#endif
