/* fuzz_doc.c - libFuzzer target for core/doc.c.
 *
 * Parses the input both as YAML (doc_parse_yaml) and as JSON
 * (doc_parse_json), from an exact-size copy so that any read past the end is
 * caught, walks every tree it gets, calling each getter on each node, and
 * frees it. Any violation of the documented invariants aborts: a failure
 * must come with a negative errno, a message and no doc; a tree must respect
 * DOC_MAX_DEPTH, hold no NULL pointers and no repeated map keys (YAML refuses
 * them, json-c keeps the last); JSON gives at most one document, with line 0,
 * whose unquoted scalars are numbers, booleans or null as json-c wrote them.
 * Seeds live in tests/fuzz/corpus/doc/. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
    if (!ok)
        abort();
}

/* level counts the maps and sequences around n. */
static void walk(const struct doc_node *n, unsigned level, bool json)
{
    check(n != NULL);
    check(!json || n->line == 0);
    check(json || n->line >= 1);

    const char *name = doc_type_name(n);
    check(name != NULL && *name);
    bool is_null = doc_is_null(n);
    check(is_null == (strcmp(name, "null") == 0));

    int64_t i;
    bool b;
    const char *s;
    int rc = doc_get_int64(n, &i);
    check(rc == 0 || rc == -EINVAL || rc == -ERANGE);
    check(rc == -EINVAL || strcmp(name, "number") == 0);
    rc = doc_get_bool(n, &b);
    check(rc == 0 || rc == -EINVAL);
    check((rc == 0) == (strcmp(name, "boolean") == 0));
    rc = doc_get_string(n, &s);
    check(rc == 0 || rc == -EINVAL);
    check((rc == 0) == (n->type == DOC_SCALAR && !is_null));
    check(rc != 0 || s == n->scalar);

    switch (n->type) {
    case DOC_SCALAR:
        check(n->scalar != NULL);
        check(n->n == 0 && !n->keys && !n->items);
        (void)strlen(n->scalar);
        if (n->quoted)
            check(!is_null && strcmp(name, "string") == 0);
        else if (json)
            check(strcmp(name, "string") != 0);
        break;
    case DOC_SEQ:
    case DOC_MAP:
        check(level + 1 <= DOC_MAX_DEPTH);
        check(n->scalar == NULL);
        check(n->n == 0 || n->items != NULL);
        check(n->type == DOC_MAP ? (n->n == 0 || n->keys != NULL) : !n->keys);
        for (size_t k = 0; k < n->n; k++) {
            if (n->type == DOC_MAP) {
                check(n->keys[k] != NULL);
                /* Keys are unique, so lookup finds this very value. */
                check(doc_map_get(n, n->keys[k]) == n->items[k]);
            }
            walk(n->items[k], level + 1, json);
        }
        break;
    default:
        abort();
    }
}

static void run(bool json, const char *buf, size_t size)
{
    struct doc *d = (struct doc *)&d; /* must be overwritten */
    struct err e;
    memset(&e, 0, sizeof(e));
    int rc = json ? doc_parse_json(buf, size, "fuzz", &d, &e)
                  : doc_parse_yaml(buf, size, "fuzz", &d, &e);
    if (rc < 0) {
        check(d == NULL);
        check(e.msg[0] != '\0');
        check(strncmp(e.msg, "fuzz", 4) == 0);
        return;
    }
    check(rc == 0);
    check(d != NULL && d->arena != NULL);
    check(strcmp(d->file, "fuzz") == 0);
    check(!json || d->n_docs <= 1);
    for (size_t k = 0; k < d->n_docs; k++) {
        check(!doc_is_null(d->docs[k])); /* null documents are skipped */
        walk(d->docs[k], 0, json);
    }
    doc_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: no NUL terminator to lean on. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    run(false, buf, size);
    run(true, buf, size);
    free(buf);
    return 0;
}
