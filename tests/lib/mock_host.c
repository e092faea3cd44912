/* mock_host.c - the mock struct ordo_host of mock_host.h: every host
 * function answered from the in-memory fixtures, with allocations counted
 * and reasons, logs and assignments captured for the test to check.
 *
 * A plugin that breaks the ABI's rules (an index out of range, a handle the
 * host never gave it) aborts the test with a message. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_host_int.h"
#include "quantity.h"

#define MOCK_MAX_RESOURCES 64
#define MOCK_NAME_MAX      64

/* Process-wide mock state, like the real host's resource table. */
static struct {
    char names[MOCK_MAX_RESOURCES][MOCK_NAME_MAX];
    int n_names;
    long live_allocs;
    bool fail_alloc;
} mock;

#define MOCK_CHECK(cond)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "mock host: %s:%d: %s does not hold\n", __FILE__,  \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* ---- knobs and helpers ------------------------------------------------- */

void mock_reset(void)
{
    memset(&mock, 0, sizeof(mock));
}

long mock_live_allocs(void)
{
    return mock.live_allocs;
}

void mock_fail_alloc(bool fail)
{
    mock.fail_alloc = fail;
}

ordo_resource_id mock_resource(const char *name)
{
    MOCK_CHECK(name && strlen(name) < MOCK_NAME_MAX);
    for (int i = 0; i < mock.n_names; i++)
        if (strcmp(mock.names[i], name) == 0)
            return i;
    MOCK_CHECK(mock.n_names < MOCK_MAX_RESOURCES);
    strcpy(mock.names[mock.n_names], name);
    return mock.n_names++;
}

void mock_cycle_init(struct ordo_cycle *cy, const struct ordo_workload *wl,
                     const struct ordo_node *const *nodes)
{
    memset(cy, 0, sizeof(*cy));
    cy->wl = wl;
    for (uint32_t i = 0; nodes && nodes[i]; i++) {
        MOCK_CHECK(i < MOCK_MAX);
        cy->nodes[i] = nodes[i];
    }
}

void mock_cycle_end(struct ordo_cycle *cy)
{
    for (size_t i = 0; i < cy->n_scratch; i++)
        free(cy->scratch[i]);
    free(cy->scratch);
    cy->scratch = NULL;
    cy->n_scratch = 0;
}

void mock_clear_reason(struct ordo_cycle *cy)
{
    cy->n_reasons = 0;
    cy->reason[0] = '\0';
}

static const char *label_of(const struct mock_label *labels, const char *key)
{
    for (uint32_t i = 0; i < MOCK_MAX && labels[i].key; i++)
        if (strcmp(labels[i].key, key) == 0)
            return labels[i].value;
    return NULL;
}

static bool has_key(const char *const *keys, const char *key)
{
    for (uint32_t i = 0; i < MOCK_MAX && keys[i]; i++)
        if (strcmp(keys[i], key) == 0)
            return true;
    return false;
}

static int64_t qty_of(const struct mock_qty *q, ordo_resource_id id,
                      bool *ret_found)
{
    for (uint32_t i = 0; i < MOCK_MAX && q[i].resource; i++)
        if (mock_resource(q[i].resource) == id) {
            *ret_found = true;
            return q[i].milli;
        }
    *ret_found = false;
    return 0;
}

static const struct mock_podset *podset(const struct ordo_workload *wl,
                                        uint32_t ps)
{
    MOCK_CHECK(wl && ps < MOCK_MAX && wl->podsets[ps].name);
    return &wl->podsets[ps];
}

static const struct mock_group *group(const struct ordo_cq *cq, uint32_t g)
{
    MOCK_CHECK(cq && g < MOCK_MAX && cq->groups[g].resources[0]);
    return &cq->groups[g];
}

