/* test_sim_output.c - unit tests for the simulator's output
 * (sched/sim_report.c, sched/sim_plot.c): the sim-report/v1 JSON document
 * read back field by field, the summary table, and the SVG plots. The
 * cluster is built by hand from the structs of cluster.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sim.h"
#include "err.h"
#include "resid.h"
#include "test_helpers.h"

#define S(n)     ((int64_t)(n)*INT64_C(1000000000))
#define MS(n)    ((int64_t)(n)*INT64_C(1000000))
#define GI_MILLI (INT64_C(1073741824) * 1000)
#define MI_MILLI (INT64_C(1048576) * 1000)

enum { N_WL = 5, N_PODSETS = 6, N_PODS = 10, N_SAMPLES = 9 };

/* A small cluster: team-a (one group cpu/memory, flavors on-demand and
 * spot), team-b (one group cpu/pods, flavor spot), five workloads. */
struct fixture {
    struct cluster c;
    struct flavor fl_od, fl_spot;
    struct node nodes[3];
    struct cq cq_a, cq_b;
    struct cq *cqs_v[2];
    struct cq_group grp_a, grp_b;
    int32_t res_a[2], res_b[2];
    struct flavor *flv_a[2], *flv_b[1];
    int64_t nom_a[4], use_a[4], nom_b[2], use_b[2];
    struct workload wl[N_WL];
    struct podset ps[N_PODSETS];
    int32_t req_ids[N_PODSETS][2];
    int64_t req_milli[N_PODSETS][2];
    struct pod pods[N_PODS];
    struct pod *wl_pods[N_WL][3];
    struct flavor *wl_flavors[N_WL][2];
    struct usage_sample samples[N_SAMPLES];
    struct sim_history hist;
};

static void set_podset(struct podset *ps, char *name, uint32_t count,
                       uint32_t n_req, int32_t *ids, int64_t *milli)
{
    ps->name = name;
    ps->count = count;
    ps->n_req = n_req;
    ps->req_ids = ids;
    ps->req_milli = milli;
}

