/* decode_kueue.c - decoders for Kueue's v1beta2 kinds: ResourceFlavor,
 * ClusterQueue, LocalQueue, Cohort, WorkloadPriorityClass and Topology.
 *
 * Ordo is the only reader of these objects when it replaces Kueue, so it
 * applies the checks of Kueue's webhooks here (limits, enum values, quota
 * rules) and rejects an invalid object with the field that is wrong. As
 * kubectl's field validation would, every map is checked against the table
 * of the fields Kueue's API has there (beside each decoder below): an unknown
 * field is reported with the likely intended one, and a field Kueue has but
 * Ordo does not implement is named as unsupported. Decoders go on past a
 * failed field where the rest does not depend on it, so that every error of
 * an object is reported. kueue.x-k8s.io/v1beta1 objects are read too, with
 * a warning for each field that differs (spec.cohort, spec.admissionChecks,
 * the fungibility values Borrow and Preempt). */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"

#define NO_ADMISSION_CHECKS "Ordo does not implement admission checks yet"
#define NO_AFS                                                                 \
    "Ordo does not implement Admission Fair Sharing; the field is ignored"

static const char *const stop_policies[] = {"None", "Hold", "HoldAndDrain",
                                            NULL};

static const struct decode_known fair_sharing_known[] = {{"weight", NULL},
                                                         {NULL, NULL}};

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
    r = decode_check_known(c, fs, fair_sharing_known);
    int r2 = decode_field_quantity(c, fs, "weight", NULL, ret_milli);
    if (r2 == 0 && *ret_milli < 0)
        r2 = decode_fail_at(c, doc_map_get(fs, "weight"), "weight",
                            "must be >= 0");
    decode_path_pop(c, mark);
    return decode_join(r, r2);
}

static int decode_stop_policy(struct decode_ctx *c, const struct doc_node *spec,
                              enum stop_policy *ret)
{
    int v = STOP_POLICY_NONE;
    int r = decode_field_enum(c, spec, "stopPolicy", stop_policies, -1, &v);
    *ret = (enum stop_policy)v;
    return r;
}

/* resourceGroups[].flavors[].resources[]: ResourceQuota. */
static const struct decode_known quota_known[] = {{"name", NULL},
                                                  {"nominalQuota", NULL},
                                                  {"borrowingLimit", NULL},
                                                  {"lendingLimit", NULL},
                                                  {NULL, NULL}};

/* A limit (borrowingLimit, lendingLimit) of q: >= 0, and only in a cohort. */
static int check_limit(struct decode_ctx *c, const struct doc_node *n,
                       const char *key, bool has, int64_t v, bool in_cohort,
                       bool is_cohort)
{
    if (has && v < 0)
        return decode_fail_at(c, doc_map_get(n, key), key, "must be >= 0");
    if (has && !in_cohort)
        return decode_fail_at(c, doc_map_get(n, key), key,
                              "must be nil when %s is empty",
                              is_cohort ? "parentName" : "cohortName");
    return 0;
}

static int decode_resource_quota(struct decode_ctx *c, const struct doc_node *n,
                                 bool in_cohort, bool is_cohort,
                                 struct resource_quota *q)
{
    bool has_nominal = false;
    int r = decode_want_map(c, n);
    if (r < 0)
        return r;
    r = decode_check_known(c, n, quota_known);
    int r2 = decode_field_string(c, n, "name", &q->name);
    if (r2 == 0 && !q->name)
        r2 = decode_fail_at(c, n, "name", "required");
    r = decode_join(r, r2);
    r2 = decode_field_quantity(c, n, "nominalQuota", &has_nominal,
                               &q->nominal_quota);
    if (r2 == 0 && !has_nominal)
        r2 = decode_fail_at(c, n, "nominalQuota", "required");
    if (r2 == 0 && q->nominal_quota < 0)
        r2 = decode_fail_at(c, doc_map_get(n, "nominalQuota"), "nominalQuota",
                            "must be >= 0");
    r = decode_join(r, r2);
    bool nominal_ok = r2 == 0;
    r2 = decode_field_quantity(c, n, "borrowingLimit", &q->has_borrowing_limit,
                               &q->borrowing_limit);
    if (r2 == 0)
        r2 = check_limit(c, n, "borrowingLimit", q->has_borrowing_limit,
                         q->borrowing_limit, in_cohort, is_cohort);
    r = decode_join(r, r2);
    r2 = decode_field_quantity(c, n, "lendingLimit", &q->has_lending_limit,
                               &q->lending_limit);
    if (r2 == 0)
        r2 = check_limit(c, n, "lendingLimit", q->has_lending_limit,
                         q->lending_limit, in_cohort, is_cohort);
    /* Unlike a ClusterQueue, a Cohort may lend more than its own nominal
     * quota (it lends its children's too). */
    if (r2 == 0 && nominal_ok && !is_cohort && q->has_lending_limit &&
        q->lending_limit > q->nominal_quota)
        r2 = decode_fail_at(c, doc_map_get(n, "lendingLimit"), "lendingLimit",
                            "must be less than or equal to nominalQuota");
    return decode_join(r, r2);
}

