/* queues.c - ClusterQueues built from their objects (quota per flavor and
 * resource, active state), the order they are iterated in, and the quota
 * tree over them and the cohorts (see private/queues.h). */
#include "queues.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resid.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Kueue: a ClusterQueue that names a missing AdmissionCheck, or one that is
 * not Active, admits nothing. Ordo runs no admission check controller, so
 * an AdmissionCheck that exists is never Active either. The names are
 * sorted, as Kueue lists them. */
static int check_admission_checks(struct cluster *c, struct cq *q)
{
    const struct cluster_queue *spec = &q->obj->u.cluster_queue;
    size_t n = spec->n_admission_checks;
    if (!n || !q->active)
        return 0;
    const char **v = malloc(n * sizeof(*v));
    if (!v)
        return -ENOMEM;
    memcpy(v, spec->admission_checks, n * sizeof(*v));
    qsort(v, n, sizeof(*v), cmp_str);
    char missing[128] = "", inactive[128] = "";
    for (size_t i = 0; i < n; i++) {
        char *to = cluster_find(c->admission_checks, v[i]) ? inactive : missing;
        size_t len = strlen(to);
        snprintf(to + len, sizeof(missing) - len, "%s%s", len ? "," : "", v[i]);
    }
    free(v);
    q->active = false;
    if (*missing && *inactive)
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "references missing AdmissionCheck(s): %s, references "
                 "inactive AdmissionCheck(s): %s (Ordo runs no admission "
                 "check controller)",
                 missing, inactive);
    else if (*missing)
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "references missing AdmissionCheck(s): %s", missing);
    else
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "references inactive AdmissionCheck(s): %s (Ordo runs no "
                 "admission check controller)",
                 inactive);
    return 0;
}

/* Builds the groups of one ClusterQueue from its object. Usage is rebuilt
 * by the caller from admitted workloads. */
static int cq_build(struct cluster *c, struct cq *q)
{
    const struct cluster_queue *spec = &q->obj->u.cluster_queue;
    const char *rv = q->obj->meta.resource_version;
    struct cq_group *groups = calloc(
        spec->n_resource_groups ? spec->n_resource_groups : 1, sizeof(*groups));
    if (!groups)
        return -ENOMEM;
    /* The version these quotas come from, as admissions record it. */
    bool same = rv && q->built_version && strcmp(q->built_version, rv) == 0;
    char *ver = rv && *rv && !same ? strdup(rv) : NULL;
    if (rv && *rv && !same && !ver) {
        free(groups);
        return -ENOMEM;
    }
    q->active = true;
    q->inactive_reason[0] = '\0';
    for (size_t g = 0; g < spec->n_resource_groups; g++) {
        const struct resource_group *rg = &spec->resource_groups[g];
        struct cq_group *out = &groups[g];
        out->n_res = (uint32_t)rg->n_covered;
        out->n_flavors = (uint32_t)rg->n_flavors;
        out->res_ids = calloc(rg->n_covered, sizeof(*out->res_ids));
        out->flavors = calloc(rg->n_flavors, sizeof(*out->flavors));
        out->nominal = calloc(rg->n_covered * rg->n_flavors, sizeof(int64_t));
        out->usage = calloc(rg->n_covered * rg->n_flavors, sizeof(int64_t));
        if (!out->res_ids || !out->flavors || !out->nominal || !out->usage)
            goto oom;
        for (size_t r = 0; r < rg->n_covered; r++)
            if ((out->res_ids[r] = resid_intern(rg->covered_resources[r])) < 0)
                goto oom;
        for (size_t f = 0; f < rg->n_flavors; f++) {
            const struct flavor_quotas *fq = &rg->flavors[f];
            out->flavors[f] = cluster_flavor(c, fq->name);
            if ((!out->flavors[f] || !out->flavors[f]->obj) && q->active) {
                q->active = false;
                snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                         "ResourceFlavor %s not found", fq->name);
            } else if (out->flavors[f]->terminating && q->active) {
                q->active = false;
                snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                         "ResourceFlavor %s is being deleted", fq->name);
            }
            for (size_t r = 0; r < fq->n_resources; r++)
                out->nominal[f * rg->n_covered + r] =
                    fq->resources[r].nominal_quota;
        }
    }
    if (check_admission_checks(c, q) < 0)
        goto oom;
    if (spec->stop_policy != STOP_POLICY_NONE) {
        q->active = false;
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "ClusterQueue %s is stopped (stopPolicy %s)", q->name,
                 spec->stop_policy == STOP_POLICY_HOLD ? "Hold"
                                                       : "HoldAndDrain");
    }
    if (q->terminating) {
        q->active = false;
        snprintf(q->inactive_reason, sizeof(q->inactive_reason),
                 "ClusterQueue %s is being deleted (workloads are still "
                 "admitted to it)",
                 q->name);
    }
    cq_groups_free(q->groups, q->n_groups);
    q->groups = groups;
    q->n_groups = (uint32_t)spec->n_resource_groups;
    if (!same) {
        free(q->built_version);
        q->built_version = ver;
    }
    return 0;
