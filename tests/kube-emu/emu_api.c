/* emu_api.c - the resource API: get, list (selectors, pagination),
 * create, update, patch, delete and deletecollection, the status
 * subresource, pods/binding, the bindings resource and pods/eviction;
 * each write goes to the audit log. --fault-bind-504 answers a share of
 * the applied bindings 504; --fault-malformed breaks some objects served. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

struct json_object *emu_unview(int kind, struct json_object *o);

static void answer(struct emu_resp *resp, int code, struct json_object *o)
{
    resp->code = code;
    resp->body = strdup(json_object_to_json_string_ext(o, EMU_JSON));
    json_object_put(o);
}

static void answer_err(struct emu_resp *resp, const struct emu_err *err)
{
    answer(resp, err->code, emu_status_new(err));
}

static void answer_view(struct emu_resp *resp, int code, int kind,
                        struct json_object *stored, bool table)
{
    struct json_object *v = emu_fault_malform(kind, emu_view(kind, stored));
    if (table) {
        struct json_object *t = emu_table_new(kind, &v, 1, NULL, NULL);
        json_object_put(v);
        v = t;
    }
    answer(resp, code, v);
}

static struct json_object *parse_body(const struct emu_req *r,
                                      struct emu_err *err)
{
    struct json_object *o = NULL;
    if (r->body && r->body_len) {
        struct json_tokener *tok = json_tokener_new();
        o = json_tokener_parse_ex(tok, r->body, (int)r->body_len);
        if (json_tokener_get_error(tok) != json_tokener_success) {
            json_object_put(o);
            o = NULL;
        }
        json_tokener_free(tok);
    }
    if (!o)
        emu_err_set(err, 400, "BadRequest", -1, "",
                    "the request body is not valid JSON");
    return o;
}

static void list(const struct emu_req *r, struct emu_resp *resp)
{
    const struct emu_kind *k = &emu_kinds[r->kind];
    struct emu_bucket *b = &emu.buckets[k->storage];
    struct emu_sel *sel = NULL;
    struct emu_err err = {0};
    char prefix[300] = "", rv[32], cont[700] = "", kbuf[128];
    size_t i, n = 0, cap = 64;
    struct json_object **items = NULL;
    long long list_rv = (long long)emu.rv;
    if (emu_sel_parse(r->label_sel, r->field_sel, &sel, &err) < 0) {
        answer_err(resp, &err);
        return;
    }
    if (k->namespaced && r->ns)
        snprintf(prefix, sizeof(prefix), "%s/", r->ns);
    i = emu_store_lower(k->storage, prefix);
    if (r->cont && *r->cont) {
        /* "<rv>/<last key>": the next page starts after that key and keeps
         * the first page's resourceVersion. */
        char *end;
        list_rv = strtoll(r->cont, &end, 10);
        if (*end != '/' || list_rv < emu_store_oldest()) {
            err = (struct emu_err){0};
            emu_err_set(&err, 410, "Expired", -1, "",
                        "The provided continue parameter is too old to "
                        "display a consistent list result. You can start a "
                        "new list without the continue parameter.");
            emu_sel_free(sel);
            answer_err(resp, &err);
            return;
        }
        i = emu_store_lower(k->storage, end + 1);
        if (i < b->n && !strcmp(b->v[i].key, end + 1))
            i++;
    }
    items = malloc(cap * sizeof(*items));
    for (; items && i < b->n; i++) {
        if (*prefix && strncmp(b->v[i].key, prefix, strlen(prefix)))
            break;
        struct json_object *v = emu_view(r->kind, b->v[i].obj);
        if (!emu_sel_match(sel, v)) {
            json_object_put(v);
            continue;
        }
        v = emu_fault_malform(r->kind, v);
        if (r->limit > 0 && (long)n == r->limit) {
            json_object_put(v);
            cont[0] = '+'; /* more to come */
            break;
        }
        if (n == cap) {
            struct json_object **m = realloc(items, cap * 2 * sizeof(*m));
            if (!m) {
                json_object_put(v);
                break;
            }
            items = m;
            cap *= 2;
        }
        items[n++] = v;
    }
    /* The continue token names the last key returned. */
    if (cont[0] && n) {
        char key[600];
        const char *ns = emu_path_str(items[n - 1], "metadata.namespace");
        const char *name = emu_path_str(items[n - 1], "metadata.name");
        if (k->namespaced)
            snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
        else
            snprintf(key, sizeof(key), "%s", name);
        snprintf(cont, sizeof(cont), "%lld/%s", list_rv, key);
    }
    snprintf(rv, sizeof(rv), "%lld", list_rv);
    struct json_object *out;
    if (r->table) {
        out = emu_table_new(r->kind, items, n, rv, cont);
        for (size_t j = 0; j < n; j++)
            json_object_put(items[j]);
    } else {
        struct json_object *arr = json_object_new_array();
        struct json_object *meta = json_object_new_object();
        char lk[160];
        out = json_object_new_object();
        snprintf(lk, sizeof(lk), "%sList", k->kind);
        json_object_object_add(out, "kind", json_object_new_string(lk));
        json_object_object_add(out, "apiVersion",
                               json_object_new_string(emu_kind_api_version(
                                   k, kbuf, sizeof(kbuf))));
        json_object_object_add(meta, "resourceVersion",
                               json_object_new_string(rv));
        if (cont[0])
            json_object_object_add(meta, "continue",
                                   json_object_new_string(cont));
        json_object_object_add(out, "metadata", meta);
        for (size_t j = 0; j < n; j++)
            json_object_array_add(arr, items[j]);
        json_object_object_add(out, "items", arr);
    }
    free(items);
    emu_sel_free(sel);
    answer(resp, 200, out);
}

