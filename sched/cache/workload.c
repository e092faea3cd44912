/* workload.c - workload assembly, queue and priority resolution (see
 * workload.h). */
#include "workload.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resid.h"

void workload_set_reason(struct workload *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->reason, sizeof(w->reason), fmt, ap);
    va_end(ap);
}

void workload_free(struct workload *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->n_podsets; i++) {
        free(w->podsets[i].name);
        free(w->podsets[i].req_ids);
        free(w->podsets[i].req_milli);
        free(w->podsets[i].child_active);
        free(w->podsets[i].child_succeeded);
    }
    free(w->podsets);
    free(w->flavors);
    free(w->charges);
    free(w->preempt_assign);
    for (size_t i = 0; w->held_planned && i < w->n_held; i++)
        cluster_planned_pod_free(w->held_pods[i]);
    free(w->held_pods);
    free(w->held_nodes);
    free(w->pods);
    free(w->key);
    free(w->ns);
    free(w->local_queue);
    free(w);
}

static struct workload *find_wl(struct cluster *c, const char *key)
{
    struct workload *w = NULL;
    HASH_FIND_STR(c->workloads, key, w);
    return w;
}

/* Fills a pod set from a pod spec: per-pod request as resource ids. */
static int podset_init(struct podset *s, const char *name, uint32_t count,
                       const struct pod_spec *spec)
{
    s->name = strdup(name);
    s->count = count;
    s->spec = spec;
    size_t n = spec->requests.n;
    s->req_ids = calloc(n ? n : 1, sizeof(*s->req_ids));
    s->req_milli = calloc(n ? n : 1, sizeof(*s->req_milli));
    if (!s->name || !s->req_ids || !s->req_milli)
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
    if (cluster_mark_changed(c, w) < 0)
        return -ENOMEM;
    return cluster_mark_fresh(c, w);
}

/* A JobSet pod set's counters per child Job. Only a pod set that runs pods
 * has children worth counting (replicas x parallelism is within the cap
 * then, so is replicas). */
static int podset_children(struct podset *s, uint32_t replicas,
                           uint32_t parallelism)
{
    if (parallelism == 0 || replicas == 0)
        return 0;
    s->child_active = calloc(replicas, sizeof(uint32_t));
    s->child_succeeded = calloc(replicas, sizeof(uint32_t));
    if (!s->child_active || !s->child_succeeded)
        return -ENOMEM;
    s->n_children = replicas;
    return 0;
}

static bool template_is_ours(const struct pod_spec *s)
{
    return strcmp(s->scheduler_name, ORDO_SCHEDULER_NAME) == 0;
}