oom:
    free(ver);
    cq_groups_free(groups, spec->n_resource_groups);
    return -ENOMEM;
}

/* Flavors referenced by a ClusterQueue exist as (possibly empty) entries so
 * that pointers stay stable when the ResourceFlavor arrives later. */
static int ensure_flavors(struct cluster *c, const struct cluster_queue *spec)
{
    for (size_t g = 0; g < spec->n_resource_groups; g++) {
        for (size_t f = 0; f < spec->resource_groups[g].n_flavors; f++) {
            const char *name = spec->resource_groups[g].flavors[f].name;
            if (cluster_flavor(c, name))
                continue;
            struct flavor *fl = calloc(1, sizeof(*fl));
            if (!fl || !(fl->name = strdup(name))) {
                free(fl);
                return -ENOMEM;
            }
            HASH_ADD_KEYPTR(hh, c->flavors, fl->name, strlen(fl->name), fl);
        }
    }
    return 0;
}

void queues_drain_refresh(struct cluster *c)
{
    c->drain = false;
    for (uint32_t k = 0; k < c->n_cqs; k++)
        c->drain |= c->cqs_v[k]->obj->u.cluster_queue.stop_policy ==
                    STOP_POLICY_HOLD_AND_DRAIN;
    struct obj_entry *e, *etmp;
    HASH_ITER(hh, c->lqs, e, etmp)
    c->drain |= e->obj->u.local_queue.stop_policy == STOP_POLICY_HOLD_AND_DRAIN;
}

static int cmp_cq_name(const void *a, const void *b)
{
    return strcmp((*(struct cq *const *)a)->name,
                  (*(struct cq *const *)b)->name);
}

