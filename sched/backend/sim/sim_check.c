/* sim_check.c - --sim-check: what must hold whenever the scheduler is done
 * with an instant (see sim_check_invariants in sim_int.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "resid.h"
#include "sim_int.h"

static void violation(FILE *out, const struct cluster *c, size_t *n,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void violation(FILE *out, const struct cluster *c, size_t *n,
                      const char *fmt, ...)
{
    char t[64], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(out, "invariant violated at t=%s: %s\n",
            duration_format(c->now_ns, t, sizeof(t)), msg);
    (*n)++;
}

void sim_last_values_free(struct last_value **h)
{
    struct last_value *lv, *tmp;
    HASH_ITER(hh, *h, lv, tmp)
    {
        HASH_DEL(*h, lv);
        free(lv->key);
        free(lv);
    }
}

void sim_checker_release(struct sim_checker *ck)
{
    if (ck)
        sim_last_values_free(&ck->checked);
}

/* A new record of the usage last checked under key, or NULL (out of
 * memory). */
static struct last_value *remember(struct sim_checker *ck, const char *key)
{
    struct last_value *lv = calloc(1, sizeof(*lv));
    if (!lv || !(lv->key = strdup(key))) {
        free(lv);
        return NULL;
    }
    HASH_ADD_KEYPTR(hh, ck->checked, lv->key, strlen(lv->key), lv);
    return lv;
}

/* A node's usage above what it can hold is a violation only when it grew
 * since the last check: lowering a quota below what is admitted is the
 * admin's doing (Kueue lets that usage stay), admitting past it is not.
 * When the tree was rebuilt since (queues changed: a Cohort moved, a
 * ClusterQueue left its cohort), usage may land on a node without any
 * admission: growth then counts from the rebuilt tree's baseline. Usage
 * below zero is always a violation. */
static void check_node(struct sim_checker *ck, const struct cluster *c,
                       size_t *n, const struct qnode *nd)
{
    const struct qtree *t = &c->tree;
    const char *what = nd->cq ? "ClusterQueue" : "cohort";
    for (uint32_t i = 0; i < t->n_fr; i++) {
        int64_t use = qnode_usage(nd, (int)i);
        if (use < 0)
            violation(ck->out, c, n, "%s %s: %s in flavor %s used %lld < 0",
                      what, nd->name, resid_name(t->frs[i].res),
                      t->frs[i].flavor->name, (long long)use);
        if (nd->in_cycle)
            continue;
        int64_t cap = qtree_potential_available(nd, (int)i);
        char key[600];
        snprintf(key, sizeof(key), "%s\n%s\n%s\n%s", nd->cq ? "cq" : "co",
                 nd->name, t->frs[i].flavor->name, resid_name(t->frs[i].res));
        struct last_value *lv = NULL;
        HASH_FIND_STR(ck->checked, key, lv);
        int64_t before =
            lv && lv->tree_gen == c->tree_gen ? lv->usage : nd->baseline[i];
        if (use > cap && use > before)
            violation(ck->out, c, n,
                      "%s %s: %s in flavor %s used %lld > limit %lld", what,
                      nd->name, resid_name(t->frs[i].res),
                      t->frs[i].flavor->name, (long long)use, (long long)cap);
        if (!lv && !(lv = remember(ck, key)))
            continue; /* out of memory: checked from zero next time */
        lv->usage = use;
        lv->tree_gen = c->tree_gen;
    }
}

/* A node's usage above its allocatable is a violation only when it grew
 * since the last check: a Node updated to less room under running pods is
 * the cluster's doing (the kubelet lets them run), binding past it is
 * not. Usage below zero is always a violation. */
static void check_room(struct sim_checker *ck, const struct cluster *c,
                       size_t *n, const struct node *nd)
{
    for (int32_t id = 0; id < nd->n_ids; id++) {
        int64_t use = nd->used[id];
        if (use < 0)
            violation(ck->out, c, n, "node %s: %s used %lld < 0", nd->name,
                      resid_name(id), (long long)use);
        char key[600];
        snprintf(key, sizeof(key), "node\n%s\n%s", nd->name,
                 resid_name(id) ? resid_name(id) : "?");
        struct last_value *lv = NULL;
        HASH_FIND_STR(ck->checked, key, lv);
        if (use > nd->alloc[id] && (!lv || use > lv->usage))
            violation(ck->out, c, n, "node %s: %s used %lld > allocatable %lld",
                      nd->name, resid_name(id), (long long)use,
                      (long long)nd->alloc[id]);
        if (!lv && use <= 0)
            continue; /* nothing to remember yet */
        if (!lv && !(lv = remember(ck, key)))
            continue; /* out of memory: checked from zero next time */
        lv->usage = use;
    }
}

/* An admitted workload's charges: none takes a negative amount. */
static void check_charges(struct sim_checker *ck, const struct cluster *c,
                          size_t *n, const struct workload *w)
{
    for (uint32_t k = 0; k < w->n_charges; k++) {
        const struct wl_charge *ch = &w->charges[k];
        if (ch->ps >= w->n_podsets)
            continue;
        const struct podset *s = &w->podsets[ch->ps];
        int64_t pods = (int64_t)s->count - (int64_t)s->reclaimable;
        if (ch->per_pod < 0 || pods < 0)
            violation(ck->out, c, n,
                      "workload %s pod set %s: charges %lld x %lld of %s in "
                      "flavor %s (negative)",
                      w->key, s->name, (long long)pods, (long long)ch->per_pod,
                      resid_name(ch->res), ch->flavor ? ch->flavor->name : "?");
    }
}

/* What must hold whenever the scheduler is done with an instant: no node
 * over allocatable (unless its room shrank under its pods), no
 * ClusterQueue or cohort over its limits, no usage or
 * charge below zero, every admitted workload bound as a whole, no preemptor
 * left waiting for victims it did not get (nobody preempted for nothing). */
size_t sim_check_invariants(struct sim_checker *ck, const struct cluster *c)
{
    const struct qtree *t = &c->tree;
    size_t n = 0;
    if (!ck->out)
        ck->out = stderr;
    for (uint32_t i = 0; i < c->n_nodes; i++)
        check_room(ck, c, &n, c->nodes_v[i]);
    /* Every ClusterQueue and cohort within what it could ever hold. */
    struct qnode *co, *cotmp;
    for (uint32_t q = 0; q < t->n_cq; q++)
        check_node(ck, c, &n, t->cq_nodes[q]);
    HASH_ITER(hh, t->cohorts, co, cotmp)
    check_node(ck, c, &n, co);
    bool any_evicting = false;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    any_evicting |= w->evicting;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        if (w->preempting && w->state == WL_PENDING && !any_evicting)
            violation(ck->out, c, &n,
                      "workload %s preempted others and is still pending: %s",
                      w->key, w->reason);
        if (w->state != WL_ADMITTED)
            continue;
        check_charges(ck, c, &n, w);
        for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
            const struct podset *s = &w->podsets[ps];
            uint32_t bound = s->n_bound;
            uint32_t want = s->count - s->reclaimable;
            if (bound > s->count)
                violation(ck->out, c, &n,
                          "workload %s pod set %s: %u pods bound, admitted "
                          "for %u",
                          w->key, s->name, bound, s->count);
            else if (w->admitted_ns == c->now_ns && bound < want)
                violation(ck->out, c, &n,
                          "workload %s pod set %s admitted with %u of %u "
                          "pods bound",
                          w->key, s->name, bound, want);
        }
    }
    return n;
}
