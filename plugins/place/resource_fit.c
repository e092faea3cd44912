/* resource_fit.c - the "resource-fit" PLACE plugin: whether one pod of a
 * pod set can go on a node, and how good the node is.
 *
 * filter: the node is schedulable, matches the pod set's node selector /
 * affinity, carries no taint the pod set does not tolerate, carries every
 * nodeLabel of the flavors the QUOTA plugin assigned to the pod set, and has
 * free room for every resource one pod requests. Problems no preemption can
 * fix (labels, taints, a request above the node's allocatable) are
 * UNRESOLVABLE, a lack of free room UNSCHEDULABLE, as in kube-scheduler.
 * The host makes all but the selector check itself before any PLACE plugin
 * (sched/cycle/node_fit.c); the plugin keeps them so that its verdicts
 * stand alone against any host, the mock one of its tests included.
 *
 * score: kube-scheduler's NodeResourcesFit strategies with equal weights,
 * averaged over the resources the pod requests, integers only:
 *   LeastAllocated (default): free after placement / allocatable * 100
 *   MostAllocated:            used after placement / allocatable * 100
 * chosen with pluginConfig args {scoringStrategy: MostAllocated}. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ordo/plugin.h>

enum scoring { SCORING_LEAST_ALLOCATED = 0, SCORING_MOST_ALLOCATED = 1 };

struct resource_fit {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
    enum scoring scoring;
};

#define QTY_MAX 32

/* Quantities in reasons, as Kubernetes prints them (host->format_quantity). */
static const char *qty(const struct ordo_host *h, ordo_resource_id id,
                       int64_t milli, char buf[QTY_MAX])
{
    return h->format_quantity(id, milli, buf, QTY_MAX);
}

static const char *res_name(const struct ordo_host *h, ordo_resource_id id)
{
    const char *name = h->resource_name(id);
    return name ? name : "?";
}

/* ORDO_OK when node carries every nodeLabel of flavor f. */
static enum ordo_verdict check_flavor_labels(const struct ordo_host *h,
                                             struct ordo_cycle *cy,
                                             const struct ordo_node *node,
                                             const struct ordo_flavor *f)
{
    uint32_t n = h->flavor_n_node_labels(f);
    for (uint32_t i = 0; i < n; i++) {
        const char *key, *value;
        h->flavor_node_label_at(f, i, &key, &value);
        const char *have = h->node_label(node, key);
        if (!have || strcmp(have, value) != 0) {
            h->reason(cy, "node %s lacks flavor label %s=%s",
                      h->node_name(node), key, value);
            return ORDO_UNRESOLVABLE;
        }
    }
    return ORDO_OK;
}

static enum ordo_verdict resource_fit_filter(void *self, struct ordo_cycle *cy,
                                             const struct ordo_workload *wl,
                                             uint32_t ps,
                                             const struct ordo_node *node)
{
    const struct resource_fit *s = self;
    const struct ordo_host *h = s->host;
    const char *name = h->node_name(node);

    if (!h->node_schedulable(node)) {
        h->reason(cy, "node %s is unschedulable", name);
        return ORDO_UNRESOLVABLE;
    }
    if (!h->ps_matches_node(wl, ps, node)) {
        h->reason(cy,
                  "node %s does not match the node selector / affinity of "
                  "pod set %s",
                  name, h->ps_name(wl, ps));
        return ORDO_UNRESOLVABLE;
    }
    if (!h->ps_tolerates_node(cy, wl, ps, node)) {
        h->reason(cy, "node %s has a taint that pod set %s does not tolerate",
                  name, h->ps_name(wl, ps));
        return ORDO_UNRESOLVABLE;
    }

    uint32_t n_req = h->ps_n_requests(wl, ps);
    const struct ordo_flavor *checked = NULL;
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli;
        h->ps_request(wl, ps, i, &id, &milli);
        const struct ordo_flavor *f = h->assigned_flavor(cy, ps, id);
        if (!f || f == checked)
            continue;
        enum ordo_verdict v = check_flavor_labels(h, cy, node, f);
        if (v != ORDO_OK)
            return v;
        checked = f;
    }

    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli;
        h->ps_request(wl, ps, i, &id, &milli);
        if (milli <= 0)
            continue;
        int64_t free_milli = h->node_free(cy, node, id);
        /* INT64_MAX is a saturated (uncountable) request: it never fits. */
        if (milli != INT64_MAX && milli <= free_milli)
            continue;
        const char *r = res_name(h, id);
        char a[QTY_MAX], b[QTY_MAX];
        h->reason(cy, "node %s: insufficient %s (needs %s, free %s)", name, r,
                  qty(h, id, milli, a), qty(h, id, free_milli, b));
        /* Preemption cannot make room beyond what the node has at all. */
        return milli == INT64_MAX || milli > h->node_allocatable(node, id)
                   ? ORDO_UNRESOLVABLE
                                                     : ORDO_UNSCHEDULABLE;
    }
    return ORDO_OK;
}

