/* sim_plot_timeline.c - timeline.svg of --plot (see sim_plot.c): one row
 * per workload (by creation, then name), a thin grey bar while it exists,
 * and from its history (history.h) one bar per admission period in its
 * ClusterQueue's colour: faded with a dashed outline while admitted with
 * pods not yet placed, solid while running, a red marker where it was
 * evicted, labelled with the workload that preempted it. A workload
 * without a history (a cluster built by hand) gets its last admission
 * only, from its fields. */
#include "sim_plot_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
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

/* Where the rows are drawn: the time axis from x0 to x1 over [0, end]. */
struct tl_axis {
    double x0, x1;
    int64_t end;
};

static double tl_x(const struct tl_axis *a, int64_t t)
{
    if (t < 0)
        t = 0;
    if (t > a->end)
        t = a->end;
    return a->x0 + (a->x1 - a->x0) * (double)t / (double)a->end;
}

/* A bar [t0, t1] (clamped to [0, end]) at row y, at least 1px wide, of
 * class cls; extra: more attributes, or "". */
static void tl_bar(FILE *f, const struct tl_axis *a, int64_t t0, int64_t t1,
                   double y, double hgt, const char *cls, const char *fill,
                   double opacity, const char *extra)
{
    if (t1 < t0 || t1 < 0 || t0 > a->end)
        return;
    double xa = tl_x(a, t0), xb = tl_x(a, t1);
    fprintf(f,
            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\" fill=\"%s\" fill-opacity=\"%.2f\"%s/>\n",
            cls, xa, y, xb - xa < 1 ? 1 : xb - xa, hgt, fill, opacity, extra);
}

/* The colour of the ClusterQueue named name (a history names it), else
 * that of fallback. */
static const char *cq_colour_named(const struct cluster *c, const char *name,
                                   const struct cq *fallback)
{
    for (uint32_t i = 0; name && i < c->n_cqs; i++)
        if (strcmp(c->cqs_v[i]->name, name) == 0)
            return plot_palette[i % PLOT_PALETTE_N];
    return cq_colour(c, fallback);
}

#define EVICT_COLOUR "#c00000"

/* Today's picture of a workload without a history: its last admission
 * only, from its fields. */
static void tl_row_fields(FILE *f, const struct tl_axis *a,
                          const struct workload *w, const char *colour,
                          double y, double row)
{
    double mid = y + row / 2;
    /* Waiting: from creation to (last) admission, or to the end. */
    int64_t wait_end = a->end;
    if (w->state != WL_PENDING && w->has_admitted)
        wait_end = w->admitted_ns;
    else if (w->state == WL_FINISHED && w->has_finished)
        wait_end = w->finished_ns;
    tl_bar(f, a, w->created_ns, wait_end, mid - 2, 4, "wait", WAIT_COLOUR, 1.0,
           "");
    if (w->state == WL_ADMITTED && w->has_admitted) {
        tl_bar(f, a, w->admitted_ns, a->end, y + 3, row - 6, "run", colour, 1.0,
               "");
    } else if (w->state == WL_FINISHED && w->has_admitted) {
        tl_bar(f, a, w->admitted_ns, w->has_finished ? w->finished_ns : a->end,
               y + 3, row - 6, "run", colour, 1.0, "");
    } else if (w->state == WL_PENDING && w->has_admitted &&
               w->queue_ns > w->admitted_ns) {
        /* Evicted: its last run, faded. */
        tl_bar(f, a, w->admitted_ns, w->queue_ns, y + 3, row - 6, "run", colour,
               0.4, "");
    }
}

/* One admission period being drawn. */
struct tl_period {
    bool open, placed;
    int64_t t_admitted, t_placed;
    const struct wl_event *admitted; /* its WL_EV_ADMITTED */
    const char *colour;
};

/* Draws period p, which ended at t_end (evicted: by its eviction ev, else
 * NULL): a group with a tooltip, the part before its pods were placed
 * faded with a dashed outline, the rest solid. */
static void tl_period_close(FILE *f, const struct tl_axis *a,
                            struct tl_period *p, int64_t t_end,
                            const struct wl_event *ev, double y, double row)
{
    const struct wl_event *adm = p->admitted;
    fputs("<g class=\"period\"><title>admitted", f);
    if (adm->cq) {
        fputs(" to ", f);
        plot_xml_puts(f, adm->cq);
    }
    fputs(" at ", f);
    tl_seconds(f, p->t_admitted);
    if (adm->detail && adm->detail[0]) {
        fputs(" (", f);
        plot_xml_puts(f, adm->detail);
        fputc(')', f);
    }
    if (p->placed) {
        fputs(", pods placed ", f);
        tl_seconds(f, p->t_placed);
    } else {
        fputs(", pods not all placed", f);
    }
    if (ev) {
        fputs(", evicted ", f);
        tl_seconds(f, t_end);
    } else if (t_end < a->end) {
        fputs(", ended ", f);
        tl_seconds(f, t_end);
    }
    fputs("</title>\n", f);
    int64_t t_run = p->placed ? p->t_placed : t_end;
    if (t_run > t_end)
        t_run = t_end;
    char outline[96];
    snprintf(outline, sizeof(outline),
             " stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"3 2\"",
             p->colour);
    if (!p->placed || t_run > p->t_admitted)
        tl_bar(f, a, p->t_admitted, t_run, y + 3.5, row - 7, "unplaced",
               p->colour, 0.3, outline);
    if (p->placed)
        tl_bar(f, a, t_run, t_end, y + 3, row - 6, "run", p->colour, 1.0, "");
    fputs("</g>\n", f);
    p->open = false;
}

