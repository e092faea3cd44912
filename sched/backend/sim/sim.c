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

#include <json-c/json.h>

#include "arena.h"
#include "duration.h"
#include "grow.h"
#include "log.h"
#include "manifest.h"
#include "resid.h"
#include "sched_metrics.h"
#include "sim_int.h"

/* ---- the backend -------------------------------------------------------- */

static int sim_bind(void *data, const struct pod *p, const struct node *n)
{
    struct sim *sm = data;
    LOG_V(3, "bind pod=\"%s\" node=\"%s\"", p->key, n->name);
    struct sim_pod *sp = sim_pod_find(sm, p->key);
    return sp ? sim_pod_started(sm, sp, p, n->name) : -ENOENT;
}

/* The kubelet deletes an evicted pod at once; its Job controller makes a
 * new one at its next look. */
static int sim_evict(void *data, const struct pod *p)
{
    struct sim *sm = data;
    LOG_V(3, "evict pod=\"%s\"", p->key);
    struct sim_pod *sp = sim_pod_find(sm, p->key);
    if (!sp)
        return -ENOENT;
    int r = scheduler_evict_outcome(sm->s, p->key, "deleted");
    return r < 0 ? r : sim_pod_delete(sm, sp);
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

/* Known pod key was updated: the simulator's record follows what the
 * scheduler made of it (a phase it reached, a node someone bound it to). */
static int pod_updated(struct sim *sm, const char *key)
{
    const struct pod *p = cluster_get_pod(scheduler_cluster(sm->s), key);
    struct sim_pod *sp = sim_pod_find(sm, key);
    if (!p || !sp)
        return 0;
    if (p->state == PODSTATE_BOUND && sp->state == SP_PENDING)
        return sim_pod_started(sm, sp, p, p->node ? p->node->name : NULL);
    if (p->state == PODSTATE_SUCCEEDED && sp->state != SP_DONE)
        return sim_pod_finished(sm, sp, SP_DONE);
    if (p->state == PODSTATE_FAILED && sp->state != SP_GONE)
        return sim_pod_finished(sm, sp, SP_GONE);
    return 0;
}

/* Object o (with shadow, the controller's copy of a Job or JobSet)
 * arrives at the current time: a new one is added, one that exists is
 * updated (its creation time stays). */
static int arrive(struct sim *sm, struct object *o, struct object *shadow)
{
    char key[512];
    enum object_kind kind = o->kind;
    object_key(o, key, sizeof(key));
    const struct object *old =
        cluster_get_object(scheduler_cluster(sm->s), kind, key);
    if (kind == OBJ_POD && !old) {
        sim_copy_release(shadow);
        return sim_pod_add(sm, o, 0);
    }
    /* Virtual time: an object is created when it first arrives, whatever
     * creationTimestamp an exported manifest carries. */
    o->meta.has_creation = true;
    o->meta.creation_ns = old ? old->meta.creation_ns : sm->now_ns;
    int r = old ? scheduler_object_updated(sm->s, o)
                : scheduler_object_added(sm->s, o);
    if (r == -EEXIST || r == -ENOTSUP) {
        LOG_W("%s %s: %s", object_kind_name(kind), key,
              r == -EEXIST ? "a workload of that name exists already; it "
                             "is ignored"
                           : "this change cannot be applied; the object "
                             "stays as it was");
        r = 0;
    } else if (r == 0 && shadow) {
        return sim_job_put(sm, shadow);
    } else if (r == 0 && kind == OBJ_POD) {
        r = pod_updated(sm, key);
    }
    sim_copy_release(shadow);
    return r;
}

/* The node lifecycle: a deleted Node's running pods are deleted (the pod
 * garbage collector's work), then the Node. */
static int delete_node(struct sim *sm, const char *name)
{
    struct sim_pod *sp, *tmp;
    int r = 0;
    HASH_ITER(hh, sm->pods, sp, tmp)
    {
        if (r == 0 && sp->state == SP_RUNNING && sp->ran.node &&
            strcmp(sp->ran.node, name) == 0)
            r = sim_pod_delete(sm, sp);
    }
    return r < 0 ? r : scheduler_object_deleted(sm->s, OBJ_NODE, name);
}

/* ordo.dev/sim-delete: the object of kind and key goes now. */
static int delete_object(struct sim *sm, enum object_kind kind, const char *key)
{
    struct sim_pod *sp;
    LOG_V(2, "delete %s %s", object_kind_name(kind), key);
    switch (kind) {
    case OBJ_NODE:
        return delete_node(sm, key);
    case OBJ_JOB:
    case OBJ_JOBSET:
        return sim_job_delete(sm, kind, key);
    case OBJ_POD:
        sp = sim_pod_find(sm, key);
        return sp ? sim_pod_delete(sm, sp)
                  : scheduler_object_deleted(sm->s, kind, key);
    default:
        return scheduler_object_deleted(sm->s, kind, key);
    }
}

/* ordo.dev/sim-delete-pods: pod `index` of Job key, if it is there. */
static int delete_job_pod(struct sim *sm, const char *key, uint64_t index)
{
    struct sim_job *j = sim_job_find(sm, key);
    if (!j || index >= j->n_pods)
        return 0;
    LOG_V(2, "delete pod %s of %s", j->pods[index]->key, key);
    return sim_pod_delete(sm, j->pods[index]);
}

/* One event of the heap. */
static int handle(struct sim *sm, struct sim_event *ev)
{
    int r = 0;
    switch (ev->type) {
    case EV_ARRIVE:
        r = arrive(sm, ev->obj, ev->shadow);
        break;
    case EV_POD_DONE:
        if (ev->pod->state == SP_RUNNING && ev->pod->run == ev->run)
            r = sim_pod_done(sm, ev->pod);
        break;
    case EV_DELETE:
        r = delete_object(sm, ev->kind, ev->key);
        break;
    case EV_DELETE_POD:
        r = delete_job_pod(sm, ev->key, ev->index);
        break;
    }
    free(ev->key);
    return r;
}

/* ---- history and progress ----------------------------------------------- */

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

/* ---- the main loop ------------------------------------------------------ */

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
            if ((r = handle(sm, &ev)) < 0)
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

/* Log lines carry virtual time (log_set_virtual_clock). */
static long long sim_log_clock(void *data)
{
    const struct sim *sm = data;
    return sm->now_ns;
}

/* --metrics-out FILE: the exposition at the end of the run. 0 or -EIO
 * (printed). */
static int sim_write_metrics(struct sched_metrics *m, const char *path)
{
    FILE *f = fopen(path, "w");
    int r = f ? sched_metrics_write(m, f) : -EIO;
    if (f && fclose(f) != 0)
        r = -EIO;
    if (r < 0)
        fprintf(stderr, "ordo-scheduler: --metrics-out: %s: %s\n", path,
                strerror(errno ? errno : EIO));
    return r;
}

int sim_run(const struct sched_config *cfg, struct plugin_registry *plugins,
            char **paths, int n_paths, const struct sim_options *opt)
{
    struct sim sm = {
        .opt = opt, .check = {.out = stderr}, .rule = &cfg->pod_defaulting};
    struct err e;
    struct sched_metrics *metrics = NULL;
    int r = scheduler_new(cfg, plugins, &sim_backend, &sm, &sm.s);
    if (r == 0 && !(sm.copies = arena_new()))
        r = -ENOMEM;
    /* On the virtual clock (no options): the values are exact. */
    struct sched_metrics_options mo = {
        .no_local_queue_metrics = opt->no_local_queue_metrics};
    if (r == 0 && opt->metrics_out)
        r = sched_metrics_new(sm.s, &mo, &metrics);
    sm.tty = opt->progress && isatty(STDERR_FILENO);
    log_set_virtual_clock(sim_log_clock, &sm);
    if (r == 0)
        r = sim_load(&sm, paths, n_paths);
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
        /* Each output is written whatever became of the others; the plots
         * first, as they make their directory, which may hold the
         * report. */
        if (opt->plot_dir &&
            sim_plot_write(c, &sm.history, sm.now_ns, opt->plot_dir, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --plot: %s\n", e.msg);
            r = -EIO;
        }
        if (opt->report && sim_report_write(c, sm.ran, sm.left_out, sm.now_ns,
                                            opt->report, &e) < 0) {
            fprintf(stderr, "ordo-scheduler: --report: %s\n", e.msg);
            r = -EIO;
        }
        if (opt->metrics_out &&
            sim_write_metrics(metrics, opt->metrics_out) < 0)
            r = -EIO;
        for (size_t i = 0; i < opt->n_explain; i++)
            if (sim_explain(out, stderr, sm.s, sm.ran, opt->explain[i]) < 0 &&
                r == 0)
                r = SIM_UNKNOWN_WORKLOAD;
    }
    log_set_clock(NULL, NULL);
    sim_heap_release(&sm.heap);
    free(sm.history.samples);
    sim_last_values_free(&sm.last);
    sim_checker_release(&sm.check);
    /* The scheduler first: the pods the controllers made point into their
     * records; the metrics, its observer, before it. */
    sched_metrics_free(metrics);
    scheduler_free(sm.s);
    sim_records_release(&sm);
    arena_free(sm.copies);
    json_object_put(sm.left_out);
    return r;
}
