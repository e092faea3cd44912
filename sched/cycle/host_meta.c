/* host_meta.c - the ABI 1.4 functions of the host table (host_table.c
 * puts them in it): the quantity, duration, boolean and list getters of a
 * plugin's arguments, the scheduler's clock, and the metadata of a
 * workload's top object and of its pod set templates. Each host_<slot> is
 * the ordo_host slot of that name (ordo/plugin.h says what it answers). */
#include "host_meta.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "duration.h"
#include "host_kueue.h"
#include "plugins.h"
#include "quantity.h"
#include "workload.h"

/* The value of key among p's args when it is present and not null. */
static const struct doc_node *config_arg(const struct ordo_plugin *p,
                                         const char *key)
{
    const struct doc_node *v = p ? doc_map_get(p->args, key) : NULL;
    return doc_is_null(v) ? NULL : v;
}

int host_config_quantity(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_milli)
{
    const struct doc_node *v = config_arg(p, key);
    const char *text;
    struct quantity q;
    *ret_milli = def;
    if (!v)
        return 0;
    if (v->type != DOC_SCALAR || doc_get_string(v, &text) < 0 ||
        quantity_parse(text, &q, NULL) < 0)
        return -EINVAL;
    *ret_milli = q.milli;
    return 0;
}

int host_config_duration(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_ns)
{
    const struct doc_node *v = config_arg(p, key);
    const char *text;
    int64_t ns;
    *ret_ns = def;
    if (!v)
        return 0;
    if (v->type != DOC_SCALAR || doc_get_string(v, &text) < 0 ||
        duration_parse(text, &ns) < 0)
        return -EINVAL;
    *ret_ns = ns;
    return 0;
}

int host_config_bool(const struct ordo_plugin *p, const char *key, bool def,
                     bool *ret)
{
    const struct doc_node *v = config_arg(p, key);
    *ret = def;
    if (!v)
        return 0;
    return doc_get_bool(v, ret) < 0 ? -EINVAL : 0;
}

int host_config_list(const struct ordo_plugin *p, const char *key,
                     const char **ret, uint32_t cap, uint32_t *ret_n)
{
    const struct doc_node *v = config_arg(p, key);
    *ret_n = 0;
    if (!v)
        return 0;
    if (v->type != DOC_SEQ)
        return -EINVAL;
    for (size_t i = 0; i < v->n; i++)
        if (v->items[i]->type != DOC_SCALAR || doc_is_null(v->items[i]))
            return -EINVAL;
    for (size_t i = 0; i < v->n && i < cap; i++)
        ret[i] = v->items[i]->scalar;
    *ret_n = v->n > UINT32_MAX ? UINT32_MAX : (uint32_t)v->n;
    return 0;
}

