/* mock_host_meta.c - the ABI 1.4 functions of the mock host: the typed
 * argument getters and the check of declared arguments, the clock, and the
 * metadata of workloads and pod set templates, answered from the fixtures
 * of <ordo/plugin-test.h>. A plugin that breaks the ABI's rules (an index
 * past the end of a pod set list, a NULL handle) aborts the test. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "mock_host_int.h"
#include "quantity.h"

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "mock host: %s:%d: %s does not hold\n", __FILE__,  \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

static const struct mock_arg *find_arg(const struct ordo_plugin *p,
                                       const char *key)
{
    CHECK(p && key);
    for (uint32_t i = 0; i < MOCK_MAX && p->args[i].key; i++)
        if (strcmp(p->args[i].key, key) == 0)
            return &p->args[i];
    return NULL;
}

static bool is_text(const struct mock_arg *a)
{
    return a->str && !a->is_int && !a->is_bool && !a->is_list;
}

int mock_config_quantity(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_milli)
{
    const struct mock_arg *a = find_arg(p, key);
    struct quantity q;
    *ret_milli = def;
    if (!a)
        return 0;
    if (a->is_int) { /* a YAML number: whole units */
        if (__builtin_mul_overflow(a->num, (int64_t)1000, ret_milli)) {
            *ret_milli = def;
            return -EINVAL;
        }
        return 0;
    }
    if (!is_text(a) || quantity_parse(a->str, &q, NULL) < 0)
        return -EINVAL;
    *ret_milli = q.milli;
    return 0;
}

int mock_config_duration(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_ns)
{
    const struct mock_arg *a = find_arg(p, key);
    int64_t ns;
    *ret_ns = def;
    if (!a)
        return 0;
    if (!is_text(a) || duration_parse(a->str, &ns) < 0)
        return -EINVAL;
    *ret_ns = ns;
    return 0;
}

int mock_config_bool(const struct ordo_plugin *p, const char *key, bool def,
                     bool *ret)
{
    const struct mock_arg *a = find_arg(p, key);
    *ret = def;
    if (!a)
        return 0;
    if (!a->is_bool)
        return -EINVAL;
    *ret = a->b;
    return 0;
}

int mock_config_list(const struct ordo_plugin *p, const char *key,
                     const char **ret, uint32_t cap, uint32_t *ret_n)
{
    const struct mock_arg *a = find_arg(p, key);
    *ret_n = 0;
    if (!a)
        return 0;
    if (!a->is_list)
        return -EINVAL;
    uint32_t n = 0;
    while (n < MOCK_MAX && a->list[n])
        n++;
    for (uint32_t i = 0; i < n && i < cap; i++)
        ret[i] = a->list[i];
    *ret_n = n;
    return 0;
}

/* Whether a holds a value of declared type. */
static bool type_ok(uint32_t type, const struct mock_arg *a)
{
    struct quantity q;
    int64_t ns;
    switch (type) {
    case ORDO_ARG_INT:
        return a->is_int;
    case ORDO_ARG_STRING:
        return is_text(a) || a->is_int || a->is_bool; /* any scalar */
    case ORDO_ARG_QUANTITY:
        return a->is_int ||
               (is_text(a) && quantity_parse(a->str, &q, NULL) == 0);
    case ORDO_ARG_DURATION:
        return is_text(a) && duration_parse(a->str, &ns) == 0;
    case ORDO_ARG_BOOL:
        return a->is_bool;
    case ORDO_ARG_STRING_LIST:
        return a->is_list;
    }
    return false;
}

int mock_check_args(const struct ordo_plugin *p, char *buf, size_t size)
{
    const struct ordo_plugin_descriptor *d = &ordo_plugin;
    CHECK(p && buf && size);
    buf[0] = '\0';
    if (d->abi_minor < 4)
        return 0;
    for (uint32_t i = 0; i < MOCK_MAX && p->args[i].key; i++) {
        const struct mock_arg *a = &p->args[i];
        uint32_t k = 0;
        while (k < d->n_args && strcmp(d->args[k].name, a->key) != 0)
            k++;
        if (k == d->n_args) {
            snprintf(buf, size, "plugin \"%s\" has no argument \"%s\"", d->name,
                     a->key);
            return -EINVAL;
        }
        if (!type_ok(d->args[k].type, a)) {
            snprintf(buf, size,
                     "plugin \"%s\": argument \"%s\" has the "
                     "wrong type",
                     d->name, a->key);
            return -EINVAL;
        }
    }
    return 0;
}

