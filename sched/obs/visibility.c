/* visibility.c - the JSON of visibility.h, from each ClusterQueue's
 * pending list in its QUEUE plugin's order (scheduler_queue_position()
 * brings it up to date). */
#include "visibility.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <stdint.h>
#include <uthash.h>

/* RFC 3339 in UTC, to the second, as Kubernetes writes timestamps. */
static void rfc3339(int64_t ns, char *buf, size_t n)
{
    time_t t = (time_t)(ns / 1000000000LL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The part of a "ns/name" key after the namespace. */
static const char *key_name(const char *key)
{
    const char *p = strchr(key, '/');
    return p ? p + 1 : key;
}

/* Puts k = v into o; false on no memory (v freed). */
static bool put(struct json_object *o, const char *k, struct json_object *v)
{
    if (!v || json_object_object_add(o, k, v) < 0) {
        json_object_put(v);
        return false;
    }
    return true;
}

static struct json_object *item(const struct workload *w, size_t cq_pos,
                                size_t lq_pos)
{
    struct json_object *it = json_object_new_object(),
                       *md = json_object_new_object();
    char ts[32];
    rfc3339(w->created_ns, ts, sizeof(ts));
    bool ok = it && md &&
              put(md, "name", json_object_new_string(key_name(w->key))) &&
              put(md, "namespace", json_object_new_string(w->ns)) &&
              put(md, "creationTimestamp", json_object_new_string(ts));
    if (ok && !put(it, "metadata", md))
        ok = false, md = NULL;
    else if (!ok)
        json_object_put(md), md = NULL;
    ok = ok && put(it, "priority", json_object_new_int(w->priority)) &&
         put(it, "localQueueName",
             json_object_new_string(w->local_queue ? w->local_queue : "")) &&
         put(it, "positionInClusterQueue",
             json_object_new_int64((int64_t)cq_pos)) &&
         put(it, "positionInLocalQueue",
             json_object_new_int64((int64_t)lq_pos)) &&
         put(it, "reason", json_object_new_string(w->reason));
    if (!ok) {
        json_object_put(it);
        return NULL;
    }
    return it;
}

/* Sorts q's pending list (the order the cycle takes heads in). */
static void sort_queue(struct scheduler *s, const struct cq *q)
{
    struct scheduler_queue_position pos;
    if (q->n_pending)
        (void)scheduler_queue_position(s, q->pending[0]->key, &pos);
}

static bool in_lq(const struct workload *w, const char *ns, const char *lq)
{
    return strcmp(w->ns, ns) == 0 && w->local_queue &&
           strcmp(w->local_queue, lq) == 0;
}

/* Pending workloads seen so far per LocalQueue: a workload's place in
 * its LocalQueue in one pass over its ClusterQueue's order. */
struct lq_count {
    UT_hash_handle hh;
    size_t n;
    char key[]; /* "ns/lq" */
};

/* The 0-based position of w among its LocalQueue's (counted in order).
 * SIZE_MAX on no memory. */
static size_t lq_next(struct lq_count **counts, const struct workload *w)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", w->ns,
             w->local_queue ? w->local_queue : "");
    struct lq_count *e;
    HASH_FIND_STR(*counts, key, e);
    if (!e) {
        size_t n = strlen(key) + 1;
        if (!(e = calloc(1, sizeof(*e) + n)))
            return SIZE_MAX;
        memcpy(e->key, key, n);
        HASH_ADD_STR(*counts, key, e);
    }
    return e->n++;
}

/* Items offset..offset+limit of q (those of ns/lq when lq), 0-based
 * positions as Kueue's, into array a. false on no memory. */
static bool fill(const struct cq *q, const char *ns, const char *lq,
                 size_t offset, size_t limit, struct json_object *a)
{
    struct lq_count *counts = NULL, *e, *tmp;
    size_t lq_pos = 0, taken = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < q->n_pending && taken < limit; i++) {
        const struct workload *w = q->pending[i];
        if (lq && !in_lq(w, ns, lq))
            continue;
        size_t my_lq = lq ? lq_pos++ : lq_next(&counts, w);
        if (my_lq == SIZE_MAX) {
            ok = false;
            break;
        }
        if ((lq ? my_lq : i) < offset)
            continue;
        struct json_object *it = item(w, i, my_lq);
        if (!it || json_object_array_add(a, it) < 0) {
            json_object_put(it);
            ok = false;
        }
        taken++;
    }
    HASH_ITER(hh, counts, e, tmp)
    {
        HASH_DEL(counts, e);
        free(e);
    }
    return ok;
}

static int finish(struct json_object *o, char **ret)
{
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    *ret = s ? strdup(s) : NULL;
    json_object_put(o);
    return *ret ? 0 : -ENOMEM;
}

