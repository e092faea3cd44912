/* test_labels.c - unit tests for core/labels.c: label selectors, node
 * selectors (Gt/Lt, matchFields), taints and tolerations, checked against
 * the behaviour of k8s.io/apimachinery labels and component-helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arena.h"
#include "labels.h"
#include "strmap.h"

/* Values list of a requirement: V("a", "b") sets n_values and values. */
#define V(...)                                                                 \
    .n_values = sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *),  \
    .values = (const char *[])                                                 \
    {                                                                          \
        __VA_ARGS__                                                            \
    }
#define R(k, o, ...)                                                           \
    {                                                                          \
        .key = k, .op = o, V(__VA_ARGS__)                                      \
    }
#define R0(k, o)                                                               \
    {                                                                          \
        .key = k, .op = o, .n_values = 0, .values = NULL                       \
    }

#define IN        SELECTOR_OP_IN
#define NOT_IN    SELECTOR_OP_NOT_IN
#define EXISTS    SELECTOR_OP_EXISTS
#define NOT_EXIST SELECTOR_OP_DOES_NOT_EXIST
#define GT        SELECTOR_OP_GT
#define LT        SELECTOR_OP_LT

#define S10 "aaaaaaaaaa"
#define S63 S10 S10 S10 S10 S10 S10 "aaa"
#define S64 S63 "a"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct arena *arena;

static int setup(void **state)
{
    (void)state;
    arena = arena_new();
    return arena ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    arena_free(arena);
    arena = NULL;
    return 0;
}

/* Builds a map from a NULL-terminated list of key, value pairs. */
static struct strmap map_of(const char *const *kv)
{
    struct strmap m = {0};
    for (size_t i = 0; kv && kv[i]; i += 2)
        assert_int_equal(strmap_set(&m, arena, kv[i], kv[i + 1]), 0);
    return m;
}

/* --- String conversions --- */

static void test_op_strings(void **state)
{
    (void)state;
    static const char *const sel[] = {"In",           "NotIn", "Exists",
                                      "DoesNotExist", "Gt",    "Lt"};
    for (int op = 0; op < (int)ARRAY_LEN(sel); op++) {
        assert_int_equal(selector_op_from_string(sel[op]), op);
        assert_string_equal(selector_op_to_string((enum selector_op)op),
                            sel[op]);
    }
    assert_int_equal(selector_op_from_string("in"), SELECTOR_OP_UNKNOWN);
    assert_int_equal(selector_op_from_string("Equals"), SELECTOR_OP_UNKNOWN);
    assert_int_equal(selector_op_from_string(""), SELECTOR_OP_UNKNOWN);
    assert_int_equal(selector_op_from_string(NULL), SELECTOR_OP_UNKNOWN);
    assert_string_equal(selector_op_to_string(SELECTOR_OP_UNKNOWN), "Unknown");
    assert_string_equal(selector_op_to_string((enum selector_op)99), "Unknown");

    static const char *const eff[] = {"NoSchedule", "PreferNoSchedule",
                                      "NoExecute"};
    for (int e = 0; e < (int)ARRAY_LEN(eff); e++) {
        assert_int_equal(taint_effect_from_string(eff[e]), e);
        assert_string_equal(taint_effect_to_string((enum taint_effect)e),
                            eff[e]);
    }
    assert_int_equal(taint_effect_from_string(""), TAINT_EFFECT_NONE);
    assert_int_equal(taint_effect_from_string(NULL), TAINT_EFFECT_NONE);
    assert_int_equal(taint_effect_from_string("noschedule"),
                     TAINT_EFFECT_UNKNOWN);
    assert_int_equal(taint_effect_from_string("NoExecuteX"),
                     TAINT_EFFECT_UNKNOWN);
    assert_string_equal(taint_effect_to_string(TAINT_EFFECT_NONE), "");
    assert_string_equal(taint_effect_to_string(TAINT_EFFECT_UNKNOWN),
                        "Unknown");
    assert_string_equal(taint_effect_to_string((enum taint_effect) - 1),
                        "Unknown");

    assert_int_equal(toleration_op_from_string("Equal"), TOLERATION_OP_EQUAL);
    assert_int_equal(toleration_op_from_string("Exists"), TOLERATION_OP_EXISTS);
    assert_int_equal(toleration_op_from_string(""), TOLERATION_OP_EQUAL);
    assert_int_equal(toleration_op_from_string(NULL), TOLERATION_OP_EQUAL);
    assert_int_equal(toleration_op_from_string("exists"),
                     TOLERATION_OP_UNKNOWN);
    assert_int_equal(toleration_op_from_string("Gt"), TOLERATION_OP_UNKNOWN);
    assert_string_equal(toleration_op_to_string(TOLERATION_OP_EQUAL), "Equal");
    assert_string_equal(toleration_op_to_string(TOLERATION_OP_EXISTS),
                        "Exists");
    assert_string_equal(toleration_op_to_string(TOLERATION_OP_UNKNOWN),
                        "Unknown");
    assert_string_equal(toleration_op_to_string(TOLERATION_OP_MAX), "Unknown");
}

