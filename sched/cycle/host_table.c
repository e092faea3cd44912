/* host_table.c - the host function table handed to plugins (struct
 * ordo_host), assembled here: the plain accessors of the cycle's snapshot
 * (workloads, pod sets, ClusterQueues, flavors, nodes), memory, reasons,
 * logging, configuration and the assignment writers are in this file;
 * Kueue's computations (its flavor check, quota over cohorts, preemption
 * candidates, fair-sharing shares, hierarchical advantage) in
 * host_kueue.c; ABI 1.4's getters, clock and metadata in host_meta.c; the
 * what-ifs in preempt_check.c.
 *
 * Every function only reads the cache, except the assignment writers, which
 * validate what a plugin asks for before recording it, and the what-ifs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "host_kueue.h"
#include "host_meta.h"
#include "host_table.h"
#include "labels.h"
#include "resources.h"
#include "log.h"
#include "plugins.h"
#include "preempt.h"
#include "quantity.h"
#include "resid.h"
#include "workload.h"

static void host_log(const struct ordo_plugin *p, enum ordo_log_level level,
                     const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* "plugin:0] NAME: message": the name begins the message itself, so
     * that a line of a plugin reads like the host's lines about it. */
    const char *name = p ? p->desc->name : "(unknown plugin)";
    switch (level) {
    case ORDO_LOG_DEBUG:
        log_write(LOG_INFO, 4, "plugin", 0, "%s: %s", name, msg);
        break;
    case ORDO_LOG_INFO:
        log_write(LOG_INFO, 1, "plugin", 0, "%s: %s", name, msg);
        break;
    case ORDO_LOG_WARNING:
        log_write(LOG_WARNING, 0, "plugin", 0, "%s: %s", name, msg);
        break;
    default:
        log_write(LOG_ERROR, 0, "plugin", 0, "%s: %s", name, msg);
    }
}

static void *host_alloc(size_t size)
{
    return calloc(1, size ? size : 1);
}

static void host_free(void *ptr)
{
    free(ptr);
}

static void *host_cycle_alloc(struct ordo_cycle *cy, size_t size)
{
    return cy ? arena_alloc(cy->scratch, size) : NULL;
}

static void host_reason(struct ordo_cycle *cy, const char *fmt, ...)
{
    if (!cy)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cy->reason, sizeof(cy->reason), fmt, ap);
    va_end(ap);
}

static int host_config_int(const struct ordo_plugin *p, const char *key,
                           int64_t def, int64_t *ret)
{
    const struct doc_node *v = p ? doc_map_get(p->args, key) : NULL;
    *ret = def;
    if (doc_is_null(v))
        return 0;
    return doc_get_int64(v, ret) < 0 ? -EINVAL : 0;
}

static int host_config_string(const struct ordo_plugin *p, const char *key,
                              const char *def, const char **ret)
{
    const struct doc_node *v = p ? doc_map_get(p->args, key) : NULL;
    *ret = def;
    if (doc_is_null(v))
        return 0;
    if (v->type != DOC_SCALAR)
        return -EINVAL;
    return doc_get_string(v, ret) < 0 ? -EINVAL : 0;
}

static ordo_resource_id host_resource_id(const char *name)
{
    return resid_lookup(name);
}

static const char *host_resource_name(ordo_resource_id id)
{
    return resid_name(id);
}

static const char *host_wl_name(const struct ordo_workload *wl)
{
    return WL(wl)->key;
}

static int32_t host_wl_priority(const struct ordo_workload *wl)
{
    return WL(wl)->priority;
}

static int64_t host_wl_queue_time(const struct ordo_workload *wl)
{
    return WL(wl)->queue_ns;
}

static const struct ordo_cq *host_wl_cq(const struct ordo_workload *wl)
{
    return (const struct ordo_cq *)WL(wl)->cq;
}

static uint32_t host_wl_n_podsets(const struct ordo_workload *wl)
{
    return WL(wl)->n_podsets;
}

static const char *host_ps_name(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = host_podset(wl, ps);
    return s ? s->name : NULL;
}

