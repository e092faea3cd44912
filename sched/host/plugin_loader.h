/* plugin_loader.h - finding, checking and loading plugin shared objects.
 *
 * Every rule is checked before a plugin is used, in this order: the file
 * opens with dlopen(RTLD_NOW | RTLD_LOCAL); it exports ORDO_PLUGIN_SYMBOL;
 * the descriptor's ABI major equals the host's and its minor is not newer;
 * struct_size covers the fields that minor defines; the kind is known; the
 * name is well formed; the ops of its kind are set; its declared arguments
 * (ABI 1.4) have names, known types and defaults of their type; and the
 * name is not taken by another plugin. */
#ifndef ORDO_PLUGIN_LOADER_H
#define ORDO_PLUGIN_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "ordo/plugin.h"

struct loaded_plugin {
    char *path; /* owned */
    void *handle; /* dlopen handle; dlclose'd by plugin_set_release */
    const struct ordo_plugin_descriptor *desc; /* inside the .so */
};

struct plugin_set {
    size_t n, cap;
    struct loaded_plugin *items;
};

void plugin_set_init(struct plugin_set *s);
/* dlcloses every plugin. NULL-safe. */
void plugin_set_release(struct plugin_set *s);

/* Opens one .so and checks its descriptor (no init). On success appends it
 * to s and returns 0; otherwise returns a negative errno with e saying
 * "path: what is wrong". -EPERM: refused unopened, because others could
 * have written it (world-writable file, or its directory world-writable
 * without the sticky bit, or sticky but the file another user's). */
int plugin_set_open(struct plugin_set *s, const char *path, struct err *e);

/* Opens every *.so in dir, in name order. Stops at the first bad plugin. */
int plugin_set_open_dir(struct plugin_set *s, const char *dir, struct err *e);

/* Opens the n directories dirs in order (a search path): a plugin whose
 * name a plugin of an earlier directory has is skipped with a warning
 * naming both paths (the first wins); within one directory a duplicate
 * name is an error as above. Stops at the first bad plugin or unreadable
 * directory. */
int plugin_set_open_path(struct plugin_set *s, const char *const *dirs,
                         size_t n, struct err *e);

/* The plugin directory to use when none is given: the build tree's when the
 * running binary is in the build tree, else the install directory. Returns
 * a static string. */
const char *plugin_default_dir(void);

/* Most arguments a plugin may declare. */
#define PLUGIN_ARGS_MAX 64

/* The arguments d declares (ABI 1.4; NULL with *ret_n = 0 for an older
 * descriptor or none). Points into the plugin. */
const struct ordo_arg *plugin_declared_args(
    const struct ordo_plugin_descriptor *d, uint32_t *ret_n);

/* "int", "string", "quantity", "duration", "bool", "string list", or NULL
 * when unknown. */
const char *plugin_arg_type_name(uint32_t type);

/* "queue", "quota", "preempt", "place", or NULL when unknown. */
const char *plugin_kind_name(unsigned kind);

#endif
