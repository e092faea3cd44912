/* metrics.c - the registry and the Prometheus text format of metrics.h:
 * families in a list, series in a growable array each, integers printed
 * as exact decimals. */
#include "metrics.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "grow.h"
#include "satmath.h"

struct metric_series {
    const struct metric_family *fam;
    char **values;          /* one per label */
    int64_t value;          /* counter, gauge; histogram: the sum */
    int64_t count;          /* histogram */
    int64_t *bucket_counts; /* per bucket, not cumulative */
    bool live;
    /* The label values joined by NULs: the index's key. */
    char *key;
    size_t key_len;
    UT_hash_handle hh;
};

struct metric_family {
    char *name, *help;
    enum metric_type type;
    char *labels[METRICS_LABELS_MAX];
    size_t n_labels;
    int64_t divisor;
    int64_t buckets[METRICS_BUCKETS_MAX];
    size_t n_buckets;
    struct metric_series **series;
    size_t n_series, cap_series;
    /* By label values: a lookup stays O(1) with a series per LocalQueue
     * of thousands of namespaces. */
    struct metric_series *index;
    struct metric_family *next;
};

struct metrics {
    struct metric_family *head, *tail;
};

int metrics_new(struct metrics **ret)
{
    *ret = calloc(1, sizeof(**ret));
    return *ret ? 0 : -ENOMEM;
}

static void series_free(struct metric_series *s, size_t n_labels)
{
    if (!s)
        return;
    for (size_t i = 0; s->values && i < n_labels; i++)
        free(s->values[i]);
    free(s->values);
    free(s->bucket_counts);
    free(s->key);
    free(s);
}

static void family_free(struct metric_family *f)
{
    if (!f)
        return;
    HASH_CLEAR(hh, f->index);
    for (size_t i = 0; i < f->n_series; i++)
        series_free(f->series[i], f->n_labels);
    free(f->series);
    for (size_t i = 0; i < f->n_labels; i++)
        free(f->labels[i]);
    free(f->name);
    free(f->help);
    free(f);
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    for (struct metric_family *f = m->head, *next; f; f = next) {
        next = f->next;
        family_free(f);
    }
    free(m);
}

/* [a-zA-Z_:][a-zA-Z0-9_:]*; labels take no ':' and no "__" prefix. */
static bool valid_name(const char *s, bool label)
{
    if (!s || !*s || (label && strncmp(s, "__", 2) == 0))
        return false;
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     c == '_' || (!label && c == ':');
        if (!alpha && (p == s || c < '0' || c > '9'))
            return false;
    }
    return true;
}

int metrics_register(struct metrics *m, const struct metric_desc *d,
                     struct metric_family **ret)
{
    if (!m || !d || !valid_name(d->name, false) || d->divisor < 0 ||
        (unsigned)d->type > METRIC_HISTOGRAM ||
        d->n_buckets > METRICS_BUCKETS_MAX ||
        (d->type == METRIC_HISTOGRAM && (!d->buckets || !d->n_buckets)))
        return -EINVAL;
    for (size_t i = 1; d->type == METRIC_HISTOGRAM && i < d->n_buckets; i++)
        if (d->buckets[i] <= d->buckets[i - 1])
            return -EINVAL;
    for (struct metric_family *f = m->head; f; f = f->next)
        if (strcmp(f->name, d->name) == 0)
            return -EINVAL;
    struct metric_family *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->type = d->type;
    f->divisor = d->divisor ? d->divisor : 1;
    int e = -ENOMEM;
    if (!(f->name = strdup(d->name)) ||
        !(f->help = strdup(d->help ? d->help : "")))
        goto fail;
    for (; f->n_labels < METRICS_LABELS_MAX && d->labels[f->n_labels];
         f->n_labels++) {
        const char *l = d->labels[f->n_labels];
        if (!valid_name(l, true) || strcmp(l, "le") == 0) {
            e = -EINVAL;
            goto fail;
        }
        if (!(f->labels[f->n_labels] = strdup(l)))
            goto fail;
    }
    if (f->type == METRIC_HISTOGRAM) {
        memcpy(f->buckets, d->buckets, d->n_buckets * sizeof(*d->buckets));
        f->n_buckets = d->n_buckets;
    }
    if (m->tail)
        m->tail->next = f;
    else
        m->head = f;
    m->tail = f;
    *ret = f;
    return 0;
fail:
    family_free(f);
    return e;
}

