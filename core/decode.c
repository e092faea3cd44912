/* decode.c - decode_object() and the field readers the kind decoders share.
 *
 * A document is matched to a kind by apiVersion group and kind; metadata is
 * decoded first so that every later error can name the object. */
#include "decode.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "quantity.h"

struct kind_entry {
    const char *kind;
    const char *group; /* "" = core */
    enum object_kind id;
    bool strict;
    int (*decode)(struct decode_ctx *, const struct doc_node *,
                  struct object *);
};

static const struct kind_entry kinds[] = {
    {"Namespace", "", OBJ_NAMESPACE, false, decode_namespace},
    {"Node", "", OBJ_NODE, false, decode_node},
    {"Pod", "", OBJ_POD, false, decode_pod},
    {"Job", "batch", OBJ_JOB, false, decode_job},
    {"JobSet", "jobset.x-k8s.io", OBJ_JOBSET, false, decode_jobset},
    {"PriorityClass", "scheduling.k8s.io", OBJ_PRIORITY_CLASS, false,
     decode_priority_class},
    {"ResourceFlavor", "kueue.x-k8s.io", OBJ_RESOURCE_FLAVOR, true,
     decode_resource_flavor},
    {"ClusterQueue", "kueue.x-k8s.io", OBJ_CLUSTER_QUEUE, true,
     decode_cluster_queue},
    {"LocalQueue", "kueue.x-k8s.io", OBJ_LOCAL_QUEUE, true,
     decode_local_queue},
    {"Cohort", "kueue.x-k8s.io", OBJ_COHORT, true, decode_cohort},
    {"WorkloadPriorityClass", "kueue.x-k8s.io", OBJ_WORKLOAD_PRIORITY_CLASS,
     true, decode_workload_priority_class},
    {"Topology", "kueue.x-k8s.io", OBJ_TOPOLOGY, true, decode_topology},
};

const char *object_kind_name(enum object_kind k)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (kinds[i].id == k)
            return kinds[i].kind;
    return "Unknown";
}

bool object_kind_namespaced(enum object_kind k)
{
    return k == OBJ_POD || k == OBJ_JOB || k == OBJ_JOBSET ||
           k == OBJ_LOCAL_QUEUE;
}

size_t decode_path_push(struct decode_ctx *c, const char *key)
{
    size_t mark = c->path_len;
    int n = snprintf(c->path + c->path_len, sizeof(c->path) - c->path_len,
                     "%s%s", c->path_len ? "." : "", key);
    if (n > 0)
        c->path_len += (size_t)n;
    if (c->path_len >= sizeof(c->path))
        c->path_len = sizeof(c->path) - 1;
    return mark;
}

size_t decode_path_push_index(struct decode_ctx *c, size_t i)
{
    size_t mark = c->path_len;
    int n = snprintf(c->path + c->path_len, sizeof(c->path) - c->path_len,
                     "[%zu]", i);
    if (n > 0)
        c->path_len += (size_t)n;
    if (c->path_len >= sizeof(c->path))
        c->path_len = sizeof(c->path) - 1;
    return mark;
}

void decode_path_pop(struct decode_ctx *c, size_t mark)
{
    c->path_len = mark;
    c->path[mark] = '\0';
}

static int decode_vfail(struct decode_ctx *c, const struct doc_node *n,
                        const char *field, const char *fmt, va_list ap)
{
    char what[ERR_MSG_MAX], where[64] = "", who[300] = "", path[300] = "";
    vsnprintf(what, sizeof(what), fmt, ap);
    if (n && n->line)
        snprintf(where, sizeof(where), ":%u", n->line);
    const struct object_meta *m = c->meta;
    if (c->kind && m && m->name && m->namespace_)
        snprintf(who, sizeof(who), " %s %s/%s:", c->kind, m->namespace_,
                 m->name);
    else if (c->kind && m && m->name)
        snprintf(who, sizeof(who), " %s %s:", c->kind, m->name);
    else if (c->kind)
        snprintf(who, sizeof(who), " %s:", c->kind);
    if (c->path_len || field)
        snprintf(path, sizeof(path), " %s%s%s:", c->path,
                 field && c->path_len ? "." : "", field ? field : "");
    return err_set(c->err, EINVAL, "%s%s:%s%s %s", c->file, where, who, path,
                   what);
}

