/* sim_plot_usage.c - usage-<n>-<name>.svg of --plot (see sim_plot.c): per
 * ClusterQueue, a step plot over [0, end] of the usage of each (flavor,
 * resource) as a percentage of its nominal quota. Lines that would hide
 * each other stay apart: each series has its own dash pattern, one that
 * lies exactly on an earlier one is drawn 2px lower, and the legend says
 * which it lies on, all along or for a while. */
#include "sim_plot_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h> /* NAN, isnan: macros only, no libm */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "grow.h"
#include "quantity.h"
#include "resid.h"
#include "resources.h"

/* ---- usage per ClusterQueue ---------------------------------------------- */

struct point {
    int64_t t_ns;
    int64_t usage, nominal;
    size_t seq; /* position in the history: ties keep their order */
};

/* A stretch of time [t0, t1) over which a series holds one value. */
struct interval {
    int64_t t0, t1;
    int64_t usage, nominal;
};

struct series {
    const char *flavor;
    const char *resource;
    int64_t nominal; /* the queue's quota now */
    size_t n, cap;
    struct point *pts;
    double peak_pct;
    int64_t peak_milli;
    size_t n_iv;         /* its intervals over [0, end] */
    struct interval *iv; /* owned */
    long same_as;        /* the first earlier series with the same line,
                            or -1 */
    unsigned stack;      /* how many earlier ones share that line */
    long partly_on;      /* else the first earlier one it runs along for
                            a while (above 0%), or -1 */
};

struct series_set {
    size_t n, cap;
    struct series *v;
};

static void series_set_free(struct series_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].pts);
        free(s->v[i].iv);
    }
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
    if (GROW_ARRAY(s->v, s->n, s->cap) < 0)
        return NULL;
    s->v[s->n] = (struct series){
        .flavor = flavor, .resource = resource, .nominal = nominal};
    return &s->v[s->n++];
}