static void add_pod(struct fixture *fx, size_t *next, struct workload *w,
                    uint32_t podset, struct node *n)
{
    struct pod *p = &fx->pods[(*next)++];
    p->wl = w;
    p->podset = podset;
    p->node = n;
    p->state = n ? PODSTATE_BOUND : PODSTATE_PENDING;
    w->pods[w->n_pods++] = p;
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    assert_non_null(fx);
    int32_t cpu = resid_intern("cpu"), mem = resid_intern("memory"),
            pods = resid_intern("pods");
    assert_true(cpu >= 0 && mem >= 0 && pods >= 0);

    fx->fl_od.name = "on-demand";
    fx->fl_spot.name = "spot";
    fx->nodes[0].name = "node-1";
    fx->nodes[1].name = "node-2";
    fx->nodes[2].name = "node-3";

    /* team-a: cpu, memory x on-demand, spot. */
    fx->res_a[0] = cpu;
    fx->res_a[1] = mem;
    fx->flv_a[0] = &fx->fl_od;
    fx->flv_a[1] = &fx->fl_spot;
    int64_t nom_a[4] = {10000, 64 * GI_MILLI, 20000, 32 * GI_MILLI};
    int64_t use_a[4] = {1500, GI_MILLI, 0, 0};
    memcpy(fx->nom_a, nom_a, sizeof(nom_a));
    memcpy(fx->use_a, use_a, sizeof(use_a));
    fx->grp_a =
        (struct cq_group){2, 2, fx->res_a, fx->flv_a, fx->nom_a, fx->use_a};
    fx->cq_a.name = "team-a";
    fx->cq_a.n_groups = 1;
    fx->cq_a.groups = &fx->grp_a;

    /* team-b: cpu, pods x spot. */
    fx->res_b[0] = cpu;
    fx->res_b[1] = pods;
    fx->flv_b[0] = &fx->fl_spot;
    fx->nom_b[0] = 4000;
    fx->nom_b[1] = 10000;
    fx->use_b[0] = 3000;
    fx->use_b[1] = 3000;
    fx->grp_b =
        (struct cq_group){2, 1, fx->res_b, fx->flv_b, fx->nom_b, fx->use_b};
    fx->cq_b.name = "team-b";
    fx->cq_b.n_groups = 1;
    fx->cq_b.groups = &fx->grp_b;

    fx->cqs_v[0] = &fx->cq_a;
    fx->cqs_v[1] = &fx->cq_b;
    fx->c.cqs_v = fx->cqs_v;
    fx->c.n_cqs = 2;

    for (int i = 0; i < N_PODSETS; i++) {
        fx->req_ids[i][0] = cpu;
        fx->req_ids[i][1] = mem;
    }
    size_t np = 0;
    struct workload *w;

    /* Admitted Job on team-a, 2 pods on node-1 and node-2. */
    w = &fx->wl[0];
    w->key = "ns1/job-b";
    w->kind = WL_JOB;
    w->local_queue = "lq-a";
    w->cq = w->admitted_cq = &fx->cq_a;
    w->priority = 10;
    w->state = WL_ADMITTED;
    w->admitted_ns = MS(2500);
    w->has_admitted = true;
    fx->req_milli[0][0] = 750;
    fx->req_milli[0][1] = 512 * MI_MILLI;
    set_podset(&fx->ps[0], "main", 2, 2, fx->req_ids[0], fx->req_milli[0]);
    w->podsets = &fx->ps[0];
    w->n_podsets = 1;
    fx->wl_flavors[0][0] = &fx->fl_od;
    w->flavors = fx->wl_flavors[0];
    w->pods = fx->wl_pods[0];
    add_pod(fx, &np, w, 0, &fx->nodes[0]);
    add_pod(fx, &np, w, 0, &fx->nodes[1]);

    /* Finished Job, was on team-a's spot flavor. */
    w = &fx->wl[1];
    w->key = "ns1/job-a";
    w->kind = WL_JOB;
    w->local_queue = "lq-a";
    w->admitted_cq = &fx->cq_a;
    w->state = WL_FINISHED;
    w->created_ns = S(1);
    w->admitted_ns = S(3);
    w->finished_ns = S(63);
    w->has_admitted = w->has_finished = true;
    fx->req_milli[1][0] = 1000;
    set_podset(&fx->ps[1], "main", 1, 1, fx->req_ids[1], fx->req_milli[1]);
    w->podsets = &fx->ps[1];
    w->n_podsets = 1;
    fx->wl_flavors[1][0] = &fx->fl_spot;
    w->flavors = fx->wl_flavors[1];
    w->pods = fx->wl_pods[1];
    add_pod(fx, &np, w, 0, &fx->nodes[0]);
    fx->pods[np - 1].state = PODSTATE_SUCCEEDED;

    /* Pending pod group with an '&' in its name, three pods, no nodes. */
    w = &fx->wl[2];
    w->key = "ns2/group&x";
    w->kind = WL_POD_GROUP;
    w->local_queue = "lq-a";
    w->cq = &fx->cq_a;
    w->priority = -5;
    w->created_ns = MS(1);
    snprintf(w->reason, sizeof(w->reason),
             "insufficient quota for cpu in flavor on-demand");
    fx->req_milli[2][0] = 2000;
    set_podset(&fx->ps[2], "main", 3, 1, fx->req_ids[2], fx->req_milli[2]);
    w->podsets = &fx->ps[2];
    w->n_podsets = 1;
    w->pods = fx->wl_pods[2];
    for (int i = 0; i < 3; i++)
        add_pod(fx, &np, w, 0, NULL);

    /* Pending single pod without a queue. */
    w = &fx->wl[3];
    w->key = "ns3/lonely";
    w->kind = WL_POD;
    w->created_ns = S(4);
    fx->req_milli[3][0] = 100;
    set_podset(&fx->ps[3], "main", 1, 1, fx->req_ids[3], fx->req_milli[3]);
    w->podsets = &fx->ps[3];
    w->n_podsets = 1;
    w->pods = fx->wl_pods[3];
    add_pod(fx, &np, w, 0, NULL);

    /* Admitted JobSet on team-b, evicted once: leader and two workers. */
    w = &fx->wl[4];
    w->key = "ns1/js";
    w->kind = WL_JOBSET;
    w->local_queue = "lq-b";
    w->cq = w->admitted_cq = &fx->cq_b;
    w->created_ns = MS(250);
    w->queue_ns = S(8);
    w->admitted_ns = S(10);
    w->has_admitted = true;
    w->evictions = 1;
    w->state = WL_ADMITTED;
    snprintf(w->reason, sizeof(w->reason), "evicted by preemption");
    snprintf(w->evict_note, sizeof(w->evict_note), "pod ns1/js-0: deleted");
    snprintf(w->evicted_by, sizeof(w->evicted_by), "ns1/urgent");
    w->evicted_by_preemptor = true;
    w->evict_class = "InCohortReclamation";
    fx->req_milli[4][0] = 1000;
    fx->req_milli[5][0] = 1000;
    set_podset(&fx->ps[4], "leader", 1, 1, fx->req_ids[4], fx->req_milli[4]);
    set_podset(&fx->ps[5], "workers", 2, 1, fx->req_ids[5], fx->req_milli[5]);
    w->podsets = &fx->ps[4];
    w->n_podsets = 2;
    fx->wl_flavors[4][0] = &fx->fl_spot;
    fx->wl_flavors[4][1] = &fx->fl_spot;
    w->flavors = fx->wl_flavors[4];
    w->pods = fx->wl_pods[4];
    add_pod(fx, &np, w, 1, &fx->nodes[2]);
    add_pod(fx, &np, w, 0, &fx->nodes[2]);
    add_pod(fx, &np, w, 1, NULL);
    assert_int_equal(np, N_PODS);

    for (int i = 0; i < N_WL; i++) {
        w = &fx->wl[i];
        HASH_ADD_KEYPTR(hh, fx->c.workloads, w->key, strlen(w->key), w);
    }

    /* Usage history: change points. "old" is a flavor only the history
     * knows (no quota); "gone" a queue that no longer exists. */
    struct usage_sample smp[N_SAMPLES] = {
        {0, "team-a", "on-demand", "cpu", 0, 10000},
        {MS(2500), "team-a", "on-demand", "cpu", 1500, 10000},
        {MS(2500), "team-a", "on-demand", "memory", GI_MILLI, 64 * GI_MILLI},
        {S(3), "team-a", "spot", "cpu", 1000, 20000},
        {S(5), "team-a", "old", "cpu", 500, 0},
        {S(63), "team-a", "spot", "cpu", 0, 20000},
        {S(10), "team-b", "spot", "cpu", 3000, 4000},
        {S(10), "team-b", "spot", "pods", 3000, 10000},
        {S(1), "gone", "spot", "cpu", 1000, 1000},
    };
    memcpy(fx->samples, smp, sizeof(smp));
    fx->hist.samples = fx->samples;
    fx->hist.n = fx->hist.cap = N_SAMPLES;

    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    HASH_CLEAR(hh, fx->c.workloads);
    free(fx);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    resid_reset();
    return 0;
}

