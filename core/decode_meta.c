/* decode_meta.c - decoders for structures many kinds share: ObjectMeta
 * (its times read by decode_parse_time()), label and node selectors, taints
 * and tolerations. */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "decode.h"
#include "decode_kinds.h"
#include "kname.h"

static int decode_field_time(struct decode_ctx *c, const struct doc_node *m,
                             const char *key, bool *ret_present,
                             int64_t *ret_ns)
{
    const char *s = NULL;
    int r = decode_field_string(c, m, key, &s);
    if (r < 0 || !s)
        return r;
    if (decode_parse_time(s, ret_ns) < 0)
        return decode_fail_at(c, doc_map_get(m, key), key,
                              "invalid RFC 3339 time \"%s\"", s);
    *ret_present = true;
    return 0;
}

static int decode_owner_refs(struct decode_ctx *c, const struct doc_node *m,
                             struct object_meta *ret)
{
    const struct doc_node *seq = NULL;
    int r = decode_field_seq(c, m, "ownerReferences", &seq);
    if (r < 0 || !seq || seq->n == 0)
        return r;
    ret->owners = arena_calloc(c->arena, seq->n, sizeof(*ret->owners));
    if (!ret->owners)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "ownerReferences");
    for (size_t i = 0; i < seq->n && r == 0; i++) {
        const struct doc_node *it = seq->items[i];
        struct owner_ref *o = &ret->owners[i];
        size_t m2 = decode_path_push_index(c, i);
        r = decode_want_map(c, it);
        if (r == 0)
            r = decode_field_string(c, it, "apiVersion", &o->api_version);
        if (r == 0)
            r = decode_field_string(c, it, "kind", &o->kind);
        if (r == 0)
            r = decode_field_string(c, it, "name", &o->name);
        if (r == 0)
            r = decode_field_string(c, it, "uid", &o->uid);
        if (r == 0)
            r = decode_field_bool(c, it, "controller", &o->controller);
        if (r == 0 && (!o->kind || !o->name))
            r = decode_fail(c, it, "kind and name are required");
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0)
        ret->n_owners = seq->n;
    return r;
}

/* The API server's limit on the annotations of one object, keys and values
 * together (apimachinery's TotalAnnotationSizeLimitB). */
#define ANNOTATIONS_MAX_BYTES (256 * 1024)

static int check_annotations_size(struct decode_ctx *c,
                                  const struct doc_node *m,
                                  const struct strmap *a)
{
    size_t total = 0;
    for (size_t i = 0; i < a->n; i++)
        total += strlen(a->items[i].key) + strlen(a->items[i].value);
    if (total > ANNOTATIONS_MAX_BYTES)
        return decode_fail_at(c, m, "annotations",
                              "too long: %zu bytes, must have at most %d",
                              total, ANNOTATIONS_MAX_BYTES);
    return 0;
}

int decode_meta(struct decode_ctx *c, const struct doc_node *m,
                struct object_meta *ret)
{
    size_t mark = decode_path_push(c, "metadata");
    int r = decode_field_string(c, m, "name", &ret->name);
    if (r == 0 && (!ret->name || !*ret->name))
        r = decode_fail_at(c, m, "name", "required");
    if (r == 0)
        r = decode_field_string(c, m, "namespace", &ret->namespace_);
    if (r == 0 && ret->namespace_ && !*ret->namespace_)
        ret->namespace_ = NULL;
    /* Valid names name the object in the messages that follow (labels,
     * annotations), before decode_body() checks them properly. */
    bool ns_kind = c->kind && strcmp(c->kind, "Namespace") == 0;
    if (r == 0 && !c->meta &&
        !(ns_kind ? kname_check_dns_label(ret->name)
                  : kname_check_dns_subdomain(ret->name)) &&
        (!ret->namespace_ || !kname_check_dns_label(ret->namespace_)))
        c->meta = ret;
    if (r == 0)
        r = decode_field_string(c, m, "uid", &ret->uid);
    if (r == 0)
        r = decode_field_string(c, m, "resourceVersion",
                                &ret->resource_version);
    if (r == 0)
        r = decode_field_labels(c, m, "labels", &ret->labels);
    if (r == 0)
        r = decode_field_strmap(c, m, "annotations", &ret->annotations);
    if (r == 0)
        r = check_annotations_size(c, m, &ret->annotations);
    if (r == 0)
        r = decode_field_time(c, m, "creationTimestamp", &ret->has_creation,
                              &ret->creation_ns);
    if (r == 0)
        r = decode_field_time(c, m, "deletionTimestamp", &ret->deleting,
                              &ret->deletion_ns);
    if (r == 0)
        r = decode_owner_refs(c, m, ret);
    decode_path_pop(c, mark);
    return r;
}

