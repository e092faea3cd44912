/* test_doc.c - unit tests for core/doc.c: YAML and JSON parsing into doc
 * trees, limits against hostile input, error messages, typed getters and
 * loading the Kubernetes API fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "err.h"

/* ---- helpers ----------------------------------------------------------- */

static struct doc *yaml_ok(const char *text)
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

static struct doc *json_ok(const char *text)
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
static void parse_fails_len(bool json, const char *text, size_t len,
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

static void yaml_fails(const char *text, const char *want)
{
    parse_fails_len(false, text, strlen(text), want);
}

static void json_fails(const char *text, const char *want)
{
    parse_fails_len(true, text, strlen(text), want);
}

static const struct doc_node *path_get(const struct doc_node *n,
                                       const char *k1, const char *k2)
{
    n = doc_map_get(n, k1);
    return k2 ? doc_map_get(n, k2) : n;
}

static void assert_scalar(const struct doc_node *n, const char *text,
                          bool quoted)
{
    assert_non_null(n);
    assert_int_equal(n->type, DOC_SCALAR);
    assert_string_equal(n->scalar, text);
    assert_int_equal(n->quoted, quoted);
}

/* A string of n copies of open followed by n copies of close. */
static char *nested(size_t n, char open, char close)
{
    char *s = malloc(2 * n + 1);
    assert_non_null(s);
    memset(s, open, n);
    memset(s + n, close, n);
    s[2 * n] = '\0';
    return s;
}

/* ---- YAML -------------------------------------------------------------- */

static void test_yaml_multi_document_lines(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("# queues\n"
                            "apiVersion: kueue.x-k8s.io/v1beta1\n"
                            "kind: ClusterQueue\n"
                            "metadata:\n"
                            "  name: cq\n"
                            "---\n"
                            "kind: LocalQueue\n"
                            "spec:\n"
                            "  clusterQueue: cq\n"
                            "  items:\n"
                            "  - a\n"
                            "  - b\n");
    assert_string_equal(d->file, "t.yaml");
    assert_int_equal(d->n_docs, 2);
    const struct doc_node *r0 = d->docs[0], *r1 = d->docs[1];
    assert_int_equal(r0->type, DOC_MAP);
    assert_int_equal(r0->n, 3);
    assert_int_equal(r0->line, 2);
    assert_string_equal(r0->keys[0], "apiVersion");
    assert_int_equal(doc_map_get(r0, "kind")->line, 3);
    assert_scalar(path_get(r0, "metadata", "name"), "cq", false);
    assert_int_equal(path_get(r0, "metadata", "name")->line, 5);
    assert_int_equal(doc_map_get(r0, "metadata")->line, 5);
    assert_int_equal(r1->line, 7);
    const struct doc_node *items = path_get(r1, "spec", "items");
    assert_int_equal(items->type, DOC_SEQ);
    assert_int_equal(items->n, 2);
    assert_scalar(items->items[1], "b", false);
    assert_int_equal(items->items[0]->line, 11);
    assert_int_equal(items->items[1]->line, 12);
    doc_free(d);
}

static void test_yaml_empty_streams(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "", "\n\n", "# just a comment\n", "---\n", "---\n---\n# x\n...\n",
        "--- ~\n", "--- null\n---\n", NULL};
    for (int i = 0; inputs[i]; i++) {
        struct doc *d = yaml_ok(inputs[i]);
        assert_int_equal(d->n_docs, 0);
        doc_free(d);
    }
}

static void test_yaml_skips_empty_documents(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("---\na: 1\n---\n---\n# nothing\n---\nb: 2\n---\n");
    assert_int_equal(d->n_docs, 2);
    assert_scalar(doc_map_get(d->docs[0], "a"), "1", false);
    assert_scalar(doc_map_get(d->docs[1], "b"), "2", false);
    assert_int_equal(d->docs[1]->line, 7);
    doc_free(d);
}

