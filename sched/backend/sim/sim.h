/* sim.h - the embedded simulated cluster (ordo-scheduler --sim PATH...).
 *
 * Manifests (the YAML a user would kubectl apply) become a virtual cluster
 * with a virtual clock. Objects exist at time 0 unless annotated
 * ordo.dev/sim-arrival: "<duration>"; one that arrives again (same kind and
 * key) is an update; ordo.dev/sim-delete: "<duration>" deletes it then, and
 * ordo.dev/sim-delete-pods: "INDEX@WHEN,..." on a Job or JobSet deletes
 * pods its controller made. Emulated controllers create the pods
 * of Jobs and JobSets, run each pod for ordo.dev/sim-runtime (from its
 * binding; absent = forever) and report the Jobs' status. The real
 * scheduler, the real plugins and the real cycle decide everything; the
 * simulator is only a backend below the event/action line (scheduler.h). */
#ifndef ORDO_SIM_H
#define ORDO_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <uthash.h>

#include "scheduler.h"

#define ANNOT_SIM_ARRIVAL     "ordo.dev/sim-arrival"
#define ANNOT_SIM_RUNTIME     "ordo.dev/sim-runtime"
#define ANNOT_SIM_DELETE      "ordo.dev/sim-delete"
#define ANNOT_SIM_DELETE_PODS "ordo.dev/sim-delete-pods"

/* One change of a ClusterQueue's usage of one (flavor, resource), for
 * plots: recorded whenever the value changes. Strings are owned by the
 * cluster (names of CQs, flavors) and the resource table. */
struct usage_sample {
    int64_t t_ns;
    const char *cq;
    const char *flavor;
    const char *resource;
    int64_t usage_milli;
    int64_t nominal_milli;
};

struct sim_history {
    size_t n, cap;
    struct usage_sample *samples;
};

struct sim_options {
    bool until_idle;   /* run until nothing can change (default) */
    int64_t until_ns;  /* else stop at this virtual time */
    const char *report; /* --report FILE (JSON), or NULL */
    const char *plot_dir; /* --plot DIR (SVG), or NULL */
    /* --metrics-out FILE: the Prometheus exposition at the end, or NULL. */
    const char *metrics_out;
    bool no_local_queue_metrics; /* --no-local-queue-metrics */
    bool progress;      /* progress bar on stderr (a TTY) */
    bool check;         /* check invariants after every instant */
    bool strict; /* --strict: manifest warnings and missing references are
                    errors that stop the load */
    FILE *out;          /* summary table; stdout */
    /* --explain NAMESPACE/NAME (repeatable): printed after the run. */
    const char *const *explain;
    size_t n_explain;
};

/* sim_run's answer when an --explain name is no workload's (after the
 * rest of the run's output and the error naming it). */
#define SIM_UNKNOWN_WORKLOAD 1

/* Loads paths, runs the simulation with the started plugins, prints the
 * summary, writes the report and plots and explains the workloads asked
 * for. Returns 0, SIM_UNKNOWN_WORKLOAD, or a negative errno after printing
 * why (bad manifests, I/O). */
int sim_run(const struct sched_config *cfg, struct plugin_registry *plugins,
            char **paths, int n_paths, const struct sim_options *opt);

/* ---- output (sim_report.c, sim_summary.c, sim_plot*.c) ------------------ */

/* Where one pod of a workload was bound, as the simulator saw it: a pod's
 * record leaves the cluster when the pod is deleted, this stays. */
struct sim_pod_ran {
    uint32_t podset;
    /* The node it runs on, or ran on and succeeded; NULL: never bound, or
     * deleted while it ran (evicted: it is nowhere now). */
    const char *node;
    /* Its workload's admission it ran in (the workload's evictions then):
     * the report lists only the current or last admission's. */
    uint32_t admission;
};

/* The pods that joined one workload, in the order they did. */
struct sim_ran {
    char *key; /* the workload's */
    size_t n, cap;
    const struct sim_pod_ran **pods;
    UT_hash_handle hh;
};

struct json_object;

/* Writes the ordo.dev/sim-report/v1 JSON document; a pod set's nodes (where
 * its pods are now) come from ran (by workload key), or from the cluster's
 * pods when ran is NULL. left_out (a JSON array, or NULL: none) becomes
 * "leftOut": the queued workloads podDefaulting leaves to another
 * scheduler, each {kind, namespace, name, queue, reason}.
 * 0 or -errno with e. */
int sim_report_write(const struct cluster *c, const struct sim_ran *ran,
                     struct json_object *left_out, int64_t end_ns,
                     const char *path, struct err *e);

/* Prints one row per ClusterQueue (pending, admitted, finished workloads and
 * usage against nominal quota), a "(no ClusterQueue)" row when some have
 * none, and a line of totals the rows add up to (sim_summary.c). */
void sim_summary_print(FILE *out, const struct cluster *c, int64_t end_ns);

/* Writes DIR/usage-<cq>.svg (usage vs nominal quota per (flavor, resource)
 * over time) and DIR/timeline.svg (each workload from arrival through
 * admission to finish). Creates DIR when missing. 0 or -errno with e. */
int sim_plot_write(const struct cluster *c, const struct sim_history *h,
                   int64_t end_ns, const char *dir, struct err *e);

#endif
