/* cycle.c - one scheduling cycle, Kueue's way with Ordo binding the pods:
 *
 *   heads (one per active ClusterQueue, ordered by its QUEUE plugin)
 *   -> QUOTA plugin: flavors and mode (fit / needs preemption / no fit)
 *   -> entries sorted: non-borrowing first, higher priority, earlier time
 *   -> for each entry: host re-checks quota against the snapshot as charged
 *      so far this cycle, PLACE plugins filter and score nodes for every pod
 *      of every pod set (all or nothing), host re-checks node fit
 *   -> commit: the cache assumes the admission and the pods at once, then
 *      the backend binds each pod.
 *
 * Verdicts are interpreted here and only here; plugins never call each
 * other, and nothing a plugin answers is trusted without a check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cycle.h"
#include "log.h"
#include "queue.h"
#include "resid.h"
#include "workload.h"

/* Cycles run at one instant until one admits nothing; this bounds them
 * when something keeps changing without progress. */
#define CYCLES_PER_RUN_MAX 100000

struct entry {
    struct workload *wl;
    struct flavor **assign;
    enum ordo_quota_mode mode;
    enum ordo_verdict verdict;
    uint32_t borrowing;
    int64_t *usage; /* per FR of the quota tree: what admitting it takes */
    bool borrows_after; /* a preemptor: still borrows with its victims gone */
    bool done;
    bool reserved; /* a preemptor: its usage is held for the cycle */
    /* Its queue's requeue generation when it became the head: a wake-up
     * during the cycle (an eviction freeing quota) is not lost. */
    uint64_t gen;
    char reason[256];
};

int cycle_begin_entry(struct ordo_cycle *cy, struct workload *wl)
{
    uint32_t ng = wl->cq ? wl->cq->n_groups : 0;
    cy->wl = wl;
    cy->borrowing = 0;
    cy->reason[0] = '\0';
    cy->assign = arena_calloc(cy->scratch, (size_t)wl->n_podsets * (ng ? ng : 1),
                              sizeof(*cy->assign));
    return cy->assign ? 0 : -ENOMEM;
}

static enum ordo_verdict sanitize_verdict(int v)
{
    return v >= ORDO_OK && v <= ORDO_ERROR ? (enum ordo_verdict)v : ORDO_ERROR;
}

/* Asks the QUOTA plugin for wl's flavors. */
static int nominate(struct ordo_cycle *cy, struct entry *e)
{
    struct ordo_plugin *qp = cy->s->plugins.quota;
    int r = cycle_begin_entry(cy, e->wl);
    if (r < 0)
        return r;
    enum ordo_quota_mode mode = ORDO_QUOTA_NOFIT;
    e->verdict = sanitize_verdict(qp->desc->quota->assign(
        qp->self, cy, (const struct ordo_workload *)e->wl, &mode));
    e->assign = cy->assign;
    e->borrowing = cy->borrowing;
    if (e->verdict != ORDO_OK) {
        e->mode = ORDO_QUOTA_NOFIT;
        snprintf(e->reason, sizeof(e->reason), "%.63s: %.190s",
                 qp->desc->name,
                 cy->reason[0] ? cy->reason : "quota plugin failed");
        return 0;
    }
    e->mode = mode <= ORDO_QUOTA_NOFIT ? mode : ORDO_QUOTA_NOFIT;
    if (e->mode != ORDO_QUOTA_FIT)
        snprintf(e->reason, sizeof(e->reason), "%s",
                 cy->reason[0] ? cy->reason : "does not fit in quota");
    return 0;
}

/* What admitting e takes, per FR of the quota tree, into e->usage; fails
 * when a requested resource has no assigned flavor the ClusterQueue
 * lists. */
static bool entry_usage(struct ordo_cycle *cy, struct entry *e, char *why,
                        size_t size)
{
    const struct workload *wl = e->wl;
    const struct cq *q = wl->cq;
    const struct qtree *t = &cy->c->tree;
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    e->usage = arena_calloc(cy->scratch, t->n_fr ? t->n_fr : 1,
                            sizeof(*e->usage));
    if (!e->usage) {
        snprintf(why, size, "out of memory");
        return false;
    }
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++) {
        const struct podset *s = &wl->podsets[ps];
        for (uint32_t i = 0; i <= s->n_req; i++) {
            int32_t id = i < s->n_req ? s->req_ids[i] : pods_id;
            int64_t per_pod = i < s->n_req ? s->req_milli[i] : 1000;
            int g = -1, r = -1;
            for (uint32_t k = 0; k < q->n_groups && r < 0; k++) {
                r = cq_group_res_index(&q->groups[k], id);
                g = (int)k;
            }
            if (r < 0) {
                if (i == s->n_req)
                    continue; /* "pods" counts only where covered */
                snprintf(why, size, "resource %s is not covered by "
                                    "ClusterQueue %s",
                         resid_name(id), q->name);
                return false;
            }
            const struct flavor *f = e->assign[ps * q->n_groups + (uint32_t)g];
            int fr = f ? qtree_fr(t, f, id) : -1;
            if (!f || cq_group_flavor_index(&q->groups[g], f) < 0 || fr < 0) {
                snprintf(why, size, "no flavor assigned for %s of pod set %s",
                         resid_name(id), s->name);
                return false;
            }
            e->usage[fr] += (int64_t)s->count * per_pod;
        }
    }
    return true;
}

/* The host's own check of a FIT assignment, against the snapshot as
 * charged so far this cycle: every FR within what the ClusterQueue can
 * take now (Kueue's Available). */
static bool quota_recheck(struct ordo_cycle *cy, struct entry *e, char *why,
                          size_t size)
{
    const struct qtree *t = &cy->c->tree;
    if (!e->usage && !entry_usage(cy, e, why, size))
        return false;
    int i = qtree_first_short(e->wl->cq->qnode, e->usage, true);
    if (i >= 0) {
        snprintf(why, size,
                 "quota for %s in flavor %s was taken earlier in this cycle",
                 resid_name(t->frs[i].res), t->frs[i].flavor->name);
        return false;
    }
    return true;
}

