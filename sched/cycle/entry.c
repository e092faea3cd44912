/* entry.c - what the phases of a cycle share about the entry being
 * decided (entry.h): its state in the cycle, what admitting it takes per
 * (flavor, resource), the host's own quota re-check (Kueue's Available),
 * the preemptor flag and the admission order. Calls nothing above it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "entry.h"
#include "resid.h"
#include "satmath.h"
#include "workload.h"

int entry_begin(struct ordo_cycle *cy, struct workload *wl)
{
    uint32_t ng = wl->cq ? wl->cq->n_groups : 0;
    cy->wl = wl;
    cy->borrowing = 0;
    cy->reason[0] = '\0';
    cy->assign =
        arena_calloc(cy->scratch, (size_t)wl->n_podsets * (ng ? ng : 1),
                     sizeof(*cy->assign));
    return cy->assign ? 0 : -ENOMEM;
}

/* What admitting e takes, per FR of the quota tree, into e->usage; fails
 * when a requested resource has no assigned flavor the ClusterQueue lists.
 * Kueue: "pods" counts one per pod where the ClusterQueue covers it. */
bool entry_usage(struct ordo_cycle *cy, struct entry *e, char *why, size_t size)
{
    const struct workload *wl = e->wl;
    const struct cq *cq = wl->cq;
    const struct qtree *t = &cy->c->tree;
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    e->usage =
        arena_calloc(cy->scratch, t->n_fr ? t->n_fr : 1, sizeof(*e->usage));
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
            for (uint32_t k = 0; k < cq->n_groups && r < 0; k++) {
                r = cq_group_res_index(&cq->groups[k], id);
                g = (int)k;
            }
            if (r < 0) {
                if (i == s->n_req || per_pod == 0)
                    continue; /* "pods" counts only where covered, and a
                                 zero request of an uncovered resource is
                                 ignored */
                snprintf(why, size,
                         "resource %s is not covered by "
                         "ClusterQueue %s",
                         resid_name(id), cq->name);
                return false;
            }
            const struct flavor *f = e->assign[ps * cq->n_groups + (uint32_t)g];
            int fr = f ? qtree_fr(t, f, id) : -1;
            if (!f || cq_group_flavor_index(&cq->groups[g], f) < 0 || fr < 0) {
                snprintf(why, size, "no flavor assigned for %s of pod set %s",
                         resid_name(id), s->name);
                return false;
            }
            e->usage[fr] =
                sat_add64(e->usage[fr], sat_mul64((int64_t)s->count, per_pod));
        }
    }
    return true;
}

/* The host's own check of a FIT assignment, against the snapshot as
 * charged so far this cycle: every FR within what the ClusterQueue can
 * take now (Kueue's Available). */
bool entry_quota_recheck(struct ordo_cycle *cy, struct entry *e, char *why,
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

/* Sets w->preempting, keeping the cluster's count of them. */
void entry_set_preempting(struct cluster *c, struct workload *w, bool on)
{
    if (w->preempting == on)
        return;
    w->preempting = on;
    if (on)
        c->n_preempting++;
    else if (c->n_preempting > 0)
        c->n_preempting--;
}

int entry_cmp(const void *a, const void *b)
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