/* resourceGroups[].flavors[]: FlavorQuotas. */
static const struct decode_known flavor_quotas_known[] = {
    {"name", NULL}, {"resources", NULL}, {NULL, NULL}};

static int decode_flavor_quotas(struct decode_ctx *c, const struct doc_node *n,
                                const struct resource_group *g, bool in_cohort,
                                bool is_cohort, struct flavor_quotas *fq)
{
    const struct doc_node *res = NULL;
    int r = decode_want_map(c, n);
    if (r < 0)
        return r;
    r = decode_check_known(c, n, flavor_quotas_known);
    int r2 = decode_field_string(c, n, "name", &fq->name);
    if (r2 == 0 && (!fq->name || !*fq->name))
        r2 = decode_fail_at(c, n, "name", "required");
    r = decode_join(r, r2);
    r2 = decode_field_seq(c, n, "resources", &res);
    if (r2 == 0 && (!res || res->n == 0))
        r2 = decode_fail_at(c, n, "resources", "required");
    if (r2 == 0 && res->n != g->n_covered)
        r2 = decode_fail_at(c, res, "resources",
                            "must list the %zu covered resources, has %zu",
                            g->n_covered, res->n);
    r = decode_join(r, r2);
    if (!res || res->n == 0 || r == -ENOMEM)
        return r;
    fq->resources = arena_calloc(c->arena, res->n, sizeof(*fq->resources));
    if (!fq->resources)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "resources");
    for (size_t i = 0; r != -ENOMEM && i < res->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r2 = decode_resource_quota(c, res->items[i], in_cohort, is_cohort,
                                   &fq->resources[i]);
        if (r2 == 0 && i < g->n_covered &&
            strcmp(fq->resources[i].name, g->covered_resources[i]))
            r2 = decode_fail_at(c, res->items[i], "name",
                                "must be \"%s\" (coveredResources[%zu]); "
                                "resources must follow coveredResources in "
                                "order",
                                g->covered_resources[i], i);
        r = decode_join(r, r2);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    fq->n_resources = res->n;
    return r;
}

/* resourceGroups[]: ResourceGroup. */
static const struct decode_known resource_group_known[] = {
    {"coveredResources", NULL}, {"flavors", NULL}, {NULL, NULL}};

