/* strmap.c - string maps with an index once they grow (see strmap.h). */
#include "strmap.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"

/* FNV-1a, then a final mix so that the low bits (the slot) depend on every
 * byte. */
static uint64_t strmap_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Whether the index covers items[0..indexed) of the current array. */
static bool index_usable(const struct strmap *m)
{
    return m->index && m->index_cap && m->indexed <= m->n;
}

/* The slot of key in the index: the one holding it (*found) or the empty
 * one where it would go. */
static size_t index_slot(const struct strmap *m, const char *key, bool *found)
{
    size_t mask = m->index_cap - 1;
    size_t i = (size_t)strmap_hash(key) & mask;
    for (;;) {
        size_t v = m->index[i];
        if (v == 0 || strcmp(m->items[v - 1].key, key) == 0) {
            *found = v != 0;
            return i;
        }
        i = (i + 1) & mask;
    }
}

/* Position of key in items[], or -1. */
static ptrdiff_t strmap_find(const struct strmap *m, const char *key)
{
    size_t start = 0;
    if (index_usable(m)) {
        bool found;
        size_t slot = index_slot(m, key, &found);
        if (found)
            return (ptrdiff_t)(m->index[slot] - 1);
        start = m->indexed; /* entries added by hand after the index */
    }
    for (size_t i = start; i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0)
            return (ptrdiff_t)i;
    return -1;
}

const char *strmap_get(const struct strmap *m, const char *key)
{
    if (!m)
        return NULL;
    ptrdiff_t i = strmap_find(m, key);
    return i < 0 ? NULL : m->items[i].value;
}

bool strmap_has(const struct strmap *m, const char *key)
{
    return strmap_get(m, key) != NULL;
}

/* (Re)builds the index over every entry with at least 2 * n slots. */
static int index_build(struct strmap *m, struct arena *a)
{
    size_t cap = m->index_cap ? m->index_cap : 64;
    while (cap / 2 < m->n)
        cap *= 2;
    size_t *slots = arena_calloc(a, cap, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    /* The old table stays in the arena until it is freed, as the old item
     * arrays do: the waste is bounded by what the map uses. */
    m->index = slots;
    m->index_cap = cap;
    for (size_t i = 0; i < m->n; i++) {
        bool found;
        size_t slot = index_slot(m, m->items[i].key, &found);
        m->index[slot] = i + 1;
    }
    m->indexed = m->n;
    return 0;
}

int strmap_set(struct strmap *m, struct arena *a, const char *key,
               const char *value)
{
    ptrdiff_t at = strmap_find(m, key);
    if (at >= 0) {
        m->items[at].value = value;
        return 0;
    }
    /* The capacity is implied by n: 4, then the power of two >= n. The
     * items live in the arena, which cannot grow a block: GROW_ARRAY's
     * realloc cannot apply, and the old copy stays behind. */
    if (m->n == 0 || (m->n >= 4 && (m->n & (m->n - 1)) == 0)) {
        size_t cap = m->n ? m->n * 2 : 4;
        struct strmap_entry *items = arena_calloc(a, cap, sizeof(*items));
        if (!items)
            return -ENOMEM;
        if (m->n)
            memcpy(items, m->items, m->n * sizeof(*items));
        m->items = items;
    }
    m->items[m->n].key = key;
    m->items[m->n].value = value;
    m->n++;
    if (m->n <= STRMAP_INDEX_MIN)
        return 0;
    if (!index_usable(m) || m->indexed != m->n - 1 || m->n > m->index_cap / 2) {
        int r = index_build(m, a);
        if (r < 0)
            m->n--; /* leave the map as it was */
        return r;
    }
    bool found;
    size_t slot = index_slot(m, key, &found);
    m->index[slot] = m->n;
    m->indexed = m->n;
    return 0;
}
