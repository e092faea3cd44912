/* test_doc_json.c - unit tests for core/doc_json.c: JSON parsing into doc
 * trees, what json-c decides and Ordo refuses (numbers, NUL, trailing
 * text), limits and error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "doc_helpers.h"
#include "err.h"

static void test_json_object(void **state)
{
    (void)state;
    struct doc *d = json_ok("{\"kind\": \"Job\", \"spec\": {\"parallelism\": 3,"
                            " \"suspend\": false, \"x\": null,"
                            " \"names\": [\"a\", \"b\"], \"empty\": {}}}");
    assert_int_equal(d->n_docs, 1);
    const struct doc_node *r = d->docs[0];
    assert_int_equal(r->type, DOC_MAP);
    assert_int_equal(r->line, 0);
    assert_scalar(doc_map_get(r, "kind"), "Job", true);
    const struct doc_node *spec = doc_map_get(r, "spec");
    assert_string_equal(spec->keys[0], "parallelism"); /* input order */
    assert_string_equal(spec->keys[4], "empty");
    assert_scalar(doc_map_get(spec, "parallelism"), "3", false);
    assert_scalar(doc_map_get(spec, "suspend"), "false", false);
    assert_scalar(doc_map_get(spec, "x"), "null", false);
    assert_true(doc_is_null(doc_map_get(spec, "x")));
    assert_int_equal(doc_map_get(spec, "names")->n, 2);
    assert_scalar(doc_map_get(spec, "names")->items[1], "b", true);
    assert_int_equal(doc_map_get(spec, "names")->items[1]->line, 0);
    assert_int_equal(doc_map_get(spec, "empty")->type, DOC_MAP);
    assert_int_equal(doc_map_get(spec, "empty")->n, 0);
    doc_free(d);
}

