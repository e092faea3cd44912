/* test_doc.c - unit tests for core/doc.c and core/doc_load.c: typed
 * getters, type names, map lookups, loading files (and pipes) and the
 * Kubernetes API fixtures. The parsers have test_doc_yaml.c and
 * test_doc_json.c. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "doc.h"
#include "doc_helpers.h"
#include "err.h"

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

/* doc_parse() reads JSON when the first non-blank byte opens an object or
 * an array, YAML otherwise (YAML flow style is JSON's syntax too, but only
 * JSON nodes have line 0). */
static void test_parse_picks_parser(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum doc_type type;
        unsigned line; /* of the root */
    } cases[] = {
        {" \r\n\t{\"a\": 1}", DOC_MAP, 0},
        {"[1, 2]", DOC_SEQ, 0},
        {"\n{a: 1}", DOC_MAP, 0}, /* YAML flow style, read as JSON: fails */
        {"a: 1\n", DOC_MAP, 1},
        {"# {\n[1]\n", DOC_SEQ, 2},
        {"- {\"a\": 1}\n", DOC_SEQ, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct doc *d = NULL;
        struct err e = {{0}};
        int rc = doc_parse(cases[i].text, strlen(cases[i].text), "t", &d, &e);
        if (i == 2) {
            assert_true(rc < 0);
            assert_non_null(strstr(e.msg, "t: JSON parse error: "));
            continue;
        }
        if (rc != 0)
            print_error("case %zu: %s\n", i, e.msg);
        assert_int_equal(rc, 0);
        assert_int_equal(d->n_docs, 1);
        assert_int_equal(d->docs[0]->type, cases[i].type);
        assert_int_equal(d->docs[0]->line, cases[i].line);
        doc_free(d);
    }
    /* Nothing at all is YAML's empty stream. */
    struct doc *d = NULL;
    struct err e = {{0}};
    assert_int_equal(doc_parse(NULL, 0, "t", &d, &e), 0);
    assert_int_equal(d->n_docs, 0);
    doc_free(d);
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

/* A pipe has no size to read ahead of time: the buffer grows from 4 KiB
 * while it is read (64 KiB here). */
static void test_load_file_pipe(void **state)
{
    (void)state;
    enum { N_ITEMS = 8192 }; /* "- 1234567\n" each */
    char path[128];
    snprintf(path, sizeof(path), "%s/pipe.yaml", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(path, "w");
        for (int i = 0; f && i < N_ITEMS; i++)
            fprintf(f, "- %07d\n", i);
        _exit(f && fclose(f) == 0 ? 0 : 1);
    }
    struct doc *d = NULL;
    struct err e = {{0}};
    int rc = doc_load_file(path, &d, &e);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (rc != 0)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(d->n_docs, 1);
    const struct doc_node *seq = d->docs[0];
    assert_int_equal(seq->type, DOC_SEQ);
    assert_int_equal(seq->n, N_ITEMS);
    assert_scalar(seq->items[0], "0000000", false);
    assert_scalar(seq->items[N_ITEMS - 1], "0008191", false);
    assert_int_equal(seq->items[N_ITEMS - 1]->line, N_ITEMS);
    doc_free(d);
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
        cmocka_unit_test(test_get_int64),
        cmocka_unit_test(test_get_bool),
        cmocka_unit_test(test_get_string),
        cmocka_unit_test(test_is_null),
        cmocka_unit_test(test_type_name),
        cmocka_unit_test(test_map_get),
        cmocka_unit_test(test_parse_picks_parser),
        cmocka_unit_test_setup_teardown(test_load_file, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(test_load_file_errors, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(test_load_file_pipe, files_setup,
                                        files_teardown),
        cmocka_unit_test(test_k8s_api_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

