/* plugins.c - choosing and initialising the configured plugins (see
 * plugins.h): the search path of plugin directories, the check of each
 * plugin's pluginConfig args against what it declares, and init. */
#include "plugins.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "duration.h"
#include "quantity.h"
#include "watchdog.h"

/* The largest errno value (Linux's MAX_ERRNO): an init result below
 * -ERRNO_MAX is no errno. */
#define ERRNO_MAX 4095

static const struct loaded_plugin *find_loaded(const struct plugin_set *s,
                                               const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->items[i].desc->name, name) == 0)
            return &s->items[i];
    return NULL;
}

/* ---- the search path ---------------------------------------------------- */

void plugin_path_release(struct plugin_path *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->dirs[i]);
    memset(p, 0, sizeof(*p));
}

/* Whether a and b name the same directory (by realpath when both exist). */
static bool same_dir(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (strcmp(a, b) == 0)
        return true;
    return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* Appends dir (relative to base's directory when base is set and dir is
 * relative) unless it is listed already. */
static int path_add(struct plugin_path *p, const char *dir, const char *base,
                    struct err *e)
{
    char buf[PATH_MAX];
    const char *slash = base ? strrchr(base, '/') : NULL;
    if (slash && dir[0] != '/') {
        int n = snprintf(buf, sizeof(buf), "%.*s/%s", (int)(slash - base),
                         base, dir);
        if (n < 0 || (size_t)n >= sizeof(buf))
            return err_set(e, ENAMETOOLONG, "plugin directory %s: too long",
                           dir);
        dir = buf;
    }
    for (size_t i = 0; i < p->n; i++)
        if (same_dir(p->dirs[i], dir))
            return 0;
    if (p->n >= PLUGIN_PATH_MAX)
        return err_set(e, E2BIG, "more than %d plugin directories",
                       PLUGIN_PATH_MAX);
    if (!(p->dirs[p->n] = strdup(dir)))
        return err_set(e, ENOMEM, "out of memory");
    p->n++;
    return 0;
}

int plugins_search_path(const char *const *dirs, size_t n_dirs,
                        const struct sched_config *cfg, const char *builtin,
                        struct plugin_path *ret, struct err *e)
{
    int r = 0;
    memset(ret, 0, sizeof(*ret));
    for (size_t i = 0; r == 0 && i < n_dirs; i++)
        r = path_add(ret, dirs[i], NULL, e);
    for (size_t i = 0; r == 0 && cfg && i < cfg->n_plugin_dirs; i++)
        r = path_add(ret, cfg->plugin_dirs[i], cfg->file, e);
    if (r == 0 && builtin && (!cfg || cfg->builtin_plugin_dir))
        r = path_add(ret, builtin, NULL, e);
    if (r < 0)
        plugin_path_release(ret);
    return r;
}

/* "DIR" or "DIR1, DIR2, ..." into buf, for messages. */
static const char *path_text(const struct plugin_path *p, char *buf,
                             size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->n && len < size; i++) {
        int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                         p->dirs[i]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return p->n ? buf : "(no directory)";
}

/* ---- declared arguments --------------------------------------------------- */

/* Edit distance of a and b, capped: enough to suggest a close name. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[65];
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The declared name closest to key (case ignored first), or NULL when
 * none is within a third of its length plus one edit. */
static const char *closest_arg(const struct ordo_arg *decl, uint32_t n,
                               const char *key)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (strcasecmp(decl[i].name, key) == 0)
            return decl[i].name;
        size_t d = distance(decl[i].name, key);
        if (d < best_d) {
            best_d = d;
            best = decl[i].name;
        }
    }
    size_t len = strlen(key);
    return best && best_d <= (len < 4 ? 1 : len / 3 + 1) ? best : NULL;
}

