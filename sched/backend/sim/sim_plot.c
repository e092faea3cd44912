/* sim_plot.c - pictures of a simulation run (--plot DIR), as self-contained
 * SVG written by hand (see sim.h):
 *
 *   usage-<n>-<name>.svg  one per ClusterQueue (n: its place in name
 *                   order from 1, <name>: the first 40 characters of its
 *                   name, anything but [A-Za-z0-9._-] as '_'; the full
 *                   name is in the SVG's title): a step plot over [0, end]
 *                   of the usage of each (flavor, resource) as a
 *                   percentage of its nominal quota, the quota itself a
 *                   dashed line at 100%;
 *   timeline.svg    one row per workload (by creation, then name): a thin
 *                   grey bar while it waits, a bar in its ClusterQueue's
 *                   colour while it is admitted;
 *   index.html      which file is which ClusterQueue's.
 *
 * Object names never become file names as they are: a valid name may be
 * longer than a file name can be.
 *
 * Quantities stay integers; floating point is only used for coordinates. */
#include "sim.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h> /* NAN, isnan: macros only, no libm */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "quantity.h"
#include "resid.h"

#define NS_PER_S INT64_C(1000000000)

static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d",
};
#define PALETTE_N    (sizeof(palette) / sizeof(palette[0]))
#define NO_CQ_COLOUR "#555555"
#define WAIT_COLOUR  "#c8c8c8"
#define FONT         "font-family=\"sans-serif\""

/* ---- small helpers ------------------------------------------------------- */

/* Writes s with the XML special characters escaped. */
static void xml_puts(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static enum quantity_format resource_format(const char *name)
{
    if (name && (strcmp(name, "memory") == 0 ||
                 strcmp(name, "ephemeral-storage") == 0 ||
                 strncmp(name, "hugepages-", 10) == 0))
        return QUANTITY_BINARY_SI;
    return QUANTITY_DECIMAL_SI;
}

/* Largest step 1, 2 or 5 x 10^k that gives at most max_ticks intervals
 * over range (range > 0). */
static double nice_step(double range, int max_ticks)
{
    double raw = range / max_ticks;
    double mag = 1.0;
    if (!(raw > 0))
        return 1.0;
    while (raw >= 10 * mag)
        mag *= 10;
    while (raw < mag)
        mag /= 10;
    double norm = raw / mag;
    double step = norm <= 1.0   ? 1.0
                  : norm <= 2.0 ? 2.0
                  : norm <= 5.0 ? 5.0
                                : 10.0;
    return step * mag;
}

/* The smallest multiple of step that is at least v (v, step > 0). */
static double round_up(double v, double step)
{
    double k = (double)(int64_t)(v / step);
    return k * step < v ? (k + 1) * step : k * step;
}

/* The unit of a time axis over [0, end]. */
struct time_unit {
    double ns;
    const char *name;
};

static struct time_unit time_unit_for(int64_t end_ns)
{
    if (end_ns <= 120 * NS_PER_S)
        return (struct time_unit){1e9, "s"};
    if (end_ns <= 3 * 3600 * NS_PER_S)
        return (struct time_unit){60e9, "min"};
    return (struct time_unit){3600e9, "h"};
}

/* Opens DIR/name for writing; *path gets the joined name (freed by the
 * caller, also on failure). */
static int open_out(const char *dir, const char *name, char **path, FILE **f,
                    struct err *e)
{
    *f = NULL;
    if (asprintf(path, "%s/%s", dir, name) < 0) {
        *path = NULL;
        return err_set(e, ENOMEM, "%s/%s: out of memory", dir, name);
    }
    *f = fopen(*path, "w");
    if (!*f)
        return err_set(e, errno, "%s: %s", *path, strerror(errno));
    return 0;
}

/* Closes f, reporting any write error on it as path's. */
static int close_out(FILE *f, const char *path, struct err *e)
{
    bool failed = ferror(f) != 0;
    errno = 0;
    failed |= fclose(f) != 0;
    if (!failed)
        return 0;
    int code = errno ? errno : EIO;
    return err_set(e, code, "%s: %s", path, strerror(code));
}

/* The bottom time axis from x0 to x1 at y, with grid lines up to top. */
static void time_axis(FILE *f, double x0, double x1, double y, double top,
                      int64_t end_ns)
{
    struct time_unit u = time_unit_for(end_ns);
    double span = (double)end_ns / u.ns;
    double step = nice_step(span, 8);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#000\"/>\n",
            x0, y, x1, y);
    for (int i = 0;; i++) {
        double v = i * step;
        if (v > span * (1 + 1e-9))
            break;
        double x = x0 + (x1 - x0) * v / span;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e6e6e6\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#000\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"11\" text-anchor=\"middle\">%g</text>\n",
                x, top, x, y, x, y, x, y + 4, x, y + 16, v);
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\" text-anchor=\"middle\">time (%s)</text>\n",
            (x0 + x1) / 2, y + 32, u.name);
}