int workload_add_owner(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct obj_entry **index = o->kind == OBJ_JOB ? &c->jobs : &c->jobsets;
    if (cluster_find(*index, key) || find_wl(c, key)) {
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
        if (!template_is_ours(&js->template.spec))
            return 0;
        w = wl_new(c, key, WL_JOB, o, 1);
        if (!w || podset_init(&w->podsets[0], "main",
                              (uint32_t)js->parallelism,
                              &js->template.spec) < 0)
            goto oom;
        w->pods_wanted = (uint32_t)js->parallelism;
        w->priority = resolve_priority(c, o, &js->template.spec);
        w->suspended = w->resumes = js->suspend;
    } else {
        const struct jobset *jset = &o->u.jobset;
        if (jset->n_replicated_jobs == 0 ||
            !template_is_ours(&jset->replicated_jobs[0].spec.template.spec))
            return 0;
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
        for (size_t i = 0;
             w->pods_wanted <= WORKLOAD_PODS_MAX && i < jset->n_replicated_jobs;
             i++) {
            const struct replicated_job *rj = &jset->replicated_jobs[i];
            if (podset_children(&w->podsets[i], (uint32_t)rj->replicas,
                                (uint32_t)rj->spec.parallelism) < 0)
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
    return wl_insert(c, w);
oom:
    workload_free(w);
    return -ENOMEM;
}

static int wl_attach_pod(struct cluster *c, struct workload *w, struct pod *p)
{
    if (w->n_pods == w->cap_pods) {
        size_t cap = w->cap_pods ? w->cap_pods * 2 : 8;
        struct pod **v = realloc(w->pods, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        w->pods = v;
        w->cap_pods = cap;
    }
    w->pods[w->n_pods++] = p;
    p->wl = w;
    workload_count_pod(w, p, 1);
    return cluster_mark_changed(c, w);
}

void workload_set_pod_child(struct workload *w, struct pod *p, uint32_t child)
{
    workload_count_pod(w, p, -1);
    p->child = child;
    workload_count_pod(w, p, 1);
}

/* Finds or creates the workload a pod of ours belongs to. */
static struct workload *wl_for_pod(struct cluster *c, struct pod *p, int *ret)
{
    const struct object *o = p->obj;
    const struct owner_ref *own = object_meta_controller(&o->meta);
    char key[512];
    *ret = 0;
    if (own && strcmp(own->kind, "Job") == 0) {
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, own->name);
        return find_wl(c, key);
    }
    const char *js = strmap_get(&o->meta.labels, LABEL_JOBSET_NAME);
    if (js) {
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, js);
        struct workload *w = find_wl(c, key);
        const char *rj = strmap_get(&o->meta.labels, LABEL_REPLICATED_JOB);
        for (uint32_t i = 0; w && rj && i < w->n_podsets; i++)
            if (strcmp(w->podsets[i].name, rj) == 0)
                p->podset = i;
        return w;
    }
    const char *group = strmap_get(&o->meta.annotations, ANNOT_POD_GROUP);
    if (!group)
        group = strmap_get(&o->meta.labels, ANNOT_POD_GROUP);
    if (group)
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, group);
    else
        snprintf(key, sizeof(key), "%s/%s", o->meta.namespace_, o->meta.name);
    struct workload *w = find_wl(c, key);
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
    if (!w ||
        (!group && podset_init(&w->podsets[0], "main", 1, &o->u.pod.spec) < 0)) {
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
        const char *v = strmap_get(&b->node_selector, a->node_selector.items[i].key);
        if (!v || strcmp(v, a->node_selector.items[i].value) != 0)
            return false;
    }
    for (size_t i = 0; i < a->n_tolerations; i++) {
        const struct toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
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

int workload_add_pod(struct cluster *c, struct object *o)
{
    char key[512];
    object_key(o, key, sizeof(key));
    struct pod *p = NULL;
    HASH_FIND_STR(c->pods, key, p);
    if (p) {
        object_free(o);
        return -EEXIST;
    }
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
        p->ran_on = p->node;
        p->bound_at_ns = c->now_ns;
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
    if (w->kind == WL_POD_GROUP && podset_for_pod(w, p) < 0)
        return -ENOMEM;
    if (wl_attach_pod(c, w, p) < 0)
        return -ENOMEM;
    if (w->state == WL_ADMITTED && p->state == PODSTATE_PENDING)
        return cluster_mark_straggler(c, w);
    if (p->state == PODSTATE_BOUND && w->state == WL_PENDING) {
        /* Running before Ordo started: admitted already; requeue_all
         * infers the flavors and charges the quota. */
        w->state = WL_ADMITTED;
        w->admitted_ns = c->now_ns;
        w->has_admitted = true;
        return cluster_mark_fresh(c, w);
    }
    return 0;
oom:
    if (p) {
        free(p->request);
        free(p->key);
        free(p);
    }
    object_free(o);
    return -ENOMEM;
}

bool workload_uses_fr(const struct workload *w, const struct flavor *f,
                      int32_t id)
{
    if (!w->admitted_cq)
        return false;
    for (uint32_t k = 0; k < w->n_charges; k++)
        if (w->charges[k].flavor == f && w->charges[k].res == id &&
            w->charges[k].per_pod > 0)
            return true;
    return false;
}

int workload_record_charges(struct workload *w, const struct cq *q)
{
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    size_t cap = 0, n = 0;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        cap += w->podsets[ps].n_req + 1;
    struct wl_charge *v = calloc(cap ? cap : 1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (uint32_t ps = 0; w->flavors && ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            const struct flavor *f = w->flavors[ps * q->n_groups + g];
            if (!f || cq_group_flavor_index(grp, f) < 0)
                continue;
            for (uint32_t i = 0; i <= s->n_req && n < cap; i++) {
                int32_t id = i < s->n_req ? s->req_ids[i] : pods_id;
                if (cq_group_res_index(grp, id) < 0)
                    continue;
                v[n++] = (struct wl_charge){
                    f, id, ps, i < s->n_req ? s->req_milli[i] : 1000};
            }
        }
    }
    free(w->charges);
    w->charges = v;
    w->n_charges = (uint32_t)n;
    return 0;
}

uint32_t workload_pending_pods(const struct workload *w, uint32_t ps)
{
    return ps < w->n_podsets ? w->podsets[ps].n_pending : 0;
}

bool workload_ready(const struct workload *w)
{
    /* A suspended job has no pods yet: admission resumes it. */
    if (w->suspended)
        return true;
    /* A pod group is complete when all its pods exist (pods that failed or
     * were evicted do not count: replacements take their place). */
    if (w->kind == WL_POD_GROUP && w->n_pods - w->pods_failed < w->group_total)
        return false;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (workload_pending_pods(w, ps) < w->podsets[ps].count)
            return false;
    return true;
}

/* The LocalQueue/ClusterQueue of w, or NULL with the reason set. */
static struct cq *resolve_cq(struct cluster *c, struct workload *w)
{
    char key[512];
    const char *lq = w->local_queue;
    struct obj_entry *e;
    w->ns_mismatch = false;
    if (!lq) {
        snprintf(key, sizeof(key), "%s/default", w->ns);
        if (!cluster_find(c->lqs, key)) {
            workload_set_reason(w, "no queue: label %s not set and no "
                                   "LocalQueue \"default\" in namespace %s",
                                LABEL_QUEUE_NAME, w->ns);
            return NULL;
        }
        /* Kueue writes the default into the job's queue-name label. */
        lq = "default";
        char *copy = strdup(lq);
        if (copy)
            w->local_queue = copy;
    }
    snprintf(key, sizeof(key), "%s/%s", w->ns, lq);
    if (!(e = cluster_find(c->lqs, key))) {
        workload_set_reason(w, "LocalQueue %s doesn't exist", lq);
        return NULL;
    }
    const struct local_queue *l = &e->obj->u.local_queue;
    struct cq *q = cluster_cq(c, l->cluster_queue);
    if (!q) {
        workload_set_reason(w, "ClusterQueue %s doesn't exist",
                            l->cluster_queue);
        return NULL;
    }
    if (l->stop_policy != STOP_POLICY_NONE && w->state == WL_PENDING) {
        workload_set_reason(w, "LocalQueue %s is inactive", lq);
        return NULL;
    }
    const struct label_selector *sel =
        q->obj->u.cluster_queue.namespace_selector;
    /* A Namespace carries kubernetes.io/metadata.name (decode_namespace);
     * one not (yet) known has only that label. */
    struct strmap_entry name_label = {"kubernetes.io/metadata.name", w->ns};
    struct strmap only_name = {.n = 1, .items = &name_label};
    const struct strmap *nsl = &only_name;
    struct obj_entry *ns = cluster_find(c->namespaces, w->ns);
    if (ns)
        nsl = &ns->obj->meta.labels;
    if (!label_selector_matches(sel, nsl) && w->state == WL_PENDING) {
        /* Kueue queues it all the same (it counts as pending there), never
         * as a head: it is inadmissible until the namespace changes, and
         * blocks nothing, StrictFIFO included. */
        workload_set_reason(w, "namespace %s is not selected by ClusterQueue "
                               "%s",
                            w->ns, q->name);
        w->ns_mismatch = true;
        return q;
    }
    if (!q->active && w->state == WL_PENDING) {
        workload_set_reason(w, "ClusterQueue %s is inactive: %s", q->name,
                            q->inactive_reason);
        return q; /* queued, but its CQ admits nothing */
    }
    return q;
}

/* Flavors of a workload that was running before Ordo saw it: per group, the
 * first flavor whose nodeLabels all match the node of a pod of the set. */
static int infer_flavors(struct workload *w, struct cq *q)
{
    free(w->flavors);
    w->flavors = calloc((size_t)w->n_podsets * (q->n_groups ? q->n_groups : 1),
                        sizeof(*w->flavors));
    if (!w->flavors)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct node *node = NULL;
        for (size_t i = 0; i < w->n_pods && !node; i++)
            if (w->pods[i]->podset == ps && w->pods[i]->node)
                node = w->pods[i]->node;
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            struct flavor *pick = grp->n_flavors ? grp->flavors[0] : NULL;
            for (uint32_t f = 0; node && f < grp->n_flavors; f++) {
                const struct flavor *fl = grp->flavors[f];
                if (!fl->obj)
                    continue;
                const struct strmap *nl = &fl->obj->u.resource_flavor.node_labels;
                bool match = true;
                for (size_t k = 0; k < nl->n && match; k++) {
                    const char *v = strmap_get(&node->obj->meta.labels,
                                               nl->items[k].key);
                    match = v && strcmp(v, nl->items[k].value) == 0;
                }
                if (match) {
                    pick = grp->flavors[f];
                    break;
                }
            }
            w->flavors[ps * q->n_groups + g] = pick;
        }
    }
    w->flavor_groups = q->n_groups;
    return 0;
}

