/* test_grow.c - the growable-array helper (core/grow.c): appends keep the
 * items, capacity doubles from 16, and a size that would overflow fails
 * without touching the array. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "grow.h"

static void test_appends(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(GROW_ARRAY(v, n, cap), 0);
        assert_true(cap > n);
        v[n++] = i;
    }
    assert_int_equal(cap, 1024); /* 16, 32, ..., 1024 */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);
    /* Room left: nothing moves. */
    int *before = v;
    assert_int_equal(GROW_ARRAY(v, n, cap), 0);
    assert_ptr_equal(v, before);
    free(v);
}

static void test_overflow(void **state)
{
    (void)state;
    struct big {
        char bytes[1024];
    } *v = NULL;
    size_t cap = SIZE_MAX / 2048 + 1;
    assert_int_equal(GROW_ARRAY(v, cap, cap), -ENOMEM);
    assert_null(v);
    assert_int_equal(cap, SIZE_MAX / 2048 + 1);
    cap = SIZE_MAX / 2 + 1;
    assert_int_equal(grow_array(&v, cap, &cap, 1), -ENOMEM);
    assert_null(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
