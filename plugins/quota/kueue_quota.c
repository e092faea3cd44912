/* kueue_quota.c - the "kueue-quota" QUOTA plugin: Kueue's flavor assignment
 * (reference sections 3.5-3.7, pkg/scheduler/flavorassigner) with
 * borrowing, preemption modes and flavorFungibility, without Topology Aware
 * Scheduling, partial admission and scan progress. It supersedes
 * nominal-quota.
 *
 * Pod sets are taken in order. A requested resource (> 0) that no resource
 * group covers makes the workload NOFIT. For each group a pod set needs (one
 * covering a request > 0), the group's flavors are scanned in list order;
 * flavors the pod set cannot use (host->ps_matches_flavor) are skipped. For
 * each resource r of the group the pod set requests, with
 * val = count * request + what the workload's earlier pod sets already took
 * on (flavor, r):
 *
 *   val saturated (INT64_MAX)           NoFit (too large to count)
 *   val > PotentialAvailable            NoFit (exceeds maximum capacity)
 *   val <= Available                    Fit, borrowing level of val
 *   else, when preemption is worth it:
 *     candidates only in other ClusterQueues
 *                                       Reclaim, borrowing level of val
 *     candidates in its own              Preempt, borrowing level of val
 *     no candidates                      NoCandidates
 *   else                                NoFit (waiting for quota)
 *
 * NoCandidates, Preempt and Reclaim all make the workload PREEMPT: the host
 * then runs the PREEMPT plugin, and a workload that finds no victims still
 * holds quota for the cycle where its ClusterQueue cannot always reclaim
 * (Kueue's resourcesToReserve). Flavor choice passes over NoCandidates
 * like NoFit and ranks it below every mode that could admit; Reclaim ranks
 * above Preempt. Kueue tells Reclaim from Preempt by the victims its
 * simulation picks; here candidates in its own and in other ClusterQueues
 * count as Preempt.
 *
 * The flavor's granular mode combines its resources as Kueue does (see
 * flavor_mode), and the scan stops at the first flavor that
 * shouldTryNextFlavor does not pass over; when it runs out of flavors it
 * takes the best one seen by isPreferred. The workload's mode is the worst
 * of its resources' modes, its borrowing level the highest.
 *
 * The reason is Kueue's message: for each pod set that does not fit,
 * "couldn't assign flavors to pod set <name>: " and a reason per (flavor,
 * resource) tried that did not fit, sorted, joined by ", " (the reasons of
 * a resource group that fits are dropped; a group that does not fit keeps
 * only its own).
 *
 * Quantities are int64 milli-units; sums and products saturate instead of
 * wrapping. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ordo/plugin.h>

struct kueue_quota {
    const struct ordo_host *host;
    const struct ordo_plugin *p;
};

/* Kueue's preemption modes, worst first (see fit_resource). */
enum mode { M_NOFIT = 0, M_NOCAND, M_PREEMPT, M_RECLAIM, M_FIT };

/* Kueue's isPreemptMode: preemption with candidates. */
static bool preempt_mode(enum mode m)
{
    return m == M_PREEMPT || m == M_RECLAIM;
}

/* Kueue's granularMode: a mode paired with a borrowing level. */
struct gmode {
    enum mode mode;
    uint32_t level;
};