/* Runs every PLACE plugin on (pod set, node): returns the weighted score,
 * or -1 when a filter rejects it (reason kept in cy->reason). */
static int64_t place_score(struct ordo_cycle *cy, struct workload *wl,
                           uint32_t ps, const struct pod *pod,
                           struct node *n)
{
    const struct plugin_registry *r = &cy->s->plugins;
    const struct ordo_node *on = (const struct ordo_node *)n;
    const struct ordo_workload *ow = (const struct ordo_workload *)wl;
    /* The host's own fit check first: never bind past allocatable. */
    for (int32_t id = 0; id < pod->n_ids; id++) {
        if (pod->request[id] > 0 && pod->request[id] > node_free(n, id)) {
            snprintf(cy->reason, sizeof(cy->reason),
                     "node %s: insufficient %s", n->name, resid_name(id));
            return -1;
        }
    }
    int64_t total = 0;
    for (size_t i = 0; i < r->n_place; i++) {
        const struct ordo_plugin *p = r->place[i];
        cy->reason[0] = '\0';
        enum ordo_verdict v =
            sanitize_verdict(p->desc->place->filter(p->self, cy, ow, ps, on));
        if (v == ORDO_SKIP)
            continue;
        if (v != ORDO_OK) {
            if (!cy->reason[0])
                snprintf(cy->reason, sizeof(cy->reason), "node %s: rejected",
                         n->name);
            return -1;
        }
        if (!p->desc->place->score)
            continue;
        int64_t sc = 0;
        v = sanitize_verdict(p->desc->place->score(p->self, cy, ow, ps, on,
                                                   &sc));
        if (v == ORDO_OK && sc >= 0 && sc <= 100)
            total += sc * p->weight;
        else if (v != ORDO_SKIP)
            LOG_W("plugin %s: bad score %lld for node %s, ignored",
                  p->desc->name, (long long)sc, n->name);
    }
    return total;
}

/* Picks the best node for one pod; NULL with cy->reason when none. */
static struct node *place_pod(struct ordo_cycle *cy, struct workload *wl,
                              uint32_t ps, const struct pod *pod,
                              char *first_reason, size_t size)
{
    struct node *best = NULL;
    int64_t best_score = -1;
    first_reason[0] = '\0';
    for (uint32_t i = 0; i < cy->c->n_nodes; i++) {
        struct node *n = cy->c->nodes_v[i];
        int64_t sc = place_score(cy, wl, ps, pod, n);
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

/* Places `count` pending pods of every pod set, all or nothing. On success
 * the pods are assumed on their nodes (node usage charged) and listed in
 * ret_pods/ret_nodes; on failure nothing is charged and cy->reason says
 * why. */
static int place_gang(struct ordo_cycle *cy, struct workload *wl,
                      bool all_pending, struct pod ***ret_pods,
                      struct node ***ret_nodes, size_t *ret_n)
{
    size_t total = 0;
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++)
        total += all_pending ? workload_pending_pods(wl, ps)
                             : wl->podsets[ps].count;
    struct pod **pods = arena_calloc(cy->scratch, total + 1, sizeof(*pods));
    struct node **nodes = arena_calloc(cy->scratch, total + 1, sizeof(*nodes));
    if (!pods || !nodes)
        return -ENOMEM;
    size_t n = 0;
    char why[256];
    for (uint32_t ps = 0; ps < wl->n_podsets; ps++) {
        uint32_t want = all_pending ? workload_pending_pods(wl, ps)
                                    : wl->podsets[ps].count;
        uint32_t got = 0;
        for (size_t i = 0; i < wl->n_pods && got < want; i++) {
            struct pod *p = wl->pods[i];
            if (p->podset != ps || p->state != PODSTATE_PENDING)
                continue;
            struct node *node = place_pod(cy, wl, ps, p, why, sizeof(why));
            if (!node) {
                snprintf(cy->reason, sizeof(cy->reason),
                         "pod set %s: %u of %u pods placed; %s",
                         wl->podsets[ps].name, got, want,
                         why[0] ? why : "no nodes");
                for (size_t k = 0; k < n; k++)
                    node_charge(nodes[k], pods[k], -1);
                return 1;
            }
            node_charge(node, p, 1);
            pods[n] = p;
            nodes[n++] = node;
            got++;
        }
    }
    *ret_pods = pods;
    *ret_nodes = nodes;
    *ret_n = n;
    return 0;
}

/* Pods are assumed on their nodes already; tell the backend. */
static void bind_pods(struct ordo_cycle *cy, struct pod **pods,
                      struct node **nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pods[i]->node = nodes[i];
        pods[i]->ran_on = nodes[i];
        pods[i]->state = PODSTATE_BOUND;
        pods[i]->bound_at_ns = cy->c->now_ns;
        int r = cy->s->backend->bind(cy->s->backend_data, pods[i], nodes[i]);
        if (r < 0) {
            LOG_E("binding pod %s to node %s failed: %s; it will be retried",
                  pods[i]->key, nodes[i]->name, strerror(-r));
            node_charge(nodes[i], pods[i], -1);
            pods[i]->node = NULL;
            pods[i]->state = PODSTATE_PENDING;
            if (pods[i]->wl)
                cluster_mark_straggler(cy->c, pods[i]->wl);
        }
    }
}

/* Sets w->preempting, keeping the cluster's count of them. */
static void set_preempting(struct cluster *c, struct workload *w, bool on)
{
    if (w->preempting == on)
        return;
    w->preempting = on;
    if (on)
        c->n_preempting++;
    else if (c->n_preempting > 0)
        c->n_preempting--;
}

