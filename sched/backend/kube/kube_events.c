/* kube_events.c - Events with client-go's correlation: aggregation,
 * counting, and a spam filter per object (see kube_events.h). */
#include "kube_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "kube_json.h"

/* One cache entry; which members count depends on the cache. */
struct kube_ev_entry {
    char *key;
    /* spam */
    struct kube_bucket bucket;
    /* agg: the distinct messages seen (at most KUBE_EVENTS_AGG_MAX) */
    char *msgs[KUBE_EVENTS_AGG_MAX];
    size_t n_msgs;
    int64_t last_ns;
    /* log */
    uint32_t count;
    int64_t first_ns;
    char *name;
    char *ns;
    UT_hash_handle hh;
};

static void entry_free(struct kube_ev_entry *e)
{
    if (!e)
        return;
    free(e->key);
    for (size_t i = 0; i < e->n_msgs; i++)
        free(e->msgs[i]);
    free(e->name);
    free(e->ns);
    free(e);
}

static void cache_free(struct kube_ev_entry **cache)
{
    struct kube_ev_entry *e, *tmp;
    HASH_ITER(hh, *cache, e, tmp)
    {
        HASH_DEL(*cache, e);
        entry_free(e);
    }
}

int kube_events_init(struct kube_recorder *r, struct kube_writes *q,
                     const char *instance)
{
    memset(r, 0, sizeof(*r));
    r->q = q;
    if (instance && !(r->instance = strdup(instance)))
        return -ENOMEM;
    return 0;
}

void kube_events_release(struct kube_recorder *r)
{
    if (!r)
        return;
    cache_free(&r->spam);
    cache_free(&r->agg);
    cache_free(&r->log);
    free(r->instance);
    r->instance = NULL;
}

/* The entry of key in cache, made most recent (uthash keeps insertion
 * order: deleted and added again, it goes last); a new one when absent,
 * the oldest dropped past KUBE_EVENTS_CACHE_MAX (its event's write too
 * when the log loses it and nothing is pending). NULL: out of memory. */
static struct kube_ev_entry *cache_get(struct kube_recorder *r,
                                       struct kube_ev_entry **cache,
                                       const char *key, bool *ret_new)
{
    struct kube_ev_entry *e = NULL;
    HASH_FIND_STR(*cache, key, e);
    *ret_new = !e;
    if (e) {
        HASH_DEL(*cache, e);
        HASH_ADD_KEYPTR(hh, *cache, e->key, strlen(e->key), e);
        return e;
    }
    if (HASH_COUNT(*cache) >= KUBE_EVENTS_CACHE_MAX) {
        struct kube_ev_entry *old = *cache;
        HASH_DEL(*cache, old);
        if (cache == &r->log && old->name && r->q) {
            char wkey[600];
            snprintf(wkey, sizeof(wkey), "Event %s/%s", old->ns, old->name);
            if (!kube_writes_pending(r->q, wkey))
                kube_writes_forget(r->q, wkey);
        }
        entry_free(old);
    }
    e = calloc(1, sizeof(*e));
    if (!e || !(e->key = strdup(key))) {
        free(e);
        return NULL;
    }
    HASH_ADD_KEYPTR(hh, *cache, e->key, strlen(e->key), e);
    return e;
}

/* Keys joined with a byte no name holds. */
static char *join(const char *const *parts, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(parts[i] ? parts[i] : "") + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i] ? parts[i] : "");
        memcpy(p, parts[i] ? parts[i] : "", k);
        p += k;
        *p++ = '\x1f';
    }
    *p = '\0';
    return s;
}