/* The values joined by NULs into a new string (*ret_len bytes). */
static char *join(const struct metric_family *f, const char *const *values,
                  size_t *ret_len)
{
    size_t n = 0;
    for (size_t l = 0; l < f->n_labels; l++)
        n += strlen(values[l] ? values[l] : "") + 1;
    char *k = malloc(n ? n : 1), *p = k;
    if (!k)
        return NULL;
    for (size_t l = 0; l < f->n_labels; l++) {
        const char *v = values[l] ? values[l] : "";
        size_t len = strlen(v) + 1;
        memcpy(p, v, len);
        p += len;
    }
    *ret_len = n;
    return k;
}

struct metric_series *metrics_series(struct metric_family *f,
                                     const char *const *values)
{
    if (!f)
        return NULL;
    static const char *const none[METRICS_LABELS_MAX];
    if (!values)
        values = none;
    size_t klen = 0;
    char *key = join(f, values, &klen);
    if (!key)
        return NULL;
    struct metric_series *s = NULL;
    HASH_FIND(hh, f->index, key, klen, s);
    if (s) {
        free(key);
        return s;
    }
    if (!(s = calloc(1, sizeof(*s)))) {
        free(key);
        return NULL;
    }
    s->key = key;
    s->key_len = klen;
    if (f->n_labels && !(s->values = calloc(f->n_labels, sizeof(char *))))
        goto fail;
    for (size_t l = 0; l < f->n_labels; l++)
        if (!(s->values[l] = strdup(values[l] ? values[l] : "")))
            goto fail;
    if (f->n_buckets &&
        !(s->bucket_counts = calloc(f->n_buckets, sizeof(int64_t))))
        goto fail;
    if (GROW_ARRAY(f->series, f->n_series, f->cap_series) < 0)
        goto fail;
    /* Counters exist from their first mention, at 0. */
    s->fam = f;
    s->live = f->type != METRIC_GAUGE;
    f->series[f->n_series++] = s;
    HASH_ADD_KEYPTR(hh, f->index, s->key, s->key_len, s);
    return s;
fail:
    series_free(s, f->n_labels);
    return NULL;
}

void metrics_add(struct metric_series *s, int64_t v)
{
    if (!s || s->fam->type == METRIC_HISTOGRAM ||
        (s->fam->type == METRIC_COUNTER && v < 0))
        return;
    s->value = sat_add64(s->value, v);
    s->live = true;
}

void metrics_set(struct metric_series *s, int64_t v)
{
    if (!s || s->fam->type == METRIC_HISTOGRAM)
        return;
    s->value = v;
    s->live = true;
}

void metrics_observe(struct metric_series *s, int64_t v)
{
    if (!s || s->fam->type != METRIC_HISTOGRAM)
        return;
    s->value = sat_add64(s->value, v);
    s->count++;
    s->live = true;
    /* Per bucket here, cumulated when written: O(buckets) at most. */
    for (size_t i = 0; i < s->fam->n_buckets; i++)
        if (v <= s->fam->buckets[i]) {
            s->bucket_counts[i]++;
            break;
        }
}

int64_t metrics_value(const struct metric_series *s)
{
    return !s ? 0 : s->bucket_counts ? s->count : s->value;
}

void metrics_family_clear(struct metric_family *f)
{
    for (size_t i = 0; f && i < f->n_series; i++) {
        struct metric_series *s = f->series[i];
        s->live = false;
        s->value = s->count = 0;
        if (s->bucket_counts)
            memset(s->bucket_counts, 0, f->n_buckets * sizeof(int64_t));
    }
}

void metrics_family_retain(struct metric_family *f,
                           bool (*keep)(void *data, const char *const *values),
                           void *data)
{
    size_t n = 0;
    for (size_t i = 0; f && i < f->n_series; i++) {
        struct metric_series *s = f->series[i];
        if (keep(data, (const char *const *)s->values))
            f->series[n++] = s;
        else {
            HASH_DELETE(hh, f->index, s);
            series_free(s, f->n_labels);
        }
    }
    if (f)
        f->n_series = n;
}

/* ---- the text format ------------------------------------------------- */

