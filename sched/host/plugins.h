/* plugins.h - plugin instances: the plugins the configuration names,
 * loaded from the plugin directory and initialised with the host table.
 *
 * struct ordo_plugin (opaque to plugins) is the host's record of one
 * initialised plugin: its descriptor, its state (self) and its arguments. */
#ifndef ORDO_PLUGINS_H
#define ORDO_PLUGINS_H

#include "sched_config.h"
#include "err.h"
#include "ordo/plugin.h"
#include "plugin_loader.h"

struct ordo_plugin {
    const struct ordo_plugin_descriptor *desc;
    void *self;
    const struct doc_node *args; /* pluginConfig args, or NULL */
    int64_t weight;              /* PLACE plugins */
    bool initialised;
};

struct plugin_registry {
    struct plugin_set loaded; /* every .so in the directory */
    struct ordo_plugin *queue_strict;
    struct ordo_plugin *queue_best_effort;
    struct ordo_plugin *quota;
    struct ordo_plugin *preempt; /* NULL: no preemption */
    size_t n_place;
    struct ordo_plugin *place[CONFIG_MAX_PLACE];
    /* The host table every plugin is given (plugins_start). */
    const struct ordo_host *host;
    /* All instances, for fini. */
    size_t n_all;
    struct ordo_plugin *all[CONFIG_MAX_PLACE + 4];
};

/* Loads the plugin directory, picks the plugins cfg names (checking their
 * kind), and initialises each with the host table `host` (the cycle's,
 * host_table()). On failure everything is undone and e says which plugin
 * and why. */
int plugins_start(struct plugin_registry *r, const struct sched_config *cfg,
                  const char *dir, const struct ordo_host *host,
                  struct err *e);

/* Calls fini on every initialised plugin and unloads them. NULL-safe. */
void plugins_stop(struct plugin_registry *r);

#endif
