/* random_runs.c - long simulated runs of random but valid clusters, with the
 * simulator's invariant checks after every instant (--sim-check).
 *
 * For each seed it writes a cluster into a fresh temporary directory: a few
 * nodes (cpu, memory, nvidia.com/gpu) in node pools, 2-3 ResourceFlavors
 * (one per pool), 4-8 ClusterQueues in one or two cohort trees (sometimes
 * hierarchical, sometimes with quota of their own) with random nominal
 * quotas, borrowing and lending limits, preemption policies, queueing
 * strategies and flavor fungibility, WorkloadPriorityClasses and a
 * PriorityClass, and 30-80 Jobs and JobSets with random parallelism,
 * completions, requests, priorities, arrivals and runtimes; a third of the
 * seeds turn fair sharing on. It then runs
 *
 *   $ORDO_SCHEDULER --sim DIR/input --no-progress --sim-check \
 *       --report DIR/report.json [--config DIR/config.yaml]
 *
 * and requires exit status 0 (no invariant violated) within a time limit,
 * a report, and no preemption loop: no instant that ran out of cycles and
 * no workload evicted LOOP_EVICTIONS times or more (the simulator gives up
 * on an instant after a number of rounds without saying so). A failing
 * seed keeps its directory and prints the command to run it again.
 *
 * Usage: random_runs [N [FIRST]]     seeds FIRST..FIRST+N-1 (20, 1)
 *        random_runs --seed S        seed S only, directory kept
 * Environment: ORDO_SCHEDULER (required), ORDO_STRESS_SEEDS (N when no
 * argument gives it, e.g. from make check), ORDO_STRESS_KEEP (keep every
 * directory), ORDO_STRESS_TIMEOUT (seconds per run, default 300: a guard
 * against hangs, not a limit that a slow machine should reach), TMPDIR. The
 * last line is "N passed, M failed"; the exit status is 1 when a seed failed.
 * Only libc is used. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CQ      8
#define MAX_COHORTS 6
#define MAX_WPC     5
#define PATH_LEN    512

/* ---- random numbers (xorshift64*, reproducible per seed) ---------------- */

struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

/* Uniform in [lo, hi]. */
static int rnd(struct rng *r, int lo, int hi)
{
    return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static bool chance(struct rng *r, int percent)
{
    return rnd(r, 1, 100) <= percent;
}

static const char *pick(struct rng *r, const char *const *v, int n)
{
    return v[rnd(r, 0, n - 1)];
}

/* ---- the cluster's shape ---------------------------------------------- */

struct pool {
    const char *flavor; /* ResourceFlavor name */
    const char *label;  /* value of the node label "pool" */
    bool gpu;
};

static const struct pool POOLS[] = {
    {"pool-a", "a", false}, {"pool-b", "b", false}, {"gpu", "gpu", true}};
#define N_POOLS 3

struct cohort_def {
    char name[32];
    int parent; /* index, or -1 for a root */
};

struct wpc_def {
    char name[32];
    int value;
};

struct world {
    bool pool_used[N_POOLS];
    int n_cohorts;
    struct cohort_def cohorts[MAX_COHORTS];
    int n_cq;
    int n_wpc;
    struct wpc_def wpcs[MAX_WPC];
    bool has_pc;
    bool any_gpu;
};

/* ---- writing ------------------------------------------------------------ */

/* dir/name into buf; false (with a message) when it does not fit. */
static bool join(char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buf, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "random_runs: path too long: %s/%s\n", dir, name);
        return false;
    }
    return true;
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[PATH_LEN];
    if (!join(path, sizeof(path), dir, name))
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "random_runs: cannot write %s: %s\n", path,
                strerror(errno));
    return f;
}

static int close_out(FILE *f)
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "random_runs: write error: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

