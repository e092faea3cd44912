/* sim.c - the simulated cluster: a virtual clock, an event queue, emulated
 * Job/JobSet controllers and kubelets, and the scheduler acting through the
 * sim backend (see sim.h). */
#include "sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "duration.h"
#include "log.h"
#include "manifest.h"
#include "resid.h"
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

struct last_value {
    char *key;
    int64_t usage;
    uint64_t tree_gen; /* check_node: the tree the usage was read from */
    UT_hash_handle hh;
};

struct sim {
    struct scheduler s;
    const struct sim_options *opt;
    struct sim_event *heap;
    size_t n_heap, cap_heap;
    uint64_t seq;
    size_t processed;
    struct sim_history history;
    struct last_value *last;
    struct last_value *checked; /* usage at the last invariant check */
    bool tty;
    size_t violations;
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

/* ---- emulated controllers ---------------------------------------------------
 */

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

static int copy_strmap(struct arena *a, struct strmap *dst,
                       const struct strmap *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (strmap_set(dst, a, src->items[i].key, src->items[i].value) < 0)
            return -ENOMEM;
    return 0;
}

/* A pod as the Job (or JobSet) controller creates it from a template. Its
 * strings point into the owner, which outlives it. */
static struct object *make_pod(const struct object *owner,
                               const struct object_meta *tmeta,
                               const struct pod_spec *tspec, const char *name,
                               const char *rj_name)
{
    struct object *o = calloc(1, sizeof(*o));
    if (!o || !(o->arena = arena_new()))
        goto oom;
    o->kind = OBJ_POD;
    o->api_version = "v1";
    o->file = owner->file;
    o->line = owner->line;
    o->meta.name = arena_strdup(o->arena, name);
    o->meta.namespace_ = owner->meta.namespace_;
    o->u.pod.spec = *tspec;
    o->u.pod.spec.node_name = NULL;
    resource_list_init(&o->u.pod.spec.requests);
    if (!o->meta.name ||
        resource_list_copy(&o->u.pod.spec.requests, &tspec->requests) < 0 ||
        copy_strmap(o->arena, &o->meta.labels, &tmeta->labels) < 0 ||
        copy_strmap(o->arena, &o->meta.annotations, &tmeta->annotations) < 0)
        goto oom;
    if (owner->kind == OBJ_JOB) {
        o->meta.owners = arena_calloc(o->arena, 1, sizeof(*o->meta.owners));
        if (!o->meta.owners)
            goto oom;
        o->meta.owners[0] = (struct owner_ref){
            "batch/v1", "Job", owner->meta.name, owner->meta.uid, true};
        o->meta.n_owners = 1;
    } else if (strmap_set(&o->meta.labels, o->arena, LABEL_JOBSET_NAME,
                          owner->meta.name) < 0 ||
               strmap_set(&o->meta.labels, o->arena, LABEL_REPLICATED_JOB,
                          rj_name) < 0) {
        goto oom;
    }
    return o;
oom:
    object_free(o);
    return NULL;
}

/* Pods of pod set ps that are not finished, and that succeeded. */
static void podset_counts(const struct workload *w, uint32_t ps,
                          uint32_t *ret_active, uint32_t *ret_succeeded)
{
    *ret_active = *ret_succeeded = 0;
    for (size_t i = 0; i < w->n_pods; i++) {
        if (w->pods[i]->podset != ps)
            continue;
        if (w->pods[i]->state == PODSTATE_SUCCEEDED)
            (*ret_succeeded)++;
        else if (w->pods[i]->state != PODSTATE_FAILED)
            (*ret_active)++;
    }
}

/* Completions a pod set needs: a Job's completions (or its parallelism),
 * a JobSet's replicas x completions. */
static uint32_t podset_target(const struct workload *w, uint32_t ps)
{
    if (w->kind == WL_JOB) {
        const struct job_spec *js = &w->top->u.job.spec;
        return js->has_completions ? (uint32_t)js->completions
                                   : (uint32_t)js->parallelism;
    }
    if (w->kind == WL_JOBSET) {
        const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
        uint32_t per = rj->spec.has_completions
                           ? (uint32_t)rj->spec.completions
                           : (uint32_t)rj->spec.parallelism;
        return per * (uint32_t)rj->replicas;
    }
    return w->podsets[ps].count;
}

static int sim_add(struct sim *sm, struct object *o);

/* A JobSet's replicated job ps is `replicas` child Jobs, each making
 * `parallelism` pods at a time until `completions` of them succeeded. */
struct child_counts {
    uint32_t replicas, parallelism, completions;
    uint32_t *active, *succeeded; /* per child */
};

static int child_counts(const struct workload *w, uint32_t ps,
                        struct child_counts *ret)
{
    const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
    ret->replicas = (uint32_t)rj->replicas;
    ret->parallelism = (uint32_t)rj->spec.parallelism;
    ret->completions = rj->spec.has_completions ? (uint32_t)rj->spec.completions
                                                : ret->parallelism;
    ret->active = calloc(ret->replicas + 1, sizeof(uint32_t));
    ret->succeeded = calloc(ret->replicas + 1, sizeof(uint32_t));
    if (!ret->active || !ret->succeeded) {
        free(ret->active);
        free(ret->succeeded);
        return -ENOMEM;
    }
    for (size_t i = 0; i < w->n_pods; i++) {
        const struct pod *p = w->pods[i];
        if (p->podset != ps || p->child >= ret->replicas)
            continue;
        if (p->state == PODSTATE_SUCCEEDED)
            ret->succeeded[p->child]++;
        else if (p->state != PODSTATE_FAILED)
            ret->active[p->child]++;
    }
    return 0;
}

static void child_counts_release(struct child_counts *cc)
{
    free(cc->active);
    free(cc->succeeded);
}

/* Pods of pod set ps that will never be needed again: count minus the
 * completions still to come. */
static uint32_t podset_reclaimable(const struct workload *w, uint32_t ps)
{
    if (w->kind == WL_JOBSET) {
        /* Kueue (JobSet.ReclaimablePods): parallelism pods per child Job
         * that succeeded; a running child gives nothing back. */
        struct child_counts cc;
        if (child_counts(w, ps, &cc) < 0)
            return w->podsets[ps].reclaimable;
        uint32_t n = 0;
        for (uint32_t j = 0; j < cc.replicas; j++)
            if (cc.succeeded[j] >= cc.completions)
                n += cc.parallelism;
        child_counts_release(&cc);
        return n < w->podsets[ps].count ? n : w->podsets[ps].count;
    }
    uint32_t active, succeeded, target = podset_target(w, ps);
    podset_counts(w, ps, &active, &succeeded);
    uint32_t left = succeeded < target ? target - succeeded : 0;
    return left < w->podsets[ps].count ? w->podsets[ps].count - left : 0;
}

/* The JobSet controller for replicated job ps: each child Job keeps
 * min(parallelism, completions left) pods until its completions. */
static int reconcile_jobset(struct sim *sm, struct workload *w, uint32_t ps)
{
    const struct replicated_job *r = &w->top->u.jobset.replicated_jobs[ps];
    struct child_counts cc;
    if (child_counts(w, ps, &cc) < 0)
        return -ENOMEM;
    int ret = 0;
    for (uint32_t j = 0; j < cc.replicas && ret == 0; j++) {
        uint32_t left = cc.succeeded[j] < cc.completions
                            ? cc.completions - cc.succeeded[j]
                            : 0;
        uint32_t want = left < cc.parallelism ? left : cc.parallelism;
        for (uint32_t a = cc.active[j]; a < want && ret == 0; a++) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%s-%zu", w->top->meta.name,
                     r->name, w->n_pods);
            struct object *pod =
                make_pod(w->top, &r->spec.template.meta, &r->spec.template.spec,
                         name, r->name);
            if (!pod) {
                ret = -ENOMEM;
                break;
            }
            size_t before = w->n_pods;
            ret = sim_add(sm, pod);
            if (ret == 0 && w->n_pods > before)
                w->pods[w->n_pods - 1]->child = j;
        }
    }
    child_counts_release(&cc);
    return ret;
}

