/* emu_ctrl.c - the emulated Job and JobSet controllers (--controllers
 * job,jobset): pods from a Job's template honouring parallelism,
 * completions, Indexed mode and suspend, replacement of deleted pods, the
 * Job's status and conditions; a JobSet's child Jobs with the labels the
 * real controller sets, suspend passed down, and its status. Run by the
 * main loop with emu.lock held. */
#include <stdlib.h>
#include <string.h>

#include "emu.h"

/* Sets condition type in conds to status; keeps lastTransitionTime when
 * the status does not change. */
static void set_cond(struct json_object *st, const char *type,
                     const char *status, const char *reason, const char *msg)
{
    struct json_object *conds, *c = NULL;
    char ts[40];
    if (!json_object_object_get_ex(st, "conditions", &conds) ||
        !json_object_is_type(conds, json_type_array)) {
        conds = json_object_new_array();
        json_object_object_add(st, "conditions", conds);
    }
    for (size_t i = 0; i < json_object_array_length(conds); i++) {
        struct json_object *e = json_object_array_get_idx(conds, i);
        const char *t = emu_path_str(e, "type");
        if (t && !strcmp(t, type))
            c = e;
    }
    if (c) {
        const char *s = emu_path_str(c, "status");
        if (s && !strcmp(s, status))
            return;
    } else {
        c = json_object_new_object();
        json_object_array_add(conds, c);
        json_object_object_add(c, "type", json_object_new_string(type));
    }
    emu_time_now(ts, sizeof(ts), false);
    json_object_object_add(c, "status", json_object_new_string(status));
    json_object_object_add(c, "reason", json_object_new_string(reason));
    json_object_object_add(c, "message", json_object_new_string(msg));
    json_object_object_add(c, "lastProbeTime", json_object_new_string(ts));
    json_object_object_add(c, "lastTransitionTime", json_object_new_string(ts));
}

static bool cond_is(struct json_object *o, const char *type)
{
    struct json_object *conds = emu_path(o, "status.conditions");
    for (size_t i = 0; conds && json_object_is_type(conds, json_type_array) &&
                       i < json_object_array_length(conds);
         i++) {
        struct json_object *e = json_object_array_get_idx(conds, i);
        const char *t = emu_path_str(e, "type"), *s = emu_path_str(e, "status");
        if (t && s && !strcmp(t, type) && !strcmp(s, "True"))
            return true;
    }
    return false;
}

static struct json_object *owner_ref(struct json_object *o)
{
    struct json_object *r = json_object_new_object();
    json_object_object_add(
        r, "apiVersion", json_object_new_string(emu_path_str(o, "apiVersion")));
    json_object_object_add(r, "kind",
                           json_object_new_string(emu_path_str(o, "kind")));
    json_object_object_add(
        r, "name", json_object_new_string(emu_path_str(o, "metadata.name")));
    json_object_object_add(
        r, "uid", json_object_new_string(emu_path_str(o, "metadata.uid")));
    json_object_object_add(r, "controller", json_object_new_boolean(1));
    json_object_object_add(r, "blockOwnerDeletion", json_object_new_boolean(1));
    struct json_object *a = json_object_new_array();
    json_object_array_add(a, r);
    return a;
}

static int64_t num(struct json_object *o, const char *path, int64_t def)
{
    struct json_object *v = emu_path(o, path);
    return v && !json_object_is_type(v, json_type_null)
               ? json_object_get_int64(v)
               : def;
}

/* A copy of the object's names, for loops whose writes move the bucket. */
static char **names_of(int k, size_t *ret_n)
{
    struct emu_bucket *b = &emu.buckets[k];
    char **v = calloc(b->n + 1, sizeof(*v));
    for (size_t i = 0; v && i < b->n; i++)
        v[i] = strdup(b->v[i].key);
    *ret_n = v ? b->n : 0;
    return v;
}

