/* fuzz_sim.c - libFuzzer target for the scheduler as a whole: the input
 * bytes drive a bounded generator of a small but valid cluster, which the
 * real simulator runs in-process (sim_run, invariant checks after every
 * instant) with the real plugins.
 *
 * The generator (ideas from tests/stress/random_runs.c) reads the bytes one
 * decision at a time; past the end every decision is 0, which gives the
 * smallest cluster, so any input, even an empty one, is a cluster:
 * 1-6 nodes (cpu, memory, GPUs, pod slots; pool and zone labels, taints,
 * sometimes cordoned), 1-3 ResourceFlavors (node labels, taints or
 * tolerations), up to 3 cohorts (hierarchical, with quota or fair-sharing
 * weights), 1-4 ClusterQueues (quotas, borrowing and lending limits,
 * preemption policies, queueing strategies, flavor fungibility, stop
 * policies, sometimes re-sent later with other quotas), LocalQueues,
 * priority classes, and 1-20 Jobs (some suspended), JobSets, pod groups and
 * pods with priorities, arrivals and runtimes (ordo.dev/sim-arrival,
 * ordo.dev/sim-runtime), plus a SchedulerConfiguration (fair sharing on or
 * off, preemption off, scoring strategy). Virtual time is bounded
 * (arrivals within 1h, runtimes up to 2h, the run stops at 7 days).
 *
 * The manifests go to a temporary file (mkstemps under $TMPDIR or /tmp),
 * removed after the run. Any failure of the run aborts, after printing the
 * generated configuration and manifests: an invariant violation is a
 * scheduler bug; a manifest or configuration refused is a generator bug.
 *
 * Plugins are loaded from ORDO_FUZZ_PLUGIN_DIR (the clang build's copies,
 * see tests/local.mk) or else ORDO_BUILD_PLUGIN_DIR (the build's
 * plugins/.libs), and kept loaded for the whole process so that each run's
 * plugins_start()/plugins_stop() does not map and unmap them again.
 *
 * A saved input means a cluster only through this generator: a change to
 * it changes what the seeds (corpus/sim/) and the kept inputs (regress/sim/,
 * pending/sim/) build, so check them again after one. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "sched_config.h"
#include "sim.h"

#ifdef ORDO_FUZZ_PLUGIN_DIR
#define FUZZ_PLUGIN_DIR ORDO_FUZZ_PLUGIN_DIR
#else
#define FUZZ_PLUGIN_DIR ORDO_BUILD_PLUGIN_DIR
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NODES    6
#define MAX_FLAVORS  3
#define MAX_COHORTS  3
#define MAX_CQS      4
#define MAX_LQS      6
#define MAX_WPCS     3
#define MAX_WLS      20
#define SIM_LIMIT_NS (7LL * 24 * 3600 * 1000000000LL)

/* ---- decisions from the input bytes ------------------------------------- */

/* Decisions are taken in a fixed order: never two in the arguments of one
 * call, whose order of evaluation compilers choose (gcc and clang differ,
 * and the replay must build the cluster the fuzzer saw). */

struct gen {
    const uint8_t *p;
    size_t n, i;
};

/* A value in [0, n); 0 once the input is used up. */
static unsigned take(struct gen *g, unsigned n)
{
    if (n <= 1 || g->i >= g->n)
        return 0;
    return g->p[g->i++] % n;
}

static int range(struct gen *g, int lo, int hi)
{
    return lo + (int)take(g, (unsigned)(hi - lo + 1));
}

/* True with about pct percent; false once the input is used up. */
static bool coin(struct gen *g, unsigned pct)
{
    return take(g, 100) >= 100 - pct;
}

#define PICK(g, v) ((v)[take((g), sizeof(v) / sizeof((v)[0]))])

/* ---- the cluster's shape ---------------------------------------------- */

