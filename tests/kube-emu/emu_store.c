/* emu_store.c - the emulator's objects: one sorted array per kind, a
 * global resourceVersion counter, and a ring of the recent changes that
 * watches replay. Stored JSON objects are never changed in place: a write
 * stores a new object, so watch events may keep references to old ones.
 * Every function runs with emu.lock held. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

struct emu emu = {.lock = PTHREAD_MUTEX_INITIALIZER};
static int64_t dropped_rv; /* the newest change no longer in the ring */

int emu_store_init(size_t window)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&emu.changed, &ca);
    pthread_condattr_destroy(&ca);
    emu.buckets = calloc(emu_nkinds, sizeof(*emu.buckets));
    emu.last_change = calloc(emu_nkinds, sizeof(*emu.last_change));
    emu.ring_cap = window ? window : 1;
    emu.ring = calloc(emu.ring_cap, sizeof(*emu.ring));
    if (!emu.buckets || !emu.ring || !emu.last_change)
        return -ENOMEM;
    emu.rv = 1;
    return 0;
}

static void event_clear(struct emu_event *e)
{
    json_object_put(e->obj);
    json_object_put(e->old);
    e->obj = e->old = NULL;
}

void emu_store_free(void)
{
    for (size_t i = 0; emu.buckets && i < emu_nkinds; i++) {
        for (size_t j = 0; j < emu.buckets[i].n; j++) {
            free(emu.buckets[i].v[j].key);
            json_object_put(emu.buckets[i].v[j].obj);
        }
        free(emu.buckets[i].v);
    }
    for (size_t i = 0; emu.ring && i < emu.ring_len; i++)
        event_clear(&emu.ring[(emu.ring_start + i) % emu.ring_cap]);
    free(emu.buckets);
    free(emu.ring);
    free(emu.last_change);
    emu.last_change = NULL;
    emu.buckets = NULL;
    emu.ring = NULL;
}

int64_t emu_store_oldest(void)
{
    return dropped_rv;
}

static void emit(int storage, enum emu_ev_type type, struct json_object *obj,
                 struct json_object *old)
{
    struct emu_event *e;
    if (emu.ring_len == emu.ring_cap) {
        e = &emu.ring[emu.ring_start];
        dropped_rv = e->rv;
        event_clear(e);
        emu.ring_start = (emu.ring_start + 1) % emu.ring_cap;
        emu.ring_len--;
    }
    e = &emu.ring[(emu.ring_start + emu.ring_len) % emu.ring_cap];
    emu.ring_len++;
    e->rv = emu.rv;
    emu.last_change[storage] = emu.rv;
    e->storage = storage;
    e->type = type;
    e->obj = json_object_get(obj);
    e->old = json_object_get(old);
    pthread_cond_broadcast(&emu.changed);
}

static void make_key(const struct emu_kind *k, const char *ns, const char *name,
                     char *buf, size_t size)
{
    if (k->namespaced)
        snprintf(buf, size, "%s/%s", ns ? ns : "", name);
    else
        snprintf(buf, size, "%s", name);
}

size_t emu_store_lower(int storage, const char *key)
{
    struct emu_bucket *b = &emu.buckets[storage];
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(b->v[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct emu_obj *find(int storage, const char *key)
{
    struct emu_bucket *b = &emu.buckets[storage];
    size_t i = emu_store_lower(storage, key);
    return i < b->n && !strcmp(b->v[i].key, key) ? &b->v[i] : NULL;
}

struct json_object *emu_store_get(int storage, const char *ns, const char *name)
{
    char key[600];
    make_key(&emu_kinds[storage], ns, name, key, sizeof(key));
    struct emu_obj *o = find(storage, key);
    return o ? o->obj : NULL;
}

static int insert(int storage, const char *key, struct json_object *obj)
{
    struct emu_bucket *b = &emu.buckets[storage];
    size_t i = emu_store_lower(storage, key);
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        struct emu_obj *v = realloc(b->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    memmove(&b->v[i + 1], &b->v[i], (b->n - i) * sizeof(*b->v));
    b->v[i].key = strdup(key);
    b->v[i].obj = obj;
    b->n++;
    return 0;
}

static void set_rv(struct json_object *obj, int64_t rv)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", (long long)rv);
    json_object_object_add(emu_child(obj, "metadata"), "resourceVersion",
                           json_object_new_string(buf));
}

static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '.'))
            return false;
    }
    return s[0] != '-' && s[0] != '.' && s[n - 1] != '-' && s[n - 1] != '.';
}

