/* doc.c - YAML (libyaml) and JSON (json-c) input turned into doc trees.
 *
 * See doc.h. Both parsers produce the same arena-owned tree of maps,
 * sequences and scalars. YAML goes through libyaml's document API, one
 * yaml_document_t per "---" document, which is first checked (duplicate
 * keys, nesting, alias expansion size) and then copied into the arena;
 * an event pass ahead of it keeps libyaml's own costs bounded. JSON is
 * parsed by json-c's tokener and its tree copied into the arena (see the
 * JSON section for what json-c decides there). */
#include "doc.h"

#include "arena.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <yaml.h>

/* doc_load_file() refuses anything larger: manifests are small, and a
 * bigger file is a mistake (or an attack) rather than input. */
#define DOC_MAX_FILE_SIZE ((size_t)64 << 20)

/* libyaml 0.2.5 looks anchors up by linear search, both when one is
 * defined (to refuse duplicates) and for every alias, so anchors times
 * aliases is the work its loader does. Manifests use a handful; these caps
 * keep hostile input to well under a second. */
#define DOC_MAX_ANCHORS 1000
#define DOC_MAX_ALIASES 100000

/* Maps with at most this many keys are checked for duplicates pairwise;
 * larger ones are sorted. */
#define DOC_DUP_LINEAR_MAX 8

/* ---- shared helpers ---------------------------------------------------- */

static const char *doc_file_name(const char *file)
{
    return file ? file : "<input>";
}

/* A new empty doc with its own arena, or NULL on OOM. */
static struct doc *doc_new(const char *file)
{
    struct arena *a = arena_new();
    if (!a)
        return NULL;
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
    return NULL;
}

void doc_free(struct doc *d)
{
    if (d)
        arena_free(d->arena); /* d itself lives in the arena */
}

/* Appends a document root to d->docs; *cap is the allocated length. The
 * arena cannot grow a block in place, so the array doubles and the old copy
 * is left behind (at most as large as the final one). */
static int doc_add(struct doc *d, size_t *cap, struct doc_node *root)
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

struct dup_ref {
    const char *key;
    size_t pos;
};

static int dup_ref_cmp(const void *a, const void *b)
{
    const struct dup_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Looks for repeated keys. Sets *dup to the position of the first key (in
 * input order) that repeats an earlier one, or to n when all differ.
 * Returns 0 or -ENOMEM. */
static int find_dup_key(const char *const *keys, size_t n, size_t *dup)
{
    *dup = n;
    if (n <= DOC_DUP_LINEAR_MAX) {
        for (size_t i = 1; i < n; i++) {
            for (size_t j = 0; j < i; j++) {
                if (strcmp(keys[i], keys[j]) == 0) {
                    *dup = i;
                    return 0;
                }
            }
        }
        return 0;
    }
    struct dup_ref *refs = malloc(n * sizeof(*refs));
    if (!refs)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        refs[i].key = keys[i];
        refs[i].pos = i;
    }
    qsort(refs, n, sizeof(*refs), dup_ref_cmp);
    for (size_t i = 1; i < n; i++) {
        /* Equal keys sort by position, so refs[i] repeats refs[i - 1]. */
        if (strcmp(refs[i].key, refs[i - 1].key) == 0 && refs[i].pos < *dup)
            *dup = refs[i].pos;
    }
    free(refs);
    return 0;
}

/* ---- YAML -------------------------------------------------------------- */

/* Per libyaml node, filled by the check pass. */
struct ymemo {
    unsigned char state; /* 0 unseen, 1 being checked, 2 checked */
    unsigned height;     /* maps/sequences on the deepest path down, self
                            included; 0 for a scalar */
    size_t size;         /* nodes (map keys included) once aliases are
                            copied, capped at DOC_MAX_NODES + 1 */
};

struct yconv {
    struct doc *d;
    yaml_document_t *ydoc;
    size_t n_ynodes;
    struct ymemo *memo;  /* n_ynodes entries, index = libyaml index - 1 */
    const char **text;   /* scalar text in the arena, shared by copies */
    size_t total;        /* nodes in all documents so far */
    struct err *e;
};

static unsigned yline(const yaml_node_t *n)
{
    size_t l = n->start_mark.line + 1;
    return l > UINT_MAX ? UINT_MAX : (unsigned)l;
}

static size_t size_add(size_t a, size_t b)
{
    size_t s = a + b;
    if (s < a || s > DOC_MAX_NODES)
        s = (size_t)DOC_MAX_NODES + 1;
    return s;
}

