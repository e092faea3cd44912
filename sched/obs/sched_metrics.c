/* sched_metrics.c - the families of sched_metrics.h, the observer that
 * bumps them and the gauges computed at scrape time from the cluster. */
#include "sched_metrics.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "grow.h"
#include "lq_metrics.h"
#include "resid.h"

#define NS 1000000000LL

/* Kueue's wait-time buckets: 1, 2.5, 5, 10, ... (2.5 * 2^k), 16 of them. */
static int64_t wait_buckets[16];
/* Prometheus' default buckets (Kueue's attempt duration, kube-scheduler's
 * attempt duration in spirit), in ns. */
static const int64_t default_buckets[] = {
    5000000,   10000000,   25000000,   50000000,     100000000,    250000000,
    500000000, 1000000000, 2500000000, 5000000000LL, 10000000000LL};
/* kube-scheduler's preemption victims: 1, 2, 4, ... 64. */
static const int64_t victim_buckets[] = {1, 2, 4, 8, 16, 32, 64};
/* Bind and API latency: 1 ms .. 16 s, doubling. */
static int64_t latency_buckets[15];

enum { EV_PREEMPTED = 0, EV_CQ_STOPPED, EV_LQ_STOPPED, EV_STOPPED, EV_MAX };
static const char *const evict_reasons[EV_MAX] = {
    "Preempted", "ClusterQueueStopped", "LocalQueueStopped", "Stopped"};
enum { PR_IN_CQ = 0, PR_RECLAIM, PR_FAIR, PR_RECLAIM_BORROWING, PR_MAX };
static const char *const preempt_reasons[PR_MAX] = {
    "InClusterQueue", "InCohortReclamation", "InCohortFairSharing",
    "InCohortReclaimWhileBorrowing"};

/* A ClusterQueue's series, resolved once (by cq index) for the priority
 * class last seen there: an event on it is a pointer and a string
 * compare, never a lookup by labels. */
struct cq_slot {
    const struct cq *cq;
    const char *role; /* static: the role the series carry */
    char *name, *pc;
    struct metric_series *admitted, *reserved, *wait, *reserved_wait, *finished,
        *evicted[EV_MAX], *preempted[PR_MAX];
};

enum fam {
    F_ATTEMPTS = 0,
    F_ATTEMPT_DUR,
    F_ADMITTED,
    F_RESERVED,
    F_WAIT,
    F_RESERVED_WAIT,
    F_EVICTED,
    F_PREEMPTED,
    F_FINISHED,
    F_PENDING,
    F_RESERVING,
    F_ADMITTED_ACTIVE,
    F_CQ_STATUS,
    F_RES_RESERVATION,
    F_RES_USAGE,
    F_NOMINAL,
    F_BORROWING,
    F_LENDING,
    F_K_ATTEMPTS,
    F_K_ATTEMPT_DUR,
    F_K_PENDING,
    F_K_PREEMPT,
    F_K_VICTIMS,
    F_API_TOTAL,
    F_API_DUR,
    F_BIND_TOTAL,
    F_BIND_DUR,
    F_BUILD_INFO,
    F_MAX
};

struct sched_metrics {
    struct scheduler *s;
    struct sched_metrics_options opt;
    struct metrics *reg;
    struct metric_family *f[F_MAX];
    struct scheduler_observer obs;
    struct cq_slot *slots;
    size_t n_slots;
    struct lq_metrics lq; /* families NULL: --no-local-queue-metrics */
    int64_t cycle_start, attempt_start;
    struct metric_series *att[2], *att_dur[2], *k_att[2], *k_dur[2], *k_preempt,
        *k_victims, *bind_total[2], *bind_dur;
};

#define L(...)                                                                 \
    {                                                                          \
        __VA_ARGS__, "replica_role"                                            \
    }