static void set_default(struct json_object *o, const char *key,
                        struct json_object *v)
{
    if (!json_object_object_get_ex(o, key, NULL))
        json_object_object_add(o, key, v);
    else
        json_object_put(v);
}

static void default_pod(struct json_object *obj)
{
    struct json_object *spec = emu_child(obj, "spec");
    set_default(spec, "schedulerName",
                json_object_new_string("default-scheduler"));
    set_default(spec, "restartPolicy", json_object_new_string("Always"));
    set_default(spec, "dnsPolicy", json_object_new_string("ClusterFirst"));
    if (!json_object_object_get_ex(spec, "priority", NULL)) {
        /* The Priority admission plugin: the class's value, else the
         * global default's, else 0. */
        const char *pcn = emu_path_str(spec, "priorityClassName");
        struct emu_bucket *b = &emu.buckets[emu_k("priorityclasses")];
        int64_t prio = 0;
        for (size_t i = 0; i < b->n; i++) {
            struct json_object *pc = b->v[i].obj;
            const char *name = emu_path_str(pc, "metadata.name");
            struct json_object *gd = emu_path(pc, "globalDefault");
            if ((pcn && name && !strcmp(pcn, name)) ||
                (!pcn && gd && json_object_get_boolean(gd)))
                prio = json_object_get_int64(emu_path(pc, "value"));
        }
        json_object_object_add(spec, "priority", json_object_new_int64(prio));
    }
    struct json_object *st = json_object_new_object();
    json_object_object_add(st, "phase", json_object_new_string("Pending"));
    json_object_object_add(st, "qosClass",
                           json_object_new_string("BestEffort"));
    json_object_object_add(obj, "status", st);
}

static void default_job(struct json_object *obj, const char *uid)
{
    struct json_object *spec = emu_child(obj, "spec");
    const char *name = emu_path_str(obj, "metadata.name");
    if (!json_object_object_get_ex(spec, "parallelism", NULL) &&
        !json_object_object_get_ex(spec, "completions", NULL))
        json_object_object_add(spec, "completions", json_object_new_int(1));
    set_default(spec, "parallelism", json_object_new_int(1));
    set_default(spec, "backoffLimit", json_object_new_int(6));
    set_default(spec, "completionMode", json_object_new_string("NonIndexed"));
    set_default(spec, "suspend", json_object_new_boolean(0));
    if (!json_object_object_get_ex(spec, "selector", NULL)) {
        struct json_object *sel = json_object_new_object();
        struct json_object *ml = json_object_new_object();
        json_object_object_add(ml, "batch.kubernetes.io/controller-uid",
                               json_object_new_string(uid));
        json_object_object_add(sel, "matchLabels", ml);
        json_object_object_add(spec, "selector", sel);
    }
    struct json_object *tmeta =
        emu_child(emu_child(spec, "template"), "metadata");
    struct json_object *labels = emu_child(tmeta, "labels");
    json_object_object_add(labels, "batch.kubernetes.io/controller-uid",
                           json_object_new_string(uid));
    json_object_object_add(labels, "controller-uid",
                           json_object_new_string(uid));
    json_object_object_add(labels, "batch.kubernetes.io/job-name",
                           json_object_new_string(name));
    json_object_object_add(labels, "job-name", json_object_new_string(name));
    json_object_object_add(obj, "status", json_object_new_object());
}

/* What the real server's create strategies do to each kind. */
static void defaults_create(int storage, struct json_object *obj,
                            const char *uid)
{
    const struct emu_kind *k = &emu_kinds[storage];
    if (!strcmp(k->resource, "pods") && !*k->group)
        default_pod(obj);
    else if (!strcmp(k->resource, "jobs"))
        default_job(obj, uid);
    else if (!strcmp(k->resource, "namespaces")) {
        struct json_object *st = json_object_new_object();
        json_object_object_add(st, "phase", json_object_new_string("Active"));
        json_object_object_add(obj, "status", st);
    } else if (k->crd && k->has_status) {
        json_object_object_del(obj, "status");
    } else if (!strcmp(k->resource, "poddisruptionbudgets")) {
        json_object_object_add(obj, "status", json_object_new_object());
    }
}

