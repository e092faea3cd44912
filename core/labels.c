/* labels.c - label selectors, node selectors, taints and tolerations with
 * the matching rules of Kubernetes (see labels.h).
 *
 * Kubernetes first converts an API selector into labels.Requirement values
 * with labels.NewRequirement(), which rejects malformed requirements, and
 * only then matches. A selector that fails that conversion selects nothing,
 * so every matcher here checks a requirement the way NewRequirement does
 * (requirement_valid()) before applying Requirement.Matches. */
#include "labels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kname.h"

/* The only node field a matchFields requirement may name. */
#define NODE_FIELD_NAME "metadata.name"

static const char *const selector_op_names[SELECTOR_OP_MAX] = {
    [SELECTOR_OP_IN] = "In",
    [SELECTOR_OP_NOT_IN] = "NotIn",
    [SELECTOR_OP_EXISTS] = "Exists",
    [SELECTOR_OP_DOES_NOT_EXIST] = "DoesNotExist",
    [SELECTOR_OP_GT] = "Gt",
    [SELECTOR_OP_LT] = "Lt",
    [SELECTOR_OP_UNKNOWN] = "Unknown",
};

static const char *const taint_effect_names[TAINT_EFFECT_MAX] = {
    [TAINT_EFFECT_NO_SCHEDULE] = "NoSchedule",
    [TAINT_EFFECT_PREFER_NO_SCHEDULE] = "PreferNoSchedule",
    [TAINT_EFFECT_NO_EXECUTE] = "NoExecute",
    [TAINT_EFFECT_NONE] = "",
    [TAINT_EFFECT_UNKNOWN] = "Unknown",
};

static const char *const toleration_op_names[TOLERATION_OP_MAX] = {
    [TOLERATION_OP_EQUAL] = "Equal",
    [TOLERATION_OP_EXISTS] = "Exists",
    [TOLERATION_OP_UNKNOWN] = "Unknown",
};

/* The index of s among names[0..n), or n. */
static int name_index(const char *const *names, int n, const char *s)
{
    int i = 0;
    while (i < n && strcmp(s, names[i]) != 0)
        i++;
    return i;
}

/* names[v], or names[unknown] when v is out of range. */
static const char *name_at(const char *const *names, unsigned max, unsigned v,
                           unsigned unknown)
{
    return names[v < max ? v : unknown];
}

enum selector_op selector_op_from_string(const char *s)
{
    if (!s)
        return SELECTOR_OP_UNKNOWN;
    return (enum selector_op)name_index(selector_op_names, SELECTOR_OP_UNKNOWN,
                                        s);
}

const char *selector_op_to_string(enum selector_op op)
{
    return name_at(selector_op_names, SELECTOR_OP_MAX, (unsigned)op,
                   SELECTOR_OP_UNKNOWN);
}

enum taint_effect taint_effect_from_string(const char *s)
{
    if (!s || !*s)
        return TAINT_EFFECT_NONE;
    int e = name_index(taint_effect_names, TAINT_EFFECT_NONE, s);
    return e == TAINT_EFFECT_NONE ? TAINT_EFFECT_UNKNOWN
                                  : (enum taint_effect)e;
}

const char *taint_effect_to_string(enum taint_effect e)
{
    return name_at(taint_effect_names, TAINT_EFFECT_MAX, (unsigned)e,
                   TAINT_EFFECT_UNKNOWN);
}

enum toleration_op toleration_op_from_string(const char *s)
{
    if (!s || !*s)
        return TOLERATION_OP_EQUAL;
    return (enum toleration_op)name_index(toleration_op_names,
                                          TOLERATION_OP_UNKNOWN, s);
}

const char *toleration_op_to_string(enum toleration_op op)
{
    return name_at(toleration_op_names, TOLERATION_OP_MAX, (unsigned)op,
                   TOLERATION_OP_UNKNOWN);
}

/* --- Syntax checks of k8s.io/apimachinery/pkg/util/validation --- */

