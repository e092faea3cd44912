/* lq_metrics.h - Kueue's LocalQueue metrics (its LocalQueueMetrics
 * feature): per LocalQueue (labels name, namespace as Kueue's) the
 * pending workloads by status, those reserving quota and admitted, the
 * admissions by priority class, and the quota reserved and used per
 * flavor and resource. Gauges are computed at scrape time from the
 * cluster; every series of a LocalQueue that is gone is freed then, so
 * that many short-lived namespaces do not pile up series. */
#ifndef ORDO_LQ_METRICS_H
#define ORDO_LQ_METRICS_H

#include "cluster.h"
#include "metrics.h"

enum lq_fam {
    LQ_PENDING = 0,
    LQ_RESERVING,
    LQ_ADMITTED_ACTIVE,
    LQ_ADMITTED_TOTAL,
    LQ_RES_RESERVATION,
    LQ_RES_USAGE,
    LQ_MAX
};

struct lq_metrics {
    struct metric_family *f[LQ_MAX];
};

/* Registers the families in reg. 0, -EINVAL or -ENOMEM. */
int lq_metrics_register(struct lq_metrics *lm, struct metrics *reg);
/* w was admitted (its LocalQueue's counter, priority class pc), series
 * labelled with role. Nothing for a workload without a LocalQueue. */
void lq_metrics_admitted(struct lq_metrics *lm, const struct workload *w,
                         const char *pc, const char *role);
/* Recomputes the gauges of every LocalQueue of c and frees the series of
 * those gone. */
void lq_metrics_scrape(struct lq_metrics *lm, const struct cluster *c,
                       const char *role);

#endif
