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
#include <sys/stat.h>
#include <unistd.h>

#include "duration.h"
#include "grow.h"
#include "log.h"
#include "quantity.h"

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
    /* 1.4 added the declared arguments (args, n_args). */
    [4] = offsetof(struct ordo_plugin_descriptor, n_args) + sizeof(uint32_t),
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

const struct ordo_arg *
plugin_declared_args(const struct ordo_plugin_descriptor *d, uint32_t *ret_n)
{
    *ret_n = 0;
    if (d->abi_minor < 4 || d->struct_size < descriptor_size_by_minor[4] ||
        !d->args)
        return NULL;
    *ret_n = d->n_args;
    return d->args;
}

const char *plugin_arg_type_name(uint32_t type)
{
    switch (type) {
    case ORDO_ARG_INT:
        return "int";
    case ORDO_ARG_STRING:
        return "string";
    case ORDO_ARG_QUANTITY:
        return "quantity";
    case ORDO_ARG_DURATION:
        return "duration";
    case ORDO_ARG_BOOL:
        return "bool";
    case ORDO_ARG_STRING_LIST:
        return "string list";
    default:
        return NULL;
    }
}

/* Whether text reads as a value of type (a declared default). */
static bool default_valid(uint32_t type, const char *text)
{
    char *end;
    int64_t v;
    struct quantity q;
    switch (type) {
    case ORDO_ARG_INT:
        errno = 0;
        (void)strtoll(text, &end, 10);
        return *text && !*end && errno == 0;
    case ORDO_ARG_QUANTITY:
        return quantity_parse(text, &q, NULL) == 0;
    case ORDO_ARG_DURATION:
        return duration_parse(text, &v) == 0;
    case ORDO_ARG_BOOL:
        return strcmp(text, "true") == 0 || strcmp(text, "false") == 0;
    default: /* strings and lists: any text */
        return true;
    }
}

/* Returns what is wrong with the declared arguments (ABI 1.4) in buf, or
 * NULL. */
static const char *check_args(const struct ordo_plugin_descriptor *d, char *buf,
                              size_t size)
{
    if (d->abi_minor < 4)
        return NULL;
    if (d->n_args > PLUGIN_ARGS_MAX) {
        snprintf(buf, size, "%u arguments declared, at most %d", d->n_args,
                 PLUGIN_ARGS_MAX);
        return buf;
    }
    if (d->n_args && !d->args)
        return "n_args is set but args is NULL";
    for (uint32_t i = 0; i < d->n_args; i++) {
        const struct ordo_arg *a = &d->args[i];
        if (!a->name || !*a->name) {
            snprintf(buf, size, "argument %u has no name", i);
            return buf;
        }
        if (!plugin_arg_type_name(a->type)) {
            snprintf(buf, size, "argument \"%.64s\": unknown type %u", a->name,
                     a->type);
            return buf;
        }
        if (a->def && !default_valid(a->type, a->def)) {
            snprintf(buf, size,
                     "argument \"%.64s\": default \"%.64s\" is not a %s",
                     a->name, a->def, plugin_arg_type_name(a->type));
            return buf;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(d->args[j].name, a->name) == 0) {
                snprintf(buf, size, "argument \"%.64s\" declared twice",
                         a->name);
                return buf;
            }
    }
    return NULL;
}

/* Checks the descriptor in the order the header promises; names of
 * items[0 .. shadow_below) (earlier directories) are not duplicates. */
static int check_descriptor(const struct plugin_set *s, size_t shadow_below,
                            const char *path,
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
        return err_set(e, EPROTO, "%s: unknown plugin kind %u", path, d->kind);
    if (!name_valid(d->name))
        return err_set(e, EINVAL,
                       "%s: plugin name must be 1-63 characters of "
                       "[a-z0-9-]",
                       path);
    const char *missing = check_ops(d);
    char why[256];
    if (!missing)
        missing = check_args(d, why, sizeof(why));
    if (missing)
        return err_set(e, EINVAL, "%s: plugin \"%s\" (%s): %s", path, d->name,
                       plugin_kind_name(d->kind), missing);
    for (size_t i = shadow_below; i < s->n; i++)
        if (strcmp(s->items[i].desc->name, d->name) == 0)
            return err_set(e, EEXIST,
                           "%s: plugin name \"%s\" is already used by %s", path,
                           d->name, s->items[i].path);
    return 0;
}

