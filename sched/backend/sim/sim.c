/* sim.c - the simulated cluster: a virtual clock, an event queue, kubelets,
 * and the scheduler acting through the sim backend (see sim.h). The
 * emulated Job/JobSet controllers are in sim_jobs.c, --sim-check in
 * sim_check.c.
 *
 * Times are int64 nanoseconds; every sum saturates at INT64_MAX, an
 * instant that never comes, and the clock never goes back. */
#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "log.h"
#include "manifest.h"
#include "resid.h"
#include "sim_int.h"
#include "workload.h"

enum sim_event_type { EV_ARRIVE = 0, EV_POD_DONE };

struct sim_event {
    int64_t t_ns;
    uint64_t seq; /* ties: manifest order, then creation order */
    enum sim_event_type type;
    struct object *obj;  /* EV_ARRIVE: owned until filed */
    struct pod *pod;     /* EV_POD_DONE */
    int64_t bound_at_ns; /* EV_POD_DONE: stale when the pod was rebound */
};

/* ---- the event heap (min by time, then seq) ------------------------------ */

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
    return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->seq < b->seq;
}

static int heap_push(struct sim *sm, struct sim_event ev)
{
    if (sm->n_heap == sm->cap_heap) {
        size_t cap = sm->cap_heap ? sm->cap_heap * 2 : 256;
        struct sim_event *v = realloc(sm->heap, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        sm->heap = v;
        sm->cap_heap = cap;
    }
    ev.seq = sm->seq++;
    size_t i = sm->n_heap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &sm->heap[parent]))
            break;
        sm->heap[i] = sm->heap[parent];
        i = parent;
    }
    sm->heap[i] = ev;
    return 0;
}

static struct sim_event heap_pop(struct sim *sm)
{
    struct sim_event top = sm->heap[0];
    struct sim_event last = sm->heap[--sm->n_heap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct sim_event *best = &last;
        if (l < sm->n_heap && ev_before(&sm->heap[l], best)) {
            m = l;
            best = &sm->heap[l];
        }
        if (r < sm->n_heap && ev_before(&sm->heap[r], best))
            m = r;
        if (m == i)
            break;
        sm->heap[i] = sm->heap[m];
        i = m;
    }
    if (sm->n_heap)
        sm->heap[i] = last;
    return top;
}

/* ---- kubelets and the backend ------------------------------------------ */

/* How long a pod runs: its ordo.dev/sim-runtime (its template's), else its
 * workload's top object's; load() checked every one of them. */
static int64_t pod_runtime(const struct pod *p, bool *ret_forever)
{
    const char *v = strmap_get(&p->obj->meta.annotations, ANNOT_SIM_RUNTIME);
    if (!v && p->wl)
        v = strmap_get(&p->wl->top->meta.annotations, ANNOT_SIM_RUNTIME);
    int64_t ns = 0;
    *ret_forever = !v || duration_parse(v, &ns) < 0;
    return ns;
}

/* A pod starts running on its node: schedule its end, unless that is
 * beyond the end of time. */
static int pod_started(struct sim *sm, struct pod *p)
{
    bool forever;
    int64_t run = pod_runtime(p, &forever);
    int64_t end = sim_time_add(sm->s.cluster.now_ns, run);
    if (forever || end == INT64_MAX)
        return 0;
    struct sim_event ev = {.t_ns = end,
                           .type = EV_POD_DONE,
                           .pod = p,
                           .bound_at_ns = p->bound_at_ns};
    return heap_push(sm, ev);
}

static int sim_bind(void *data, struct pod *p, struct node *n)
{
    struct sim *sm = data;
    LOG_V(3, "bind pod=\"%s\" node=\"%s\"", p->key, n->name);
    return pod_started(sm, p);
}

/* The kubelet deletes an evicted pod at once; its Job controller makes a
 * new one at the next reconcile. */
static int sim_evict(void *data, struct pod *p)
{
    struct sim *sm = data;
    LOG_V(3, "evict pod=\"%s\"", p->key);
    if (p->wl)
        snprintf(p->wl->evict_note, sizeof(p->wl->evict_note),
                 "pod %s: deleted", p->key);
    cluster_pod_gone(&sm->s.cluster, p);
    return 0;
}

/* The emulated Job/JobSet controllers read the workload's `suspended`,
 * which the cycle cleared: they look at it again. */
static int sim_resume(void *data, struct workload *w)
{
    struct sim *sm = data;
    LOG_V(2, "resume job wl=\"%s\"", w->key);
    return cluster_mark_changed(&sm->s.cluster, w);
}

static const struct backend_ops sim_backend = {
    .bind = sim_bind, .evict = sim_evict, .resume = sim_resume};