static void names_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static struct json_object *by_key(int k, const char *key)
{
    char ns[300], *slash;
    snprintf(ns, sizeof(ns), "%s", key);
    slash = strchr(ns, '/');
    if (!slash)
        return emu_store_get(k, NULL, ns);
    *slash = '\0';
    return emu_store_get(k, ns, slash + 1);
}

static void create_pod(struct json_object *job, long index)
{
    struct json_object *tmpl = emu_path(job, "spec.template");
    struct json_object *pod = json_object_new_object(), *out;
    struct json_object *meta = json_object_new_object();
    struct json_object *tm = emu_path(tmpl, "metadata"), *v;
    struct emu_err err = {0};
    char gen[300], idx[32];
    snprintf(idx, sizeof(idx), "%ld", index);
    if (index >= 0)
        snprintf(gen, sizeof(gen), "%s-%ld-",
                 emu_path_str(job, "metadata.name"), index);
    else
        snprintf(gen, sizeof(gen), "%s-", emu_path_str(job, "metadata.name"));
    json_object_object_add(pod, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(pod, "kind", json_object_new_string("Pod"));
    json_object_object_add(meta, "generateName", json_object_new_string(gen));
    json_object_object_add(
        meta, "namespace",
        json_object_new_string(emu_path_str(job, "metadata.namespace")));
    json_object_object_add(
        meta, "labels",
        (v = emu_path(tm, "labels")) ? emu_copy(v) : json_object_new_object());
    json_object_object_add(meta, "annotations",
                           (v = emu_path(tm, "annotations"))
                               ? emu_copy(v)
                               : json_object_new_object());
    if (index >= 0) {
        json_object_object_add(emu_child(meta, "labels"),
                               "batch.kubernetes.io/job-completion-index",
                               json_object_new_string(idx));
        json_object_object_add(emu_child(meta, "annotations"),
                               "batch.kubernetes.io/job-completion-index",
                               json_object_new_string(idx));
    }
    json_object_object_add(meta, "ownerReferences", owner_ref(job));
    json_object_object_add(pod, "metadata", meta);
    json_object_object_add(
        pod, "spec",
        (v = emu_path(tmpl, "spec")) ? emu_copy(v) : json_object_new_object());
    emu_store_create(emu_k("pods"), pod, &out, &err);
}

static void delete_obj(int k, struct json_object *o)
{
    struct json_object *last = NULL;
    struct emu_err err = {0};
    char ns[256], name[256];
    snprintf(ns, sizeof(ns), "%s",
             emu_path_str(o, "metadata.namespace")
                 ? emu_path_str(o, "metadata.namespace")
                 : "");
    snprintf(name, sizeof(name), "%s", emu_path_str(o, "metadata.name"));
    if (emu_store_delete(k, ns, name, NULL, NULL, false, &last, &err) == 0 &&
        k == emu_k("pods"))
        /* A judge replaying quota sees the pod go (a suspended Job). */
        emu_audit_internal("delete", "pods", ns, name,
                           "system:serviceaccount:kube-system:job-controller");
    json_object_put(last);
}

/* Pods by the uid of their owner, so that each Job finds its own without
 * scanning every pod. The entries hold references. */
struct owned {
    const char *uid;
    struct json_object *pod;
};

static int owned_cmp(const void *a, const void *b)
{
    return strcmp(((const struct owned *)a)->uid,
                  ((const struct owned *)b)->uid);
}

static struct owned *owned_index(size_t *ret_n)
{
    struct emu_bucket *b = &emu.buckets[emu_k("pods")];
    struct owned *v = calloc(b->n + 1, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; v && i < b->n; i++) {
        struct json_object *refs =
            emu_path(b->v[i].obj, "metadata.ownerReferences");
        for (size_t j = 0; refs && json_object_is_type(refs, json_type_array) &&
                           j < json_object_array_length(refs);
             j++) {
            const char *u =
                emu_path_str(json_object_array_get_idx(refs, j), "uid");
            if (u) {
                v[n].uid = u;
                v[n++].pod = json_object_get(b->v[i].obj);
            }
        }
    }
    if (v)
        qsort(v, n, sizeof(*v), owned_cmp);
    *ret_n = n;
    return v;
}

static void job_sync(struct json_object *job, const struct owned *own,
                     size_t nown)
{
    int pods = emu_k("pods"), jobs = emu_k("jobs");
    const char *uid = emu_path_str(job, "metadata.uid");
    bool suspended = json_object_get_boolean(emu_path(job, "spec.suspend"));
    bool indexed = emu_path_str(job, "spec.completionMode") &&
                   !strcmp(emu_path_str(job, "spec.completionMode"), "Indexed");
    int64_t completions = num(job, "spec.completions", -1);
    int64_t parallelism = num(job, "spec.parallelism", 1);
    int64_t backoff = num(job, "spec.backoffLimit", 6);
    int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    size_t lo = 0, hi = nown;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(own[mid].uid, uid) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct json_object **act = calloc(nown + 1, sizeof(*act));
    bool *idx_taken =
        calloc((size_t)(completions > 0 ? completions : 1), sizeof(*idx_taken));
    size_t nact = 0;
    if (!act || !idx_taken)
        goto done;
    for (size_t i = lo; i < nown && !strcmp(own[i].uid, uid); i++) {
        struct json_object *p = own[i].pod;
        const char *ph = emu_path_str(p, "status.phase");
        struct json_object *ann = emu_path(p, "metadata.annotations"), *iv;
        long index = -1;
        if (ann && json_object_object_get_ex(
                       ann, "batch.kubernetes.io/job-completion-index", &iv))
            index = strtol(json_object_get_string(iv), NULL, 10);
        if (ph && !strcmp(ph, "Succeeded")) {
            succeeded++;
            if (index >= 0 && index < completions)
                idx_taken[index] = true;
        } else if (ph && !strcmp(ph, "Failed")) {
            failed++;
        } else if (!emu_path(p, "metadata.deletionTimestamp")) {
            active++;
            ready += ph && !strcmp(ph, "Running");
            act[nact++] = json_object_get(p);
            if (index >= 0 && index < completions)
                idx_taken[index] = true;
        }
    }
    struct json_object *nj = emu_copy(job);
    struct json_object *st = emu_child(nj, "status");
    char ts[40];
    emu_time_now(ts, sizeof(ts), false);
    bool finished = cond_is(job, "Complete") || cond_is(job, "Failed");
    bool complete = completions > 0 ? succeeded >= completions
                                    : succeeded > 0 && active == 0;
    int64_t want = 0;
    if (finished) {
        want = 0;
    } else if (failed > backoff) {
        set_cond(st, "FailureTarget", "True", "BackoffLimitExceeded",
                 "Job has reached the specified backoff limit");
        set_cond(st, "Failed", "True", "BackoffLimitExceeded",
                 "Job has reached the specified backoff limit");
    } else if (complete) {
        set_cond(st, "SuccessCriteriaMet", "True", "CompletionsReached",
                 "Reached expected number of succeeded pods");
        set_cond(st, "Complete", "True", "CompletionsReached",
                 "Reached expected number of succeeded pods");
        if (!emu_path(st, "completionTime"))
            json_object_object_add(st, "completionTime",
                                   json_object_new_string(ts));
    } else if (suspended) {
        set_cond(st, "Suspended", "True", "JobSuspended", "Job suspended");
    } else {
        if (emu_path(st, "conditions"))
            set_cond(st, "Suspended", "False", "JobResumed", "Job resumed");
        if (!emu_path(st, "startTime"))
            json_object_object_add(st, "startTime", json_object_new_string(ts));
        want = completions > 0 ? completions - succeeded : 1;
        if (want > parallelism)
            want = parallelism;
        if (completions <= 0 && succeeded > 0)
            want = 0;
    }
    /* Too many active pods (suspended, finished, parallelism lowered): the
     * newest go. */
    while ((int64_t)nact > want) {
        delete_obj(pods, act[--nact]);
        json_object_put(act[nact]);
        active--;
        ready = ready > active ? active : ready;
    }
    for (int64_t n = active; n < want; n++) {
        long index = -1;
        if (indexed && completions > 0) {
            for (long i = 0; i < completions; i++)
                if (!idx_taken[i]) {
                    index = i;
                    idx_taken[i] = true;
                    break;
                }
            if (index < 0)
                break;
        }
        create_pod(job, index);
        active++;
    }
    json_object_object_add(st, "active", json_object_new_int64(active));
    json_object_object_add(st, "succeeded", json_object_new_int64(succeeded));
    json_object_object_add(st, "failed", json_object_new_int64(failed));
    json_object_object_add(st, "ready", json_object_new_int64(ready));
    struct json_object *out;
    struct emu_err err = {0};
    emu_store_update(jobs, nj, "*", &out, &err);
done:
    for (size_t i = 0; i < nact; i++)
        json_object_put(act[i]);
    free(act);
    free(idx_taken);
}

void emu_ctrl_job(void)
{
    int jobs = emu_k("jobs");
    size_t n, nown;
    char **keys = names_of(jobs, &n);
    struct owned *own = owned_index(&nown);
    for (size_t i = 0; own && i < n; i++) {
        struct json_object *j = by_key(jobs, keys[i]);
        if (j && !emu_path(j, "metadata.deletionTimestamp"))
            job_sync(j, own, nown);
    }
    for (size_t i = 0; i < nown; i++)
        json_object_put(own[i].pod);
    free(own);
    names_free(keys, n);
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

/* The labels (and annotations) JobSet puts on a child Job and its pods. */
static void jobset_labels(struct json_object *m, const char *js, const char *rj,
                          int64_t replicas, int64_t index, const char *ns,
                          const char *job)
{
    char buf[64];
    unsigned long h = 5381;
    const char *kinds[] = {"labels", "annotations"};
    for (const char *p = ns; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (const char *p = job; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (int i = 0; i < 2; i++) {
        struct json_object *l = emu_child(m, kinds[i]);
        add_str(l, "jobset.sigs.k8s.io/jobset-name", js);
        add_str(l, "jobset.sigs.k8s.io/replicatedjob-name", rj);
        snprintf(buf, sizeof(buf), "%lld", (long long)replicas);
        add_str(l, "jobset.sigs.k8s.io/replicatedjob-replicas", buf);
        snprintf(buf, sizeof(buf), "%lld", (long long)index);
        add_str(l, "jobset.sigs.k8s.io/job-index", buf);
        snprintf(buf, sizeof(buf), "%016lx", h);
        add_str(l, "jobset.sigs.k8s.io/job-key", buf);
    }
}

static void jobset_sync(struct json_object *js)
{
    int jobs = emu_k("jobs"), jobsets = emu_k("jobsets");
    const char *name = emu_path_str(js, "metadata.name");
    const char *ns = emu_path_str(js, "metadata.namespace");
    struct json_object *rjs = emu_path(js, "spec.replicatedJobs");
    struct json_object *susp = emu_path(js, "spec.suspend");
    bool suspended = susp && json_object_get_boolean(susp);
    bool terminal = cond_is(js, "Completed") || cond_is(js, "Failed");
    struct json_object *nj = emu_copy(js);
    struct json_object *st = emu_child(nj, "status");
    struct json_object *rstat = json_object_new_array();
    int64_t total = 0, done = 0, failed = 0;
    for (size_t i = 0; rjs && json_object_is_type(rjs, json_type_array) &&
                       i < json_object_array_length(rjs);
         i++) {
        struct json_object *rj = json_object_array_get_idx(rjs, i);
        const char *rn = emu_path_str(rj, "name");
        int64_t replicas = num(rj, "replicas", 1);
        int64_t c_ready = 0, c_succ = 0, c_fail = 0, c_act = 0, c_susp = 0;
        if (!rn)
            continue;
        for (int64_t r = 0; r < replicas; r++) {
            char jn[512];
            snprintf(jn, sizeof(jn), "%s-%s-%lld", name, rn, (long long)r);
            struct json_object *job = emu_store_get(jobs, ns, jn), *out;
            struct emu_err err = {0};
            total++;
            if (!job && !terminal) {
                struct json_object *n = json_object_new_object();
                struct json_object *tm = emu_path(rj, "template.metadata");
                struct json_object *meta =
                    tm ? emu_copy(tm) : json_object_new_object();
                struct json_object *spec =
                    emu_path(rj, "template.spec")
                        ? emu_copy(emu_path(rj, "template.spec"))
                        : json_object_new_object();
                add_str(n, "apiVersion", "batch/v1");
                add_str(n, "kind", "Job");
                add_str(meta, "name", jn);
                add_str(meta, "namespace", ns);
                jobset_labels(meta, name, rn, replicas, r, ns, jn);
                json_object_object_add(meta, "ownerReferences", owner_ref(js));
                struct json_object *pm =
                    emu_child(emu_child(spec, "template"), "metadata");
                jobset_labels(pm, name, rn, replicas, r, ns, jn);
                if (susp)
                    json_object_object_add(spec, "suspend",
                                           json_object_new_boolean(suspended));
                json_object_object_add(n, "metadata", meta);
                json_object_object_add(n, "spec", spec);
                emu_store_create(jobs, n, &out, &err);
                continue;
            }
            if (!job)
                continue;
            bool js_susp =
                json_object_get_boolean(emu_path(job, "spec.suspend"));
            if (susp && js_susp != suspended && !terminal) {
                struct json_object *u = emu_copy(job);
                json_object_object_add(emu_child(u, "spec"), "suspend",
                                       json_object_new_boolean(suspended));
                emu_store_update(jobs, u, "*", &out, &err);
                job = out;
            }
            if (cond_is(job, "Complete")) {
                c_succ++;
                done++;
            } else if (cond_is(job, "Failed")) {
                c_fail++;
                failed++;
            } else if (json_object_get_boolean(emu_path(job, "spec.suspend"))) {
                c_susp++;
            } else {
                c_act++;
                if (num(job, "status.ready", 0) >=
                    num(job, "spec.parallelism", 1))
                    c_ready++;
            }
        }
        struct json_object *e = json_object_new_object();
        add_str(e, "name", rn);
        json_object_object_add(e, "ready", json_object_new_int64(c_ready));
        json_object_object_add(e, "succeeded", json_object_new_int64(c_succ));
        json_object_object_add(e, "failed", json_object_new_int64(c_fail));
        json_object_object_add(e, "active", json_object_new_int64(c_act));
        json_object_object_add(e, "suspended", json_object_new_int64(c_susp));
        json_object_array_add(rstat, e);
    }
    json_object_object_add(st, "replicatedJobsStatus", rstat);
    if (!terminal && failed > 0) {
        set_cond(st, "Failed", "True", "FailedJobs", "jobset failed");
        add_str(st, "terminalState", "Failed");
    } else if (!terminal && total > 0 && done == total) {
        set_cond(st, "Completed", "True", "AllJobsCompleted",
                 "jobset completed successfully");
        add_str(st, "terminalState", "Completed");
    }
    if (!terminal && susp)
        set_cond(st, "Suspended", suspended ? "True" : "False",
                 suspended ? "SuspendedJobs" : "ResumeJobs",
                 suspended ? "jobset is suspended" : "jobset is resumed");
    struct json_object *out;
    struct emu_err err = {0};
    emu_store_update(jobsets, nj, "*", &out, &err);
}

void emu_ctrl_jobset(void)
{
    int jobsets = emu_k("jobsets");
    size_t n;
    char **keys = names_of(jobsets, &n);
    for (size_t i = 0; i < n; i++) {
        struct json_object *j = by_key(jobsets, keys[i]);
        if (j && !emu_path(j, "metadata.deletionTimestamp"))
            jobset_sync(j);
    }
    names_free(keys, n);
}