static uint32_t host_ps_count(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = host_podset(wl, ps);
    return s ? s->count : 0;
}

/* Kueue: when a ClusterQueue covers "pods", every pod set requests one
 * "pods" per pod. It is shown to plugins as one more request. */
static bool counts_pods(const struct workload *w)
{
    int32_t id = resid_lookup(RESOURCE_PODS);
    for (uint32_t g = 0; w->cq && id >= 0 && g < w->cq->n_groups; g++)
        if (cq_group_res_index(&w->cq->groups[g], id) >= 0)
            return true;
    return false;
}

static uint32_t host_ps_n_requests(const struct ordo_workload *wl, uint32_t ps)
{
    const struct podset *s = host_podset(wl, ps);
    return s ? s->n_req + counts_pods(WL(wl)) : 0;
}

static void host_ps_request(const struct ordo_workload *wl, uint32_t ps,
                            uint32_t i, ordo_resource_id *ret_id,
                            int64_t *ret_milli)
{
    const struct podset *s = host_podset(wl, ps);
    *ret_id = ORDO_RESOURCE_NONE;
    *ret_milli = 0;
    if (s && i < s->n_req) {
        *ret_id = s->req_ids[i];
        *ret_milli = s->req_milli[i];
    } else if (s && i == s->n_req && counts_pods(WL(wl))) {
        *ret_id = resid_lookup(RESOURCE_PODS);
        *ret_milli = 1000;
    }
}

static bool host_ps_matches_node(const struct ordo_workload *wl, uint32_t ps,
                                 const struct ordo_node *node)
{
    const struct podset *s = host_podset(wl, ps);
    const struct node *n = ND(node);
    return s &&
           node_matches_pod(&s->spec->node_selector, s->spec->required_affinity,
                            &n->obj->meta.labels, n->name);
}

static bool host_ps_tolerates_node(struct ordo_cycle *cy,
                                   const struct ordo_workload *wl, uint32_t ps,
                                   const struct ordo_node *node)
{
    const struct podset *s = host_podset(wl, ps);
    const struct node *n = ND(node);
    if (!s)
        return false;
    struct toleration tols[128];
    size_t k = 0;
    for (size_t i = 0; i < s->spec->n_tolerations && k < 128; i++)
        tols[k++] = s->spec->tolerations[i];
    /* The assigned flavors' tolerations, when deciding for this entry. */
    const struct workload *w = WL(wl);
    if (cy && cy->wl == w && cy->assign && w->cq) {
        for (uint32_t g = 0; g < w->cq->n_groups; g++) {
            const struct flavor *f = cy->assign[ps * w->cq->n_groups + g];
            if (!f || !f->obj)
                continue;
            const struct resource_flavor *rf = &f->obj->u.resource_flavor;
            for (size_t i = 0; i < rf->n_tolerations && k < 128; i++)
                tols[k++] = rf->tolerations[i];
        }
    }
    return !taints_find_untolerated(n->obj->u.node.taints,
                                    n->obj->u.node.n_taints, tols, k);
}

static const char *host_cq_name(const struct ordo_cq *cq)
{
    return CQ(cq)->name;
}

static uint32_t host_cq_n_groups(const struct ordo_cq *cq)
{
    return CQ(cq)->n_groups;
}

static int32_t host_cq_group_of(const struct ordo_cq *cq, ordo_resource_id id)
{
    for (uint32_t g = 0; g < CQ(cq)->n_groups; g++)
        if (cq_group_res_index(&CQ(cq)->groups[g], id) >= 0)
            return (int32_t)g;
    return -1;
}

static uint32_t host_cq_group_n_flavors(const struct ordo_cq *cq, uint32_t g)
{
    return g < CQ(cq)->n_groups ? CQ(cq)->groups[g].n_flavors : 0;
}

static const struct ordo_flavor *host_cq_group_flavor(const struct ordo_cq *cq,
                                                      uint32_t g, uint32_t i)
{
    if (g >= CQ(cq)->n_groups || i >= CQ(cq)->groups[g].n_flavors)
        return NULL;
    return (const struct ordo_flavor *)CQ(cq)->groups[g].flavors[i];
}