/* After a ClusterQueue changed, lays an admitted workload's flavors out by
 * the new resource groups: each group gets the flavor the pod set had
 * that the group lists (none when the group is new to it). */
static int remap_flavors(struct workload *w, const struct cq *q)
{
    uint32_t ng = q->n_groups ? q->n_groups : 1;
    struct flavor **v = calloc((size_t)w->n_podsets * ng, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        for (uint32_t g = 0; g < q->n_groups; g++)
            for (uint32_t k = 0; k < w->flavor_groups; k++) {
                struct flavor *f = w->flavors[ps * w->flavor_groups + k];
                if (f && cq_group_flavor_index(&q->groups[g], f) >= 0) {
                    v[ps * q->n_groups + g] = f;
                    break;
                }
            }
    free(w->flavors);
    w->flavors = v;
    w->flavor_groups = q->n_groups;
    return 0;
}

int workload_requeue_all(struct cluster *c)
{
    for (uint32_t i = 0; i < c->n_busy; i++)
        c->busy[i]->busy = false;
    c->n_busy = 0;
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        struct cq *q = c->cqs_v[i];
        q->n_pending = 0;
        q->n_admitted = 0;
        for (uint32_t g = 0; g < q->n_groups; g++)
            memset(q->groups[g].usage, 0,
                   (size_t)q->groups[g].n_res * q->groups[g].n_flavors *
                       sizeof(int64_t));
        cluster_mark_usage(c, q);
    }
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        w->queued = false;
        if (workload_enqueue(c, w) < 0)
            return -ENOMEM;
    }
    c->n_fresh = 0;
    return 0;
}

