/* bench_kueue_baseline.c - `make bench`: Kueue's own "baseline" scheduler
 * performance test (test/performance/scheduler/configs/baseline) replayed on
 * the simulator, preemption included.
 *
 * 5 cohorts x 6 ClusterQueues (nominal 20 cpu, borrowingLimit 100,
 * reclaimWithinCohort Any, withinClusterQueue LowerPriority); per
 * ClusterQueue 350 small (1 cpu, 200 ms, priority 50, one every 100 ms),
 * 100 medium (5 cpu, 500 ms, priority 100, every 500 ms) and 50 large
 * (20 cpu, 1 s, priority 200, every 1.2 s) Jobs: 15,000 workloads. Nodes
 * are sized so that quota, not capacity, decides (as in Kueue's test, which
 * has no nodes).
 *
 * Prints figures, never asserts: the wall time of the whole simulated run
 * (load, every cycle, preemptions, controllers), per-cycle cost, the
 * virtual time the run took, and per workload class the mean and maximum
 * time from creation to (last) admission and the evictions. Kueue's CI
 * figures for the same configuration come from a real API server and are
 * dominated by its latencies; they are not comparable as times, only as
 * the shape of the outcome (large admitted first, then medium, then
 * small).
 *
 *   bench_kueue_baseline [SCALE]   SCALE divides the workload counts (1) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "sim.h"

#define COHORTS 5
#define CQS     6 /* per cohort */

struct wl_class {
    const char *name;
    long count, interval_ms, runtime_ms, priority, cpu;
};

static const struct wl_class classes[] = {
    {"small", 350, 100, 200, 50, 1},
    {"medium", 100, 500, 500, 100, 5},
    {"large", 50, 1200, 1000, 200, 20},
};
#define N_CLASSES (sizeof(classes) / sizeof(classes[0]))

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int write_input(const char *path, long scale)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
               "metadata: {name: default}\n");
    for (size_t k = 0; k < N_CLASSES; k++)
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                "kind: WorkloadPriorityClass\nmetadata: {name: %s}\n"
                "value: %ld\n",
                classes[k].name, classes[k].priority);
    /* 600 cpu of nominal quota; 40 nodes of 64 cpu leave room to borrow. */
    for (int n = 0; n < 40; n++)
        fprintf(f,
                "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-%d}\n"
                "status: {allocatable: {cpu: '64', pods: '1000'}}\n",
                n);
    for (int c = 0; c < COHORTS; c++) {
        for (int q = 0; q < CQS; q++) {
            fprintf(f,
                    "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                    "kind: ClusterQueue\nmetadata: {name: cq-%d-%d}\nspec:\n"
                    "  cohortName: cohort-%d\n  namespaceSelector: {}\n"
                    "  preemption: {reclaimWithinCohort: Any, "
                    "withinClusterQueue: LowerPriority}\n"
                    "  resourceGroups:\n  - coveredResources: [cpu]\n"
                    "    flavors:\n    - name: default\n      resources: "
                    "[{name: cpu, nominalQuota: 20, borrowingLimit: 100}]\n"
                    "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                    "kind: LocalQueue\n"
                    "metadata: {namespace: ns-%d-%d, name: lq}\n"
                    "spec: {clusterQueue: cq-%d-%d}\n",
                    c, q, c, c, q, c, q);
            for (size_t k = 0; k < N_CLASSES; k++) {
                const struct wl_class *w = &classes[k];
                for (long i = 0; i < w->count / scale; i++)
                    fprintf(f,
                            "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
                            "  name: %s-%ld\n  namespace: ns-%d-%d\n"
                            "  labels: {kueue.x-k8s.io/queue-name: lq, "
                            "kueue.x-k8s.io/priority-class: %s}\n"
                            "  annotations: {ordo.dev/sim-arrival: '%ldms', "
                            "ordo.dev/sim-runtime: '%ldms'}\n"
                            "spec:\n  parallelism: 1\n  completions: 1\n"
                            "  template:\n    spec:\n"
                            "      schedulerName: ordo-scheduler\n"
                            "      restartPolicy: Never\n"
                            "      containers: [{name: c, image: x, resources: "
                            "{requests: {cpu: '%ld'}}}]\n",
                            w->name, i, c, q, w->name, i * w->interval_ms,
                            w->runtime_ms, w->cpu);
            }
        }
    }
    if (fclose(f) != 0)
        return -errno;
    return 0;
}

struct class_stats {
    long n, admitted, evictions, max_evictions;
    double wait_sum, wait_max;
};