/* --- Node selector requirements against one node's labels --- */

/* clang-format off */
static const char *const node_kv[] = {
    "zone", "us-east-1a",
    "gpu-count", "4",
    "big", "9223372036854775807",
    "huge", "99999999999999999999",
    "neg", "-3",
    "plus", "+7",
    "space", " 5",
    "hex", "0x10",
    "word", "abc",
    "empty", "",
    "kubernetes.io/hostname", "node-1",
    NULL,
};
/* clang-format on */

struct req_case {
    const char *name;
    struct selector_requirement req;
    bool want;
};

static const struct req_case req_cases[] = {
    /* In / NotIn */
    {"In single", R("zone", IN, "us-east-1a"), true},
    {"In several", R("zone", IN, "us-west-2", "us-east-1a"), true},
    {"In other value", R("zone", IN, "us-west-2"), false},
    {"In absent key", R("rack", IN, "r1"), false},
    {"In empty value", R("empty", IN, ""), true},
    {"In no values (invalid)", R0("zone", IN), false},
    {"In prefixed key", R("kubernetes.io/hostname", IN, "node-1"), true},
    {"NotIn other value", R("zone", NOT_IN, "us-west-2"), true},
    {"NotIn same value", R("zone", NOT_IN, "x", "us-east-1a"), false},
    {"NotIn absent key", R("rack", NOT_IN, "r1"), true},
    {"NotIn no values (invalid)", R0("rack", NOT_IN), false},
    {"NotIn value not a label value", R("zone", NOT_IN, "-bad"), false},
    {"NotIn 63-char value", R("zone", NOT_IN, S63), true},
    {"In 64-char value (invalid)", R("zone", IN, S64, "us-east-1a"), false},
    /* Exists / DoesNotExist */
    {"Exists", R0("zone", EXISTS), true},
    {"Exists empty label", R0("empty", EXISTS), true},
    {"Exists absent", R0("rack", EXISTS), false},
    {"Exists with values (invalid)", R("zone", EXISTS, "us-east-1a"), false},
    {"DoesNotExist absent", R0("rack", NOT_EXIST), true},
    {"DoesNotExist present", R0("zone", NOT_EXIST), false},
    {"DoesNotExist with values (invalid)", R("rack", NOT_EXIST, "x"), false},
    /* Gt / Lt */
    {"Gt smaller", R("gpu-count", GT, "3"), true},
    {"Gt equal", R("gpu-count", GT, "4"), false},
    {"Gt larger", R("gpu-count", GT, "10"), false},
    {"Lt larger", R("gpu-count", LT, "5"), true},
    {"Lt equal", R("gpu-count", LT, "4"), false},
    {"Lt leading zeros", R("gpu-count", LT, "007"), true},
    {"Gt zero", R("gpu-count", GT, "0"), true},
    {"Lt negative label", R("neg", LT, "0"), true},
    {"Gt negative label", R("neg", GT, "0"), false},
    {"Gt label with plus sign", R("plus", GT, "6"), true},
    {"Gt int64 max label", R("big", GT, "9223372036854775806"), true},
    {"Lt int64 max label equal", R("big", LT, "9223372036854775807"), false},
    {"Gt absent key", R("rack", GT, "1"), false},
    {"Gt label not a number", R("word", GT, "1"), false},
    {"Lt empty label", R("empty", LT, "1"), false},
    {"Lt label with blank", R("space", LT, "9"), false},
    {"Gt hex label", R("hex", GT, "1"), false},
    {"Gt label overflows int64", R("huge", GT, "1"), false},
    {"Gt no values", R0("gpu-count", GT), false},
    {"Lt two values", R("gpu-count", LT, "5", "6"), false},
    {"Gt value not a number", R("gpu-count", GT, "abc"), false},
    {"Gt value fraction", R("gpu-count", GT, "1.5"), false},
    {"Gt value empty", R("gpu-count", GT, ""), false},
    {"Gt value negative (not a label value)", R("gpu-count", GT, "-1"), false},
    {"Lt value overflows int64", R("gpu-count", LT, "99999999999999999999"),
     false},
    {"Gt value hex", R("gpu-count", GT, "0x1"), false},
    /* Operators and keys */
    {"Unknown operator", R("zone", SELECTOR_OP_UNKNOWN, "us-east-1a"), false},
    {"Out-of-range operator", R("zone", SELECTOR_OP_MAX, "us-east-1a"), false},
    {"Key with blank", R0("bad key", NOT_EXIST), false},
    {"Key with two slashes", R0("a/b/c", NOT_EXIST), false},
    {"Key with empty prefix", R0("/x", NOT_EXIST), false},
    {"Key with upper-case prefix", R0("Example.com/x", NOT_EXIST), false},
    {"Key with empty name", R0("example.com/", NOT_EXIST), false},
    {"Key with prefix", R0("example.com/rack", NOT_EXIST), true},
    {"Key name 64 chars", R0(S64, NOT_EXIST), false},
    {"Empty key", R0("", NOT_EXIST), false},
    {"NULL key", R0(NULL, NOT_EXIST), false},
};