static void test_yaml_scalar_documents(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("--- hello\n--- \"\"\n--- [ ]\n--- {}\n");
    assert_int_equal(d->n_docs, 4);
    assert_scalar(d->docs[0], "hello", false);
    assert_scalar(d->docs[1], "", true); /* quoted empty: not null */
    assert_int_equal(d->docs[2]->type, DOC_SEQ);
    assert_int_equal(d->docs[2]->n, 0);
    assert_int_equal(d->docs[3]->type, DOC_MAP);
    assert_int_equal(d->docs[3]->n, 0);
    doc_free(d);
}

static void test_yaml_anchors_aliases(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("base: &res\n"
                            "  cpu: 2\n"
                            "  memory: 4Gi\n"
                            "copy: *res\n"
                            "name: &n team-a\n"
                            "again: *n\n"
                            "list: [*n, *res]\n");
    const struct doc_node *r = d->docs[0];
    const struct doc_node *base = doc_map_get(r, "base");
    const struct doc_node *copy = doc_map_get(r, "copy");
    assert_int_equal(copy->type, DOC_MAP);
    assert_ptr_not_equal(base, copy); /* copied, not shared */
    assert_int_equal(copy->n, 2);
    assert_scalar(doc_map_get(copy, "cpu"), "2", false);
    assert_scalar(doc_map_get(copy, "memory"), "4Gi", false);
    /* Copies keep the line of the anchored node (where its anchor is). */
    assert_int_equal(copy->line, base->line);
    assert_int_equal(copy->line, 1);
    assert_int_equal(doc_map_get(copy, "memory")->line, 3);
    assert_scalar(doc_map_get(r, "again"), "team-a", false);
    const struct doc_node *list = doc_map_get(r, "list");
    assert_int_equal(list->n, 2);
    assert_scalar(list->items[0], "team-a", false);
    assert_int_equal(list->items[1]->type, DOC_MAP);
    doc_free(d);
}

static void test_yaml_alias_bomb(void **state)
{
    (void)state;
    /* "Billion laughs": 10^9 scalars once expanded, from a few lines. */
    yaml_fails("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
               "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
               "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
               "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
               "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
               "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
               "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
               "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
               "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n",
               "more than 4000000 nodes");
    /* Also across documents: each document alone is under the limit. */
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    for (int doc = 0; doc < 5; doc++)
        fprintf(f, "---\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
                   "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                   "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                   "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                   "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                   "f: [*e, *e, *e, *e, *e, *e, *e, *e]\n");
    fclose(f);
    yaml_fails(s, "input has more than 4000000 nodes");
    free(s);
}

static void test_yaml_anchor_alias_caps(void **state)
{
    (void)state;
    /* libyaml's loader is quadratic in anchors x aliases: capped. */
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    for (int i = 0; i < 1001; i++)
        fprintf(f, "- &a%d x\n", i);
    fclose(f);
    yaml_fails(s, "t.yaml:1001: more than 1000 anchors in one document");
    free(s);

    f = open_memstream(&s, &len);
    assert_non_null(f);
    fprintf(f, "- &a x\n");
    for (int i = 0; i < 100001; i++)
        fprintf(f, "- *a\n");
    fclose(f);
    yaml_fails(s, "t.yaml:100002: more than 100000 aliases in one document");
    free(s);

    /* The caps are per document. */
    f = open_memstream(&s, &len);
    assert_non_null(f);
    for (int doc = 0; doc < 3; doc++) {
        fprintf(f, "---\n");
        for (int i = 0; i < 1000; i++)
            fprintf(f, "- &a%d x\n", i);
    }
    fclose(f);
    struct doc *d = yaml_ok(s);
    assert_int_equal(d->n_docs, 3);
    assert_int_equal(d->docs[2]->n, 1000);
    doc_free(d);
    free(s);
}