static bool host_cq_nominal(const struct ordo_cq *cq,
                            const struct ordo_flavor *f, ordo_resource_id id,
                            int64_t *ret_milli)
{
    const struct cq_group *grp;
    int i = host_cq_slot(CQ(cq), FL(f), id, &grp);
    if (i < 0)
        return false;
    *ret_milli = grp->nominal[i];
    return true;
}

static int64_t host_cq_usage(struct ordo_cycle *cy, const struct ordo_cq *cq,
                             const struct ordo_flavor *f, ordo_resource_id id)
{
    const struct cq_group *grp;
    int i = host_cq_slot(CQ(cq), FL(f), id, &grp);
    return i < 0 ? 0 : grp->usage[i];
}

static const char *host_flavor_name(const struct ordo_flavor *f)
{
    return FL(f)->name;
}

static uint32_t host_n_nodes(struct ordo_cycle *cy)
{
    return cy ? cy->c->n_nodes : 0;
}

static const struct ordo_node *host_node_at(struct ordo_cycle *cy, uint32_t i)
{
    if (!cy || i >= cy->c->n_nodes)
        return NULL;
    return (const struct ordo_node *)cy->c->nodes_v[i];
}

static const char *host_node_name(const struct ordo_node *n)
{
    return ND(n)->name;
}

static const char *host_node_label(const struct ordo_node *n, const char *key)
{
    return strmap_get(&ND(n)->obj->meta.labels, key);
}

static bool host_node_schedulable(const struct ordo_node *n)
{
    const struct node *nd = ND(n);
    return !nd->obj->u.node.unschedulable && nd->obj->u.node.ready &&
           !nd->obj->meta.deleting;
}

static int64_t host_node_allocatable(const struct ordo_node *n,
                                     ordo_resource_id id)
{
    const struct node *nd = ND(n);
    return id >= 0 && id < nd->n_ids ? nd->alloc[id] : 0;
}

static int64_t host_node_free(struct ordo_cycle *cy, const struct ordo_node *n,
                              ordo_resource_id id)
{
    return node_free_capacity(ND(n), id);
}

static int host_assign_flavor(struct ordo_cycle *cy, uint32_t ps, uint32_t g,
                              const struct ordo_flavor *f)
{
    if (!cy || !cy->wl || !cy->wl->cq || ps >= cy->wl->n_podsets ||
        g >= cy->wl->cq->n_groups ||
        cq_group_flavor_index(&cy->wl->cq->groups[g], FL(f)) < 0)
        return -EINVAL;
    cy->assign[ps * cy->wl->cq->n_groups + g] = (struct flavor *)FL(f);
    return 0;
}

static void host_assign_borrowing(struct ordo_cycle *cy, uint32_t level)
{
    if (cy)
        cy->borrowing = level;
}

static const struct ordo_flavor *
host_assigned_flavor(struct ordo_cycle *cy, uint32_t ps, ordo_resource_id id)
{
    if (!cy || !cy->wl || !cy->wl->cq || !cy->assign || ps >= cy->wl->n_podsets)
        return NULL;
    int32_t g = host_cq_group_of((const struct ordo_cq *)cy->wl->cq, id);
    if (g < 0)
        return NULL;
    return (const struct ordo_flavor *)
        cy->assign[ps * cy->wl->cq->n_groups + (uint32_t)g];
}

static const char *host_flavor_node_label(const struct ordo_flavor *f,
                                          const char *key)
{
    return FL(f)->obj
               ? strmap_get(&FL(f)->obj->u.resource_flavor.node_labels, key)
               : NULL;
}

static uint32_t host_flavor_n_node_labels(const struct ordo_flavor *f)
{
    return FL(f)->obj ? (uint32_t)FL(f)->obj->u.resource_flavor.node_labels.n
                      : 0;
}

static void host_flavor_node_label_at(const struct ordo_flavor *f, uint32_t i,
                                      const char **ret_key,
                                      const char **ret_value)
{
    *ret_key = *ret_value = NULL;
    if (i < host_flavor_n_node_labels(f)) {
        const struct strmap_entry *e =
            &FL(f)->obj->u.resource_flavor.node_labels.items[i];
        *ret_key = e->key;
        *ret_value = e->value;
    }
}

