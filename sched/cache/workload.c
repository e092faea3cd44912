/* workload.c - workload assembly (see private/workload.h): Jobs, JobSets,
 * pod groups and single pods become workloads, pods join the workload they
 * belong to. Queueing is in queueing.c. */
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "recover.h"
#include "resid.h"

/* Sets a pod set's count and template: per-pod request as resource ids
 * (its pods' counts stay). */
static int podset_set_spec(struct podset *s, uint32_t count,
                           const struct pod_spec *spec)
{
    free(s->req_ids);
    free(s->req_milli);
    s->count = count;
    s->spec = spec;
    s->n_req = 0;
    size_t n = spec->requests.n;
    s->req_ids = calloc(n ? n : 1, sizeof(*s->req_ids));
    s->req_milli = calloc(n ? n : 1, sizeof(*s->req_milli));
    if (!s->req_ids || !s->req_milli)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        /* Zero requests stay: a resource the ClusterQueue covers gets a
         * flavor all the same (Kueue), one it does not is ignored. */
        const struct resource_entry *e = &spec->requests.items[i];
        int32_t id = resid_intern(e->name);
        if (id < 0)
            return -ENOMEM;
        s->req_ids[s->n_req] = id;
        s->req_milli[s->n_req++] = e->milli;
    }
    return 0;
}

static int podset_init(struct podset *s, const char *name, uint32_t count,
                       const struct pod_spec *spec)
{
    s->name = strdup(name);
    if (!s->name)
        return -ENOMEM;
    return podset_set_spec(s, count, spec);
}

/* Priority: WorkloadPriorityClass label, then the pod template's
 * PriorityClass, then the global default PriorityClass, then 0. */
static int32_t resolve_priority(struct cluster *c, const struct object *top,
                                const struct pod_spec *spec)
{
    const char *wpc = strmap_get(&top->meta.labels, LABEL_PRIORITY_CLASS);
    struct obj_entry *e;
    if (wpc && (e = cluster_find(c->wpcs, wpc)))
        return e->obj->u.workload_priority_class.value;
    if (spec && spec->priority_class_name &&
        (e = cluster_find(c->pcs, spec->priority_class_name)))
        return e->obj->u.priority_class.value;
    if (spec && spec->has_priority)
        return spec->priority;
    /* The global default with the lowest value, as Kubernetes picks. */
    bool found = false;
    int32_t best = 0;
    struct obj_entry *tmp;
    HASH_ITER(hh, c->pcs, e, tmp)
    {
        const struct priority_class *pc = &e->obj->u.priority_class;
        if (pc->global_default && (!found || pc->value < best)) {
            best = pc->value;
            found = true;
        }
    }
    return best;
}

static struct workload *wl_new(struct cluster *c, const char *key,
                               enum wl_kind kind, struct object *top,
                               uint32_t n_podsets)
{
    struct workload *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->key = strdup(key);
    w->ns = strdup(top->meta.namespace_ ? top->meta.namespace_ : "default");
    w->podsets = calloc(n_podsets ? n_podsets : 1, sizeof(*w->podsets));
    w->kind = kind;
    w->top = top;
    w->n_podsets = n_podsets;
    w->created_ns = top->meta.has_creation ? top->meta.creation_ns : c->now_ns;
    w->queue_ns = w->created_ns;
    const char *lq = strmap_get(&top->meta.labels, LABEL_QUEUE_NAME);
    if (lq)
        w->local_queue = strdup(lq);
    if (!w->key || !w->ns || !w->podsets || (lq && !w->local_queue)) {
        workload_free(w);
        return NULL;
    }
    return w;
}

/* New workloads are queued by cluster_sync(), once per batch of events,
 * and looked at by the controllers. */