int decode_template_meta(struct decode_ctx *c, const struct doc_node *tmpl,
                         struct object_meta *ret)
{
    const struct doc_node *meta = NULL;
    int r = decode_field_map(c, tmpl, "metadata", &meta);
    if (r < 0 || !meta)
        return r;
    size_t mark = decode_path_push(c, "metadata");
    r = decode_field_labels(c, meta, "labels", &ret->labels);
    if (r == 0)
        r = decode_field_strmap(c, meta, "annotations", &ret->annotations);
    if (r == 0)
        r = check_annotations_size(c, meta, &ret->annotations);
    decode_path_pop(c, mark);
    return r;
}

/* Decodes one requirement {key, operator, values}. Label selectors allow
 * In/NotIn/Exists/DoesNotExist, node selectors also Gt/Lt. */
/* Fields of the core/v1 structures Kueue's kinds hold, checked for those
 * kinds only (decode_check_known() looks at c->check_known). */
static const struct decode_known requirement_known[] = {
    {"key", NULL}, {"operator", NULL}, {"values", NULL}, {NULL, NULL}};
static const struct decode_known selector_known[] = {
    {"matchLabels", NULL}, {"matchExpressions", NULL}, {NULL, NULL}};
static const struct decode_known taint_known[] = {{"key", NULL},
                                                  {"value", NULL},
                                                  {"effect", NULL},
                                                  {"timeAdded", NULL},
                                                  {NULL, NULL}};
static const struct decode_known toleration_known[] = {
    {"key", NULL},    {"operator", NULL},          {"value", NULL},
    {"effect", NULL}, {"tolerationSeconds", NULL}, {NULL, NULL}};

static int decode_requirement(struct decode_ctx *c, const struct doc_node *it,
                              bool allow_gt_lt,
                              struct selector_requirement *ret)
{
    const char *op = NULL;
    int r = decode_want_map(c, it);
    if (r == 0) /* counted in c: go on past unknown fields */
        (void)decode_check_known(c, it, requirement_known);
    if (r == 0)
        r = decode_field_string(c, it, "key", &ret->key);
    if (r == 0 && !ret->key)
        r = decode_fail_at(c, it, "key", "required");
    if (r == 0)
        r = decode_field_string(c, it, "operator", &op);
    if (r == 0 && !op)
        r = decode_fail_at(c, it, "operator", "required");
    if (r == 0)
        r = decode_field_strings(c, it, "values", &ret->n_values, &ret->values);
    if (r < 0)
        return r;
    ret->op = selector_op_from_string(op);
    bool bad = ret->op == SELECTOR_OP_UNKNOWN ||
               (!allow_gt_lt &&
                (ret->op == SELECTOR_OP_GT || ret->op == SELECTOR_OP_LT));
    if (bad && c->strict)
        return decode_fail_at(c, doc_map_get(it, "operator"), "operator",
                              "unsupported operator \"%s\"", op);
    if (bad)
        ret->op = SELECTOR_OP_UNKNOWN;
    if (!c->strict)
        return 0;
    /* Kubernetes validation of the value count. */
    switch (ret->op) {
    case SELECTOR_OP_IN:
    case SELECTOR_OP_NOT_IN:
        if (ret->n_values == 0)
            return decode_fail_at(c, it, "values",
                                  "must be non-empty for operator %s", op);
        break;
    case SELECTOR_OP_EXISTS:
    case SELECTOR_OP_DOES_NOT_EXIST:
        if (ret->n_values != 0)
            return decode_fail_at(c, it, "values",
                                  "must be empty for operator %s", op);
        break;
    case SELECTOR_OP_GT:
    case SELECTOR_OP_LT:
        if (ret->n_values != 1)
            return decode_fail_at(c, it, "values",
                                  "must have one value for operator %s", op);
        break;
    default:
        break;
    }
    return 0;
}

