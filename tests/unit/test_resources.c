/* test_resources.c - unit tests for core/resources.c: sorted resource lists,
 * overflow-checked arithmetic, comparison, fit checks and formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "resources.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX          INT64_MAX
#define MIN          INT64_MIN

/* A list literal: entries up to the first NULL name. */
struct spec {
    const char *name;
    int64_t milli;
};
#define END                                                                    \
    {                                                                          \
        NULL, 0                                                                \
    }

static void build(struct resource_list *l, const struct spec *s)
{
    resource_list_init(l);
    for (; s && s->name; s++)
        assert_int_equal(resource_list_set(l, s->name, s->milli), 0);
}

/* True when l holds exactly the entries of s (s sorted by name). */
static bool equals_spec(const struct resource_list *l, const struct spec *s)
{
    size_t n = 0;
    for (; s[n].name; n++) {
        if (n >= l->n || strcmp(l->items[n].name, s[n].name) != 0 ||
            l->items[n].milli != s[n].milli)
            return false;
    }
    return n == l->n;
}

static void assert_sorted(const struct resource_list *l)
{
    assert_true(l->n <= l->cap);
    for (size_t i = 1; i < l->n; i++)
        assert_true(strcmp(l->items[i - 1].name, l->items[i].name) < 0);
}

static void test_set_get(void **state)
{
    (void)state;
    struct resource_list l;
    resource_list_init(&l);
    assert_int_equal(l.n, 0);
    assert_true(resource_list_is_zero(&l));
    assert_int_equal(resource_list_get(&l, "cpu"), 0);
    assert_false(resource_list_has(&l, "cpu"));

    /* Inserted out of order, kept sorted; enough entries to grow twice. */
    static const char *const names[] = {
        "pods",
        "memory",
        "cpu",
        "nvidia.com/gpu",
        "ephemeral-storage",
        "hugepages-2Mi",
        "example.com/foo",
        "a",
        "zzz",
        "hugepages-1Gi",
    };
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        assert_int_equal(resource_list_set(&l, names[i], (int64_t)i * 10), 0);
    assert_int_equal(l.n, ARRAY_LEN(names));
    assert_sorted(&l);
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        assert_true(resource_list_has(&l, names[i]));
        assert_int_equal(resource_list_get(&l, names[i]), (int64_t)i * 10);
    }
    /* "pods" was set to 0: present but zero. */
    assert_true(resource_list_has(&l, RESOURCE_PODS));
    assert_int_equal(resource_list_get(&l, RESOURCE_PODS), 0);
    assert_false(resource_list_has(&l, "cpus"));
    assert_false(resource_list_has(&l, ""));
    assert_false(resource_list_is_zero(&l));

    /* Replacing keeps one entry. */
    assert_int_equal(resource_list_set(&l, "cpu", MIN), 0);
    assert_int_equal(l.n, ARRAY_LEN(names));
    assert_int_equal(resource_list_get(&l, "cpu"), MIN);
    assert_int_equal(resource_list_set(&l, NULL, 1), -EINVAL);

    resource_list_release(&l);
    assert_int_equal(l.n, 0);
    assert_null(l.items);
    /* Reusable after release; release is NULL-safe and idempotent. */
    assert_int_equal(resource_list_set(&l, "cpu", 1), 0);
    resource_list_release(&l);
    resource_list_release(&l);
    resource_list_release(NULL);
}

static void test_copy(void **state)
{
    (void)state;
    static const struct spec src_s[] = {{"cpu", 1500}, {"memory", 1024}, END};
    struct resource_list src, dst;
    build(&src, src_s);
    build(&dst, (const struct spec[]){{"aaa", 1}, {"pods", 5}, END});

    assert_int_equal(resource_list_copy(&dst, &src), 0);
    assert_true(equals_spec(&dst, src_s));
    /* A deep copy: names are not shared. */
    assert_ptr_not_equal(dst.items[0].name, src.items[0].name);
    assert_int_equal(resource_list_set(&dst, "cpu", 1), 0);
    assert_int_equal(resource_list_get(&src, "cpu"), 1500);

    /* Self-copy is a no-op; copying an empty list empties dst. */
    assert_int_equal(resource_list_copy(&src, &src), 0);
    assert_true(equals_spec(&src, src_s));
    struct resource_list empty;
    resource_list_init(&empty);
    assert_int_equal(resource_list_copy(&dst, &empty), 0);
    assert_int_equal(dst.n, 0);
    assert_int_equal(resource_list_set(&dst, "cpu", 2), 0);

    resource_list_release(&src);
    resource_list_release(&dst);
}

