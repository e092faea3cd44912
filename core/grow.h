/* grow.h - the one growable-array helper: an array of n items in cap
 * slots, doubled (from a first size of 16) when it is full, so that
 * appending is O(1) amortised.
 *
 *     if (GROW_ARRAY(q->pending, q->n_pending, q->cap_pending) < 0)
 *         return -ENOMEM;
 *     q->pending[q->n_pending++] = w;
 *
 * cap must be a size_t. On -ENOMEM (or a size that would overflow) the
 * array and cap are unchanged. */
#ifndef ORDO_GROW_H
#define ORDO_GROW_H

#include <stddef.h>

/* Makes room for one more item: *array_ptr is the array (any pointer type,
 * passed by address), n its items, *cap its slots of elem bytes. 0 or
 * -ENOMEM. */
int grow_array(void *array_ptr, size_t n, size_t *cap, size_t elem);

#define GROW_ARRAY(array, n, cap)                                              \
    grow_array(&(array), (n), &(cap), sizeof(*(array)))

#endif