static void write_nodes(FILE *f, struct rng *r, struct world *w)
{
    fprintf(f, "# Random nodes, two or three pools (label \"pool\").\n");
    int n = 0;
    w->pool_used[0] = true;
    w->pool_used[1] = chance(r, 60);
    w->pool_used[2] = chance(r, 60) || !w->pool_used[1];
    w->any_gpu = w->pool_used[2];
    for (int p = 0; p < N_POOLS; p++) {
        if (!w->pool_used[p])
            continue;
        int nodes = rnd(r, 1, 2);
        for (int i = 0; i < nodes; i++, n++) {
            int cpu = POOLS[p].gpu ? rnd(r, 16, 64) : rnd(r, 4, 32);
            int mem = cpu * rnd(r, 2, 8);
            fprintf(f,
                    "%sapiVersion: v1\nkind: Node\nmetadata:\n"
                    "  name: node-%d\n"
                    "  labels: {kubernetes.io/hostname: node-%d, pool: %s}\n"
                    "status:\n  allocatable: {cpu: \"%d\", memory: %dGi, ",
                    n ? "---\n" : "", n, n, POOLS[p].label, cpu, mem);
            if (POOLS[p].gpu)
                fprintf(f, "nvidia.com/gpu: \"%d\", ", rnd(r, 0, 1) ? 8 : 4);
            fprintf(f, "pods: \"110\"}\n");
        }
    }
}

static const char *const POLICY_WITHIN[] = {"Never", "LowerPriority",
                                            "LowerOrNewerEqualPriority"};
static const char *const POLICY_RECLAIM[] = {"Never", "LowerPriority", "Any"};
static const char *const FUNGIBILITY[] = {"MayStopSearch", "TryNextFlavor"};
static const char *const PREFERENCE[] = {"BorrowingOverPreemption",
                                         "PreemptionOverBorrowing"};
static const char *const WEIGHTS[] = {"0", "500m", "1", "2", "3"};

/* One (flavor, resource) quota line; limits only where a cohort is. */
static void write_quota(FILE *f, struct rng *r, const char *res, int nominal,
                        const char *unit, bool in_cohort, bool may_limit)
{
    fprintf(f, "      - {name: %s, nominalQuota: \"%d%s\"", res, nominal, unit);
    if (in_cohort && may_limit && chance(r, 25))
        fprintf(f, ", borrowingLimit: \"%d%s\"", rnd(r, 0, nominal + 8), unit);
    if (in_cohort && may_limit && chance(r, 25))
        fprintf(f, ", lendingLimit: \"%d%s\"", rnd(r, 0, nominal), unit);
    fprintf(f, "}\n");
}

/* The flavors of one resource group: a random non-empty ordered subset of
 * the pools in use; cpu, memory and GPUs each. */
static void write_groups(FILE *f, struct rng *r, const struct world *w,
                         bool in_cohort)
{
    int order[N_POOLS], n = 0;
    for (int p = 0; p < N_POOLS; p++)
        if (w->pool_used[p])
            order[n++] = p;
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(r, 0, i), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int take = rnd(r, 1, n);
    fprintf(f, "  resourceGroups:\n"
               "  - coveredResources: [cpu, memory, nvidia.com/gpu]\n"
               "    flavors:\n");
    for (int i = 0; i < take; i++) {
        const struct pool *p = &POOLS[order[i]];
        int cpu = rnd(r, 0, 16);
        fprintf(f, "    - name: %s\n      resources:\n", p->flavor);
        write_quota(f, r, "cpu", cpu, "", in_cohort, true);
        write_quota(f, r, "memory", cpu * rnd(r, 2, 8), "Gi", in_cohort, true);
        write_quota(f, r, "nvidia.com/gpu", p->gpu ? rnd(r, 0, 8) : 0, "",
                    in_cohort, p->gpu);
    }
}

