/* resources.h - resource lists: resource name -> quantity in milli-units.
 *
 * Used for pod requests, node allocatable, quota and usage. Names are kept
 * sorted so that two lists are compared in one pass; extended resources
 * ("nvidia.com/gpu") and "pods" are ordinary entries. A missing entry means
 * zero. Arithmetic never wraps: an overflow returns -ERANGE and leaves the
 * list unchanged. */
#ifndef ORDO_RESOURCES_H
#define ORDO_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quantity.h"

/* The countable "pods" resource: each pod requests 1 (1000 milli). */
#define RESOURCE_PODS "pods"

struct resource_entry {
    char *name; /* owned by the list */
    int64_t milli;
};

struct resource_list {
    size_t n, cap;
    struct resource_entry *items; /* sorted by name, names unique */
};

void resource_list_init(struct resource_list *l);
/* Frees the entries; the list is empty and reusable afterwards. NULL-safe. */
void resource_list_release(struct resource_list *l);
/* Makes dst an exact copy of src. 0 or -ENOMEM (dst unchanged on error). */
int resource_list_copy(struct resource_list *dst,
                       const struct resource_list *src);

/* Value of name, 0 when absent. */
int64_t resource_list_get(const struct resource_list *l, const char *name);
/* True when name has an entry (even a zero one). */
bool resource_list_has(const struct resource_list *l, const char *name);
/* Sets name to milli (adds the entry when missing). 0, -ENOMEM, or -EINVAL
 * when name is NULL. */
int resource_list_set(struct resource_list *l, const char *name, int64_t milli);

/* dst += src, entry by entry; names only in src are added to dst (even with
 * a zero value). src may be dst. 0, -ENOMEM or -ERANGE. */
int resource_list_add(struct resource_list *dst,
                      const struct resource_list *src);
/* dst -= src, entry by entry (results may go negative; a name only in src
 * is added with minus its value). 0, -ENOMEM or -ERANGE. */
int resource_list_sub(struct resource_list *dst,
                      const struct resource_list *src);
/* dst = max(dst, src) entry by entry; a name only in src gets max(0, value)
 * since a missing entry is zero. 0 or -ENOMEM. */
int resource_list_max(struct resource_list *dst,
                      const struct resource_list *src);
/* Multiplies every entry by factor (pod count). 0 or -ERANGE. */
int resource_list_scale(struct resource_list *l, int64_t factor);

/* Three-way comparison: returns -1 when every entry of a is <= b and one is
 * smaller, 0 when equal, 1 when every entry of a is >= b and one is larger,
 * and 2 when neither (some larger, some smaller). Missing entries are 0. */
int resource_list_cmp(const struct resource_list *a,
                      const struct resource_list *b);

/* True when request fits in available: every requested entry with a value
 * > 0 is <= the available one (missing = 0). When it does not fit and
 * ret_name is not NULL, *ret_name is the first resource short (owned by
 * request) and *ret_short the amount missing in milli-units (saturated at
 * INT64_MAX); either pointer may be NULL, and both are left alone when the
 * request fits. */
bool resource_list_fits(const struct resource_list *request,
                        const struct resource_list *available,
                        const char **ret_name, int64_t *ret_short);

/* True when every entry is zero (or the list is empty). */
bool resource_list_is_zero(const struct resource_list *l);

/* How quantities of resource `name` print: binary SI (Ki, Mi, Gi) for the
 * memory-like ones (memory, ephemeral-storage, hugepages-*), as kubectl
 * shows them, decimal SI (1500m, 2k) for the rest and for NULL. */
enum quantity_format resource_quantity_format(const char *name);

/* Formats "cpu=1500m,memory=1Gi" into buf (truncated with "..." when it does
 * not fit); binary formatting is used for memory-like names (memory,
 * ephemeral-storage, hugepages-*). An empty list gives "". Returns buf
 * (untouched when size is 0). */
const char *resource_list_str(const struct resource_list *l, char *buf,
                              size_t size);

#endif
