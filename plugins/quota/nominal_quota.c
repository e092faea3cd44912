/* nominal_quota.c - the "nominal-quota" QUOTA plugin: Kueue's flavor
 * assignment (reference section 3.6) within a ClusterQueue's own nominal
 * quota, without borrowing or preemption.
 *
 * Pod sets are taken in order. For each resource group that covers something
 * the pod set requests, the group's flavors are tried in list order and the
 * first one that matches the pod set's node selector / tolerations and has
 * enough unused nominal quota for every resource of the group (usage + this
 * workload's earlier pod sets + count * request <= nominal) is assigned.
 * The workload fits when every pod set does; otherwise the mode is NOFIT
 * and the reason, in Kueue's words, names the shortfall of the flavor that
 * came closest. As in Kueue, a zero request still takes a flavor of its
 * group, and a zero request of a resource no group covers is ignored.
 * Quantities are int64 milli-units; sums and products saturate instead of
 * wrapping. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <ordo/plugin.h>

struct nominal_quota {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

/* Quota that the workload's earlier pod sets took in this call, per
 * (flavor, resource); cycle scratch memory. */
struct taken {
    const struct ordo_flavor *f;
    ordo_resource_id id;
    int64_t milli;
};

struct taken_list {
    struct taken *items;
    size_t n;
};

/* Why one flavor does not fit; the reason reports the closest flavor. */
struct shortfall {
    const struct ordo_flavor *f;
    uint32_t n_short;    /* resources of the group that do not fit */
    ordo_resource_id id; /* the first of them: */
    bool unlisted;       /* the ClusterQueue has no quota for (f, id) */
    int64_t prev;        /* taken by the workload's earlier pod sets */
    int64_t need;        /* count * request of this pod set */
    int64_t nominal;
    int64_t more; /* usage + prev + need - nominal */
};

/* ---- integers ---------------------------------------------------------- */

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

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

#define QTY_MAX 32

/* Memory-like resources print in binary SI. */
static bool is_binary(const char *resource)
{
    return strcmp(resource, "memory") == 0 ||
           strcmp(resource, "ephemeral-storage") == 0 ||
           strncmp(resource, "hugepages-", strlen("hugepages-")) == 0;
}

/* Formats milli-units simply: "4", "1500m", and for memory-like resources
 * whole bytes with the largest exact binary suffix ("1536Mi"). */
static const char *qty(const char *resource, int64_t milli, char buf[QTY_MAX])
{
    static const char *const suffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (milli % 1000 != 0) {
        snprintf(buf, QTY_MAX, "%" PRId64 "m", milli);
        return buf;
    }
    int64_t v = milli / 1000;
    const char *sfx = "";
    for (size_t i = 0; v != 0 && v % 1024 == 0 && is_binary(resource) &&
                       i < sizeof(suffix) / sizeof(suffix[0]);
         i++) {
        v /= 1024;
        sfx = suffix[i];
    }
    snprintf(buf, QTY_MAX, "%" PRId64 "%s", v, sfx);
    return buf;
}

/* ---- helpers ----------------------------------------------------------- */

static const char *res_name(const struct ordo_host *h, ordo_resource_id id)
{
    const char *name = h->resource_name(id);
    return name ? name : "?";
}

/* Sets the verdict's reason, naming the pod set when there are several. */
__attribute__((format(printf, 5, 6))) static void
podset_reason(const struct ordo_host *h, struct ordo_cycle *cy,
              const struct ordo_workload *wl, uint32_t ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (h->wl_n_podsets(wl) > 1)
        h->reason(cy, "pod set %s: %s", h->ps_name(wl, ps), msg);
    else
        h->reason(cy, "%s", msg);
}

static int64_t taken_of(const struct taken_list *tl,
                        const struct ordo_flavor *f, ordo_resource_id id)
{
    for (size_t i = 0; i < tl->n; i++)
        if (tl->items[i].f == f && tl->items[i].id == id)
            return tl->items[i].milli;
    return 0;
}

/* Room: one entry per distinct (flavor, resource), at most one per request
 * of the workload. */
static void take(struct taken_list *tl, const struct ordo_flavor *f,
                 ordo_resource_id id, int64_t milli)
{
    for (size_t i = 0; i < tl->n; i++)
        if (tl->items[i].f == f && tl->items[i].id == id) {
            tl->items[i].milli = sat_add(tl->items[i].milli, milli);
            return;
        }
    tl->items[tl->n++] = (struct taken){.f = f, .id = id, .milli = milli};
}

