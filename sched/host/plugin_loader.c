/* plugin_loader.c - opens plugin .so files and checks each ABI rule (see
 * plugin_loader.h). Used by ordo-scheduler at startup and for
 * --list-plugins, which peeks at descriptors without initialising them. */
#include "plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"

/* Bytes of the descriptor each ABI minor defines, so that a short struct is
 * caught before a field past its end is read. */
static const size_t descriptor_size_by_minor[] = {
    [0] = offsetof(struct ordo_plugin_descriptor, place) +
          sizeof(const struct ordo_place_ops *),
    /* 1.1 added a host function (fs_next_target), no descriptor field. */
    [1] = offsetof(struct ordo_plugin_descriptor, place) +
          sizeof(const struct ordo_place_ops *),
    /* 1.2 added a host function (preemption_candidate_queues). */
    [2] = offsetof(struct ordo_plugin_descriptor, place) +
          sizeof(const struct ordo_place_ops *),
    /* 1.3 added a host function (ps_flavor_mismatch). */
    [3] = offsetof(struct ordo_plugin_descriptor, place) +
          sizeof(const struct ordo_place_ops *),
};
_Static_assert(sizeof(descriptor_size_by_minor) /
                       sizeof(descriptor_size_by_minor[0]) ==
                   ORDO_ABI_MINOR + 1,
               "one descriptor size per ABI minor");

void plugin_set_init(struct plugin_set *s)
{
    memset(s, 0, sizeof(*s));
}

void plugin_set_release(struct plugin_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->items[i].handle)
            dlclose(s->items[i].handle);
        free(s->items[i].path);
    }
    free(s->items);
    plugin_set_init(s);
}

const char *plugin_kind_name(unsigned kind)
{
    switch (kind) {
    case ORDO_PLUGIN_QUEUE:
        return "queue";
    case ORDO_PLUGIN_QUOTA:
        return "quota";
    case ORDO_PLUGIN_PREEMPT:
        return "preempt";
    case ORDO_PLUGIN_PLACE:
        return "place";
    default:
        return NULL;
    }
}

static bool name_valid(const char *name)
{
    if (!name || !*name || strlen(name) > 63)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '-'))
            return false;
    return true;
}

/* Returns what is wrong with the op tables, or NULL. */
static const char *check_ops(const struct ordo_plugin_descriptor *d)
{
    int tables = !!d->queue + !!d->quota + !!d->preempt + !!d->place;
    if (!d->init)
        return "init is required";
    switch (d->kind) {
    case ORDO_PLUGIN_QUEUE:
        if (!d->queue || !d->queue->less || !d->queue->on_not_admitted)
            return "queue ops less and on_not_admitted are required";
        break;
    case ORDO_PLUGIN_QUOTA:
        if (!d->quota || !d->quota->assign)
            return "quota op assign is required";
        break;
    case ORDO_PLUGIN_PREEMPT:
        if (!d->preempt || !d->preempt->select_victims)
            return "preempt op select_victims is required";
        break;
    case ORDO_PLUGIN_PLACE:
        if (!d->place || !d->place->filter)
            return "place op filter is required";
        break;
    }
    if (tables != 1)
        return "only the op table of its own kind may be set";
    return NULL;
}

/* Checks the descriptor in the order the header promises. */
static int check_descriptor(const struct plugin_set *s, const char *path,
                            const struct ordo_plugin_descriptor *d,
                            struct err *e)
{
    if (d->abi_major != ORDO_ABI_MAJOR)
        return err_set(e, EPROTO,
                       "%s: plugin ABI major %u, this ordo-scheduler speaks "
                       "%u: rebuild the plugin against this version",
                       path, d->abi_major, ORDO_ABI_MAJOR);
    if (d->abi_minor > ORDO_ABI_MINOR)
        return err_set(e, EPROTO,
                       "%s: plugin needs ABI %u.%u, this ordo-scheduler "
                       "provides %u.%u: upgrade ordo-scheduler",
                       path, d->abi_major, d->abi_minor, ORDO_ABI_MAJOR,
                       ORDO_ABI_MINOR);
    if (d->struct_size < descriptor_size_by_minor[d->abi_minor])
        return err_set(e, EPROTO,
                       "%s: descriptor is %u bytes, ABI %u.%u needs at "
                       "least %zu",
                       path, d->struct_size, d->abi_major, d->abi_minor,
                       descriptor_size_by_minor[d->abi_minor]);
    if (!plugin_kind_name(d->kind))
        return err_set(e, EPROTO, "%s: unknown plugin kind %u", path,
                       d->kind);
    if (!name_valid(d->name))
        return err_set(e, EINVAL,
                       "%s: plugin name must be 1-63 characters of "
                       "[a-z0-9-]",
                       path);
    const char *missing = check_ops(d);
    if (missing)
        return err_set(e, EINVAL, "%s: plugin \"%s\" (%s): %s", path, d->name,
                       plugin_kind_name(d->kind), missing);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->items[i].desc->name, d->name) == 0)
            return err_set(e, EEXIST,
                           "%s: plugin name \"%s\" is already used by %s",
                           path, d->name, s->items[i].path);
    return 0;
}

int plugin_set_open(struct plugin_set *s, const char *path, struct err *e)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return err_set(e, ENOEXEC, "%s: cannot load: %s", path, dlerror());
    const struct ordo_plugin_descriptor *d = dlsym(h, ORDO_PLUGIN_SYMBOL);
    int r;
    if (!d) {
        r = err_set(e, ENOENT, "%s: not an Ordo plugin: no symbol \"%s\"",
                    path, ORDO_PLUGIN_SYMBOL);
        goto fail;
    }
    r = check_descriptor(s, path, d, e);
    if (r < 0)
        goto fail;
    if (GROW_ARRAY(s->items, s->n, s->cap) < 0) {
        r = err_set(e, ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    char *copy = strdup(path);
    if (!copy) {
        r = err_set(e, ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    s->items[s->n++] = (struct loaded_plugin){copy, h, d};
    return 0;
fail:
    dlclose(h);
    return r;
}

static int so_filter(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 3 &&
           strcmp(d->d_name + n - 3, ".so") == 0;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int plugin_set_open_dir(struct plugin_set *s, const char *dir, struct err *e)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, so_filter, cmp_names);
    if (n < 0)
        return err_set(e, errno, "plugin directory %s: %s", dir,
                       strerror(errno));
    int r = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (r == 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
            r = plugin_set_open(s, path, e);
        }
        free(names[i]);
    }
    free(names);
    return r;
}

const char *plugin_default_dir(void)
{
    static char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        const char *build = ORDO_BUILD_DIR;
        size_t len = strlen(build);
        if (strncmp(exe, build, len) == 0 && exe[len] == '/')
            return ORDO_BUILD_PLUGIN_DIR;
    }
    return ORDO_PLUGIN_DIR;
}
