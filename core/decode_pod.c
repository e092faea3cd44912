/* decode_pod.c - decoders for core/v1 Namespace, Node, Pod and pod
 * templates, and scheduling.k8s.io/v1 PriorityClass.
 *
 * A pod spec is reduced to what scheduling needs; in particular the
 * containers' requests are folded into the pod's effective request the way
 * kube-scheduler computes it (k8s.io/component-helpers resource.PodRequests).
 *
 * A Node is Ready when its first Ready condition has status "True". A Node
 * without status.conditions is Ready too: manifests written by hand for the
 * simulator have none. Conditions that are there but do not say Ready=True
 * (Ready "Unknown" or "False", no Ready condition, not a list, an item not a
 * map, a type or status that is not a string) mean not Ready, never a decode
 * error: core objects are read leniently, and unknown must not fail open.
 *
 * What an API server or Kueue's webhook would refuse is refused: negative
 * quantities, PriorityClass values above 1e9 and unknown "system-" classes,
 * a pod group whose kueue.x-k8s.io/pod-group-total-count is missing or not
 * an integer >= 1. */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "decode_kinds.h"

/* The API server labels every Namespace with its own name (overwriting
 * what the object says), so that selectors can pick namespaces by name. */
#define LABEL_NAMESPACE_NAME "kubernetes.io/metadata.name"

int decode_namespace(struct decode_ctx *c, const struct doc_node *n,
                     struct object *o)
{
    (void)n;
    if (!o->meta.name)
        return 0;
    if (strmap_set(&o->meta.labels, o->arena, LABEL_NAMESPACE_NAME,
                   o->meta.name) < 0)
        return decode_fail(c, NULL, "out of memory");
    return 0;
}

/* A condition field that is a string (any scalar, as decode_field_string
 * reads them). */
static const char *cond_string(const struct doc_node *item, const char *key)
{
    const struct doc_node *v = doc_map_get(item, key);
    const char *s = NULL;
    if (!v || v->type != DOC_SCALAR || doc_get_string(v, &s) < 0)
        return NULL;
    return s;
}

/* Whether status.conditions (NULL when absent or null) says Ready. */
static bool node_ready(const struct doc_node *conds)
{
    if (!conds)
        return true; /* written by hand for the simulator */
    if (conds->type != DOC_SEQ)
        return false;
    bool ready = false, seen = false;
    for (size_t i = 0; i < conds->n; i++) {
        const struct doc_node *it = conds->items[i];
        const char *type = it->type == DOC_MAP ? cond_string(it, "type") : NULL;
        const char *status =
            it->type == DOC_MAP ? cond_string(it, "status") : NULL;
        if (!type || !status)
            return false; /* malformed: cannot tell */
        /* The first one counts, as in Kubernetes' GetNodeCondition. */
        if (!seen && strcmp(type, "Ready") == 0) {
            seen = true;
            ready = strcmp(status, "True") == 0;
        }
    }
    return ready;
}

int decode_node(struct decode_ctx *c, const struct doc_node *n,
                struct object *o)
{
    struct node_object *nd = &o->u.node;
    const struct doc_node *spec = NULL, *st = NULL;
    resource_list_init(&nd->capacity);
    resource_list_init(&nd->allocatable);
    nd->ready = true;

    int r = decode_field_map(c, n, "spec", &spec);
    if (r == 0 && spec) {
        size_t mark = decode_path_push(c, "spec");
        r = decode_field_bool(c, spec, "unschedulable", &nd->unschedulable);
        if (r == 0)
            r = decode_taints(c, spec, "taints", &nd->n_taints, &nd->taints);
        decode_path_pop(c, mark);
    }
    if (r == 0)
        r = decode_field_map(c, n, "status", &st);
    if (r == 0 && st) {
        size_t mark = decode_path_push(c, "status");
        r = decode_field_resources(c, st, "capacity", &nd->capacity);
        if (r == 0)
            r = decode_field_resources(c, st, "allocatable",
                                       &nd->allocatable);
        if (r == 0 && !doc_map_get(st, "allocatable"))
            r = resource_list_copy(&nd->allocatable, &nd->capacity);
        if (r == 0) {
            const struct doc_node *conds = doc_map_get(st, "conditions");
            nd->ready = node_ready(doc_is_null(conds) ? NULL : conds);
        }
        decode_path_pop(c, mark);
    }
    return r;
}