/* True when request i of pod set ps is covered by group g; *ret_need is
 * count * request (a negative request counts as zero). */
static bool request_in_group(const struct ordo_host *h,
                             const struct ordo_workload *wl, uint32_t ps,
                             uint32_t i, uint32_t g, ordo_resource_id *ret_id,
                             int64_t *ret_need)
{
    int64_t milli;
    h->ps_request(wl, ps, i, ret_id, &milli);
    if (h->cq_group_of(h->wl_cq(wl), *ret_id) != (int32_t)g)
        return false;
    *ret_need = milli > 0 ? sat_mul(milli, h->ps_count(wl, ps)) : 0;
    return true;
}

/* Checks every resource of group g of pod set ps against flavor f; n_short
 * stays 0 when it fits. */
static void check_flavor(const struct ordo_host *h, struct ordo_cycle *cy,
                         const struct ordo_workload *wl, uint32_t ps,
                         uint32_t g, const struct ordo_flavor *f,
                         const struct taken_list *tl, struct shortfall *sf)
{
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_req = h->ps_n_requests(wl, ps);
    *sf = (struct shortfall){.f = f};
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t need;
        if (!request_in_group(h, wl, ps, i, g, &id, &need))
            continue;
        int64_t prev = taken_of(tl, f, id);
        int64_t val = sat_add(prev, need);
        int64_t nominal = 0;
        bool listed = h->cq_nominal(cq, f, id, &nominal);
        int64_t used = sat_add(h->cq_usage(cy, cq, f, id), val);
        if (listed && used <= nominal)
            continue;
        if (sf->n_short++ == 0) {
            sf->id = id;
            sf->unlisted = !listed;
            sf->prev = prev;
            sf->need = need;
            sf->nominal = nominal;
            sf->more = sat_sub(used, nominal);
        }
    }
}

/* Whether a is closer to fitting than b: fewer resources short, then the
 * smaller shortfall of the same first resource; ties keep b (earlier). */
static bool closer(const struct shortfall *a, const struct shortfall *b)
{
    if (a->n_short != b->n_short)
        return a->n_short < b->n_short;
    if (a->id != b->id || a->unlisted || b->unlisted)
        return false;
    return a->more < b->more;
}

static void shortfall_reason(const struct ordo_host *h, struct ordo_cycle *cy,
                             const struct ordo_workload *wl, uint32_t ps,
                             const struct shortfall *sf)
{
    const char *r = res_name(h, sf->id);
    const char *f = h->flavor_name(sf->f);
    char a[QTY_MAX], b[QTY_MAX], c[QTY_MAX];
    if (sf->unlisted)
        podset_reason(h, cy, wl, ps,
                      "flavor %s has no quota for %s in ClusterQueue %s", f, r,
                      h->cq_name(h->wl_cq(wl)));
    else if (sat_add(sf->prev, sf->need) > sf->nominal)
        podset_reason(h, cy, wl, ps,
                      "insufficient quota for %s in flavor %s, previously "
                      "considered podsets requests (%s) + current podset "
                      "request (%s) > maximum capacity (%s)",
                      r, f, qty(r, sf->prev, a), qty(r, sf->need, b),
                      qty(r, sf->nominal, c));
    else
        podset_reason(h, cy, wl, ps,
                      "insufficient unused quota for %s in flavor %s, %s more "
                      "needed",
                      r, f, qty(r, sf->more, a));
}

/* Assigns a flavor of group g to pod set ps: ORDO_OK, ORDO_UNSCHEDULABLE
 * (no flavor fits) or ORDO_ERROR, with the reason set. */
