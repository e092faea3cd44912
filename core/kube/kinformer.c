/* kinformer.c - list-then-watch for one resource (see kinformer.h): the
 * objects known by key with their resourceVersion, a generation mark per
 * list so that a relist can tell which objects went away. */
#include "kinformer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#define KEY_MAX 512 /* namespace (63) + '/' + name (253), with room */

struct entry {
    char *key, *rv;
    struct json_object *obj; /* a reference held */
    uint64_t gen;            /* of the list or watch that last saw it */
    UT_hash_handle hh;
};

enum phase { PH_IDLE = 0, PH_LIST, PH_WATCH };

struct kinformer {
    struct krequests *q;
    char *path, *kind, *api_version;
    uint32_t page, watch_s;
    int64_t absent_ms;
    struct kinformer_ops ops;
    void *data;
    struct entry *entries;
    char *rv;   /* where the watch resumes */
    char *cont; /* the list's continue token */
    struct kreq *req;
    enum phase phase;
    uint64_t gen;
    unsigned failures;
    uint64_t watch_lines;
    int64_t watch_began_ms;
    bool keep; /* objects kept for kinformer_get() */
    bool started, synced, unserved, unserved_told, relist, watch_failed;
    struct kinformer_stats st;
};

static int list_start(struct kinformer *inf, int64_t delay_ms);
static void fill_kind(struct kinformer *inf, struct json_object *item);
static int watch_start(struct kinformer *inf, int64_t delay_ms);

const char *kinformer_key(struct json_object *obj, char *buf, size_t size)
{
    struct json_object *meta = NULL, *v = NULL;
    if (!json_object_object_get_ex(obj, "metadata", &meta))
        return NULL;
    const char *name = NULL, *ns = NULL;
    if (json_object_object_get_ex(meta, "name", &v) &&
        json_object_is_type(v, json_type_string))
        name = json_object_get_string(v);
    if (json_object_object_get_ex(meta, "namespace", &v) &&
        json_object_is_type(v, json_type_string))
        ns = json_object_get_string(v);
    if (!name || !*name)
        return NULL;
    int n = ns && *ns ? snprintf(buf, size, "%s/%s", ns, name)
                      : snprintf(buf, size, "%s", name);
    return n > 0 && (size_t)n < size ? buf : NULL;
}

