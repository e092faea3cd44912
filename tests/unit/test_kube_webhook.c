/* test_kube_webhook.c - unit tests for sched/backend/kube/kube_webhook.c:
 * AdmissionReviews of Pods, Jobs and JobSets answered with the JSONPatch
 * the rule asks for (decoded back from base64), owners from a fake cache,
 * and malformed reviews answered 400 with what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "arena.h"
#include "kube_webhook.h"
#include "strmap.h"

/* ---- a fake cache ------------------------------------------------------- */

struct fake {
    struct arena *a;
    struct object objs[8];
    char keys[8][128];
    size_t n;
};

static const struct object *fake_get(void *data, enum object_kind k,
                                     const char *key)
{
    struct fake *f = data;
    for (size_t i = 0; i < f->n; i++)
        if (f->objs[i].kind == k && strcmp(f->keys[i], key) == 0)
            return &f->objs[i];
    return NULL;
}

static struct object *fake_add(struct fake *f, enum object_kind k,
                               const char *ns, const char *name,
                               const char *queue, const char *sched)
{
    struct object *o = &f->objs[f->n];
    *o = (struct object){.kind = k};
    o->meta.name = name;
    o->meta.namespace_ = ns;
    snprintf(f->keys[f->n], sizeof(f->keys[0]), "%s%s%s", ns ? ns : "",
             ns ? "/" : "", name);
    f->n++;
    if (queue)
        assert_int_equal(
            strmap_set(&o->meta.labels, f->a, QUEUE_RULE_LABEL_QUEUE, queue),
            0);
    if (k == OBJ_JOB)
        o->u.job.spec.template.spec.scheduler_name = sched;
    return o;
}

/* ---- helpers ------------------------------------------------------------ */

static int b64v(char c)
{
    const char *t =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(t, c);
    return c && p ? (int)(p - t) : -1;
}

static char *unbase64(const char *s)
{
    size_t n = strlen(s);
    char *out = calloc(n, 1), *p = out;
    assert_non_null(out);
    assert_int_equal(n % 4, 0);
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int j = 0; j < 4; j++)
            v[j] = s[i + j] == '=' ? 0 : b64v(s[i + j]);
        assert_true(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0);
        unsigned w = (unsigned)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        *p++ = (char)(w >> 16);
        if (s[i + 2] != '=')
            *p++ = (char)(w >> 8 & 255);
        if (s[i + 3] != '=')
            *p++ = (char)(w & 255);
    }
    return out;
}

/* A review of kind/op in ns with object obj (JSON text). */
static char *review(const char *kind, const char *op, const char *ns,
                    const char *obj)
{
    char *s = NULL;
    assert_true(asprintf(&s,
                         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                         "\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
                         "\"kind\":{\"group\":\"\",\"version\":\"v1\","
                         "\"kind\":\"%s\"},\"operation\":\"%s\","
                         "\"namespace\":\"%s\",\"object\":%s}}",
                         kind, op, ns, obj) > 0);
    return s;
}

