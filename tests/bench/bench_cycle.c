/* bench_cycle.c - `make bench`: the cost of admission decisions at scale.
 *
 * Builds a synthetic cluster in memory (by default 1,000 ClusterQueues in
 * 100 cohorts, 100,000 pending single-pod workloads, 200 nodes), loads the
 * built-in plugins, and runs the scheduler until nothing more fits. Prints
 * figures, never asserts on time: time per cycle and per admission
 * decision, and the peak RSS.
 *
 *   bench_cycle [WORKLOADS [COHORTS [CQS_PER_COHORT [NODES]]]] */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "manifest.h"
#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "scheduler.h"

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int bench_bind(void *data, const struct pod *p, const struct node *n)
{
    (*(long *)data)++;
    return 0;
}

static const struct backend_ops bench_backend = {.bind = bench_bind};

/* Appends printf output to a growing buffer. */
struct buf {
    char *p;
    size_t n, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (w >= 0 && (size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 1 << 20;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
    }
}

static void generate(struct buf *b, long workloads, long cohorts, long per,
                     long nodes)
{
    long cqs = cohorts * per;
    bprintf(b, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
               "metadata: {name: default}\n");
    for (long i = 0; i < cqs; i++) {
        bprintf(b,
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
                "metadata: {name: cq-%ld}\nspec:\n  cohortName: cohort-%ld\n"
                "  namespaceSelector: {}\n  resourceGroups:\n"
                "  - coveredResources: [cpu]\n    flavors:\n"
                "    - name: default\n      resources: [{name: cpu, "
                "nominalQuota: 50}]\n"
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                "metadata: {namespace: ns-%ld, name: lq}\n"
                "spec: {clusterQueue: cq-%ld}\n",
                i, i / per, i, i);
    }
    for (long i = 0; i < nodes; i++)
        bprintf(b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-%ld}\n"
                   "status: {allocatable: {cpu: '256', pods: '1000'}}\n",
                i);
    for (long i = 0; i < workloads; i++)
        bprintf(b,
                "---\napiVersion: v1\nkind: Pod\nmetadata: {name: wl-%ld, "
                "namespace: ns-%ld, labels: {kueue.x-k8s.io/queue-name: lq}}\n"
                "spec: {schedulerName: ordo-scheduler, priority: %ld, "
                "containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n",
                i, i % cqs, i % 7);
}

static long arg(int argc, char **argv, int i, long def)
{
    return argc > i ? strtol(argv[i], NULL, 10) : def;
}

int main(int argc, char **argv)
{
    long workloads = arg(argc, argv, 1, 100000);
    long cohorts = arg(argc, argv, 2, 100);
    long per = arg(argc, argv, 3, 10);
    long nodes = arg(argc, argv, 4, 200);
    struct buf b = {0};
    struct err e;
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct manifest_set set;
    struct scheduler *s = NULL;
    struct scheduler_stats st;
    long bound = 0;

    generate(&b, workloads, cohorts, per, nodes);
    config_init_defaults(&cfg);
    if (plugins_start(&plugins, &cfg, ORDO_BUILD_PLUGIN_DIR, host_table(), &e) < 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    long long t0 = now_ns();
    manifest_set_init(&set);
    if (manifest_load_buffer(&set, b.p, b.n, "bench.yaml", NULL, NULL) < 0) {
        fprintf(stderr, "bench: generated manifests did not load\n");
        return 1;
    }
    free(b.p);
    if (scheduler_new(&cfg, &plugins, &bench_backend, &bound, &s) < 0) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < set.n; i++) {
        scheduler_object_added(s, set.objects[i]);
        set.objects[i] = NULL;
    }
    set.n = 0;
    manifest_set_release(&set);
    long long t1 = now_ns();
    int admitted = scheduler_run(s);
    long long t2 = now_ns();
    if (admitted < 0) {
        fprintf(stderr, "bench: scheduler failed: %s\n", strerror(-admitted));
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    scheduler_get_stats(s, &st);
    uint64_t decisions = st.admissions + st.parked;
    printf("bench_cycle: %ld workloads, %ld ClusterQueues in %ld cohorts, "
           "%ld nodes\n",
           workloads, cohorts * per, cohorts, nodes);
    printf("  load (decode + cache)   %8.3f s\n", (t1 - t0) / 1e9);
    printf("  scheduling              %8.3f s  (%llu cycles, %llu admitted, "
           "%ld pods bound)\n",
           (t2 - t1) / 1e9, (unsigned long long)st.cycles,
           (unsigned long long)st.admissions, bound);
    printf("  per cycle               %8.1f us\n",
           st.cycles ? (t2 - t1) / 1e3 / (double)st.cycles : 0.0);
    printf("  per admission decision  %8.1f us\n",
           decisions ? (t2 - t1) / 1e3 / (double)decisions : 0.0);
    printf("  peak RSS                %8.1f MiB\n", ru.ru_maxrss / 1024.0);
    scheduler_free(s);
    plugins_stop(&plugins);
    config_release(&cfg);
    resid_reset();
    return 0;
}