/* --- add / sub / max --- */

enum op { ADD, SUB, MAXOP };

struct arith_case {
    const char *name;
    enum op op;
    struct spec dst[5];
    struct spec src[5];
    int rc;
    struct spec want[6]; /* ignored on error: dst must be unchanged */
};

static const struct arith_case arith_cases[] = {
    {"add disjoint",
     ADD,
     {{"cpu", 1000}, END},
     {{"memory", 2048}, END},
     0,
     {{"cpu", 1000}, {"memory", 2048}, END}},
    {"add overlapping",
     ADD,
     {{"cpu", 1000}, {"pods", 1000}, END},
     {{"cpu", 500}, {"pods", 1000}, END},
     0,
     {{"cpu", 1500}, {"pods", 2000}, END}},
    {"add interleaved",
     ADD,
     {{"b", 1}, {"d", 1}, END},
     {{"a", 1}, {"b", 1}, {"c", 1}, {"e", 1}, END},
     0,
     {{"a", 1}, {"b", 2}, {"c", 1}, {"d", 1}, {"e", 1}, END}},
    {"add empty src", ADD, {{"cpu", 7}, END}, {END}, 0, {{"cpu", 7}, END}},
    {"add into empty",
     ADD,
     {END},
     {{"cpu", 7}, {"x", 0}, END},
     0,
     {{"cpu", 7}, {"x", 0}, END}},
    {"add to the limit",
     ADD,
     {{"cpu", MAX - 1}, END},
     {{"cpu", 1}, END},
     0,
     {{"cpu", MAX}, END}},
    {"add overflow",
     ADD,
     {{"cpu", MAX}, END},
     {{"cpu", 1}, END},
     -ERANGE,
     {END}},
    {"add overflow after a new name",
     ADD,
     {{"memory", MAX}, END},
     {{"cpu", 1}, {"memory", 1}, {"pods", 1}, END},
     -ERANGE,
     {END}},
    {"add negative overflow",
     ADD,
     {{"cpu", MIN}, END},
     {{"cpu", -1}, END},
     -ERANGE,
     {END}},
    {"sub",
     SUB,
     {{"cpu", 1000}, {"memory", 4096}, END},
     {{"cpu", 250}, {"memory", 4096}, END},
     0,
     {{"cpu", 750}, {"memory", 0}, END}},
    {"sub goes negative",
     SUB,
     {{"cpu", 100}, END},
     {{"cpu", 300}, END},
     0,
     {{"cpu", -200}, END}},
    {"sub missing in dst",
     SUB,
     {{"cpu", 1}, END},
     {{"memory", 5}, END},
     0,
     {{"cpu", 1}, {"memory", -5}, END}},
    {"sub int64 min from missing",
     SUB,
     {{"cpu", 1}, END},
     {{"memory", MIN}, END},
     -ERANGE,
     {END}},
    {"sub overflow",
     SUB,
     {{"cpu", MIN}, END},
     {{"cpu", 1}, END},
     -ERANGE,
     {END}},
    {"sub negative overflow",
     SUB,
     {{"cpu", MAX}, END},
     {{"cpu", -1}, END},
     -ERANGE,
     {END}},
    {"max",
     MAXOP,
     {{"cpu", 1000}, {"memory", 10}, END},
     {{"cpu", 500}, {"memory", 20}, END},
     0,
     {{"cpu", 1000}, {"memory", 20}, END}},
    {"max adds missing names",
     MAXOP,
     {{"cpu", 1}, END},
     {{"a", 3}, {"z", -4}, END},
     0,
     {{"a", 3}, {"cpu", 1}, {"z", 0}, END}},
    {"max with extremes",
     MAXOP,
     {{"cpu", MIN}, END},
     {{"cpu", MAX}, END},
     0,
     {{"cpu", MAX}, END}},
};

