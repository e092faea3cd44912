/* plugin_loader.h - finding, checking and loading plugin shared objects.
 *
 * Every rule is checked before a plugin is used, in this order: the file
 * opens with dlopen(RTLD_NOW | RTLD_LOCAL); it exports ORDO_PLUGIN_SYMBOL;
 * the descriptor's ABI major equals the host's and its minor is not newer;
 * struct_size covers the fields that minor defines; the kind is known; the
 * name is well formed and not taken by another plugin. */
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
 * "path: what is wrong". */
int plugin_set_open(struct plugin_set *s, const char *path, struct err *e);

/* Opens every *.so in dir, in name order. Stops at the first bad plugin. */
int plugin_set_open_dir(struct plugin_set *s, const char *dir, struct err *e);

/* The plugin directory to use when none is given: the build tree's when the
 * running binary is in the build tree, else the install directory. Returns
 * a static string. */
const char *plugin_default_dir(void);

/* "queue", "quota", "preempt", "place", or NULL when unknown. */
const char *plugin_kind_name(unsigned kind);

#endif
