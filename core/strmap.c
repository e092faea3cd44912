/* strmap.c - flat string maps (see strmap.h). */
#include "strmap.h"

#include <errno.h>
#include <string.h>

#include "arena.h"

const char *strmap_get(const struct strmap *m, const char *key)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0)
            return m->items[i].value;
    return NULL;
}

bool strmap_has(const struct strmap *m, const char *key)
{
    return strmap_get(m, key) != NULL;
}

int strmap_set(struct strmap *m, struct arena *a, const char *key,
               const char *value)
{
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->items[i].key, key) == 0) {
            m->items[i].value = value;
            return 0;
        }
    }
    /* Grow by doubling; the old array stays in the arena until it is freed,
     * which is fine for the short maps this holds. */
    if ((m->n & (m->n - 1)) == 0) {
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
    return 0;
}