/* ---- helpers ------------------------------------------------------------- */

/* A new temporary file name (the file exists, empty); free it. */
static char *temp_path(void)
{
    char *path = strdup("/tmp/test_sim_output_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    return path;
}

/* The whole file (NUL-terminated); free it. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

static struct json_object *field(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v)) {
        print_error("missing field \"%s\"\n", key);
        fail();
    }
    return v;
}

static void assert_field_str(struct json_object *o, const char *key,
                             const char *want)
{
    struct json_object *v = field(o, key);
    assert_true(json_object_is_type(v, json_type_string));
    assert_string_equal(json_object_get_string(v), want);
}

static void assert_field_int(struct json_object *o, const char *key,
                             int64_t want)
{
    struct json_object *v = field(o, key);
    assert_true(json_object_is_type(v, json_type_int));
    assert_int_equal(json_object_get_int64(v), want);
}

static void assert_field_double(struct json_object *o, const char *key,
                                double want)
{
    struct json_object *v = field(o, key);
    assert_true(json_object_is_type(v, json_type_double));
    double got = json_object_get_double(v);
    assert_true(got > want - 1e-9 && got < want + 1e-9);
}

static void assert_field_null(struct json_object *o, const char *key)
{
    assert_null(field(o, key));
}

static void assert_map(struct json_object *o, const char *key, int n, ...)
{
    struct json_object *m = field(o, key);
    assert_true(json_object_is_type(m, json_type_object));
    assert_int_equal(json_object_object_length(m), n);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *k = va_arg(ap, const char *);
        const char *v = va_arg(ap, const char *);
        assert_field_str(m, k, v);
    }
    va_end(ap);
}

static void assert_strings(struct json_object *o, const char *key, int n, ...)
{
    struct json_object *a = field(o, key);
    assert_true(json_object_is_type(a, json_type_array));
    assert_int_equal(json_object_array_length(a), n);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        struct json_object *v = json_object_array_get_idx(a, (size_t)i);
        assert_true(json_object_is_type(v, json_type_string));
        assert_string_equal(json_object_get_string(v),
                            va_arg(ap, const char *));
    }
    va_end(ap);
}

static struct json_object *podset(struct json_object *wl, size_t i)
{
    struct json_object *a = field(wl, "podSets");
    assert_true(json_object_is_type(a, json_type_array));
    assert_true(i < json_object_array_length(a));
    return json_object_array_get_idx(a, i);
}

/* ---- report -------------------------------------------------------------- */

static void test_report(void **state)
{
    struct fixture *fx = *state;
    char *path = temp_path();
    struct err e = {{0}};
    assert_int_equal(sim_report_write(&fx->c, NULL, NULL, S(65), path, &e), 0);

    char *text = slurp(path);
    /* Exact numbers, no escaped slashes, pretty-printed. */
    assert_contains(text, "\"admittedAt\": 2.5,");
    assert_contains(text, "\"createdAt\": 0.001,");
    assert_contains(text, "\"createdAt\": 0.25,");
    assert_contains(text, "\"endTime\": 65,");
    assert_contains(text, "\"name\": \"ns1/job-a\"");
    assert_true(text[strlen(text) - 1] == '\n');
    free(text);

    struct json_object *root = json_object_from_file(path);
    assert_non_null(root);
    assert_field_str(root, "schema", "ordo.dev/sim-report/v1");
    assert_field_int(root, "endTime", 65);

    struct json_object *wls = field(root, "workloads");
    assert_true(json_object_is_type(wls, json_type_array));
    assert_int_equal(json_object_array_length(wls), N_WL);
    const char *names[N_WL] = {"ns1/job-a", "ns1/job-b", "ns1/js",
                               "ns2/group&x", "ns3/lonely"};
    for (size_t i = 0; i < N_WL; i++)
        assert_field_str(json_object_array_get_idx(wls, i), "name", names[i]);

    /* Finished Job. */
    struct json_object *w = json_object_array_get_idx(wls, 0);
    assert_int_equal(json_object_object_length(w), 18);
    assert_field_str(w, "kind", "Job");
    assert_field_str(w, "localQueue", "lq-a");
    assert_field_str(w, "clusterQueue", "team-a");
    assert_field_int(w, "priority", 0);
    assert_field_str(w, "state", "finished");
    assert_field_int(w, "createdAt", 1);
    assert_field_int(w, "admittedAt", 3);
    assert_field_int(w, "finishedAt", 63);
    assert_field_int(w, "evictions", 0);
    assert_field_null(w, "reason");
    assert_field_null(w, "lastEviction");
    assert_field_null(w, "preemptedBy");
    assert_field_null(w, "preemptionReason");
    assert_int_equal(json_object_array_length(field(w, "podSets")), 1);
    struct json_object *ps = podset(w, 0);
    assert_field_str(ps, "name", "main");
    assert_field_int(ps, "count", 1);
    assert_map(ps, "flavors", 1, "cpu", "spot");
    assert_strings(ps, "nodes", 1, "node-1");

    /* Admitted Job. */
    w = json_object_array_get_idx(wls, 1);
    assert_field_str(w, "kind", "Job");
    assert_field_str(w, "clusterQueue", "team-a");
    assert_field_int(w, "priority", 10);
    assert_field_str(w, "state", "admitted");
    assert_field_int(w, "createdAt", 0);
    assert_field_double(w, "admittedAt", 2.5);
    assert_field_null(w, "finishedAt");
    assert_field_null(w, "reason");
    ps = podset(w, 0);
    assert_field_int(ps, "count", 2);
    assert_map(ps, "flavors", 2, "cpu", "on-demand", "memory", "on-demand");
    assert_strings(ps, "nodes", 2, "node-1", "node-2");

    /* Admitted JobSet: two pod sets, "pods" covered by team-b. */
    w = json_object_array_get_idx(wls, 2);
    assert_field_str(w, "kind", "JobSet");
    assert_field_str(w, "localQueue", "lq-b");
    assert_field_str(w, "clusterQueue", "team-b");
    assert_field_str(w, "state", "admitted");
    assert_field_double(w, "createdAt", 0.25);
    assert_field_int(w, "admittedAt", 10);
    assert_field_int(w, "evictions", 1);
    assert_field_str(w, "reason", "evicted by preemption");
    assert_field_str(w, "lastEviction", "pod ns1/js-0: deleted");
    assert_field_str(w, "preemptedBy", "ns1/urgent");
    assert_field_str(w, "preemptionReason", "InCohortReclamation");
    assert_int_equal(json_object_array_length(field(w, "podSets")), 2);
    ps = podset(w, 0);
    assert_field_str(ps, "name", "leader");
    assert_field_int(ps, "count", 1);
    assert_map(ps, "flavors", 2, "cpu", "spot", "pods", "spot");
    assert_strings(ps, "nodes", 1, "node-3");
    ps = podset(w, 1);
    assert_field_str(ps, "name", "workers");
    assert_field_int(ps, "count", 2);
    assert_map(ps, "flavors", 2, "cpu", "spot", "pods", "spot");
    assert_strings(ps, "nodes", 1, "node-3");

    /* Pending pod group: never admitted. */
    w = json_object_array_get_idx(wls, 3);
    assert_field_str(w, "kind", "PodGroup");
    assert_field_str(w, "clusterQueue", "team-a");
    assert_field_int(w, "priority", -5);
    assert_field_str(w, "state", "pending");
    assert_field_double(w, "createdAt", 0.001);
    assert_field_null(w, "admittedAt");
    assert_field_null(w, "finishedAt");
    assert_field_str(w, "reason",
                     "insufficient quota for cpu in flavor on-demand");
    ps = podset(w, 0);
    assert_field_int(ps, "count", 3);
    assert_map(ps, "flavors", 0);
    assert_strings(ps, "nodes", 0);

    /* Pending pod without a queue. */
    w = json_object_array_get_idx(wls, 4);
    assert_field_str(w, "kind", "Pod");
    assert_field_null(w, "localQueue");
    assert_field_null(w, "clusterQueue");
    assert_field_int(w, "createdAt", 4);
    assert_field_null(w, "reason");

    /* ClusterQueues in cqs_v order. */
    struct json_object *cqs = field(root, "clusterQueues");
    assert_int_equal(json_object_array_length(cqs), 2);
    struct json_object *q = json_object_array_get_idx(cqs, 0);
    assert_int_equal(json_object_object_length(q), 4);
    assert_field_str(q, "name", "team-a");
    assert_field_int(q, "pending", 1);
    assert_field_int(q, "admitted", 1);
    struct json_object *usage = field(q, "usage");
    assert_int_equal(json_object_object_length(usage), 2);
    assert_map(usage, "on-demand", 2, "cpu", "1500m", "memory", "1Gi");
    assert_map(usage, "spot", 2, "cpu", "0", "memory", "0");
    q = json_object_array_get_idx(cqs, 1);
    assert_field_str(q, "name", "team-b");
    assert_field_int(q, "pending", 0);
    assert_field_int(q, "admitted", 1);
    usage = field(q, "usage");
    assert_int_equal(json_object_object_length(usage), 1);
    assert_map(usage, "spot", 2, "cpu", "3", "pods", "3");

    json_object_put(root);
    unlink(path);
    free(path);
}

/* The history and the admission periods of a workload evicted once and
 * admitted again; its pod set's nodes are where its pods are now: not
 * the evicted pod's (its node cleared), nor the node a pod of the first
 * admission succeeded on. */
static void test_report_history(void **state)
{
    struct fixture *fx = *state;
    struct workload *w = &fx->wl[0]; /* ns1/job-b, admitted */
    struct wl_event ev[] = {
        {0, WL_EV_CREATED, NULL, NULL, NULL, 0, 0},
        {0, WL_EV_WAITING, "team-a", "insufficient quota", NULL, 0, 0},
        {S(1), WL_EV_ADMITTED, "team-a", "main: cpu=on-demand", NULL, 0, 0},
        {S(1), WL_EV_PLACED, "team-a", NULL, NULL, 0, 0},
        {S(2), WL_EV_EVICTED, "team-a", "InClusterQueue", "ns1/urgent", 0, 0},
        {S(2), WL_EV_REQUEUED, NULL, NULL, NULL, 0, 0},
        {MS(2500), WL_EV_ADMITTED, "team-a", "main: cpu=on-demand", NULL, 0, 0},
        {MS(2500), WL_EV_PLACED, "team-a", NULL, NULL, 0, 0},
    };
    w->history = (struct wl_history){.n = 8, .cap = 8, .ev = ev};
    w->evictions = 1;
    struct sim_pod_ran pods[] = {
        {0, NULL, 0},     /* evicted: nowhere now */
        {0, "node-3", 0}, /* succeeded in the first admission */
        {0, "node-1", 1},
        {0, "node-2", 1},
    };
    const struct sim_pod_ran *list[] = {&pods[0], &pods[1], &pods[2], &pods[3]};
    struct sim_ran *ran = NULL;
    struct sim_ran r = {.key = "ns1/job-b", .n = 4, .cap = 4, .pods = list};
    HASH_ADD_KEYPTR(hh, ran, r.key, strlen(r.key), &r);

    char *path = temp_path();
    struct err e = {{0}};
    assert_int_equal(sim_report_write(&fx->c, ran, NULL, S(65), path, &e), 0);
    HASH_CLEAR(hh, ran);
    w->history = (struct wl_history){0};
    struct json_object *root = json_object_from_file(path);
    assert_non_null(root);
    struct json_object *j =
        json_object_array_get_idx(field(root, "workloads"), 1);
    assert_field_str(j, "name", "ns1/job-b");
    assert_strings(podset(j, 0), "nodes", 2, "node-1", "node-2");
    assert_field_int(j, "historyDropped", 0);

    struct json_object *h = field(j, "history");
    assert_int_equal(json_object_array_length(h), 8);
    struct json_object *x = json_object_array_get_idx(h, 1);
    assert_field_int(x, "t", 0);
    assert_field_str(x, "type", "waiting");
    assert_field_str(x, "cq", "team-a");
    assert_field_str(x, "detail", "insufficient quota");
    assert_field_null(x, "by");
    x = json_object_array_get_idx(h, 4);
    assert_field_int(x, "t", 2);
    assert_field_str(x, "type", "evicted");
    assert_field_str(x, "by", "ns1/urgent");
    assert_field_str(json_object_array_get_idx(h, 5), "type", "requeued");

    struct json_object *a = field(j, "admissions");
    assert_int_equal(json_object_array_length(a), 2);
    x = json_object_array_get_idx(a, 0);
    assert_field_str(x, "cq", "team-a");
    assert_field_str(x, "flavors", "main: cpu=on-demand");
    assert_field_int(x, "admitted", 1);
    assert_field_int(x, "placed", 1);
    assert_field_int(x, "ended", 2);
    assert_field_str(x, "end", "evicted");
    assert_field_str(x, "evictedBy", "ns1/urgent");
    assert_field_str(x, "reason", "InClusterQueue");
    x = json_object_array_get_idx(a, 1);
    assert_field_double(x, "admitted", 2.5);
    assert_field_double(x, "placed", 2.5);
    assert_field_null(x, "ended");
    assert_field_null(x, "end");
    assert_field_null(x, "evictedBy");
    assert_field_null(x, "reason");

    /* A workload with no history has empty lists. */
    j = json_object_array_get_idx(field(root, "workloads"), 4);
    assert_int_equal(json_object_array_length(field(j, "history")), 0);
    assert_int_equal(json_object_array_length(field(j, "admissions")), 0);
    json_object_put(root);
    unlink(path);
    free(path);
}

static void test_report_empty(void **state)
{
    (void)state;
    struct cluster c;
    memset(&c, 0, sizeof(c));
    char *path = temp_path();
    struct err e = {{0}};
    assert_int_equal(sim_report_write(&c, NULL, NULL, MS(1234), path, &e), 0);
    struct json_object *root = json_object_from_file(path);
    assert_non_null(root);
    assert_int_equal(json_object_object_length(root), 5);
    assert_field_double(root, "endTime", 1.234);
    assert_int_equal(json_object_array_length(field(root, "workloads")), 0);
    assert_int_equal(json_object_array_length(field(root, "clusterQueues")), 0);
    assert_int_equal(json_object_array_length(field(root, "leftOut")), 0);
    json_object_put(root);
    unlink(path);
    free(path);
}

/* leftOut: the queued workloads podDefaulting leaves out, as given. */
static void test_report_left_out(void **state)
{
    (void)state;
    struct cluster c;
    memset(&c, 0, sizeof(c));
    char *path = temp_path();
    struct err e = {{0}};
    struct json_object *lo = json_tokener_parse(
        "[{\"kind\":\"Job\",\"namespace\":\"web\",\"name\":\"j\","
        "\"queue\":\"main\",\"reason\":\"its namespace web is not "
        "selected by managedJobsNamespaceSelector\"}]");
    assert_non_null(lo);
    assert_int_equal(sim_report_write(&c, NULL, lo, 0, path, &e), 0);
    json_object_put(lo);
    struct json_object *root = json_object_from_file(path);
    assert_non_null(root);
    struct json_object *v = field(root, "leftOut");
    assert_int_equal(json_object_array_length(v), 1);
    struct json_object *x = json_object_array_get_idx(v, 0);
    assert_string_equal(json_object_get_string(field(x, "name")), "j");
    assert_string_equal(json_object_get_string(field(x, "queue")), "main");
    json_object_put(root);
    unlink(path);
    free(path);
}

static void test_report_error(void **state)
{
    struct fixture *fx = *state;
    struct err e = {{0}};
    assert_int_equal(sim_report_write(&fx->c, NULL, NULL, 0,
                                      "/nonexistent-ordo-dir/r.json", &e),
                     -ENOENT);
    assert_string_equal(e.msg, "/nonexistent-ordo-dir/r.json: No such file or "
                               "directory");

    /* Write errors show up too (when the data is flushed). */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(
            sim_report_write(&fx->c, NULL, NULL, 0, "/dev/full", &e), -ENOSPC);
        assert_string_equal(e.msg, "/dev/full: No space left on device");
    }
}

