/* sim_report.c - what a simulation run leaves behind for tools: the
 * ordo.dev/sim-report/v1 JSON document (--report FILE, see sim.h). The
 * summary table for people is in sim_summary.c.
 *
 * It only reads the cluster. Times are virtual nanoseconds; the report
 * gives them in seconds, exact to the millisecond (integers when whole), and
 * quantities in their canonical Kubernetes form. */
#include "sim.h"
#include "sim_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "err.h"
#include "quantity.h"
#include "resid.h"
#include "resources.h"

#define SIM_REPORT_SCHEMA "ordo.dev/sim-report/v1"
#define NS_PER_MS         INT64_C(1000000)

/* Our own table so that this file does not need cluster.c. */
static const char *kind_name(enum wl_kind k)
{
    static const char *const names[WL_KIND_MAX] = {"Job", "JobSet", "PodGroup",
                                                   "Pod"};
    return (unsigned)k < WL_KIND_MAX ? names[k] : "Unknown";
}

/* The cluster queue a workload belongs to in the report: the one it was
 * admitted to once admitted, else the one it waits in. */
static const struct cq *wl_report_cq(const struct workload *w)
{
    if (w->state != WL_PENDING && w->admitted_cq)
        return w->admitted_cq;
    return w->cq;
}

/* Workloads per ClusterQueue (by slot) and state, in one pass over the
 * workloads: pending ones where they wait, the others where they were
 * admitted. */
struct cq_counts {
    uint64_t pending, admitted, finished;
};

static struct cq_counts *count_per_cq(const struct cluster *c)
{
    struct cq_counts *v = calloc(c->n_cqs ? c->n_cqs : 1, sizeof(*v));
    if (!v)
        return NULL;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        long i =
            sim_cq_slot(c, w->state == WL_PENDING ? w->cq : w->admitted_cq);
        if (i < 0)
            continue;
        if (w->state == WL_PENDING)
            v[i].pending++;
        else if (w->state == WL_ADMITTED)
            v[i].admitted++;
        else
            v[i].finished++;
    }
    return v;
}

static int cmp_wl_key(const void *a, const void *b)
{
    const struct workload *x = *(const struct workload *const *)a;
    const struct workload *y = *(const struct workload *const *)b;
    return strcmp(x->key, y->key);
}

