/* sim.c - the simulated cluster: loading the manifests, a virtual clock,
 * kubelets, and the scheduler acting through the sim backend (see sim.h).
 * The event heap is in sim_events.c, the simulator's records of pods in
 * sim_pods.c, the emulated Job/JobSet controllers in sim_jobs.c,
 * --sim-check in sim_check.c.
 *
 * Times are int64 nanoseconds; every sum saturates at INT64_MAX, an
 * instant that never comes, and the clock never goes back. */
#include "sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "grow.h"
#include "log.h"
#include "manifest.h"
#include "resid.h"
#include "sim_int.h"

/* ---- the backend ---------------------------------------------------------- */

static int sim_bind(void *data, const struct pod *p, const struct node *n)
{
    struct sim *sm = data;
    LOG_V(3, "bind pod=\"%s\" node=\"%s\"", p->key, n->name);
    struct sim_pod *sp = sim_pod_find(sm, p->key);
    return sp ? sim_pod_started(sm, sp, n->name) : -ENOENT;
}

/* The kubelet deletes an evicted pod at once (sim_pod_evicted). */
static int sim_evict(void *data, const struct pod *p)
{
    struct sim *sm = data;
    LOG_V(3, "evict pod=\"%s\"", p->key);
    struct sim_pod *sp = sim_pod_find(sm, p->key);
    return sp ? sim_pod_evicted(sm, sp) : -ENOENT;
}

/* The emulated Job/JobSet controllers read whether the workload is
 * suspended, which the cycle cleared: they look at it again. */
static int sim_resume(void *data, const struct workload *w)
{
    struct sim *sm = data;
    LOG_V(2, "resume job wl=\"%s\"", w->key);
    struct sim_job *j = sim_job_find(sm, w->key);
    return j ? sim_job_mark(sm, j) : 0;
}

static const struct backend_ops sim_backend = {
    .bind = sim_bind, .evict = sim_evict, .resume = sim_resume};

/* Object o (with shadow, the controller's copy of a Job or JobSet)
 * arrives at the current time: pods through sim_pod_add, the rest as they
 * are. An object that exists already is updated. */
static int arrive(struct sim *sm, struct object *o, struct object *shadow)
{
    char key[512];
    enum object_kind kind = o->kind;
    object_key(o, key, sizeof(key));
    if (kind == OBJ_POD) {
        object_free(shadow);
        return sim_pod_add(sm, o, 0);
    }
    /* Virtual time: an object is created when it arrives, whatever
     * creationTimestamp an exported manifest carries. */
    o->meta.has_creation = true;
    o->meta.creation_ns = sm->now_ns;
    int r = scheduler_object_added(sm->s, o);
    if (r == -EEXIST) {
        LOG_W("%s %s exists already; the second one is ignored",
              object_kind_name(kind), key);
        r = 0;
    } else if (r == 0 && shadow) {
        return sim_job_put(sm, shadow);
    }
    object_free(shadow);
    return r;
}

/* ---- history and progress -------------------------------------------------
 */

/* Samples the usage of the ClusterQueues whose usage changed since the
 * last instant (cq_charge marks them): one sample per (flavor, resource)
 * whose value moved. */
static int record_usage(struct sim *sm)
{
    const struct cq **changed = NULL;
    uint32_t n_changed = 0;
    int ret = scheduler_take_usage_changed(sm->s, &changed, &n_changed);
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
                    if (GROW_ARRAY(h->samples, h->n, h->cap) < 0) {
                        ret = -ENOMEM;
                        break;
                    }
                    h->samples[h->n++] = (struct usage_sample){
                        sm->now_ns, q->name, grp->flavors[f]->name,
                        res,        u,       grp->nominal[f * grp->n_res + r]};
                }
            }
        }
    }
    free((void *)changed);
    return ret;
}