static int decode_requirements(struct decode_ctx *c,
                               const struct doc_node *parent, const char *key,
                               bool allow_gt_lt, size_t *ret_n,
                               struct selector_requirement **ret)
{
    const struct doc_node *seq = NULL;
    int r = decode_field_seq(c, parent, key, &seq);
    if (r < 0 || !seq || seq->n == 0)
        return r;
    struct selector_requirement *reqs =
        arena_calloc(c->arena, seq->n, sizeof(*reqs));
    if (!reqs)
        return -ENOMEM;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < seq->n && r == 0; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_requirement(c, seq->items[i], allow_gt_lt, &reqs[i]);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = seq->n;
        *ret = reqs;
    }
    return r;
}

int decode_label_selector(struct decode_ctx *c, const struct doc_node *n,
                          struct label_selector *ret)
{
    int r = decode_check_known(c, n, selector_known);
    r = decode_join(
        r, decode_field_labels(c, n, "matchLabels", &ret->match_labels));
    return decode_join(r, decode_requirements(c, n, "matchExpressions", false,
                                              &ret->n_exprs, &ret->exprs));
}

int decode_selector(const struct doc_node *n, const char *file,
                    const char *path, struct arena *a,
                    struct label_selector *ret, struct err *e)
{
    struct decode_ctx c = {.arena = a,
                           .file = file ? file : "<input>",
                           .strict = true,
                           .check_known = true,
                           .warn_is_error = true, /* as config fields */
                           .err = e};
    *ret = (struct label_selector){0};
    size_t mark = decode_path_push(&c, path ? path : "selector");
    int r = decode_want_map(&c, n);
    if (r == 0)
        r = decode_label_selector(&c, n, ret);
    decode_path_pop(&c, mark);
    if (r == -ENOMEM)
        err_set(e, ENOMEM, "%s: out of memory", c.file);
    return r;
}

int decode_node_selector(struct decode_ctx *c, const struct doc_node *n,
                         struct node_selector *ret)
{
    const struct doc_node *terms = NULL;
    int r = decode_field_seq(c, n, "nodeSelectorTerms", &terms);
    if (r < 0 || !terms || terms->n == 0)
        return r;
    ret->terms = arena_calloc(c->arena, terms->n, sizeof(*ret->terms));
    if (!ret->terms)
        return -ENOMEM;
    size_t mark = decode_path_push(c, "nodeSelectorTerms");
    for (size_t i = 0; i < terms->n && r == 0; i++) {
        const struct doc_node *t = terms->items[i];
        struct node_selector_term *out = &ret->terms[i];
        size_t m2 = decode_path_push_index(c, i);
        r = decode_want_map(c, t);
        if (r == 0)
            r = decode_requirements(c, t, "matchExpressions", true,
                                    &out->n_exprs, &out->match_expressions);
        if (r == 0)
            r = decode_requirements(c, t, "matchFields", true, &out->n_fields,
                                    &out->match_fields);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0)
        ret->n_terms = terms->n;
    return r;
}

