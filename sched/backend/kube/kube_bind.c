/* kube_bind.c - the Kubernetes backend's actions: bind through
 * pods/binding (with the admission as annotations, and the outcomes of
 * kube_backend.h), evict through kube_evict, resume by a merge patch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_int.h"
#include "kube_status.h"
#include "log.h"
#include "resid.h"

/* Adds key: string to o; false on no memory. */
static bool jstr(struct json_object *o, const char *key, const char *v)
{
    struct json_object *s = json_object_new_string(v);
    if (!s || json_object_object_add(o, key, s) < 0) {
        json_object_put(s);
        return false;
    }
    return true;
}

static bool jobj(struct json_object *o, const char *key,
                 struct json_object **ret)
{
    *ret = json_object_new_object();
    if (!*ret || json_object_object_add(o, key, *ret) < 0) {
        json_object_put(*ret);
        *ret = NULL;
        return false;
    }
    return true;
}

/* "cpu=default,memory=default,nvidia.com/gpu=a100" for pod set ps. */
static char *flavors_text(const struct workload *w, uint32_t ps)
{
    const struct cq *q = w->admitted_cq;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    const char *sep = "";
    for (uint32_t g = 0; q && w->flavors && g < w->flavor_groups &&
                         g < q->n_groups && ps < w->n_podsets;
         g++) {
        const struct flavor *fl = w->flavors[ps * w->flavor_groups + g];
        const struct cq_group *grp = &q->groups[g];
        for (uint32_t r = 0; fl && r < grp->n_res; r++) {
            fprintf(f, "%s%s=%s", sep, resid_name(grp->res_ids[r]), fl->name);
            sep = ",";
        }
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

char *kube_binding_json(const struct cluster *c, const struct pod *p,
                        const char *node)
{
    (void)c;
    const struct object_meta *m = &p->obj->meta;
    const struct workload *w = p->wl;
    struct json_object *root = json_object_new_object(), *meta = NULL,
                       *ann = NULL, *target = NULL;
    char *flavors = NULL, *out = NULL;
    bool ok = root && jstr(root, "apiVersion", "v1") &&
              jstr(root, "kind", "Binding") && jobj(root, "metadata", &meta) &&
              jstr(meta, "name", m->name) &&
              jstr(meta, "namespace", m->namespace_);
    /* The uid makes the bind fail on a pod that took the name since. */
    if (ok && m->uid && *m->uid)
        ok = jstr(meta, "uid", m->uid);
    if (ok && w && w->admitted_cq) {
        ok = jobj(meta, "annotations", &ann) &&
             jstr(ann, ANNOT_ADMISSION_WORKLOAD, w->key) &&
             jstr(ann, ANNOT_ADMISSION_CQ, w->admitted_cq->name);
        /* The ClusterQueue version its quota was judged by (a quota
         * change the cache had not seen yet is not in it). */
        if (ok && w->admitted_cq_version)
            ok = jstr(ann, ANNOT_ADMISSION_CQ_VERSION, w->admitted_cq_version);
        if (ok && p->podset < w->n_podsets)
            ok = jstr(ann, ANNOT_ADMISSION_POD_SET, w->podsets[p->podset].name);
        if (ok) {
            flavors = flavors_text(w, p->podset);
            ok = flavors &&
                 (!*flavors || jstr(ann, ANNOT_ADMISSION_FLAVORS, flavors));
        }
    }
    ok = ok && jobj(root, "target", &target) &&
         jstr(target, "apiVersion", "v1") && jstr(target, "kind", "Node") &&
         jstr(target, "name", node);
    if (ok) {
        const char *s = json_object_to_json_string_ext(
            root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        out = s ? strdup(s) : NULL;
    }
    free(flavors);
    json_object_put(root);
    return out;
}

void kube_op_free(struct kube_op *op)
{
    if (!op)
        return;
    struct kube_backend *kb = op->kb;
    if (op->prev)
        op->prev->next = op->next;
    else
        kb->ops = op->next;
    if (op->next)
        op->next->prev = op->prev;
    free(op->key);
    free(op->ns);
    free(op->name);
    free(op->node);
    free(op);
}

static struct kube_op *op_new(struct kube_backend *kb, enum kube_op_kind kind,
                              const char *ns, const char *name,
                              const char *node)
{
    struct kube_op *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    op->kb = kb;
    op->kind = kind;
    op->ns = strdup(ns);
    op->name = strdup(name);
    op->node = node ? strdup(node) : NULL;
    if (asprintf(&op->key, "%s/%s", ns, name) < 0)
        op->key = NULL;
    op->next = kb->ops;
    if (kb->ops)
        kb->ops->prev = op;
    kb->ops = op;
    if (!op->ns || !op->name || (node && !op->node) || !op->key) {
        kube_op_free(op);
        return NULL;
    }
    return op;
}

/* Tells the scheduler a bind failed. A gang it stops for that is acted on
 * at the next run, not the next periodic one; a pod placed again waits
 * for that (no bind loop against a server that keeps refusing). */
static void bind_failed(struct kube_backend *kb, const char *key,
                        const char *why)
{
    scheduler_pod_bind_failed_why(kb->s, key, why);
    const struct pod *p = cluster_get_pod(scheduler_cluster(kb->s), key);
    if (p && p->wl && p->wl->stopping)
        kb->changed = true;
}

static void bind_done(void *data, const struct kreq_result *res);
static void get_done(void *data, const struct kreq_result *res);

/* Reads the pod again to learn where it is (op becomes the GET). */
static void bind_resolve(struct kube_op *op, bool conflict)
{
    struct kube_backend *kb = op->kb;
    char path[512];
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", op->ns,
             op->name);
    struct kreq_spec spec = {
        .method = KREQ_GET, .path = path, .retry_unsure = true};
    op->kind = KOP_BIND_GET;
    op->conflict = conflict;
    if (krequest_start(kb->q, &spec, get_done, NULL, op, &op->req) < 0) {
        LOG_E("bind pod %s: cannot read it again; taken back", op->key);
        kb->st.bind_failed++;
        bind_failed(kb, op->key, "its outcome unknown");
        kube_op_free(op);
    }
}

int kube_bind_pod(void *data, const struct pod *p, const struct node *n)
{
    struct kube_backend *kb = data;
    const struct object_meta *m = p->obj ? &p->obj->meta : NULL;
    if (!m || !m->name || !m->namespace_ || !n || !n->name)
        return -EINVAL;
    char *body = kube_binding_json(scheduler_cluster(kb->s), p, n->name);
    struct kube_op *op =
        body ? op_new(kb, KOP_BIND, m->namespace_, m->name, n->name) : NULL;
    if (!op) {
        free(body);
        return -ENOMEM;
    }
    char path[512];
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/binding",
             m->namespace_, m->name);
    struct kreq_spec spec = {.method = KREQ_POST, .path = path, .body = body};
    int r = krequest_start(kb->q, &spec, bind_done, NULL, op, &op->req);
    free(body);
    if (r < 0) {
        kube_op_free(op);
        return r;
    }
    kb->st.binds++;
    LOG_V(2, "bind pod=\"%s\" node=\"%s\" workload=\"%s\"", op->key, n->name,
          p->wl ? p->wl->key : "");
    return BACKEND_STARTED;
}

/* The node named in "pod x is already assigned to node \"y\"", in buf. */
static const char *assigned_node(const char *body, char *buf, size_t size)
{
    struct json_object *root = body && *body ? json_tokener_parse(body) : NULL,
                       *msg = NULL;
    const char *node = NULL;
    if (root && json_object_object_get_ex(root, "message", &msg)) {
        const char *s = json_object_get_string(msg);
        const char *at = s ? strstr(s, "already assigned to node \"") : NULL;
        if (at) {
            at += strlen("already assigned to node \"");
            size_t n = strcspn(at, "\"");
            if (n < size && at[n] == '"') {
                memcpy(buf, at, n);
                buf[n] = '\0';
                node = buf;
            }
        }
    }
    json_object_put(root);
    return node;
}

/* Why a bind was refused, in words for the record: the node or the pod
 * is gone (404, or the API's "not found" for either), or another answer. */
static const char *bind_refusal(const struct kube_op *op,
                                const struct kreq_result *res, char *buf,
                                size_t size)
{
    struct json_object *root =
        res->body && *res->body ? json_tokener_parse(res->body) : NULL;
    struct json_object *msg = NULL, *det = NULL, *kind = NULL;
    const char *m = root && json_object_object_get_ex(root, "message", &msg)
                        ? json_object_get_string(msg)
                        : NULL;
    const char *k = root && json_object_object_get_ex(root, "details", &det) &&
                            json_object_object_get_ex(det, "kind", &kind)
                        ? json_object_get_string(kind)
                        : NULL;
    bool not_found = res->status == 404 || (m && strstr(m, "not found"));
    bool node = (k && strcmp(k, "nodes") == 0) ||
                (m && (strstr(m, "nodes \"") || strstr(m, "node \"")));
    struct json_object *dn = NULL;
    const char *name = det && json_object_object_get_ex(det, "name", &dn)
                           ? json_object_get_string(dn)
                           : NULL;
    if (not_found && node)
        snprintf(buf, size, "node %.64s deleted", name ? name : op->node);
    else if (not_found)
        snprintf(buf, size, "pod deleted");
    else
        snprintf(buf, size, "HTTP %ld%s%.80s", res->status, m ? ": " : "",
                 m ? m : "");
    json_object_put(root);
    return buf;
}

static void bind_done(void *data, const struct kreq_result *res)
{
    struct kube_op *op = data;
    struct kube_backend *kb = op->kb;
    op->req = NULL;
    char nb[256];
    const char *other = NULL;
    if (res->status == 200 || res->status == 201) {
        kb->st.bound++;
        LOG_V(2, "bound pod=\"%s\" node=\"%s\"", op->key, op->node);
        scheduler_pod_bound(kb->s, op->key);
        kube_status_scheduled(kb, op->key);
    } else if (res->status == 409 &&
               (other = assigned_node(res->body, nb, sizeof(nb))) &&
               strcmp(other, op->node) == 0) {
        kb->st.bound++; /* an earlier try of ours went through */
        scheduler_pod_bound(kb->s, op->key);
        kube_status_scheduled(kb, op->key);
    } else if (res->status == 409) {
        kb->st.bind_conflicts++;
        LOG_W("bind pod %s to %s: conflict (%s); reading it again", op->key,
              op->node, other ? other : "not bindable");
        bind_resolve(op, true);
        return;
    } else if (res->status == 0 || res->status >= 500) {
        kb->st.bind_unknown++;
        LOG_W("bind pod %s to %s: no clear answer (%s); reading it again",
              op->key, op->node, res->error ? res->error : "server error");
        bind_resolve(op, false);
        return;
    } else {
        kb->st.bind_failed++;
        char why[160];
        LOG_E("bind pod %s to %s failed: HTTP %ld %.200s", op->key, op->node,
              res->status, res->body);
        bind_failed(kb, op->key, bind_refusal(op, res, why, sizeof(why)));
    }
    kube_op_free(op);
}

/* The pod as it is now says whether the bind happened. */
static void get_done(void *data, const struct kreq_result *res)
{
    struct kube_op *op = data;
    struct kube_backend *kb = op->kb;
    op->req = NULL;
    struct json_object *pod =
        res->status == 200 ? json_tokener_parse(res->body) : NULL;
    struct json_object *spec = NULL, *nn = NULL;
    const char *node = NULL;
    if (pod && json_object_object_get_ex(pod, "spec", &spec) &&
        json_object_object_get_ex(spec, "nodeName", &nn))
        node = json_object_get_string(nn);
    if (res->status == 404) {
        kb->st.bind_failed++;
        scheduler_object_deleted(kb->s, OBJ_POD, op->key);
    } else if (node && strcmp(node, op->node) == 0) {
        kb->st.bound++;
        scheduler_pod_bound(kb->s, op->key);
    } else {
        /* Not where we put it: take it back, then say where it is (bound
         * elsewhere: it takes its room there), before any cycle runs. */
        kb->st.bind_failed++;
        LOG_W("bind pod %s to %s did not happen%s%s", op->key, op->node,
              node && *node ? "; it is on " : "", node ? node : "");
        bind_failed(kb, op->key,
                    op->conflict ? "lost a race (conflict)"
                                 : "it did not happen");
        if (pod && kube_backend_put(kb, KRES_POD, pod, false) < 0)
            LOG_E("pod %s: cannot apply it", op->key);
    }
    json_object_put(pod);
    kube_op_free(op);
}

int kube_evict_pod_of(void *data, const struct pod *p)
{
    struct kube_backend *kb = data;
    kube_status_preempted(kb, p);
    return kube_evict_pod(&kb->ke, p);
}

/* A resume that failed: its workload is admitted and its room held, so
 * the PATCH is sent again (kube_resume_retry) until the job runs, is
 * evicted or is gone; a job left suspended would hold its quota for ever. */
static void resume_again(struct kube_backend *kb, const char *key)
{
    struct kube_resume_again *a = NULL;
    for (size_t i = 0; i < kb->n_resume_retry && !a; i++)
        if (strcmp(kb->resume_retry[i].key, key) == 0)
            a = &kb->resume_retry[i];
    if (!a) {
        if (kb->n_resume_retry == kb->cap_resume_retry) {
            size_t cap = kb->cap_resume_retry ? 2 * kb->cap_resume_retry : 8;
            struct kube_resume_again *v =
                realloc(kb->resume_retry, cap * sizeof(*v));
            if (!v)
                goto oom;
            kb->resume_retry = v;
            kb->cap_resume_retry = cap;
        }
        char *k = strdup(key);
        if (!k)
            goto oom;
        a = &kb->resume_retry[kb->n_resume_retry++];
        *a = (struct kube_resume_again){.key = k};
    }
    a->backoff_ns = a->backoff_ns ? a->backoff_ns * 2 : KUBE_RESUME_BACKOFF_MIN_NS;
    if (a->backoff_ns > KUBE_RESUME_BACKOFF_MAX_NS)
        a->backoff_ns = KUBE_RESUME_BACKOFF_MAX_NS;
    a->due_ns = scheduler_cluster(kb->s)->now_ns + a->backoff_ns;
    LOG_W("resuming %s: tried again in %llds", key,
          (long long)(a->backoff_ns / 1000000000));
    return;
oom:
    LOG_E("resuming %s: no memory to retry it; its pods wait", key);
}

static void resume_forget(struct kube_backend *kb, const char *key)
{
    for (size_t i = 0; i < kb->n_resume_retry; i++)
        if (strcmp(kb->resume_retry[i].key, key) == 0) {
            free(kb->resume_retry[i].key);
            kb->resume_retry[i] = kb->resume_retry[--kb->n_resume_retry];
            return;
        }
}

static void resume_done(void *data, const struct kreq_result *res)
{
    struct kube_op *op = data;
    struct kube_backend *kb = op->kb;
    op->req = NULL;
    if (res->status == 200) {
        LOG_V(2, "resume workload=\"%s\"", op->key);
        resume_forget(kb, op->key);
    } else {
        kb->st.resume_failed++;
        char what[256];
        LOG_E("resuming %s failed: %s %.200s", op->key,
              kreq_result_what(res, what, sizeof(what)), res->body);
        if (res->status == 404) /* the job is gone, and so is its workload */
            resume_forget(kb, op->key);
        else
            resume_again(kb, op->key);
    }
    kube_op_free(op);
}

int kube_resume(void *data, const struct workload *w)
{
    struct kube_backend *kb = data;
    const struct object *top = w->top;
    if (!top || !top->meta.name || !top->meta.namespace_ ||
        (top->kind != OBJ_JOB && top->kind != OBJ_JOBSET))
        return -EINVAL;
    struct kube_op *op =
        op_new(kb, KOP_RESUME, top->meta.namespace_, top->meta.name, NULL);
    if (!op)
        return -ENOMEM;
    char path[512];
    snprintf(path, sizeof(path), "%s/namespaces/%s/%s/%s",
             top->kind == OBJ_JOB ? "/apis/batch/v1"
                                  : "/apis/jobset.x-k8s.io/v1alpha2",
             top->meta.namespace_, top->kind == OBJ_JOB ? "jobs" : "jobsets",
             top->meta.name);
    /* Idempotent: a repeat after an unclear answer does no harm. */
    struct kreq_spec spec = {.method = KREQ_PATCH,
                             .path = path,
                             .body = "{\"spec\":{\"suspend\":false}}",
                             .retry_unsure = true};
    int r = krequest_start(kb->q, &spec, resume_done, NULL, op, &op->req);
    if (r < 0) {
        kube_op_free(op);
        return r;
    }
    kb->st.resumes++;
    return BACKEND_STARTED;
}

/* Still to resume: admitted, not being evicted, and its job, as last
 * seen, still suspended. */
static bool resume_wanted(const struct workload *w)
{
    if (!w || w->state != WL_ADMITTED || w->evicting || !w->top)
        return false;
    if (w->top->kind == OBJ_JOB)
        return w->top->u.job.spec.suspend;
    return w->top->kind == OBJ_JOBSET && w->top->u.jobset.suspend;
}

int kube_resume_retry(struct kube_backend *kb)
{
    const struct cluster *c = scheduler_cluster(kb->s);
    int started = 0, err = 0;
    for (size_t i = 0; i < kb->n_resume_retry;) {
        struct kube_resume_again *a = &kb->resume_retry[i];
        const struct workload *w = cluster_get_workload(c, a->key);
        bool wanted = resume_wanted(w);
        if (wanted && (a->due_ns > c->now_ns || err)) {
            i++; /* its time still to come */
            continue;
        }
        if (wanted) {
            int r = kube_resume(kb, w);
            if (r < 0) {
                err = r;
                i++;
                continue;
            }
            started++;
        }
        /* Sent again, or nothing left to do: its answer decides whether
         * it comes back (keeping the backoff it had). */
        if (wanted) {
            i++;
            a->due_ns = INT64_MAX; /* until resume_done says */
            continue;
        }
        free(a->key);
        kb->resume_retry[i] = kb->resume_retry[--kb->n_resume_retry];
    }
    return err ? err : started;
}

void kube_resume_release(struct kube_backend *kb)
{
    for (size_t i = 0; i < kb->n_resume_retry; i++)
        free(kb->resume_retry[i].key);
    free(kb->resume_retry);
    kb->resume_retry = NULL;
    kb->n_resume_retry = kb->cap_resume_retry = 0;
}

const struct backend_ops kube_backend_ops = {
    .bind = kube_bind_pod,
    .evict = kube_evict_pod_of,
    .resume = kube_resume,
};