/* The quota entry of (f, id) in cq, or NULL. */
static const struct mock_quota *quota(const struct ordo_cq *cq,
                                      const struct ordo_flavor *f,
                                      ordo_resource_id id)
{
    for (uint32_t g = 0; g < MOCK_MAX && cq->groups[g].resources[0]; g++) {
        const struct mock_group *gr = &cq->groups[g];
        for (uint32_t i = 0; i < MOCK_MAX && gr->flavors[i].flavor; i++) {
            if (gr->flavors[i].flavor != f)
                continue;
            const struct mock_quota *q = gr->flavors[i].quotas;
            for (uint32_t j = 0; j < MOCK_MAX && q[j].resource; j++)
                if (mock_resource(q[j].resource) == id)
                    return &q[j];
        }
    }
    return NULL;
}

/* ---- the host functions ------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static void
m_log(const struct ordo_plugin *p, enum ordo_log_level level, const char *fmt,
      ...)
{
    /* The fixture is a mutable object the test owns. */
    struct ordo_plugin *mp = (struct ordo_plugin *)p;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mp->last_log, sizeof(mp->last_log), fmt, ap);
    va_end(ap);
    mp->last_level = level;
    mp->n_logs++;
}

static void *m_alloc(size_t size)
{
    if (mock.fail_alloc)
        return NULL;
    void *ptr = calloc(1, size ? size : 1);
    if (ptr)
        mock.live_allocs++;
    return ptr;
}

static void m_free(void *ptr)
{
    if (!ptr)
        return;
    mock.live_allocs--;
    free(ptr);
}

static void *m_cycle_alloc(struct ordo_cycle *cy, size_t size)
{
    MOCK_CHECK(cy);
    if (cy->fail_cycle_alloc)
        return NULL;
    void **list = realloc(cy->scratch, (cy->n_scratch + 1) * sizeof(*list));
    MOCK_CHECK(list);
    cy->scratch = list;
    void *ptr = calloc(1, size ? size : 1);
    MOCK_CHECK(ptr);
    cy->scratch[cy->n_scratch++] = ptr;
    return ptr;
}

__attribute__((format(printf, 2, 3))) static void
m_reason(struct ordo_cycle *cy, const char *fmt, ...)
{
    MOCK_CHECK(cy);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cy->reason, sizeof(cy->reason), fmt, ap);
    va_end(ap);
    cy->n_reasons++;
}

static const struct mock_arg *arg(const struct ordo_plugin *p, const char *key)
{
    MOCK_CHECK(p && key);
    for (uint32_t i = 0; i < MOCK_MAX && p->args[i].key; i++)
        if (strcmp(p->args[i].key, key) == 0)
            return &p->args[i];
    return NULL;
}

static int m_config_int(const struct ordo_plugin *p, const char *key,
                        int64_t def, int64_t *ret)
{
    const struct mock_arg *a = arg(p, key);
    if (!a) {
        *ret = def;
        return 0;
    }
    if (!a->is_int)
        return -EINVAL;
    *ret = a->num;
    return 0;
}

static int m_config_string(const struct ordo_plugin *p, const char *key,
                           const char *def, const char **ret)
{
    const struct mock_arg *a = arg(p, key);
    if (!a) {
        *ret = def;
        return 0;
    }
    if (a->is_int || a->is_bool || a->is_list || !a->str)
        return -EINVAL;
    *ret = a->str;
    return 0;
}

static ordo_resource_id m_resource_id(const char *name)
{
    for (int i = 0; name && i < mock.n_names; i++)
        if (strcmp(mock.names[i], name) == 0)
            return i;
    return ORDO_RESOURCE_NONE;
}

static const char *m_resource_name(ordo_resource_id id)
{
    if (id < 0 || id >= mock.n_names)
        return NULL;
    return mock.names[id];
}

static const char *m_wl_name(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->name;
}

static int32_t m_wl_priority(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->priority;
}

static int64_t m_wl_queue_time(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->queue_time;
}

static const struct ordo_cq *m_wl_cq(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->cq;
}

static uint32_t m_wl_n_podsets(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    uint32_t n = 0;
    while (n < MOCK_MAX && wl->podsets[n].name)
        n++;
    return n;
}

static const char *m_ps_name(const struct ordo_workload *wl, uint32_t ps)
{
    return podset(wl, ps)->name;
}

static uint32_t m_ps_count(const struct ordo_workload *wl, uint32_t ps)
{
    return podset(wl, ps)->count;
}

