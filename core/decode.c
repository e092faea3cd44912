/* decode.c - decode_document(), the top of decoding: a document is matched
 * to a kind by apiVersion group and kind and handed to that kind's decoder
 * (decode_kinds.h); metadata is decoded first so that every later error
 * can name the object. Documents Ordo does not read are named here too:
 * a note for a kind Ordo has no use for, a warning for a workload Ordo does
 * not schedule (a queue-name label on a kind it does not read) and for a
 * Kueue Configuration, an error for a Kueue kind of a version Ordo does
 * not know. */
#include "decode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"

#define KUEUE_GROUP      "kueue.x-k8s.io"
#define QUEUE_NAME_LABEL "kueue.x-k8s.io/queue-name"

/* The kinds Ordo reads; their names are object_kind_name()'s. Kueue's
 * kinds (strict) have their enums and fields checked as Kueue's webhooks
 * and kubectl's field validation would; core kinds stay lenient. */
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
    {OBJ_RESOURCE_FLAVOR, KUEUE_GROUP, true, decode_resource_flavor},
    {OBJ_CLUSTER_QUEUE, KUEUE_GROUP, true, decode_cluster_queue},
    {OBJ_LOCAL_QUEUE, KUEUE_GROUP, true, decode_local_queue},
    {OBJ_COHORT, KUEUE_GROUP, true, decode_cohort},
    {OBJ_WORKLOAD_PRIORITY_CLASS, KUEUE_GROUP, true,
     decode_workload_priority_class},
    {OBJ_TOPOLOGY, KUEUE_GROUP, true, decode_topology},
    {OBJ_ADMISSION_CHECK, KUEUE_GROUP, true, decode_admission_check},
};

/* The fields of every Kubernetes object and of its metadata (ObjectMeta),
 * checked for Kueue's kinds. status is written by Kueue, not read. */
static const struct decode_known top_known[] = {
    {"apiVersion", NULL}, {"kind", NULL},   {"metadata", NULL},
    {"spec", NULL},       {"status", NULL}, {NULL, NULL}};
/* A WorkloadPriorityClass has no spec. */
static const struct decode_known wpc_known[] = {
    {"apiVersion", NULL}, {"kind", NULL},        {"metadata", NULL},
    {"value", NULL},      {"description", NULL}, {NULL, NULL}};
static const struct decode_known meta_known[] = {
    {"name", NULL},
    {"generateName", NULL},
    {"namespace", NULL},
    {"selfLink", NULL},
    {"uid", NULL},
    {"resourceVersion", NULL},
    {"generation", NULL},
    {"creationTimestamp", NULL},
    {"deletionTimestamp", NULL},
    {"deletionGracePeriodSeconds", NULL},
    {"labels", NULL},
    {"annotations", NULL},
    {"ownerReferences", NULL},
    {"finalizers", NULL},
    {"managedFields", NULL},
    {NULL, NULL}};

/* Splits "group/version": the group ("" for "v1") into buf, the version
 * into *ret_version. */
static const char *api_group(const char *api_version, char *buf, size_t size,
                             const char **ret_version)
{
    const char *slash = strchr(api_version, '/');
    *ret_version = slash ? slash + 1 : api_version;
    if (!slash)
        return "";
    size_t n = (size_t)(slash - api_version);
    if (n >= size)
        n = size - 1;
    memcpy(buf, api_version, n);
    buf[n] = '\0';
    return buf;
}

/* Reports what is done with a document Ordo does not read. */
static int decode_ignored(struct decode_ctx *c, const struct doc_node *doc,
                          const char *kind, const char *api_version,
                          const char *group)
{
    const struct doc_node *meta = doc_map_get(doc, "metadata");
    const char *name = NULL, *ns = NULL, *queue = NULL;
    char who[300], line[32] = "", msg[ERR_MSG_MAX];
    doc_get_string(doc_map_get(meta, "name"), &name);
    doc_get_string(doc_map_get(meta, "namespace"), &ns);
    doc_get_string(doc_map_get(doc_map_get(meta, "labels"), QUEUE_NAME_LABEL),
                   &queue);
    snprintf(who, sizeof(who), "%s %s%s%s (%s)", kind, ns ? ns : "",
             ns ? "/" : "", name ? name : "(no name)", api_version);
    if (doc->line)
        snprintf(line, sizeof(line), ":%u", doc->line);
    enum diag_level level = c->warn_is_error ? DIAG_ERROR : DIAG_WARNING;
    if (strcmp(group, "config." KUEUE_GROUP) == 0)
        snprintf(msg, sizeof(msg),
                 "%s%s: %s: unsupported by Ordo: Kueue's own configuration "
                 "is not read (Ordo's settings are in --config, a "
                 "SchedulerConfiguration)",
                 c->file, line, who);
    else if (queue)
        snprintf(msg, sizeof(msg),
                 "%s%s: %s: unsupported by Ordo: a workload of LocalQueue "
                 "\"%s\" (label %s) of a kind Ordo does not read; it is "
                 "not scheduled",
                 c->file, line, who, queue, QUEUE_NAME_LABEL);
    else {
        level = DIAG_NOTE;
        snprintf(msg, sizeof(msg), "%s%s: %s: not read by Ordo", c->file, line,
                 who);
    }
    if (c->diags && diag_list_add(c->diags, level, doc->line, msg) < 0)
        return -ENOMEM;
    if (level != DIAG_ERROR)
        return DECODE_IGNORED;
    err_set(c->err, EINVAL, "%s", msg);
    return -EINVAL;
}

