/* decode_kueue.c - decoders for Kueue's v1beta2 kinds: ResourceFlavor,
 * ClusterQueue, LocalQueue, Cohort, WorkloadPriorityClass and Topology.
 *
 * Ordo is the only reader of these objects when it replaces Kueue, so it
 * applies the checks of Kueue's webhooks here (limits, enum values, quota
 * rules) and rejects an invalid object with the field that is wrong.
 * kueue.x-k8s.io/v1beta1 ClusterQueues are read too (spec.cohort). */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"

static const char *const stop_policies[] = {"None", "Hold", "HoldAndDrain",
                                            NULL};

/* fairSharing.weight: a Quantity, 0 allowed, default 1. */
static int decode_fair_weight(struct decode_ctx *c, const struct doc_node *spec,
                              int64_t *ret_milli)
{
    const struct doc_node *fs = NULL;
    *ret_milli = 1000;
    int r = decode_field_map(c, spec, "fairSharing", &fs);
    if (r < 0 || !fs)
        return r;
    size_t mark = decode_path_push(c, "fairSharing");
    r = decode_field_quantity(c, fs, "weight", NULL, ret_milli);
    if (r == 0 && *ret_milli < 0)
        r = decode_fail_at(c, doc_map_get(fs, "weight"), "weight",
                           "must be >= 0");
    decode_path_pop(c, mark);
    return r;
}

static int decode_stop_policy(struct decode_ctx *c, const struct doc_node *spec,
                              enum stop_policy *ret)
{
    int v = STOP_POLICY_NONE;
    int r = decode_field_enum(c, spec, "stopPolicy", stop_policies, -1, &v);
    *ret = (enum stop_policy)v;
    return r;
}

static int decode_resource_quota(struct decode_ctx *c,
                                 const struct doc_node *n, bool in_cohort,
                                 bool is_cohort, struct resource_quota *q)
{
    bool has_nominal = false;
    int r = decode_want_map(c, n);
    if (r == 0)
        r = decode_field_string(c, n, "name", &q->name);
    if (r == 0 && !q->name)
        r = decode_fail_at(c, n, "name", "required");
    if (r == 0)
        r = decode_field_quantity(c, n, "nominalQuota", &has_nominal,
                                  &q->nominal_quota);
    if (r == 0 && !has_nominal)
        r = decode_fail_at(c, n, "nominalQuota", "required");
    if (r == 0 && q->nominal_quota < 0)
        r = decode_fail_at(c, doc_map_get(n, "nominalQuota"), "nominalQuota",
                           "must be >= 0");
    if (r == 0)
        r = decode_field_quantity(c, n, "borrowingLimit",
                                  &q->has_borrowing_limit,
                                  &q->borrowing_limit);
    if (r == 0)
        r = decode_field_quantity(c, n, "lendingLimit", &q->has_lending_limit,
                                  &q->lending_limit);
    if (r < 0)
        return r;
    const char *parent = is_cohort ? "parentName" : "cohortName";
    if (q->has_borrowing_limit && q->borrowing_limit < 0)
        return decode_fail_at(c, doc_map_get(n, "borrowingLimit"),
                              "borrowingLimit", "must be >= 0");
    if (q->has_borrowing_limit && !in_cohort)
        return decode_fail_at(c, doc_map_get(n, "borrowingLimit"),
                              "borrowingLimit", "must be nil when %s is empty",
                              parent);
    if (q->has_lending_limit && q->lending_limit < 0)
        return decode_fail_at(c, doc_map_get(n, "lendingLimit"),
                              "lendingLimit", "must be >= 0");
    if (q->has_lending_limit && !in_cohort)
        return decode_fail_at(c, doc_map_get(n, "lendingLimit"),
                              "lendingLimit", "must be nil when %s is empty",
                              parent);
    /* Unlike a ClusterQueue, a Cohort may lend more than its own nominal
     * quota (it lends its children's too). */
    if (!is_cohort && q->has_lending_limit &&
        q->lending_limit > q->nominal_quota)
        return decode_fail_at(c, doc_map_get(n, "lendingLimit"),
                              "lendingLimit",
                              "must be less than or equal to nominalQuota");
    return 0;
}