int sim_add(struct sim *sm, struct object *o)
{
    struct cluster *c = &sm->s.cluster;
    char key[512];
    enum object_kind kind = o->kind;
    object_key(o, key, sizeof(key));
    /* Virtual time: an object is created when it arrives, whatever
     * creationTimestamp an exported manifest carries. */
    o->meta.has_creation = true;
    o->meta.creation_ns = c->now_ns;
    int r = cluster_add(c, o);
    if (r == -EEXIST) {
        LOG_W("%s %s exists already; the second one is ignored",
              object_kind_name(kind), key);
        return 0;
    }
    if (r < 0)
        return r;
    if (kind == OBJ_POD) {
        struct pod *p = NULL;
        HASH_FIND_STR(c->pods, key, p);
        if (p && p->state == PODSTATE_BOUND)
            return pod_started(sm, p);
    }
    return 0;
}

static void pod_done(struct sim *sm, struct pod *p)
{
    struct cluster *c = &sm->s.cluster;
    pod_set_state(c, p, PODSTATE_SUCCEEDED);
    if (p->node)
        node_charge(p->node, p, -1);
    /* Capacity came free: parked workloads may fit now. */
    cluster_wake_parked(c);
}

/* ---- history and progress -------------------------------------------------
 */

/* Samples the usage of the ClusterQueues whose usage changed since the
 * last instant (cq_charge marks them): one sample per (flavor, resource)
 * whose value moved. */
static int record_usage(struct sim *sm)
{
    struct cluster *c = &sm->s.cluster;
    struct cq **changed = NULL;
    uint32_t n_changed = 0;
    int ret = cluster_take_usage_changed(c, &changed, &n_changed);
    for (uint32_t i = 0; ret == 0 && i < n_changed; i++) {
        const struct cq *q = changed[i];
        for (uint32_t g = 0; ret == 0 && g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            for (uint32_t f = 0; ret == 0 && f < grp->n_flavors; f++) {
                for (uint32_t r = 0; r < grp->n_res; r++) {
                    const char *res = resid_name(grp->res_ids[r]);
                    int64_t u = grp->usage[f * grp->n_res + r];
                    char key[600];
                    snprintf(key, sizeof(key), "%s\n%s\n%s", q->name,
                             grp->flavors[f]->name, res);
                    struct last_value *lv = NULL;
                    HASH_FIND_STR(sm->last, key, lv);
                    if (lv && lv->usage == u)
                        continue;
                    if (!lv) {
                        lv = calloc(1, sizeof(*lv));
                        if (!lv || !(lv->key = strdup(key))) {
                            free(lv);
                            ret = -ENOMEM;
                            break;
                        }
                        HASH_ADD_KEYPTR(hh, sm->last, lv->key, strlen(lv->key),
                                        lv);
                    }
                    lv->usage = u;
                    struct sim_history *h = &sm->history;
                    if (h->n == h->cap) {
                        size_t cap = h->cap ? h->cap * 2 : 256;
                        struct usage_sample *v =
                            realloc(h->samples, cap * sizeof(*v));
                        if (!v) {
                            ret = -ENOMEM;
                            break;
                        }
                        h->samples = v;
                        h->cap = cap;
                    }
                    h->samples[h->n++] = (struct usage_sample){
                        c->now_ns, q->name, grp->flavors[f]->name,
                        res,       u,       grp->nominal[f * grp->n_res + r]};
                }
            }
        }
    }
    free(changed);
    return ret;
}

static void progress(struct sim *sm, bool final)
{
    if (!sm->tty)
        return;
    struct cluster *c = &sm->s.cluster;
    size_t pending = 0, admitted = 0, finished = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        pending += w->state == WL_PENDING;
        admitted += w->state == WL_ADMITTED;
        finished += w->state == WL_FINISHED;
    }
    size_t total = sm->processed + sm->n_heap;
    unsigned pct = total ? (unsigned)(sm->processed * 100 / total) : 100;
    if (final)
        pct = 100;
    char bar[31], t[64];
    for (unsigned i = 0; i < 30; i++)
        bar[i] = i < pct * 30 / 100 ? '=' : ' ';
    bar[30] = '\0';
    fprintf(stderr,
            "\r[%s] %3u%%  t=%-12s pending %zu  admitted %zu  finished %zu ",
            bar, pct, duration_format(c->now_ns, t, sizeof(t)), pending,
            admitted, finished);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* ---- loading and the main loop ------------------------------------------- */

static void print_error(const struct err *e, void *userdata)
{
    fprintf(stderr, "%s\n", e->msg);
}

/* Order in which objects that arrive together are filed, so that what a
 * thing refers to is there first. */
