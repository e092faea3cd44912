/* node_fit.c - the host's own node checks, run before any PLACE plugin
 * (node_fit.h): room, node state, the assigned flavors' nodeLabels, and
 * taints against the pod set's tolerations plus the flavors' (the ones
 * Kueue injects into the pods it admits).
 *
 * Cost: room is compared per pod (it changes as pods are charged), in
 * integers. The rest depends only on (pod set, node) during a placement,
 * so it is decided once per pair and kept in a byte of cycle scratch: a
 * gang of N pods over M nodes does the label look-ups (strmap_get: a
 * linear scan of short maps, a hash of long ones) and the taint scans
 * M times per pod set, not N x M. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "labels.h"
#include "node_fit.h"
#include "resid.h"
#include "satmath.h"
#include "workload.h"

enum { NODE_FIT_UNKNOWN = 0, NODE_FIT_OK, NODE_FIT_REFUSED };

void node_fit_begin(struct node_fit *nf, struct ordo_cycle *cy,
                    const struct workload *wl, size_t n_pods)
{
    nf->cy = cy;
    nf->wl = wl;
    nf->n_nodes = cy->c->n_nodes;
    nf->known = NULL;
    /* With one pod per pod set nothing would be asked twice. Without
     * scratch every check is made in full: slower, still right. */
    size_t cells = (size_t)wl->n_podsets * nf->n_nodes;
    if (cells && n_pods > wl->n_podsets)
        nf->known = arena_calloc(cy->scratch, cells, 1);
}

/* The flavor assigned to pod set ps for resource group g, or NULL. The
 * layout is the admission's for a placement within it (stragglers), the
 * ClusterQueue's otherwise. */
static const struct flavor *fit_flavor(const struct node_fit *nf, uint32_t ps,
                                       uint32_t g, uint32_t n_groups)
{
    const struct ordo_cycle *cy = nf->cy;
    if (!cy->assign || cy->wl != nf->wl || g >= n_groups)
        return NULL;
    return cy->assign[ps * n_groups + g];
}

static uint32_t fit_n_groups(const struct node_fit *nf)
{
    const struct workload *wl = nf->wl;
    if (nf->cy->assign && nf->cy->assign == wl->flavors)
        return wl->flavor_groups;
    return wl->cq ? wl->cq->n_groups : 0;
}

/* True when the pod set or one of its assigned flavors tolerates t. */
static bool fit_tolerated(const struct node_fit *nf, uint32_t ps,
                          uint32_t n_groups, const struct taint *t)
{
    const struct podset *s = &nf->wl->podsets[ps];
    for (size_t i = 0; i < s->spec->n_tolerations; i++)
        if (toleration_tolerates(&s->spec->tolerations[i], t))
            return true;
    for (uint32_t g = 0; g < n_groups; g++) {
        const struct flavor *f = fit_flavor(nf, ps, g, n_groups);
        if (!f || !f->obj)
            continue;
        const struct resource_flavor *rf = &f->obj->u.resource_flavor;
        for (size_t i = 0; i < rf->n_tolerations; i++)
            if (toleration_tolerates(&rf->tolerations[i], t))
                return true;
    }
    return false;
}

/* What does not change during the placement: state, labels, taints. */
static bool fit_static(const struct node_fit *nf, uint32_t ps,
                       const struct node *n)
{
    struct ordo_cycle *cy = nf->cy;
    const struct node_object *no = &n->obj->u.node;
    if (no->unschedulable) {
        snprintf(cy->reason, sizeof(cy->reason),
                 "node %s is unschedulable (cordoned)", n->name);
        return false;
    }
    if (!no->ready) {
        snprintf(cy->reason, sizeof(cy->reason), "node %s is not Ready",
                 n->name);
        return false;
    }
    if (n->obj->meta.deleting) {
        snprintf(cy->reason, sizeof(cy->reason), "node %s is being deleted",
                 n->name);
        return false;
    }
    uint32_t n_groups = fit_n_groups(nf);
    for (uint32_t g = 0; g < n_groups; g++) {
        const struct flavor *f = fit_flavor(nf, ps, g, n_groups);
        if (!f || !f->obj)
            continue;
        const struct strmap *want = &f->obj->u.resource_flavor.node_labels;
        for (size_t i = 0; i < want->n; i++) {
            const char *have =
                strmap_get(&n->obj->meta.labels, want->items[i].key);
            if (have && strcmp(have, want->items[i].value) == 0)
                continue;
            snprintf(cy->reason, sizeof(cy->reason),
                     "node %s lacks label %s=%s of flavor %s", n->name,
                     want->items[i].key, want->items[i].value, f->name);
            return false;
        }
    }
    for (size_t i = 0; i < no->n_taints; i++) {
        const struct taint *t = &no->taints[i];
        if (t->effect != TAINT_EFFECT_NO_SCHEDULE &&
            t->effect != TAINT_EFFECT_NO_EXECUTE)
            continue;
        if (fit_tolerated(nf, ps, n_groups, t))
            continue;
        snprintf(cy->reason, sizeof(cy->reason),
                 "node %s has taint %s%s%s:%s that pod set %s does not "
                 "tolerate",
                 n->name, t->key, t->value && t->value[0] ? "=" : "",
                 t->value ? t->value : "", taint_effect_to_string(t->effect),
                 nf->wl->podsets[ps].name);
        return false;
    }
    return true;
}

bool node_fit_check(struct node_fit *nf, uint32_t ps, const struct pod *pod,
                    const struct node *n, bool want_reason)
{
    struct ordo_cycle *cy = nf->cy;
    /* Room first, as before this check grew: never bind past allocatable
     * less every pod on the node, other schedulers' included. */
    for (int32_t id = 0; id < pod->n_ids; id++) {
        if (pod->request[id] > 0 &&
            !sat_fits(pod->request[id], node_free_capacity(n, id))) {
            snprintf(cy->reason, sizeof(cy->reason), "node %s: insufficient %s",
                     n->name, resid_name(id));
            return false;
        }
    }
    uint8_t *known = NULL;
    if (nf->known && ps < nf->wl->n_podsets && n->index < nf->n_nodes)
        known = &nf->known[(size_t)ps * nf->n_nodes + n->index];
    if (known && *known == NODE_FIT_OK)
        return true;
    if (known && *known == NODE_FIT_REFUSED && !want_reason)
        return false;
    bool ok = fit_static(nf, ps, n);
    if (known)
        *known = ok ? NODE_FIT_OK : NODE_FIT_REFUSED;
    return ok;
}
