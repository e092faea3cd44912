/* test_helpers.h - small helpers shared by the cmocka unit tests. */
#ifndef ORDO_TEST_HELPERS_H
#define ORDO_TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Directory of test data (tests/data), from ORDO_TEST_DATA when set. */
static inline const char *test_data_dir(void)
{
    const char *d = getenv("ORDO_TEST_DATA");
    return d && *d ? d : "tests/data";
}

/* Asserts that haystack contains needle, printing both when it does not. */
#define assert_contains(haystack, needle)                                      \
    do {                                                                       \
        const char *h_ = (haystack), *n_ = (needle);                           \
        if (!h_ || !strstr(h_, n_)) {                                          \
            print_error("\"%s\" does not contain \"%s\"\n", h_ ? h_ : "(null)", \
                        n_);                                                   \
            fail();                                                            \
        }                                                                      \
    } while (0)

#endif