struct world {
    int n_flavors;
    bool taint[MAX_FLAVORS]; /* the pool's nodes carry "dedicated" */
    int n_cohorts;
    int cohort_parent[MAX_COHORTS]; /* -1: a root */
    int n_cqs;
    int cq_cohort[MAX_CQS]; /* -1: none */
    int n_lqs;
    int lq_ns[MAX_LQS]; /* lq-<i> in namespace team-<lq_ns[i]> */
    int n_wpcs;
    bool has_pc;
    bool gpu; /* some node has GPUs */
};

static const char *const CPU[] = {"100m", "250m", "500m", "1",
                                  "2",    "3",    "4",    "8"};
static const char *const MEM[] = {"128Mi", "512Mi", "1Gi",
                                  "2Gi",   "4Gi",   "16Gi"};
static const char *const WEIGHTS[] = {"0", "500m", "1", "2", "3"};
static const int WPC_VALUES[] = {-10, 0, 100, 500, 1000, 1000};

static void write_nodes(FILE *f, struct gen *g, struct world *w)
{
    int n = range(g, 1, MAX_NODES);
    for (int i = 0; i < n; i++) {
        /* Pool k is flavor k's; pool n_flavors is no flavor's. */
        int pool = range(g, 0, w->n_flavors - (coin(g, 10) ? 0 : 1));
        int cpu = 1 << (5 - range(g, 0, 5)); /* 0 bytes: big nodes */
        int gpu = coin(g, 30) ? 1 << range(g, 0, 3) : 0;
        w->gpu |= gpu > 0;
        fprintf(f,
                "---\napiVersion: v1\nkind: Node\nmetadata:\n"
                "  name: node-%d\n"
                "  labels: {kubernetes.io/hostname: node-%d, pool: p%d, "
                "zone: z%d}\n",
                i, i, pool, range(g, 0, 1));
        bool taint = pool < w->n_flavors && w->taint[pool];
        bool cordon = coin(g, 5);
        if (taint || cordon)
            fprintf(f, "spec:\n");
        if (cordon)
            fprintf(f, "  unschedulable: true\n");
        if (taint)
            fprintf(f,
                    "  taints: [{key: dedicated, value: p%d, effect: "
                    "NoSchedule}]\n",
                    pool);
        int mem = cpu << (3 - range(g, 0, 3));
        int pods = coin(g, 10) ? 2 : 110;
        fprintf(f,
                "status:\n  allocatable: {cpu: \"%d\", memory: %dGi, "
                "pods: \"%d\"",
                cpu, mem, pods);
        if (gpu)
            fprintf(f, ", nvidia.com/gpu: \"%d\"", gpu);
        fprintf(f, "}\n");
    }
}

static void write_flavors(FILE *f, struct gen *g, struct world *w)
{
    for (int k = 0; k < w->n_flavors; k++) {
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                "kind: ResourceFlavor\nmetadata: {name: f%d}\nspec:\n",
                k);
        if (!coin(g, 5))
            fprintf(f, "  nodeLabels: {pool: p%d}\n", k);
        if (w->taint[k] && coin(g, 50))
            fprintf(f,
                    "  nodeTaints: [{key: dedicated, value: p%d, "
                    "effect: NoSchedule}]\n",
                    k);
        else if (w->taint[k])
            fprintf(f, "  tolerations: [{key: dedicated, operator: Exists, "
                       "effect: NoSchedule}]\n");
    }
}

/* One quota entry; limits only below a cohort (a CQ may lend at most its
 * nominal quota). */
static void write_quota(FILE *f, struct gen *g, const char *res, int nominal,
                        const char *unit, bool has_parent, bool is_cohort)
{
    fprintf(f, "      - {name: %s, nominalQuota: \"%d%s\"", res, nominal, unit);
    if (has_parent && coin(g, 25))
        fprintf(f, ", borrowingLimit: \"%d%s\"", range(g, 0, nominal + 4),
                unit);
    if (has_parent && coin(g, 25))
        fprintf(f, ", lendingLimit: \"%d%s\"",
                range(g, 0, is_cohort ? nominal + 4 : nominal), unit);
    fprintf(f, "}\n");
}