static const struct metric_desc descs[F_MAX] = {
    [F_ATTEMPTS] = {"kueue_admission_attempts_total",
                    "Admission attempts (scheduling cycles): success when one "
                    "admitted a workload, else inadmissible.",
                    METRIC_COUNTER, L("result")},
    [F_ATTEMPT_DUR] = {"kueue_admission_attempt_duration_seconds",
                       "Duration of an admission attempt (a cycle).",
                       METRIC_HISTOGRAM, L("result"), NS, default_buckets, 11},
    [F_ADMITTED] = {"kueue_admitted_workloads_total",
                    "Workloads admitted, per ClusterQueue.", METRIC_COUNTER,
                    L("cluster_queue", "priority_class")},
    [F_RESERVED] = {"kueue_quota_reserved_workloads_total",
                    "Workloads that got quota reserved, per ClusterQueue.",
                    METRIC_COUNTER, L("cluster_queue", "priority_class")},
    [F_WAIT] = {"kueue_admission_wait_time_seconds",
                "Time from creation or last requeue to admission.",
                METRIC_HISTOGRAM, L("cluster_queue", "priority_class"), NS,
                wait_buckets, 16},
    [F_RESERVED_WAIT] = {"kueue_quota_reserved_wait_time_seconds",
                         "Time from creation or last requeue to quota "
                         "reservation.",
                         METRIC_HISTOGRAM, L("cluster_queue", "priority_class"),
                         NS, wait_buckets, 16},
    [F_EVICTED] = {"kueue_evicted_workloads_total",
                   "Admitted workloads evicted, per ClusterQueue and reason.",
                   METRIC_COUNTER,
                   L("cluster_queue", "reason", "underlying_cause",
                     "priority_class")},
    [F_PREEMPTED] = {"kueue_preempted_workloads_total",
                     "Workloads preempted, per preempting ClusterQueue and "
                     "reason.",
                     METRIC_COUNTER, L("preempting_cluster_queue", "reason")},
    [F_FINISHED] = {"kueue_finished_workloads_total",
                    "Workloads finished, per ClusterQueue.", METRIC_COUNTER,
                    L("cluster_queue", "priority_class")},
    [F_PENDING] = {"kueue_pending_workloads",
                   "Pending workloads: active (will be tried) or inadmissible "
                   "(parked until something changes).",
                   METRIC_GAUGE, L("cluster_queue", "status")},
    [F_RESERVING] = {"kueue_reserving_active_workloads",
                     "Workloads holding quota in the ClusterQueue.",
                     METRIC_GAUGE, L("cluster_queue")},
    [F_ADMITTED_ACTIVE] = {"kueue_admitted_active_workloads",
                           "Admitted workloads still running.", METRIC_GAUGE,
                           L("cluster_queue")},
    [F_CQ_STATUS] = {"kueue_cluster_queue_status",
                     "1 for the ClusterQueue's status (pending, active, "
                     "terminated), 0 for the others.",
                     METRIC_GAUGE, L("cluster_queue", "status")},
    [F_RES_RESERVATION] = {"kueue_cluster_queue_resource_reservation",
                           "Quota reserved by workloads, per flavor and "
                           "resource.",
                           METRIC_GAUGE,
                           L("cohort", "cluster_queue", "flavor", "resource"),
                           1000},
    [F_RES_USAGE] = {"kueue_cluster_queue_resource_usage",
                     "Quota used by admitted workloads, per flavor and "
                     "resource.",
                     METRIC_GAUGE,
                     L("cohort", "cluster_queue", "flavor", "resource"), 1000},
    [F_NOMINAL] = {"kueue_cluster_queue_nominal_quota",
                   "Nominal quota, per flavor and resource.", METRIC_GAUGE,
                   L("cohort", "cluster_queue", "flavor", "resource"), 1000},
    [F_BORROWING] = {"kueue_cluster_queue_borrowing_limit",
                     "Borrowing limit (+Inf when unset).", METRIC_GAUGE,
                     L("cohort", "cluster_queue", "flavor", "resource"), 1000},
    [F_LENDING] = {"kueue_cluster_queue_lending_limit",
                   "Lending limit (+Inf when unset).", METRIC_GAUGE,
                   L("cohort", "cluster_queue", "flavor", "resource"), 1000},
    [F_K_ATTEMPTS] = {"scheduler_schedule_attempts_total",
                      "Heads tried: scheduled (admitted) or unschedulable.",
                      METRIC_COUNTER, L("result", "profile")},
    [F_K_ATTEMPT_DUR] = {"scheduler_scheduling_attempt_duration_seconds",
                         "Duration of trying one head.", METRIC_HISTOGRAM,
                         L("result", "profile"), NS, default_buckets, 11},
    [F_K_PENDING] = {"scheduler_pending_pods",
                     "Ordo's pods without a node: active (admitted, being "
                     "placed) or unschedulable (their workload waits).",
                     METRIC_GAUGE, L("queue")},
    [F_K_PREEMPT] = {"scheduler_preemption_attempts_total",
                     "Preemptions issued.", METRIC_COUNTER, L("profile")},
    [F_K_VICTIMS] = {"scheduler_preemption_victims",
                     "Workloads evicted per preemption.", METRIC_HISTOGRAM,
                     L("profile"), 1, victim_buckets, 7},
    [F_API_TOTAL] = {"ordo_api_requests_total",
                     "API-server requests ended, by verb and HTTP code (0: "
                     "no answer).",
                     METRIC_COUNTER, L("verb", "code")},
    [F_API_DUR] = {"ordo_api_request_duration_seconds",
                   "API-server request latency, retries included.",
                   METRIC_HISTOGRAM, L("verb"), NS, latency_buckets, 15},
    [F_BIND_TOTAL] = {"ordo_binds_total",
                      "Binds ended: result success or error.", METRIC_COUNTER,
                      L("result")},
    [F_BIND_DUR] = {"ordo_bind_duration_seconds",
                    "From the bind's start to its answer.",
                    METRIC_HISTOGRAM,
                    {"replica_role"},
                    NS,
                    latency_buckets,
                    15},
    /* As kueue_build_info: no role, the value 1. */
    [F_BUILD_INFO] = {"ordo_build_info",
                      "1, labelled with the version of ordo-scheduler.",
                      METRIC_GAUGE,
                      {"version"}},
};
#undef L