static int kind_rank(enum object_kind k)
{
    switch (k) {
    case OBJ_NAMESPACE:
    case OBJ_PRIORITY_CLASS:
    case OBJ_WORKLOAD_PRIORITY_CLASS:
    case OBJ_TOPOLOGY:
        return 0;
    case OBJ_RESOURCE_FLAVOR:
    case OBJ_COHORT:
        return 1;
    case OBJ_CLUSTER_QUEUE:
        return 2;
    case OBJ_LOCAL_QUEUE:
        return 3;
    case OBJ_NODE:
        return 4;
    case OBJ_JOB:
    case OBJ_JOBSET:
        return 5;
    default:
        return 6;
    }
}

/* Parses annotation `name` of map m (at field path `at` of object o) as a
 * duration into *ret_ns (left alone when absent); prints why and returns
 * -EINVAL when it is not one. */
static int annotation_duration(const struct object *o, const char *at,
                               const struct strmap *m, const char *name,
                               int64_t *ret_ns)
{
    const char *v = strmap_get(m, name);
    int64_t ns = 0;
    if (!v)
        return 0;
    int r = duration_parse(v, &ns);
    if (r == 0) {
        *ret_ns = ns;
        return 0;
    }
    char key[512];
    fprintf(stderr, "%s:%u: %s %s: %sannotations[%s]: ", o->file, o->line,
            object_kind_name(o->kind), object_key(o, key, sizeof(key)), at,
            name);
    if (r == -ERANGE)
        fprintf(stderr,
                "duration \"%s\" out of range (at most about "
                "2562047h)\n",
                v);
    else
        fprintf(stderr,
                "invalid duration \"%s\" (e.g. \"90s\", "
                "\"1h30m\")\n",
                v);
    return -EINVAL;
}

/* Every ordo.dev/sim-runtime the simulator may read for o's pods: its own,
 * and those of its pod templates. -EINVAL after printing each bad one. */
static int check_runtimes(const struct object *o)
{
    int64_t ns;
    int r = 0;
    if (o->kind != OBJ_POD && o->kind != OBJ_JOB && o->kind != OBJ_JOBSET)
        return 0;
    if (annotation_duration(o, "metadata.", &o->meta.annotations,
                            ANNOT_SIM_RUNTIME, &ns) < 0)
        r = -EINVAL;
    if (o->kind == OBJ_JOB &&
        annotation_duration(o, "spec.template.metadata.",
                            &o->u.job.spec.template.meta.annotations,
                            ANNOT_SIM_RUNTIME, &ns) < 0)
        r = -EINVAL;
    for (size_t i = 0;
         o->kind == OBJ_JOBSET && i < o->u.jobset.n_replicated_jobs; i++) {
        char at[96];
        snprintf(at, sizeof(at),
                 "spec.replicatedJobs[%zu].template.spec.template.metadata.",
                 i);
        const struct replicated_job *rj = &o->u.jobset.replicated_jobs[i];
        if (annotation_duration(o, at, &rj->spec.template.meta.annotations,
                                ANNOT_SIM_RUNTIME, &ns) < 0)
            r = -EINVAL;
    }
    return r;
}

static int load(struct sim *sm, char **paths, int n_paths)
{
    struct manifest_set set;
    manifest_set_init(&set);
    for (int i = 0; i < n_paths; i++)
        if (manifest_load_path(&set, paths[i], print_error, NULL) == -ENOMEM)
            break;
    int r = set.n_errors ? -EINVAL : 0;
    if (r == 0 && set.n == 0) {
        fprintf(stderr, "ordo-scheduler: --sim: no objects in the given "
                        "manifests\n");
        r = -EINVAL;
    }
    /* The simulator's annotations, all of them before anything runs. */
    int64_t *arrival = calloc(set.n ? set.n : 1, sizeof(*arrival));
    if (!arrival)
        r = -ENOMEM;
    for (size_t i = 0; r != -ENOMEM && i < set.n; i++) {
        const struct object *o = set.objects[i];
        if (annotation_duration(o, "metadata.", &o->meta.annotations,
                                ANNOT_SIM_ARRIVAL, &arrival[i]) < 0 ||
            check_runtimes(o) < 0)
            r = -EINVAL;
    }
    /* Pushed by kind rank, in manifest order within a rank, so that what
     * arrives together is filed with what it refers to first; the heap
     * keeps this order (seq) among events of the same time. */
    for (int rank = 0; rank <= 6; rank++)
        for (size_t i = 0; r == 0 && i < set.n; i++) {
            struct object *o = set.objects[i];
            if (!o || kind_rank(o->kind) != rank)
                continue;
            struct sim_event ev = {
                .t_ns = arrival[i], .type = EV_ARRIVE, .obj = o};
            r = heap_push(sm, ev);
            if (r == 0)
                set.objects[i] = NULL;
        }
    free(arrival);
    for (size_t i = 0; i < set.n; i++)
        object_free(set.objects[i]);
    set.n = 0;
    manifest_set_release(&set);
    return r;
}