int64_t mock_now(const struct ordo_plugin *p)
{
    CHECK(p);
    return p->now;
}

const char *mock_wl_namespace(const struct ordo_workload *wl)
{
    CHECK(wl);
    return wl->namespace_ ? wl->namespace_ : "";
}

const char *mock_wl_object_name(const struct ordo_workload *wl)
{
    CHECK(wl);
    if (wl->object_name)
        return wl->object_name;
    const char *slash = wl->name ? strchr(wl->name, '/') : NULL;
    return slash ? slash + 1 : wl->name;
}

const char *mock_wl_kind(const struct ordo_workload *wl)
{
    CHECK(wl);
    return wl->kind ? wl->kind : "Job";
}

/* The value of key in a fixture list, or NULL. */
static const char *label_get(const struct mock_label *l, const char *key)
{
    CHECK(key);
    for (uint32_t i = 0; i < MOCK_MAX && l[i].key; i++)
        if (strcmp(l[i].key, key) == 0)
            return l[i].value;
    return NULL;
}

static uint32_t label_count(const struct mock_label *l)
{
    uint32_t n = 0;
    while (n < MOCK_MAX && l[n].key)
        n++;
    return n;
}

static void label_at(const struct mock_label *l, uint32_t i,
                     const char **ret_key, const char **ret_value)
{
    bool in = i < label_count(l);
    *ret_key = in ? l[i].key : NULL;
    *ret_value = in ? l[i].value : NULL;
}

const char *mock_wl_label(const struct ordo_workload *wl, const char *key)
{
    CHECK(wl);
    return label_get(wl->labels, key);
}

uint32_t mock_wl_n_labels(const struct ordo_workload *wl)
{
    CHECK(wl);
    return label_count(wl->labels);
}

void mock_wl_label_at(const struct ordo_workload *wl, uint32_t i,
                      const char **ret_key, const char **ret_value)
{
    CHECK(wl);
    label_at(wl->labels, i, ret_key, ret_value);
}

const char *mock_wl_annotation(const struct ordo_workload *wl, const char *key)
{
    CHECK(wl);
    return label_get(wl->annotations, key);
}

uint32_t mock_wl_n_annotations(const struct ordo_workload *wl)
{
    CHECK(wl);
    return label_count(wl->annotations);
}

void mock_wl_annotation_at(const struct ordo_workload *wl, uint32_t i,
                           const char **ret_key, const char **ret_value)
{
    CHECK(wl);
    label_at(wl->annotations, i, ret_key, ret_value);
}

int64_t mock_wl_creation_time(const struct ordo_workload *wl)
{
    CHECK(wl);
    return wl->creation_time;
}

bool mock_wl_owner(const struct ordo_workload *wl, const char **ret_kind,
                   const char **ret_name)
{
    CHECK(wl);
    bool has = wl->owner_kind && wl->owner_name;
    *ret_kind = has ? wl->owner_kind : NULL;
    *ret_name = has ? wl->owner_name : NULL;
    return has;
}

static const struct mock_podset *podset_of(const struct ordo_workload *wl,
                                           uint32_t ps)
{
    CHECK(wl && ps < MOCK_MAX && wl->podsets[ps].name);
    return &wl->podsets[ps];
}

const char *mock_ps_label(const struct ordo_workload *wl, uint32_t ps,
                          const char *key)
{
    return label_get(podset_of(wl, ps)->labels, key);
}

uint32_t mock_ps_n_labels(const struct ordo_workload *wl, uint32_t ps)
{
    return label_count(podset_of(wl, ps)->labels);
}

void mock_ps_label_at(const struct ordo_workload *wl, uint32_t ps, uint32_t i,
                      const char **ret_key, const char **ret_value)
{
    label_at(podset_of(wl, ps)->labels, i, ret_key, ret_value);
}

const char *mock_ps_annotation(const struct ordo_workload *wl, uint32_t ps,
                               const char *key)
{
    return label_get(podset_of(wl, ps)->annotations, key);
}

uint32_t mock_ps_n_annotations(const struct ordo_workload *wl, uint32_t ps)
{
    return label_count(podset_of(wl, ps)->annotations);
}

void mock_ps_annotation_at(const struct ordo_workload *wl, uint32_t ps,
                           uint32_t i, const char **ret_key,
                           const char **ret_value)
{
    label_at(podset_of(wl, ps)->annotations, i, ret_key, ret_value);
}