static bool host_cq_has_cohort(const struct ordo_cq *cq)
{
    return CQ(cq)->obj->u.cluster_queue.cohort_name != NULL;
}

static uint32_t host_cq_fungibility(const struct ordo_cq *cq,
                                    enum ordo_fungibility_field field)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    switch (field) {
    case ORDO_WHEN_CAN_BORROW:
        return (uint32_t)spec->when_can_borrow;
    case ORDO_WHEN_CAN_PREEMPT:
        return (uint32_t)spec->when_can_preempt;
    case ORDO_PREFERENCE:
        return (uint32_t)spec->fungibility_preference;
    }
    return 0;
}

static uint32_t host_cq_preemption(const struct ordo_cq *cq,
                                   enum ordo_preemption_field field)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    switch (field) {
    case ORDO_WITHIN_CLUSTER_QUEUE:
        return (uint32_t)spec->within_cluster_queue;
    case ORDO_RECLAIM_WITHIN_COHORT:
        return (uint32_t)spec->reclaim_within_cohort;
    case ORDO_BORROW_WITHIN_COHORT:
        return (uint32_t)spec->borrow_within_cohort;
    }
    return 0;
}

static bool host_fair_sharing(struct ordo_cycle *cy)
{
    return cy && cy->s->config && cy->s->config->fair_sharing;
}

/* ---- preemption ---------------------------------------------------------- */

static const struct ordo_cq *host_wl_admitted_cq(const struct ordo_workload *wl)
{
    const struct workload *w = WL(wl);
    return w->state == WL_ADMITTED ? (const struct ordo_cq *)w->admitted_cq
                                   : NULL;
}

static int64_t host_wl_admitted_time(const struct ordo_workload *wl)
{
    return WL(wl)->admitted_ns;
}

static bool host_wl_evicting(const struct ordo_workload *wl)
{
    return WL(wl)->evicting;
}

static bool host_cq_same(const struct ordo_cq *a, const struct ordo_cq *b)
{
    return a == b;
}

static uint32_t host_fs_strategies(struct ordo_cycle *cy, uint32_t ret[2])
{
    const struct sched_config *cfg = cy ? cy->s->config : NULL;
    if (!cfg) {
        ret[0] = 1;
        ret[1] = 2;
        return 2;
    }
    uint32_t n = (uint32_t)cfg->n_fs_strategies;
    for (uint32_t i = 0; i < n && i < 2; i++)
        ret[i] = cfg->fs_strategies[i];
    return n;
}

static bool host_cq_max_priority_threshold(const struct ordo_cq *cq,
                                           int32_t *ret)
{
    const struct cluster_queue *spec = &CQ(cq)->obj->u.cluster_queue;
    if (!spec->has_max_priority_threshold)
        return false;
    *ret = spec->max_priority_threshold;
    return true;
}

static const char *host_format_quantity(ordo_resource_id id, int64_t milli,
                                        char *buf, size_t size)
{
    const char *name = resid_name(id);
    struct quantity q = {milli, resource_quantity_format(name)};
    if (!buf || size == 0)
        return "";
    if (quantity_format(&q, buf, size) < 0)
        snprintf(buf, size, "%lldm", (long long)milli);
    return buf;
}

/* ---- the table ------------------------------------------------------------
 * Every slot in ordo/plugin.h's order; host_kueue.c's functions and the
 * what-ifs (preempt_check.c) among them. */

