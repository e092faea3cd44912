/* decode_job.c - decoders for batch/v1 Job and jobset.x-k8s.io JobSet. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"
#include "kname.h"

/* Decodes a batch/v1 JobSpec (n is the spec map). */
static int decode_job_spec(struct decode_ctx *c, const struct doc_node *n,
                           struct job_spec *js)
{
    const struct doc_node *tmpl = NULL;
    bool has_parallelism = false;
    js->parallelism = 1;
    int r = decode_field_int32(c, n, "parallelism", &has_parallelism,
                               &js->parallelism);
    if (r == 0 && js->parallelism < 0)
        r = decode_fail_at(c, doc_map_get(n, "parallelism"), "parallelism",
                           "must be >= 0");
    if (r == 0)
        r = decode_field_int32(c, n, "completions", &js->has_completions,
                               &js->completions);
    if (r == 0 && js->has_completions && js->completions < 0)
        r = decode_fail_at(c, doc_map_get(n, "completions"), "completions",
                           "must be >= 0");
    /* Kubernetes never runs more pods than there are completions left. */
    if (r == 0 && js->has_completions && js->completions < js->parallelism)
        js->parallelism = js->completions;
    if (r == 0)
        r = decode_field_bool(c, n, "suspend", &js->suspend);
    if (r == 0)
        r = decode_field_map_required(c, n, "template", &tmpl);
    if (r == 0) {
        size_t mark = decode_path_push(c, "template");
        r = decode_pod_template(c, tmpl, &js->template);
        decode_path_pop(c, mark);
    }
    return r;
}

int decode_job(struct decode_ctx *c, const struct doc_node *n,
               struct object *o)
{
    const struct doc_node *spec = NULL;
    bool manual = false;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_job_spec(c, spec, &o->u.job.spec);
    if (r == 0)
        r = decode_field_bool(c, spec, "manualSelector", &manual);
    decode_path_pop(c, mark);
    /* The API server labels the pods batch.kubernetes.io/job-name=<name>
     * (unless the selector is manual), so the name must be a label value. */
    if (r == 0 && !manual && strlen(o->meta.name) > 63)
        r = decode_fail_at(c, doc_map_get(doc_map_get(n, "metadata"), "name"),
                           "metadata.name",
                           "must be no more than 63 characters (it is the "
                           "value of the pods' batch.kubernetes.io/job-name "
                           "label)");
    return r;
}

static int decode_replicated_job(struct decode_ctx *c,
                                 const struct doc_node *n,
                                 struct replicated_job *rj)
{
    const struct doc_node *tmpl = NULL, *spec = NULL;
    rj->replicas = 1;
    int r = decode_want_map(c, n);
    if (r == 0)
        r = decode_field_string(c, n, "name", &rj->name);
    if (r == 0 && (!rj->name || !*rj->name))
        r = decode_fail_at(c, n, "name", "required");
    if (r == 0)
        r = decode_field_int32(c, n, "replicas", NULL, &rj->replicas);
    if (r == 0 && rj->replicas < 0)
        r = decode_fail_at(c, doc_map_get(n, "replicas"), "replicas",
                           "must be >= 0");
    if (r == 0)
        r = decode_field_map_required(c, n, "template", &tmpl);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "template");
    r = decode_template_meta(c, tmpl, &rj->template_meta);
    if (r == 0)
        r = decode_field_map_required(c, tmpl, "spec", &spec);
    if (r == 0) {
        size_t m2 = decode_path_push(c, "spec");
        r = decode_job_spec(c, spec, &rj->spec);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    return r;
}

/* The JobSet webhook's rules for a replicated job: its child Jobs'
 * names ("<jobset>-<replicated job>-<index>") are DNS-1035 labels, and
 * replicas * parallelism (as written, before Ordo caps it by completions)
 * fits an int32. */
static int check_replicated_job(struct decode_ctx *c, const struct doc_node *n,
                                const char *jobset_name,
                                const struct replicated_job *rj)
{
    const struct doc_node *spec =
        doc_map_get(doc_map_get(n, "template"), "spec");
    int64_t parallelism = 1;
    doc_get_int64(doc_map_get(spec, "parallelism"), &parallelism);
    if (parallelism * rj->replicas > INT32_MAX)
        return decode_fail(c, n,
                           "the product of replicas and parallelism must not "
                           "exceed %d",
                           INT32_MAX);
    char child[128];
    int len = snprintf(child, sizeof(child), "%s-%s-%d", jobset_name, rj->name,
                       rj->replicas - 1);
    const char *why = len >= (int)sizeof(child)
                          ? "must be no more than 63 characters"
                          : kname_check_dns1035_label(child);
    if (why)
        return decode_fail_at(c, doc_map_get(n, "name"), "name",
                              "child Job name \"%.64s%s\": %s", child,
                              strlen(child) > 64 ? "..." : "", why);
    return 0;
}

int decode_jobset(struct decode_ctx *c, const struct doc_node *n,
                  struct object *o)
{
    struct jobset *js = &o->u.jobset;
    const struct doc_node *spec = NULL, *rjs = NULL;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_field_bool(c, spec, "suspend", &js->suspend);
    if (r == 0)
        r = decode_field_seq(c, spec, "replicatedJobs", &rjs);
    if (r == 0 && (!rjs || rjs->n == 0))
        r = decode_fail_at(c, spec, "replicatedJobs", "required");
    if (r == 0) {
        js->replicated_jobs =
            arena_calloc(c->arena, rjs->n, sizeof(*js->replicated_jobs));
        if (!js->replicated_jobs)
            r = -ENOMEM;
    }
    size_t m2 = decode_path_push(c, "replicatedJobs");
    for (size_t i = 0; r == 0 && i < rjs->n; i++) {
        size_t m3 = decode_path_push_index(c, i);
        /* Counted before decoding so object_free releases partial specs. */
        js->n_replicated_jobs = i + 1;
        r = decode_replicated_job(c, rjs->items[i], &js->replicated_jobs[i]);
        if (r == 0)
            r = check_replicated_job(c, rjs->items[i], o->meta.name,
                                     &js->replicated_jobs[i]);
        for (size_t j = 0; r == 0 && j < i; j++)
            if (strcmp(js->replicated_jobs[j].name,
                       js->replicated_jobs[i].name) == 0)
                r = decode_fail_at(c, rjs->items[i], "name",
                                   "duplicate replicated job \"%s\"",
                                   js->replicated_jobs[i].name);
        decode_path_pop(c, m3);
    }
    decode_path_pop(c, m2);
    decode_path_pop(c, mark);
    return r;
}
