/* emu_discovery.c - the kinds the emulator serves and the discovery
 * documents kubectl and clients read: /version, /api, /api/v1, /apis,
 * /apis/G, /apis/G/V, and OpenAPI v3 (the real core/v1 document from
 * openapi/, a small generated one for the other groups). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

#define KUEUE "kueue.x-k8s.io"
/* Kinds sharing storage name the first kind's index (events.k8s.io Event
 * is core Event, stored once). Order is the discovery order. */
const struct emu_kind emu_kinds[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", false, "ns", true, false,
     0, true},
    {"", "v1", "nodes", "node", "Node", false, "no", true, false, 1, true},
    {"", "v1", "pods", "pod", "Pod", true, "po", true, false, 2, true},
    {"", "v1", "events", "event", "Event", true, "ev", false, false, 3, true},
    {"", "v1", "configmaps", "configmap", "ConfigMap", true, "cm", false, false,
     4, true},
    {"", "v1", "bindings", "binding", "Binding", true, NULL, false, false, 5,
     false},
    {"batch", "v1", "jobs", "job", "Job", true, NULL, true, false, 6, true},
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, NULL, false,
     false, 7, true},
    {"events.k8s.io", "v1", "events", "event", "Event", true, "ev", false,
     false, 3, true},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass",
     "PriorityClass", false, "pc", false, false, 9, true},
    {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget",
     "PodDisruptionBudget", true, "pdb", true, false, 10, true},
    {KUEUE, "v1beta2", "resourceflavors", "resourceflavor", "ResourceFlavor",
     false, "flavor,flavors,rf", false, true, 11, true},
    {KUEUE, "v1beta2", "clusterqueues", "clusterqueue", "ClusterQueue", false,
     "cq", true, true, 12, true},
    {KUEUE, "v1beta2", "localqueues", "localqueue", "LocalQueue", true,
     "queue,queues,lq", true, true, 13, true},
    {KUEUE, "v1beta2", "cohorts", "cohort", "Cohort", false, NULL, true, true,
     14, true},
    {KUEUE, "v1beta2", "workloadpriorityclasses", "workloadpriorityclass",
     "WorkloadPriorityClass", false, NULL, false, true, 15, true},
    {KUEUE, "v1beta2", "topologies", "topology", "Topology", false, NULL, false,
     true, 16, true},
    {KUEUE, "v1beta2", "admissionchecks", "admissioncheck", "AdmissionCheck",
     false, NULL, true, true, 17, true},
    {KUEUE, "v1beta2", "workloads", "workload", "Workload", true, "wl", true,
     true, 18, true},
    {"jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "JobSet", true, NULL,
     true, true, 19, true},
    {"topology.node.k8s.io", "v1alpha2", "noderesourcetopologies",
     "noderesourcetopology", "NodeResourceTopology", false, "node-res-topo",
     false, true, 20, true},
    /* Stored only, for the deploy manifests (examples/deploy). */
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true,
     "sa", false, false, 21, true},
    {"", "v1", "services", "service", "Service", true, "svc", true, false, 22,
     true},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions",
     "customresourcedefinition", "CustomResourceDefinition", false, "crd,crds",
     true, false, 23, true},
    {"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole",
     "ClusterRole", false, NULL, false, false, 24, true},
    {"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
     "clusterrolebinding", "ClusterRoleBinding", false, NULL, false, false, 25,
     true},
    {"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, NULL,
     false, false, 26, true},
    {"rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding",
     "RoleBinding", true, NULL, false, false, 27, true},
    {"apps", "v1", "deployments", "deployment", "Deployment", true, "deploy",
     true, false, 28, true},
    {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
     "mutatingwebhookconfiguration", "MutatingWebhookConfiguration", false,
     NULL, false, false, 29, true},
    {"monitoring.coreos.com", "v1", "servicemonitors", "servicemonitor",
     "ServiceMonitor", true, "smon", false, true, 30, true},
    /* The visibility API's registration (examples/deploy/ordo). */
    {"apiregistration.k8s.io", "v1", "apiservices", "apiservice", "APIService",
     false, NULL, true, false, 31, true},
};
const size_t emu_nkinds = sizeof(emu_kinds) / sizeof(emu_kinds[0]);

static char *openapi_dir;

void emu_discovery_set_openapi_dir(const char *dir)
{
    free(openapi_dir);
    openapi_dir = dir ? strdup(dir) : NULL;
}

