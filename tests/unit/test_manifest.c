/* test_manifest.c - loading manifest files and directories: every error is
 * reported with its file and line, nothing valid is lost, Lists unpacked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "manifest.h"
#include "test_helpers.h"

struct collected {
    int n;
    char msgs[8][ERR_MSG_MAX];
};

static void collect(const struct err *e, void *userdata)
{
    struct collected *c = userdata;
    if (c->n < 8)
        strcpy(c->msgs[c->n], e->msg);
    c->n++;
}

static void data_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/manifests/%s", test_data_dir(), rel);
}

static size_t count_kind(const struct manifest_set *s, enum object_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->objects[i]->kind == k;
    return n;
}

static void test_good_dir(void **state)
{
    char path[1024];
    struct manifest_set s;
    struct collected c = {0};
    manifest_set_init(&s);
    data_path(path, sizeof(path), "good");
    assert_int_equal(manifest_load_path(&s, path, collect, &c), 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(s.n_errors, 0);
    assert_int_equal(s.n_ignored, 1); /* the ConfigMap */
    assert_int_equal(s.n, 5);
    /* jobs.json sorts first; the List was unpacked in order */
    assert_int_equal(s.objects[0]->kind, OBJ_JOB);
    assert_int_equal(s.objects[1]->kind, OBJ_NAMESPACE);
    assert_int_equal(count_kind(&s, OBJ_CLUSTER_QUEUE), 1);
    assert_int_equal(count_kind(&s, OBJ_LOCAL_QUEUE), 1);
    assert_int_equal(count_kind(&s, OBJ_RESOURCE_FLAVOR), 1);
    /* a JSON number as a quantity: 1.5 bytes rounds up to 1500m */
    assert_int_equal(
        resource_list_get(&s.objects[0]->u.job.spec.template.spec.requests,
                          "memory"),
        1500);
    assert_string_equal(s.objects[2]->file + strlen(s.objects[2]->file) -
                            strlen("queues.yaml"),
                        "queues.yaml");
    manifest_set_release(&s);
}

static void test_bad_dir_reports_all(void **state)
{
    char path[1024];
    struct manifest_set s;
    struct collected c = {0};
    manifest_set_init(&s);
    data_path(path, sizeof(path), "bad");
    assert_int_equal(manifest_load_path(&s, path, collect, &c), -EINVAL);
    assert_int_equal(c.n, 3);
    assert_int_equal(s.n_errors, 3);
    assert_contains(c.msgs[0], "broken.yaml:12: ClusterQueue team-b: "
                               "spec.resourceGroups[0].flavors[0]."
                               "resources[0].nominalQuota: invalid quantity "
                               "\"5 Gi\"");
    assert_contains(c.msgs[1], "broken.yaml:28: Job default/report: "
                               "spec.parallelism: expected an integer");
    assert_contains(c.msgs[2], "syntax.yaml:");
    /* the valid Node between the two bad documents is kept */
    assert_int_equal(s.n, 1);
    assert_int_equal(s.objects[0]->kind, OBJ_NODE);
    manifest_set_release(&s);
}

static void test_missing_path(void **state)
{
    struct manifest_set s;
    struct collected c = {0};
    manifest_set_init(&s);
    assert_int_equal(manifest_load_path(&s, "/nonexistent/x.yaml", collect, &c),
                     -ENOENT);
    assert_int_equal(c.n, 1);
    assert_contains(c.msgs[0], "/nonexistent/x.yaml: ");
    manifest_set_release(&s);
    manifest_set_release(NULL);
}

static void test_buffer(void **state)
{
    const char *yaml = "---\n---\napiVersion: v1\nkind: Namespace\n"
                       "metadata: {name: a}\n---\n# only a comment\n";
    struct manifest_set s;
    manifest_set_init(&s);
    assert_int_equal(manifest_load_buffer(&s, yaml, strlen(yaml), "b.yaml",
                                          NULL, NULL),
                     0);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.objects[0]->meta.name, "a");
    manifest_set_release(&s);
}

#define NS_DOC(name)                                                           \
    "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: " name "}\n"

/* A lowered cap: the document past it is reported once with its file and
 * line, what came before is kept, and the set takes nothing more. */
