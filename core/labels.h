/* labels.h - Kubernetes label selectors, node selectors, taints and
 * tolerations, with the matching rules of k8s.io/apimachinery labels and
 * k8s.io/component-helpers scheduling/corev1.
 *
 * Operators and effects are decoded leniently: a value Ordo does not know is
 * kept as *_UNKNOWN (real objects from newer servers may carry one) and never
 * matches, exactly as the Kubernetes helpers treat it.
 *
 * Like Kubernetes (labels.NewRequirement), the matchers check each
 * requirement before matching: the key must be a qualified name
 * ("[prefix/]name"), every value a valid label value (at most 63 characters,
 * alphanumeric at both ends, so "-1" is not one), In/NotIn need at least one
 * value, Exists/DoesNotExist none, Gt/Lt exactly one integer. A malformed
 * requirement makes its whole selector (or node selector term) match
 * nothing. */
#ifndef ORDO_LABELS_H
#define ORDO_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

enum selector_op {
    SELECTOR_OP_IN = 0,
    SELECTOR_OP_NOT_IN,
    SELECTOR_OP_EXISTS,
    SELECTOR_OP_DOES_NOT_EXIST,
    SELECTOR_OP_GT, /* node selector requirements only */
    SELECTOR_OP_LT, /* node selector requirements only */
    SELECTOR_OP_UNKNOWN,
    SELECTOR_OP_MAX
};

/* "In" -> SELECTOR_OP_IN ... (case-sensitive); anything else, "" and NULL ->
 * SELECTOR_OP_UNKNOWN. to_string gives the Kubernetes spelling, "Unknown" for
 * SELECTOR_OP_UNKNOWN and out-of-range values. */
enum selector_op selector_op_from_string(const char *s);
const char *selector_op_to_string(enum selector_op op);

struct selector_requirement {
    const char *key;
    enum selector_op op;
    size_t n_values;
    const char **values;
};

/* metav1.LabelSelector. An empty selector (no labels, no expressions)
 * matches everything; callers represent a nil selector with a NULL pointer,
 * which label_selector_matches() treats as matching nothing. matchLabels
 * entries are equality requirements; expressions may use In, NotIn, Exists
 * and DoesNotExist only (Gt/Lt make the selector match nothing, as
 * metav1.LabelSelectorAsSelector rejects them). NotIn matches an absent key.
 * A NULL labels map is an empty one. */
struct label_selector {
    struct strmap match_labels;
    size_t n_exprs;
    struct selector_requirement *exprs;
};

bool label_selector_matches(const struct label_selector *sel,
                            const struct strmap *labels);

/* A node selector term: all its requirements must hold. matchFields supports
 * only metadata.name, as the API server does, with In or NotIn and exactly
 * one value (compared with node_name); anything else makes the term match
 * nothing. As in Kubernetes, matchFields are skipped when node_name is NULL or
 * "" (a node without a name has no fields). A term with no requirements
 * matches nothing. Gt/Lt parse the node's label value and the requirement's
 * one value as base-10 int64 (strconv.ParseInt); a label that does not parse
 * does not match. */
struct node_selector_term {
    size_t n_exprs;
    struct selector_requirement *match_expressions;
    size_t n_fields;
    struct selector_requirement *match_fields;
};

/* v1.NodeSelector: the terms are ORed. No terms matches nothing. */
struct node_selector {
    size_t n_terms;
    struct node_selector_term *terms;
};

/* One matchExpressions requirement (all operators), checked as above. */
bool node_selector_requirement_matches(const struct selector_requirement *r,
                                       const struct strmap *labels);
bool node_selector_term_matches(const struct node_selector_term *t,
                                const struct strmap *node_labels,
                                const char *node_name);
bool node_selector_matches(const struct node_selector *s,
                           const struct strmap *node_labels,
                           const char *node_name);

/* A pod's node constraints: spec.nodeSelector (all must equal; NULL or empty
 * means no constraint) and
 * spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
 * (NULL when absent; present with no terms matches no node). */
bool node_matches_pod(const struct strmap *node_selector,
                      const struct node_selector *required_affinity,
                      const struct strmap *node_labels, const char *node_name);

enum taint_effect {
    TAINT_EFFECT_NO_SCHEDULE = 0,
    TAINT_EFFECT_PREFER_NO_SCHEDULE,
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NONE, /* empty: in a toleration, matches every effect */
    TAINT_EFFECT_UNKNOWN,
    TAINT_EFFECT_MAX
};

/* "" and NULL -> NONE; unknown -> UNKNOWN. to_string(NONE) is "", UNKNOWN and
 * out-of-range values give "Unknown". */
enum taint_effect taint_effect_from_string(const char *s);
const char *taint_effect_to_string(enum taint_effect e);

struct taint {
    const char *key;
    const char *value; /* "" when absent */
    enum taint_effect effect;
};

enum toleration_op {
    TOLERATION_OP_EQUAL = 0, /* also the default when operator is empty */
    TOLERATION_OP_EXISTS,
    TOLERATION_OP_UNKNOWN,
    TOLERATION_OP_MAX
};

/* "" and NULL -> EQUAL; unknown (including the newer "Gt"/"Lt") -> UNKNOWN.
 * to_string gives "Equal", "Exists" or "Unknown". */
enum toleration_op toleration_op_from_string(const char *s);
const char *toleration_op_to_string(enum toleration_op op);

struct toleration {
    const char *key;   /* "" = every key (with operator Exists) */
    enum toleration_op op;
    const char *value; /* "" when absent */
    enum taint_effect effect; /* TAINT_EFFECT_NONE = every effect */
    bool has_seconds;
    int64_t toleration_seconds;
};

/* v1.Toleration.ToleratesTaint: the effect must equal unless it is NONE;
 * the key must equal unless it is "" (or NULL); then Exists tolerates and
 * Equal compares the values (NULL = ""). Note that Kubernetes skips only the
 * key check for an empty key, so Equal with key "" still compares values.
 * Unknown operators and toleration effects never tolerate. */
bool toleration_tolerates(const struct toleration *t, const struct taint *taint);

/* Checks every taint whose effect is NoSchedule or NoExecute (the ones that
 * keep a pod off a node; PreferNoSchedule only scores). Returns NULL when all
 * are tolerated, else the first taint that is not (owned by the caller's
 * array). */
const struct taint *taints_find_untolerated(const struct taint *taints,
                                            size_t n_taints,
                                            const struct toleration *tols,
                                            size_t n_tols);

#endif