static yaml_node_t *ynode(struct yconv *c, int idx)
{
    if (idx < 1 || (size_t)idx > c->n_ynodes)
        return NULL;
    return yaml_document_get_node(c->ydoc, idx);
}

static int ycheck(struct yconv *c, int idx, unsigned level);

/* Checks the key/value pairs of a mapping node: scalar keys, no repeats. */
static int ycheck_map(struct yconv *c, yaml_node_t *n, unsigned level,
                      struct ymemo *m)
{
    yaml_node_pair_t *start = n->data.mapping.pairs.start;
    size_t np = (size_t)(n->data.mapping.pairs.top - start);
    const char **keys = NULL;
    int rc = 0;

    if (np) {
        keys = malloc(np * sizeof(*keys));
        if (!keys)
            return err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
    }
    for (size_t i = 0; i < np; i++) {
        yaml_node_t *k = ynode(c, start[i].key);
        if (!k || k->type != YAML_SCALAR_NODE) {
            rc = err_set(c->e, EINVAL, "%s:%u: map key is not a scalar",
                         c->d->file, k ? yline(k) : yline(n));
            goto cleanup;
        }
        rc = ycheck(c, start[i].key, level + 1);
        if (rc < 0)
            goto cleanup;
        keys[i] = (const char *)k->data.scalar.value;
        rc = ycheck(c, start[i].value, level + 1);
        if (rc < 0)
            goto cleanup;
        struct ymemo *vm = &c->memo[start[i].value - 1];
        m->size = size_add(m->size, 1 + vm->size); /* the key, the value */
        if (vm->height + 1 > m->height)
            m->height = vm->height + 1;
    }
    size_t dup;
    rc = find_dup_key(keys, np, &dup);
    if (rc < 0) {
        rc = err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
        goto cleanup;
    }
    if (dup < np) {
        rc = err_set(c->e, EINVAL, "%s:%u: duplicate key \"%s\"", c->d->file,
                     yline(ynode(c, start[dup].key)), keys[dup]);
        goto cleanup;
    }
cleanup:
    free(keys);
    return rc;
}

/* First pass over one libyaml node and everything below it: fills
 * c->memo[idx - 1] and fails on NUL bytes in scalars, non-scalar or
 * repeated keys, recursive aliases, nesting deeper than DOC_MAX_DEPTH and
 * expansion to more than DOC_MAX_NODES nodes. level counts the maps and
 * sequences above the node. Every node is walked once however often it is
 * aliased (sizes and heights are remembered), and recursion stops at
 * DOC_MAX_DEPTH levels, so hostile input costs neither time nor stack. */
static int ycheck(struct yconv *c, int idx, unsigned level)
{
    yaml_node_t *n = ynode(c, idx);
    if (!n)
        return err_set(c->e, EINVAL, "%s: bad YAML node reference",
                       c->d->file);
    struct ymemo *m = &c->memo[idx - 1];

    if (m->state == 2) {
        if (level + m->height > DOC_MAX_DEPTH)
            return err_set(c->e, EINVAL,
                           "%s:%u: nesting deeper than %d levels "
                           "(through an alias)",
                           c->d->file, yline(n), DOC_MAX_DEPTH);
        return 0;
    }
    if (m->state == 1)
        return err_set(c->e, EINVAL, "%s:%u: recursive alias", c->d->file,
                       yline(n));

    if (n->type == YAML_SCALAR_NODE) {
        if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
            return err_set(c->e, EINVAL,
                           "%s:%u: scalar contains a NUL character",
                           c->d->file, yline(n));
        m->size = 1;
        m->height = 0;
        m->state = 2;
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE && n->type != YAML_MAPPING_NODE)
        return err_set(c->e, EINVAL, "%s:%u: empty YAML node", c->d->file,
                       yline(n));
    if (level + 1 > DOC_MAX_DEPTH)
        return err_set(c->e, EINVAL, "%s:%u: nesting deeper than %d levels",
                       c->d->file, yline(n), DOC_MAX_DEPTH);

    m->state = 1;
    m->size = 1;
    m->height = 1;
    int rc = 0;
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            rc = ycheck(c, *it, level + 1);
            if (rc < 0)
                return rc;
            struct ymemo *im = &c->memo[*it - 1];
            m->size = size_add(m->size, im->size);
            if (im->height + 1 > m->height)
                m->height = im->height + 1;
        }
    } else {
        rc = ycheck_map(c, n, level, m);
        if (rc < 0)
            return rc;
    }
    if (m->size > DOC_MAX_NODES)
        return err_set(c->e, EINVAL,
                       "%s:%u: document expands to more than %d nodes "
                       "(too many aliases?)",
                       c->d->file, yline(n), DOC_MAX_NODES);
    m->state = 2;
    return 0;
}

