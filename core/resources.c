/* resources.c - sorted resource lists with overflow-checked arithmetic (see
 * resources.h).
 *
 * Every operation that can fail checks first and changes the list last, so
 * that an error (-ENOMEM, -ERANGE) always leaves the destination as it was. */
#include "resources.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "quantity.h"

enum merge_op { MERGE_ADD, MERGE_SUB, MERGE_MAX };

void resource_list_init(struct resource_list *l)
{
    l->n = 0;
    l->cap = 0;
    l->items = NULL;
}

void resource_list_release(struct resource_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].name);
    free(l->items);
    resource_list_init(l);
}

/* Frees the first n names of items and the array itself. */
static void free_entries(struct resource_entry *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i].name);
    free(items);
}

int resource_list_copy(struct resource_list *dst,
                       const struct resource_list *src)
{
    if (dst == src)
        return 0;
    struct resource_entry *items = NULL;
    if (src->n) {
        items = calloc(src->n, sizeof(*items));
        if (!items)
            return -ENOMEM;
        for (size_t i = 0; i < src->n; i++) {
            items[i].name = strdup(src->items[i].name);
            if (!items[i].name) {
                free_entries(items, i);
                return -ENOMEM;
            }
            items[i].milli = src->items[i].milli;
        }
    }
    resource_list_release(dst);
    dst->items = items;
    dst->n = dst->cap = src->n;
    return 0;
}

/* Binary search: returns true and *ret_idx = the entry's index, or false and
 * *ret_idx = where the entry would be inserted. */
static bool find(const struct resource_list *l, const char *name,
                 size_t *ret_idx)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->items[mid].name, name);
        if (c == 0) {
            *ret_idx = mid;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *ret_idx = lo;
    return false;
}

int64_t resource_list_get(const struct resource_list *l, const char *name)
{
    size_t i;
    if (!l || !name || !find(l, name, &i))
        return 0;
    return l->items[i].milli;
}

bool resource_list_has(const struct resource_list *l, const char *name)
{
    size_t i;
    return l && name && find(l, name, &i);
}

int resource_list_set(struct resource_list *l, const char *name, int64_t milli)
{
    size_t i;
    if (!name)
        return -EINVAL;
    if (find(l, name, &i)) {
        l->items[i].milli = milli;
        return 0;
    }
    if (GROW_ARRAY(l->items, l->n, l->cap) < 0)
        return -ENOMEM;
    char *copy = strdup(name);
    if (!copy)
        return -ENOMEM;
    memmove(&l->items[i + 1], &l->items[i], (l->n - i) * sizeof(*l->items));
    l->items[i].name = copy;
    l->items[i].milli = milli;
    l->n++;
    return 0;
}

/* *ret = op(a, b); false on overflow. */
static bool apply(enum merge_op op, int64_t a, int64_t b, int64_t *ret)
{
    switch (op) {
    case MERGE_ADD:
        return !__builtin_add_overflow(a, b, ret);
    case MERGE_SUB:
        return !__builtin_sub_overflow(a, b, ret);
    case MERGE_MAX:
    default:
        *ret = a > b ? a : b;
        return true;
    }
}

/* Moves *i on to the first name of l not before name; true when it is
 * name. Walking a sorted list along another's names is linear. */
static bool seek_name(const struct resource_list *l, size_t *i,
                      const char *name)
{
    while (*i < l->n && strcmp(l->items[*i].name, name) < 0)
        (*i)++;
    return *i < l->n && strcmp(l->items[*i].name, name) == 0;
}

/* In a walk of a and b in name order at a's item i and b's item j: < 0
 * when a's name comes next, 0 when both lists have it, > 0 for b's. */
static int next_name(const struct resource_list *a, size_t i,
                     const struct resource_list *b, size_t j)
{
    if (i == a->n)
        return 1;
    if (j == b->n)
        return -1;
    return strcmp(a->items[i].name, b->items[j].name);
}

/* dst = op(dst, src) entry by entry, a missing entry counting as zero; names
 * only in src are added to dst. */
static int merge(struct resource_list *dst, const struct resource_list *src,
                 enum merge_op op)
{
    if (dst == src) {
        /* Aliased: the names are the same, so no entry is added. */
        for (size_t i = 0; i < dst->n; i++) {
            int64_t v;
            int64_t m = dst->items[i].milli;
            if (!apply(op, m, m, &v))
                return -ERANGE;
        }
        for (size_t i = 0; i < dst->n; i++) {
            int64_t m = dst->items[i].milli;
            apply(op, m, m, &dst->items[i].milli);
        }
        return 0;
    }

    /* Pass 1: check every result and count the names dst lacks. */
    size_t missing = 0;
    for (size_t i = 0, j = 0; j < src->n; j++) {
        const struct resource_entry *s = &src->items[j];
        int64_t cur = 0, v;
        if (seek_name(dst, &i, s->name))
            cur = dst->items[i].milli;
        else
            missing++;
        if (!apply(op, cur, s->milli, &v))
            return -ERANGE;
    }

    if (missing == 0) {
        /* Pass 2, in place: every src name is already in dst. */
        for (size_t i = 0, j = 0; j < src->n; j++) {
            seek_name(dst, &i, src->items[j].name); /* always found */
            apply(op, dst->items[i].milli, src->items[j].milli,
                  &dst->items[i].milli);
        }
        return 0;
    }

