/* place.c - putting a gang's pods on nodes: the host's own fit checks
 * (node_fit.c), then every PLACE plugin's filter and weighted score per
 * (pod, node), all pods of a workload or none; and handing the bindings to
 * the backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "log.h"
#include "node_fit.h"
#include "place.h"
#include "resid.h"
#include "watchdog.h"
#include "workload.h"

/* The host's own checks (node_fit.c), then every PLACE plugin on
 * (pod set, node): returns the weighted score, or -1 when the host or a
 * filter rejects it (reason kept in cy->reason; with want_reason false a
 * refusal the host knew already may leave it as it was). */
static int64_t place_score(struct ordo_cycle *cy, struct node_fit *nf,
                           struct workload *wl, uint32_t ps,
                           const struct pod *pod, struct node *n,
                           bool want_reason)
{
    const struct plugin_registry *r = &cy->s->plugins;
    const struct ordo_node *on = (const struct ordo_node *)n;
    const struct ordo_workload *ow = (const struct ordo_workload *)wl;
    /* Whatever plugins are configured: they narrow, never widen. */
    if (!node_fit_check(nf, ps, pod, n, want_reason))
        return -1;
    int64_t total = 0;
    for (size_t i = 0; i < r->n_place; i++) {
        const struct ordo_plugin *p = r->place[i];
        cy->reason[0] = '\0';
        struct watchdog_mark m;
        watchdog_enter(&m, p->desc->name, "filter");
        enum ordo_verdict v =
            entry_verdict(p->desc->place->filter(p->self, cy, ow, ps, on));
        watchdog_leave(&m);
        if (v == ORDO_SKIP)
            continue;
        if (v != ORDO_OK) {
            /* Prefixed with the plugin's name, as QUOTA and PREEMPT
             * reasons are. */
            char why[REASON_MAX];
            snprintf(why, sizeof(why), "%s", cy->reason);
            if (why[0])
                snprintf(cy->reason, sizeof(cy->reason), "%.63s: %.900s",
                         p->desc->name, why);
            else
                snprintf(cy->reason, sizeof(cy->reason),
                         "%.63s: node %.253s: rejected", p->desc->name,
                         n->name);
            return -1;
        }
        if (!p->desc->place->score)
            continue;
        int64_t sc = 0;
        watchdog_enter(&m, p->desc->name, "score");
        v = entry_verdict(p->desc->place->score(p->self, cy, ow, ps, on, &sc));
        watchdog_leave(&m);
        if (v == ORDO_OK && sc >= 0 && sc <= 100)
            total += sc * p->weight;
        else if (v != ORDO_SKIP)
            LOG_W("plugin %s: bad score %lld for node %s, ignored",
                  p->desc->name, (long long)sc, n->name);
    }
    return total;
}

/* Picks the best node for one pod; NULL with cy->reason when none. */
static struct node *place_pod(struct ordo_cycle *cy, struct node_fit *nf,
                              struct workload *wl, uint32_t ps,
                              const struct pod *pod, char *first_reason,
                              size_t size)
{
    struct node *best = NULL;
    int64_t best_score = -1;
    first_reason[0] = '\0';
    for (uint32_t i = 0; i < cy->c->n_nodes; i++) {
        struct node *n = cy->c->nodes_v[i];
        int64_t sc = place_score(cy, nf, wl, ps, pod, n, !first_reason[0]);
        if (sc < 0) {
            if (!first_reason[0])
                snprintf(first_reason, size, "%s", cy->reason);
            continue;
        }
        if (sc > best_score) {
            best = n;
            best_score = sc;
        }
    }
    return best;
}

/* Places the n pods of list (grouped by pod set), all or nothing: when
 * PLACE_PLACED each is charged on its node, nodes[i] being pods[i]'s;
 * otherwise nothing is charged and cy->reason says why. */
static enum place_outcome place_list(struct ordo_cycle *cy, struct workload *wl,
                                     struct pod **pods, struct node **nodes,
                                     size_t n)
{
    char why[REASON_MAX];
    struct node_fit nf;
    node_fit_begin(&nf, cy, wl, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t ps = pods[i]->podset;
        struct node *node =
            place_pod(cy, &nf, wl, ps, pods[i], why, sizeof(why));
        if (node) {
            node_charge(node, pods[i], 1);
            nodes[i] = node;
            continue;
        }
        uint32_t got = 0, want = 0;
        for (size_t k = 0; k < n; k++) {
            want += pods[k]->podset == ps;
            got += k < i && pods[k]->podset == ps;
        }
        snprintf(cy->reason, sizeof(cy->reason),
                 "pod set %s: %u of %u pods placed; %s", wl->podsets[ps].name,
                 got, want, why[0] ? why : "no nodes");
        for (size_t k = 0; k < i; k++)
            node_charge(nodes[k], pods[k], -1);
        return PLACE_NO_ROOM;
    }
    return PLACE_PLACED;
}

