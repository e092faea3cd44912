/* queue_rule.c - Kueue's "is this job managed" rule (queue_rule.h): the
 * queue label up the owner chain, the namespace selector, the
 * schedulerName. */
#include "queue_rule.h"

#include <stddef.h>
#include <string.h>

/* Kueue's default selector: metadata.name NotIn [kube-system, own]. */
static bool default_selects(const struct queue_rule *r, const char *ns)
{
    const char *own =
        r && r->namespace_ ? r->namespace_ : QUEUE_RULE_DEFAULT_NS;
    return ns && strcmp(ns, "kube-system") != 0 && strcmp(ns, own) != 0;
}

static bool namespace_selected(const struct queue_rule *r,
                               const struct queue_rule_subject *s)
{
    if (!r || !r->namespace_selector)
        return default_selects(r, s->namespace_);
    if (s->ns_labels)
        return label_selector_matches(r->namespace_selector, s->ns_labels);
    /* Not known: the one label every namespace has. */
    struct strmap_entry e = {.key = QUEUE_RULE_LABEL_NS_NAME,
                             .value = s->namespace_ ? s->namespace_ : ""};
    struct strmap m = {.n = 1, .items = &e};
    return label_selector_matches(r->namespace_selector, &m);
}

void queue_rule_decide(const struct queue_rule *r,
                       const struct queue_rule_subject *s,
                       struct queue_rule_result *ret)
{
    *ret = (struct queue_rule_result){.queue_from = -1};
    for (int i = 0; i < QUEUE_RULE_MAX_CHAIN && s->labels[i]; i++) {
        const char *q = strmap_get(s->labels[i], QUEUE_RULE_LABEL_QUEUE);
        if (q) {
            ret->queue = q;
            ret->queue_from = i;
            break;
        }
    }
    if (!ret->queue && s->default_queue)
        ret->queue = "default"; /* Kueue's LocalQueueDefaulting */
    const char *sn = s->scheduler_name;
    bool absent = !sn || !*sn || strcmp(sn, "default-scheduler") == 0;
    ret->already = sn && strcmp(sn, QUEUE_RULE_SCHEDULER) == 0;
    if (!ret->queue && !(r && r->manage_jobs_without_queue_name))
        ret->verdict = QUEUE_RULE_NO_QUEUE;
    else if (!absent && !ret->already)
        ret->verdict = QUEUE_RULE_OTHER_SCHEDULER;
    else if (!namespace_selected(r, s))
        ret->verdict = QUEUE_RULE_NAMESPACE;
    else
        ret->verdict = QUEUE_RULE_MANAGED;
    if (ret->verdict != QUEUE_RULE_MANAGED)
        ret->already = false;
}

const char *queue_rule_why(enum queue_rule_verdict v)
{
    switch (v) {
    case QUEUE_RULE_MANAGED:
        return "";
    case QUEUE_RULE_NO_QUEUE:
        return "it has no " QUEUE_RULE_LABEL_QUEUE
               " label and manageJobsWithoutQueueName is false";
    case QUEUE_RULE_NAMESPACE:
        return "its namespace is not selected by managedJobsNamespaceSelector";
    case QUEUE_RULE_OTHER_SCHEDULER:
        return "its schedulerName names another scheduler";
    }
    return "?";
}

const struct pod_spec *queue_rule_spec(const struct object *o)
{
    switch (o ? o->kind : OBJ_KIND_MAX) {
    case OBJ_POD:
        return &o->u.pod.spec;
    case OBJ_JOB:
        return &o->u.job.spec.template.spec;
    case OBJ_JOBSET:
        return o->u.jobset.n_replicated_jobs
                   ? &o->u.jobset.replicated_jobs[0].spec.template.spec
                   : NULL;
    default:
        return NULL;
    }
}

void queue_rule_subject_of(const struct object *o, const struct object *ns,
                           const struct object *job,
                           const struct object *jobset,
                           struct queue_rule_subject *ret)
{
    *ret = (struct queue_rule_subject){0};
    ret->namespace_ = o->meta.namespace_ ? o->meta.namespace_ : "default";
    ret->ns_labels = ns ? &ns->meta.labels : NULL;
    size_t n = 0;
    ret->labels[n++] = &o->meta.labels;
    if (job && n < QUEUE_RULE_MAX_CHAIN)
        ret->labels[n++] = &job->meta.labels;
    if (jobset && n < QUEUE_RULE_MAX_CHAIN)
        ret->labels[n++] = &jobset->meta.labels;
    const struct pod_spec *sp = queue_rule_spec(o);
    ret->scheduler_name = sp ? sp->scheduler_name : NULL;
}
