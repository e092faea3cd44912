/* resid.h - resource names interned to small dense integer ids.
 *
 * The scheduler keeps per-node and per-quota amounts in arrays indexed by
 * resource id, and plugins see ids (ordo_resource_id) rather than strings.
 * Ids are process-wide and never reused; the table only grows. */
#ifndef ORDO_RESID_H
#define ORDO_RESID_H

#include <stdint.h>

#define RESID_NONE (-1)

/* The id of name, adding it when new. RESID_NONE on OOM. */
int32_t resid_intern(const char *name);
/* The id of name, or RESID_NONE when it was never interned. */
int32_t resid_lookup(const char *name);
/* The name of id (owned by the table), NULL when out of range. */
const char *resid_name(int32_t id);
/* Number of ids so far (arrays indexed by id need this many slots). */
int32_t resid_count(void);
/* Frees the table (at exit, for leak checkers). */
void resid_reset(void);

#endif
