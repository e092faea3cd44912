/* emu_kubelet.c - the emulated kubelet (--kubelet): a bound pod becomes
 * Running, and Succeeded once its ordo.dev/sim-runtime (a Go duration)
 * has passed in wall time divided by --time-scale. Pods without the
 * annotation run until deleted. Run by the main loop, emu.lock held. */
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "emu.h"

#define ANNOT_RUNTIME "ordo.dev/sim-runtime"

/* When each running pod started, by uid (monotonic ms). */
struct started {
    char uid[64];
    int64_t ms;
};
static struct started *starts;
static size_t nstarts, capstarts;

static int64_t *start_of(const char *uid, bool add)
{
    for (size_t i = 0; i < nstarts; i++)
        if (!strcmp(starts[i].uid, uid))
            return &starts[i].ms;
    if (!add)
        return NULL;
    if (nstarts == capstarts) {
        size_t cap = capstarts ? capstarts * 2 : 64;
        struct started *n = realloc(starts, cap * sizeof(*n));
        if (!n)
            return NULL;
        starts = n;
        capstarts = cap;
    }
    snprintf(starts[nstarts].uid, sizeof(starts[nstarts].uid), "%s", uid);
    starts[nstarts].ms = emu_now_ms();
    return &starts[nstarts++].ms;
}

static struct json_object *cond(const char *type, const char *status,
                                const char *reason, const char *ts)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "type", json_object_new_string(type));
    json_object_object_add(c, "status", json_object_new_string(status));
    if (reason)
        json_object_object_add(c, "reason", json_object_new_string(reason));
    json_object_object_add(c, "lastProbeTime", NULL);
    json_object_object_add(c, "lastTransitionTime", json_object_new_string(ts));
    return c;
}

static void set_status(struct json_object *pod, bool done)
{
    struct json_object *n = emu_copy(pod), *out;
    struct json_object *st = emu_child(n, "status");
    struct json_object *conds = json_object_new_array();
    struct json_object *cs = json_object_new_array();
    struct json_object *ctrs = emu_path(n, "spec.containers");
    struct emu_err err = {0};
    char ts[40];
    const char *started = emu_path_str(st, "startTime");
    emu_time_now(ts, sizeof(ts), false);
    json_object_object_add(
        st, "phase", json_object_new_string(done ? "Succeeded" : "Running"));
    if (!started)
        json_object_object_add(st, "startTime", json_object_new_string(ts));
    started = emu_path_str(st, "startTime");
    json_object_object_add(st, "hostIP", json_object_new_string("10.0.0.1"));
    json_object_object_add(st, "podIP", json_object_new_string("10.1.0.1"));
    json_object_array_add(conds,
                          cond("PodReadyToStartContainers", "True", NULL, ts));
    json_object_array_add(
        conds, cond("Initialized", "True", done ? "PodCompleted" : NULL, ts));
    json_object_array_add(conds, cond("Ready", done ? "False" : "True",
                                      done ? "PodCompleted" : NULL, ts));
    json_object_array_add(conds,
                          cond("ContainersReady", done ? "False" : "True",
                               done ? "PodCompleted" : NULL, ts));
    json_object_array_add(conds, cond("PodScheduled", "True", NULL, ts));
    json_object_object_add(st, "conditions", conds);
    for (size_t i = 0; ctrs && json_object_is_type(ctrs, json_type_array) &&
                       i < json_object_array_length(ctrs);
         i++) {
        struct json_object *c = json_object_array_get_idx(ctrs, i);
        struct json_object *s = json_object_new_object();
        struct json_object *state = json_object_new_object();
        struct json_object *inner = json_object_new_object();
        const char *img = emu_path_str(c, "image");
        json_object_object_add(
            s, "name",
            json_object_new_string(
                emu_path_str(c, "name") ? emu_path_str(c, "name") : ""));
        json_object_object_add(s, "image",
                               json_object_new_string(img ? img : ""));
        json_object_object_add(s, "imageID", json_object_new_string(""));
        json_object_object_add(s, "ready", json_object_new_boolean(!done));
        json_object_object_add(s, "started", json_object_new_boolean(!done));
        json_object_object_add(s, "restartCount", json_object_new_int(0));
        json_object_object_add(inner, "startedAt",
                               json_object_new_string(started));
        if (done) {
            json_object_object_add(inner, "exitCode", json_object_new_int(0));
            json_object_object_add(inner, "reason",
                                   json_object_new_string("Completed"));
            json_object_object_add(inner, "finishedAt",
                                   json_object_new_string(ts));
        }
        json_object_object_add(state, done ? "terminated" : "running", inner);
        json_object_object_add(s, "state", state);
        json_object_array_add(cs, s);
    }
    json_object_object_add(st, "containerStatuses", cs);
    char ns[256], name[256];
    /* Copied: the update replaces the pod. */
    snprintf(ns, sizeof(ns), "%s",
             emu_path_str(pod, "metadata.namespace")
                 ? emu_path_str(pod, "metadata.namespace")
                 : "");
    snprintf(name, sizeof(name), "%s", emu_path_str(pod, "metadata.name"));
    if (emu_store_update(emu_k("pods"), n, "*", &out, &err) == 0 && done)
        /* The pod's requests are free again: the audit says when. */
        emu_audit_internal("complete", "pods", ns, name, "system:node:kubelet");
}

void emu_kubelet_tick(void)
{
    int pods = emu_k("pods");
    struct emu_bucket *b = &emu.buckets[pods];
    int64_t now = emu_now_ms();
    for (size_t i = 0; i < b->n; i++) {
        struct json_object *p = b->v[i].obj;
        const char *node = emu_path_str(p, "spec.nodeName");
        const char *ph = emu_path_str(p, "status.phase");
        const char *uid = emu_path_str(p, "metadata.uid");
        struct json_object *ann = emu_path(p, "metadata.annotations"), *rt;
        if (!node || !*node || !ph || !uid ||
            emu_path(p, "metadata.deletionTimestamp"))
            continue;
        /* The array does not move: updates replace objects in place. */
        if (!strcmp(ph, "Pending")) {
            start_of(uid, true);
            set_status(p, false);
            continue;
        }
        if (strcmp(ph, "Running") || !ann ||
            !json_object_object_get_ex(ann, ANNOT_RUNTIME, &rt))
            continue;
        int64_t ns, *start = start_of(uid, true);
        if (!start || duration_parse(json_object_get_string(rt), &ns) < 0)
            continue;
        int64_t ms = ns / 1000000 / (emu.time_scale > 0 ? emu.time_scale : 1);
        if (now - *start >= ms)
            set_status(p, true);
    }
}