static uint32_t m_ps_n_requests(const struct ordo_workload *wl, uint32_t ps)
{
    const struct mock_podset *s = podset(wl, ps);
    uint32_t n = 0;
    while (n < MOCK_MAX && s->requests[n].resource)
        n++;
    return n;
}

static void m_ps_request(const struct ordo_workload *wl, uint32_t ps,
                         uint32_t i, ordo_resource_id *ret_id,
                         int64_t *ret_milli)
{
    const struct mock_podset *s = podset(wl, ps);
    MOCK_CHECK(i < MOCK_MAX && s->requests[i].resource);
    *ret_id = mock_resource(s->requests[i].resource);
    *ret_milli = s->requests[i].milli;
}

static bool m_ps_matches_node(const struct ordo_workload *wl, uint32_t ps,
                              const struct ordo_node *node)
{
    const struct mock_podset *s = podset(wl, ps);
    MOCK_CHECK(node);
    for (uint32_t i = 0; i < MOCK_MAX && s->selector[i].key; i++) {
        const char *v = label_of(node->labels, s->selector[i].key);
        if (!v || strcmp(v, s->selector[i].value) != 0)
            return false;
    }
    return true;
}

static bool m_ps_tolerates_node(struct ordo_cycle *cy,
                                const struct ordo_workload *wl, uint32_t ps,
                                const struct ordo_node *node)
{
    const struct mock_podset *s = podset(wl, ps);
    MOCK_CHECK(cy && node);
    for (uint32_t i = 0; i < MOCK_MAX && node->taints[i]; i++)
        if (!has_key(s->tolerations, node->taints[i]))
            return false;
    return true;
}

static bool m_ps_matches_flavor(const struct ordo_workload *wl, uint32_t ps,
                                const struct ordo_flavor *f)
{
    const struct mock_podset *s = podset(wl, ps);
    MOCK_CHECK(f);
    /* Only the keys the flavor declares are compared. */
    for (uint32_t i = 0; i < MOCK_MAX && s->selector[i].key; i++) {
        const char *v = label_of(f->labels, s->selector[i].key);
        if (v && strcmp(v, s->selector[i].value) != 0)
            return false;
    }
    for (uint32_t i = 0; i < MOCK_MAX && f->taints[i]; i++)
        if (!has_key(s->tolerations, f->taints[i]) &&
            !has_key(f->tolerations, f->taints[i]))
            return false;
    return true;
}

/* Taint first, then labels, as the real host; a taint is "key:NoSchedule". */
static const char *m_ps_flavor_mismatch(const struct ordo_workload *wl,
                                        uint32_t ps,
                                        const struct ordo_flavor *f, char *buf,
                                        size_t size)
{
    const struct mock_podset *s = podset(wl, ps);
    MOCK_CHECK(f && buf && size);
    for (uint32_t i = 0; i < MOCK_MAX && f->taints[i]; i++)
        if (!has_key(s->tolerations, f->taints[i]) &&
            !has_key(f->tolerations, f->taints[i])) {
            snprintf(buf, size, "untolerated taint %s:NoSchedule in flavor %s",
                     f->taints[i], f->name);
            return buf;
        }
    if (m_ps_matches_flavor(wl, ps, f))
        return NULL;
    snprintf(buf, size, "flavor %s doesn't match node affinity", f->name);
    return buf;
}

static const char *m_cq_name(const struct ordo_cq *cq)
{
    MOCK_CHECK(cq);
    return cq->name;
}

static uint32_t m_cq_n_groups(const struct ordo_cq *cq)
{
    MOCK_CHECK(cq);
    uint32_t n = 0;
    while (n < MOCK_MAX && cq->groups[n].resources[0])
        n++;
    return n;
}

static int32_t m_cq_group_of(const struct ordo_cq *cq, ordo_resource_id id)
{
    const char *name = m_resource_name(id);
    if (!name)
        return -1;
    for (uint32_t g = 0; g < m_cq_n_groups(cq); g++)
        if (has_key(cq->groups[g].resources, name))
            return (int32_t)g;
    return -1;
}