static int wl_insert(struct cluster *c, struct workload *w)
{
    w->seq = c->next_seq++;
    w->over_cap = w->pods_wanted > WORKLOAD_PODS_MAX;
    HASH_ADD_KEYPTR(hh, c->workloads, w->key, strlen(w->key), w);
    (void)workload_note(c, w, WL_EV_CREATED, NULL, NULL, NULL);
    if (cluster_mark_changed(c, w) < 0)
        return -ENOMEM;
    return cluster_mark_fresh(c, w);
}

static bool template_is_ours(const struct pod_spec *s)
{
    return strcmp(s->scheduler_name, ORDO_SCHEDULER_NAME) == 0;
}

/* A Job that a JobSet made (its controller owner is a JobSet, or it
 * carries the JobSet's name label): the JobSet's workload covers its pods,
 * as Kueue manages only the top object. */
static bool job_of_jobset(const struct object *o)
{
    const struct owner_ref *own = object_meta_controller(&o->meta);
    return (own && strcmp(own->kind, "JobSet") == 0) ||
           strmap_get(&o->meta.labels, LABEL_JOBSET_NAME);
}

static int adopt_orphans(struct cluster *c, struct workload *w);

int workload_add_owner(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct obj_entry **index = o->kind == OBJ_JOB ? &c->jobs : &c->jobsets;
    if (cluster_find(*index, key) || cluster_workload(c, key)) {
        object_free(o);
        return -EEXIST;
    }
    struct obj_entry *e = calloc(1, sizeof(*e));
    if (!e || !(e->key = strdup(key))) {
        free(e);
        object_free(o);
        return -ENOMEM;
    }
    e->obj = o;
    HASH_ADD_KEYPTR(hh, *index, e->key, strlen(e->key), e);

    struct workload *w = NULL;
    if (o->kind == OBJ_JOB) {
        const struct job_spec *js = &o->u.job.spec;
        if (!template_is_ours(&js->template.spec) || job_of_jobset(o)) {
            cluster_orphans_free(cluster_orphans_take(c, key)); /* not ours */
            return 0;
        }
        w = wl_new(c, key, WL_JOB, o, 1);
        if (!w || podset_init(&w->podsets[0], "main", (uint32_t)js->parallelism,
                              &js->template.spec) < 0)
            goto oom;
        w->pods_wanted = (uint32_t)js->parallelism;
        w->priority = resolve_priority(c, o, &js->template.spec);
        w->suspended = w->resumes = js->suspend;
    } else {
        const struct jobset *jset = &o->u.jobset;
        if (jset->n_replicated_jobs == 0 ||
            !template_is_ours(&jset->replicated_jobs[0].spec.template.spec)) {
            cluster_orphans_free(cluster_orphans_take(c, key)); /* not ours */
            return 0;
        }
        w = wl_new(c, key, WL_JOBSET, o, (uint32_t)jset->n_replicated_jobs);
        if (!w)
            goto oom;
        for (size_t i = 0; i < jset->n_replicated_jobs; i++) {
            const struct replicated_job *rj = &jset->replicated_jobs[i];
            /* Both are int32 >= 0: the product fits 64 bits, not 32. */
            uint64_t count =
                (uint64_t)rj->replicas * (uint64_t)rj->spec.parallelism;
            w->pods_wanted += count;
            if (podset_init(&w->podsets[i], rj->name,
                            count > UINT32_MAX ? UINT32_MAX : (uint32_t)count,
                            &rj->spec.template.spec) < 0)
                goto oom;
        }
        /* Kueue takes the first pod set that names a PriorityClass. */
        const struct pod_spec *spec =
            jset->n_replicated_jobs
                ? &jset->replicated_jobs[0].spec.template.spec
                : NULL;
        for (size_t i = 0; i < jset->n_replicated_jobs; i++) {
            const struct pod_spec *t =
                &jset->replicated_jobs[i].spec.template.spec;
            if (t->priority_class_name && t->priority_class_name[0]) {
                spec = t;
                break;
            }
        }
        w->priority = resolve_priority(c, o, spec);
        w->suspended = w->resumes = jset->suspend;
    }
    int r = wl_insert(c, w);
    return r < 0 ? r : adopt_orphans(c, w);
oom:
    workload_free(w);
    return -ENOMEM;
}