/* Whether v (not null) is a value of type; the expected form in *ret_want. */
static bool arg_type_ok(uint32_t type, const struct doc_node *v,
                        const char **ret_want)
{
    int64_t i64;
    bool b;
    struct quantity q;
    const char *str = NULL;
    bool scalar = v->type == DOC_SCALAR;
    switch (type) {
    case ORDO_ARG_INT:
        *ret_want = "an integer";
        return doc_get_int64(v, &i64) == 0;
    case ORDO_ARG_STRING:
        *ret_want = "a string";
        return scalar;
    case ORDO_ARG_QUANTITY:
        *ret_want = "a quantity like \"500m\" or \"2Gi\"";
        return scalar && doc_get_string(v, &str) == 0 &&
               quantity_parse(str, &q, NULL) == 0;
    case ORDO_ARG_DURATION:
        *ret_want = "a duration like \"90s\" or \"1h30m\"";
        return scalar && doc_get_string(v, &str) == 0 &&
               duration_parse(str, &i64) == 0;
    case ORDO_ARG_BOOL:
        *ret_want = "a boolean";
        return doc_get_bool(v, &b) == 0;
    case ORDO_ARG_STRING_LIST:
        *ret_want = "a list of strings";
        if (v->type != DOC_SEQ)
            return false;
        for (size_t k = 0; k < v->n; k++)
            if (v->items[k]->type != DOC_SCALAR || doc_is_null(v->items[k]))
                return false;
        return true;
    }
    *ret_want = "?";
    return false;
}

int plugins_check_args(const struct sched_config *cfg,
                       const struct ordo_plugin_descriptor *d,
                       const struct doc_node *args, struct err *e)
{
    uint32_t n;
    const struct ordo_arg *decl = plugin_declared_args(d, &n);
    if (!args || args->type != DOC_MAP || d->abi_minor < 4)
        return 0;
    size_t index = 0;
    while (cfg && index < cfg->n_args && cfg->args[index].args != args)
        index++;
    const char *file = cfg && cfg->file ? cfg->file : "<config>";
    for (size_t i = 0; i < args->n; i++) {
        const char *key = args->keys[i];
        const struct doc_node *v = args->items[i];
        char where[32] = "";
        if (v->line)
            snprintf(where, sizeof(where), ":%u", v->line);
        uint32_t k = 0;
        while (k < n && strcmp(decl[k].name, key) != 0)
            k++;
        if (k == n) {
            char list[256] = "";
            size_t len = 0;
            for (uint32_t j = 0; j < n && len < sizeof(list); j++) {
                int w = snprintf(list + len, sizeof(list) - len, "%s%s",
                                 j ? ", " : "", decl[j].name);
                if (w < 0)
                    break;
                len += (size_t)w;
            }
            const char *near = closest_arg(decl, n, key);
            return err_set(e, EINVAL,
                           "%s%s: pluginConfig[%zu].args.%s: plugin \"%s\" "
                           "has no argument \"%s\"%s%s%s (it takes: %s)",
                           file, where, index, key, d->name, key,
                           near ? " (did you mean \"" : "", near ? near : "",
                           near ? "\"?)" : "", n ? list : "no arguments");
        }
        const char *want;
        if (doc_is_null(v) || arg_type_ok(decl[k].type, v, &want))
            continue;
        return err_set(e, EINVAL,
                       "%s%s: pluginConfig[%zu].args.%s: plugin \"%s\": "
                       "argument \"%s\" must be %s, got %s%s%s",
                       file, where, index, key, d->name, key, want,
                       v->type == DOC_SCALAR ? "\"" : "a ",
                       v->type == DOC_SCALAR ? v->scalar : doc_type_name(v),
                       v->type == DOC_SCALAR ? "\"" : "");
    }
    return 0;
}

/* ---- instances -------------------------------------------------------------- */

/* Instantiates plugin `name` of kind `kind` for the extension point `what`
 * (for messages). Instances of the same plugin are shared. */