/* The flavors of one resource group: those of mask, in a given order. */
static void write_group_flavors(FILE *f, struct gen *g, const struct world *w,
                                unsigned mask, bool cpu_mem, bool gpu,
                                bool has_parent, bool is_cohort)
{
    int order[MAX_FLAVORS], n = 0;
    for (int k = 0; k < w->n_flavors; k++)
        if (mask & (1u << k))
            order[n++] = k;
    for (int i = n - 1; i > 0; i--) {
        int j = range(g, 0, i), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    fprintf(f, "    flavors:\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "    - name: f%d\n      resources:\n", order[i]);
        if (cpu_mem) {
            /* 0 bytes: room for a few workloads */
            int cpu = 16 - range(g, 0, 16);
            write_quota(f, g, "cpu", cpu, "", has_parent, is_cohort);
            write_quota(f, g, "memory", cpu * (8 - range(g, 0, 7)), "Gi",
                        has_parent, is_cohort);
        }
        if (gpu)
            write_quota(f, g, "nvidia.com/gpu", 8 - range(g, 0, 8), "",
                        has_parent, is_cohort);
    }
}

/* resourceGroups: cpu, memory (and GPUs) over some flavors, or, now and
 * then, GPUs in a group of their own over other flavors. */
static void write_groups(FILE *f, struct gen *g, const struct world *w,
                         bool has_parent, bool is_cohort)
{
    unsigned all = (1u << w->n_flavors) - 1;
    unsigned mask = 1u + take(g, all); /* a non-empty subset */
    fprintf(f, "  resourceGroups:\n");
    if (w->gpu && mask != all && coin(g, 30)) {
        unsigned rest = all & ~mask;
        unsigned gmask = rest & (1u + take(g, all));
        if (!gmask)
            gmask = rest;
        fprintf(f, "  - coveredResources: [cpu, memory]\n");
        write_group_flavors(f, g, w, mask, true, false, has_parent, is_cohort);
        fprintf(f, "  - coveredResources: [nvidia.com/gpu]\n");
        write_group_flavors(f, g, w, gmask, false, true, has_parent, is_cohort);
        return;
    }
    fprintf(f, "  - coveredResources: [cpu, memory%s]\n",
            w->gpu ? ", nvidia.com/gpu" : "");
    write_group_flavors(f, g, w, mask, true, w->gpu, has_parent, is_cohort);
}

static void write_cohorts(FILE *f, struct gen *g, struct world *w)
{
    w->n_cohorts = range(g, 0, MAX_COHORTS);
    for (int k = 0; k < w->n_cohorts; k++) {
        /* Parents come first: no cycles. */
        w->cohort_parent[k] = k > 0 && coin(g, 40) ? range(g, 0, k - 1) : -1;
        bool quota = coin(g, 25);
        if (w->cohort_parent[k] < 0 && !quota && coin(g, 50))
            continue; /* implicit: only named by its members */
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
                "metadata: {name: co-%d}\nspec:\n",
                k);
        if (w->cohort_parent[k] >= 0)
            fprintf(f, "  parentName: co-%d\n", w->cohort_parent[k]);
        if (coin(g, 30))
            fprintf(f, "  fairSharing: {weight: \"%s\"}\n", PICK(g, WEIGHTS));
        if (quota)
            write_groups(f, g, w, w->cohort_parent[k] >= 0, true);
    }
}

static const char *const WITHIN[] = {"Never", "LowerPriority",
                                     "LowerOrNewerEqualPriority"};
static const char *const RECLAIM[] = {"Never", "LowerPriority", "Any"};
static const char *const FUNGIBILITY[] = {"MayStopSearch", "TryNextFlavor"};
static const char *const PREFERENCE[] = {"BorrowingOverPreemption",
                                         "PreemptionOverBorrowing"};

