/* doc_json.c - doc_parse_json() (doc.h): one JSON value parsed by
 * json-c's tokener and its tree copied into the doc's arena; what json-c
 * decides, and what is done about it, is below. */
#include "doc.h"

#include "arena.h"
#include "doc_build.h"
#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

/* json-c parses the text (strict mode, UTF-8 checked, at most
 * DOC_MAX_DEPTH levels, nothing but whitespace after the value) and the
 * tree it builds is copied into the arena. What json-c decides (as checked
 * with json-c 0.16), and what is done about it here:
 *
 * - Doubles keep their text as written ("2.50", "1E+03", "-0.0"), since
 *   json-c stores it with the value. Its strict mode also lets "1." and
 *   "1.e3" through.
 * - Integers become int64_t or uint64_t and are printed back, so "-0" reads
 *   "0" and "-01" (which strict mode lets through, unlike "01") reads
 *   "-1". Integers outside [INT64_MIN, UINT64_MAX] are saturated to those
 *   bounds without an error: the tokener's only trace is errno, which it
 *   clears for every integer, so it tells nothing about any but the last
 *   one. The text is gone by then, so an integer that came out as
 *   INT64_MIN or UINT64_MAX is refused: those two values, even when written
 *   exactly, cannot be told from the saturated ones, and an error is better
 *   than a silently different number.
 * - NaN, Infinity and -Infinity are accepted even in strict mode, and
 *   numbers such as 1e999 become infinite: doubles that are not finite are
 *   refused.
 * - A string holding \u0000 is refused (the tree holds C strings). A map
 *   key holding one cannot be refused: json-c keeps keys as C strings and
 *   cuts them at the NUL, so {"a\u0000b": 1} has the key "a".
 * - A key repeated in one map is not an error: json-c keeps the last
 *   value, at the place of the first key.
 * - Strict mode still accepts raw control characters in strings and
 *   single-quoted map keys ({'a': 1}); lone surrogates become U+FFFD.
 *
 * The node limit is checked while copying: json-c has none and builds its
 * whole tree first (about 70 bytes per node for "[0,0,...]", so some 290
 * MB at DOC_MAX_NODES and over 2 GB for a 64 MiB file), so the memory it
 * takes is bounded by the length of the input, not by DOC_MAX_NODES. */
struct jconv {
    struct doc *d;
    size_t count; /* nodes so far, map keys included */
    struct err *e;
};

bool doc_json_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int jcount(struct jconv *c)
{
    if (++c->count > DOC_MAX_NODES)
        return err_set(c->e, EINVAL, "%s: JSON value has more than %d nodes",
                       c->d->file, DOC_MAX_NODES);
    return 0;
}

static int joom(struct jconv *c)
{
    return err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
}

static int jcopy(struct jconv *c, struct json_object *o, struct doc_node **ret);

/* The text of a scalar: numbers as json-c prints them (doubles as
 * written), strings decoded. */
static int jscalar(struct jconv *c, struct json_object *o, struct doc_node *dn)
{
    const char *text = json_object_get_string(o);
    size_t len = text ? strlen(text) : 0;

    switch (json_object_get_type(o)) {
    case json_type_int:
        if (json_object_get_int64(o) == INT64_MIN ||
            json_object_get_uint64(o) == UINT64_MAX)
            return err_set(c->e, EINVAL,
                           "%s: JSON parse error: integer out of range (read "
                           "as %s, a bound json-c saturates to; integers "
                           "must lie strictly between %" PRId64 " and %" PRIu64
                           ")",
                           c->d->file, text, INT64_MIN, UINT64_MAX);
        break;
    case json_type_double:
        if (!isfinite(json_object_get_double(o)))
            return err_set(c->e, EINVAL,
                           "%s: JSON parse error: number %s is not finite "
                           "(NaN, Infinity or out of range)",
                           c->d->file, text);
        break;
    case json_type_string:
        dn->quoted = true;
        if (json_object_get_string_len(o) < 0 ||
            (size_t)json_object_get_string_len(o) != len)
            return err_set(c->e, EINVAL,
                           "%s: JSON parse error: string contains \\u0000 "
                           "(a NUL character)",
                           c->d->file);
        break;
    default: /* booleans: "true", "false" */
        break;
    }
    dn->scalar = arena_strndup(c->d->arena, text ? text : "", len);
    return dn->scalar ? 0 : joom(c);
}

