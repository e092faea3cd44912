/* fuzz_config.c - libFuzzer target for the scheduler configuration file
 * (sched/sched_config.c, config_load_buffer).
 *
 * Loads the input, from an exact-size copy, as the file "fuzz.yaml" (YAML,
 * or JSON when it starts with '{' or '['). A failure must come with a
 * negative errno, a message naming the file, and cfg back at the defaults;
 * a success must hold only what sched_config.h promises: well-formed plugin
 * names, 1 to CONFIG_MAX_PLACE distinct PLACE plugins weighted 1 to 100,
 * distinct pluginConfig names whose args are maps and are found by
 * config_plugin_args(), one fair-sharing strategy or both in order. Any
 * violation aborts. Releasing twice must be harmless. Seeds live in
 * tests/fuzz/corpus/config/. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_NAME "fuzz.yaml"

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_config: broken promise: %s\n", what);
        abort();
    }
}

static bool valid_name(const char *s)
{
    size_t len = s ? strlen(s) : 0;
    if (len < 1 || len > 63)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return false;
    return true;
}

/* cfg holds exactly the built-in defaults. */
static bool is_default(const struct sched_config *cfg)
{
    struct sched_config d;
    config_init_defaults(&d);
    return !cfg->doc && !cfg->file && !cfg->args && cfg->n_args == 0 &&
           strcmp(cfg->queue_strict_fifo, d.queue_strict_fifo) == 0 &&
           strcmp(cfg->queue_best_effort_fifo, d.queue_best_effort_fifo) == 0 &&
           strcmp(cfg->quota, d.quota) == 0 && cfg->preempt &&
           strcmp(cfg->preempt, d.preempt) == 0 && cfg->n_place == 1 &&
           strcmp(cfg->place[0].name, d.place[0].name) == 0 &&
           cfg->place[0].weight == 1 && !cfg->fair_sharing &&
           cfg->n_fs_strategies == 2 && cfg->fs_strategies[0] == 1 &&
           cfg->fs_strategies[1] == 2;
}

static void check_loaded(const struct sched_config *cfg)
{
    check(cfg->doc != NULL, "a loaded config keeps its doc");
    check(cfg->file && strcmp(cfg->file, FILE_NAME) == 0,
          "a loaded config names its file");
    check(valid_name(cfg->queue_strict_fifo), "plugins.queue.strictFIFO");
    check(valid_name(cfg->queue_best_effort_fifo),
          "plugins.queue.bestEffortFIFO");
    check(valid_name(cfg->quota), "plugins.quota");
    check(!cfg->preempt || !*cfg->preempt || valid_name(cfg->preempt),
          "plugins.preempt");
    check(cfg->n_place >= 1 && cfg->n_place <= CONFIG_MAX_PLACE,
          "1 to CONFIG_MAX_PLACE place plugins");
    for (size_t i = 0; i < cfg->n_place; i++) {
        check(valid_name(cfg->place[i].name), "plugins.place[].name");
        check(cfg->place[i].weight >= 1 && cfg->place[i].weight <= 100,
              "plugins.place[].weight 1 to 100");
        for (size_t j = 0; j < i; j++)
            check(strcmp(cfg->place[i].name, cfg->place[j].name) != 0,
                  "place plugins are distinct");
    }
    check(cfg->n_args == 0 || cfg->args != NULL, "pluginConfig array");
    for (size_t i = 0; i < cfg->n_args; i++) {
        const struct config_plugin_args *a = &cfg->args[i];
        check(valid_name(a->name), "pluginConfig[].name");
        check(!a->args || a->args->type == DOC_MAP, "pluginConfig[].args map");
        check(!a->args || !doc_is_null(a->args), "null args read as absent");
        check(config_plugin_args(cfg, a->name) == a->args,
              "config_plugin_args finds each entry");
        for (size_t j = 0; j < i; j++)
            check(strcmp(a->name, cfg->args[j].name) != 0,
                  "pluginConfig names are distinct");
    }
    check(config_plugin_args(cfg, "") == NULL, "no plugin is named \"\"");
    check(cfg->n_fs_strategies == 1 || cfg->n_fs_strategies == 2,
          "one or two fair-sharing strategies");
    if (cfg->n_fs_strategies == 2)
        check(cfg->fs_strategies[0] == 1 && cfg->fs_strategies[1] == 2,
              "two strategies are in Kueue's order");
    else
        check(cfg->fs_strategies[0] == 1 || cfg->fs_strategies[0] == 2,
              "a known strategy");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: no NUL terminator to lean on. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);

    struct sched_config cfg;
    struct err e;
    memset(&e, 0, sizeof(e));
    int rc = config_load_buffer(&cfg, buf, size, FILE_NAME, &e);
    if (rc < 0) {
        check(rc >= -4095, "a failure is a negative errno");
        check(strncmp(e.msg, FILE_NAME, strlen(FILE_NAME)) == 0,
              "the message names the file");
        check(is_default(&cfg), "a failed load leaves the defaults");
    } else {
        check(rc == 0, "success is 0");
        check_loaded(&cfg);
    }
    config_release(&cfg);
    check(is_default(&cfg), "release leaves the defaults");
    config_release(&cfg);
    free(buf);
    return 0;
}