static void test_node_requirements(void **state)
{
    (void)state;
    struct strmap labels = map_of(node_kv);
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(req_cases); i++) {
        const struct req_case *c = &req_cases[i];
        bool got = node_selector_requirement_matches(&c->req, &labels);
        if (got != c->want) {
            print_error("requirement case \"%s\": got %d, want %d\n", c->name,
                        got, c->want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
    assert_true(ARRAY_LEN(req_cases) >= 40);

    /* A NULL label map has no keys. */
    struct selector_requirement absent = R("zone", NOT_IN, "x");
    assert_true(node_selector_requirement_matches(&absent, NULL));
    assert_false(node_selector_requirement_matches(NULL, &labels));
}

/* --- metav1.LabelSelector --- */

struct sel_case {
    const char *name;
    bool null_selector;
    const char *match[7]; /* key, value pairs, NULL-terminated */
    size_t n_exprs;
    struct selector_requirement exprs[3];
    const char *labels[9]; /* key, value pairs, NULL-terminated */
    bool want;
};

static const struct sel_case sel_cases[] = {
    {"NULL selector", true, {NULL}, 0, {{0}}, {"app", "web", NULL}, false},
    {"NULL selector, no labels", true, {NULL}, 0, {{0}}, {NULL}, false},
    {"empty selector", false, {NULL}, 0, {{0}}, {"app", "web", NULL}, true},
    {"empty selector, no labels", false, {NULL}, 0, {{0}}, {NULL}, true},
    {"matchLabels equal",
     false,
     {"app", "web", NULL},
     0,
     {{0}},
     {"app", "web", "tier", "fe", NULL},
     true},
    {"matchLabels other value",
     false,
     {"app", "web", NULL},
     0,
     {{0}},
     {"app", "db", NULL},
     false},
    {"matchLabels absent",
     false,
     {"app", "web", NULL},
     0,
     {{0}},
     {NULL},
     false},
    {"matchLabels empty value",
     false,
     {"app", "", NULL},
     0,
     {{0}},
     {"app", "", NULL},
     true},
    {"matchLabels empty value, absent key",
     false,
     {"app", "", NULL},
     0,
     {{0}},
     {NULL},
     false},
    {"matchLabels all must match",
     false,
     {"app", "web", "tier", "be", NULL},
     0,
     {{0}},
     {"app", "web", "tier", "fe", NULL},
     false},
    {"matchLabels invalid value",
     false,
     {"app", "a b", NULL},
     0,
     {{0}},
     {"app", "a b", NULL},
     false},
    {"matchLabels invalid key",
     false,
     {"a b", "x", NULL},
     0,
     {{0}},
     {"a b", "x", NULL},
     false},
    {"labels and In",
     false,
     {"app", "web", NULL},
     1,
     {R("tier", IN, "fe", "be")},
     {"app", "web", "tier", "be", NULL},
     true},
    {"labels and failing In",
     false,
     {"app", "web", NULL},
     1,
     {R("tier", IN, "fe")},
     {"app", "web", "tier", "be", NULL},
     false},
    {"NotIn absent key",
     false,
     {NULL},
     1,
     {R("tier", NOT_IN, "fe")},
     {"app", "web", NULL},
     true},
    {"NotIn present value",
     false,
     {NULL},
     1,
     {R("tier", NOT_IN, "fe")},
     {"tier", "fe", NULL},
     false},
    {"NotIn no values (invalid)",
     false,
     {NULL},
     1,
     {R0("tier", NOT_IN)},
     {"app", "web", NULL},
     false},
    {"Exists and DoesNotExist",
     false,
     {NULL},
     2,
     {R0("app", EXISTS), R0("canary", NOT_EXIST)},
     {"app", "web", NULL},
     true},
    {"DoesNotExist present",
     false,
     {NULL},
     1,
     {R0("app", NOT_EXIST)},
     {"app", "web", NULL},
     false},
    {"Gt not allowed in label selectors",
     false,
     {NULL},
     1,
     {R("n", GT, "1")},
     {"n", "5", NULL},
     false},
    {"Lt not allowed in label selectors",
     false,
     {NULL},
     1,
     {R("n", LT, "9")},
     {"n", "5", NULL},
     false},
    {"unknown operator",
     false,
     {NULL},
     1,
     {R("app", SELECTOR_OP_UNKNOWN, "web")},
     {"app", "web", NULL},
     false},
    {"one invalid expression spoils the rest",
     false,
     {NULL},
     2,
     {R0("app", EXISTS), R("x", IN, "-y")},
     {"app", "web", NULL},
     false},
};

static void test_label_selectors(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(sel_cases); i++) {
        const struct sel_case *c = &sel_cases[i];
        struct label_selector sel = {
            .match_labels = map_of(c->match),
            .n_exprs = c->n_exprs,
            .exprs = (struct selector_requirement *)c->exprs,
        };
        struct strmap labels = map_of(c->labels);
        bool got =
            label_selector_matches(c->null_selector ? NULL : &sel, &labels);
        if (got != c->want) {
            print_error("selector case \"%s\": got %d, want %d\n", c->name, got,
                        c->want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);

    /* NULL labels: an empty set. */
    struct label_selector empty = {{0}, 0, NULL};
    assert_true(label_selector_matches(&empty, NULL));
    struct selector_requirement dne = R0("app", NOT_EXIST);
    struct label_selector one = {{0}, 1, &dne};
    assert_true(label_selector_matches(&one, NULL));
}

/* --- Node selector terms and selectors --- */

static const char *const term_node_kv[] = {
    "zone", "a", "gpu", "4", "kubernetes.io/hostname", "node-1", NULL,
};

static void test_node_terms(void **state)
{
    (void)state;
    struct strmap labels = map_of(term_node_kv);
    struct selector_requirement zone_a = R("zone", IN, "a");
    struct selector_requirement zone_b = R("zone", IN, "b");
    struct selector_requirement gpu_gt2 = R("gpu", GT, "2");
    struct selector_requirement bad_gt = R("gpu", GT, "x");
    struct selector_requirement name_in = R("metadata.name", IN, "node-1");
    struct selector_requirement name_in_other =
        R("metadata.name", IN, "node-2");
    struct selector_requirement name_not_in =
        R("metadata.name", NOT_IN, "node-1");
    struct selector_requirement name_not_in_other =
        R("metadata.name", NOT_IN, "node-2");
    struct selector_requirement name_two =
        R("metadata.name", IN, "node-1", "node-2");
    struct selector_requirement name_exists = R0("metadata.name", EXISTS);
    struct selector_requirement other_field = R("metadata.uid", NOT_IN, "x");
    struct selector_requirement two[] = {zone_a, gpu_gt2};
    struct selector_requirement two_fail[] = {zone_a, zone_b};
    struct selector_requirement with_bad[] = {zone_a, bad_gt};

    struct node_selector_term t;

    /* Empty terms select nothing. */
    t = (struct node_selector_term){0, NULL, 0, NULL};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    assert_false(node_selector_term_matches(NULL, &labels, "node-1"));

    /* matchExpressions are ANDed. */
    t = (struct node_selector_term){2, two, 0, NULL};
    assert_true(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){2, two_fail, 0, NULL};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    /* An unparsable requirement makes the whole term match nothing. */
    t = (struct node_selector_term){2, with_bad, 0, NULL};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));

    /* matchFields: metadata.name with In / NotIn and one value. */
    t = (struct node_selector_term){0, NULL, 1, &name_in};
    assert_true(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &name_in_other};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &name_not_in};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &name_not_in_other};
    assert_true(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &name_two};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &name_exists};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){0, NULL, 1, &other_field};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    /* Labels and fields both apply. */
    t = (struct node_selector_term){1, &zone_a, 1, &name_in};
    assert_true(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){1, &zone_b, 1, &name_in};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    t = (struct node_selector_term){1, &zone_a, 1, &name_in_other};
    assert_false(node_selector_term_matches(&t, &labels, "node-1"));
    /* A node without a name has no fields: Kubernetes skips matchFields. */
    t = (struct node_selector_term){0, NULL, 1, &name_in_other};
    assert_true(node_selector_term_matches(&t, &labels, ""));
    assert_true(node_selector_term_matches(&t, &labels, NULL));
    /* ...but a malformed matchFields still spoils the term. */
    t = (struct node_selector_term){0, NULL, 1, &name_two};
    assert_false(node_selector_term_matches(&t, &labels, NULL));
}

