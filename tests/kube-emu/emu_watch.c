/* emu_watch.c - watch streams: one JSON event per line from the change
 * ring, filtered by namespace and selectors (an object that stops
 * matching is DELETED for that watch, as the real watch cache does),
 * BOOKMARKs when idle, and a 410 ERROR event when the asked version is
 * older than the ring keeps. The stream ends at timeoutSeconds. Faults
 * (emu_fault.c): a stream cut at a random byte, an injected 410, events
 * sent twice. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"

struct emu_watch {
    int kind, storage;
    char *ns;
    struct emu_sel *sel;
    bool bookmarks, table, ended;
    int64_t cursor;
    int64_t deadline_ms; /* 0: none */
    int64_t last_write_ms;
    int64_t cut_at, sent; /* --fault-drop-watch: bytes before the cut; -1 */
    char *buf;
    size_t len, off, cap;
};

static const char *const type_names[] = {"ADDED", "MODIFIED", "DELETED"};

static void put(struct emu_watch *w, const char *s)
{
    size_t n = strlen(s);
    if (w->len + n + 1 > w->cap) {
        size_t cap = (w->len + n + 1) * 2;
        char *b = realloc(w->buf, cap);
        if (!b)
            return;
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len++] = '\n';
}

/* Takes obj. */
static void put_event(struct emu_watch *w, const char *type,
                      struct json_object *obj)
{
    struct json_object *ev = json_object_new_object();
    bool object = strcmp(type, "ERROR") && strcmp(type, "BOOKMARK");
    if (object)
        obj = emu_fault_malform(w->kind, obj);
    if (w->table && object) {
        struct json_object *t = emu_table_new(w->kind, &obj, 1, NULL, NULL);
        json_object_put(obj);
        obj = t;
    }
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "object", obj);
    put(w, json_object_to_json_string_ext(ev, EMU_JSON));
    if (object && !emu_fault_spared() &&
        emu_fault_draw(emu_faults.duplicate_ppm)) {
        put(w, json_object_to_json_string_ext(ev, EMU_JSON));
        emu_fault_audit("duplicate", "watch", emu_kinds[w->kind].resource,
                        emu_path_str(obj, "metadata.namespace"),
                        emu_path_str(obj, "metadata.name"), NULL, NULL, 0);
    }
    json_object_put(ev);
}

static bool matches(struct emu_watch *w, struct json_object *view)
{
    if (w->ns) {
        const char *ns = emu_path_str(view, "metadata.namespace");
        if (!ns || strcmp(ns, w->ns))
            return false;
    }
    return emu_sel_match(w->sel, view);
}