static int wl_attach_pod(struct cluster *c, struct workload *w, struct pod *p)
{
    if (GROW_ARRAY(w->pods, w->n_pods, w->cap_pods) < 0)
        return -ENOMEM;
    w->pods[w->n_pods++] = p;
    p->wl = w;
    workload_count_pod(w, p, 1);
    /* Kueue finishes an evicted group one of whose pods said so. */
    const char *v =
        strmap_get(&p->obj->meta.annotations, ANNOT_RETRIABLE_IN_GROUP);
    if (v && strcmp(v, "false") == 0)
        w->not_retriable = true;
    return cluster_mark_changed(c, w);
}

/* The pod set of JobSet workload w that pod p is of: its replicated job's
 * (label jobset.sigs.k8s.io/replicatedjob-name), else the first. */
static void jobset_podset(const struct workload *w, struct pod *p)
{
    const char *rj = strmap_get(&p->obj->meta.labels, LABEL_REPLICATED_JOB);
    for (uint32_t i = 0; rj && i < w->n_podsets; i++)
        if (strcmp(w->podsets[i].name, rj) == 0)
            p->podset = i;
}

/* Finds or creates the workload a pod of ours belongs to. */
static struct workload *wl_for_pod(struct cluster *c, struct pod *p, int *ret)
{
    const struct object *o = p->obj;
    const struct owner_ref *own = object_meta_controller(&o->meta);
    char key[512];
    *ret = 0;
    /* The JobSet label first: a JobSet's pods are owned by its child
     * Jobs, which are not workloads of their own. */
    const char *js = strmap_get(&o->meta.labels, LABEL_JOBSET_NAME);
    if (js || (own && strcmp(own->kind, "Job") == 0)) {
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_,
                 js ? js : own->name);
        struct workload *w = cluster_workload(c, key);
        /* Its owner not known yet (a pod listed before its Job): it is
         * adopted when the owner comes; an owner known and not ours has
         * no workload and never will. */
        struct obj_entry **index = js ? &c->jobsets : &c->jobs;
        if (!w && !cluster_find(*index, key))
            *ret = cluster_orphan_add(c, key, p->key);
        if (w && js)
            jobset_podset(w, p);
        return w;
    }
    const char *group = strmap_get(&o->meta.annotations, ANNOT_POD_GROUP);
    if (!group)
        group = strmap_get(&o->meta.labels, ANNOT_POD_GROUP);
    if (group)
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, group);
    else
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, o->meta.name);
    struct workload *w = cluster_workload(c, key);
    if (w)
        return w;
    uint32_t total = 1;
    if (group) {
        /* Above the cap it stays what it says (it is never admitted). */
        const char *n = strmap_get(&o->meta.annotations, ANNOT_POD_GROUP_COUNT);
        char *end;
        errno = 0;
        long long v = n ? strtoll(n, &end, 10) : 1;
        if (n && *end == '\0' && v > 0 && errno == 0)
            total = v > (long long)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    }
    /* A pod group's pod sets are made as its pods arrive, one per pod
     * shape (podset_for_pod); a single pod is one pod set of one. */
    w = wl_new(c, key, group ? WL_POD_GROUP : WL_POD, p->obj, group ? 0 : 1);
    if (!w || (!group &&
               podset_init(&w->podsets[0], "main", 1, &o->u.pod.spec) < 0)) {
        workload_free(w);
        *ret = -ENOMEM;
        return NULL;
    }
    w->group_total = total;
    w->pods_wanted = total;
    w->priority = resolve_priority(c, o, &o->u.pod.spec);
    if (wl_insert(c, w) < 0) {
        *ret = -ENOMEM;
        return NULL;
    }
    return w;
}

