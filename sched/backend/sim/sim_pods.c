/* sim_pods.c - the simulator's records (see sim_int.h): every pod it filed
 * and what became of it, and the counts the Job and JobSet controllers
 * keep of their pods. The scheduler hears of each change through an event
 * of scheduler.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "grow.h"
#include "log.h"
#include "sim_int.h"

struct sim_pod *sim_pod_find(struct sim *sm, const char *key)
{
    struct sim_pod *sp = NULL;
    HASH_FIND_STR(sm->pods, key, sp);
    return sp;
}

struct sim_job *sim_job_find(struct sim *sm, const char *key)
{
    struct sim_job *j = NULL;
    HASH_FIND_STR(sm->jobs, key, j);
    return j;
}

int sim_job_mark(struct sim *sm, struct sim_job *j)
{
    if (j->dirty)
        return 0;
    if (GROW_ARRAY(sm->dirty, sm->n_dirty, sm->cap_dirty) < 0)
        return -ENOMEM;
    sm->dirty[sm->n_dirty++] = j;
    j->dirty = true;
    return 0;
}

static void podsets_free(struct sim_podset *ps, uint32_t n)
{
    for (uint32_t i = 0; ps && i < n; i++) {
        free(ps[i].child_active);
        free(ps[i].child_succeeded);
    }
    free(ps);
}

/* The counts of a job's pod sets, with a JobSet's per child Job. Only a
 * JobSet whose pods are within the cap gets children (above it the
 * controller makes no pods, and replicas may be huge). */
static struct sim_podset *podsets_new(const struct object *o, uint32_t *ret_n)
{
    uint32_t n =
        o->kind == OBJ_JOBSET ? (uint32_t)o->u.jobset.n_replicated_jobs : 1;
    struct sim_podset *ps = calloc(n ? n : 1, sizeof(*ps));
    if (!ps)
        return NULL;
    uint64_t wanted = 0;
    for (uint32_t i = 0; o->kind == OBJ_JOBSET && i < n; i++) {
        const struct replicated_job *rj = &o->u.jobset.replicated_jobs[i];
        wanted += (uint64_t)rj->replicas * (uint64_t)rj->spec.parallelism;
    }
    for (uint32_t i = 0;
         o->kind == OBJ_JOBSET && wanted <= WORKLOAD_PODS_MAX && i < n; i++) {
        const struct replicated_job *rj = &o->u.jobset.replicated_jobs[i];
        uint32_t replicas = (uint32_t)rj->replicas;
        if (replicas == 0 || rj->spec.parallelism == 0)
            continue; /* no pods to run */
        ps[i].child_active = calloc(replicas, sizeof(uint32_t));
        ps[i].child_succeeded = calloc(replicas, sizeof(uint32_t));
        if (!ps[i].child_active || !ps[i].child_succeeded) {
            podsets_free(ps, n);
            return NULL;
        }
        ps[i].n_children = replicas;
    }
    *ret_n = n;
    return ps;
}

int sim_job_put(struct sim *sm, struct object *shadow)
{
    char key[512];
    object_key(shadow, key, sizeof(key));
    struct sim_job *j = sim_job_find(sm, key);
    if (j) {
        /* Pods made from the old copy point into it. */
        if (GROW_ARRAY(sm->old_specs, sm->n_old_specs, sm->cap_old_specs) < 0) {
            sim_copy_release(shadow);
            return -ENOMEM;
        }
        sm->old_specs[sm->n_old_specs++] = j->spec;
        j->spec = shadow;
        return sim_job_mark(sm, j);
    }
    j = calloc(1, sizeof(*j));
    if (!j || !(j->key = strdup(key)) ||
        !(j->ps = podsets_new(shadow, &j->n_podsets))) {
        if (j)
            free(j->key);
        free(j);
        sim_copy_release(shadow);
        return -ENOMEM;
    }
    j->kind = shadow->kind;
    j->spec = shadow;
    j->seq = sm->job_seq++;
    HASH_ADD_KEYPTR(hh, sm->jobs, j->key, strlen(j->key), j);
    return sim_job_mark(sm, j);
}

/* Counts pod sp in its controller's pod set (sign 1) or takes it out (-1),
 * by its state. */
static void job_count(struct sim_pod *sp, int sign)
{
    struct sim_job *j = sp->job;
    if (!j || sp->ran.podset >= j->n_podsets)
        return;
    struct sim_podset *ps = &j->ps[sp->ran.podset];
    uint32_t d = (uint32_t)sign; /* unsigned wrap: +1 or -1 */
    bool child = ps->child_active && sp->child < ps->n_children;
    if (sp->state == SP_PENDING || sp->state == SP_RUNNING) {
        ps->active += d;
        if (child)
            ps->child_active[sp->child] += d;
    } else if (sp->state == SP_DONE && sign > 0) {
        /* Succeeded stays counted: the Job's status says so. */
        ps->succeeded += d;
        if (child)
            ps->child_succeeded[sp->child] += d;
    }
}