static void write_queues(FILE *f, struct rng *r, struct world *w)
{
    fprintf(f, "# Random flavors, priority classes, cohorts and "
               "ClusterQueues.\n");
    bool first = true;
    for (int p = 0; p < N_POOLS; p++) {
        if (!w->pool_used[p])
            continue;
        fprintf(f,
                "%sapiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                "metadata: {name: %s}\nspec:\n  nodeLabels: {pool: %s}\n",
                first ? "" : "---\n", POOLS[p].flavor, POOLS[p].label);
        first = false;
    }
    w->n_wpc = rnd(r, 2, MAX_WPC);
    for (int i = 0; i < w->n_wpc; i++) {
        w->wpcs[i].value =
            rnd(r, 0, 4) == 0 ? rnd(r, -10, 10) : rnd(r, 0, 10) * 100;
        snprintf(w->wpcs[i].name, sizeof(w->wpcs[i].name), "prio-%d", i);
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                "kind: WorkloadPriorityClass\nmetadata: {name: %s}\n"
                "value: %d\n",
                w->wpcs[i].name, w->wpcs[i].value);
    }
    w->has_pc = chance(r, 50);
    if (w->has_pc)
        fprintf(f,
                "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                "metadata: {name: batch}\nvalue: %d\nglobalDefault: %s\n",
                rnd(r, 0, 500), chance(r, 50) ? "true" : "false");

    /* One or two cohort trees, each a root and maybe two children. */
    w->n_cohorts = 0;
    int trees = rnd(r, 1, 2);
    for (int t = 0; t < trees; t++) {
        int root = w->n_cohorts++;
        snprintf(w->cohorts[root].name, sizeof(w->cohorts[root].name), "org-%d",
                 t);
        w->cohorts[root].parent = -1;
        if (chance(r, 50)) {
            for (int c = 0; c < 2; c++) {
                int k = w->n_cohorts++;
                snprintf(w->cohorts[k].name, sizeof(w->cohorts[k].name),
                         "org-%d-%c", t, 'x' + c);
                w->cohorts[k].parent = root;
            }
        }
    }
    for (int k = 0; k < w->n_cohorts; k++) {
        const struct cohort_def *c = &w->cohorts[k];
        bool quota = chance(r, 20);
        if (c->parent < 0 && !quota && chance(r, 50))
            continue; /* implicit: only named by its members */
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
                "metadata: {name: %s}\nspec:\n",
                c->name);
        if (c->parent >= 0)
            fprintf(f, "  parentName: %s\n", w->cohorts[c->parent].name);
        if (quota)
            write_groups(f, r, w, c->parent >= 0);
        else
            fprintf(f, "  fairSharing: {weight: \"%s\"}\n",
                    pick(r, WEIGHTS, 5));
    }

    w->n_cq = rnd(r, 4, MAX_CQ);
    for (int i = 0; i < w->n_cq; i++) {
        int co = chance(r, 10) ? -1 : rnd(r, 0, w->n_cohorts - 1);
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
                "metadata: {name: cq-%d}\nspec:\n",
                i);
        if (co >= 0)
            fprintf(f, "  cohortName: %s\n", w->cohorts[co].name);
        fprintf(f, "  namespaceSelector: {}\n");
        if (chance(r, 25))
            fprintf(f, "  queueingStrategy: StrictFIFO\n");
        const char *reclaim = pick(r, POLICY_RECLAIM, 3);
        fprintf(f,
                "  preemption:\n    withinClusterQueue: %s\n"
                "    reclaimWithinCohort: %s\n",
                pick(r, POLICY_WITHIN, 3), reclaim);
        if (strcmp(reclaim, "Never") != 0 && chance(r, 40)) {
            fprintf(f, "    borrowWithinCohort: {policy: LowerPriority");
            if (chance(r, 50))
                fprintf(f, ", maxPriorityThreshold: %d",
                        w->wpcs[rnd(r, 0, w->n_wpc - 1)].value);
            fprintf(f, "}\n");
        }
        if (chance(r, 50)) {
            const char *b = pick(r, FUNGIBILITY, 2);
            const char *p = pick(r, FUNGIBILITY, 2);
            fprintf(f,
                    "  flavorFungibility: {whenCanBorrow: %s, "
                    "whenCanPreempt: %s",
                    b, p);
            if (strcmp(b, "TryNextFlavor") == 0 &&
                strcmp(p, "TryNextFlavor") == 0 && chance(r, 50))
                fprintf(f, ", preference: %s", pick(r, PREFERENCE, 2));
            fprintf(f, "}\n");
        }
        if (chance(r, 30))
            fprintf(f, "  fairSharing: {weight: \"%s\"}\n",
                    pick(r, WEIGHTS, 5));
        write_groups(f, r, w, co >= 0);
        fprintf(f,
                "---\napiVersion: v1\nkind: Namespace\n"
                "metadata: {name: team-%d}\n"
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                "metadata: {namespace: team-%d, name: main}\n"
                "spec: {clusterQueue: cq-%d}\n",
                i, i, i);
    }
}