static struct json_object *find_cond(struct json_object *conds,
                                     const char *type, size_t *ret_i)
{
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        const char *t =
            emu_path_str(json_object_array_get_idx(conds, i), "type");
        if (t && !strcmp(t, type)) {
            *ret_i = i;
            return json_object_array_get_idx(conds, i);
        }
    }
    return NULL;
}

/* pods/binding and the bindings resource: spec.nodeName once. */
static int bind(const struct emu_req *r, struct json_object *b,
                const char *name, struct emu_resp *resp, char *node,
                size_t node_size, struct emu_err *err)
{
    int pods = emu_k("pods");
    struct json_object *pod = emu_store_get(pods, r->ns, name);
    const char *target = emu_path_str(b, "target.name");
    const char *tkind = emu_path_str(b, "target.kind");
    const char *uid = emu_path_str(b, "metadata.uid");
    snprintf(node, node_size, "%s", target ? target : "");
    if (!target || !*target || (tkind && *tkind && strcmp(tkind, "Node"))) {
        emu_err_set(err, 422, "Invalid", pods, name,
                    "Binding \"%s\" is invalid: target.name: Required value",
                    name);
        return -EINVAL;
    }
    if (!pod) {
        emu_err_set(err, 404, "NotFound", pods, name, "pods \"%s\" not found",
                    name);
        return -ENOENT;
    }
    const char *cur = emu_path_str(pod, "spec.nodeName");
    if (cur && *cur) {
        emu_err_set(err, 409, "Conflict", pods, name,
                    "Operation cannot be fulfilled on pods/binding \"%s\": pod "
                    "%s is already assigned to node \"%s\"",
                    name, name, cur);
        return -EBUSY;
    }
    if (emu_path(pod, "metadata.deletionTimestamp")) {
        emu_err_set(err, 409, "Conflict", pods, name,
                    "Operation cannot be fulfilled on pods/binding \"%s\": pod "
                    "%s is being deleted, cannot be assigned to a host",
                    name, name);
        return -EBUSY;
    }
    struct json_object *gates = emu_path(pod, "spec.schedulingGates");
    if (gates && json_object_is_type(gates, json_type_array) &&
        json_object_array_length(gates)) {
        emu_err_set(err, 409, "Conflict", pods, name,
                    "Operation cannot be fulfilled on pods/binding \"%s\": pod "
                    "%s has non-empty .spec.schedulingGates",
                    name, name);
        return -EBUSY;
    }
    if (uid && *uid && strcmp(uid, emu_path_str(pod, "metadata.uid"))) {
        emu_err_set(err, 409, "Conflict", pods, name,
                    "Operation cannot be fulfilled on pods/binding \"%s\": "
                    "Precondition failed: UID in precondition: %s, UID in "
                    "object meta: %s",
                    name, uid, emu_path_str(pod, "metadata.uid"));
        return -EBUSY;
    }
    struct json_object *n = emu_copy(pod), *out;
    json_object_object_add(emu_child(n, "spec"), "nodeName",
                           json_object_new_string(target));
    struct json_object *ann = emu_path(b, "metadata.annotations");
    if (ann && json_object_is_type(ann, json_type_object)) {
        struct json_object *pa =
            emu_child(emu_child(n, "metadata"), "annotations");
        json_object_object_foreach(ann, ak, av)
            json_object_object_add(pa, ak, json_object_get(av));
    }
    struct json_object *st = emu_child(n, "status");
    struct json_object *conds;
    if (!json_object_object_get_ex(st, "conditions", &conds) ||
        !json_object_is_type(conds, json_type_array)) {
        conds = json_object_new_array();
        json_object_object_add(st, "conditions", conds);
    }
    struct json_object *c = json_object_new_object();
    char ts[40];
    size_t ci;
    emu_time_now(ts, sizeof(ts), false);
    json_object_object_add(c, "type", json_object_new_string("PodScheduled"));
    json_object_object_add(c, "status", json_object_new_string("True"));
    json_object_object_add(c, "lastProbeTime", NULL);
    json_object_object_add(c, "lastTransitionTime", json_object_new_string(ts));
    if (find_cond(conds, "PodScheduled", &ci))
        json_object_array_put_idx(conds, ci, c);
    else
        json_object_array_add(conds, c);
    if (emu_store_update(pods, n, "*", &out, err) < 0)
        return -EINVAL;
    answer(resp, 201, emu_status_success(201, -1, NULL, NULL));
    return 0;
}

