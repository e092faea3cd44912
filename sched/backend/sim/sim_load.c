/* sim_load.c - the simulator's manifests (see sim.h): every object, the
 * controllers' own copies of the Jobs and JobSets (sim_copy.c), and the
 * simulator's annotations, checked before anything runs, as events on the
 * heap: arrivals (ordo.dev/sim-arrival; an object that arrives again is an
 * update), deletions (ordo.dev/sim-delete) and pods deleted out of band
 * (ordo.dev/sim-delete-pods on a Job or JobSet). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "duration.h"
#include "manifest.h"
#include "manifest_check.h"
#include "sim_int.h"

static void print_error(const struct err *e, void *userdata)
{
    fprintf(stderr, "%s\n", e->msg);
}

/* A finding of the checks across objects (manifest_check.h). */
static void print_finding(enum manifest_severity sev, const char *file,
                          unsigned line, const char *msg, void *userdata)
{
    char where[32] = "";
    if (line)
        snprintf(where, sizeof(where), ":%u", line);
    fprintf(stderr, "%s%s%s: %s\n",
            sev == MANIFEST_WARNING ? "warning: " : "", file, where, msg);
}

/* Warnings are printed on load; notes (kinds Ordo does not read) are for
 * --validate. */
static void print_warning(const struct diag *d, void *userdata)
{
    if (d->level == DIAG_WARNING)
        fprintf(stderr, "warning: %s\n", d->msg);
}

/* Order in which objects that arrive together are filed, so that what a
 * thing refers to is there first. */
static int kind_rank(enum object_kind k)
{
    switch (k) {
    case OBJ_NAMESPACE:
    case OBJ_PRIORITY_CLASS:
    case OBJ_WORKLOAD_PRIORITY_CLASS:
    case OBJ_TOPOLOGY:
        return 0;
    case OBJ_RESOURCE_FLAVOR:
    case OBJ_COHORT:
    case OBJ_ADMISSION_CHECK:
        return 1;
    case OBJ_CLUSTER_QUEUE:
        return 2;
    case OBJ_LOCAL_QUEUE:
        return 3;
    case OBJ_NODE:
        return 4;
    case OBJ_JOB:
    case OBJ_JOBSET:
        return 5;
    default:
        return 6;
    }
}

/* Parses annotation `name` of map m (at field path `at` of object o) as a
 * duration into *ret_ns (left alone when absent); prints why and returns
 * -EINVAL when it is not one. */
static int annotation_duration(const struct object *o, const char *at,
                               const struct strmap *m, const char *name,
                               int64_t *ret_ns)
{
    const char *v = strmap_get(m, name);
    int64_t ns = 0;
    if (!v)
        return 0;
    int r = duration_parse(v, &ns);
    if (r == 0) {
        *ret_ns = ns;
        return 0;
    }
    char key[512];
    fprintf(stderr, "%s:%u: %s %s: %sannotations[%s]: ", o->file, o->line,
            object_kind_name(o->kind), object_key(o, key, sizeof(key)), at,
            name);
    if (r == -ERANGE)
        fprintf(stderr,
                "duration \"%s\" out of range (at most about "
                "2562047h)\n",
                v);
    else
        fprintf(stderr,
                "invalid duration \"%s\" (e.g. \"90s\", "
                "\"1h30m\")\n",
                v);
    return -EINVAL;
}

/* Every ordo.dev/sim-runtime the simulator may read for o's pods: its own,
 * and those of its pod templates. -EINVAL after printing each bad one. */
static int check_runtimes(const struct object *o)
{
    int64_t ns;
    int r = 0;
    if (o->kind != OBJ_POD && o->kind != OBJ_JOB && o->kind != OBJ_JOBSET)
        return 0;
    if (annotation_duration(o, "metadata.", &o->meta.annotations,
                            ANNOT_SIM_RUNTIME, &ns) < 0)
        r = -EINVAL;
    if (o->kind == OBJ_JOB &&
        annotation_duration(o, "spec.template.metadata.",
                            &o->u.job.spec.template.meta.annotations,
                            ANNOT_SIM_RUNTIME, &ns) < 0)
        r = -EINVAL;
    for (size_t i = 0;
         o->kind == OBJ_JOBSET && i < o->u.jobset.n_replicated_jobs; i++) {
        char at[96];
        snprintf(at, sizeof(at),
                 "spec.replicatedJobs[%zu].template.spec.template.metadata.",
                 i);
        const struct replicated_job *rj = &o->u.jobset.replicated_jobs[i];
        if (annotation_duration(o, at, &rj->spec.template.meta.annotations,
                                ANNOT_SIM_RUNTIME, &ns) < 0)
            r = -EINVAL;
    }
    return r;
}

