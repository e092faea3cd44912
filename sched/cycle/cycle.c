/* cycle.c - one scheduling cycle, Kueue's way with Ordo binding the pods;
 * cycle_run reads as the phases docs/design.md ("The cycle") lists:
 *
 *   first, stopped ClusterQueues and LocalQueues drained and the pods of
 *   admitted workloads that still need a node placed (stragglers);
 *   1. heads: one per active ClusterQueue, by its QUEUE plugin (queue.c);
 *   2. nomination: the QUOTA plugin's flavors and mode (fit / needs
 *      preemption / no fit), against the snapshot at cycle start;
 *   3. order: preemptors, non-borrowing, higher priority, earlier time
 *      (entry_cmp); with fair sharing, the tournament (fair_share.c);
 *   4. each entry: a preemptor whose answer changed tries the flavors it
 *      preempted for; PREEMPT (preempt.c); the host's quota re-check
 *      against what earlier entries took; PLACE, all pods or none
 *      (place.c); commit: the cache assumes the admission and the pods at
 *      once, then the backend binds each pod;
 *   5. not admitted: the QUEUE plugin holds the head or parks it.
 *
 * Calls only go down: cycle.c -> fair_share.c, preempt.c, place.c,
 * queue.c -> entry.c. Plugins never call each other, and nothing a plugin
 * answers is trusted without a check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cycle.h"
#include "entry.h"
#include "fair_share.h"
#include "log.h"
#include "place.h"
#include "preempt.h"
#include "queue.h"
#include "watchdog.h"
#include "workload.h"

/* The entries of one cycle, one per head. */
struct entries {
    struct entry *v;
    size_t n;
    bool fair; /* fair sharing: the tournament orders them */
};

/* ---- before the heads ---------------------------------------------------- */

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
        if (lq &&
            lq->obj->u.local_queue.stop_policy == STOP_POLICY_HOLD_AND_DRAIN)
            by = "LocalQueue stopped (HoldAndDrain)";
        if (by)
            preempt_evict(cy, w, by, false, NULL);
    }
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
            struct placement pl;
            enum place_outcome placed;
            cy->wl = w;
            cy->assign = w->flavors;
            /* The room planned for a resumed job's pods is theirs now. */
            for (uint32_t ps = 0; w->held_planned && ps < w->n_podsets; ps++)
                cluster_release_planned(w, ps, workload_pending_pods(w, ps));
            if (place_gang(cy, w, true, &pl, &placed) == 0 &&
                placed == PLACE_PLACED)
                place_bind(cy, &pl);
            for (uint32_t ps = 0; ps < w->n_podsets && !any; ps++)
                any = workload_pending_pods(w, ps) > 0;
        }
        w->straggling = any;
        if (any)
            c->stragglers[keep++] = w;
    }
    c->n_stragglers = keep;
}

/* ---- 1. heads ------------------------------------------------------------ */

/* Heads come only from ClusterQueues with pending workloads, in cqs_v
 * order: the cost of a cycle does not grow with idle ClusterQueues. */
static int collect_heads(struct ordo_cycle *cy, struct entries *es)
{
    struct cluster *c = cy->c;
    cluster_busy_refresh(c);
    es->v = arena_calloc(cy->scratch, c->n_busy + 1, sizeof(*es->v));
    if (!es->v)
        return -ENOMEM;
    for (uint32_t i = 0; i < c->n_busy; i++) {
        struct cq *cq = c->busy[i];
        queue_assign_plugin(cy->s, cq);
        if (!cq->queue_plugin)
            continue;
        struct workload *head = queue_head(c, cq);
        if (!head)
            continue;
        if (!cq->active) {
            workload_set_reason(c, head, "ClusterQueue %s is inactive: %s",
                                cq->name, cq->inactive_reason);
            continue;
        }
        es->v[es->n].gen = cq_requeue_gen(c, cq);
        es->v[es->n++].wl = head;
    }
    return 0;
}

/* ---- 2. nomination ------------------------------------------------------- */