static int run_op(enum op op, struct resource_list *dst,
                  const struct resource_list *src)
{
    switch (op) {
    case ADD:
        return resource_list_add(dst, src);
    case SUB:
        return resource_list_sub(dst, src);
    default:
        return resource_list_max(dst, src);
    }
}

static void test_arith(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(arith_cases); i++) {
        const struct arith_case *c = &arith_cases[i];
        struct resource_list dst, src;
        build(&dst, c->dst);
        build(&src, c->src);
        int rc = run_op(c->op, &dst, &src);
        const struct spec *want = c->rc ? c->dst : c->want;
        if (rc != c->rc || !equals_spec(&dst, want)) {
            print_error("arith case \"%s\": rc %d (want %d) or wrong list\n",
                        c->name, rc, c->rc);
            failures++;
        }
        assert_sorted(&dst);
        /* src is never changed. */
        assert_true(equals_spec(&src, c->src));
        resource_list_release(&dst);
        resource_list_release(&src);
    }
    assert_int_equal(failures, 0);
}

static void test_arith_aliased(void **state)
{
    (void)state;
    struct resource_list l;
    build(&l, (const struct spec[]){{"cpu", 3}, {"memory", -2}, END});
    assert_int_equal(resource_list_add(&l, &l), 0);
    assert_true(equals_spec(
        &l, (const struct spec[]){{"cpu", 6}, {"memory", -4}, END}));
    assert_int_equal(resource_list_max(&l, &l), 0);
    assert_int_equal(resource_list_get(&l, "cpu"), 6);
    assert_int_equal(resource_list_sub(&l, &l), 0);
    assert_true(resource_list_is_zero(&l));
    assert_int_equal(l.n, 2);

    assert_int_equal(resource_list_set(&l, "memory", MAX / 2 + 1), 0);
    assert_int_equal(resource_list_set(&l, "cpu", 1), 0);
    assert_int_equal(resource_list_add(&l, &l), -ERANGE);
    assert_int_equal(resource_list_get(&l, "cpu"), 1);
    assert_int_equal(resource_list_get(&l, "memory"), MAX / 2 + 1);
    resource_list_release(&l);
}

static void test_scale(void **state)
{
    (void)state;
    struct resource_list l;
    build(&l, (const struct spec[]){
                  {"cpu", 250}, {"memory", -1024}, {"pods", 1000}, END});
    assert_int_equal(resource_list_scale(&l, 4), 0);
    assert_true(equals_spec(
        &l, (const struct spec[]){
                {"cpu", 1000}, {"memory", -4096}, {"pods", 4000}, END}));
    assert_int_equal(resource_list_scale(&l, -1), 0);
    assert_int_equal(resource_list_get(&l, "memory"), 4096);

    /* Overflow in the last entry leaves every entry unchanged. */
    assert_int_equal(resource_list_set(&l, "pods", MAX / 2 + 1), 0);
    assert_int_equal(resource_list_scale(&l, 2), -ERANGE);
    assert_int_equal(resource_list_get(&l, "cpu"), -1000);
    assert_int_equal(resource_list_get(&l, "pods"), MAX / 2 + 1);
    assert_int_equal(resource_list_set(&l, "pods", MIN), 0);
    assert_int_equal(resource_list_scale(&l, -1), -ERANGE);
    assert_int_equal(resource_list_scale(&l, 1), 0);
    assert_int_equal(resource_list_get(&l, "pods"), MIN);

    assert_int_equal(resource_list_scale(&l, 0), 0);
    assert_true(resource_list_is_zero(&l));
    assert_int_equal(l.n, 3);
    resource_list_release(&l);

    resource_list_init(&l);
    assert_int_equal(resource_list_scale(&l, MAX), 0);
    resource_list_release(&l);
}

/* --- cmp --- */

struct cmp_case {
    const char *name;
    struct spec a[4];
    struct spec b[4];
    int want;
};

