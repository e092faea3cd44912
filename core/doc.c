/* doc.c - YAML (libyaml) and JSON (json-c) input turned into doc trees.
 *
 * See doc.h. Both parsers produce the same arena-owned tree of maps,
 * sequences and scalars. YAML goes through libyaml's document API, one
 * yaml_document_t per "---" document, which is first checked (duplicate
 * keys, nesting, alias expansion size) and then copied into the arena;
 * an event pass ahead of it keeps libyaml's own costs bounded. JSON is
 * built by a walker over the text here, so that numbers keep their text
 * exactly as written (json-c turns integers into int64/uint64, saturating
 * big ones and losing "-0"), and validated by json-c's tokener. */
#include "doc.h"

#include "arena.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* The tree is built by a small walker over the text itself, which keeps
 * numbers as written and sees repeated keys (json-c keeps the last one
 * silently). It runs first because it stops at DOC_MAX_NODES nodes and
 * DOC_MAX_DEPTH levels, while json-c would build its whole tree (tens of
 * bytes per node) before anything could be counted. json-c then validates
 * the same text (strict mode, UTF-8, depth) and, for syntax errors, gives
 * the message. The walker refuses what json-c lets through but JSON does
 * not allow: NaN, Infinity, "1.", raw control characters in strings. */
struct jconv {
    struct doc *d;
    const unsigned char *s;
    size_t len, pos;
    size_t count; /* nodes so far, map keys included */
    bool syntax;  /* the error set was a syntax error */
    struct err *e;
};

static int jerr(struct jconv *c, const char *what)
{
    c->syntax = true;
    return err_set(c->e, EINVAL, "%s: JSON parse error: %s at offset %zu",
                   c->d->file, what, c->pos);
}

static void jskip_ws(struct jconv *c)
{
    while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
                               c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
        c->pos++;
}

static bool jis_digit(struct jconv *c)
{
    return c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9';
}

static int jhex4(const unsigned char *p, unsigned *ret)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            v |= ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            v |= ch - 'A' + 10;
        else
            return -1;
    }
    *ret = v;
    return 0;
}

