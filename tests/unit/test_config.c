/* test_config.c - unit tests for sched/config.c: defaults, loading valid
 * YAML and JSON configurations, and the exact messages (file, line, field
 * path) of each validation error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched_config.h"
#include "strmap.h"
#include "doc.h"
#include "err.h"
#include "test_helpers.h"

#define HEADER "apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\n"

/* ---- helpers ----------------------------------------------------------- */

/* Loads text (as file "c.yaml") and expects success. */
static void load_ok(struct sched_config *cfg, const char *text)
{
    struct err e = {{0}};
    int rc = config_load_buffer(cfg, text, strlen(text), "c.yaml", &e);
    if (rc != 0)
        print_error("unexpected error: %s\n", e.msg);
    assert_int_equal(rc, 0);
}

/* Loads text and expects -EINVAL with a message containing want; cfg must
 * still be releasable (twice). */
static void load_fails(const char *text, const char *want)
{
    struct sched_config cfg;
    struct err e = {{0}};
    int rc = config_load_buffer(&cfg, text, strlen(text), "c.yaml", &e);
    assert_int_equal(rc, -EINVAL);
    assert_contains(e.msg, want);
    config_release(&cfg);
    config_release(&cfg);
}

/* Writes text to a new temporary file; returns its path (free it). */
static char *temp_file(const char *text, const char *suffix)
{
    char *path = NULL;
    assert_true(asprintf(&path, "/tmp/test_config_XXXXXX%s", suffix) > 0);
    int fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

static void assert_defaults(const struct sched_config *cfg)
{
    assert_string_equal(cfg->queue_strict_fifo, "strict-fifo");
    assert_string_equal(cfg->queue_best_effort_fifo, "best-effort-fifo");
    assert_string_equal(cfg->quota, "kueue-quota");
    assert_string_equal(cfg->preempt, "kueue-preempt");
    assert_int_equal(cfg->n_place, 1);
    assert_string_equal(cfg->place[0].name, "resource-fit");
    assert_int_equal(cfg->place[0].weight, 1);
    assert_int_equal(cfg->n_args, 0);
    assert_null(cfg->args);
    assert_false(cfg->fair_sharing);
    assert_int_equal(cfg->cycle_timeout_ns, 60LL * 1000000000);
}

/* ---- valid configurations ---------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    struct sched_config cfg;
    config_init_defaults(&cfg);
    assert_null(cfg.doc);
    assert_null(cfg.file);
    assert_defaults(&cfg);
    assert_null(config_plugin_args(&cfg, "resource-fit"));
    config_release(&cfg);
    assert_defaults(&cfg);
    config_release(&cfg);
    config_release(NULL);
}

static void test_header_only(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER);
    assert_non_null(cfg.doc);
    assert_string_equal(cfg.file, "c.yaml");
    assert_defaults(&cfg);
    config_release(&cfg);
}

static void test_full(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER "plugins:\n"
                         "  queue:\n"
                         "    strictFIFO: my-strict\n"
                         "    bestEffortFIFO: my-be\n"
                         "  quota: my-quota\n"
                         "  preempt: my-preempt\n"
                         "  place:\n"
                         "  - name: resource-fit\n"
                         "    weight: 2\n"
                         "  - name: node-affinity\n"
                         "  - name: topo-1\n"
                         "    weight: 100\n"
                         "pluginConfig:\n"
                         "- name: resource-fit\n"
                         "  args: {scoringStrategy: LeastAllocated}\n"
                         "- name: node-affinity\n"
                         "- name: topo-1\n"
                         "  args: ~\n"
                         "fairSharing:\n"
                         "  enable: true\n");
    assert_string_equal(cfg.queue_strict_fifo, "my-strict");
    assert_string_equal(cfg.queue_best_effort_fifo, "my-be");
    assert_string_equal(cfg.quota, "my-quota");
    assert_string_equal(cfg.preempt, "my-preempt");
    assert_int_equal(cfg.n_place, 3);
    assert_string_equal(cfg.place[0].name, "resource-fit");
    assert_int_equal(cfg.place[0].weight, 2);
    assert_string_equal(cfg.place[1].name, "node-affinity");
    assert_int_equal(cfg.place[1].weight, 1);
    assert_string_equal(cfg.place[2].name, "topo-1");
    assert_int_equal(cfg.place[2].weight, 100);
    assert_int_equal(cfg.n_args, 3);
    assert_true(cfg.fair_sharing);

    const struct doc_node *a = config_plugin_args(&cfg, "resource-fit");
    assert_non_null(a);
    assert_int_equal(a->type, DOC_MAP);
    const char *s = NULL;
    assert_int_equal(doc_get_string(doc_map_get(a, "scoringStrategy"), &s), 0);
    assert_string_equal(s, "LeastAllocated");
    config_release(&cfg);
    assert_defaults(&cfg);
    assert_null(cfg.doc);
}

static void test_partial_keeps_defaults(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER "plugins:\n"
                         "  queue:\n"
                         "    bestEffortFIFO: other-be\n"
                         "fairSharing: {}\n");
    assert_string_equal(cfg.queue_strict_fifo, "strict-fifo");
    assert_string_equal(cfg.queue_best_effort_fifo, "other-be");
    assert_string_equal(cfg.quota, "kueue-quota");
    assert_string_equal(cfg.preempt, "kueue-preempt");
    assert_int_equal(cfg.n_place, 1);
    assert_string_equal(cfg.place[0].name, "resource-fit");
    assert_false(cfg.fair_sharing);
    config_release(&cfg);
}

static void test_nulls_are_absent(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER "plugins:\n"
                         "  queue: ~\n"
                         "  quota:\n"
                         "  place: null\n"
                         "pluginConfig: []\n"
                         "fairSharing:\n"
                         "  enable:\n");
    assert_defaults(&cfg);
    config_release(&cfg);

    /* preempt "" turns preemption off; absent keeps the default */
    load_ok(&cfg, HEADER "plugins:\n  preempt: \"\"\n");
    assert_null(cfg.preempt);
    config_release(&cfg);
}