/* ---- usage per ClusterQueue ---------------------------------------------- */

struct point {
    int64_t t_ns;
    int64_t usage, nominal;
    size_t seq; /* position in the history: ties keep their order */
};

struct series {
    const char *flavor;
    const char *resource;
    int64_t nominal; /* the queue's quota now */
    size_t n, cap;
    struct point *pts;
    double peak_pct;
    int64_t peak_milli;
};

struct series_set {
    size_t n, cap;
    struct series *v;
};

static void series_set_free(struct series_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].pts);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static struct series *series_get(struct series_set *s, const char *flavor,
                                 const char *resource, int64_t nominal)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].flavor, flavor) == 0 &&
            strcmp(s->v[i].resource, resource) == 0)
            return &s->v[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        struct series *v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n] = (struct series){
        .flavor = flavor, .resource = resource, .nominal = nominal};
    return &s->v[s->n++];
}

static int series_push(struct series *s, struct point p)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct point *v = realloc(s->pts, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        s->pts = v;
        s->cap = cap;
    }
    s->pts[s->n++] = p;
    return 0;
}

static int cmp_point(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The history's samples by ClusterQueue name, then by position, so that
 * each queue finds its own without a pass over all of them. */
struct sample_index {
    const struct sim_history *h;
    size_t n;
    size_t *pos; /* positions in h->samples */
};

static int cmp_sample_pos(const void *a, const void *b, void *arg)
{
    const struct sim_history *h = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int r = strcmp(h->samples[x].cq, h->samples[y].cq);
    if (r != 0)
        return r;
    return x < y ? -1 : x > y;
}

static int sample_index_build(struct sample_index *ix,
                              const struct sim_history *h)
{
    ix->h = h;
    ix->n = 0;
    ix->pos = calloc(h && h->n ? h->n : 1, sizeof(*ix->pos));
    if (!ix->pos)
        return -ENOMEM;
    for (size_t i = 0; h && i < h->n; i++) {
        const struct usage_sample *smp = &h->samples[i];
        if (smp->cq && smp->flavor && smp->resource)
            ix->pos[ix->n++] = i;
    }
    if (ix->n > 1)
        qsort_r(ix->pos, ix->n, sizeof(*ix->pos), cmp_sample_pos, (void *)h);
    return 0;
}

/* The first entry of ix for ClusterQueue `cq` (ix->n when none). */
static size_t sample_index_first(const struct sample_index *ix, const char *cq)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->h->samples[ix->pos[mid]].cq, cq) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Every (flavor, resource) the queue lists, then those only the history
 * knows, each with its samples in time order. */
static int collect_series(const struct cq *q, const struct sample_index *ix,
                          struct series_set *set)
{
    for (uint32_t g = 0; g < q->n_groups; g++) {
        const struct cq_group *grp = &q->groups[g];
        for (uint32_t f = 0; f < grp->n_flavors; f++) {
            for (uint32_t r = 0; r < grp->n_res; r++) {
                const char *res = resid_name(grp->res_ids[r]);
                if (!series_get(
                        set, grp->flavors[f] ? grp->flavors[f]->name : "?",
                        res ? res : "?", grp->nominal[f * grp->n_res + r]))
                    return -ENOMEM;
            }
        }
    }
    for (size_t k = sample_index_first(ix, q->name); k < ix->n; k++) {
        size_t i = ix->pos[k];
        const struct usage_sample *smp = &ix->h->samples[i];
        if (strcmp(smp->cq, q->name) != 0)
            break;
        struct series *s =
            series_get(set, smp->flavor, smp->resource, smp->nominal_milli);
        if (!s || series_push(s, (struct point){smp->t_ns, smp->usage_milli,
                                                smp->nominal_milli, i}) < 0)
            return -ENOMEM;
    }
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].n > 1)
            qsort(set->v[i].pts, set->v[i].n, sizeof(struct point), cmp_point);
    return 0;
}

