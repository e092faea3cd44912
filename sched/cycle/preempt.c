/* preempt.c - the host's side of preemption: candidates for the PREEMPT
 * plugin, its verdict checked (what-ifs all put back, victims are
 * candidates and allowed by the preemptor's ClusterQueue's policy, removing
 * them lets the preemptor fit quota and nodes, no more of them than needed:
 * preempt_check.c), victims evicted through the backend,
 * the preemptor's quota and node room held for it, the rules that keep
 * preemptions from looping, and quota held by a head that found nothing to
 * preempt (Kueue's resourcesToReserve). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "host_kueue.h"
#include "log.h"
#include "place.h"
#include "preempt.h"
#include "satmath.h"
#include "watchdog.h"
#include "workload.h"

/* Charges (sign 1) or releases (-1) a preemptor's usage on its
 * ClusterQueue for the rest of the cycle (Kueue reserves it too). */
void preempt_hold_usage(const struct qtree *t, struct entry *e, int sign)
{
    struct qnode *qn = e->wl->cq ? e->wl->cq->qnode : NULL;
    if (!qn || !e->usage)
        return;
    for (uint32_t i = 0; i < t->n_fr; i++) {
        if (e->usage[i] <= 0)
            continue;
        /* Held usage is given back exactly: never more than can be
         * counted (a saturated need from a QUOTA plugin that answered
         * PREEMPT for it). */
        if (sign > 0 && e->usage[i] > qtree_headroom(qn, (int)i))
            e->usage[i] = qtree_headroom(qn, (int)i);
        qtree_add_usage(qn, (int)i, sign * e->usage[i]);
    }
    e->reserved = sign > 0;
}

/* A preemptor that found nothing to preempt, in a ClusterQueue that cannot
 * always reclaim what it lends (reclaimWithinCohort is not Any): what it
 * waits for is held for the rest of the cycle, so that lower entries of
 * other ClusterQueues do not borrow quota it could not take back (Kueue's
 * resourcesToReserve). Per FR: its request, clamped to what its
 * ClusterQueue has left below nominal, or below nominal + borrowingLimit
 * when it borrows; a borrower without a borrowingLimit holds its whole
 * request. */