/* ClusterQueue cq-<i>, arriving at arrival_s (0: at the start). */
static void write_cq(FILE *f, struct gen *g, const struct world *w, int i,
                     int arrival_s)
{
    int co = w->cq_cohort[i];
    fprintf(f,
            "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
            "metadata:\n  name: cq-%d\n",
            i);
    if (arrival_s)
        fprintf(f, "  annotations: {ordo.dev/sim-arrival: \"%ds\"}\n",
                arrival_s);
    fprintf(f, "spec:\n");
    if (co >= 0)
        fprintf(f, "  cohortName: co-%d\n", co);
    if (coin(g, 15))
        fprintf(f, "  namespaceSelector: {matchLabels: {team: t%d}}\n",
                range(g, 0, MAX_CQS - 1));
    else
        fprintf(f, "  namespaceSelector: {}\n");
    if (coin(g, 30))
        fprintf(f, "  queueingStrategy: StrictFIFO\n");
    if (coin(g, 8))
        fprintf(f, "  stopPolicy: %s\n", coin(g, 50) ? "Hold" : "HoldAndDrain");
    const char *reclaim = PICK(g, RECLAIM);
    fprintf(f,
            "  preemption:\n    withinClusterQueue: %s\n"
            "    reclaimWithinCohort: %s\n",
            PICK(g, WITHIN), reclaim);
    if (strcmp(reclaim, "Never") != 0 && coin(g, 40)) {
        fprintf(f, "    borrowWithinCohort: {policy: LowerPriority");
        if (coin(g, 50))
            fprintf(f, ", maxPriorityThreshold: %d", PICK(g, WPC_VALUES));
        fprintf(f, "}\n");
    }
    if (coin(g, 50)) {
        const char *b = PICK(g, FUNGIBILITY);
        const char *p = PICK(g, FUNGIBILITY);
        fprintf(f,
                "  flavorFungibility: {whenCanBorrow: %s, whenCanPreempt: %s",
                b, p);
        if (strcmp(b, "TryNextFlavor") == 0 &&
            strcmp(p, "TryNextFlavor") == 0 && coin(g, 50))
            fprintf(f, ", preference: %s", PICK(g, PREFERENCE));
        fprintf(f, "}\n");
    }
    if (coin(g, 30))
        fprintf(f, "  fairSharing: {weight: \"%s\"}\n", PICK(g, WEIGHTS));
    write_groups(f, g, w, co >= 0, false);
}

static void write_queues(FILE *f, struct gen *g, struct world *w)
{
    for (int t = 0; t < MAX_CQS; t++)
        fprintf(f,
                "---\napiVersion: v1\nkind: Namespace\n"
                "metadata: {name: team-%d, labels: {team: t%d}}\n",
                t, t);
    w->n_wpcs = range(g, 0, MAX_WPCS);
    for (int i = 0; i < w->n_wpcs; i++)
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                "kind: WorkloadPriorityClass\nmetadata: {name: wp-%d}\n"
                "value: %d\n",
                i, PICK(g, WPC_VALUES));
    w->has_pc = coin(g, 40);
    if (w->has_pc) {
        int value = PICK(g, WPC_VALUES);
        bool global = coin(g, 50);
        fprintf(f,
                "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                "metadata: {name: pc-batch}\nvalue: %d\nglobalDefault: %s\n",
                value, global ? "true" : "false");
    }
    write_cohorts(f, g, w);
    w->n_cqs = range(g, 1, MAX_CQS);
    w->n_lqs = 0;
    for (int i = 0; i < w->n_cqs; i++) {
        w->cq_cohort[i] =
            w->n_cohorts && !coin(g, 20) ? range(g, 0, w->n_cohorts - 1) : -1;
        write_cq(f, g, w, i, 0);
        /* The admin changes quotas (or the cohort, or the stop policy)
         * while workloads run. */
        if (coin(g, 15)) {
            if (w->n_cohorts && coin(g, 30))
                w->cq_cohort[i] =
                    coin(g, 30) ? -1 : range(g, 0, w->n_cohorts - 1);
            write_cq(f, g, w, i, range(g, 1, 120) * 30);
        }
    }
    /* One LocalQueue per ClusterQueue, and maybe another in some
     * namespace. */
    for (int i = 0; i < w->n_cqs + (coin(g, 40) ? 2 : 0); i++) {
        int cq = i < w->n_cqs ? i : range(g, 0, w->n_cqs - 1);
        int ns = i < w->n_cqs ? i : range(g, 0, MAX_CQS - 1);
        w->lq_ns[w->n_lqs] = ns;
        fprintf(f,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                "metadata: {namespace: team-%d, name: lq-%d}\n"
                "spec: {clusterQueue: cq-%d%s}\n",
                ns, w->n_lqs, cq, coin(g, 5) ? ", stopPolicy: Hold" : "");
        w->n_lqs++;
    }
}

