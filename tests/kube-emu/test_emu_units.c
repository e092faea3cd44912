/* test_emu_units.c - unit tests of the emulator's selectors, patches and
 * store (resourceVersions, preconditions, no-op writes, finalizers,
 * garbage collection, the change ring). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "emu.h"
#include "emu_proc.h"

static struct json_object *J(const char *s)
{
    struct json_object *o = json_tokener_parse(s);
    assert_non_null(o);
    return o;
}

static bool sel(const char *labels, const char *fields, const char *obj)
{
    struct emu_sel *s = NULL;
    struct emu_err err = {0};
    struct json_object *o = J(obj);
    assert_int_equal(emu_sel_parse(labels, fields, &s, &err), 0);
    bool m = emu_sel_match(s, o);
    emu_sel_free(s);
    json_object_put(o);
    return m;
}

static void test_labels(void **state)
{
    (void)state;
    const char *o = "{\"metadata\":{\"labels\":{\"app\":\"web\",\"t\":\"1\"}}}";
    assert_true(sel("app=web", NULL, o));
    assert_true(sel("app==web", NULL, o));
    assert_false(sel("app!=web", NULL, o));
    assert_true(sel("app!=db", NULL, o));
    assert_true(sel("app in (db, web)", NULL, o));
    assert_false(sel("app notin (db,web),t", NULL, o));
    assert_true(sel("t,!missing", NULL, o));
    assert_false(sel("missing", NULL, o));
    assert_true(sel("missing!=x", NULL, o)); /* != holds when absent */
    assert_true(sel("", "", o));
}

static void test_fields(void **state)
{
    (void)state;
    const char *o = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\"},"
                    "\"spec\":{\"nodeName\":\"n1\",\"unschedulable\":false},"
                    "\"status\":{\"phase\":\"Running\"}}";
    assert_true(sel(NULL, "metadata.name=p,metadata.namespace=a", o));
    assert_true(sel(NULL, "spec.nodeName=n1,status.phase!=Succeeded", o));
    assert_false(sel(NULL, "spec.nodeName=", o));
    assert_true(sel(NULL, "spec.schedulerName=", o));
    assert_true(sel(NULL, "spec.unschedulable=false", o));
}

static void test_bad_selector(void **state)
{
    (void)state;
    struct emu_sel *s = NULL;
    struct emu_err err = {0};
    assert_int_equal(emu_sel_parse("app in (a", NULL, &s, &err), -EINVAL);
    assert_int_equal(err.code, 400);
    assert_non_null(strstr(err.message, "unable to parse requirement"));
    assert_int_equal(emu_sel_parse(NULL, "justaname", &s, &err), -EINVAL);
}

static void assert_json(struct json_object *got, const char *want)
{
    struct json_object *w = J(want);
    if (!json_object_equal(got, w))
        fail_msg("got %s, want %s", json_object_to_json_string(got), want);
    json_object_put(w);
}

static void test_merge_patch(void **state)
{
    (void)state;
    struct json_object *d = J("{\"a\":{\"b\":1,\"c\":2},\"l\":[1,2]}"), *p, *o;
    p = J("{\"a\":{\"b\":null,\"d\":3},\"l\":[3]}");
    assert_int_equal(emu_patch_merge(d, p, &o), 0);
    assert_json(o, "{\"a\":{\"c\":2,\"d\":3},\"l\":[3]}");
    assert_json(d, "{\"a\":{\"b\":1,\"c\":2},\"l\":[1,2]}"); /* untouched */
    json_object_put(o);
    json_object_put(p);
    p = J("[1]");
    assert_int_equal(emu_patch_merge(d, p, &o), -EINVAL);
    json_object_put(p);
    json_object_put(d);
}

static void test_json_patch(void **state)
{
    (void)state;
    struct json_object *d = J("{\"a\":[1,3],\"b\":{\"x/y\":1}}"), *p, *o;
    struct emu_err err = {0};
    p = J("[{\"op\":\"add\",\"path\":\"/a/1\",\"value\":2},"
          "{\"op\":\"add\",\"path\":\"/a/-\",\"value\":4},"
          "{\"op\":\"replace\",\"path\":\"/b/x~1y\",\"value\":5},"
          "{\"op\":\"copy\",\"from\":\"/a/0\",\"path\":\"/c\"},"
          "{\"op\":\"move\",\"from\":\"/c\",\"path\":\"/d\"},"
          "{\"op\":\"test\",\"path\":\"/d\",\"value\":1},"
          "{\"op\":\"remove\",\"path\":\"/a/0\"}]");
    assert_int_equal(emu_patch_json(d, p, &o, &err), 0);
    assert_json(o, "{\"a\":[2,3,4],\"b\":{\"x/y\":5},\"d\":1}");
    json_object_put(o);
    json_object_put(p);
    p = J("[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":9}]");
    assert_int_equal(emu_patch_json(d, p, &o, &err), -EINVAL);
    assert_int_equal(err.code, 422);
    json_object_put(p);
    p = J("[{\"op\":\"remove\",\"path\":\"/nope\"}]");
    assert_int_equal(emu_patch_json(d, p, &o, &err), -EINVAL);
    json_object_put(p);
    json_object_put(d);
}