static int decode_resource_group(struct decode_ctx *c, const struct doc_node *n,
                                 bool in_cohort, bool is_cohort,
                                 struct resource_group *g)
{
    const struct doc_node *fl = NULL;
    int r = decode_want_map(c, n);
    if (r < 0)
        return r;
    r = decode_check_known(c, n, resource_group_known);
    int r2 = decode_field_strings(c, n, "coveredResources", &g->n_covered,
                                  &g->covered_resources);
    if (r2 == 0 && (g->n_covered < 1 || g->n_covered > 64))
        r2 = decode_fail_at(c, n, "coveredResources",
                            "must list 1 to 64 resources");
    for (size_t i = 0; r2 == 0 && i < g->n_covered; i++)
        for (size_t j = 0; r2 == 0 && j < i; j++)
            if (strcmp(g->covered_resources[i], g->covered_resources[j]) == 0)
                r2 = decode_fail_at(c, n, "coveredResources",
                                    "duplicate resource \"%s\"",
                                    g->covered_resources[i]);
    /* The flavors are checked against the covered resources. */
    bool covered_ok = r2 == 0;
    r = decode_join(r, r2);
    r2 = decode_field_seq(c, n, "flavors", &fl);
    if (r2 == 0 && (!fl || fl->n < 1 || fl->n > 64))
        r2 = decode_fail_at(c, fl ? fl : n, "flavors",
                            "must list 1 to 64 flavors");
    r = decode_join(r, r2);
    if (r2 < 0 || !covered_ok)
        return r;
    g->flavors = arena_calloc(c->arena, fl->n, sizeof(*g->flavors));
    if (!g->flavors)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "flavors");
    for (size_t i = 0; r != -ENOMEM && i < fl->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_join(r, decode_flavor_quotas(c, fl->items[i], g, in_cohort,
                                                is_cohort, &g->flavors[i]));
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    g->n_flavors = fl->n;
    return r;
}

/* The rules across groups: a resource and a flavor belong to one group
 * only. Group i is compared with those before it and its own flavors. */
static int check_groups(struct decode_ctx *c, const struct doc_node *seq,
                        const struct resource_group *gs, size_t i)
{
    for (size_t j = 0; j <= i; j++) {
        for (size_t a = 0; a < gs[i].n_covered && j < i; a++)
            for (size_t b = 0; b < gs[j].n_covered; b++)
                if (!strcmp(gs[i].covered_resources[a],
                            gs[j].covered_resources[b]))
                    return decode_fail_at(c, seq->items[i], "coveredResources",
                                          "resource \"%s\" is already covered "
                                          "by resourceGroups[%zu]",
                                          gs[i].covered_resources[a], j);
        for (size_t a = 0; a < gs[i].n_flavors; a++) {
            size_t end = j < i ? gs[j].n_flavors : a;
            for (size_t b = 0; b < end; b++)
                if (!strcmp(gs[i].flavors[a].name, gs[j].flavors[b].name))
                    return decode_fail_at(c, seq->items[i], "flavors",
                                          "flavor \"%s\" appears twice (also "
                                          "in resourceGroups[%zu])",
                                          gs[i].flavors[a].name, j);
        }
    }
    return 0;
}

/* spec.resourceGroups of a ClusterQueue or Cohort. */
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
    for (size_t i = 0; r != -ENOMEM && i < seq->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        size_t errors = c->n_errors;
        int r2 = decode_resource_group(c, seq->items[i], in_cohort, is_cohort,
                                       &gs[i]);
        if (r2 < 0 || c->n_errors != errors) {
            /* Not compared: its names may be missing. */
            gs[i].n_covered = 0;
            gs[i].n_flavors = 0;
        } else {
            r2 = check_groups(c, seq, gs, i);
        }
        r = decode_join(r, r2);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = seq->n;
        *ret = gs;
    }
    return r;
}

/* ResourceFlavor spec. */
static const struct decode_known flavor_spec_known[] = {
    {"nodeLabels", NULL},
    {"nodeTaints", NULL},
    {"tolerations", NULL},
    {"topologyName",
     "Ordo does not implement topology-aware scheduling yet; the flavor's "
     "nodes are used without a topology"},
    {NULL, NULL}};

