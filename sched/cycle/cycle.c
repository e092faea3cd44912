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
 * Placement is in place.c, preemption in preempt.c. Verdicts are
 * interpreted by these three files only; plugins never call each other,
 * and nothing a plugin answers is trusted without a check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cycle.h"
#include "log.h"
#include "place.h"
#include "preempt.h"
#include "queue.h"
#include "resid.h"
#include "satmath.h"
#include "watchdog.h"
#include "workload.h"


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

/* Asks the QUOTA plugin for wl's flavors. */
static int nominate(struct ordo_cycle *cy, struct entry *e)
{
    struct ordo_plugin *qp = cy->s->plugins.quota;
    int r = cycle_begin_entry(cy, e->wl);
    if (r < 0)
        return r;
    enum ordo_quota_mode mode = ORDO_QUOTA_NOFIT;
    struct watchdog_mark m;
    watchdog_enter(&m, qp->desc->name, "assign");
    e->verdict = cycle_verdict(qp->desc->quota->assign(
        qp->self, cy, (const struct ordo_workload *)e->wl, &mode));
    watchdog_leave(&m);
    e->assign = cy->assign;
    e->borrowing = cy->borrowing;
    if (e->verdict != ORDO_OK) {
        e->mode = ORDO_QUOTA_NOFIT;
        snprintf(e->reason, sizeof(e->reason), "%.63s: %.900s",
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
bool cycle_entry_usage(struct ordo_cycle *cy, struct entry *e, char *why,
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
                if (i == s->n_req || per_pod == 0)
                    continue; /* "pods" counts only where covered, and a
                                 zero request of an uncovered resource is
                                 ignored */
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
            e->usage[fr] = sat_add64(
                e->usage[fr], sat_mul64((int64_t)s->count, per_pod));
        }
    }
    return true;
}

/* The host's own check of a FIT assignment, against the snapshot as
 * charged so far this cycle: every FR within what the ClusterQueue can
 * take now (Kueue's Available). */
bool cycle_quota_recheck(struct ordo_cycle *cy, struct entry *e, char *why,
                          size_t size)
{
    const struct qtree *t = &cy->c->tree;
    if (!e->usage && !cycle_entry_usage(cy, e, why, size))
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


/* Sets w->preempting, keeping the cluster's count of them. */
void cycle_set_preempting(struct cluster *c, struct workload *w, bool on)
{
    if (w->preempting == on)
        return;
    w->preempting = on;
    if (on)
        c->n_preempting++;
    else if (c->n_preempting > 0)
        c->n_preempting--;
}

/* Undoes a placement that is not committed: its pods leave their nodes;
 * planned ones are freed. */
static void unplace(struct pod **pods, struct node **nodes, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        node_charge(nodes[k], pods[k], -1);
        if (pod_planned(pods[k]))
            cluster_planned_pod_free(pods[k]);
    }
}

/* Admits e with its pods placed: charges quota, then binds the pods, or,
 * for a job created suspended (its pods planned, see place_planned), holds
 * their room and asks the backend to resume it (Kueue's way: its pods,
 * once made, are placed in that room with the admission's flavors). */
static int commit(struct ordo_cycle *cy, struct entry *e, struct pod **pods,
                  struct node **nodes, size_t n)
{
    struct workload *wl = e->wl;
    struct cq *q = wl->cq;
    size_t slots = (size_t)wl->n_podsets * (q->n_groups ? q->n_groups : 1);
    struct flavor **flavors = calloc(slots, sizeof(*flavors));
    if (!flavors || cq_add_admitted(q, wl) < 0) {
        free(flavors);
        unplace(pods, nodes, n);
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
        unplace(pods, nodes, n);
        return -ENOMEM;
    }
    wl->admitted_cq = q;
    wl->borrows = e->borrowing > 0;
    wl->state = WL_ADMITTED;
    wl->admitted_ns = cy->c->now_ns;
    wl->has_admitted = true;
    wl->parked = false;
    cycle_set_preempting(cy->c, wl, false);
    wl->spares_preemptor = false;
    free(wl->preempt_assign);
    wl->preempt_assign = NULL;
    wl->reason[0] = '\0';
    cq_queue_remove(q, wl);
    cq_charge(q, wl, 1);
    LOG_V(2, "admitted workload wl=\"%s\" cq=\"%s\" pods=%zu", wl->key,
          q->name, n);
    if (!wl->suspended) {
        place_bind(cy, pods, nodes, n);
        return 0;
    }
    if (cluster_hold_room(wl, pods, nodes, n, true) < 0) {
        LOG_W("out of memory: no node room held for the pods of %s", wl->key);
        unplace(pods, nodes, n);
    }
    wl->suspended = false;
    int r = cy->s->backend->resume(cy->s->backend_data, wl);
    if (r < 0)
        LOG_E("resuming %s failed: %s; its pods wait for the job to resume",
              wl->key, strerror(-r));
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
    struct watchdog_mark m;
    watchdog_enter(&m, qp->desc->name, "on_not_admitted");
    enum ordo_queue_action a = qp->desc->queue->on_not_admitted(
        qp->self, (const struct ordo_workload *)wl, v);
    watchdog_leave(&m);
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

/* Gives q the QUEUE plugin of its strategy, as it is looked at: only
 * queues with pending workloads need one. */
static void queue_plugin_assign(struct scheduler *s, struct cq *q)
{
    struct ordo_plugin *p =
        q->obj->u.cluster_queue.queueing_strategy == QUEUEING_STRICT_FIFO
            ? s->plugins.queue_strict
            : s->plugins.queue_best_effort;
    if (q->queue_plugin != p) {
        q->queue_plugin = p;
        q->dirty = true;
    }
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
    uint64_t gen = cq_requeue_gen(c, q);
    for (size_t i = 0; i < q->n_pending; i++) {
        struct workload *w = q->pending[i];
        /* Never a head: outside the namespaceSelector, or more pods than
         * Ordo admits (the reason says so). */
        if (w->ns_mismatch || w->over_cap ||
            (w->parked && w->parked_gen >= gen))
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
            /* The room planned for a resumed job's pods is theirs now. */
            for (uint32_t ps = 0; w->held_planned && ps < w->n_podsets; ps++)
                cluster_release_planned(w, ps, workload_pending_pods(w, ps));
            if (place_gang(cy, w, true, &pods, &nodes, &n) == 0)
                place_bind(cy, pods, nodes, n);
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
            preempt_evict(cy, w, by, false, NULL);
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
    watchdog_arm();
    s->cycles++;
    drain_stopped(&cy);
    place_stragglers(&cy);

    /* Heads come only from queues with pending workloads, in cqs_v order:
     * the cost of a cycle does not grow with idle ClusterQueues. */
    cluster_busy_refresh(c);
    entries = arena_calloc(cy.scratch, c->n_busy + 1, sizeof(*entries));
    if (!entries) {
        r = -ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < c->n_busy; i++) {
        struct cq *q = c->busy[i];
        queue_plugin_assign(s, q);
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
        entries[n].gen = cq_requeue_gen(c, q);
        entries[n++].wl = head;
    }
    bool fair = s->config && s->config->fair_sharing;
    for (size_t i = 0; i < n; i++) {
        if ((r = nominate(&cy, &entries[i])) < 0)
            goto out;
        /* The tournament weighs each entry's usage; a NOFIT entry has no
         * flavors and keeps the QUOTA plugin's reason. */
        if (fair && entries[i].mode != ORDO_QUOTA_NOFIT &&
            !cycle_entry_usage(&cy, &entries[i], entries[i].reason,
                         sizeof(entries[i].reason)))
            entries[i].mode = ORDO_QUOTA_NOFIT;
    }
    if (!fair)
        qsort(entries, n, sizeof(*entries), cmp_entries);

    for (size_t i = 0; i < n; i++) {
        struct entry *e = fair ? fs_next(&cy, entries, n) : &entries[i];
        e->done = true;
        cluster_release_room(e->wl);
        if (e->wl->suspended && !s->backend->resume) {
            workload_set_reason(e->wl, "suspended, and this backend cannot "
                                       "resume jobs");
            continue;
        }
        if (e->mode != ORDO_QUOTA_FIT && e->wl->preempting) {
            /* Its victims are gone but the QUOTA plugin now answers with
             * other flavors that do not fit: the ones it preempted for
             * may. */
            struct pod **pods;
            struct node **nodes;
            size_t np;
            r = preempt_place_as_preempted(&cy, e, &pods, &nodes, &np);
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
            r = preempt_try(&cy, e);
            if (r < 0)
                goto out;
            if (r > 0) {
                /* Waits at the head of its queue for its victims; what it
                 * will take is held for the rest of the cycle so that later
                 * entries do not count on the room its victims leave. */
                workload_set_reason(e->wl, "%s", e->reason);
                preempt_hold_usage(&c->tree, e, 1);
                r = 0;
                continue;
            }
            cycle_set_preempting(c, e->wl, false);
            preempt_reserve(&cy, e);
        }
        if (e->mode != ORDO_QUOTA_FIT) {
            not_admitted(&cy, e);
            continue;
        }
        if (!cycle_quota_recheck(&cy, e, e->reason, sizeof(e->reason))) {
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
            r = preempt_place_as_preempted(&cy, e, &pods, &nodes, &np);
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
            preempt_hold_usage(&c->tree, &entries[i], -1);
    arena_free(cy.scratch);
    watchdog_disarm();
    return r < 0 ? r : admitted;
}