static void test_yaml_node_limit(void **state)
{
    (void)state;
    /* Plain input over the limit is refused before libyaml loads it. */
    size_t n = DOC_MAX_NODES + 1;
    char *s = malloc(2 * n + 3);
    assert_non_null(s);
    s[0] = '[';
    for (size_t i = 0; i < n; i++) {
        s[1 + 2 * i] = '1';
        s[2 + 2 * i] = ',';
    }
    s[2 * n] = ']';
    s[2 * n + 1] = '\0';
    yaml_fails(s, "t.yaml:1: input has more than 4000000 nodes");
    free(s);
}

static void test_yaml_recursive_alias(void **state)
{
    (void)state;
    yaml_fails("a: &x [1, *x]\n", "t.yaml:1: recursive alias");
    yaml_fails("a: *nope\n", "t.yaml:1: found undefined alias");
}

static void test_yaml_depth_bomb(void **state)
{
    (void)state;
    char *ok = nested(DOC_MAX_DEPTH, '[', ']');
    struct doc *d = yaml_ok(ok);
    assert_int_equal(d->n_docs, 1);
    doc_free(d);
    free(ok);

    char *bad = nested(DOC_MAX_DEPTH + 1, '[', ']');
    yaml_fails(bad, "t.yaml:1: nesting deeper than 128 levels");
    free(bad);

    bad = nested(100000, '[', ']');
    yaml_fails(bad, "t.yaml:1: nesting deeper than 128 levels");
    free(bad);
    bad = nested(2000000, '{', '}'); /* quick: stopped at level 129 */
    yaml_fails(bad, "nesting deeper than 128 levels");
    free(bad);

    /* Deep through an alias: 100 levels anchored, then used 50 deep. */
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    fprintf(f, "a: &deep ");
    for (int i = 0; i < 100; i++)
        fputc('[', f);
    for (int i = 0; i < 100; i++)
        fputc(']', f);
    fprintf(f, "\nb: ");
    for (int i = 0; i < 50; i++)
        fputc('[', f);
    fprintf(f, "*deep");
    for (int i = 0; i < 50; i++)
        fputc(']', f);
    fputc('\n', f);
    fclose(f);
    yaml_fails(s, "nesting deeper than 128 levels (through an alias)");
    free(s);
}

static void test_yaml_duplicate_key(void **state)
{
    (void)state;
    yaml_fails("kind: Pod\n"
               "metadata:\n"
               "  name: a\n"
               "  labels: {}\n"
               "  name: b\n",
               "t.yaml:5: duplicate key \"name\"");
    yaml_fails("{a: 1, b: 2, a: 3}\n", "t.yaml:1: duplicate key \"a\"");
}

static void test_yaml_duplicate_key_large_map(void **state)
{
    (void)state;
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "k%02d: %d\n", (i * 7) % 40, i);
    fprintf(f, "k33: again\n"); /* line 41 */
    fprintf(f, "k05: again\n"); /* line 42 */
    fclose(f);
    yaml_fails(s, "t.yaml:41: duplicate key \"k33\"");
    free(s);

    /* No false positives on a large map. */
    f = open_memstream(&s, &len);
    assert_non_null(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "key%d: %d\n", i, i);
    fclose(f);
    struct doc *d = yaml_ok(s);
    assert_int_equal(d->docs[0]->n, 40);
    assert_scalar(doc_map_get(d->docs[0], "key39"), "39", false);
    doc_free(d);
    free(s);
}

static void test_yaml_non_scalar_key(void **state)
{
    (void)state;
    yaml_fails("a: 1\n? [x, y]\n: 2\n", "t.yaml:2: map key is not a scalar");
    yaml_fails("{{a: 1}: 2}\n", "map key is not a scalar");
}

static void test_yaml_parse_error_message(void **state)
{
    (void)state;
    yaml_fails("kind: Pod\nspec: [1, 2\nother: 3\n",
               "t.yaml:3: did not find expected ',' or ']' "
               "(while parsing a flow sequence)");
    yaml_fails("a: 1\n b: 2\n", "t.yaml:2: mapping values are not allowed");
    yaml_fails("a: 'unterminated\n", "t.yaml:");
    /* Bad UTF-8 is found by the reader, which reports a byte offset. */
    yaml_fails("a: 1\nb: \xff\n", "t.yaml:2: invalid leading UTF-8 octet");
}