/* Asks the QUOTA plugin for e's flavors. */
static int nominate(struct ordo_cycle *cy, struct entry *e)
{
    struct ordo_plugin *qp = cy->s->plugins.quota;
    int r = entry_begin(cy, e->wl);
    if (r < 0)
        return r;
    enum ordo_quota_mode mode = ORDO_QUOTA_NOFIT;
    struct watchdog_mark m;
    watchdog_enter(&m, qp->desc->name, "assign");
    e->verdict = entry_verdict(qp->desc->quota->assign(
        qp->self, cy, (const struct ordo_workload *)e->wl, &mode));
    watchdog_leave(&m);
    e->assign = cy->assign;
    e->borrowing = cy->borrowing;
    if (e->verdict != ORDO_OK) {
        e->mode = ORDO_QUOTA_NOFIT;
        snprintf(e->reason, sizeof(e->reason), "%.63s: %.900s", qp->desc->name,
                 cy->reason[0] ? cy->reason : "quota plugin failed");
        return 0;
    }
    e->mode = mode <= ORDO_QUOTA_NOFIT ? mode : ORDO_QUOTA_NOFIT;
    if (e->mode != ORDO_QUOTA_FIT)
        snprintf(e->reason, sizeof(e->reason), "%s",
                 cy->reason[0] ? cy->reason : "does not fit in quota");
    return 0;
}

static int nominate_all(struct ordo_cycle *cy, struct entries *es)
{
    for (size_t i = 0; i < es->n; i++) {
        struct entry *e = &es->v[i];
        int r = nominate(cy, e);
        if (r < 0)
            return r;
        /* The tournament weighs each entry's usage; a NOFIT entry has no
         * flavors and keeps the QUOTA plugin's reason. */
        if (es->fair && e->mode != ORDO_QUOTA_NOFIT &&
            !entry_usage(cy, e, e->reason, sizeof(e->reason)))
            e->mode = ORDO_QUOTA_NOFIT;
    }
    return 0;
}

/* ---- 3. order ------------------------------------------------------------ */

static void order_entries(struct entries *es)
{
    /* Under fair sharing each next entry is the tournament's winner. */
    if (!es->fair)
        qsort(es->v, es->n, sizeof(*es->v), entry_cmp);
}

/* The i-th entry to process (NULL when none is left). */
static struct entry *next_entry(struct ordo_cycle *cy, struct entries *es,
                                size_t i)
{
    return es->fair ? fair_share_next(cy, es->v, es->n) : &es->v[i];
}

/* ---- 4. each entry ------------------------------------------------------- */

/* Admits e with its pods placed: charges quota, then binds the pods, or,
 * for a job created suspended (its pods planned, see place_planned), holds
 * their room and asks the backend to resume it (Kueue's way: its pods,
 * once made, are placed in that room with the admission's flavors). */
static int commit(struct ordo_cycle *cy, struct entry *e,
                  const struct placement *pl)
{
    struct workload *wl = e->wl;
    struct cq *cq = wl->cq;
    size_t slots = (size_t)wl->n_podsets * (cq->n_groups ? cq->n_groups : 1);
    struct flavor **flavors = calloc(slots, sizeof(*flavors));
    if (!flavors || cq_add_admitted(cq, wl) < 0) {
        free(flavors);
        place_undo(pl);
        return -ENOMEM;
    }
    memcpy(flavors, e->assign,
           (size_t)wl->n_podsets * cq->n_groups * sizeof(*flavors));
    free(wl->flavors);
    wl->flavors = flavors;
    wl->flavor_groups = cq->n_groups;
    if (workload_record_charges(wl, cq) < 0) {
        cq_remove_admitted(cq, wl);
        free(wl->flavors);
        wl->flavors = NULL;
        place_undo(pl);
        return -ENOMEM;
    }
    wl->admitted_cq = cq;
    wl->borrows = e->borrowing > 0;
    wl->state = WL_ADMITTED;
    wl->admitted_ns = cy->c->now_ns;
    wl->has_admitted = true;
    wl->parked = false;
    entry_set_preempting(cy->c, wl, false);
    wl->spares_preemptor = false;
    free(wl->preempt_assign);
    wl->preempt_assign = NULL;
    wl->reason[0] = '\0';
    cq_queue_remove(cq, wl);
    cq_charge(cq, wl, 1);
    (void)workload_note_admitted(cy->c, wl); /* out of memory: counted */
    LOG_V(2, "admitted workload wl=\"%s\" cq=\"%s\" pods=%zu", wl->key,
          cq->name, pl->n);
    if (!wl->suspended) {
        place_bind(cy, pl);
        return 0;
    }
    if (cluster_hold_room(wl, pl->pods, pl->nodes, pl->n, true) < 0) {
        LOG_W("out of memory: no node room held for the pods of %s", wl->key);
        place_undo(pl);
    }
    wl->suspended = false;
    int r = cy->s->backend->resume(cy->s->backend_data, wl);
    if (r < 0)
        LOG_E("resuming %s failed: %s; its pods wait for the job to resume",
              wl->key, strerror(-r));
    return 0;
}

