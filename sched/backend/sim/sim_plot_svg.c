/* sim_plot_svg.c - what the pictures of --plot share (see sim_plot_int.h):
 * the palette, XML escaping, axes and scales, opening and closing their
 * files. */
#include "sim_plot_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const plot_palette[PLOT_PALETTE_N] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d",
};

/* ---- small helpers ------------------------------------------------------- */

/* Writes s with the XML special characters escaped. */
void plot_xml_puts(FILE *f, const char *s)
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

/* Largest step 1, 2 or 5 x 10^k that gives at most max_ticks intervals
 * over range (range > 0). */
double plot_nice_step(double range, int max_ticks)
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
double plot_round_up(double v, double step)
{
    double k = (double)(int64_t)(v / step);
    return k * step < v ? (k + 1) * step : k * step;
}

struct time_unit plot_time_unit(int64_t end_ns)
{
    if (end_ns <= 120 * NS_PER_S)
        return (struct time_unit){1e9, "s"};
    if (end_ns <= 3 * 3600 * NS_PER_S)
        return (struct time_unit){60e9, "min"};
    return (struct time_unit){3600e9, "h"};
}

/* Opens DIR/name for writing; *path gets the joined name (freed by the
 * caller, also on failure). */
int plot_open_out(const char *dir, const char *name, char **path, FILE **f,
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
int plot_close_out(FILE *f, const char *path, struct err *e)
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
void plot_time_axis(FILE *f, double x0, double x1, double y, double top,
                    int64_t end_ns)
{
    struct time_unit u = plot_time_unit(end_ns);
    double span = (double)end_ns / u.ns;
    double step = plot_nice_step(span, 8);
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