static const struct ordo_host host = {
    .abi_major = ORDO_ABI_MAJOR,
    .abi_minor = ORDO_ABI_MINOR,
    .struct_size = sizeof(struct ordo_host),
    .log = host_log,
    .alloc = host_alloc,
    .free = host_free,
    .cycle_alloc = host_cycle_alloc,
    .reason = host_reason,
    .config_int = host_config_int,
    .config_string = host_config_string,
    .resource_id = host_resource_id,
    .resource_name = host_resource_name,
    .wl_name = host_wl_name,
    .wl_priority = host_wl_priority,
    .wl_queue_time = host_wl_queue_time,
    .wl_cq = host_wl_cq,
    .wl_n_podsets = host_wl_n_podsets,
    .ps_name = host_ps_name,
    .ps_count = host_ps_count,
    .ps_n_requests = host_ps_n_requests,
    .ps_request = host_ps_request,
    .ps_matches_node = host_ps_matches_node,
    .ps_tolerates_node = host_ps_tolerates_node,
    .ps_matches_flavor = host_ps_matches_flavor,
    .cq_name = host_cq_name,
    .cq_n_groups = host_cq_n_groups,
    .cq_group_of = host_cq_group_of,
    .cq_group_n_flavors = host_cq_group_n_flavors,
    .cq_group_flavor = host_cq_group_flavor,
    .cq_nominal = host_cq_nominal,
    .cq_usage = host_cq_usage,
    .flavor_name = host_flavor_name,
    .n_nodes = host_n_nodes,
    .node_at = host_node_at,
    .node_name = host_node_name,
    .node_label = host_node_label,
    .node_schedulable = host_node_schedulable,
    .node_allocatable = host_node_allocatable,
    .node_free = host_node_free,
    .assign_flavor = host_assign_flavor,
    .assign_borrowing = host_assign_borrowing,
    .assigned_flavor = host_assigned_flavor,
    .flavor_node_label = host_flavor_node_label,
    .flavor_n_node_labels = host_flavor_n_node_labels,
    .flavor_node_label_at = host_flavor_node_label_at,
    .cq_available = host_cq_available,
    .cq_potential_available = host_cq_potential_available,
    .cq_borrowing_level = host_cq_borrowing_level,
    .cq_fits_below_root = host_cq_fits_below_root,
    .cq_has_cohort = host_cq_has_cohort,
    .cq_fungibility = host_cq_fungibility,
    .cq_preemption = host_cq_preemption,
    .fair_sharing = host_fair_sharing,
    .wl_admitted_cq = host_wl_admitted_cq,
    .wl_admitted_time = host_wl_admitted_time,
    .wl_evicting = host_wl_evicting,
    .cq_same = host_cq_same,
    .cq_over_nominal_for = host_cq_over_nominal_for,
    .whatif_remove = preempt_whatif_remove,
    .whatif_restore = preempt_whatif_restore,
    .preemptor_fits = host_preemptor_fits,
    .fs_preemptor_share = host_fs_preemptor_share,
    .fs_target_share = host_fs_target_share,
    .fs_strategies = host_fs_strategies,
    .cq_max_priority_threshold = host_cq_max_priority_threshold,
    .format_quantity = host_format_quantity,
    .preemption_candidates = host_preemption_candidates,
    .preemptor_advantage = host_preemptor_advantage,
    .fs_next_target = host_fs_next_target,
    .preemption_candidate_queues = host_preemption_candidate_queues,
    .ps_flavor_mismatch = host_ps_flavor_mismatch,
    .config_quantity = host_config_quantity,
    .config_duration = host_config_duration,
    .config_bool = host_config_bool,
    .config_list = host_config_list,
    .now = host_now,
    .wl_namespace = host_wl_namespace,
    .wl_object_name = host_wl_object_name,
    .wl_kind = host_wl_kind,
    .wl_label = host_wl_label,
    .wl_n_labels = host_wl_n_labels,
    .wl_label_at = host_wl_label_at,
    .wl_annotation = host_wl_annotation,
    .wl_n_annotations = host_wl_n_annotations,
    .wl_annotation_at = host_wl_annotation_at,
    .wl_creation_time = host_wl_creation_time,
    .wl_owner = host_wl_owner,
    .ps_label = host_ps_label,
    .ps_n_labels = host_ps_n_labels,
    .ps_label_at = host_ps_label_at,
    .ps_annotation = host_ps_annotation,
    .ps_n_annotations = host_ps_n_annotations,
    .ps_annotation_at = host_ps_annotation_at,
};

const struct ordo_host *host_table(void)
{
    return &host;
}