static const char *const CPU[] = {"250m", "500m", "1", "1500m",
                                  "2",    "3",    "4", "6"};
static const char *const MEM[] = {"256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"};

/* The pod template's metadata and spec, at the given indentation. */
static void write_template(FILE *f, struct rng *r, const struct world *w,
                           int ind, bool gpu, bool runtime_here,
                           const char *runtime, const char *container)
{
    if (runtime_here && runtime)
        fprintf(f,
                "%*smetadata: {annotations: {ordo.dev/sim-runtime: "
                "\"%s\"}}\n",
                ind, "", runtime);
    fprintf(f,
            "%*sspec:\n%*s  schedulerName: ordo-scheduler\n"
            "%*s  restartPolicy: Never\n",
            ind, "", ind, "", ind, "");
    if (w->has_pc && chance(r, 20))
        fprintf(f, "%*s  priorityClassName: batch\n", ind, "");
    if (chance(r, 10)) {
        int p;
        do
            p = rnd(r, 0, N_POOLS - 1);
        while (!w->pool_used[p]);
        fprintf(f, "%*s  nodeSelector: {pool: %s}\n", ind, "", POOLS[p].label);
    }
    fprintf(f,
            "%*s  containers:\n%*s  - name: %s\n"
            "%*s    image: registry.example.com/%s:1.0\n"
            "%*s    resources: {requests: {cpu: \"%s\", memory: %s",
            ind, "", ind, "", container, ind, "", container, ind, "",
            pick(r, CPU, 8), pick(r, MEM, 6));
    if (gpu)
        fprintf(f, ", nvidia.com/gpu: \"%d\"", 1 << rnd(r, 0, 2));
    fprintf(f, "}}\n");
}