/* One container's requests, defaulted from its limits as the API server
 * does for pods. */
static int container_requests(struct decode_ctx *c,
                              const struct doc_node *ctr,
                              struct resource_list *ret)
{
    const struct doc_node *res = NULL;
    struct resource_list limits;
    resource_list_init(&limits);
    int r = decode_field_map(c, ctr, "resources", &res);
    if (r < 0 || !res)
        return r;
    size_t mark = decode_path_push(c, "resources");
    r = decode_field_resources(c, res, "requests", ret);
    if (r == 0)
        r = decode_field_resources(c, res, "limits", &limits);
    for (size_t i = 0; r == 0 && i < limits.n; i++)
        if (!resource_list_has(ret, limits.items[i].name))
            r = resource_list_set(ret, limits.items[i].name,
                                  limits.items[i].milli);
    decode_path_pop(c, mark);
    resource_list_release(&limits);
    return r;
}

/* Sums containers and folds init containers into spec->requests. */
static int pod_requests(struct decode_ctx *c, const struct doc_node *spec,
                        struct pod_spec *ps)
{
    const struct doc_node *ctrs = NULL, *inits = NULL;
    struct resource_list one, sidecars, init_max, step;
    resource_list_init(&one);
    resource_list_init(&sidecars);
    resource_list_init(&init_max);
    resource_list_init(&step);

