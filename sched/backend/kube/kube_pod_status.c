/* kube_pod_status.c - the PodScheduled condition of Ordo's pods (see
 * kube_pod_status.h). */
#include "kube_pod_status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kube_json.h"

int kube_pod_scheduled(const struct pod *p, const char *message,
                       int64_t since_ns, struct json_object **ret)
{
    bool bound = p->node &&
                 (p->state == PODSTATE_BOUND || p->state == PODSTATE_SUCCEEDED);
    if (!message)
        message = !bound && p->wl && p->wl->reason[0] ? p->wl->reason : "";
    struct json_object *root = json_object_new_object();
    struct json_object *st = json_object_new_object();
    struct json_object *conds = json_object_new_array();
    struct json_object *c =
        bound ? kjson_condition("PodScheduled", true, NULL, NULL, since_ns)
              : kjson_condition("PodScheduled", false, KUBE_POD_UNSCHEDULABLE,
                                message, since_ns);
    *ret = NULL;
    if (bound && c) {
        /* kube-scheduler's True condition has no reason or message. */
        json_object_object_del(c, "message");
    }
    if (!root || kjson_put(root, "status", st) < 0) {
        json_object_put(root);
        json_object_put(conds);
        json_object_put(c);
        return -ENOMEM;
    }
    if (kjson_put(st, "conditions", conds) < 0 || kjson_append(conds, c) < 0) {
        json_object_put(root);
        return -ENOMEM;
    }
    *ret = root;
    return 0;
}

int kube_pod_status_put(struct kube_writes *q, const struct pod *p,
                        const char *message, int64_t now_ns)
{
    const struct object *o = p->obj;
    if (!o || !o->meta.name || !o->meta.namespace_)
        return -EINVAL;
    char key[600], path[700];
    snprintf(key, sizeof(key), "Pod/status %s/%s", o->meta.namespace_,
             o->meta.name);
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/status",
             o->meta.namespace_, o->meta.name);
    struct json_object *st;
    int r = kube_pod_scheduled(p, message, now_ns, &st);
    if (r < 0)
        return r;
    const struct json_object *prev = kube_writes_state(q, key);
    struct json_object *ps, *pc, *ns, *nc;
    if (prev &&
        json_object_object_get_ex((struct json_object *)prev, "status", &ps) &&
        json_object_object_get_ex(ps, "conditions", &pc) &&
        json_object_object_get_ex(st, "status", &ns) &&
        json_object_object_get_ex(ns, "conditions", &nc))
        kjson_keep_transition_times(nc, pc);
    return kube_writes_put(q, KUBE_WRITE_POD, key, NULL, path,
                           "application/strategic-merge-patch+json", st);
}
