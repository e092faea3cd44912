/* sim_jobs.c - the simulator's emulated Job and JobSet controllers: they
 * make a Job's pods from its template, the next ones until its
 * completions, replacements for deleted ones, and report the Job's status
 * (pods that succeeded, a JobSet's child Jobs that did, completion) as the
 * Kubernetes API would; what that status means for quota and for the
 * workload (Kueue's reclaimablePods, finishing) is the scheduler's to
 * decide.
 *
 * They count their pods in their own records (sim_pods.c) and look only
 * at jobs whose pods changed since they last did: a round costs what
 * changed, not what exists. They read the scheduler's workload only for
 * what Kueue writes on a Job: whether it is suspended, and whether it is
 * Ordo's at all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sim_int.h"

/* A pod as the Job (or JobSet) controller creates it from a template, in
 * one allocation with its owner reference and name. Its labels and
 * annotations are the template's maps, and its strings point into the
 * controller's copy of the owner, which outlives it (sim_records_release
 * runs after the scheduler is freed); only the request list is its own
 * (object_free releases it). */
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

/* Completions one child Job of JobSet pod set ps needs (a Job's own when
 * the job is a Job). */
static uint32_t child_completions(const struct object *o, uint32_t ps)
{
    const struct job_spec *js = o->kind == OBJ_JOB
                                    ? &o->u.job.spec
                                    : &o->u.jobset.replicated_jobs[ps].spec;
    return js->has_completions ? (uint32_t)js->completions
                               : (uint32_t)js->parallelism;
}

/* Completions a pod set needs: a Job's completions (or its parallelism),
 * a JobSet's replicas x completions (64 bits: that product can pass
 * 2^32). */
static uint64_t podset_target(const struct object *o, uint32_t ps)
{
    uint64_t per = child_completions(o, ps);
    return o->kind == OBJ_JOB
               ? per
               : per * (uint32_t)o->u.jobset.replicated_jobs[ps].replicas;
}

/* Deletes the newest pods of pod set ps (child `child` of a JobSet, or any
 * child at or past `child` with `from` set) beyond `want` active ones,
 * pending ones first, as the Job controller does when parallelism goes
 * down. */
static int trim(struct sim *sm, struct sim_job *j, uint32_t ps, uint32_t child,
                bool from, uint32_t active, uint32_t want)
{
    int r = 0;
    for (int pass = 0; pass < 2 && active > want && r == 0; pass++) {
        enum sim_pod_state s = pass == 0 ? SP_PENDING : SP_RUNNING;
        for (size_t i = j->n_pods; i-- > 0 && active > want && r == 0;) {
            struct sim_pod *sp = j->pods[i];
            if (sp->state != s || sp->ran.podset != ps ||
                (j->kind == OBJ_JOBSET &&
                 (from ? sp->child < child : sp->child != child)))
                continue;
            r = sim_pod_delete(sm, sp);
            active--;
        }
    }
    return r;
}

/* The JobSet controller for replicated job ps: each child Job keeps
 * min(parallelism, completions left) pods until its completions. */
static int reconcile_jobset(struct sim *sm, struct sim_job *j, uint32_t ps)
{
    struct object *o = j->spec;
    struct replicated_job *r = &o->u.jobset.replicated_jobs[ps];
    const struct sim_podset *s = &j->ps[ps];
    uint32_t parallelism = (uint32_t)r->spec.parallelism;
    uint32_t completions = child_completions(o, ps);
    if (s->n_children == 0)
        return 0; /* no pods to run (parallelism or replicas 0) */
    int ret = label_jobset_template(o, r);
    /* Children past replicas (the JobSet shrank) keep no pods. */
    if (ret == 0 && s->active)
        ret = trim(sm, j, ps, s->n_children, true, (uint32_t)-1, 0);
    for (uint32_t c = 0; c < s->n_children && ret == 0; c++) {
        /* Read before making pods: they are counted for child c as they
         * are filed. */
        uint32_t done = s->child_succeeded[c];
        uint32_t active = s->child_active[c];
        uint32_t left = done < completions ? completions - done : 0;
        uint32_t want = left < parallelism ? left : parallelism;
        if (active > want)
            ret = trim(sm, j, ps, c, false, active, want);
        for (uint32_t a = active; a < want && ret == 0; a++) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%s-%zu", o->meta.name, r->name,
                     j->n_pods);
            struct object *pod = make_pod(o, &r->spec.template.meta,
                                          &r->spec.template.spec, name);
            ret = pod ? sim_pod_add(sm, pod, c) : -ENOMEM;
        }
    }
    return ret;
}

