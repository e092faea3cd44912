/* strmap.h - string-to-string maps (labels, annotations, node labels).
 *
 * Most maps are short (a few dozen entries) and are searched linearly; a map
 * that grows past STRMAP_INDEX_MIN entries through strmap_set() also gets a
 * hash index (open addressing, in the arena, grown by doubling), so that
 * building or reading a map of any size costs O(1) per key on average.
 * items[] always holds the entries in insertion order (an overwrite keeps
 * the entry's place) and keys are unique; code may read n and items[]
 * directly. The strings belong to whoever built the map (usually an object's
 * arena). A map filled by hand (n and items[] set directly, index NULL) is
 * searched linearly. */
#ifndef ORDO_STRMAP_H
#define ORDO_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* Entries beyond which strmap_set() builds the index. */
#define STRMAP_INDEX_MIN 16

struct strmap_entry {
    const char *key;
    const char *value;
};

struct strmap {
    size_t n;
    struct strmap_entry *items;
    /* The index: index_cap slots (a power of two, or 0), each 0 (empty) or
     * 1 + the position of an entry in items[]; it covers items[0..indexed).
     * Private to strmap.c. */
    size_t *index;
    size_t index_cap;
    size_t indexed;
};

/* Returns the value for key (owned by the map), or NULL when absent. */
const char *strmap_get(const struct strmap *m, const char *key);

/* True when key is present (its value may be ""). */
bool strmap_has(const struct strmap *m, const char *key);

/* Sets key to value, replacing an existing entry in place. Strings are not
 * copied: they must live as long as the map. The item array and the index
 * are grown in arena a. Returns 0 or -ENOMEM. */
int strmap_set(struct strmap *m, struct arena *a, const char *key,
               const char *value);

#endif
