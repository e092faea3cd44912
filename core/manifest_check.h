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

/* The scheduler name that makes a pod Ordo's, and the labels Kueue reads
 * (the same as sched/cache/cluster.h's, which core/ cannot include). */
#define MANIFEST_CHECK_SCHEDULER   "ordo-scheduler"
#define MANIFEST_CHECK_LABEL_QUEUE "kueue.x-k8s.io/queue-name"
#define MANIFEST_CHECK_LABEL_WPC   "kueue.x-k8s.io/priority-class"

enum manifest_severity {
    MANIFEST_WARNING = 0,
    MANIFEST_ERROR,
};

struct manifest_check_opts {
    bool strict;      /* a missing reference is an error */
    bool whole_world; /* the set is all there is (the simulator) */
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
                   const struct manifest_check_opts *opts,
                   manifest_check_fn on_finding, void *userdata,
                   struct manifest_check_counts *ret_counts);

#endif
