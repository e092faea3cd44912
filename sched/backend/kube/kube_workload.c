/* kube_workload.c - Kueue Workload objects and their status from the
 * scheduler's workload record (see kube_workload.h). Reasons and messages
 * are Kueue's (apis/kueue/v1beta2/workload_types.go, pkg/workload,
 * pkg/scheduler/preemption); where Ordo's record says more than Kueue
 * would (why a workload waits), Ordo's words go in the message. */
#include "kube_workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kube_json.h"
#include "quantity.h"
#include "resid.h"
#include "resources.h"
#include "satmath.h"

#define KUEUE_PREFIX "/apis/kueue.x-k8s.io/v1beta2"
#define PATH_MAX_LEN 600

/* ---- what happened, from the record -------------------------------------- */

struct wl_facts {
    int64_t t_adm, t_ev, t_rq, t_fin;
    bool evicted;    /* an eviction happened (last one: t_ev) */
    bool ev_current; /* the last eviction came after the last admission */
    bool reserved;   /* holds quota now, or held it when it finished */
    const char *fin_detail;
    /* The last eviction in Kueue's words. */
    const char *ev_reason; /* Evicted reason */
    char ev_msg[1200];
    const char *preempted_reason; /* NULL: not a preemption */
    bool stopped_queue;           /* evicted by a stop policy */
};

static const char *human_preemption(const char *class)
{
    static const struct {
        const char *reason, *human;
    } t[] = {{"InClusterQueue", "prioritization in the ClusterQueue"},
             {"InCohortReclamation", "reclamation within the cohort"},
             {"InCohortFairSharing", "Fair Sharing within the cohort"},
             {"InCohortReclaimWhileBorrowing",
              "reclamation within the cohort while borrowing"}};
    for (size_t i = 0; class && i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(t[i].reason, class) == 0)
            return t[i].human;
    return "UNKNOWN";
}

/* "/cohort/.../cq" as Kueue's preemption messages print a queue's place,
 * or "UNKNOWN". */
static void queue_path(const struct cq *q, char *buf, size_t size)
{
    if (!q || !q->qnode) {
        snprintf(buf, size, "UNKNOWN");
        return;
    }
    const struct qnode *chain[32];
    size_t n = 0;
    for (const struct qnode *x = q->qnode; x && n < 32; x = x->parent)
        chain[n++] = x;
    size_t len = 0;
    buf[0] = '\0';
    while (n-- > 0 && len < size) {
        int w = snprintf(buf + len, size - len, "/%s", chain[n]->name);
        len += w > 0 ? (size_t)w : 0;
    }
}

static void eviction_words(const struct cluster *c, const struct workload *w,
                           const struct kube_wl_opts *o, struct wl_facts *f)
{
    if (w->evicted_by_preemptor && w->evicted_by[0]) {
        const struct workload *by = cluster_get_workload(c, w->evicted_by);
        const char *wuid =
            o && o->uid_of ? o->uid_of(o->data, w->evicted_by) : NULL;
        const char *juid = by && by->top ? by->top->meta.uid : NULL;
        char from[256], to[256];
        queue_path(by ? (by->admitted_cq ? by->admitted_cq : by->cq) : NULL,
                   from, sizeof(from));
        queue_path(w->admitted_cq ? w->admitted_cq : w->cq, to, sizeof(to));
        f->ev_reason = "Preempted";
        f->preempted_reason =
            w->evict_class ? w->evict_class : "InClusterQueue";
        snprintf(f->ev_msg, sizeof(f->ev_msg),
                 "Preempted to accommodate a workload (UID: %s, JobUID: %s) "
                 "due to %s; preemptor path: %s; preemptee path: %s",
                 wuid ? wuid : "UNKNOWN", juid ? juid : "UNKNOWN",
                 human_preemption(f->preempted_reason), from, to);
    } else if (strncmp(w->evicted_by, "ClusterQueue stopped", 20) == 0) {
        f->ev_reason = "ClusterQueueStopped";
        f->stopped_queue = true;
        snprintf(f->ev_msg, sizeof(f->ev_msg), "The ClusterQueue is stopped");
    } else if (strncmp(w->evicted_by, "LocalQueue stopped", 18) == 0) {
        f->ev_reason = "LocalQueueStopped";
        f->stopped_queue = true;
        snprintf(f->ev_msg, sizeof(f->ev_msg), "The LocalQueue is stopped");
    } else if (strncmp(w->evicted_by, "bind of pod ", 12) == 0) {
        /* A gang whose binds failed in part (scheduler.h): Ordo's reason,
         * Kueue has none for it. */
        f->ev_reason = "BindFailed";
        snprintf(f->ev_msg, sizeof(f->ev_msg), "%s", w->evicted_by);
    } else {
        /* Its Job changed under it: Kueue replaces the Workload; Ordo keeps
         * one and says why it was stopped. */
        f->ev_reason = "OutOfSync";
        snprintf(f->ev_msg, sizeof(f->ev_msg), "%s",
                 w->evicted_by[0] ? w->evicted_by : "evicted");
    }
}

