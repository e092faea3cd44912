/* test_quota_tree.c - Kueue's quota arithmetic over ClusterQueues and
 * cohorts (sched/quota_tree.c): subtree quota, lending and borrowing
 * limits, Available, PotentialAvailable, usage passed up past local quota,
 * borrowing level, weighted shares, and cohort cycles. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "events.h"
#include "manifest.h"
#include "resid.h"
#include "test_helpers.h"

#define RF "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n" \
           "metadata: {name: f}\n---\n"

/* A ClusterQueue with one cpu quota on flavor f. */
#define CQ(name, cohort, extra)                                               \
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"                \
    "metadata: {name: " name "}\nspec:\n  cohortName: " cohort "\n"           \
    "  resourceGroups:\n  - coveredResources: [cpu]\n"                        \
    "    flavors: [{name: f, resources: [{name: cpu, " extra "}]}]\n---\n"

/* A ClusterQueue with one memory quota on flavor f. */
#define CQ_MEM(name, cohort, nominal)                                         \
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"                \
    "metadata: {name: " name "}\nspec:\n  cohortName: " cohort "\n"           \
    "  resourceGroups:\n  - coveredResources: [memory]\n"                     \
    "    flavors: [{name: f, resources: [{name: memory, nominalQuota: "       \
    nominal "}]}]\n---\n"

struct fixture {
    struct cluster c;
};

static struct cluster *load(struct fixture *fx, const char *yaml)
{
    struct manifest_set s;
    manifest_set_init(&s);
    assert_int_equal(manifest_load_buffer(&s, yaml, strlen(yaml), "t.yaml",
                                          NULL, NULL),
                     0);
    cluster_init(&fx->c);
    for (size_t i = 0; i < s.n; i++) {
        assert_int_equal(cluster_add(&fx->c, s.objects[i]), 0);
        s.objects[i] = NULL;
    }
    s.n = 0;
    manifest_set_release(&s);
    assert_int_equal(cluster_sync(&fx->c), 0);
    return &fx->c;
}

static struct qnode *node_of(struct cluster *c, const char *cq)
{
    struct cq *q = cluster_cq(c, cq);
    assert_non_null(q);
    assert_non_null(q->qnode);
    return q->qnode;
}

static int fr_cpu(struct cluster *c)
{
    int i = qtree_fr(&c->tree, cluster_flavor(c, "f"), resid_lookup("cpu"));
    assert_true(i >= 0);
    return i;
}

static void release(struct fixture *fx)
{
    cluster_release(&fx->c);
}

static void test_flat_cohort(void **state)
{
    struct fixture fx;
    struct cluster *c = load(&fx, RF CQ("a", "co", "nominalQuota: 10")
                                      CQ("b", "co", "nominalQuota: 10"));
    struct qnode *a = node_of(c, "a"), *b = node_of(c, "b");
    int i = fr_cpu(c);
    assert_int_equal(a->parent->subtree[i], 20000);
    assert_int_equal(qtree_available(a, i), 20000);
    assert_int_equal(qtree_potential_available(a, i), 20000);
    /* a takes 15: 5 of it borrowed from b's unused quota */
    qtree_add_usage(a, i, 15000);
    assert_int_equal(qnode_usage(a, i), 15000);
    assert_int_equal(qnode_usage(a->parent, i), 15000);
    assert_int_equal(qtree_available(a, i), 5000);
    assert_int_equal(qtree_available(b, i), 5000);
    assert_int_equal(qtree_borrowing_level(a, i, 1000), 1);
    /* borrowing is about nominal quota, not about what is free now */
    assert_int_equal(qtree_borrowing_level(b, i, 10000), 0);
    assert_int_equal(qtree_borrowing_level(b, i, 10001), 1);
    qtree_add_usage(a, i, -15000);
    assert_int_equal(qnode_usage(a, i), 0);
    assert_int_equal(qnode_usage(a->parent, i), 0);
    release(&fx);
}

/* Quotas past int64 milli-units saturate (the cohort's 3 x 9e18m); usage
 * is counted exactly, so Available stops where a node's usage would reach
 * INT64_MAX, and a saturated need never fits, not even an infinite quota. */
