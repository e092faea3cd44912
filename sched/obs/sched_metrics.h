/* sched_metrics.h - the scheduler's metrics in Prometheus' text format,
 * with Kueue's and kube-scheduler's names where the meaning matches
 * (docs/operations.md, "Metrics").
 *
 * Counters and histograms are bumped by the scheduler's observer
 * (scheduler.h) through series resolved once per ClusterQueue; gauges
 * derived from the cluster (pending workloads, quota, usage, status) are
 * computed when scraped. It reads the scheduler as a backend does and
 * changes nothing. Others (the Kubernetes daemon) add their own families
 * to the registry and refresh them from on_scrape. */
#ifndef ORDO_SCHED_METRICS_H
#define ORDO_SCHED_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "scheduler.h"

struct sched_metrics_options {
    /* Nanoseconds for attempt durations; NULL: the cluster's clock (the
     * simulator's virtual time, so that its output is exact). */
    int64_t (*now_ns)(void *data);
    /* "leader", "follower" or "standalone" (NULL: standalone). */
    const char *(*replica_role)(void *data);
    /* Before each exposition: refresh the caller's own families. */
    void (*on_scrape)(void *data, struct metrics *reg);
    void *data;
    /* No kueue_local_queue_* families (lq_metrics.h): a series set per
     * LocalQueue, many with many namespaces. */
    bool no_local_queue_metrics;
};

struct sched_metrics;

/* Metrics of s (not owned; it must outlive them), its observer set. 0 and
 * *ret (free with sched_metrics_free(), before s), or -ENOMEM. */
int sched_metrics_new(struct scheduler *s,
                      const struct sched_metrics_options *opt,
                      struct sched_metrics **ret);
/* Unsets the observer and frees. Accepts NULL. */
void sched_metrics_free(struct sched_metrics *m);
/* Observes s instead (NULL: none, until the next rebind; nothing may be
 * scraped meanwhile). Counters are kept; the series cached per
 * ClusterQueue are resolved again. 0. */
int sched_metrics_rebind(struct sched_metrics *m, struct scheduler *s);

/* The registry, to add families to (owned by m). */
struct metrics *sched_metrics_registry(struct sched_metrics *m);
/* The role label value now. Static. */
const char *sched_metrics_role(const struct sched_metrics *m);

/* One API-server request ended (krequest.h's on_result): verb, HTTP code
 * (0: no answer) and latency. */
void sched_metrics_api_request(struct sched_metrics *m, const char *verb,
                               long code, int64_t latency_ns);
/* One bind ended: ok or not, after latency_ns. */
void sched_metrics_bind(struct sched_metrics *m, bool ok, int64_t latency_ns);

/* Recomputes the gauges and writes the exposition. 0 or -EIO/-ENOMEM. */
int sched_metrics_write(struct sched_metrics *m, FILE *out);
int sched_metrics_format(struct sched_metrics *m, char **ret, size_t *ret_len);

#endif