int decode_resource_flavor(struct decode_ctx *c, const struct doc_node *n,
                           struct object *o)
{
    struct resource_flavor *rf = &o->u.resource_flavor;
    const struct doc_node *spec = NULL;
    int r = decode_field_map(c, n, "spec", &spec);
    if (r < 0 || !spec)
        return r; /* an empty flavor matches every node */
    size_t mark = decode_path_push(c, "spec");
    r = decode_check_known(c, spec, flavor_spec_known);
    int r2 = decode_field_labels(c, spec, "nodeLabels", &rf->node_labels);
    if (r2 == 0 && rf->node_labels.n > 8)
        r2 = decode_fail_at(c, doc_map_get(spec, "nodeLabels"), "nodeLabels",
                            "at most 8 labels, has %zu", rf->node_labels.n);
    bool labels_ok = r2 == 0;
    r = decode_join(r, r2);
    r2 = decode_taints(c, spec, "nodeTaints", &rf->n_node_taints,
                       &rf->node_taints);
    if (r2 == 0 && rf->n_node_taints > 8)
        r2 = decode_fail_at(c, doc_map_get(spec, "nodeTaints"), "nodeTaints",
                            "at most 8 taints, has %zu", rf->n_node_taints);
    r = decode_join(r, r2);
    r2 = decode_tolerations(c, spec, "tolerations", &rf->n_tolerations,
                            &rf->tolerations);
    if (r2 == 0 && rf->n_tolerations > 8)
        r2 =
            decode_fail_at(c, doc_map_get(spec, "tolerations"), "tolerations",
                           "at most 8 tolerations, has %zu", rf->n_tolerations);
    r = decode_join(r, r2);
    r2 = decode_field_string(c, spec, "topologyName", &rf->topology_name);
    if (r2 == 0 && labels_ok && rf->topology_name && rf->node_labels.n == 0)
        r2 =
            decode_fail_at(c, doc_map_get(spec, "topologyName"), "topologyName",
                           "requires at least one entry in nodeLabels");
    decode_path_pop(c, mark);
    return decode_join(r, r2);
}

/* ClusterQueue spec.flavorFungibility. */
static const struct decode_known fungibility_known[] = {
    {"whenCanBorrow", NULL},
    {"whenCanPreempt", NULL},
    {"preference", NULL},
    {NULL, NULL}};

/* One of whenCanBorrow, whenCanPreempt. v1beta1's Borrow and Preempt were
 * removed in v1beta2, which reads both as MayStopSearch. */
static int decode_fungibility_policy(struct decode_ctx *c,
                                     const struct doc_node *ff, const char *key,
                                     int *ret)
{
    static const char *const policies[] = {"MayStopSearch", "TryNextFlavor",
                                           NULL};
    static const char *const v1beta1[] = {"MayStopSearch", "TryNextFlavor",
                                          "Borrow", "Preempt", NULL};
    int v = *ret;
    int r =
        decode_field_enum(c, ff, key, c->v1beta1 ? v1beta1 : policies, -1, &v);
    if (r == 0 && v >= 2) {
        r = decode_warn_at(c, ff, key,
                           "kueue.x-k8s.io/v1beta1 value \"%s\", read as "
                           "MayStopSearch (v1beta2 removed it)",
                           v1beta1[v]);
        v = FUNGIBILITY_MAY_STOP_SEARCH;
    }
    *ret = v;
    return r;
}

static int decode_fungibility(struct decode_ctx *c, const struct doc_node *spec,
                              struct cluster_queue *cq)
{
    static const char *const prefs[] = {"", "BorrowingOverPreemption",
                                        "PreemptionOverBorrowing", NULL};
    const struct doc_node *ff = NULL;
    int borrow = FUNGIBILITY_MAY_STOP_SEARCH;
    int preempt = FUNGIBILITY_TRY_NEXT_FLAVOR;
    int pref = FUNGIBILITY_PREFERENCE_NONE;
    int r = decode_field_map(c, spec, "flavorFungibility", &ff);
    if (r == 0 && ff) {
        size_t mark = decode_path_push(c, "flavorFungibility");
        r = decode_check_known(c, ff, fungibility_known);
        int rb = decode_fungibility_policy(c, ff, "whenCanBorrow", &borrow);
        int rp = decode_fungibility_policy(c, ff, "whenCanPreempt", &preempt);
        int rf = decode_field_enum(c, ff, "preference", prefs, -1, &pref);
        r = decode_join(decode_join(r, rb), decode_join(rp, rf));
        if (rb == 0 && rp == 0 && rf == 0 &&
            pref != FUNGIBILITY_PREFERENCE_NONE &&
            (borrow != FUNGIBILITY_TRY_NEXT_FLAVOR ||
             preempt != FUNGIBILITY_TRY_NEXT_FLAVOR))
            r = decode_join(
                r,
                decode_fail_at(c, doc_map_get(ff, "preference"), "preference",
                               "only allowed when whenCanBorrow and "
                               "whenCanPreempt are both TryNextFlavor"));
        decode_path_pop(c, mark);
    }
    cq->when_can_borrow = (enum fungibility_policy)borrow;
    cq->when_can_preempt = (enum fungibility_policy)preempt;
    cq->fungibility_preference = (enum fungibility_preference)pref;
    return r;
}