int visibility_pending(struct scheduler *s, const char *cq, const char *ns,
                       const char *lq, size_t offset, size_t limit, char **ret)
{
    const struct cluster *c = scheduler_cluster(s);
    const struct cq *q = NULL;
    if (cq)
        q = cluster_get_cq(c, cq);
    else {
        char key[512];
        snprintf(key, sizeof(key), "%s/%s", ns, lq);
        const struct object *o = cluster_get_object(c, OBJ_LOCAL_QUEUE, key);
        if (!o)
            return -ENOENT;
        q = o->u.local_queue.cluster_queue
                ? cluster_get_cq(c, o->u.local_queue.cluster_queue)
                : NULL;
        if (!q) {
            /* A LocalQueue whose ClusterQueue is missing: nothing pends
             * in order there. */
            struct json_object *e = json_object_new_object();
            if (!e)
                return -ENOMEM;
            put(e, "kind", json_object_new_string("PendingWorkloadsSummary"));
            put(e, "items", json_object_new_array());
            return finish(e, ret);
        }
    }
    if (!q)
        return -ENOENT;
    if (limit > VISIBILITY_LIMIT_MAX)
        limit = VISIBILITY_LIMIT_MAX;
    sort_queue(s, q);
    struct json_object *o = json_object_new_object(),
                       *a = json_object_new_array();
    bool ok =
        o && a &&
        put(o, "kind", json_object_new_string("PendingWorkloadsSummary")) &&
        put(o, "apiVersion",
            json_object_new_string("visibility.kueue.x-k8s.io/v1beta2")) &&
        put(o, "metadata", json_object_new_object()) &&
        fill(q, ns, lq, offset, limit, a);
    if (ok && !put(o, "items", a))
        ok = false, a = NULL;
    if (!ok) {
        json_object_put(a);
        json_object_put(o);
        return -ENOMEM;
    }
    return finish(o, ret);
}

int visibility_overview(struct scheduler *s, size_t limit, char **ret)
{
    const struct cluster *c = scheduler_cluster(s);
    struct json_object *o = json_object_new_object(),
                       *v = json_object_new_array();
    bool ok = o && v;
    for (uint32_t i = 0; ok && i < c->n_cqs; i++) {
        const struct cq *q = c->cqs_v[i];
        sort_queue(s, q);
        struct json_object *e = json_object_new_object(),
                           *a = json_object_new_array();
        ok = e && a && put(e, "name", json_object_new_string(q->name)) &&
             put(e, "pending", json_object_new_int64((int64_t)q->n_pending)) &&
             fill(q, NULL, NULL, 0, limit, a);
        if (ok && !put(e, "items", a))
            ok = false, a = NULL;
        if (!ok) {
            json_object_put(a);
            json_object_put(e);
        } else if (json_object_array_add(v, e) < 0) {
            json_object_put(e);
            ok = false;
        }
    }
    if (ok && !put(o, "clusterQueues", v))
        ok = false, v = NULL;
    if (!ok) {
        json_object_put(v);
        json_object_put(o);
        return -ENOMEM;
    }
    return finish(o, ret);
}

/* ---- discovery -------------------------------------------------------- */

#define GV VISIBILITY_GROUP "/" VISIBILITY_VERSION
#define GROUP_BODY                                                             \
    "\"name\":\"" VISIBILITY_GROUP "\",\"versions\":[{\"groupVersion\":\"" GV  \
    "\",\"version\":\"" VISIBILITY_VERSION "\"}],\"preferredVersion\":{"       \
    "\"groupVersion\":\"" GV "\",\"version\":\"" VISIBILITY_VERSION "\"}"

/* The two subresources Kueue's visibility server serves, each a
 * PendingWorkloadsSummary read with get. */
#define RESOURCE(name, namespaced)                                             \
    "{\"name\":\"" name "\",\"singularName\":\"\",\"namespaced\":" namespaced  \
    ",\"kind\":\"PendingWorkloadsSummary\",\"verbs\":[\"get\"]}"

static const char group_list[] =
    "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[{" GROUP_BODY
    "}]}";
static const char group[] =
    "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"," GROUP_BODY "}";
static const char resources[] =
    "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" GV
    "\",\"resources\":[" RESOURCE("clusterqueues/pendingworkloads",
                                   "false") "," RESOURCE("localqueues/"
                                                         "pendingworkloads",
                                                         "true") "]}";

/* path is prefix, optionally followed by one "/". */
static bool is(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 &&
           (path[n] == '\0' || (path[n] == '/' && path[n + 1] == '\0'));
}

const char *visibility_discovery(const char *path)
{
    if (is(path, "/apis"))
        return group_list;
    if (is(path, "/apis/" VISIBILITY_GROUP))
        return group;
    if (is(path, "/apis/" GV))
        return resources;
    return NULL;
}