const char *sched_metrics_role(const struct sched_metrics *m)
{
    const char *r =
        m->opt.replica_role ? m->opt.replica_role(m->opt.data) : NULL;
    return r ? r : "standalone";
}

struct metrics *sched_metrics_registry(struct sched_metrics *m)
{
    return m->reg;
}

/* The series of family f with these values and the role last. */
static struct metric_series *series(struct sched_metrics *m, enum fam f,
                                    const char *a, const char *b, const char *c,
                                    const char *d)
{
    const char *v[METRICS_LABELS_MAX] = {0};
    const char *in[4] = {a, b, c, d};
    size_t n = 0;
    while (descs[f].labels[n] && strcmp(descs[f].labels[n], "replica_role"))
        v[n] = in[n], n++;
    v[n] = sched_metrics_role(m);
    return metrics_series(m->f[f], v);
}

static int64_t now(struct sched_metrics *m)
{
    return m->opt.now_ns ? m->opt.now_ns(m->opt.data)
                         : scheduler_cluster(m->s)->now_ns;
}

static const char *priority_class(const struct workload *w)
{
    const char *pc =
        w->top ? strmap_get(&w->top->meta.labels, LABEL_PRIORITY_CLASS) : NULL;
    if (!pc && w->n_podsets && w->podsets[0].spec)
        pc = w->podsets[0].spec->priority_class_name;
    return pc ? pc : "";
}

static void slot_clear(struct cq_slot *sl)
{
    free(sl->name);
    free(sl->pc);
    memset(sl, 0, sizeof(*sl));
}

/* The slot of q with its series for priority class pc. NULL on no
 * memory. */
