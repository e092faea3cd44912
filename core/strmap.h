/* strmap.h - small string-to-string maps (labels, annotations, node labels).
 *
 * Maps are short (a few dozen entries), so they are flat arrays searched
 * linearly; keys are unique. The strings belong to whoever built the map
 * (usually an object's arena). */
#ifndef ORDO_STRMAP_H
#define ORDO_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

struct strmap_entry {
    const char *key;
    const char *value;
};

struct strmap {
    size_t n;
    struct strmap_entry *items;
};

/* Returns the value for key (owned by the map), or NULL when absent. */
const char *strmap_get(const struct strmap *m, const char *key);

/* True when key is present (its value may be ""). */
bool strmap_has(const struct strmap *m, const char *key);

/* Sets key to value, replacing an existing entry. Strings are not copied:
 * they must live as long as the map. The item array is grown in arena a.
 * Returns 0 or -ENOMEM. */
int strmap_set(struct strmap *m, struct arena *a, const char *key,
               const char *value);

#endif
