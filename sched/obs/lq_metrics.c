/* lq_metrics.c - the families of lq_metrics.h: the LocalQueues listed
 * once, their series resolved once per scrape, then every ClusterQueue's
 * pending and admitted workloads counted into them. */
#include "lq_metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "resid.h"

#define L(...)                                                                 \
    {                                                                          \
        "name", "namespace", __VA_ARGS__ "replica_role"                        \
    }
static const struct metric_desc descs[LQ_MAX] = {
    [LQ_PENDING] = {"kueue_local_queue_pending_workloads",
                    "Pending workloads per LocalQueue: active (will be "
                    "tried) or inadmissible (parked).",
                    METRIC_GAUGE, L("status", )},
    [LQ_RESERVING] = {"kueue_local_queue_reserving_active_workloads",
                      "Workloads of the LocalQueue holding quota.",
                      METRIC_GAUGE, L()},
    [LQ_ADMITTED_ACTIVE] = {"kueue_local_queue_admitted_active_workloads",
                            "Admitted workloads of the LocalQueue still "
                            "running.",
                            METRIC_GAUGE, L()},
    [LQ_ADMITTED_TOTAL] = {"kueue_local_queue_admitted_workloads_total",
                           "Workloads admitted, per LocalQueue.",
                           METRIC_COUNTER, L("priority_class", )},
    [LQ_RES_RESERVATION] = {"kueue_local_queue_resource_reservation",
                            "Quota reserved by the LocalQueue's workloads, "
                            "per flavor and resource.",
                            METRIC_GAUGE, L("flavor", "resource", ), 1000},
    [LQ_RES_USAGE] = {"kueue_local_queue_resource_usage",
                      "Quota used by the LocalQueue's admitted workloads, "
                      "per flavor and resource.",
                      METRIC_GAUGE, L("flavor", "resource", ), 1000},
};
#undef L