/* One rule for every plugin slot: absent or null is the default plugin of
 * the kind, whichever way null is written; "" turns off only the optional
 * kind (preempt) and is an error naming the field for the required ones. */
static void test_plugin_slot_rule(void **state)
{
    (void)state;
    static const char *const nulls[] = {"~", "null", "", "Null"};
    struct sched_config cfg;
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        char text[512];
        snprintf(text, sizeof(text),
                 HEADER "plugins:\n"
                        "  queue: {strictFIFO: %s, bestEffortFIFO: %s}\n"
                        "  quota: %s\n"
                        "  preempt: %s\n"
                        "  place: %s\n",
                 nulls[i], nulls[i], nulls[i], nulls[i], nulls[i]);
        load_ok(&cfg, text);
        assert_defaults(&cfg);
        config_release(&cfg);
    }
    load_ok(&cfg, HEADER "plugins:\n  preempt: ''\n");
    assert_null(cfg.preempt);
    config_release(&cfg);
    load_ok(&cfg, "{\"apiVersion\": \"ordo.dev/v1alpha1\", \"kind\": "
                  "\"SchedulerConfiguration\", \"plugins\": {\"preempt\": "
                  "null, \"quota\": null}}");
    assert_defaults(&cfg);
    config_release(&cfg);

    const char *want = "must name a plugin (\"\" turns off only "
                       "plugins.preempt; leave it out for the default)";
    char msg[256];
    snprintf(msg, sizeof(msg), "c.yaml:4: plugins.quota: %s", want);
    load_fails(HEADER "plugins:\n  quota: \"\"\n", msg);
    snprintf(msg, sizeof(msg), "c.yaml:5: plugins.queue.strictFIFO: %s", want);
    load_fails(HEADER "plugins:\n  queue:\n    strictFIFO: ''\n", msg);
    snprintf(msg, sizeof(msg), "c.yaml:5: plugins.queue.bestEffortFIFO: %s",
             want);
    load_fails(HEADER "plugins:\n  queue:\n    bestEffortFIFO: \"\"\n", msg);
    load_fails(HEADER "plugins:\n  place:\n  - name: \"\"\n",
               "c.yaml:5: plugins.place[0].name: invalid plugin name \"\"");
}