static void test_object_cap(void **state)
{
    const char *yaml = NS_DOC("a")
        NS_DOC("b") "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "
                    "c}\n" NS_DOC("d") NS_DOC("e");
    struct manifest_set s;
    struct collected c = {0};
    manifest_set_init(&s);
    assert_int_equal(s.max_objects, MANIFEST_MAX_OBJECTS);
    assert_int_equal(MANIFEST_MAX_OBJECTS, 1000000);
    s.max_objects = 3; /* the ConfigMap counts too */
    assert_int_equal(
        manifest_load_buffer(&s, yaml, strlen(yaml), "big.yaml", collect, &c),
        -E2BIG);
    assert_int_equal(c.n, 1);
    assert_int_equal(s.n_errors, 1);
    assert_contains(c.msgs[0], "big.yaml:14: more than 3 objects in the "
                               "manifests (the limit of one manifest set); "
                               "the rest is not read");
    assert_int_equal(s.n, 2);
    assert_int_equal(s.n_ignored, 1);
    assert_true(s.capped);
    /* nothing more is read, nor reported again */
    assert_int_equal(
        manifest_load_buffer(&s, yaml, strlen(yaml), "more.yaml", collect, &c),
        -E2BIG);
    char path[1024];
    data_path(path, sizeof(path), "good");
    assert_int_equal(manifest_load_path(&s, path, collect, &c), -E2BIG);
    assert_int_equal(c.n, 1);
    assert_int_equal(s.n, 2);
    manifest_set_release(&s);

    /* exactly at the cap is fine */
    manifest_set_init(&s);
    s.max_objects = 5;
    assert_int_equal(
        manifest_load_buffer(&s, yaml, strlen(yaml), "big.yaml", NULL, NULL),
        0);
    assert_int_equal(s.n, 4);
    manifest_set_release(&s);
}

/* Items of a List count one each; in a directory, loading stops at the file
 * where the cap is passed. */
static void test_object_cap_list_and_dir(void **state)
{
    const char *json = "{\"apiVersion\": \"v1\", \"kind\": \"List\", "
                       "\"items\": [{\"apiVersion\": \"v1\", \"kind\": "
                       "\"Namespace\", \"metadata\": {\"name\": \"a\"}}, "
                       "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", "
                       "\"metadata\": {\"name\": \"b\"}}]}";
    struct manifest_set s;
    struct collected c = {0};
    manifest_set_init(&s);
    s.max_objects = 1;
    assert_int_equal(
        manifest_load_buffer(&s, json, strlen(json), "list.json", collect, &c),
        -E2BIG);
    assert_int_equal(s.n, 1);
    assert_int_equal(c.n, 1);
    assert_contains(c.msgs[0], "list.json: more than 1 objects");
    manifest_set_release(&s);

    /* good/: jobs.json (a List of a Job and a Namespace) sorts first, then
     * queues.yaml, whose first document is one too many */
    char path[1024];
    memset(&c, 0, sizeof(c));
    manifest_set_init(&s);
    s.max_objects = 2;
    data_path(path, sizeof(path), "good");
    assert_int_equal(manifest_load_path(&s, path, collect, &c), -E2BIG);
    assert_int_equal(c.n, 1);
    assert_int_equal(s.n_documents, 2);
    assert_contains(c.msgs[0], "good/queues.yaml:");
    assert_contains(c.msgs[0], ": more than 2 objects");
    assert_int_equal(s.n, 2);
    manifest_set_release(&s);
}

/* Ordo's own simulation report among the manifests (a run's --report into
 * their directory) is skipped with a note, not an error; anything else
 * without a kind still is one. */
static void test_sim_report_skipped(void **state)
{
    (void)state;
    const char *report = "{\"schema\": \"ordo.dev/sim-report/v1\", "
                         "\"endTime\": 3, \"workloads\": [], "
                         "\"clusterQueues\": []}";
    struct collected errors = {0}, notes = {0};
    struct manifest_set s;
    manifest_set_init(&s);
    s.on_note = collect;
    s.note_data = &notes;
    assert_int_equal(manifest_load_buffer(&s, report, strlen(report),
                                          "dir/report.json", collect, &errors),
                     0);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.n_errors, 0);
    assert_int_equal(s.n_reports, 1);
    assert_int_equal(errors.n, 0);
    assert_int_equal(notes.n, 1);
    assert_string_equal(notes.msgs[0],
                        "note: dir/report.json: an Ordo simulation report "
                        "(schema ordo.dev/sim-report/v1), not a manifest: "
                        "skipped");

    /* Another schema is no report of ours: an error as before. */
    const char *other = "{\"schema\": \"ordo.dev/sim-report/v2\"}";
    assert_int_equal(manifest_load_buffer(&s, other, strlen(other), "o.json",
                                          collect, &errors),
                     -EINVAL);
    assert_int_equal(errors.n, 1);
    assert_contains(errors.msgs[0], "o.json");
    assert_contains(errors.msgs[0], "kind");
    assert_int_equal(s.n_reports, 1);
    manifest_set_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_dir),
        cmocka_unit_test(test_bad_dir_reports_all),
        cmocka_unit_test(test_missing_path),
        cmocka_unit_test(test_buffer),
        cmocka_unit_test(test_object_cap),
        cmocka_unit_test(test_object_cap_list_and_dir),
        cmocka_unit_test(test_sim_report_skipped),
    };
    return cmocka_run_group_tests_name("manifest", tests, NULL, NULL);
}