static int commit(struct ordo_cycle *cy, struct entry *e, struct pod **pods,
                  struct node **nodes, size_t n)
{
    struct workload *wl = e->wl;
    struct cq *q = wl->cq;
    size_t slots = (size_t)wl->n_podsets * (q->n_groups ? q->n_groups : 1);
    struct flavor **flavors = calloc(slots, sizeof(*flavors));
    if (!flavors || cq_add_admitted(q, wl) < 0) {
        free(flavors);
        for (size_t k = 0; k < n; k++)
            node_charge(nodes[k], pods[k], -1);
        return -ENOMEM;
    }
    memcpy(flavors, e->assign, (size_t)wl->n_podsets * q->n_groups *
                                   sizeof(*flavors));
    free(wl->flavors);
    wl->flavors = flavors;
    wl->flavor_groups = q->n_groups;
    if (workload_record_charges(wl, q) < 0) {
        cq_remove_admitted(q, wl);
        free(wl->flavors);
        wl->flavors = NULL;
        for (size_t k = 0; k < n; k++)
            node_charge(nodes[k], pods[k], -1);
        return -ENOMEM;
    }
    wl->admitted_cq = q;
    wl->borrows = e->borrowing > 0;
    wl->state = WL_ADMITTED;
    wl->admitted_ns = cy->c->now_ns;
    wl->has_admitted = true;
    wl->parked = false;
    set_preempting(cy->c, wl, false);
    wl->spares_preemptor = false;
    free(wl->preempt_assign);
    wl->preempt_assign = NULL;
    wl->reason[0] = '\0';
    queue_remove(q, wl);
    cq_charge(q, wl, 1);
    LOG_V(2, "admitted workload wl=\"%s\" cq=\"%s\" pods=%zu", wl->key,
          q->name, n);
    bind_pods(cy, pods, nodes, n);
    return 0;
}

static void not_admitted(struct ordo_cycle *cy, struct entry *e)
{
    struct workload *wl = e->wl;
    struct cq *q = wl->cq;
    struct ordo_plugin *qp = q->queue_plugin;
    workload_set_reason(wl, "%s", e->reason);
    enum ordo_verdict v =
        e->verdict == ORDO_OK ? ORDO_UNSCHEDULABLE : e->verdict;
    enum ordo_queue_action a = qp->desc->queue->on_not_admitted(
        qp->self, (const struct ordo_workload *)wl, v);
    /* A preemptor stays its queue's head whatever the strategy: parking it
     * would move nothing and make the scheduler spin at this instant. */
    if (a == ORDO_QUEUE_NEXT && !wl->preempting) {
        wl->parked = true;
        wl->parked_gen = e->gen;
        cy->s->parked++; /* the queue moved on: worth another cycle */
    }
    LOG_V(3, "workload not admitted wl=\"%s\" reason=\"%s\"", wl->key,
          e->reason);
}

/* ---- preemption ------------------------------------------------------------- */


/* Charges (sign 1) or releases (-1) a preemptor's usage on its
 * ClusterQueue for the rest of the cycle (Kueue reserves it too). */
static void hold_usage(const struct qtree *t, struct entry *e, int sign)
{
    struct qnode *qn = e->wl->cq ? e->wl->cq->qnode : NULL;
    if (!qn || !e->usage)
        return;
    for (uint32_t i = 0; i < t->n_fr; i++)
        if (e->usage[i] > 0)
            qtree_add_usage(qn, (int)i, sign * e->usage[i]);
    e->reserved = sign > 0;
}

/* A preemptor that found nothing to preempt, in a ClusterQueue that cannot
 * always reclaim what it lends (reclaimWithinCohort is not Any): what it
 * waits for is held for the rest of the cycle, so that lower entries of
 * other queues do not borrow quota it could not take back (Kueue's
 * resourcesToReserve). Per FR: its request, clamped to what the queue has
 * left below nominal, or below nominal + borrowingLimit when it borrows;
 * a borrower without a borrowingLimit holds its whole request. */
static void reserve_unreclaimable(struct ordo_cycle *cy, struct entry *e)
{
    const struct qtree *t = &cy->c->tree;
    struct cq *q = e->wl->cq;
    struct qnode *qn = q ? q->qnode : NULL;
    char why[64];
    if (!qn || q->obj->u.cluster_queue.reclaim_within_cohort == PREEMPTION_ANY)
        return;
    if (!e->usage && !entry_usage(cy, e, why, sizeof(why)))
        return;
    for (uint32_t i = 0; i < t->n_fr; i++) {
        int64_t want = e->usage[i], used = qnode_usage(qn, (int)i);
        if (want <= 0)
            continue;
        int64_t room = qn->nominal[i] - used;
        if (e->borrowing > 0)
            room = qn->borrowing_limit[i] == QUOTA_UNSET
                       ? want
                       : qn->nominal[i] + qn->borrowing_limit[i] - used;
        e->usage[i] = room < want ? (room > 0 ? room : 0) : want;
    }
    hold_usage(t, e, 1);
}

/* Whether admitted workload w uses an FR with need > 0. */
static bool uses_needed(const struct qtree *t, const struct workload *w,
                        const int64_t *need)
{
    for (uint32_t i = 0; i < t->n_fr; i++)
        if (need[i] > 0 && workload_uses_fr(w, t->frs[i].flavor, t->frs[i].res))
            return true;
    return false;
}

/* How long a displacement counts in a chain of them (see spared). It only
 * has to outlast one round of a ring: evictions, pods going, requeue. */
#define DISPLACEMENT_MEMORY_NS (10LL * 60 * 1000000000)

/* Whether next's own displacement led to it displacing x: next was evicted
 * (by a preemptor) no later than it evicted x, recently. */
static bool displaced_before(const struct cluster *c,
                             const struct workload *next,
                             const struct workload *x)
{
    if (next->spares_preemptor)
        return true; /* still pending since it was displaced */
    return next->evicted_by[0] && next->evicted_by_preemptor &&
           next->evicted_ns <= x->evicted_ns &&
           c->now_ns - next->evicted_ns <= DISPLACEMENT_MEMORY_NS;
}