static int intorpct(struct json_object *v, int64_t total, bool round_up,
                    int64_t *ret)
{
    if (!v)
        return -ENOENT;
    if (json_object_is_type(v, json_type_int)) {
        *ret = json_object_get_int64(v);
        return 0;
    }
    const char *s = json_object_get_string(v);
    long pct = strtol(s, NULL, 10);
    *ret = round_up ? (total * pct + 99) / 100 : total * pct / 100;
    return 0;
}

static bool pod_healthy(struct json_object *p)
{
    const char *ph = emu_path_str(p, "status.phase");
    return ph && !strcmp(ph, "Running") &&
           !emu_path(p, "metadata.deletionTimestamp");
}

/* The selector of a PDB as a label selector string. */
static void selector_string(struct json_object *sel, char *buf, size_t size)
{
    size_t n = 0;
    struct json_object *ml = emu_path(sel, "matchLabels");
    struct json_object *me = emu_path(sel, "matchExpressions");
    buf[0] = '\0';
    if (ml && json_object_is_type(ml, json_type_object)) {
        json_object_object_foreach(ml, k, v) n +=
            (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s=%s",
                             n ? "," : "", k, json_object_get_string(v));
    }
    for (size_t i = 0; me && json_object_is_type(me, json_type_array) &&
                       i < json_object_array_length(me) && n < size;
         i++) {
        struct json_object *e = json_object_array_get_idx(me, i);
        const char *k = emu_path_str(e, "key"),
                   *op = emu_path_str(e, "operator");
        struct json_object *vals = emu_path(e, "values");
        if (!k || !op)
            continue;
        if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
            n += (size_t)snprintf(buf + n, size - n, "%s%s%s", n ? "," : "",
                                  op[0] == 'D' ? "!" : "", k);
            continue;
        }
        n += (size_t)snprintf(buf + n, size - n, "%s%s %s (", n ? "," : "", k,
                              !strcmp(op, "In") ? "in" : "notin");
        for (size_t j = 0;
             vals && j < json_object_array_length(vals) && n < size; j++)
            n += (size_t)snprintf(
                buf + n, size - n, "%s%s", j ? "," : "",
                json_object_get_string(json_object_array_get_idx(vals, j)));
        if (n < size)
            n += (size_t)snprintf(buf + n, size - n, ")");
    }
}