static int instantiate(struct plugin_registry *r,
                       const struct sched_config *cfg, const char *dir,
                       const char *name, uint32_t kind, const char *what,
                       struct ordo_plugin **ret, struct err *e)
{
    for (size_t i = 0; i < r->n_all; i++) {
        if (strcmp(r->all[i]->desc->name, name) == 0) {
            *ret = r->all[i];
            return 0;
        }
    }
    const struct loaded_plugin *lp = find_loaded(&r->loaded, name);
    if (!lp)
        return err_set(e, ENOENT,
                       "%s: plugin \"%s\" not found in %s (see "
                       "ordo-scheduler --list-plugins)",
                       what, name, dir);
    if (lp->desc->kind != kind)
        return err_set(e, EINVAL,
                       "%s: plugin \"%s\" is a %s plugin, a %s plugin is "
                       "needed",
                       what, name, plugin_kind_name(lp->desc->kind),
                       plugin_kind_name(kind));
    if (r->n_all >= sizeof(r->all) / sizeof(r->all[0]))
        return err_set(e, E2BIG, "%s: too many plugins", what);
    struct ordo_plugin *p = calloc(1, sizeof(*p));
    if (!p)
        return err_set(e, ENOMEM, "out of memory");
    p->desc = lp->desc;
    p->args = cfg ? config_plugin_args(cfg, name) : NULL;
    p->weight = 1;
    r->all[r->n_all++] = p;
    int ra = plugins_check_args(cfg, p->desc, p->args, e);
    if (ra < 0)
        return ra;
    struct watchdog_mark m;
    watchdog_enter(&m, name, "init");
    int rc = p->desc->init(r->host, p, &p->self);
    watchdog_leave(&m);
    if (rc < 0 && rc >= -ERRNO_MAX)
        return err_set(e, -rc,
                       "%s: plugin \"%s\" (%s) failed to initialise: %s", what,
                       name, lp->path, strerror(-rc));
    if (rc < 0) /* -rc may not even be representable */
        return err_set(e, EINVAL,
                       "%s: plugin \"%s\" (%s) failed to initialise: init "
                       "returned %d, not a negative errno",
                       what, name, lp->path, rc);
    p->initialised = true;
    *ret = p;
    return 0;
}

int plugins_start(struct plugin_registry *r, const struct sched_config *cfg,
                  const char *dir, const struct ordo_host *host,
                  struct err *e)
{
    struct plugin_path path;
    int rc = plugins_search_path(NULL, 0, cfg, dir, &path, e);
    if (rc < 0) {
        memset(r, 0, sizeof(*r));
        return rc;
    }
    rc = plugins_start_path(r, cfg, &path, host, e);
    plugin_path_release(&path);
    return rc;
}

int plugins_start_path(struct plugin_registry *r,
                       const struct sched_config *cfg,
                       const struct plugin_path *path,
                       const struct ordo_host *host, struct err *e)
{
    char dir[1024];
    memset(r, 0, sizeof(*r));
    r->host = host;
    plugin_set_init(&r->loaded);
    path_text(path, dir, sizeof(dir));
    int rc = plugin_set_open_path(&r->loaded, (const char *const *)path->dirs,
                                  path->n, e);
    if (rc == 0)
        rc = instantiate(r, cfg, dir, cfg->queue_strict_fifo,
                         ORDO_PLUGIN_QUEUE, "plugins.queue.strictFIFO",
                         &r->queue_strict, e);
    if (rc == 0)
        rc = instantiate(r, cfg, dir, cfg->queue_best_effort_fifo,
                         ORDO_PLUGIN_QUEUE, "plugins.queue.bestEffortFIFO",
                         &r->queue_best_effort, e);
    if (rc == 0)
        rc = instantiate(r, cfg, dir, cfg->quota, ORDO_PLUGIN_QUOTA,
                         "plugins.quota", &r->quota, e);
    if (rc == 0 && cfg->preempt && *cfg->preempt)
        rc = instantiate(r, cfg, dir, cfg->preempt, ORDO_PLUGIN_PREEMPT,
                         "plugins.preempt", &r->preempt, e);
    for (size_t i = 0; rc == 0 && i < cfg->n_place; i++) {
        rc = instantiate(r, cfg, dir, cfg->place[i].name, ORDO_PLUGIN_PLACE,
                         "plugins.place", &r->place[i], e);
        if (rc == 0) {
            r->place[i]->weight = cfg->place[i].weight;
            r->n_place = i + 1;
        }
    }
    if (rc < 0)
        plugins_stop(r);
    return rc;
}

void plugins_stop(struct plugin_registry *r)
{
    if (!r)
        return;
    for (size_t i = r->n_all; i-- > 0;) {
        struct ordo_plugin *p = r->all[i];
        if (p->initialised && p->desc->fini) {
            struct watchdog_mark m;
            watchdog_enter(&m, p->desc->name, "fini");
            p->desc->fini(p->self);
            watchdog_leave(&m);
        }
        free(p);
    }
    plugin_set_release(&r->loaded);
    memset(r, 0, sizeof(*r));
}

void plugins_set_clock(const struct plugin_registry *r, const int64_t *now_ns)
{
    for (size_t i = 0; r && i < r->n_all; i++)
        r->all[i]->clock_ns = now_ns;
}