const char *kube_workload_eviction(const struct cluster *c,
                                   const struct workload *w,
                                   const struct kube_wl_opts *o, char *buf,
                                   size_t size, const char **ret_preempted)
{
    struct wl_facts f;
    memset(&f, 0, sizeof(f));
    eviction_words(c, w, o, &f);
    snprintf(buf, size, "%s", f.ev_msg);
    if (ret_preempted)
        *ret_preempted = f.preempted_reason;
    return f.ev_reason;
}

static void facts(const struct cluster *c, const struct workload *w,
                  const struct kube_wl_opts *o, struct wl_facts *f)
{
    memset(f, 0, sizeof(*f));
    f->t_adm = w->has_admitted ? w->admitted_ns : -1;
    f->t_ev = -1;
    f->t_rq = -1;
    f->t_fin = w->has_finished ? w->finished_ns : -1;
    f->evicted = w->evictions > 0 || w->evicting;
    /* Which came last is read from the history's order: several may
     * happen at one instant. */
    long i_adm = -1, i_ev = -1, i_rq = -1;
    for (size_t i = 0; i < w->history.n; i++) {
        const struct wl_event *e = &w->history.ev[i];
        if (e->type == WL_EV_ADMITTED)
            i_adm = (long)i;
        else if (e->type == WL_EV_EVICTED)
            f->t_ev = e->t_ns, i_ev = (long)i;
        else if (e->type == WL_EV_REQUEUED)
            f->t_rq = e->t_ns, i_rq = (long)i;
        else if (e->type == WL_EV_FINISHED)
            f->fin_detail = e->detail;
    }
    if (f->evicted && f->t_ev < 0)
        f->t_ev = w->evicted_ns;
    if (f->evicted && f->t_rq < 0 && !w->evicting)
        f->t_rq = f->t_ev;
    f->ev_current = f->evicted && (w->evicting || i_ev > i_adm);
    if (w->state == WL_ADMITTED)
        f->reserved = true;
    else if (w->state == WL_FINISHED)
        f->reserved = i_adm >= 0 && i_ev < i_adm && i_rq < i_adm;
    if (f->evicted)
        eviction_words(c, w, o, f);
}

/* ---- status ------------------------------------------------------------- */

static int add_cond(struct json_object *arr, const char *type, bool status,
                    const char *reason, const char *msg, int64_t t)
{
    return kjson_append(arr, kjson_condition(type, status, reason, msg, t));
}

/* Whether the queue that stopped w is still stopped. */
static bool queue_still_stopped(const struct cluster *c,
                                const struct workload *w)
{
    if (w->cq && !w->cq->active)
        return true;
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", w->ns,
             w->local_queue ? w->local_queue : "default");
    const struct object *lq = cluster_get_object(c, OBJ_LOCAL_QUEUE, key);
    return lq && lq->u.local_queue.stop_policy != STOP_POLICY_NONE;
}