/* Answers text; expects 200 and returns the decoded patch (NULL: none). */
static char *patch_of(const struct kube_webhook *w, const char *text,
                      struct kube_webhook_outcome *out)
{
    char *body = NULL;
    unsigned code = kube_webhook_review(w, text, strlen(text), &body, out);
    if (code != 200)
        fprintf(stderr, "answer %u: %s", code, body ? body : "(null)");
    assert_int_equal(code, 200);
    struct json_object *o = json_tokener_parse(body);
    assert_non_null(o);
    struct json_object *resp, *v;
    assert_true(json_object_object_get_ex(o, "response", &resp));
    assert_true(json_object_object_get_ex(resp, "uid", &v));
    assert_string_equal(json_object_get_string(v), "u-1");
    assert_true(json_object_object_get_ex(resp, "allowed", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(o, "apiVersion", &v));
    assert_string_equal(json_object_get_string(v), "admission.k8s.io/v1");
    char *patch = NULL;
    if (json_object_object_get_ex(resp, "patch", &v)) {
        patch = unbase64(json_object_get_string(v));
        assert_true(json_object_object_get_ex(resp, "patchType", &v));
        assert_string_equal(json_object_get_string(v), "JSONPatch");
    }
    json_object_put(o);
    free(body);
    return patch;
}

static char *answer(const struct kube_webhook *w, const char *kind,
                    const char *op, const char *ns, const char *obj,
                    struct kube_webhook_outcome *out)
{
    char *r = review(kind, op, ns, obj);
    char *p = patch_of(w, r, out);
    free(r);
    return p;
}

#define SET_POD                                                                \
    "[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"ordo-"      \
    "scheduler\"}]"

/* ---- tests -------------------------------------------------------------- */

static void test_labelled_pod(void **state)
{
    (void)state;
    struct kube_webhook w = {0};
    struct kube_webhook_outcome out;
    char *p = answer(&w, "Pod", "CREATE", "ml",
                     "{\"metadata\":{\"name\":\"p\",\"labels\":{\"kueue.x-k8s."
                     "io/queue-name\":\"team\"}},\"spec\":{}}",
                     &out);
    assert_non_null(p);
    assert_string_equal(p, SET_POD);
    assert_true(out.patched);
    assert_non_null(strstr(out.what, "Pod ml/p: schedulerName set"));
    assert_non_null(strstr(out.what, "queue team"));
    free(p);
    /* Already Ordo's, or another scheduler's: no patch. */
    p = answer(&w, "Pod", "CREATE", "ml",
               "{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":"
               "\"team\"}},\"spec\":{\"schedulerName\":\"ordo-scheduler\"}}",
               &out);
    assert_null(p);
    assert_false(out.patched);
    p = answer(&w, "Pod", "CREATE", "ml",
               "{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":"
               "\"team\"}},\"spec\":{\"schedulerName\":\"volcano\"}}",
               &out);
    assert_null(p);
    assert_non_null(strstr(out.what, "another scheduler"));
    /* "default-scheduler" is what absent reads as. */
    p = answer(&w, "Pod", "CREATE", "ml",
               "{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":"
               "\"team\"}},\"spec\":{\"schedulerName\":\"default-scheduler\"}"
               "}",
               &out);
    assert_non_null(p);
    free(p);
}

static void test_unlabelled_and_namespaces(void **state)
{
    (void)state;
    struct kube_webhook w = {0};
    struct kube_webhook_outcome out;
    char *p = answer(&w, "Pod", "CREATE", "ml",
                     "{\"metadata\":{\"name\":\"p\"},\"spec\":{}}", &out);
    assert_null(p);
    assert_non_null(strstr(out.what, "no kueue.x-k8s.io/queue-name label"));
    p = answer(&w, "Pod", "CREATE", "kube-system",
               "{\"metadata\":{\"name\":\"p\",\"labels\":{\"kueue.x-k8s.io/"
               "queue-name\":\"q\"}}}",
               &out);
    assert_null(p);
    assert_non_null(strstr(out.what, "managedJobsNamespaceSelector"));
    /* A selector from the configuration, namespaces from the cache. */
    struct fake f = {.a = arena_new()};
    struct object *ns = fake_add(&f, OBJ_NAMESPACE, NULL, "ml", NULL, NULL);
    assert_int_equal(strmap_set(&ns->meta.labels, f.a, "ordo", "yes"), 0);
    struct strmap_entry e = {"ordo", "yes"};
    struct label_selector sel = {.match_labels = {.n = 1, .items = &e}};
    struct queue_rule rule = {.namespace_selector = &sel};
    w = (struct kube_webhook){.rule = &rule, .get = fake_get, .get_data = &f};
    const char *pod = "{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/"
                      "queue-name\":\"q\"}}}";
    p = answer(&w, "Pod", "CREATE", "ml", pod, &out);
    assert_non_null(p);
    free(p);
    p = answer(&w, "Pod", "CREATE", "other", pod, &out);
    assert_null(p);
    /* No label, but the namespace has a LocalQueue "default". */
    const char *bare = "{\"metadata\":{\"name\":\"b\"},\"spec\":{}}";
    assert_null(answer(&w, "Pod", "CREATE", "ml", bare, &out));
    fake_add(&f, OBJ_LOCAL_QUEUE, "ml", "default", NULL, NULL);
    p = answer(&w, "Pod", "CREATE", "ml", bare, &out);
    assert_non_null(p);
    assert_non_null(strstr(out.what, "(queue default)"));
    free(p);
    /* Updates and other kinds are never changed. */
    p = answer(&w, "Pod", "UPDATE", "ml", pod, &out);
    assert_null(p);
    assert_non_null(strstr(out.what, "only CREATE"));
    p = answer(&w, "Deployment", "CREATE", "ml", pod, &out);
    assert_null(p);
    arena_free(f.a);
}

static void test_pod_of_job(void **state)
{
    (void)state;
    struct fake f = {.a = arena_new()};
    fake_add(&f, OBJ_JOB, "ml", "ours", "team", "ordo-scheduler");
    fake_add(&f, OBJ_JOB, "ml", "old", "team", "default-scheduler");
    fake_add(&f, OBJ_JOB, "ml", "plain", NULL, "default-scheduler");
    struct kube_webhook w = {.get = fake_get, .get_data = &f};
    struct kube_webhook_outcome out;
#define FMT                                                                    \
    "{\"metadata\":{\"generateName\":\"%s-\",\"ownerReferences\":[{"           \
    "\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"%s\",\"uid\":"    \
    "\"x\",\"controller\":true}]},\"spec\":{}}"
    char obj[512];
    snprintf(obj, sizeof(obj), FMT, "ours", "ours");
    char *p = answer(&w, "Pod", "CREATE", "ml", obj, &out);
    assert_non_null(p);
    assert_string_equal(p, SET_POD);
    assert_non_null(strstr(out.what, "Pod ml/ours-"));
    free(p);
    /* The Job's own pods are not Ordo's: Ordo would never place it. */
    snprintf(obj, sizeof(obj), FMT, "old", "old");
    assert_null(answer(&w, "Pod", "CREATE", "ml", obj, &out));
    assert_non_null(strstr(out.what, "Job old's pods are not Ordo's"));
    snprintf(obj, sizeof(obj), FMT, "plain", "plain");
    assert_null(answer(&w, "Pod", "CREATE", "ml", obj, &out));
    assert_non_null(strstr(out.what, "no kueue.x-k8s.io/queue-name"));
    /* Not in the cache: allowed unchanged, and said. */
    snprintf(obj, sizeof(obj), FMT, "new", "new");
    assert_null(answer(&w, "Pod", "CREATE", "ml", obj, &out));
    assert_non_null(strstr(out.what, "owner Job new not in the cache"));
    arena_free(f.a);
}

static void test_job_and_jobset(void **state)
{
    (void)state;
    struct kube_webhook w = {0};
    struct kube_webhook_outcome out;
    char *p = answer(&w, "Job", "CREATE", "ml",
                     "{\"metadata\":{\"name\":\"j\",\"labels\":{\"kueue.x-k8s."
                     "io/queue-name\":\"team\"}},\"spec\":{\"template\":{"
                     "\"spec\":{\"containers\":[]}}}}",
                     &out);
    assert_non_null(p);
    assert_string_equal(p, "[{\"op\":\"add\",\"path\":\"/spec/template/spec/"
                           "schedulerName\",\"value\":\"ordo-scheduler\"}]");
    free(p);
    /* Each replicated job, except one that names another scheduler. */
    p = answer(&w, "JobSet", "CREATE", "ml",
               "{\"metadata\":{\"name\":\"s\",\"labels\":{\"kueue.x-k8s.io/"
               "queue-name\":\"team\"}},\"spec\":{\"replicatedJobs\":["
               "{\"name\":\"a\",\"template\":{\"spec\":{\"template\":{\"spec\":"
               "{}}}}},{\"name\":\"b\",\"template\":{\"spec\":{\"template\":{"
               "\"spec\":{\"schedulerName\":\"x\"}}}}},{\"name\":\"c\"}]}}",
               &out);
    assert_non_null(p);
    assert_string_equal(
        p, "[{\"op\":\"add\",\"path\":\"/spec/replicatedJobs/0/template/spec/"
           "template/spec/schedulerName\",\"value\":\"ordo-scheduler\"},{"
           "\"op\":\"add\",\"path\":\"/spec/replicatedJobs/2/template/spec/"
           "template/spec/schedulerName\",\"value\":\"ordo-scheduler\"}]");
    free(p);
    /* manageJobsWithoutQueueName: an unlabelled Job too. */
    struct queue_rule rule = {.manage_jobs_without_queue_name = true};
    w.rule = &rule;
    p = answer(&w, "Job", "CREATE", "ml",
               "{\"metadata\":{\"name\":\"j\"},\"spec\":{}}", &out);
    assert_non_null(p);
    assert_non_null(strstr(out.what, "manageJobsWithoutQueueName"));
    free(p);
}

/* Malformed input: 400 with what is wrong, never a crash. */
static void bad(const char *text, size_t len, const char *want)
{
    struct kube_webhook w = {0};
    struct kube_webhook_outcome out;
    char *body = NULL;
    unsigned code = kube_webhook_review(&w, text, len, &body, &out);
    assert_int_equal(code, 400);
    assert_non_null(body);
    if (!strstr(body, want))
        fprintf(stderr, "want %s, got: %s", want, body);
    assert_non_null(strstr(body, want));
    assert_non_null(strstr(out.what, "bad review"));
    free(body);
}

static void test_malformed(void **state)
{
    (void)state;
    bad("", 0, "not JSON");
    bad("{", 1, "not JSON");
    bad("{\"a\":1} x", 9, "text after the value");
    bad("[1]", 3, "expected an AdmissionReview");
    const char *v1b1 = "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":"
                       "\"AdmissionReview\"}";
    bad(v1b1, strlen(v1b1), "expected apiVersion admission.k8s.io/v1");
    bad("{\"apiVersion\":7}", 16, "apiVersion: expected a string");
    /* What the review carried is echoed on one line (fuzz_webhook). */
    const char *nl =
        "{\"apiVersion\":\"a\nb\\u0007c\",\"kind\":\"AdmissionReview\"}";
    bad(nl, strlen(nl), "got a?b?c AdmissionReview\n");
    const char *head = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                       "\"AdmissionReview\"";
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s}", head);
    bad(buf, strlen(buf), "request: missing");
    snprintf(buf, sizeof(buf), "%s,\"request\":{}}", head);
    bad(buf, strlen(buf), "request.uid: missing");
    snprintf(buf, sizeof(buf),
             "%s,\"request\":{\"uid\":\"u\",\"kind\":{\"kind\":\"Pod\"},"
             "\"operation\":\"CREATE\",\"namespace\":\"ml\"}}",
             head);
    bad(buf, strlen(buf), "request.object: missing");
    snprintf(buf, sizeof(buf),
             "%s,\"request\":{\"uid\":\"u\",\"kind\":{\"kind\":\"Pod\"},"
             "\"operation\":\"CREATE\",\"namespace\":\"ml\",\"object\":{"
             "\"metadata\":{\"labels\":{\"a\":1}}}}}",
             head);
    bad(buf, strlen(buf),
        "request.object.metadata.labels[a]: expected a "
        "string");
    snprintf(buf, sizeof(buf),
             "%s,\"request\":{\"uid\":\"u\",\"kind\":{\"kind\":\"Pod\"},"
             "\"operation\":\"CREATE\",\"namespace\":\"ml\",\"object\":{"
             "\"spec\":{\"schedulerName\":[]}}}}",
             head);
    bad(buf, strlen(buf),
        "request.object.spec.schedulerName: expected a "
        "string");
    snprintf(buf, sizeof(buf),
             "%s,\"request\":{\"uid\":\"u\",\"kind\":{\"kind\":\"Pod\"},"
             "\"operation\":\"CREATE\",\"object\":{}}}",
             head);
    bad(buf, strlen(buf), "request.namespace: missing");
    /* Deep nesting is refused by the parser's bound. */
    char deep[400];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        deep[n++] = '[';
    for (int i = 0; i < 100; i++)
        deep[n++] = ']';
    bad(deep, n, "not JSON");
    /* The length is obeyed: a valid review cut short is not read past. */
    char *r = review("Pod", "CREATE", "ml", "{}");
    bad(r, strlen(r) - 1, "not JSON");
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labelled_pod),
        cmocka_unit_test(test_unlabelled_and_namespaces),
        cmocka_unit_test(test_pod_of_job),
        cmocka_unit_test(test_job_and_jobset),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