/* The version of a Kueue kind Ordo reads: v1beta2, or v1beta1 (older,
 * read as v1beta2 with a note; its decoders warn about each field that
 * differs). Another version is an error: it is not read. */
static int kueue_version(struct decode_ctx *c, const struct doc_node *doc,
                         const char *api_version, const char *version)
{
    if (strcmp(version, "v1beta2") == 0)
        return 0;
    if (strcmp(version, "v1beta1") == 0) {
        c->v1beta1 = true;
        return 0;
    }
    /* Not decoded: the message names the object as written. */
    const struct doc_node *meta = doc_map_get(doc, "metadata");
    struct object_meta m = {0};
    doc_get_string(doc_map_get(meta, "name"), &m.name);
    doc_get_string(doc_map_get(meta, "namespace"), &m.namespace_);
    c->meta = &m;
    int r = decode_fail_at(c, doc, "apiVersion",
                           "unknown version \"%s\" of a Kueue kind (Ordo "
                           "reads %s/v1beta2, and v1beta1): not read",
                           api_version, KUEUE_GROUP);
    c->meta = NULL;
    return r;
}

/* Decodes metadata, names and the kind's own fields into o, going on past
 * errors where the object is still known. */
static int decode_body(struct decode_ctx *c, const struct kind_entry *k,
                       const struct doc_node *doc, struct object *o)
{
    const struct decode_known *known =
        k->id == OBJ_WORKLOAD_PRIORITY_CLASS ? wpc_known : top_known;
    const struct doc_node *meta = NULL;
    int r = decode_field_map(c, doc, "metadata", &meta);
    if (r == 0 && !meta)
        r = decode_fail_at(c, doc, "metadata", "missing");
    if (r == 0)
        r = decode_meta(c, meta, &o->meta);
    if (r < 0)
        return decode_join(r, decode_check_known(c, doc, known));
    /* Names are checked before they name the object in messages. */
    r = decode_check_object_names(c, meta, o);
    c->meta = &o->meta;
    r = decode_join(r, decode_check_known(c, doc, known));
    size_t mark = decode_path_push(c, "metadata");
    r = decode_join(r, decode_check_known(c, meta, meta_known));
    decode_path_pop(c, mark);
    if (object_kind_namespaced(k->id) && !o->meta.namespace_)
        o->meta.namespace_ = "default";
    if (!object_kind_namespaced(k->id))
        o->meta.namespace_ = NULL;
    return decode_join(r, k->decode(c, doc, o));
}

int decode_document(const struct doc_node *doc, const char *file,
                    const struct decode_options *opt, struct object **ret,
                    struct diag_list *diags)
{
    struct err e;
    struct decode_ctx c = {.file = file, .err = &e, .diags = diags};
    const char *kind = NULL, *api_version = NULL, *version = NULL;
    char group_buf[128];
    size_t first = diags ? diags->n : 0;
    int r;

    c.warn_is_error = opt && opt->strict;
    if (!doc || doc->type != DOC_MAP)
        return decode_fail(&c, doc, "expected a map (a Kubernetes object)");
    if (doc_get_string(doc_map_get(doc, "kind"), &kind) < 0)
        return decode_fail_at(&c, doc, "kind",
                              "missing: not a Kubernetes object");
    c.kind = kind;
    if (doc_get_string(doc_map_get(doc, "apiVersion"), &api_version) < 0)
        return decode_fail_at(&c, doc, "apiVersion", "missing");

    const char *group =
        api_group(api_version, group_buf, sizeof(group_buf), &version);
    const struct kind_entry *k = NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(object_kind_name(kinds[i].id), kind) == 0 &&
            strcmp(kinds[i].group, group) == 0)
            k = &kinds[i];
    if (!k)
        return decode_ignored(&c, doc, kind, api_version, group);
    if (k->strict && kueue_version(&c, doc, api_version, version) < 0)
        return -EINVAL;

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
    c.check_known = k->strict;
    c.kind = object_kind_name(k->id);

    r = decode_body(&c, k, doc, o);
    if (r == 0 && c.v1beta1)
        decode_note(&c, doc,
                    "%s is an older version (deprecated by Kueue), read as "
                    "%s/v1beta2",
                    api_version, KUEUE_GROUP);
    if (c.n_errors && r == 0)
        r = -EINVAL; /* an error a decoder went on past */
    if (c.oom)
        r = -ENOMEM;
    if (diags)
        diag_list_sort(diags, first);
    if (r < 0) {
        object_free(o);
        return r;
    }
    *ret = o;
    return 0;
}

int decode_object(const struct doc_node *doc, const char *file,
                  struct object **ret, struct err *e)
{
    struct diag_list diags;
    diag_list_init(&diags);
    int r = decode_document(doc, file, NULL, ret, &diags);
    if (r == -ENOMEM)
        err_set(e, ENOMEM, "%s: out of memory", file);
    for (size_t i = 0; r < 0 && r != -ENOMEM && i < diags.n; i++)
        if (diags.items[i].level == DIAG_ERROR) {
            err_set(e, EINVAL, "%s", diags.items[i].msg);
            break;
        }
    diag_list_release(&diags);
    return r;
}
