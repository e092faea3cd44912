/* sched_config.h - the scheduler configuration file (--config FILE).
 *
 *   apiVersion: ordo.dev/v1alpha1
 *   kind: SchedulerConfiguration
 *   plugins:
 *     queue:                       # QUEUE plugin per ClusterQueue strategy
 *       strictFIFO: strict-fifo
 *       bestEffortFIFO: best-effort-fifo
 *     quota: kueue-quota           # exactly one QUOTA plugin
 *     preempt: kueue-preempt       # PREEMPT plugin; "" = no preemption
 *     place:                       # PLACE plugins: all filter, scores weighted
 *     - name: resource-fit
 *       weight: 1
 *   pluginConfig:                  # arguments, by plugin name
 *   - name: resource-fit
 *     args: {scoringStrategy: LeastAllocated}
 *   fairSharing:
 *     enable: false
 *     preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
 *   cycleTimeout: 60s              # watchdog: a longer cycle aborts; 0s = off
 *   pluginDirs: [/opt/ordo/plugins] # searched after --plugin-dir, in order
 *   builtinPluginDir: true         # then the built-in directory (false: not)
 *   podDefaulting:                 # which jobs are Ordo's (queue_rule.h)
 *     manageJobsWithoutQueueName: false
 *     managedJobsNamespaceSelector: # a LabelSelector; default: metadata.name
 *       matchExpressions: [...]     #   NotIn [kube-system, namespace]
 *     namespace: ordo-system        # the scheduler's own namespace
 *
 * The file (YAML or JSON) holds exactly one document. apiVersion and kind
 * are required and must be exactly as shown; every other field is optional
 * and has the default shown, except pluginConfig, which is empty by default
 * (each plugin then uses its own defaults). A null value is the same as an
 * absent field: for a plugin slot, the default plugin of that kind. An
 * explicit "" turns off a kind that is optional (plugins.preempt only) and
 * is an error for the required ones (queue, quota, place). cycleTimeout is
 * a Go duration ("30s", "1m30s"), overridden by --cycle-timeout.
 * Plugin names are 1 to 63 characters a-z, 0-9 or '-'. place, when given,
 * lists 1 to CONFIG_MAX_PLACE plugins, each at most once; pluginConfig names
 * each plugin at most once, and its args, when given, must be a map (what is
 * in it is the plugin's business). Validation is strict: an unknown field, a
 * wrong type or a bad value is an error naming the file, line and field, as
 * in "config.yaml:7: plugins.place[1].weight: must be 1 to 100, got 0"
 * (":7" is left out for JSON, which has no lines; for an unknown field whose
 * value is a block map or list, the line is that of the value's first
 * entry). Whether the named plugins exist and are of the right kind is
 * checked when they are loaded (plugins.c). */
#ifndef ORDO_SCHED_CONFIG_H
#define ORDO_SCHED_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc.h"
#include "err.h"
#include "queue_rule.h"

#define CONFIG_API_VERSION     "ordo.dev/v1alpha1"
#define CONFIG_KIND            "SchedulerConfiguration"
#define CONFIG_MAX_PLACE       16
#define CONFIG_MAX_PLUGIN_DIRS 16

struct config_place {
    const char *name;
    int64_t weight; /* 1..100, default 1 */
};

struct config_plugin_args {
    const char *name;
    const struct doc_node *args; /* a map; owned by the config's doc */
};

/* Told a warning of a configuration load ("file:line: path: what"). */
typedef void (*config_warn_fn)(const char *msg, void *userdata);

struct sched_config {
    struct doc *doc;  /* NULL for the built-in defaults */
    const char *file; /* as given to config_load(); NULL for the defaults */
    const char *queue_strict_fifo;      /* default "strict-fifo" */
    const char *queue_best_effort_fifo; /* default "best-effort-fifo" */
    const char *quota;                  /* default "kueue-quota" */
    const char *preempt;                /* default "kueue-preempt"; NULL =
                                           no preemption ("" in the file) */
    size_t n_place;
    struct config_place place[CONFIG_MAX_PLACE]; /* default resource-fit x1 */
    size_t n_args;
    struct config_plugin_args *args; /* owned */
    bool fair_sharing;               /* fairSharing.enable, default false */
    /* fairSharing.preemptionStrategies: 1 = LessThanOrEqualToFinalShare,
     * 2 = LessThanInitialShare; default both, in that order. */
    uint32_t fs_strategies[2];
    size_t n_fs_strategies;
    int64_t cycle_timeout_ns; /* cycleTimeout, default 60s; 0 = no watchdog */
    /* pluginDirs, as written (a relative one is relative to the file's
     * directory: plugins_search_path), and builtinPluginDir (default
     * true): whether the built-in directory is searched last. */
    size_t n_plugin_dirs;
    const char *plugin_dirs[CONFIG_MAX_PLUGIN_DIRS];
    bool builtin_plugin_dir;
    /* podDefaulting: Kueue's manageJobsWithoutQueueName,
     * managedJobsNamespaceSelector and namespace, for the webhook and the
     * simulator's load. The selector and strings are owned (rule_arena). */
    struct queue_rule pod_defaulting;
    struct label_selector pod_defaulting_selector;
    struct arena *rule_arena;
    /* How config_load_checked() reports an unknown field: warn (not NULL)
     * is told and the field ignored, unless strict (then it fails, as
     * config_load() always does). Not owned; set for one load. */
    bool strict;
    config_warn_fn warn;
    void *warn_data;
};

/* Fills cfg with the defaults (no file). String fields point to static
 * strings or, once loaded, into doc. */
void config_init_defaults(struct sched_config *cfg);

/* Loads and validates path into cfg (defaults for what is absent); cfg is
 * overwritten, not released first. Returns 0, or a negative errno with e =
 * "path:line: field.path: what is wrong" (or "path: ..." when the file
 * cannot be read or holds no document). On failure cfg is left released
 * (the defaults); config_release() is safe either way. */
int config_load(struct sched_config *cfg, const char *path, struct err *e);

/* config_load(), except that an unknown field is a warning told to warn
 * (the field ignored) unless strict: --config without --strict, as
 * kubectl's field validation warns. Every other error fails as in
 * config_load(). */
int config_load_checked(struct sched_config *cfg, const char *path, bool strict,
                        config_warn_fn warn, void *userdata, struct err *e);

/* Parses a configuration held in memory (tests); same rules, and JSON when
 * the first non-blank byte is '{' or '[' as for doc_load_file(). file names
 * the input in messages (NULL: "<input>"). */
int config_load_buffer(struct sched_config *cfg, const char *buf, size_t len,
                       const char *file, struct err *e);

/* Frees the doc and the args array and resets cfg to the defaults, so that
 * releasing again is harmless. NULL-safe. */
void config_release(struct sched_config *cfg);

/* The args map of plugin `name` (pluginConfig), or NULL when the plugin
 * has no entry or its args are absent or null. Owned by cfg. */
const struct doc_node *config_plugin_args(const struct sched_config *cfg,
                                          const char *name);

#endif
