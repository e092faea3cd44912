/* decode_field.c - the lowest layer of decoding: the context, the field
 * path, errors that name file, line, object and field, and the readers of
 * one field (string, integer, quantity, map, list, enum, ...) that every
 * decoder above uses (see decode_field.h). Nothing here knows a kind. */
#include "decode_field.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "quantity.h"
#include "suggest.h"

/* Appends to the path (cut at its end) and returns its previous length. */
static size_t path_append(struct decode_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static size_t path_append(struct decode_ctx *c, const char *fmt, ...)
{
    size_t mark = c->path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->path + c->path_len, sizeof(c->path) - c->path_len, fmt,
                      ap);
    va_end(ap);
    if (n > 0)
        c->path_len += (size_t)n;
    if (c->path_len >= sizeof(c->path))
        c->path_len = sizeof(c->path) - 1;
    return mark;
}

size_t decode_path_push(struct decode_ctx *c, const char *key)
{
    return path_append(c, "%s%s", c->path_len ? "." : "", key);
}

size_t decode_path_push_index(struct decode_ctx *c, size_t i)
{
    return path_append(c, "[%zu]", i);
}

void decode_path_pop(struct decode_ctx *c, size_t mark)
{
    c->path_len = mark;
    c->path[mark] = '\0';
}

/* The line a message about n (or its child `field`) points at: the key's. */
static unsigned node_line(const struct doc_node *n, const char *field)
{
    const struct doc_node *v = field ? doc_map_get(n, field) : NULL;
    if (v && (v->key_line || v->line))
        return v->key_line ? v->key_line : v->line;
    if (!n)
        return 0;
    return n->key_line ? n->key_line : n->line;
}

/* Formats "file:line: Kind ns/name: path: what" and records it. */
static int decode_vreport(struct decode_ctx *c, enum diag_level level,
                          const struct doc_node *n, const char *field,
                          const char *fmt, va_list ap)
{
    char what[ERR_MSG_MAX], where[64] = "", who[300] = "", path[300] = "";
    char msg[ERR_MSG_MAX + 700];
    vsnprintf(what, sizeof(what), fmt, ap);
    unsigned line = node_line(n, field);
    if (line)
        snprintf(where, sizeof(where), ":%u", line);
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
    snprintf(msg, sizeof(msg), "%s%s:%s%s %s", c->file, where, who, path,
             what);
    if (c->diags && diag_list_add(c->diags, level, line, msg) < 0)
        c->oom = true;
    if (level != DIAG_ERROR)
        return 0;
    if (c->n_errors++ == 0)
        err_set(c->err, EINVAL, "%s", msg);
    return -EINVAL;
}

static int decode_vfail(struct decode_ctx *c, const struct doc_node *n,
                        const char *field, const char *fmt, va_list ap)
{
    return decode_vreport(c, DIAG_ERROR, n, field, fmt, ap);
}

int decode_warn_at(struct decode_ctx *c, const struct doc_node *n,
                   const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = decode_vreport(c, c->warn_is_error ? DIAG_ERROR : DIAG_WARNING,
                           n, field, fmt, ap);
    va_end(ap);
    return r;
}

int decode_note(struct decode_ctx *c, const struct doc_node *n,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = decode_vreport(c, DIAG_NOTE, n, NULL, fmt, ap);
    va_end(ap);
    return r;
}

int decode_check_known(struct decode_ctx *c, const struct doc_node *n,
                       const struct decode_known *known)
{
    const char *names[128];
    size_t n_names = 0;
    int r = 0;
    if (!c->check_known || !n || n->type != DOC_MAP)
        return 0;
    for (size_t k = 0; known[k].name && n_names < 128; k++)
        if (!known[k].unsupported)
            names[n_names++] = known[k].name;
    for (size_t i = 0; i < n->n; i++) {
        const char *key = n->keys[i];
        size_t k = 0;
        while (known[k].name && strcmp(known[k].name, key) != 0)
            k++;
        if (known[k].name && !known[k].unsupported)
            continue;
        const struct doc_node *v = n->items[i];
        int r2 = 0;
        if (known[k].name) {
            if (!doc_is_null(v))
                r2 = decode_warn_at(c, n, key, "unsupported: %s",
                                    known[k].unsupported);
        } else {
            const char *near = suggest_closest(key, names, n_names);
            if (near)
                r2 = decode_warn_at(c, n, key,
                                    "unknown field (did you mean \"%s\"?)",
                                    near);
            else
                r2 = decode_warn_at(c, n, key, "unknown field");
        }
        r = decode_join(r, r2);
    }
    return r;
}

int decode_fail(struct decode_ctx *c, const struct doc_node *n, const char *fmt,
                ...)
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

/* A map or list field: absent or null leaves *ret, another type fails. */
static int field_of_type(struct decode_ctx *c, const struct doc_node *parent,
                         const char *key, enum doc_type t, const char *name,
                         const struct doc_node **ret)
{
    const struct doc_node *v = field_get(parent, key);
    if (!v)
        return 0;
    int r = want_type(c, v, key, t, name);
    if (r == 0)
        *ret = v;
    return r;
}

int decode_field_map(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret)
{
    return field_of_type(c, parent, key, DOC_MAP, "map", ret);
}

int decode_field_map_required(struct decode_ctx *c,
                              const struct doc_node *parent, const char *key,
                              const struct doc_node **ret)
{
    const struct doc_node *v = NULL;
    int r = decode_field_map(c, parent, key, &v);
    if (r == 0 && !v)
        r = decode_fail_at(c, parent, key, "required");
    if (r == 0)
        *ret = v;
    return r;
}

int decode_field_seq(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret)
{
    return field_of_type(c, parent, key, DOC_SEQ, "list", ret);
}

int decode_want_map(struct decode_ctx *c, const struct doc_node *n)
{
    if (n->type == DOC_MAP)
        return 0;
    return decode_fail(c, n, "expected a map, got a %s", doc_type_name(n));
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
        return decode_fail_at(c, v, key, "integer %s out of range", v->scalar);
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
            r = decode_fail_at(c, v, m->keys[i], "expected a string, got a %s",
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
                          "unsupported value \"%s\" (one of: %s)", s, allowed);
}
