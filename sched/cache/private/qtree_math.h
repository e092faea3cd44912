/* qtree_math.h - the quota tree's saturating arithmetic, shared by its
 * files (quota_tree.c, qtree_share.c): QUOTA_INF stays infinite. */
#ifndef ORDO_QTREE_MATH_H
#define ORDO_QTREE_MATH_H

#include <stdint.h>

#include "quota_tree.h"
#include "satmath.h"

/* ---- saturating arithmetic: QUOTA_INF stays infinite -------------------- */

static inline int64_t sat_add(int64_t a, int64_t b)
{
    return a == QUOTA_INF || b == QUOTA_INF ? QUOTA_INF : sat_add64(a, b);
}

static inline int64_t sat_sub(int64_t a, int64_t b)
{
    return a == QUOTA_INF ? QUOTA_INF : sat_sub64(a, b);
}

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

#endif