/* The eviction ev: a red marker at the top of the row with a tooltip, and
 * the preemptor's name beside it. */
static void tl_eviction(FILE *f, const struct tl_axis *a,
                        const struct wl_event *ev, double y, double row)
{
    double x = tl_x(a, ev->t_ns);
    fprintf(f,
            "<path class=\"evicted\" d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f "
            "Z\" fill=\"" EVICT_COLOUR "\"><title>evicted at ",
            x - 4, y + 1, x + 4, y + 1, x, y + 8);
    tl_seconds(f, ev->t_ns);
    if (ev->by) {
        fputs(" by ", f);
        plot_xml_puts(f, ev->by);
    }
    if (ev->detail && ev->detail[0]) {
        fputs(": ", f);
        plot_xml_puts(f, ev->detail);
    }
    fputs("</title></path>\n", f);
    if (ev->by) {
        fprintf(f,
                "<text class=\"preemptor\" x=\"%.1f\" y=\"%.1f\" " FONT
                " font-size=\"9\" fill=\"" EVICT_COLOUR "\" stroke=\"#fff\" "
                "stroke-width=\"2.5\" paint-order=\"stroke\">by ",
                x + 5, y + row / 2 + 3);
        plot_xml_puts(f, ev->by);
        fputs("</text>\n", f);
    }
}

/* A workload from its history: it exists from creation to its finish (or
 * deletion, or the end); each admission until its eviction or finish. */
static void tl_row_history(FILE *f, const struct tl_axis *a,
                           const struct cluster *c, const struct workload *w,
                           double y, double row)
{
    const struct wl_history *h = &w->history;
    int64_t life_end = a->end;
    for (size_t i = 0; i < h->n; i++)
        if (h->ev[i].type == WL_EV_FINISHED || h->ev[i].type == WL_EV_DELETED) {
            life_end = h->ev[i].t_ns;
            break;
        }
    tl_bar(f, a, w->created_ns, life_end, y + row / 2 - 2, 4, "wait",
           WAIT_COLOUR, 1.0, "");
    struct tl_period p = {0};
    for (size_t i = 0; i < h->n; i++) {
        const struct wl_event *ev = &h->ev[i];
        switch (ev->type) {
        case WL_EV_ADMITTED:
            if (p.open) /* not ended on record: ends where the next starts */
                tl_period_close(f, a, &p, ev->t_ns, NULL, y, row);
            p = (struct tl_period){
                .open = true,
                .t_admitted = ev->t_ns,
                .admitted = ev,
                .colour = cq_colour_named(c, ev->cq, wl_plot_cq(w))};
            break;
        case WL_EV_PLACED:
            if (p.open && !p.placed) {
                p.placed = true;
                p.t_placed = ev->t_ns;
            }
            break;
        case WL_EV_EVICTED:
            if (p.open)
                tl_period_close(f, a, &p, ev->t_ns, ev, y, row);
            break;
        case WL_EV_FINISHED:
        case WL_EV_DELETED:
            if (p.open)
                tl_period_close(f, a, &p, ev->t_ns, NULL, y, row);
            break;
        default:
            break;
        }
    }
    if (p.open)
        tl_period_close(f, a, &p, a->end, NULL, y, row);
    /* The evictions last, so that no later bar hides their labels. */
    for (size_t i = 0; i < h->n; i++)
        if (h->ev[i].type == WL_EV_EVICTED)
            tl_eviction(f, a, &h->ev[i], y, row);
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
    double H = legend_y + 18.0 * (double)(c->n_cqs + 4) + 10;
    int64_t end = end_ns > 0 ? end_ns : 1;
    const struct tl_axis axis = {x0, x1, end};

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

        if (w->history.n)
            tl_row_history(f, &axis, c, w, y, row);
        else
            tl_row_fields(f, &axis, w, colour, y, row);
        fputs("</g>\n", f);
    }

    /* Legend: the waiting bar, the kinds of admitted bar, the eviction
     * marker, then each ClusterQueue's colour. */
    const char *first = c->n_cqs ? plot_palette[0] : NO_CQ_COLOUR;
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" "
            "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\">waiting (or existing)</text>\n",
            x0, legend_y - 6, WAIT_COLOUR, x0 + 20, legend_y);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"11\" "
            "fill=\"%s\" fill-opacity=\"0.30\" stroke=\"%s\" "
            "stroke-dasharray=\"3 2\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\">admitted, pods not yet placed</text>\n",
            x0, legend_y + 8.5, first, first, x0 + 20, legend_y + 18);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
            "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
            " font-size=\"12\">running (its pods placed)</text>\n",
            x0, legend_y + 26, first, x0 + 20, legend_y + 36);
    fprintf(
        f,
        "<path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" fill=\"" EVICT_COLOUR
        "\"/>\n<text x=\"%.1f\" y=\"%.1f\" " FONT
        " font-size=\"12\">evicted (by: the workload that preempted it)"
        "</text>\n",
        x0 + 3, legend_y + 44, x0 + 11, legend_y + 44, x0 + 7, legend_y + 51,
        x0 + 20, legend_y + 54);
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        double y = legend_y + 18.0 * (double)(i + 4);
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
