/* doc_helpers.h - parsing snippets in the unit tests of core/doc*.c:
 * yaml_ok(), json_ok(), yaml_fails(), json_fails(), path_get(),
 * assert_scalar(), nested() (include after cmocka.h). */
#ifndef ORDO_DOC_HELPERS_H
#define ORDO_DOC_HELPERS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "err.h"

static inline struct doc *yaml_ok(const char *text)
{
    struct doc *d = NULL;
    struct err e = {{0}};
    int rc = doc_parse_yaml(text, strlen(text), "t.yaml", &d, &e);
    if (rc != 0)
        print_error("unexpected YAML error: %s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_non_null(d);
    return d;
}

static inline struct doc *json_ok(const char *text)
{
    struct doc *d = NULL;
    struct err e = {{0}};
    int rc = doc_parse_json(text, strlen(text), "t.json", &d, &e);
    if (rc != 0)
        print_error("unexpected JSON error: %s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_non_null(d);
    return d;
}

/* Parses text (len bytes) and expects failure with a message containing
 * want. */
static inline void parse_fails_len(bool json, const char *text, size_t len,
                                   const char *want)
{
    struct doc *d = (struct doc *)1;
    struct err e = {{0}};
    int rc = json ? doc_parse_json(text, len, "t.json", &d, &e)
                  : doc_parse_yaml(text, len, "t.yaml", &d, &e);
    assert_true(rc < 0);
    assert_null(d);
    if (!strstr(e.msg, want))
        print_error("message \"%s\" lacks \"%s\"\n", e.msg, want);
    assert_non_null(strstr(e.msg, want));
}

static inline void yaml_fails(const char *text, const char *want)
{
    parse_fails_len(false, text, strlen(text), want);
}

static inline void json_fails(const char *text, const char *want)
{
    parse_fails_len(true, text, strlen(text), want);
}

static inline const struct doc_node *path_get(const struct doc_node *n,
                                              const char *k1, const char *k2)
{
    n = doc_map_get(n, k1);
    return k2 ? doc_map_get(n, k2) : n;
}

static inline void assert_scalar(const struct doc_node *n, const char *text,
                                 bool quoted)
{
    assert_non_null(n);
    assert_int_equal(n->type, DOC_SCALAR);
    assert_string_equal(n->scalar, text);
    assert_int_equal(n->quoted, quoted);
}

/* A string of n copies of open followed by n copies of close. */
static inline char *nested(size_t n, char open, char close)
{
    char *s = malloc(2 * n + 1);
    assert_non_null(s);
    memset(s, open, n);
    memset(s + n, close, n);
    s[2 * n] = '\0';
    return s;
}

#endif
