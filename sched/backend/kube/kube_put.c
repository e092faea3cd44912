/* kube_put.c - what the Kubernetes backend watches (the resource table),
 * and an object from the API server into the scheduler: decoded
 * (core/decode.h) and sent as added or updated, with a Job's or JobSet's
 * status; a refused object is skipped and reported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "doc.h"
#include "kube_int.h"
#include "kube_status.h"
#include "log.h"

#define KUEUE "/apis/kueue.x-k8s.io/v1beta2/"

/* clang-format off */
const struct kube_res_info kube_resources[KRES_MAX] = {
    [KRES_NAMESPACE] = {"/api/v1/namespaces", "Namespace", "v1", OBJ_NAMESPACE},
    [KRES_NODE] = {"/api/v1/nodes", "Node", "v1", OBJ_NODE},
    [KRES_PRIORITY_CLASS] = {"/apis/scheduling.k8s.io/v1/priorityclasses",
        "PriorityClass", "scheduling.k8s.io/v1", OBJ_PRIORITY_CLASS},
    [KRES_RESOURCE_FLAVOR] = {KUEUE "resourceflavors", "ResourceFlavor",
        "kueue.x-k8s.io/v1beta2", OBJ_RESOURCE_FLAVOR},
    [KRES_COHORT] = {KUEUE "cohorts", "Cohort", "kueue.x-k8s.io/v1beta2",
        OBJ_COHORT},
    [KRES_CLUSTER_QUEUE] = {KUEUE "clusterqueues", "ClusterQueue",
        "kueue.x-k8s.io/v1beta2", OBJ_CLUSTER_QUEUE},
    [KRES_LOCAL_QUEUE] = {KUEUE "localqueues", "LocalQueue",
        "kueue.x-k8s.io/v1beta2", OBJ_LOCAL_QUEUE},
    [KRES_WORKLOAD_PRIORITY_CLASS] = {KUEUE "workloadpriorityclasses",
        "WorkloadPriorityClass", "kueue.x-k8s.io/v1beta2",
        OBJ_WORKLOAD_PRIORITY_CLASS},
    [KRES_TOPOLOGY] = {KUEUE "topologies", "Topology",
        "kueue.x-k8s.io/v1beta2", OBJ_TOPOLOGY},
    [KRES_ADMISSION_CHECK] = {KUEUE "admissionchecks", "AdmissionCheck",
        "kueue.x-k8s.io/v1beta2", OBJ_ADMISSION_CHECK},
    [KRES_JOB] = {"/apis/batch/v1/jobs", "Job", "batch/v1", OBJ_JOB},
    [KRES_JOBSET] = {"/apis/jobset.x-k8s.io/v1alpha2/jobsets", "JobSet",
        "jobset.x-k8s.io/v1alpha2", OBJ_JOBSET},
    [KRES_POD] = {"/api/v1/pods", "Pod", "v1", OBJ_POD},
    [KRES_LEASE] = {NULL, "Lease", "coordination.k8s.io/v1", -1},
};
/* clang-format on */

static struct json_object *jget(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool condition_true(struct json_object *status, const char *type)
{
    struct json_object *conds = jget(status, "conditions");
    size_t n = json_object_is_type(conds, json_type_array)
                   ? json_object_array_length(conds)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(conds, i);
        const char *t = json_object_get_string(jget(c, "type"));
        const char *s = json_object_get_string(jget(c, "status"));
        if (t && s && strcmp(t, type) == 0 && strcmp(s, "True") == 0)
            return true;
    }
    return false;
}

static int32_t jint32(struct json_object *o, const char *key)
{
    struct json_object *v = jget(o, key);
    int64_t x =
        json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
    return x < 0 ? 0 : x > INT32_MAX ? INT32_MAX : (int32_t)x;
}