static int summarize(const char *report)
{
    struct json_object *root = json_object_from_file(report);
    struct json_object *wls = NULL, *end = NULL;
    if (!root || !json_object_object_get_ex(root, "workloads", &wls)) {
        fprintf(stderr, "bench: %s: no workloads in the report\n", report);
        json_object_put(root);
        return -EINVAL;
    }
    struct class_stats st[N_CLASSES] = {0};
    size_t n = json_object_array_length(wls);
    for (size_t i = 0; i < n; i++) {
        struct json_object *w = json_object_array_get_idx(wls, i), *v;
        const char *name = json_object_object_get_ex(w, "name", &v)
                               ? json_object_get_string(v)
                               : "";
        const char *slash = strchr(name, '/');
        for (size_t k = 0; k < N_CLASSES; k++) {
            size_t len = strlen(classes[k].name);
            if (!slash || strncmp(slash + 1, classes[k].name, len) != 0 ||
                slash[1 + len] != '-')
                continue;
            struct class_stats *s = &st[k];
            s->n++;
            long ev = json_object_object_get_ex(w, "evictions", &v)
                          ? (long)json_object_get_int64(v)
                          : 0;
            s->evictions += ev;
            if (ev > s->max_evictions)
                s->max_evictions = ev;
            struct json_object *c = NULL, *a = NULL;
            if (json_object_object_get_ex(w, "createdAt", &c) &&
                json_object_object_get_ex(w, "admittedAt", &a) && a) {
                double wait =
                    json_object_get_double(a) - json_object_get_double(c);
                s->admitted++;
                s->wait_sum += wait;
                if (wait > s->wait_max)
                    s->wait_max = wait;
            }
        }
    }
    if (json_object_object_get_ex(root, "endTime", &end))
        printf("  virtual time of the run %8.1f s\n",
               json_object_get_double(end));
    printf("  class    workloads  admitted  mean wait  max wait  evictions "
           "(max per workload)\n");
    for (size_t k = 0; k < N_CLASSES; k++)
        printf("  %-8s %9ld %9ld %8.2fs %8.2fs %10ld (%ld)\n", classes[k].name,
               st[k].n, st[k].admitted,
               st[k].admitted ? st[k].wait_sum / st[k].admitted : 0.0,
               st[k].wait_max, st[k].evictions, st[k].max_evictions);
    json_object_put(root);
    return 0;
}

int main(int argc, char **argv)
{
    long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
    if (scale < 1)
        scale = 1;
    char dir[] = "/tmp/ordo-bench-XXXXXX";
    char input[64], report[64];
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct err e;
    int rc = 1;

    if (!mkdtemp(dir)) {
        perror("bench: mkdtemp");
        return 1;
    }
    snprintf(input, sizeof(input), "%s/baseline.yaml", dir);
    snprintf(report, sizeof(report), "%s/report.json", dir);
    int r = write_input(input, scale);
    if (r < 0) {
        fprintf(stderr, "bench: %s: %s\n", input, strerror(-r));
        goto out;
    }
    config_init_defaults(&cfg);
    if (plugins_start(&plugins, &cfg, ORDO_BUILD_PLUGIN_DIR, host_table(), &e) < 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        config_release(&cfg);
        goto out;
    }
    FILE *devnull = fopen("/dev/null", "w");
    struct sim_options opt = {.until_idle = true,
                              .report = report,
                              .out = devnull ? devnull : stdout};
    char *paths[] = {input};
    long long t0 = now_ns();
    r = sim_run(&cfg, &plugins, paths, 1, &opt);
    long long t1 = now_ns();
    if (devnull)
        fclose(devnull);
    plugins_stop(&plugins);
    config_release(&cfg);
    resid_reset();
    if (r < 0) {
        fprintf(stderr, "bench: the simulation failed: %s\n", strerror(-r));
        goto out;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench_kueue_baseline: %d cohorts x %d ClusterQueues, %ld "
           "workloads, preemption on\n",
           COHORTS, CQS,
           (long)COHORTS * CQS *
               (classes[0].count + classes[1].count + classes[2].count) /
               scale);
    printf("  wall time (load + run)  %8.3f s\n", (t1 - t0) / 1e9);
    printf("  peak RSS                %8.1f MiB\n", ru.ru_maxrss / 1024.0);
    rc = summarize(report) < 0;
out:
    unlink(input);
    unlink(report);
    rmdir(dir);
    return rc;
}