static void test_cycle_timeout(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER "cycleTimeout: 1m30s\n");
    assert_int_equal(cfg.cycle_timeout_ns, 90LL * 1000000000);
    config_release(&cfg);
    assert_int_equal(cfg.cycle_timeout_ns, 60LL * 1000000000);
    load_ok(&cfg, HEADER "cycleTimeout: 0s\n");
    assert_int_equal(cfg.cycle_timeout_ns, 0);
    config_release(&cfg);
    load_ok(&cfg, HEADER "cycleTimeout: 250ms\n");
    assert_int_equal(cfg.cycle_timeout_ns, 250LL * 1000000);
    config_release(&cfg);
    load_ok(&cfg, HEADER "cycleTimeout: ~\n");
    assert_defaults(&cfg);
    config_release(&cfg);

    load_fails(HEADER "cycleTimeout: soon\n",
               "c.yaml:3: cycleTimeout: expected a duration like \"30s\" "
               "(\"0s\": no watchdog), got \"soon\"");
    load_fails(HEADER "cycleTimeout: 30\n",
               "c.yaml:3: cycleTimeout: expected a duration like \"30s\"");
    load_fails(HEADER "cycleTimeout: -5s\n",
               "c.yaml:3: cycleTimeout: expected a duration");
    load_fails(HEADER "cycleTimeout: [30s]\n",
               "c.yaml:3: cycleTimeout: expected a duration like \"30s\" "
               "(\"0s\": no watchdog), got a list");
    load_fails(HEADER "cycleTimeout: 9999999999h\n",
               "c.yaml:3: cycleTimeout: duration \"9999999999h\" is too long");
}