int place_gang(struct ordo_cycle *cy, struct workload *wl, bool all_pending,
               struct placement *ret, enum place_outcome *ret_outcome)
{
    if (wl->suspended && !all_pending)
        return place_planned(cy, wl, ret, ret_outcome);
    size_t total = 0;
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++)
        total +=
            all_pending ? workload_pending_pods(wl, ps) : wl->podsets[ps].count;
    struct pod **pods = arena_calloc(cy->scratch, total + 1, sizeof(*pods));
    struct node **nodes = arena_calloc(cy->scratch, total + 1, sizeof(*nodes));
    if (!pods || !nodes)
        return -ENOMEM;
    size_t n = 0;
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++) {
        uint32_t want =
            all_pending ? workload_pending_pods(wl, ps) : wl->podsets[ps].count;
        uint32_t got = 0;
        for (size_t i = 0; i < wl->n_pods && got < want && n < total; i++) {
            struct pod *p = wl->pods[i];
            /* One the API server has bound (spec.nodeName) is never
             * bound again. */
            if (p->podset != ps || p->state != PODSTATE_PENDING ||
                (p->obj && p->obj->u.pod.spec.node_name))
                continue;
            pods[n++] = p;
            got++;
        }
    }
    *ret_outcome = place_list(cy, wl, pods, nodes, n);
    if (*ret_outcome == PLACE_PLACED)
        *ret = (struct placement){.pods = pods, .nodes = nodes, .n = n};
    return 0;
}

/* A pod that stands for one of pod set ps that its controller has not
 * made yet: the pod set's request, and one of the node's "pods". */
static struct pod *planned_pod(const struct workload *wl, uint32_t ps)
{
    const struct podset *s = &wl->podsets[ps];
    struct pod *p = calloc(1, sizeof(*p));
    int32_t pods_id = resid_intern(RESOURCE_PODS);
    if (!p || pods_id < 0)
        goto oom;
    p->n_ids = resid_count();
    p->request = calloc((size_t)p->n_ids, sizeof(*p->request));
    if (!p->request)
        goto oom;
    for (uint32_t i = 0; i < s->n_req; i++)
        if (s->req_ids[i] >= 0 && s->req_ids[i] < p->n_ids)
            p->request[s->req_ids[i]] = s->req_milli[i];
    p->request[pods_id] = 1000;
    p->podset = ps;
    p->wl = (struct workload *)wl;
    return p;
oom:
    cluster_planned_pod_free(p);
    return NULL;
}

int place_planned(struct ordo_cycle *cy, struct workload *wl,
                  struct placement *ret, enum place_outcome *ret_outcome)
{
    size_t total = 0, n = 0;
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++)
        total += wl->podsets[ps].count;
    struct pod **pods = arena_calloc(cy->scratch, total + 1, sizeof(*pods));
    struct node **nodes = arena_calloc(cy->scratch, total + 1, sizeof(*nodes));
    if (!pods || !nodes)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++)
        for (uint32_t k = 0; k < wl->podsets[ps].count; k++)
            if (!(pods[n++] = planned_pod(wl, ps)))
                goto oom;
    *ret_outcome = place_list(cy, wl, pods, nodes, n);
    if (*ret_outcome == PLACE_PLACED) {
        *ret = (struct placement){.pods = pods, .nodes = nodes, .n = n};
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        cluster_planned_pod_free(pods[i]);
    return 0;
oom:
    for (size_t i = 0; i < n; i++)
        cluster_planned_pod_free(pods[i]);
    return -ENOMEM;
}

void place_undo(const struct placement *pl)
{
    for (size_t k = 0; k < pl->n; k++) {
        node_charge(pl->nodes[k], pl->pods[k], -1);
        if (pod_planned(pl->pods[k]))
            cluster_planned_pod_free(pl->pods[k]);
    }
}

/* Pods are assumed on their nodes already; tell the backend. */
void place_bind(struct ordo_cycle *cy, const struct placement *pl)
{
    for (size_t i = 0; i < pl->n; i++) {
        struct pod *p = pl->pods[i];
        struct node *n = pl->nodes[i];
        p->node = n;
        pod_set_state(cy->c, p, PODSTATE_BOUND);
        int r = cy->s->backend->bind(cy->s->backend_data, p, n);
        if (r < 0) {
            LOG_E("binding pod %s to node %s failed: %s; it will be retried",
                  p->key, n->name, strerror(-r));
            node_charge(n, p, -1);
            p->node = NULL;
            pod_set_state(cy->c, p, PODSTATE_PENDING);
            if (p->wl)
                cluster_mark_straggler(cy->c, p->wl);
        }
    }
}
