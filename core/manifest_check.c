/* manifest_check.c - the checks across the objects of a manifest set (see
 * manifest_check.h): an index of the set by kind and key, then each
 * object's references looked up in it, in the words Kueue and Kubernetes
 * use for the same conditions. */
#include "manifest_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kubernetes' built-in PriorityClasses: they exist in every cluster. */
static const char *const builtin_priority_classes[] = {
    "system-cluster-critical", "system-node-critical", NULL};

struct ref {
    enum object_kind kind;
    const char *ns; /* "" for cluster-scoped kinds */
    const char *name;
    size_t index; /* in the set */
};

/* A queued object the rule leaves to another scheduler (queue NULL: not
 * one). */
struct left {
    const char *queue;
    enum queue_rule_verdict verdict;
    const char *scheduler_name;
};

struct checker {
    const struct manifest_set *set;
    struct manifest_check_opts *opts;
    manifest_check_fn fn;
    void *userdata;
    struct manifest_check_counts counts;
    struct ref *refs; /* sorted by kind, ns, name */
    size_t n_refs;
    unsigned char *cohort_state; /* per object: 0 new, 1 on path, 2 done */
    size_t *path;                /* cohorts on the walk (indexes) */
    struct left *left;           /* per object: what the rule left out */
};

static int cmp_ref(const void *pa, const void *pb)
{
    const struct ref *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int r = strcmp(a->ns, b->ns);
    return r ? r : strcmp(a->name, b->name);
}

/* The index entry of kind ns/name (ns NULL: cluster-scoped), or NULL. */
static const struct ref *find_ref(const struct checker *k,
                                  enum object_kind kind, const char *ns,
                                  const char *name)
{
    struct ref key = {.kind = kind, .ns = ns ? ns : "", .name = name};
    return bsearch(&key, k->refs, k->n_refs, sizeof(*k->refs), cmp_ref);
}

/* The object of kind ns/name, or NULL. */
static const struct object *find(const struct checker *k, enum object_kind kind,
                                 const char *ns, const char *name)
{
    const struct ref *r = find_ref(k, kind, ns, name);
    return r ? k->set->objects[r->index] : NULL;
}

/* Reports "Kind key: " + fmt about o. */
static void report(struct checker *k, enum manifest_severity sev,
                   const struct object *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(struct checker *k, enum manifest_severity sev,
                   const struct object *o, const char *fmt, ...)
{
    char msg[1024], key[512];
    int n = snprintf(msg, sizeof(msg), "%s %s: ", object_kind_name(o->kind),
                     object_key(o, key, sizeof(key)));
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(msg))
        vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    if (sev == MANIFEST_ERROR)
        k->counts.n_errors++;
    else
        k->counts.n_warnings++;
    if (k->fn)
        k->fn(sev, o->file, o->line, msg, k->userdata);
}

/* A missing reference: a warning unless strict. */
static enum manifest_severity missing(const struct checker *k)
{
    return k->opts->strict ? MANIFEST_ERROR : MANIFEST_WARNING;
}

/* What follows a missing reference's message in the simulator. */
static const char *world_note(const struct checker *k)
{
    return k->opts->whole_world
               ? " (in the simulator the manifests are the whole cluster)"
               : "";
}

/* Appends name to a comma-separated list in buf (size n) unless there. */
static void list_add(char *buf, size_t n, const char *name)
{
    size_t len = strlen(buf), nl = strlen(name);
    for (const char *p = buf; (p = strstr(p, name)); p += nl)
        if ((p == buf || p[-1] == ',') && (p[nl] == ',' || p[nl] == '\0'))
            return;
    snprintf(buf + len, n - len, "%s%s", len ? "," : "", name);
}

/* ---- Kueue's objects ---------------------------------------------------- */