static void test_node_selectors(void **state)
{
    (void)state;
    struct strmap labels = map_of(term_node_kv);
    struct selector_requirement zone_a = R("zone", IN, "a");
    struct selector_requirement zone_b = R("zone", IN, "b");
    struct selector_requirement bad = R0("zone", IN);
    struct node_selector_term terms[] = {
        {1, &zone_b, 0, NULL}, /* does not match */
        {0, NULL, 0, NULL},    /* empty: matches nothing */
        {1, &bad, 0, NULL},    /* invalid: matches nothing */
        {1, &zone_a, 0, NULL}, /* matches */
    };
    struct node_selector s;

    assert_false(node_selector_matches(NULL, &labels, "node-1"));
    s = (struct node_selector){0, NULL};
    assert_false(node_selector_matches(&s, &labels, "node-1"));
    s = (struct node_selector){1, &terms[1]};
    assert_false(node_selector_matches(&s, &labels, "node-1"));
    s = (struct node_selector){3, terms};
    assert_false(node_selector_matches(&s, &labels, "node-1"));
    /* Terms are ORed; invalid and empty ones do not block the others. */
    s = (struct node_selector){4, terms};
    assert_true(node_selector_matches(&s, &labels, "node-1"));
    s = (struct node_selector){1, &terms[3]};
    assert_true(node_selector_matches(&s, &labels, "node-1"));
    /* No labels at all. */
    assert_false(node_selector_matches(&s, NULL, "node-1"));
}