static const char *meta_string(struct json_object *obj, const char *field)
{
    struct json_object *meta = NULL, *v = NULL;
    if (!json_object_object_get_ex(obj, "metadata", &meta) ||
        !json_object_object_get_ex(meta, field, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static int set_str(char **dst, const char *s)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        return -ENOMEM;
    free(*dst);
    *dst = d;
    return 0;
}

int kinformer_new(struct krequests *q, const struct kinformer_config *cfg,
                  const struct kinformer_ops *ops, void *data,
                  struct kinformer **ret)
{
    if (!q || !cfg || !cfg->path || cfg->path[0] != '/' || !cfg->kind ||
        !cfg->api_version || !ops || !ops->event || !ret)
        return -EINVAL;
    struct kinformer *inf = calloc(1, sizeof(*inf));
    if (!inf)
        return -ENOMEM;
    inf->q = q;
    inf->ops = *ops;
    inf->data = data;
    inf->keep = cfg->keep_objects;
    inf->page = cfg->page_size ? cfg->page_size : KINF_DEFAULT_PAGE;
    inf->watch_s =
        cfg->watch_timeout_s ? cfg->watch_timeout_s : KINF_DEFAULT_WATCH_S;
    inf->absent_ms = cfg->absent_retry_ms > 0 ? cfg->absent_retry_ms
                                              : KINF_DEFAULT_ABSENT_RETRY;
    if (set_str(&inf->path, cfg->path) || set_str(&inf->kind, cfg->kind) ||
        set_str(&inf->api_version, cfg->api_version)) {
        kinformer_free(inf);
        return -ENOMEM;
    }
    *ret = inf;
    return 0;
}

static void entry_free(struct entry *e)
{
    json_object_put(e->obj);
    free(e->key);
    free(e->rv);
    free(e);
}

void kinformer_free(struct kinformer *inf)
{
    if (!inf)
        return;
    krequest_cancel(inf->req);
    struct entry *e, *tmp;
    HASH_ITER(hh, inf->entries, e, tmp)
    {
        HASH_DEL(inf->entries, e);
        entry_free(e);
    }
    free(inf->path);
    free(inf->kind);
    free(inf->api_version);
    free(inf->rv);
    free(inf->cont);
    free(inf);
}

int kinformer_start(struct kinformer *inf)
{
    if (!inf)
        return -EINVAL;
    if (inf->started)
        return -EALREADY;
    int r = list_start(inf, 0);
    inf->started = r == 0;
    return r;
}

bool kinformer_synced(const struct kinformer *inf)
{
    return inf && inf->synced;
}

bool kinformer_unserved(const struct kinformer *inf)
{
    return inf && inf->unserved;
}

size_t kinformer_count(const struct kinformer *inf)
{
    return inf ? HASH_COUNT(inf->entries) : 0;
}

struct json_object *kinformer_get(const struct kinformer *inf, const char *key)
{
    struct entry *e = NULL;
    if (inf && key)
        HASH_FIND_STR(inf->entries, key, e);
    return e ? e->obj : NULL;
}

const char *kinformer_resource_version(const struct kinformer *inf)
{
    return inf ? inf->rv : NULL;
}

void kinformer_get_stats(const struct kinformer *inf,
                         struct kinformer_stats *ret)
{
    *ret = inf ? inf->st : (struct kinformer_stats){0};
}

static void emit(struct kinformer *inf, enum kinf_event ev,
                 struct json_object *obj)
{
    inf->st.events++;
    inf->ops.event(inf->data, ev, obj);
}

/* Records obj (a reference taken) and reports it added or updated, unless
 * the same resourceVersion is known already. 0, -EINVAL (no name) or
 * -ENOMEM. */
static int upsert(struct kinformer *inf, struct json_object *obj)
{
    char kb[KEY_MAX];
    const char *key = kinformer_key(obj, kb, sizeof(kb));
    const char *rv = meta_string(obj, "resourceVersion");
    if (!key)
        return -EINVAL;
    struct entry *e = NULL;
    HASH_FIND_STR(inf->entries, key, e);
    if (e) {
        e->gen = inf->gen;
        if (rv && e->rv && strcmp(rv, e->rv) == 0)
            return 0; /* a replay */
        if (set_str(&e->rv, rv) < 0)
            return -ENOMEM;
        json_object_put(e->obj);
        e->obj = inf->keep ? json_object_get(obj) : NULL;
        emit(inf, KINF_UPDATED, obj);
        return 0;
    }
    e = calloc(1, sizeof(*e));
    if (!e || !(e->key = strdup(key)) || set_str(&e->rv, rv) < 0) {
        if (e)
            free(e->key);
        free(e);
        return -ENOMEM;
    }
    e->obj = inf->keep ? json_object_get(obj) : NULL;
    e->gen = inf->gen;
    HASH_ADD_KEYPTR(hh, inf->entries, e->key, strlen(e->key), e);
    emit(inf, KINF_ADDED, obj);
    return 0;
}

/* What a relist knows of an object it no longer sees when objects are not
 * kept: its kind, apiVersion, name, namespace and resourceVersion. */
static struct json_object *stub(struct kinformer *inf, const struct entry *e)
{
    struct json_object *o = json_object_new_object();
    struct json_object *meta = json_object_new_object();
    const char *slash = strchr(e->key, '/');
    bool ok = o && meta && json_object_object_add(o, "metadata", meta) == 0;
    if (!ok)
        json_object_put(meta);
    if (ok && slash) {
        struct json_object *ns =
            json_object_new_string_len(e->key, (int)(slash - e->key));
        ok = ns && json_object_object_add(meta, "namespace", ns) == 0;
    }
    ok = ok && json_object_object_add(
                   meta, "name",
                   json_object_new_string(slash ? slash + 1 : e->key)) == 0;
    if (ok && e->rv)
        json_object_object_add(meta, "resourceVersion",
                               json_object_new_string(e->rv));
    if (ok)
        fill_kind(inf, o);
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static void forget(struct kinformer *inf, struct entry *e,
                   struct json_object *last)
{
    HASH_DEL(inf->entries, e);
    struct json_object *made = last || e->obj ? NULL : stub(inf, e);
    struct json_object *o = last ? last : e->obj ? e->obj : made;
    if (o)
        emit(inf, KINF_DELETED, o);
    else
        inf->st.bad_lines++; /* no memory to say it */
    json_object_put(made);
    entry_free(e);
}

/* Reports deleted every object the list that just ended did not see. */
static void prune(struct kinformer *inf)
{
    struct entry *e, *tmp;
    HASH_ITER(hh, inf->entries, e, tmp)
    {
        if (e->gen != inf->gen)
            forget(inf, e, NULL);
    }
}

/* Percent-encodes a query value (continue tokens are base64). */
static char *query_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = malloc(3 * strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
            (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

static void list_done(void *data, const struct kreq_result *res);
static void watch_done(void *data, const struct kreq_result *res);
static int watch_line(void *data, const char *line, size_t len);

static int list_start(struct kinformer *inf, int64_t delay_ms)
{
    char sep = strchr(inf->path, '?') ? '&' : '?';
    char *esc = inf->cont ? query_escape(inf->cont) : NULL, *path = NULL;
    if (inf->cont && !esc)
        return -ENOMEM;
    int n = esc ? asprintf(&path, "%s%climit=%u&continue=%s", inf->path, sep,
                           inf->page, esc)
                : asprintf(&path, "%s%climit=%u", inf->path, sep, inf->page);
    free(esc);
    if (n < 0)
        return -ENOMEM;
    if (!inf->cont) {
        inf->gen++; /* a new list: what it does not see is gone */
        inf->st.lists++;
    }
    struct kreq_spec spec = {.method = KREQ_GET,
                             .path = path,
                             .retry_unsure = true,
                             .delay_ms = delay_ms};
    int r = krequest_start(inf->q, &spec, list_done, NULL, inf, &inf->req);
    free(path);
    if (r == 0)
        inf->phase = PH_LIST;
    return r;
}

static int watch_start(struct kinformer *inf, int64_t delay_ms)
{
    char sep = strchr(inf->path, '?') ? '&' : '?';
    char *esc = query_escape(inf->rv ? inf->rv : ""), *path = NULL;
    if (!esc)
        return -ENOMEM;
    int n = asprintf(&path,
                     "%s%cwatch=1&resourceVersion=%s&allowWatchBookmarks=true"
                     "&timeoutSeconds=%u",
                     inf->path, sep, esc, inf->watch_s);
    free(esc);
    if (n < 0)
        return -ENOMEM;
    struct kreq_spec spec = {.method = KREQ_GET,
                             .path = path,
                             .stream = true,
                             .delay_ms = delay_ms,
                             .timeout_ms = (long)(inf->watch_s + 30) * 1000};
    inf->watch_lines = 0;
    inf->watch_began_ms = krequests_now_ms(inf->q) + delay_ms;
    inf->relist = inf->watch_failed = false;
    inf->st.watches++;
    int r =
        krequest_start(inf->q, &spec, watch_done, watch_line, inf, &inf->req);
    free(path);
    if (r == 0)
        inf->phase = PH_WATCH;
    return r;
}

/* When starting the next request fails (no memory), nothing else would
 * wake the informer: it is left idle and the failure counted. */
static void next_or_idle(struct kinformer *inf, int r)
{
    if (r < 0) {
        inf->phase = PH_IDLE;
        inf->failures++;
    }
}

static void first_sync(struct kinformer *inf)
{
    if (inf->synced)
        return;
    inf->synced = true;
    if (inf->ops.synced)
        inf->ops.synced(inf->data);
}

/* Fills the kind and apiVersion that list items leave out. */
static void fill_kind(struct kinformer *inf, struct json_object *item)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(item, "kind", &v))
        json_object_object_add(item, "kind", json_object_new_string(inf->kind));
    if (!json_object_object_get_ex(item, "apiVersion", &v))
        json_object_object_add(item, "apiVersion",
                               json_object_new_string(inf->api_version));
}

/* json-c's default depth (32) would fail a whole list page for one deep
 * item, and the informer would never sync; with this one the item goes on
 * to the decoder, which refuses it alone (DOC_MAX_DEPTH). Deeper than this,
 * the page or line is refused: json-c frees a tree recursively, so its
 * depth must stay far below what the stack holds. */
#define PARSE_MAX_DEPTH 1000

static struct json_object *parse(const char *s, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(PARSE_MAX_DEPTH);
    if (!tok)
        return NULL;
    struct json_object *o = json_tokener_parse_ex(tok, s, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* One page of a successful list. 0, or -EINVAL for a body that is no list
 * (then the list starts again later). */
static int list_page(struct kinformer *inf, const struct kreq_result *res)
{
    struct json_object *root = parse(res->body, res->len), *items = NULL,
                       *meta = NULL, *v = NULL;
    if (!root || !json_object_object_get_ex(root, "items", &items) ||
        (!json_object_is_type(items, json_type_array) &&
         !json_object_is_type(items, json_type_null))) {
        json_object_put(root);
        return -EINVAL;
    }
    inf->st.pages++;
    size_t n = items ? json_object_array_length(items) : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *item = json_object_array_get_idx(items, i);
        if (!json_object_is_type(item, json_type_object))
            continue;
        fill_kind(inf, item);
        if (upsert(inf, item) < 0)
            inf->st.bad_lines++;
    }
    const char *cont = NULL, *rv = NULL;
    if (json_object_object_get_ex(root, "metadata", &meta)) {
        if (json_object_object_get_ex(meta, "continue", &v) &&
            json_object_is_type(v, json_type_string))
            cont = json_object_get_string(v);
        if (json_object_object_get_ex(meta, "resourceVersion", &v) &&
            json_object_is_type(v, json_type_string))
            rv = json_object_get_string(v);
    }
    int r = set_str(&inf->cont, cont && *cont ? cont : NULL);
    if (r == 0 && !inf->cont)
        r = set_str(&inf->rv, rv);
    json_object_put(root);
    return r;
}

static void list_done(void *data, const struct kreq_result *res)
{
    struct kinformer *inf = data;
    inf->req = NULL;
    inf->phase = PH_IDLE;
    int r;
    if (res->status == 200 && list_page(inf, res) == 0) {
        if (inf->cont) {
            next_or_idle(inf, list_start(inf, 0));
            return;
        }
        prune(inf);
        inf->failures = 0;
        inf->unserved = false;
        inf->unserved_told = false;
        first_sync(inf);
        r = watch_start(inf, 0);
    } else if (res->status == 410 && inf->cont) {
        /* The continue token expired: list again from the start. */
        set_str(&inf->cont, NULL);
        r = list_start(inf, 0);
    } else if (res->status == 404) {
        set_str(&inf->cont, NULL);
        inf->unserved = true;
        if (!inf->unserved_told && inf->ops.unserved)
            inf->ops.unserved(inf->data, res->status,
                              "the server does not serve this resource");
        inf->unserved_told = true;
        prune(inf); /* what it served before is gone with it */
        first_sync(inf);
        r = list_start(inf, inf->absent_ms);
    } else {
        set_str(&inf->cont, NULL);
        inf->failures++;
        r = list_start(inf, krequests_backoff_ms(inf->q, inf->failures));
    }
    next_or_idle(inf, r);
}

static long status_code(struct json_object *status)
{
    struct json_object *v = NULL;
    if (status && json_object_object_get_ex(status, "code", &v) &&
        json_object_is_type(v, json_type_int))
        return (long)json_object_get_int64(v);
    return 0;
}

static int watch_line(void *data, const char *line, size_t len)
{
    struct kinformer *inf = data;
    struct json_object *root = parse(line, len), *tv = NULL, *obj = NULL;
    inf->watch_lines++;
    const char *type = NULL;
    if (root && json_object_object_get_ex(root, "type", &tv) &&
        json_object_is_type(tv, json_type_string))
        type = json_object_get_string(tv);
    if (!type || !json_object_object_get_ex(root, "object", &obj) ||
        !json_object_is_type(obj, json_type_object)) {
        inf->st.bad_lines++;
        json_object_put(root);
        return 0; /* skipped */
    }
    int stop = 0;
    const char *rv = meta_string(obj, "resourceVersion");
    if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0) {
        fill_kind(inf, obj);
        if (upsert(inf, obj) < 0)
            inf->st.bad_lines++;
    } else if (strcmp(type, "DELETED") == 0) {
        char kb[KEY_MAX];
        const char *key = kinformer_key(obj, kb, sizeof(kb));
        struct entry *e = NULL;
        if (key)
            HASH_FIND_STR(inf->entries, key, e);
        if (e) {
            fill_kind(inf, obj);
            forget(inf, e, obj);
        }
    } else if (strcmp(type, "ERROR") == 0) {
        rv = NULL;
        if (status_code(obj) == 410)
            inf->relist = true;
        else
            inf->watch_failed = true;
        stop = 1;
    } else if (strcmp(type, "BOOKMARK") != 0) {
        inf->st.bad_lines++;
        rv = NULL;
    }
    if (rv && *rv && set_str(&inf->rv, rv) < 0)
        stop = 1, inf->watch_failed = true;
    json_object_put(root);
    return stop;
}

static void watch_done(void *data, const struct kreq_result *res)
{
    struct kinformer *inf = data;
    inf->req = NULL;
    inf->phase = PH_IDLE;
    int r;
    if (inf->relist || res->status == 410) {
        /* Too old a resourceVersion: list again, reporting what went. */
        inf->st.relists++;
        inf->failures = 0;
        r = list_start(inf, 0);
    } else if (res->status == 200 && !res->error && !inf->watch_failed &&
               (inf->watch_lines > 0 ||
                krequests_now_ms(inf->q) - inf->watch_began_ms >=
                    (int64_t)inf->watch_s * 500)) {
        inf->failures = 0; /* the server ended it: resume */
        r = watch_start(inf, 0);
    } else if (res->status == 0 || res->status == 200) {
        /* Broken, or ended at once: resume later from the same point. */
        inf->failures++;
        r = watch_start(inf, krequests_backoff_ms(inf->q, inf->failures));
    } else {
        inf->failures++;
        r = list_start(inf, krequests_backoff_ms(inf->q, inf->failures));
    }
    next_or_idle(inf, r);
}