/* The ClusterQueue's policies, read once per call. */
struct policy {
    uint32_t when_can_borrow;
    uint32_t when_can_preempt;
    uint32_t preference;
    /* Preemption is worth trying while borrowing (canPreemptWhileBorrowing):
     * borrowWithinCohort != Never, or fair sharing with
     * reclaimWithinCohort != Never. */
    bool preempt_while_borrowing;
    /* Preemption can find candidates at all: withinClusterQueue != Never,
     * or a cohort and reclaimWithinCohort != Never. */
    bool may_have_candidates;
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

/* Why one resource of a flavor does not fit now. */
enum why_kind {
    WHY_NONE = 0,
    WHY_UNUSED = 1, /* insufficient unused quota (Kueue: WaitingForQuota) */
    WHY_MAX = 2,    /* above maximum capacity (Kueue: ExceedsMaxQuota) */
    WHY_UNCOUNTABLE = 3 /* the request saturates int64 milli-units */
};

struct why {
    enum why_kind kind;
    const struct ordo_flavor *f;
    ordo_resource_id id;
    int64_t prev;  /* taken by the workload's earlier pod sets */
    int64_t need;  /* count * request of this pod set */
    int64_t limit; /* WHY_MAX: PotentialAvailable; WHY_UNUSED: Available */
    int64_t more;  /* val - limit */
};

/* One flavor evaluated for one group of one pod set. */
struct flavor_eval {
    const struct ordo_flavor *f;
    struct gmode rep;   /* Kueue's representative mode: drives the scan */
    enum mode worst;    /* worst mode of its resources: the pod set's mode */
    uint32_t max_level; /* highest borrowing level of its resources */
    struct why why;     /* the NoFit resource, else the first Preempt one */
};

/* Kueue's Status of one pod set: a reason per (flavor, resource) that does
 * not fit, or per flavor the pod set cannot use, sorted and joined when
 * reported ("couldn't assign flavors to pod set main: insufficient quota for
 * cpu in flavor a, ..., insufficient unused quota for cpu in flavor b, 1
 * more needed"). Kept as data and worded only when reported: most reasons
 * belong to groups that fit in the end and are dropped. Cycle memory. */
struct reason {
    const struct ordo_flavor *mismatch; /* set: the pod set cannot use it */
    struct why why;                     /* else: this resource of it */
};

struct reasons {
    struct reason *v;
    uint32_t n, cap;
};

/* ---- integers --------------------------------------------------------- */

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

/* Quantities in reasons, as Kubernetes prints them (host->format_quantity). */
static const char *qty(const struct ordo_host *h, ordo_resource_id id,
                       int64_t milli, char buf[QTY_MAX])
{
    return h->format_quantity(id, milli, buf, QTY_MAX);
}

/* ---- helpers ---------------------------------------------------------- */

static const char *res_name(const struct ordo_host *h, ordo_resource_id id)
{
    const char *name = h->resource_name(id);
    return name ? name : "?";
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

/* True when request i of pod set ps is covered by group g; *ret_milli is
 * the request of one pod, *ret_need count * request (a negative request
 * counts as zero). */
static bool request_in_group(const struct ordo_host *h,
                             const struct ordo_workload *wl, uint32_t ps,
                             uint32_t i, uint32_t g, ordo_resource_id *ret_id,
                             int64_t *ret_milli, int64_t *ret_need)
{
    h->ps_request(wl, ps, i, ret_id, ret_milli);
    if (h->cq_group_of(h->wl_cq(wl), *ret_id) != (int32_t)g)
        return false;
    *ret_need = *ret_milli > 0 ? sat_mul(*ret_milli, h->ps_count(wl, ps)) : 0;
    return true;
}

/* Whether pod set ps needs group g: it requests something the group
 * covers (a zero request too). */
static bool group_needed(const struct ordo_host *h,
                         const struct ordo_workload *wl, uint32_t ps,
                         uint32_t g)
{
    uint32_t n_req = h->ps_n_requests(wl, ps);
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli, need;
        if (request_in_group(h, wl, ps, i, g, &id, &milli, &need))
            return true;
    }
    return false;
}

/* ---- Kueue's ordering of modes ----------------------------------------
 *
 * isPreferred: whether a is better than b. NoFit always loses, then
 * NoCandidates loses to any other mode; then BorrowingOverPreemption (the
 * default, also for no preference): the better mode first, a tie goes to the
 * lower borrowing level; PreemptionOverBorrowing: the lower borrowing level
 * first, a tie goes to the better mode. Equal modes are not preferred (the
 * first one stays). */
static bool is_preferred(struct gmode a, struct gmode b, uint32_t preference)
{
    if (a.mode == M_NOFIT)
        return false;
    if (b.mode == M_NOFIT)
        return true;
    if ((a.mode == M_NOCAND) != (b.mode == M_NOCAND))
        return b.mode == M_NOCAND;
    if (preference == ORDO_PREEMPTION_OVER_BORROWING) {
        if (a.level != b.level)
            return a.level < b.level;
        return a.mode > b.mode;
    }
    if (a.mode != b.mode)
        return a.mode > b.mode;
    return a.level < b.level;
}

/* shouldTryNextFlavor: keep scanning past NoFit (NoCandidates included),
 * past Preempt when whenCanPreempt is TryNextFlavor, past borrowing when
 * whenCanBorrow is TryNextFlavor. */
static bool should_try_next(struct gmode m, const struct policy *pol)
{
    if (m.mode == M_NOFIT || m.mode == M_NOCAND)
        return true;
    if (preempt_mode(m.mode) && pol->when_can_preempt == ORDO_TRY_NEXT_FLAVOR)
        return true;
    if (m.level > 0 && pol->when_can_borrow == ORDO_TRY_NEXT_FLAVOR)
        return true;
    return false;
}

/* ---- one resource, one flavor, one group ------------------------------ */

/* fitsResourceQuota for (f, id) of the workload's ClusterQueue: val =
 * prev + need. Fills *why when the result is not Fit. */
static struct gmode
fit_resource(const struct ordo_host *h, struct ordo_cycle *cy,
             const struct ordo_cq *cq, const struct policy *pol,
             const struct ordo_flavor *f, ordo_resource_id id, int64_t prev,
             int64_t need, struct why *why)
{
    int64_t val = sat_add(prev, need);
    int64_t potential = h->cq_potential_available(cy, cq, f, id);
    *why = (struct why){.f = f, .id = id, .prev = prev, .need = need};
    if (val == INT64_MAX) {
        /* Saturated: too large to count, so it never fits, not even an
         * unlimited (saturated) quota. */
        why->kind = WHY_UNCOUNTABLE;
        return (struct gmode){M_NOFIT, 0};
    }
    if (val > potential) {
        why->kind = WHY_MAX;
        why->limit = potential;
        why->more = sat_sub(val, potential);
        return (struct gmode){M_NOFIT, 0};
    }
    uint32_t level = h->cq_borrowing_level(cy, cq, f, id, val);
    int64_t available = h->cq_available(cy, cq, f, id);
    if (val <= available)
        return (struct gmode){M_FIT, level};

    why->kind = WHY_UNUSED;
    why->limit = available;
    why->more = sat_sub(val, available);
    int64_t nominal = 0;
    bool listed = h->cq_nominal(cq, f, id, &nominal);
    bool worth = (listed && val <= nominal) ||
                 h->cq_fits_below_root(cq, f, id, val) ||
                 pol->preempt_while_borrowing;
    if (!worth)
        return (struct gmode){M_NOFIT, level};
    /* Kueue would now run its preemption algorithm for this one resource
     * (SimulatePreemption). When the policies exclude every possible victim
     * (withinClusterQueue Never, and reclaimWithinCohort Never or no
     * cohort), or when no admitted workload the policies allow uses this
     * (flavor, resource), it finds NoCandidates. Otherwise the victims
     * themselves are the PREEMPT plugin's business, and the borrowing level
     * is the one of val on the current usage rather than Kueue's level with
     * the victims removed. */
    uint32_t where = pol->may_have_candidates
                         ? h->preemption_candidate_queues(cy, f, id)
                         : 0;
    if (where) {
        /* Kueue computes a Preempt flavor's borrowing level with the
         * victims gone: when they may come from its own ClusterQueue, a
         * request within nominal quota then borrows nothing. Victims in
         * other ClusterQueues leave its own usage, and level, as they
         * are. */
        if ((where & ORDO_CANDIDATES_OWN) && listed && val <= nominal)
            level = 0;
        return (struct gmode){
            where == ORDO_CANDIDATES_COHORT ? M_RECLAIM : M_PREEMPT, level};
    }
    return (struct gmode){M_NOCAND, level};
}

/* Records why (flavor, resource) does not fit (dropped when rs is full: a
 * reason is for people). */
static void add_reason(struct reasons *rs, const struct why *w)
{
    if (rs && rs->n < rs->cap && w->kind)
        rs->v[rs->n++] = (struct reason){.why = *w};
}

/* Records that the pod set cannot use flavor f. */
static void add_mismatch(struct reasons *rs, const struct ordo_flavor *f)
{
    if (rs && rs->n < rs->cap)
        rs->v[rs->n++] = (struct reason){.mismatch = f};
}

/* Kueue's wording of r into buf. */
static void word_reason(const struct ordo_host *h,
                        const struct ordo_workload *wl, uint32_t ps,
                        const struct reason *r, char *buf, size_t size)
{
    char a[QTY_MAX], b[QTY_MAX], c[QTY_MAX];
    const struct why *w = &r->why;
    buf[0] = '\0';
    if (r->mismatch) {
        if (!h->ps_flavor_mismatch(wl, ps, r->mismatch, buf, size))
            snprintf(buf, size, "flavor %s doesn't match the pod set",
                     h->flavor_name(r->mismatch));
        return;
    }
    const char *res = res_name(h, w->id);
    const char *f = h->flavor_name(w->f);
    if (w->kind == WHY_UNCOUNTABLE)
        snprintf(buf, size,
                 "insufficient quota for %s in flavor %s, the request is too "
                 "large to count (more than %s)",
                 res, f, qty(h, w->id, INT64_MAX, a));
    else if (w->kind == WHY_MAX)
        snprintf(buf, size,
                 "insufficient quota for %s in flavor %s, previously "
                 "considered podsets requests (%s) + current podset "
                 "request (%s) > maximum capacity (%s)",
                 res, f, qty(h, w->id, w->prev, a), qty(h, w->id, w->need, b),
                 qty(h, w->id, w->limit, c));
    else
        snprintf(buf, size,
                 "insufficient unused quota for %s in flavor %s, %s more "
                 "needed",
                 res, f, qty(h, w->id, w->more, a));
}

static bool reasons_init(const struct ordo_host *h, struct ordo_cycle *cy,
                         struct reasons *rs, uint32_t cap)
{
    rs->n = 0;
    rs->cap = cap;
    rs->v = h->cycle_alloc(cy, (size_t)(cap ? cap : 1) * sizeof(*rs->v));
    return rs->v != NULL;
}

static void reasons_append(struct reasons *to, const struct reasons *from)
{
    for (uint32_t i = 0; i < from->n && to->n < to->cap; i++)
        to->v[to->n++] = from->v[i];
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Kueue's Assignment.Message: for each pod set that does not fit, "couldn't
 * assign flavors to pod set <name>: " and its sorted reasons joined by
 * ", "; pod sets joined by "; ". */
static void report_reasons(const struct ordo_host *h, struct ordo_cycle *cy,
                           const struct ordo_workload *wl, struct reasons *rs,
                           uint32_t n_ps)
{
    char msg[1024];
    size_t len = 0;
    msg[0] = '\0';
    for (uint32_t ps = 0; ps < n_ps; ps++) {
        struct reasons *r = &rs[ps];
        if (!r->v || r->n == 0)
            continue;
        char **words = h->cycle_alloc(cy, r->n * sizeof(*words));
        if (!words)
            break;
        uint32_t n = 0;
        for (uint32_t i = 0; i < r->n; i++) {
            char buf[320];
            word_reason(h, wl, ps, &r->v[i], buf, sizeof(buf));
            size_t blen = strlen(buf);
            if (!blen || !(words[n] = h->cycle_alloc(cy, blen + 1)))
                continue;
            memcpy(words[n++], buf, blen + 1);
        }
        qsort(words, n, sizeof(*words), cmp_str);
        int k = snprintf(msg + len, sizeof(msg) - len,
                         "%scouldn't assign flavors to pod set %s: ",
                         len ? "; " : "", h->ps_name(wl, ps));
        for (uint32_t i = 0; k >= 0 && i < n; i++) {
            len = strnlen(msg, sizeof(msg));
            k = snprintf(msg + len, sizeof(msg) - len, "%s%s", i ? ", " : "",
                         words[i]);
        }
        len = strnlen(msg, sizeof(msg));
    }
    if (msg[0])
        h->reason(cy, "%s", msg);
}

/* Evaluates flavor f for the resources of group g that pod set ps
 * requests. As in Kueue, the representative mode is the least preferred of
 * the resources' modes (by is_preferred, so it depends on the preference),
 * and the first NoFit resource ends the evaluation. */
static void flavor_mode(const struct ordo_host *h, struct ordo_cycle *cy,
                        const struct ordo_workload *wl, uint32_t ps, uint32_t g,
                        const struct policy *pol, const struct ordo_flavor *f,
                        const struct taken_list *tl, struct flavor_eval *ev,
                        struct reasons *rs)
{
    bool nofit = false;
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_req = h->ps_n_requests(wl, ps);
    *ev = (struct flavor_eval){.f = f, .rep = {M_FIT, 0}, .worst = M_FIT};
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli, need;
        if (!request_in_group(h, wl, ps, i, g, &id, &milli, &need))
            continue;
        struct why why;
        struct gmode m = fit_resource(h, cy, cq, pol, f, id,
                                      taken_of(tl, f, id), need, &why);
        /* Kueue reports every resource that does not fit, also past the
         * first NoFit one, which decided the flavor already. */
        if (m.mode < M_FIT)
            add_reason(rs, &why);
        if (nofit)
            continue;
        if (is_preferred(ev->rep, m, pol->preference))
            ev->rep = m;
        if (m.mode < ev->worst)
            ev->worst = m.mode;
        if (m.level > ev->max_level)
            ev->max_level = m.level;
        if (m.mode == M_NOFIT || (m.mode < M_FIT && !ev->why.kind))
            ev->why = why;
        nofit = m.mode == M_NOFIT;
    }
}

/* ---- a pod set -------------------------------------------------------- */

/* What one pod set got. */
struct podset_result {
    enum mode mode;     /* worst over its groups */
    uint32_t level;     /* highest borrowing level */
    struct reasons *rs; /* its Kueue Status reasons */
};

/* Scans the flavors of group g for pod set ps and assigns the chosen one:
 * ORDO_OK, ORDO_UNSCHEDULABLE (NoFit, reason set) or ORDO_ERROR (reason
 * set). */
static enum ordo_verdict
assign_group(const struct ordo_host *h, struct ordo_cycle *cy,
             const struct ordo_workload *wl, uint32_t ps, uint32_t g,
             const struct policy *pol, struct taken_list *tl,
             struct podset_result *res)
{
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_flavors = h->cq_group_n_flavors(cq, g);
    struct flavor_eval best = {.rep = {M_NOFIT, UINT32_MAX}};
    bool any_eligible = false;
    /* The group's reasons: dropped when it fits, the pod set's only ones
     * when it does not (Kueue). */
    struct reasons gr;
    if (!reasons_init(h, cy, &gr, n_flavors * (h->ps_n_requests(wl, ps) + 1))) {
        h->reason(cy, "out of cycle memory");
        return ORDO_ERROR;
    }
    for (uint32_t fi = 0; fi < n_flavors; fi++) {
        const struct ordo_flavor *f = h->cq_group_flavor(cq, g, fi);
        if (!h->ps_matches_flavor(wl, ps, f)) {
            add_mismatch(&gr, f);
            continue;
        }
        any_eligible = true;
        struct flavor_eval ev;
        flavor_mode(h, cy, wl, ps, g, pol, f, tl, &ev, &gr);
        if (!should_try_next(ev.rep, pol)) {
            best = ev;
            break;
        }
        if (is_preferred(ev.rep, best.rep, pol->preference))
            best = ev;
    }
    if (best.rep.mode == M_NOFIT) {
        if (!any_eligible && gr.n == 0) {
            h->reason(cy,
                      "no flavor matches the node selector / tolerations of "
                      "pod set %s",
                      h->ps_name(wl, ps));
            res->rs->n = 0; /* this reason stands alone */
            return ORDO_UNSCHEDULABLE;
        }
        res->rs->n = 0;
        reasons_append(res->rs, &gr);
        return ORDO_UNSCHEDULABLE;
    }