/* Whether two pods of a group have the same shape (Kueue's role hash,
 * reduced to what scheduling uses): requests, node selector, required
 * affinity and tolerations. */
static bool same_shape(const struct pod_spec *a, const struct pod_spec *b)
{
    if (resource_list_cmp(&a->requests, &b->requests) != 0 ||
        a->node_selector.n != b->node_selector.n ||
        a->n_tolerations != b->n_tolerations ||
        !a->required_affinity != !b->required_affinity)
        return false;
    for (size_t i = 0; i < a->node_selector.n; i++) {
        const char *v =
            strmap_get(&b->node_selector, a->node_selector.items[i].key);
        if (!v || strcmp(v, a->node_selector.items[i].value) != 0)
            return false;
    }
    for (size_t i = 0; i < a->n_tolerations; i++) {
        const struct toleration *x = &a->tolerations[i],
                                *y = &b->tolerations[i];
        if (strcmp(x->key, y->key) || strcmp(x->value, y->value) ||
            x->op != y->op || x->effect != y->effect)
            return false;
    }
    return true;
}

/* Puts a pod of a group in the pod set of its shape, making one when it is
 * the first of its shape (while the group is pending). */
static int podset_for_pod(struct workload *w, struct pod *p)
{
    const struct pod_spec *spec = &p->obj->u.pod.spec;
    for (uint32_t i = 0; i < w->n_podsets; i++) {
        if (same_shape(w->podsets[i].spec, spec)) {
            p->podset = i;
            if (w->state == WL_PENDING)
                w->podsets[i].count++;
            return 0;
        }
    }
    if (w->state != WL_PENDING) {
        p->podset = 0; /* shapes are fixed once admitted */
        return 0;
    }
    struct podset *v = realloc(w->podsets, (w->n_podsets + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    w->podsets = v;
    memset(&v[w->n_podsets], 0, sizeof(*v));
    char name[32];
    if (w->n_podsets == 0)
        snprintf(name, sizeof(name), "main");
    else
        snprintf(name, sizeof(name), "main-%u", w->n_podsets + 1);
    if (podset_init(&v[w->n_podsets], name, 1, spec) < 0)
        return -ENOMEM;
    p->podset = w->n_podsets++;
    return 0;
}

/* Pod p (ours, filed) joins workload w. */
static int pod_join(struct cluster *c, struct workload *w, struct pod *p)
{
    if (w->kind == WL_POD_GROUP && podset_for_pod(w, p) < 0)
        return -ENOMEM;
    if (wl_attach_pod(c, w, p) < 0)
        return -ENOMEM;
    if (w->state == WL_ADMITTED && p->state == PODSTATE_PENDING)
        return cluster_mark_straggler(c, w);
    if ((p->state == PODSTATE_BOUND || recover_pod_ran(w, p)) &&
        w->state == WL_PENDING) {
        /* Running before Ordo started (or its pods that ran finished):
         * admitted already; requeue_all infers the flavors and charges the
         * quota. */
        w->state = WL_ADMITTED;
        w->admitted_ns = c->now_ns;
        w->has_admitted = true;
        return cluster_mark_fresh(c, w);
    }
    return 0;
}

/* The pods of Job or JobSet workload w that came before it. O(its pods). */
static int adopt_orphans(struct cluster *c, struct workload *w)
{
    struct pod_orphans *o = cluster_orphans_take(c, w->key);
    int r = 0;
    for (size_t i = 0; o && r == 0 && i < o->n; i++) {
        struct pod *p = cluster_pod(c, o->pods[i]);
        if (!p || p->wl || p->state == PODSTATE_GONE)
            continue; /* gone since, or another's */
        if (w->kind == WL_JOBSET)
            jobset_podset(w, p);
        r = pod_join(c, w, p);
    }
    cluster_orphans_free(o);
    return r;
}

int workload_add_pod(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct pod *p = NULL;
    HASH_FIND_STR(c->pods, key, p);
    if (p)
        return -EEXIST; /* o stays the caller's */
    p = calloc(1, sizeof(*p));
    if (!p || !(p->key = strdup(key)))
        goto oom;
    p->obj = o;
    const struct resource_list *req = &o->u.pod.spec.requests;
    for (size_t i = 0; i < req->n; i++)
        if (resid_intern(req->items[i].name) < 0)
            goto oom;
    int32_t pods_id = resid_intern(RESOURCE_PODS);
    if (pods_id < 0)
        goto oom;
    p->n_ids = resid_count();
    p->request = calloc((size_t)p->n_ids, sizeof(int64_t));
    if (!p->request)
        goto oom;
    for (size_t i = 0; i < req->n; i++)
        p->request[resid_lookup(req->items[i].name)] = req->items[i].milli;
    /* Every pod takes one of its node's "pods". */
    p->request[pods_id] = 1000;
    switch (o->u.pod.phase) {
    case POD_PHASE_SUCCEEDED:
        p->state = PODSTATE_SUCCEEDED;
        break;
    case POD_PHASE_FAILED:
        p->state = PODSTATE_FAILED;
        break;
    default:
        p->state = o->u.pod.spec.node_name ? PODSTATE_BOUND : PODSTATE_PENDING;
    }
    HASH_ADD_KEYPTR(hh, c->pods, p->key, strlen(p->key), p);

    if (p->state == PODSTATE_BOUND) {
        p->node = cluster_node(c, o->u.pod.spec.node_name);
        if (p->node)
            node_charge(p->node, p, 1);
    }
    if (!template_is_ours(&o->u.pod.spec))
        return 0;
    int r = 0;
    struct workload *w = wl_for_pod(c, p, &r);
    if (r < 0)
        return r;
    if (!w)
        return 0; /* owner not (yet) known or not ours */
    return pod_join(c, w, p);
oom:
    if (p) {
        free(p->request);
        free(p->key);
        free(p);
    }
    object_free(o);
    return -ENOMEM;
}

/* ---- changes ------------------------------------------------------------ */

/* The pod set count the spec of Job or JobSet o asks for, ps being a
 * replicated job of a JobSet: a Job's parallelism, replicas x parallelism. */
static uint64_t owner_count(const struct object *o, uint32_t ps)
{
    if (o->kind == OBJ_JOB)
        return (uint32_t)o->u.job.spec.parallelism;
    const struct replicated_job *rj = &o->u.jobset.replicated_jobs[ps];
    return (uint64_t)rj->replicas * (uint64_t)rj->spec.parallelism;
}

static const struct pod_spec *owner_template(const struct object *o,
                                             uint32_t ps)
{
    return o->kind == OBJ_JOB
               ? &o->u.job.spec.template.spec
               : &o->u.jobset.replicated_jobs[ps].spec.template.spec;
}

int workload_apply_spec(struct workload *w)
{
    const struct object *o = w->top;
    w->pods_wanted = 0;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        uint64_t count = owner_count(o, ps);
        w->pods_wanted += count;
        if (podset_set_spec(&w->podsets[ps],
                            count > UINT32_MAX ? UINT32_MAX : (uint32_t)count,
                            owner_template(o, ps)) < 0)
            return -ENOMEM;
    }
    w->over_cap = w->pods_wanted > WORKLOAD_PODS_MAX;
    w->respec = false;
    return 0;
}

bool workload_set_top(struct workload *w, struct object *o)
{
    bool counts = false;
    w->top = o;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        w->podsets[ps].spec = owner_template(o, ps);
        counts |= owner_count(o, ps) != w->podsets[ps].count;
    }
    return counts;
}

void workload_repoint_pod(struct workload *w, const struct object *old,
                          struct object *o)
{
    if (w->top == old)
        w->top = o;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (w->podsets[ps].spec == &old->u.pod.spec)
            w->podsets[ps].spec = &o->u.pod.spec;
}