/* The Job/JobSet controller: keeps `count` pods running until the pod set
 * has its completions; a finished workload releases its quota. */
static int reconcile(struct sim *sm, struct workload *w)
{
    if (w->state == WL_FINISHED)
        return 0;
    bool done = true;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        uint32_t active, succeeded, target = podset_target(w, ps);
        podset_counts(w, ps, &active, &succeeded);
        if (succeeded < target)
            done = false;
        if ((w->kind != WL_JOB && w->kind != WL_JOBSET) || w->suspended)
            continue; /* a suspended job's controller makes no pods */
        if (w->kind == WL_JOBSET) {
            int r = reconcile_jobset(sm, w, ps);
            if (r < 0)
                return r;
            continue;
        }
        uint32_t left = succeeded < target ? target - succeeded : 0;
        uint32_t want =
            left < w->podsets[ps].count ? left : w->podsets[ps].count;
        /* A Job: count pods at a time until its completions. */
        const struct pod_template *tpl = &w->top->u.job.spec.template;
        while (active < want) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%zu", w->top->meta.name,
                     w->n_pods);
            struct object *pod =
                make_pod(w->top, &tpl->meta, &tpl->spec, name, NULL);
            if (!pod)
                return -ENOMEM;
            int r = sim_add(sm, pod);
            if (r < 0)
                return r;
            active++;
        }
    }
    /* Kueue's reclaimablePods: pods of an admitted Job that will not run
     * again (its last wave is smaller) give their quota back. */
    if (w->state == WL_ADMITTED && w->admitted_cq) {
        bool changed = false;
        for (uint32_t ps = 0; ps < w->n_podsets; ps++)
            changed |= podset_reclaimable(w, ps) != w->podsets[ps].reclaimable;
        if (changed) {
            cq_charge(w->admitted_cq, w, -1);
            for (uint32_t ps = 0; ps < w->n_podsets; ps++)
                w->podsets[ps].reclaimable = podset_reclaimable(w, ps);
            cq_charge(w->admitted_cq, w, 1);
            cluster_wake_parked(&sm->s.cluster);
        }
    }
    if (w->kind == WL_POD_GROUP) {
        /* Kueue: a group is done when group-total-count of its pods
         * succeeded (replacements of evicted ones included). */
        uint32_t ok = 0;
        for (size_t i = 0; i < w->n_pods; i++)
            ok += w->pods[i]->state == PODSTATE_SUCCEEDED;
        done = ok >= w->group_total;
    }
    if (done && w->n_pods > 0) {
        workload_finish(&sm->s.cluster, w);
        LOG_V(2, "workload finished wl=\"%s\"", w->key);
    }
    return 0;
}