static void test_json_numbers_keep_text(void **state)
{
    (void)state;
    /* Doubles keep their text as written (json-c stores it); integers are
     * printed back from int64/uint64, which gives the same text for these. */
    static const struct {
        const char *in, *text;
    } nums[] = {
        {"0", "0"},
        {"1", "1"},
        {"1.5", "1.5"},
        {"1e3", "1e3"},
        {"1E+03", "1E+03"},
        {"-0.0", "-0.0"},
        {"2.50", "2.50"},
        {"1e-7", "1e-7"},
        {"1e-400", "1e-400"}, /* underflows to 0: finite, kept */
        {"9223372036854775807", "9223372036854775807"},
        {"-9223372036854775807", "-9223372036854775807"},
        {"18446744073709551614", "18446744073709551614"},
        {"123456789012345678901234567890.123",
         "123456789012345678901234567890.123"},
        /* Integers lose what int64 cannot hold: the sign of zero, and
         * the leading zero json-c's strict mode lets through after '-'. */
        {"-0", "0"},
        {"-01", "-1"},
        /* json-c's strict mode accepts a fraction without digits. */
        {"1.", "1."},
        {"1.e3", "1.e3"},
    };
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        char buf[128];
        snprintf(buf, sizeof(buf), "[%s]", nums[i].in);
        struct doc *d = json_ok(buf);
        assert_scalar(d->docs[0]->items[0], nums[i].text, false);
        assert_string_equal(doc_type_name(d->docs[0]->items[0]), "number");
        doc_free(d);
        /* A bare top-level number too. */
        d = json_ok(nums[i].in);
        assert_scalar(d->docs[0], nums[i].text, false);
        doc_free(d);
    }
    struct doc *d = json_ok("[18446744073709551614, 9223372036854775808, -0,"
                            " 42, -9223372036854775807]");
    int64_t v = 7;
    assert_int_equal(doc_get_int64(d->docs[0]->items[0], &v), -ERANGE);
    assert_int_equal(doc_get_int64(d->docs[0]->items[1], &v), -ERANGE);
    assert_int_equal(v, 7);
    assert_int_equal(doc_get_int64(d->docs[0]->items[2], &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(doc_get_int64(d->docs[0]->items[3], &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(doc_get_int64(d->docs[0]->items[4], &v), 0);
    assert_true(v == -INT64_MAX);
    doc_free(d);
}

static void test_json_integer_out_of_range(void **state)
{
    (void)state;
    /* json-c saturates integers outside [INT64_MIN, UINT64_MAX] to those
     * bounds without an error, so an integer that comes out as either is
     * refused rather than read as a different number: the bounds
     * themselves are refused too (see doc.c). */
    static const char *const big[] = {
        "99999999999999999999",           "-99999999999999999999",
        "18446744073709551616",           "-9223372036854775809",
        "18446744073709551615",           "-9223372036854775808",
        "123456789012345678901234567890", NULL};
    for (int i = 0; big[i]; i++) {
        char buf[128];
        snprintf(buf, sizeof(buf), "{\"n\": [1, %s, 2]}", big[i]);
        json_fails(buf, "t.json: JSON parse error: integer out of range "
                        "(read as ");
        json_fails(big[i], "integer out of range");
    }
    json_fails("-99999999999999999999",
               "integer out of range (read as -9223372036854775808, a bound "
               "json-c saturates to; integers must lie strictly between "
               "-9223372036854775808 and 18446744073709551615)");
    /* Whichever of several integers overflows. */
    json_fails("[99999999999999999999, 1]", "read as 18446744073709551615");
    json_fails("[1, -99999999999999999999]", "integer out of range");
}

static void test_json_invalid_numbers(void **state)
{
    (void)state;
    /* json-c takes NaN and Infinity even in strict mode; they are refused
     * after parsing, where no offset is known, as is 1e999 (infinite once
     * read). */
    json_fails("[NaN]", "t.json: JSON parse error: number NaN is not finite");
    json_fails("Infinity", "t.json: JSON parse error:");
    json_fails("Infinity", "number Infinity is not finite");
    json_fails("[-Infinity]", "t.json: JSON parse error:");
    json_fails("[-Infinity]", "number -Infinity is not finite");
    json_fails("{\"a\": [1e999]}", "number 1e999 is not finite");
    json_fails("[-1e999]", "number -1e999 is not finite");
    json_fails("[nan]", "t.json: JSON parse error:");
    json_fails("[-NaN]", "t.json: JSON parse error:");
    json_fails("[-Inf]", "t.json: JSON parse error:");
    json_fails("[01]", "t.json: JSON parse error:");
    json_fails("[+1]", "t.json: JSON parse error:");
    json_fails("[.5]", "t.json: JSON parse error:");
    json_fails("[1e]", "t.json: JSON parse error:");
    json_fails("[-]", "t.json: JSON parse error:");
}

static void test_json_trailing_garbage(void **state)
{
    (void)state;
    json_fails("{\"a\": 1} x", "t.json: JSON parse error: ");
    json_fails("{\"a\": 1} x", "at offset 9");
    json_fails("[1] [2]", "t.json: JSON parse error:");
    json_fails("123abc", "t.json: JSON parse error:");
    /* A NUL byte is not whitespace. */
    parse_fails_len(true, "[1]\0", 4, "at offset 3");
    parse_fails_len(true, "[1,\0 2]", 7, "t.json: JSON parse error:");
    parse_fails_len(true, "1\0", 2, "unexpected character at offset 1");
    parse_fails_len(true, "\"a\" \0", 5, "at offset 4");
    /* Trailing whitespace is fine. */
    struct doc *d = json_ok("[1] \n\t\r\n");
    assert_int_equal(d->n_docs, 1);
    doc_free(d);
}

static void test_json_incomplete(void **state)
{
    (void)state;
    json_fails("{\"a\": ", "t.json: JSON parse error: unexpected end of data "
                           "at offset 6");
    json_fails("[1, 2", "unexpected end of data at offset 5");
    json_fails("\"abc", "unexpected end of data");
    json_fails("-", "t.json: JSON parse error:");
    json_fails("tru", "t.json: JSON parse error:");
    json_fails("[1, 2 ", "unexpected end of data at offset 6");
}

static void test_json_not_json(void **state)
{
    (void)state;
    json_fails("['a']", "t.json: JSON parse error: unexpected character "
                        "at offset 1");
    json_fails("{\"a\": 'b'}", "t.json: JSON parse error: ");
    json_fails("[1, 2,]", "t.json: JSON parse error: ");
    json_fails("{\"a\": 1,}", "t.json: JSON parse error: ");
    json_fails("{a: 1}", "t.json: JSON parse error: ");
    json_fails("[TRUE]", "t.json: JSON parse error: ");
    json_fails("[True]", "t.json: JSON parse error: ");
    json_fails("[nul]", "t.json: JSON parse error: ");
    json_fails("[1, /* c */ 2]", "t.json: JSON parse error: ");
    json_fails("// c\n[1]", "t.json: JSON parse error: ");
    json_fails("[\"\\x\"]", "t.json: JSON parse error: ");
    json_fails("[\"\xff\"]", "t.json: JSON parse error: invalid utf-8 "
                             "string at offset 2");
    json_fails("\xef\xbb\xbf[1]", "t.json: JSON parse error: ");

    /* What json-c's strict mode lets through, which JSON does not allow:
     * single-quoted map keys and raw control characters in strings. */
    struct doc *d = json_ok("{'a': 1}");
    assert_scalar(doc_map_get(d->docs[0], "a"), "1", false);
    doc_free(d);
    d = json_ok("[\"a\tb\"]");
    assert_scalar(d->docs[0]->items[0], "a\tb", true);
    doc_free(d);
}

static void test_json_empty(void **state)
{
    (void)state;
    static const char *const inputs[] = {"", " ", "\n\t\r\n", NULL};
    for (int i = 0; inputs[i]; i++) {
        struct doc *d = json_ok(inputs[i]);
        assert_int_equal(d->n_docs, 0);
        doc_free(d);
    }
    /* A null value is no document, like "--- null" in YAML. */
    static const char *const nulls[] = {"null", " null\n", NULL};
    for (int i = 0; nulls[i]; i++) {
        struct doc *d = json_ok(nulls[i]);
        assert_int_equal(d->n_docs, 0);
        doc_free(d);
    }
    json_fails("null x", "t.json: JSON parse error: ");
    parse_fails_len(true, "null\0", 5, "at offset 4");
    struct doc *d = json_ok("[null]");
    assert_int_equal(d->n_docs, 1);
    assert_true(doc_is_null(d->docs[0]->items[0]));
    doc_free(d);

    d = NULL;
    struct err e = {{0}};
    assert_int_equal(doc_parse_json(NULL, 0, "x", &d, &e), 0);
    assert_int_equal(d->n_docs, 0);
    doc_free(d);
    assert_int_equal(doc_parse_yaml(NULL, 0, "x", &d, &e), 0);
    assert_int_equal(d->n_docs, 0);
    doc_free(d);
}

static void test_json_depth_bomb(void **state)
{
    (void)state;
    char *ok = nested(DOC_MAX_DEPTH, '[', ']');
    struct doc *d = json_ok(ok);
    const struct doc_node *n = d->docs[0];
    int depth = 0;
    while (n && n->type == DOC_SEQ) {
        depth++;
        n = n->n ? n->items[0] : NULL;
    }
    assert_int_equal(depth, DOC_MAX_DEPTH);
    doc_free(d);
    free(ok);

    char *bad = nested(DOC_MAX_DEPTH + 1, '[', ']');
    json_fails(bad, "t.json: JSON parse error: nesting too deep at offset");
    free(bad);
    bad = nested(1000000, '[', ']');
    json_fails(bad, "nesting too deep at offset 128");
    free(bad);
}

static void test_json_node_limit(void **state)
{
    (void)state;
    /* Counted while json-c's tree is copied. */
    size_t n = DOC_MAX_NODES + 1;
    char *s = malloc(2 * n + 2);
    assert_non_null(s);
    s[0] = '[';
    for (size_t i = 0; i < n; i++) {
        s[1 + 2 * i] = '0';
        s[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    s[2 * n + 1] = '\0';
    json_fails(s, "t.json: JSON value has more than 4000000 nodes");
    free(s);
    /* Keys count too. */
    n = DOC_MAX_NODES / 2 + 1;
    s = malloc(16 * n + 2);
    assert_non_null(s);
    size_t o = 0;
    s[o++] = '{';
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(s + o, "\"%zx\":0,", i);
    s[o - 1] = '}';
    s[o] = '\0';
    json_fails(s, "more than 4000000 nodes");
    free(s);
}

static void test_json_duplicate_key(void **state)
{
    (void)state;
    /* json-c keeps the last value of a repeated key, at the place of the
     * first (doc.h): the tree never holds a key twice. */
    struct doc *d = json_ok("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}");
    const struct doc_node *b = doc_map_get(d->docs[0], "b");
    assert_int_equal(b->n, 1);
    assert_string_equal(b->keys[0], "c");
    assert_scalar(b->items[0], "2", false);
    doc_free(d);

    d = json_ok("{\"a\": {\"x\": 1}, \"b\": true, \"a\": 2}");
    const struct doc_node *r = d->docs[0];
    assert_int_equal(r->n, 2);
    assert_string_equal(r->keys[0], "a");
    assert_string_equal(r->keys[1], "b");
    assert_scalar(r->items[0], "2", false);
    assert_scalar(r->items[1], "true", false);
    doc_free(d);

    /* Escapes are decoded before comparing. */
    d = json_ok("{\"ab\": 1, \"a\\u0062\": \"x\"}");
    assert_int_equal(d->docs[0]->n, 1);
    assert_scalar(doc_map_get(d->docs[0], "ab"), "x", true);
    doc_free(d);
}

static void test_json_string_escapes(void **state)
{
    (void)state;
    struct doc *d = json_ok("[\"q\\\"b\\\\s\\/n\\n\", \"\\u00e9\\u20ac\","
                            " \"\\ud83d\\ude00\", \"\\ud800x\", \"\"]");
    const struct doc_node *r = d->docs[0];
    assert_scalar(r->items[0], "q\"b\\s/n\n", true);
    assert_scalar(r->items[1], "\xc3\xa9\xe2\x82\xac", true);
    assert_scalar(r->items[2], "\xf0\x9f\x98\x80", true);
    assert_scalar(r->items[3], "\xef\xbf\xbdx", true); /* lone surrogate */
    assert_scalar(r->items[4], "", true);
    assert_false(doc_is_null(r->items[4]));
    doc_free(d);
    json_fails("[\"a\\u0000b\"]",
               "t.json: JSON parse error: string contains \\u0000");
    json_fails("{\"a\": {\"b\": \"\\u0000\"}}", "string contains \\u0000");
    /* json-c keeps map keys as C strings, cut at a NUL (see doc.c): this
     * cannot be refused. */
    d = json_ok("{\"a\\u0000b\": 1, \"c\": 2}");
    assert_int_equal(d->docs[0]->n, 2);
    assert_string_equal(d->docs[0]->keys[0], "a");
    assert_scalar(doc_map_get(d->docs[0], "a"), "1", false);
    doc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_object),
        cmocka_unit_test(test_json_numbers_keep_text),
        cmocka_unit_test(test_json_integer_out_of_range),
        cmocka_unit_test(test_json_invalid_numbers),
        cmocka_unit_test(test_json_trailing_garbage),
        cmocka_unit_test(test_json_incomplete),
        cmocka_unit_test(test_json_not_json),
        cmocka_unit_test(test_json_empty),
        cmocka_unit_test(test_json_depth_bomb),
        cmocka_unit_test(test_json_node_limit),
        cmocka_unit_test(test_json_duplicate_key),
        cmocka_unit_test(test_json_string_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