int emu_kind_find(const char *group, const char *version, const char *resource)
{
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        if (!strcmp(k->group, group) && !strcmp(k->version, version) &&
            !strcmp(k->resource, resource))
            return (int)i;
    }
    return -1;
}

int emu_kind_by_kind(const char *api_version, const char *kind)
{
    char buf[128];
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        if (!strcmp(k->kind, kind) &&
            !strcmp(emu_kind_api_version(k, buf, sizeof(buf)), api_version))
            return (int)i;
    }
    return -1;
}

int emu_k(const char *resource)
{
    for (size_t i = 0; i < emu_nkinds; i++)
        if (!strcmp(emu_kinds[i].resource, resource))
            return (int)i;
    return -1;
}

const char *emu_kind_api_version(const struct emu_kind *k, char *buf,
                                 size_t size)
{
    if (!*k->group)
        snprintf(buf, size, "%s", k->version);
    else
        snprintf(buf, size, "%s/%s", k->group, k->version);
    return buf;
}

static char *take_string(struct json_object *o)
{
    char *s = strdup(json_object_to_json_string_ext(o, EMU_JSON));
    json_object_put(o);
    return s;
}

static struct json_object *verbs(const char *const *v)
{
    struct json_object *a = json_object_new_array();
    for (; *v; v++)
        json_object_array_add(a, json_object_new_string(*v));
    return a;
}

static struct json_object *resource_entry(const struct emu_kind *k,
                                          const char *sub)
{
    static const char *const all[] = {"create", "delete", "deletecollection",
                                      "get",    "list",   "patch",
                                      "update", "watch",  NULL};
    static const char *const rw[] = {"get", "patch", "update", NULL};
    static const char *const create[] = {"create", NULL};
    struct json_object *r = json_object_new_object();
    char name[128];
    snprintf(name, sizeof(name), "%s%s%s", k->resource, sub ? "/" : "",
             sub ? sub : "");
    json_object_object_add(r, "name", json_object_new_string(name));
    json_object_object_add(r, "singularName",
                           json_object_new_string(sub ? "" : k->singular));
    json_object_object_add(r, "namespaced",
                           json_object_new_boolean(k->namespaced));
    json_object_object_add(
        r, "kind",
        json_object_new_string(!sub || !strcmp(sub, "status") ? k->kind
                               : !strcmp(sub, "binding")      ? "Binding"
                                                              : "Eviction"));
    if (sub && strcmp(sub, "status")) {
        json_object_object_add(
            r, "group",
            json_object_new_string(!strcmp(sub, "eviction") ? "policy" : ""));
        json_object_object_add(r, "version", json_object_new_string("v1"));
    }
    json_object_object_add(r, "verbs",
                           verbs(sub && !strcmp(sub, "status") ? rw
                                 : sub || !k->writable         ? create
                                                               : all));
    if (!sub && k->short_names) {
        struct json_object *a = json_object_new_array();
        char buf[128], *save = NULL;
        snprintf(buf, sizeof(buf), "%s", k->short_names);
        for (char *t = strtok_r(buf, ",", &save); t;
             t = strtok_r(NULL, ",", &save))
            json_object_array_add(a, json_object_new_string(t));
        json_object_object_add(r, "shortNames", a);
    }
    /* kubectl get all: of these kinds, pods and jobs are in "all". */
    if (!sub &&
        (!strcmp(k->resource, "pods") || !strcmp(k->resource, "jobs"))) {
        struct json_object *c = json_object_new_array();
        json_object_array_add(c, json_object_new_string("all"));
        json_object_object_add(r, "categories", c);
    }
    return r;
}

static struct json_object *resource_list(const char *group, const char *version)
{
    struct json_object *l = json_object_new_object();
    struct json_object *items = json_object_new_array();
    char gv[128];
    int n = 0;
    if (*group)
        snprintf(gv, sizeof(gv), "%s/%s", group, version);
    else
        snprintf(gv, sizeof(gv), "%s", version);
    json_object_object_add(l, "kind",
                           json_object_new_string("APIResourceList"));
    json_object_object_add(l, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(l, "groupVersion", json_object_new_string(gv));
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        if (strcmp(k->group, group) || strcmp(k->version, version))
            continue;
        n++;
        json_object_array_add(items, resource_entry(k, NULL));
        if (k->has_status)
            json_object_array_add(items, resource_entry(k, "status"));
        if (!strcmp(k->resource, "pods") && !*k->group) {
            json_object_array_add(items, resource_entry(k, "binding"));
            json_object_array_add(items, resource_entry(k, "eviction"));
        }
    }
    json_object_object_add(l, "resources", items);
    if (!n) {
        json_object_put(l);
        return NULL;
    }
    return l;
}

