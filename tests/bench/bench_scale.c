/* bench_scale.c - `make bench`: one big object must not exhaust the
 * simulator. Each case writes a generated cluster, runs it on the simulator
 * (summary and --report included) in a child process, and prints the wall
 * time and the child's peak RSS. Figures only, never assertions on time.
 *
 *   cqs N            N ClusterQueues (own LocalQueue and namespace), one
 *                    1-pod Job each, arriving 1 ms apart, running 1 s: the
 *                    per-event and per-cycle costs in ClusterQueues
 *   completions N P  one Job with N completions, parallelism P, 1 s pods:
 *                    the cost of counting a workload's pods
 *   pods N           one Job with parallelism N, running: the memory of
 *                    its N pods
 *
 *   bench_scale [CASE ARGS...]...   default: cqs 1000  cqs 10000
 *                                   completions 10000 100  pods 10000 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "sim.h"

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const char *const flavor =
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
    "metadata: {name: default}\n";

/* Nodes that never decide anything: room for every pod. */
static void nodes(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f,
                "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-%d}\n"
                "status: {allocatable: {cpu: '1000000', pods: '1000000'}}\n",
                i);
}

static void job(FILE *f, const char *ns, const char *name, long parallelism,
                long completions, long arrival_ms, const char *runtime)
{
    fprintf(f,
            "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
            "  name: %s\n  namespace: %s\n"
            "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
            "  annotations: {ordo.dev/sim-arrival: '%ldms'}\n"
            "spec:\n  parallelism: %ld\n",
            name, ns, arrival_ms, parallelism);
    if (completions > 0)
        fprintf(f, "  completions: %ld\n", completions);
    fprintf(f, "  template:\n");
    if (runtime)
        fprintf(f,
                "    metadata:\n      annotations: {ordo.dev/sim-runtime: "
                "'%s'}\n",
                runtime);
    fprintf(f, "    spec:\n      schedulerName: ordo-scheduler\n"
               "      restartPolicy: Never\n"
               "      containers: [{name: c, image: x, resources: "
               "{requests: {cpu: '1m'}}}]\n");
}

/* One ClusterQueue (and its LocalQueue in namespace ns) with room for
 * everything. */
static void queue(FILE *f, const char *cq, const char *ns)
{
    fprintf(f,
            "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
            "metadata: {name: %s}\nspec:\n  namespaceSelector: {}\n"
            "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
            "    - name: default\n      resources: [{name: cpu, "
            "nominalQuota: 1000000}]\n"
            "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
            "metadata: {namespace: %s, name: lq}\nspec: {clusterQueue: %s}\n",
            cq, ns, cq);
}

/* Files of at most this many ClusterQueues: a manifest file has a size
 * limit. */
#define CQS_PER_FILE 10000

/* Writes the case into directory dir as part-<n>.yaml files. */
static int write_case(const char *dir, const char *kind, long a, long b)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/part-0.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fputs(flavor, f);
    nodes(f, 4);
    if (strcmp(kind, "cqs") == 0) {
        for (long i = 0; i < a; i++) {
            if (i > 0 && i % CQS_PER_FILE == 0) {
                if (fclose(f) != 0)
                    return -errno;
                snprintf(path, sizeof(path), "%s/part-%ld.yaml", dir,
                         i / CQS_PER_FILE);
                if (!(f = fopen(path, "w")))
                    return -errno;
                fputs("# ClusterQueues, LocalQueues and Jobs\n", f);
            }
            char cq[32], ns[32];
            snprintf(cq, sizeof(cq), "cq-%ld", i);
            snprintf(ns, sizeof(ns), "ns-%ld", i);
            queue(f, cq, ns);
            job(f, ns, "job", 1, 0, i, "1s");
        }
    } else if (strcmp(kind, "completions") == 0) {
        queue(f, "batch", "batch");
        job(f, "batch", "indexed", b, a, 0, "1s");
    } else {
        queue(f, "batch", "batch");
        job(f, "batch", "wide", a, 0, 0, NULL);
    }
    if (fclose(f) != 0)
        return -errno;
    return 0;
}