static void put_bookmark(struct emu_watch *w, bool initial_end)
{
    const struct emu_kind *k = &emu_kinds[w->kind];
    char av[128], rv[32];
    struct json_object *o = json_object_new_object();
    struct json_object *m = json_object_new_object();
    snprintf(rv, sizeof(rv), "%lld", (long long)w->cursor);
    json_object_object_add(o, "kind", json_object_new_string(k->kind));
    json_object_object_add(
        o, "apiVersion",
        json_object_new_string(emu_kind_api_version(k, av, sizeof(av))));
    json_object_object_add(m, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(m, "creationTimestamp", NULL);
    if (initial_end) {
        struct json_object *a = json_object_new_object();
        json_object_object_add(a, "k8s.io/initial-events-end",
                               json_object_new_string("true"));
        json_object_object_add(m, "annotations", a);
    }
    json_object_object_add(o, "metadata", m);
    put_event(w, "BOOKMARK", o);
    w->last_write_ms = emu_now_ms();
}

static void put_gone(struct emu_watch *w, int64_t asked)
{
    struct emu_err err = {0};
    emu_err_set(&err, 410, "Expired", -1, "",
                "too old resource version: %lld (%lld)", (long long)asked,
                (long long)emu_store_oldest() + 1);
    put_event(w, "ERROR", emu_status_new(&err));
    w->ended = true;
}

static void put_all(struct emu_watch *w)
{
    struct emu_bucket *b = &emu.buckets[w->storage];
    for (size_t i = 0; i < b->n; i++) {
        struct json_object *v = emu_view(w->kind, b->v[i].obj);
        if (matches(w, v))
            put_event(w, "ADDED", v);
        else
            json_object_put(v);
    }
}

struct emu_watch *emu_watch_new(const struct emu_req *r, struct emu_resp *resp)
{
    struct emu_watch *w = calloc(1, sizeof(*w));
    struct emu_err err = {0};
    if (!w)
        return NULL;
    w->kind = r->kind;
    w->storage = emu_kinds[r->kind].storage;
    w->ns = r->ns && emu_kinds[r->kind].namespaced ? strdup(r->ns) : NULL;
    w->bookmarks = r->bookmarks;
    w->table = r->table;
    w->last_write_ms = emu_now_ms();
    if (r->timeout_s > 0)
        w->deadline_ms = w->last_write_ms + r->timeout_s * 1000;
    if (emu_sel_parse(r->label_sel, r->field_sel, &w->sel, &err) < 0) {
        resp->code = err.code;
        struct json_object *s = emu_status_new(&err);
        resp->body = strdup(json_object_to_json_string_ext(s, EMU_JSON));
        json_object_put(s);
        emu_watch_free(w);
        return NULL;
    }
    pthread_mutex_lock(&emu.lock);
    if (r->initial_events || !r->rv || !*r->rv || !strcmp(r->rv, "0")) {
        /* From "any" version: the current state first, as ADDED. */
        w->cursor = emu.rv;
        put_all(w);
        if (r->initial_events)
            put_bookmark(w, true);
    } else {
        char *end;
        long long rv = strtoll(r->rv, &end, 10);
        if (*end || rv < 0) {
            emu_err_set(&err, 400, "BadRequest", -1, "",
                        "invalid resource version \"%s\"", r->rv);
            pthread_mutex_unlock(&emu.lock);
            resp->code = 400;
            struct json_object *s = emu_status_new(&err);
            resp->body = strdup(json_object_to_json_string_ext(s, EMU_JSON));
            json_object_put(s);
            emu_watch_free(w);
            return NULL;
        }
        w->cursor = rv;
        if (rv < emu_store_oldest())
            put_gone(w, rv);
    }
    if (!w->ended && !emu_fault_spared() &&
        emu_fault_draw(emu_faults.gone_ppm)) {
        /* As if the asked version had left the window: half of the time
         * an answer 410, half an ERROR event on an open stream. */
        emu_fault_audit("410", "watch", emu_kinds[r->kind].resource, r->ns,
                        NULL, r->user, r->user_agent, 410);
        if (emu_fault_random() & 1) {
            pthread_mutex_unlock(&emu.lock);
            emu_err_set(&err, 410, "Expired", -1, "",
                        "too old resource version: %s (injected)",
                        r->rv ? r->rv : "0");
            resp->code = 410;
            struct json_object *s = emu_status_new(&err);
            resp->body = strdup(json_object_to_json_string_ext(s, EMU_JSON));
            json_object_put(s);
            emu_watch_free(w);
            return NULL;
        }
        w->len = w->off = 0;
        put_gone(w, w->cursor);
    }
    w->cut_at = -1;
    if (!emu_fault_spared() && emu_fault_draw(emu_faults.drop_watch_ppm)) {
        w->cut_at = (int64_t)(emu_fault_random() % 16384);
        emu_fault_audit("drop-watch", "watch", emu_kinds[r->kind].resource,
                        r->ns, NULL, r->user, r->user_agent, 0);
    }
    pthread_mutex_unlock(&emu.lock);
    return w;
}

/* Lines for the changes after the cursor; emu.lock held. */
static void collect(struct emu_watch *w)
{
    if (w->cursor < emu_store_oldest()) {
        put_gone(w, w->cursor);
        return;
    }
    /* The ring's versions increase: start at the first one past the
     * cursor. */
    size_t lo = 0, hi = emu.ring_len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (emu.ring[(emu.ring_start + mid) % emu.ring_cap].rv <= w->cursor)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < emu.ring_len; i++) {
        struct emu_event *e = &emu.ring[(emu.ring_start + i) % emu.ring_cap];
        if (e->storage != w->storage)
            continue;
        struct json_object *v = emu_view(w->kind, e->obj);
        bool now = matches(w, v), before = false;
        const char *type = type_names[e->type];
        if (e->type == EMU_MODIFIED && e->old) {
            struct json_object *ov = emu_view(w->kind, e->old);
            before = matches(w, ov);
            json_object_put(ov);
            if (now && !before)
                type = "ADDED";
            else if (!now && before)
                type = "DELETED";
        }
        if (now || before)
            put_event(w, type, v);
        else
            json_object_put(v);
    }
    if (emu.rv > w->cursor)
        w->cursor = emu.rv;
}

ssize_t emu_watch_read(struct emu_watch *w, char *buf, size_t max)
{
    pthread_mutex_lock(&emu.lock);
    while (w->off == w->len) {
        w->off = w->len = 0;
        if (w->ended || emu.stopping || emu_faults.down)
            break;
        collect(w);
        if (w->len)
            break;
        int64_t now = emu_now_ms();
        if (w->deadline_ms && now >= w->deadline_ms) {
            w->ended = true;
            break;
        }
        if (w->bookmarks && now - w->last_write_ms >= emu.bookmark_ms) {
            put_bookmark(w, false);
            break;
        }
        int64_t until = now + (w->bookmarks ? emu.bookmark_ms : 1000);
        if (w->deadline_ms && w->deadline_ms < until)
            until = w->deadline_ms;
        struct timespec ts = {until / 1000, (long)(until % 1000) * 1000000};
        pthread_cond_timedwait(&emu.changed, &emu.lock, &ts);
    }
    ssize_t n;
    if (w->cut_at >= 0 && w->sent >= w->cut_at) {
        /* The cut: the connection ends without the stream's end, at any
         * byte, mid-line included. */
        pthread_mutex_unlock(&emu.lock);
        return -1;
    }
    if (w->off < w->len) {
        size_t c = w->len - w->off < max ? w->len - w->off : max;
        if (w->cut_at >= 0 && (int64_t)c > w->cut_at - w->sent)
            c = (size_t)(w->cut_at - w->sent);
        w->sent += (int64_t)c;
        memcpy(buf, w->buf + w->off, c);
        w->off += c;
        w->last_write_ms = emu_now_ms();
        n = (ssize_t)c;
    } else {
        n = emu.stopping || emu_faults.down ? -1 : 0;
    }
    pthread_mutex_unlock(&emu.lock);
    return n;
}

void emu_watch_free(struct emu_watch *w)
{
    if (!w)
        return;
    emu_sel_free(w->sel);
    free(w->ns);
    free(w->buf);
    free(w);
}