/* 5. Not admitted: the QUEUE plugin says what happens to the head. */
static void not_admitted(struct ordo_cycle *cy, struct entry *e)
{
    struct workload *wl = e->wl;
    struct ordo_plugin *qp = wl->cq->queue_plugin;
    /* Logged when it changes, not each cycle it stays the same. */
    bool changed = workload_set_reason(cy->c, wl, "%s", e->reason);
    enum ordo_verdict v =
        e->verdict == ORDO_OK ? ORDO_UNSCHEDULABLE : e->verdict;
    struct watchdog_mark m;
    watchdog_enter(&m, qp->desc->name, "on_not_admitted");
    enum ordo_queue_action a = qp->desc->queue->on_not_admitted(
        qp->self, (const struct ordo_workload *)wl, v);
    watchdog_leave(&m);
    /* A preemptor stays its ClusterQueue's head whatever the strategy:
     * parking it would move nothing and make the scheduler spin at this
     * instant. */
    if (a == ORDO_QUEUE_NEXT && !wl->preempting) {
        wl->parked = true;
        wl->parked_gen = e->gen;
        cy->s->parked++; /* the queue moved on: worth another cycle */
    }
    if (changed)
        LOG_V(3, "workload not admitted wl=\"%s\" reason=\"%s\"", wl->key,
              e->reason);
}

/* PREEMPT: victims through the PREEMPT plugin. *ret_waits when preemptions
 * were issued: the entry waits at the head of its ClusterQueue for its
 * victims, what it will take held for the rest of the cycle so that later
 * entries do not count on the room its victims leave. Otherwise it is not
 * admitted, holding the quota it waits for where its ClusterQueue cannot
 * always reclaim. */
static int preempt_entry(struct ordo_cycle *cy, struct entry *e,
                         bool *ret_waits)
{
    enum preempt_outcome outcome;
    int r = preempt_try(cy, e, &outcome);
    *ret_waits = false;
    if (r < 0)
        return r;
    if (outcome == PREEMPT_ISSUED) {
        workload_set_reason(cy->c, e->wl, "%s", e->reason);
        preempt_hold_usage(&cy->c->tree, e, 1);
        *ret_waits = true;
        return 0;
    }
    entry_set_preempting(cy->c, e->wl, false);
    preempt_reserve(cy, e);
    return 0;
}

/* The host's re-check of a FIT entry against what earlier entries of the
 * cycle took. An entry that fails it (Kueue's FailedAfterNomination) is not
 * parked: it is nominated again next cycle whatever the queueing
 * strategy. */
static bool quota_still_fits(struct ordo_cycle *cy, struct entry *e)
{
    if (entry_quota_recheck(cy, e, e->reason, sizeof(e->reason)))
        return true;
    workload_set_reason(cy->c, e->wl, "%s", e->reason);
    return false;
}

/* PLACE: e's pods on nodes with its flavors; a preemptor whose pods do not
 * fit tries the flavors it preempted for, keeping the first reason when
 * they do not fit either. */