static struct json_object *group_entry(const char *group, const char *version)
{
    struct json_object *g = json_object_new_object();
    struct json_object *vs = json_object_new_array();
    struct json_object *v = json_object_new_object();
    char gv[128];
    snprintf(gv, sizeof(gv), "%s/%s", group, version);
    json_object_object_add(v, "groupVersion", json_object_new_string(gv));
    json_object_object_add(v, "version", json_object_new_string(version));
    json_object_array_add(vs, v);
    json_object_object_add(g, "name", json_object_new_string(group));
    json_object_object_add(g, "versions", vs);
    json_object_object_add(g, "preferredVersion", json_object_get(v));
    return g;
}

static struct json_object *group_list(const char *only)
{
    struct json_object *l = json_object_new_object();
    struct json_object *groups = json_object_new_array();
    json_object_object_add(l, "kind", json_object_new_string("APIGroupList"));
    json_object_object_add(l, "apiVersion", json_object_new_string("v1"));
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        bool seen = false;
        if (!*k->group || (only && strcmp(only, k->group)))
            continue;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(emu_kinds[j].group, k->group);
        if (!seen)
            json_object_array_add(groups, group_entry(k->group, k->version));
    }
    json_object_object_add(l, "groups", groups);
    return l;
}

static char *version_doc(void)
{
    return strdup("{\"major\":\"1\",\"minor\":\"33\",\"gitVersion\":"
                  "\"v1.33.0\",\"gitCommit\":\"ordo-kube-emu\","
                  "\"gitTreeState\":\"clean\",\"buildDate\":"
                  "\"2025-04-23T00:00:00Z\",\"goVersion\":\"go1.24.2\","
                  "\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}");
}

/* The OpenAPI v3 index: core/v1 and every group version. */
static char *openapi_index(void)
{
    struct json_object *o = json_object_new_object();
    struct json_object *paths = json_object_new_object();
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "serverRelativeURL",
                           json_object_new_string("/openapi/v3/api/v1?hash=1"));
    json_object_object_add(paths, "api/v1", e);
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        char p[160], url[200];
        if (!*k->group)
            continue;
        snprintf(p, sizeof(p), "apis/%s/%s", k->group, k->version);
        snprintf(url, sizeof(url), "/openapi/v3/%s?hash=1", p);
        e = json_object_new_object();
        json_object_object_add(e, "serverRelativeURL",
                               json_object_new_string(url));
        json_object_object_add(paths, p, e);
    }
    json_object_object_add(o, "paths", paths);
    return take_string(o);
}

static struct json_object *gvk(const struct emu_kind *k)
{
    struct json_object *g = json_object_new_object();
    json_object_object_add(g, "group", json_object_new_string(k->group));
    json_object_object_add(g, "version", json_object_new_string(k->version));
    json_object_object_add(g, "kind", json_object_new_string(k->kind));
    return g;
}

/* A permissive document: kubectl needs each kind's POST/PUT/PATCH with its
 * x-kubernetes-group-version-kind and the fieldValidation parameter to
 * validate on the server; the schema keeps unknown fields. */