static int conditions(const struct cluster *c, const struct workload *w,
                      const struct wl_facts *f, struct json_object *arr)
{
    char msg[REASON_MAX + 1300];
    const struct cq *q = w->admitted_cq ? w->admitted_cq : w->cq;
    int r = 0;
    if (f->reserved) {
        snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s",
                 q ? q->name : "");
        r |= add_cond(arr, "QuotaReserved", true, "QuotaReserved", msg,
                      f->t_adm);
        r |= add_cond(arr, "Admitted", true, "Admitted",
                      "The workload is admitted", f->t_adm);
    } else {
        int64_t since = f->evicted && f->t_rq >= 0 ? f->t_rq : w->created_ns;
        r |= add_cond(arr, "QuotaReserved", false, "Pending",
                      w->reason[0] ? w->reason : "", since);
        if (f->t_adm >= 0)
            r |= add_cond(arr, "Admitted", false, "NoReservation",
                          "The workload has no reservation", since);
    }
    if (f->evicted) {
        /* Admitted again since: Kueue turns both False, "Previously: ". */
        bool now = f->ev_current;
        int64_t t = now ? f->t_ev : f->t_adm;
        if (!now)
            snprintf(msg, sizeof(msg), "Previously: %s", f->ev_msg);
        else
            snprintf(msg, sizeof(msg), "%s", f->ev_msg);
        r |= add_cond(arr, "Evicted", now, now ? f->ev_reason : "QuotaReserved",
                      msg, t);
        if (f->preempted_reason)
            r |= add_cond(arr, "Preempted", now,
                          now ? f->preempted_reason : "QuotaReserved", msg, t);
        if (f->t_rq >= 0 && !(now && w->evicting)) {
            bool held = f->stopped_queue && w->state == WL_PENDING &&
                        queue_still_stopped(c, w);
            const char *why = f->ev_reason;
            if (f->stopped_queue && !held)
                why = strcmp(f->ev_reason, "ClusterQueueStopped") == 0
                          ? "ClusterQueueRestarted"
                          : "LocalQueueRestarted";
            r |= add_cond(arr, "Requeued", !held, why, f->ev_msg, f->t_rq);
        }
    }
    if (w->state == WL_FINISHED) {
        bool failed = f->fin_detail && strstr(f->fin_detail, "evicted");
        if (failed)
            snprintf(msg, sizeof(msg), "%s", f->fin_detail);
        else if (w->kind == WL_POD_GROUP || w->kind == WL_POD)
            snprintf(
                msg, sizeof(msg), "Pods succeeded: %u/%u.", w->pods_succeeded,
                w->kind == WL_POD
                    ? 1u
                    : (w->group_total ? w->group_total : w->pods_succeeded));
        else
            snprintf(msg, sizeof(msg), "Job finished successfully");
        r |= add_cond(arr, "Finished", true, failed ? "Failed" : "Succeeded",
                      msg, f->t_fin >= 0 ? f->t_fin : c->now_ns);
    }
    return r ? -ENOMEM : 0;
}

static int put_quantity(struct json_object *obj, const char *res, int64_t milli)
{
    char buf[QUANTITY_STR_MAX];
    quantity_str(milli, resource_quantity_format(res), buf);
    return kjson_put_str(obj, res, buf);
}

/* status.admission: the ClusterQueue and, per pod set, the flavor and the
 * usage of each resource its admission charges. */
static struct json_object *admission(const struct workload *w)
{
    struct json_object *adm = json_object_new_object();
    struct json_object *psa = json_object_new_array();
    if (!adm || !psa)
        goto fail;
    if (kjson_put_str(adm, "clusterQueue", w->admitted_cq->name) < 0)
        goto fail;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        struct json_object *a = json_object_new_object();
        struct json_object *flavors, *usage;
        if (kjson_append(psa, a) < 0 ||
            kjson_put_str(a, "name", s->name ? s->name : "main") < 0 ||
            kjson_put(a, "flavors", flavors = json_object_new_object()) < 0 ||
            kjson_put(a, "resourceUsage", usage = json_object_new_object()) <
                0 ||
            kjson_put_int(a, "count", s->count) < 0)
            goto fail;
        for (uint32_t i = 0; i < w->n_charges; i++) {
            const struct wl_charge *ch = &w->charges[i];
            if (ch->ps != ps || !ch->flavor)
                continue;
            const char *res = resid_name(ch->res);
            if (kjson_put_str(flavors, res, ch->flavor->name) < 0 ||
                put_quantity(usage, res, sat_mul64(ch->per_pod, s->count)) < 0)
                goto fail;
        }
    }
    if (kjson_put(adm, "podSetAssignments", psa) < 0) {
        psa = NULL;
        goto fail;
    }
    return adm;