static int place_entry(struct ordo_cycle *cy, struct entry *e,
                       struct placement *ret, enum place_outcome *ret_outcome)
{
    cy->wl = e->wl;
    cy->assign = e->assign;
    int r = place_gang(cy, e->wl, false, ret, ret_outcome);
    if (r < 0 || *ret_outcome == PLACE_PLACED || !e->wl->preempting)
        return r;
    char first[sizeof(cy->reason)];
    memcpy(first, cy->reason, sizeof(first));
    r = preempt_place_as_preempted(cy, e, ret, ret_outcome);
    if (r == 0 && *ret_outcome != PLACE_PLACED)
        memcpy(cy->reason, first, sizeof(first));
    return r;
}

static int admit(struct ordo_cycle *cy, struct entry *e,
                 const struct placement *pl, bool *ret_admitted)
{
    int r = commit(cy, e, pl);
    *ret_admitted = r == 0;
    if (r == 0)
        SCHED_OBSERVE(cy->s, admitted, e->wl);
    return r;
}

/* One entry, phases 4 and 5. 0 with *ret_admitted, or a negative errno. */
static int process_entry(struct ordo_cycle *cy, struct entry *e,
                         bool *ret_admitted)
{
    struct placement pl;
    enum place_outcome placed;
    int r;
    *ret_admitted = false;
    e->done = true;
    cluster_release_room(e->wl);
    if (e->wl->suspended && !cy->s->backend->resume) {
        workload_set_reason(cy->c, e->wl, "suspended, and this backend cannot "
                                   "resume jobs");
        return 0;
    }
    if (e->mode != ORDO_QUOTA_FIT && e->wl->preempting) {
        /* Its victims are gone but the QUOTA plugin now answers with other
         * flavors that do not fit: the ones it preempted for may. */
        if ((r = preempt_place_as_preempted(cy, e, &pl, &placed)) < 0)
            return r;
        if (placed == PLACE_PLACED)
            return admit(cy, e, &pl, ret_admitted);
    }
    if (e->mode == ORDO_QUOTA_PREEMPT) {
        bool waits;
        if ((r = preempt_entry(cy, e, &waits)) < 0 || waits)
            return r;
    }
    if (e->mode != ORDO_QUOTA_FIT) {
        not_admitted(cy, e);
        return 0;
    }
    if (!quota_still_fits(cy, e))
        return 0;
    if ((r = place_entry(cy, e, &pl, &placed)) < 0)
        return r;
    if (placed != PLACE_PLACED) {
        snprintf(e->reason, sizeof(e->reason), "%s", cy->reason);
        e->verdict = ORDO_UNSCHEDULABLE;
        not_admitted(cy, e);
        return 0;
    }
    return admit(cy, e, &pl, ret_admitted);
}

/* ---- the cycle ----------------------------------------------------------- */

/* What preemptors held for the cycle goes back. */
static void release_held(struct ordo_cycle *cy, struct entries *es)
{
    for (size_t i = 0; es->v && i < es->n; i++)
        if (es->v[i].reserved)
            preempt_hold_usage(&cy->c->tree, &es->v[i], -1);
}

int cycle_run(struct scheduler *s)
{
    struct ordo_cycle cy = {.s = s, .c = &s->cluster, .scratch = arena_new()};
    struct entries es = {.fair = s->config && s->config->fair_sharing};
    int admitted = 0, r;
    if (!cy.scratch)
        return -ENOMEM;
    watchdog_arm();
    s->cycles++;
    SCHED_OBSERVE(s, cycle_begin, cy.c->now_ns);
    drain_stopped(&cy);
    place_stragglers(&cy);
    if ((r = collect_heads(&cy, &es)) < 0 || (r = nominate_all(&cy, &es)) < 0)
        goto out;
    order_entries(&es);
    for (size_t i = 0; i < es.n; i++) {
        struct entry *e = next_entry(&cy, &es, i);
        bool ok;
        if (!e)
            break;
        if ((r = process_entry(&cy, e, &ok)) < 0)
            goto out;
        SCHED_OBSERVE(s, attempt, e->wl, ok);
        admitted += ok;
    }
    s->admissions += (uint64_t)admitted;
out:
    if (r >= 0)
        SCHED_OBSERVE(s, cycle_end, admitted);
    release_held(&cy, &es);
    arena_free(cy.scratch);
    watchdog_disarm();
    return r < 0 ? r : admitted;
}
