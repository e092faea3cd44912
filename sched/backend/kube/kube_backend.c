/* kube_backend.c - the Kubernetes backend's informers: what the API server
 * reports becomes the scheduler's events (see kube_backend.h). */
#include "kube_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_int.h"
#include "kube_status.h"
#include "log.h"

static void on_event(void *data, enum kinf_event ev, struct json_object *obj)
{
    struct kube_res_ctx *ctx = data;
    struct kube_backend *kb = ctx->kb;
    kb->st.events++;
    if (ctx->res == KRES_LEASE) {
        /* Renewed every few seconds: not a reason to run a cycle. */
        if (kb->opt.lease)
            kb->opt.lease(kb->opt.hook_data, ev, obj);
        return;
    }
    kb->changed = true;
    int r = 0;
    /* What queue status counts may change with them: re-filed whole. */
    if (ctx->res == KRES_CLUSTER_QUEUE || ctx->res == KRES_LOCAL_QUEUE ||
        ctx->res == KRES_COHORT || ctx->res == KRES_RESOURCE_FLAVOR ||
        ctx->res == KRES_ADMISSION_CHECK || ctx->res == KRES_NAMESPACE)
        kb->queues_dirty = true;
    if (ev == KINF_DELETED) {
        char buf[512];
        const char *key = kinformer_key(obj, buf, sizeof(buf));
        if (key)
            r = scheduler_object_deleted(
                kb->s, (enum object_kind)kube_resources[ctx->res].obj_kind,
                key);
        if (key)
            kube_status_object_gone(kb, ctx->res, key);
    } else {
        r = kube_backend_put(kb, ctx->res, obj, ev == KINF_ADDED);
    }
    if (r < 0)
        LOG_E("%s event: %s", kube_resources[ctx->res].kind, strerror(-r));
}

static void on_synced(void *data)
{
    struct kube_res_ctx *ctx = data;
    ctx->kb->changed = true;
    LOG_V(1, "informer synced resource=%s", kube_resources[ctx->res].kind);
}

static void on_unserved(void *data, long status, const char *why)
{
    struct kube_res_ctx *ctx = data;
    LOG_W("%s: %s (HTTP %ld); watched again later, none meanwhile",
          kube_resources[ctx->res].kind, why, status);
}

int kube_backend_new(struct kclient *kc, struct krequests *q,
                     const struct kube_backend_options *opt,
                     struct kube_backend **ret)
{
    if (!kc || !q || !ret)
        return -EINVAL;
    struct kube_backend *kb = calloc(1, sizeof(*kb));
    if (!kb)
        return -ENOMEM;
    kb->kc = kc;
    kb->q = q;
    if (opt)
        kb->opt = *opt;
    if (!kb->opt.lease_namespace)
        kb->opt.lease_namespace = "kube-system";
    char lease_path[256];
    snprintf(lease_path, sizeof(lease_path),
             "/apis/coordination.k8s.io/v1/namespaces/%s/leases",
             kb->opt.lease_namespace);
    struct kinformer_ops ops = {on_event, on_synced, on_unserved};
    for (int i = 0; i < KRES_MAX; i++) {
        kb->ctx[i] = (struct kube_res_ctx){kb, (enum kube_res)i};
        struct kinformer_config cfg = {
            .path =
                kube_resources[i].path ? kube_resources[i].path : lease_path,
            .kind = kube_resources[i].kind,
            .api_version = kube_resources[i].api_version,
        };
        int r = kinformer_new(q, &cfg, &ops, &kb->ctx[i], &kb->inf[i]);
        if (r < 0) {
            kube_backend_free(kb);
            return r;
        }
    }
    *ret = kb;
    return 0;
}

void kube_backend_free(struct kube_backend *kb)
{
    if (!kb)
        return;
    for (int i = 0; i < KRES_MAX; i++)
        kinformer_free(kb->inf[i]);
    while (kb->ops) {
        krequest_cancel(kb->ops->req);
        kube_op_free(kb->ops);
    }
    kube_evict_release(&kb->ke);
    kube_resume_release(kb);
    if (kb->started)
        kube_status_release(kb);
    free(kb);
}

int kube_backend_start(struct kube_backend *kb, struct scheduler *s)
{
    if (!kb || !s || kb->started)
        return -EINVAL;
    kb->s = s;
    /* kube_evict reads the cluster only; its pointer is not const. */
    kube_evict_init(&kb->ke, kb->kc, (struct cluster *)scheduler_cluster(s),
                    kb->opt.evict_grace_seconds);
    kb->ke.refused = kube_status_evict_refused;
    kb->ke.hook_data = kb;
    kb->started = true;
    int e = kube_status_init(kb);
    if (e < 0)
        return e;
    for (int i = 0; i < KRES_MAX; i++) {
        int r = kinformer_start(kb->inf[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

bool kube_backend_synced(const struct kube_backend *kb)
{
    for (int i = 0; i < KRES_MAX; i++)
        if (!kinformer_synced(kb->inf[i]))
            return false;
    return true;
}

bool kube_backend_take_changed(struct kube_backend *kb)
{
    bool c = kb->changed;
    kb->changed = false;
    return c;
}

void kube_backend_get_stats(const struct kube_backend *kb,
                            struct kube_backend_stats *ret)
{
    *ret = kb->st;
}

struct kinformer *kube_backend_informer(const struct kube_backend *kb,
                                        enum kube_res r)
{
    return (unsigned)r < KRES_MAX ? kb->inf[r] : NULL;
}

void kube_backend_retry_actions(struct kube_backend *kb)
{
    if (!kb->started)
        return;
    int r = kb->ke.n_retry ? kube_evict_retry(&kb->ke) : 0;
    if (r < 0)
        LOG_E("retrying evictions: %s", strerror(-r));
    r = kb->n_resume_retry ? kube_resume_retry(kb) : 0;
    if (r < 0)
        LOG_E("retrying resumes: %s", strerror(-r));
}

size_t kube_backend_ops_in_flight(const struct kube_backend *kb)
{
    size_t n = 0;
    for (const struct kube_op *op = kb ? kb->ops : NULL; op; op = op->next)
        n++;
    return n;
}