fail:
    json_object_put(psa);
    json_object_put(adm);
    return NULL;
}

static struct json_object *reclaimable(const struct workload *w)
{
    struct json_object *arr = json_object_new_array();
    for (uint32_t ps = 0; arr && ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        if (!s->reclaimable)
            continue;
        struct json_object *e = json_object_new_object();
        if (kjson_append(arr, e) < 0 ||
            kjson_put_str(e, "name", s->name ? s->name : "main") < 0 ||
            kjson_put_int(e, "count", s->reclaimable) < 0) {
            json_object_put(arr);
            return NULL;
        }
    }
    return arr;
}

/* The status members of w into st. */
static int status_into(const struct cluster *c, const struct workload *w,
                       const struct kube_wl_opts *o, struct json_object *st)
{
    struct wl_facts f;
    facts(c, w, o, &f);
    struct json_object *conds = json_object_new_array();
    if (kjson_put(st, "conditions", conds) < 0)
        return -ENOMEM;
    if (conditions(c, w, &f, conds) < 0)
        return -ENOMEM;
    /* Ordo gives the admission record back when a workload finishes. */
    if (w->state == WL_ADMITTED && w->admitted_cq && w->charges) {
        if (kjson_put(st, "admission", admission(w)) < 0)
            return -ENOMEM;
        struct json_object *rp = reclaimable(w);
        if (!rp)
            return -ENOMEM;
        if (json_object_array_length(rp) == 0)
            json_object_put(rp);
        else if (kjson_put(st, "reclaimablePods", rp) < 0)
            return -ENOMEM;
    }
    return 0;
}

int kube_workload_status(const struct cluster *c, const struct workload *w,
                         const struct kube_wl_opts *o, struct json_object **ret)
{
    struct json_object *root = json_object_new_object();
    struct json_object *st = json_object_new_object();
    *ret = NULL;
    if (!root || kjson_put(root, "status", st) < 0 ||
        status_into(c, w, o, st) < 0) {
        json_object_put(root);
        return -ENOMEM;
    }
    *ret = root;
    return 0;
}

/* ---- metadata and spec ----------------------------------------------- */

static int owner_ref(struct json_object *arr, const struct object *obj,
                     const char *api, const char *kind, bool controller)
{
    struct json_object *ref = json_object_new_object();
    if (kjson_append(arr, ref) < 0 ||
        kjson_put_str(ref, "apiVersion",
                      obj->api_version ? obj->api_version : api) < 0 ||
        kjson_put_str(ref, "kind", kind) < 0 ||
        kjson_put_str(ref, "name", obj->meta.name) < 0 ||
        kjson_put_str(ref, "uid", obj->meta.uid ? obj->meta.uid : "") < 0 ||
        kjson_put(ref, "controller", json_object_new_boolean(controller)) < 0 ||
        kjson_put(ref, "blockOwnerDeletion", json_object_new_boolean(true)) < 0)
        return -ENOMEM;
    return 0;
}

static struct json_object *metadata(const struct workload *w, const char *name)
{
    struct json_object *m = json_object_new_object();
    struct json_object *labels = json_object_new_object();
    struct json_object *owners = json_object_new_array();
    if (!m || !labels || !owners)
        goto fail;
    if (kjson_put_str(m, "name", name) < 0 ||
        kjson_put_str(m, "namespace", w->ns) < 0)
        goto fail;
    if (kjson_put_str(labels, LABEL_QUEUE_NAME, w->local_queue) < 0)
        goto fail;
    if (w->kind == WL_JOB || w->kind == WL_JOBSET) {
        if (w->top->meta.uid && kjson_put_str(labels, "kueue.x-k8s.io/job-uid",
                                              w->top->meta.uid) < 0)
            goto fail;
        if (owner_ref(owners, w->top,
                      w->kind == WL_JOB ? "batch/v1"
                                        : "jobset.x-k8s.io/v1alpha2",
                      w->kind == WL_JOB ? "Job" : "JobSet", true) < 0)
            goto fail;
    } else if (w->kind == WL_POD) {
        if (owner_ref(owners, w->top, "v1", "Pod", true) < 0)
            goto fail;
    } else {
        /* A pod group's Workload is owned by every pod of the group. */
        for (size_t i = 0; i < w->n_pods; i++) {
            const struct pod *p = w->pods[i];
            if (p && p->obj && p->state != PODSTATE_GONE &&
                owner_ref(owners, p->obj, "v1", "Pod", false) < 0)
                goto fail;
        }
    }
    if (kjson_put(m, "labels", labels) < 0) {
        labels = NULL;
        goto fail;
    }
    labels = NULL;
    if (kjson_put(m, "ownerReferences", owners) < 0) {
        owners = NULL;
        goto fail;
    }
    return m;
fail:
    json_object_put(labels);
    json_object_put(owners);
    json_object_put(m);
    return NULL;
}