static void test_strategic_patch(void **state)
{
    (void)state;
    struct json_object *d, *p, *o;
    d = J("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\","
          "\"args\":[\"1\"]},{\"name\":\"b\",\"image\":\"y\"}],"
          "\"tolerations\":[{\"key\":\"k\"}]},"
          "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
          "\"False\"}]},\"metadata\":{\"finalizers\":[\"f1\"]}}");
    p = J("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x2\"},"
          "{\"name\":\"b\",\"$patch\":\"delete\"},{\"name\":\"c\",\"image\":"
          "\"z\"}],\"tolerations\":[{\"key\":\"j\"}],"
          "\"$setElementOrder/containers\":[{\"name\":\"a\"}]},"
          "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
          "\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]},"
          "\"metadata\":{\"finalizers\":[\"f2\"]}}");
    assert_int_equal(emu_patch_strategic(d, p, &o), 0);
    assert_json(o, "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":"
                   "\"x2\",\"args\":[\"1\"]},{\"name\":\"c\",\"image\":\"z\"}],"
                   "\"tolerations\":[{\"key\":\"j\"}]},"
                   "\"status\":{\"conditions\":[{\"type\":\"Ready\","
                   "\"status\":\"True\"},{\"type\":\"PodScheduled\","
                   "\"status\":\"True\"}]},"
                   "\"metadata\":{\"finalizers\":[\"f1\",\"f2\"]}}");
    json_object_put(o);
    json_object_put(p);
    p = J("{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"f1\"]},"
          "\"spec\":{\"$retainKeys\":[\"containers\"],\"tolerations\":null},"
          "\"status\":{\"$patch\":\"replace\",\"phase\":\"Running\"}}");
    assert_int_equal(emu_patch_strategic(d, p, &o), 0);
    assert_json(o, "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\","
                   "\"args\":[\"1\"]},{\"name\":\"b\",\"image\":\"y\"}]},"
                   "\"status\":{\"phase\":\"Running\"},"
                   "\"metadata\":{\"finalizers\":[]}}");
    json_object_put(o);
    json_object_put(p);
    json_object_put(d);
}

static int setup_store(void **state)
{
    (void)state;
    struct json_object *out;
    struct emu_err err = {0};
    assert_int_equal(emu_store_init(4), 0);
    assert_int_equal(
        emu_store_create(emu_k("namespaces"),
                         J("{\"metadata\":{\"name\":\"default\"}}"), &out,
                         &err),
        0);
    return 0;
}

static int teardown_store(void **state)
{
    (void)state;
    emu_store_free();
    return 0;
}

static struct json_object *mk(int kind, const char *s)
{
    struct json_object *out = NULL;
    struct emu_err err = {0};
    assert_int_equal(emu_store_create(kind, J(s), &out, &err), 0);
    return out;
}

static void test_store_versions(void **state)
{
    (void)state;
    int cms = emu_k("configmaps");
    struct emu_err err = {0};
    struct json_object *a = mk(cms, "{\"metadata\":{\"name\":\"a\","
                                    "\"namespace\":\"default\"},\"data\":{}}");
    char rv[32];
    snprintf(rv, sizeof(rv), "%s", emu_path_str(a, "metadata.resourceVersion"));
    int64_t before = emu.rv;
    struct json_object *out;
    /* The same content again: no new version, no event. */
    struct json_object *same = emu_copy(a);
    assert_int_equal(emu_store_update(cms, same, NULL, &out, &err), 0);
    assert_int_equal(emu.rv, before);
    /* A stale resourceVersion: 409 Conflict. */
    assert_int_equal(
        emu_store_update(cms,
                         J("{\"metadata\":{\"name\":\"a\",\"namespace\":"
                           "\"default\",\"resourceVersion\":\"1\"},"
                           "\"data\":{\"x\":\"1\"}}"),
                         NULL, &out, &err),
        -EINVAL);
    assert_int_equal(err.code, 409);
    assert_string_equal(err.reason, "Conflict");
    /* An unconditional update gets a new version and keeps the uid. */
    const char *uid = emu_path_str(a, "metadata.uid");
    char u[64];
    snprintf(u, sizeof(u), "%s", uid);
    assert_int_equal(emu_store_update(cms,
                                      J("{\"metadata\":{\"name\":\"a\","
                                        "\"namespace\":\"default\"},"
                                        "\"data\":{\"x\":\"1\"}}"),
                                      NULL, &out, &err),
                     0);
    assert_int_equal(emu.rv, before + 1);
    assert_string_equal(emu_path_str(out, "metadata.uid"), u);
    assert_string_not_equal(emu_path_str(out, "metadata.resourceVersion"), rv);
    /* Creating in a missing namespace: 404 naming it. */
    assert_int_equal(emu_store_create(cms,
                                      J("{\"metadata\":{\"name\":\"b\","
                                        "\"namespace\":\"nowhere\"}}"),
                                      &out, &err),
                     -EINVAL);
    assert_int_equal(err.code, 404);
    assert_non_null(strstr(err.message, "nowhere"));
}