static void test_json_file(void **state)
{
    (void)state;
    char *path = temp_file(
        "{\"apiVersion\": \"ordo.dev/v1alpha1\",\n"
        " \"kind\": \"SchedulerConfiguration\",\n"
        " \"plugins\": {\"quota\": \"q\", \"preempt\": \"\",\n"
        "   \"place\": [{\"name\": \"a\", \"weight\": 5}, {\"name\": "
        "\"b\"}]},\n"
        " \"pluginConfig\": [{\"name\": \"a\", \"args\": {\"k\": 1}}],\n"
        " \"fairSharing\": {\"enable\": true}}\n",
        ".json");
    struct sched_config cfg;
    struct err e = {{0}};
    int rc = config_load(&cfg, path, &e);
    if (rc != 0)
        print_error("unexpected error: %s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_string_equal(cfg.file, path);
    assert_string_equal(cfg.quota, "q");
    assert_null(cfg.preempt);
    assert_int_equal(cfg.n_place, 2);
    assert_int_equal(cfg.place[0].weight, 5);
    assert_int_equal(cfg.place[1].weight, 1);
    assert_non_null(config_plugin_args(&cfg, "a"));
    assert_true(cfg.fair_sharing);
    config_release(&cfg);
    unlink(path);
    free(path);
}

struct warnings {
    int n;
    char last[ERR_MSG_MAX];
};

static void count_warning(const char *msg, void *userdata)
{
    struct warnings *w = userdata;
    w->n++;
    snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* config_load_checked(): an unknown field at any depth is a warning (the
 * field ignored, the rest read) unless strict; other errors still fail. */
static void test_unknown_field_warns(void **state)
{
    (void)state;
    char *path = temp_file(HEADER "cycleTimout: 10s\n"
                                  "plugins: {quota: q, qeue: {}}\n"
                                  "cycleTimeout: 5s\n",
                           ".yaml");
    struct sched_config cfg;
    struct err e = {{0}};
    struct warnings w = {0};
    assert_int_equal(
        config_load_checked(&cfg, path, false, count_warning, &w, &e), 0);
    assert_int_equal(w.n, 2);
    assert_non_null(strstr(w.last, ":4: plugins.qeue: unknown field (did you "
                                   "mean \"queue\"?)"));
    assert_string_equal(cfg.quota, "q");
    assert_int_equal(cfg.cycle_timeout_ns, 5000000000LL);
    config_release(&cfg);
    w = (struct warnings){0};
    assert_int_equal(
        config_load_checked(&cfg, path, true, count_warning, &w, &e), -EINVAL);
    assert_int_equal(w.n, 0);
    assert_non_null(strstr(e.msg, ":3: cycleTimout: unknown field"));
    config_release(&cfg);
    unlink(path);
    free(path);
    path = temp_file(HEADER "cycleTimeout: soon\n", ".yaml");
    assert_int_equal(
        config_load_checked(&cfg, path, false, count_warning, &w, &e), -EINVAL);
    assert_non_null(strstr(e.msg, ":3: cycleTimeout:"));
    config_release(&cfg);
    unlink(path);
    free(path);
}

static void test_json_error_has_no_line(void **state)
{
    (void)state;
    load_fails("{\"apiVersion\": \"ordo.dev/v1alpha1\","
               " \"kind\": \"SchedulerConfiguration\","
               " \"plugins\": {\"place\": [{\"name\": \"a\", \"weight\": 0}]}}",
               "c.yaml: plugins.place[0].weight: must be 1 to 100, got 0");
}

static void test_yaml_file(void **state)
{
    (void)state;
    char *path = temp_file(HEADER "plugins:\n  quota: from-file\n", ".yaml");
    struct sched_config cfg;
    struct err e = {{0}};
    assert_int_equal(config_load(&cfg, path, &e), 0);
    assert_string_equal(cfg.quota, "from-file");
    config_release(&cfg);
    unlink(path);
    free(path);
}

static void test_plugin_args_lookup(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER "pluginConfig:\n"
                         "- name: one\n"
                         "  args:\n"
                         "    x: 1\n"
                         "- name: two\n");
    assert_int_equal(cfg.n_args, 2);
    const struct doc_node *a = config_plugin_args(&cfg, "one");
    assert_non_null(a);
    int64_t x = 0;
    assert_int_equal(doc_get_int64(doc_map_get(a, "x"), &x), 0);
    assert_int_equal(x, 1);
    assert_null(config_plugin_args(&cfg, "two"));     /* no args */
    assert_null(config_plugin_args(&cfg, "missing")); /* no entry */
    assert_null(config_plugin_args(&cfg, NULL));
    assert_null(config_plugin_args(NULL, "one"));
    config_release(&cfg);
}

/* ---- errors ------------------------------------------------------------ */

static void test_wrong_api_version(void **state)
{
    (void)state;
    load_fails("apiVersion: ordo.dev/v1\nkind: SchedulerConfiguration\n",
               "c.yaml:1: apiVersion: must be ordo.dev/v1alpha1, got "
               "\"ordo.dev/v1\"");
    load_fails("kind: SchedulerConfiguration\n",
               "c.yaml:1: apiVersion: missing (must be ordo.dev/v1alpha1)");
}

static void test_wrong_kind(void **state)
{
    (void)state;
    load_fails("apiVersion: ordo.dev/v1alpha1\nkind: Scheduler\n",
               "c.yaml:2: kind: must be SchedulerConfiguration, got "
               "\"Scheduler\"");
    load_fails("apiVersion: ordo.dev/v1alpha1\nkind: [a]\n",
               "c.yaml:2: kind: must be SchedulerConfiguration, got a list");
}

static void test_not_a_map(void **state)
{
    (void)state;
    load_fails("- a\n- b\n",
               "c.yaml:1: expected a map (a SchedulerConfiguration), got a "
               "list");
}

/* podDefaulting: Kueue's fields, validated at their lines. */
static void test_pod_defaulting(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER);
    assert_false(cfg.pod_defaulting.manage_jobs_without_queue_name);
    assert_null(cfg.pod_defaulting.namespace_selector);
    assert_null(cfg.pod_defaulting.namespace_);
    config_release(&cfg);
    load_ok(&cfg, HEADER "podDefaulting:\n"
                         "  manageJobsWithoutQueueName: true\n"
                         "  namespace: sched\n"
                         "  managedJobsNamespaceSelector:\n"
                         "    matchLabels: {team: ml}\n"
                         "    matchExpressions:\n"
                         "    - {key: tier, operator: NotIn, values: [x]}\n");
    const struct queue_rule *q = &cfg.pod_defaulting;
    assert_true(q->manage_jobs_without_queue_name);
    assert_string_equal(q->namespace_, "sched");
    assert_non_null(q->namespace_selector);
    assert_string_equal(strmap_get(&q->namespace_selector->match_labels,
                                   "team"),
                        "ml");
    assert_int_equal(q->namespace_selector->n_exprs, 1);
    assert_int_equal(q->namespace_selector->exprs[0].op, SELECTOR_OP_NOT_IN);
    config_release(&cfg);
    config_release(&cfg);
    load_fails(HEADER "podDefaulting:\n  manageJobsWithoutQueueName: 3\n",
               "c.yaml:4: podDefaulting.manageJobsWithoutQueueName: expected "
               "a boolean");
    load_fails(HEADER "podDefaulting:\n  namespace: Not_A_Name\n",
               "c.yaml:4: podDefaulting.namespace: ");
    load_fails(HEADER "podDefaulting:\n  manageJobsWithoutQueue: true\n",
               "c.yaml:4: podDefaulting.manageJobsWithoutQueue: unknown "
               "field (did you mean \"manageJobsWithoutQueueName\"?)");
    load_fails(HEADER "podDefaulting: [1]\n",
               "c.yaml:3: podDefaulting: expected a map");
    load_fails(HEADER "podDefaulting:\n"
                      "  managedJobsNamespaceSelector:\n"
                      "    matchExpressions:\n"
                      "    - {key: tier, operator: Near}\n",
               "c.yaml:6: podDefaulting.managedJobsNamespaceSelector."
               "matchExpressions[0].operator: ");
    load_fails(HEADER "podDefaulting:\n"
                      "  managedJobsNamespaceSelector:\n"
                      "    matchLabel: {a: b}\n",
               "c.yaml:5: podDefaulting.managedJobsNamespaceSelector."
               "matchLabel: unknown field");
}