/* ---- summary ------------------------------------------------------------- */

static char *summary(const struct cluster *c, int64_t end_ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    sim_summary_print(m, c, end_ns);
    fclose(m);
    return buf;
}

static void test_summary(void **state)
{
    struct fixture *fx = *state;
    /* Counted per ClusterQueue by its index into cqs_v, and found by
     * search where the index does not point at it (a stale one, or none
     * as in a cluster built by hand): the same table each way. The pod
     * without a queue has a row of its own: the rows add up to 5. */
    const uint32_t index[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (int k = 0; k < 3; k++) {
        fx->cq_a.index = index[k][0];
        fx->cq_b.index = index[k][1];
        char *out = summary(&fx->c, S(65));
        assert_string_equal(
            out,
            "CLUSTERQUEUE        PENDING  ADMITTED  FINISHED  USAGE (of "
            "nominal)\n"
            "team-a                    1         1         1  cpu 1500m/10 "
            "(on-demand), memory 1Gi/64Gi (on-demand), cpu 0/20 (spot), "
            "memory 0/32Gi (spot)\n"
            "team-b                    0         1         0  cpu 3/4 (spot), "
            "pods 3/10 (spot)\n"
            "(no ClusterQueue)         1         0         0  -\n"
            "workloads: 5 (2 pending, 2 admitted, 1 finished), end time "
            "1m05s\n");
        free(out);
    }
}

static void test_summary_durations(void **state)
{
    struct fixture *fx = *state;
    static const struct {
        int64_t ns;
        const char *want;
    } cases[] = {
        {0, "end time 0s\n"},
        {MS(250), "end time 250ms\n"},
        {S(12) + MS(500), "end time 12.5s\n"},
        {S(45), "end time 45s\n"},
        {S(59) + MS(999) + 600000, "end time 1m00s\n"},
        {S(3723), "end time 1h02m03s\n"},
        {S(90000), "end time 25h00m00s\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = summary(&fx->c, cases[i].ns);
        const char *tail = strstr(out, "end time ");
        assert_non_null(tail);
        assert_string_equal(tail, cases[i].want);
        free(out);
    }
}

static void test_summary_long_name(void **state)
{
    struct fixture *fx = *state;
    struct cluster c;
    memset(&c, 0, sizeof(c));
    struct cq *v[1] = {&fx->cq_a};
    fx->cq_a.name = "a-very-long-queue-name";
    c.cqs_v = v;
    c.n_cqs = 1;
    char *out = summary(&c, 0);
    assert_string_equal(
        out, "CLUSTERQUEUE             PENDING  ADMITTED  FINISHED  USAGE (of "
             "nominal)\n"
             "a-very-long-queue-name         0         0         0  cpu "
             "1500m/10 (on-demand), memory 1Gi/64Gi (on-demand), cpu 0/20 "
             "(spot), memory 0/32Gi (spot)\n"
             "workloads: 0 (0 pending, 0 admitted, 0 finished), end time 0s\n");
    free(out);
}

/* ---- plots --------------------------------------------------------------- */

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *temp_dir(void)
{
    char *dir = strdup("/tmp/test_sim_output_XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static char *join(const char *dir, const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static void test_plot(void **state)
{
    struct fixture *fx = *state;
    char *base = temp_dir();
    char *dir = join(base, "plots"); /* created by sim_plot_write */
    struct err e = {{0}};
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(65), dir, &e), 0);
    /* Again: the directory exists, the files are replaced. */
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(65), dir, &e), 0);

    /* Files by place in name order; the names inside. */
    char *a_path = join(dir, "usage-1-team-a.svg");
    char *b_path = join(dir, "usage-2-team-b.svg");
    char *t_path = join(dir, "timeline.svg");
    char *i_path = join(dir, "index.html");
    char *a = slurp(a_path), *b = slurp(b_path), *t = slurp(t_path);
    char *ix = slurp(i_path);

    assert_true(strncmp(a, "<svg", 4) == 0);
    assert_contains(a, "<title>ClusterQueue team-a: usage of nominal "
                       "quota</title>");
    assert_contains(a, "ClusterQueue team-a: usage of nominal quota</text>");
    assert_contains(a, "stroke-dasharray"); /* nominal at 100% */
    assert_contains(a, "on-demand / cpu: nominal 10, peak 1500m (15%)");
    assert_contains(a, "on-demand / memory: nominal 64Gi, peak 1Gi (2%)");
    assert_contains(a, "spot / cpu: nominal 20, peak 1 (5%)");
    assert_contains(a, "spot / memory: nominal 32Gi, peak 0 (0%)");
    assert_contains(a, "old / cpu: nominal 0, peak 500m");
    assert_contains(a, "time (s)");
    assert_contains(a, "usage (% of nominal)");
    assert_contains(a, "100%</text>");
    assert_int_equal(count(a, "<path "), 5);
    assert_true(strstr(a, "gone") == NULL);
    assert_true(strcmp(a + strlen(a) - 7, "</svg>\n") == 0);

    assert_true(strncmp(b, "<svg", 4) == 0);
    assert_contains(b, "ClusterQueue team-b");
    assert_contains(b, "spot / pods: nominal 10, peak 3 (30%)");
    /* 75% peak: the axis still reaches past 100%. */
    assert_contains(b, "spot / cpu: nominal 4, peak 3 (75%)");

    assert_true(strncmp(t, "<svg", 4) == 0);
    assert_contains(t, "ns2/group&amp;x");
    assert_true(strstr(t, "group&x") == NULL);
    assert_contains(t, "admitted to team-a");
    assert_contains(t, "admitted to team-b");
    assert_contains(t, "ns1/job-a (finished, team-a): created 1s, admitted "
                       "3s, finished 63s</title>");
    assert_contains(t, "ns1/js (admitted, team-b): created 0.25s, admitted "
                       "10s, evictions 1</title>");
    assert_int_equal(count(t, "<g>"), N_WL);
    /* Rows by creation time, then name. */
    const char *order[N_WL] = {">ns1/job-b<", ">ns2/group&amp;x<", ">ns1/js<",
                               ">ns1/job-a<", ">ns3/lonely<"};
    const char *prev = t;
    for (int i = 0; i < N_WL; i++) {
        const char *p = strstr(t, order[i]);
        assert_non_null(p);
        assert_true(p > prev);
        prev = p;
    }

    assert_contains(ix, "<a href=\"timeline.svg\">");
    assert_contains(ix, "<tr><td>team-a</td><td><a href=\"usage-1-team-a.svg\">"
                        "usage-1-team-a.svg</a></td></tr>");
    assert_contains(ix, "<tr><td>team-b</td><td><a href=\"usage-2-team-b.svg\">"
                        "usage-2-team-b.svg</a></td></tr>");

    free(a);
    free(b);
    free(t);
    free(ix);
    assert_int_equal(unlink(a_path), 0);
    assert_int_equal(unlink(b_path), 0);
    assert_int_equal(unlink(t_path), 0);
    assert_int_equal(unlink(i_path), 0);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(rmdir(base), 0);
    free(a_path);
    free(b_path);
    free(t_path);
    free(i_path);
    free(dir);
    free(base);
}