static void test_store_gc_finalizers(void **state)
{
    (void)state;
    int jobs = emu_k("jobs"), pods = emu_k("pods"), cms = emu_k("configmaps");
    struct emu_err err = {0};
    struct json_object *j = mk(jobs, "{\"metadata\":{\"name\":\"j\","
                                     "\"namespace\":\"default\"},\"spec\":{}}");
    char buf[512], uid[64];
    snprintf(uid, sizeof(uid), "%s", emu_path_str(j, "metadata.uid"));
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
             "\"ownerReferences\":[{\"uid\":\"%s\",\"kind\":\"Job\"}]},"
             "\"spec\":{}}",
             uid);
    mk(pods, buf);
    struct json_object *last;
    assert_int_equal(emu_store_delete(jobs, "default", "j", "wrong", NULL,
                                      false, &last, &err),
                     -EBUSY);
    assert_int_equal(err.code, 409);
    assert_int_equal(
        emu_store_delete(jobs, "default", "j", uid, NULL, false, &last, &err),
        0);
    json_object_put(last);
    assert_null(emu_store_get(pods, "default", "p"));
    /* A finalizer keeps the object, marked, until it is removed. */
    mk(cms, "{\"metadata\":{\"name\":\"f\",\"namespace\":\"default\","
            "\"finalizers\":[\"x\"]}}");
    assert_int_equal(
        emu_store_delete(cms, "default", "f", NULL, NULL, false, &last, &err),
        0);
    json_object_put(last);
    struct json_object *f = emu_store_get(cms, "default", "f");
    assert_non_null(f);
    assert_non_null(emu_path(f, "metadata.deletionTimestamp"));
    struct json_object *n = emu_copy(f), *out;
    json_object_object_del(emu_path(n, "metadata"), "finalizers");
    assert_int_equal(emu_store_update(cms, n, NULL, &out, &err), 0);
    assert_null(emu_store_get(cms, "default", "f"));
    /* The ring keeps 4 changes: older versions are gone. */
    assert_true(emu_store_oldest() > 0);
    assert_true(emu_store_oldest() == emu.rv - 4);
}

static void test_events_view(void **state)
{
    (void)state;
    int core = emu_k("events"), newer = -1;
    for (size_t i = 0; i < emu_nkinds; i++)
        if (!strcmp(emu_kinds[i].group, "events.k8s.io"))
            newer = (int)i;
    assert_true(newer >= 0);
    assert_int_equal(emu_kinds[newer].storage, core);
    struct json_object *o = J("{\"involvedObject\":{\"name\":\"p\"},"
                              "\"message\":\"m\",\"count\":2}");
    struct json_object *v = emu_view(newer, o);
    assert_json(v, "{\"regarding\":{\"name\":\"p\"},\"note\":\"m\","
                   "\"deprecatedCount\":2,\"apiVersion\":\"events.k8s.io/v1\","
                   "\"kind\":\"Event\"}");
    json_object_put(v);
    json_object_put(o);
}

/* The emulator as a child process: it listens, writes a kubeconfig with
 * its URL and token, and exits 0 on SIGTERM. */
static void test_proc(void **state)
{
    (void)state;
    struct emu_proc p;
    const char *args[] = {"--kubelet", NULL};
    assert_int_equal(emu_proc_start(&p, args), 0);
    assert_int_equal(strncmp(p.server, "http://127.0.0.1:", 17), 0);
    assert_true(strlen(p.token) >= 16);
    assert_int_equal(emu_proc_stop(&p), 0);
    assert_int_equal(emu_proc_stop(&p), 0); /* twice is harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_bad_selector),
        cmocka_unit_test(test_merge_patch),
        cmocka_unit_test(test_json_patch),
        cmocka_unit_test(test_strategic_patch),
        cmocka_unit_test_setup_teardown(test_store_versions, setup_store,
                                        teardown_store),
        cmocka_unit_test_setup_teardown(test_store_gc_finalizers, setup_store,
                                        teardown_store),
        cmocka_unit_test(test_events_view),
        cmocka_unit_test(test_proc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