static struct json_object *event_json(const struct kube_recorder *r,
                                      const struct kube_event_obj *obj,
                                      const char *name, const char *type,
                                      const char *reason, const char *message,
                                      uint32_t count, int64_t first_ns,
                                      int64_t now_ns)
{
    struct json_object *ev = json_object_new_object();
    struct json_object *meta = json_object_new_object();
    struct json_object *inv = json_object_new_object();
    struct json_object *src = json_object_new_object();
    int rc = (!ev || !meta || !inv || !src) ? -ENOMEM : 0;
    if (rc == 0)
        rc = kjson_put_str(meta, "name", name) |
             kjson_put_str(meta, "namespace", obj->ns) |
             kjson_put_str(inv, "apiVersion", obj->api_version) |
             kjson_put_str(inv, "kind", obj->kind) |
             kjson_put_str(inv, "namespace", obj->ns) |
             kjson_put_str(inv, "name", obj->name) |
             kjson_put_str(inv, "uid", obj->uid) |
             kjson_put_str(src, "component", ORDO_SCHEDULER_NAME) |
             kjson_put_str(src, "host", r->instance);
    if (rc == 0 && (rc = kjson_put(ev, "metadata", meta)) == 0)
        meta = NULL;
    if (rc == 0 && (rc = kjson_put(ev, "involvedObject", inv)) == 0)
        inv = NULL;
    if (rc == 0 && (rc = kjson_put(ev, "source", src)) == 0)
        src = NULL;
    if (rc == 0)
        rc = kjson_put_str(ev, "type", type) |
             kjson_put_str(ev, "reason", reason) |
             kjson_put_str(ev, "message", message) |
             kjson_put_int(ev, "count", count) |
             kjson_put(ev, "firstTimestamp", kjson_time(first_ns)) |
             kjson_put(ev, "lastTimestamp", kjson_time(now_ns)) |
             kjson_put_str(ev, "reportingComponent", ORDO_SCHEDULER_NAME) |
             kjson_put_str(ev, "reportingInstance",
                           r->instance ? r->instance : "");
    json_object_put(meta);
    json_object_put(inv);
    json_object_put(src);
    if (rc != 0) {
        json_object_put(ev);
        return NULL;
    }
    return ev;
}

/* Aggregation (EventAggregate): whether this event is to be combined.
 * -ENOMEM, 0 (as is) or 1 (combined). */
static int aggregate(struct kube_recorder *r, int64_t now_ns,
                     const char *agg_key, const char *message)
{
    bool fresh;
    struct kube_ev_entry *a = cache_get(r, &r->agg, agg_key, &fresh);
    if (!a)
        return -ENOMEM;
    if (fresh || now_ns - a->last_ns > KUBE_EVENTS_AGG_NS) {
        for (size_t i = 0; i < a->n_msgs; i++)
            free(a->msgs[i]);
        a->n_msgs = 0;
    }
    a->last_ns = now_ns;
    bool seen = false;
    for (size_t i = 0; i < a->n_msgs && !seen; i++)
        seen = strcmp(a->msgs[i], message) == 0;
    if (!seen) {
        if (a->n_msgs == KUBE_EVENTS_AGG_MAX) {
            /* Never more than the maximum (client-go pops one). */
            free(a->msgs[--a->n_msgs]);
        }
        if (!(a->msgs[a->n_msgs] = strdup(message)))
            return -ENOMEM;
        a->n_msgs++;
    }
    if (a->n_msgs < KUBE_EVENTS_AGG_MAX)
        return 0;
    free(a->msgs[--a->n_msgs]); /* PopAny */
    return 1;
}