int64_t host_now(const struct ordo_plugin *p)
{
    /* The host's own record of the instance: noted so that an order that
     * reads the clock is sorted again when it moves (queue_sort). */
    if (p)
        ((struct ordo_plugin *)p)->reads_clock = true;
    if (p && p->clock_ns)
        return *p->clock_ns;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The metadata of the workload's top object, or NULL. */
static const struct object_meta *wl_meta(const struct ordo_workload *wl)
{
    return WL(wl)->top ? &WL(wl)->top->meta : NULL;
}

const char *host_wl_namespace(const struct ordo_workload *wl)
{
    return WL(wl)->ns;
}

const char *host_wl_object_name(const struct ordo_workload *wl)
{
    /* The key is "ns/name"; a pod group's name is the group's. */
    const char *slash = strchr(WL(wl)->key, '/');
    return slash ? slash + 1 : WL(wl)->key;
}

const char *host_wl_kind(const struct ordo_workload *wl)
{
    return workload_kind_name(WL(wl)->kind);
}

/* Pair i of m, or both NULL. */
static void strmap_at(const struct strmap *m, uint32_t i, const char **ret_key,
                      const char **ret_value)
{
    *ret_key = *ret_value = NULL;
    if (m && i < m->n) {
        *ret_key = m->items[i].key;
        *ret_value = m->items[i].value;
    }
}

const char *host_wl_label(const struct ordo_workload *wl, const char *key)
{
    const struct object_meta *m = wl_meta(wl);
    return m && key ? strmap_get(&m->labels, key) : NULL;
}

uint32_t host_wl_n_labels(const struct ordo_workload *wl)
{
    const struct object_meta *m = wl_meta(wl);
    return m ? (uint32_t)m->labels.n : 0;
}

void host_wl_label_at(const struct ordo_workload *wl, uint32_t i,
                      const char **ret_key, const char **ret_value)
{
    const struct object_meta *m = wl_meta(wl);
    strmap_at(m ? &m->labels : NULL, i, ret_key, ret_value);
}

const char *host_wl_annotation(const struct ordo_workload *wl, const char *key)
{
    const struct object_meta *m = wl_meta(wl);
    return m && key ? strmap_get(&m->annotations, key) : NULL;
}

uint32_t host_wl_n_annotations(const struct ordo_workload *wl)
{
    const struct object_meta *m = wl_meta(wl);
    return m ? (uint32_t)m->annotations.n : 0;
}

void host_wl_annotation_at(const struct ordo_workload *wl, uint32_t i,
                           const char **ret_key, const char **ret_value)
{
    const struct object_meta *m = wl_meta(wl);
    strmap_at(m ? &m->annotations : NULL, i, ret_key, ret_value);
}

int64_t host_wl_creation_time(const struct ordo_workload *wl)
{
    return WL(wl)->created_ns;
}

bool host_wl_owner(const struct ordo_workload *wl, const char **ret_kind,
                   const char **ret_name)
{
    const struct object_meta *m = wl_meta(wl);
    const struct owner_ref *o = m ? object_meta_controller(m) : NULL;
    *ret_kind = o ? o->kind : NULL;
    *ret_name = o ? o->name : NULL;
    return o != NULL;
}

/* The metadata of pod set ps's template: the Job's or replicated Job's pod
 * template, or the pod's own (pod groups and Pods); NULL when none. */
static const struct object_meta *ps_meta(const struct ordo_workload *wl,
                                         uint32_t ps)
{
    const struct workload *w = WL(wl);
    const struct podset *s = host_podset(wl, ps);
    if (!s || !w->top)
        return NULL;
    switch (w->kind) {
    case WL_JOB:
        return w->top->kind == OBJ_JOB ? &w->top->u.job.spec.template.meta
                                       : NULL;
    case WL_JOBSET:
        return w->top->kind == OBJ_JOBSET &&
                       ps < w->top->u.jobset.n_replicated_jobs
                   ? &w->top->u.jobset.replicated_jobs[ps].spec.template.meta
                   : NULL;
    default: {
        /* The pod set's spec is a pod's (&object.u.pod.spec). */
        if (!s->spec)
            return NULL;
        const struct object *o =
            (const struct object *)((const char *)s->spec -
                                    offsetof(struct object, u.pod.spec));
        return o->kind == OBJ_POD ? &o->meta : NULL;
    }
    }
}

const char *host_ps_label(const struct ordo_workload *wl, uint32_t ps,
                          const char *key)
{
    const struct object_meta *m = ps_meta(wl, ps);
    return m && key ? strmap_get(&m->labels, key) : NULL;
}

uint32_t host_ps_n_labels(const struct ordo_workload *wl, uint32_t ps)
{
    const struct object_meta *m = ps_meta(wl, ps);
    return m ? (uint32_t)m->labels.n : 0;
}

void host_ps_label_at(const struct ordo_workload *wl, uint32_t ps, uint32_t i,
                      const char **ret_key, const char **ret_value)
{
    const struct object_meta *m = ps_meta(wl, ps);
    strmap_at(m ? &m->labels : NULL, i, ret_key, ret_value);
}

const char *host_ps_annotation(const struct ordo_workload *wl, uint32_t ps,
                               const char *key)
{
    const struct object_meta *m = ps_meta(wl, ps);
    return m && key ? strmap_get(&m->annotations, key) : NULL;
}

uint32_t host_ps_n_annotations(const struct ordo_workload *wl, uint32_t ps)
{
    const struct object_meta *m = ps_meta(wl, ps);
    return m ? (uint32_t)m->annotations.n : 0;
}

void host_ps_annotation_at(const struct ordo_workload *wl, uint32_t ps,
                           uint32_t i, const char **ret_key,
                           const char **ret_value)
{
    const struct object_meta *m = ps_meta(wl, ps);
    strmap_at(m ? &m->annotations : NULL, i, ret_key, ret_value);
}
