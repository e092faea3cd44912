/* emu_table.c - server-side Table rendering (meta.k8s.io/v1 Table), so
 * `kubectl get` prints the columns the real server's printers give, and
 * for the Kueue, JobSet and NRT kinds their CRDs' additionalPrinterColumns.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"

enum cell {
    C_NAME,
    C_AGE,
    C_PATH, /* arg: dotted path */
    C_COND, /* arg: condition type; its status */
    C_POD_READY,
    C_POD_STATUS,
    C_POD_RESTARTS,
    C_NODE_STATUS,
    C_NODE_ROLES,
    C_JOB_STATUS,
    C_JOB_COMPLETIONS,
    C_JOB_DURATION,
    C_EV_LAST,
    C_EV_OBJECT,
    C_NONE_STR, /* "<none>" when the path is empty */
    C_EV_MESSAGE,
};

struct column {
    const char *name, *type;
    int priority;
    enum cell cell;
    const char *arg;
};

struct printer {
    const char *resource, *group;
    struct column cols[10];
};

#define NAME                                                                   \
    {                                                                          \
        "Name", "string", 0, C_NAME, NULL                                      \
    }
#define AGE                                                                    \
    {                                                                          \
        "Age", "date", 0, C_AGE, NULL                                          \
    }

static const struct printer printers[] = {
    {"pods",
     "",
     {NAME,
      {"Ready", "string", 0, C_POD_READY, NULL},
      {"Status", "string", 0, C_POD_STATUS, NULL},
      {"Restarts", "string", 0, C_POD_RESTARTS, NULL},
      AGE,
      {"IP", "string", 1, C_NONE_STR, "status.podIP"},
      {"Node", "string", 1, C_NONE_STR, "spec.nodeName"},
      {"Nominated Node", "string", 1, C_NONE_STR, "status.nominatedNodeName"},
      {"Readiness Gates", "string", 1, C_NONE_STR, "spec.readinessGates"}}},
    {"nodes",
     "",
     {NAME,
      {"Status", "string", 0, C_NODE_STATUS, NULL},
      {"Roles", "string", 0, C_NODE_ROLES, NULL},
      AGE,
      {"Version", "string", 0, C_PATH, "status.nodeInfo.kubeletVersion"}}},
    {"namespaces",
     "",
     {NAME, {"Status", "string", 0, C_PATH, "status.phase"}, AGE}},
    {"events",
     "",
     {{"Last Seen", "string", 0, C_EV_LAST, NULL},
      {"Type", "string", 0, C_PATH, "type"},
      {"Reason", "string", 0, C_PATH, "reason"},
      {"Object", "string", 0, C_EV_OBJECT, NULL},
      {"Message", "string", 0, C_EV_MESSAGE, NULL}}},
    {"configmaps", "", {NAME, AGE}},
    {"jobs",
     "batch",
     {NAME,
      {"Status", "string", 0, C_JOB_STATUS, NULL},
      {"Completions", "string", 0, C_JOB_COMPLETIONS, NULL},
      {"Duration", "string", 0, C_JOB_DURATION, NULL},
      AGE}},
    {"leases",
     "coordination.k8s.io",
     {NAME, {"Holder", "string", 0, C_PATH, "spec.holderIdentity"}, AGE}},
    {"priorityclasses",
     "scheduling.k8s.io",
     {NAME,
      {"Value", "integer", 0, C_PATH, "value"},
      {"Global-Default", "boolean", 0, C_PATH, "globalDefault"},
      AGE,
      {"PreemptionPolicy", "string", 0, C_PATH, "preemptionPolicy"}}},
    {"poddisruptionbudgets",
     "policy",
     {NAME,
      {"Min Available", "string", 0, C_NONE_STR, "spec.minAvailable"},
      {"Max Unavailable", "string", 0, C_NONE_STR, "spec.maxUnavailable"},
      {"Allowed Disruptions", "integer", 0, C_PATH,
       "status.disruptionsAllowed"},
      AGE}},
    /* kueue config/components/crd/bases printer columns */
    {"clusterqueues",
     "kueue.x-k8s.io",
     {NAME,
      {"Cohort", "string", 0, C_PATH, "spec.cohortName"},
      {"Strategy", "string", 1, C_PATH, "spec.queueingStrategy"},
      {"Pending Workloads", "integer", 0, C_PATH, "status.pendingWorkloads"},
      {"Admitted Workloads", "integer", 1, C_PATH,
       "status.admittedWorkloads"}}},
    {"localqueues",
     "kueue.x-k8s.io",
     {NAME,
      {"ClusterQueue", "string", 0, C_PATH, "spec.clusterQueue"},
      {"Pending Workloads", "integer", 0, C_PATH, "status.pendingWorkloads"},
      {"Admitted Workloads", "integer", 0, C_PATH,
       "status.admittedWorkloads"}}},
    {"workloads",
     "kueue.x-k8s.io",
     {NAME,
      {"Queue", "string", 0, C_PATH, "spec.queueName"},
      {"Reserved in", "string", 0, C_PATH, "status.admission.clusterQueue"},
      {"Admitted", "string", 0, C_COND, "Admitted"},
      {"Finished", "string", 0, C_COND, "Finished"},
      AGE}},
    {"resourceflavors", "kueue.x-k8s.io", {NAME, AGE}},
    {"cohorts", "kueue.x-k8s.io", {NAME, AGE}},
    {"workloadpriorityclasses",
     "kueue.x-k8s.io",
     {NAME, {"Value", "integer", 0, C_PATH, "value"}, AGE}},
    {"topologies", "kueue.x-k8s.io", {NAME, AGE}},
    {"admissionchecks", "kueue.x-k8s.io", {NAME, AGE}},
    {"jobsets",
     "jobset.x-k8s.io",
     {NAME,
      {"TerminalState", "string", 0, C_PATH, "status.terminalState"},
      {"Restarts", "string", 0, C_PATH, "status.restarts"},
      {"Completed", "string", 0, C_COND, "Completed"},
      {"Suspended", "string", 0, C_PATH, "spec.suspend"},
      AGE}},
    {"noderesourcetopologies", "topology.node.k8s.io", {NAME, AGE}},
};