/* A Job's or JobSet's status, as its controller wrote it. */
static int job_status(struct kube_backend *kb, enum kube_res res,
                      struct json_object *obj, const char *key)
{
    struct json_object *status = jget(obj, "status");
    if (!json_object_is_type(status, json_type_object))
        return 0;
    struct job_status st = {0};
    int32_t *per = NULL;
    if (res == KRES_JOB) {
        st.succeeded = jint32(status, "succeeded");
        st.complete = condition_true(status, "Complete");
    } else {
        struct json_object *rjs = jget(jget(obj, "spec"), "replicatedJobs");
        struct json_object *rst = jget(status, "replicatedJobsStatus");
        size_t n = json_object_is_type(rjs, json_type_array)
                       ? json_object_array_length(rjs)
                       : 0;
        size_t m = json_object_is_type(rst, json_type_array)
                       ? json_object_array_length(rst)
                       : 0;
        per = n ? calloc(n, sizeof(*per)) : NULL;
        if (n && !per)
            return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
            const char *name = json_object_get_string(
                jget(json_object_array_get_idx(rjs, i), "name"));
            for (size_t j = 0; name && j < m; j++) {
                struct json_object *x = json_object_array_get_idx(rst, j);
                const char *xn = json_object_get_string(jget(x, "name"));
                if (xn && strcmp(xn, name) == 0)
                    per[i] = jint32(x, "succeeded");
            }
        }
        st.n_replicated = (uint32_t)n;
        st.replicated_succeeded = per;
        st.complete = condition_true(status, "Completed");
    }
    int r = scheduler_job_status(
        kb->s, kube_resources[res].obj_kind == OBJ_JOB ? OBJ_JOB : OBJ_JOBSET,
        key, &st);
    free(per);
    return r == -ENOENT ? 0 : r; /* a Job another workload's key hid */
}

static void reject(struct kube_backend *kb, struct json_object *obj,
                   const char *kind, const char *key, const char *why)
{
    kb->st.rejected++;
    (void)kind;
    (void)key;
    LOG_W("skipped: %s", why);
    kube_status_rejected(kb, obj, why);
    if (kb->opt.rejected)
        kb->opt.rejected(kb->opt.hook_data, obj, why);
}

/* Whether obj's controller is a JobSet: the JobSet is the workload; its
 * child Jobs' progress comes in its status. */
static bool jobset_child(struct json_object *obj)
{
    struct json_object *owners = jget(jget(obj, "metadata"), "ownerReferences");
    size_t n = json_object_is_type(owners, json_type_array)
                   ? json_object_array_length(owners)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *o = json_object_array_get_idx(owners, i);
        const char *kind = json_object_get_string(jget(o, "kind"));
        if (json_object_get_boolean(jget(o, "controller")) && kind &&
            strcmp(kind, "JobSet") == 0)
            return true;
    }
    return false;
}

int kube_backend_put(struct kube_backend *kb, enum kube_res res,
                     struct json_object *obj, bool added)
{
    if (res == KRES_JOB && jobset_child(obj))
        return 0;
    char kb_key[512];
    const char *key = kinformer_key(obj, kb_key, sizeof(kb_key));
    const char *kind = kube_resources[res].kind;
    size_t len = 0;
    const char *text =
        json_object_to_json_string_length(obj, JSON_C_TO_STRING_PLAIN, &len);
    if (!key || !text)
        return key ? -ENOMEM : 0;
    char file[64];
    snprintf(file, sizeof(file), "api:%s", kind);
    struct doc *d = NULL;
    struct object *o = NULL;
    struct err e = {{0}};
    int r = doc_parse_json(text, len, file, &d, &e);
    if (r == 0 && d->n_docs == 1)
        r = decode_object(d->docs[0], file, &o, &e);
    else if (r == 0)
        r = err_set(&e, EINVAL, "%s: not one object", file);
    doc_free(d);
    if (r == -ENOMEM)
        return r;
    if (r == DECODE_IGNORED)
        return 0;
    if (r < 0) {
        reject(kb, obj, kind, key, e.msg);
        return 0;
    }
    r = added ? scheduler_object_added(kb->s, o)
              : scheduler_object_updated(kb->s, o);
    if (r == -EEXIST || r == -ENOTSUP) {
        reject(kb, obj, kind, key,
               r == -EEXIST ? "a workload of that name exists already"
                            : "this change cannot be applied");
        return 0;
    }
    if (r == 0 && (res == KRES_JOB || res == KRES_JOBSET))
        r = job_status(kb, res, obj, key);
    return r;
}