int decode_fail(struct decode_ctx *c, const struct doc_node *n,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = decode_vfail(c, n, NULL, fmt, ap);
    va_end(ap);
    return r;
}

int decode_fail_at(struct decode_ctx *c, const struct doc_node *n,
                   const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = decode_vfail(c, n, field, fmt, ap);
    va_end(ap);
    return r;
}

/* Looks up key; NULL for absent or null. Fails when parent is not a map. */
static const struct doc_node *field_get(const struct doc_node *parent,
                                        const char *key)
{
    const struct doc_node *v = doc_map_get(parent, key);
    return doc_is_null(v) ? NULL : v;
}

static int want_type(struct decode_ctx *c, const struct doc_node *v,
                     const char *key, enum doc_type t, const char *name)
{
    if (v->type == t)
        return 0;
    return decode_fail_at(c, v, key, "expected a %s, got a %s", name,
                          doc_type_name(v));
}

int decode_field_map(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    int r = want_type(c, v, key, DOC_MAP, "map");
    if (r == 0)
        *ret = v;
    return r;
}

int decode_field_seq(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    int r = want_type(c, v, key, DOC_SEQ, "list");
    if (r == 0)
        *ret = v;
    return r;
}

int decode_field_string(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, const char **ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    const char *s;
    if (v->type != DOC_SCALAR || doc_get_string(v, &s) < 0)
        return decode_fail_at(c, v, key, "expected a string, got a %s",
                              doc_type_name(v));
    /* The tree lives in the document's arena, which is freed before the
     * object: copy. */
    *ret = arena_strdup(c->arena, s);
    return *ret ? 0 : -ENOMEM;
}

int decode_field_bool(struct decode_ctx *c, const struct doc_node *parent,
                      const char *key, bool *ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    if (doc_get_bool(v, ret) < 0)
        return decode_fail_at(c, v, key, "expected a boolean, got a %s",
                              doc_type_name(v));
    return 0;
}

int decode_field_int64(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, bool *ret_present, int64_t *ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    int r = doc_get_int64(v, ret);
    if (r == -ERANGE)
        return decode_fail_at(c, v, key, "integer %s out of range",
                              v->scalar);
    if (r < 0)
        return decode_fail_at(c, v, key, "expected an integer, got a %s",
                              doc_type_name(v));
    if (ret_present)
        *ret_present = true;
    return 0;
}

int decode_field_int32(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, bool *ret_present, int32_t *ret)
{
    int64_t v = 0;
    bool present = false;
    int r = decode_field_int64(c, parent, key, &present, &v);
    if (r < 0 || !present)
        return r;
    if (v < INT32_MIN || v > INT32_MAX)
        return decode_fail_at(c, doc_map_get(parent, key), key,
                              "%lld does not fit a 32-bit integer",
                              (long long)v);
    *ret = (int32_t)v;
    if (ret_present)
        *ret_present = true;
    return 0;
}

static int quantity_node(struct decode_ctx *c, const struct doc_node *v,
                         const char *key, int64_t *ret)
{
    const char *s, *why = NULL;
    struct quantity q;
    if (v->type != DOC_SCALAR || doc_get_string(v, &s) < 0)
        return decode_fail_at(c, v, key, "expected a quantity, got a %s",
                              doc_type_name(v));
    int r = quantity_parse(s, &q, &why);
    if (r < 0)
        return decode_fail_at(c, v, key, "invalid quantity \"%s\": %s", s,
                              why ? why : "malformed");
    *ret = q.milli;
    return 0;
}