static const struct printer *printer_for(int kind)
{
    const struct emu_kind *k = &emu_kinds[kind];
    for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++)
        if (!strcmp(printers[i].resource, k->resource) &&
            (!strcmp(printers[i].group, k->group) ||
             !strcmp(k->resource, "events")))
            return &printers[i];
    return NULL;
}

/* kubectl's HumanDuration, roughly. */
static void human(int64_t s, char *buf, size_t size)
{
    if (s < 0)
        s = 0;
    if (s < 120)
        snprintf(buf, size, "%llds", (long long)s);
    else if (s < 600)
        snprintf(buf, size, "%lldm%llds", (long long)(s / 60),
                 (long long)(s % 60));
    else if (s < 3 * 3600)
        snprintf(buf, size, "%lldm", (long long)(s / 60));
    else if (s < 8 * 3600)
        snprintf(buf, size, "%lldh%lldm", (long long)(s / 3600),
                 (long long)(s % 3600 / 60));
    else if (s < 48 * 3600)
        snprintf(buf, size, "%lldh", (long long)(s / 3600));
    else
        snprintf(buf, size, "%lldd", (long long)(s / 86400));
}

static void age(struct json_object *o, const char *path, char *buf, size_t size)
{
    int64_t t = emu_time_parse(emu_path_str(o, path));
    if (t < 0)
        snprintf(buf, size, "<unknown>");
    else
        human((int64_t)time(NULL) - t, buf, size);
}

static struct json_object *cond(struct json_object *o, const char *type)
{
    struct json_object *c = emu_path(o, "status.conditions");
    for (size_t i = 0; c && json_object_is_type(c, json_type_array) &&
                       i < json_object_array_length(c);
         i++) {
        struct json_object *e = json_object_array_get_idx(c, i);
        const char *t = emu_path_str(e, "type");
        if (t && !strcmp(t, type))
            return e;
    }
    return NULL;
}

static bool cond_true(struct json_object *o, const char *type)
{
    const char *s = emu_path_str(cond(o, type), "status");
    return s && !strcmp(s, "True");
}