    if (h->assign_flavor(cy, ps, g, best.f) != 0) {
        h->reason(cy, "the host refused flavor %s for pod set %s",
                  h->flavor_name(best.f), h->ps_name(wl, ps));
        return ORDO_ERROR;
    }
    uint32_t n_req = h->ps_n_requests(wl, ps);
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli, need;
        if (request_in_group(h, wl, ps, i, g, &id, &milli, &need))
            take(tl, best.f, id, need);
    }
    if (best.worst < res->mode)
        res->mode = best.worst;
    if (best.max_level > res->level)
        res->level = best.max_level;
    if (best.worst < M_FIT)
        reasons_append(res->rs, &gr);
    return ORDO_OK;
}

static enum ordo_verdict assign_podset(const struct ordo_host *h,
                                       struct ordo_cycle *cy,
                                       const struct ordo_workload *wl,
                                       uint32_t ps, const struct policy *pol,
                                       struct taken_list *tl,
                                       struct podset_result *res)
{
    const struct ordo_cq *cq = h->wl_cq(wl);
    uint32_t n_req = h->ps_n_requests(wl, ps);
    struct reasons *rs = res->rs;
    *res = (struct podset_result){.mode = M_FIT, .rs = rs};
    /* A zero request of a resource no group covers is ignored. */
    for (uint32_t i = 0; i < n_req; i++) {
        ordo_resource_id id;
        int64_t milli;
        h->ps_request(wl, ps, i, &id, &milli);
        if (milli > 0 && h->cq_group_of(cq, id) < 0) {
            h->reason(cy,
                      "couldn't assign flavors to pod set %s: resource %s "
                      "unavailable in ClusterQueue %s",
                      h->ps_name(wl, ps), res_name(h, id), h->cq_name(cq));
            return ORDO_UNSCHEDULABLE;
        }
    }
    uint32_t n_groups = h->cq_n_groups(cq);
    for (uint32_t g = 0; g < n_groups; g++) {
        if (!group_needed(h, wl, ps, g))
            continue;
        enum ordo_verdict v = assign_group(h, cy, wl, ps, g, pol, tl, res);
        if (v != ORDO_OK)
            return v;
    }
    return ORDO_OK;
}