/* Prints "file:line: Kind key: metadata.annotations[name]: " for o. */
static void annotation_where(const struct object *o, const char *name)
{
    char key[512];
    fprintf(stderr, "%s:%u: %s %s: metadata.annotations[%s]: ", o->file,
            o->line, object_kind_name(o->kind), object_key(o, key, sizeof(key)),
            name);
}

/* ordo.dev/sim-delete of o (-1 when absent) into *ret_ns, not before its
 * arrival; -EINVAL after printing why. */
static int delete_time(const struct object *o, int64_t arrival, int64_t *ret_ns)
{
    *ret_ns = -1;
    if (annotation_duration(o, "metadata.", &o->meta.annotations,
                            ANNOT_SIM_DELETE, ret_ns) < 0)
        return -EINVAL;
    if (*ret_ns >= 0 && *ret_ns < arrival) {
        char a[64], d[64];
        annotation_where(o, ANNOT_SIM_DELETE);
        fprintf(stderr, "%s is before its arrival (%s)\n",
                duration_format(*ret_ns, d, sizeof(d)),
                duration_format(arrival, a, sizeof(a)));
        return -EINVAL;
    }
    return 0;
}

/* ordo.dev/sim-delete-pods "INDEX@WHEN[,INDEX@WHEN...]" of Job or JobSet
 * o: pod INDEX of its controller (the number in the pod's name) is deleted
 * at WHEN, if it exists then. Pushes the events when push is set; checks
 * only otherwise. -EINVAL after printing why, or -ENOMEM. */
static int delete_pods(struct sim *sm, const struct object *o, int64_t arrival,
                       bool push)
{
    const char *v = strmap_get(&o->meta.annotations, ANNOT_SIM_DELETE_PODS);
    if (!v)
        return 0;
    if (o->kind != OBJ_JOB && o->kind != OBJ_JOBSET) {
        annotation_where(o, ANNOT_SIM_DELETE_PODS);
        fprintf(stderr, "only a Job or a JobSet has pods its controller "
                        "makes\n");
        return -EINVAL;
    }
    char key[512];
    object_key(o, key, sizeof(key));
    for (const char *p = v; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, ",");
        char item[128];
        char *at, *end;
        int64_t when = 0;
        snprintf(item, sizeof(item), "%.*s", (int)(len < 127 ? len : 127), p);
        for (size_t k = strlen(item); k > 0 && item[k - 1] == ' '; k--)
            item[k - 1] = '\0';
        at = strchr(item, '@');
        errno = 0;
        unsigned long long index = strtoull(item, &end, 10);
        if (len >= sizeof(item) || !at || end != at || end == item || errno ||
            duration_parse(at + 1, &when) < 0 || when < arrival) {
            annotation_where(o, ANNOT_SIM_DELETE_PODS);
            fprintf(stderr,
                    "\"%.*s\": expected INDEX@WHEN, a pod's number and a "
                    "duration not before the job arrives (e.g. "
                    "\"0@5m,2@1h\")\n",
                    (int)len, p);
            return -EINVAL;
        }
        p += len;
        if (!push)
            continue;
        struct sim_event ev = {
            .t_ns = when, .type = EV_DELETE_POD, .index = index};
        if (!(ev.key = strdup(key)) || sim_heap_push(&sm->heap, ev) < 0) {
            free(ev.key);
            return -ENOMEM;
        }
    }
    return 0;
}

/* A queued workload the rule leaves out, for the report's leftOut. */
static void note_left_out(const struct object *o, const char *queue,
                          const char *why, void *data)
{
    struct sim *sm = data;
    if (!sm->left_out && !(sm->left_out = json_object_new_array()))
        return;
    struct json_object *e = json_object_new_object();
    if (!e)
        return;
    json_object_object_add(e, "kind",
                           json_object_new_string(object_kind_name(o->kind)));
    json_object_object_add(e, "namespace",
                           json_object_new_string(o->meta.namespace_
                                                      ? o->meta.namespace_
                                                      : "default"));
    json_object_object_add(e, "name", json_object_new_string(o->meta.name));
    json_object_object_add(e, "queue", json_object_new_string(queue));
    json_object_object_add(e, "reason", json_object_new_string(why));
    if (json_object_array_add(sm->left_out, e) < 0)
        json_object_put(e);
}

