/* grow.c - the growable-array helper (see grow.h). */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GROW_FIRST 16

int grow_array(void *array_ptr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap : GROW_FIRST;
    if (*cap && __builtin_mul_overflow(ncap, (size_t)2, &ncap))
        return -ENOMEM;
    if (elem == 0 || ncap > SIZE_MAX / elem)
        return -ENOMEM;
    /* The array pointer is read and written as bytes: array_ptr may point
     * to a pointer of any object type. */
    void *old;
    memcpy(&old, array_ptr, sizeof(old));
    void *v = realloc(old, ncap * elem);
    if (!v)
        return -ENOMEM;
    memcpy(array_ptr, &v, sizeof(v));
    *cap = ncap;
    return 0;
}