static void test_unknown_top_field(void **state)
{
    (void)state;
    load_fails(HEADER "plugin: {}\n",
               "c.yaml:3: plugin: unknown field (did you mean \"plugins\"?)");
    /* Nothing close: every known field is listed. */
    load_fails(HEADER "scheduler: {}\n",
               "c.yaml:3: scheduler: unknown field (expected one of: "
               "apiVersion, kind, plugins, pluginConfig, fairSharing, "
               "cycleTimeout, pluginDirs, builtinPluginDir, podDefaulting)");
    /* The key's line, not its value's. */
    load_fails(HEADER "cycleTimout:\n  10s\n",
               "c.yaml:3: cycleTimout: unknown field (did you mean "
               "\"cycleTimeout\"?)");
}

/* pluginDirs: a list of directories, kept as written; builtinPluginDir: a
 * boolean, true by default. */
static void test_plugin_dirs(void **state)
{
    (void)state;
    struct sched_config cfg;
    load_ok(&cfg, HEADER);
    assert_int_equal(cfg.n_plugin_dirs, 0);
    assert_true(cfg.builtin_plugin_dir);
    config_release(&cfg);
    load_ok(&cfg,
            HEADER "pluginDirs: [/opt/a, rel/b]\nbuiltinPluginDir: false\n");
    assert_int_equal(cfg.n_plugin_dirs, 2);
    assert_string_equal(cfg.plugin_dirs[0], "/opt/a");
    assert_string_equal(cfg.plugin_dirs[1], "rel/b");
    assert_false(cfg.builtin_plugin_dir);
    config_release(&cfg);
    load_fails(HEADER "pluginDirs: /opt/a\n",
               "c.yaml:3: pluginDirs: expected a list, got a string");
    load_fails(HEADER "pluginDirs: [/a, 5]\n",
               "pluginDirs[1]: expected a directory, got a number");
    load_fails(HEADER "builtinPluginDir: sometimes\n",
               "c.yaml:3: builtinPluginDir: expected a boolean, got a string");
}

static void test_unknown_nested_fields(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  quota: q\n  qeue: x\n",
               "c.yaml:5: plugins.qeue: unknown field");
    load_fails(HEADER "plugins:\n  queue:\n    strictFifo: x\n",
               "c.yaml:5: plugins.queue.strictFifo: unknown field");
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n    wieght: 2\n",
               "c.yaml:6: plugins.place[0].wieght: unknown field "
               "(did you mean \"weight\"?)");
    load_fails(HEADER "pluginConfig:\n- name: a\n  arg: {}\n",
               "c.yaml:5: pluginConfig[0].arg: unknown field");
    load_fails(HEADER "fairSharing:\n  enabled: true\n",
               "c.yaml:4: fairSharing.enabled: unknown field");
}