static void test_yaml_scalar_styles(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("plain: 3\n"
                            "single: '3'\n"
                            "double: \"true\"\n"
                            "lit: |\n"
                            "  line one\n"
                            "  line two\n"
                            "fold: >\n"
                            "  folded\n"
                            "  text\n"
                            "strip: |-\n"
                            "  x\n"
                            "empty:\n"
                            "tilde: ~\n"
                            "esc: \"a\\tb\\u00e9\"\n");
    const struct doc_node *r = d->docs[0];
    assert_scalar(doc_map_get(r, "plain"), "3", false);
    assert_scalar(doc_map_get(r, "single"), "3", true);
    assert_scalar(doc_map_get(r, "double"), "true", true);
    assert_scalar(doc_map_get(r, "lit"), "line one\nline two\n", true);
    assert_int_equal(doc_map_get(r, "lit")->line, 4);
    assert_scalar(doc_map_get(r, "fold"), "folded text\n", true);
    assert_scalar(doc_map_get(r, "strip"), "x", true);
    assert_scalar(doc_map_get(r, "empty"), "", false);
    assert_true(doc_is_null(doc_map_get(r, "empty")));
    assert_true(doc_is_null(doc_map_get(r, "tilde")));
    assert_scalar(doc_map_get(r, "esc"), "a\tb\xc3\xa9", true);
    doc_free(d);
}

static void test_yaml_comments(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("# header\n"
                            "a: 1 # trailing\n"
                            "# between\n"
                            "b: 'x # not a comment'\n"
                            "c: x#y\n"
                            "list:\n"
                            "  # inside\n"
                            "  - 1\n");
    const struct doc_node *r = d->docs[0];
    assert_int_equal(r->n, 4);
    assert_scalar(doc_map_get(r, "a"), "1", false);
    assert_scalar(doc_map_get(r, "b"), "x # not a comment", true);
    assert_scalar(doc_map_get(r, "c"), "x#y", false);
    assert_int_equal(doc_map_get(r, "list")->n, 1);
    assert_int_equal(doc_map_get(r, "list")->items[0]->line, 8);
    doc_free(d);
}

static void test_yaml_flow_style(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("{apiVersion: v1, kind: ConfigMap,\n"
                            " metadata: {name: cm, labels: {a: 'b'}},\n"
                            " data: {list: [1, \"two\", [3]], none: null}}\n");
    const struct doc_node *r = d->docs[0];
    assert_int_equal(r->type, DOC_MAP);
    assert_scalar(doc_map_get(r, "kind"), "ConfigMap", false);
    assert_scalar(path_get(r, "metadata", "name"), "cm", false);
    assert_int_equal(path_get(r, "metadata", "name")->line, 2);
    const struct doc_node *list = path_get(r, "data", "list");
    assert_int_equal(list->n, 3);
    assert_scalar(list->items[1], "two", true);
    assert_int_equal(list->items[2]->type, DOC_SEQ);
    assert_true(doc_is_null(path_get(r, "data", "none")));
    assert_int_equal(path_get(r, "data", "none")->type, DOC_SCALAR);
    doc_free(d);
}

static void test_yaml_nul_in_scalar(void **state)
{
    (void)state;
    yaml_fails("a: \"x\\0y\"\n", "t.yaml:1: scalar contains a NUL character");
}

static void test_yaml_merge_key_is_plain_key(void **state)
{
    (void)state;
    /* Merge keys are not supported (NEEDSWORK in doc.c): "<<" stays. */
    struct doc *d = yaml_ok("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n");
    const struct doc_node *use = doc_map_get(d->docs[0], "use");
    assert_int_equal(use->n, 2);
    assert_int_equal(doc_map_get(use, "<<")->type, DOC_MAP);
    assert_null(doc_map_get(use, "x"));
    doc_free(d);
}