static int series_push(struct series *s, struct point p)
{
    if (GROW_ARRAY(s->pts, s->n, s->cap) < 0)
        return -ENOMEM;
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

/* How the lines of a and b meet: *ret_all when they are the same line
 * (the same percentage, or none, at every instant), *ret_some when they
 * coincide above 0% over some stretch of time. */
static void lines_meet(const struct series *a, const struct series *b,
                       bool *ret_all, bool *ret_some)
{
    bool all = true, some = false;
    size_t i = 0, j = 0;
    while (i < a->n_iv && j < b->n_iv) {
        const struct interval *x = &a->iv[i], *y = &b->iv[j];
        double p = percent(x->usage, x->nominal);
        double q = percent(y->usage, y->nominal);
        bool equal = isnan(p) == isnan(q) &&
                     (isnan(p) || (p - q <= 1e-9 && q - p <= 1e-9));
        int64_t t0 = x->t0 > y->t0 ? x->t0 : y->t0;
        int64_t t1 = x->t1 < y->t1 ? x->t1 : y->t1;
        all &= equal;
        some |= equal && !isnan(p) && p > 0 && t1 > t0;
        if (x->t1 <= y->t1)
            i++;
        if (y->t1 <= x->t1)
            j++;
    }
    *ret_all = all;
    *ret_some = some;
}

/* Dash patterns by series: solid first, then patterns that differ in
 * length and rhythm, so that lines in the same colour family part. */
#define DASH_N 6
static const char *const dash_pattern[DASH_N] = {
    NULL, "8 4", "2 3", "10 3 2 3", "4 4", "1 5",
};

/* Each series' intervals, peaks, and the earlier series it lies on. */
static int series_lines(struct series_set *set, int64_t end_ns)
{
    for (size_t i = 0; i < set->n; i++) {
        struct series *s = &set->v[i];
        s->iv = calloc(s->n + 1, sizeof(*s->iv));
        if (!s->iv)
            return -ENOMEM;
        s->n_iv = series_intervals(s, end_ns, s->iv);
        for (size_t k = 0; k < s->n_iv; k++) {
            double p = percent(s->iv[k].usage, s->iv[k].nominal);
            if (!isnan(p) && p > s->peak_pct)
                s->peak_pct = p;
            if (s->iv[k].usage > s->peak_milli)
                s->peak_milli = s->iv[k].usage;
        }
        s->same_as = s->partly_on = -1;
        for (size_t j = 0; j < i && s->same_as < 0; j++) {
            bool all, some;
            if (set->v[j].same_as >= 0)
                continue; /* the line it is the same as is compared */
            lines_meet(&set->v[j], s, &all, &some);
            if (all) {
                s->same_as = (long)j;
                s->stack = ++set->v[j].stack;
            } else if (some && s->partly_on < 0) {
                s->partly_on = (long)j;
            }
        }
        if (s->same_as >= 0)
            s->partly_on = -1;
    }
    return 0;
}

static int write_usage_svg(FILE *f, const struct cq *q, struct series_set *set,
                           int64_t end_ns)
{
    const double W = 900, left = 70, right = 30, top = 50, ph = 300;
    const double x0 = left, x1 = W - right, y0 = top + ph;
    double span = end_ns > 0 ? (double)end_ns : 1.0;
    if (series_lines(set, end_ns) < 0)
        return -ENOMEM;

    /* Peaks decide the y range. */
    double ymax = 100.0;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].peak_pct > ymax)
            ymax = set->v[i].peak_pct;
    double ystep = plot_nice_step(ymax * 1.05, 6);
    double ytop = plot_round_up(ymax * 1.05, ystep);

    double legend_y = y0 + 56;
    double H = legend_y + 18.0 * (double)(set->n ? set->n + 1 : 2) + 10;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
            "<title>ClusterQueue ",
            W, H, W, H);
    plot_xml_puts(f, q->name);
    fprintf(f,
            ": usage of nominal quota</title>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
            "<text x=\"%.1f\" y=\"28\" " FONT
            " font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\">"
            "ClusterQueue ",
            W / 2);
    plot_xml_puts(f, q->name);
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
    plot_time_axis(f, x0, x1, y0, top, end_ns > 0 ? end_ns : 1);

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
        /* A line on an earlier one: a little lower, so both show. */
        double dy = s->same_as < 0 ? 0 : 2.0 * (double)s->stack;
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
                plot_palette[i % PLOT_PALETTE_N]);
        if (dash_pattern[i % DASH_N])
            fprintf(f, " stroke-dasharray=\"%s\"", dash_pattern[i % DASH_N]);
        fputs(" d=\"", f);
        bool pen = false;
        for (size_t k = 0; k < s->n_iv; k++) {
            const struct interval *iv = &s->iv[k];
            double p = percent(iv->usage, iv->nominal);
            if (isnan(p)) {
                pen = false;
                continue;
            }
            double xa = x0 + (x1 - x0) * (double)iv->t0 / span;
            double xb = x0 + (x1 - x0) * (double)iv->t1 / span;
            double y = y0 - ph * p / ytop + dy;
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
        enum quantity_format fmt = resource_quantity_format(s->resource);
        char nb[QUANTITY_STR_MAX], pb[QUANTITY_STR_MAX];
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"2\"",
                x0 - 6, y - 4, x0 + 14, y - 4,
                plot_palette[i % PLOT_PALETTE_N]);
        if (dash_pattern[i % DASH_N])
            fprintf(f, " stroke-dasharray=\"%s\"", dash_pattern[i % DASH_N]);
        fprintf(f, "/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\">",
                x0 + 20, y);
        plot_xml_puts(f, s->flavor);
        fputs(" / ", f);
        plot_xml_puts(f, s->resource);
        fprintf(f, ": nominal %s, peak %s", quantity_str(s->nominal, fmt, nb),
                quantity_str(s->peak_milli, fmt, pb));
        if (s->nominal > 0 || s->peak_pct > 0)
            fprintf(f, " (%.0f%%)", s->peak_pct);
        if (s->same_as >= 0) {
            const struct series *under = &set->v[s->same_as];
            fputs(" - on top of ", f);
            plot_xml_puts(f, under->flavor);
            fputs(" / ", f);
            plot_xml_puts(f, under->resource);
            fputs(" (drawn 2px lower)", f);
        } else if (s->partly_on >= 0) {
            const struct series *under = &set->v[s->partly_on];
            fputs(" - partly on top of ", f);
            plot_xml_puts(f, under->flavor);
            fputs(" / ", f);
            plot_xml_puts(f, under->resource);
            fputs(" (dashed)", f);
        }
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    return 0;
}

#define NAME_IN_FILE_MAX 40

/* "usage-<n>-<name>.svg": n = slot + 1, zero-padded to the width of
 * n_cqs, then the first NAME_IN_FILE_MAX characters of the name with
 * anything but [A-Za-z0-9._-] replaced by '_'. */
char *plot_usage_file_name(uint32_t slot, uint32_t n_cqs, const char *cq)
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
    if (ret < 0 || !(name = plot_usage_file_name(slot, c->n_cqs, q->name))) {
        ret = err_set(e, ENOMEM, "%s: out of memory plotting %s", dir, q->name);
        goto cleanup;
    }
    ret = plot_open_out(dir, name, &path, &f, e);
    if (ret < 0)
        goto cleanup;
    ret = write_usage_svg(f, q, &set, end_ns);
    if (ret < 0) {
        err_set(e, ret, "%s: out of memory", path);
        goto cleanup;
    }
    ret = plot_close_out(f, path, e);
    f = NULL;

cleanup:
    if (f)
        fclose(f);
    free(path);
    free(name);
    series_set_free(&set);
    return ret;
}

int plot_usage(const struct cluster *c, const struct sim_history *h,
               int64_t end_ns, const char *dir, struct err *e)
{
    struct sample_index ix;
    if (sample_index_build(&ix, h) < 0)
        return err_set(e, ENOMEM, "%s: out of memory", dir);
    int r = 0;
    for (uint32_t i = 0; r == 0 && i < c->n_cqs; i++)
        r = plot_cq(c, i, &ix, end_ns, dir, e);
    free(ix.pos);
    return r;
}