int emu_store_create(int kind, struct json_object *obj,
                     struct json_object **ret_obj, struct emu_err *err)
{
    int storage = emu_kinds[kind].storage;
    const struct emu_kind *k = &emu_kinds[storage];
    struct json_object *meta = emu_child(obj, "metadata");
    const char *name = emu_path_str(meta, "name");
    const char *ns = emu_path_str(meta, "namespace");
    char key[600], uid[64], ts[40], gen[300];
    int r;
    if (!name || !*name) {
        const char *gn = emu_path_str(meta, "generateName");
        if (!gn || !*gn) {
            emu_err_set(err, 422, "Invalid", kind, "",
                        "%s \"\" is invalid: metadata.name: Required value: "
                        "name or generateName is required",
                        k->kind);
            goto fail;
        }
        /* Retry on the rare clash, as the real server does. */
        for (int tries = 0; tries < 8; tries++) {
            char sfx[8];
            emu_random_suffix(sfx, 5);
            snprintf(gen, sizeof(gen), "%.240s%s", gn, sfx);
            make_key(k, ns, gen, key, sizeof(key));
            if (!find(storage, key))
                break;
        }
        json_object_object_add(meta, "name", json_object_new_string(gen));
        name = emu_path_str(meta, "name");
    }
    if (!valid_name(name)) {
        emu_err_set(err, 422, "Invalid", kind, name,
                    "%s \"%s\" is invalid: metadata.name: Invalid value: "
                    "\"%s\": a lowercase RFC 1123 subdomain must consist of "
                    "lower case alphanumeric characters, '-' or '.'",
                    k->kind, name, name);
        goto fail;
    }
    if (k->namespaced) {
        if (!ns || !*ns) {
            emu_err_set(err, 400, "BadRequest", kind, name,
                        "the namespace of the object is required");
            goto fail;
        }
        if (!emu_store_get(emu_k("namespaces"), NULL, ns)) {
            emu_err_set(err, 404, "NotFound", emu_k("namespaces"), ns,
                        "namespaces \"%s\" not found", ns);
            goto fail;
        }
    } else {
        json_object_object_del(meta, "namespace");
    }
    make_key(k, ns, name, key, sizeof(key));
    if (find(storage, key)) {
        emu_err_set(err, 409, "AlreadyExists", kind, name,
                    "%s%s%s \"%s\" already exists", emu_kinds[kind].resource,
                    *k->group ? "." : "", k->group, name);
        goto fail;
    }
    emu_uid_new(uid, sizeof(uid));
    emu_time_now(ts, sizeof(ts), false);
    json_object_object_add(meta, "uid", json_object_new_string(uid));
    json_object_object_add(meta, "creationTimestamp",
                           json_object_new_string(ts));
    json_object_object_del(meta, "deletionTimestamp");
    if (json_object_object_get_ex(obj, "spec", NULL))
        json_object_object_add(meta, "generation", json_object_new_int64(1));
    defaults_create(storage, obj, uid);
    emu.rv++;
    set_rv(obj, emu.rv);
    r = insert(storage, key, obj);
    if (r < 0) {
        emu_err_set(err, 500, "InternalError", kind, name, "out of memory");
        goto fail;
    }
    emit(storage, EMU_ADDED, obj, NULL);
    *ret_obj = obj;
    return 0;
fail:
    json_object_put(obj);
    return -EINVAL;
}

static void copy_member(struct json_object *dst, struct json_object *src,
                        const char *key)
{
    struct json_object *v;
    if (json_object_object_get_ex(src, key, &v))
        json_object_object_add(dst, key, json_object_get(v));
    else
        json_object_object_del(dst, key);
}

static void remove_at(int storage, struct emu_obj *o)
{
    struct emu_bucket *b = &emu.buckets[storage];
    size_t i = (size_t)(o - b->v);
    free(o->key);
    json_object_put(o->obj);
    memmove(&b->v[i], &b->v[i + 1], (b->n - i - 1) * sizeof(*b->v));
    b->n--;
}

