/* doc.c - the document tree (doc.h): building a doc for the parsers
 * (doc_build.h) and reading its nodes (doc_map_get(), typed scalars, type
 * names). The parsers are doc_yaml.c (libyaml) and doc_json.c (json-c);
 * doc_load.c reads a file and picks one. */
#include "doc.h"

#include "arena.h"
#include "doc_build.h"
#include "err.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The name of an input in messages. */
static const char *doc_file_name(const char *file)
{
    return file ? file : "<input>";
}

struct doc *doc_new(const char *file, struct err *e)
{
    struct arena *a = arena_new();
    if (!a)
        goto fail;
    struct doc *d = arena_alloc(a, sizeof(*d));
    if (!d)
        goto fail;
    d->arena = a;
    d->file = arena_strdup(a, doc_file_name(file));
    if (!d->file)
        goto fail;
    return d;
fail:
    arena_free(a);
    err_set(e, ENOMEM, "%s: out of memory", doc_file_name(file));
    return NULL;
}

void doc_free(struct doc *d)
{
    if (d)
        arena_free(d->arena); /* d itself lives in the arena */
}

/* The arena cannot grow a block in place, so the array doubles and the old
 * copy is left behind (at most as large as the final one): grow.h's
 * GROW_ARRAY, which reallocs, cannot apply. */
int doc_add(struct doc *d, size_t *cap, struct doc_node *root)
{
    if (d->n_docs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        struct doc_node **nd = arena_calloc(d->arena, ncap, sizeof(*nd));
        if (!nd)
            return -ENOMEM;
        if (d->n_docs)
            memcpy(nd, d->docs, d->n_docs * sizeof(*nd));
        d->docs = nd;
        *cap = ncap;
    }
    d->docs[d->n_docs++] = root;
    return 0;
}

/* ---- reading nodes ----------------------------------------------------- */

const struct doc_node *doc_map_get(const struct doc_node *map, const char *key)
{
    if (!map || map->type != DOC_MAP || !key)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i], key) == 0)
            return map->items[i];
    return NULL;
}

static bool is_plain(const struct doc_node *n)
{
    return n && n->type == DOC_SCALAR && !n->quoted && n->scalar;
}

static bool text_in(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(s, *words) == 0)
            return true;
    return false;
}

bool doc_is_null(const struct doc_node *n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL",
                                        NULL};
    if (!n)
        return true;
    return is_plain(n) && text_in(n->scalar, nulls);
}

int doc_get_int64(const struct doc_node *n, int64_t *ret)
{
    /* Base 10 only, optional sign, no spaces or underscores. A leading
     * zero ("010") is refused rather than read as ten: go-yaml v2, which
     * Kubernetes uses, reads it as octal 8. */
    if (!is_plain(n))
        return -EINVAL;
    const char *s = n->scalar;
    bool neg = false;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
        return -EINVAL;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
    bool range = false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        unsigned dg = (unsigned)(*s - '0');
        if (range || v > (limit - dg) / 10)
            range = true; /* keep scanning: "9e99999" is not a number */
        else
            v = v * 10 + dg;
    }
    if (range)
        return -ERANGE;
    if (neg)
        *ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *ret = (int64_t)v;
    return 0;
}

int doc_get_bool(const struct doc_node *n, bool *ret)
{
    /* Kubernetes reads YAML with sigs.k8s.io/yaml, which resolves plain
     * scalars with go-yaml v2, i.e. YAML 1.1: y/yes/on and n/no/off (each
     * also Capitalised or UPPER) are booleans there too, not just
     * true/false. Accept the same words so that a manifest means the same
     * here as under kubectl. JSON booleans are always "true"/"false". */
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "y",    "Y",    "on",  "On",
                                      "ON",   NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO",    "n",     "N",     "off", "Off",
                                     "OFF",   NULL};
    if (!is_plain(n))
        return -EINVAL;
    if (text_in(n->scalar, yes)) {
        *ret = true;
        return 0;
    }
    if (text_in(n->scalar, no)) {
        *ret = false;
        return 0;
    }
    return -EINVAL;
}

int doc_get_string(const struct doc_node *n, const char **ret)
{
    if (!n || n->type != DOC_SCALAR || !n->scalar || doc_is_null(n))
        return -EINVAL;
    *ret = n->scalar;
    return 0;
}

/* YAML 1.1 floats as go-yaml v2 resolves them:
 * [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? and [-+]?.inf, .nan
 * (each also Capitalised or UPPER). Only used to name a type. */
static bool is_float_text(const char *s)
{
    static const char *const special[] = {".nan", ".NaN", ".NAN", ".inf",
                                          ".Inf", ".INF", NULL};
    if (text_in(s, special))
        return true;
    if (*s == '+' || *s == '-') {
        s++;
        if (text_in(s, special + 3))
            return true;
    }
    size_t digits = 0;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.') {
        size_t frac = 0;
        s++;
        while (*s >= '0' && *s <= '9')
            s++, frac++;
        if (!digits && !frac)
            return false;
    } else if (!digits) {
        return false;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

const char *doc_type_name(const struct doc_node *n)
{
    if (doc_is_null(n))
        return "null";
    switch (n->type) {
    case DOC_MAP:
        return "map";
    case DOC_SEQ:
        return "list";
    case DOC_SCALAR:
        break;
    default:
        return "unknown";
    }
    if (n->quoted || !n->scalar)
        return "string";
    bool b;
    int64_t i;
    if (doc_get_bool(n, &b) == 0)
        return "boolean";
    if (doc_get_int64(n, &i) != -EINVAL || is_float_text(n->scalar))
        return "number";
    return "string";
}