static void test_node_matches_pod(void **state)
{
    (void)state;
    struct strmap labels = map_of(term_node_kv);
    struct strmap sel_ok =
        map_of((const char *[]){"zone", "a", "gpu", "4", NULL});
    struct strmap sel_value =
        map_of((const char *[]){"zone", "a", "gpu", "8", NULL});
    struct strmap sel_absent = map_of((const char *[]){"rack", "r1", NULL});
    struct strmap sel_empty = {0};
    struct selector_requirement zone_a = R("zone", IN, "a");
    struct selector_requirement zone_b = R("zone", IN, "b");
    struct node_selector_term t_a = {1, &zone_a, 0, NULL};
    struct node_selector_term t_b = {1, &zone_b, 0, NULL};
    struct node_selector aff_a = {1, &t_a};
    struct node_selector aff_b = {1, &t_b};
    struct node_selector aff_none = {0, NULL};

    assert_true(node_matches_pod(NULL, NULL, &labels, "node-1"));
    assert_true(node_matches_pod(&sel_empty, NULL, &labels, "node-1"));
    assert_true(node_matches_pod(&sel_ok, NULL, &labels, "node-1"));
    assert_false(node_matches_pod(&sel_value, NULL, &labels, "node-1"));
    assert_false(node_matches_pod(&sel_absent, NULL, &labels, "node-1"));
    assert_true(node_matches_pod(&sel_ok, &aff_a, &labels, "node-1"));
    assert_false(node_matches_pod(&sel_ok, &aff_b, &labels, "node-1"));
    assert_false(node_matches_pod(&sel_value, &aff_a, &labels, "node-1"));
    assert_true(node_matches_pod(NULL, &aff_a, &labels, "node-1"));
    /* A required affinity with no terms matches no node. */
    assert_false(node_matches_pod(NULL, &aff_none, &labels, "node-1"));
    /* nodeSelector against a node without labels. */
    assert_false(node_matches_pod(&sel_ok, NULL, NULL, "node-1"));
    assert_true(node_matches_pod(&sel_empty, NULL, NULL, "node-1"));
}