/* ClusterQueue spec.preemption and its borrowWithinCohort. */
static const struct decode_known preemption_known[] = {
    {"reclaimWithinCohort", NULL},
    {"borrowWithinCohort", NULL},
    {"withinClusterQueue", NULL},
    {NULL, NULL}};
static const struct decode_known borrow_within_known[] = {
    {"policy", NULL}, {"maxPriorityThreshold", NULL}, {NULL, NULL}};

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
    r = decode_check_known(c, p, preemption_known);
    r = decode_join(
        r, decode_field_enum(c, p, "withinClusterQueue", within, -1, &w));
    int rr = decode_field_enum(c, p, "reclaimWithinCohort", reclaim, -1, &rc);
    if (rc == 2) /* the third name is Any */
        rc = PREEMPTION_ANY;
    r = decode_join(r, rr);
    int r2 = decode_field_map(c, p, "borrowWithinCohort", &bwc);
    if (r2 == 0 && bwc) {
        size_t m2 = decode_path_push(c, "borrowWithinCohort");
        r2 = decode_check_known(c, bwc, borrow_within_known);
        int rp = decode_field_enum(c, bwc, "policy", borrow, -1, &b);
        r2 = decode_join(r2, rp);
        r2 = decode_join(r2, decode_field_int32(c, bwc, "maxPriorityThreshold",
                                                &cq->has_max_priority_threshold,
                                                &cq->max_priority_threshold));
        if (rp == 0 && rr == 0 && b != PREEMPTION_NEVER &&
            rc == PREEMPTION_NEVER)
            r2 = decode_join(r2, decode_fail_at(c, doc_map_get(bwc, "policy"),
                                                "policy",
                                                "must be Never when "
                                                "reclaimWithinCohort is "
                                                "Never"));
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    cq->within_cluster_queue = (enum preemption_policy)w;
    cq->reclaim_within_cohort = (enum preemption_policy)rc;
    cq->borrow_within_cohort = (enum preemption_policy)b;
    return decode_join(r, r2);
}

/* ClusterQueue spec.admissionChecksStrategy: read (a ClusterQueue that
 * names checks is not active), but Ordo runs no checks. */
static const struct decode_known checks_strategy_known[] = {
    {"admissionChecks", NULL}, {NULL, NULL}};
static const struct decode_known check_rule_known[] = {
    {"name", NULL}, {"onFlavors", NULL}, {NULL, NULL}};

static int decode_admission_checks(struct decode_ctx *c,
                                   const struct doc_node *spec,
                                   struct cluster_queue *cq)
{
    const struct doc_node *acs = NULL, *list = NULL;
    int r = decode_field_map(c, spec, "admissionChecksStrategy", &acs);
    if (r < 0 || !acs)
        return r;
    size_t mark = decode_path_push(c, "admissionChecksStrategy");
    r = decode_check_known(c, acs, checks_strategy_known);
    int r2 = decode_field_seq(c, acs, "admissionChecks", &list);
    if (r2 == 0 && list && list->n) {
        cq->admission_checks =
            arena_calloc(c->arena, list->n, sizeof(*cq->admission_checks));
        if (!cq->admission_checks)
            r2 = -ENOMEM;
        size_t m2 = decode_path_push(c, "admissionChecks");
        for (size_t i = 0; r2 != -ENOMEM && i < list->n; i++) {
            size_t m3 = decode_path_push_index(c, i);
            int r3 = decode_want_map(c, list->items[i]);
            if (r3 == 0)
                r3 = decode_check_known(c, list->items[i], check_rule_known);
            if (r3 == 0)
                r3 = decode_field_string(c, list->items[i], "name",
                                         &cq->admission_checks[i]);
            if (r3 == 0 && !cq->admission_checks[i])
                r3 = decode_fail_at(c, list->items[i], "name", "required");
            r2 = decode_join(r2, r3);
            decode_path_pop(c, m3);
        }
        decode_path_pop(c, m2);
        cq->n_admission_checks = list->n;
    }
    decode_path_pop(c, mark);
    return decode_join(r, r2);
}

