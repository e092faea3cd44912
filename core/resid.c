/* resid.c - the process-wide resource name table (see resid.h). */
#include "resid.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "grow.h"

struct resid_entry {
    char *name;
    int32_t id;
    UT_hash_handle hh;
};

static struct resid_entry *resid_by_name;
static struct resid_entry **resid_by_id;
/* Entries of resid_by_id and its slots. Ids are int32_t (ordo_resource_id
 * of the plugin ABI), so the table stops at INT32_MAX entries. */
static size_t resid_n, resid_cap;

int32_t resid_lookup(const char *name)
{
    struct resid_entry *e = NULL;
    if (!name)
        return RESID_NONE;
    HASH_FIND_STR(resid_by_name, name, e);
    return e ? e->id : RESID_NONE;
}

int32_t resid_intern(const char *name)
{
    int32_t id = resid_lookup(name);
    if (id != RESID_NONE || !name)
        return id;
    if (resid_n >= INT32_MAX || GROW_ARRAY(resid_by_id, resid_n, resid_cap) < 0)
        return RESID_NONE;
    struct resid_entry *e = calloc(1, sizeof(*e));
    if (!e || !(e->name = strdup(name))) {
        free(e);
        return RESID_NONE;
    }
    e->id = (int32_t)resid_n;
    resid_by_id[resid_n++] = e;
    HASH_ADD_KEYPTR(hh, resid_by_name, e->name, strlen(e->name), e);
    return e->id;
}

const char *resid_name(int32_t id)
{
    return id >= 0 && (size_t)id < resid_n ? resid_by_id[id]->name : NULL;
}

int32_t resid_count(void)
{
    return (int32_t)resid_n; /* at most INT32_MAX (resid_intern) */
}

void resid_reset(void)
{
    HASH_CLEAR(hh, resid_by_name);
    for (size_t i = 0; i < resid_n; i++) {
        free(resid_by_id[i]->name);
        free(resid_by_id[i]);
    }
    free(resid_by_id);
    resid_by_id = NULL;
    resid_n = resid_cap = 0;
}