static const struct cmp_case cmp_cases[] = {
    {"both empty", {END}, {END}, 0},
    {"equal",
     {{"cpu", 1}, {"memory", 2}, END},
     {{"cpu", 1}, {"memory", 2}, END},
     0},
    {"missing equals zero", {{"cpu", 0}, END}, {END}, 0},
    {"zero entries on both sides", {{"a", 0}, END}, {{"b", 0}, END}, 0},
    {"one smaller",
     {{"cpu", 1}, {"memory", 2}, END},
     {{"cpu", 1}, {"memory", 3}, END},
     -1},
    {"all smaller",
     {{"cpu", 0}, {"memory", 2}, END},
     {{"cpu", 1}, {"memory", 3}, END},
     -1},
    {"empty vs positive", {END}, {{"cpu", 1}, END}, -1},
    {"negative vs missing", {{"cpu", -1}, END}, {END}, -1},
    {"one larger", {{"cpu", 2}, END}, {{"cpu", 1}, {"memory", 0}, END}, 1},
    {"extra positive entry",
     {{"cpu", 1}, {"gpu", 1}, END},
     {{"cpu", 1}, END},
     1},
    {"extremes", {{"cpu", MAX}, END}, {{"cpu", MIN}, END}, 1},
    {"mixed",
     {{"cpu", 2}, {"memory", 1}, END},
     {{"cpu", 1}, {"memory", 2}, END},
     2},
    {"mixed through missing entries",
     {{"a", 1}, {"b", 0}, END},
     {{"b", 1}, END},
     2},
    {"mixed disjoint", {{"a", 1}, END}, {{"b", 1}, END}, 2},
};

static void test_cmp(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(cmp_cases); i++) {
        const struct cmp_case *c = &cmp_cases[i];
        struct resource_list a, b;
        build(&a, c->a);
        build(&b, c->b);
        int got = resource_list_cmp(&a, &b);
        /* Swapping the sides mirrors -1 and 1; 0 and 2 stay. */
        int mirror = resource_list_cmp(&b, &a);
        int want_mirror = (c->want == 1 || c->want == -1) ? -c->want : c->want;
        if (got != c->want || mirror != want_mirror) {
            print_error("cmp case \"%s\": got %d/%d, want %d/%d\n", c->name,
                        got, mirror, c->want, want_mirror);
            failures++;
        }
        resource_list_release(&a);
        resource_list_release(&b);
    }
    assert_int_equal(failures, 0);
}

/* --- fits --- */

struct fits_case {
    const char *name;
    struct spec req[4];
    struct spec avail[4];
    bool want;
    const char *short_name;
    int64_t short_milli;
};

static const struct fits_case fits_cases[] = {
    {"empty request", {END}, {END}, true, NULL, 0},
    {"exact fit",
     {{"cpu", 1000}, {"memory", 1024}, END},
     {{"cpu", 1000}, {"memory", 1024}, END},
     true,
     NULL,
     0},
    {"room to spare",
     {{"cpu", 1}, END},
     {{"cpu", 2}, {"pods", 1000}, END},
     true,
     NULL,
     0},
    {"zero request, nothing available",
     {{"nvidia.com/gpu", 0}, END},
     {END},
     true,
     NULL,
     0},
    {"negative request, negative available",
     {{"cpu", -5}, END},
     {{"cpu", -10}, END},
     true,
     NULL,
     0},
    {"cpu short",
     {{"cpu", 1500}, {"memory", 1}, END},
     {{"cpu", 1000}, {"memory", 1}, END},
     false,
     "cpu",
     500},
    {"missing resource",
     {{"cpu", 1}, {"nvidia.com/gpu", 2000}, END},
     {{"cpu", 1}, END},
     false,
     "nvidia.com/gpu",
     2000},
    {"first short in sorted order",
     {{"cpu", 5}, {"memory", 5}, END},
     {{"cpu", 1}, {"memory", 1}, END},
     false,
     "cpu",
     4},
    {"later resource short",
     {{"cpu", 1}, {"memory", 5}, {"pods", 1000}, END},
     {{"cpu", 1}, {"memory", 1}, {"pods", 1000}, END},
     false,
     "memory",
     4},
    {"negative available",
     {{"pods", 1000}, END},
     {{"pods", -1000}, END},
     false,
     "pods",
     2000},
    {"shortfall saturates",
     {{"cpu", 1}, END},
     {{"cpu", MIN}, END},
     false,
     "cpu",
     MAX},
};