/* 429 when a PodDisruptionBudget covering the pod has no disruption left
 * (computed from the pods now, as the disruption controller would). */
static int pdb_allows(struct json_object *pod, struct emu_err *err)
{
    int pdbs = emu_k("poddisruptionbudgets"), pods = emu_k("pods");
    struct emu_bucket *b = &emu.buckets[pdbs];
    const char *ns = emu_path_str(pod, "metadata.namespace");
    if (!pod_healthy(pod))
        return 0;
    for (size_t i = 0; i < b->n; i++) {
        struct json_object *pdb = b->v[i].obj;
        const char *pns = emu_path_str(pdb, "metadata.namespace");
        char sels[1024];
        struct emu_sel *sel = NULL;
        struct emu_err e2 = {0};
        if (!pns || strcmp(pns, ns))
            continue;
        selector_string(emu_path(pdb, "spec.selector"), sels, sizeof(sels));
        if (!sels[0] || emu_sel_parse(sels, NULL, &sel, &e2) < 0)
            continue;
        if (!emu_sel_match(sel, pod)) {
            emu_sel_free(sel);
            continue;
        }
        int64_t expected = 0, healthy = 0, allowed = 1, v;
        struct emu_bucket *pb = &emu.buckets[pods];
        for (size_t j = 0; j < pb->n; j++) {
            const char *ons = emu_path_str(pb->v[j].obj, "metadata.namespace");
            if (!ons || strcmp(ons, ns) || !emu_sel_match(sel, pb->v[j].obj))
                continue;
            expected++;
            healthy += pod_healthy(pb->v[j].obj);
        }
        emu_sel_free(sel);
        if (intorpct(emu_path(pdb, "spec.minAvailable"), expected, true, &v) ==
            0)
            allowed = healthy - v;
        else if (intorpct(emu_path(pdb, "spec.maxUnavailable"), expected, true,
                          &v) == 0)
            allowed = v - (expected - healthy);
        if (allowed <= 0) {
            emu_err_set(err, 429, "TooManyRequests", emu_k("pods"),
                        emu_path_str(pod, "metadata.name"),
                        "Cannot evict pod as it would violate the pod's "
                        "disruption budget.");
            return -EBUSY;
        }
    }
    return 0;
}

static void delete_options(struct json_object *o, const char **ret_uid,
                           const char **ret_rv, bool *ret_orphan)
{
    const char *pp = emu_path_str(o, "propagationPolicy");
    struct json_object *od = emu_path(o, "orphanDependents");
    *ret_uid = emu_path_str(o, "preconditions.uid");
    *ret_rv = emu_path_str(o, "preconditions.resourceVersion");
    *ret_orphan =
        (pp && !strcmp(pp, "Orphan")) || (od && json_object_get_boolean(od));
}

static int evict(const struct emu_req *r, struct json_object *ev,
                 struct emu_resp *resp, struct emu_err *err)
{
    int pods = emu_k("pods");
    struct json_object *pod = emu_store_get(pods, r->ns, r->name), *last;
    const char *uid, *rv;
    bool orphan;
    if (!pod) {
        emu_err_set(err, 404, "NotFound", pods, r->name,
                    "pods \"%s\" not found", r->name);
        return -ENOENT;
    }
    delete_options(emu_path(ev, "deleteOptions"), &uid, &rv, &orphan);
    if (pdb_allows(pod, err) < 0)
        return -EBUSY;
    if (emu_store_delete(pods, r->ns, r->name, uid, rv, false, &last, err) < 0)
        return -EINVAL;
    json_object_put(last);
    answer(resp, 201, emu_status_success(201, -1, NULL, NULL));
    return 0;
}