    int r = decode_field_seq(c, spec, "containers", &ctrs);
    if (r == 0)
        r = decode_field_seq(c, spec, "initContainers", &inits);
    size_t mark = decode_path_push(c, "containers");
    for (size_t i = 0; r == 0 && ctrs && i < ctrs->n; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_want_map(c, ctrs->items[i]);
        if (r == 0)
            r = container_requests(c, ctrs->items[i], &one);
        if (r == 0)
            r = resource_list_add(&ps->requests, &one);
        resource_list_release(&one);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    ps->n_containers = ctrs ? ctrs->n : 0;

    mark = decode_path_push(c, "initContainers");
    for (size_t i = 0; r == 0 && inits && i < inits->n; i++) {
        const struct doc_node *ic = inits->items[i];
        const char *restart = NULL;
        size_t m2 = decode_path_push_index(c, i);
        r = decode_want_map(c, ic);
        if (r == 0)
            r = container_requests(c, ic, &one);
        if (r == 0)
            r = decode_field_string(c, ic, "restartPolicy", &restart);
        if (r == 0 && restart && strcmp(restart, "Always") == 0) {
            /* A sidecar runs beside everything after it. */
            r = resource_list_add(&ps->requests, &one);
            if (r == 0)
                r = resource_list_add(&sidecars, &one);
            if (r == 0)
                r = resource_list_copy(&step, &sidecars);
        } else if (r == 0) {
            r = resource_list_copy(&step, &one);
            if (r == 0)
                r = resource_list_add(&step, &sidecars);
        }
        if (r == 0)
            r = resource_list_max(&init_max, &step);
        resource_list_release(&one);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    ps->n_init_containers = inits ? inits->n : 0;
    if (r == 0)
        r = resource_list_max(&ps->requests, &init_max);

    /* Pod-level resources replace the container sum where given. */
    const struct doc_node *pod_res = NULL;
    if (r == 0)
        r = decode_field_map(c, spec, "resources", &pod_res);
    if (r == 0 && pod_res) {
        struct resource_list pod_limits;
        resource_list_init(&pod_limits);
        mark = decode_path_push(c, "resources");
        r = decode_field_resources(c, pod_res, "requests", &ps->requests);
        /* Not used, but checked like the containers' limits. */
        if (r == 0)
            r = decode_field_resources(c, pod_res, "limits", &pod_limits);
        decode_path_pop(c, mark);
        resource_list_release(&pod_limits);
    }
    if (r == 0 && doc_map_get(spec, "overhead")) {
        struct resource_list overhead;
        resource_list_init(&overhead);
        r = decode_field_resources(c, spec, "overhead", &overhead);
        if (r == 0)
            r = resource_list_add(&ps->requests, &overhead);
        resource_list_release(&overhead);
    }
    if (r == -ERANGE)
        r = decode_fail(c, spec, "pod resource requests overflow");
    resource_list_release(&one);
    resource_list_release(&sidecars);
    resource_list_release(&init_max);
    resource_list_release(&step);
    return r;
}

static int decode_affinity(struct decode_ctx *c, const struct doc_node *spec,
                           struct pod_spec *ps)
{
    const struct doc_node *aff = NULL, *na = NULL, *req = NULL;
    int r = decode_field_map(c, spec, "affinity", &aff);
    if (r < 0 || !aff)
        return r;
    size_t mark = decode_path_push(c, "affinity");
    r = decode_field_map(c, aff, "nodeAffinity", &na);
    if (r == 0 && na) {
        size_t m2 = decode_path_push(c, "nodeAffinity");
        r = decode_field_map(c, na,
                             "requiredDuringSchedulingIgnoredDuringExecution",
                             &req);
        if (r == 0 && req) {
            size_t m3 = decode_path_push(
                c, "requiredDuringSchedulingIgnoredDuringExecution");
            ps->required_affinity =
                arena_alloc(c->arena, sizeof(*ps->required_affinity));
            r = ps->required_affinity
                    ? decode_node_selector(c, req, ps->required_affinity)
                    : -ENOMEM;
            decode_path_pop(c, m3);
        }
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    return r;
}

static int decode_pod_spec(struct decode_ctx *c, const struct doc_node *spec,
                           struct pod_spec *ps)
{
    const struct doc_node *gates = NULL;
    ps->scheduler_name = "default-scheduler";
    int r = decode_field_string(c, spec, "schedulerName", &ps->scheduler_name);
    if (r == 0)
        r = decode_field_string(c, spec, "nodeName", &ps->node_name);
    if (r == 0 && ps->node_name && !*ps->node_name)
        ps->node_name = NULL;
    if (r == 0)
        r = decode_field_string(c, spec, "priorityClassName",
                                &ps->priority_class_name);
    if (r == 0)
        r = decode_field_int32(c, spec, "priority", &ps->has_priority,
                               &ps->priority);
    if (r == 0)
        r = decode_field_string(c, spec, "restartPolicy", &ps->restart_policy);
    if (r == 0)
        r = decode_field_labels(c, spec, "nodeSelector", &ps->node_selector);
    if (r == 0)
        r = decode_affinity(c, spec, ps);
    if (r == 0)
        r = decode_tolerations(c, spec, "tolerations", &ps->n_tolerations,
                               &ps->tolerations);
    if (r == 0)
        r = decode_field_seq(c, spec, "schedulingGates", &gates);
    if (r == 0)
        ps->n_scheduling_gates = gates ? gates->n : 0;
    if (r == 0)
        r = pod_requests(c, spec, ps);
    return r;
}

/* Decodes the "spec" member of n into ps, under path prefix "spec". */
static int decode_spec_member(struct decode_ctx *c, const struct doc_node *n,
                              struct pod_spec *ps)
{
    const struct doc_node *spec = NULL;
    resource_list_init(&ps->requests);
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    r = decode_pod_spec(c, spec, ps);
    decode_path_pop(c, mark);
    return r;
}

#define POD_GROUP_NAME        "kueue.x-k8s.io/pod-group-name"
#define POD_GROUP_TOTAL_COUNT "kueue.x-k8s.io/pod-group-total-count"

/* Go's strconv.Atoi: optional sign, decimal digits, int64 range. */
static bool parse_atoi(const char *s, int64_t *ret)
{
    bool neg = *s == '-';
    uint64_t v = 0;
    if (*s == '+' || *s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_C(1) << 63) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > (UINT64_C(1) << 63) - !neg)
            return false;
    }
    *ret = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Kueue's pod webhook: the pod-group-name label (or annotation) and the
 * pod-group-total-count annotation come together, the count an integer of
 * at least 1. */
static int check_pod_group(struct decode_ctx *c, const struct doc_node *n,
                           const struct object_meta *m)
{
    const struct doc_node *meta = doc_map_get(n, "metadata");
    const struct doc_node *annots = doc_map_get(meta, "annotations");
    const char *group = strmap_get(&m->annotations, POD_GROUP_NAME);
    const char *count = strmap_get(&m->annotations, POD_GROUP_TOTAL_COUNT);
    int64_t v = 0;
    if (!group || !*group)
        group = strmap_get(&m->labels, POD_GROUP_NAME);
    size_t mark = decode_path_push(c, "metadata");
    int r = 0;
    if (group && *group && !count)
        r = decode_fail_at(c, meta, "annotations." POD_GROUP_TOTAL_COUNT,
                           "required with " POD_GROUP_NAME);
    else if (count && (!group || !*group))
        r = decode_fail_at(c, doc_map_get(annots, POD_GROUP_TOTAL_COUNT),
                           "labels." POD_GROUP_NAME,
                           "required with " POD_GROUP_TOTAL_COUNT);
    else if (count && (!parse_atoi(count, &v) || v < 1))
        r = decode_fail_at(c, doc_map_get(annots, POD_GROUP_TOTAL_COUNT),
                           "annotations." POD_GROUP_TOTAL_COUNT,
                           "must be an integer of at least 1, got \"%.64s\"",
                           count);
    decode_path_pop(c, mark);
    return r;
}

int decode_pod(struct decode_ctx *c, const struct doc_node *n,
               struct object *o)
{
    static const char *const phases[] = {"Pending", "Running", "Succeeded",
                                         "Failed", NULL};
    const struct doc_node *st = NULL;
    int r = decode_spec_member(c, n, &o->u.pod.spec);
    if (r == 0)
        r = check_pod_group(c, n, &o->meta);
    if (r == 0)
        r = decode_field_map(c, n, "status", &st);
    if (r == 0 && st) {
        int phase = POD_PHASE_PENDING;
        size_t mark = decode_path_push(c, "status");
        r = decode_field_enum(c, st, "phase", phases, POD_PHASE_UNKNOWN,
                              &phase);
        o->u.pod.phase = (enum pod_phase)phase;
        decode_path_pop(c, mark);
    }
    return r;
}

int decode_pod_template(struct decode_ctx *c, const struct doc_node *n,
                        struct pod_template *ret)
{
    int r = decode_template_meta(c, n, &ret->meta);
    if (r == 0)
        r = decode_spec_member(c, n, &ret->spec);
    return r;
}

/* scheduling.k8s.io's validation: a user's class is at most 1e9; the
 * "system-" prefix is reserved for the two built-in classes, as they are. */
static int check_priority_class(struct decode_ctx *c, const struct doc_node *n,
                                const char *name,
                                const struct priority_class *pc)
{
    static const struct {
        const char *name;
        int32_t value;
    } system[] = {{"system-node-critical", 2000001000},
                  {"system-cluster-critical", 2000000000}};
    if (strncmp(name, "system-", 7) != 0) {
        if (pc->value > 1000000000)
            return decode_fail_at(c, doc_map_get(n, "value"), "value",
                                  "maximum allowed value of a user defined "
                                  "priority is 1000000000");
        return 0;
    }
    const struct doc_node *name_node =
        doc_map_get(doc_map_get(n, "metadata"), "name");
    for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++) {
        if (strcmp(system[i].name, name) != 0)
            continue;
        if (pc->value != system[i].value)
            return decode_fail_at(c, doc_map_get(n, "value"), "value",
                                  "value of %s PriorityClass must be %d", name,
                                  (int)system[i].value);
        if (pc->global_default)
            return decode_fail_at(c, doc_map_get(n, "globalDefault"),
                                  "globalDefault",
                                  "globalDefault of %s PriorityClass must be "
                                  "false",
                                  name);
        return 0;
    }
    return decode_fail_at(c, name_node, "metadata.name",
                          "priority class names with 'system-' prefix are "
                          "reserved for system use only");
}

int decode_priority_class(struct decode_ctx *c, const struct doc_node *n,
                          struct object *o)
{
    struct priority_class *pc = &o->u.priority_class;
    bool has_value = false;
    int r = decode_field_int32(c, n, "value", &has_value, &pc->value);
    if (r == 0 && !has_value)
        r = decode_fail_at(c, n, "value", "required");
    if (r == 0)
        r = decode_field_bool(c, n, "globalDefault", &pc->global_default);
    if (r == 0)
        r = check_priority_class(c, n, o->meta.name, pc);
    if (r == 0)
        r = decode_field_string(c, n, "preemptionPolicy",
                                &pc->preemption_policy);
    return r;
}