static bool has_finalizers(struct json_object *obj)
{
    struct json_object *f = emu_path(obj, "metadata.finalizers");
    return f && json_object_is_type(f, json_type_array) &&
           json_object_array_length(f) > 0;
}

static void gc_dependents(const char *uid);

/* Removes o for good: the DELETED event, then its dependents. */
static void remove_obj(int storage, struct emu_obj *o, bool orphan)
{
    struct json_object *last = emu_copy(o->obj);
    char uid[64];
    snprintf(uid, sizeof(uid), "%s",
             emu_path_str(last, "metadata.uid")
                 ? emu_path_str(last, "metadata.uid")
                 : "");
    emu.rv++;
    set_rv(last, emu.rv);
    remove_at(storage, o);
    emit(storage, EMU_DELETED, last, NULL);
    if (!strcmp(emu_kinds[storage].resource, "namespaces")) {
        const char *ns = emu_path_str(last, "metadata.name");
        for (size_t s = 0; s < emu_nkinds; s++) {
            struct emu_bucket *b = &emu.buckets[s];
            if (!emu_kinds[s].namespaced || emu_kinds[s].storage != (int)s)
                continue;
            for (size_t i = 0; i < b->n;) {
                const char *ons =
                    emu_path_str(b->v[i].obj, "metadata.namespace");
                if (ons && !strcmp(ons, ns)) {
                    remove_obj((int)s, &b->v[i], true);
                    i = 0; /* dependents may have gone too */
                } else {
                    i++;
                }
            }
        }
    }
    json_object_put(last);
    if (!orphan && uid[0])
        gc_dependents(uid);
}

static bool owned_by(struct json_object *obj, const char *uid)
{
    struct json_object *refs = emu_path(obj, "metadata.ownerReferences");
    size_t n = refs && json_object_is_type(refs, json_type_array)
                   ? json_object_array_length(refs)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        const char *u = emu_path_str(json_object_array_get_idx(refs, i), "uid");
        if (u && !strcmp(u, uid))
            return true;
    }
    return false;
}

/* Background propagation, done at once. */
static void gc_dependents(const char *uid)
{
    for (size_t s = 0; s < emu_nkinds; s++) {
        struct emu_bucket *b = &emu.buckets[s];
        if (emu_kinds[s].storage != (int)s)
            continue;
        for (size_t i = 0; i < b->n;) {
            if (!owned_by(b->v[i].obj, uid)) {
                i++;
                continue;
            }
            char key[600];
            snprintf(key, sizeof(key), "%s", b->v[i].key);
            struct json_object *o = b->v[i].obj;
            if (has_finalizers(o)) {
                i++;
                continue;
            }
            remove_obj((int)s, &b->v[i], false);
            /* The array moved under us: start again from key. */
            i = emu_store_lower((int)s, key);
        }
    }
}

/* A copy of a pod spec without what an update may change. */
static struct json_object *pod_spec_fixed(struct json_object *spec)
{
    struct json_object *c = spec ? emu_copy(spec) : json_object_new_object();
    const char *lists[] = {"containers", "initContainers"};
    json_object_object_del(c, "activeDeadlineSeconds");
    json_object_object_del(c, "tolerations");
    json_object_object_del(c, "schedulingGates");
    for (size_t i = 0; i < 2; i++) {
        struct json_object *l = emu_path(c, lists[i]);
        for (size_t j = 0; l && json_object_is_type(l, json_type_array) &&
                           j < json_object_array_length(l);
             j++) {
            struct json_object *e = json_object_array_get_idx(l, j);
            if (json_object_is_type(e, json_type_object))
                json_object_object_del(e, "image");
        }
    }
    return c;
}

/* The real server lets a pod's spec change only in images, the deadline,
 * tolerations and scheduling gates: nodeName is set by binding alone. */
static bool pod_spec_update_ok(struct json_object *old, struct json_object *nw)
{
    struct json_object *a = pod_spec_fixed(old), *b = pod_spec_fixed(nw);
    bool ok = emu_json_equal(a, b);
    json_object_put(a);
    json_object_put(b);
    return ok;
}