int kube_events_record(struct kube_recorder *r, int64_t now_ns,
                       const struct kube_event_obj *obj, const char *type,
                       const char *reason, const char *message)
{
    if (!obj || !obj->name || !obj->ns || !type || !reason)
        return -EINVAL;
    if (!message)
        message = "";
    const char *host = r->instance ? r->instance : "";
    const char *objp[] = {
        ORDO_SCHEDULER_NAME, host,     obj->kind,        obj->ns,
        obj->name,           obj->uid, obj->api_version, type};
    const char *aggp[] = {ORDO_SCHEDULER_NAME,
                          host,
                          obj->kind,
                          obj->ns,
                          obj->name,
                          obj->uid,
                          obj->api_version,
                          type,
                          reason,
                          ORDO_SCHEDULER_NAME,
                          host};
    const char *fullp[] = {
        ORDO_SCHEDULER_NAME, host, obj->kind, obj->ns, obj->name, "", obj->uid,
        obj->api_version,    type, reason,    message};
    char *spam_key = join(objp, 8), *agg_key = join(aggp, 11);
    char *full_key = join(fullp, 11), *combined = NULL;
    struct json_object *ev = NULL;
    int rc = -ENOMEM;
    if (!spam_key || !agg_key || !full_key)
        goto out;
    int agg = aggregate(r, now_ns, agg_key, message);
    if (agg < 0)
        goto out;
    const char *log_key = full_key;
    if (agg) {
        size_t len = strlen(KUBE_EVENTS_COMBINED) + strlen(message) + 1;
        if (!(combined = malloc(len)))
            goto out;
        snprintf(combined, len, "%s%s", KUBE_EVENTS_COMBINED, message);
        message = combined;
        log_key = agg_key;
        r->combined++;
    }
    /* Counting (eventObserve): the same Event again, count + 1. */
    bool fresh;
    struct kube_ev_entry *l = cache_get(r, &r->log, log_key, &fresh);
    if (!l)
        goto out;
    if (fresh || !l->name) {
        char name[600];
        snprintf(name, sizeof(name), "%s.%" PRIx64, obj->name,
                 (uint64_t)now_ns);
        free(l->name);
        free(l->ns);
        l->ns = strdup(obj->ns);
        if (!(l->name = strdup(name)) || !l->ns)
            goto out;
        l->count = 0;
        l->first_ns = now_ns;
    } else {
        r->repeated++;
    }
    l->count++;
    /* The spam filter sees the event after counting, as client-go's. */
    bool sfresh;
    struct kube_ev_entry *s = cache_get(r, &r->spam, spam_key, &sfresh);
    if (!s)
        goto out;
    if (sfresh)
        kube_bucket_init(&s->bucket, KUBE_EVENTS_BURST, 1,
                         KUBE_EVENTS_REFILL_NS, now_ns);
    if (!kube_bucket_take(&s->bucket, now_ns)) {
        r->dropped++;
        rc = 0;
        goto out;
    }
    ev = event_json(r, obj, l->name, type, reason, message, l->count,
                    l->first_ns, now_ns);
    if (!ev)
        goto out;
    char wkey[700], create[400], path[1000];
    snprintf(wkey, sizeof(wkey), "Event %s/%s", obj->ns, l->name);
    snprintf(create, sizeof(create), "/api/v1/namespaces/%s/events", obj->ns);
    snprintf(path, sizeof(path), "%s/%s", create, l->name);
    rc = r->q ? kube_writes_put(r->q, KUBE_WRITE_EVENT, wkey, create, path,
                                "application/strategic-merge-patch+json", ev)
              : 0;
    if (!r->q)
        json_object_put(ev);
    ev = NULL;
    if (rc == 0) {
        r->recorded++;
        rc = 1;
    }
out:
    json_object_put(ev);
    free(spam_key);
    free(agg_key);
    free(full_key);
    free(combined);
    return rc;
}

static void pod_ref(const struct pod *p, struct kube_event_obj *o)
{
    const struct object *obj = p->obj;
    o->api_version = "v1";
    o->kind = "Pod";
    o->ns = obj ? obj->meta.namespace_ : NULL;
    o->name = obj ? obj->meta.name : NULL;
    o->uid = obj ? obj->meta.uid : NULL;
}

int kube_events_scheduled(struct kube_recorder *r, int64_t now_ns,
                          const struct pod *p, const struct node *n)
{
    struct kube_event_obj o;
    char msg[700];
    pod_ref(p, &o);
    snprintf(msg, sizeof(msg), "Successfully assigned %s to %s", p->key,
             n->name);
    return kube_events_record(r, now_ns, &o, "Normal", "Scheduled", msg);
}

int kube_events_failed_scheduling(struct kube_recorder *r, int64_t now_ns,
                                  const struct pod *p, const char *message)
{
    struct kube_event_obj o;
    pod_ref(p, &o);
    if (!message)
        message = p->wl ? p->wl->reason : "";
    return kube_events_record(r, now_ns, &o, "Warning", "FailedScheduling",
                              message);
}

int kube_events_preempted(struct kube_recorder *r, int64_t now_ns,
                          const struct cluster *c, const struct workload *w,
                          const struct kube_wl_opts *opts)
{
    if (!w->evicted_by_preemptor || !w->evicted_by[0])
        return -EINVAL;
    char name[KUBE_NAME_MAX], msg[1200];
    int rc = kube_workload_name(w, name, sizeof(name));
    if (rc < 0)
        return rc;
    (void)kube_workload_eviction(c, w, opts, msg, sizeof(msg), NULL);
    struct kube_event_obj o = {
        .api_version = KUBE_WORKLOAD_API,
        .kind = "Workload",
        .ns = w->ns,
        .name = name,
        .uid = opts && opts->uid_of ? opts->uid_of(opts->data, w->key) : NULL};
    return kube_events_record(r, now_ns, &o, "Normal", "Preempted", msg);
}