static struct cq_slot *slot(struct sched_metrics *m, const struct cq *q,
                            const char *pc)
{
    if (!q)
        return NULL;
    if (q->index >= m->n_slots) {
        size_t n = (size_t)q->index + 16;
        struct cq_slot *v = realloc(m->slots, n * sizeof(*v));
        if (!v)
            return NULL;
        memset(v + m->n_slots, 0, (n - m->n_slots) * sizeof(*v));
        m->slots = v;
        m->n_slots = n;
    }
    struct cq_slot *sl = &m->slots[q->index];
    if (sl->cq == q && sl->role == sched_metrics_role(m) &&
        strcmp(sl->name, q->name) == 0 && strcmp(sl->pc, pc) == 0)
        return sl;
    slot_clear(sl);
    if (!(sl->name = strdup(q->name)) || !(sl->pc = strdup(pc))) {
        slot_clear(sl);
        return NULL;
    }
    sl->cq = q;
    sl->role = sched_metrics_role(m);
    const char *n = q->name;
    sl->admitted = series(m, F_ADMITTED, n, pc, NULL, NULL);
    sl->reserved = series(m, F_RESERVED, n, pc, NULL, NULL);
    sl->wait = series(m, F_WAIT, n, pc, NULL, NULL);
    sl->reserved_wait = series(m, F_RESERVED_WAIT, n, pc, NULL, NULL);
    sl->finished = series(m, F_FINISHED, n, pc, NULL, NULL);
    for (int i = 0; i < EV_MAX; i++)
        sl->evicted[i] = series(m, F_EVICTED, n, evict_reasons[i], "", pc);
    for (int i = 0; i < PR_MAX; i++)
        sl->preempted[i] =
            series(m, F_PREEMPTED, n, preempt_reasons[i], NULL, NULL);
    return sl;
}

/* ---- the observer ---------------------------------------------------- */

static void on_cycle_begin(void *data, int64_t now_ns)
{
    struct sched_metrics *m = data;
    (void)now_ns;
    m->cycle_start = m->attempt_start = now(m);
}

static void on_cycle_end(void *data, int admitted)
{
    struct sched_metrics *m = data;
    int ok = admitted > 0;
    metrics_add(m->att[ok], 1);
    metrics_observe(m->att_dur[ok], now(m) - m->cycle_start);
}

static void on_attempt(void *data, const struct workload *w, bool admitted)
{
    struct sched_metrics *m = data;
    (void)w;
    int64_t t = now(m);
    metrics_add(m->k_att[admitted], 1);
    metrics_observe(m->k_dur[admitted], t - m->attempt_start);
    m->attempt_start = t;
}

static void on_admitted(void *data, const struct workload *w)
{
    struct sched_metrics *m = data;
    struct cq_slot *sl = slot(m, w->admitted_cq, priority_class(w));
    if (!sl)
        return;
    int64_t waited = w->admitted_ns - w->queue_ns;
    metrics_add(sl->admitted, 1);
    metrics_add(sl->reserved, 1);
    lq_metrics_admitted(&m->lq, w, sl->pc, sl->role);
    metrics_observe(sl->wait, waited > 0 ? waited : 0);
    metrics_observe(sl->reserved_wait, waited > 0 ? waited : 0);
}

static void on_evicted(void *data, const struct workload *w, const char *reason,
                       const struct workload *preemptor,
                       const char *preempt_reason)
{
    struct sched_metrics *m = data;
    struct cq_slot *sl = slot(m, w->admitted_cq, priority_class(w));
    for (int i = 0; sl && i < EV_MAX; i++)
        if (strcmp(reason, evict_reasons[i]) == 0)
            metrics_add(sl->evicted[i], 1);
    if (!preemptor || !preempt_reason)
        return;
    const struct cq *pq = preemptor->cq;
    sl = slot(m, pq, priority_class(preemptor));
    for (int i = 0; sl && i < PR_MAX; i++)
        if (strcmp(preempt_reason, preempt_reasons[i]) == 0)
            metrics_add(sl->preempted[i], 1);
}

static void on_preemption(void *data, const struct workload *w, uint32_t n)
{
    struct sched_metrics *m = data;
    (void)w;
    metrics_add(m->k_preempt, 1);
    metrics_observe(m->k_victims, n);
}

static void on_finished(void *data, const struct workload *w)
{
    struct sched_metrics *m = data;
    const struct cq *q = w->admitted_cq ? w->admitted_cq : w->cq;
    struct cq_slot *sl = slot(m, q, priority_class(w));
    if (sl)
        metrics_add(sl->finished, 1);
}

