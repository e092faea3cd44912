/* kube_webhook.c - AdmissionReview decoding, the rule of queue_rule.h
 * over the review and the cache, and the AdmissionReview with its
 * base64 JSONPatch (kube_webhook.h). json-c only; no I/O. */
#include "kube_webhook.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "arena.h"
#include "strmap.h"

#define LABEL_JOBSET_NAME "jobset.sigs.k8s.io/jobset-name"

/* One review being answered. */
struct review {
    const struct kube_webhook *w;
    struct arena *a;
    const char *kind, *ns, *name;
    struct json_object *obj;   /* request.object */
    struct json_object *patch; /* the JSONPatch array */
    struct kube_webhook_outcome *out;
    char err[256]; /* why the review is malformed */
};

/* Control bytes of what a review carried become '?': messages are one
 * line, in the answer and in the log. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

static int fail(struct review *rv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct review *rv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rv->err, sizeof(rv->err), fmt, ap);
    va_end(ap);
    one_line(rv->err);
    return -EINVAL;
}

static void say(struct review *rv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct review *rv, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(rv->out->what, sizeof(rv->out->what), "%s %s/%s: %s", rv->kind,
             rv->ns, rv->name, what);
    one_line(rv->out->what);
}

/* The member path of o (NULL-terminated keys), or NULL. */
static struct json_object *get(struct json_object *o, ...)
{
    va_list ap;
    va_start(ap, o);
    const char *k;
    while (o && (k = va_arg(ap, const char *)))
        if (!json_object_is_type(o, json_type_object) ||
            !json_object_object_get_ex(o, k, &o))
            o = NULL;
    va_end(ap);
    return o;
}

/* A string member: its value; absent or null: NULL; another type: fails
 * (*bad set). */
static const char *get_str(struct review *rv, struct json_object *o,
                           const char *path, const char *key, bool *bad)
{
    struct json_object *v = get(o, key, NULL);
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        fail(rv, "%s%s: expected a string", path, key);
        *bad = true;
        return NULL;
    }
    return json_object_get_string(v);
}