/* Scalar text in the arena, copied once per libyaml node. */
static const char *ytext(struct yconv *c, int idx, yaml_node_t *n)
{
    if (!c->text[idx - 1])
        c->text[idx - 1] =
            arena_strndup(c->d->arena, (const char *)n->data.scalar.value,
                          n->data.scalar.length);
    return c->text[idx - 1];
}

/* Second pass: copies a checked node into the arena. Aliased nodes are
 * copied each time they are referenced (the check pass bounded the total
 * and the depth). Returns NULL on OOM. */
static struct doc_node *ycopy(struct yconv *c, int idx)
{
    yaml_node_t *n = ynode(c, idx);
    struct doc_node *dn = arena_alloc(c->d->arena, sizeof(*dn));
    if (!n || !dn)
        return NULL;
    dn->line = yline(n);

    switch (n->type) {
    case YAML_SCALAR_NODE:
        dn->type = DOC_SCALAR;
        /* Quoted and block (| and >) scalars are always strings. Explicit
         * tags are not looked at: libyaml's document API gives untagged
         * scalars the !!str tag too, so "!!str 3" cannot be told apart
         * from a plain 3 here. */
        dn->quoted = n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
                     n->data.scalar.style != YAML_ANY_SCALAR_STYLE;
        dn->scalar = ytext(c, idx, n);
        if (!dn->scalar)
            return NULL;
        break;
    case YAML_SEQUENCE_NODE: {
        yaml_node_item_t *start = n->data.sequence.items.start;
        dn->type = DOC_SEQ;
        dn->n = (size_t)(n->data.sequence.items.top - start);
        if (!dn->n)
            break;
        dn->items = arena_calloc(c->d->arena, dn->n, sizeof(*dn->items));
        if (!dn->items)
            return NULL;
        for (size_t i = 0; i < dn->n; i++) {
            dn->items[i] = ycopy(c, start[i]);
            if (!dn->items[i])
                return NULL;
        }
        break;
    }
    case YAML_MAPPING_NODE: {
        /* NEEDSWORK: YAML merge keys ("<<: *base") are not supported; "<<"
         * is kept as an ordinary key. */
        yaml_node_pair_t *start = n->data.mapping.pairs.start;
        dn->type = DOC_MAP;
        dn->n = (size_t)(n->data.mapping.pairs.top - start);
        if (!dn->n)
            break;
        dn->keys = arena_calloc(c->d->arena, dn->n, sizeof(*dn->keys));
        dn->items = arena_calloc(c->d->arena, dn->n, sizeof(*dn->items));
        if (!dn->keys || !dn->items)
            return NULL;
        for (size_t i = 0; i < dn->n; i++) {
            dn->keys[i] = ytext(c, start[i].key, ynode(c, start[i].key));
            dn->items[i] = ycopy(c, start[i].value);
            if (!dn->keys[i] || !dn->items[i])
                return NULL;
        }
        break;
    }
    default:
        return NULL; /* ruled out by ycheck() */
    }
    return dn;
}

/* Converts one loaded libyaml document and appends it to c->d, unless it is
 * empty or null ("---" alone, "--- ~"): kubectl skips those too. */
static int yconv_document(struct yconv *c, size_t *cap)
{
    int rc = 0;
    yaml_node_t *root = yaml_document_get_root_node(c->ydoc);
    c->n_ynodes = (size_t)(c->ydoc->nodes.top - c->ydoc->nodes.start);
    c->memo = calloc(c->n_ynodes, sizeof(*c->memo));
    c->text = calloc(c->n_ynodes, sizeof(*c->text));
    if (!c->memo || !c->text) {
        rc = err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
        goto cleanup;
    }
    rc = ycheck(c, 1, 0); /* the root is node 1 */
    if (rc < 0)
        goto cleanup;
    c->total += c->memo[0].size;
    if (c->total > DOC_MAX_NODES) {
        rc = err_set(c->e, EINVAL, "%s:%u: input has more than %d nodes",
                     c->d->file, yline(root), DOC_MAX_NODES);
        goto cleanup;
    }
    struct doc_node *dn = ycopy(c, 1);
    if (!dn) {
        rc = err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
        goto cleanup;
    }
    if (doc_is_null(dn))
        goto cleanup;
    if (doc_add(c->d, cap, dn) < 0)
        rc = err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
cleanup:
    free(c->memo);
    free(c->text);
    c->memo = NULL;
    c->text = NULL;
    return rc;
}

