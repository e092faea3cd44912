/* decode.c - decode_object(), the top of decoding: a document is matched
 * to a kind by apiVersion group and kind and handed to that kind's decoder
 * (decode_kinds.h); metadata is decoded first so that every later error
 * can name the object. */
#include "decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"

/* The kinds Ordo reads; their names are object_kind_name()'s. */
struct kind_entry {
    enum object_kind id;
    const char *group; /* "" = core */
    bool strict;
    int (*decode)(struct decode_ctx *, const struct doc_node *,
                  struct object *);
};

static const struct kind_entry kinds[] = {
    {OBJ_NAMESPACE, "", false, decode_namespace},
    {OBJ_NODE, "", false, decode_node},
    {OBJ_POD, "", false, decode_pod},
    {OBJ_JOB, "batch", false, decode_job},
    {OBJ_JOBSET, "jobset.x-k8s.io", false, decode_jobset},
    {OBJ_PRIORITY_CLASS, "scheduling.k8s.io", false, decode_priority_class},
    {OBJ_RESOURCE_FLAVOR, "kueue.x-k8s.io", true, decode_resource_flavor},
    {OBJ_CLUSTER_QUEUE, "kueue.x-k8s.io", true, decode_cluster_queue},
    {OBJ_LOCAL_QUEUE, "kueue.x-k8s.io", true, decode_local_queue},
    {OBJ_COHORT, "kueue.x-k8s.io", true, decode_cohort},
    {OBJ_WORKLOAD_PRIORITY_CLASS, "kueue.x-k8s.io", true,
     decode_workload_priority_class},
    {OBJ_TOPOLOGY, "kueue.x-k8s.io", true, decode_topology},
    {OBJ_ADMISSION_CHECK, "kueue.x-k8s.io", true, decode_admission_check},
};

/* Splits "group/version" and returns the group ("" for "v1"). */
static const char *api_group(const char *api_version, char *buf, size_t size)
{
    const char *slash = strchr(api_version, '/');
    if (!slash)
        return "";
    size_t n = (size_t)(slash - api_version);
    if (n >= size)
        n = size - 1;
    memcpy(buf, api_version, n);
    buf[n] = '\0';
    return buf;
}

int decode_object(const struct doc_node *doc, const char *file,
                  struct object **ret, struct err *e)
{
    struct decode_ctx c = {.file = file, .err = e};
    const char *kind = NULL, *api_version = NULL;
    char group_buf[128];
    int r;

    if (!doc || doc->type != DOC_MAP)
        return decode_fail(&c, doc, "expected a map (a Kubernetes object)");
    if (doc_get_string(doc_map_get(doc, "kind"), &kind) < 0)
        return decode_fail_at(&c, doc, "kind",
                              "missing: not a Kubernetes object");
    c.kind = kind;
    if (doc_get_string(doc_map_get(doc, "apiVersion"), &api_version) < 0)
        return decode_fail_at(&c, doc, "apiVersion", "missing");

    const char *group = api_group(api_version, group_buf, sizeof(group_buf));
    const struct kind_entry *k = NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(object_kind_name(kinds[i].id), kind) == 0 &&
            strcmp(kinds[i].group, group) == 0)
            k = &kinds[i];
    if (!k)
        return DECODE_IGNORED;

    struct object *o = calloc(1, sizeof(*o));
    if (!o)
        return -ENOMEM;
    o->arena = arena_new();
    if (!o->arena) {
        free(o);
        return -ENOMEM;
    }
    o->kind = k->id;
    o->line = doc->line;
    o->file = arena_strdup(o->arena, file);
    o->api_version = arena_strdup(o->arena, api_version);
    c.arena = o->arena;
    c.strict = k->strict;
    c.kind = object_kind_name(k->id);

    const struct doc_node *meta = NULL;
    r = decode_field_map(&c, doc, "metadata", &meta);
    if (r == 0 && !meta)
        r = decode_fail_at(&c, doc, "metadata", "missing");
    if (r == 0)
        r = decode_meta(&c, meta, &o->meta);
    if (r == 0)
        r = decode_check_object_names(&c, meta, o);
    if (r == 0) {
        c.meta = &o->meta;
        if (object_kind_namespaced(k->id) && !o->meta.namespace_)
            o->meta.namespace_ = "default";
        if (!object_kind_namespaced(k->id))
            o->meta.namespace_ = NULL;
        r = k->decode(&c, doc, o);
    }
    if (r < 0) {
        object_free(o);
        return r == -ENOMEM ? err_set(e, ENOMEM, "%s: out of memory", file)
                            : r;
    }
    *ret = o;
    return 0;
}