/* --- Tolerations --- */

#define NOSCHED TAINT_EFFECT_NO_SCHEDULE
#define PREFER  TAINT_EFFECT_PREFER_NO_SCHEDULE
#define NOEXEC  TAINT_EFFECT_NO_EXECUTE
#define ANY     TAINT_EFFECT_NONE
#define EQ      TOLERATION_OP_EQUAL
#define EX      TOLERATION_OP_EXISTS

struct tol_case {
    const char *name;
    struct toleration tol;
    struct taint taint;
    bool want;
};

static const struct tol_case tol_cases[] = {
    {"Exists, no key, no effect: every taint",
     {"", EX, "", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     true},
    {"Exists, no key, no effect: NoExecute",
     {"", EX, "", ANY, false, 0},
     {"x", "", NOEXEC},
     true},
    {"Exists, NULL key",
     {NULL, EX, NULL, ANY, false, 0},
     {"x", "y", PREFER},
     true},
    {"Exists, no key, effect differs",
     {"", EX, "", NOSCHED, false, 0},
     {"x", "", NOEXEC},
     false},
    {"Exists, no key, effect equal",
     {"", EX, "", NOEXEC, false, 0},
     {"x", "", NOEXEC},
     true},
    {"Exists key",
     {"dedicated", EX, "", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     true},
    {"Exists key ignores value",
     {"dedicated", EX, "cpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     true},
    {"Exists other key",
     {"team", EX, "", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"Equal key and value",
     {"dedicated", EQ, "gpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     true},
    {"Equal other value",
     {"dedicated", EQ, "cpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"Equal other key",
     {"team", EQ, "gpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"Equal keys are case-sensitive",
     {"Dedicated", EQ, "gpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"Equal empty value",
     {"dedicated", EQ, "", ANY, false, 0},
     {"dedicated", "", NOSCHED},
     true},
    {"Equal NULL value is empty",
     {"dedicated", EQ, NULL, ANY, false, 0},
     {"dedicated", "", NOSCHED},
     true},
    {"Equal empty value vs value",
     {"dedicated", EQ, "", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"Equal value vs NULL taint value",
     {"dedicated", EQ, "gpu", ANY, false, 0},
     {"dedicated", NULL, NOSCHED},
     false},
    {"Equal, effect equal",
     {"dedicated", EQ, "gpu", NOSCHED, false, 0},
     {"dedicated", "gpu", NOSCHED},
     true},
    {"Equal, effect differs",
     {"dedicated", EQ, "gpu", NOSCHED, false, 0},
     {"dedicated", "gpu", PREFER},
     false},
    {"PreferNoSchedule effect",
     {"dedicated", EQ, "gpu", PREFER, false, 0},
     {"dedicated", "gpu", PREFER},
     true},
    {"NoExecute with seconds",
     {"dedicated", EX, "", NOEXEC, true, 300},
     {"dedicated", "gpu", NOEXEC},
     true},
    /* Kubernetes only skips the key check: Equal with no key still
     * compares values. */
    {"Equal, no key, empty values",
     {"", EQ, "", ANY, false, 0},
     {"x", "", NOSCHED},
     true},
    {"Equal, no key, values differ",
     {"", EQ, "", ANY, false, 0},
     {"x", "y", NOSCHED},
     false},
    {"unknown operator",
     {"dedicated", TOLERATION_OP_UNKNOWN, "gpu", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"out-of-range operator",
     {"", TOLERATION_OP_MAX, "", ANY, false, 0},
     {"dedicated", "gpu", NOSCHED},
     false},
    {"unknown toleration effect",
     {"", EX, "", TAINT_EFFECT_UNKNOWN, false, 0},
     {"x", "", TAINT_EFFECT_UNKNOWN},
     false},
    {"unknown taint effect, any effect",
     {"", EX, "", ANY, false, 0},
     {"x", "", TAINT_EFFECT_UNKNOWN},
     true},
    {"unknown taint effect, NoSchedule",
     {"", EX, "", NOSCHED, false, 0},
     {"x", "", TAINT_EFFECT_UNKNOWN},
     false},
};

static void test_tolerations(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(tol_cases); i++) {
        const struct tol_case *c = &tol_cases[i];
        bool got = toleration_tolerates(&c->tol, &c->taint);
        if (got != c->want) {
            print_error("toleration case \"%s\": got %d, want %d\n", c->name,
                        got, c->want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
    struct taint t = {"x", "", NOSCHED};
    struct toleration all = {"", EX, "", ANY, false, 0};
    assert_false(toleration_tolerates(NULL, &t));
    assert_false(toleration_tolerates(&all, NULL));
}

static void test_untolerated(void **state)
{
    (void)state;
    const struct taint taints[] = {
        {"soft", "", PREFER},
        {"dedicated", "gpu", NOSCHED},
        {"maintenance", "", NOEXEC},
        {"future", "", TAINT_EFFECT_UNKNOWN},
    };
    const struct toleration tol_gpu = {"dedicated", EQ, "gpu", ANY, false, 0};
    const struct toleration tol_maint = {"maintenance", EX,    "",
                                         NOEXEC,        false, 0};
    const struct toleration tol_all = {"", EX, "", ANY, false, 0};
    const struct toleration both[] = {tol_gpu, tol_maint};
    const struct toleration wrong_effect = {"maintenance", EX,    "",
                                            NOSCHED,       false, 0};

    assert_null(taints_find_untolerated(NULL, 0, NULL, 0));
    assert_null(taints_find_untolerated(taints, 0, &tol_gpu, 1));
    /* PreferNoSchedule and unknown effects never block. */
    assert_null(taints_find_untolerated(&taints[0], 1, NULL, 0));
    assert_null(taints_find_untolerated(&taints[3], 1, NULL, 0));
    /* The first blocking taint, in order. */
    assert_ptr_equal(taints_find_untolerated(taints, 4, NULL, 0), &taints[1]);
    assert_ptr_equal(taints_find_untolerated(taints, 4, &tol_gpu, 1),
                     &taints[2]);
    assert_ptr_equal(taints_find_untolerated(taints, 4, &tol_maint, 1),
                     &taints[1]);
    assert_ptr_equal(taints_find_untolerated(taints, 4, &wrong_effect, 1),
                     &taints[1]);
    const struct toleration gpu_wrong[] = {tol_gpu, wrong_effect};
    assert_ptr_equal(taints_find_untolerated(taints, 4, gpu_wrong, 2),
                     &taints[2]);
    assert_null(taints_find_untolerated(taints, 4, both, 2));
    assert_null(taints_find_untolerated(taints, 4, &tol_all, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_strings),
        cmocka_unit_test(test_node_requirements),
        cmocka_unit_test(test_label_selectors),
        cmocka_unit_test(test_node_terms),
        cmocka_unit_test(test_node_selectors),
        cmocka_unit_test(test_node_matches_pod),
        cmocka_unit_test(test_tolerations),
        cmocka_unit_test(test_untolerated),
    };
    return cmocka_run_group_tests_name("labels", tests, setup, teardown);
}