/* Writes the Jobs and JobSets; returns how many. */
static int write_workloads(FILE *f, struct rng *r, const struct world *w)
{
    fprintf(f, "# Random Jobs and JobSets.\n");
    int n = rnd(r, 30, 80);
    for (int i = 0; i < n; i++) {
        int q = rnd(r, 0, w->n_cq - 1);
        bool gpu = w->any_gpu && chance(r, 25);
        char runtime[32];
        const char *rt = NULL;
        if (!chance(r, 8)) {
            snprintf(runtime, sizeof(runtime), "%dm", rnd(r, 2, 90));
            rt = runtime;
        }
        bool jobset = chance(r, 20);
        fprintf(f,
                "%sapiVersion: %s\nkind: %s\nmetadata:\n  name: wl-%d\n"
                "  namespace: team-%d\n"
                "  labels: {kueue.x-k8s.io/queue-name: main",
                i ? "---\n" : "",
                jobset ? "jobset.x-k8s.io/v1alpha2" : "batch/v1",
                jobset ? "JobSet" : "Job", i, q);
        if (chance(r, 75))
            fprintf(f, ", kueue.x-k8s.io/priority-class: %s",
                    w->wpcs[rnd(r, 0, w->n_wpc - 1)].name);
        fprintf(f, "}\n  annotations: {ordo.dev/sim-arrival: \"%ds\"",
                rnd(r, 0, 240) * 30);
        if (jobset && rt)
            fprintf(f, ", ordo.dev/sim-runtime: \"%s\"", rt);
        fprintf(f, "}\nspec:\n");
        if (!jobset) {
            int par = rnd(r, 1, 4);
            fprintf(f, "  parallelism: %d\n", par);
            if (chance(r, 30))
                fprintf(f, "  completions: %d\n", par * rnd(r, 1, 3));
            fprintf(f, "  template:\n");
            write_template(f, r, w, 4, gpu, true, rt, "main");
            continue;
        }
        fprintf(f, "  replicatedJobs:\n");
        int rjs = rnd(r, 1, 2);
        for (int k = 0; k < rjs; k++) {
            fprintf(f,
                    "  - name: %s\n    replicas: %d\n    template:\n"
                    "      spec:\n        parallelism: %d\n"
                    "        template:\n",
                    k ? "workers" : "driver", rnd(r, 1, 2), rnd(r, 1, 2));
            write_template(f, r, w, 10, gpu && k > 0, false, NULL,
                           k ? "workers" : "driver");
        }
    }
    return n;
}

static const char *const STRATEGIES[] = {
    "[LessThanOrEqualToFinalShare]", "[LessThanInitialShare]",
    "[LessThanOrEqualToFinalShare, LessThanInitialShare]", NULL};

/* Writes DIR/config.yaml for some seeds; true when it did. */
static int write_config(const char *dir, struct rng *r, bool *ret_written)
{
    *ret_written = false;
    int kind = rnd(r, 0, 5);
    if (kind >= 3)
        return 0; /* the default configuration */
    FILE *f = open_out(dir, "config.yaml");
    if (!f)
        return -1;
    fprintf(f, "# Random scheduler configuration.\n"
               "apiVersion: ordo.dev/v1alpha1\n"
               "kind: SchedulerConfiguration\n");
    if (kind == 2 && chance(r, 30))
        fprintf(f, "plugins:\n  preempt: \"\"\n");
    if (kind <= 1 || chance(r, 50)) {
        const char *s = STRATEGIES[rnd(r, 0, 3)];
        fprintf(f, "fairSharing:\n  enable: true\n");
        if (s)
            fprintf(f, "  preemptionStrategies: %s\n", s);
    }
    *ret_written = true;
    return close_out(f);
}

/* Writes the whole cluster of one seed under dir (input/ and maybe
 * config.yaml). Returns the number of workloads, or -1. */
static int generate(const char *dir, unsigned seed, bool *ret_config)
{
    struct rng r = {UINT64_C(0x9e3779b97f4a7c15) * (seed + 1)};
    struct world w;
    memset(&w, 0, sizeof(w));
    for (int i = 0; i < 4; i++)
        rng_next(&r);
    char input[PATH_LEN];
    if (!join(input, sizeof(input), dir, "input"))
        return -1;
    if (mkdir(input, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "random_runs: mkdir %s: %s\n", input, strerror(errno));
        return -1;
    }
    FILE *f = open_out(input, "nodes.yaml");
    if (!f)
        return -1;
    write_nodes(f, &r, &w);
    if (close_out(f) < 0 || !(f = open_out(input, "queues.yaml")))
        return -1;
    write_queues(f, &r, &w);
    if (close_out(f) < 0 || !(f = open_out(input, "workloads.yaml")))
        return -1;
    int n = write_workloads(f, &r, &w);
    if (close_out(f) < 0 || write_config(dir, &r, ret_config) < 0)
        return -1;
    return n;
}

/* ---- running ------------------------------------------------------------ */