int decode_field_quantity(struct decode_ctx *c, const struct doc_node *parent,
                          const char *key, bool *ret_present, int64_t *ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    int r = quantity_node(c, v, key, ret);
    if (r == 0 && ret_present)
        *ret_present = true;
    return r;
}

int decode_field_strmap(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, struct strmap *ret)
{
    const struct doc_node *m = NULL;
    int r = decode_field_map(c, parent, key, &m);
    if (r < 0 || !m)
        return r;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < m->n && r == 0; i++) {
        const struct doc_node *v = m->items[i];
        const char *s = "";
        if (!doc_is_null(v) &&
            (v->type != DOC_SCALAR || doc_get_string(v, &s) < 0)) {
            r = decode_fail_at(c, v, m->keys[i],
                               "expected a string, got a %s",
                               doc_type_name(v));
            break;
        }
        const char *k = arena_strdup(c->arena, m->keys[i]);
        const char *val = arena_strdup(c->arena, s);
        r = k && val ? strmap_set(ret, c->arena, k, val) : -ENOMEM;
    }
    decode_path_pop(c, mark);
    return r;
}

int decode_field_strings(struct decode_ctx *c, const struct doc_node *parent,
                         const char *key, size_t *ret_n, const char ***ret)
{
    const struct doc_node *s = NULL;
    int r = decode_field_seq(c, parent, key, &s);
    if (r < 0 || !s)
        return r;
    const char **out = arena_calloc(c->arena, s->n ? s->n : 1, sizeof(*out));
    if (!out)
        return -ENOMEM;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < s->n; i++) {
        const char *v;
        if (s->items[i]->type != DOC_SCALAR ||
            doc_get_string(s->items[i], &v) < 0) {
            decode_path_push_index(c, i);
            r = decode_fail(c, s->items[i], "expected a string, got a %s",
                            doc_type_name(s->items[i]));
            break;
        }
        out[i] = arena_strdup(c->arena, v);
        if (!out[i]) {
            r = -ENOMEM;
            break;
        }
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = s->n;
        *ret = out;
    }
    return r;
}

int decode_field_resources(struct decode_ctx *c, const struct doc_node *parent,
                           const char *key, struct resource_list *ret)
{
    const struct doc_node *m = NULL;
    int r = decode_field_map(c, parent, key, &m);
    if (r < 0 || !m)
        return r;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < m->n && r == 0; i++) {
        int64_t milli = 0;
        if (doc_is_null(m->items[i]))
            r = decode_fail_at(c, m->items[i], m->keys[i],
                               "expected a quantity, got null");
        else
            r = quantity_node(c, m->items[i], m->keys[i], &milli);
        /* Kubernetes rejects negative requests, limits, overhead and node
         * capacity; the scheduler would count them as free room. */
        if (r == 0 && milli < 0)
            r = decode_fail_at(c, m->items[i], m->keys[i],
                               "must be non-negative, got \"%s\"",
                               m->items[i]->scalar);
        if (r == 0)
            r = resource_list_set(ret, m->keys[i], milli);
    }
    decode_path_pop(c, mark);
    return r;
}

