/* emu_select.c - label selectors (=, ==, !=, in, notin, exists, !exists)
 * and field selectors (=, ==, != on any dotted path, as the emulator
 * serves every field the real server indexes and more). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

enum op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS };

struct req {
    bool field; /* a field selector's term */
    enum op op;
    char *key;
    char **vals;
    size_t nvals;
};

struct emu_sel {
    struct req *v;
    size_t n;
};

static void req_free(struct req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->nvals; i++)
        free(r->vals[i]);
    free(r->vals);
}

void emu_sel_free(struct emu_sel *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        req_free(&s->v[i]);
    free(s->v);
    free(s);
}

static char *trimdup(const char *a, const char *b)
{
    while (a < b && isspace((unsigned char)*a))
        a++;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    char *s = malloc((size_t)(b - a) + 1);
    if (s) {
        memcpy(s, a, (size_t)(b - a));
        s[b - a] = '\0';
    }
    return s;
}

static int add_val(struct req *r, char *v)
{
    char **n = realloc(r->vals, (r->nvals + 1) * sizeof(*n));
    if (!n || !v) {
        free(v);
        return -ENOMEM;
    }
    r->vals = n;
    r->vals[r->nvals++] = v;
    return 0;
}

static int add_req(struct emu_sel *s, struct req *r)
{
    struct req *n = realloc(s->v, (s->n + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    s->v = n;
    s->v[s->n++] = *r;
    return 0;
}

/* One term, [a, b): "k=v", "k!=v", "k in (a,b)", "k notin (a)", "k",
 * "!k". */
static int parse_term(struct emu_sel *s, const char *a, const char *b,
                      bool field, struct emu_err *err)
{
    struct req r = {.field = field};
    const char *p;
    char *t = trimdup(a, b);
    if (!t)
        return -ENOMEM;
    if (!*t) {
        free(t);
        return 0;
    }
    if ((p = strstr(t, "!="))) {
        r.op = OP_NE;
        r.key = trimdup(t, p);
        add_val(&r, trimdup(p + 2, t + strlen(t)));
    } else if ((p = strchr(t, '='))) {
        r.op = OP_EQ;
        r.key = trimdup(t, p);
        p += p[1] == '=' ? 2 : 1;
        add_val(&r, trimdup(p, t + strlen(t)));
    } else if (!field && (p = strchr(t, '('))) {
        const char *sp = t;
        while (*sp && !isspace((unsigned char)*sp))
            sp++;
        char *opw = trimdup(sp, p);
        r.key = trimdup(t, sp);
        if (opw && !strcmp(opw, "in"))
            r.op = OP_IN;
        else if (opw && !strcmp(opw, "notin"))
            r.op = OP_NOTIN;
        else {
            free(opw);
            goto bad;
        }
        free(opw);
        const char *end = strchr(p, ')');
        if (!end)
            goto bad;
        for (const char *v = p + 1; v < end;) {
            const char *c = memchr(v, ',', (size_t)(end - v));
            if (!c)
                c = end;
            add_val(&r, trimdup(v, c));
            v = c + 1;
        }
    } else if (!field && t[0] == '!') {
        r.op = OP_NOTEXISTS;
        r.key = trimdup(t + 1, t + strlen(t));
    } else if (!field) {
        r.op = OP_EXISTS;
        r.key = trimdup(t, t + strlen(t));
    } else {
        goto bad;
    }
    if (!r.key || !*r.key)
        goto bad;
    free(t);
    return add_req(s, &r);
bad:
    emu_err_set(err, 400, "BadRequest", -1, "",
                "unable to parse requirement: invalid %s selector: '%s'",
                field ? "field" : "label", t);
    free(t);
    req_free(&r);
    return -EINVAL;
}

/* Splits at commas outside parentheses. */
static int parse(struct emu_sel *s, const char *str, bool field,
                 struct emu_err *err)
{
    int depth = 0, r;
    const char *start = str;
    for (const char *p = str;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if (*p == '\0' || (*p == ',' && depth == 0)) {
            if ((r = parse_term(s, start, p, field, err)) < 0)
                return r;
            if (!*p)
                return 0;
            start = p + 1;
        }
    }
}

int emu_sel_parse(const char *labels, const char *fields,
                  struct emu_sel **ret_sel, struct emu_err *err)
{
    struct emu_sel *s = calloc(1, sizeof(*s));
    int r = 0;
    if (!s)
        return -ENOMEM;
    if (labels && (r = parse(s, labels, false, err)) < 0)
        goto fail;
    if (fields && (r = parse(s, fields, true, err)) < 0)
        goto fail;
    *ret_sel = s;
    return 0;
fail:
    emu_sel_free(s);
    return r;
}

static const char *field_value(struct json_object *o, const char *path,
                               char *buf, size_t size)
{
    struct json_object *v = emu_path(o, path);
    if (!v || json_object_is_type(v, json_type_null))
        return "";
    snprintf(buf, size, "%s", json_object_get_string(v));
    return buf;
}

static bool in_vals(const struct req *r, const char *v)
{
    for (size_t i = 0; i < r->nvals; i++)
        if (!strcmp(r->vals[i], v))
            return true;
    return false;
}

bool emu_sel_match(const struct emu_sel *s, struct json_object *o)
{
    struct json_object *labels = emu_path(o, "metadata.labels");
    char buf[512];
    for (size_t i = 0; s && i < s->n; i++) {
        const struct req *r = &s->v[i];
        const char *v = NULL;
        if (r->field) {
            v = field_value(o, r->key, buf, sizeof(buf));
        } else {
            struct json_object *lv = NULL;
            if (labels && json_object_object_get_ex(labels, r->key, &lv))
                v = json_object_get_string(lv);
        }
        switch (r->op) {
        case OP_EQ:
            if (!v || strcmp(v, r->vals[0]))
                return false;
            break;
        case OP_NE:
            if (v && !strcmp(v, r->vals[0]))
                return false;
            break;
        case OP_IN:
            if (!v || !in_vals(r, v))
                return false;
            break;
        case OP_NOTIN:
            if (v && in_vals(r, v))
                return false;
            break;
        case OP_EXISTS:
            if (!v)
                return false;
            break;
        case OP_NOTEXISTS:
            if (v)
                return false;
            break;
        }
    }
    return true;
}