static int jarray(struct jconv *c, struct json_object *o, struct doc_node *dn)
{
    dn->type = DOC_SEQ;
    dn->n = json_object_array_length(o);
    if (!dn->n)
        return 0;
    dn->items = arena_calloc(c->d->arena, dn->n, sizeof(*dn->items));
    if (!dn->items)
        return joom(c);
    for (size_t i = 0; i < dn->n; i++) {
        int rc = jcopy(c, json_object_array_get_idx(o, i), &dn->items[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Keys come in input order; json-c has already merged repeated ones. */
static int jobject(struct jconv *c, struct json_object *o, struct doc_node *dn)
{
    int n = json_object_object_length(o);
    size_t i = 0;

    dn->type = DOC_MAP;
    if (n <= 0)
        return 0;
    dn->n = (size_t)n;
    dn->keys = arena_calloc(c->d->arena, dn->n, sizeof(*dn->keys));
    dn->items = arena_calloc(c->d->arena, dn->n, sizeof(*dn->items));
    if (!dn->keys || !dn->items)
        return joom(c);
    json_object_object_foreach(o, key, val)
    {
        if (i == dn->n)
            break; /* cannot happen: n is the number of entries */
        int rc = jcount(c);
        if (rc < 0)
            return rc;
        dn->keys[i] = arena_strdup(c->d->arena, key);
        if (!dn->keys[i])
            return joom(c);
        rc = jcopy(c, val, &dn->items[i]);
        if (rc < 0)
            return rc;
        i++;
    }
    dn->n = i;
    return 0;
}

/* Copies one json-c value (NULL is JSON null) into the arena. Recursion is
 * bounded by the tokener's depth limit. */
static int jcopy(struct jconv *c, struct json_object *o, struct doc_node **ret)
{
    int rc = jcount(c);
    if (rc < 0)
        return rc;
    struct doc_node *dn = arena_alloc(c->d->arena, sizeof(*dn));
    if (!dn)
        return joom(c);
    dn->type = DOC_SCALAR;
    dn->line = 0;
    switch (json_object_get_type(o)) {
    case json_type_null:
        dn->scalar = "null";
        break;
    case json_type_array:
        rc = jarray(c, o, dn);
        break;
    case json_type_object:
        rc = jobject(c, o, dn);
        break;
    default:
        rc = jscalar(c, o, dn);
        break;
    }
    if (rc < 0)
        return rc;
    *ret = dn;
    return 0;
}

int doc_parse_json(const char *buf, size_t len, const char *file,
                   struct doc **ret, struct err *e)
{
    struct jconv c = {.e = e};
    struct json_tokener *tok = NULL;
    struct json_object *obj = NULL;
    struct doc_node *root;
    enum json_tokener_error jerr;
    size_t cap = 0, i = 0, end;
    int rc = 0;

    *ret = NULL;
    if (!buf)
        buf = "", len = 0;
    c.d = doc_new(file, e);
    if (!c.d)
        return -ENOMEM;
    while (i < len && doc_json_blank(buf[i]))
        i++;
    if (i == len) /* nothing but whitespace: no document */
        goto done;
    /* json-c builds its whole tree before anything can be counted, so the
     * input size is what bounds its memory: the same cap as for files. */
    if (len > DOC_MAX_FILE_SIZE) {
        rc = err_set(e, EFBIG,
                     "%s: JSON input too large (%zu bytes, at most "
                     "%zu)",
                     c.d->file, len, DOC_MAX_FILE_SIZE);
        goto cleanup;
    }

    tok = json_tokener_new_ex(DOC_MAX_DEPTH);
    if (!tok) {
        rc = joom(&c);
        goto cleanup;
    }
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    obj = json_tokener_parse_ex(tok, buf, (int)len);
    jerr = json_tokener_get_error(tok);
    end = json_tokener_get_parse_end(tok);
    if (!obj && jerr == json_tokener_continue) {
        /* A value at the very end (a number, "true") may still be
         * growing: a NUL byte tells json-c the input is over. */
        obj = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
        end = len;
    }
    /* JSON null is a NULL object with no error. */
    if (jerr != json_tokener_success) {
        if (jerr == json_tokener_continue)
            jerr = json_tokener_error_parse_eof;
        rc = err_set(e, EINVAL, "%s: JSON parse error: %s at offset %zu",
                     c.d->file, json_tokener_error_desc(jerr), end);
        goto cleanup;
    }
    /* Strict mode refuses trailing characters itself, but takes a NUL
     * byte for the end of the input. */
    for (i = end; i < len; i++) {
        if (!doc_json_blank(buf[i])) {
            rc = err_set(
                e, EINVAL, "%s: JSON parse error: %s at offset %zu", c.d->file,
                json_tokener_error_desc(json_tokener_error_parse_unexpected),
                i);
            goto cleanup;
        }
    }
    if (!obj) /* a null document is skipped, as in YAML */
        goto done;

    rc = jcopy(&c, obj, &root);
    if (rc < 0)
        goto cleanup;
    if (doc_add(c.d, &cap, root) < 0) {
        rc = joom(&c);
        goto cleanup;
    }
done:
    *ret = c.d;
    c.d = NULL;
cleanup:
    json_object_put(obj);
    if (tok)
        json_tokener_free(tok);
    doc_free(c.d);
    return rc;
}