int decode_field_enum(struct decode_ctx *c, const struct doc_node *parent,
                      const char *key, const char *const *names, int unknown,
                      int *ret)
{
    const char *s = NULL;
    int r = decode_field_string(c, parent, key, &s);
    if (r < 0 || !s)
        return r;
    for (int i = 0; names[i]; i++) {
        if (strcmp(names[i], s) == 0) {
            *ret = i;
            return 0;
        }
    }
    if (!c->strict) {
        *ret = unknown;
        return 0;
    }
    char allowed[256] = "";
    size_t len = 0;
    for (int i = 0; names[i] && len < sizeof(allowed); i++) {
        int n = snprintf(allowed + len, sizeof(allowed) - len, "%s%s",
                         i ? ", " : "", names[i]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return decode_fail_at(c, doc_map_get(parent, key), key,
                          "unsupported value \"%s\" (one of: %s)", s,
                          allowed);
}

/* Splits "group/version" and returns the group ("" for "v1"). */
static const char *api_group(const char *api_version, char *buf, size_t size)
{
    const char *slash = strchr(api_version, '/');
    if (!slash)
        return "";
    size_t n = (size_t)(slash - api_version);
    if (n >= size)
        n = size - 1;
    memcpy(buf, api_version, n);
    buf[n] = '\0';
    return buf;
}

int decode_object(const struct doc_node *doc, const char *file,
                  struct object **ret, struct err *e)
{
    struct decode_ctx c = {.file = file, .err = e};
    const char *kind = NULL, *api_version = NULL;
    char group_buf[128];
    int r;

    if (!doc || doc->type != DOC_MAP)
        return decode_fail(&c, doc, "expected a map (a Kubernetes object)");
    if (doc_get_string(doc_map_get(doc, "kind"), &kind) < 0)
        return decode_fail_at(&c, doc, "kind",
                              "missing: not a Kubernetes object");
    c.kind = kind;
    if (doc_get_string(doc_map_get(doc, "apiVersion"), &api_version) < 0)
        return decode_fail_at(&c, doc, "apiVersion", "missing");

    const char *group = api_group(api_version, group_buf, sizeof(group_buf));
    const struct kind_entry *k = NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(kinds[i].kind, kind) == 0 &&
            strcmp(kinds[i].group, group) == 0)
            k = &kinds[i];
    if (!k)
        return DECODE_IGNORED;

    struct object *o = calloc(1, sizeof(*o));
    if (!o)
        return -ENOMEM;
    o->arena = arena_new();
    if (!o->arena) {
        free(o);
        return -ENOMEM;
    }
    o->kind = k->id;
    o->line = doc->line;
    o->file = arena_strdup(o->arena, file);
    o->api_version = arena_strdup(o->arena, api_version);
    c.arena = o->arena;
    c.strict = k->strict;
    c.kind = k->kind;

    const struct doc_node *meta = NULL;
    r = decode_field_map(&c, doc, "metadata", &meta);
    if (r == 0 && !meta)
        r = decode_fail_at(&c, doc, "metadata", "missing");
    if (r == 0)
        r = decode_meta(&c, meta, &o->meta);
    if (r == 0)
        r = decode_check_object_names(&c, meta, o);
    if (r == 0) {
        c.meta = &o->meta;
        if (object_kind_namespaced(k->id) && !o->meta.namespace_)
            o->meta.namespace_ = "default";
        if (!object_kind_namespaced(k->id))
            o->meta.namespace_ = NULL;
        r = k->decode(&c, doc, o);
    }
    if (r < 0) {
        object_free(o);
        return r == -ENOMEM ? err_set(e, ENOMEM, "%s: out of memory", file)
                            : r;
    }
    *ret = o;
    return 0;
}

void object_free(struct object *o)
{
    if (!o)
        return;
    switch (o->kind) {
    case OBJ_POD:
        pod_spec_release(&o->u.pod.spec);
        break;
    case OBJ_NODE:
        resource_list_release(&o->u.node.capacity);
        resource_list_release(&o->u.node.allocatable);
        break;
    case OBJ_JOB:
        pod_spec_release(&o->u.job.spec.template.spec);
        break;
    case OBJ_JOBSET:
        for (size_t i = 0; i < o->u.jobset.n_replicated_jobs; i++)
            pod_spec_release(
                &o->u.jobset.replicated_jobs[i].spec.template.spec);
        break;
    default:
        break;
    }
    arena_free(o->arena);
    free(o);
}

const char *object_key(const struct object *o, char *buf, size_t size)
{
    if (o->meta.namespace_)
        snprintf(buf, size, "%s/%s", o->meta.namespace_, o->meta.name);
    else
        snprintf(buf, size, "%s", o->meta.name);
    return buf;
}