/* The directory part of path into buf ("." when there is none). */
static const char *dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= size)
        n = size - 1;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return buf;
}

/* Whether dir lets others replace what it holds: world-writable without
 * the sticky bit. *ret_shared: world-writable with it (as /tmp). */
static bool dir_open_to_all(const char *dir, bool *ret_shared)
{
    struct stat st;
    *ret_shared = false;
    if (stat(dir, &st) < 0 || !(st.st_mode & S_IWOTH))
        return false;
    *ret_shared = true;
    return !(st.st_mode & S_ISVTX);
}

/* A plugin runs with the scheduler's rights, so a file that anyone else
 * could have written or swapped is refused: world-writable, in a
 * world-writable directory without the sticky bit, or in a sticky one
 * (as /tmp) but owned by another user than us or root. Both the directory
 * named and the one a symlink leads to count. A file that cannot be
 * resolved is left to dlopen, which says why. */
static int check_perms(const char *path, struct err *e)
{
    char real[PATH_MAX], dir[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) < 0)
        return 0;
    if (st.st_mode & S_IWOTH)
        return err_set(e, EPERM,
                       "%s: refused: the file is world-writable (mode %04o; "
                       "chmod o-w %s)",
                       path, (unsigned)(st.st_mode & 07777), real);
    const char *names[2] = {path, real};
    for (int i = 0; i < 2; i++) {
        bool shared;
        const char *d = dir_of(names[i], dir, sizeof(dir));
        if (dir_open_to_all(d, &shared))
            return err_set(e, EPERM,
                           "%s: refused: its directory %s is world-writable "
                           "without the sticky bit",
                           path, d);
        if (shared && st.st_uid != 0 && st.st_uid != geteuid())
            return err_set(e, EPERM,
                           "%s: refused: in the world-writable directory %s "
                           "and owned by another user (uid %u)",
                           path, d, (unsigned)st.st_uid);
    }
    return 0;
}

/* Opens path; a plugin whose name an earlier directory's plugin (one of
 * items[0 .. shadow_below)) already has is dropped with a warning. */
static int open_one(struct plugin_set *s, const char *path, size_t shadow_below,
                    struct err *e)
{
    int pr = check_perms(path, e);
    if (pr < 0)
        return pr;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return err_set(e, ENOEXEC, "%s: cannot load: %s", path, dlerror());
    const struct ordo_plugin_descriptor *d = dlsym(h, ORDO_PLUGIN_SYMBOL);
    int r;
    if (!d) {
        r = err_set(e, ENOENT, "%s: not an Ordo plugin: no symbol \"%s\"", path,
                    ORDO_PLUGIN_SYMBOL);
        goto fail;
    }
    r = check_descriptor(s, shadow_below, path, d, e);
    if (r < 0)
        goto fail;
    for (size_t i = 0; i < shadow_below; i++) {
        if (strcmp(s->items[i].desc->name, d->name) == 0) {
            LOG_W("plugin \"%s\" of %s is hidden by %s, found first", d->name,
                  path, s->items[i].path);
            dlclose(h);
            return 0;
        }
    }
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

int plugin_set_open(struct plugin_set *s, const char *path, struct err *e)
{
    return open_one(s, path, 0, e);
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

/* Opens every *.so of dir; names taken by items[0 .. shadow_below) are
 * shadowed (see open_one). */
static int open_dir(struct plugin_set *s, const char *dir, size_t shadow_below,
                    struct err *e)
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
            r = open_one(s, path, shadow_below, e);
        }
        free(names[i]);
    }
    free(names);
    return r;
}

int plugin_set_open_dir(struct plugin_set *s, const char *dir, struct err *e)
{
    return open_dir(s, dir, 0, e);
}

int plugin_set_open_path(struct plugin_set *s, const char *const *dirs,
                         size_t n, struct err *e)
{
    for (size_t i = 0; i < n; i++) {
        int r = open_dir(s, dirs[i], s->n, e);
        if (r < 0)
            return r;
    }
    return 0;
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
