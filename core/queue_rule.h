/* queue_rule.h - which pods, Jobs and JobSets Ordo manages, by Kueue's
 * rules (no I/O): the webhook that sets their schedulerName
 * (sched/backend/kube/kube_webhook.h) and the simulator's load and
 * --validate (manifest_check.h) decide by the same function.
 *
 * An object is Ordo's when all of these hold:
 *   - a queue: the label kueue.x-k8s.io/queue-name on the object or on an
 *     owner of its chain (pod -> Job -> JobSet), the nearest one winning;
 *     else the namespace's LocalQueue "default" when it exists (Kueue's
 *     LocalQueueDefaulting); else manageJobsWithoutQueueName;
 *   - its namespace's labels match managedJobsNamespaceSelector (default,
 *     as Kueue's: kubernetes.io/metadata.name NotIn [kube-system, the
 *     scheduler's own namespace]); a namespace not known is judged by the
 *     label the API server always gives it, kubernetes.io/metadata.name;
 *   - its schedulerName is absent, "default-scheduler" (what the API server
 *     writes for absent) or already "ordo-scheduler": a pod that names some
 *     other scheduler asked for that one, and is left to it. */
#ifndef ORDO_QUEUE_RULE_H
#define ORDO_QUEUE_RULE_H

#include <stdbool.h>

#include "labels.h"
#include "objects.h"

#define QUEUE_RULE_SCHEDULER     "ordo-scheduler"
#define QUEUE_RULE_LABEL_QUEUE   "kueue.x-k8s.io/queue-name"
#define QUEUE_RULE_LABEL_NS_NAME "kubernetes.io/metadata.name"
#define QUEUE_RULE_DEFAULT_NS    "ordo-system"
#define QUEUE_RULE_MAX_CHAIN     3 /* the object, its Job, its JobSet */

/* The configuration, in Kueue's Configuration field names. */
struct queue_rule {
    bool manage_jobs_without_queue_name; /* default false */
    /* managedJobsNamespaceSelector; NULL: the default above. Not owned. */
    const struct label_selector *namespace_selector;
    /* The scheduler's own namespace (Kueue's `namespace`); NULL:
     * QUEUE_RULE_DEFAULT_NS. Not owned. */
    const char *namespace_;
};

/* What the rule looks at, as the caller knows it. */
struct queue_rule_subject {
    const char *namespace_;         /* the object's */
    const struct strmap *ns_labels; /* NULL: the namespace is not known */
    /* Labels of the object, then of its owners as far as known (NULL: an
     * owner not known; the chain stops at the first NULL). */
    const struct strmap *labels[QUEUE_RULE_MAX_CHAIN];
    /* The pod (template) schedulerName as written; NULL or "": absent. */
    const char *scheduler_name;
    bool default_queue; /* a LocalQueue "default" exists in the namespace */
};

enum queue_rule_verdict {
    QUEUE_RULE_MANAGED = 0,     /* Ordo's: schedulerName set to Ordo's */
    QUEUE_RULE_NO_QUEUE,        /* no queue label, not managed without one */
    QUEUE_RULE_NAMESPACE,       /* its namespace is not selected */
    QUEUE_RULE_OTHER_SCHEDULER, /* its schedulerName names another one */
};

struct queue_rule_result {
    enum queue_rule_verdict verdict;
    const char *queue; /* the queue label's value, "default" (the
                          namespace's LocalQueue), or NULL; not owned */
    int queue_from;    /* index in labels[] it came from; -1: none */
    bool already;      /* MANAGED and schedulerName is Ordo's already */
};

/* Decides for s under r (NULL: the defaults). Pure. */
void queue_rule_decide(const struct queue_rule *r,
                       const struct queue_rule_subject *s,
                       struct queue_rule_result *ret);

/* Why verdict v keeps an object from Ordo, in a few words ("" for
 * MANAGED): "its namespace is not selected by
 * managedJobsNamespaceSelector", ... Static. */
const char *queue_rule_why(enum queue_rule_verdict v);

/* The pod spec of o that decides its schedulerName (a Pod's spec, a Job's
 * template, a JobSet's replicatedJobs[0]), or NULL for other kinds. */
const struct pod_spec *queue_rule_spec(const struct object *o);

/* Fills s from typed objects: o, its namespace ns (NULL: not known), and
 * its owners as known (job, jobset; NULL when none or not known). The
 * schedulerName is o's spec's (decoded objects say "default-scheduler"
 * for absent, which the rule reads the same). Pointers into the
 * objects. */
void queue_rule_subject_of(const struct object *o, const struct object *ns,
                           const struct object *job,
                           const struct object *jobset,
                           struct queue_rule_subject *ret);

#endif
