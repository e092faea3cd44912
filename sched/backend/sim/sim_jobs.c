/* sim_jobs.c - the simulator's emulated Job and JobSet controllers: they
 * make a workload's pods from its templates, the next ones until its
 * completions, replacements for evicted ones, give back the quota of pods
 * that will not run again (Kueue's reclaimablePods) and finish workloads.
 *
 * They read the pod counts the cluster keeps per pod set and per JobSet
 * child (pod_set_state), and look only at workloads that changed since they
 * last did (cluster_take_changed): a round costs what changed, not what
 * exists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sim_int.h"
#include "workload.h"

/* A pod as the Job (or JobSet) controller creates it from a template, in
 * one allocation with its owner reference and name. Its labels and
 * annotations are the template's maps, and its strings point into the
 * owner, which outlives it; only the request list is its own (object_free
 * releases it). */
struct made_pod {
    struct object obj; /* first: object_free() frees the block */
    struct owner_ref owner;
    char name[];
};

static struct object *make_pod(const struct object *owner,
                               const struct object_meta *tmeta,
                               const struct pod_spec *tspec, const char *name)
{
    size_t len = strlen(name) + 1;
    struct made_pod *m = calloc(1, sizeof(*m) + len);
    if (!m)
        return NULL;
    struct object *o = &m->obj;
    o->kind = OBJ_POD;
    o->api_version = "v1";
    o->file = owner->file;
    o->line = owner->line;
    memcpy(m->name, name, len);
    o->meta.name = m->name;
    o->meta.namespace_ = owner->meta.namespace_;
    o->meta.labels = tmeta->labels;
    o->meta.annotations = tmeta->annotations;
    o->u.pod.spec = *tspec;
    o->u.pod.spec.node_name = NULL;
    resource_list_init(&o->u.pod.spec.requests);
    if (resource_list_copy(&o->u.pod.spec.requests, &tspec->requests) < 0) {
        free(m);
        return NULL;
    }
    if (owner->kind == OBJ_JOB) {
        m->owner = (struct owner_ref){"batch/v1", "Job", owner->meta.name,
                                      owner->meta.uid, true};
        o->meta.owners = &m->owner;
        o->meta.n_owners = 1;
    }
    return o;
}

/* The JobSet controller labels the pod template of replicated job r (once)
 * with the JobSet and replicated job names, which its pods then share. */
static int label_jobset_template(struct object *jobset,
                                 struct replicated_job *r)
{
    struct strmap *l = &r->spec.template.meta.labels;
    const char *js = strmap_get(l, LABEL_JOBSET_NAME);
    const char *rj = strmap_get(l, LABEL_REPLICATED_JOB);
    if (js && rj && strcmp(js, jobset->meta.name) == 0 &&
        strcmp(rj, r->name) == 0)
        return 0;
    if (strmap_set(l, jobset->arena, LABEL_JOBSET_NAME, jobset->meta.name) <
            0 ||
        strmap_set(l, jobset->arena, LABEL_REPLICATED_JOB, r->name) < 0)
        return -ENOMEM;
    return 0;
}

/* Completions a pod set needs: a Job's completions (or its parallelism),
 * a JobSet's replicas x completions (64 bits: that product can pass 2^32). */
static uint64_t podset_target(const struct workload *w, uint32_t ps)
{
    if (w->kind == WL_JOB) {
        const struct job_spec *js = &w->top->u.job.spec;
        return js->has_completions ? (uint32_t)js->completions
                                   : (uint32_t)js->parallelism;
    }
    if (w->kind == WL_JOBSET) {
        const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
        uint64_t per = rj->spec.has_completions
                           ? (uint32_t)rj->spec.completions
                           : (uint32_t)rj->spec.parallelism;
        return per * (uint32_t)rj->replicas;
    }
    return w->podsets[ps].count;
}

/* Completions one child Job of JobSet pod set ps needs. */
static uint32_t child_completions(const struct workload *w, uint32_t ps)
{
    const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
    return rj->spec.has_completions ? (uint32_t)rj->spec.completions
                                    : (uint32_t)rj->spec.parallelism;
}

/* Pods of pod set ps that will never be needed again: count minus the
 * completions still to come. */