int sim_load(struct sim *sm, char **paths, int n_paths)
{
    struct manifest_set set;
    struct object **shadows = NULL;
    manifest_set_init(&set);
    set.on_note = print_error; /* a report of an earlier run, skipped */
    set.strict = sm->opt->strict;
    set.on_diag = print_warning;
    for (int i = 0; i < n_paths; i++)
        if (manifest_load_path(&set, paths[i], print_error, NULL) == -ENOMEM)
            break;
    int r = set.n_errors ? -EINVAL : 0;
    if (r == 0 && set.n == 0) {
        fprintf(stderr, "ordo-scheduler: --sim: no objects in the given "
                        "manifests\n");
        r = -EINVAL;
    }
    /* Across objects: the manifests are the whole cluster here. Without
     * --strict the simulation runs on, as Kueue and Ordo would with such
     * objects (scenarios show it); with it, an error stops the load. */
    struct manifest_check_opts copts = {.strict = sm->opt->strict,
                                        .whole_world = true,
                                        .rule = sm->rule,
                                        .left_out = note_left_out,
                                        .left_out_data = sm};
    struct manifest_check_counts counts = {0};
    if (r == 0 &&
        (r = manifest_check(&set, &copts, print_finding, NULL, &counts)) == 0 &&
        copts.strict && counts.n_errors) {
        fprintf(stderr,
                "ordo-scheduler: --sim --strict: %zu errors in the "
                "manifests\n",
                counts.n_errors);
        r = -EINVAL;
    }
    /* The simulator's annotations, all of them before anything runs. */
    int64_t *arrival = calloc(set.n ? set.n : 1, sizeof(*arrival));
    int64_t *deletion = calloc(set.n ? set.n : 1, sizeof(*deletion));
    if (!arrival || !deletion)
        r = -ENOMEM;
    for (size_t i = 0; r != -ENOMEM && i < set.n; i++) {
        const struct object *o = set.objects[i];
        if (annotation_duration(o, "metadata.", &o->meta.annotations,
                                ANNOT_SIM_ARRIVAL, &arrival[i]) < 0 ||
            check_runtimes(o) < 0 ||
            delete_time(o, arrival[i], &deletion[i]) < 0 ||
            delete_pods(sm, o, arrival[i], false) < 0)
            r = -EINVAL;
    }
    /* The controllers' own copies of the Jobs and JobSets: their pods
     * point into these, which outlive the scheduler's objects. */
    shadows = calloc(set.n ? set.n : 1, sizeof(*shadows));
    if (r == 0 && !shadows)
        r = -ENOMEM;
    for (size_t i = 0; r == 0 && i < set.n; i++) {
        enum object_kind k = set.objects[i]->kind;
        if ((k == OBJ_JOB || k == OBJ_JOBSET) &&
            !(shadows[i] = sim_copy_owner(sm->copies, set.objects[i])))
            r = -ENOMEM;
    }
    /* Pushed by kind rank, in manifest order within a rank, so that what
     * arrives together is filed with what it refers to first; the heap
     * keeps this order (seq) among events of the same time. */
    struct object **objs = calloc(set.n ? set.n : 1, sizeof(*objs));
    if (r == 0 && !objs)
        r = -ENOMEM;
    for (int rank = 0; rank <= 6; rank++)
        for (size_t i = 0; r == 0 && i < set.n; i++) {
            struct object *o = set.objects[i];
            if (!o || kind_rank(o->kind) != rank)
                continue;
            struct sim_event ev = {.t_ns = arrival[i],
                                   .type = EV_ARRIVE,
                                   .obj = o,
                                   .shadow = shadows[i]};
            r = sim_heap_push(&sm->heap, ev);
            if (r == 0) {
                objs[i] = o; /* the heap's now, until the loop runs */
                set.objects[i] = shadows[i] = NULL;
            }
        }
    /* Deletions after the arrivals of their time, what refers to others
     * first; then the pods deleted out of band. */
    for (int rank = 6; rank >= 0; rank--)
        for (size_t i = 0; r == 0 && i < set.n; i++) {
            const struct object *o = objs[i];
            if (!o || deletion[i] < 0 || kind_rank(o->kind) != rank)
                continue;
            char key[512];
            struct sim_event ev = {.t_ns = deletion[i],
                                   .type = EV_DELETE,
                                   .kind = o->kind,
                                   .key =
                                       strdup(object_key(o, key, sizeof(key)))};
            r = ev.key ? sim_heap_push(&sm->heap, ev) : -ENOMEM;
            if (r < 0)
                free(ev.key);
        }
    for (size_t i = 0; r == 0 && i < set.n; i++)
        if (objs[i])
            r = delete_pods(sm, objs[i], arrival[i], true);
    free(objs);
    for (size_t i = 0; shadows && i < set.n; i++)
        sim_copy_release(shadows[i]);
    free(shadows);
    free(arrival);
    free(deletion);
    for (size_t i = 0; i < set.n; i++)
        object_free(set.objects[i]);
    set.n = 0;
    manifest_set_release(&set);
    return r;
}