static int64_t num(struct json_object *o, const char *path)
{
    struct json_object *v = emu_path(o, path);
    return v ? json_object_get_int64(v) : 0;
}

static struct json_object *cell(const struct column *c, struct json_object *o)
{
    char buf[256];
    const char *s;
    struct json_object *v;
    switch (c->cell) {
    case C_NAME:
        return json_object_new_string(emu_path_str(o, "metadata.name"));
    case C_AGE:
        age(o, "metadata.creationTimestamp", buf, sizeof(buf));
        return json_object_new_string(buf);
    case C_PATH:
        v = emu_path(o, c->arg);
        if (!v)
            return json_object_new_string("");
        return json_object_get(v);
    case C_NONE_STR:
        s = emu_path_str(o, c->arg);
        return json_object_new_string(s && *s ? s : "<none>");
    case C_COND:
        s = emu_path_str(cond(o, c->arg), "status");
        return json_object_new_string(s ? s : "");
    case C_POD_READY: {
        struct json_object *cs = emu_path(o, "status.containerStatuses");
        struct json_object *ct = emu_path(o, "spec.containers");
        size_t n = ct && json_object_is_type(ct, json_type_array)
                       ? json_object_array_length(ct)
                       : 0,
               ready = 0;
        for (size_t i = 0; cs && json_object_is_type(cs, json_type_array) &&
                           i < json_object_array_length(cs);
             i++)
            ready += json_object_get_boolean(
                emu_path(json_object_array_get_idx(cs, i), "ready"));
        snprintf(buf, sizeof(buf), "%zu/%zu", ready, n);
        return json_object_new_string(buf);
    }
    case C_POD_STATUS:
        s = emu_path(o, "metadata.deletionTimestamp")
                ? "Terminating"
                : emu_path_str(o, "status.reason");
        if (!s)
            s = emu_path_str(o, "status.phase");
        return json_object_new_string(s ? s : "Unknown");
    case C_POD_RESTARTS: {
        struct json_object *cs = emu_path(o, "status.containerStatuses");
        int64_t n = 0;
        for (size_t i = 0; cs && json_object_is_type(cs, json_type_array) &&
                           i < json_object_array_length(cs);
             i++)
            n += num(json_object_array_get_idx(cs, i), "restartCount");
        return json_object_new_int64(n);
    }
    case C_NODE_STATUS:
        snprintf(buf, sizeof(buf), "%s%s",
                 cond(o, "Ready")
                     ? (cond_true(o, "Ready") ? "Ready" : "NotReady")
                     : "Unknown",
                 json_object_get_boolean(emu_path(o, "spec.unschedulable"))
                     ? ",SchedulingDisabled"
                     : "");
        return json_object_new_string(buf);
    case C_NODE_ROLES: {
        struct json_object *l = emu_path(o, "metadata.labels");
        buf[0] = '\0';
        if (l && json_object_is_type(l, json_type_object)) {
            json_object_object_foreach(l, k, unused)
            {
                (void)unused;
                if (!strncmp(k, "node-role.kubernetes.io/", 24) && k[24]) {
                    size_t n = strlen(buf);
                    snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
                             k + 24);
                }
            }
        }
        return json_object_new_string(buf[0] ? buf : "<none>");
    }
    case C_JOB_STATUS:
        s = cond_true(o, "Complete")                    ? "Complete"
            : cond_true(o, "Failed")                    ? "Failed"
            : emu_path(o, "metadata.deletionTimestamp") ? "Terminating"
            : cond_true(o, "Suspended")                 ? "Suspended"
            : cond_true(o, "FailureTarget")             ? "FailureTarget"
                                                        : "Running";
        return json_object_new_string(s);
    case C_JOB_COMPLETIONS:
        if (emu_path(o, "spec.completions"))
            snprintf(buf, sizeof(buf), "%lld/%lld",
                     (long long)num(o, "status.succeeded"),
                     (long long)num(o, "spec.completions"));
        else
            snprintf(buf, sizeof(buf), "%lld/1 of %lld",
                     (long long)num(o, "status.succeeded"),
                     (long long)num(o, "spec.parallelism"));
        return json_object_new_string(buf);
    case C_JOB_DURATION: {
        int64_t a = emu_time_parse(emu_path_str(o, "status.startTime"));
        int64_t b = emu_time_parse(emu_path_str(o, "status.completionTime"));
        if (a < 0)
            return json_object_new_string("");
        human((b < 0 ? (int64_t)time(NULL) : b) - a, buf, sizeof(buf));
        return json_object_new_string(buf);
    }
    case C_EV_LAST:
        s = emu_path_str(o, "lastTimestamp");
        if (!s)
            s = emu_path_str(o, "eventTime");
        if (!s)
            s = emu_path_str(o, "metadata.creationTimestamp");
        if (emu_time_parse(s) < 0)
            return json_object_new_string("<unknown>");
        human((int64_t)time(NULL) - emu_time_parse(s), buf, sizeof(buf));
        return json_object_new_string(buf);
    case C_EV_MESSAGE:
        s = emu_path_str(o, "message");
        if (!s)
            s = emu_path_str(o, "note");
        return json_object_new_string(s ? s : "");
    case C_EV_OBJECT: {
        const char *k = emu_path_str(o, "involvedObject.kind");
        const char *n = emu_path_str(o, "involvedObject.name");
        if (!k) {
            k = emu_path_str(o, "regarding.kind");
            n = emu_path_str(o, "regarding.name");
        }
        snprintf(buf, sizeof(buf), "%s/%s", k ? k : "", n ? n : "");
        for (char *p = buf; *p && *p != '/'; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        return json_object_new_string(buf);
    }
    }
    return json_object_new_string("");
}