/* Moves sp to state s, keeping its controller's counts; the controller
 * looks at its job again. */
static int pod_move(struct sim *sm, struct sim_pod *sp, enum sim_pod_state s)
{
    sm->n_gone += s == SP_GONE && sp->state != SP_GONE;
    /* Deleted while it ran (evicted, its node gone): it runs nowhere now;
     * one that succeeded keeps where it ran. */
    if (s == SP_GONE && sp->state != SP_DONE)
        sp->ran.node = NULL;
    job_count(sp, -1);
    sp->state = s;
    job_count(sp, 1);
    return sp->job && !sp->job->deleted ? sim_job_mark(sm, sp->job) : 0;
}

static int ran_add(struct sim *sm, const char *wl_key, struct sim_pod *sp)
{
    struct sim_ran *r = NULL;
    HASH_FIND_STR(sm->ran, wl_key, r);
    if (!r) {
        r = calloc(1, sizeof(*r));
        if (!r || !(r->key = strdup(wl_key))) {
            free(r);
            return -ENOMEM;
        }
        HASH_ADD_KEYPTR(hh, sm->ran, r->key, strlen(r->key), r);
    }
    if (GROW_ARRAY(r->pods, r->n, r->cap) < 0)
        return -ENOMEM;
    r->pods[r->n++] = &sp->ran;
    return 0;
}

int sim_pod_add(struct sim *sm, struct object *o, uint32_t child)
{
    char key[512];
    object_key(o, key, sizeof(key));
    /* Virtual time: an object is created when it arrives, whatever
     * creationTimestamp an exported manifest carries. */
    o->meta.has_creation = true;
    o->meta.creation_ns = sm->now_ns;
    int r = scheduler_object_added(sm->s, o);
    if (r == -EEXIST) {
        LOG_W("Pod %s exists already; the second one is ignored", key);
        return 0;
    }
    if (r < 0)
        return r;
    sm->pods_added++;
    const struct cluster *c = scheduler_cluster(sm->s);
    const struct pod *p = cluster_get_pod(c, key);
    if (!p)
        return 0;
    /* Only a name whose pod went can come again (a lookup saved per pod
     * while none did). */
    struct sim_pod *sp = sm->n_gone ? sim_pod_find(sm, key) : NULL;
    if (sp) {
        /* A pod of that name again (the old one is gone, or this is an
         * update): a new record; the old one stays where it ran. */
        if (sp->state != SP_GONE)
            return 0;
        if (GROW_ARRAY(sm->old_pods, sm->n_old_pods, sm->cap_old_pods) < 0)
            return -ENOMEM;
        HASH_DEL(sm->pods, sp);
        sm->old_pods[sm->n_old_pods++] = sp;
    }
    sp = calloc(1, sizeof(*sp));
    if (!sp || !(sp->key = strdup(key))) {
        free(sp);
        return -ENOMEM;
    }
    HASH_ADD_KEYPTR(hh, sm->pods, sp->key, strlen(sp->key), sp);
    sp->ran.podset = p->podset;
    sp->child = child;
    switch (p->state) {
    case PODSTATE_PENDING:
        sp->state = SP_PENDING;
        break;
    case PODSTATE_BOUND:
        sp->state = SP_RUNNING;
        break;
    case PODSTATE_SUCCEEDED:
        sp->state = SP_DONE;
        break;
    default:
        sp->state = SP_GONE;
        sm->n_gone++;
    }
    if (p->wl) {
        if (ran_add(sm, p->wl->key, sp) < 0)
            return -ENOMEM;
        if (p->wl->kind == WL_JOB || p->wl->kind == WL_JOBSET)
            sp->job = sim_job_find(sm, p->wl->key);
        if (sp->job && sp->job->deleted)
            sp->job = NULL;
        if (sp->job) {
            struct sim_job *j = sp->job;
            if (GROW_ARRAY(j->pods, j->n_pods, j->cap_pods) < 0)
                return -ENOMEM;
            j->pods[j->n_pods++] = sp;
            job_count(sp, 1);
        }
    }
    /* Running already (spec.nodeName): on the node it names, if any. */
    if (p->state == PODSTATE_BOUND)
        return sim_pod_started(sm, sp, p, p->node ? p->node->name : NULL);
    return 0;
}