void sched_metrics_api_request(struct sched_metrics *m, const char *verb,
                               long code, int64_t latency_ns)
{
    if (!m)
        return;
    char c[16];
    snprintf(c, sizeof(c), "%ld", code);
    /* Verbs and codes are few: a lookup per request, as the request
     * itself costs far more. */
    metrics_add(series(m, F_API_TOTAL, verb, c, NULL, NULL), 1);
    metrics_observe(series(m, F_API_DUR, verb, NULL, NULL, NULL),
                    latency_ns > 0 ? latency_ns : 0);
}

void sched_metrics_bind(struct sched_metrics *m, bool ok, int64_t latency_ns)
{
    if (!m)
        return;
    metrics_add(m->bind_total[ok], 1);
    metrics_observe(m->bind_dur, latency_ns > 0 ? latency_ns : 0);
}

/* ---- gauges, at scrape time ------------------------------------------ */

static void scrape_cq(struct sched_metrics *m, const struct cq *q)
{
    const char *n = q->name;
    int64_t parked = 0;
    for (size_t i = 0; i < q->n_pending; i++)
        parked += q->pending[i]->parked;
    metrics_set(series(m, F_PENDING, n, "active", NULL, NULL),
                (int64_t)q->n_pending - parked);
    metrics_set(series(m, F_PENDING, n, "inadmissible", NULL, NULL), parked);
    metrics_set(series(m, F_RESERVING, n, NULL, NULL, NULL), q->n_admitted);
    metrics_set(series(m, F_ADMITTED_ACTIVE, n, NULL, NULL, NULL),
                q->n_admitted);
    const char *st = q->terminating ? "terminated"
                     : q->active    ? "active"
                                    : "pending";
    static const char *const sts[] = {"pending", "active", "terminated"};
    for (int i = 0; i < 3; i++)
        metrics_set(series(m, F_CQ_STATUS, n, sts[i], NULL, NULL),
                    strcmp(st, sts[i]) == 0);
    const char *cohort = q->obj ? q->obj->u.cluster_queue.cohort_name : NULL;
    if (!cohort)
        cohort = "";
    const struct qtree *t = &scheduler_cluster(m->s)->tree;
    for (uint32_t g = 0; g < q->n_groups; g++) {
        const struct cq_group *gr = &q->groups[g];
        for (uint32_t f = 0; f < gr->n_flavors; f++)
            for (uint32_t r = 0; r < gr->n_res; r++) {
                const char *fl = gr->flavors[f]->name;
                const char *res = resid_name(gr->res_ids[r]);
                size_t k = (size_t)f * gr->n_res + r;
                metrics_set(series(m, F_RES_RESERVATION, cohort, n, fl, res),
                            gr->usage[k]);
                metrics_set(series(m, F_RES_USAGE, cohort, n, fl, res),
                            gr->usage[k]);
                metrics_set(series(m, F_NOMINAL, cohort, n, fl, res),
                            gr->nominal[k]);
                int i = qtree_fr(t, gr->flavors[f], gr->res_ids[r]);
                if (i < 0 || !q->qnode)
                    continue;
                int64_t bl = q->qnode->borrowing_limit[i],
                        ll = q->qnode->lending_limit[i];
                metrics_set(series(m, F_BORROWING, cohort, n, fl, res),
                            bl == QUOTA_UNSET ? METRICS_INF : bl);
                metrics_set(series(m, F_LENDING, cohort, n, fl, res),
                            ll == QUOTA_UNSET ? METRICS_INF : ll);
            }
    }
}

static void scrape(struct sched_metrics *m)
{
    static const enum fam gauges[] = {
        F_PENDING,         F_RESERVING, F_ADMITTED_ACTIVE, F_CQ_STATUS,
        F_RES_RESERVATION, F_RES_USAGE, F_NOMINAL,         F_BORROWING,
        F_LENDING,         F_K_PENDING};
    for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
        metrics_family_clear(m->f[gauges[i]]);
    const struct cluster *c = scheduler_cluster(m->s);
    for (uint32_t i = 0; i < c->n_cqs; i++)
        scrape_cq(m, c->cqs_v[i]);
    int64_t active = 0, unsched = 0;
    for (const struct pod *p = c->pods; p; p = p->hh.next)
        if (p->wl && p->state == PODSTATE_PENDING && !pod_planned(p)) {
            if (p->wl->state == WL_ADMITTED)
                active++;
            else
                unsched++;
        }
    metrics_set(series(m, F_K_PENDING, "active", NULL, NULL, NULL), active);
    metrics_set(series(m, F_K_PENDING, "unschedulable", NULL, NULL, NULL),
                unsched);
    lq_metrics_scrape(&m->lq, c, sched_metrics_role(m));
    if (m->opt.on_scrape)
        m->opt.on_scrape(m->opt.data, m->reg);
}