/* ---- ops -------------------------------------------------------------- */

static void read_policy(const struct ordo_host *h, struct ordo_cycle *cy,
                        const struct ordo_cq *cq, struct policy *pol)
{
    uint32_t within = h->cq_preemption(cq, ORDO_WITHIN_CLUSTER_QUEUE);
    uint32_t reclaim = h->cq_preemption(cq, ORDO_RECLAIM_WITHIN_COHORT);
    uint32_t borrow = h->cq_preemption(cq, ORDO_BORROW_WITHIN_COHORT);
    *pol = (struct policy){
        .when_can_borrow = h->cq_fungibility(cq, ORDO_WHEN_CAN_BORROW),
        .when_can_preempt = h->cq_fungibility(cq, ORDO_WHEN_CAN_PREEMPT),
        .preference = h->cq_fungibility(cq, ORDO_PREFERENCE),
        .preempt_while_borrowing =
            borrow != ORDO_PREEMPT_NEVER ||
            (h->fair_sharing(cy) && reclaim != ORDO_PREEMPT_NEVER),
        .may_have_candidates =
            within != ORDO_PREEMPT_NEVER ||
            (h->cq_has_cohort(cq) && reclaim != ORDO_PREEMPT_NEVER),
    };
}

/* Assigns every pod set; ORDO_OK with *ret_mode and *ret_level when it
 * decided (the reason set unless FIT), else the verdict to return. */