/* Whether preemptor p leaves w alone: w displaced p, directly (w preempted
 * p, and p has not been admitted since) or through a chain of
 * displacements (w preempted x1, which then preempted x2, ..., which
 * preempted p), each recent and each caused by the one before. Kueue's
 * rules alone can loop when a preemption leaves its victim's ClusterQueue
 * under nominal quota (fair sharing's LessThanInitialShare or reclaim
 * within nominal, borrowWithinCohort, reclaimWithinCohort Any): the victim
 * reclaims from its preemptor, or from a third workload that then reclaims
 * from another, and so on around a ring. */
static bool spared(struct cluster *c, const struct workload *p,
                   const struct workload *w)
{
    if (!p->spares_preemptor)
        return false;
    const struct workload *x = p;
    for (int depth = 0; depth < 16; depth++) {
        if (strcmp(x->evicted_by, w->key) == 0)
            return true;
        struct workload *next = NULL;
        HASH_FIND_STR(c->workloads, x->evicted_by, next);
        if (!next || next == p || !displaced_before(c, next, x))
            break;
        x = next;
    }
    return false;
}

/* Takes (sign -1) or gives back (+1) the victims' quota and node usage. */
static void victims_charge(struct workload **v, uint32_t n, int sign)
{
    for (uint32_t k = 0; k < n; k++) {
        cq_charge(v[k]->admitted_cq, v[k], sign);
        for (size_t i = 0; i < v[k]->n_pods; i++) {
            struct pod *p = v[k]->pods[i];
            if (p->state == PODSTATE_BOUND && p->node)
                node_charge(p->node, p, sign);
        }
    }
}

/* The host's check before any eviction: with the victims gone, the
 * preemptor fits its quota and its pods fit on nodes. Nothing changes. */
static bool preemption_helps(struct ordo_cycle *cy, struct entry *e,
                             struct workload **v, uint32_t n,
                             struct pod ***ret_pods, struct node ***ret_nodes,
                             size_t *ret_n)
{
    char why[256];
    struct pod **pods;
    struct node **nodes;
    size_t np = 0;
    victims_charge(v, n, -1);
    bool ok = quota_recheck(cy, e, why, sizeof(why));
    e->borrows_after = qtree_first_short(e->wl->cq->qnode, e->usage, false) >= 0;
    if (ok) {
        cy->wl = e->wl;
        cy->assign = e->assign;
        int r = place_gang(cy, e->wl, false, &pods, &nodes, &np);
        ok = r == 0;
        for (size_t k = 0; ok && k < np; k++)
            node_charge(nodes[k], pods[k], -1);
        if (ok) {
            *ret_pods = pods;
            *ret_nodes = nodes;
            *ret_n = np;
        }
        if (r > 0)
            snprintf(e->reason, sizeof(e->reason),
                     "preempting would free quota but not room on nodes: "
                     "%.180s",
                     cy->reason);
    } else {
        snprintf(e->reason, sizeof(e->reason),
                 "the chosen victims would not free enough quota");
    }
    victims_charge(v, n, 1);
    return ok;
}

/* Holds the node room the preemptor's victims leave, where the check above
 * placed its pods, until the preemptor's next cycle: what it preempted for
 * is not taken by pods placed before it (Ordo binds, so room matters as
 * much as quota). */
static int hold_room(struct cluster *c, struct workload *w, struct pod **pods,
                     struct node **nodes, size_t n)
{
    struct pod **hp = malloc((n ? n : 1) * sizeof(*hp));
    struct node **hn = malloc((n ? n : 1) * sizeof(*hn));
    if (!hp || !hn) {
        free(hp);
        free(hn);
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        hp[k] = pods[k];
        hn[k] = nodes[k];
        node_charge(nodes[k], pods[k], 1);
    }
    free(w->held_pods);
    free(w->held_nodes);
    w->held_pods = hp;
    w->held_nodes = hn;
    w->n_held = n;
    return cluster_mark_holder(c, w);
}

/* Gives the room w holds back, right before w itself is tried again (not
 * before: another preemptor first in line must not take it). */
static void release_room(struct cluster *c, struct workload *w)
{
    if (!w->n_held)
        return;
    for (size_t k = 0; k < w->n_held; k++)
        node_charge(w->held_nodes[k], w->held_pods[k], -1);
    free(w->held_pods);
    free(w->held_nodes);
    w->held_pods = NULL;
    w->held_nodes = NULL;
    w->n_held = 0;
    for (size_t i = 0; i < c->n_holders; i++) {
        if (c->holders[i] == w) {
            c->holders[i] = c->holders[--c->n_holders];
            break;
        }
    }
}

/* Kueue's Preempted reason for a victim of e: its own ClusterQueue's
 * priorities, or quota taken back within the cohort (while the preemptor
 * still borrows, or under fair sharing). */
static const char *preemption_class(struct ordo_cycle *cy,
                                    const struct entry *e,
                                    const struct workload *victim)
{
    if (victim->admitted_cq == e->wl->cq)
        return "InClusterQueue";
    if (!e->borrows_after)
        return "InCohortReclamation";
    if (cy->s->config && cy->s->config->fair_sharing)
        return "InCohortFairSharing";
    /* Hierarchical advantage is reclamation too, borrowing or not. */
    const struct ordo_host *h = host_table();
    cy->wl = e->wl;
    cy->need = e->usage;
    bool adv = h->preemptor_advantage(
        cy, (const struct ordo_cq *)victim->admitted_cq);
    cy->need = NULL;
    return adv ? "InCohortReclamation" : "InCohortReclaimWhileBorrowing";
}

/* Evicts an admitted workload: `by` says why, for its record; `preemptor`
 * when `by` is the key of the workload it makes room for, `class` then
 * Kueue's reason for the preemption. */