/* A valid ClusterQueue name of 252 characters (four DNS labels) is longer
 * than a file name may be: the file gets a short name, the SVG and the
 * index the full one; characters a file name should not have become '_'. */
static void test_plot_long_name(void **state)
{
    struct fixture *fx = *state;
    char name[253];
    memset(name, 'a', 63);
    name[63] = '.';
    memset(name + 64, 'b', 63);
    name[127] = '.';
    memset(name + 128, 'c', 63);
    name[191] = '.';
    memset(name + 192, 'd', 60);
    name[252] = '\0';
    assert_int_equal(strlen(name), 252);
    fx->cq_a.name = name;
    fx->cq_b.name = "team b/&more";
    char *dir = temp_dir();
    struct err e = {{0}};
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(65), dir, &e), 0);

    char want[128];
    snprintf(want, sizeof(want), "usage-1-%.40s.svg", name);
    char *a_path = join(dir, want);
    char *b_path = join(dir, "usage-2-team_b__more.svg");
    char *t_path = join(dir, "timeline.svg");
    char *i_path = join(dir, "index.html");
    char *a = slurp(a_path), *b = slurp(b_path), *ix = slurp(i_path);
    char *title = NULL;
    assert_true(asprintf(&title,
                         "<title>ClusterQueue %s: usage of nominal "
                         "quota</title>",
                         name) > 0);
    assert_contains(a, title);
    assert_contains(b, "<title>ClusterQueue team b/&amp;more: usage");
    char *row = NULL;
    assert_true(
        asprintf(&row, "<tr><td>%s</td><td><a href=\"%s\">", name, want) > 0);
    assert_contains(ix, row);
    assert_contains(ix, "<tr><td>team b/&amp;more</td><td><a "
                        "href=\"usage-2-team_b__more.svg\">");

    free(title);
    free(row);
    free(a);
    free(b);
    free(ix);
    assert_int_equal(unlink(a_path), 0);
    assert_int_equal(unlink(b_path), 0);
    assert_int_equal(unlink(t_path), 0);
    assert_int_equal(unlink(i_path), 0);
    assert_int_equal(rmdir(dir), 0);
    free(a_path);
    free(b_path);
    free(t_path);
    free(i_path);
    free(dir);
}