void preempt_reserve(struct ordo_cycle *cy, struct entry *e)
{
    const struct qtree *t = &cy->c->tree;
    struct cq *cq = e->wl->cq;
    struct qnode *qn = cq ? cq->qnode : NULL;
    char why[64];
    if (!qn || cq->obj->u.cluster_queue.reclaim_within_cohort == PREEMPTION_ANY)
        return;
    if (!e->usage && !entry_usage(cy, e, why, sizeof(why)))
        return;
    for (uint32_t i = 0; i < t->n_fr; i++) {
        int64_t want = e->usage[i], used = qnode_usage(qn, (int)i);
        if (want <= 0)
            continue;
        int64_t room = sat_sub64(qn->nominal[i], used);
        if (e->borrowing > 0)
            room = qn->borrowing_limit[i] == QUOTA_UNSET
                       ? want
                       : sat_sub64(sat_add64(qn->nominal[i],
                                             qn->borrowing_limit[i]),
                                   used);
        e->usage[i] = room < want ? (room > 0 ? room : 0) : want;
    }
    preempt_hold_usage(t, e, 1);
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

/* Takes (sign -1) or gives back (+1) the victims' quota and node usage,
 * the room planned for pods they have not made yet included. */
static void victims_charge(struct workload **v, uint32_t n, int sign)
{
    for (uint32_t k = 0; k < n; k++) {
        cq_charge(v[k]->admitted_cq, v[k], sign);
        for (size_t i = 0; i < v[k]->n_pods; i++) {
            struct pod *p = v[k]->pods[i];
            if (p->state == PODSTATE_BOUND && p->node)
                node_charge(p->node, p, sign);
        }
        for (size_t i = 0; v[k]->held_planned && i < v[k]->n_held; i++)
            node_charge(v[k]->held_nodes[i], v[k]->held_pods[i], sign);
    }
}

/* The host's check before any eviction: with the victims gone, the
 * preemptor fits its quota and its pods fit on nodes, where *ret says
 * (nothing charged). Nothing changes. */
static int preemption_helps(struct ordo_cycle *cy, struct entry *e,
                            struct workload **v, uint32_t n,
                            struct placement *ret, bool *ret_helps)
{
    char why[256];
    struct placement pl = {0};
    enum place_outcome placed = PLACE_NO_ROOM;
    int r = 0;
    victims_charge(v, n, -1);
    bool fits = entry_quota_recheck(cy, e, why, sizeof(why));
    e->borrows_after =
        qtree_first_short(e->wl->cq->qnode, e->usage, false) >= 0;
    if (fits) {
        cy->wl = e->wl;
        cy->assign = e->assign;
        r = place_gang(cy, e->wl, false, &pl, &placed);
        for (size_t k = 0; r == 0 && placed == PLACE_PLACED && k < pl.n; k++)
            node_charge(pl.nodes[k], pl.pods[k], -1);
        if (r == 0 && placed == PLACE_NO_ROOM)
            snprintf(e->reason, sizeof(e->reason),
                     "preempting would free quota but not room on nodes: "
                     "%.180s",
                     cy->reason);
    } else {
        snprintf(e->reason, sizeof(e->reason),
                 "the chosen victims would not free enough quota");
    }
    victims_charge(v, n, 1);
    *ret_helps = r == 0 && fits && placed == PLACE_PLACED;
    if (*ret_helps)
        *ret = pl;
    return r;
}

/* Holds the node room the preemptor's victims leave, where the check above
 * placed its pods, until the preemptor's next cycle: what it preempted for
 * is not taken by pods placed before it (Ordo binds, so room matters as
 * much as quota). */
static int hold_room(struct workload *w, const struct placement *pl)
{
    for (size_t k = 0; k < pl->n; k++)
        node_charge(pl->nodes[k], pl->pods[k], 1);
    /* A preemptor created suspended has planned pods (place_planned). */
    int r = cluster_hold_room(w, pl->pods, pl->nodes, pl->n,
                              pl->n > 0 && pod_planned(pl->pods[0]));
    if (r < 0)
        for (size_t k = 0; k < pl->n; k++)
            node_charge(pl->nodes[k], pl->pods[k], -1);
    return r;
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
    cy->wl = e->wl;
    cy->need = e->usage;
    bool adv = host_preemptor_advantage(
        cy, (const struct ordo_cq *)victim->admitted_cq);
    cy->need = NULL;
    return adv ? "InCohortReclamation" : "InCohortReclaimWhileBorrowing";
}

/* Evicts an admitted workload: `by` says why, for its record; `preemptor`
 * when `by` is the key of the workload it makes room for, `class` then
 * Kueue's reason for the preemption. */
void preempt_evict(struct ordo_cycle *cy, struct workload *victim,
                   const char *by, bool preemptor, const char *class)
{
    snprintf(victim->evicted_by, sizeof(victim->evicted_by), "%s", by);
    victim->evict_class = class;
    victim->evicting = true;
    victim->spares_preemptor = preemptor;
    victim->evicted_by_preemptor = preemptor;
    victim->evicted_ns = cy->s->cluster.now_ns;
    cy->s->evictions++;
    if (cy->s->obs) {
        /* Kueue's eviction reasons: preempted, or its queue stopped. */
        const char *why = preemptor                  ? "Preempted"
                          : strstr(by, "LocalQueue") ? "LocalQueueStopped"
                                                     : "ClusterQueueStopped";
        SCHED_OBSERVE(cy->s, evicted, victim, why,
                      preemptor ? cluster_get_workload(cy->c, by) : NULL,
                      class);
    }
    (void)workload_note(cy->c, victim, WL_EV_EVICTED,
                        victim->admitted_cq ? victim->admitted_cq->name : NULL,
                        class ? class : by, preemptor ? by : NULL);
    LOG_V(2, "evicting workload wl=\"%s\" by=\"%s\" reason=%s", victim->key, by,
          class ? class : "-");
    /* Kueue suspends a job it resumed: its controller makes no new pods
     * until the workload is admitted again. */
    if (victim->resumes)
        victim->suspended = true;
    /* Pods leave through the backend; the last one gone requeues it (now,
     * when none is bound). */
    bool any = false;
    for (size_t i = 0; i < victim->n_pods; i++)
        any |= victim->pods[i]->state == PODSTATE_BOUND;
    if (!any) {
        workload_requeue_evicted(&cy->s->cluster, victim);
        return;
    }
    for (size_t i = 0; i < victim->n_pods && victim->evicting; i++) {
        struct pod *p = victim->pods[i];
        if (p->state != PODSTATE_BOUND)
            continue;
        int r = cy->s->backend->evict
                    ? cy->s->backend->evict(cy->s->backend_data, p)
                    : -ENOTSUP;
        if (r < 0) {
            snprintf(victim->evict_note, sizeof(victim->evict_note),
                     "pod %s: eviction not started: %s", p->key, strerror(-r));
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
 * they fit quota now and the pods fit on nodes, it is admitted with them
 * (e->assign/usage/borrowing switched). */
int preempt_place_as_preempted(struct ordo_cycle *cy, struct entry *e,
                               struct placement *ret,
                               enum place_outcome *ret_outcome)
{
    struct workload *wl = e->wl;
    uint32_t ng = wl->cq->n_groups;
    size_t slots = (size_t)wl->n_podsets * ng;
    *ret_outcome = PLACE_NO_ROOM;
    if (!wl->preempt_assign || wl->preempt_groups != ng || !slots ||
        memcmp(wl->preempt_assign, e->assign, slots * sizeof(*e->assign)) == 0)
        return 0;
    struct entry alt = *e;
    alt.usage = NULL;
    alt.assign = arena_calloc(cy->scratch, slots, sizeof(*alt.assign));
    if (!alt.assign)
        return -ENOMEM;
    memcpy(alt.assign, wl->preempt_assign, slots * sizeof(*alt.assign));
    char why[256];
    if (!entry_quota_recheck(cy, &alt, why, sizeof(why)))
        return 0;
    cy->wl = wl;
    cy->assign = alt.assign;
    int r = place_gang(cy, wl, false, ret, ret_outcome);
    if (r < 0 || *ret_outcome != PLACE_PLACED)
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

static bool count_admitted(struct cq *cq, void *data)
{
    struct collect *k = data;
    k->cap += cq->n_admitted;
    return false;
}

static bool collect_candidates(struct cq *cq, void *data)
{
    struct collect *k = data;
    for (uint32_t i = 0; i < cq->n_admitted && k->n < k->cap; i++) {
        struct workload *w = cq->admitted[i];
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

/* Evicts the n victims of e, its reason saying whom it waits for. */
static void evict_victims(struct ordo_cycle *cy, struct entry *e,
                          struct workload **victims, uint32_t nv)
{
    size_t len = 0;
    len += (size_t)snprintf(e->reason, sizeof(e->reason),
                            "waiting for %u preempted workload(s) to go:", nv);
    SCHED_OBSERVE(cy->s, preemption, e->wl, nv);
    for (uint32_t k = 0; k < nv; k++) {
        if (len < sizeof(e->reason))
            len += (size_t)snprintf(e->reason + len, sizeof(e->reason) - len,
                                    " %s", victims[k]->key);
        if (!victims[k]->evicting)
            preempt_evict(cy, victims[k], e->wl->key, true,
                          preemption_class(cy, e, victims[k]));
    }
}

/* A verdict the host does not accept: nothing is evicted and the entry
 * goes on as if no victims were found, its reason (the QUOTA plugin's)
 * followed by "plugin X <what>". Returns 0 with *ret_outcome
 * PREEMPT_REFUSED. */
static int refuse(enum preempt_outcome *ret_outcome, struct entry *e,
                  const struct ordo_plugin *pp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(enum preempt_outcome *ret_outcome, struct entry *e,
                  const struct ordo_plugin *pp, const char *fmt, ...)
{
    char what[REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    size_t len = strnlen(e->reason, sizeof(e->reason) - 1);
    if (snprintf(e->reason + len, sizeof(e->reason) - len, "%splugin %.63s %s",
                 len ? "; " : "", pp->desc->name, what) < 0)
        e->reason[len] = '\0';
    LOG_V(1, "plugin %s: answer for wl=\"%s\" refused: %s", pp->desc->name,
          e->wl->key, what);
    *ret_outcome = PREEMPT_REFUSED;
    return 0;
}

/* The candidates of preemptor e, in creation order, into *ret_cands (cycle
 * scratch, *ret_n of them), with room for the plugin's answer in
 * *ret_picked; short_fr is what it is short of. 0 or -ENOMEM. */
static int candidates(struct ordo_cycle *cy, struct entry *e,
                      const int64_t *short_fr, struct workload ***ret_cands,
                      uint32_t **ret_picked, uint32_t *ret_n)
{
    const struct qnode *root = qtree_root(e->wl->cq->qnode);
    struct collect col = {.c = cy->c, .p = e->wl, .short_fr = short_fr};
    qtree_any_cq(root, count_admitted, &col);
    col.cands = arena_calloc(cy->scratch, col.cap + 1, sizeof(*col.cands));
    *ret_picked = arena_calloc(cy->scratch, col.cap + 1, sizeof(**ret_picked));
    if (!col.cands || !*ret_picked)
        return -ENOMEM;
    qtree_any_cq(root, collect_candidates, &col);
    /* The plugin sees them in creation order, whatever the order of their
     * ClusterQueues. */
    qsort(col.cands, col.n, sizeof(*col.cands), by_seq);
    *ret_cands = col.cands;
    *ret_n = col.n;
    return 0;
}

/* preempt_try, with cy->need and cy->short_fr left set. */
static int try_victims(struct ordo_cycle *cy, struct entry *e,
                       enum preempt_outcome *ret_outcome)
{
    struct ordo_plugin *pp = cy->s->plugins.preempt;
    struct cluster *c = cy->c;
    *ret_outcome = PREEMPT_NONE;
    if (!pp) {
        snprintf(e->reason + strlen(e->reason),
                 sizeof(e->reason) - strlen(e->reason),
                 "%spreemption is not configured", e->reason[0] ? "; " : "");
        return 0;
    }
    if (!e->usage && !entry_usage(cy, e, e->reason, sizeof(e->reason)))
        return 0;
    /* Kueue takes candidates only among the workloads using a (flavor,
     * resource) that needs preemption: those that do not fit now. */
    int64_t *short_fr =
        arena_calloc(cy->scratch, c->tree.n_fr + 1, sizeof(*short_fr));
    if (!short_fr)
        return -ENOMEM;
    for (uint32_t i = 0; i < c->tree.n_fr; i++)
        if (e->usage[i] > 0 &&
            e->usage[i] > qtree_available(e->wl->cq->qnode, (int)i))
            short_fr[i] = e->usage[i];
    struct workload **cands;
    uint32_t *picked, n;
    int r = candidates(cy, e, short_fr, &cands, &picked, &n);
    if (r < 0 || n == 0)
        return r;
    bool *out = arena_calloc(cy->scratch, n, sizeof(*out));
    if (!out)
        return -ENOMEM;
    uint32_t nv = 0;
    cy->wl = e->wl;
    cy->assign = e->assign;
    cy->need = e->usage;
    cy->short_fr = short_fr;
    cy->reason[0] = '\0';
    preempt_whatif_begin(cy, cands, out, n);
    struct watchdog_mark m;
    watchdog_enter(&m, pp->desc->name, "select_victims");
    enum ordo_verdict v = entry_verdict(pp->desc->preempt->select_victims(
        pp->self, cy, (const struct ordo_workload *)e->wl,
        (const struct ordo_workload *const *)cands, n, picked, &nv));
    watchdog_leave(&m);
    uint32_t left = preempt_whatif_end(cy);
    if (left) {
        /* Put back above; its answer was reached on a wrong snapshot. */
        LOG_E("plugin %s left %u what-if removal(s) in place; put back, and "
              "its answer refused",
              pp->desc->name, left);
        return refuse(ret_outcome, e, pp, "left %u what-if removal(s) in place",
                      left);
    }
    if (v != ORDO_OK || nv == 0) {
        /* Why quota was short (the QUOTA plugin's word), then why
         * preemption does not help. */
        size_t len = strnlen(e->reason, sizeof(e->reason) - 1);
        if (cy->reason[0] && len < sizeof(e->reason) - 1 &&
            snprintf(e->reason + len, sizeof(e->reason) - len, "%s%.63s: %s",
                     len ? "; " : "", pp->desc->name, cy->reason) < 0)
            e->reason[len] = '\0'; /* a long reason is cut, not lost */
        return 0;
    }
    if (nv > n)
        return refuse(ret_outcome, e, pp,
                      "answered %u victims for %u candidates", nv, n);
    struct workload **victims = arena_calloc(cy->scratch, nv, sizeof(*victims));
    if (!victims)
        return -ENOMEM;
    for (uint32_t k = 0; k < nv; k++) {
        if (picked[k] >= n || cands[picked[k]] == NULL)
            return refuse(ret_outcome, e, pp,
                          "chose a victim that is not a candidate (or twice)");
        victims[k] = cands[picked[k]];
        cands[picked[k]] = NULL;
    }
    char why[REASON_MAX / 2];
    if (!preempt_check_policy(cy, e, victims, nv, why, sizeof(why)))
        return refuse(ret_outcome, e, pp, "chose %s", why);
    struct placement room = {0};
    bool helps;
    if ((r = preemption_helps(cy, e, victims, nv, &room, &helps)) < 0)
        return r;
    if (!helps) {
        /* The host's own check, its reason set: refused, not logged. */
        *ret_outcome = PREEMPT_REFUSED;
        return 0;
    }
    if (!preempt_check_set(cy, e, victims, nv, why, sizeof(why)))
        return refuse(ret_outcome, e, pp, "chose %s", why);
    evict_victims(cy, e, victims, nv);
    entry_set_preempting(c, e->wl, true);
    if (remember_assignment(e) < 0 || hold_room(e->wl, &room) < 0)
        return -ENOMEM;
    *ret_outcome = PREEMPT_ISSUED;
    return 0;
}

int preempt_try(struct ordo_cycle *cy, struct entry *e,
                enum preempt_outcome *ret_outcome)
{
    int r = try_victims(cy, e, ret_outcome);
    cy->need = NULL;
    cy->short_fr = NULL;
    return r;
}