static void test_saturation(void **state)
{
    struct fixture fx;
    struct cluster *c = load(&fx, RF CQ("a", "big", "nominalQuota: 9e15")
                                      CQ("b", "big", "nominalQuota: 9e15")
                                          CQ("c", "big", "nominalQuota: 9e15"));
    struct qnode *a = node_of(c, "a"), *b = node_of(c, "b");
    int i = fr_cpu(c);
    int64_t *need = calloc(c->tree.n_fr, sizeof(*need));
    assert_non_null(need);
    assert_int_equal(a->parent->subtree[i], QUOTA_INF);
    assert_int_equal(qtree_available(a, i), INT64_MAX - 1);
    need[i] = INT64_MAX;
    assert_int_equal(qtree_first_short(a, need, true), i);
    need[i] = INT64_MAX - 1;
    assert_int_equal(qtree_first_short(a, need, true), -1);
    assert_int_equal(qtree_first_short(a, need, false), i);
    /* a holds 8e18m: the cohort can count 1.2e18m more, in any queue */
    const int64_t used = 8000000000000000000, left = INT64_MAX - 1 - used;
    qtree_add_usage(a, i, used);
    assert_int_equal(qtree_available(a, i), left);
    assert_int_equal(qtree_available(b, i), left);
    assert_int_equal(qtree_headroom(b, i), left);
    need[i] = 2000000000000000000;
    assert_int_equal(qtree_first_short(b, need, true), i);
    /* and gives it back exactly */
    qtree_add_usage(a, i, -used);
    assert_int_equal(qnode_usage(a, i), 0);
    assert_int_equal(qnode_usage(a->parent, i), 0);
    free(need);
    release(&fx);
}

static void test_lending_limit(void **state)
{
    struct fixture fx;
    struct cluster *c =
        load(&fx, RF CQ("a", "co", "nominalQuota: 10, lendingLimit: 4")
                     CQ("b", "co", "nominalQuota: 10"));
    struct qnode *a = node_of(c, "a"), *b = node_of(c, "b");
    int i = fr_cpu(c);
    /* a keeps 6 for itself and lends 4 */
    assert_int_equal(qnode_local_quota(a, i), 6000);
    assert_int_equal(a->parent->subtree[i], 14000);
    assert_int_equal(qtree_available(b, i), 14000);
    assert_int_equal(qtree_potential_available(b, i), 14000);
    assert_int_equal(qtree_available(a, i), 20000);
    /* usage within a's local quota stays local */
    qtree_add_usage(a, i, 5000);
    assert_int_equal(qnode_usage(a->parent, i), 0);
    assert_int_equal(qtree_available(b, i), 14000);
    /* past it, the rest goes to the cohort */
    qtree_add_usage(a, i, 3000);
    assert_int_equal(qnode_usage(a->parent, i), 2000);
    assert_int_equal(qtree_available(b, i), 12000);
    qtree_add_usage(a, i, -3000);
    assert_int_equal(qnode_usage(a->parent, i), 0);
    release(&fx);
}

static void test_borrowing_limit(void **state)
{
    struct fixture fx;
    struct cluster *c =
        load(&fx, RF CQ("a", "co", "nominalQuota: 10, borrowingLimit: 2")
                     CQ("b", "co", "nominalQuota: 10"));
    struct qnode *a = node_of(c, "a");
    int i = fr_cpu(c);
    assert_int_equal(qtree_potential_available(a, i), 12000);
    assert_int_equal(qtree_available(a, i), 12000);
    qtree_add_usage(a, i, 11000);
    assert_int_equal(qtree_available(a, i), 1000);
    /* b using its quota leaves a only what is left in the cohort */
    qtree_add_usage(node_of(c, "b"), i, 9000);
    assert_int_equal(qtree_available(a, i), 0);
    release(&fx);
}

static void test_no_cohort(void **state)
{
    struct fixture fx;
    struct cluster *c = load(
        &fx, RF "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
                "metadata: {name: solo}\nspec:\n  resourceGroups:\n"
                "  - coveredResources: [cpu]\n    flavors: [{name: f, "
                "resources: [{name: cpu, nominalQuota: 4}]}]\n");
    struct qnode *n = node_of(c, "solo");
    int i = fr_cpu(c);
    assert_null(n->parent);
    assert_int_equal(qtree_available(n, i), 4000);
    qtree_add_usage(n, i, 3000);
    assert_int_equal(qtree_available(n, i), 1000);
    assert_int_equal(qtree_borrowing_level(n, i, 2000), 0);
    release(&fx);
}