int lq_metrics_register(struct lq_metrics *lm, struct metrics *reg)
{
    for (int i = 0; i < LQ_MAX; i++) {
        int r = metrics_register(reg, &descs[i], &lm->f[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

static struct metric_series *series(struct lq_metrics *lm, enum lq_fam f,
                                    const char *name, const char *ns,
                                    const char *a, const char *b,
                                    const char *role)
{
    const char *v[METRICS_LABELS_MAX] = {name, ns};
    size_t n = 2;
    if (a)
        v[n++] = a;
    if (b)
        v[n++] = b;
    v[n] = role;
    return metrics_series(lm->f[f], v);
}

void lq_metrics_admitted(struct lq_metrics *lm, const struct workload *w,
                         const char *pc, const char *role)
{
    if (!lm->f[LQ_ADMITTED_TOTAL] || !w->local_queue)
        return;
    metrics_add(
        series(lm, LQ_ADMITTED_TOTAL, w->local_queue, w->ns, pc, NULL, role),
        1);
}

/* A LocalQueue's series for this scrape. */
struct lq_row {
    UT_hash_handle hh;
    struct metric_series *pending[2], *reserving, *active;
    const char *name, *ns;
    char key[]; /* "ns/name" */
};

static bool lq_exists(void *data, const char *const *values)
{
    const struct cluster *c = data;
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", values[1], values[0]);
    return cluster_get_object(c, OBJ_LOCAL_QUEUE, key) != NULL;
}

/* Every LocalQueue at 0, its ClusterQueue's flavors and resources
 * included. NULL on no memory. */
static struct lq_row *rows(struct lq_metrics *lm, const struct cluster *c,
                           const char *role)
{
    struct lq_row *all = NULL;
    for (const struct obj_entry *e = c->lqs; e; e = e->hh.next) {
        size_t n = strlen(e->key) + 1;
        struct lq_row *r = calloc(1, sizeof(*r) + n);
        if (!r)
            return all;
        memcpy(r->key, e->key, n);
        r->ns = e->obj->meta.namespace_ ? e->obj->meta.namespace_ : "";
        r->name = e->obj->meta.name;
        r->pending[0] =
            series(lm, LQ_PENDING, r->name, r->ns, "active", NULL, role);
        r->pending[1] =
            series(lm, LQ_PENDING, r->name, r->ns, "inadmissible", NULL, role);
        r->reserving =
            series(lm, LQ_RESERVING, r->name, r->ns, NULL, NULL, role);
        r->active =
            series(lm, LQ_ADMITTED_ACTIVE, r->name, r->ns, NULL, NULL, role);
        metrics_set(r->pending[0], 0);
        metrics_set(r->pending[1], 0);
        metrics_set(r->reserving, 0);
        metrics_set(r->active, 0);
        const char *cqn = e->obj->u.local_queue.cluster_queue;
        const struct cq *q = cqn ? cluster_get_cq(c, cqn) : NULL;
        for (uint32_t g = 0; q && g < q->n_groups; g++)
            for (uint32_t f = 0; f < q->groups[g].n_flavors; f++)
                for (uint32_t k = 0; k < q->groups[g].n_res; k++) {
                    const char *fl = q->groups[g].flavors[f]->name,
                               *res = resid_name(q->groups[g].res_ids[k]);
                    metrics_set(series(lm, LQ_RES_RESERVATION, r->name, r->ns,
                                       fl, res, role),
                                0);
                    metrics_set(
                        series(lm, LQ_RES_USAGE, r->name, r->ns, fl, res, role),
                        0);
                }
        HASH_ADD_STR(all, key, r);
    }
    return all;
}

static struct lq_row *row_of(struct lq_row *all, const struct workload *w)
{
    char key[512];
    struct lq_row *r = NULL;
    if (!w->local_queue)
        return NULL;
    snprintf(key, sizeof(key), "%s/%s", w->ns, w->local_queue);
    HASH_FIND_STR(all, key, r);
    return r;
}

/* An admitted workload's quota, per flavor and resource, into its row. */
static void charge(struct lq_metrics *lm, const struct lq_row *r,
                   const struct workload *w, const char *role)
{
    for (uint32_t k = 0; k < w->n_charges; k++) {
        const struct wl_charge *ch = &w->charges[k];
        const struct podset *s = &w->podsets[ch->ps];
        int64_t v = (int64_t)(s->count - s->reclaimable) * ch->per_pod;
        const char *fl = ch->flavor ? ch->flavor->name : "",
                   *res = resid_name(ch->res);
        metrics_add(
            series(lm, LQ_RES_RESERVATION, r->name, r->ns, fl, res, role), v);
        metrics_add(series(lm, LQ_RES_USAGE, r->name, r->ns, fl, res, role), v);
    }
}

void lq_metrics_scrape(struct lq_metrics *lm, const struct cluster *c,
                       const char *role)
{
    if (!lm->f[LQ_PENDING])
        return;
    static const enum lq_fam gauges[] = {LQ_PENDING, LQ_RESERVING,
                                         LQ_ADMITTED_ACTIVE, LQ_RES_RESERVATION,
                                         LQ_RES_USAGE};
    for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
        metrics_family_clear(lm->f[gauges[i]]);
    struct lq_row *all = rows(lm, c, role), *r, *tmp;
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        const struct cq *q = c->cqs_v[i];
        for (size_t k = 0; k < q->n_pending; k++)
            if ((r = row_of(all, q->pending[k])))
                metrics_add(r->pending[q->pending[k]->parked ? 1 : 0], 1);
        for (uint32_t k = 0; k < q->n_admitted; k++) {
            const struct workload *w = q->admitted[k];
            if (!(r = row_of(all, w)))
                continue;
            metrics_add(r->reserving, 1);
            metrics_add(r->active, 1);
            charge(lm, r, w, role);
        }
    }
    HASH_ITER(hh, all, r, tmp)
    {
        HASH_DEL(all, r);
        free(r);
    }
    for (int i = 0; i < LQ_MAX; i++)
        metrics_family_retain(lm->f[i], lq_exists, (void *)c);
}