    /* Pass 2, into a new array. Everything that can fail (the array, the
     * copies of src-only names) is allocated first; dst's names then move
     * over, so dst is only touched once nothing can fail any more. */
    size_t n = dst->n + missing;
    struct resource_entry *items = calloc(n, sizeof(*items));
    char **copies = calloc(missing, sizeof(*copies));
    if (!items || !copies)
        goto oom;
    size_t n_copies = 0;
    for (size_t i = 0, j = 0; j < src->n; j++) {
        if (seek_name(dst, &i, src->items[j].name))
            continue;
        copies[n_copies] = strdup(src->items[j].name);
        if (!copies[n_copies])
            goto oom;
        n_copies++;
    }

    size_t i = 0, j = 0, k = 0, c_next = 0;
    while (i < dst->n || j < src->n) {
        int c = next_name(dst, i, src, j);
        if (c < 0) {
            items[k] = dst->items[i++];
        } else if (c == 0) {
            items[k] = dst->items[i++];
            apply(op, items[k].milli, src->items[j++].milli, &items[k].milli);
        } else {
            items[k].name = copies[c_next++];
            apply(op, 0, src->items[j++].milli, &items[k].milli);
        }
        k++;
    }
    free(copies);
    free(dst->items);
    dst->items = items;
    dst->n = dst->cap = n;
    return 0;

oom:
    if (copies) {
        for (size_t x = 0; x < missing; x++)
            free(copies[x]);
    }
    free(copies);
    free(items);
    return -ENOMEM;
}

int resource_list_add(struct resource_list *dst,
                      const struct resource_list *src)
{
    return merge(dst, src, MERGE_ADD);
}

int resource_list_sub(struct resource_list *dst,
                      const struct resource_list *src)
{
    return merge(dst, src, MERGE_SUB);
}

int resource_list_max(struct resource_list *dst,
                      const struct resource_list *src)
{
    return merge(dst, src, MERGE_MAX);
}

int resource_list_scale(struct resource_list *l, int64_t factor)
{
    int64_t v;
    for (size_t i = 0; i < l->n; i++)
        if (__builtin_mul_overflow(l->items[i].milli, factor, &v))
            return -ERANGE;
    for (size_t i = 0; i < l->n; i++)
        l->items[i].milli *= factor;
    return 0;
}

int resource_list_cmp(const struct resource_list *a,
                      const struct resource_list *b)
{
    bool less = false, greater = false;
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int c = next_name(a, i, b, j);
        int64_t va = 0, vb = 0;
        if (c <= 0)
            va = a->items[i++].milli;
        if (c >= 0)
            vb = b->items[j++].milli;
        if (va < vb)
            less = true;
        else if (va > vb)
            greater = true;
    }
    if (less && greater)
        return 2;
    return less ? -1 : greater ? 1 : 0;
}

bool resource_list_fits(const struct resource_list *request,
                        const struct resource_list *available,
                        const char **ret_name, int64_t *ret_short)
{
    for (size_t i = 0; i < request->n; i++) {
        const struct resource_entry *r = &request->items[i];
        if (r->milli <= 0)
            continue;
        int64_t have = resource_list_get(available, r->name);
        if (r->milli <= have)
            continue;
        int64_t shortfall;
        if (__builtin_sub_overflow(r->milli, have, &shortfall))
            shortfall = INT64_MAX;
        if (ret_name)
            *ret_name = r->name;
        if (ret_short)
            *ret_short = shortfall;
        return false;
    }
    return true;
}

bool resource_list_is_zero(const struct resource_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].milli != 0)
            return false;
    return true;
}

enum quantity_format resource_quantity_format(const char *name)
{
    bool binary =
        name && (strcmp(name, "memory") == 0 ||
                 strcmp(name, "ephemeral-storage") == 0 ||
                 strncmp(name, "hugepages-", strlen("hugepages-")) == 0);
    return binary ? QUANTITY_BINARY_SI : QUANTITY_DECIMAL_SI;
}

/* Appends s to buf at *pos, as much of it as fits before the final NUL;
 * false when s had to be cut. */
static bool append(char *buf, size_t size, size_t *pos, const char *s)
{
    size_t len = strlen(s);
    size_t room = size - 1 - *pos;
    size_t n = len < room ? len : room;
    memcpy(buf + *pos, s, n);
    *pos += n;
    buf[*pos] = '\0';
    return n == len;
}

const char *resource_list_str(const struct resource_list *l, char *buf,
                              size_t size)
{
    if (!buf || size == 0)
        return buf;
    buf[0] = '\0';
    size_t pos = 0;
    for (size_t i = 0; i < l->n; i++) {
        char q[QUANTITY_STR_MAX];
        enum quantity_format fmt = resource_quantity_format(l->items[i].name);
        quantity_str(l->items[i].milli, fmt, q);
        if ((i > 0 && !append(buf, size, &pos, ",")) ||
            !append(buf, size, &pos, l->items[i].name) ||
            !append(buf, size, &pos, "=") || !append(buf, size, &pos, q)) {
            /* Cut: pos == size - 1; end with "..." (as much as fits). */
            size_t dots = pos < 3 ? pos : 3;
            memset(buf + pos - dots, '.', dots);
            return buf;
        }
    }
    return buf;
}