/* What the status of j says: pods (a Job) or child Jobs (a JobSet) that
 * succeeded, and whether every pod set has its completions. */
static void job_status(const struct sim_job *j, struct job_status *st,
                       int32_t *replicated)
{
    const struct object *o = j->spec;
    bool done = true;
    for (uint32_t ps = 0; ps < j->n_podsets; ps++) {
        const struct sim_podset *s = &j->ps[ps];
        done &= s->succeeded >= podset_target(o, ps);
        if (o->kind != OBJ_JOBSET)
            continue;
        uint32_t completions = child_completions(o, ps), n = 0;
        for (uint32_t c = 0; c < s->n_children; c++)
            n += s->child_succeeded[c] >= completions;
        replicated[ps] = (int32_t)n;
    }
    *st = (struct job_status){
        .complete = done && j->n_pods > 0,
        .succeeded = j->n_podsets ? (int32_t)j->ps[0].succeeded : 0,
        .n_replicated = o->kind == OBJ_JOBSET ? j->n_podsets : 0,
        .replicated_succeeded = replicated,
    };
}

/* The Job/JobSet controller: keeps `parallelism` pods running until the
 * pod set has its completions, then reports the status. A suspended job
 * gets no pods, nor does a workload above WORKLOAD_PODS_MAX (it is never
 * admitted). */
static int reconcile(struct sim *sm, struct sim_job *j)
{
    const struct cluster *c = scheduler_cluster(sm->s);
    const struct workload *w = cluster_get_workload(c, j->key);
    const struct object *o = j->spec;
    if (j->deleted || !w || w->state == WL_FINISHED)
        return 0; /* gone, not Ordo's, or done */
    for (uint32_t ps = 0; ps < j->n_podsets; ps++) {
        if (w->suspended || w->over_cap)
            break;
        if (o->kind == OBJ_JOBSET) {
            int r = reconcile_jobset(sm, j, ps);
            if (r < 0)
                return r;
            continue;
        }
        /* A Job: parallelism pods at a time until its completions. */
        const struct job_spec *js = &o->u.job.spec;
        uint64_t target = podset_target(o, ps), succeeded = j->ps[ps].succeeded;
        uint64_t left = succeeded < target ? target - succeeded : 0;
        uint32_t count = (uint32_t)js->parallelism;
        uint32_t want = left < count ? (uint32_t)left : count;
        if (j->ps[ps].active > want) {
            int r = trim(sm, j, ps, 0, false, j->ps[ps].active, want);
            if (r < 0)
                return r;
        }
        for (uint32_t active = j->ps[ps].active; active < want; active++) {
            char name[512];
            snprintf(name, sizeof(name), "%s-%zu", o->meta.name, j->n_pods);
            struct object *pod =
                make_pod(o, &js->template.meta, &js->template.spec, name);
            int r = pod ? sim_pod_add(sm, pod, 0) : -ENOMEM;
            if (r < 0)
                return r;
        }
    }
    int32_t *replicated =
        calloc(j->n_podsets ? j->n_podsets : 1, sizeof(*replicated));
    if (!replicated)
        return -ENOMEM;
    struct job_status st;
    job_status(j, &st, replicated);
    int r = scheduler_job_status(sm->s, j->kind, j->key, &st);
    free(replicated);
    return r == -ENOENT ? 0 : r;
}

static int cmp_job_seq(const void *a, const void *b)
{
    const struct sim_job *x = *(const struct sim_job *const *)a;
    const struct sim_job *y = *(const struct sim_job *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int sim_reconcile(struct sim *sm)
{
    struct sim_job **v = sm->dirty;
    size_t n = sm->n_dirty;
    int r = 0;
    sm->dirty = NULL;
    sm->n_dirty = sm->cap_dirty = 0;
    for (size_t i = 0; i < n; i++)
        v[i]->dirty = false;
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_job_seq);
    for (size_t i = 0; r == 0 && i < n; i++)
        r = reconcile(sm, v[i]);
    free(v);
    return r;
}