/* The workloads sorted by key, in a new array (*ret, *n). */
static int sorted_workloads(const struct cluster *c, struct workload ***ret,
                            size_t *n)
{
    size_t count = HASH_COUNT(c->workloads);
    struct workload **v = calloc(count ? count : 1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    size_t i = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        v[i++] = w;
    }
    qsort(v, count, sizeof(*v), cmp_wl_key);
    *ret = v;
    *n = count;
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static struct json_object *json_seconds(int64_t ns)
{
    return sim_json_seconds(ns); /* sim_report_hist.c */
}

/* Adds key: value to obj, taking value; -ENOMEM when either failed (value
 * is then released). A NULL value with null_ok adds a JSON null. */
static int put(struct json_object *obj, const char *key,
               struct json_object *value, bool null_ok)
{
    if (!value && !null_ok)
        return -ENOMEM;
    if (json_object_object_add(obj, key, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

static struct json_object *json_string_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

/* Appends value (taken) to the array; -ENOMEM on failure. */
static int append(struct json_object *arr, struct json_object *value)
{
    if (!value)
        return -ENOMEM;
    if (json_object_array_add(arr, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

/* "flavors": resource -> flavor of pod set ps at its last admission. */
static struct json_object *podset_flavors(const struct workload *w, uint32_t ps)
{
    struct json_object *obj = json_object_new_object();
    const struct cq *q = w->admitted_cq;
    const struct podset *s = &w->podsets[ps];
    if (!obj || !q || !w->flavors || !w->has_admitted)
        return obj;
    int32_t pods_id = resid_lookup(RESOURCE_PODS);
    bool pods_seen = false;
    /* Requested resources, then "pods" (charged per pod by cq_charge). */
    for (uint32_t i = 0; i <= s->n_req; i++) {
        int32_t id;
        if (i < s->n_req) {
            id = s->req_ids[i];
            pods_seen |= id == pods_id;
        } else if (!pods_seen && pods_id != RESID_NONE) {
            id = pods_id;
        } else {
            break;
        }
        for (uint32_t g = 0; g < q->n_groups; g++) {
            const struct cq_group *grp = &q->groups[g];
            bool covers = false;
            for (uint32_t r = 0; r < grp->n_res && !covers; r++)
                covers = grp->res_ids[r] == id;
            if (!covers)
                continue;
            /* The layout of the admission (the CQ may have changed). */
            uint32_t ng = w->flavor_groups ? w->flavor_groups : q->n_groups;
            if (g >= ng)
                break;
            const struct flavor *f = w->flavors[ps * ng + g];
            if (f && put(obj, sim_res_name(id), json_object_new_string(f->name),
                         false) < 0) {
                json_object_put(obj);
                return NULL;
            }
            break;
        }
    }
    return obj;
}

static struct json_object *podset_json(const struct workload *w,
                                       const struct sim_ran *ran, uint32_t ps)
{
    const struct podset *s = &w->podsets[ps];
    struct json_object *obj = json_object_new_object();
    struct json_object *nodes = NULL;
    if (!obj)
        return NULL;
    if (put(obj, "name", json_object_new_string(s->name ? s->name : ""),
            false) < 0 ||
        put(obj, "count", json_object_new_int64(s->count), false) < 0 ||
        put(obj, "flavors", podset_flavors(w, ps), false) < 0)
        goto fail;
    nodes = json_object_new_array();
    if (!nodes)
        goto fail;
    /* Where its pods are now: bound, or ran and succeeded, in the current
     * or last admission (the simulator's records keep deleted pods that
     * succeeded); without them, the pods the cluster holds. */
    for (size_t i = 0; ran && i < ran->n; i++) {
        const struct sim_pod_ran *p = ran->pods[i];
        if (p->node && p->podset == ps && p->admission == w->evictions &&
            append(nodes, json_object_new_string(p->node)) < 0)
            goto fail;
    }
    for (size_t i = 0; !ran && i < w->n_pods; i++) {
        const struct pod *p = w->pods[i];
        if (p && p->node && p->podset == ps && p->state != PODSTATE_GONE &&
            append(nodes, json_object_new_string(p->node->name)) < 0)
            goto fail;
    }
    if (put(obj, "nodes", nodes, false) < 0) {
        nodes = NULL; /* released by put() */
        goto fail;
    }
    return obj;

fail:
    json_object_put(nodes);
    json_object_put(obj);
    return NULL;
}

static const char *state_name(enum wl_state s)
{
    switch (s) {
    case WL_PENDING:
        return "pending";
    case WL_ADMITTED:
        return "admitted";
    case WL_FINISHED:
        return "finished";
    }
    return "unknown";
}

static struct json_object *workload_json(const struct workload *w,
                                         const struct sim_ran *all)
{
    const struct sim_ran *ran = NULL;
    if (all)
        HASH_FIND_STR(all, w->key, ran);
    static const struct sim_ran none;
    if (all && !ran)
        ran = &none; /* no pod ever joined it */
    struct json_object *obj = json_object_new_object();
    struct json_object *podsets = NULL;
    if (!obj)
        return NULL;
    const struct cq *q = wl_report_cq(w);
    /* The last eviction, when a preemption caused it. */
    bool preempted = w->evictions + (w->evicting ? 1u : 0u) > 0 &&
                     w->evicted_by_preemptor && w->evicted_by[0];
    if (put(obj, "name", json_object_new_string(w->key), false) < 0 ||
        put(obj, "kind", json_object_new_string(kind_name(w->kind)), false) <
            0 ||
        put(obj, "localQueue", json_string_or_null(w->local_queue),
            !w->local_queue) < 0 ||
        put(obj, "clusterQueue", json_string_or_null(q ? q->name : NULL), !q) <
            0 ||
        put(obj, "priority", json_object_new_int64(w->priority), false) < 0 ||
        put(obj, "state", json_object_new_string(state_name(w->state)), false) <
            0 ||
        put(obj, "createdAt", json_seconds(w->created_ns), false) < 0 ||
        put(obj, "admittedAt",
            w->has_admitted ? json_seconds(w->admitted_ns) : NULL,
            !w->has_admitted) < 0 ||
        put(obj, "finishedAt",
            w->has_finished ? json_seconds(w->finished_ns) : NULL,
            !w->has_finished) < 0 ||
        put(obj, "evictions", json_object_new_int64(w->evictions), false) < 0 ||
        put(obj, "lastEviction",
            w->evict_note[0] ? json_object_new_string(w->evict_note) : NULL,
            !w->evict_note[0]) < 0 ||
        put(obj, "preemptedBy",
            preempted ? json_object_new_string(w->evicted_by) : NULL,
            !preempted) < 0 ||
        put(obj, "preemptionReason",
            preempted && w->evict_class ? json_object_new_string(w->evict_class)
                                        : NULL,
            !(preempted && w->evict_class)) < 0 ||
        put(obj, "reason",
            w->reason[0] ? json_object_new_string(w->reason) : NULL,
            !w->reason[0]) < 0)
        goto fail;
    /* What happened to it, and every admission period, not only the
     * last. */
    if (put(obj, "history", sim_history_json(w), false) < 0 ||
        put(obj, "historyDropped",
            json_object_new_int64((int64_t)w->history.n_dropped), false) < 0 ||
        put(obj, "admissions", sim_admissions_json(w), false) < 0)
        goto fail;
    podsets = json_object_new_array();
    if (!podsets)
        goto fail;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++)
        if (append(podsets, podset_json(w, ran, ps)) < 0)
            goto fail;
    if (put(obj, "podSets", podsets, false) < 0) {
        podsets = NULL;
        goto fail;
    }
    return obj;

fail:
    json_object_put(podsets);
    json_object_put(obj);
    return NULL;
}

/* "usage": flavor -> resource -> quantity, every pair the queue lists. */
static struct json_object *cq_usage_json(const struct cq *q)
{
    struct json_object *usage = json_object_new_object();
    if (!usage)
        return NULL;
    for (uint32_t g = 0; g < q->n_groups; g++) {
        const struct cq_group *grp = &q->groups[g];
        for (uint32_t f = 0; f < grp->n_flavors; f++) {
            const char *fname = grp->flavors[f] ? grp->flavors[f]->name : "?";
            struct json_object *fobj = NULL;
            if (!json_object_object_get_ex(usage, fname, &fobj)) {
                fobj = json_object_new_object();
                if (put(usage, fname, fobj, false) < 0)
                    goto fail;
            }
            for (uint32_t r = 0; r < grp->n_res; r++) {
                const char *rname = sim_res_name(grp->res_ids[r]);
                char buf[QUANTITY_STR_MAX];
                quantity_str(grp->usage[f * grp->n_res + r],
                             resource_quantity_format(rname), buf);
                if (put(fobj, rname, json_object_new_string(buf), false) < 0)
                    goto fail;
            }
        }
    }
    return usage;

fail:
    json_object_put(usage);
    return NULL;
}

static struct json_object *cq_json(const struct cq *q,
                                   const struct cq_counts *n)
{
    struct json_object *obj = json_object_new_object();
    if (!obj)
        return NULL;
    if (put(obj, "name", json_object_new_string(q->name), false) < 0 ||
        put(obj, "pending", json_object_new_int64((int64_t)n->pending), false) <
            0 ||
        put(obj, "admitted", json_object_new_int64((int64_t)n->admitted),
            false) < 0 ||
        put(obj, "usage", cq_usage_json(q), false) < 0) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

/* Pretty-printing flags of every part of the report. */
#define REPORT_JSON_FLAGS                                                      \
    (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |                       \
     JSON_C_TO_STRING_NOSLASHESCAPE)

/* Writes obj (taken) at two levels of indentation, as an item of a
 * top-level array: JSON strings hold no raw newline, so each newline of
 * json-c's text is followed by the indentation. -ENOMEM or -EIO. */
static int write_item(FILE *f, struct json_object *obj, bool first)
{
    if (!obj)
        return -ENOMEM;
    const char *text = json_object_to_json_string_ext(obj, REPORT_JSON_FLAGS);
    int r = text ? 0 : -ENOMEM;
    if (r == 0 && fputs(first ? "\n    " : ",\n    ", f) == EOF)
        r = -EIO;
    for (const char *p = text; r == 0 && *p; p++)
        if ((*p == '\n' ? fputs("\n    ", f) : fputc(*p, f)) == EOF)
            r = -EIO;
    json_object_put(obj);
    return r;
}

/* The report, one workload at a time: building the whole document first
 * would hold every workload's history twice (objects, then text). */
static int report_stream(FILE *f, const struct cluster *c,
                         const struct sim_ran *ran,
                         struct json_object *left_out, int64_t end_ns)
{
    struct workload **v = NULL;
    size_t n = 0;
    struct cq_counts *counts = count_per_cq(c);
    struct json_object *end = json_seconds(end_ns);
    const char *end_text = end ? json_object_to_json_string(end) : NULL;
    int r = 0;
    if (!counts || !end_text || sorted_workloads(c, &v, &n) < 0) {
        r = -ENOMEM;
        goto out;
    }
    if (fprintf(f,
                "{\n  \"schema\": \"%s\",\n  \"endTime\": %s,\n"
                "  \"workloads\": [",
                SIM_REPORT_SCHEMA, end_text) < 0)
        r = -EIO;
    for (size_t i = 0; r == 0 && i < n; i++)
        r = write_item(f, workload_json(v[i], ran), i == 0);
    if (r == 0 && fputs(n ? "\n  ],\n  \"clusterQueues\": ["
                          : "],\n  \"clusterQueues\": [",
                        f) == EOF)
        r = -EIO;
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        r = write_item(f, cq_json(c->cqs_v[i], &counts[i]), i == 0);
    if (r == 0 && fputs(c->n_cqs ? "\n  ]" : "]", f) == EOF)
        r = -EIO;
    const char *lo = json_object_to_json_string_ext(
        left_out, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (r == 0 && left_out && !lo)
        r = -ENOMEM;
    if (r == 0 &&
        fprintf(f, ",\n  \"leftOut\": %s\n}\n", left_out ? lo : "[]") < 0)
        r = -EIO;
out:
    json_object_put(end);
    free(v);
    free(counts);
    return r;
}

int sim_report_write(const struct cluster *c, const struct sim_ran *ran,
                     struct json_object *left_out, int64_t end_ns,
                     const char *path, struct err *e)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(e, errno, "%s: %s", path, strerror(errno));
    errno = 0;
    int r = report_stream(f, c, ran, left_out, end_ns);
    int code = r == -ENOMEM ? ENOMEM : errno ? errno : EIO;
    if (fclose(f) != 0 && r == 0) {
        r = -EIO;
        code = errno ? errno : EIO;
    }
    if (r == -ENOMEM)
        return err_set(e, ENOMEM, "%s: out of memory building the report",
                       path);
    if (r < 0)
        return err_set(e, code, "%s: %s", path, strerror(code));
    return 0;
}