int emu_store_update(int kind, struct json_object *obj, const char *sub,
                     struct json_object **ret_obj, struct emu_err *err)
{
    int storage = emu_kinds[kind].storage;
    const struct emu_kind *k = &emu_kinds[storage];
    const char *name = emu_path_str(obj, "metadata.name");
    const char *ns = emu_path_str(obj, "metadata.namespace");
    const char *rv = emu_path_str(obj, "metadata.resourceVersion");
    char key[600];
    struct emu_obj *cur;
    struct json_object *old, *nobj;
    if (!name) {
        emu_err_set(err, 422, "Invalid", kind, "",
                    "metadata.name: Required value");
        goto fail;
    }
    make_key(k, ns, name, key, sizeof(key));
    cur = find(storage, key);
    if (!cur) {
        emu_err_set(err, 404, "NotFound", kind, name, "%s%s%s \"%s\" not found",
                    emu_kinds[kind].resource, *k->group ? "." : "", k->group,
                    name);
        goto fail;
    }
    old = cur->obj;
    if (rv && *rv &&
        strcmp(rv, emu_path_str(old, "metadata.resourceVersion"))) {
        emu_err_set(err, 409, "Conflict", kind, name,
                    "Operation cannot be fulfilled on %s%s%s \"%s\": the "
                    "object has been modified; please apply your changes to "
                    "the latest version and try again",
                    emu_kinds[kind].resource, *k->group ? "." : "", k->group,
                    name);
        goto fail;
    }
    if (!sub && !strcmp(k->resource, "pods") && !*k->group &&
        !pod_spec_update_ok(emu_path(old, "spec"), emu_path(obj, "spec"))) {
        emu_err_set(err, 422, "Invalid", kind, name,
                    "Pod \"%s\" is invalid: spec: Forbidden: pod updates may "
                    "not change fields other than `spec.containers[*].image`,"
                    "`spec.initContainers[*].image`,"
                    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                    "additions to existing tolerations),"
                    "`spec.schedulingGates`",
                    name);
        err->field = "spec";
        err->cause = "Forbidden: pod updates may not change fields other than "
                     "`spec.containers[*].image`,`spec.initContainers[*]."
                     "image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
                     "(only additions to existing tolerations),"
                     "`spec.schedulingGates`";
        goto fail;
    }
    if (sub && !strcmp(sub, "status")) {
        nobj = emu_copy(old);
        copy_member(nobj, obj, "status");
        json_object_put(obj);
    } else {
        nobj = obj;
        struct json_object *meta = emu_child(nobj, "metadata");
        struct json_object *ometa = emu_child(old, "metadata");
        copy_member(meta, ometa, "uid");
        copy_member(meta, ometa, "creationTimestamp");
        copy_member(meta, ometa, "deletionTimestamp");
        copy_member(meta, ometa, "generation");
        if (k->namespaced)
            copy_member(meta, ometa, "namespace");
        if (!sub && k->has_status)
            copy_member(nobj, old, "status");
        if (!json_object_is_type(emu_path(nobj, "kind"), json_type_string))
            copy_member(nobj, old, "kind");
        if (!json_object_is_type(emu_path(nobj, "apiVersion"),
                                 json_type_string))
            copy_member(nobj, old, "apiVersion");
        if (!emu_json_equal(emu_path(nobj, "spec"), emu_path(old, "spec")) &&
            emu_path(old, "metadata.generation"))
            json_object_object_add(
                meta, "generation",
                json_object_new_int64(json_object_get_int64(emu_path(
                                          old, "metadata.generation")) +
                                      1));
    }
    json_object_object_add(
        emu_child(nobj, "metadata"), "resourceVersion",
        json_object_new_string(emu_path_str(old, "metadata.resourceVersion")));
    if (emu_json_equal(nobj, old)) {
        /* A no-op write keeps the resourceVersion and sends no event. */
        json_object_put(nobj);
        *ret_obj = old;
        return 0;
    }
    if (emu_path(nobj, "metadata.deletionTimestamp") && !has_finalizers(nobj)) {
        json_object_put(cur->obj);
        cur->obj = nobj;
        remove_obj(storage, cur, false);
        *ret_obj = NULL;
        return 0;
    }
    emu.rv++;
    set_rv(nobj, emu.rv);
    cur->obj = nobj;
    emit(storage, EMU_MODIFIED, nobj, old);
    json_object_put(old);
    *ret_obj = nobj;
    return 0;
fail:
    json_object_put(obj);
    return -EINVAL;
}