int decode_taints(struct decode_ctx *c, const struct doc_node *parent,
                  const char *key, size_t *ret_n, struct taint **ret)
{
    const struct doc_node *seq = NULL;
    int r = decode_field_seq(c, parent, key, &seq);
    if (r < 0 || !seq || seq->n == 0)
        return r;
    struct taint *taints = arena_calloc(c->arena, seq->n, sizeof(*taints));
    if (!taints)
        return -ENOMEM;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < seq->n && r == 0; i++) {
        const struct doc_node *it = seq->items[i];
        struct taint *t = &taints[i];
        const char *effect = NULL;
        size_t m2 = decode_path_push_index(c, i);
        t->value = "";
        r = decode_want_map(c, it);
        if (r == 0) /* counted in c: go on past unknown fields */
            (void)decode_check_known(c, it, taint_known);
        if (r == 0)
            r = decode_field_string(c, it, "key", &t->key);
        if (r == 0 && (!t->key || !*t->key))
            r = decode_fail_at(c, it, "key", "required");
        if (r == 0)
            r = decode_field_string(c, it, "value", &t->value);
        if (r == 0)
            r = decode_field_string(c, it, "effect", &effect);
        if (r == 0) {
            t->effect = taint_effect_from_string(effect ? effect : "");
            if (c->strict && (t->effect == TAINT_EFFECT_UNKNOWN ||
                              t->effect == TAINT_EFFECT_NONE))
                r = decode_fail_at(c, it, "effect",
                                   "unsupported value \"%s\" (one of: "
                                   "NoSchedule, PreferNoSchedule, NoExecute)",
                                   effect ? effect : "");
        }
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = seq->n;
        *ret = taints;
    }
    return r;
}

static int decode_toleration(struct decode_ctx *c, const struct doc_node *it,
                             struct toleration *t)
{
    const char *op = NULL, *effect = NULL;
    t->key = "";
    t->value = "";
    int r = decode_want_map(c, it);
    if (r == 0) /* counted in c: go on past unknown fields */
        (void)decode_check_known(c, it, toleration_known);
    if (r == 0)
        r = decode_field_string(c, it, "key", &t->key);
    if (r == 0)
        r = decode_field_string(c, it, "operator", &op);
    if (r == 0)
        r = decode_field_string(c, it, "value", &t->value);
    if (r == 0)
        r = decode_field_string(c, it, "effect", &effect);
    if (r == 0)
        r = decode_field_int64(c, it, "tolerationSeconds", &t->has_seconds,
                               &t->toleration_seconds);
    if (r < 0)
        return r;
    t->op = toleration_op_from_string(op ? op : "");
    t->effect = taint_effect_from_string(effect ? effect : "");
    if (!c->strict)
        return 0;
    /* Validation as for Kueue's ResourceFlavor (core/v1 rules). */
    if (t->op == TOLERATION_OP_UNKNOWN)
        return decode_fail_at(c, it, "operator",
                              "unsupported value \"%s\" (one of: Equal, "
                              "Exists)",
                              op);
    if (t->effect == TAINT_EFFECT_UNKNOWN)
        return decode_fail_at(c, it, "effect",
                              "unsupported value \"%s\" (one of: "
                              "NoSchedule, PreferNoSchedule, NoExecute)",
                              effect);
    if (!*t->key && t->op != TOLERATION_OP_EXISTS)
        return decode_fail_at(c, it, "operator",
                              "must be Exists when key is empty");
    if (t->op == TOLERATION_OP_EXISTS && *t->value)
        return decode_fail_at(c, it, "value",
                              "must be empty when operator is Exists");
    if (t->has_seconds && t->effect != TAINT_EFFECT_NO_EXECUTE)
        return decode_fail_at(c, it, "tolerationSeconds",
                              "only allowed with effect NoExecute");
    return 0;
}

int decode_tolerations(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, size_t *ret_n, struct toleration **ret)
{
    const struct doc_node *seq = NULL;
    int r = decode_field_seq(c, parent, key, &seq);
    if (r < 0 || !seq || seq->n == 0)
        return r;
    struct toleration *tols = arena_calloc(c->arena, seq->n, sizeof(*tols));
    if (!tols)
        return -ENOMEM;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; i < seq->n && r == 0; i++) {
        size_t m2 = decode_path_push_index(c, i);
        r = decode_toleration(c, seq->items[i], &tols[i]);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    if (r == 0) {
        *ret_n = seq->n;
        *ret = tols;
    }
    return r;
}