static void remove_tree(const char *dir)
{
    static const char *const files[] = {"input/nodes.yaml",
                                        "input/queues.yaml",
                                        "input/workloads.yaml",
                                        "config.yaml",
                                        "report.json",
                                        "sim.log",
                                        NULL};
    char path[PATH_LEN];
    for (int i = 0; files[i]; i++)
        if (join(path, sizeof(path), dir, files[i]))
            unlink(path);
    if (join(path, sizeof(path), dir, "input"))
        rmdir(path);
    rmdir(dir);
}

/* Prints the lines of the log that say what went wrong: invariant
 * violations and errors, else its last lines. */
static void print_log(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[1024];
    char tail[20][1024];
    int n_tail = 0, shown = 0;
    while (fgets(line, sizeof(line), f)) {
        if ((strstr(line, "invariant") || strstr(line, "ERROR") ||
             strstr(line, "cycles at one instant") ||
             strstr(line, "runtime error")) &&
            shown < 20) {
            printf("    %s", line);
            shown++;
        }
        snprintf(tail[n_tail % 20], sizeof(tail[0]), "%s", line);
        n_tail++;
    }
    fclose(f);
    if (shown == 0)
        for (int i = n_tail > 20 ? n_tail - 20 : 0; i < n_tail; i++)
            printf("    %s", tail[i % 20]);
}

static bool log_has(const char *log, const char *what)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, what) != NULL;
    fclose(f);
    return found;
}

/* The highest "evictions" of any workload in the report (-1 when it
 * cannot be read): a workload evicted over and over is a preemption loop
 * (the simulator gives up on an instant after a number of rounds). */
static long max_evictions(const char *report)
{
    FILE *f = fopen(report, "r");
    if (!f)
        return -1;
    static const char key[] = "\"evictions\":";
    char line[4096];
    long max = 0;
    while (fgets(line, sizeof(line), f)) {
        for (const char *p = strstr(line, key); p; p = strstr(p + 1, key)) {
            long v = strtol(p + sizeof(key) - 1, NULL, 10);
            if (v > max)
                max = v;
        }
    }
    fclose(f);
    return max;
}

#define LOOP_EVICTIONS 50

/* Runs the scheduler on dir; 0 when it passed, else -1 with why (a line)
 * in ret_why; the log is at dir/sim.log. */
static int run_one(const char *sched, const char *dir, bool config,
                   int timeout_s, char *cmd, size_t cmd_size, char *ret_why,
                   size_t why_size)
{
    char input[PATH_LEN], report[PATH_LEN], cfg[PATH_LEN], log[PATH_LEN];
    ret_why[0] = '\0';
    if (!join(input, sizeof(input), dir, "input") ||
        !join(report, sizeof(report), dir, "report.json") ||
        !join(cfg, sizeof(cfg), dir, "config.yaml") ||
        !join(log, sizeof(log), dir, "sim.log")) {
        snprintf(ret_why, why_size, "path too long");
        return -1;
    }
    char *argv[] = {
        (char *)sched, "--sim",    input,  "--no-progress",
        "--sim-check", "--report", report, config ? "--config" : NULL,
        cfg,           NULL};
    if (snprintf(cmd, cmd_size,
                 "%s --sim %s --no-progress --sim-check --report %s%s%s", sched,
                 input, report, config ? " --config " : "",
                 config ? cfg : "") < 0)
        cmd[0] = '\0';
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(ret_why, why_size, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execv(sched, argv);
        fprintf(stderr, "cannot run %s: %s\n", sched, strerror(errno));
        _exit(127);
    }
    struct timespec start, now, nap = {0, 5 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(ret_why, why_size, "waitpid: %s", strerror(errno));
            return -1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= timeout_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(ret_why, why_size,
                     "timed out after %d s (ORDO_STRESS_TIMEOUT)", timeout_s);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
    if (WIFSIGNALED(status)) {
        snprintf(ret_why, why_size, "killed by signal %d", WTERMSIG(status));
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        snprintf(ret_why, why_size, "exit status %d", WEXITSTATUS(status));
        return -1;
    }
    if (log_has(log, "cycles at one instant")) {
        snprintf(ret_why, why_size,
                 "an instant ran out of cycles (a preemption or requeue "
                 "loop)");
        return -1;
    }
    long ev = max_evictions(report);
    if (ev < 0) {
        snprintf(ret_why, why_size, "no report written");
        return -1;
    }
    if (ev >= LOOP_EVICTIONS) {
        snprintf(ret_why, why_size,
                 "a workload was evicted %ld times (a preemption loop)", ev);
        return -1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: random_runs [N [FIRST]] | --seed S\n");
    return 2;
}

static bool parse_uint(const char *s, unsigned *ret)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > 1000000)
        return false;
    *ret = (unsigned)v;
    return true;
}