static int decode_flavor_quotas(struct decode_ctx *c, const struct doc_node *n,
                                const struct resource_group *g,
                                bool in_cohort, bool is_cohort,
                                struct flavor_quotas *fq)
{
    const struct doc_node *res = NULL;
    int r = decode_want_map(c, n);
    if (r == 0)
        r = decode_field_string(c, n, "name", &fq->name);
    if (r == 0 && (!fq->name || !*fq->name))
        r = decode_fail_at(c, n, "name", "required");
    if (r == 0)
        r = decode_field_seq(c, n, "resources", &res);
    if (r == 0 && (!res || res->n == 0))
        r = decode_fail_at(c, n, "resources", "required");
    if (r == 0 && res->n != g->n_covered)
        r = decode_fail_at(c, res, "resources",
                           "must list the %zu covered resources, has %zu",
                           g->n_covered, res->n);
    if (r < 0)
        return r;
    fq->resources = arena_calloc(c->arena, res->n, sizeof(*fq->resources));
    if (!fq->resources)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "resources");
    for (size_t i = 0; r == 0 && i < res->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_resource_quota(c, res->items[i], in_cohort, is_cohort,
                                  &fq->resources[i]);
        if (r == 0 && strcmp(fq->resources[i].name, g->covered_resources[i]))
            r = decode_fail_at(c, res->items[i], "name",
                               "must be \"%s\" (coveredResources[%zu]); "
                               "resources must follow coveredResources in "
                               "order",
                               g->covered_resources[i], i);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    fq->n_resources = res->n;
    return r;
}

static int decode_resource_group(struct decode_ctx *c, const struct doc_node *n,
                                 bool in_cohort, bool is_cohort,
                                 struct resource_group *g)
{
    const struct doc_node *fl = NULL;
    int r = decode_want_map(c, n);
    if (r == 0)
        r = decode_field_strings(c, n, "coveredResources", &g->n_covered,
                                 &g->covered_resources);
    if (r == 0 && (g->n_covered < 1 || g->n_covered > 64))
        r = decode_fail_at(c, n, "coveredResources",
                           "must list 1 to 64 resources");
    for (size_t i = 0; r == 0 && i < g->n_covered; i++)
        for (size_t j = 0; r == 0 && j < i; j++)
            if (strcmp(g->covered_resources[i], g->covered_resources[j]) == 0)
                r = decode_fail_at(c, n, "coveredResources",
                                   "duplicate resource \"%s\"",
                                   g->covered_resources[i]);
    if (r == 0)
        r = decode_field_seq(c, n, "flavors", &fl);
    if (r == 0 && (!fl || fl->n < 1 || fl->n > 64))
        r = decode_fail_at(c, fl ? fl : n, "flavors",
                           "must list 1 to 64 flavors");
    if (r < 0)
        return r;
    g->flavors = arena_calloc(c->arena, fl->n, sizeof(*g->flavors));
    if (!g->flavors)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "flavors");
    for (size_t i = 0; r == 0 && i < fl->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_flavor_quotas(c, fl->items[i], g, in_cohort, is_cohort,
                                 &g->flavors[i]);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    g->n_flavors = fl->n;
    return r;
}

/* spec.resourceGroups of a ClusterQueue or Cohort, with the cross-group
 * rules: a resource and a flavor belong to one group only. */