/* A pod set's template as Ordo knows it: the pod's effective request in one
 * container (Ordo keeps the sum, not the containers), its scheduler,
 * priority class and node selector. */
static struct json_object *template(const struct podset *s)
{
    struct json_object *t = json_object_new_object();
    struct json_object *spec = json_object_new_object();
    struct json_object *ctrs = json_object_new_array();
    struct json_object *ctr = json_object_new_object();
    struct json_object *resources = json_object_new_object();
    struct json_object *req = json_object_new_object();
    int r = (!t || !spec || !ctrs || !ctr || !resources || !req) ? -ENOMEM : 0;
    for (uint32_t i = 0; r == 0 && i < s->n_req; i++)
        r = put_quantity(req, resid_name(s->req_ids[i]), s->req_milli[i]);
    if (r == 0 && (r = kjson_put(resources, "requests", req)) == 0)
        req = NULL;
    if (r == 0 && (r = kjson_put_str(ctr, "name", "main")) == 0 &&
        (r = kjson_put(ctr, "resources", resources)) == 0)
        resources = NULL;
    if (r == 0 && (r = kjson_append(ctrs, ctr)) == 0)
        ctr = NULL;
    if (r == 0 && (r = kjson_put(spec, "containers", ctrs)) == 0)
        ctrs = NULL;
    if (r == 0 && s->spec) {
        r = kjson_put_str(spec, "schedulerName", s->spec->scheduler_name);
        if (r == 0)
            r = kjson_put_str(spec, "priorityClassName",
                              s->spec->priority_class_name);
    }
    if (r == 0 && (r = kjson_put(t, "spec", spec)) == 0)
        spec = NULL;
    json_object_put(req);
    json_object_put(resources);
    json_object_put(ctr);
    json_object_put(ctrs);
    json_object_put(spec);
    if (r < 0) {
        json_object_put(t);
        return NULL;
    }
    return t;
}

static struct json_object *spec(const struct workload *w)
{
    struct json_object *sp = json_object_new_object();
    struct json_object *sets = json_object_new_array();
    if (!sp || !sets)
        goto fail;
    if (kjson_put_str(sp, "queueName", w->local_queue) < 0 ||
        kjson_put_int(sp, "priority", w->priority) < 0)
        goto fail;
    /* priorityClassRef (v1beta2's priorityClassName + Source): the
     * WorkloadPriorityClass label first, then the pods' PriorityClass. */
    const char *wpc = strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS);
    const char *pc = w->n_podsets && w->podsets[0].spec
                         ? w->podsets[0].spec->priority_class_name
                         : NULL;
    if (wpc || pc) {
        struct json_object *ref = json_object_new_object();
        if (kjson_put(sp, "priorityClassRef", ref) < 0 ||
            kjson_put_str(ref, "group",
                          wpc ? "kueue.x-k8s.io" : "scheduling.k8s.io") < 0 ||
            kjson_put_str(ref, "kind",
                          wpc ? "WorkloadPriorityClass" : "PriorityClass") <
                0 ||
            kjson_put_str(ref, "name", wpc ? wpc : pc) < 0)
            goto fail;
    }
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        struct json_object *set = json_object_new_object();
        if (kjson_append(sets, set) < 0 ||
            kjson_put_str(set, "name", s->name ? s->name : "main") < 0 ||
            kjson_put_int(set, "count", s->count) < 0 ||
            kjson_put(set, "template", template(s)) < 0)
            goto fail;
    }
    if (kjson_put(sp, "podSets", sets) < 0) {
        sets = NULL;
        goto fail;
    }
    return sp;