int main(int argc, char **argv)
{
    unsigned n = 20, first = 1;
    bool keep = getenv("ORDO_STRESS_KEEP") != NULL;
    const char *seeds = getenv("ORDO_STRESS_SEEDS");
    if (seeds && *seeds && !parse_uint(seeds, &n)) {
        fprintf(stderr, "random_runs: ORDO_STRESS_SEEDS: not a number\n");
        return 2;
    }
    if (argc >= 2 && strcmp(argv[1], "--seed") == 0) {
        if (argc != 3 || !parse_uint(argv[2], &first))
            return usage();
        n = 1;
        keep = true;
    } else if (argc > 3 || (argc >= 2 && !parse_uint(argv[1], &n)) ||
               (argc == 3 && !parse_uint(argv[2], &first))) {
        return usage();
    }
    const char *sched = getenv("ORDO_SCHEDULER");
    if (!sched || !*sched) {
        fprintf(stderr, "random_runs: set ORDO_SCHEDULER to the "
                        "ordo-scheduler to run\n");
        return 1;
    }
    int timeout_s = 300;
    const char *t = getenv("ORDO_STRESS_TIMEOUT");
    if (t && atoi(t) > 0)
        timeout_s = atoi(t);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";

    unsigned passed = 0, failed = 0;
    for (unsigned seed = first; seed < first + n; seed++) {
        char dir[PATH_LEN], cmd[4 * PATH_LEN];
        int len =
            snprintf(dir, sizeof(dir), "%s/ordo-stress-%u-XXXXXX", tmp, seed);
        if (len < 0 || (size_t)len >= sizeof(dir) - 64 || !mkdtemp(dir)) {
            printf("seed %u: mkdtemp %s: %s\n", seed, dir, strerror(errno));
            failed++;
            continue;
        }
        bool config = false;
        char why[256] = "";
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int wls = generate(dir, seed, &config);
        int r = -1;
        if (wls < 0)
            snprintf(why, sizeof(why), "generating the cluster failed");
        else
            r = run_one(sched, dir, config, timeout_s, cmd, sizeof(cmd), why,
                        sizeof(why));
        clock_gettime(CLOCK_MONOTONIC, &b);
        double secs = (double)(b.tv_sec - a.tv_sec) +
                      (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (r == 0) {
            passed++;
            printf("seed %u: ok (%d workloads%s, %.2fs)\n", seed, wls,
                   config ? ", config" : "", secs);
            if (!keep)
                remove_tree(dir);
            else
                printf("  kept %s\n", dir);
        } else {
            failed++;
            printf("seed %u: FAILED (%d workloads%s, %.2fs): %s\n", seed, wls,
                   config ? ", config" : "", secs, why);
            char log[PATH_LEN];
            if (wls >= 0 && join(log, sizeof(log), dir, "sim.log"))
                print_log(log);
            printf("  files kept in %s\n  reproduce: %s\n"
                   "  regenerate: random_runs --seed %u\n",
                   dir, wls < 0 ? "(none)" : cmd, seed);
        }
        fflush(stdout);
    }
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