static void test_yaml_unterminated_buffer(void **state)
{
    (void)state;
    /* The buffer need not be NUL-terminated: only len bytes are read. */
    const char buf[] = {'a', ':', ' ', '1', '2', 'X'};
    struct doc *d = NULL;
    struct err e = {{0}};
    assert_int_equal(doc_parse_yaml(buf, 5, NULL, &d, &e), 0);
    assert_string_equal(d->file, "<input>");
    assert_scalar(doc_map_get(d->docs[0], "a"), "12", false);
    doc_free(d);
}

/* ---- JSON -------------------------------------------------------------- */

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
        "99999999999999999999", "-99999999999999999999",
        "18446744073709551616", "-9223372036854775809",
        "18446744073709551615", "-9223372036854775808",
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

/* ---- getters ----------------------------------------------------------- */

static void test_get_int64(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("[42, -7, +3, 0, -0, 9223372036854775807,"
                            " -9223372036854775808, 9223372036854775808,"
                            " -9223372036854775809, 99999999999999999999999,"
                            " '3', \"4\", 1.0, 1e3, 0x10, 010, 1_000, '',"
                            " abc, {a: 1}, [1], ~, 12a, -, +]\n");
    const struct doc_node *r = d->docs[0];
    static const struct {
        int rc;
        int64_t v;
    } want[] = {{0, 42},        {0, -7},       {0, 3},
                {0, 0},         {0, 0},        {0, INT64_MAX},
                {0, INT64_MIN}, {-ERANGE, 0},  {-ERANGE, 0},
                {-ERANGE, 0},   {-EINVAL, 0},  {-EINVAL, 0},
                {-EINVAL, 0},   {-EINVAL, 0},  {-EINVAL, 0},
                {-EINVAL, 0},   {-EINVAL, 0},  {-EINVAL, 0},
                {-EINVAL, 0},   {-EINVAL, 0},  {-EINVAL, 0},
                {-EINVAL, 0},   {-EINVAL, 0},  {-EINVAL, 0},
                {-EINVAL, 0}};
    assert_int_equal(r->n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < r->n; i++) {
        int64_t v = 12345;
        int rc = doc_get_int64(r->items[i], &v);
        if (rc != want[i].rc)
            print_error("item %zu (%s): rc %d\n", i,
                        r->items[i]->scalar ? r->items[i]->scalar : "-", rc);
        assert_int_equal(rc, want[i].rc);
        assert_true(v == (rc == 0 ? want[i].v : 12345));
    }
    int64_t v;
    assert_int_equal(doc_get_int64(NULL, &v), -EINVAL);
    doc_free(d);

    /* " 1" cannot be written as a plain YAML scalar; JSON strings are
     * quoted, so build the node by hand. */
    struct doc_node n = {.type = DOC_SCALAR, .scalar = " 1"};
    assert_int_equal(doc_get_int64(&n, &v), -EINVAL);
    n.scalar = "1 ";
    assert_int_equal(doc_get_int64(&n, &v), -EINVAL);
}

static void test_get_bool(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("{t1: true, t2: True, t3: TRUE, f1: false,"
                            " f2: False, f3: FALSE, y1: yes, y2: On, y3: Y,"
                            " n1: no, n2: OFF, n3: n, q1: 'true',"
                            " q2: \"false\", bad1: tRue, bad2: 1, bad3: '',"
                            " bad4: [true], bad5: ~, bad6: yess}\n");
    const struct doc_node *r = d->docs[0];
    static const char *const trues[] = {"t1", "t2", "t3", "y1", "y2", "y3",
                                        NULL};
    static const char *const falses[] = {"f1", "f2", "f3", "n1", "n2", "n3",
                                         NULL};
    static const char *const bad[] = {"q1",   "q2",   "bad1", "bad2",
                                      "bad3", "bad4", "bad5", "bad6", NULL};
    bool b;
    for (int i = 0; trues[i]; i++) {
        b = false;
        assert_int_equal(doc_get_bool(doc_map_get(r, trues[i]), &b), 0);
        assert_true(b);
    }
    for (int i = 0; falses[i]; i++) {
        b = true;
        assert_int_equal(doc_get_bool(doc_map_get(r, falses[i]), &b), 0);
        assert_false(b);
    }
    for (int i = 0; bad[i]; i++)
        assert_int_equal(doc_get_bool(doc_map_get(r, bad[i]), &b), -EINVAL);
    assert_int_equal(doc_get_bool(NULL, &b), -EINVAL);
    doc_free(d);

    d = json_ok("[true, false, \"true\"]");
    assert_int_equal(doc_get_bool(d->docs[0]->items[0], &b), 0);
    assert_true(b);
    assert_int_equal(doc_get_bool(d->docs[0]->items[1], &b), 0);
    assert_false(b);
    assert_int_equal(doc_get_bool(d->docs[0]->items[2], &b), -EINVAL);
    doc_free(d);
}