/* Runs the simulation of input in this (child) process, the summary
 * into file `summary`. */
static int run_sim(const char *input, const char *report, const char *summary)
{
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct err e;
    config_init_defaults(&cfg);
    if (plugins_start(&plugins, &cfg, ORDO_BUILD_PLUGIN_DIR, host_table(), &e) < 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    FILE *out = fopen(summary, "w");
    struct sim_options opt = {
        .until_idle = true, .report = report, .out = out ? out : stdout};
    char *paths[] = {(char *)input};
    int r = sim_run(&cfg, &plugins, paths, 1, &opt);
    if (out)
        fclose(out);
    plugins_stop(&plugins);
    config_release(&cfg);
    resid_reset();
    if (r < 0)
        fprintf(stderr, "bench: the simulation failed: %s\n", strerror(-r));
    return r < 0;
}

static int run_case(const char *kind, long a, long b)
{
    char dir[] = "/tmp/ordo-bench-XXXXXX", input[64], report[64], summary[64];
    if (!mkdtemp(dir)) {
        perror("bench: mkdtemp");
        return 1;
    }
    snprintf(input, sizeof(input), "%s/input", dir);
    snprintf(report, sizeof(report), "%s/report.json", dir);
    snprintf(summary, sizeof(summary), "%s/summary.txt", dir);
    int rc = 1;
    int r = mkdir(input, 0777) < 0 ? -errno : write_case(input, kind, a, b);
    if (r < 0) {
        fprintf(stderr, "bench: %s: %s\n", input, strerror(-r));
        goto out;
    }
    fflush(stdout);
    long long t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench: fork");
        goto out;
    }
    if (pid == 0)
        _exit(run_sim(input, report, summary));
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("bench: wait4");
        goto out;
    }
    long long t1 = now_ns();
    rc = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (strcmp(kind, "completions") == 0)
        printf("bench_scale: completions %ld, parallelism %ld", a, b);
    else
        printf("bench_scale: %s %ld", kind, a);
    printf("%s: %8.3f s, peak RSS %8.1f MiB\n", rc ? " (FAILED)" : "",
           (t1 - t0) / 1e9, ru.ru_maxrss / 1024.0);
    /* The summary's last line: what became of the workloads. */
    FILE *f = fopen(summary, "r");
    char line[256], last[256] = "";
    while (f && fgets(line, sizeof(line), f))
        memcpy(last, line, sizeof(last));
    if (f)
        fclose(f);
    if (last[0])
        printf("  %s", last);
out:
    for (long i = 0; i <= a / CQS_PER_FILE; i++) {
        char path[128];
        snprintf(path, sizeof(path), "%s/part-%ld.yaml", input, i);
        unlink(path);
    }
    rmdir(input);
    unlink(report);
    unlink(summary);
    rmdir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    static char *defaults[] = {"cqs",   "1000", "cqs",  "10000", "completions",
                               "10000", "100",  "pods", "10000"};
    if (argc < 2) {
        argv = defaults - 1;
        argc = (int)(sizeof(defaults) / sizeof(defaults[0])) + 1;
    }
    int rc = 0;
    for (int i = 1; i < argc;) {
        const char *kind = argv[i];
        int want = strcmp(kind, "completions") == 0 ? 2 : 1;
        if ((want == 1 && strcmp(kind, "cqs") != 0 &&
             strcmp(kind, "pods") != 0) ||
            i + want > argc - 1) {
            fprintf(stderr, "usage: bench_scale [cqs N | completions N P | "
                            "pods N]...\n");
            return 2;
        }
        long a = strtol(argv[i + 1], NULL, 10);
        long b = want == 2 ? strtol(argv[i + 2], NULL, 10) : 0;
        if (a < 1 || (want == 2 && b < 1)) {
            fprintf(stderr, "bench_scale: %s: counts must be >= 1\n", kind);
            return 2;
        }
        rc |= run_case(kind, a, b);
        i += 1 + want;
    }
    return rc;
}