static void check_local_queue(struct checker *k, const struct object *o)
{
    const char *cq = o->u.local_queue.cluster_queue;
    if (cq && !find(k, OBJ_CLUSTER_QUEUE, NULL, cq))
        report(k, missing(k), o,
               "spec.clusterQueue: ClusterQueue %s doesn't exist: its "
               "workloads wait for it%s",
               cq, world_note(k));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_cluster_queue(struct checker *k, const struct object *o)
{
    const struct cluster_queue *cq = &o->u.cluster_queue;
    char flavors[512] = "", absent[512] = "", present[512] = "";
    for (size_t g = 0; g < cq->n_resource_groups; g++)
        for (size_t f = 0; f < cq->resource_groups[g].n_flavors; f++) {
            const char *name = cq->resource_groups[g].flavors[f].name;
            if (!find(k, OBJ_RESOURCE_FLAVOR, NULL, name))
                list_add(flavors, sizeof(flavors), name);
        }
    if (*flavors)
        report(k, missing(k), o,
               "spec.resourceGroups: references missing ResourceFlavor(s): "
               "%s: it admits nothing until they exist%s",
               flavors, world_note(k));
    /* Kueue lists the AdmissionChecks sorted; the cache says the same. */
    size_t n = cq->n_admission_checks;
    const char *sorted[64];
    if (n > sizeof(sorted) / sizeof(sorted[0]))
        n = sizeof(sorted) / sizeof(sorted[0]);
    if (n)
        memcpy(sorted, cq->admission_checks, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_str);
    for (size_t i = 0; i < n; i++)
        list_add(find(k, OBJ_ADMISSION_CHECK, NULL, sorted[i]) ? present
                                                               : absent,
                 sizeof(absent), sorted[i]);
    if (*absent)
        report(k, missing(k), o,
               "references missing AdmissionCheck(s): %s: it admits nothing "
               "until they exist%s",
               absent, world_note(k));
    if (*present)
        report(k, MANIFEST_WARNING, o,
               "references inactive AdmissionCheck(s): %s: Ordo runs no "
               "admission check controller, so they never become Active "
               "and the ClusterQueue admits nothing",
               present);
}

static void check_resource_flavor(struct checker *k, const struct object *o)
{
    const char *t = o->u.resource_flavor.topology_name;
    if (t && !find(k, OBJ_TOPOLOGY, NULL, t))
        report(k, missing(k), o,
               "spec.topologyName: there is no Topology \"%s\" for TAS "
               "flavor \"%s\"%s",
               t, o->meta.name, world_note(k));
}

/* Follows the parents of Cohort `start`; a parent that is no Cohort object
 * is an implicit root (Kueue v1beta2). A walk that comes back to a cohort
 * on its own path has found a cycle: reported once, at its first member
 * the walk met, naming every member in parent order. */
static void check_cohort(struct checker *k, size_t start)
{
    const struct manifest_set *s = k->set;
    size_t n_path = 0, i = start;
    bool cycle = false;
    for (;;) {
        if (k->cohort_state[i] == 2)
            break; /* joins a chain walked before */
        if (k->cohort_state[i] == 1) {
            cycle = true;
            break;
        }
        k->cohort_state[i] = 1;
        k->path[n_path++] = i;
        const char *parent = s->objects[i]->u.cohort.parent_name;
        const struct ref *p =
            parent ? find_ref(k, OBJ_COHORT, NULL, parent) : NULL;
        if (!p)
            break;
        i = p->index;
    }
    size_t from = 0;
    while (cycle && from < n_path && k->path[from] != i)
        from++;
    if (cycle && from < n_path) {
        char chain[1024] = "";
        size_t len = 0;
        for (size_t j = from; j < n_path && len < sizeof(chain); j++)
            len += (size_t)snprintf(chain + len, sizeof(chain) - len, "%s -> ",
                                    s->objects[k->path[j]]->meta.name);
        if (len < sizeof(chain))
            snprintf(chain + len, sizeof(chain) - len, "%s",
                     s->objects[i]->meta.name);
        report(k, MANIFEST_ERROR, s->objects[i],
               "spec.parentName: cohort has a cycle: %s; every ClusterQueue "
               "below it is inactive",
               chain);
    }
    for (size_t j = 0; j < n_path; j++)
        k->cohort_state[k->path[j]] = 2;
}

/* ---- workloads ---------------------------------------------------------- */

/* A pod spec is Ordo's by its schedulerName (sched/cache/workload.c). */
static bool spec_is_ordos(const struct pod_spec *s)
{
    return s->scheduler_name &&
           strcmp(s->scheduler_name, MANIFEST_CHECK_SCHEDULER) == 0;
}

/* Who schedules pods of scheduler name `name` instead. */
static const char *other_scheduler(const char *name)
{
    return !name || strcmp(name, "default-scheduler") == 0 ? "kube-scheduler"
                                                           : name;
}

/* spec.priorityClassName of the pod spec at field path `at` of o. */
static void check_priority_class(struct checker *k, const struct object *o,
                                 const char *at, const struct pod_spec *spec)
{
    const char *pc = spec->priority_class_name;
    if (!pc || !*pc || find(k, OBJ_PRIORITY_CLASS, NULL, pc))
        return;
    for (size_t i = 0; builtin_priority_classes[i]; i++)
        if (strcmp(pc, builtin_priority_classes[i]) == 0)
            return;
    /* Kubernetes' Priority admission plugin, in its words. */
    report(k, missing(k), o,
           "%spriorityClassName: no PriorityClass with name %s was found: "
           "the API server refuses %s%s",
           at, pc, o->kind == OBJ_POD ? "the pod" : "its pods", world_note(k));
}

/* A JobSet is Ordo's by replicatedJobs[0] alone (sched/cache/workload.c):
 * the others should name the same scheduler. */
static void check_jobset_schedulers(struct checker *k, const struct object *o)
{
    const struct jobset *js = &o->u.jobset;
    const struct pod_spec *first = &js->replicated_jobs[0].spec.template.spec;
    for (size_t i = 1; i < js->n_replicated_jobs; i++) {
        const struct pod_spec *t = &js->replicated_jobs[i].spec.template.spec;
        if (spec_is_ordos(t) == spec_is_ordos(first))
            continue;
        report(k, MANIFEST_WARNING, o,
               "spec.replicatedJobs[%zu].template.spec.template.spec."
               "schedulerName is \"%s\" but replicatedJobs[0]'s is \"%s\": "
               "Ordo takes a JobSet as its by replicatedJobs[0] alone, so "
               "its pods should all name the same scheduler",
               i, t->scheduler_name, first->scheduler_name);
    }
}

static void report_left(struct checker *k, const struct object *o,
                        const struct left *l);

static void check_workload(struct checker *k, const struct object *o,
                           size_t index)
{
    if (k->left[index].queue)
        report_left(k, o, &k->left[index]);
    const struct pod_spec *spec = NULL;
    const char *at = NULL;
    const struct owner_ref *own = object_meta_controller(&o->meta);
    char path[96];
    switch (o->kind) {
    case OBJ_POD:
        spec = &o->u.pod.spec;
        at = "spec.";
        check_priority_class(k, o, at, spec);
        /* A Job's or JobSet's pod: its workload is the owner's. */
        if ((own && strcmp(own->kind, "Job") == 0) ||
            strmap_get(&o->meta.labels, "jobset.sigs.k8s.io/jobset-name"))
            return;
        break;
    case OBJ_JOB:
        spec = &o->u.job.spec.template.spec;
        at = "spec.template.spec.";
        check_priority_class(k, o, at, spec);
        break;
    case OBJ_JOBSET:
        for (size_t i = 0; i < o->u.jobset.n_replicated_jobs; i++) {
            snprintf(path, sizeof(path),
                     "spec.replicatedJobs[%zu].template.spec.template.spec.",
                     i);
            check_priority_class(
                k, o, path, &o->u.jobset.replicated_jobs[i].spec.template.spec);
        }
        if (o->u.jobset.n_replicated_jobs == 0)
            return;
        spec = &o->u.jobset.replicated_jobs[0].spec.template.spec;
        at = "spec.replicatedJobs[0].template.spec.template.spec.";
        check_jobset_schedulers(k, o);
        break;
    default:
        return;
    }
    bool ours = spec_is_ordos(spec);
    const char *ns = o->meta.namespace_ ? o->meta.namespace_ : "default";
    const char *lq = strmap_get(&o->meta.labels, MANIFEST_CHECK_LABEL_QUEUE);
    const char *wpc = strmap_get(&o->meta.labels, MANIFEST_CHECK_LABEL_WPC);
    if (lq && !find(k, OBJ_LOCAL_QUEUE, ns, lq))
        report(k, missing(k), o,
               "metadata.labels[%s]: LocalQueue %s doesn't exist in namespace "
               "%s%s",
               MANIFEST_CHECK_LABEL_QUEUE, lq, ns, world_note(k));
    if (!lq && ours && !find(k, OBJ_LOCAL_QUEUE, ns, "default"))
        report(k, missing(k), o,
               "no queue: label %s not set and no LocalQueue \"default\" in "
               "namespace %s: its pods name %s, which will not schedule "
               "them%s",
               MANIFEST_CHECK_LABEL_QUEUE, ns, MANIFEST_CHECK_SCHEDULER,
               world_note(k));
    if (lq && !ours && !k->opts->rule) /* else the rule said why */
        report(k, MANIFEST_WARNING, o,
               "metadata.labels[%s] is set, but %sschedulerName is \"%s\", "
               "not %s: %s or Kueue will handle it, not Ordo",
               MANIFEST_CHECK_LABEL_QUEUE, at, spec->scheduler_name,
               MANIFEST_CHECK_SCHEDULER, other_scheduler(spec->scheduler_name));
    if (wpc && !find(k, OBJ_WORKLOAD_PRIORITY_CLASS, NULL, wpc))
        report(k, missing(k), o,
               "metadata.labels[%s]: WorkloadPriorityClass %s not found: "
               "Kueue makes no workload for it until it exists%s",
               MANIFEST_CHECK_LABEL_WPC, wpc, world_note(k));
}

/* ---- Kueue's rule: what the webhook would change ----------------------- */

static void set_scheduler(struct object *o)
{
    if (o->kind == OBJ_POD)
        o->u.pod.spec.scheduler_name = QUEUE_RULE_SCHEDULER;
    if (o->kind == OBJ_JOB)
        o->u.job.spec.template.spec.scheduler_name = QUEUE_RULE_SCHEDULER;
    if (o->kind != OBJ_JOBSET)
        return;
    for (size_t i = 0; i < o->u.jobset.n_replicated_jobs; i++) {
        struct pod_spec *t = &o->u.jobset.replicated_jobs[i].spec.template.spec;
        if (!t->scheduler_name ||
            strcmp(t->scheduler_name, "default-scheduler") == 0)
            t->scheduler_name = QUEUE_RULE_SCHEDULER;
    }
}

/* The JobSet a Job or pod belongs to: its controller, else the label. */
static const struct object *jobset_of(const struct checker *k,
                                      const struct object *o, const char *ns)
{
    const struct owner_ref *own = object_meta_controller(&o->meta);
    if (own && strcmp(own->kind, "JobSet") == 0)
        return find(k, OBJ_JOBSET, ns, own->name);
    const char *n =
        strmap_get(&o->meta.labels, "jobset.sigs.k8s.io/jobset-name");
    return n ? find(k, OBJ_JOBSET, ns, n) : NULL;
}

static void default_one(struct checker *k, struct object *o, size_t index)
{
    const char *ns = o->meta.namespace_ ? o->meta.namespace_ : "default";
    const struct owner_ref *own = object_meta_controller(&o->meta);
    const struct object *job = NULL, *set = NULL;
    if (o->kind == OBJ_POD && own && strcmp(own->kind, "Job") == 0)
        job = find(k, OBJ_JOB, ns, own->name);
    if (o->kind != OBJ_JOBSET)
        set = jobset_of(k, job ? job : o, ns);
    struct queue_rule_subject sub;
    queue_rule_subject_of(o, find(k, OBJ_NAMESPACE, NULL, ns), job, set, &sub);
    sub.default_queue = find(k, OBJ_LOCAL_QUEUE, ns, "default") != NULL;
    struct queue_rule_result res;
    queue_rule_decide(k->opts->rule, &sub, &res);
    const struct object *top = set ? set : job;
    if (res.verdict == QUEUE_RULE_MANAGED) {
        /* A pod or child Job goes with its owner, which was done first. */
        const struct pod_spec *ts = top ? queue_rule_spec(top) : NULL;
        if (!res.already && (!top || (ts && spec_is_ordos(ts)))) {
            set_scheduler(o);
            k->opts->n_defaulted++;
        }
        return;
    }
    if (!res.queue || top)
        return; /* not queued, or its owner's finding says it */
    k->left[index] = (struct left){.queue = res.queue,
                                   .verdict = res.verdict,
                                   .scheduler_name = sub.scheduler_name};
}

/* The finding for what the rule left out (check_workload's turn, so that
 * findings come in the order of the objects). */
static void report_left(struct checker *k, const struct object *o,
                        const struct left *l)
{
    const char *ns = o->meta.namespace_ ? o->meta.namespace_ : "default";
    char why[300], key[512], msg[1024];
    if (l->verdict == QUEUE_RULE_NAMESPACE)
        snprintf(why, sizeof(why),
                 "its namespace %s is not selected by "
                 "managedJobsNamespaceSelector",
                 ns);
    else
        snprintf(why, sizeof(why), "its %sschedulerName is \"%s\"",
                 o->kind == OBJ_POD   ? "spec."
                 : o->kind == OBJ_JOB ? "spec.template.spec."
                                      : "spec.replicatedJobs[0].template.spec."
                                        "template.spec.",
                 l->scheduler_name);
    snprintf(msg, sizeof(msg),
             "%s %s has queue label %s but %s: Ordo will not schedule it",
             object_kind_name(o->kind), object_key(o, key, sizeof(key)),
             l->queue, why);
    k->counts.n_warnings++;
    if (k->fn)
        k->fn(MANIFEST_WARNING, o->file, o->line, msg, k->userdata);
    if (k->opts->left_out)
        k->opts->left_out(o, l->queue, why, k->opts->left_out_data);
}

static void apply_rule(struct checker *k)
{
    static const enum object_kind order[] = {OBJ_JOBSET, OBJ_JOB, OBJ_POD};
    for (size_t j = 0; j < sizeof(order) / sizeof(order[0]); j++)
        for (size_t i = 0; i < k->set->n; i++) {
            struct object *o = k->set->objects[i];
            if (o && o->kind == order[j] && queue_rule_spec(o))
                default_one(k, o, i);
        }
}

int manifest_check(const struct manifest_set *s,
                   struct manifest_check_opts *opts,
                   manifest_check_fn on_finding, void *userdata,
                   struct manifest_check_counts *ret_counts)
{
    struct manifest_check_opts defaults = {0};
    struct checker k = {.set = s,
                        .opts = opts ? opts : &defaults,
                        .fn = on_finding,
                        .userdata = userdata};
    int r = 0;
    k.refs = calloc(s->n ? s->n : 1, sizeof(*k.refs));
    k.cohort_state = calloc(s->n ? s->n : 1, 1);
    k.path = calloc(s->n ? s->n : 1, sizeof(*k.path));
    k.left = calloc(s->n ? s->n : 1, sizeof(*k.left));
    if (!k.refs || !k.cohort_state || !k.path || !k.left) {
        r = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct object *o = s->objects[i];
        if (!o)
            continue;
        k.refs[k.n_refs++] =
            (struct ref){.kind = o->kind,
                         .ns = o->meta.namespace_ ? o->meta.namespace_ : "",
                         .name = o->meta.name,
                         .index = i};
    }
    qsort(k.refs, k.n_refs, sizeof(*k.refs), cmp_ref);
    k.opts->n_defaulted = 0;
    if (k.opts->rule)
        apply_rule(&k);
    for (size_t i = 0; i < s->n; i++) {
        const struct object *o = s->objects[i];
        switch (o ? o->kind : OBJ_KIND_MAX) {
        case OBJ_LOCAL_QUEUE:
            check_local_queue(&k, o);
            break;
        case OBJ_CLUSTER_QUEUE:
            check_cluster_queue(&k, o);
            break;
        case OBJ_RESOURCE_FLAVOR:
            check_resource_flavor(&k, o);
            break;
        case OBJ_COHORT:
            check_cohort(&k, i);
            break;
        case OBJ_JOB:
        case OBJ_JOBSET:
        case OBJ_POD:
            check_workload(&k, o, i);
            break;
        default:
            break;
        }
    }
out:
    if (ret_counts)
        *ret_counts = k.counts;
    free(k.refs);
    free(k.cohort_state);
    free(k.path);
    free(k.left);
    return r;
}