/* How long pod key runs: its ordo.dev/sim-runtime (its template's), else
 * its workload's top object's; load() checked every one of them. */
static int64_t pod_runtime(const struct pod *p, bool *ret_forever)
{
    const char *v = strmap_get(&p->obj->meta.annotations, ANNOT_SIM_RUNTIME);
    if (!v && p->wl)
        v = strmap_get(&p->wl->top->meta.annotations, ANNOT_SIM_RUNTIME);
    int64_t ns = 0;
    *ret_forever = !v || duration_parse(v, &ns) < 0;
    return ns;
}

int sim_pod_started(struct sim *sm, struct sim_pod *sp, const struct pod *p,
                    const char *node)
{
    sp->state = SP_RUNNING;
    sp->ran.node = node;
    sp->ran.admission = p->wl ? p->wl->evictions : 0;
    sp->run++;
    /* Its end, unless that is beyond the end of time. */
    bool forever;
    int64_t end = sim_time_add(sm->now_ns, pod_runtime(p, &forever));
    if (forever || end == INT64_MAX)
        return 0;
    struct sim_event ev = {
        .t_ns = end, .type = EV_POD_DONE, .pod = sp, .run = sp->run};
    return sim_heap_push(&sm->heap, ev);
}

int sim_pod_done(struct sim *sm, struct sim_pod *sp)
{
    int r = scheduler_pod_phase(sm->s, sp->key, POD_PHASE_SUCCEEDED);
    if (r < 0 && r != -ENOENT)
        return r;
    return pod_move(sm, sp, SP_DONE);
}

int sim_pod_finished(struct sim *sm, struct sim_pod *sp,
                     enum sim_pod_state state)
{
    return pod_move(sm, sp, state);
}

int sim_pod_delete(struct sim *sm, struct sim_pod *sp)
{
    if (sp->state == SP_GONE)
        return 0;
    int r = scheduler_object_deleted(sm->s, OBJ_POD, sp->key);
    if (r < 0)
        return r;
    /* Its Job controller makes another at its next look. */
    return pod_move(sm, sp, SP_GONE);
}

int sim_job_delete(struct sim *sm, enum object_kind kind, const char *key)
{
    struct sim_job *j = sim_job_find(sm, key);
    if (j && j->kind != kind)
        j = NULL;
    if (j) {
        /* A Job of that name later is another. */
        if (GROW_ARRAY(sm->old_jobs, sm->n_old_jobs, sm->cap_old_jobs) < 0)
            return -ENOMEM;
        HASH_DEL(sm->jobs, j);
        sm->old_jobs[sm->n_old_jobs++] = j;
        j->deleted = true;
    }
    int r = scheduler_object_deleted(sm->s, kind, key);
    /* The garbage collector deletes its pods, finished ones too. */
    for (size_t i = 0; r == 0 && j && i < j->n_pods; i++)
        r = sim_pod_delete(sm, j->pods[i]);
    return r;
}

static void job_free(struct sim_job *j)
{
    sim_copy_release(j->spec);
    podsets_free(j->ps, j->n_podsets);
    free(j->pods);
    free(j->key);
    free(j);
}

void sim_records_release(struct sim *sm)
{
    struct sim_pod *sp, *sptmp;
    HASH_ITER(hh, sm->pods, sp, sptmp)
    {
        HASH_DEL(sm->pods, sp);
        free(sp->key);
        free(sp);
    }
    for (size_t i = 0; i < sm->n_old_pods; i++) {
        free(sm->old_pods[i]->key);
        free(sm->old_pods[i]);
    }
    free(sm->old_pods);
    struct sim_job *j, *jtmp;
    HASH_ITER(hh, sm->jobs, j, jtmp)
    {
        HASH_DEL(sm->jobs, j);
        job_free(j);
    }
    for (size_t i = 0; i < sm->n_old_jobs; i++)
        job_free(sm->old_jobs[i]);
    free(sm->old_jobs);
    struct sim_ran *r, *rtmp;
    HASH_ITER(hh, sm->ran, r, rtmp)
    {
        HASH_DEL(sm->ran, r);
        free(r->pods);
        free(r->key);
        free(r);
    }
    for (size_t i = 0; i < sm->n_old_specs; i++)
        sim_copy_release(sm->old_specs[i]);
    free(sm->old_specs);
    free(sm->dirty);
    sm->old_specs = NULL;
    sm->dirty = NULL;
    sm->old_jobs = NULL;
    sm->old_pods = NULL;
    sm->n_old_specs = sm->n_dirty = sm->n_old_jobs = sm->n_old_pods = 0;
}