/* Takes o; ret_name: the name given or generated, for the audit. */
static int create(const struct emu_req *r, struct json_object *o,
                  struct emu_resp *resp, char *ret_name, size_t name_size,
                  struct emu_err *err)
{
    const struct emu_kind *k = &emu_kinds[r->kind];
    const char *kind = emu_path_str(o, "kind");
    const char *av = emu_path_str(o, "apiVersion");
    const char *ons = emu_path_str(o, "metadata.namespace");
    char buf[128];
    struct json_object *out;
    emu_kind_api_version(k, buf, sizeof(buf));
    if ((kind && strcmp(kind, k->kind)) || (av && strcmp(av, buf))) {
        emu_err_set(err, 400, "BadRequest", r->kind, "",
                    "the API version in the data (%s) does not match the "
                    "expected API version (%s)",
                    av ? av : "", buf);
        json_object_put(o);
        return -EINVAL;
    }
    if (k->namespaced && ons && *ons && r->ns && strcmp(ons, r->ns)) {
        emu_err_set(err, 400, "BadRequest", r->kind, "",
                    "the namespace of the provided object does not match "
                    "the namespace sent on the request");
        json_object_put(o);
        return -EINVAL;
    }
    json_object_object_add(o, "kind", json_object_new_string(k->kind));
    json_object_object_add(o, "apiVersion", json_object_new_string(buf));
    if (k->namespaced && r->ns)
        json_object_object_add(emu_child(o, "metadata"), "namespace",
                               json_object_new_string(r->ns));
    o = emu_unview(r->kind, o);
    const char *given = emu_path_str(o, "metadata.name");
    snprintf(ret_name, name_size, "%s", given ? given : "");
    if (emu_store_create(r->kind, o, &out, err) < 0)
        return -EINVAL;
    snprintf(ret_name, name_size, "%s", emu_path_str(out, "metadata.name"));
    answer_view(resp, 201, r->kind, out, false);
    return 0;
}

static int update(const struct emu_req *r, struct json_object *o,
                  struct emu_resp *resp, struct emu_err *err)
{
    const char *name = emu_path_str(o, "metadata.name");
    struct json_object *out;
    if (!name || strcmp(name, r->name)) {
        emu_err_set(err, 400, "BadRequest", r->kind, r->name,
                    "the name of the object (%s) does not match the name on "
                    "the URL (%s)",
                    name ? name : "", r->name);
        json_object_put(o);
        return -EINVAL;
    }
    if (emu_kinds[r->kind].namespaced && r->ns)
        json_object_object_add(emu_child(o, "metadata"), "namespace",
                               json_object_new_string(r->ns));
    o = emu_unview(r->kind, o);
    if (emu_store_update(r->kind, o, r->sub, &out, err) < 0)
        return -EINVAL;
    if (out)
        answer_view(resp, 200, r->kind, out, false);
    else
        answer(resp, 200, emu_status_success(200, r->kind, r->name, NULL));
    return 0;
}