static void test_hierarchy(void **state)
{
    struct fixture fx;
    struct cluster *c = load(
        &fx, RF
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: root}\nspec:\n  resourceGroups:\n"
        "  - coveredResources: [cpu]\n    flavors: [{name: f, resources: "
        "[{name: cpu, nominalQuota: 5}]}]\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: team}\nspec: {parentName: root}\n---\n"
        CQ("a", "team", "nominalQuota: 10") CQ("b", "team", "nominalQuota: 10")
        CQ("c", "root", "nominalQuota: 10"));
    struct qnode *a = node_of(c, "a"), *cc = node_of(c, "c");
    int i = fr_cpu(c);
    struct qnode *team = a->parent, *root = team->parent;
    assert_string_equal(team->name, "team");
    assert_string_equal(root->name, "root");
    assert_int_equal(team->subtree[i], 20000);
    assert_int_equal(root->subtree[i], 35000);
    assert_int_equal(team->height, 1);
    assert_int_equal(root->height, 2);
    assert_int_equal(qtree_available(a, i), 35000);
    qtree_add_usage(a, i, 25000);
    assert_int_equal(qnode_usage(team, i), 25000);
    assert_int_equal(qnode_usage(root, i), 25000);
    assert_int_equal(qtree_available(cc, i), 10000);
    /* within the team subtree: level 1; needing the root pool: level 2 */
    qtree_add_usage(a, i, -25000);
    qtree_add_usage(a, i, 10000);
    assert_int_equal(qtree_borrowing_level(a, i, 5000), 1);
    assert_int_equal(qtree_borrowing_level(a, i, 15000), 2);
    release(&fx);
}

struct visit {
    char seen[64];
    const char *stop_at;
};

static bool visit_cq(struct cq *q, void *data)
{
    struct visit *v = data;
    strncat(v->seen, q->name, sizeof(v->seen) - strlen(v->seen) - 1);
    return v->stop_at && strcmp(q->name, v->stop_at) == 0;
}

/* qtree_any_cq() visits every ClusterQueue under a node, once, and stops
 * when asked; a CQ without a cohort is its own tree. */
static void test_any_cq(void **state)
{
    struct fixture fx;
    struct cluster *c = load(
        &fx, RF
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: team}\nspec: {parentName: root}\n---\n"
        CQ("a", "team", "nominalQuota: 1") CQ("b", "team", "nominalQuota: 1")
        CQ("c", "root", "nominalQuota: 1") CQ("d", "other", "nominalQuota: 1")
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
        "metadata: {name: e}\nspec:\n  resourceGroups: []\n---\n");
    const struct qnode *root = qtree_root(node_of(c, "a"));
    struct visit v = {0};
    assert_false(qtree_any_cq(root, visit_cq, &v));
    assert_int_equal(strlen(v.seen), 3);
    assert_non_null(strchr(v.seen, 'a'));
    assert_non_null(strchr(v.seen, 'b'));
    assert_non_null(strchr(v.seen, 'c'));
    v = (struct visit){.stop_at = "a"};
    assert_true(qtree_any_cq(node_of(c, "a")->parent, visit_cq, &v));
    assert_string_equal(v.seen, "a");
    v = (struct visit){0};
    assert_false(qtree_any_cq(qtree_root(node_of(c, "e")), visit_cq, &v));
    assert_string_equal(v.seen, "e");
    release(&fx);
}

static void test_cycle(void **state)
{
    struct fixture fx;
    struct cluster *c = load(
        &fx, RF
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: x}\nspec: {parentName: y}\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
        "metadata: {name: y}\nspec: {parentName: x}\n---\n"
        CQ("a", "x", "nominalQuota: 10") CQ("ok", "z", "nominalQuota: 1"));
    struct cq *a = cluster_cq(c, "a");
    assert_false(a->active);
    assert_contains(a->inactive_reason, "cycle");
    assert_contains(a->inactive_reason, "x -> y");
    /* other trees are not affected */
    assert_true(cluster_cq(c, "ok")->active);
    release(&fx);
}

