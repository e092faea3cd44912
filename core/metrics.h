/* metrics.h - a small metrics registry (counters, gauges, histograms with
 * fixed buckets, labels) and its Prometheus text exposition (format
 * 0.0.4).
 *
 * Values are integers: counts, nanoseconds, milli-units. A family has a
 * divisor (1, 1000, 1000000000) applied only when printed, exactly (no
 * floating point: 1500 with divisor 1000 prints "1.5"). INT64_MAX prints
 * as +Inf (an unset limit).
 *
 * The hot path is cheap: a series is resolved once from its label values
 * (metrics_series(), a hash lookup) and kept by the caller; bumping it
 * is O(1) (a histogram: O(buckets)). Gauges derived from state are set at
 * scrape time: metrics_family_clear() hides a family's series until they
 * are set again. Single-threaded, as the daemon's loop is. */
#ifndef ORDO_METRICS_H
#define ORDO_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define METRICS_LABELS_MAX  8
#define METRICS_BUCKETS_MAX 24
#define METRICS_INF         INT64_MAX

enum metric_type { METRIC_COUNTER = 0, METRIC_GAUGE, METRIC_HISTOGRAM };

struct metrics;
struct metric_family;
struct metric_series;

struct metric_desc {
    const char *name, *help;
    enum metric_type type;
    const char *labels[METRICS_LABELS_MAX]; /* NULL-terminated */
    int64_t divisor;                        /* 0: 1 */
    /* Histograms: upper bounds, ascending, in the family's units (+Inf is
     * implied). */
    const int64_t *buckets;
    size_t n_buckets;
};

/* A registry. 0 and *ret (free with metrics_free()) or -ENOMEM. */
int metrics_new(struct metrics **ret);
/* Frees the registry, its families and series. Accepts NULL. */
void metrics_free(struct metrics *m);

/* Registers a family (the strings of d are copied). 0 and *ret (owned by
 * m), -EINVAL (a bad name, label or bucket list; a name taken) or
 * -ENOMEM. */
int metrics_register(struct metrics *m, const struct metric_desc *d,
                     struct metric_family **ret);

/* The series of f with these label values (as many as f has labels; a
 * NULL value, or values NULL, is ""), made when new. Owned by f, valid until
 * metrics_free(). NULL on no memory. */
struct metric_series *metrics_series(struct metric_family *f,
                                     const char *const *values);

/* Counters only grow by metrics_add (a negative v is ignored), or are set
 * to a count kept elsewhere; gauges are set or moved; histograms observe
 * one value. Each makes the series visible. Accept
 * NULL (a series that could not be made). */
void metrics_add(struct metric_series *s, int64_t v);
void metrics_set(struct metric_series *s, int64_t v);
void metrics_observe(struct metric_series *s, int64_t v);
/* The value (a histogram's count). */
int64_t metrics_value(const struct metric_series *s);

/* Hides every series of f and zeroes them, until set again (gauges
 * recomputed at each scrape). */
void metrics_family_clear(struct metric_family *f);

/* Frees the series of f for which keep(data, label values) is false
 * (those of an object that is gone): pointers to them are invalid then. */
void metrics_family_retain(struct metric_family *f,
                           bool (*keep)(void *data, const char *const *values),
                           void *data);
/* The text exposition of every family, in registration order, series
 * sorted by label values. 0 or -EIO. */
int metrics_write(const struct metrics *m, FILE *out);
/* The same into a new string (*ret, free it; *ret_len bytes). 0 or
 * -ENOMEM. */
int metrics_format(const struct metrics *m, char **ret, size_t *ret_len);

/* v / divisor as an exact decimal ("0.005", "2.5", "+Inf") into buf. */
void metrics_format_value(int64_t v, int64_t divisor, char *buf, size_t n);

#endif