/* Fills e from a failed libyaml parser. */
static int yaml_error(const yaml_parser_t *p, const char *buf, size_t len,
                      const char *file, struct err *e)
{
    const char *problem = p->problem ? p->problem : "YAML parse error";

    if (p->error == YAML_MEMORY_ERROR)
        return err_set(e, ENOMEM, "%s: out of memory", file);
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors (bad UTF-8, control characters) carry a byte
         * offset rather than a mark. */
        size_t line = 1, end = p->problem_offset < len ? p->problem_offset
                                                       : len;
        for (size_t i = 0; i < end; i++)
            line += buf[i] == '\n';
        if (p->problem_value >= 0)
            return err_set(e, EINVAL, "%s:%zu: %s (byte 0x%02X at offset %zu)",
                           file, line, problem, (unsigned)p->problem_value,
                           p->problem_offset);
        return err_set(e, EINVAL, "%s:%zu: %s (at offset %zu)", file, line,
                       problem, p->problem_offset);
    }
    if (p->context)
        return err_set(e, EINVAL, "%s:%zu: %s (%s)", file,
                       p->problem_mark.line + 1, problem, p->context);
    return err_set(e, EINVAL, "%s:%zu: %s", file, p->problem_mark.line + 1,
                   problem);
}

/* A pass over libyaml's events before yaml_parser_load() builds anything.
 * libyaml has no limits of its own, and its scanner does work proportional
 * to the flow nesting depth for every token, so "[[[[..." is quadratic:
 * stop at DOC_MAX_DEPTH levels, DOC_MAX_NODES events and the anchor and
 * alias caps above before the loader ever sees such input. Syntax errors
 * are reported from here too, with the same messages. */
static int yaml_preflight(const char *buf, size_t len, const char *file,
                          struct err *e)
{
    yaml_parser_t p;
    unsigned depth = 0;
    size_t nodes = 0, anchors = 0, aliases = 0;
    int rc = 0;

