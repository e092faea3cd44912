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
    /* host->now: the scheduler's clock (plugins_set_clock); NULL before a
     * scheduler runs the plugin: the wall clock. */
    const int64_t *clock_ns;
    /* It called host->now: a QUEUE plugin's order then depends on the
     * clock, and queue_sort sorts again whenever the clock moved. */
    bool reads_clock;
};

/* Where plugins are searched, in order (plugins_search_path). */
#define PLUGIN_PATH_MAX (2 * CONFIG_MAX_PLUGIN_DIRS + 1)
struct plugin_path {
    size_t n;
    char *dirs[PLUGIN_PATH_MAX]; /* owned */
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

/* The search path: the n_dirs directories given (--plugin-dir, in
 * order), then cfg's pluginDirs (a relative one taken from the directory
 * of cfg's file), then `builtin` unless cfg->builtin_plugin_dir is false
 * or it is listed already; a directory listed twice is searched once.
 * Returns 0, or -E2BIG / -ENOMEM with e. Release with plugin_path_release. */
int plugins_search_path(const char *const *dirs, size_t n_dirs,
                        const struct sched_config *cfg, const char *builtin,
                        struct plugin_path *ret, struct err *e);
/* NULL-safe; leaves p empty. */
void plugin_path_release(struct plugin_path *p);

/* Loads every plugin of the search path (the first of a name wins, see
 * plugin_set_open_path), picks the plugins cfg names (checking their kind
 * and, for plugins that declare them, their pluginConfig args), and
 * initialises each with the host table `host` (the cycle's, host_table()).
 * On failure everything is undone and e says which plugin and why. */
int plugins_start_path(struct plugin_registry *r,
                       const struct sched_config *cfg,
                       const struct plugin_path *path,
                       const struct ordo_host *host, struct err *e);

/* plugins_start_path with the search path of cfg and builtin directory
 * dir (no --plugin-dir). */
int plugins_start(struct plugin_registry *r, const struct sched_config *cfg,
                  const char *dir, const struct ordo_host *host,
                  struct err *e);

/* Checks the args map of pluginConfig entry `index` of cfg against what
 * plugin d declares (ABI 1.4; nothing to check for older plugins or none
 * declared): an undeclared argument or a value of the wrong type is an
 * error naming the file, line, field, plugin and argument, with the
 * closest declared name when one is close. */
int plugins_check_args(const struct sched_config *cfg,
                       const struct ordo_plugin_descriptor *d,
                       const struct doc_node *args, struct err *e);

/* Points every instance's host->now at now_ns (the scheduler's clock,
 * which must outlive the plugins' use of it). */
void plugins_set_clock(const struct plugin_registry *r, const int64_t *now_ns);

/* Calls fini on every initialised plugin and unloads them. NULL-safe. */
void plugins_stop(struct plugin_registry *r);

#endif
