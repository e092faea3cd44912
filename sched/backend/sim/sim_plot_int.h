/* sim_plot_int.h - what the pictures of --plot share: SVG helpers and the
 * palette (sim_plot_svg.c), and each picture's writer (sim_plot_usage.c,
 * sim_plot_timeline.c) for sim_plot.c. Not an interface outside them. */
#ifndef ORDO_SIM_PLOT_INT_H
#define ORDO_SIM_PLOT_INT_H

#include <stdio.h>

#include "err.h"
#include "quantity.h"
#include "sim.h"

#define NS_PER_S INT64_C(1000000000)

#define PLOT_PALETTE_N 10
extern const char *const plot_palette[PLOT_PALETTE_N];
#define NO_CQ_COLOUR "#555555"
#define WAIT_COLOUR  "#c8c8c8"
#define FONT         "font-family=\"sans-serif\""

/* Writes s with the XML special characters escaped. */
void plot_xml_puts(FILE *f, const char *s);
/* Largest step 1, 2 or 5 x 10^k that gives at most max_ticks intervals
 * over range (range > 0). */
double plot_nice_step(double range, int max_ticks);
/* The smallest multiple of step that is at least v (v, step > 0). */
double plot_round_up(double v, double step);

/* The unit of a time axis over [0, end]. */
struct time_unit {
    double ns;
    const char *name;
};
struct time_unit plot_time_unit(int64_t end_ns);

/* Opens DIR/name for writing; *path gets the joined name (freed by the
 * caller, also on failure). 0 or -errno with e. */
int plot_open_out(const char *dir, const char *name, char **path, FILE **f,
                  struct err *e);
/* Closes f, reporting any write error on it as path's. */
int plot_close_out(FILE *f, const char *path, struct err *e);
/* The bottom time axis from x0 to x1 at y, with grid lines up to top. */
void plot_time_axis(FILE *f, double x0, double x1, double y, double top,
                    int64_t end_ns);

/* "usage-<n>-<name>.svg" of ClusterQueue slot (sim_plot_usage.c); NULL
 * when out of memory. */
char *plot_usage_file_name(uint32_t slot, uint32_t n_cqs, const char *cq);
/* Writes every usage-*.svg (sim_plot_usage.c) / timeline.svg
 * (sim_plot_timeline.c). 0 or -errno with e. */
int plot_usage(const struct cluster *c, const struct sim_history *h,
               int64_t end_ns, const char *dir, struct err *e);
int plot_timeline(const struct cluster *c, int64_t end_ns, const char *dir,
                  struct err *e);

#endif