static enum ordo_verdict assign_workload(const struct ordo_host *h,
                                         struct ordo_cycle *cy,
                                         const struct ordo_workload *wl,
                                         enum ordo_quota_mode *ret_mode,
                                         uint32_t *ret_level)
{
    uint32_t n_ps = h->wl_n_podsets(wl);
    size_t cap = 1;
    for (uint32_t ps = 0; ps < n_ps; ps++)
        cap += h->ps_n_requests(wl, ps);
    struct taken_list tl = {.items =
                                h->cycle_alloc(cy, cap * sizeof(struct taken))};
    if (!tl.items) {
        h->reason(cy, "out of cycle memory");
        return ORDO_ERROR;
    }

    struct policy pol;
    read_policy(h, cy, h->wl_cq(wl), &pol);

    enum mode mode = M_FIT;
    uint32_t level = 0;
    struct reasons *rs = h->cycle_alloc(cy, (n_ps ? n_ps : 1) * sizeof(*rs));
    if (!rs) {
        h->reason(cy, "out of cycle memory");
        return ORDO_ERROR;
    }
    for (uint32_t ps = 0; ps < n_ps; ps++) {
        uint32_t n_groups = h->cq_n_groups(h->wl_cq(wl)), n_flavors = 0;
        for (uint32_t g = 0; g < n_groups; g++)
            n_flavors += h->cq_group_n_flavors(h->wl_cq(wl), g);
        if (!reasons_init(h, cy, &rs[ps],
                          n_flavors * (h->ps_n_requests(wl, ps) + 1))) {
            h->reason(cy, "out of cycle memory");
            return ORDO_ERROR;
        }
        struct podset_result res = {.rs = &rs[ps]};
        enum ordo_verdict v = assign_podset(h, cy, wl, ps, &pol, &tl, &res);
        if (v == ORDO_UNSCHEDULABLE) {
            /* NoFit: Kueue's message over the pod sets so far, unless the
             * reason was of another kind (set already). */
            if (rs[ps].n)
                report_reasons(h, cy, wl, rs, ps + 1);
            return ORDO_OK; /* decided: NOFIT, reason set */
        }
        if (v != ORDO_OK)
            return v;
        if (res.mode < mode)
            mode = res.mode;
        if (res.level > level)
            level = res.level;
    }
    *ret_level = level;
    if (mode < M_FIT) {
        report_reasons(h, cy, wl, rs, n_ps);
        *ret_mode = ORDO_QUOTA_PREEMPT;
    } else {
        *ret_mode = ORDO_QUOTA_FIT;
    }
    return ORDO_OK;
}

