/* doc_yaml.c - doc_parse_yaml() (doc.h): YAML through libyaml's document
 * API, one yaml_document_t per "---" document, which is first checked
 * (duplicate keys, nesting, alias expansion size) and then copied into the
 * doc's arena; an event pass ahead of it keeps libyaml's own costs
 * bounded. */
#include "doc.h"

#include "arena.h"
#include "doc_build.h"
#include "err.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

/* libyaml 0.2.5 looks anchors up by linear search, both when one is
 * defined (to refuse duplicates) and for every alias, so anchors times
 * aliases is the work its loader does. Manifests use a handful; these caps
 * keep hostile input to well under a second. */
#define DOC_MAX_ANCHORS 1000
#define DOC_MAX_ALIASES 100000

/* Maps with at most this many keys are checked for duplicates pairwise;
 * larger ones are sorted. */
#define DOC_DUP_LINEAR_MAX 8

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
    struct ymemo *memo; /* n_ynodes entries, index = libyaml index - 1 */
    const char **text;  /* scalar text in the arena, shared by copies */
    size_t total;       /* nodes in all documents so far */
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
        return err_set(c->e, EINVAL, "%s: bad YAML node reference", c->d->file);
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
                           "%s:%u: scalar contains a NUL character", c->d->file,
                           yline(n));
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
            /* Set on the copy: an aliased value has its key's line. */
            dn->items[i]->key_line = yline(ynode(c, start[i].key));
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
        size_t line = 1,
               end = p->problem_offset < len ? p->problem_offset : len;
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
    c.d = doc_new(file, e);
    if (!c.d)
        return -ENOMEM;
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