static int64_t pod_runtime(const struct pod *p, bool *ret_forever)
{
    const char *v = strmap_get(&p->obj->meta.annotations, ANNOT_SIM_RUNTIME);
    if (!v && p->wl)
        v = strmap_get(&p->wl->top->meta.annotations, ANNOT_SIM_RUNTIME);
    int64_t ns = 0;
    *ret_forever = !v || duration_parse(v, &ns) < 0;
    return ns;
}

/* A pod starts running on its node: schedule its end. */
static int pod_started(struct sim *sm, struct pod *p)
{
    bool forever;
    int64_t run = pod_runtime(p, &forever);
    if (forever)
        return 0;
    struct sim_event ev = {.t_ns = sm->s.cluster.now_ns + run,
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
 * which the cycle cleared: nothing else to do. */
static int sim_resume(void *data, struct workload *w)
{
    (void)data;
    LOG_V(2, "resume job wl=\"%s\"", w->key);
    return 0;
}

static const struct backend_ops sim_backend = {
    .bind = sim_bind, .evict = sim_evict, .resume = sim_resume};

/* Files an object in the cluster at the current time. */
static int sim_add(struct sim *sm, struct object *o)
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
    p->state = PODSTATE_SUCCEEDED;
    if (p->node)
        node_charge(p->node, p, -1);
    /* Capacity came free: parked workloads may fit now. */
    cluster_wake_parked(c);
}

/* ---- invariants (--sim-check) --------------------------------------------- */

static void violation(struct sim *sm, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(struct sim *sm, size_t *n, const char *fmt, ...)
{
    char t[64], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "invariant violated at t=%s: %s\n",
            duration_format(sm->s.cluster.now_ns, t, sizeof(t)), msg);
    (*n)++;
}

/* A node's usage above what it can hold is a violation only when it grew
 * since the last check: lowering a quota below what is admitted is the
 * admin's doing (Kueue lets that usage stay), admitting past it is not.
 * When the tree was rebuilt since (queues changed: a Cohort moved, a
 * ClusterQueue left its cohort), usage may land on a node without any
 * admission: growth then counts from the rebuilt tree's baseline. */
static void check_node(struct sim *sm, size_t *n, const struct qnode *nd)
{
    const struct qtree *t = &sm->s.cluster.tree;
    if (nd->in_cycle)
        return;
    for (uint32_t i = 0; i < t->n_fr; i++) {
        int64_t use = qnode_usage(nd, (int)i);
        int64_t cap = qtree_potential_available(nd, (int)i);
        char key[600];
        snprintf(key, sizeof(key), "%s\n%s\n%s\n%s", nd->cq ? "cq" : "co",
                 nd->name, t->frs[i].flavor->name, resid_name(t->frs[i].res));
        struct last_value *lv = NULL;
        HASH_FIND_STR(sm->checked, key, lv);
        const struct cluster *c = &sm->s.cluster;
        int64_t before =
            lv && lv->tree_gen == c->tree_gen ? lv->usage : nd->baseline[i];
        if (use > cap && use > before)
            violation(sm, n, "%s %s: %s in flavor %s used %lld > limit %lld",
                      nd->cq ? "ClusterQueue" : "cohort", nd->name,
                      resid_name(t->frs[i].res), t->frs[i].flavor->name,
                      (long long)use, (long long)cap);
        if (!lv) {
            lv = calloc(1, sizeof(*lv));
            if (!lv || !(lv->key = strdup(key))) {
                free(lv);
                continue; /* out of memory: checked from zero next time */
            }
            HASH_ADD_KEYPTR(hh, sm->checked, lv->key, strlen(lv->key), lv);
        }
        lv->usage = use;
        lv->tree_gen = sm->s.cluster.tree_gen;
    }
}

/* What must hold whenever the scheduler is done with an instant: no node
 * over allocatable, no ClusterQueue or cohort over its limits, every
 * admitted workload bound as a whole, no preemptor left waiting for
 * victims it did not get (nobody preempted for nothing). */
static size_t check_invariants(struct sim *sm)
{
    struct cluster *c = &sm->s.cluster;
    const struct qtree *t = &c->tree;
    size_t n = 0;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        const struct node *nd = c->nodes_v[i];
        for (int32_t id = 0; id < nd->n_ids; id++)
            if (nd->used[id] > nd->alloc[id])
                violation(sm, &n, "node %s: %s used %lld > allocatable %lld",
                          nd->name, resid_name(id), (long long)nd->used[id],
                          (long long)nd->alloc[id]);
    }
    /* Every ClusterQueue and cohort within what it could ever hold. */
    struct qnode *co, *cotmp;
    for (uint32_t q = 0; q < t->n_cq; q++)
        check_node(sm, &n, t->cq_nodes[q]);
    HASH_ITER(hh, t->cohorts, co, cotmp)
    check_node(sm, &n, co);
    bool any_evicting = false;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    any_evicting |= w->evicting;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        if (w->preempting && w->state == WL_PENDING && !any_evicting)
            violation(sm, &n,
                      "workload %s preempted others and is still pending: %s",
                      w->key, w->reason);
        if (w->state != WL_ADMITTED)
            continue;
        for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
            uint32_t bound = 0;
            for (size_t i = 0; i < w->n_pods; i++)
                bound += w->pods[i]->podset == ps &&
                         w->pods[i]->state == PODSTATE_BOUND;
            uint32_t want = w->podsets[ps].count - w->podsets[ps].reclaimable;
            if (bound > w->podsets[ps].count)
                violation(sm, &n,
                          "workload %s pod set %s: %u pods bound, admitted "
                          "for %u",
                          w->key, w->podsets[ps].name, bound,
                          w->podsets[ps].count);
            else if (w->admitted_ns == c->now_ns && bound < want)
                violation(sm, &n,
                          "workload %s pod set %s admitted with %u of %u "
                          "pods bound",
                          w->key, w->podsets[ps].name, bound, want);
        }
    }
    return n;
}