static uint32_t podset_reclaimable(const struct workload *w, uint32_t ps)
{
    const struct podset *s = &w->podsets[ps];
    if (w->kind == WL_JOBSET) {
        /* Kueue (JobSet.ReclaimablePods): parallelism pods per child Job
         * that succeeded; a running child gives nothing back. */
        const struct replicated_job *rj = &w->top->u.jobset.replicated_jobs[ps];
        uint32_t completions = child_completions(w, ps), done = 0;
        for (uint32_t j = 0; j < s->n_children; j++)
            done += s->child_succeeded[j] >= completions;
        uint64_t n = (uint64_t)done * (uint32_t)rj->spec.parallelism;
        return n < s->count ? (uint32_t)n : s->count;
    }
    uint64_t target = podset_target(w, ps), succeeded = s->n_succeeded;
    uint64_t left = succeeded < target ? target - succeeded : 0;
    return left < s->count ? s->count - (uint32_t)left : 0;
}

/* The JobSet controller for replicated job ps: each child Job keeps
 * min(parallelism, completions left) pods until its completions. */
static int reconcile_jobset(struct sim *sm, struct workload *w, uint32_t ps)
{
    struct replicated_job *r = &w->top->u.jobset.replicated_jobs[ps];
    const struct podset *s = &w->podsets[ps];
    uint32_t parallelism = (uint32_t)r->spec.parallelism;
    uint32_t completions = child_completions(w, ps);
    if (s->n_children == 0)
        return 0; /* no pods to run (parallelism or replicas 0) */
    int ret = label_jobset_template(w->top, r);
    for (uint32_t j = 0; j < s->n_children && ret == 0; j++) {
        /* Read before making pods: they are counted for child j as they
         * are filed. */
        uint32_t done = w->podsets[ps].child_succeeded[j];
        uint32_t active = w->podsets[ps].child_active[j];
        uint32_t left = done < completions ? completions - done : 0;
        uint32_t want = left < parallelism ? left : parallelism;
        for (uint32_t a = active; a < want && ret == 0; a++) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%s-%zu", w->top->meta.name,
                     r->name, w->n_pods);
            struct object *pod = make_pod(w->top, &r->spec.template.meta,
                                          &r->spec.template.spec, name);
            if (!pod) {
                ret = -ENOMEM;
                break;
            }
            size_t before = w->n_pods;
            ret = sim_add(sm, pod);
            if (ret == 0 && w->n_pods > before)
                workload_set_pod_child(w, w->pods[w->n_pods - 1], j);
        }
    }
    return ret;
}

/* The Job/JobSet controller: keeps `count` pods running until the pod set
 * has its completions; a finished workload releases its quota. A workload
 * above WORKLOAD_PODS_MAX gets no pods. */
static int reconcile(struct sim *sm, struct workload *w)
{
    if (w->state == WL_FINISHED)
        return 0;
    bool done = true;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        uint64_t target = podset_target(w, ps), succeeded = s->n_succeeded;
        uint32_t active = s->n_pending + s->n_bound;
        if (succeeded < target)
            done = false;
        /* A suspended job's controller makes no pods, nor does that of
         * a workload above the cap (it is never admitted). */
        if ((w->kind != WL_JOB && w->kind != WL_JOBSET) || w->suspended ||
            w->over_cap)
            continue;
        if (w->kind == WL_JOBSET) {
            int r = reconcile_jobset(sm, w, ps);
            if (r < 0)
                return r;
            continue;
        }
        uint64_t left = succeeded < target ? target - succeeded : 0;
        uint32_t want = left < s->count ? (uint32_t)left : s->count;
        /* A Job: count pods at a time until its completions. */
        const struct pod_template *tpl = &w->top->u.job.spec.template;
        while (active < want) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%zu", w->top->meta.name,
                     w->n_pods);
            struct object *pod = make_pod(w->top, &tpl->meta, &tpl->spec, name);
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
    /* Kueue: a group is done when group-total-count of its pods succeeded
     * (replacements of evicted ones included). */
    if (w->kind == WL_POD_GROUP)
        done = w->pods_succeeded >= w->group_total;
    if (done && w->n_pods > 0) {
        workload_finish(&sm->s.cluster, w);
        LOG_V(2, "workload finished wl=\"%s\"", w->key);
    }
    return 0;
}

int sim_reconcile_changed(struct sim *sm)
{
    struct workload **v = NULL;
    size_t n = 0;
    int r = cluster_take_changed(&sm->s.cluster, &v, &n);
    for (size_t i = 0; r == 0 && i < n; i++)
        r = reconcile(sm, v[i]);
    free(v);
    return r;
}