static struct json_object *partial(struct json_object *o)
{
    struct json_object *p = json_object_new_object();
    struct json_object *m;
    json_object_object_add(p, "kind",
                           json_object_new_string("PartialObjectMetadata"));
    json_object_object_add(p, "apiVersion",
                           json_object_new_string("meta.k8s.io/v1"));
    if (json_object_object_get_ex(o, "metadata", &m))
        json_object_object_add(p, "metadata", json_object_get(m));
    return p;
}

struct json_object *emu_table_new(int kind, struct json_object **items,
                                  size_t n, const char *rv, const char *cont)
{
    const struct printer *pr = printer_for(kind);
    static const struct printer fallback = {"", "", {NAME, AGE}};
    struct json_object *t = json_object_new_object();
    struct json_object *cols = json_object_new_array();
    struct json_object *rows = json_object_new_array();
    struct json_object *meta = json_object_new_object();
    if (!pr)
        pr = &fallback;
    json_object_object_add(t, "kind", json_object_new_string("Table"));
    json_object_object_add(t, "apiVersion",
                           json_object_new_string("meta.k8s.io/v1"));
    if (rv)
        json_object_object_add(meta, "resourceVersion",
                               json_object_new_string(rv));
    if (cont && *cont)
        json_object_object_add(meta, "continue", json_object_new_string(cont));
    json_object_object_add(t, "metadata", meta);
    size_t nc = 0;
    while (nc < 10 && pr->cols[nc].name)
        nc++;
    for (size_t i = 0; i < nc; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "name",
                               json_object_new_string(pr->cols[i].name));
        json_object_object_add(c, "type",
                               json_object_new_string(pr->cols[i].type));
        json_object_object_add(
            c, "format",
            json_object_new_string(pr->cols[i].cell == C_NAME ? "name" : ""));
        json_object_object_add(c, "description", json_object_new_string(""));
        json_object_object_add(c, "priority",
                               json_object_new_int(pr->cols[i].priority));
        json_object_array_add(cols, c);
    }
    json_object_object_add(t, "columnDefinitions", cols);
    for (size_t i = 0; i < n; i++) {
        struct json_object *row = json_object_new_object();
        struct json_object *cells = json_object_new_array();
        for (size_t j = 0; j < nc; j++)
            json_object_array_add(cells, cell(&pr->cols[j], items[i]));
        json_object_object_add(row, "cells", cells);
        json_object_object_add(row, "object", partial(items[i]));
        json_object_array_add(rows, row);
    }
    json_object_object_add(t, "rows", rows);
    return t;
}