/* ---- workloads ------------------------------------------------------------
 */

/* The pod spec (of a pod or a template), at indentation ind. */
static void write_pod_spec(FILE *f, struct gen *g, const struct world *w,
                           int ind, bool gpu)
{
    fprintf(f,
            "%*sspec:\n%*s  schedulerName: ordo-scheduler\n"
            "%*s  restartPolicy: Never\n",
            ind, "", ind, "", ind, "");
    if (w->has_pc && coin(g, 25))
        fprintf(f, "%*s  priorityClassName: pc-batch\n", ind, "");
    if (coin(g, 5))
        fprintf(f, "%*s  nodeSelector: {pool: p%d}\n", ind, "",
                range(g, 0, w->n_flavors - 1));
    if (coin(g, 50))
        fprintf(f,
                "%*s  tolerations: [{key: dedicated, operator: Exists, "
                "effect: NoSchedule}]\n",
                ind, "");
    const char *cpu = PICK(g, CPU);
    const char *mem = PICK(g, MEM);
    fprintf(f,
            "%*s  containers:\n%*s  - name: main\n"
            "%*s    image: registry.example.com/job:1\n"
            "%*s    resources: {requests: {cpu: \"%s\", memory: %s",
            ind, "", ind, "", ind, "", ind, "", cpu, mem);
    if (gpu)
        fprintf(f, ", nvidia.com/gpu: \"%d\"", 1 << range(g, 0, 2));
    fprintf(f, "}}\n");
}

/* metadata of workload i: namespace, queue, priority class, arrival,
 * runtime (NULL: runs forever) and, for pods, the pod group. */
static void write_meta(FILE *f, struct gen *g, const struct world *w,
                       const char *name, int lq, const char *runtime,
                       const char *group, int group_n)
{
    fprintf(f, "metadata:\n  name: %s\n  namespace: team-%d\n", name,
            w->lq_ns[lq]);
    /* Now and then a queue that does not exist: pending for good. */
    if (coin(g, 3))
        fprintf(f, "  labels: {kueue.x-k8s.io/queue-name: missing");
    else
        fprintf(f, "  labels: {kueue.x-k8s.io/queue-name: lq-%d", lq);
    if (w->n_wpcs && coin(g, 60))
        fprintf(f, ", kueue.x-k8s.io/priority-class: wp-%d",
                range(g, 0, w->n_wpcs - 1));
    if (group)
        fprintf(f, ", kueue.x-k8s.io/pod-group-name: %s", group);
    fprintf(f, "}\n  annotations: {ordo.dev/sim-arrival: \"%ds\"",
            coin(g, 50) ? range(g, 0, 120) * 30 : 0);
    if (runtime)
        fprintf(f, ", ordo.dev/sim-runtime: \"%s\"", runtime);
    if (group)
        fprintf(f, ", kueue.x-k8s.io/pod-group-total-count: \"%d\"", group_n);
    fprintf(f, "}\n");
}