int cluster_rebuild_queues(struct cluster *c)
{
    struct cq *q, *tmp;
    uint32_t n = HASH_COUNT(c->cqs);
    struct cq **v = calloc(n ? n : 1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    uint32_t i = 0;
    HASH_ITER(hh, c->cqs, q, tmp)
    {
        if (ensure_flavors(c, &q->obj->u.cluster_queue) < 0 ||
            cq_build(c, q) < 0) {
            free(v);
            return -ENOMEM;
        }
        if (!q->in_v) {
            /* Wake-ups count for it from now on. */
            q->in_v = true;
            q->wake_base = c->wake_gen;
        }
        q->requeue_gen++;
        v[i++] = q;
    }
    qsort(v, n, sizeof(*v), cmp_cq_name);
    for (i = 0; i < n; i++)
        v[i]->index = i;
    free(c->cqs_v);
    c->cqs_v = v;
    c->n_cqs = n;
    if (qtree_build(&c->tree, c->cqs_v, c->n_cqs, c->cohorts, c->flavors) < 0)
        return -ENOMEM;
    queues_drain_refresh(c);
    /* Usage from admitted workloads, and queue membership. */
    int r = workload_requeue_all(c);
    if (r == 0) {
        qtree_mark_baseline(&c->tree);
        c->tree_gen++;
    }
    return r;
}

/* Queues q's pending workloads again (their reasons follow q's state). */
static int requeue_pending_of(struct cluster *c, struct cq *q)
{
    size_t n = q->n_pending;
    struct workload **v = malloc((n ? n : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    if (n)
        memcpy(v, q->pending, n * sizeof(*v));
    q->n_pending = 0;
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        v[i]->queued = false;
        r = workload_enqueue(c, v[i]);
    }
    free(v);
    return r;
}

int queues_refresh(struct cluster *c, const struct cq *changed)
{
    if (c->queues_dirty)
        return 0; /* the full rebuild at the next sync does it all */
    uint32_t n = c->n_cqs;
    bool *was_active = calloc(n ? n : 1, sizeof(*was_active));
    char(*was_why)[sizeof(c->cqs_v[0]->inactive_reason)] =
        calloc(n ? n : 1, sizeof(*was_why));
    int r = was_active && was_why ? 0 : -ENOMEM;
    for (uint32_t i = 0; r == 0 && i < n; i++) {
        struct cq *q = c->cqs_v[i];
        was_active[i] = q->active;
        memcpy(was_why[i], q->inactive_reason, sizeof(was_why[i]));
        if (ensure_flavors(c, &q->obj->u.cluster_queue) < 0 ||
            cq_build(c, q) < 0)
            r = -ENOMEM;
        q->requeue_gen++; /* quota moved: parked ones get another try */
    }
    if (r == 0 &&
        qtree_build(&c->tree, c->cqs_v, n, c->cohorts, c->flavors) < 0)
        r = -ENOMEM;
    /* The usage of the admitted workloads, as they were charged: their
     * workloads are not rebuilt. */
    for (uint32_t i = 0; r == 0 && i < n; i++) {
        struct cq *q = c->cqs_v[i];
        cluster_mark_usage(c, q);
        for (uint32_t k = 0; r == 0 && k < q->n_admitted; k++) {
            struct workload *w = q->admitted[k];
            if (w->flavors && workload_remap_flavors(w, q) < 0)
                r = -ENOMEM;
            else
                cq_charge(q, w, 1);
        }
    }
    if (r == 0) {
        qtree_mark_baseline(&c->tree);
        c->tree_gen++;
        queues_drain_refresh(c);
    }
    for (uint32_t i = 0; r == 0 && i < n; i++) {
        struct cq *q = c->cqs_v[i];
        if (q == changed || q->active != was_active[i] ||
            strcmp(q->inactive_reason, was_why[i]) != 0)
            r = requeue_pending_of(c, q);
    }
    free(was_active);
    free(was_why);
    return r;
}

int queues_remove_cq(struct cluster *c, struct cq *q)
{
    size_t n = q->n_pending;
    struct workload **v = malloc((n ? n : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    if (n)
        memcpy(v, q->pending, n * sizeof(*v));
    if (q->terminating && c->n_terminating > 0)
        c->n_terminating--;
    q->terminating = false;
    int r = cluster_cq_retire(c, q);
    /* cqs_v without it, in name order still. */
    uint32_t keep = 0;
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        if (c->cqs_v[i] != q) {
            c->cqs_v[keep] = c->cqs_v[i];
            c->cqs_v[keep]->index = keep;
            keep++;
        }
    if (r == 0)
        c->n_cqs = keep;
    if (r == 0)
        r = queues_refresh(c, NULL);
    /* Its pending workloads wait for a ClusterQueue of that name. */
    for (size_t i = 0; r == 0 && i < n; i++) {
        v[i]->queued = false;
        v[i]->cq = NULL;
        r = workload_enqueue(c, v[i]);
    }
    free(v);
    return r;
}

bool queues_flavor_in_use(const struct cluster *c, const struct flavor *f)
{
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        const struct cq *q = c->cqs_v[i];
        for (uint32_t k = 0; k < q->n_admitted; k++) {
            const struct workload *w = q->admitted[k];
            for (uint32_t j = 0; j < w->n_charges; j++)
                if (w->charges[j].flavor == f)
                    return true;
        }
    }
    return false;
}