static void test_weighted_share(void **state)
{
    struct fixture fx;
    struct cluster *c =
        load(&fx, RF CQ("a", "co", "nominalQuota: 10")
                     CQ("b", "co", "nominalQuota: 10"));
    struct qnode *a = node_of(c, "a"), *b = node_of(c, "b");
    int i = fr_cpu(c);
    bool borrowing;
    qtree_add_usage(a, i, 15000);
    /* borrows 5 of the 20 the cohort could lend: 250 per mille */
    assert_int_equal(qtree_weighted_share(&c->tree, a, NULL, &borrowing), 250);
    assert_true(borrowing);
    assert_int_equal(qtree_weighted_share(&c->tree, b, NULL, &borrowing), 0);
    assert_false(borrowing);
    /* with a workload of 12 added, b would borrow 2: 100 per mille */
    int64_t extra[8] = {0};
    extra[i] = 12000;
    assert_int_equal(qtree_weighted_share(&c->tree, b, extra, &borrowing), 100);
    /* weight 2 halves it; weight 0 while borrowing is infinite */
    a->weight_milli = 2000;
    assert_int_equal(qtree_weighted_share(&c->tree, a, NULL, &borrowing), 125);
    a->weight_milli = 0;
    assert_int_equal(qtree_weighted_share(&c->tree, a, NULL, &borrowing),
                     QUOTA_INF);
    /* Exact comparisons (CompareDRS): a zero-weight borrower is above any
     * weighted share; two of them compare unweighted (250 > 100). */
    struct qtree_share sa, sb;
    qtree_share(&c->tree, a, NULL, &sa);
    qtree_share(&c->tree, b, extra, &sb);
    assert_true(qtree_share_cmp(&sa, &sb) > 0);
    b->weight_milli = 0;
    qtree_share(&c->tree, b, extra, &sb);
    assert_true(qtree_share_cmp(&sa, &sb) > 0);
    assert_true(qtree_share_cmp(&sb, &sa) < 0);
    b->weight_milli = 1000;
    a->weight_milli = 1000;
    /* Rounded up, as Kueue's roundedWeightedShare: 1m of 20 is 0.05 per
     * mille, 1; the exact comparison still tells 1m from 2m. */
    qtree_add_usage(a, i, -4999);
    assert_int_equal(qtree_weighted_share(&c->tree, a, NULL, &borrowing), 1);
    extra[i] = 10002;
    assert_int_equal(qtree_weighted_share(&c->tree, b, extra, &borrowing), 1);
    qtree_share(&c->tree, a, NULL, &sa);
    qtree_share(&c->tree, b, extra, &sb);
    assert_true(qtree_share_cmp(&sa, &sb) < 0);
    assert_int_equal(qtree_share_cmp(&sa, &sa), 0);
    release(&fx);
}

/* Exact share comparison: weights, ties, and no borrowing. */
static void test_share_cmp(void **state)
{
    struct qtree_share none = {.weight_milli = 1000};
    struct qtree_share third = {1, 3, 1000, true}, half = {1, 2, 1000, true};
    struct qtree_share third_w2 = {2, 3, 2000, true}; /* 2/3 / 2 = 1/3 */
    assert_int_equal(qtree_share_cmp(&none, &none), 0);
    assert_true(qtree_share_cmp(&none, &third) < 0);
    assert_true(qtree_share_cmp(&third, &half) < 0);
    assert_int_equal(qtree_share_cmp(&third, &third_w2), 0);
    /* borrowing where the parent lends nothing counts as no share */
    struct qtree_share stuck = {0, 0, 0, true};
    assert_int_equal(qtree_share_cmp(&stuck, &none), 0);
    /* products past 128 bits still compare, to 1e-12 */
    struct qtree_share big = {INT64_MAX, INT64_MAX, 1000000, true};
    struct qtree_share big2 = {INT64_MAX / 2, INT64_MAX, 1000000, true};
    assert_true(qtree_share_cmp(&big, &big2) > 0);
    assert_true(qtree_share_cmp(&big2, &big) < 0);
}

/* Usage on a pair a ClusterQueue does not list (its admissions outlived a
 * quota change) is still its usage and passes whole to its cohort. */
static void test_unlisted_usage(void **state)
{
    struct fixture fx;
    static const char yaml[] =
        RF CQ("a", "co", "nominalQuota: 10") CQ_MEM("b", "co", "4");
    struct cluster *c = load(&fx, yaml);
    struct qnode *a = node_of(c, "a"), *b = node_of(c, "b");
    int mem =
        qtree_fr(&c->tree, cluster_flavor(c, "f"), resid_lookup("memory"));
    assert_true(mem >= 0);
    qtree_add_usage(a, mem, 3000);
    assert_int_equal(qnode_usage(a, mem), 3000);
    assert_int_equal(qnode_usage(a->parent, mem), 3000);
    assert_int_equal(qtree_available(b, mem), 1000);
    qtree_add_usage(a, mem, -3000);
    assert_int_equal(qnode_usage(a, mem), 0);
    assert_int_equal(qtree_available(b, mem), 4000);
    release(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_cohort),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_unlisted_usage),
        cmocka_unit_test(test_share_cmp),
        cmocka_unit_test(test_lending_limit),
        cmocka_unit_test(test_borrowing_limit),
        cmocka_unit_test(test_no_cohort),
        cmocka_unit_test(test_hierarchy),
        cmocka_unit_test(test_any_cq),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_weighted_share),
    };
    int r = cmocka_run_group_tests_name("quota_tree", tests, NULL, NULL);
    resid_reset();
    return r;
}