/* Usage as a percentage of nominal; NAN when there is usage but no quota. */
static double percent(int64_t usage, int64_t nominal)
{
    if (nominal > 0)
        return (double)usage * 100.0 / (double)nominal;
    return usage ? NAN : 0.0;
}

/* A stretch of time [t0, t1) over which a series holds one value. */
struct interval {
    int64_t t0, t1;
    int64_t usage, nominal;
};

/* Cuts [0, end] into the intervals of s (0 usage before its first sample;
 * samples are change points) into out (s->n + 1 slots). Returns how many;
 * at least one. */
static size_t series_intervals(const struct series *s, int64_t end_ns,
                               struct interval *out)
{
    size_t n = 0;
    int64_t t = 0, usage = 0;
    int64_t nominal = s->n ? s->pts[0].nominal : s->nominal;
    for (size_t i = 0; i <= s->n; i++) {
        int64_t next = i < s->n ? s->pts[i].t_ns : end_ns;
        if (next > end_ns)
            next = end_ns;
        if (next < 0)
            next = 0;
        if (next > t || (i == s->n && n == 0)) {
            out[n++] = (struct interval){t, next, usage, nominal};
            t = next;
        }
        if (i < s->n) {
            usage = s->pts[i].usage;
            nominal = s->pts[i].nominal;
        }
    }
    return n;
}

static int write_usage_svg(FILE *f, const struct cq *q, struct series_set *set,
                           int64_t end_ns)
{
    const double W = 900, left = 70, right = 30, top = 50, ph = 300;
    const double x0 = left, x1 = W - right, y0 = top + ph;
    double span = end_ns > 0 ? (double)end_ns : 1.0;
    size_t max_iv = 1;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].n + 1 > max_iv)
            max_iv = set->v[i].n + 1;
    struct interval *iv = calloc(max_iv, sizeof(*iv));
    if (!iv)
        return -ENOMEM;

    /* Peaks decide the y range. */
    double ymax = 100.0;
    for (size_t i = 0; i < set->n; i++) {
        struct series *s = &set->v[i];
        size_t n = series_intervals(s, end_ns, iv);
        for (size_t k = 0; k < n; k++) {
            double p = percent(iv[k].usage, iv[k].nominal);
            if (!isnan(p) && p > s->peak_pct)
                s->peak_pct = p;
            if (iv[k].usage > s->peak_milli)
                s->peak_milli = iv[k].usage;
        }
        if (s->peak_pct > ymax)
            ymax = s->peak_pct;
    }
    double ystep = nice_step(ymax * 1.05, 6);
    double ytop = round_up(ymax * 1.05, ystep);

    double legend_y = y0 + 56;
    double H = legend_y + 18.0 * (double)(set->n ? set->n + 1 : 2) + 10;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
            "<title>ClusterQueue ",
            W, H, W, H);
    xml_puts(f, q->name);
    fprintf(f,
            ": usage of nominal quota</title>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
            "<text x=\"%.1f\" y=\"28\" " FONT
            " font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\">"
            "ClusterQueue ",
            W / 2);
    xml_puts(f, q->name);
    fputs(": usage of nominal quota</text>\n", f);

    /* y axis with grid, percent labels. */
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#000\"/>\n",
            x0, top, x0, y0);
    for (int i = 0;; i++) {
        double v = i * ystep;
        if (v > ytop * (1 + 1e-9))
            break;
        double y = y0 - ph * v / ytop;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e6e6e6\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"11\" text-anchor=\"end\">%g%%</text>\n",
                x0, y, x1, y, x0 - 6, y + 4, v);
    }
    fprintf(f,
            "<text x=\"18\" y=\"%.1f\" " FONT
            " font-size=\"12\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 18 %.1f)\">usage (%% of nominal)</text>\n",
            top + ph / 2, top + ph / 2);
    time_axis(f, x0, x1, y0, top, end_ns > 0 ? end_ns : 1);

    /* Nominal quota. */
    double y100 = y0 - ph * 100.0 / ytop;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"11\" text-anchor=\"end\">nominal</text>\n",
            x0, y100, x1, y100, x1 - 2, y100 - 4);

    /* One step path per series; no line where there is usage but no
     * quota to measure it against. */
    for (size_t i = 0; i < set->n; i++) {
        const struct series *s = &set->v[i];
        size_t n = series_intervals(s, end_ns, iv);
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"",
                palette[i % PALETTE_N]);
        bool pen = false;
        for (size_t k = 0; k < n; k++) {
            double p = percent(iv[k].usage, iv[k].nominal);
            if (isnan(p)) {
                pen = false;
                continue;
            }
            double xa = x0 + (x1 - x0) * (double)iv[k].t0 / span;
            double xb = x0 + (x1 - x0) * (double)iv[k].t1 / span;
            double y = y0 - ph * p / ytop;
            fprintf(f, "%s%.1f %.1f L%.1f %.1f ", pen ? "L" : "M", xa, y, xb,
                    y);
            pen = true;
        }
        fputs("\"/>\n", f);
    }

    /* Legend. */
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\" font-weight=\"bold\">flavor / resource</text>\n",
            x0, legend_y);
    if (!set->n)
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"12\">no quota</text>\n",
                x0, legend_y + 18);
    for (size_t i = 0; i < set->n; i++) {
        const struct series *s = &set->v[i];
        double y = legend_y + 18.0 * (double)(i + 1);
        enum quantity_format fmt = resource_format(s->resource);
        char nb[QUANTITY_STR_MAX], pb[QUANTITY_STR_MAX];
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" "
                "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"12\">",
                x0, y - 6, palette[i % PALETTE_N], x0 + 20, y);
        xml_puts(f, s->flavor);
        fputs(" / ", f);
        xml_puts(f, s->resource);
        fprintf(f, ": nominal %s, peak %s", quantity_str(s->nominal, fmt, nb),
                quantity_str(s->peak_milli, fmt, pb));
        if (s->nominal > 0 || s->peak_pct > 0)
            fprintf(f, " (%.0f%%)", s->peak_pct);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    free(iv);
    return 0;
}