void metrics_format_value(int64_t v, int64_t divisor, char *buf, size_t n)
{
    if (v == METRICS_INF) {
        snprintf(buf, n, "+Inf");
        return;
    }
    if (divisor <= 1) {
        snprintf(buf, n, "%lld", (long long)v);
        return;
    }
    /* |v| without overflow at INT64_MIN: work on the unsigned value. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t d = (uint64_t)divisor, whole = u / d, frac = u % d;
    int digits = 0;
    for (uint64_t x = d; x > 1; x /= 10)
        digits++;
    char fb[24] = "";
    if (frac) {
        snprintf(fb, sizeof(fb), ".%0*llu", digits, (unsigned long long)frac);
        for (size_t l = strlen(fb); l > 1 && fb[l - 1] == '0'; l--)
            fb[l - 1] = '\0';
    }
    snprintf(buf, n, "%s%llu%s", v < 0 ? "-" : "", (unsigned long long)whole,
             fb);
}

/* A label value: backslash, double quote and newline escaped. */
static void put_escaped(FILE *out, const char *s, bool quote)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '"' && quote)
            fputs("\\\"", out);
        else
            fputc(*s, out);
    }
}

/* {a="x",b="y"[,le="..."]}, or nothing without labels. */
static void put_labels(FILE *out, const struct metric_family *f,
                       const struct metric_series *s, const char *le)
{
    if (!f->n_labels && !le)
        return;
    fputc('{', out);
    for (size_t l = 0; l < f->n_labels; l++) {
        fprintf(out, "%s%s=\"", l ? "," : "", f->labels[l]);
        put_escaped(out, s->values[l], true);
        fputc('"', out);
    }
    if (le)
        fprintf(out, "%sle=\"%s\"", f->n_labels ? "," : "", le);
    fputc('}', out);
}

static const struct metric_family *sort_family;

static int series_cmp(const void *a, const void *b)
{
    const struct metric_series *x = *(const struct metric_series *const *)a,
                               *y = *(const struct metric_series *const *)b;
    for (size_t l = 0; l < sort_family->n_labels; l++) {
        int c = strcmp(x->values[l], y->values[l]);
        if (c)
            return c;
    }
    return 0;
}

static void put_series(FILE *out, const struct metric_family *f,
                       const struct metric_series *s)
{
    char v[48];
    if (f->type != METRIC_HISTOGRAM) {
        fputs(f->name, out);
        put_labels(out, f, s, NULL);
        metrics_format_value(s->value, f->divisor, v, sizeof(v));
        fprintf(out, " %s\n", v);
        return;
    }
    int64_t cum = 0;
    for (size_t i = 0; i < f->n_buckets; i++) {
        char le[48];
        cum += s->bucket_counts[i];
        metrics_format_value(f->buckets[i], f->divisor, le, sizeof(le));
        fprintf(out, "%s_bucket", f->name);
        put_labels(out, f, s, le);
        fprintf(out, " %lld\n", (long long)cum);
    }
    fprintf(out, "%s_bucket", f->name);
    put_labels(out, f, s, "+Inf");
    fprintf(out, " %lld\n", (long long)s->count);
    metrics_format_value(s->value, f->divisor, v, sizeof(v));
    fprintf(out, "%s_sum", f->name);
    put_labels(out, f, s, NULL);
    fprintf(out, " %s\n%s_count", v, f->name);
    put_labels(out, f, s, NULL);
    fprintf(out, " %lld\n", (long long)s->count);
}

static const char *type_name(enum metric_type t)
{
    return t == METRIC_COUNTER ? "counter"
           : t == METRIC_GAUGE ? "gauge"
                               : "histogram";
}

int metrics_write(const struct metrics *m, FILE *out)
{
    for (const struct metric_family *f = m->head; f; f = f->next) {
        fprintf(out, "# HELP %s ", f->name);
        put_escaped(out, f->help, false);
        fprintf(out, "\n# TYPE %s %s\n", f->name, type_name(f->type));
        /* A sorted copy: the order of output does not depend on the order
         * things happened in. */
        struct metric_series **v = NULL;
        if (f->n_series && !(v = malloc(f->n_series * sizeof(*v))))
            return -EIO;
        size_t n = 0;
        for (size_t i = 0; i < f->n_series; i++)
            if (f->series[i]->live)
                v[n++] = f->series[i];
        sort_family = f;
        if (n > 1)
            qsort(v, n, sizeof(*v), series_cmp);
        for (size_t i = 0; i < n; i++)
            put_series(out, f, v[i]);
        free(v);
    }
    return ferror(out) ? -EIO : 0;
}

int metrics_format(const struct metrics *m, char **ret, size_t *ret_len)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return -ENOMEM;
    int r = metrics_write(m, out);
    if (fclose(out) != 0 && r == 0)
        r = -ENOMEM;
    if (r < 0) {
        free(buf);
        return -ENOMEM;
    }
    *ret = buf;
    *ret_len = len;
    return 0;
}
