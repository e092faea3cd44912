/* kube_queue_status.c - ClusterQueue and LocalQueue status as Kueue writes
 * it (apis/kueue/v1beta2 clusterqueue_types.go, localqueue_types.go; see
 * kube_queue_status.h). Ordo admits as it reserves, so reserving and
 * admitted counts, and flavorsReservation and flavorsUsage, agree. */
#include "kube_queue_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_json.h"
#include "quantity.h"
#include "resid.h"
#include "resources.h"

#define KUEUE_PREFIX "/apis/kueue.x-k8s.io/v1beta2"

const char *kube_cq_active_reason(const struct cq *q)
{
    if (q->active)
        return "Ready";
    if (q->terminating)
        return "Terminating";
    if (q->obj && q->obj->u.cluster_queue.stop_policy != STOP_POLICY_NONE)
        return "Stopped";
    const char *why = q->inactive_reason;
    if (strncmp(why, "ResourceFlavor ", 15) == 0)
        return "FlavorNotFound";
    if (strstr(why, "missing AdmissionCheck"))
        return "AdmissionCheckNotFound";
    if (strstr(why, "inactive AdmissionCheck"))
        return "AdmissionCheckInactive";
    return "Unknown";
}

static int put_quantity(struct json_object *obj, const char *key,
                        const char *res, int64_t milli)
{
    char buf[QUANTITY_STR_MAX];
    quantity_str(milli, resource_quantity_format(res), buf);
    return kjson_put_str(obj, key, buf);
}

/* [{name: flavor, resources: [{name, total, borrowed}]}] in the order the
 * queue lists them; borrowed is usage above nominal quota. */
static struct json_object *cq_flavors(const struct cq *q)
{
    struct json_object *arr = json_object_new_array();
    for (uint32_t g = 0; arr && g < q->n_groups; g++) {
        const struct cq_group *grp = &q->groups[g];
        for (uint32_t f = 0; f < grp->n_flavors; f++) {
            struct json_object *fo = json_object_new_object();
            struct json_object *res = json_object_new_array();
            if (kjson_append(arr, fo) < 0 ||
                kjson_put_str(fo, "name",
                              grp->flavors[f] ? grp->flavors[f]->name : "") <
                    0 ||
                kjson_put(fo, "resources", res) < 0)
                goto fail;
            for (uint32_t r = 0; r < grp->n_res; r++) {
                const char *name = resid_name(grp->res_ids[r]);
                int64_t use = grp->usage[f * grp->n_res + r];
                int64_t nom = grp->nominal[f * grp->n_res + r];
                struct json_object *ro = json_object_new_object();
                if (kjson_append(res, ro) < 0 ||
                    kjson_put_str(ro, "name", name) < 0 ||
                    put_quantity(ro, "total", name, use) < 0 ||
                    put_quantity(ro, "borrowed", name,
                                 use > nom ? use - nom : 0) < 0)
                    goto fail;
            }
        }
    }
    return arr;
fail:
    json_object_put(arr);
    return NULL;
}

static int put_counts(struct json_object *st, int64_t pending,
                      int64_t reserving)
{
    if (kjson_put_int(st, "pendingWorkloads", pending) < 0 ||
        kjson_put_int(st, "reservingWorkloads", reserving) < 0 ||
        kjson_put_int(st, "admittedWorkloads", reserving) < 0)
        return -ENOMEM;
    return 0;
}

static int wrap(struct json_object *st, struct json_object **ret)
{
    struct json_object *root = json_object_new_object();
    if (!root) {
        json_object_put(st);
        return -ENOMEM;
    }
    if (kjson_put(root, "status", st) < 0) {
        json_object_put(root);
        return -ENOMEM;
    }
    *ret = root;
    return 0;
}

int kube_cq_status(const struct cluster *c, const struct cq *q, int64_t now_ns,
                   struct json_object **ret)
{
    (void)c;
    struct json_object *st = json_object_new_object();
    struct json_object *conds = json_object_new_array();
    char msg[256];
    *ret = NULL;
    if (!st || kjson_put(st, "conditions", conds) < 0)
        goto fail;
    if (q->active)
        snprintf(msg, sizeof(msg), "Can admit new workloads");
    else
        snprintf(msg, sizeof(msg), "Can't admit new workloads: %s",
                 q->inactive_reason);
    if (kjson_append(conds, kjson_condition("Active", q->active,
                                            kube_cq_active_reason(q), msg,
                                            now_ns)) < 0 ||
        put_counts(st, (int64_t)q->n_pending, q->n_admitted) < 0 ||
        kjson_put(st, "flavorsReservation", cq_flavors(q)) < 0 ||
        kjson_put(st, "flavorsUsage", cq_flavors(q)) < 0)
        goto fail;
    return wrap(st, ret);
fail:
    json_object_put(st);
    return -ENOMEM;
}

/* A LocalQueue's usage of one (flavor, resource), summed over its admitted
 * workloads' charges. */
struct lq_use {
    const char *flavor;
    int32_t res;
    int64_t milli;
};

static int cmp_use(const void *a, const void *b)
{
    const struct lq_use *x = a, *y = b;
    int r = strcmp(x->flavor, y->flavor);
    if (r)
        return r;
    return strcmp(resid_name(x->res), resid_name(y->res));
}