/* A workload whose kueue.x-k8s.io/priority-class label names a
 * WorkloadPriorityClass takes its current value (Kueue updates workloads
 * when the class changes). Returns false when the class does not exist:
 * Kueue makes no Workload for such a job until it does. */
static bool refresh_wpc_priority(struct cluster *c, struct workload *w)
{
    const char *wpc = strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS);
    if (!wpc)
        return true;
    struct obj_entry *e = cluster_find(c->wpcs, wpc);
    if (!e)
        return false;
    w->priority = e->obj->u.workload_priority_class.value;
    return true;
}

/* The reason of a workload above WORKLOAD_PODS_MAX, whatever else it
 * waits for. */
static void over_cap_reason(struct workload *w)
{
    workload_set_reason(w,
                        "%s %s has %llu pods; Ordo admits at most %u pods "
                        "per workload",
                        workload_kind_name(w->kind), w->key,
                        (unsigned long long)w->pods_wanted,
                        (unsigned)WORKLOAD_PODS_MAX);
}

int workload_enqueue(struct cluster *c, struct workload *w)
{
    if (w->queued || w->state == WL_FINISHED)
        return 0;
    w->cq = NULL;
    if (!refresh_wpc_priority(c, w) && w->state == WL_PENDING) {
        workload_set_reason(
            w, "WorkloadPriorityClass %s not found",
            strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS));
        if (w->over_cap)
            over_cap_reason(w);
        return 0;
    }
    if (w->state == WL_ADMITTED) {
        struct cq *q = w->admitted_cq;
        if (!q) {
            q = resolve_cq(c, w);
            if (!q)
                return 0; /* running, but no queue to charge */
            w->admitted_cq = q;
            /* Its controller now sees a queue to give quota back to. */
            if (infer_flavors(w, q) < 0 || cluster_mark_changed(c, w) < 0)
                return -ENOMEM;
        }
        if (w->flavors && remap_flavors(w, q) < 0)
            return -ENOMEM;
        /* Charged as admitted: only a workload found running (flavors
         * inferred) records its charges here. */
        if (!w->charges && workload_record_charges(w, q) < 0)
            return -ENOMEM;
        w->cq = q;
        w->queued = true;
        if (cq_add_admitted(q, w) < 0)
            return -ENOMEM;
        cq_charge(q, w, 1);
        return 0;
    }
    struct cq *q = resolve_cq(c, w);
    if (w->over_cap)
        over_cap_reason(w); /* queued, never a head (queue_head) */
    if (!q)
        return 0;
    w->cq = q;
    w->queued = true;
    return cq_queue_push(c, q, w);
}

