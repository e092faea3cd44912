/* emu_patch.c - JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
 * the strategic merge patch kubectl sends for built-in kinds: a merge
 * patch whose lists of containers, conditions, ports... merge by their key,
 * with the $patch, $retainKeys, $setElementOrder and
 * $deleteFromPrimitiveList directives. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

static void merge_into(struct json_object *doc, struct json_object *patch,
                       bool strategic);

static const char *merge_key(const char *field)
{
    static const char *const keys[][2] = {
        {"containers", "name"},
        {"initContainers", "name"},
        {"ephemeralContainers", "name"},
        {"conditions", "type"},
        {"env", "name"},
        {"volumes", "name"},
        {"volumeMounts", "mountPath"},
        {"ports", "containerPort"},
        {"imagePullSecrets", "name"},
        {"hostAliases", "ip"},
        {"ownerReferences", "uid"},
        {"readinessGates", "conditionType"},
        {"resourceClaims", "name"},
        {"schedulingGates", "name"},
        {"topologySpreadConstraints", "topologyKey"},
        {"replicatedJobs", "name"},
        {"podSets", "name"},
        {"taints", "key"},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!strcmp(keys[i][0], field))
            return keys[i][1];
    return NULL;
}

static bool same_key(struct json_object *a, struct json_object *b,
                     const char *key)
{
    struct json_object *x, *y;
    if (!json_object_is_type(a, json_type_object) ||
        !json_object_is_type(b, json_type_object) ||
        !json_object_object_get_ex(a, key, &x) ||
        !json_object_object_get_ex(b, key, &y))
        return false;
    return json_object_equal(x, y);
}

static const char *directive(struct json_object *o)
{
    struct json_object *d;
    if (json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, "$patch", &d))
        return json_object_get_string(d);
    return NULL;
}

/* Merges patch list items into the doc list by key; returns a new list. */
static struct json_object *merge_list(struct json_object *dl,
                                      struct json_object *pl, const char *key)
{
    struct json_object *out = json_object_new_array();
    size_t dn = json_object_is_type(dl, json_type_array)
                    ? json_object_array_length(dl)
                    : 0;
    size_t pn = json_object_array_length(pl);
    for (size_t i = 0; i < pn; i++) {
        const char *d = directive(json_object_array_get_idx(pl, i));
        if (d && !strcmp(d, "replace")) {
            /* The whole list is replaced by the other items. */
            for (size_t j = 0; j < pn; j++) {
                struct json_object *it = json_object_array_get_idx(pl, j);
                if (j != i)
                    json_object_array_add(out, json_object_get(it));
            }
            return out;
        }
    }
    for (size_t i = 0; i < dn; i++)
        json_object_array_add(out, emu_copy(json_object_array_get_idx(dl, i)));
    for (size_t i = 0; i < pn; i++) {
        struct json_object *p = json_object_array_get_idx(pl, i);
        const char *d = directive(p);
        size_t j, on = json_object_array_length(out);
        for (j = 0; j < on; j++)
            if (same_key(json_object_array_get_idx(out, j), p, key))
                break;
        if (d && !strcmp(d, "delete")) {
            if (j < on)
                json_object_array_del_idx(out, j, 1);
            continue;
        }
        if (j < on) {
            merge_into(json_object_array_get_idx(out, j), p, true);
        } else {
            struct json_object *n = json_object_new_object();
            merge_into(n, p, true);
            json_object_array_add(out, n);
        }
    }
    return out;
}

static void delete_primitives(struct json_object *doc, const char *field,
                              struct json_object *vals)
{
    struct json_object *l;
    if (!json_object_object_get_ex(doc, field, &l) ||
        !json_object_is_type(l, json_type_array))
        return;
    struct json_object *out = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(l); i++) {
        struct json_object *v = json_object_array_get_idx(l, i);
        bool drop = false;
        for (size_t j = 0; j < json_object_array_length(vals); j++)
            drop |= json_object_equal(v, json_object_array_get_idx(vals, j));
        if (!drop)
            json_object_array_add(out, json_object_get(v));
    }
    json_object_object_add(doc, field, out);
}

