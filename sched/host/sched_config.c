/* sched_config.c - reading and validating the scheduler configuration file
 * (--config FILE) into struct sched_config; the format is in sched_config.h.
 *
 * One rule for every plugin slot: absent or null means the default plugin
 * of that kind; an explicit empty string "" turns the kind off where it is
 * optional (plugins.preempt only) and is an error naming the field for the
 * required kinds (queue, quota, place).
 *
 * The file is parsed into a doc tree (YAML or JSON) that the configuration
 * keeps: names and plugin arguments point into it. Every map of the known
 * structure is checked for unknown keys before its fields are read, so a
 * misspelt field is reported rather than silently ignored. */
#include "sched_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "decode.h"
#include "duration.h"
#include "kname.h"
#include "suggest.h"

#define PLUGIN_NAME_MAX 63
#define WEIGHT_MIN      1
#define WEIGHT_MAX      100
#define PATH_MAX_LEN    128

static const char DEFAULT_STRICT_FIFO[] = "strict-fifo";
static const char DEFAULT_BEST_EFFORT_FIFO[] = "best-effort-fifo";
static const char DEFAULT_QUOTA[] = "kueue-quota";
static const char DEFAULT_PREEMPT[] = "kueue-preempt";
static const char DEFAULT_PLACE[] = "resource-fit";
#define DEFAULT_CYCLE_TIMEOUT_NS (60LL * 1000000000)

static const char *const top_fields[] = {
    "apiVersion",  "kind",         "plugins",    "pluginConfig",
    "fairSharing", "cycleTimeout", "pluginDirs", "builtinPluginDir",
    "podDefaulting", NULL};
static const char *const pod_defaulting_fields[] = {
    "manageJobsWithoutQueueName", "managedJobsNamespaceSelector", "namespace",
    NULL};
static const char *const plugins_fields[] = {"queue", "quota", "preempt",
                                             "place", NULL};
static const char *const queue_fields[] = {"strictFIFO", "bestEffortFIFO",
                                           NULL};
static const char *const place_fields[] = {"name", "weight", NULL};
static const char *const plugin_config_fields[] = {"name", "args", NULL};
static const char *const fair_sharing_fields[] = {"enable",
                                                  "preemptionStrategies", NULL};

/* What the validators share: the file name for messages, the error, and
 * where unknown fields go when they are warnings. */
struct cfg_ctx {
    const char *file;
    struct err *err;
    config_warn_fn warn; /* NULL: unknown fields fail */
    void *warn_data;
};

/* Fails with "file:line: path: what" (":line" left out when the line is
 * unknown, "path: " when path is NULL). Returns -EINVAL. */
