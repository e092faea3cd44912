/* recover.c - the admission a workload's bound pods record (see
 * private/recover.h): the ClusterQueue and, per pod set, the flavor of
 * each resource group, read from the annotations the Kubernetes backend's
 * Binding put on each pod, and whether the quota it takes still fits. */
#include "recover.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "resid.h"
#include "satmath.h"

static const char *annot(const struct pod *p, const char *key)
{
    return strmap_get(&p->obj->meta.annotations, key);
}

/* Whether the Job or JobSet of w runs (not suspended): the pods it
 * finished under an admission belong to the current one. */
static bool top_runs(const struct workload *w)
{
    const struct object *t = w->top;
    if (!t || (w->kind != WL_JOB && w->kind != WL_JOBSET))
        return false;
    return t->kind == OBJ_JOB ? !t->u.job.spec.suspend : !t->u.jobset.suspend;
}

bool recover_pod_ran(const struct workload *w, const struct pod *p)
{
    return (p->state == PODSTATE_SUCCEEDED || p->state == PODSTATE_FAILED) &&
           p->obj && p->obj->u.pod.spec.node_name &&
           annot(p, ANNOT_ADMISSION_CQ) && top_runs(w);
}

/* Whether p is bound, or ran (recover_pod_ran), and records an admission
 * of w. A record naming another workload (a pod adopted since) is not
 * w's. */
static bool records(const struct workload *w, const struct pod *p)
{
    if (!p->obj || !annot(p, ANNOT_ADMISSION_CQ) ||
        (p->state != PODSTATE_BOUND && !recover_pod_ran(w, p)))
        return false;
    const char *wl = annot(p, ANNOT_ADMISSION_WORKLOAD);
    if (wl && strcmp(wl, w->key) != 0) {
        LOG_W("pod %s records workload %s, not %s: its admission record is "
              "not used",
              p->key, wl, w->key);
        return false;
    }
    return true;
}