static int sim_loop(struct sim *sm)
{
    struct cluster *c = &sm->s.cluster;
    const struct sim_options *opt = sm->opt;
    int r = 0;
    while (sm->n_heap) {
        int64_t t = sm->heap[0].t_ns;
        if (!opt->until_idle && t > opt->until_ns)
            break;
        if (t < c->now_ns) {
            /* Every event is pushed at or after now: a bug if not. */
            char a[64], b[64];
            fprintf(stderr,
                    "ordo-scheduler: internal error: the virtual clock would "
                    "go back from %s to %s\n",
                    duration_format(c->now_ns, a, sizeof(a)),
                    duration_format(t, b, sizeof(b)));
            return -EPROTO;
        }
        c->now_ns = t;
        while (sm->n_heap && sm->heap[0].t_ns == t) {
            struct sim_event ev = heap_pop(sm);
            sm->processed++;
            if (ev.type == EV_ARRIVE) {
                r = sim_add(sm, ev.obj);
            } else if (ev.pod->state == PODSTATE_BOUND &&
                       ev.pod->bound_at_ns == ev.bound_at_ns) {
                pod_done(sm, ev.pod);
            }
            if (r < 0)
                return r;
        }
        /* Controllers, then the scheduler, until nothing moves. */
        int round;
        for (round = 0; round < 1000; round++) {
            if ((r = cluster_sync(c)) < 0 ||
                (r = sim_reconcile_changed(sm)) < 0)
                return r;
            uint64_t before = sm->s.admissions;
            size_t pods = HASH_COUNT(c->pods);
            if ((r = scheduler_run(&sm->s)) < 0)
                return r;
            if ((r = sim_reconcile_changed(sm)) < 0)
                return r;
            if (sm->s.admissions == before && HASH_COUNT(c->pods) == pods)
                break;
        }
        if (round == 1000) {
            char when[64];
            LOG_W("t=%s: the instant did not settle after 1000 rounds of "
                  "controllers and scheduling (a preemption loop?)",
                  duration_format(c->now_ns, when, sizeof(when)));
            if (opt->check)
                sm->violations++;
        }
        if ((r = record_usage(sm)) < 0)
            return r;
        if (opt->check)
            sm->violations += sim_check_invariants(&sm->check, c);
        if (sm->processed % 64 == 0)
            progress(sm, false);
    }
    if (!opt->until_idle)
        c->now_ns = opt->until_ns;
    return 0;
}

int sim_run(const struct sched_config *cfg, struct plugin_registry *plugins,
            char **paths, int n_paths, const struct sim_options *opt)
{
    struct sim sm = {.opt = opt, .check = {.out = stderr}};
    struct err e;
    scheduler_init(&sm.s, cfg, &sim_backend, &sm);
    sm.s.plugins = *plugins;
    sm.tty = opt->progress && isatty(STDERR_FILENO);
    int r = load(&sm, paths, n_paths);
    if (r == 0)
        r = sim_loop(&sm);
    if (r == -ENOMEM)
        fprintf(stderr, "ordo-scheduler: out of memory\n");
    if (r == 0 && sm.violations) {
        fprintf(stderr, "ordo-scheduler: %zu invariant violations\n",
                sm.violations);
        r = -EPROTO;
    }
    if (r == 0) {
        progress(&sm, true);
        FILE *out = opt->out ? opt->out : stdout;
        sim_summary_print(out, &sm.s.cluster, sm.s.cluster.now_ns);
        if (opt->report && sim_report_write(&sm.s.cluster, sm.s.cluster.now_ns,
                                            opt->report, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --report: %s\n", e.msg);
            r = -EIO;
        }
        if (r == 0 && opt->plot_dir &&
            sim_plot_write(&sm.s.cluster, &sm.history, sm.s.cluster.now_ns,
                           opt->plot_dir, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --plot: %s\n", e.msg);
            r = -EIO;
        }
    }
    while (sm.n_heap) {
        struct sim_event ev = heap_pop(&sm);
        if (ev.type == EV_ARRIVE)
            object_free(ev.obj);
    }
    free(sm.heap);
    free(sm.history.samples);
    sim_last_values_free(&sm.last);
    sim_checker_release(&sm.check);
    /* The plugins belong to the caller. */
    memset(&sm.s.plugins, 0, sizeof(sm.s.plugins));
    scheduler_release(&sm.s);
    return r;
}