static void test_get_string(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("{a: text, b: '3', c: 3, d: true, e: '', f: \"~\","
                            " g: ~, h: null, i: , j: [x], k: {x: 1}}\n");
    const struct doc_node *r = d->docs[0];
    const char *s;
    static const struct {
        const char *key, *text;
    } ok[] = {{"a", "text"}, {"b", "3"}, {"c", "3"},
              {"d", "true"}, {"e", ""},  {"f", "~"}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        s = NULL;
        assert_int_equal(doc_get_string(doc_map_get(r, ok[i].key), &s), 0);
        assert_string_equal(s, ok[i].text);
    }
    static const char *const bad[] = {"g", "h", "i", "j", "k", "absent",
                                      NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(doc_get_string(doc_map_get(r, bad[i]), &s), -EINVAL);
    doc_free(d);
}

static void test_is_null(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("- ~\n- null\n- Null\n- NULL\n-\n- 'null'\n"
                            "- \"\"\n- nil\n- NUll\n- []\n- {}\n- 0\n");
    const struct doc_node *r = d->docs[0];
    static const bool want[] = {true,  true,  true,  true,  true,  false,
                                false, false, false, false, false, false};
    assert_int_equal(r->n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < r->n; i++)
        assert_int_equal(doc_is_null(r->items[i]), want[i]);
    assert_true(doc_is_null(NULL));
    doc_free(d);
}

static void test_type_name(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("[{}, [], ~, '', '3', 3, -3.5, 1e3, .5, .inf, -.Inf,"
                            " .nan, 99999999999999999999, true, off, abc,"
                            " 1.2.3, 0x10, 1e, '-', null]\n");
    const struct doc_node *r = d->docs[0];
    static const char *const want[] = {
        "map",    "list",   "null",   "string", "string",  "number",
        "number", "number", "number", "number", "number",  "number",
        "number", "boolean", "boolean", "string", "string", "string",
        "string", "string", "null"};
    assert_int_equal(r->n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(doc_type_name(r->items[i]), want[i]) != 0)
            print_error("item %zu: %s\n", i, doc_type_name(r->items[i]));
        assert_string_equal(doc_type_name(r->items[i]), want[i]);
    }
    assert_string_equal(doc_type_name(NULL), "null");
    doc_free(d);

    d = json_ok("[\"3\", 3, 1.5, true, null, {}, []]");
    r = d->docs[0];
    static const char *const jwant[] = {"string",  "number", "number",
                                        "boolean", "null",   "map",
                                        "list"};
    for (size_t i = 0; i < r->n; i++)
        assert_string_equal(doc_type_name(r->items[i]), jwant[i]);
    doc_free(d);
}

static void test_map_get(void **state)
{
    (void)state;
    struct doc *d = yaml_ok("{a: 1, b: {c: 2}, '': empty}\n");
    const struct doc_node *r = d->docs[0];
    assert_scalar(doc_map_get(r, "a"), "1", false);
    assert_scalar(path_get(r, "b", "c"), "2", false);
    assert_scalar(doc_map_get(r, ""), "empty", false);
    assert_null(doc_map_get(r, "c"));
    assert_null(doc_map_get(r, "A"));
    assert_null(doc_map_get(doc_map_get(r, "a"), "a")); /* not a map */
    assert_null(doc_map_get(NULL, "a"));
    assert_null(doc_map_get(r, NULL));
    doc_free(d);
    doc_free(NULL);
}