/* kueue.x-k8s.io/v1beta1 spec.admissionChecks: a list of names, read as
 * v1beta2's admissionChecksStrategy.admissionChecks[].name. */
static int decode_v1beta1_admission_checks(struct decode_ctx *c,
                                           const struct doc_node *spec,
                                           struct cluster_queue *cq)
{
    size_t n = 0;
    const char **names = NULL;
    int r = decode_field_strings(c, spec, "admissionChecks", &n, &names);
    if (r < 0 || n == 0)
        return r;
    if (cq->n_admission_checks)
        return decode_fail_at(c, spec, "admissionChecks",
                              "either admissionChecks or "
                              "admissionChecksStrategy can be set, but not "
                              "both");
    cq->admission_checks = names;
    cq->n_admission_checks = n;
    return 0;
}

/* ClusterQueue spec, v1beta2 and v1beta1 (cohort for cohortName, a list
 * admissionChecks, no concurrentAdmissionPolicy). */
static const struct decode_known cq_spec_known[] = {
    {"resourceGroups", NULL},
    {"cohortName", NULL},
    {"queueingStrategy", NULL},
    {"namespaceSelector", NULL},
    {"flavorFungibility", NULL},
    {"preemption", NULL},
    {"admissionChecksStrategy", NO_ADMISSION_CHECKS},
    {"stopPolicy", NULL},
    {"fairSharing", NULL},
    {"admissionScope", NO_AFS},
    {"concurrentAdmissionPolicy",
     "Ordo does not implement concurrent admission (workload migration "
     "between flavors); the field is ignored"},
    {NULL, NULL}};
static const struct decode_known cq_spec_v1beta1_known[] = {
    {"resourceGroups", NULL},
    {"cohort", NULL},
    {"queueingStrategy", NULL},
    {"namespaceSelector", NULL},
    {"flavorFungibility", NULL},
    {"preemption", NULL},
    {"admissionChecks", NO_ADMISSION_CHECKS},
    {"admissionChecksStrategy", NO_ADMISSION_CHECKS},
    {"stopPolicy", NULL},
    {"fairSharing", NULL},
    {"admissionScope", NO_AFS},
    {NULL, NULL}};

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
    r = decode_check_known(c, spec,
                           c->v1beta1 ? cq_spec_v1beta1_known : cq_spec_known);
    /* kueue.x-k8s.io/v1beta1 called it spec.cohort. */
    const char *cohort_key = c->v1beta1 ? "cohort" : "cohortName";
    int r2 = decode_field_string(c, spec, cohort_key, &cq->cohort_name);
    if (r2 == 0 && c->v1beta1 && cq->cohort_name)
        r2 = decode_warn_at(c, spec, "cohort",
                            "kueue.x-k8s.io/v1beta1 field, read as v1beta2 "
                            "spec.cohortName");
    if (cq->cohort_name && !*cq->cohort_name)
        cq->cohort_name = NULL;
    r = decode_join(r, r2);
    /* A cohort that failed to read: no limit errors on top of its own. */
    bool in_cohort = cq->cohort_name != NULL ||
                     (r2 < 0 && doc_map_get(spec, cohort_key) != NULL);
    r = decode_join(r, decode_resource_groups(c, spec, in_cohort, false,
                                              &cq->n_resource_groups,
                                              &cq->resource_groups));
    r = decode_join(
        r, decode_field_enum(c, spec, "queueingStrategy", strategies, -1, &qs));
    cq->queueing_strategy = (enum queueing_strategy)qs;
    r2 = decode_field_map(c, spec, "namespaceSelector", &ns);
    if (r2 == 0 && ns) {
        size_t m2 = decode_path_push(c, "namespaceSelector");
        cq->namespace_selector =
            arena_alloc(c->arena, sizeof(*cq->namespace_selector));
        r2 = cq->namespace_selector
                 ? decode_label_selector(c, ns, cq->namespace_selector)
                 : -ENOMEM;
        decode_path_pop(c, m2);
    }
    r = decode_join(r, r2);
    r = decode_join(r, decode_fungibility(c, spec, cq));
    r = decode_join(r, decode_preemption(c, spec, cq));
    r = decode_join(r, decode_stop_policy(c, spec, &cq->stop_policy));
    r = decode_join(
        r, decode_fair_weight(c, spec, &cq->fair_sharing_weight_milli));
    r = decode_join(r, decode_admission_checks(c, spec, cq));
    if (c->v1beta1 && r != -ENOMEM)
        r = decode_join(r, decode_v1beta1_admission_checks(c, spec, cq));
    decode_path_pop(c, mark);
    return r;
}