fail:
    json_object_put(sets);
    json_object_put(sp);
    return NULL;
}

/* The object without status. */
static int object_base(const struct workload *w, struct json_object **ret)
{
    char name[KUBE_NAME_MAX];
    int r = kube_workload_name(w, name, sizeof(name));
    *ret = NULL;
    if (r < 0)
        return r;
    struct json_object *obj = json_object_new_object();
    if (!obj || kjson_put_str(obj, "apiVersion", KUBE_WORKLOAD_API) < 0 ||
        kjson_put_str(obj, "kind", "Workload") < 0 ||
        kjson_put(obj, "metadata", metadata(w, name)) < 0 ||
        kjson_put(obj, "spec", spec(w)) < 0) {
        json_object_put(obj);
        return -ENOMEM;
    }
    *ret = obj;
    return 0;
}

int kube_workload_object(const struct cluster *c, const struct workload *w,
                         const struct kube_wl_opts *o, struct json_object **ret)
{
    struct json_object *obj;
    int r = object_base(w, &obj);
    *ret = NULL;
    if (r < 0)
        return r;
    struct json_object *st = json_object_new_object();
    if (kjson_put(obj, "status", st) < 0 || status_into(c, w, o, st) < 0) {
        json_object_put(obj);
        return -ENOMEM;
    }
    *ret = obj;
    return 0;
}

/* ---- the write queue -------------------------------------------------- */

static int keys(const struct workload *w, char *obj_key, char *status_key,
                size_t size, char *name)
{
    int r = kube_workload_name(w, name, KUBE_NAME_MAX);
    if (r < 0)
        return r;
    snprintf(obj_key, size, "Workload %s/%s", w->ns, name);
    snprintf(status_key, size, "Workload/status %s/%s", w->ns, name);
    return 0;
}

int kube_workload_put(struct kube_writes *q, const struct cluster *c,
                      const struct workload *w, const struct kube_wl_opts *o)
{
    char name[KUBE_NAME_MAX], okey[PATH_MAX_LEN], skey[PATH_MAX_LEN];
    char create[PATH_MAX_LEN], path[PATH_MAX_LEN + KUBE_NAME_MAX + 2];
    char spath[sizeof(path) + 8];
    int r = keys(w, okey, skey, sizeof(okey), name);
    if (r < 0)
        return r;
    if (q->workloads_off) {
        q->dropped++;
        return 0;
    }
    snprintf(create, sizeof(create), KUEUE_PREFIX "/namespaces/%s/workloads",
             w->ns);
    snprintf(path, sizeof(path), "%s/%s", create, name);
    snprintf(spath, sizeof(spath), "%s/status", path);
    struct json_object *obj, *st;
    if ((r = object_base(w, &obj)) < 0)
        return r;
    r = kube_writes_put(q, KUBE_WRITE_WORKLOAD, okey, create, path,
                        "application/merge-patch+json", obj);
    if (r < 0)
        return r;
    if ((r = kube_workload_status(c, w, o, &st)) < 0)
        return r;
    const struct json_object *prev = kube_writes_state(q, skey);
    struct json_object *pst, *pconds, *conds, *nst;
    if (prev &&
        json_object_object_get_ex((struct json_object *)prev, "status", &pst) &&
        json_object_object_get_ex(pst, "conditions", &pconds) &&
        json_object_object_get_ex(st, "status", &nst) &&
        json_object_object_get_ex(nst, "conditions", &conds))
        kjson_keep_transition_times(conds, pconds);
    return kube_writes_put(q, KUBE_WRITE_WORKLOAD, skey, NULL, spath,
                           "application/merge-patch+json", st);
}

void kube_workload_forget(struct kube_writes *q, const struct workload *w)
{
    char name[KUBE_NAME_MAX], okey[PATH_MAX_LEN], skey[PATH_MAX_LEN];
    if (keys(w, okey, skey, sizeof(okey), name) < 0)
        return;
    kube_writes_forget(q, okey);
    kube_writes_forget(q, skey);
}