static uint32_t m_cq_group_n_flavors(const struct ordo_cq *cq, uint32_t g)
{
    const struct mock_group *gr = group(cq, g);
    uint32_t n = 0;
    while (n < MOCK_MAX && gr->flavors[n].flavor)
        n++;
    return n;
}

static const struct ordo_flavor *m_cq_group_flavor(const struct ordo_cq *cq,
                                                   uint32_t g, uint32_t i)
{
    MOCK_CHECK(i < m_cq_group_n_flavors(cq, g));
    return cq->groups[g].flavors[i].flavor;
}

static bool m_cq_nominal(const struct ordo_cq *cq, const struct ordo_flavor *f,
                         ordo_resource_id id, int64_t *ret_milli)
{
    MOCK_CHECK(cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    if (!q)
        return false;
    *ret_milli = q->nominal;
    return true;
}

static int64_t m_cq_usage(struct ordo_cycle *cy, const struct ordo_cq *cq,
                          const struct ordo_flavor *f, ordo_resource_id id)
{
    MOCK_CHECK(cy && cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    return q ? q->usage : 0;
}

static const char *m_flavor_name(const struct ordo_flavor *f)
{
    MOCK_CHECK(f);
    return f->name;
}

static uint32_t m_n_nodes(struct ordo_cycle *cy)
{
    MOCK_CHECK(cy);
    uint32_t n = 0;
    while (n < MOCK_MAX && cy->nodes[n])
        n++;
    return n;
}

static const struct ordo_node *m_node_at(struct ordo_cycle *cy, uint32_t i)
{
    MOCK_CHECK(i < m_n_nodes(cy));
    return cy->nodes[i];
}

static const char *m_node_name(const struct ordo_node *n)
{
    MOCK_CHECK(n);
    return n->name;
}

static const char *m_node_label(const struct ordo_node *n, const char *key)
{
    MOCK_CHECK(n && key);
    return label_of(n->labels, key);
}

static bool m_node_schedulable(const struct ordo_node *n)
{
    MOCK_CHECK(n);
    return !n->unschedulable;
}

static int64_t m_node_allocatable(const struct ordo_node *n,
                                  ordo_resource_id id)
{
    MOCK_CHECK(n);
    bool found;
    return qty_of(n->allocatable, id, &found);
}

static int64_t m_node_free(struct ordo_cycle *cy, const struct ordo_node *n,
                           ordo_resource_id id)
{
    MOCK_CHECK(cy && n);
    bool found;
    int64_t v = qty_of(n->free, id, &found);
    return found ? v : m_node_allocatable(n, id);
}

static int m_assign_flavor(struct ordo_cycle *cy, uint32_t ps, uint32_t g,
                           const struct ordo_flavor *f)
{
    MOCK_CHECK(cy && cy->wl);
    cy->n_assign_calls++;
    if (ps >= m_wl_n_podsets(cy->wl) || g >= m_cq_n_groups(cy->wl->cq))
        return -EINVAL;
    for (uint32_t i = 0; i < m_cq_group_n_flavors(cy->wl->cq, g); i++)
        if (cy->wl->cq->groups[g].flavors[i].flavor == f) {
            cy->assigned[ps][g] = f;
            return 0;
        }
    return -EINVAL;
}

static void m_assign_borrowing(struct ordo_cycle *cy, uint32_t level)
{
    MOCK_CHECK(cy);
    cy->borrowing = level;
    cy->n_borrowing_calls++;
}

static const struct ordo_flavor *
m_assigned_flavor(struct ordo_cycle *cy, uint32_t ps, ordo_resource_id id)
{
    MOCK_CHECK(cy && cy->wl && ps < m_wl_n_podsets(cy->wl));
    int32_t g = m_cq_group_of(cy->wl->cq, id);
    return g < 0 ? NULL : cy->assigned[ps][g];
}

static const char *m_flavor_node_label(const struct ordo_flavor *f,
                                       const char *key)
{
    MOCK_CHECK(f && key);
    return label_of(f->labels, key);
}

static uint32_t m_flavor_n_node_labels(const struct ordo_flavor *f)
{
    MOCK_CHECK(f);
    uint32_t n = 0;
    while (n < MOCK_MAX && f->labels[n].key)
        n++;
    return n;
}

static void m_flavor_node_label_at(const struct ordo_flavor *f, uint32_t i,
                                   const char **ret_key, const char **ret_value)
{
    MOCK_CHECK(i < m_flavor_n_node_labels(f));
    *ret_key = f->labels[i].key;
    *ret_value = f->labels[i].value;
}

/* ---- quota arithmetic: the flat-cohort model of mock_host.h ------------ */

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The model entry of (f, id) in cq; all zero when it has none. */
static struct mock_fr_quota fr_quota(const struct ordo_cq *cq,
                                     const struct ordo_flavor *f,
                                     ordo_resource_id id)
{
    for (uint32_t i = 0; i < MOCK_MAX && cq->fr_quotas[i].flavor; i++) {
        const struct mock_fr_quota *m = &cq->fr_quotas[i];
        MOCK_CHECK(m->resource);
        if (m->flavor == f && mock_resource(m->resource) == id)
            return *m;
    }
    return (struct mock_fr_quota){.flavor = f};
}

static int64_t m_cq_available(struct ordo_cycle *cy, const struct ordo_cq *cq,
                              const struct ordo_flavor *f, ordo_resource_id id)
{
    MOCK_CHECK(cy && cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    if (!q)
        return 0;
    struct mock_fr_quota m = fr_quota(cq, f, id);
    if (m.fixed)
        return m.available;
    int64_t own = sat_sub(q->nominal, q->usage);
    int64_t avail = own;
    if (cq->cohort) {
        avail = sat_sub(sat_add(q->nominal, m.cohort_nominal),
                        sat_add(q->usage, m.cohort_usage));
        if (m.has_borrowing_limit)
            avail = min64(avail, sat_add(own, m.borrowing_limit));
    }
    return avail > 0 ? avail : 0;
}

static int64_t m_cq_potential_available(struct ordo_cycle *cy,
                                        const struct ordo_cq *cq,
                                        const struct ordo_flavor *f,
                                        ordo_resource_id id)
{
    MOCK_CHECK(cy && cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    if (!q)
        return 0;
    struct mock_fr_quota m = fr_quota(cq, f, id);
    if (m.fixed)
        return m.potential;
    if (!cq->cohort)
        return q->nominal;
    int64_t pot = sat_add(q->nominal, m.cohort_nominal);
    if (m.has_borrowing_limit)
        pot = min64(pot, sat_add(q->nominal, m.borrowing_limit));
    return pot;
}

static uint32_t m_cq_borrowing_level(struct ordo_cycle *cy,
                                     const struct ordo_cq *cq,
                                     const struct ordo_flavor *f,
                                     ordo_resource_id id, int64_t request)
{
    MOCK_CHECK(cy && cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    if (!q || !cq->cohort || sat_add(q->usage, request) <= q->nominal)
        return 0;
    struct mock_fr_quota m = fr_quota(cq, f, id);
    return m.cohort_height ? m.cohort_height : 1;
}

static bool m_cq_fits_below_root(const struct ordo_cq *cq,
                                 const struct ordo_flavor *f,
                                 ordo_resource_id id, int64_t request)
{
    MOCK_CHECK(cq && f);
    const struct mock_quota *q = quota(cq, f, id);
    if (!q)
        return false;
    struct mock_fr_quota m = fr_quota(cq, f, id);
    return request <= q->nominal ||
           (m.below_root_quota > 0 && request <= m.below_root_quota);
}

static bool m_cq_has_cohort(const struct ordo_cq *cq)
{
    MOCK_CHECK(cq);
    return cq->cohort != NULL;
}

static uint32_t m_cq_fungibility(const struct ordo_cq *cq,
                                 enum ordo_fungibility_field field)
{
    MOCK_CHECK(cq);
    switch (field) {
    case ORDO_WHEN_CAN_BORROW:
        return (uint32_t)cq->when_can_borrow;
    case ORDO_WHEN_CAN_PREEMPT:
        return (uint32_t)cq->when_can_preempt;
    case ORDO_PREFERENCE:
        return (uint32_t)cq->preference;
    }
    MOCK_CHECK(!"unknown fungibility field");
    return 0;
}

static uint32_t m_cq_preemption(const struct ordo_cq *cq,
                                enum ordo_preemption_field field)
{
    MOCK_CHECK(cq);
    switch (field) {
    case ORDO_WITHIN_CLUSTER_QUEUE:
        return (uint32_t)cq->within_cluster_queue;
    case ORDO_RECLAIM_WITHIN_COHORT:
        return (uint32_t)cq->reclaim_within_cohort;
    case ORDO_BORROW_WITHIN_COHORT:
        return (uint32_t)cq->borrow_within_cohort;
    }
    MOCK_CHECK(!"unknown preemption field");
    return 0;
}

static bool m_fair_sharing(struct ordo_cycle *cy)
{
    MOCK_CHECK(cy);
    return cy->fair_sharing;
}

/* ---- preemption: the model of struct ordo_cycle ----------------------- */

static const struct ordo_cq *m_wl_admitted_cq(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->admitted_cq;
}

static int64_t m_wl_admitted_time(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->admitted_time;
}

static bool m_wl_evicting(const struct ordo_workload *wl)
{
    MOCK_CHECK(wl);
    return wl->evicting;
}

static bool m_cq_same(const struct ordo_cq *a, const struct ordo_cq *b)
{
    MOCK_CHECK(a && b);
    return a == b;
}

/* What the removed workloads admitted to cq (any when NULL) free. */
static int64_t removed_frees(const struct ordo_cycle *cy,
                             const struct ordo_cq *cq)
{
    int64_t sum = 0;
    for (uint32_t i = 0; i < cy->n_removed; i++)
        if (!cq || cy->removed[i]->admitted_cq == cq)
            sum = sat_add(sum, cy->removed[i]->frees);
    return sum;
}

static int32_t removed_index(const struct ordo_cycle *cy,
                             const struct ordo_workload *wl)
{
    for (uint32_t i = 0; i < cy->n_removed; i++)
        if (cy->removed[i] == wl)
            return (int32_t)i;
    return -1;
}

static bool m_cq_over_nominal_for(struct ordo_cycle *cy,
                                  const struct ordo_cq *cq)
{
    MOCK_CHECK(cy && cq);
    return sat_sub(cq->borrowed, removed_frees(cy, cq)) > 0;
}

static void m_sim_remove(struct ordo_cycle *cy, const struct ordo_workload *wl)
{
    MOCK_CHECK(cy && wl && wl->admitted_cq);
    MOCK_CHECK(removed_index(cy, wl) < 0);
    MOCK_CHECK(cy->n_removed < sizeof(cy->removed) / sizeof(cy->removed[0]));
    cy->removed[cy->n_removed++] = wl;
    cy->n_sim_remove++;
}

static void m_sim_restore(struct ordo_cycle *cy,
                          const struct ordo_workload *wl)
{
    MOCK_CHECK(cy && wl);
    int32_t i = removed_index(cy, wl);
    MOCK_CHECK(i >= 0);
    cy->removed[i] = cy->removed[--cy->n_removed];
    cy->n_sim_restore++;
}

static bool m_preemptor_fits(struct ordo_cycle *cy, bool allow_borrowing)
{
    MOCK_CHECK(cy && cy->wl);
    cy->n_fits_calls++;
    if (cy->need > sat_add(cy->free, removed_frees(cy, NULL)))
        return false;
    return allow_borrowing ||
           cy->need <= sat_add(cy->nominal_headroom,
                               removed_frees(cy, cy->wl->cq));
}

static int64_t m_fs_preemptor_share(struct ordo_cycle *cy,
                                    const struct ordo_cq *target)
{
    MOCK_CHECK(cy && cy->wl && target);
    return sat_sub(target->fs_preemptor_share, removed_frees(cy, cy->wl->cq));
}

static int64_t m_fs_target_share(struct ordo_cycle *cy,
                                 const struct ordo_cq *target)
{
    MOCK_CHECK(cy && target);
    return sat_sub(target->fs_share, removed_frees(cy, target));
}

/* Kubernetes printing, by the same code the real host uses. */
static const char *m_format_quantity(ordo_resource_id id, int64_t milli,
                                     char *buf, size_t size)
{
    const char *name = m_resource_name(id);
    bool binary = name && (strcmp(name, "memory") == 0 ||
                           strcmp(name, "ephemeral-storage") == 0 ||
                           strncmp(name, "hugepages-", 10) == 0);
    struct quantity q = {milli, binary ? QUANTITY_BINARY_SI
                                       : QUANTITY_DECIMAL_SI};
    if (quantity_format(&q, buf, size) < 0)
        snprintf(buf, size, "%lldm", (long long)milli);
    return buf;
}

static bool m_preemption_candidates(struct ordo_cycle *cy,
                                    const struct ordo_flavor *f,
                                    ordo_resource_id id)
{
    MOCK_CHECK(cy && cy->wl);
    return !cy->wl->cq->no_preemption_candidates;
}

/* From the ClusterQueue's policies, unless the test set the answer. */
static uint32_t m_preemption_candidate_queues(struct ordo_cycle *cy,
                                              const struct ordo_flavor *f,
                                              ordo_resource_id id)
{
    MOCK_CHECK(cy && cy->wl);
    const struct ordo_cq *cq = cy->wl->cq;
    if (cq->no_preemption_candidates)
        return 0;
    struct mock_fr_quota m = fr_quota(cq, f, id);
    if (m.candidates)
        return m.candidates & (ORDO_CANDIDATES_OWN | ORDO_CANDIDATES_COHORT);
    uint32_t r = 0;
    if (cq->within_cluster_queue != ORDO_PREEMPT_NEVER)
        r |= ORDO_CANDIDATES_OWN;
    if (cq->cohort && cq->reclaim_within_cohort != ORDO_PREEMPT_NEVER)
        r |= ORDO_CANDIDATES_COHORT;
    return r;
}

static bool m_preemptor_advantage(struct ordo_cycle *cy,
                                  const struct ordo_cq *target)
{
    MOCK_CHECK(cy && target);
    return target->advantage;
}

/* A flat tree: the queue with the highest share (the preemptor's own
 * counted with its workload), ties to the lower rank. */
static int64_t m_fs_next_target(struct ordo_cycle *cy,
                                const struct ordo_cq *const *cqs,
                                const int64_t *rank, uint32_t n)
{
    MOCK_CHECK(cy && cy->wl && cqs && rank);
    cy->n_next_target_calls++;
    for (uint32_t k = 0; k < n; k++)
        if (cy->fs_force_target && cqs[k] == cy->fs_force_target)
            return k;
    int64_t best = -1, best_share = 0;
    for (uint32_t k = 0; k < n; k++) {
        MOCK_CHECK(cqs[k]);
        int64_t share = cqs[k] == cy->wl->cq
                            ? m_fs_preemptor_share(cy, cqs[k])
                            : m_fs_target_share(cy, cqs[k]);
        if (best < 0 || share > best_share ||
            (share == best_share && rank[k] < rank[best])) {
            best = k;
            best_share = share;
        }
    }
    return best;
}

static bool m_cq_max_priority_threshold(const struct ordo_cq *cq,
                                        int32_t *ret)
{
    MOCK_CHECK(cq);
    if (cq->has_threshold)
        *ret = cq->threshold;
    return cq->has_threshold;
}

static uint32_t m_fs_strategies(struct ordo_cycle *cy, uint32_t ret[2])
{
    MOCK_CHECK(cy && ret);
    uint32_t n = cy->n_fs_strategies < 2 ? cy->n_fs_strategies : 2;
    for (uint32_t i = 0; i < n; i++)
        ret[i] = cy->fs_strategies[i];
    return n;
}

static const struct ordo_host host = {
    .abi_major = ORDO_ABI_MAJOR,
    .abi_minor = ORDO_ABI_MINOR,
    .struct_size = sizeof(struct ordo_host),
    .log = m_log,
    .alloc = m_alloc,
    .free = m_free,
    .cycle_alloc = m_cycle_alloc,
    .reason = m_reason,
    .config_int = m_config_int,
    .config_string = m_config_string,
    .resource_id = m_resource_id,
    .resource_name = m_resource_name,
    .wl_name = m_wl_name,
    .wl_priority = m_wl_priority,
    .wl_queue_time = m_wl_queue_time,
    .wl_cq = m_wl_cq,
    .wl_n_podsets = m_wl_n_podsets,
    .ps_name = m_ps_name,
    .ps_count = m_ps_count,
    .ps_n_requests = m_ps_n_requests,
    .ps_request = m_ps_request,
    .ps_matches_node = m_ps_matches_node,
    .ps_tolerates_node = m_ps_tolerates_node,
    .ps_matches_flavor = m_ps_matches_flavor,
    .cq_name = m_cq_name,
    .cq_n_groups = m_cq_n_groups,
    .cq_group_of = m_cq_group_of,
    .cq_group_n_flavors = m_cq_group_n_flavors,
    .cq_group_flavor = m_cq_group_flavor,
    .cq_nominal = m_cq_nominal,
    .cq_usage = m_cq_usage,
    .flavor_name = m_flavor_name,
    .n_nodes = m_n_nodes,
    .node_at = m_node_at,
    .node_name = m_node_name,
    .node_label = m_node_label,
    .node_schedulable = m_node_schedulable,
    .node_allocatable = m_node_allocatable,
    .node_free = m_node_free,
    .assign_flavor = m_assign_flavor,
    .assign_borrowing = m_assign_borrowing,
    .assigned_flavor = m_assigned_flavor,
    .flavor_node_label = m_flavor_node_label,
    .flavor_n_node_labels = m_flavor_n_node_labels,
    .flavor_node_label_at = m_flavor_node_label_at,
    .cq_available = m_cq_available,
    .cq_potential_available = m_cq_potential_available,
    .cq_borrowing_level = m_cq_borrowing_level,
    .cq_fits_below_root = m_cq_fits_below_root,
    .cq_has_cohort = m_cq_has_cohort,
    .cq_fungibility = m_cq_fungibility,
    .cq_preemption = m_cq_preemption,
    .fair_sharing = m_fair_sharing,
    .wl_admitted_cq = m_wl_admitted_cq,
    .wl_admitted_time = m_wl_admitted_time,
    .wl_evicting = m_wl_evicting,
    .cq_same = m_cq_same,
    .cq_over_nominal_for = m_cq_over_nominal_for,
    .sim_remove = m_sim_remove,
    .sim_restore = m_sim_restore,
    .preemptor_fits = m_preemptor_fits,
    .fs_preemptor_share = m_fs_preemptor_share,
    .fs_target_share = m_fs_target_share,
    .fs_strategies = m_fs_strategies,
    .cq_max_priority_threshold = m_cq_max_priority_threshold,
    .format_quantity = m_format_quantity,
    .preemption_candidates = m_preemption_candidates,
    .preemptor_advantage = m_preemptor_advantage,
    .fs_next_target = m_fs_next_target,
    .preemption_candidate_queues = m_preemption_candidate_queues,
    .ps_flavor_mismatch = m_ps_flavor_mismatch,
    /* ABI 1.4: mock_host_meta.c */
    .config_quantity = mock_config_quantity,
    .config_duration = mock_config_duration,
    .config_bool = mock_config_bool,
    .config_list = mock_config_list,
    .now = mock_now,
    .wl_namespace = mock_wl_namespace,
    .wl_object_name = mock_wl_object_name,
    .wl_kind = mock_wl_kind,
    .wl_label = mock_wl_label,
    .wl_n_labels = mock_wl_n_labels,
    .wl_label_at = mock_wl_label_at,
    .wl_annotation = mock_wl_annotation,
    .wl_n_annotations = mock_wl_n_annotations,
    .wl_annotation_at = mock_wl_annotation_at,
    .wl_creation_time = mock_wl_creation_time,
    .wl_owner = mock_wl_owner,
    .ps_label = mock_ps_label,
    .ps_n_labels = mock_ps_n_labels,
    .ps_label_at = mock_ps_label_at,
    .ps_annotation = mock_ps_annotation,
    .ps_n_annotations = mock_ps_n_annotations,
    .ps_annotation_at = mock_ps_annotation_at,
};

const struct ordo_host *mock_host(void)
{
    return &host;
}