static void merge_into(struct json_object *doc, struct json_object *patch,
                       bool strategic)
{
    struct json_object *retain = NULL;
    json_object_object_foreach(patch, k, pv)
    {
        struct json_object *dv = NULL;
        if (strategic && k[0] == '$') {
            if (!strcmp(k, "$retainKeys"))
                retain = pv;
            else if (!strncmp(k, "$deleteFromPrimitiveList/", 25))
                delete_primitives(doc, k + 25, pv);
            continue;
        }
        if (!pv || json_object_is_type(pv, json_type_null)) {
            json_object_object_del(doc, k);
            continue;
        }
        json_object_object_get_ex(doc, k, &dv);
        if (json_object_is_type(pv, json_type_object)) {
            const char *d = strategic ? directive(pv) : NULL;
            if (d && !strcmp(d, "delete")) {
                json_object_object_del(doc, k);
                continue;
            }
            if (d && !strcmp(d, "replace")) {
                struct json_object *n = emu_copy(pv);
                json_object_object_del(n, "$patch");
                json_object_object_add(doc, k, n);
                continue;
            }
            if (!dv || !json_object_is_type(dv, json_type_object)) {
                dv = json_object_new_object();
                json_object_object_add(doc, k, dv);
            }
            merge_into(dv, pv, strategic);
            continue;
        }
        if (strategic && json_object_is_type(pv, json_type_array)) {
            const char *key = merge_key(k);
            if (key) {
                json_object_object_add(doc, k, merge_list(dv, pv, key));
                continue;
            }
            if (!strcmp(k, "finalizers") &&
                json_object_is_type(dv, json_type_array)) {
                struct json_object *out = emu_copy(dv);
                for (size_t i = 0; i < json_object_array_length(pv); i++) {
                    struct json_object *v = json_object_array_get_idx(pv, i);
                    bool have = false;
                    for (size_t j = 0; j < json_object_array_length(out); j++)
                        have |= json_object_equal(
                            v, json_object_array_get_idx(out, j));
                    if (!have)
                        json_object_array_add(out, json_object_get(v));
                }
                json_object_object_add(doc, k, out);
                continue;
            }
        }
        json_object_object_add(doc, k, emu_copy(pv));
    }
    if (retain && json_object_is_type(retain, json_type_array)) {
        struct json_object *keep = json_object_new_object();
        json_object_object_foreach(doc, dk, dv2)
        {
            bool ok = false;
            for (size_t i = 0; i < json_object_array_length(retain); i++)
                ok |= !strcmp(json_object_get_string(
                                  json_object_array_get_idx(retain, i)),
                              dk);
            if (ok)
                json_object_object_add(keep, dk, json_object_get(dv2));
        }
        /* Rebuild doc with only the retained keys. */
        struct json_object *drop = json_object_new_array();
        json_object_object_foreach(doc, dk2, unused)
        {
            (void)unused;
            if (!json_object_object_get_ex(keep, dk2, NULL))
                json_object_array_add(drop, json_object_new_string(dk2));
        }
        for (size_t i = 0; i < json_object_array_length(drop); i++)
            json_object_object_del(
                doc,
                json_object_get_string(json_object_array_get_idx(drop, i)));
        json_object_put(drop);
        json_object_put(keep);
    }
}

int emu_patch_merge(struct json_object *doc, struct json_object *patch,
                    struct json_object **ret_out)
{
    if (!json_object_is_type(patch, json_type_object))
        return -EINVAL;
    struct json_object *out = emu_copy(doc);
    merge_into(out, patch, false);
    *ret_out = out;
    return 0;
}

int emu_patch_strategic(struct json_object *doc, struct json_object *patch,
                        struct json_object **ret_out)
{
    if (!json_object_is_type(patch, json_type_object))
        return -EINVAL;
    struct json_object *out = emu_copy(doc);
    merge_into(out, patch, true);
    *ret_out = out;
    return 0;
}

/* ---- RFC 6902 ---------------------------------------------------------- */

/* Resolves pointer p to (parent, last token); the token unescaped. */
static int pointer_parent(struct json_object *doc, const char *p,
                          struct json_object **ret_parent, char *tok,
                          size_t size)
{
    struct json_object *cur = doc;
    if (*p != '/')
        return -EINVAL;
    for (;;) {
        const char *s = p + 1, *e = strchr(s, '/');
        size_t n = 0;
        if (!e)
            e = s + strlen(s);
        for (const char *c = s; c < e && n + 1 < size; c++) {
            if (*c == '~' && c + 1 < e) {
                tok[n++] = c[1] == '1' ? '/' : '~';
                c++;
            } else {
                tok[n++] = *c;
            }
        }
        tok[n] = '\0';
        if (!*e) {
            *ret_parent = cur;
            return 0;
        }
        if (json_object_is_type(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, tok, &cur))
                return -ENOENT;
        } else if (json_object_is_type(cur, json_type_array)) {
            char *end;
            long i = strtol(tok, &end, 10);
            if (*end || i < 0 || (size_t)i >= json_object_array_length(cur))
                return -ENOENT;
            cur = json_object_array_get_idx(cur, (size_t)i);
        } else {
            return -ENOENT;
        }
        p = e;
    }
}