static size_t utf8_put(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the string at c->pos (which is at the opening quote) into the
 * arena. \u0000 is refused: the tree holds C strings. A lone surrogate
 * becomes U+FFFD. */
static int jstring(struct jconv *c, const char **ret)
{
    size_t start = ++c->pos, end = start;
    while (end < c->len && c->s[end] != '"') {
        if (c->s[end] == '\\')
            end++;
        end++;
    }
    if (end >= c->len) {
        c->pos = c->len;
        return jerr(c, "unterminated string");
    }
    /* Decoding never makes the text longer. */
    char *out = arena_alloc(c->d->arena, end - start + 1);
    if (!out)
        return err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
    size_t o = 0;
    while (c->pos < end) {
        unsigned char ch = c->s[c->pos];
        if (ch < 0x20)
            return jerr(c, "control character in string");
        if (ch != '\\') {
            out[o++] = (char)ch;
            c->pos++;
            continue;
        }
        ch = c->s[c->pos + 1]; /* end is past it */
        const char *simple = strchr("\"\\/bfnrt", ch);
        if (ch && simple) {
            out[o++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            c->pos += 2;
            continue;
        }
        unsigned cp, lo;
        if (ch != 'u' || end - c->pos < 6 || jhex4(c->s + c->pos + 2, &cp) < 0)
            return jerr(c, "invalid escape in string");
        if (cp == 0)
            return jerr(c, "string contains \\u0000");
        c->pos += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && end - c->pos >= 6 &&
            c->s[c->pos] == '\\' && c->s[c->pos + 1] == 'u' &&
            jhex4(c->s + c->pos + 2, &lo) == 0 && lo >= 0xDC00 &&
            lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            c->pos += 6;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        o += utf8_put(out + o, cp);
    }
    out[o] = '\0';
    c->pos = end + 1;
    *ret = out;
    return 0;
}

/* A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int jnumber(struct jconv *c, const char **ret)
{
    size_t start = c->pos;
    if (c->pos < c->len && c->s[c->pos] == '-')
        c->pos++;
    if (!jis_digit(c))
        return jerr(c, "invalid number");
    if (c->s[c->pos] == '0')
        c->pos++;
    else
        while (jis_digit(c))
            c->pos++;
    if (c->pos < c->len && c->s[c->pos] == '.') {
        c->pos++;
        if (!jis_digit(c))
            return jerr(c, "invalid number");
        while (jis_digit(c))
            c->pos++;
    }
    if (c->pos < c->len && (c->s[c->pos] == 'e' || c->s[c->pos] == 'E')) {
        c->pos++;
        if (c->pos < c->len && (c->s[c->pos] == '+' || c->s[c->pos] == '-'))
            c->pos++;
        if (!jis_digit(c))
            return jerr(c, "invalid number");
        while (jis_digit(c))
            c->pos++;
    }
    *ret = arena_strndup(c->d->arena, (const char *)c->s + start,
                         c->pos - start);
    if (!*ret)
        return err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
    return 0;
}

/* Growable array of pointers in malloc memory, for members whose number is
 * not known until the closing bracket. */
struct pvec {
    void **v;
    size_t n, cap;
};

static int pvec_push(struct pvec *p, void *x)
{
    if (p->n == p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : 8;
        void **nv = realloc(p->v, ncap * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        p->v = nv;
        p->cap = ncap;
    }
    p->v[p->n++] = x;
    return 0;
}

/* Moves a pvec into an arena array (NULL when empty). */
static int pvec_to_arena(struct jconv *c, struct pvec *p, void *ret)
{
    void **a = NULL;
    if (p->n) {
        a = arena_calloc(c->d->arena, p->n, sizeof(*a));
        if (!a)
            return -ENOMEM;
        memcpy(a, p->v, p->n * sizeof(*a));
    }
    memcpy(ret, &a, sizeof(a));
    return 0;
}

static int jvalue(struct jconv *c, unsigned level, struct doc_node **ret);

/* The map or sequence at c->pos ('{' or '['). */
static int jcontainer(struct jconv *c, unsigned level, struct doc_node *dn)
{
    bool is_map = c->s[c->pos] == '{';
    unsigned char close = is_map ? '}' : ']';
    struct pvec keys = {0}, items = {0}, offs = {0};
    int rc = 0;

    if (level + 1 > DOC_MAX_DEPTH)
        return jerr(c, "nesting too deep");
    dn->type = is_map ? DOC_MAP : DOC_SEQ;
    c->pos++;
    jskip_ws(c);
    if (c->pos < c->len && c->s[c->pos] == close) {
        c->pos++;
        return 0;
    }
    for (;;) {
        jskip_ws(c);
        if (is_map) {
            const char *key;
            if (c->pos >= c->len || c->s[c->pos] != '"') {
                rc = jerr(c, "object key expected");
                goto cleanup;
            }
            /* Offsets are stored as pointers to keep one vector type. */
            if (pvec_push(&offs, (void *)(uintptr_t)c->pos) < 0)
                goto oom;
            if (++c->count > DOC_MAX_NODES) {
                rc = err_set(c->e, EINVAL,
                             "%s: JSON value has more than %d nodes",
                             c->d->file, DOC_MAX_NODES);
                goto cleanup;
            }
            rc = jstring(c, &key);
            if (rc < 0)
                goto cleanup;
            if (pvec_push(&keys, (void *)key) < 0)
                goto oom;
            jskip_ws(c);
            if (c->pos >= c->len || c->s[c->pos] != ':') {
                rc = jerr(c, "':' expected");
                goto cleanup;
            }
            c->pos++;
        }
        struct doc_node *item;
        rc = jvalue(c, level + 1, &item);
        if (rc < 0)
            goto cleanup;
        if (pvec_push(&items, item) < 0)
            goto oom;
        jskip_ws(c);
        if (c->pos < c->len && c->s[c->pos] == ',') {
            c->pos++;
            continue;
        }
        if (c->pos < c->len && c->s[c->pos] == close) {
            c->pos++;
            break;
        }
        rc = jerr(c, is_map ? "',' or '}' expected" : "',' or ']' expected");
        goto cleanup;
    }
    dn->n = items.n;
    if (pvec_to_arena(c, &items, &dn->items) < 0)
        goto oom;
    if (is_map) {
        size_t dup;
        if (pvec_to_arena(c, &keys, &dn->keys) < 0 ||
            find_dup_key(dn->keys, dn->n, &dup) < 0)
            goto oom;
        if (dup < dn->n) {
            rc = err_set(c->e, EINVAL,
                         "%s: duplicate key \"%s\" at offset %zu",
                         c->d->file, dn->keys[dup],
                         (size_t)(uintptr_t)offs.v[dup]);
            goto cleanup;
        }
    }
    goto cleanup;
oom:
    rc = err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
cleanup:
    free(keys.v);
    free(items.v);
    free(offs.v);
    return rc;
}

static int jliteral(struct jconv *c, const char *word)
{
    size_t n = strlen(word);
    if (c->len - c->pos < n || memcmp(c->s + c->pos, word, n) != 0)
        return jerr(c, "unexpected character");
    c->pos += n;
    return 0;
}

/* One value at c->pos (after optional whitespace); level counts the maps
 * and sequences around it. */
static int jvalue(struct jconv *c, unsigned level, struct doc_node **ret)
{
    struct doc_node *dn;
    int rc;

    if (++c->count > DOC_MAX_NODES)
        return err_set(c->e, EINVAL, "%s: JSON value has more than %d nodes",
                       c->d->file, DOC_MAX_NODES);
    dn = arena_alloc(c->d->arena, sizeof(*dn));
    if (!dn)
        return err_set(c->e, ENOMEM, "%s: out of memory", c->d->file);
    dn->type = DOC_SCALAR;
    dn->line = 0;
    jskip_ws(c);
    if (c->pos >= c->len)
        return jerr(c, "unexpected end of data");
    switch (c->s[c->pos]) {
    case '{':
    case '[':
        rc = jcontainer(c, level, dn);
        break;
    case '"':
        dn->quoted = true;
        rc = jstring(c, &dn->scalar);
        break;
    case 't':
        dn->scalar = "true";
        rc = jliteral(c, dn->scalar);
        break;
    case 'f':
        dn->scalar = "false";
        rc = jliteral(c, dn->scalar);
        break;
    case 'n':
        dn->scalar = "null";
        rc = jliteral(c, dn->scalar);
        break;
    default:
        rc = jnumber(c, &dn->scalar); /* also refuses NaN and Infinity */
        break;
    }
    if (rc < 0)
        return rc;
    *ret = dn;
    return 0;
}

/* Runs json-c over the whole buffer; 0 when it is one valid value. */
static int json_validate(const char *buf, size_t len, const char *file,
                         struct err *e)
{
    struct json_tokener *tok = json_tokener_new_ex(DOC_MAX_DEPTH);
    struct json_object *obj = NULL;
    int rc = 0;

    if (!tok)
        return err_set(e, ENOMEM, "%s: out of memory", file);
    int flags = JSON_TOKENER_STRICT;
#ifdef JSON_TOKENER_VALIDATE_UTF8
    flags |= JSON_TOKENER_VALIDATE_UTF8;
#endif
    json_tokener_set_flags(tok, flags);
    obj = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error jerr_code = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    if (!obj && jerr_code == json_tokener_continue) {
        /* A number (or nothing) at the very end may still be growing:
         * a NUL byte tells json-c the input is over. */
        obj = json_tokener_parse_ex(tok, "", 1);
        jerr_code = json_tokener_get_error(tok);
        end = len;
    }
    if (!obj) {
        if (jerr_code == json_tokener_success ||
            jerr_code == json_tokener_continue)
            jerr_code = json_tokener_error_parse_eof;
        rc = err_set(e, EINVAL, "%s: JSON parse error: %s at offset %zu",
                     file, json_tokener_error_desc(jerr_code), end);
        goto cleanup;
    }
    for (size_t i = end; i < len; i++) {
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
            buf[i] != '\r') {
            rc = err_set(e, EINVAL,
                         "%s: JSON parse error: unexpected data after the "
                         "value at offset %zu",
                         file, i);
            goto cleanup;
        }
    }
cleanup:
    json_object_put(obj);
    json_tokener_free(tok);
    return rc;
}

int doc_parse_json(const char *buf, size_t len, const char *file,
                   struct doc **ret, struct err *e)
{
    struct jconv c = {.s = (const unsigned char *)buf, .len = len, .e = e};
    struct doc_node *root;
    size_t cap = 0;
    int rc;

    *ret = NULL;
    if (!buf)
        len = c.len = 0;
    c.d = doc_new(file);
    if (!c.d)
        return err_set(e, ENOMEM, "%s: out of memory", doc_file_name(file));
    jskip_ws(&c);
    if (c.pos == len) { /* nothing but whitespace: no document */
        *ret = c.d;
        return 0;
    }
    if (len > INT_MAX) {
        rc = err_set(e, EFBIG, "%s: JSON input too large (%zu bytes)",
                     c.d->file, len);
        goto cleanup;
    }
    c.pos = 0;
    rc = jvalue(&c, 0, &root);
    if (rc == 0) {
        jskip_ws(&c);
        if (c.pos != len)
            rc = jerr(&c, "unexpected data after the value");
    }
    if (rc < 0 && c.syntax) {
        /* Prefer json-c's message where json-c also refuses the text. The
         * walker got this far within the node limit, so json-c's tree up to
         * the error is bounded too. */
        struct err mine = {{0}};
        if (e)
            mine = *e;
        int vrc = json_validate(buf, len, c.d->file, e);
        if (vrc == 0 && e)
            *e = mine;
        else if (vrc == -ENOMEM)
            rc = vrc;
        goto cleanup;
    }
    if (rc < 0)
        goto cleanup;
    rc = json_validate(buf, len, c.d->file, e); /* UTF-8 and the rest */
    if (rc < 0)
        goto cleanup;
    if (doc_add(c.d, &cap, root) < 0) {
        rc = err_set(e, ENOMEM, "%s: out of memory", c.d->file);
        goto cleanup;
    }
    *ret = c.d;
    c.d = NULL;
cleanup:
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
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
                       buf[i] == '\r'))
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
