/* plugins.c - choosing and initialising the configured plugins (see
 * plugins.h). */
#include "plugins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    memset(r, 0, sizeof(*r));
    r->host = host;
    plugin_set_init(&r->loaded);
    int rc = plugin_set_open_dir(&r->loaded, dir, e);
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