/* part * 100 / whole for 0 <= part <= whole, whole > 0, without overflow. */
static int64_t percent(int64_t part, int64_t whole)
{
    while (whole > INT64_MAX / 100) {
        part /= 2;
        whole /= 2;
    }
    return part * 100 / whole;
}

static enum ordo_verdict resource_fit_score(void *self, struct ordo_cycle *cy,
                                            const struct ordo_workload *wl,
                                            uint32_t ps,
                                            const struct ordo_node *node,
                                            int64_t *ret_score)
{
    const struct resource_fit *s = self;
    const struct ordo_host *h = s->host;
    uint32_t n_req = h->ps_n_requests(wl, ps);
    int64_t sum = 0, n = 0;

    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli;
        h->ps_request(wl, ps, i, &id, &milli);
        int64_t alloc = h->node_allocatable(node, id);
        if (milli <= 0 || alloc <= 0)
            continue;
        /* Free after placing this pod, clamped to [0, allocatable]. */
        int64_t left = h->node_free(cy, node, id);
        left = left < milli ? 0 : left - milli;
        if (left > alloc)
            left = alloc;
        if (s->scoring == SCORING_MOST_ALLOCATED)
            sum += percent(alloc - left, alloc);
        else
            sum += percent(left, alloc);
        n++;
    }
    *ret_score = n ? sum / n : 0;
    return ORDO_OK;
}

static int resource_fit_init(const struct ordo_host *host,
                             const struct ordo_plugin *p, void **ret_self)
{
    const char *strategy;
    int rc =
        host->config_string(p, "scoringStrategy", "LeastAllocated", &strategy);
    if (rc < 0) {
        host->log(p, ORDO_LOG_ERROR, "scoringStrategy must be a string");
        return rc;
    }
    enum scoring scoring;
    if (strcmp(strategy, "LeastAllocated") == 0) {
        scoring = SCORING_LEAST_ALLOCATED;
    } else if (strcmp(strategy, "MostAllocated") == 0) {
        scoring = SCORING_MOST_ALLOCATED;
    } else {
        host->log(p, ORDO_LOG_ERROR,
                  "unknown scoringStrategy \"%s\" (want LeastAllocated or "
                  "MostAllocated)",
                  strategy);
        return -EINVAL;
    }

    struct resource_fit *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    self->scoring = scoring;
    *ret_self = self;
    return 0;
}

static void resource_fit_fini(void *self)
{
    struct resource_fit *s = self;
    if (s)
        s->host->free(s);
}

static const struct ordo_place_ops resource_fit_ops = {
    .filter = resource_fit_filter,
    .score = resource_fit_score,
};

/* What pluginConfig[].args may hold (ABI 1.4): checked at startup. */
static const struct ordo_arg resource_fit_args[] = {
    {"scoringStrategy", ORDO_ARG_STRING, "LeastAllocated",
     "LeastAllocated (spread) or MostAllocated (pack)"},
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_PLACE,
    .name = "resource-fit",
    .version = "1.0.0",
    .summary = "nodes with free room and the assigned flavor's labels; "
               "LeastAllocated or MostAllocated scoring",
    .init = resource_fit_init,
    .fini = resource_fit_fini,
    .place = &resource_fit_ops,
    .args = resource_fit_args,
    .n_args = ORDO_N_ARGS(resource_fit_args),
};