static void progress(struct sim *sm, bool final)
{
    if (!sm->tty)
        return;
    const struct cluster *c = scheduler_cluster(sm->s);
    size_t pending = 0, admitted = 0, finished = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        pending += w->state == WL_PENDING;
        admitted += w->state == WL_ADMITTED;
        finished += w->state == WL_FINISHED;
    }
    size_t total = sm->processed + sm->heap.n;
    unsigned pct = total ? (unsigned)(sm->processed * 100 / total) : 100;
    if (final)
        pct = 100;
    char bar[31], t[64];
    for (unsigned i = 0; i < 30; i++)
        bar[i] = i < pct * 30 / 100 ? '=' : ' ';
    bar[30] = '\0';
    fprintf(stderr,
            "\r[%s] %3u%%  t=%-12s pending %zu  admitted %zu  finished %zu ",
            bar, pct, duration_format(sm->now_ns, t, sizeof(t)), pending,
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

/* The controllers' own copies of the Jobs and JobSets of set (same
 * manifests, loaded again): their pods point into these, which outlive
 * the scheduler's objects. shadows[i] is set[i]'s, or NULL. */
static int load_shadows(struct manifest_set *set, char **paths, int n_paths,
                        struct object ***ret)
{
    struct manifest_set again;
    manifest_set_init(&again);
    int r = 0;
    for (int i = 0; r == 0 && i < n_paths; i++)
        r = manifest_load_path(&again, paths[i], NULL, NULL) == -ENOMEM
                ? -ENOMEM
                : 0;
    struct object **v = calloc(set->n ? set->n : 1, sizeof(*v));
    if (!v || (r == 0 && again.n != set->n))
        r = r ? r : -EIO; /* the manifests changed under us */
    for (size_t i = 0; r == 0 && i < set->n; i++) {
        struct object *o = again.objects[i];
        if (o->kind != set->objects[i]->kind)
            r = -EIO;
        else if (o->kind == OBJ_JOB || o->kind == OBJ_JOBSET) {
            v[i] = o;
            again.objects[i] = NULL;
        }
    }
    if (r < 0) {
        for (size_t i = 0; v && i < set->n; i++)
            object_free(v[i]);
        free(v);
        v = NULL;
    }
    manifest_set_release(&again);
    *ret = v;
    return r;
}

static int load(struct sim *sm, char **paths, int n_paths)
{
    struct manifest_set set;
    struct object **shadows = NULL;
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
    if (r == 0 && (r = load_shadows(&set, paths, n_paths, &shadows)) == -EIO)
        fprintf(stderr, "ordo-scheduler: --sim: the manifests changed while "
                        "they were read\n");
    /* Pushed by kind rank, in manifest order within a rank, so that what
     * arrives together is filed with what it refers to first; the heap
     * keeps this order (seq) among events of the same time. */
    for (int rank = 0; rank <= 6; rank++)
        for (size_t i = 0; r == 0 && i < set.n; i++) {
            struct object *o = set.objects[i];
            if (!o || kind_rank(o->kind) != rank)
                continue;
            struct sim_event ev = {.t_ns = arrival[i],
                                   .type = EV_ARRIVE,
                                   .obj = o,
                                   .shadow = shadows[i]};
            r = sim_heap_push(&sm->heap, ev);
            if (r == 0)
                set.objects[i] = shadows[i] = NULL;
        }
    for (size_t i = 0; shadows && i < set.n; i++)
        object_free(shadows[i]);
    free(shadows);
    free(arrival);
    for (size_t i = 0; i < set.n; i++)
        object_free(set.objects[i]);
    set.n = 0;
    manifest_set_release(&set);
    return r;
}

/* Controllers, then the scheduler, until nothing moves: an instant is
 * over when a round admits nothing and makes no pods. */
static int settle(struct sim *sm)
{
    struct scheduler_stats st;
    int round, r;
    for (round = 0; round < 1000; round++) {
        if ((r = sim_reconcile(sm)) < 0)
            return r;
        scheduler_get_stats(sm->s, &st);
        uint64_t before = st.admissions;
        size_t pods = sm->pods_added;
        if ((r = scheduler_run(sm->s)) < 0 || (r = sim_reconcile(sm)) < 0)
            return r;
        scheduler_get_stats(sm->s, &st);
        if (st.admissions == before && sm->pods_added == pods)
            break;
    }
    if (round == 1000) {
        char when[64];
        LOG_W("t=%s: the instant did not settle after 1000 rounds of "
              "controllers and scheduling (a preemption loop?)",
              duration_format(sm->now_ns, when, sizeof(when)));
        if (sm->opt->check)
            sm->violations++;
    }
    return 0;
}

static int sim_loop(struct sim *sm)
{
    const struct sim_options *opt = sm->opt;
    int r = 0;
    while (sm->heap.n) {
        int64_t t = sm->heap.v[0].t_ns;
        if (!opt->until_idle && t > opt->until_ns)
            break;
        if (scheduler_clock(sm->s, t) < 0) {
            /* Every event is pushed at or after now: a bug if not. */
            char a[64], b[64];
            fprintf(stderr,
                    "ordo-scheduler: internal error: the virtual clock would "
                    "go back from %s to %s\n",
                    duration_format(sm->now_ns, a, sizeof(a)),
                    duration_format(t, b, sizeof(b)));
            return -EPROTO;
        }
        sm->now_ns = t;
        while (sm->heap.n && sm->heap.v[0].t_ns == t) {
            struct sim_event ev = sim_heap_pop(&sm->heap);
            sm->processed++;
            if (ev.type == EV_ARRIVE)
                r = arrive(sm, ev.obj, ev.shadow);
            else if (ev.pod->state == SP_RUNNING && ev.pod->run == ev.run)
                r = sim_pod_done(sm, ev.pod);
            if (r < 0)
                return r;
        }
        if ((r = settle(sm)) < 0 || (r = record_usage(sm)) < 0)
            return r;
        if (opt->check)
            sm->violations +=
                sim_check_invariants(&sm->check, scheduler_cluster(sm->s));
        if (sm->processed % 64 == 0)
            progress(sm, false);
    }
    if (!opt->until_idle && opt->until_ns > sm->now_ns) {
        sm->now_ns = opt->until_ns;
        return scheduler_clock(sm->s, sm->now_ns);
    }
    return 0;
}

int sim_run(const struct sched_config *cfg, struct plugin_registry *plugins,
            char **paths, int n_paths, const struct sim_options *opt)
{
    struct sim sm = {.opt = opt, .check = {.out = stderr}};
    struct err e;
    int r = scheduler_new(cfg, plugins, &sim_backend, &sm, &sm.s);
    sm.tty = opt->progress && isatty(STDERR_FILENO);
    if (r == 0)
        r = load(&sm, paths, n_paths);
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
        const struct cluster *c = scheduler_cluster(sm.s);
        progress(&sm, true);
        FILE *out = opt->out ? opt->out : stdout;
        sim_summary_print(out, c, sm.now_ns);
        if (opt->report &&
            sim_report_write(c, sm.ran, sm.now_ns, opt->report, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --report: %s\n", e.msg);
            r = -EIO;
        }
        if (r == 0 && opt->plot_dir &&
            sim_plot_write(c, &sm.history, sm.now_ns, opt->plot_dir, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --plot: %s\n", e.msg);
            r = -EIO;
        }
    }
    sim_heap_release(&sm.heap);
    free(sm.history.samples);
    sim_last_values_free(&sm.last);
    sim_checker_release(&sm.check);
    /* The scheduler first: the pods the controllers made point into their
     * records. */
    scheduler_free(sm.s);
    sim_records_release(&sm);
    return r;
}
