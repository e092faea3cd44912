/* test_strmap.c - string maps: lookups, overwrites in place, insertion
 * order, and the index that keeps big maps (300,000 labels) linear to
 * build. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arena.h"
#include "strmap.h"
#include "test_helpers.h"

#define BIG 300000

static void test_small(void **state)
{
    struct arena *a = arena_new();
    struct strmap m = {0};
    assert_null(strmap_get(&m, "a"));
    assert_null(strmap_get(NULL, "a"));
    assert_int_equal(strmap_set(&m, a, "app", "web"), 0);
    assert_int_equal(strmap_set(&m, a, "tier", ""), 0);
    assert_int_equal(strmap_set(&m, a, "app", "db"), 0);
    assert_int_equal(m.n, 2);
    assert_string_equal(m.items[0].key, "app");
    assert_string_equal(m.items[0].value, "db");
    assert_true(strmap_has(&m, "tier"));
    assert_string_equal(strmap_get(&m, "tier"), "");
    assert_false(strmap_has(&m, "web"));
    assert_null(m.index); /* short maps are searched linearly */
    arena_free(a);
}

/* 300,000 distinct keys, then every third one overwritten: each value reads
 * back, overwrites keep their place, nothing is duplicated. */
static void test_big(void **state)
{
    struct arena *a = arena_new();
    struct strmap m = {0};
    for (size_t i = 0; i < BIG; i++) {
        char *k = arena_printf(a, "example.com/key-%zu", i);
        char *v = arena_printf(a, "v%zu", i);
        assert_int_equal(strmap_set(&m, a, k, v), 0);
        if (i == STRMAP_INDEX_MIN - 1)
            assert_null(m.index);
        if (i == STRMAP_INDEX_MIN)
            assert_non_null(m.index);
    }
    assert_int_equal(m.n, BIG);
    /* The index has room to spare: at most half its slots are used. */
    assert_non_null(m.index);
    assert_true(m.index_cap >= 2 * m.n);
    for (size_t i = 0; i < BIG; i += 3) {
        /* A key equal in text but not in address finds the entry. */
        char *k = arena_printf(a, "example.com/key-%zu", i);
        char *v = arena_printf(a, "new%zu", i);
        assert_int_equal(strmap_set(&m, a, k, v), 0);
    }
    assert_int_equal(m.n, BIG);
    for (size_t i = 0; i < BIG; i++) {
        char k[64], want[32];
        snprintf(k, sizeof(k), "example.com/key-%zu", i);
        snprintf(want, sizeof(want), i % 3 ? "v%zu" : "new%zu", i);
        const char *got = strmap_get(&m, k);
        assert_non_null(got);
        assert_string_equal(got, want);
        /* insertion order is kept */
        assert_string_equal(m.items[i].key, k);
        assert_string_equal(m.items[i].value, want);
    }
    assert_null(strmap_get(&m, "example.com/key-300000"));
    assert_false(strmap_has(&m, "key-1"));
    arena_free(a);
}

/* Entries appended by hand after the index was built are still found, and
 * the next strmap_set() takes them into the index. */
static void test_hand_appended(void **state)
{
    struct arena *a = arena_new();
    struct strmap m = {0};
    for (size_t i = 0; i < 40; i++)
        assert_int_equal(strmap_set(&m, a, arena_printf(a, "k%zu", i), "x"), 0);
    /* room for item 40: the array holds 64 */
    m.items[m.n].key = "by-hand";
    m.items[m.n].value = "h";
    m.n++;
    assert_string_equal(strmap_get(&m, "by-hand"), "h");
    assert_int_equal(strmap_set(&m, a, "by-hand", "h2"), 0);
    assert_int_equal(m.n, 41);
    assert_string_equal(strmap_get(&m, "by-hand"), "h2");
    assert_int_equal(strmap_set(&m, a, "k41", "y"), 0);
    assert_int_equal(m.n, 42);
    assert_int_equal(m.indexed, 42);
    assert_string_equal(strmap_get(&m, "by-hand"), "h2");
    assert_string_equal(strmap_get(&m, "k7"), "x");

    /* a map filled by hand from the start has no index */
    struct strmap_entry e[2] = {{"a", "1"}, {"b", "2"}};
    struct strmap h = {.n = 2, .items = e};
    assert_string_equal(strmap_get(&h, "b"), "2");
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_big),
        cmocka_unit_test(test_hand_appended),
    };
    return cmocka_run_group_tests_name("strmap", tests, NULL, NULL);
}