static void write_workloads(FILE *f, struct gen *g, const struct world *w)
{
    int n = range(g, 1, MAX_WLS);
    for (int i = 0; i < n; i++) {
        char name[32], rt_buf[32];
        const char *rt = NULL;
        if (!coin(g, 10)) {
            snprintf(rt_buf, sizeof(rt_buf), "%ds", range(g, 1, 240) * 30);
            rt = rt_buf;
        }
        int lq = range(g, 0, w->n_lqs - 1);
        bool gpu = w->gpu && coin(g, 30);
        snprintf(name, sizeof(name), "wl-%d", i);
        unsigned kind = take(g, 10);
        if (kind <= 5) { /* a Job */
            int par = range(g, 1, 4);
            fprintf(f, "---\napiVersion: batch/v1\nkind: Job\n");
            write_meta(f, g, w, name, lq, rt, NULL, 0);
            fprintf(f, "spec:\n  parallelism: %d\n", par);
            if (coin(g, 30))
                fprintf(f, "  completions: %d\n", par * range(g, 1, 3));
            if (coin(g, 20))
                fprintf(f, "  suspend: true\n");
            fprintf(f, "  template:\n");
            write_pod_spec(f, g, w, 4, gpu);
        } else if (kind == 6) { /* a JobSet */
            fprintf(f, "---\napiVersion: jobset.x-k8s.io/v1alpha2\n"
                       "kind: JobSet\n");
            write_meta(f, g, w, name, lq, rt, NULL, 0);
            fprintf(f, "spec:\n%s  replicatedJobs:\n",
                    coin(g, 20) ? "  suspend: true\n" : "");
            int rjs = range(g, 1, 2);
            for (int k = 0; k < rjs; k++) {
                int replicas = range(g, 1, 2);
                int par = range(g, 1, 2);
                fprintf(f,
                        "  - name: rj-%d\n    replicas: %d\n    template:\n"
                        "      spec:\n        parallelism: %d\n"
                        "        template:\n",
                        k, replicas, par);
                write_pod_spec(f, g, w, 10, gpu && k > 0);
            }
        } else { /* a pod group, or a pod on its own */
            int pods = kind <= 8 ? range(g, 1, 4) : 1;
            for (int k = 0; k < pods; k++) {
                char pod[48];
                snprintf(pod, sizeof(pod), "%s-%d", name, k);
                fprintf(f, "---\napiVersion: v1\nkind: Pod\n");
                write_meta(f, g, w, kind <= 8 ? pod : name, lq, rt,
                           kind <= 8 ? name : NULL, pods);
                write_pod_spec(f, g, w, 0, gpu);
            }
        }
    }
}

static void write_config(FILE *f, struct gen *g)
{
    static const char *const STRATEGIES[] = {
        "[LessThanOrEqualToFinalShare]", "[LessThanInitialShare]",
        "[LessThanOrEqualToFinalShare, LessThanInitialShare]", NULL};
    fprintf(f, "apiVersion: ordo.dev/v1alpha1\n"
               "kind: SchedulerConfiguration\n");
    if (coin(g, 10))
        fprintf(f, "plugins: {preempt: \"\"}\n");
    if (coin(g, 30))
        fprintf(f, "pluginConfig:\n- name: resource-fit\n"
                   "  args: {scoringStrategy: MostAllocated}\n");
    if (coin(g, 35)) {
        const char *s = PICK(g, STRATEGIES);
        fprintf(f, "fairSharing:\n  enable: true\n");
        if (s)
            fprintf(f, "  preemptionStrategies: %s\n", s);
    }
}

/* The whole cluster: the configuration into cfg_text, the manifests into
 * text (both malloc'd, NUL-terminated). */