static enum ordo_verdict kueue_quota_assign(void *self, struct ordo_cycle *cy,
                                            const struct ordo_workload *wl,
                                            enum ordo_quota_mode *ret_mode)
{
    const struct kueue_quota *s = self;
    const struct ordo_host *h = s->host;
    enum ordo_quota_mode mode = ORDO_QUOTA_NOFIT;
    uint32_t level = 0;
    enum ordo_verdict v = assign_workload(h, cy, wl, &mode, &level);
    if (v != ORDO_OK)
        mode = ORDO_QUOTA_NOFIT;
    /* The level of what was assigned: 0 unless admissible. */
    h->assign_borrowing(cy, mode == ORDO_QUOTA_NOFIT ? 0 : level);
    *ret_mode = mode;
    return v;
}

static int kueue_quota_init(const struct ordo_host *host,
                            const struct ordo_plugin *p, void **ret_self)
{
    struct kueue_quota *self = host->alloc(sizeof(*self));
    if (!self) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    self->host = host;
    self->p = p;
    *ret_self = self;
    return 0;
}

static void kueue_quota_fini(void *self)
{
    struct kueue_quota *s = self;
    if (s)
        s->host->free(s);
}

static const struct ordo_quota_ops kueue_quota_ops = {
    .assign = kueue_quota_assign,
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUOTA,
    .name = "kueue-quota",
    .version = "1.0.0",
    .summary = "Kueue's flavor assignment: borrowing, preemption modes and "
               "flavor fungibility",
    .init = kueue_quota_init,
    .fini = kueue_quota_fini,
    .quota = &kueue_quota_ops,
};