static void test_bad_plugin_names(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  quota: Nominal_Quota\n",
               "c.yaml:4: plugins.quota: invalid plugin name "
               "\"Nominal_Quota\": must be 1 to 63 characters a-z, 0-9 or "
               "'-'");
    load_fails(HEADER "plugins:\n  quota: \"\"\n",
               "c.yaml:4: plugins.quota: must name a plugin");
    load_fails(HEADER "plugins:\n  preempt: x.y\n",
               "c.yaml:4: plugins.preempt: invalid plugin name \"x.y\"");
    load_fails(HEADER "plugins:\n  queue: {strictFIFO: 12}\n",
               "c.yaml:4: plugins.queue.strictFIFO: expected a plugin name, "
               "got a number");
    load_fails(HEADER "plugins:\n  quota: "
                      "a234567890123456789012345678901234567890123456789012"
                      "345678901234\n",
               "c.yaml:4: plugins.quota: invalid plugin name");
    load_fails(HEADER "pluginConfig:\n- name: A\n",
               "c.yaml:4: pluginConfig[0].name: invalid plugin name \"A\"");
}

static void test_wrong_types(void **state)
{
    (void)state;
    load_fails(HEADER "plugins: [a]\n",
               "c.yaml:3: plugins: expected a map, got a list");
    load_fails(HEADER "plugins:\n  place: {name: a}\n",
               "c.yaml:4: plugins.place: expected a list, got a map");
    load_fails(HEADER "plugins:\n  place:\n  - a\n",
               "c.yaml:5: plugins.place[0]: expected a map, got a string");
    load_fails(HEADER "pluginConfig: {name: a}\n",
               "c.yaml:3: pluginConfig: expected a list, got a map");
}

static void test_place_empty(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  place: []\n",
               "c.yaml:4: plugins.place: must name at least one plugin");
}

static void test_place_too_many(void **state)
{
    (void)state;
    char text[2048];
    size_t len = (size_t)snprintf(text, sizeof(text), "%s",
                                  HEADER "plugins:\n  place:\n");
    for (int i = 0; i <= CONFIG_MAX_PLACE; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "  - name: p%d\n", i);
    load_fails(text, "c.yaml:5: plugins.place: at most 16 plugins, got 17");
}

static void test_place_name_missing(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  place:\n  - weight: 3\n",
               "c.yaml:5: plugins.place[0].name: missing");
}

static void test_place_weight(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n  - name: b\n"
                      "    weight: 0\n",
               "c.yaml:7: plugins.place[1].weight: must be 1 to 100, got 0");
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n    weight: 101\n",
               "c.yaml:6: plugins.place[0].weight: must be 1 to 100, got "
               "101");
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n    weight: x\n",
               "c.yaml:6: plugins.place[0].weight: expected an integer, got a "
               "string");
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n    weight: \"5\"\n",
               "c.yaml:6: plugins.place[0].weight: expected an integer, got a "
               "string");
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n"
                      "    weight: 99999999999999999999\n",
               "c.yaml:6: plugins.place[0].weight: must be 1 to 100, got "
               "99999999999999999999");
}

static void test_place_duplicate(void **state)
{
    (void)state;
    load_fails(HEADER "plugins:\n  place:\n  - name: a\n  - name: b\n"
                      "  - name: a\n",
               "c.yaml:7: plugins.place[2].name: duplicate plugin \"a\" "
               "(also plugins.place[0])");
}

static void test_plugin_config_duplicate(void **state)
{
    (void)state;
    load_fails(HEADER "pluginConfig:\n- name: a\n- name: a\n  args: {}\n",
               "c.yaml:5: pluginConfig[1].name: duplicate plugin \"a\" "
               "(also pluginConfig[0])");
}

static void test_plugin_config_name_missing(void **state)
{
    (void)state;
    load_fails(HEADER "pluginConfig:\n- args: {}\n",
               "c.yaml:4: pluginConfig[0].name: missing");
}

static void test_args_not_a_map(void **state)
{
    (void)state;
    load_fails(HEADER "pluginConfig:\n- name: a\n  args: [1, 2]\n",
               "c.yaml:5: pluginConfig[0].args: expected a map, got a list");
    load_fails(HEADER "pluginConfig:\n- name: a\n  args: text\n",
               "c.yaml:5: pluginConfig[0].args: expected a map, got a "
               "string");
}