static struct json_object *pointer_get(struct json_object *doc, const char *p)
{
    struct json_object *parent, *v = NULL;
    char tok[256];
    if (!*p)
        return doc;
    if (pointer_parent(doc, p, &parent, tok, sizeof(tok)) < 0)
        return NULL;
    if (json_object_is_type(parent, json_type_object)) {
        json_object_object_get_ex(parent, tok, &v);
    } else if (json_object_is_type(parent, json_type_array)) {
        char *end;
        long i = strtol(tok, &end, 10);
        if (!*end && i >= 0 && (size_t)i < json_object_array_length(parent))
            v = json_object_array_get_idx(parent, (size_t)i);
    }
    return v;
}

/* Takes v. */
static int pointer_add(struct json_object *doc, const char *p,
                       struct json_object *v, bool replace)
{
    struct json_object *parent;
    char tok[256];
    if (pointer_parent(doc, p, &parent, tok, sizeof(tok)) < 0)
        goto fail;
    if (json_object_is_type(parent, json_type_object)) {
        if (replace && !json_object_object_get_ex(parent, tok, NULL))
            goto fail;
        json_object_object_add(parent, tok, v);
        return 0;
    }
    if (json_object_is_type(parent, json_type_array)) {
        size_t n = json_object_array_length(parent);
        char *end;
        long i = !strcmp(tok, "-") ? (long)n : strtol(tok, &end, 10);
        if (strcmp(tok, "-") && *end)
            goto fail;
        if (i < 0 || (size_t)i > n || (replace && (size_t)i == n))
            goto fail;
        if (replace) {
            json_object_array_put_idx(parent, (size_t)i, v);
            return 0;
        }
        /* Insert: append, then rotate into place. */
        json_object_array_add(parent, v);
        for (size_t j = n; j > (size_t)i; j--) {
            struct json_object *a =
                json_object_get(json_object_array_get_idx(parent, j - 1));
            struct json_object *b =
                json_object_get(json_object_array_get_idx(parent, j));
            json_object_array_put_idx(parent, j - 1, b);
            json_object_array_put_idx(parent, j, a);
        }
        return 0;
    }
fail:
    json_object_put(v);
    return -EINVAL;
}

static int pointer_remove(struct json_object *doc, const char *p)
{
    struct json_object *parent;
    char tok[256];
    if (pointer_parent(doc, p, &parent, tok, sizeof(tok)) < 0)
        return -EINVAL;
    if (json_object_is_type(parent, json_type_object)) {
        if (!json_object_object_get_ex(parent, tok, NULL))
            return -EINVAL;
        json_object_object_del(parent, tok);
        return 0;
    }
    if (json_object_is_type(parent, json_type_array)) {
        char *end;
        long i = strtol(tok, &end, 10);
        if (*end || i < 0 || (size_t)i >= json_object_array_length(parent))
            return -EINVAL;
        json_object_array_del_idx(parent, (size_t)i, 1);
        return 0;
    }
    return -EINVAL;
}

int emu_patch_json(struct json_object *doc, struct json_object *patch,
                   struct json_object **ret_out, struct emu_err *err)
{
    struct json_object *out;
    if (!json_object_is_type(patch, json_type_array)) {
        emu_err_set(err, 400, "BadRequest", -1, "",
                    "json: cannot unmarshal object into Go value of type "
                    "jsonpatch.Patch");
        return -EINVAL;
    }
    out = emu_copy(doc);
    for (size_t i = 0; i < json_object_array_length(patch); i++) {
        struct json_object *op = json_object_array_get_idx(patch, i);
        const char *o = emu_path_str(op, "op"),
                   *path = emu_path_str(op, "path");
        const char *from = emu_path_str(op, "from");
        struct json_object *val = emu_path(op, "value"), *src;
        int r = -EINVAL;
        if (!o || !path)
            goto bad;
        if (!strcmp(o, "add") && val)
            r = pointer_add(out, path, emu_copy(val), false);
        else if (!strcmp(o, "replace") && val)
            r = pointer_add(out, path, emu_copy(val), true);
        else if (!strcmp(o, "remove"))
            r = pointer_remove(out, path);
        else if (!strcmp(o, "test"))
            r = val && (src = pointer_get(out, path)) &&
                        json_object_equal(src, val)
                    ? 0
                    : -EINVAL;
        else if ((!strcmp(o, "copy") || !strcmp(o, "move")) && from &&
                 (src = pointer_get(out, from))) {
            src = emu_copy(src);
            r = 0;
            if (!strcmp(o, "move"))
                r = pointer_remove(out, from);
            if (r == 0)
                r = pointer_add(out, path, src, false);
            else
                json_object_put(src);
        }
        if (r < 0)
            goto bad;
        continue;
    bad:
        emu_err_set(err, 422, "Invalid", -1, "",
                    "the server rejected our request due to an error in our "
                    "request: json patch operation %zu (%s %s) failed",
                    i, o ? o : "?", path ? path : "?");
        json_object_put(out);
        return -EINVAL;
    }
    *ret_out = out;
    return 0;
}