static int patch(const struct emu_req *r, struct json_object *p,
                 struct emu_resp *resp, struct emu_err *err)
{
    const char *ct = r->content_type ? r->content_type : "";
    const struct emu_kind *k = &emu_kinds[r->kind];
    struct json_object *cur = emu_store_get(k->storage, r->ns, r->name);
    struct json_object *view, *out = NULL, *stored;
    int rc;
    if (!strncmp(ct, "application/apply-patch+yaml", 28)) {
        if (!r->field_manager || !*r->field_manager) {
            emu_err_set(err, 400, "BadRequest", r->kind, r->name,
                        "PATCH %s: fieldManager is required for apply "
                        "requests",
                        r->name);
            return -EINVAL;
        }
        if (!cur && !r->sub) {
            /* Apply creates what is not there yet. */
            char name[256];
            struct json_object *o = emu_copy(p);
            json_object_object_add(emu_child(o, "metadata"), "name",
                                   json_object_new_string(r->name));
            return create(r, o, resp, name, sizeof(name), err);
        }
    }
    if (!cur) {
        emu_err_set(err, 404, "NotFound", r->kind, r->name,
                    "%s%s%s \"%s\" not found", k->resource,
                    *k->group ? "." : "", k->group, r->name);
        return -ENOENT;
    }
    view = emu_view(r->kind, cur);
    if (!strncmp(ct, "application/apply-patch+yaml", 28)) {
        /* Server-side apply, roughly: the applied fields merge in. */
        rc = emu_patch_merge(view, p, &out);
    } else if (!strncmp(ct, "application/merge-patch+json", 28)) {
        rc = emu_patch_merge(view, p, &out);
    } else if (!strncmp(ct, "application/json-patch+json", 27)) {
        rc = emu_patch_json(view, p, &out, err);
        if (rc < 0) {
            json_object_put(view);
            return rc;
        }
    } else if (!strncmp(ct, "application/strategic-merge-patch+json", 38) &&
               !k->crd) {
        rc = emu_patch_strategic(view, p, &out);
    } else {
        emu_err_set(err, 415, "UnsupportedMediaType", r->kind, r->name,
                    "the body of the request was in an unknown format - "
                    "accepted media types include: "
                    "application/json-patch+json, "
                    "application/merge-patch+json%s",
                    k->crd ? "" : ", application/strategic-merge-patch+json");
        json_object_put(view);
        return -EINVAL;
    }
    json_object_put(view);
    if (rc < 0) {
        emu_err_set(err, 400, "BadRequest", r->kind, r->name,
                    "the patch is not a JSON object");
        return rc;
    }
    /* The name and namespace cannot change; a resourceVersion the patch
     * names is a precondition, else the current one. */
    struct json_object *meta = emu_child(out, "metadata");
    json_object_object_add(meta, "name", json_object_new_string(r->name));
    if (k->namespaced && r->ns)
        json_object_object_add(meta, "namespace",
                               json_object_new_string(r->ns));
    if (!emu_path(p, "metadata.resourceVersion"))
        json_object_object_add(meta, "resourceVersion",
                               json_object_new_string(emu_path_str(
                                   cur, "metadata.resourceVersion")));
    out = emu_unview(r->kind, out);
    if (emu_store_update(r->kind, out, r->sub, &stored, err) < 0)
        return -EINVAL;
    if (stored)
        answer_view(resp, 200, r->kind, stored, false);
    else
        answer(resp, 200, emu_status_success(200, r->kind, r->name, NULL));
    return 0;
}

static int delete_one(const struct emu_req *r, struct json_object *opts,
                      struct emu_resp *resp, struct emu_err *err)
{
    const char *uid, *rv;
    bool orphan;
    struct json_object *last;
    delete_options(opts, &uid, &rv, &orphan);
    if (emu_store_delete(r->kind, r->ns, r->name, uid, rv, orphan, &last, err) <
        0)
        return -EINVAL;
    if (!strcmp(emu_kinds[r->kind].resource, "pods") ||
        emu_path(last, "metadata.deletionTimestamp")) {
        answer_view(resp, 200, r->kind, last, false);
    } else {
        answer(resp, 200,
               emu_status_success(200, r->kind, r->name,
                                  emu_path_str(last, "metadata.uid")));
    }
    json_object_put(last);
    return 0;
}