/* metadata.labels of m into *ret (strings in rv's arena). */
static int labels_of(struct review *rv, struct json_object *meta,
                     const char *path, struct strmap *ret)
{
    *ret = (struct strmap){0};
    struct json_object *l = get(meta, "labels", NULL);
    if (!l || json_object_is_type(l, json_type_null))
        return 0;
    if (!json_object_is_type(l, json_type_object))
        return fail(rv, "%slabels: expected a map", path);
    json_object_object_foreach(l, k, v)
    {
        if (!json_object_is_type(v, json_type_string))
            return fail(rv, "%slabels[%s]: expected a string", path, k);
        char *ks = arena_strdup(rv->a, k);
        char *vs = arena_strdup(rv->a, json_object_get_string(v));
        if (!ks || !vs || strmap_set(ret, rv->a, ks, vs) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The controlling owner reference's kind and name (NULL when none). */
static int controller_of(struct review *rv, struct json_object *meta,
                         const char **ret_kind, const char **ret_name)
{
    *ret_kind = *ret_name = NULL;
    struct json_object *refs = get(meta, "ownerReferences", NULL);
    if (!refs || json_object_is_type(refs, json_type_null))
        return 0;
    if (!json_object_is_type(refs, json_type_array))
        return fail(rv, "request.object.metadata.ownerReferences: expected "
                        "a list");
    size_t n = json_object_array_length(refs);
    for (size_t i = 0; i < n; i++) {
        struct json_object *r = json_object_array_get_idx(refs, i);
        struct json_object *c = get(r, "controller", NULL);
        if (!c || !json_object_is_type(c, json_type_boolean) ||
            !json_object_get_boolean(c))
            continue;
        struct json_object *k = get(r, "kind", NULL),
                           *nm = get(r, "name", NULL);
        if (!k || !nm || !json_object_is_type(k, json_type_string) ||
            !json_object_is_type(nm, json_type_string))
            return fail(rv,
                        "request.object.metadata.ownerReferences[%zu]: "
                        "kind and name must be strings",
                        i);
        *ret_kind = json_object_get_string(k);
        *ret_name = json_object_get_string(nm);
        return 0;
    }
    return 0;
}

static const struct object *cached(struct review *rv, enum object_kind k,
                                   const char *name)
{
    if (!rv->w->get || !name)
        return NULL;
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", rv->ns, name);
    return rv->w->get(rv->w->get_data, k, key);
}

/* {"op":"add","path":path,"value":"ordo-scheduler"} appended ("add"
 * replaces a member that is there). */
static int add_patch(struct review *rv, const char *path)
{
    struct json_object *op = json_object_new_object();
    if (!op)
        return -ENOMEM;
    if (json_object_object_add(op, "op", json_object_new_string("add")) ||
        json_object_object_add(op, "path", json_object_new_string(path)) ||
        json_object_object_add(op, "value",
                               json_object_new_string(QUEUE_RULE_SCHEDULER)) ||
        json_object_array_add(rv->patch, op)) {
        json_object_put(op);
        return -ENOMEM;
    }
    return 0;
}

/* The schedulerName at spec (a pod spec object), checked. */
static const char *sched_name(struct review *rv, struct json_object *spec,
                              const char *path, bool *bad)
{
    if (spec && !json_object_is_type(spec, json_type_object)) {
        *bad = true;
        fail(rv, "%s: expected a map", path);
        return NULL;
    }
    char p[160];
    snprintf(p, sizeof(p), "%s.", path);
    return get_str(rv, spec, p, "schedulerName", bad);
}

static bool absent_or_default(const char *sn)
{
    return !sn || !*sn || strcmp(sn, "default-scheduler") == 0;
}

/* The review of a Pod, Job or JobSet being created. */
static int decide(struct review *rv)
{
    struct json_object *meta = get(rv->obj, "metadata", NULL);
    if (meta && !json_object_is_type(meta, json_type_object))
        return fail(rv, "request.object.metadata: expected a map");
    struct strmap own;
    int r = labels_of(rv, meta, "request.object.metadata.", &own);
    if (r < 0)
        return r;
    const char *okind, *oname;
    if ((r = controller_of(rv, meta, &okind, &oname)) < 0)
        return r;

    /* The pod spec that decides, and its schedulerName. */
    bool bad = false;
    struct json_object *spec = NULL, *rjobs = NULL;
    const char *at = NULL;
    if (strcmp(rv->kind, "Pod") == 0) {
        spec = get(rv->obj, "spec", NULL);
        at = "request.object.spec";
    } else if (strcmp(rv->kind, "Job") == 0) {
        spec = get(rv->obj, "spec", "template", "spec", NULL);
        at = "request.object.spec.template.spec";
    } else {
        rjobs = get(rv->obj, "spec", "replicatedJobs", NULL);
        if (rjobs && !json_object_is_type(rjobs, json_type_array))
            return fail(rv, "request.object.spec.replicatedJobs: expected a "
                            "list");
        if (rjobs && json_object_array_length(rjobs) > 0)
            spec = get(json_object_array_get_idx(rjobs, 0), "template", "spec",
                       "template", "spec", NULL);
        at = "request.object.spec.replicatedJobs[0].template.spec.template."
             "spec";
    }
    const char *sn = sched_name(rv, spec, at, &bad);
    if (bad)
        return -EINVAL;

    /* The owner chain, as far as the cache knows it. */
    struct queue_rule_subject s = {.namespace_ = rv->ns, .scheduler_name = sn};
    const struct object *nso =
        rv->w->get ? rv->w->get(rv->w->get_data, OBJ_NAMESPACE, rv->ns) : NULL;
    s.ns_labels = nso ? &nso->meta.labels : NULL;
    size_t n = 0;
    s.labels[n++] = &own;
    const struct object *job = NULL, *set = NULL;
    if (okind && strcmp(okind, "Job") == 0)
        job = cached(rv, OBJ_JOB, oname);
    if (okind && strcmp(okind, "JobSet") == 0)
        set = cached(rv, OBJ_JOBSET, oname);
    if (job) {
        s.labels[n++] = &job->meta.labels;
        const struct owner_ref *jo = object_meta_controller(&job->meta);
        if (jo && strcmp(jo->kind, "JobSet") == 0)
            set = cached(rv, OBJ_JOBSET, jo->name);
    }
    if (!set && strcmp(rv->kind, "JobSet") != 0)
        set = cached(rv, OBJ_JOBSET, strmap_get(&own, LABEL_JOBSET_NAME));
    if (set)
        s.labels[n++] = &set->meta.labels;
    const struct object *top = set ? set : job;
    s.default_queue = cached(rv, OBJ_LOCAL_QUEUE, "default") != NULL;

    struct queue_rule_result res;
    queue_rule_decide(rv->w->rule, &s, &res);
    if (res.verdict != QUEUE_RULE_MANAGED) {
        if (res.verdict == QUEUE_RULE_NO_QUEUE && okind && !top &&
            (strcmp(okind, "Job") == 0 || strcmp(okind, "JobSet") == 0))
            say(rv,
                "owner %s %s not in the cache and no queue label here: "
                "allowed unchanged",
                okind, oname);
        else
            say(rv, "left unchanged: %s", queue_rule_why(res.verdict));
        return 0;
    }
    if (top) {
        const struct pod_spec *ts = queue_rule_spec(top);
        if (!ts || strcmp(ts->scheduler_name, QUEUE_RULE_SCHEDULER) != 0) {
            say(rv,
                "left unchanged: its %s %s's pods are not Ordo's (made "
                "before the webhook?), so Ordo would never place it",
                object_kind_name(top->kind), top->meta.name);
            return 0;
        }
    }
    if (res.already) {
        say(rv, "schedulerName is %s already", QUEUE_RULE_SCHEDULER);
        return 0;
    }
    if (strcmp(rv->kind, "Pod") == 0)
        r = add_patch(rv, "/spec/schedulerName");
    else if (strcmp(rv->kind, "Job") == 0)
        r = add_patch(rv, "/spec/template/spec/schedulerName");
    for (size_t i = 0; rjobs && r == 0 && i < json_object_array_length(rjobs);
         i++) {
        char p[160];
        snprintf(p, sizeof(p),
                 "request.object.spec.replicatedJobs[%zu].template.spec."
                 "template.spec",
                 i);
        struct json_object *t =
            get(json_object_array_get_idx(rjobs, i), "template", "spec",
                "template", "spec", NULL);
        const char *tn = sched_name(rv, t, p, &bad);
        if (bad)
            return -EINVAL;
        if (!absent_or_default(tn))
            continue; /* it asked for that one */
        snprintf(p, sizeof(p),
                 "/spec/replicatedJobs/%zu/template/spec/template/spec/"
                 "schedulerName",
                 i);
        r = add_patch(rv, p);
    }
    if (r < 0)
        return r;
    rv->out->patched = json_object_array_length(rv->patch) > 0;
    say(rv, "schedulerName set to %s (queue %s)", QUEUE_RULE_SCHEDULER,
        res.queue ? res.queue : "none: manageJobsWithoutQueueName");
    return 0;
}

static char *base64(const char *s, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *p = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)(unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)(unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        *p++ = tab[v >> 18 & 63];
        *p++ = tab[v >> 12 & 63];
        *p++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *p = '\0';
    return out;
}

/* The AdmissionReview answering uid, with the patch when there is one. */
static int respond(struct review *rv, const char *uid, char **ret)
{
    struct json_object *root = json_object_new_object();
    struct json_object *resp = json_object_new_object();
    int r = -ENOMEM;
    if (!root || !resp)
        goto out;
    if (json_object_object_add(root, "apiVersion",
                               json_object_new_string("admission.k8s.io/v1")) ||
        json_object_object_add(root, "kind",
                               json_object_new_string("AdmissionReview")))
        goto out;
    if (json_object_object_add(root, "response", resp)) {
        json_object_put(resp);
        resp = NULL;
        goto out;
    }
    struct json_object *r_ = resp;
    resp = NULL; /* root owns it */
    if (json_object_object_add(r_, "uid", json_object_new_string(uid)) ||
        json_object_object_add(r_, "allowed", json_object_new_boolean(1)))
        goto out;
    if (rv->patch && json_object_array_length(rv->patch) > 0) {
        const char *p = json_object_to_json_string_ext(
            rv->patch, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        char *b = p ? base64(p, strlen(p)) : NULL;
        if (!b)
            goto out;
        int bad =
            json_object_object_add(r_, "patchType",
                                   json_object_new_string("JSONPatch")) ||
            json_object_object_add(r_, "patch", json_object_new_string(b));
        free(b);
        if (bad)
            goto out;
    }
    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (s && (*ret = strdup(s)))
        r = 0;
out:
    json_object_put(resp);
    json_object_put(root);
    return r;
}

/* Parses the whole body as one JSON value (bounded depth), or NULL. */
static struct json_object *parse(struct review *rv, const char *body,
                                 size_t len)
{
    if (len > KUBE_WEBHOOK_MAX_BODY || len > INT32_MAX) {
        fail(rv, "body too large (%zu bytes, at most %zu)", len,
             KUBE_WEBHOOK_MAX_BODY);
        return NULL;
    }
    struct json_tokener *tok = json_tokener_new_ex(KUBE_WEBHOOK_MAX_DEPTH);
    if (!tok) {
        fail(rv, "out of memory");
        return NULL;
    }
    struct json_object *o = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (!o && je == json_tokener_continue)
        fail(rv, "not JSON: the body ends inside a value");
    else if (!o || je != json_tokener_success)
        fail(rv, "not JSON: %s", json_tokener_error_desc(je));
    else {
        while (used < len && strchr(" \t\r\n", body[used]))
            used++;
        if (used < len) {
            fail(rv, "not JSON: text after the value at byte %zu", used);
            json_object_put(o);
            o = NULL;
        }
    }
    json_tokener_free(tok);
    return o;
}

unsigned kube_webhook_review(const struct kube_webhook *w, const char *body,
                             size_t len, char **ret_body,
                             struct kube_webhook_outcome *ret_out)
{
    struct kube_webhook_outcome scratch;
    struct review rv = {.w = w, .out = ret_out ? ret_out : &scratch};
    *rv.out = (struct kube_webhook_outcome){0};
    *ret_body = NULL;
    struct json_object *root = parse(&rv, body ? body : "", body ? len : 0);
    unsigned code = 400;
    int r = -EINVAL;
    const char *uid = NULL;
    bool bad = false;
    if (!root)
        goto out;
    if (!json_object_is_type(root, json_type_object)) {
        fail(&rv, "expected an AdmissionReview (a JSON object)");
        goto out;
    }
    const char *av = get_str(&rv, root, "", "apiVersion", &bad);
    const char *kd = get_str(&rv, root, "", "kind", &bad);
    if (bad)
        goto out;
    if (!kd || strcmp(kd, "AdmissionReview") != 0 || !av ||
        strcmp(av, "admission.k8s.io/v1") != 0) {
        fail(&rv,
             "expected apiVersion admission.k8s.io/v1 and kind "
             "AdmissionReview, got %s %s",
             av ? av : "(none)", kd ? kd : "(none)");
        goto out;
    }
    struct json_object *req = get(root, "request", NULL);
    if (!req || !json_object_is_type(req, json_type_object)) {
        fail(&rv, "request: missing or not a map");
        goto out;
    }
    uid = get_str(&rv, req, "request.", "uid", &bad);
    const char *op = get_str(&rv, req, "request.", "operation", &bad);
    rv.kind =
        get_str(&rv, get(req, "kind", NULL), "request.kind.", "kind", &bad);
    rv.ns = get_str(&rv, req, "request.", "namespace", &bad);
    rv.name = get_str(&rv, req, "request.", "name", &bad);
    if (bad)
        goto out;
    if (!uid || !*uid) {
        fail(&rv, "request.uid: missing");
        goto out;
    }
    if (!(rv.a = arena_new()) || !(rv.patch = json_object_new_array())) {
        r = -ENOMEM;
        goto out;
    }
    rv.obj = get(req, "object", NULL);
    if (!rv.kind)
        rv.kind = "?";
    if (!rv.ns || !*rv.ns) /* a review of a namespaced create names it */
        rv.ns =
            get_str(&rv, get(rv.obj, "metadata", NULL), "", "namespace", &bad);
    if (!rv.name || !*rv.name)
        rv.name = get_str(&rv, get(rv.obj, "metadata", NULL), "", "name", &bad);
    if (!rv.name || !*rv.name)
        rv.name = get_str(&rv, get(rv.obj, "metadata", NULL), "",
                          "generateName", &bad);
    if (!rv.name)
        rv.name = "";
    bad = false;
    r = 0;
    if (strcmp(rv.kind, "Pod") != 0 && strcmp(rv.kind, "Job") != 0 &&
        strcmp(rv.kind, "JobSet") != 0)
        say(&rv, "not a kind this webhook changes: allowed unchanged");
    else if (!op || strcmp(op, "CREATE") != 0)
        say(&rv, "%s: only CREATE is changed: allowed unchanged",
            op ? op : "no operation");
    else if (!rv.ns || !*rv.ns)
        r = fail(&rv, "request.namespace: missing");
    else if (!rv.obj || !json_object_is_type(rv.obj, json_type_object))
        r = fail(&rv, "request.object: missing or not a map");
    else
        r = decide(&rv);
    if (r == 0)
        r = respond(&rv, uid, ret_body);
    if (r == 0)
        code = 200;
out:
    if (r == -ENOMEM) {
        code = 500;
        snprintf(rv.err, sizeof(rv.err), "out of memory");
    }
    if (code != 200) {
        if (asprintf(ret_body, "%s\n", rv.err) < 0)
            *ret_body = NULL;
        snprintf(rv.out->what, sizeof(rv.out->what), "bad review: %s", rv.err);
    }
    json_object_put(rv.patch);
    json_object_put(root);
    arena_free(rv.a);
    return code;
}