static int generate(struct gen *g, char **cfg_text, size_t *cfg_len,
                    char **text, size_t *len)
{
    struct world w;
    memset(&w, 0, sizeof(w));
    FILE *f = open_memstream(cfg_text, cfg_len);
    if (!f)
        return -ENOMEM;
    write_config(f, g);
    if (fclose(f) != 0)
        return -ENOMEM;
    if (!(f = open_memstream(text, len)))
        return -ENOMEM;
    w.n_flavors = range(g, 1, MAX_FLAVORS);
    for (int k = 0; k < w.n_flavors; k++)
        w.taint[k] = coin(g, 15);
    fprintf(f, "# generated by fuzz_sim\n");
    write_nodes(f, g, &w);
    write_flavors(f, g, &w);
    write_queues(f, g, &w);
    write_workloads(f, g, &w);
    return fclose(f) == 0 ? 0 : -ENOMEM;
}

/* ---- running --------------------------------------------------------------
 */

static FILE *devnull;

/* Maps every plugin once for the whole process (see the top). */
static void setup(void)
{
    DIR *d = opendir(FUZZ_PLUGIN_DIR);
    size_t n = 0;
    if (!d) {
        fprintf(stderr, "fuzz_sim: %s: %s\n", FUZZ_PLUGIN_DIR, strerror(errno));
        abort();
    }
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        char path[4096];
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", FUZZ_PLUGIN_DIR, e->d_name);
        if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
            fprintf(stderr, "fuzz_sim: %s\n", dlerror());
            abort();
        }
        n++;
    }
    closedir(d);
    devnull = fopen("/dev/null", "w");
    if (n == 0 || !devnull) {
        fprintf(stderr, "fuzz_sim: no plugins in %s\n", FUZZ_PLUGIN_DIR);
        abort();
    }
}

static void fail(const char *why, const char *cfg_text, const char *text)
{
    fprintf(stderr,
            "fuzz_sim: %s\n---- configuration ----\n%s"
            "---- manifests ----\n%s---- end ----\n",
            why, cfg_text, text);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        setup();
        ready = true;
    }
    struct gen g = {data, size, 0};
    char *cfg_text = NULL, *text = NULL;
    size_t cfg_len = 0, len = 0;
    if (generate(&g, &cfg_text, &cfg_len, &text, &len) < 0) {
        fprintf(stderr, "fuzz_sim: out of memory\n");
        abort();
    }

    struct sched_config cfg;
    struct plugin_registry plugins;
    struct err e;
    if (config_load_buffer(&cfg, cfg_text, cfg_len, "config.yaml", &e) < 0) {
        fprintf(stderr, "fuzz_sim: %s\n", e.msg);
        fail("the generated configuration is refused", cfg_text, text);
    }
    if (plugins_start(&plugins, &cfg, FUZZ_PLUGIN_DIR, host_table(), &e) < 0) {
        fprintf(stderr, "fuzz_sim: %s\n", e.msg);
        fail("the plugins do not start", cfg_text, text);
    }

    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/ordo-fuzz-sim-XXXXXX.yaml",
             tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(path, 5);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0) {
        fprintf(stderr, "fuzz_sim: %s: %s\n", path, strerror(errno));
        abort();
    }

    struct sim_options opt = {.until_idle = false,
                              .until_ns = SIM_LIMIT_NS,
                              .check = true,
                              .out = devnull};
    char *paths[] = {path};
    int r = sim_run(&cfg, &plugins, paths, 1, &opt);
    unlink(path);
    plugins_stop(&plugins);
    config_release(&cfg);
    resid_reset();
    if (r == -EPROTO)
        fail("invariants violated (see above)", cfg_text, text);
    if (r == -EINVAL)
        fail("the generated manifests are refused (see above)", cfg_text, text);
    if (r < 0) {
        fprintf(stderr, "fuzz_sim: sim_run: %s\n", strerror(-r));
        fail("the run failed", cfg_text, text);
    }
    free(cfg_text);
    free(text);
    return 0;
}