static char *openapi_group(const char *group, const char *version)
{
    struct json_object *o = json_object_new_object();
    struct json_object *paths = json_object_new_object();
    struct json_object *schemas = json_object_new_object();
    int n = 0;
    json_object_object_add(o, "openapi", json_object_new_string("3.0.0"));
    struct json_object *info = json_object_new_object();
    json_object_object_add(info, "title", json_object_new_string("Kubernetes"));
    json_object_object_add(info, "version", json_object_new_string("v1.33.0"));
    json_object_object_add(o, "info", info);
    for (size_t i = 0; i < emu_nkinds; i++) {
        const struct emu_kind *k = &emu_kinds[i];
        char path[256], ref[256], sname[200];
        if (strcmp(k->group, group) || strcmp(k->version, version))
            continue;
        n++;
        snprintf(sname, sizeof(sname), "%s.%s.%s", k->group, k->version,
                 k->kind);
        snprintf(ref, sizeof(ref), "#/components/schemas/%s", sname);
        snprintf(path, sizeof(path), "/apis/%s/%s%s/%s", group, version,
                 k->namespaced ? "/namespaces/{namespace}" : "", k->resource);
        struct json_object *item = json_object_new_object();
        const char *ops[] = {"post", "put", "patch"};
        for (int j = 0; j < 3; j++) {
            struct json_object *op = json_object_new_object();
            struct json_object *params = json_object_new_array();
            struct json_object *fv = json_object_new_object();
            json_object_object_add(fv, "name",
                                   json_object_new_string("fieldValidation"));
            json_object_object_add(fv, "in", json_object_new_string("query"));
            struct json_object *fs = json_object_new_object();
            json_object_object_add(fs, "type",
                                   json_object_new_string("string"));
            json_object_object_add(fv, "schema", fs);
            json_object_array_add(params, fv);
            json_object_object_add(op, "parameters", params);
            json_object_object_add(op, "x-kubernetes-action",
                                   json_object_new_string(j == 0   ? "post"
                                                          : j == 1 ? "put"
                                                                   : "patch"));
            json_object_object_add(op, "x-kubernetes-group-version-kind",
                                   gvk(k));
            json_object_object_add(item, ops[j], op);
        }
        json_object_object_add(paths, path, item);
        struct json_object *s = json_object_new_object();
        json_object_object_add(s, "type", json_object_new_string("object"));
        json_object_object_add(s, "x-kubernetes-preserve-unknown-fields",
                               json_object_new_boolean(1));
        struct json_object *g = json_object_new_array();
        json_object_array_add(g, gvk(k));
        json_object_object_add(s, "x-kubernetes-group-version-kind", g);
        json_object_object_add(schemas, sname, s);
    }
    if (!n) {
        json_object_put(o);
        json_object_put(paths);
        json_object_put(schemas);
        return NULL;
    }
    json_object_object_add(o, "paths", paths);
    struct json_object *comp = json_object_new_object();
    json_object_object_add(comp, "schemas", schemas);
    json_object_object_add(o, "components", comp);
    return take_string(o);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

int emu_discovery(const char *path, char **ret_body, int *ret_code)
{
    char g[128], v[64], extra;
    struct json_object *o = NULL;
    *ret_code = 200;
    *ret_body = NULL;
    if (!strcmp(path, "/version") || !strcmp(path, "/version/")) {
        *ret_body = version_doc();
        return 0;
    }
    if (!strcmp(path, "/api") || !strcmp(path, "/api/")) {
        *ret_body = strdup("{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                           "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":"
                           "\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1\"}]}");
        return 0;
    }
    if (!strcmp(path, "/api/v1") || !strcmp(path, "/api/v1/"))
        o = resource_list("", "v1");
    else if (!strcmp(path, "/apis") || !strcmp(path, "/apis/"))
        o = group_list(NULL);
    else if (sscanf(path, "/apis/%127[^/]/%63[^/]%c", g, v, &extra) == 2)
        o = resource_list(g, v);
    else if (sscanf(path, "/apis/%127[^/]%c", g, &extra) == 1) {
        o = group_list(g);
        struct json_object *gs = json_object_object_get(o, "groups");
        struct json_object *one =
            json_object_array_length(gs)
                ? json_object_get(json_object_array_get_idx(gs, 0))
                : NULL;
        json_object_put(o);
        o = one;
        if (o)
            json_object_object_add(o, "kind",
                                   json_object_new_string("APIGroup"));
        if (o)
            json_object_object_add(o, "apiVersion",
                                   json_object_new_string("v1"));
    } else if (!strcmp(path, "/openapi/v3") || !strcmp(path, "/openapi/v3/")) {
        *ret_body = openapi_index();
        return 0;
    } else if (!strcmp(path, "/openapi/v3/api/v1")) {
        char file[4096];
        snprintf(file, sizeof(file), "%s/v3/api/v1.json",
                 openapi_dir ? openapi_dir : ".");
        *ret_body = read_file(file);
        if (!*ret_body) {
            *ret_code = 404;
            *ret_body = strdup("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                               "\"status\":\"Failure\",\"reason\":"
                               "\"NotFound\",\"code\":404,\"message\":"
                               "\"openapi/v3/api/v1.json missing\"}");
        }
        return 0;
    } else if (sscanf(path, "/openapi/v3/apis/%127[^/]/%63[^/]%c", g, v,
                      &extra) == 2) {
        *ret_body = openapi_group(g, v);
        if (*ret_body)
            return 0;
        return -ENOENT;
    } else if (!strcmp(path, "/healthz") || !strcmp(path, "/livez") ||
               !strcmp(path, "/readyz")) {
        *ret_body = strdup("ok");
        return 0;
    } else {
        return -ENOENT;
    }
    if (!o)
        return -ENOENT;
    *ret_body = take_string(o);
    return 0;
}