#define NAME_IN_FILE_MAX 40

/* "usage-<n>-<name>.svg": n = slot + 1, zero-padded to the width of
 * n_cqs, then the first NAME_IN_FILE_MAX characters of the name with
 * anything but [A-Za-z0-9._-] replaced by '_'. */
static char *usage_file_name(uint32_t slot, uint32_t n_cqs, const char *cq)
{
    char safe[NAME_IN_FILE_MAX + 1];
    size_t len = 0;
    for (; cq[len] && len < NAME_IN_FILE_MAX; len++) {
        char ch = cq[len];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
                  ch == '-';
        safe[len] = ok ? ch : '_';
    }
    safe[len] = '\0';
    int width = 1;
    for (uint32_t v = n_cqs; v >= 10; v /= 10)
        width++;
    char *name = NULL;
    if (asprintf(&name, "usage-%0*u-%s.svg", width, slot + 1, safe) < 0)
        return NULL;
    return name;
}

static int plot_cq(const struct cluster *c, uint32_t slot,
                   const struct sample_index *ix, int64_t end_ns,
                   const char *dir, struct err *e)
{
    const struct cq *q = c->cqs_v[slot];
    struct series_set set = {0};
    char *name = NULL, *path = NULL;
    FILE *f = NULL;
    int ret = collect_series(q, ix, &set);
    if (ret < 0 || !(name = usage_file_name(slot, c->n_cqs, q->name))) {
        ret = err_set(e, ENOMEM, "%s: out of memory plotting %s", dir, q->name);
        goto cleanup;
    }
    ret = open_out(dir, name, &path, &f, e);
    if (ret < 0)
        goto cleanup;
    ret = write_usage_svg(f, q, &set, end_ns);
    if (ret < 0) {
        err_set(e, ret, "%s: out of memory", path);
        goto cleanup;
    }
    ret = close_out(f, path, e);
    f = NULL;

cleanup:
    if (f)
        fclose(f);
    free(path);
    free(name);
    series_set_free(&set);
    return ret;
}

/* ---- timeline ------------------------------------------------------------ */

static int cmp_created(const void *a, const void *b)
{
    const struct workload *x = *(const struct workload *const *)a;
    const struct workload *y = *(const struct workload *const *)b;
    if (x->created_ns != y->created_ns)
        return x->created_ns < y->created_ns ? -1 : 1;
    return strcmp(x->key, y->key);
}

static const struct cq *wl_plot_cq(const struct workload *w)
{
    if (w->state != WL_PENDING && w->admitted_cq)
        return w->admitted_cq;
    return w->cq;
}

/* The colour of q: by its slot in cqs_v (its index, when that is where it
 * is; else by search, for a cluster built by hand). */