static void test_fair_sharing_enable(void **state)
{
    (void)state;
    load_fails(HEADER "fairSharing:\n  enable: \"yes\"\n",
               "c.yaml:4: fairSharing.enable: expected a boolean, got a "
               "string");
    load_fails(HEADER "fairSharing:\n  enable: 1\n",
               "c.yaml:4: fairSharing.enable: expected a boolean, got a "
               "number");
    load_fails(HEADER "fairSharing: true\n",
               "c.yaml:3: fairSharing: expected a map, got a boolean");

    struct sched_config cfg;
    load_ok(&cfg, HEADER "fairSharing:\n  enable: yes\n"); /* YAML 1.1 */
    assert_true(cfg.fair_sharing);
    config_release(&cfg);
}

static void test_two_documents(void **state)
{
    (void)state;
    load_fails(HEADER "---\n" HEADER,
               "c.yaml:4: expected one document, found 2");
}

static void test_empty(void **state)
{
    (void)state;
    load_fails("", "c.yaml: no document: expected one SchedulerConfiguration");
    load_fails("# only a comment\n---\n",
               "c.yaml: no document: expected one SchedulerConfiguration");

    char *path = temp_file("", ".yaml");
    struct sched_config cfg;
    struct err e = {{0}};
    assert_int_equal(config_load(&cfg, path, &e), -EINVAL);
    char want[256];
    snprintf(want, sizeof(want), "%s: no document", path);
    assert_contains(e.msg, want);
    config_release(&cfg);
    unlink(path);
    free(path);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct sched_config cfg;
    struct err e = {{0}};
    const char *path = "/nonexistent/ordo-config.yaml";
    assert_int_equal(config_load(&cfg, path, &e), -ENOENT);
    assert_contains(e.msg, "/nonexistent/ordo-config.yaml: ");
    assert_defaults(&cfg);
    config_release(&cfg);
    config_release(&cfg);
}

static void test_yaml_syntax_error(void **state)
{
    (void)state;
    struct sched_config cfg;
    struct err e = {{0}};
    const char *text = HEADER "plugins: [a\n";
    assert_true(config_load_buffer(&cfg, text, strlen(text), "c.yaml", &e) < 0);
    assert_contains(e.msg, "c.yaml:");
    config_release(&cfg);
}

static void test_reload_after_failure(void **state)
{
    (void)state;
    struct sched_config cfg;
    struct err e = {{0}};
    const char *bad = HEADER "pluginConfig:\n- name: a\n- name: a\n";
    assert_int_equal(config_load_buffer(&cfg, bad, strlen(bad), "c.yaml", &e),
                     -EINVAL);
    config_release(&cfg);
    load_ok(&cfg, HEADER "pluginConfig:\n- name: a\n  args: {k: v}\n");
    assert_non_null(config_plugin_args(&cfg, "a"));
    config_release(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_header_only),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_partial_keeps_defaults),
        cmocka_unit_test(test_nulls_are_absent),
        cmocka_unit_test(test_plugin_slot_rule),
        cmocka_unit_test(test_cycle_timeout),
        cmocka_unit_test(test_json_file),
        cmocka_unit_test(test_json_error_has_no_line),
        cmocka_unit_test(test_yaml_file),
        cmocka_unit_test(test_plugin_args_lookup),
        cmocka_unit_test(test_wrong_api_version),
        cmocka_unit_test(test_wrong_kind),
        cmocka_unit_test(test_not_a_map),
        cmocka_unit_test(test_unknown_top_field),
        cmocka_unit_test(test_pod_defaulting),
        cmocka_unit_test(test_unknown_field_warns),
        cmocka_unit_test(test_plugin_dirs),
        cmocka_unit_test(test_unknown_nested_fields),
        cmocka_unit_test(test_bad_plugin_names),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_place_empty),
        cmocka_unit_test(test_place_too_many),
        cmocka_unit_test(test_place_name_missing),
        cmocka_unit_test(test_place_weight),
        cmocka_unit_test(test_place_duplicate),
        cmocka_unit_test(test_plugin_config_duplicate),
        cmocka_unit_test(test_plugin_config_name_missing),
        cmocka_unit_test(test_args_not_a_map),
        cmocka_unit_test(test_fair_sharing_enable),
        cmocka_unit_test(test_two_documents),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_yaml_syntax_error),
        cmocka_unit_test(test_reload_after_failure),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