/* ---- history and progress -------------------------------------------------
 */

static int record_usage(struct sim *sm)
{
    struct cluster *c = &sm->s.cluster;
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        const struct cq *q = c->cqs_v[i];
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            for (uint32_t f = 0; f < grp->n_flavors; f++) {
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
                            return -ENOMEM;
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
                        if (!v)
                            return -ENOMEM;
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
    return 0;
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
    /* Pushed by kind rank, in manifest order within a rank, so that what
     * arrives together is filed with what it refers to first; the heap
     * keeps this order (seq) among events of the same time. */
    for (int rank = 0; rank <= 6; rank++)
        for (size_t i = 0; r == 0 && i < set.n; i++) {
            struct object *o = set.objects[i];
            if (!o || kind_rank(o->kind) != rank)
                continue;
            const char *v = strmap_get(&o->meta.annotations, ANNOT_SIM_ARRIVAL);
            int64_t at = 0;
            if (v && duration_parse(v, &at) < 0) {
                char key[512];
                fprintf(stderr,
                        "%s:%u: %s %s: metadata.annotations[%s]: invalid "
                        "duration \"%s\" (e.g. \"90s\", \"1h30m\")\n",
                        o->file, o->line, object_kind_name(o->kind),
                        object_key(o, key, sizeof(key)), ANNOT_SIM_ARRIVAL, v);
                r = -EINVAL;
                break;
            }
            struct sim_event ev = {.t_ns = at, .type = EV_ARRIVE, .obj = o};
            r = heap_push(sm, ev);
            if (r == 0)
                set.objects[i] = NULL;
        }
    for (size_t i = 0; i < set.n; i++)
        object_free(set.objects[i]);
    set.n = 0;
    manifest_set_release(&set);
    return r;
}

static int reconcile_all(struct sim *sm)
{
    struct workload *w, *tmp;
    HASH_ITER(hh, sm->s.cluster.workloads, w, tmp)
    {
        int r = reconcile(sm, w);
        if (r < 0)
            return r;
    }
    return 0;
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
            if ((r = cluster_sync(c)) < 0 || (r = reconcile_all(sm)) < 0)
                return r;
            uint64_t before = sm->s.admissions;
            size_t pods = HASH_COUNT(c->pods);
            if ((r = scheduler_run(&sm->s)) < 0)
                return r;
            if ((r = reconcile_all(sm)) < 0)
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
            sm->violations += check_invariants(sm);
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
    struct sim sm = {.opt = opt};
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
    struct last_value *lv, *tmp;
    HASH_ITER(hh, sm.last, lv, tmp)
    {
        HASH_DEL(sm.last, lv);
        free(lv->key);
        free(lv);
    }
    HASH_ITER(hh, sm.checked, lv, tmp)
    {
        HASH_DEL(sm.checked, lv);
        free(lv->key);
        free(lv);
    }
    /* The plugins belong to the caller. */
    memset(&sm.s.plugins, 0, sizeof(sm.s.plugins));
    scheduler_release(&sm.s);
    return r;
}