static const char *cq_colour(const struct cluster *c, const struct cq *q)
{
    if (q && q->index < c->n_cqs && c->cqs_v[q->index] == q)
        return palette[q->index % PALETTE_N];
    for (uint32_t i = 0; q && i < c->n_cqs; i++)
        if (c->cqs_v[i] == q)
            return palette[i % PALETTE_N];
    return NO_CQ_COLOUR;
}

static const char *state_word(enum wl_state s)
{
    return s == WL_PENDING    ? "pending"
           : s == WL_ADMITTED ? "admitted"
                              : "finished";
}

/* Seconds to the millisecond: "90s", "12.5s". */
static void tl_seconds(FILE *f, int64_t ns)
{
    int64_t ms = ns / 1000000;
    uint64_t mag = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    char frac[8];
    int len = snprintf(frac, sizeof(frac), ".%03" PRIu64, mag % 1000);
    while (len > 0 && (frac[len - 1] == '0' || frac[len - 1] == '.'))
        frac[--len] = '\0';
    fprintf(f, "%s%" PRIu64 "%ss", ms < 0 ? "-" : "", mag / 1000, frac);
}

/* A bar [t0, t1] (clamped to [0, end]) at row y, at least 1px wide. */
static void tl_bar(FILE *f, double x0, double x1, double span, int64_t t0,
                   int64_t t1, int64_t end_ns, double y, double hgt,
                   const char *fill, double opacity)
{
    if (t0 < 0)
        t0 = 0;
    if (t1 > end_ns)
        t1 = end_ns;
    if (t1 < t0)
        return;
    double xa = x0 + (x1 - x0) * (double)t0 / span;
    double xb = x0 + (x1 - x0) * (double)t1 / span;
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\" fill-opacity=\"%.2f\"/>\n",
            xa, y, xb - xa < 1 ? 1 : xb - xa, hgt, fill, opacity);
}

static void write_timeline_svg(FILE *f, const struct cluster *c,
                               struct workload **v, size_t n, int64_t end_ns)
{
    const double row = 18, top = 50, plot_w = 700, right = 30;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(v[i]->key) > longest)
            longest = strlen(v[i]->key);
    double label_w = 7.0 * (double)longest + 16;
    label_w = label_w < 120 ? 120 : label_w > 420 ? 420 : label_w;
    const double x0 = label_w, x1 = label_w + plot_w, W = x1 + right;
    double y0 = top + row * (double)(n ? n : 1) + 6;
    double legend_y = y0 + 56;
    double H = legend_y + 18.0 * (double)(c->n_cqs + 1) + 10;
    int64_t end = end_ns > 0 ? end_ns : 1;
    double span = (double)end;

    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
            "<text x=\"%.1f\" y=\"28\" " FONT
            " font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\">"
            "Workloads: waiting and admitted</text>\n",
            W, H, W, H, W / 2);
    time_axis(f, x0, x1, y0, top - 4, end);
    if (!n)
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"12\">no workloads</text>\n",
                x0 + 6, top + 12);

    for (size_t i = 0; i < n; i++) {
        const struct workload *w = v[i];
        const struct cq *q = wl_plot_cq(w);
        const char *colour = cq_colour(c, q);
        double y = top + row * (double)i;
        double mid = y + row / 2;

        fputs("<g><title>", f);
        xml_puts(f, w->key);
        fprintf(f, " (%s", state_word(w->state));
        if (q) {
            fputs(", ", f);
            xml_puts(f, q->name);
        }
        fputs("): created ", f);
        tl_seconds(f, w->created_ns);
        if (w->has_admitted) {
            fputs(", admitted ", f);
            tl_seconds(f, w->admitted_ns);
        }
        if (w->has_finished) {
            fputs(", finished ", f);
            tl_seconds(f, w->finished_ns);
        }
        if (w->evictions)
            fprintf(f, ", evictions %" PRIu32, w->evictions);
        if (w->state == WL_PENDING && w->reason[0]) {
            fputs(", ", f);
            xml_puts(f, w->reason);
        }
        fprintf(f,
                "</title>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"11\" text-anchor=\"end\">",
                x0 - 6, mid + 4);
        xml_puts(f, w->key);
        fputs("</text>\n", f);

        /* Waiting: from creation to (last) admission, or to the end. */
        int64_t wait_end = end;
        if (w->state != WL_PENDING && w->has_admitted)
            wait_end = w->admitted_ns;
        else if (w->state == WL_FINISHED && w->has_finished)
            wait_end = w->finished_ns;
        tl_bar(f, x0, x1, span, w->created_ns, wait_end, end, mid - 2, 4,
               WAIT_COLOUR, 1.0);
        if (w->state == WL_ADMITTED && w->has_admitted) {
            tl_bar(f, x0, x1, span, w->admitted_ns, end, end, y + 3, row - 6,
                   colour, 1.0);
        } else if (w->state == WL_FINISHED && w->has_admitted) {
            tl_bar(f, x0, x1, span, w->admitted_ns,
                   w->has_finished ? w->finished_ns : end, end, y + 3, row - 6,
                   colour, 1.0);
        } else if (w->state == WL_PENDING && w->has_admitted &&
                   w->queue_ns > w->admitted_ns) {
            /* Evicted: its last run, faded. */
            tl_bar(f, x0, x1, span, w->admitted_ns, w->queue_ns, end, y + 3,
                   row - 6, colour, 0.4);
        }
        fputs("</g>\n", f);
    }

    /* Legend: the waiting bar, then each ClusterQueue's colour. */
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" "
            "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\">waiting</text>\n",
            x0, legend_y - 6, WAIT_COLOUR, x0 + 20, legend_y);
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        double y = legend_y + 18.0 * (double)(i + 1);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
                "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"12\">admitted to ",
                x0, y - 10, palette[i % PALETTE_N], x0 + 20, y);
        xml_puts(f, c->cqs_v[i]->name);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