static void evict(struct ordo_cycle *cy, struct workload *victim,
                  const char *by, bool preemptor, const char *class)
{
    snprintf(victim->evicted_by, sizeof(victim->evicted_by), "%s", by);
    victim->evict_class = class;
    victim->evicting = true;
    victim->spares_preemptor = preemptor;
    victim->evicted_by_preemptor = preemptor;
    victim->evicted_ns = cy->s->cluster.now_ns;
    cy->s->evictions++;
    LOG_V(2, "evicting workload wl=\"%s\" by=\"%s\" reason=%s", victim->key,
          by, class ? class : "-");
    /* Pods leave through the backend; the last one gone requeues it. */
    for (size_t i = 0; i < victim->n_pods && victim->evicting; i++) {
        struct pod *p = victim->pods[i];
        if (p->state != PODSTATE_BOUND)
            continue;
        int r = cy->s->backend->evict
                    ? cy->s->backend->evict(cy->s->backend_data, p)
                    : -ENOTSUP;
        if (r < 0) {
            snprintf(victim->evict_note, sizeof(victim->evict_note),
                     "pod %s: eviction not started: %s", p->key,
                     strerror(-r));
            LOG_E("evicting pod %s failed: %s", p->key, strerror(-r));
        }
    }
}

/* Keeps the flavors a preemptor evicted for (see place_as_preempted). */
static int remember_assignment(struct entry *e)
{
    struct workload *wl = e->wl;
    uint32_t ng = wl->cq->n_groups;
    size_t slots = (size_t)wl->n_podsets * (ng ? ng : 1);
    struct flavor **v = calloc(slots, sizeof(*v));
    if (!v)
        return -ENOMEM;
    memcpy(v, e->assign, (size_t)wl->n_podsets * ng * sizeof(*v));
    free(wl->preempt_assign);
    wl->preempt_assign = v;
    wl->preempt_groups = ng;
    wl->preempt_borrows = e->borrowing > 0;
    return 0;
}

/* A preemptor whose victims are gone can get other flavors from the
 * QUOTA plugin than the ones it preempted for (a flavor that now fits
 * without borrowing, whose nodes are full; or, for several pod sets, an
 * assignment that does not fit at all). Rather than leave it
 * pending, and its victims evicted for nothing, the host tries the
 * flavors it preempted for, which the check before eviction placed: if
 * they fit quota now and the pods fit on nodes, it is admitted with them.
 * Returns 0 (placed: e->assign/usage/borrowing switched), 1 (no), or a
 * negative errno. */
static int place_as_preempted(struct ordo_cycle *cy, struct entry *e,
                              struct pod ***ret_pods,
                              struct node ***ret_nodes, size_t *ret_n)
{
    struct workload *wl = e->wl;
    uint32_t ng = wl->cq->n_groups;
    size_t slots = (size_t)wl->n_podsets * ng;
    if (!wl->preempt_assign || wl->preempt_groups != ng || !slots ||
        memcmp(wl->preempt_assign, e->assign, slots * sizeof(*e->assign)) == 0)
        return 1;
    struct entry alt = *e;
    alt.usage = NULL;
    alt.assign = arena_calloc(cy->scratch, slots, sizeof(*alt.assign));
    if (!alt.assign)
        return -ENOMEM;
    memcpy(alt.assign, wl->preempt_assign, slots * sizeof(*alt.assign));
    char why[256];
    if (!quota_recheck(cy, &alt, why, sizeof(why)))
        return 1;
    cy->wl = wl;
    cy->assign = alt.assign;
    int r = place_gang(cy, wl, false, ret_pods, ret_nodes, ret_n);
    if (r != 0)
        return r;
    LOG_V(3, "workload placed with the flavors it preempted for wl=\"%s\"",
          wl->key);
    e->assign = alt.assign;
    e->usage = alt.usage;
    e->borrowing = wl->preempt_borrows;
    return 0;
}

/* Candidates for a preemptor: the admitted workloads of its cohort tree
 * that use a (flavor, resource) it is short of, less those it spares. */
struct collect {
    struct cluster *c;
    const struct workload *p;
    const int64_t *short_fr;
    struct workload **cands;
    uint32_t n, cap;
};

static bool count_admitted(struct cq *q, void *data)
{
    struct collect *k = data;
    k->cap += q->n_admitted;
    return false;
}

static bool collect_candidates(struct cq *q, void *data)
{
    struct collect *k = data;
    for (uint32_t i = 0; i < q->n_admitted && k->n < k->cap; i++) {
        struct workload *w = q->admitted[i];
        if (w->state == WL_ADMITTED && w->flavors &&
            uses_needed(&k->c->tree, w, k->short_fr) && !spared(k->c, k->p, w))
            k->cands[k->n++] = w;
    }
    return false;
}