/* Gives an admitted workload's quota back to its ClusterQueue. */
static void release_admission(struct workload *w)
{
    if (w->state == WL_ADMITTED && w->admitted_cq) {
        cq_charge(w->admitted_cq, w, -1);
        cq_remove_admitted(w->admitted_cq, w);
    }
}

/* Whether a pod group waits for replacement pods when its pods are gone:
 * not when one of its pods says kueue.x-k8s.io/retriable-in-group
 * "false". */
static bool retriable(const struct workload *w)
{
    for (size_t i = 0; i < w->n_pods; i++) {
        const char *v = strmap_get(&w->pods[i]->obj->meta.annotations,
                                   ANNOT_RETRIABLE_IN_GROUP);
        if (v && strcmp(v, "false") == 0)
            return false;
    }
    return true;
}

void workload_requeue_evicted(struct cluster *c, struct workload *w)
{
    release_admission(w);
    cluster_release_room(w);
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        w->podsets[ps].reclaimable = 0;
    w->state = WL_PENDING;
    (void)cluster_mark_changed(c, w); /* out of memory: seen next change */
    w->evicting = false;
    w->admitted_cq = NULL;
    w->queued = false;
    w->parked = false;
    w->evictions++;
    free(w->flavors);
    w->flavors = NULL;
    free(w->charges);
    w->charges = NULL;
    w->n_charges = 0;
    workload_set_reason(w, "evicted: %s%s%s%s%s",
                        strchr(w->evicted_by, '/') ? "preempted by " : "",
                        w->evicted_by, w->evict_class ? " (" : "",
                        w->evict_class ? w->evict_class : "",
                        w->evict_class ? ")" : "");
    if (w->kind == WL_POD || (w->kind == WL_POD_GROUP && !retriable(w))) {
        /* A plain pod has no controller to make it again: once evicted it
         * is done, and so is a group marked retriable-in-group "false"
         * (Kueue finishes such a workload too). */
        w->state = WL_FINISHED;
        w->finished_ns = c->now_ns;
        w->has_finished = true;
        return;
    }
    if (w->kind == WL_POD_GROUP)
        /* Its user makes replacement pods, which fill the pod sets again
         * (podset_for_pod); the evicted ones no longer count. */
        for (uint32_t ps = 0; ps < w->n_podsets; ps++)
            w->podsets[ps].count = 0;
    workload_enqueue(c, w);
    cluster_wake_parked(c);
}

void workload_finish(struct cluster *c, struct workload *w)
{
    release_admission(w);
    cluster_release_room(w);
    w->state = WL_FINISHED;
    (void)cluster_mark_changed(c, w);
    w->finished_ns = c->now_ns;
    w->has_finished = true;
    w->reason[0] = '\0';
    /* Quota came free: parked workloads may fit now. */
    cluster_wake_parked(c);
}