static int plot_timeline(const struct cluster *c, int64_t end_ns,
                         const char *dir, struct err *e)
{
    size_t n = HASH_COUNT(c->workloads), i = 0;
    struct workload **v = calloc(n ? n : 1, sizeof(*v));
    char *path = NULL;
    FILE *f = NULL;
    int ret = 0;
    if (!v) {
        ret = err_set(e, ENOMEM, "%s: out of memory", dir);
        goto cleanup;
    }
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        v[i++] = w;
    }
    qsort(v, n, sizeof(*v), cmp_created);
    ret = open_out(dir, "timeline.svg", &path, &f, e);
    if (ret < 0)
        goto cleanup;
    write_timeline_svg(f, c, v, n, end_ns);
    ret = close_out(f, path, e);
    f = NULL;

cleanup:
    if (f)
        fclose(f);
    free(path);
    free(v);
    return ret;
}

/* index.html: the timeline, and each ClusterQueue's full name with the
 * file of its usage plot. */
static int write_index(const struct cluster *c, const char *dir, struct err *e)
{
    char *path = NULL;
    FILE *f = NULL;
    int ret = open_out(dir, "index.html", &path, &f, e);
    if (ret < 0)
        goto cleanup;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
          "<title>Ordo simulation plots</title></head>\n<body>\n"
          "<h1>Ordo simulation plots</h1>\n"
          "<p><a href=\"timeline.svg\">timeline.svg</a>: every workload, "
          "waiting and admitted</p>\n"
          "<table>\n<tr><th>ClusterQueue</th><th>usage of nominal quota</th>"
          "</tr>\n",
          f);
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        char *name = usage_file_name(i, c->n_cqs, c->cqs_v[i]->name);
        if (!name) {
            ret = err_set(e, ENOMEM, "%s: out of memory", path);
            goto cleanup;
        }
        fputs("<tr><td>", f);
        xml_puts(f, c->cqs_v[i]->name);
        fprintf(f, "</td><td><a href=\"%s\">%s</a></td></tr>\n", name, name);
        free(name);
    }
    fputs("</table>\n</body></html>\n", f);
    ret = close_out(f, path, e);
    f = NULL;

cleanup:
    if (f)
        fclose(f);
    free(path);
    return ret;
}

int sim_plot_write(const struct cluster *c, const struct sim_history *h,
                   int64_t end_ns, const char *dir, struct err *e)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return err_set(e, errno, "%s: %s", dir, strerror(errno));
    struct sample_index ix;
    if (sample_index_build(&ix, h) < 0)
        return err_set(e, ENOMEM, "%s: out of memory", dir);
    int r = 0;
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        r = plot_cq(c, i, &ix, end_ns, dir, e);
    free(ix.pos);
    if (r == 0)
        r = plot_timeline(c, end_ns, dir, e);
    if (r == 0)
        r = write_index(c, dir, e);
    return r;
}
