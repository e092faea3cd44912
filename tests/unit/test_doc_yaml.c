/* test_doc_yaml.c - unit tests for core/doc_yaml.c: YAML parsing into doc
 * trees (documents, lines, anchors and aliases, scalar styles), limits
 * against hostile input and error messages. */
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
    static const char *const inputs[] = {"",
                                         "\n\n",
                                         "# just a comment\n",
                                         "---\n",
                                         "---\n---\n# x\n...\n",
                                         "--- ~\n",
                                         "--- null\n---\n",
                                         NULL};
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