static bool is_label_key(const char *key)
{
    return key && !kname_check_label_key(key);
}

static bool is_label_value(const char *v)
{
    return v && !kname_check_label_value(v);
}

/* strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits only
 * (no blanks, no base prefix), within the int64 range. */
static bool parse_int64(const char *s, int64_t *ret)
{
    if (!s || !((*s >= '0' && *s <= '9') || *s == '+' || *s == '-'))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return false;
    *ret = (int64_t)v;
    return true;
}

/* --- Requirements --- */

/* labels.NewRequirement(): a valid key and values, a known operator, and
 * the value count the operator needs. Gt and Lt are only allowed when
 * allow_gt_lt (node selectors; metav1.LabelSelector rejects them). */
static bool requirement_valid(const struct selector_requirement *r,
                              bool allow_gt_lt)
{
    if (!r || !is_label_key(r->key))
        return false;
    if (r->n_values && !r->values)
        return false;
    for (size_t i = 0; i < r->n_values; i++)
        if (!is_label_value(r->values[i]))
            return false;

    int64_t v;
    switch (r->op) {
    case SELECTOR_OP_IN:
    case SELECTOR_OP_NOT_IN:
        return r->n_values > 0;
    case SELECTOR_OP_EXISTS:
    case SELECTOR_OP_DOES_NOT_EXIST:
        return r->n_values == 0;
    case SELECTOR_OP_GT:
    case SELECTOR_OP_LT:
        return allow_gt_lt && r->n_values == 1 && parse_int64(r->values[0], &v);
    default:
        return false;
    }
}

static bool requirement_has_value(const struct selector_requirement *r,
                                  const char *value)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (strcmp(r->values[i], value) == 0)
            return true;
    return false;
}

/* labels.Requirement.Matches() for a requirement already validated. */
static bool requirement_matches(const struct selector_requirement *r,
                                const struct strmap *labels)
{
    const char *value = strmap_get(labels, r->key);
    int64_t have, want;

    switch (r->op) {
    case SELECTOR_OP_IN:
        return value && requirement_has_value(r, value);
    case SELECTOR_OP_NOT_IN:
        return !value || !requirement_has_value(r, value);
    case SELECTOR_OP_EXISTS:
        return value != NULL;
    case SELECTOR_OP_DOES_NOT_EXIST:
        return value == NULL;
    case SELECTOR_OP_GT:
    case SELECTOR_OP_LT:
        if (!value || !parse_int64(value, &have))
            return false;
        if (r->n_values != 1 || !parse_int64(r->values[0], &want))
            return false;
        return r->op == SELECTOR_OP_GT ? have > want : have < want;
    default:
        return false;
    }
}

bool label_selector_matches(const struct label_selector *sel,
                            const struct strmap *labels)
{
    if (!sel)
        return false;
    /* matchLabels become Equals requirements, validated the same way. */
    for (size_t i = 0; i < sel->match_labels.n; i++) {
        const struct strmap_entry *e = &sel->match_labels.items[i];
        if (!is_label_key(e->key) || !is_label_value(e->value))
            return false;
    }
    for (size_t i = 0; i < sel->n_exprs; i++)
        if (!requirement_valid(&sel->exprs[i], false))
            return false;

    for (size_t i = 0; i < sel->match_labels.n; i++) {
        const struct strmap_entry *e = &sel->match_labels.items[i];
        const char *value = strmap_get(labels, e->key);
        if (!value || strcmp(value, e->value) != 0)
            return false;
    }
    for (size_t i = 0; i < sel->n_exprs; i++)
        if (!requirement_matches(&sel->exprs[i], labels))
            return false;
    return true;
}

bool node_selector_requirement_matches(const struct selector_requirement *r,
                                       const struct strmap *labels)
{
    return requirement_valid(r, true) && requirement_matches(r, labels);
}

/* nodeSelectorRequirementsAsFieldSelector(): In or NotIn with exactly one
 * value, on the one field the API server accepts. */