static int cfg_fail(const struct cfg_ctx *c, const struct doc_node *n,
                    const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int cfg_fail(const struct cfg_ctx *c, const struct doc_node *n,
                    const char *path, const char *fmt, ...)
{
    char what[ERR_MSG_MAX], where[32] = "";
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (n && n->line)
        snprintf(where, sizeof(where), ":%u", n->line);
    return err_set(c->err, EINVAL, "%s%s: %s%s%s", c->file, where,
                   path ? path : "", path ? ": " : "", what);
}

/* Writes "parent.key" (or "key" at the top) into buf; a path too long for
 * buf is cut short, which only shortens a message. */
static const char *path_key(char *buf, size_t size, const char *parent,
                            const char *key)
{
    int n = snprintf(buf, size, "%s%s%s", parent ? parent : "",
                     parent ? "." : "", key);
    if (n < 0)
        buf[0] = '\0';
    return buf;
}

/* Writes "parent[i]" into buf (cut short like path_key()). */
static const char *path_index(char *buf, size_t size, const char *parent,
                              size_t i)
{
    int n = snprintf(buf, size, "%s[%zu]", parent, i);
    if (n < 0)
        buf[0] = '\0';
    return buf;
}

/* The value of key in map, or NULL when it is absent or null. */
static const struct doc_node *field_get(const struct doc_node *map,
                                        const char *key)
{
    const struct doc_node *v = doc_map_get(map, key);
    return doc_is_null(v) ? NULL : v;
}

/* Fails unless n (not null) is of type t. */
static int want_type(const struct cfg_ctx *c, const struct doc_node *n,
                     const char *path, enum doc_type t)
{
    if (n->type == t)
        return 0;
    return cfg_fail(c, n, path, "expected a %s, got a %s",
                    t == DOC_MAP ? "map" : "list", doc_type_name(n));
}

/* Fails on the first key of map that is not in known, at the key's line,
 * with the known name it most likely meant ("did you mean"), or listing
 * them all when none is close; with c->warn, tells each such key to it and
 * goes on (the key is not read). */
static int check_fields(const struct cfg_ctx *c, const struct doc_node *map,
                        const char *parent, const char *const *known)
{
    for (size_t i = 0; i < map->n; i++) {
        size_t k = 0;
        while (known[k] && strcmp(known[k], map->keys[i]) != 0)
            k++;
        if (known[k])
            continue;

        char path[PATH_MAX_LEN], list[256] = "";
        struct doc_node at = {.line = map->items[i]->key_line
                                          ? map->items[i]->key_line
                                          : map->items[i]->line};
        path_key(path, sizeof(path), parent, map->keys[i]);
        const char *near = suggest_closest(map->keys[i], known, k);
        size_t len = 0;
        for (k = 0; !near && known[k] && len < sizeof(list); k++) {
            int w = snprintf(list + len, sizeof(list) - len, "%s%s",
                             k ? ", " : "", known[k]);
            if (w < 0)
                break;
            len += (size_t)w;
        }
        int r = near ? cfg_fail(c, &at, path,
                                "unknown field (did you mean \"%s\"?)", near)
                     : cfg_fail(c, &at, path,
                                "unknown field (expected one of: %s)", list);
        if (!c->warn || !c->err)
            return r;
        c->warn(c->err->msg, c->warn_data); /* ignored, as kubectl warns */
    }
    return 0;
}

/* True for a scalar that reads as a string: quoted, or plain text that is
 * not null, a boolean or a number. */
static bool is_string(const struct doc_node *n)
{
    return n && n->type == DOC_SCALAR && !doc_is_null(n) &&
           strcmp(doc_type_name(n), "string") == 0;
}

static bool valid_plugin_name(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > PLUGIN_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return false;
    return true;
}

/* Reads plugin name n (not null) at path into *ret. */
static int plugin_name(const struct cfg_ctx *c, const struct doc_node *n,
                       const char *path, const char **ret)
{
    if (!is_string(n))
        return cfg_fail(c, n, path, "expected a plugin name, got a %s",
                        doc_type_name(n));
    if (!valid_plugin_name(n->scalar))
        return cfg_fail(c, n, path,
                        "invalid plugin name \"%s\": must be 1 to %d "
                        "characters a-z, 0-9 or '-'",
                        n->scalar, PLUGIN_NAME_MAX);
    *ret = n->scalar;
    return 0;
}

/* Reads the plugin name parent.key into *ret: kept (the default) when
 * absent or null; "" sets NULL where the kind is optional, and is an error
 * where it is required. */
static int field_plugin(const struct cfg_ctx *c, const struct doc_node *map,
                        const char *parent, const char *key, bool optional,
                        const char **ret)
{
    char path[PATH_MAX_LEN];
    const struct doc_node *v = field_get(map, key);
    if (!v)
        return 0;
    path_key(path, sizeof(path), parent, key);
    if (v->type == DOC_SCALAR && v->quoted && v->scalar[0] == '\0') {
        if (!optional)
            return cfg_fail(c, v, path,
                            "must name a plugin (\"\" turns off only "
                            "plugins.preempt; leave it out for the default)");
        *ret = NULL;
        return 0;
    }
    return plugin_name(c, v, path, ret);
}

/* apiVersion and kind must be exactly want. */
static int check_header(const struct cfg_ctx *c, const struct doc_node *root,
                        const char *key, const char *want)
{
    const struct doc_node *v = doc_map_get(root, key);
    if (doc_is_null(v))
        return cfg_fail(c, v ? v : root, key, "missing (must be %s)", want);
    if (v->type != DOC_SCALAR)
        return cfg_fail(c, v, key, "must be %s, got a %s", want,
                        doc_type_name(v));
    if (strcmp(v->scalar, want) != 0)
        return cfg_fail(c, v, key, "must be %s, got \"%s\"", want, v->scalar);
    return 0;
}

static int load_queue(const struct cfg_ctx *c, const struct doc_node *plugins,
                      struct sched_config *cfg)
{
    const char *path = "plugins.queue";
    const struct doc_node *q = field_get(plugins, "queue");
    int r;

    if (!q)
        return 0;
    if ((r = want_type(c, q, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, q, path, queue_fields)) < 0)
        return r;
    r = field_plugin(c, q, path, "strictFIFO", false, &cfg->queue_strict_fifo);
    if (r < 0)
        return r;
    return field_plugin(c, q, path, "bestEffortFIFO", false,
                        &cfg->queue_best_effort_fifo);
}

static int load_place_item(const struct cfg_ctx *c, const struct doc_node *item,
                           const char *path, struct config_place *p)
{
    char fpath[PATH_MAX_LEN];
    int r;

    if ((r = want_type(c, item, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, item, path, place_fields)) < 0)
        return r;

    const struct doc_node *name = field_get(item, "name");
    path_key(fpath, sizeof(fpath), path, "name");
    if (!name)
        return cfg_fail(c, item, fpath, "missing");
    if ((r = plugin_name(c, name, fpath, &p->name)) < 0)
        return r;

    p->weight = 1;
    const struct doc_node *w = field_get(item, "weight");
    if (!w)
        return 0;
    path_key(fpath, sizeof(fpath), path, "weight");
    r = doc_get_int64(w, &p->weight);
    if (r == -ERANGE)
        return cfg_fail(c, w, fpath, "must be %d to %d, got %s", WEIGHT_MIN,
                        WEIGHT_MAX, w->scalar);
    if (r < 0)
        return cfg_fail(c, w, fpath, "expected an integer, got a %s",
                        doc_type_name(w));
    if (p->weight < WEIGHT_MIN || p->weight > WEIGHT_MAX)
        return cfg_fail(c, w, fpath, "must be %d to %d, got %lld", WEIGHT_MIN,
                        WEIGHT_MAX, (long long)p->weight);
    return 0;
}

static int load_place(const struct cfg_ctx *c, const struct doc_node *plugins,
                      struct sched_config *cfg)
{
    const char *path = "plugins.place";
    const struct doc_node *seq = field_get(plugins, "place");
    char ipath[PATH_MAX_LEN], npath[PATH_MAX_LEN];
    int r;

    if (!seq)
        return 0;
    if ((r = want_type(c, seq, path, DOC_SEQ)) < 0)
        return r;
    if (seq->n == 0)
        return cfg_fail(c, seq, path, "must name at least one plugin");
    if (seq->n > CONFIG_MAX_PLACE)
        return cfg_fail(c, seq, path, "at most %d plugins, got %zu",
                        CONFIG_MAX_PLACE, seq->n);

    for (size_t i = 0; i < seq->n; i++) {
        path_index(ipath, sizeof(ipath), path, i);
        r = load_place_item(c, seq->items[i], ipath, &cfg->place[i]);
        if (r < 0)
            return r;
        for (size_t j = 0; j < i; j++)
            if (strcmp(cfg->place[j].name, cfg->place[i].name) == 0)
                return cfg_fail(c, doc_map_get(seq->items[i], "name"),
                                path_key(npath, sizeof(npath), ipath, "name"),
                                "duplicate plugin \"%s\" (also %s[%zu])",
                                cfg->place[i].name, path, j);
    }
    cfg->n_place = seq->n;
    return 0;
}

static int load_plugins(const struct cfg_ctx *c, const struct doc_node *root,
                        struct sched_config *cfg)
{
    const char *path = "plugins";
    const struct doc_node *p = field_get(root, "plugins");
    int r;

    if (!p)
        return 0;
    if ((r = want_type(c, p, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, p, path, plugins_fields)) < 0 ||
        (r = load_queue(c, p, cfg)) < 0 ||
        (r = field_plugin(c, p, path, "quota", false, &cfg->quota)) < 0 ||
        (r = field_plugin(c, p, path, "preempt", true, &cfg->preempt)) < 0)
        return r;
    return load_place(c, p, cfg);
}

static int load_plugin_config_item(const struct cfg_ctx *c,
                                   const struct doc_node *item,
                                   const char *path,
                                   struct config_plugin_args *a)
{
    char fpath[PATH_MAX_LEN];
    int r;

    if ((r = want_type(c, item, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, item, path, plugin_config_fields)) < 0)
        return r;

    const struct doc_node *name = field_get(item, "name");
    path_key(fpath, sizeof(fpath), path, "name");
    if (!name)
        return cfg_fail(c, item, fpath, "missing");
    if ((r = plugin_name(c, name, fpath, &a->name)) < 0)
        return r;

    /* The contents are the plugin's business; only the shape is ours. */
    const struct doc_node *args = field_get(item, "args");
    if (args &&
        (r = want_type(c, args, path_key(fpath, sizeof(fpath), path, "args"),
                       DOC_MAP)) < 0)
        return r;
    a->args = args;
    return 0;
}

static int load_plugin_config(const struct cfg_ctx *c,
                              const struct doc_node *root,
                              struct sched_config *cfg)
{
    const char *path = "pluginConfig";
    const struct doc_node *seq = field_get(root, "pluginConfig");
    char ipath[PATH_MAX_LEN], npath[PATH_MAX_LEN];
    int r;

    if (!seq)
        return 0;
    if ((r = want_type(c, seq, path, DOC_SEQ)) < 0)
        return r;
    if (seq->n == 0)
        return 0;
    cfg->args = calloc(seq->n, sizeof(*cfg->args));
    if (!cfg->args)
        return err_set(c->err, ENOMEM, "%s: out of memory", c->file);

    for (size_t i = 0; i < seq->n; i++) {
        struct config_plugin_args *a = &cfg->args[i];
        path_index(ipath, sizeof(ipath), path, i);
        r = load_plugin_config_item(c, seq->items[i], ipath, a);
        if (r < 0)
            return r;
        for (size_t j = 0; j < i; j++)
            if (strcmp(cfg->args[j].name, a->name) == 0)
                return cfg_fail(c, doc_map_get(seq->items[i], "name"),
                                path_key(npath, sizeof(npath), ipath, "name"),
                                "duplicate plugin \"%s\" (also %s[%zu])",
                                a->name, path, j);
        cfg->n_args = i + 1;
    }
    return 0;
}

static int load_fair_sharing(const struct cfg_ctx *c,
                             const struct doc_node *root,
                             struct sched_config *cfg)
{
    const char *path = "fairSharing";
    const struct doc_node *fs = field_get(root, "fairSharing");
    int r;

    if (!fs)
        return 0;
    if ((r = want_type(c, fs, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, fs, path, fair_sharing_fields)) < 0)
        return r;
    const struct doc_node *en = field_get(fs, "enable");
    if (en && doc_get_bool(en, &cfg->fair_sharing) < 0)
        return cfg_fail(c, en, "fairSharing.enable",
                        "expected a boolean, got a %s", doc_type_name(en));
    /* Kueue's allowed lists: one strategy, or both in this order. */
    const struct doc_node *ps = field_get(fs, "preemptionStrategies");
    if (!ps)
        return 0;
    if ((r = want_type(c, ps, "fairSharing.preemptionStrategies", DOC_SEQ)) < 0)
        return r;
    if (ps->n < 1 || ps->n > 2)
        return cfg_fail(c, ps, "fairSharing.preemptionStrategies",
                        "must list 1 or 2 strategies, got %zu", ps->n);
    for (size_t i = 0; i < ps->n; i++) {
        const char *v = NULL;
        if (doc_get_string(ps->items[i], &v) < 0 || !v ||
            (strcmp(v, "LessThanOrEqualToFinalShare") != 0 &&
             strcmp(v, "LessThanInitialShare") != 0))
            return cfg_fail(
                c, ps->items[i], "fairSharing.preemptionStrategies",
                "unsupported value \"%s\" (one of: "
                "LessThanOrEqualToFinalShare, LessThanInitialShare)",
                v ? v : "");
        cfg->fs_strategies[i] =
            strcmp(v, "LessThanOrEqualToFinalShare") == 0 ? 1 : 2;
    }
    if (ps->n == 2 &&
        (cfg->fs_strategies[0] != 1 || cfg->fs_strategies[1] != 2))
        return cfg_fail(c, ps, "fairSharing.preemptionStrategies",
                        "two strategies must be [LessThanOrEqualToFinalShare, "
                        "LessThanInitialShare]");
    cfg->n_fs_strategies = ps->n;
    return 0;
}

/* cycleTimeout: a Go duration; "0s" turns the watchdog off. */
static int load_cycle_timeout(const struct cfg_ctx *c,
                              const struct doc_node *root,
                              struct sched_config *cfg)
{
    const struct doc_node *v = field_get(root, "cycleTimeout");
    if (!v)
        return 0;
    int r = v->type == DOC_SCALAR && !strchr(v->scalar, '-')
                ? duration_parse(v->scalar, &cfg->cycle_timeout_ns)
                : -EINVAL;
    if (r == -ERANGE)
        return cfg_fail(c, v, "cycleTimeout", "duration \"%s\" is too long",
                        v->scalar);
    if (r < 0)
        return cfg_fail(c, v, "cycleTimeout",
                        "expected a duration like \"30s\" (\"0s\": no "
                        "watchdog), got %s%s%s",
                        v->type == DOC_SCALAR ? "\"" : "a ",
                        v->type == DOC_SCALAR ? v->scalar : doc_type_name(v),
                        v->type == DOC_SCALAR ? "\"" : "");
    return 0;
}

/* pluginDirs (a list of directories) and builtinPluginDir (a boolean). */
static int load_plugin_dirs(const struct cfg_ctx *c,
                            const struct doc_node *root,
                            struct sched_config *cfg)
{
    const struct doc_node *b = field_get(root, "builtinPluginDir");
    if (b && doc_get_bool(b, &cfg->builtin_plugin_dir) < 0)
        return cfg_fail(c, b, "builtinPluginDir",
                        "expected a boolean, got a %s", doc_type_name(b));
    const struct doc_node *seq = field_get(root, "pluginDirs");
    int r;
    if (!seq)
        return 0;
    if ((r = want_type(c, seq, "pluginDirs", DOC_SEQ)) < 0)
        return r;
    if (seq->n > CONFIG_MAX_PLUGIN_DIRS)
        return cfg_fail(c, seq, "pluginDirs", "at most %d directories, got %zu",
                        CONFIG_MAX_PLUGIN_DIRS, seq->n);
    for (size_t i = 0; i < seq->n; i++) {
        char ipath[PATH_MAX_LEN];
        const struct doc_node *v = seq->items[i];
        if (!is_string(v) || !*v->scalar)
            return cfg_fail(c, v,
                            path_index(ipath, sizeof(ipath), "pluginDirs", i),
                            "expected a directory, got a %s", doc_type_name(v));
        cfg->plugin_dirs[i] = v->scalar;
    }
    cfg->n_plugin_dirs = seq->n;
    return 0;
}

/* podDefaulting: Kueue's fields, read into cfg->pod_defaulting. */
static int load_pod_defaulting(const struct cfg_ctx *c,
                               const struct doc_node *root,
                               struct sched_config *cfg)
{
    const char *path = "podDefaulting";
    const struct doc_node *pd = field_get(root, path);
    int r;
    if (!pd)
        return 0;
    if ((r = want_type(c, pd, path, DOC_MAP)) < 0 ||
        (r = check_fields(c, pd, path, pod_defaulting_fields)) < 0)
        return r;
    struct queue_rule *q = &cfg->pod_defaulting;
    const struct doc_node *m = field_get(pd, "manageJobsWithoutQueueName");
    if (m && doc_get_bool(m, &q->manage_jobs_without_queue_name) < 0)
        return cfg_fail(c, m, "podDefaulting.manageJobsWithoutQueueName",
                        "expected a boolean, got a %s", doc_type_name(m));
    const struct doc_node *ns = field_get(pd, "namespace");
    if (ns) {
        const char *bad = is_string(ns) ? kname_check_dns_label(ns->scalar)
                                        : "expected a namespace name";
        if (bad)
            return cfg_fail(c, ns, "podDefaulting.namespace", "%s", bad);
        q->namespace_ = ns->scalar;
    }
    const struct doc_node *sel = field_get(pd, "managedJobsNamespaceSelector");
    if (!sel)
        return 0;
    if (!cfg->rule_arena && !(cfg->rule_arena = arena_new()))
        return err_set(c->err, ENOMEM, "%s: out of memory", c->file);
    r = decode_selector(sel, c->file, "podDefaulting.managedJobsNamespaceSelector",
                        cfg->rule_arena, &cfg->pod_defaulting_selector, c->err);
    if (r < 0)
        return r;
    q->namespace_selector = &cfg->pod_defaulting_selector;
    return 0;
}

/* Validates the parsed cfg->doc into cfg (which holds the defaults). */
static int load_doc(struct sched_config *cfg, struct err *e)
{
    const struct doc *d = cfg->doc;
    struct cfg_ctx c = {.file = d->file,
                        .err = e,
                        .warn = cfg->strict ? NULL : cfg->warn,
                        .warn_data = cfg->warn_data};
    int r;

    if (d->n_docs == 0)
        return cfg_fail(&c, NULL, NULL, "no document: expected one %s",
                        CONFIG_KIND);
    if (d->n_docs > 1)
        return cfg_fail(&c, d->docs[1], NULL,
                        "expected one document, found %zu", d->n_docs);

    const struct doc_node *root = d->docs[0];
    if (root->type != DOC_MAP)
        return cfg_fail(&c, root, NULL, "expected a map (a %s), got a %s",
                        CONFIG_KIND, doc_type_name(root));
    if ((r = check_header(&c, root, "apiVersion", CONFIG_API_VERSION)) < 0 ||
        (r = check_header(&c, root, "kind", CONFIG_KIND)) < 0 ||
        (r = check_fields(&c, root, NULL, top_fields)) < 0 ||
        (r = load_plugins(&c, root, cfg)) < 0 ||
        (r = load_plugin_config(&c, root, cfg)) < 0 ||
        (r = load_plugin_dirs(&c, root, cfg)) < 0 ||
        (r = load_cycle_timeout(&c, root, cfg)) < 0 ||
        (r = load_pod_defaulting(&c, root, cfg)) < 0)
        return r;
    return load_fair_sharing(&c, root, cfg);
}

void config_init_defaults(struct sched_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->queue_strict_fifo = DEFAULT_STRICT_FIFO;
    cfg->queue_best_effort_fifo = DEFAULT_BEST_EFFORT_FIFO;
    cfg->quota = DEFAULT_QUOTA;
    cfg->preempt = DEFAULT_PREEMPT;
    cfg->n_place = 1;
    cfg->place[0].name = DEFAULT_PLACE;
    cfg->place[0].weight = 1;
    cfg->fair_sharing = false;
    cfg->n_fs_strategies = 2;
    cfg->fs_strategies[0] = 1; /* LessThanOrEqualToFinalShare */
    cfg->fs_strategies[1] = 2; /* LessThanInitialShare */
    cfg->cycle_timeout_ns = DEFAULT_CYCLE_TIMEOUT_NS;
    cfg->builtin_plugin_dir = true;
}

/* Finishes a load: keeps doc in cfg and validates it, or releases cfg on
 * failure. */
static int load_finish(struct sched_config *cfg, struct doc *d, int r,
                       struct err *e)
{
    if (r < 0)
        goto cleanup;
    cfg->doc = d;
    cfg->file = d->file;
    r = load_doc(cfg, e);
cleanup:
    if (r < 0)
        config_release(cfg);
    return r;
}

int config_load(struct sched_config *cfg, const char *path, struct err *e)
{
    struct doc *d = NULL;

    config_init_defaults(cfg);
    int r = doc_load_file(path, &d, e);
    return load_finish(cfg, d, r, e);
}

int config_load_checked(struct sched_config *cfg, const char *path, bool strict,
                        config_warn_fn warn, void *userdata, struct err *e)
{
    struct doc *d = NULL;

    config_init_defaults(cfg);
    cfg->strict = strict;
    cfg->warn = warn;
    cfg->warn_data = userdata;
    int r = doc_load_file(path, &d, e);
    return load_finish(cfg, d, r, e);
}

int config_load_buffer(struct sched_config *cfg, const char *buf, size_t len,
                       const char *file, struct err *e)
{
    struct doc *d = NULL;
    size_t i = 0;
    int r;

    config_init_defaults(cfg);
    /* JSON or YAML, decided as doc_load_file() does. */
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
                       buf[i] == '\r'))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        r = doc_parse_json(buf, len, file, &d, e);
    else
        r = doc_parse_yaml(buf, len, file, &d, e);
    return load_finish(cfg, d, r, e);
}

void config_release(struct sched_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->args);
    doc_free(cfg->doc);
    arena_free(cfg->rule_arena);
    config_init_defaults(cfg);
}

const struct doc_node *config_plugin_args(const struct sched_config *cfg,
                                          const char *name)
{
    if (!cfg || !name)
        return NULL;
    for (size_t i = 0; i < cfg->n_args; i++)
        if (strcmp(cfg->args[i].name, name) == 0)
            return cfg->args[i].args;
    return NULL;
}