/* ---- files ------------------------------------------------------------- */

static char tmpdir[64];

static char *write_tmp(const char *name, const char *text)
{
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
    assert_non_null(path);
    sprintf(path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int files_setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/test_doc.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int files_teardown(void **state)
{
    (void)state;
    DIR *dir = opendir(tmpdir);
    if (dir) {
        struct dirent *de;
        while ((de = readdir(dir))) {
            char path[512];
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    return rmdir(tmpdir);
}

static void test_load_file(void **state)
{
    (void)state;
    struct doc *d = NULL;
    struct err e = {{0}};

    char *p = write_tmp("pod.yaml", "kind: Pod\n---\nkind: Job\n");
    assert_int_equal(doc_load_file(p, &d, &e), 0);
    assert_int_equal(d->n_docs, 2);
    assert_string_equal(d->file, p);
    assert_int_equal(doc_map_get(d->docs[1], "kind")->line, 3);
    doc_free(d);
    free(p);

    /* JSON: first non-blank byte is '{' or '['; nodes have line 0. */
    p = write_tmp("job.json", " \n\t{\"kind\": \"Job\", \"n\": 1.50}\n");
    assert_int_equal(doc_load_file(p, &d, &e), 0);
    assert_int_equal(d->n_docs, 1);
    assert_scalar(doc_map_get(d->docs[0], "kind"), "Job", true);
    assert_scalar(doc_map_get(d->docs[0], "n"), "1.50", false);
    assert_int_equal(d->docs[0]->line, 0);
    doc_free(d);
    free(p);

    p = write_tmp("list.json", "[1]");
    assert_int_equal(doc_load_file(p, &d, &e), 0);
    assert_int_equal(d->docs[0]->type, DOC_SEQ);
    doc_free(d);
    free(p);

    /* A JSON error names the file. */
    p = write_tmp("bad.json", "{\"a\": 1,}");
    assert_true(doc_load_file(p, &d, &e) < 0);
    assert_null(d);
    assert_non_null(strstr(e.msg, "bad.json: JSON parse error: "));
    free(p);

    p = write_tmp("empty.yaml", "");
    assert_int_equal(doc_load_file(p, &d, &e), 0);
    assert_int_equal(d->n_docs, 0);
    doc_free(d);
    free(p);

    p = write_tmp("blank.yaml", "\n  \n# only a comment\n");
    assert_int_equal(doc_load_file(p, &d, &e), 0);
    assert_int_equal(d->n_docs, 0);
    doc_free(d);
    free(p);
}

static void test_load_file_errors(void **state)
{
    (void)state;
    struct doc *d = (struct doc *)1;
    struct err e = {{0}};
    char path[128];

    snprintf(path, sizeof(path), "%s/missing.yaml", tmpdir);
    assert_int_equal(doc_load_file(path, &d, &e), -ENOENT);
    assert_null(d);
    char want[256];
    snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
    assert_string_equal(e.msg, want);

    assert_int_equal(doc_load_file(tmpdir, &d, &e), -EISDIR);
    assert_non_null(strstr(e.msg, strerror(EISDIR)));

    /* A sparse file just over the limit. */
    snprintf(path, sizeof(path), "%s/huge.yaml", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), ((off_t)64 << 20) + 1), 0);
    fclose(f);
    assert_int_equal(doc_load_file(path, &d, &e), -EFBIG);
    assert_non_null(strstr(e.msg, "huge.yaml: file is larger than 64 MiB"));

    /* A YAML error names file and line. */
    char *p = write_tmp("dup.yaml", "a: 1\n\na: 2\n");
    assert_true(doc_load_file(p, &d, &e) < 0);
    snprintf(want, sizeof(want), "%s:3: duplicate key \"a\"", p);
    assert_string_equal(e.msg, want);
    free(p);
}

/* Every fixture under the Kubernetes API test data directory must parse
 * into one map. All carry "kind" except the watch event, which is
 * {"type", "object"} around an object that has one. */
static const char *k8s_dir(char *buf, size_t size)
{
    struct stat st;
    const char *env = getenv("ORDO_TEST_DATA");
    if (env && *env) {
        /* ORDO_TEST_DATA may name the data root or k8s-api itself. */
        snprintf(buf, size, "%s/k8s-api", env);
        if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
            return buf;
        return env;
    }
    if (stat("tests/data/k8s-api", &st) == 0 && S_ISDIR(st.st_mode))
        return "tests/data/k8s-api";
    return "../shared/data/k8s-api";
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void test_k8s_api_fixtures(void **state)
{
    (void)state;
    char buf[512];
    const char *dirname = k8s_dir(buf, sizeof(buf));
    DIR *dir = opendir(dirname);
    if (!dir) {
        print_message("no fixtures at %s, skipping\n", dirname);
        skip();
    }
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (!ends_with(de->d_name, ".json") && !ends_with(de->d_name, ".yaml"))
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dirname, de->d_name);
        struct doc *d = NULL;
        struct err e = {{0}};
        int rc = doc_load_file(path, &d, &e);
        if (rc != 0)
            print_error("%s\n", e.msg);
        assert_int_equal(rc, 0);
        assert_int_equal(d->n_docs, 1);
        const struct doc_node *r = d->docs[0];
        assert_int_equal(r->type, DOC_MAP);
        const struct doc_node *kind = doc_map_get(r, "kind");
        if (!kind && doc_map_get(r, "type"))
            kind = path_get(r, "object", "kind");
        if (!kind)
            print_error("%s: no kind\n", path);
        assert_non_null(kind);
        const char *s;
        assert_int_equal(doc_get_string(kind, &s), 0);
        if (ends_with(de->d_name, ".yaml"))
            assert_true(r->line >= 1);
        count++;
        doc_free(d);
    }
    closedir(dir);
    print_message("parsed %d fixtures from %s\n", count, dirname);
    assert_true(count > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_multi_document_lines),
        cmocka_unit_test(test_yaml_empty_streams),
        cmocka_unit_test(test_yaml_skips_empty_documents),
        cmocka_unit_test(test_yaml_scalar_documents),
        cmocka_unit_test(test_yaml_anchors_aliases),
        cmocka_unit_test(test_yaml_alias_bomb),
        cmocka_unit_test(test_yaml_anchor_alias_caps),
        cmocka_unit_test(test_yaml_node_limit),
        cmocka_unit_test(test_yaml_recursive_alias),
        cmocka_unit_test(test_yaml_depth_bomb),
        cmocka_unit_test(test_yaml_duplicate_key),
        cmocka_unit_test(test_yaml_duplicate_key_large_map),
        cmocka_unit_test(test_yaml_non_scalar_key),
        cmocka_unit_test(test_yaml_parse_error_message),
        cmocka_unit_test(test_yaml_scalar_styles),
        cmocka_unit_test(test_yaml_comments),
        cmocka_unit_test(test_yaml_flow_style),
        cmocka_unit_test(test_yaml_nul_in_scalar),
        cmocka_unit_test(test_yaml_merge_key_is_plain_key),
        cmocka_unit_test(test_yaml_unterminated_buffer),
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
        cmocka_unit_test(test_get_int64),
        cmocka_unit_test(test_get_bool),
        cmocka_unit_test(test_get_string),
        cmocka_unit_test(test_is_null),
        cmocka_unit_test(test_type_name),
        cmocka_unit_test(test_map_get),
        cmocka_unit_test_setup_teardown(test_load_file, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(test_load_file_errors, files_setup,
                                        files_teardown),
        cmocka_unit_test(test_k8s_api_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
