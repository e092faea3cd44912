/* sim_plot.c - pictures of a simulation run (--plot DIR), as self-contained
 * SVG written by hand (see sim.h): index.html and the entry point here,
 * the usage plots in sim_plot_usage.c, the timeline in sim_plot_timeline.c,
 * what they share in sim_plot_svg.c.
 *
 *   usage-<n>-<name>.svg  one per ClusterQueue (n: its place in name
 *                   order from 1, <name>: the first 40 characters of its
 *                   name, anything but [A-Za-z0-9._-] as '_'; the full
 *                   name is in the SVG's title): a step plot over [0, end]
 *                   of the usage of each (flavor, resource) as a
 *                   percentage of its nominal quota, the quota itself a
 *                   dashed line at 100%, each series its own dash
 *                   pattern, one on another offset and named;
 *   timeline.svg    one row per workload (by creation, then name): a thin
 *                   grey bar while it exists, from its history a bar per
 *                   admission period in its ClusterQueue's colour (faded
 *                   until its pods are placed), a marker at each eviction
 *                   naming the preemptor;
 *   index.html      which file is which ClusterQueue's.
 *
 * Object names never become file names as they are: a valid name may be
 * longer than a file name can be.
 *
 * Quantities stay integers; floating point is only used for coordinates. */
#include "sim_plot_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* index.html: the timeline, and each ClusterQueue's full name with the
 * file of its usage plot. */
static int write_index(const struct cluster *c, const char *dir, struct err *e)
{
    char *path = NULL;
    FILE *f = NULL;
    int ret = plot_open_out(dir, "index.html", &path, &f, e);
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
        char *name = plot_usage_file_name(i, c->n_cqs, c->cqs_v[i]->name);
        if (!name) {
            ret = err_set(e, ENOMEM, "%s: out of memory", path);
            goto cleanup;
        }
        fputs("<tr><td>", f);
        plot_xml_puts(f, c->cqs_v[i]->name);
        fprintf(f, "</td><td><a href=\"%s\">%s</a></td></tr>\n", name, name);
        free(name);
    }
    fputs("</table>\n</body></html>\n", f);
    ret = plot_close_out(f, path, e);
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
    int r = plot_usage(c, h, end_ns, dir, e);
    if (r == 0)
        r = plot_timeline(c, end_ns, dir, e);
    if (r == 0)
        r = write_index(c, dir, e);
    return r;
}