    if (!yaml_parser_initialize(&p))
        return err_set(e, ENOMEM, "%s: out of memory", file);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    for (;;) {
        yaml_event_t ev;
        const yaml_char_t *anchor = NULL;
        bool done = false;

        if (!yaml_parser_parse(&p, &ev)) {
            rc = yaml_error(&p, buf, len, file, e);
            break;
        }
        size_t line = ev.start_mark.line + 1;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            anchors = aliases = 0;
            break;
        case YAML_ALIAS_EVENT:
            aliases++;
            nodes++;
            break;
        case YAML_SCALAR_EVENT:
            anchor = ev.data.scalar.anchor;
            nodes++;
            break;
        case YAML_SEQUENCE_START_EVENT:
            anchor = ev.data.sequence_start.anchor;
            nodes++;
            depth++;
            break;
        case YAML_MAPPING_START_EVENT:
            anchor = ev.data.mapping_start.anchor;
            nodes++;
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        anchors += anchor != NULL; /* before the event frees it */
        yaml_event_delete(&ev);
        if (depth > DOC_MAX_DEPTH)
            rc = err_set(e, EINVAL, "%s:%zu: nesting deeper than %d levels",
                         file, line, DOC_MAX_DEPTH);
        else if (nodes > DOC_MAX_NODES)
            rc = err_set(e, EINVAL, "%s:%zu: input has more than %d nodes",
                         file, line, DOC_MAX_NODES);
        else if (anchors > DOC_MAX_ANCHORS)
            rc = err_set(e, EINVAL,
                         "%s:%zu: more than %d anchors in one document", file,
                         line, DOC_MAX_ANCHORS);
        else if (aliases > DOC_MAX_ALIASES)
            rc = err_set(e, EINVAL,
                         "%s:%zu: more than %d aliases in one document", file,
                         line, DOC_MAX_ALIASES);
        if (rc < 0 || done)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

int doc_parse_yaml(const char *buf, size_t len, const char *file,
                   struct doc **ret, struct err *e)
{
    yaml_parser_t parser;
    struct yconv c = {.e = e};
    size_t cap = 0;
    bool parser_ok = false;
    int rc = 0;

    *ret = NULL;
    if (!buf)
        buf = "", len = 0;
    c.d = doc_new(file);
    if (!c.d)
        return err_set(e, ENOMEM, "%s: out of memory", doc_file_name(file));
    rc = yaml_preflight(buf, len, c.d->file, e);
    if (rc < 0)
        goto cleanup;
    if (!yaml_parser_initialize(&parser)) {
        rc = err_set(e, ENOMEM, "%s: out of memory", c.d->file);
        goto cleanup;
    }
    parser_ok = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    for (;;) {
        yaml_document_t ydoc;
        /* On failure libyaml has already freed the document. */
        if (!yaml_parser_load(&parser, &ydoc)) {
            rc = yaml_error(&parser, buf, len, c.d->file, e);
            goto cleanup;
        }
        if (!yaml_document_get_root_node(&ydoc)) { /* end of the stream */
            yaml_document_delete(&ydoc);
            break;
        }
        c.ydoc = &ydoc;
        rc = yconv_document(&c, &cap);
        yaml_document_delete(&ydoc);
        c.ydoc = NULL;
        if (rc < 0)
            goto cleanup;
    }
    *ret = c.d;
    c.d = NULL;
cleanup:
    if (parser_ok)
        yaml_parser_delete(&parser);
    doc_free(c.d);
    return rc;
}

/* ---- JSON -------------------------------------------------------------- */

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

static bool is_json_blank(char ch)
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

static int jcopy(struct jconv *c, struct json_object *o,
                 struct doc_node **ret);

/* The text of a scalar: numbers as json-c prints them (doubles as
 * written), strings decoded. */
static int jscalar(struct jconv *c, struct json_object *o,
                   struct doc_node *dn)
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

static int jarray(struct jconv *c, struct json_object *o,
                  struct doc_node *dn)
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
static int jobject(struct jconv *c, struct json_object *o,
                   struct doc_node *dn)
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
static int jcopy(struct jconv *c, struct json_object *o,
                 struct doc_node **ret)
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
    c.d = doc_new(file);
    if (!c.d)
        return err_set(e, ENOMEM, "%s: out of memory", doc_file_name(file));
    while (i < len && is_json_blank(buf[i]))
        i++;
    if (i == len) /* nothing but whitespace: no document */
        goto done;
    /* json-c builds its whole tree before anything can be counted, so the
     * input size is what bounds its memory: the same cap as for files. */
    if (len > DOC_MAX_FILE_SIZE) {
        rc = err_set(e, EFBIG, "%s: JSON input too large (%zu bytes, at most "
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
        if (!is_json_blank(buf[i])) {
            rc = err_set(e, EINVAL, "%s: JSON parse error: %s at offset %zu",
                         c.d->file,
                         json_tokener_error_desc(
                             json_tokener_error_parse_unexpected),
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

/* ---- files ------------------------------------------------------------- */

int doc_load_file(const char *path, struct doc **ret, struct err *e)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd, rc = 0;
    struct stat st;

    *ret = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        return err_set(e, saved, "%s: %s", path, strerror(saved));
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > DOC_MAX_FILE_SIZE)
            goto too_big;
        cap = (size_t)st.st_size + 1; /* +1 to see EOF without growing */
    }
    if (cap < 4096)
        cap = 4096;
    buf = malloc(cap);
    if (!buf) {
        rc = err_set(e, ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    for (;;) {
        if (len == cap) {
            if (cap > DOC_MAX_FILE_SIZE)
                goto too_big;
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                rc = err_set(e, ENOMEM, "%s: out of memory", path);
                goto cleanup;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            int saved = errno;
            if (saved == EINTR)
                continue;
            rc = err_set(e, saved, "%s: %s", path, strerror(saved));
            goto cleanup;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > DOC_MAX_FILE_SIZE)
        goto too_big;

    size_t i = 0;
    while (i < len && is_json_blank(buf[i]))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        rc = doc_parse_json(buf, len, path, ret, e);
    else
        rc = doc_parse_yaml(buf, len, path, ret, e);
    goto cleanup;
too_big:
    rc = err_set(e, EFBIG, "%s: file is larger than %zu MiB", path,
                 DOC_MAX_FILE_SIZE >> 20);
cleanup:
    free(buf);
    close(fd);
    return rc;
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
