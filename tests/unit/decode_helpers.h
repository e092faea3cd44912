/* decode_helpers.h - decoding YAML snippets in unit tests: decode_yaml(),
 * must_decode() and must_fail() (include after cmocka.h). */
#ifndef ORDO_DECODE_HELPERS_H
#define ORDO_DECODE_HELPERS_H

#include <errno.h>
#include <string.h>

#include "decode.h"
#include "doc.h"
#include "test_helpers.h"

/* Decodes the first document of a YAML string named t.yaml. Returns
 * decode_object's result; *ret gets the object, msg (when not NULL, at least
 * ERR_MSG_MAX bytes) the error. */
static inline int decode_yaml(const char *yaml, struct object **ret, char *msg)
{
    struct doc *d = NULL;
    struct err e = {{0}};
    int r = doc_parse_yaml(yaml, strlen(yaml), "t.yaml", &d, &e);
    if (r == 0) {
        assert_true(d->n_docs >= 1);
        r = decode_object(d->docs[0], "t.yaml", ret, &e);
    }
    if (msg)
        strcpy(msg, e.msg);
    doc_free(d);
    return r;
}

static inline struct object *must_decode(const char *yaml)
{
    struct object *o = NULL;
    char msg[ERR_MSG_MAX];
    int r = decode_yaml(yaml, &o, msg);
    if (r != 0)
        print_error("decode failed (%d): %s\n", r, msg);
    assert_int_equal(r, 0);
    return o;
}

/* Asserts that decoding fails with a message containing `want`. */
static inline void must_fail(const char *yaml, const char *want)
{
    struct object *o = NULL;
    char msg[ERR_MSG_MAX] = "";
    int r = decode_yaml(yaml, &o, msg);
    if (r == 0) {
        object_free(o);
        print_error("decoded, but should fail with \"%s\":\n%s\n", want, yaml);
    }
    assert_int_equal(r, -EINVAL);
    assert_contains(msg, want);
}

#endif
