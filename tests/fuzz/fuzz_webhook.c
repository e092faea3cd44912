/* fuzz_webhook.c - libFuzzer target for the pod webhook's AdmissionReview
 * answer (sched/backend/kube/kube_webhook.c, kube_webhook_review).
 *
 * The input is the request body, from an exact-size copy; the cache holds
 * one Namespace and one Job (ns "ml", Job "j", Ordo's), so that owner
 * look-ups find something. The answer must be 200, 400 or 500 with a body;
 * a 200 must be an AdmissionReview answering the request's uid, allowed,
 * and its patch (when there is one) base64 of a JSON list of "add"
 * operations setting a schedulerName path to "ordo-scheduler"; a 400 one
 * line ending in a newline. Any violation aborts. Seeds live in
 * tests/fuzz/corpus/webhook/. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kube_webhook.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_webhook: broken promise: %s\n", what);
        abort();
    }
}

static struct object ns = {.kind = OBJ_NAMESPACE, .meta = {.name = "ml"}};
static struct object job = {.kind = OBJ_JOB,
                            .meta = {.name = "j", .namespace_ = "ml"},
                            .u.job.spec.template.spec.scheduler_name =
                                "ordo-scheduler"};

static const struct object *get(void *data, enum object_kind k, const char *key)
{
    (void)data;
    if (k == OBJ_NAMESPACE && strcmp(key, "ml") == 0)
        return &ns;
    if (k == OBJ_JOB && strcmp(key, "ml/j") == 0)
        return &job;
    return NULL;
}

static char *unbase64(const char *s)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    check(n % 4 == 0, "patch is base64");
    char *out = malloc(n / 4 * 3 + 1), *p = out;
    check(out != NULL, "memory");
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0;
        for (int j = 0; j < 4; j++) {
            const char *c = s[i + j] == '=' ? t : strchr(t, s[i + j]);
            check(s[i + j] && c, "patch is base64");
            v = v << 6 | (unsigned)(c - t);
        }
        *p++ = (char)(v >> 16);
        if (s[i + 2] != '=')
            *p++ = (char)(v >> 8 & 255);
        if (s[i + 3] != '=')
            *p++ = (char)(v & 255);
    }
    *p = '\0';
    return out;
}

static const char *str(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) &&
                   json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static void check_patch(const char *b64)
{
    char *text = unbase64(b64);
    struct json_object *p = json_tokener_parse(text);
    check(p && json_object_is_type(p, json_type_array) &&
              json_object_array_length(p) > 0,
          "patch is a non-empty JSON list");
    for (size_t i = 0; i < json_object_array_length(p); i++) {
        struct json_object *op = json_object_array_get_idx(p, i);
        const char *path = str(op, "path");
        check(str(op, "op") && strcmp(str(op, "op"), "add") == 0, "op add");
        check(str(op, "value") &&
                  strcmp(str(op, "value"), "ordo-scheduler") == 0,
              "value ordo-scheduler");
        size_t n = path ? strlen(path) : 0;
        check(n > 14 && path[0] == '/' &&
                  strcmp(path + n - 14, "/schedulerName") == 0,
              "path ends in /schedulerName");
    }
    json_object_put(p);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kube_webhook w = {.get = get};
    struct kube_webhook_outcome out;
    char *body = NULL;
    unsigned code =
        kube_webhook_review(&w, (const char *)data, size, &body, &out);
    check(code == 200 || code == 400 || code == 500, "code 200, 400 or 500");
    check(body != NULL, "a body");
    check(memchr(out.what, '\0', sizeof(out.what)) != NULL, "outcome ends");
    if (code == 400) {
        size_t n = strlen(body);
        check(n > 1 && body[n - 1] == '\n' && !strchr(body, '\n')[1],
              "400: one line");
    }
    if (code == 200) {
        struct json_object *r = json_tokener_parse(body), *resp, *a;
        check(r != NULL, "200: JSON");
        check(str(r, "kind") && strcmp(str(r, "kind"), "AdmissionReview") == 0,
              "200: an AdmissionReview");
        check(json_object_object_get_ex(r, "response", &resp), "response");
        check(str(resp, "uid") && *str(resp, "uid"), "response.uid");
        check(json_object_object_get_ex(resp, "allowed", &a) &&
                  json_object_get_boolean(a),
              "allowed");
        const char *patch = str(resp, "patch");
        check(!patch == !out.patched, "a patch exactly when patched");
        if (patch)
            check_patch(patch);
        json_object_put(r);
    }
    free(body);
    return 0;
}