int sched_metrics_write(struct sched_metrics *m, FILE *out)
{
    scrape(m);
    return metrics_write(m->reg, out);
}

int sched_metrics_format(struct sched_metrics *m, char **ret, size_t *ret_len)
{
    scrape(m);
    return metrics_format(m->reg, ret, ret_len);
}

/* ---- making it ------------------------------------------------------- */

static void init_buckets(void)
{
    int64_t b = 1 * NS;
    wait_buckets[0] = b;
    for (int i = 1; i < 16; i++)
        wait_buckets[i] = (int64_t)(2500000000LL) << (i - 1);
    for (int i = 0; i < 15; i++)
        latency_buckets[i] = 1000000LL << i;
}

int sched_metrics_new(struct scheduler *s,
                      const struct sched_metrics_options *opt,
                      struct sched_metrics **ret)
{
    struct sched_metrics *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    init_buckets();
    m->s = s;
    if (opt)
        m->opt = *opt;
    int r = metrics_new(&m->reg);
    for (int i = 0; r == 0 && i < F_MAX; i++)
        r = metrics_register(m->reg, &descs[i], &m->f[i]);
    if (r == 0 && !m->opt.no_local_queue_metrics)
        r = lq_metrics_register(&m->lq, m->reg);
    if (r < 0) {
        sched_metrics_free(m);
        return r;
    }
    static const char *const att[2] = {"inadmissible", "success"},
                             *katt[2] = {"unschedulable", "scheduled"},
                             *bind[2] = {"error", "success"};
    const char *prof = ORDO_SCHEDULER_NAME;
    for (int i = 0; i < 2; i++) {
        m->att[i] = series(m, F_ATTEMPTS, att[i], NULL, NULL, NULL);
        m->att_dur[i] = series(m, F_ATTEMPT_DUR, att[i], NULL, NULL, NULL);
        m->k_att[i] = series(m, F_K_ATTEMPTS, katt[i], prof, NULL, NULL);
        m->k_dur[i] = series(m, F_K_ATTEMPT_DUR, katt[i], prof, NULL, NULL);
        m->bind_total[i] = series(m, F_BIND_TOTAL, bind[i], NULL, NULL, NULL);
    }
    m->k_preempt = series(m, F_K_PREEMPT, prof, NULL, NULL, NULL);
    m->k_victims = series(m, F_K_VICTIMS, prof, NULL, NULL, NULL);
    m->bind_dur = series(m, F_BIND_DUR, NULL, NULL, NULL, NULL);
    const char *version[] = {PACKAGE_VERSION};
    metrics_set(metrics_series(m->f[F_BUILD_INFO], version), 1);
    m->obs = (struct scheduler_observer){
        .cycle_begin = on_cycle_begin,
        .cycle_end = on_cycle_end,
        .attempt = on_attempt,
        .admitted = on_admitted,
        .evicted = on_evicted,
        .preemption = on_preemption,
        .finished = on_finished,
    };
    scheduler_set_observer(s, &m->obs, m);
    *ret = m;
    return 0;
}

int sched_metrics_rebind(struct sched_metrics *m, struct scheduler *s)
{
    if (m->s)
        scheduler_set_observer(m->s, NULL, NULL);
    for (size_t i = 0; i < m->n_slots; i++)
        slot_clear(&m->slots[i]);
    m->s = s;
    if (s)
        scheduler_set_observer(s, &m->obs, m);
    return 0;
}

void sched_metrics_free(struct sched_metrics *m)
{
    if (!m)
        return;
    if (m->s)
        scheduler_set_observer(m->s, NULL, NULL);
    for (size_t i = 0; i < m->n_slots; i++)
        slot_clear(&m->slots[i]);
    free(m->slots);
    metrics_free(m->reg);
    free(m);
}