/* LocalQueue spec. */
static const struct decode_known lq_spec_known[] = {
    {"clusterQueue", NULL},
    {"stopPolicy", NULL},
    {"fairSharing",
     "Ordo does not implement Admission Fair Sharing, the only use of a "
     "LocalQueue's weight; the field is ignored"},
    {NULL, NULL}};

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
    r = decode_check_known(c, spec, lq_spec_known);
    int r2 = decode_field_string(c, spec, "clusterQueue", &lq->cluster_queue);
    if (r2 == 0 && (!lq->cluster_queue || !*lq->cluster_queue))
        r2 = decode_fail_at(c, spec, "clusterQueue", "required");
    r = decode_join(r, r2);
    r = decode_join(r, decode_stop_policy(c, spec, &lq->stop_policy));
    r = decode_join(
        r, decode_fair_weight(c, spec, &lq->fair_sharing_weight_milli));
    decode_path_pop(c, mark);
    return r;
}

/* Cohort spec. */
static const struct decode_known cohort_spec_known[] = {
    {"parentName", NULL},
    {"resourceGroups", NULL},
    {"fairSharing", NULL},
    {NULL, NULL}};

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
    r = decode_check_known(c, spec, cohort_spec_known);
    int r2 = decode_field_string(c, spec, "parentName", &co->parent_name);
    if (co->parent_name && !*co->parent_name)
        co->parent_name = NULL;
    if (r2 == 0 && co->parent_name && o->meta.name &&
        strcmp(co->parent_name, o->meta.name) == 0)
        r2 = decode_fail_at(c, doc_map_get(spec, "parentName"), "parentName",
                            "a cohort cannot be its own parent");
    r = decode_join(r, r2);
    bool in_cohort = co->parent_name != NULL ||
                     (r2 < 0 && doc_map_get(spec, "parentName") != NULL);
    r = decode_join(r, decode_resource_groups(c, spec, in_cohort, true,
                                              &co->n_resource_groups,
                                              &co->resource_groups));
    r = decode_join(
        r, decode_fair_weight(c, spec, &co->fair_sharing_weight_milli));
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
    int r2 = decode_field_string(c, n, "description", &w->description);
    if (r2 == 0 && w->description && strlen(w->description) > 2048)
        r2 = decode_fail_at(c, doc_map_get(n, "description"), "description",
                            "at most 2048 characters");
    return decode_join(r, r2);
}

/* Topology spec and its levels[]. */
static const struct decode_known topology_spec_known[] = {{"levels", NULL},
                                                          {NULL, NULL}};
static const struct decode_known level_known[] = {{"nodeLabel", NULL},
                                                  {NULL, NULL}};

int decode_topology(struct decode_ctx *c, const struct doc_node *n,
                    struct object *o)
{
    struct topology *t = &o->u.topology;
    const struct doc_node *spec = NULL, *levels = NULL;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    int rk = decode_check_known(c, spec, topology_spec_known);
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
            rk = decode_join(rk, decode_check_known(c, lv, level_known));
        if (r == 0)
            r = decode_field_string(c, lv, "nodeLabel", &t->levels[i]);
        if (r == 0 && (!t->levels[i] || !*t->levels[i]))
            r = decode_fail_at(c, lv, "nodeLabel", "required");
        for (size_t j = 0; r == 0 && j < i; j++)
            if (strcmp(t->levels[i], t->levels[j]) == 0)
                r = decode_fail_at(c, lv, "nodeLabel", "duplicate level \"%s\"",
                                   t->levels[i]);
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
    return decode_join(rk, r);
}