static int delete_collection(const struct emu_req *r, struct emu_resp *resp,
                             struct emu_err *err)
{
    const struct emu_kind *k = &emu_kinds[r->kind];
    struct emu_bucket *b = &emu.buckets[k->storage];
    struct emu_sel *sel = NULL;
    if (emu_sel_parse(r->label_sel, r->field_sel, &sel, err) < 0)
        return -EINVAL;
    for (size_t i = 0; i < b->n;) {
        struct json_object *o = b->v[i].obj, *last;
        const char *ns = emu_path_str(o, "metadata.namespace");
        char name[256];
        if ((k->namespaced && r->ns && (!ns || strcmp(ns, r->ns))) ||
            !emu_sel_match(sel, o)) {
            i++;
            continue;
        }
        snprintf(name, sizeof(name), "%s", emu_path_str(o, "metadata.name"));
        struct emu_err e2 = {0};
        size_t before = b->n;
        emu_store_delete(r->kind, ns, name, NULL, NULL, false, &last, &e2);
        json_object_put(last);
        if (b->n == before)
            i++; /* kept by finalizers */
        else
            i = 0;
    }
    emu_sel_free(sel);
    answer(resp, 200, emu_status_success(200, r->kind, NULL, NULL));
    return 0;
}

/* The Binding's annotation naming the ClusterQueue version that decided
 * its admission (Ordo's), or NULL. */