static void test_fits(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < ARRAY_LEN(fits_cases); i++) {
        const struct fits_case *c = &fits_cases[i];
        struct resource_list req, avail;
        build(&req, c->req);
        build(&avail, c->avail);
        const char *name = "untouched";
        int64_t shortfall = -42;
        bool got = resource_list_fits(&req, &avail, &name, &shortfall);
        bool ok = got == c->want;
        if (ok && !got)
            ok =
                strcmp(name, c->short_name) == 0 && shortfall == c->short_milli;
        if (ok && got)
            ok = strcmp(name, "untouched") == 0 && shortfall == -42;
        /* The out-parameters are optional. */
        if (resource_list_fits(&req, &avail, NULL, NULL) != c->want)
            ok = false;
        if (!ok) {
            print_error("fits case \"%s\": got %d %s %lld\n", c->name, got,
                        name, (long long)shortfall);
            failures++;
        }
        resource_list_release(&req);
        resource_list_release(&avail);
    }
    assert_int_equal(failures, 0);
}

static void test_is_zero(void **state)
{
    (void)state;
    struct resource_list l;
    build(&l, (const struct spec[]){{"cpu", 0}, {"memory", 0}, END});
    assert_true(resource_list_is_zero(&l));
    assert_int_equal(resource_list_set(&l, "memory", -1), 0);
    assert_false(resource_list_is_zero(&l));
    resource_list_release(&l);
}

/* --- str --- */

static void test_str(void **state)
{
    (void)state;
    char buf[256];
    struct resource_list l;
    resource_list_init(&l);
    assert_string_equal(resource_list_str(&l, buf, sizeof(buf)), "");

    build(&l, (const struct spec[]){
                  {"pods", 110000},
                  {"memory", 1024LL * 1024 * 1024 * 1000},
                  {"cpu", 1500},
                  {"nvidia.com/gpu", 1000},
                  {"hugepages-2Mi", 4LL * 1024 * 1024 * 1000},
                  {"ephemeral-storage", 10LL * 1024 * 1024 * 1024 * 1000},
                  {"example.com/foo", 1024000},
                  END,
              });
    assert_ptr_equal(resource_list_str(&l, buf, sizeof(buf)), buf);
    assert_string_equal(buf, "cpu=1500m,ephemeral-storage=10Gi,"
                             "example.com/foo=1024,hugepages-2Mi=4Mi,"
                             "memory=1Gi,nvidia.com/gpu=1,pods=110");
    resource_list_release(&l);

    /* Memory-like names use binary suffixes, others decimal. */
    build(&l, (const struct spec[]){{"cpu", 2000}, {"memory", 1024000}, END});
    assert_string_equal(resource_list_str(&l, buf, sizeof(buf)),
                        "cpu=2,memory=1Ki");
    resource_list_release(&l);

    /* Truncation: "cpu=1500m,memory=1Gi" is 20 characters. */
    build(&l, (const struct spec[]){
                  {"cpu", 1500}, {"memory", 1024LL * 1024 * 1024 * 1000}, END});
    assert_string_equal(resource_list_str(&l, buf, 21), "cpu=1500m,memory=1Gi");
    assert_string_equal(resource_list_str(&l, buf, 20), "cpu=1500m,memory...");
    assert_string_equal(resource_list_str(&l, buf, 12), "cpu=1500...");
    assert_string_equal(resource_list_str(&l, buf, 11), "cpu=150...");
    assert_string_equal(resource_list_str(&l, buf, 4), "...");
    assert_string_equal(resource_list_str(&l, buf, 3), "..");
    assert_string_equal(resource_list_str(&l, buf, 2), ".");
    assert_string_equal(resource_list_str(&l, buf, 1), "");
    memset(buf, 'x', sizeof(buf));
    assert_ptr_equal(resource_list_str(&l, buf, 0), buf);
    assert_int_equal(buf[0], 'x');
    resource_list_release(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get), cmocka_unit_test(test_copy),
        cmocka_unit_test(test_arith),   cmocka_unit_test(test_arith_aliased),
        cmocka_unit_test(test_scale),   cmocka_unit_test(test_cmp),
        cmocka_unit_test(test_fits),    cmocka_unit_test(test_is_zero),
        cmocka_unit_test(test_str),
    };
    return cmocka_run_group_tests_name("resources", tests, NULL, NULL);
}