int emu_store_delete(int kind, const char *ns, const char *name,
                     const char *pre_uid, const char *pre_rv, bool orphan,
                     struct json_object **ret_obj, struct emu_err *err)
{
    int storage = emu_kinds[kind].storage;
    const struct emu_kind *k = &emu_kinds[storage];
    char key[600];
    struct emu_obj *cur;
    make_key(k, ns, name, key, sizeof(key));
    *ret_obj = NULL;
    cur = find(storage, key);
    if (!cur) {
        emu_err_set(err, 404, "NotFound", kind, name, "%s%s%s \"%s\" not found",
                    emu_kinds[kind].resource, *k->group ? "." : "", k->group,
                    name);
        return -ENOENT;
    }
    const char *uid = emu_path_str(cur->obj, "metadata.uid");
    const char *rv = emu_path_str(cur->obj, "metadata.resourceVersion");
    if ((pre_uid && *pre_uid && strcmp(pre_uid, uid)) ||
        (pre_rv && *pre_rv && strcmp(pre_rv, rv))) {
        bool byuid = pre_uid && *pre_uid && strcmp(pre_uid, uid);
        emu_err_set(err, 409, "Conflict", kind, name,
                    "Operation cannot be fulfilled on %s \"%s\": Precondition "
                    "failed: %s in precondition: %s, %s in object meta: %s",
                    emu_kinds[kind].resource, name,
                    byuid ? "UID" : "ResourceVersion", byuid ? pre_uid : pre_rv,
                    byuid ? "UID" : "ResourceVersion", byuid ? uid : rv);
        return -EBUSY;
    }
    if (has_finalizers(cur->obj)) {
        /* Kept until its finalizers are gone, marked for deletion. */
        struct json_object *n = emu_copy(cur->obj);
        struct json_object *old = cur->obj;
        if (!emu_path(n, "metadata.deletionTimestamp")) {
            char ts[40];
            emu_time_now(ts, sizeof(ts), false);
            json_object_object_add(emu_child(n, "metadata"),
                                   "deletionTimestamp",
                                   json_object_new_string(ts));
            emu.rv++;
            set_rv(n, emu.rv);
            cur->obj = n;
            emit(storage, EMU_MODIFIED, n, old);
            json_object_put(old);
        } else {
            json_object_put(n);
        }
        *ret_obj = json_object_get(cur->obj);
        return 0;
    }
    *ret_obj = emu_copy(cur->obj);
    remove_obj(storage, cur, orphan);
    return 0;
}

/* events.k8s.io/v1 and core/v1 name the same fields differently. */
static const char *const event_fields[][2] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

static struct json_object *event_convert(struct json_object *o, bool to_new)
{
    struct json_object *n = emu_copy(o);
    for (size_t i = 0; i < sizeof(event_fields) / sizeof(event_fields[0]);
         i++) {
        const char *from = event_fields[i][to_new ? 0 : 1];
        const char *to = event_fields[i][to_new ? 1 : 0];
        struct json_object *v;
        if (json_object_object_get_ex(n, from, &v)) {
            json_object_object_add(n, to, json_object_get(v));
            json_object_object_del(n, from);
        }
    }
    json_object_object_add(
        n, "apiVersion",
        json_object_new_string(to_new ? "events.k8s.io/v1" : "v1"));
    json_object_object_add(n, "kind", json_object_new_string("Event"));
    return n;
}

struct json_object *emu_view(int kind, struct json_object *o)
{
    if (emu_kinds[kind].storage != kind &&
        !strcmp(emu_kinds[kind].kind, "Event"))
        return event_convert(o, true);
    return json_object_get(o);
}

/* The stored form of an object written through kind. */
struct json_object *emu_unview(int kind, struct json_object *o);
struct json_object *emu_unview(int kind, struct json_object *o)
{
    if (emu_kinds[kind].storage != kind &&
        !strcmp(emu_kinds[kind].kind, "Event")) {
        struct json_object *n = event_convert(o, false);
        json_object_put(o);
        return n;
    }
    return o;
}