static int invalid(struct recorded *ret, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int invalid(struct recorded *ret, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ret->why, sizeof(ret->why), fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* The flavor the record text of pod p names for group g of q, in *ret_f
 * (NULL when it names none). -EINVAL (ret->why) when the text is
 * malformed, names two flavors for the group, or a flavor that no longer
 * exists or that q no longer lists there. */
static int group_flavor(const struct cluster *c, const struct pod *p,
                        const struct cq *q, uint32_t g, struct recorded *ret,
                        struct flavor **ret_f)
{
    const struct cq_group *grp = &q->groups[g];
    const char *text = annot(p, ANNOT_ADMISSION_FLAVORS);
    char name[256] = "";
    *ret_f = NULL;
    for (const char *s = text; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        char res[256], fl[256];
        size_t rlen = eq ? (size_t)(eq - s) : 0, flen = len - rlen - 1;
        if (!eq || rlen == 0 || flen == 0 || rlen >= sizeof(res) ||
            flen >= sizeof(fl))
            return invalid(ret, "pod %s: %s \"%s\" is not resource=flavor,...",
                           p->key, ANNOT_ADMISSION_FLAVORS, text);
        memcpy(res, s, rlen);
        res[rlen] = '\0';
        memcpy(fl, eq + 1, flen);
        fl[flen] = '\0';
        s = end ? end + 1 : s + len;
        int32_t id = resid_lookup(res);
        if (id < 0 || cq_group_res_index(grp, id) < 0)
            continue; /* another group's (or no longer covered) */
        if (name[0] && strcmp(name, fl) != 0)
            return invalid(ret,
                           "pod %s names flavors %s and %s for one "
                           "resource group",
                           p->key, name, fl);
        memcpy(name, fl, flen + 1);
    }
    if (!name[0])
        return 0;
    struct flavor *f = cluster_flavor(c, name);
    if (!f || !f->obj)
        return invalid(ret,
                       "ResourceFlavor %s, recorded by pod %s, no "
                       "longer exists",
                       name, p->key);
    if (cq_group_flavor_index(grp, f) < 0)
        return invalid(ret,
                       "ClusterQueue %s no longer lists ResourceFlavor "
                       "%s, recorded by pod %s",
                       q->name, name, p->key);
    *ret_f = f;
    return 0;
}

/* Whether pod set ps takes quota of group g: it requests one of its
 * resources, or the group covers "pods" (every pod takes one). */
static bool podset_needs(const struct podset *s, const struct cq_group *grp)
{
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    if (pods_id >= 0 && cq_group_res_index(grp, pods_id) >= 0)
        return true;
    for (uint32_t i = 0; i < s->n_req; i++)
        if (cq_group_res_index(grp, s->req_ids[i]) >= 0)
            return true;
    return false;
}

/* Reads pod set ps's flavors from its first recording pod, logging the
 * other pods of the set that disagree with it or with first (the pod whose
 * ClusterQueue is used). */
static int read_podset(const struct cluster *c, const struct workload *w,
                       uint32_t ps, const struct pod *first,
                       struct recorded *ret)
{
    const struct cq *q = ret->cq;
    const struct pod *rec = NULL;
    for (size_t i = 0; i < w->n_pods; i++) {
        const struct pod *p = w->pods[i];
        if (p->podset != ps || !records(w, p))
            continue;
        const char *cq = annot(p, ANNOT_ADMISSION_CQ);
        if (strcmp(cq, q->name) != 0) {
            LOG_W("pod %s records ClusterQueue %s, pod %s %s: %s's is used",
                  p->key, cq, first->key, q->name, first->key);
            continue;
        }
        if (!rec) {
            rec = p;
            continue;
        }
        const char *a = annot(rec, ANNOT_ADMISSION_FLAVORS);
        const char *b = annot(p, ANNOT_ADMISSION_FLAVORS);
        if (strcmp(a ? a : "", b ? b : "") != 0)
            LOG_W("pod %s records flavors \"%s\", pod %s \"%s\": %s's are "
                  "used",
                  p->key, b ? b : "", rec->key, a ? a : "", rec->key);
    }
    const struct podset *s = &w->podsets[ps];
    for (uint32_t g = 0; g < q->n_groups; g++) {
        struct flavor *f = NULL;
        int r = rec ? group_flavor(c, rec, q, g, ret, &f) : 0;
        if (r < 0)
            return r;
        if (!f && podset_needs(s, &q->groups[g]))
            return invalid(
                ret,
                "pod set %s has no bound pod that records "
                "the flavor of resource %s",
                s->name,
                resid_name(q->groups[g].n_res ? q->groups[g].res_ids[0] : 0));
        ret->flavors[ps * q->n_groups + g] = f;
    }
    return 0;
}

int recover_read(const struct cluster *c, const struct workload *w,
                 struct recorded *ret)
{
    *ret = (struct recorded){0};
    const struct pod *first = NULL;
    for (size_t i = 0; i < w->n_pods && !first; i++)
        if (records(w, w->pods[i]))
            first = w->pods[i];
    if (!first)
        return 0;
    const char *name = annot(first, ANNOT_ADMISSION_CQ);
    ret->cq = cluster_cq(c, name);
    if (!ret->cq)
        return invalid(ret,
                       "ClusterQueue %s, recorded by pod %s, no longer "
                       "exists",
                       name, first->key);
    uint32_t ng = ret->cq->n_groups ? ret->cq->n_groups : 1;
    ret->flavors = calloc((size_t)(w->n_podsets ? w->n_podsets : 1) * ng,
                          sizeof(*ret->flavors));
    if (!ret->flavors)
        return -ENOMEM;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        int r = read_podset(c, w, ps, first, ret);
        if (r < 0) {
            free(ret->flavors);
            ret->flavors = NULL;
            return r;
        }
    }
    return 1;
}

int recover_fits(const struct workload *w, char *ret_fr, size_t n)
{
    const struct cq *q = w->admitted_cq;
    if (!q || !q->qnode || !q->qnode->tree->n_fr)
        return 1;
    const struct qtree *t = q->qnode->tree;
    int64_t *need = calloc(t->n_fr, sizeof(*need));
    if (!need)
        return -ENOMEM;
    for (uint32_t k = 0; k < w->n_charges; k++) {
        const struct wl_charge *ch = &w->charges[k];
        const struct podset *s = &w->podsets[ch->ps];
        int i = qtree_fr(t, ch->flavor, ch->res);
        if (i >= 0)
            need[i] = sat_add64(
                need[i],
                sat_mul64((int64_t)(s->count - s->reclaimable), ch->per_pod));
    }
    int i = qtree_first_short(q->qnode, need, true);
    free(need);
    if (i >= 0)
        snprintf(ret_fr, n, "%s of flavor %s", resid_name(t->frs[i].res),
                 t->frs[i].flavor->name);
    return i < 0;
}
