/* sim_plot_timeline.c - timeline.svg of --plot (see sim_plot.c): one row
 * per workload (by creation, then name), a thin grey bar while it waits, a
 * bar in its ClusterQueue's colour while it is admitted. */
#include "sim_plot_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

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
        return plot_palette[q->index % PLOT_PALETTE_N];
    for (uint32_t i = 0; q && i < c->n_cqs; i++)
        if (c->cqs_v[i] == q)
            return plot_palette[i % PLOT_PALETTE_N];
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
    plot_time_axis(f, x0, x1, y0, top - 4, end);
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
        plot_xml_puts(f, w->key);
        fprintf(f, " (%s", state_word(w->state));
        if (q) {
            fputs(", ", f);
            plot_xml_puts(f, q->name);
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
            plot_xml_puts(f, w->reason);
        }
        fprintf(f,
                "</title>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"11\" text-anchor=\"end\">",
                x0 - 6, mid + 4);
        plot_xml_puts(f, w->key);
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
                x0, y - 10, plot_palette[i % PLOT_PALETTE_N], x0 + 20, y);
        plot_xml_puts(f, c->cqs_v[i]->name);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

int plot_timeline(const struct cluster *c, int64_t end_ns, const char *dir,
                  struct err *e)
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
    ret = plot_open_out(dir, "timeline.svg", &path, &f, e);
    if (ret < 0)
        goto cleanup;
    write_timeline_svg(f, c, v, n, end_ns);
    ret = plot_close_out(f, path, e);
    f = NULL;

cleanup:
    if (f)
        fclose(f);
    free(path);
    free(v);
    return ret;
}