static int decode_resource_groups(struct decode_ctx *c,
                                  const struct doc_node *spec, bool in_cohort,
                                  bool is_cohort, size_t *ret_n,
                                  struct resource_group **ret)
{
    const struct doc_node *seq = NULL;
    int r = decode_field_seq(c, spec, "resourceGroups", &seq);
    if (r < 0 || !seq || seq->n == 0)
        return r;
    if (seq->n > 16)
        return decode_fail_at(c, seq, "resourceGroups",
                              "at most 16 resource groups, has %zu", seq->n);
    struct resource_group *gs = arena_calloc(c->arena, seq->n, sizeof(*gs));
    if (!gs)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "resourceGroups");
    for (size_t i = 0; r == 0 && i < seq->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_resource_group(c, seq->items[i], in_cohort, is_cohort,
                                  &gs[i]);
        /* Compare with the groups before it, and flavors within it. */
        for (size_t j = 0; r == 0 && j <= i; j++) {
            for (size_t a = 0; r == 0 && a < gs[i].n_covered && j < i; a++)
                for (size_t b = 0; r == 0 && b < gs[j].n_covered; b++)
                    if (!strcmp(gs[i].covered_resources[a],
                                gs[j].covered_resources[b]))
                        r = decode_fail_at(
                            c, seq->items[i], "coveredResources",
                            "resource \"%s\" is already covered by "
                            "resourceGroups[%zu]",
                            gs[i].covered_resources[a], j);
            for (size_t a = 0; r == 0 && a < gs[i].n_flavors; a++) {
                size_t end = j < i ? gs[j].n_flavors : a;
                for (size_t b = 0; r == 0 && b < end; b++)
                    if (!strcmp(gs[i].flavors[a].name, gs[j].flavors[b].name))
                        r = decode_fail_at(
                            c, seq->items[i], "flavors",
                            "flavor \"%s\" appears twice (also in "
                            "resourceGroups[%zu])",
                            gs[i].flavors[a].name, j);
            }
        }
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = seq->n;
        *ret = gs;
    }
    return r;
}

int decode_resource_flavor(struct decode_ctx *c, const struct doc_node *n,
                           struct object *o)
{
    struct resource_flavor *rf = &o->u.resource_flavor;
    const struct doc_node *spec = NULL;
    int r = decode_field_map(c, n, "spec", &spec);
    if (r < 0 || !spec)
        return r; /* an empty flavor matches every node */
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_labels(c, spec, "nodeLabels", &rf->node_labels);
    if (r == 0 && rf->node_labels.n > 8)
        r = decode_fail_at(c, doc_map_get(spec, "nodeLabels"), "nodeLabels",
                           "at most 8 labels, has %zu", rf->node_labels.n);
    if (r == 0)
        r = decode_taints(c, spec, "nodeTaints", &rf->n_node_taints,
                          &rf->node_taints);
    if (r == 0 && rf->n_node_taints > 8)
        r = decode_fail_at(c, doc_map_get(spec, "nodeTaints"), "nodeTaints",
                           "at most 8 taints, has %zu", rf->n_node_taints);
    if (r == 0)
        r = decode_tolerations(c, spec, "tolerations", &rf->n_tolerations,
                               &rf->tolerations);
    if (r == 0 && rf->n_tolerations > 8)
        r = decode_fail_at(c, doc_map_get(spec, "tolerations"), "tolerations",
                           "at most 8 tolerations, has %zu",
                           rf->n_tolerations);
    if (r == 0)
        r = decode_field_string(c, spec, "topologyName", &rf->topology_name);
    if (r == 0 && rf->topology_name && rf->node_labels.n == 0)
        r = decode_fail_at(c, doc_map_get(spec, "topologyName"),
                           "topologyName",
                           "requires at least one entry in nodeLabels");
    decode_path_pop(c, mark);
    return r;
}

static int decode_fungibility(struct decode_ctx *c, const struct doc_node *spec,
                              struct cluster_queue *cq)
{
    static const char *const policies[] = {"MayStopSearch", "TryNextFlavor",
                                           NULL};
    static const char *const prefs[] = {"", "BorrowingOverPreemption",
                                        "PreemptionOverBorrowing", NULL};
    const struct doc_node *ff = NULL;
    int borrow = FUNGIBILITY_MAY_STOP_SEARCH;
    int preempt = FUNGIBILITY_TRY_NEXT_FLAVOR;
    int pref = FUNGIBILITY_PREFERENCE_NONE;
    int r = decode_field_map(c, spec, "flavorFungibility", &ff);
    if (r == 0 && ff) {
        size_t mark = decode_path_push(c, "flavorFungibility");
        r = decode_field_enum(c, ff, "whenCanBorrow", policies, -1, &borrow);
        if (r == 0)
            r = decode_field_enum(c, ff, "whenCanPreempt", policies, -1,
                                  &preempt);
        if (r == 0)
            r = decode_field_enum(c, ff, "preference", prefs, -1, &pref);
        if (r == 0 && pref != FUNGIBILITY_PREFERENCE_NONE &&
            (borrow != FUNGIBILITY_TRY_NEXT_FLAVOR ||
             preempt != FUNGIBILITY_TRY_NEXT_FLAVOR))
            r = decode_fail_at(c, doc_map_get(ff, "preference"), "preference",
                               "only allowed when whenCanBorrow and "
                               "whenCanPreempt are both TryNextFlavor");
        decode_path_pop(c, mark);
    }
    cq->when_can_borrow = (enum fungibility_policy)borrow;
    cq->when_can_preempt = (enum fungibility_policy)preempt;
    cq->fungibility_preference = (enum fungibility_preference)pref;
    return r;
}