static enum ordo_verdict fit_group(const struct ordo_host *h,
                                   struct ordo_cycle *cy,
                                   const struct ordo_workload *wl, uint32_t ps,
                                   uint32_t g, struct taken_list *tl)
{
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_flavors = h->cq_group_n_flavors(cq, g);
    struct shortfall best = {0};
    for (uint32_t fi = 0; fi < n_flavors; fi++) {
        const struct ordo_flavor *f = h->cq_group_flavor(cq, g, fi);
        if (!h->ps_matches_flavor(wl, ps, f))
            continue;
        struct shortfall sf;
        check_flavor(h, cy, wl, ps, g, f, tl, &sf);
        if (sf.n_short > 0) {
            if (!best.f || closer(&sf, &best))
                best = sf;
            continue;
        }
        if (h->assign_flavor(cy, ps, g, f) != 0) {
            h->reason(cy, "the host refused flavor %s for pod set %s",
                      h->flavor_name(f), h->ps_name(wl, ps));
            return ORDO_ERROR;
        }
        uint32_t n_req = h->ps_n_requests(wl, ps);
        for (uint32_t i = 0; i < n_req; i++) {
            ordo_resource_id id;
            int64_t need;
            if (request_in_group(h, wl, ps, i, g, &id, &need))
                take(tl, f, id, need);
        }
        return ORDO_OK;
    }
    if (!best.f)
        h->reason(cy,
                  "no flavor matches the node selector / tolerations of pod "
                  "set %s",
                  h->ps_name(wl, ps));
    else
        shortfall_reason(h, cy, wl, ps, &best);
    return ORDO_UNSCHEDULABLE;
}

static enum ordo_verdict fit_podset(const struct ordo_host *h,
                                    struct ordo_cycle *cy,
                                    const struct ordo_workload *wl, uint32_t ps,
                                    struct taken_list *tl)
{
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_req = h->ps_n_requests(wl, ps);
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli;
        h->ps_request(wl, ps, i, &id, &milli);
        if (milli > 0 && h->cq_group_of(cq, id) < 0) {
            podset_reason(h, cy, wl, ps,
                          "resource %s is not covered by ClusterQueue %s",
                          res_name(h, id), h->cq_name(cq));
            return ORDO_UNSCHEDULABLE;
        }
    }
    uint32_t n_groups = h->cq_n_groups(cq);
    for (uint32_t g = 0; g < n_groups; g++) {
        bool requested = false;
        for (uint32_t i = 0; i < n_req && !requested; i++) {
            ordo_resource_id id;
            int64_t need;
            requested = request_in_group(h, wl, ps, i, g, &id, &need);
        }
        if (!requested)
            continue;
        enum ordo_verdict v = fit_group(h, cy, wl, ps, g, tl);
        if (v != ORDO_OK)
            return v;
    }
    return ORDO_OK;
}

/* ---- ops --------------------------------------------------------------- */

static enum ordo_verdict nominal_quota_assign(void *self, struct ordo_cycle *cy,
                                              const struct ordo_workload *wl,
                                              enum ordo_quota_mode *ret_mode)
{
    const struct nominal_quota *s = self;
    const struct ordo_host *h = s->host;
    uint32_t n_ps = h->wl_n_podsets(wl);

    *ret_mode = ORDO_QUOTA_NOFIT;
    h->assign_borrowing(cy, 0);

    size_t cap = 1;
    for (uint32_t ps = 0; ps < n_ps; ps++)
        cap += h->ps_n_requests(wl, ps);
    struct taken_list tl = {.items =
                                h->cycle_alloc(cy, cap * sizeof(struct taken))};
    if (!tl.items) {
        h->reason(cy, "out of cycle memory");
        return ORDO_ERROR;
    }

    for (uint32_t ps = 0; ps < n_ps; ps++) {
        enum ordo_verdict v = fit_podset(h, cy, wl, ps, &tl);
        if (v == ORDO_UNSCHEDULABLE)
            return ORDO_OK; /* decided: NOFIT, reason set */
        if (v != ORDO_OK)
            return v;
    }
    *ret_mode = ORDO_QUOTA_FIT;
    return ORDO_OK;
}

static int nominal_quota_init(const struct ordo_host *host,
                              const struct ordo_plugin *p, void **ret_self)
{
    struct nominal_quota *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

static void nominal_quota_fini(void *self)
{
    struct nominal_quota *s = self;
    if (s)
        s->host->free(s);
}

static const struct ordo_quota_ops nominal_quota_ops = {
    .assign = nominal_quota_assign,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUOTA,
    .name = "nominal-quota",
    .version = "1.0.0",
    .summary = "first flavor in order that fits the ClusterQueue's nominal "
               "quota; no borrowing",
    .init = nominal_quota_init,
    .fini = nominal_quota_fini,
    .quota = &nominal_quota_ops,
};