static bool field_requirement_valid(const struct selector_requirement *r)
{
    if (!r->key || strcmp(r->key, NODE_FIELD_NAME) != 0)
        return false;
    if (r->op != SELECTOR_OP_IN && r->op != SELECTOR_OP_NOT_IN)
        return false;
    return r->n_values == 1 && r->values && r->values[0];
}

static bool field_requirement_matches(const struct selector_requirement *r,
                                      const char *node_name)
{
    bool equal = strcmp(node_name, r->values[0]) == 0;
    return r->op == SELECTOR_OP_IN ? equal : !equal;
}

bool node_selector_term_matches(const struct node_selector_term *t,
                                const struct strmap *node_labels,
                                const char *node_name)
{
    if (!t || (t->n_exprs == 0 && t->n_fields == 0))
        return false;
    /* A term that does not parse matches nothing (LazyErrorNodeSelector). */
    for (size_t i = 0; i < t->n_exprs; i++)
        if (!requirement_valid(&t->match_expressions[i], true))
            return false;
    for (size_t i = 0; i < t->n_fields; i++)
        if (!field_requirement_valid(&t->match_fields[i]))
            return false;

    for (size_t i = 0; i < t->n_exprs; i++)
        if (!requirement_matches(&t->match_expressions[i], node_labels))
            return false;
    /* Kubernetes only applies matchFields when the node has a name. */
    if (node_name && *node_name) {
        for (size_t i = 0; i < t->n_fields; i++)
            if (!field_requirement_matches(&t->match_fields[i], node_name))
                return false;
    }
    return true;
}

bool node_selector_matches(const struct node_selector *s,
                           const struct strmap *node_labels,
                           const char *node_name)
{
    if (!s)
        return false;
    for (size_t i = 0; i < s->n_terms; i++)
        if (node_selector_term_matches(&s->terms[i], node_labels, node_name))
            return true;
    return false;
}

bool node_matches_pod(const struct strmap *node_selector,
                      const struct node_selector *required_affinity,
                      const struct strmap *node_labels, const char *node_name)
{
    /* spec.nodeSelector goes through SelectorFromSet(), which does not
     * validate: plain equality on every entry. */
    for (size_t i = 0; node_selector && i < node_selector->n; i++) {
        const struct strmap_entry *e = &node_selector->items[i];
        const char *value = strmap_get(node_labels, e->key);
        if (!value || strcmp(value, e->value) != 0)
            return false;
    }
    if (required_affinity)
        return node_selector_matches(required_affinity, node_labels, node_name);
    return true;
}

/* --- Taints and tolerations --- */

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

bool toleration_tolerates(const struct toleration *t, const struct taint *taint)
{
    if (!t || !taint)
        return false;
    if (t->effect != TAINT_EFFECT_NONE) {
        /* An effect Ordo cannot name never equals anything. */
        if ((unsigned)t->effect >= TAINT_EFFECT_NONE ||
            t->effect != taint->effect)
            return false;
    }
    if (t->key && *t->key && !str_eq(t->key, taint->key))
        return false;
    switch (t->op) {
    case TOLERATION_OP_EQUAL:
        return str_eq(t->value, taint->value);
    case TOLERATION_OP_EXISTS:
        return true;
    default:
        return false;
    }
}

const struct taint *taints_find_untolerated(const struct taint *taints,
                                            size_t n_taints,
                                            const struct toleration *tols,
                                            size_t n_tols)
{
    for (size_t i = 0; i < n_taints; i++) {
        const struct taint *taint = &taints[i];
        if (taint->effect != TAINT_EFFECT_NO_SCHEDULE &&
            taint->effect != TAINT_EFFECT_NO_EXECUTE)
            continue;
        bool tolerated = false;
        for (size_t j = 0; j < n_tols && !tolerated; j++)
            tolerated = toleration_tolerates(&tols[j], taint);
        if (!tolerated)
            return taint;
    }
    return NULL;
}