static int decode_preemption(struct decode_ctx *c, const struct doc_node *spec,
                             struct cluster_queue *cq)
{
    /* Indexes follow enum preemption_policy; NULL slots are not allowed
     * for that field. */
    static const char *const within[] = {"Never", "LowerPriority",
                                         "LowerOrNewerEqualPriority", NULL};
    static const char *const reclaim[] = {"Never", "LowerPriority", "Any",
                                          NULL};
    static const char *const borrow[] = {"Never", "LowerPriority", NULL};
    const struct doc_node *p = NULL, *bwc = NULL;
    int w = PREEMPTION_NEVER, rc = PREEMPTION_NEVER, b = PREEMPTION_NEVER;
    int r = decode_field_map(c, spec, "preemption", &p);
    if (r < 0 || !p)
        return r;
    size_t mark = decode_path_push(c, "preemption");
    r = decode_field_enum(c, p, "withinClusterQueue", within, -1, &w);
    if (r == 0)
        r = decode_field_enum(c, p, "reclaimWithinCohort", reclaim, -1, &rc);
    if (rc == 2) /* the third name is Any */
        rc = PREEMPTION_ANY;
    if (r == 0)
        r = decode_field_map(c, p, "borrowWithinCohort", &bwc);
    if (r == 0 && bwc) {
        size_t m2 = decode_path_push(c, "borrowWithinCohort");
        r = decode_field_enum(c, bwc, "policy", borrow, -1, &b);
        if (r == 0)
            r = decode_field_int32(c, bwc, "maxPriorityThreshold",
                                   &cq->has_max_priority_threshold,
                                   &cq->max_priority_threshold);
        if (r == 0 && b != PREEMPTION_NEVER && rc == PREEMPTION_NEVER)
            r = decode_fail_at(c, doc_map_get(bwc, "policy"), "policy",
                               "must be Never when reclaimWithinCohort is "
                               "Never");
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    cq->within_cluster_queue = (enum preemption_policy)w;
    cq->reclaim_within_cohort = (enum preemption_policy)rc;
    cq->borrow_within_cohort = (enum preemption_policy)b;
    return r;
}

/* kueue.x-k8s.io/v1beta1's spec.admissionChecks: a list of names. */
static int decode_admission_check_names(struct decode_ctx *c,
                                        const struct doc_node *list,
                                        struct cluster_queue *cq)
{
    cq->admission_checks =
        arena_calloc(c->arena, list->n ? list->n : 1,
                     sizeof(*cq->admission_checks));
    if (!cq->admission_checks)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "admissionChecks");
    int r = 0;
    for (size_t i = 0; r == 0 && i < list->n; i++) {
        const char *s = NULL;
        size_t m2 = decode_path_push_index(c, i);
        if (doc_get_string(list->items[i], &s) < 0 || !*s)
            r = decode_fail(c, list->items[i],
                            "expected an AdmissionCheck's name");
        else if (!(cq->admission_checks[i] = arena_strdup(c->arena, s)))
            r = -ENOMEM;
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    cq->n_admission_checks = r == 0 ? list->n : 0;
    return r;
}

static int decode_admission_checks(struct decode_ctx *c,
                                   const struct doc_node *spec,
                                   struct cluster_queue *cq)
{
    const struct doc_node *acs = NULL, *list = NULL, *names = NULL;
    int r = decode_field_seq(c, spec, "admissionChecks", &names);
    if (r == 0)
        r = decode_field_map(c, spec, "admissionChecksStrategy", &acs);
    if (r == 0 && names && acs)
        return decode_fail_at(c, names, "admissionChecks",
                              "either admissionChecks or "
                              "admissionChecksStrategy can be set, but not "
                              "both");
    if (r == 0 && names)
        return decode_admission_check_names(c, names, cq);
    if (r < 0 || !acs)
        return r;
    size_t mark = decode_path_push(c, "admissionChecksStrategy");
    r = decode_field_seq(c, acs, "admissionChecks", &list);
    if (r == 0 && list && list->n) {
        cq->admission_checks =
            arena_calloc(c->arena, list->n, sizeof(*cq->admission_checks));
        if (!cq->admission_checks)
            r = -ENOMEM;
        size_t m2 = decode_path_push(c, "admissionChecks");
        for (size_t i = 0; r == 0 && i < list->n; i++) {
            size_t m3 = decode_path_push_index(c, i);
            r = decode_want_map(c, list->items[i]);
            if (r == 0)
                r = decode_field_string(c, list->items[i], "name",
                                        &cq->admission_checks[i]);
            if (r == 0 && !cq->admission_checks[i])
                r = decode_fail_at(c, list->items[i], "name", "required");
            decode_path_pop(c, m3);
        }
        decode_path_pop(c, m2);
        cq->n_admission_checks = list->n;
    }
    decode_path_pop(c, mark);
    return r;
}

int decode_cluster_queue(struct decode_ctx *c, const struct doc_node *n,
                         struct object *o)
{
    static const char *const strategies[] = {"BestEffortFIFO", "StrictFIFO",
                                             NULL};
    struct cluster_queue *cq = &o->u.cluster_queue;
    const struct doc_node *spec = NULL, *ns = NULL;
    int qs = QUEUEING_BEST_EFFORT_FIFO;
    cq->when_can_preempt = FUNGIBILITY_TRY_NEXT_FLAVOR;
    cq->fair_sharing_weight_milli = 1000;
    int r = decode_field_map(c, n, "spec", &spec);
    if (r < 0 || !spec)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_string(c, spec, "cohortName", &cq->cohort_name);
    /* kueue.x-k8s.io/v1beta1 called it spec.cohort. */
    if (r == 0 && !cq->cohort_name)
        r = decode_field_string(c, spec, "cohort", &cq->cohort_name);
    if (r == 0 && cq->cohort_name && !*cq->cohort_name)
        cq->cohort_name = NULL;
    if (r == 0)
        r = decode_resource_groups(c, spec, cq->cohort_name != NULL, false,
                                   &cq->n_resource_groups,
                                   &cq->resource_groups);
    if (r == 0)
        r = decode_field_enum(c, spec, "queueingStrategy", strategies, -1, &qs);
    cq->queueing_strategy = (enum queueing_strategy)qs;
    if (r == 0)
        r = decode_field_map(c, spec, "namespaceSelector", &ns);
    if (r == 0 && ns) {
        size_t m2 = decode_path_push(c, "namespaceSelector");
        cq->namespace_selector =
            arena_alloc(c->arena, sizeof(*cq->namespace_selector));
        r = cq->namespace_selector
                ? decode_label_selector(c, ns, cq->namespace_selector)
                : -ENOMEM;
        decode_path_pop(c, m2);
    }
    if (r == 0)
        r = decode_fungibility(c, spec, cq);
    if (r == 0)
        r = decode_preemption(c, spec, cq);
    if (r == 0)
        r = decode_stop_policy(c, spec, &cq->stop_policy);
    if (r == 0)
        r = decode_fair_weight(c, spec, &cq->fair_sharing_weight_milli);
    if (r == 0)
        r = decode_admission_checks(c, spec, cq);
    decode_path_pop(c, mark);
    return r;
}

int decode_local_queue(struct decode_ctx *c, const struct doc_node *n,
                       struct object *o)
{
    struct local_queue *lq = &o->u.local_queue;
    const struct doc_node *spec = NULL;
    lq->fair_sharing_weight_milli = 1000;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_string(c, spec, "clusterQueue", &lq->cluster_queue);
    if (r == 0 && (!lq->cluster_queue || !*lq->cluster_queue))
        r = decode_fail_at(c, spec, "clusterQueue", "required");
    if (r == 0)
        r = decode_stop_policy(c, spec, &lq->stop_policy);
    if (r == 0)
        r = decode_fair_weight(c, spec, &lq->fair_sharing_weight_milli);
    decode_path_pop(c, mark);
    return r;
}

int decode_cohort(struct decode_ctx *c, const struct doc_node *n,
                  struct object *o)
{
    struct cohort *co = &o->u.cohort;
    const struct doc_node *spec = NULL;
    co->fair_sharing_weight_milli = 1000;
    int r = decode_field_map(c, n, "spec", &spec);
    if (r < 0 || !spec)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_string(c, spec, "parentName", &co->parent_name);
    if (r == 0 && co->parent_name && !*co->parent_name)
        co->parent_name = NULL;
    if (r == 0 && co->parent_name &&
        strcmp(co->parent_name, o->meta.name) == 0)
        r = decode_fail_at(c, doc_map_get(spec, "parentName"), "parentName",
                           "a cohort cannot be its own parent");
    if (r == 0)
        r = decode_resource_groups(c, spec, co->parent_name != NULL, true,
                                   &co->n_resource_groups,
                                   &co->resource_groups);
    if (r == 0)
        r = decode_fair_weight(c, spec, &co->fair_sharing_weight_milli);
    decode_path_pop(c, mark);
    return r;
}

int decode_workload_priority_class(struct decode_ctx *c,
                                   const struct doc_node *n, struct object *o)
{
    struct workload_priority_class *w = &o->u.workload_priority_class;
    bool has_value = false;
    int r = decode_field_int32(c, n, "value", &has_value, &w->value);
    if (r == 0 && !has_value)
        r = decode_fail_at(c, n, "value", "required");
    if (r == 0)
        r = decode_field_string(c, n, "description", &w->description);
    if (r == 0 && w->description && strlen(w->description) > 2048)
        r = decode_fail_at(c, doc_map_get(n, "description"), "description",
                           "at most 2048 characters");
    return r;
}

int decode_topology(struct decode_ctx *c, const struct doc_node *n,
                    struct object *o)
{
    struct topology *t = &o->u.topology;
    const struct doc_node *spec = NULL, *levels = NULL;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_seq(c, spec, "levels", &levels);
    if (r == 0 && (!levels || levels->n < 1 || levels->n > 16))
        r = decode_fail_at(c, levels ? levels : spec, "levels",
                           "must list 1 to 16 levels");
    if (r == 0) {
        t->levels = arena_calloc(c->arena, levels->n, sizeof(*t->levels));
        if (!t->levels)
            r = -ENOMEM;
    }
    size_t m2 = decode_path_push(c, "levels");
    for (size_t i = 0; r == 0 && i < levels->n; i++) {
        const struct doc_node *lv = levels->items[i];
        size_t m3 = decode_path_push_index(c, i);
        r = decode_want_map(c, lv);
        if (r == 0)
            r = decode_field_string(c, lv, "nodeLabel", &t->levels[i]);
        if (r == 0 && (!t->levels[i] || !*t->levels[i]))
            r = decode_fail_at(c, lv, "nodeLabel", "required");
        for (size_t j = 0; r == 0 && j < i; j++)
            if (strcmp(t->levels[i], t->levels[j]) == 0)
                r = decode_fail_at(c, lv, "nodeLabel",
                                   "duplicate level \"%s\"", t->levels[i]);
        if (r == 0 && strcmp(t->levels[i], "kubernetes.io/hostname") == 0 &&
            i + 1 != levels->n)
            r = decode_fail_at(c, lv, "nodeLabel",
                               "kubernetes.io/hostname may only be the "
                               "last level");
        decode_path_pop(c, m3);
    }
    decode_path_pop(c, m2);
    decode_path_pop(c, mark);
    if (r == 0)
        t->n_levels = levels->n;
    return r;
}