static int by_seq(const void *a, const void *b)
{
    const struct workload *x = *(struct workload *const *)a;
    const struct workload *y = *(struct workload *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A PREEMPT entry: asks the PREEMPT plugin for victims among the admitted
 * workloads of the preemptor's cohort tree, checks the answer, and evicts.
 * Returns 1 when the preemptor now waits for its victims, 0 when nothing
 * was done (e->reason says why), or a negative errno. */
static int try_preempt(struct ordo_cycle *cy, struct entry *e)
{
    struct ordo_plugin *pp = cy->s->plugins.preempt;
    struct cluster *c = cy->c;
    if (!pp) {
        snprintf(e->reason + strlen(e->reason),
                 sizeof(e->reason) - strlen(e->reason),
                 "%spreemption is not configured", e->reason[0] ? "; " : "");
        return 0;
    }
    if (!e->usage && !entry_usage(cy, e, e->reason, sizeof(e->reason)))
        return 0;
    const struct qnode *root = qtree_root(e->wl->cq->qnode);
    /* Kueue takes candidates only among the workloads using a (flavor,
     * resource) that needs preemption: those that do not fit now. */
    int64_t *short_fr = arena_calloc(cy->scratch, c->tree.n_fr + 1,
                                     sizeof(*short_fr));
    if (!short_fr)
        return -ENOMEM;
    for (uint32_t i = 0; i < c->tree.n_fr; i++)
        if (e->usage[i] > 0 &&
            e->usage[i] > qtree_available(e->wl->cq->qnode, (int)i))
            short_fr[i] = e->usage[i];
    struct collect col = {.c = c, .p = e->wl, .short_fr = short_fr};
    qtree_any_cq(root, count_admitted, &col);
    col.cands = arena_calloc(cy->scratch, col.cap + 1, sizeof(*col.cands));
    uint32_t *picked = arena_calloc(cy->scratch, col.cap + 1, sizeof(*picked));
    if (!col.cands || !picked)
        return -ENOMEM;
    qtree_any_cq(root, collect_candidates, &col);
    struct workload **cands = col.cands;
    uint32_t n = col.n;
    if (n == 0)
        return 0;
    /* The plugin sees them in creation order, whatever the queues' order. */
    qsort(cands, n, sizeof(*cands), by_seq);
    uint32_t nv = 0;
    cy->wl = e->wl;
    cy->assign = e->assign;
    cy->need = e->usage;
    cy->short_fr = short_fr;
    cy->sim_removed = 0;
    cy->reason[0] = '\0';
    enum ordo_verdict v = sanitize_verdict(pp->desc->preempt->select_victims(
        pp->self, cy, (const struct ordo_workload *)e->wl,
        (const struct ordo_workload *const *)cands, n, picked, &nv));
    cy->need = NULL;
    cy->short_fr = NULL;
    if (cy->sim_removed != 0) {
        /* The plugin left what-if removals behind: rebuild usage. */
        LOG_E("plugin %s left %d what-if removals; quota usage rebuilt",
              pp->desc->name, cy->sim_removed);
        cluster_rebuild_queues(c);
        v = ORDO_ERROR;
    }
    if (v != ORDO_OK || nv == 0) {
        /* Why quota was short (the QUOTA plugin's word), then why
         * preemption does not help. */
        size_t len = strnlen(e->reason, sizeof(e->reason) - 1);
        if (cy->reason[0] && len < sizeof(e->reason) - 1)
            snprintf(e->reason + len, sizeof(e->reason) - len,
                     "%s%.63s: %s", len ? "; " : "", pp->desc->name,
                     cy->reason);
        return 0;
    }
    struct workload **victims = arena_calloc(cy->scratch, nv, sizeof(*victims));
    if (!victims)
        return -ENOMEM;
    for (uint32_t k = 0; k < nv; k++) {
        if (picked[k] >= n || cands[picked[k]] == NULL) {
            snprintf(e->reason, sizeof(e->reason),
                     "plugin %s chose a victim that is not a candidate (or "
                     "twice)",
                     pp->desc->name);
            return 0;
        }
        victims[k] = cands[picked[k]];
        cands[picked[k]] = NULL;
    }
    struct pod **hpods = NULL;
    struct node **hnodes = NULL;
    size_t nh = 0;
    if (!preemption_helps(cy, e, victims, nv, &hpods, &hnodes, &nh))
        return 0;
    size_t len = 0;
    len += (size_t)snprintf(e->reason, sizeof(e->reason),
                            "waiting for %u preempted workload(s) to go:", nv);
    for (uint32_t k = 0; k < nv; k++) {
        if (len < sizeof(e->reason))
            len += (size_t)snprintf(e->reason + len, sizeof(e->reason) - len,
                                    " %s", victims[k]->key);
        if (!victims[k]->evicting)
            evict(cy, victims[k], e->wl->key, true,
                  preemption_class(cy, e, victims[k]));
    }
    set_preempting(c, e->wl, true);
    if (remember_assignment(e) < 0)
        return -ENOMEM;
    return hold_room(c, e->wl, hpods, hnodes, nh) < 0 ? -ENOMEM : 1;
}

static int cmp_entries(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    /* A workload that issued preemptions goes first, so that what it freed
     * is not taken by another. */
    if (x->wl->preempting != y->wl->preempting)
        return x->wl->preempting ? -1 : 1;
    if (x->borrowing != y->borrowing)
        return x->borrowing > y->borrowing ? 1 : -1;
    if (x->wl->priority != y->wl->priority)
        return x->wl->priority > y->wl->priority ? -1 : 1;
    if (x->wl->queue_ns != y->wl->queue_ns)
        return x->wl->queue_ns < y->wl->queue_ns ? -1 : 1;
    return strcmp(x->wl->key, y->wl->key);
}

/* ---- fair sharing: admission order by tournament (Kueue section 5.1) --- */

struct fs_pick {
    struct entry *e;
    bool borrowing; /* the competing child would borrow with e admitted */
    struct qtree_share share; /* its dominant resource share then */
};

/* Whether a goes before b at one cohort level. */
static bool fs_better(const struct fs_pick *a, const struct fs_pick *b)
{
    if (a->e->wl->preempting != b->e->wl->preempting)
        return a->e->wl->preempting;
    if (a->borrowing != b->borrowing)
        return !a->borrowing;
    int r = qtree_share_cmp(&a->share, &b->share);
    if (r != 0)
        return r < 0;
    return cmp_entries(a->e, b->e) < 0;
}

/* The part of e's usage that reaches node `child` (an ancestor of e's
 * ClusterQueue, or the ClusterQueue itself): usage kept within local quota
 * on the way does not count in child's share. NULL when e has no usage. */
static const int64_t *fs_extra(struct ordo_cycle *cy,
                               const struct qnode *child,
                               const struct entry *e)
{
    const struct qtree *t = &cy->c->tree;
    const struct qnode *from = e->wl->cq->qnode;
    if (!e->usage || !from)
        return NULL;
    if (from == child)
        return e->usage;
    int64_t *v = arena_calloc(cy->scratch, t->n_fr ? t->n_fr : 1, sizeof(*v));
    if (!v)
        return e->usage;
    for (uint32_t i = 0; i < t->n_fr; i++)
        v[i] = e->usage[i] > 0
                   ? qtree_usage_reaching(from, child, (int)i, e->usage[i])
                   : 0;
    return v;
}

/* Winner among the remaining entries under node x (NULL when none): at
 * each cohort, each child competes with its own winner, judged by the share
 * of that child with the winner's usage added. */
static struct entry *fs_winner(struct ordo_cycle *cy, const struct qnode *x,
                               struct entry *entries, size_t n, int depth)
{
    if (x->cq) {
        for (size_t i = 0; i < n; i++)
            if (!entries[i].done && entries[i].wl->cq == x->cq)
                return &entries[i];
        return NULL;
    }
    if (depth > 64)
        return NULL;
    struct fs_pick best = {0};
    for (uint32_t k = 0; k < x->n_children; k++) {
        const struct qnode *child = x->children[k];
        struct fs_pick p = {.e = fs_winner(cy, child, entries, n, depth + 1)};
        if (!p.e)
            continue;
        const int64_t *extra = fs_extra(cy, child, p.e);
        if (extra)
            qtree_share(&cy->c->tree, child, extra, &p.share);
        /* Kueue's FairSharingPrioritizeNonBorrowing: borrowing on the
         * (flavor, resource) pairs this entry requests. */
        p.borrowing = extra && qtree_borrows_on(&cy->c->tree, child, extra);
        if (!best.e || fs_better(&p, &best))
            best = p;
    }
    return best.e;
}

/* The next entry to process: trees in the order of their first remaining
 * entry, and within a tree the tournament winner from its root. */
static struct entry *fs_next(struct ordo_cycle *cy, struct entry *entries,
                             size_t n)
{
    /* Preemptors first, whatever their tree: the room they freed is
     * theirs. */
    for (size_t i = 0; i < n; i++)
        if (!entries[i].done && entries[i].wl->preempting)
            return &entries[i];
    for (size_t i = 0; i < n; i++) {
        if (entries[i].done)
            continue;
        const struct qnode *root = entries[i].wl->cq->qnode;
        if (!root)
            return &entries[i];
        for (int d = 0; root->parent && d < 64; d++)
            root = root->parent;
        struct entry *w = fs_winner(cy, root, entries, n, 0);
        return w ? w : &entries[i];
    }
    return NULL;
}

/* The head of q: the first workload in queue order that is not parked
 * (parked ones come back when the requeue generation moved) and whose pods
 * all exist. A Job or JobSet whose controller is still creating its pods
 * (new, or recreating them after an eviction) keeps its place: in a
 * StrictFIFO queue nothing behind it is admitted meanwhile, as in Kueue,
 * where the Workload object queues whether or not its pods exist. */
static struct workload *queue_head(const struct cluster *c, struct cq *q)
{
    bool strict =
        q->obj->u.cluster_queue.queueing_strategy == QUEUEING_STRICT_FIFO;
    queue_sort(q);
    /* A workload that issued preemptions stays the head until it is
     * admitted (Kueue's sticky preemptor): what it freed is for it. */
    for (size_t i = 0; c->n_preempting && i < q->n_pending; i++)
        if (q->pending[i]->preempting && workload_ready(q->pending[i]))
            return q->pending[i];
    for (size_t i = 0; i < q->n_pending; i++) {
        struct workload *w = q->pending[i];
        if (w->parked && w->parked_gen >= q->requeue_gen)
            continue;
        w->parked = false;
        if (!workload_ready(w)) {
            workload_set_reason(w, "waiting for the pods of the workload to "
                                   "be created");
            if (strict && (w->kind == WL_JOB || w->kind == WL_JOBSET))
                return NULL;
            continue;
        }
        return w;
    }
    return NULL;
}

/* Pods of admitted workloads that have no node yet (a Job's next pods, a
 * pod that failed to bind): placed within the admission. */
static void place_stragglers(struct ordo_cycle *cy)
{
    struct cluster *c = cy->c;
    size_t keep = 0;
    for (size_t i = 0; i < c->n_stragglers; i++) {
        struct workload *w = c->stragglers[i];
        bool any = false;
        if (w->state == WL_ADMITTED && w->admitted_cq && w->flavors) {
            struct pod **pods;
            struct node **nodes;
            size_t n;
            cy->wl = w;
            cy->assign = w->flavors;
            if (place_gang(cy, w, true, &pods, &nodes, &n) == 0)
                bind_pods(cy, pods, nodes, n);
            for (uint32_t ps = 0; ps < w->n_podsets && !any; ps++)
                any = workload_pending_pods(w, ps) > 0;
        }
        w->straggling = any;
        if (any)
            c->stragglers[keep++] = w;
    }
    c->n_stragglers = keep;
}

/* stopPolicy HoldAndDrain on a ClusterQueue or LocalQueue: its admitted
 * workloads are evicted (Kueue: reason ClusterQueueStopped /
 * LocalQueueStopped) and nothing new is admitted. */
static void drain_stopped(struct ordo_cycle *cy)
{
    struct cluster *c = cy->c;
    if (!c->drain)
        return;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        if (w->state != WL_ADMITTED || w->evicting || !w->admitted_cq)
            continue;
        const char *by = NULL;
        if (w->admitted_cq->obj->u.cluster_queue.stop_policy ==
            STOP_POLICY_HOLD_AND_DRAIN)
            by = "ClusterQueue stopped (HoldAndDrain)";
        char key[512];
        snprintf(key, sizeof(key), "%s/%s", w->ns,
                 w->local_queue ? w->local_queue : "default");
        struct obj_entry *lq = cluster_find(c->lqs, key);
        if (lq && lq->obj->u.local_queue.stop_policy ==
                      STOP_POLICY_HOLD_AND_DRAIN)
            by = "LocalQueue stopped (HoldAndDrain)";
        if (by)
            evict(cy, w, by, false, NULL);
    }
}

int cycle_run(struct scheduler *s)
{
    struct cluster *c = &s->cluster;
    struct ordo_cycle cy = {.s = s, .c = c, .scratch = arena_new()};
    int admitted = 0, r = 0;
    size_t n = 0;
    struct entry *entries = NULL;
    if (!cy.scratch)
        return -ENOMEM;
    s->cycles++;
    drain_stopped(&cy);
    place_stragglers(&cy);

    entries = arena_calloc(cy.scratch, c->n_cqs + 1, sizeof(*entries));
    if (!entries) {
        r = -ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        struct cq *q = c->cqs_v[i];
        if (!q->queue_plugin)
            continue;
        struct workload *head = queue_head(c, q);
        if (!head)
            continue;
        if (!q->active) {
            workload_set_reason(head, "ClusterQueue %s is inactive: %s",
                                q->name, q->inactive_reason);
            continue;
        }
        entries[n].gen = q->requeue_gen;
        entries[n++].wl = head;
    }
    bool fair = s->config && s->config->fair_sharing;
    for (size_t i = 0; i < n; i++) {
        if ((r = nominate(&cy, &entries[i])) < 0)
            goto out;
        /* The tournament weighs each entry's usage; a NOFIT entry has no
         * flavors and keeps the QUOTA plugin's reason. */
        if (fair && entries[i].mode != ORDO_QUOTA_NOFIT &&
            !entry_usage(&cy, &entries[i], entries[i].reason,
                         sizeof(entries[i].reason)))
            entries[i].mode = ORDO_QUOTA_NOFIT;
    }
    if (!fair)
        qsort(entries, n, sizeof(*entries), cmp_entries);

    for (size_t i = 0; i < n; i++) {
        struct entry *e = fair ? fs_next(&cy, entries, n) : &entries[i];
        e->done = true;
        release_room(c, e->wl);
        if (e->mode != ORDO_QUOTA_FIT && e->wl->preempting) {
            /* Its victims are gone but the QUOTA plugin now answers with
             * other flavors that do not fit: the ones it preempted for
             * may. */
            struct pod **pods;
            struct node **nodes;
            size_t np;
            r = place_as_preempted(&cy, e, &pods, &nodes, &np);
            if (r < 0)
                goto out;
            if (r == 0) {
                if ((r = commit(&cy, e, pods, nodes, np)) < 0)
                    goto out;
                admitted++;
                continue;
            }
            r = 0;
        }
        if (e->mode == ORDO_QUOTA_PREEMPT) {
            r = try_preempt(&cy, e);
            if (r < 0)
                goto out;
            if (r > 0) {
                /* Waits at the head of its queue for its victims; what it
                 * will take is held for the rest of the cycle so that later
                 * entries do not count on the room its victims leave. */
                workload_set_reason(e->wl, "%s", e->reason);
                hold_usage(&c->tree, e, 1);
                r = 0;
                continue;
            }
            set_preempting(c, e->wl, false);
            reserve_unreclaimable(&cy, e);
        }
        if (e->mode != ORDO_QUOTA_FIT) {
            not_admitted(&cy, e);
            continue;
        }
        if (!quota_recheck(&cy, e, e->reason, sizeof(e->reason))) {
            /* An earlier entry took the quota (Kueue's
             * FailedAfterNomination): not parked, nominated again next
             * cycle whatever the queueing strategy. */
            workload_set_reason(e->wl, "%s", e->reason);
            continue;
        }
        struct pod **pods;
        struct node **nodes;
        size_t np;
        cy.wl = e->wl;
        cy.assign = e->assign;
        r = place_gang(&cy, e->wl, false, &pods, &nodes, &np);
        if (r > 0 && e->wl->preempting) {
            char first[sizeof(cy.reason)];
            memcpy(first, cy.reason, sizeof(first));
            r = place_as_preempted(&cy, e, &pods, &nodes, &np);
            if (r > 0)
                memcpy(cy.reason, first, sizeof(first));
        }
        if (r < 0)
            goto out;
        if (r > 0) {
            snprintf(e->reason, sizeof(e->reason), "%s", cy.reason);
            e->verdict = ORDO_UNSCHEDULABLE;
            not_admitted(&cy, e);
            r = 0;
            continue;
        }
        if ((r = commit(&cy, e, pods, nodes, np)) < 0)
            goto out;
        admitted++;
    }
    s->admissions += (uint64_t)admitted;
out:
    for (size_t i = 0; entries && i < n; i++)
        if (entries[i].reserved)
            hold_usage(&c->tree, &entries[i], -1);
    arena_free(cy.scratch);
    return r < 0 ? r : admitted;
}

void scheduler_init(struct scheduler *s, const struct sched_config *cfg,
                    const struct backend_ops *backend, void *backend_data)
{
    memset(s, 0, sizeof(*s));
    cluster_init(&s->cluster);
    s->config = cfg;
    s->backend = backend;
    s->backend_data = backend_data;
}

void scheduler_release(struct scheduler *s)
{
    if (s)
        cluster_release(&s->cluster);
}

/* Gives every ClusterQueue the QUEUE plugin of its strategy. */
static void assign_queue_plugins(struct scheduler *s)
{
    for (uint32_t i = 0; i < s->cluster.n_cqs; i++) {
        struct cq *q = s->cluster.cqs_v[i];
        struct ordo_plugin *p =
            q->obj->u.cluster_queue.queueing_strategy == QUEUEING_STRICT_FIFO
                ? s->plugins.queue_strict
                : s->plugins.queue_best_effort;
        if (q->queue_plugin != p) {
            q->queue_plugin = p;
            q->dirty = true;
        }
    }
}

int scheduler_run(struct scheduler *s)
{
    int total = 0;
    for (int i = 0; i < CYCLES_PER_RUN_MAX; i++) {
        int r = cluster_sync(&s->cluster);
        if (r < 0)
            return r;
        assign_queue_plugins(s);
        uint64_t parked = s->parked, evictions = s->evictions;
        r = cycle_run(s);
        if (r < 0)
            return r;
        if (r == 0 && s->parked == parked && s->evictions == evictions)
            return total;
        total += r;
    }
    LOG_W("stopped after %d cycles at one instant", CYCLES_PER_RUN_MAX);
    return total;
}