static void test_plot_empty(void **state)
{
    (void)state;
    struct cluster c;
    memset(&c, 0, sizeof(c));
    char *dir = temp_dir();
    struct err e = {{0}};
    assert_int_equal(sim_plot_write(&c, NULL, 0, dir, &e), 0);
    char *t_path = join(dir, "timeline.svg");
    char *t = slurp(t_path);
    assert_true(strncmp(t, "<svg", 4) == 0);
    assert_contains(t, "no workloads");
    char *i_path = join(dir, "index.html");
    char *ix = slurp(i_path);
    assert_contains(ix, "<a href=\"timeline.svg\">");
    assert_true(strstr(ix, "<td>") == NULL);
    free(t);
    free(ix);
    assert_int_equal(unlink(t_path), 0);
    assert_int_equal(unlink(i_path), 0);
    assert_int_equal(rmdir(dir), 0);
    free(t_path);
    free(i_path);
    free(dir);
}

static void test_plot_error(void **state)
{
    struct fixture *fx = *state;
    char *file = temp_path();
    char *dir = join(file, "plots");
    struct err e = {{0}};
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(1), dir, &e),
                     -ENOTDIR);
    char *want = NULL;
    assert_true(asprintf(&want, "%s: Not a directory", dir) > 0);
    assert_string_equal(e.msg, want);

    /* A file where the directory should be: the first file fails. */
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(1), file, &e),
                     -ENOTDIR);
    free(want);
    assert_true(
        asprintf(&want, "%s/usage-1-team-a.svg: Not a directory", file) > 0);
    assert_string_equal(e.msg, want);

    free(want);
    unlink(file);
    free(dir);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_report_history, setup, teardown),
        cmocka_unit_test(test_report_empty),
        cmocka_unit_test(test_report_left_out),
        cmocka_unit_test_setup_teardown(test_report_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_durations, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_summary_long_name, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_long_name, setup, teardown),
        cmocka_unit_test(test_plot_empty),
        cmocka_unit_test_setup_teardown(test_plot_error, setup, teardown),
    };
    return cmocka_run_group_tests_name("sim_output", tests, NULL,
                                       group_teardown);
}