static const char *bind_cq_version(struct json_object *body)
{
    struct json_object *ann = emu_path(body, "metadata.annotations"), *v;
    if (!ann || !json_object_is_type(ann, json_type_object) ||
        !json_object_object_get_ex(ann, "ordo.dev/cluster-queue-version", &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static void audit(const struct emu_req *r, const char *verb, int code,
                  const char *name, const char *node, const char *cq_version)
{
    const struct emu_kind *k = &emu_kinds[r->kind];
    int storage = !strcmp(k->resource, "bindings") ? emu_k("pods") : k->storage;
    struct json_object *o = name && *name && code < 300
                                ? emu_store_get(storage, r->ns, name)
                                : NULL;
    char rv[32];
    /* The written object's version; the deletion's for what is gone. */
    if (o)
        snprintf(rv, sizeof(rv), "%s",
                 emu_path_str(o, "metadata.resourceVersion"));
    else
        snprintf(rv, sizeof(rv), "%lld", (long long)emu.rv);
    struct emu_audit_rec a = {
        .verb = verb,
        .resource = k->resource,
        .subresource = r->sub,
        .ns = r->ns,
        .name = name,
        .rv = code < 300 ? rv : NULL,
        .node = node,
        .cq_version = code < 300 ? cq_version : NULL,
        .user = r->user,
        .user_agent = r->user_agent,
        .code = code,
    };
    emu_audit_write(&a);
}

void emu_api_handle(const struct emu_req *r, struct emu_resp *resp)
{
    struct emu_err err = {0};
    const struct emu_kind *k = &emu_kinds[r->kind];
    const char *m = r->method, *verb = NULL;
    struct json_object *body = NULL;
    char node[256] = "", name[256];
    int rc = 0;
    snprintf(name, sizeof(name), "%s", r->name ? r->name : "");
    pthread_mutex_lock(&emu.lock);
    if (r->sub && strcmp(r->sub, "status") &&
        !(!strcmp(k->resource, "pods") && !*k->group &&
          (!strcmp(r->sub, "binding") || !strcmp(r->sub, "eviction")))) {
        emu_err_set(&err, 404, "NotFound", r->kind, name,
                    "the server could not find the requested resource");
        goto error;
    }
    if (r->sub && !strcmp(r->sub, "status") && !k->has_status) {
        emu_err_set(&err, 404, "NotFound", r->kind, name,
                    "the server could not find the requested resource");
        goto error;
    }
    if (!strcmp(m, "GET")) {
        if (!r->name) {
            list(r, resp);
        } else {
            struct json_object *o = emu_store_get(k->storage, r->ns, r->name);
            if (!o) {
                emu_err_set(&err, 404, "NotFound", r->kind, name,
                            "%s%s%s \"%s\" not found", k->resource,
                            *k->group ? "." : "", k->group, name);
                goto error;
            }
            answer_view(resp, 200, r->kind, o, r->table);
        }
        goto done;
    }
    if (!strcmp(m, "DELETE")) {
        verb = r->name ? "delete" : "deletecollection";
        if (r->body_len) {
            body = parse_body(r, &err);
            if (!body)
                goto error;
        }
        rc = r->name ? delete_one(r, body, resp, &err)
                     : delete_collection(r, resp, &err);
        if (rc < 0)
            goto error;
        goto done;
    }
    if (r->dry_run && *r->dry_run) {
        verb = "dryrun";
        emu_err_set(&err, 400, "BadRequest", r->kind, name,
                    "dryRun is not supported by ordo-kube-emu");
        goto error;
    }
    if (r->content_type && *r->content_type &&
        !strstr(r->content_type, "json") &&
        !(!strcmp(m, "PATCH") &&
          !strncmp(r->content_type, "application/apply-patch+yaml", 28))) {
        /* kubectl's typed clients send protobuf; only JSON is read. */
        verb = !strcmp(m, "POST") ? "create" : "update";
        emu_err_set(&err, 415, "UnsupportedMediaType", r->kind, name,
                    "the body of the request was in an unknown format - "
                    "accepted media types include: application/json%s",
                    !strcmp(m, "PATCH") ? ", application/merge-patch+json, "
                                          "application/json-patch+json"
                                        : "");
        goto error;
    }
    body = parse_body(r, &err);
    if (!body) {
        verb = !strcmp(m, "POST") ? "create" : "update";
        goto error;
    }
    if (!strcmp(m, "POST") && r->sub && !strcmp(r->sub, "binding")) {
        verb = "bind";
        rc = bind(r, body, r->name, resp, node, sizeof(node), &err);
    } else if (!strcmp(m, "POST") && !r->name &&
               !strcmp(k->resource, "bindings")) {
        const char *bn = emu_path_str(body, "metadata.name");
        verb = "bind";
        snprintf(name, sizeof(name), "%s", bn ? bn : "");
        rc = bind(r, body, name, resp, node, sizeof(node), &err);
    } else if (!strcmp(m, "POST") && r->sub && !strcmp(r->sub, "eviction")) {
        verb = "evict";
        rc = evict(r, body, resp, &err);
    } else if (!strcmp(m, "POST") && !r->name && k->writable) {
        verb = "create";
        rc = create(r, emu_copy(body), resp, name, sizeof(name), &err);
    } else if (!strcmp(m, "PUT") && r->name && k->writable) {
        verb = "update";
        rc = update(r, emu_copy(body), resp, &err);
    } else if (!strcmp(m, "PATCH") && r->name && k->writable) {
        verb = "patch";
        rc = patch(r, body, resp, &err);
    } else {
        verb = "unknown";
        emu_err_set(&err, 405, "MethodNotAllowed", r->kind, name,
                    "the server does not allow this method on the requested "
                    "resource");
        rc = -EINVAL;
    }
    if (rc < 0)
        goto error;
    goto done;
error:
    free(resp->body);
    answer_err(resp, &err);
done:
    if (verb)
        audit(r, verb, resp->code, name, node[0] ? node : NULL,
              body && !strcmp(verb, "bind") ? bind_cq_version(body) : NULL);
    if (verb && !strcmp(verb, "bind") && resp->code < 300 &&
        !emu_fault_spared() && emu_fault_draw(emu_faults.bind_timeout_ppm)) {
        /* Applied (the audit says so), but the client hears a timeout. */
        err = (struct emu_err){0};
        emu_err_set(&err, 504, "Timeout", -1, "",
                    "Timeout: request did not complete within the allotted "
                    "timeout (injected, the binding was applied)");
        free(resp->body);
        answer_err(resp, &err);
        emu_fault_audit("bind-504", "bind", "pods", r->ns, name, r->user,
                        r->user_agent, 504);
    }
    pthread_mutex_unlock(&emu.lock);
    json_object_put(body);
}