int kube_lq_status(const struct cluster *c, const char *key, int64_t now_ns,
                   struct json_object **ret)
{
    const struct object *lq = cluster_get_object(c, OBJ_LOCAL_QUEUE, key);
    *ret = NULL;
    if (!lq)
        return -ENOENT;
    const char *slash = strchr(key, '/');
    size_t ns_len = slash ? (size_t)(slash - key) : 0;
    const char *name = slash ? slash + 1 : key;
    struct lq_use *use = NULL;
    size_t n_use = 0, cap_use = 0;
    int64_t pending = 0, admitted = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        if (!w->local_queue || strcmp(w->local_queue, name) != 0 ||
            strlen(w->ns) != ns_len || strncmp(w->ns, key, ns_len) != 0)
            continue;
        if (w->state == WL_PENDING)
            pending++;
        if (w->state != WL_ADMITTED)
            continue;
        admitted++;
        for (uint32_t i = 0; i < w->n_charges; i++) {
            const struct wl_charge *ch = &w->charges[i];
            if (!ch->flavor)
                continue;
            int64_t add = ch->per_pod * (int64_t)w->podsets[ch->ps].count;
            size_t k = 0;
            while (k < n_use && !(use[k].res == ch->res &&
                                  strcmp(use[k].flavor, ch->flavor->name) == 0))
                k++;
            if (k == n_use) {
                if (n_use == cap_use) {
                    size_t cap = cap_use ? 2 * cap_use : 8;
                    struct lq_use *v = realloc(use, cap * sizeof(*v));
                    if (!v) {
                        free(use);
                        return -ENOMEM;
                    }
                    use = v;
                    cap_use = cap;
                }
                use[n_use++] = (struct lq_use){ch->flavor->name, ch->res, 0};
            }
            use[k].milli += add;
        }
    }
    if (n_use)
        qsort(use, n_use, sizeof(use[0]), cmp_use);
    const struct local_queue *spec = &lq->u.local_queue;
    const struct cq *q =
        spec->cluster_queue ? cluster_get_cq(c, spec->cluster_queue) : NULL;
    bool active = true;
    const char *reason = "Ready",
               *msg = "Can submit new workloads to localQueue";
    if (spec->stop_policy != STOP_POLICY_NONE) {
        active = false;
        reason = "Stopped";
        msg = "LocalQueue is stopped";
    } else if (!q) {
        active = false;
        reason = "ClusterQueueDoesNotExist";
        msg = "Can't submit new workloads to clusterQueue";
    } else if (!q->active) {
        active = false;
        reason = "ClusterQueueIsInactive";
        msg = "Can't submit new workloads to clusterQueue";
    }
    struct json_object *st = json_object_new_object();
    struct json_object *conds = json_object_new_array();
    struct json_object *fl = NULL, *fo = NULL, *res = NULL;
    if (!st || kjson_put(st, "conditions", conds) < 0 ||
        kjson_append(conds, kjson_condition("Active", active, reason, msg,
                                            now_ns)) < 0 ||
        put_counts(st, pending, admitted) < 0)
        goto fail;
    for (int pass = 0; pass < 2; pass++) {
        if (kjson_put(st, pass ? "flavorsUsage" : "flavorsReservation",
                      fl = json_object_new_array()) < 0)
            goto fail;
        for (size_t k = 0; k < n_use; k++) {
            if (k == 0 || strcmp(use[k].flavor, use[k - 1].flavor) != 0) {
                if (kjson_append(fl, fo = json_object_new_object()) < 0 ||
                    kjson_put_str(fo, "name", use[k].flavor) < 0 ||
                    kjson_put(fo, "resources", res = json_object_new_array()) <
                        0)
                    goto fail;
            }
            const char *rname = resid_name(use[k].res);
            struct json_object *ro = json_object_new_object();
            if (kjson_append(res, ro) < 0 ||
                kjson_put_str(ro, "name", rname) < 0 ||
                put_quantity(ro, "total", rname, use[k].milli) < 0)
                goto fail;
        }
    }
    free(use);
    return wrap(st, ret);
fail:
    free(use);
    json_object_put(st);
    return -ENOMEM;
}

/* Puts state under key, with Active's time kept from the last state. */
static int put_status(struct kube_writes *q, const char *key, const char *path,
                      struct json_object *state)
{
    const struct json_object *prev = kube_writes_state(q, key);
    struct json_object *ps, *pc, *ns, *nc;
    if (prev &&
        json_object_object_get_ex((struct json_object *)prev, "status", &ps) &&
        json_object_object_get_ex(ps, "conditions", &pc) &&
        json_object_object_get_ex(state, "status", &ns) &&
        json_object_object_get_ex(ns, "conditions", &nc))
        kjson_keep_transition_times(nc, pc);
    return kube_writes_put(q, KUBE_WRITE_QUEUE, key, NULL, path,
                           "application/merge-patch+json", state);
}

int kube_cq_status_put(struct kube_writes *q, const struct cluster *c,
                       const struct cq *cq, int64_t now_ns)
{
    struct json_object *st;
    char key[300], path[400];
    int r = kube_cq_status(c, cq, now_ns, &st);
    if (r < 0)
        return r;
    snprintf(key, sizeof(key), "ClusterQueue/status %s", cq->name);
    snprintf(path, sizeof(path), KUEUE_PREFIX "/clusterqueues/%s/status",
             cq->name);
    return put_status(q, key, path, st);
}

int kube_lq_status_put(struct kube_writes *q, const struct cluster *c,
                       const char *key, int64_t now_ns)
{
    struct json_object *st;
    char k[600], path[700];
    int r = kube_lq_status(c, key, now_ns, &st);
    if (r < 0)
        return r;
    const char *slash = strchr(key, '/');
    if (!slash) {
        json_object_put(st);
        return -EINVAL;
    }
    snprintf(k, sizeof(k), "LocalQueue/status %s", key);
    snprintf(path, sizeof(path),
             KUEUE_PREFIX "/namespaces/%.*s/localqueues/%s/status",
             (int)(slash - key), key, slash + 1);
    return put_status(q, k, path, st);
}
