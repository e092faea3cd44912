/* sim_summary.c - the summary table printed at the end of a simulation
 * run (see sim.h): one row per ClusterQueue with its workloads by state and
 * its usage against nominal quota, then a line of totals. Only reads the
 * cluster. */
#include "sim.h"
#include "sim_int.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"
#include "resid.h"
#include "resources.h"

#define NS_PER_MS INT64_C(1000000)
#define NO_CQ_ROW "(no ClusterQueue)"

/* ns rounded to the nearest millisecond (halves away from zero). */
static int64_t ns_to_ms(int64_t ns)
{
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t ms = mag / (uint64_t)NS_PER_MS +
                  (mag % (uint64_t)NS_PER_MS >= (uint64_t)NS_PER_MS / 2);
    return ns < 0 ? -(int64_t)ms : (int64_t)ms;
}

/* The ClusterQueue a workload counts under: where it was admitted once
 * admitted, else where it waits; a finished one that was evicted (a bare
 * pod is done once evicted) has no admission left and counts where it
 * waited. */
static const struct cq *wl_summary_cq(const struct workload *w)
{
    if (w->state != WL_PENDING && w->admitted_cq)
        return w->admitted_cq;
    return w->cq;
}

/* Workloads per ClusterQueue (by slot) and state, in one pass over the
 * workloads; slot n_cqs holds those without a (known) ClusterQueue, so
 * that the rows add up to the total. */
struct cq_counts {
    uint64_t pending, admitted, finished;
};

static struct cq_counts *count_per_cq(const struct cluster *c)
{
    struct cq_counts *v = calloc((size_t)c->n_cqs + 1, sizeof(*v));
    if (!v)
        return NULL;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        long i = sim_cq_slot(c, wl_summary_cq(w));
        struct cq_counts *n = &v[i < 0 ? c->n_cqs : (uint32_t)i];
        if (w->state == WL_PENDING)
            n->pending++;
        else if (w->state == WL_ADMITTED)
            n->admitted++;
        else
            n->finished++;
    }
    return v;
}

/* Compact duration: "0s", "250ms", "12.5s", "5m03s", "1h02m03s". Whole
 * seconds from a minute on. */
static const char *fmt_duration(int64_t ns, char *buf, size_t size)
{
    int64_t ms = ns_to_ms(ns);
    const char *sign = ms < 0 ? "-" : "";
    uint64_t mag = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    uint64_t s = (mag + 500) / 1000;
    if (mag == 0) {
        snprintf(buf, size, "0s");
    } else if (mag < 1000) {
        snprintf(buf, size, "%s%" PRIu64 "ms", sign, mag);
    } else if (mag < 60000 && mag % 1000 != 0) {
        char frac[8];
        int len = snprintf(frac, sizeof(frac), "%03" PRIu64, mag % 1000);
        while (len > 0 && frac[len - 1] == '0')
            frac[--len] = '\0';
        snprintf(buf, size, "%s%" PRIu64 ".%ss", sign, mag / 1000, frac);
    } else if (s < 60) {
        snprintf(buf, size, "%s%" PRIu64 "s", sign, s);
    } else if (s < 3600) {
        snprintf(buf, size, "%s%" PRIu64 "m%02" PRIu64 "s", sign, s / 60,
                 s % 60);
    } else {
        snprintf(buf, size, "%s%" PRIu64 "h%02" PRIu64 "m%02" PRIu64 "s", sign,
                 s / 3600, s / 60 % 60, s % 60);
    }
    return buf;
}

/* "cpu 6/10 (on-demand), memory 24Gi/64Gi (on-demand)": every pair with a
 * nominal quota or a usage; "-" when there is none. */
static void print_usage(FILE *out, const struct cq *q)
{
    bool any = false;
    for (uint32_t g = 0; g < q->n_groups; g++) {
        const struct cq_group *grp = &q->groups[g];
        for (uint32_t f = 0; f < grp->n_flavors; f++) {
            for (uint32_t r = 0; r < grp->n_res; r++) {
                int64_t used = grp->usage[f * grp->n_res + r];
                int64_t nominal = grp->nominal[f * grp->n_res + r];
                if (!used && !nominal)
                    continue;
                const char *rname = sim_res_name(grp->res_ids[r]);
                enum quantity_format fmt = resource_quantity_format(rname);
                char ub[QUANTITY_STR_MAX], nb[QUANTITY_STR_MAX];
                fprintf(out, "%s%s %s/%s (%s)", any ? ", " : "", rname,
                        quantity_str(used, fmt, ub),
                        quantity_str(nominal, fmt, nb),
                        grp->flavors[f] ? grp->flavors[f]->name : "?");
                any = true;
            }
        }
    }
    if (!any)
        fputs("-", out);
}

void sim_summary_print(FILE *out, const struct cluster *c, int64_t end_ns)
{
    struct cq_counts *counts = count_per_cq(c);
    /* Workloads no ClusterQueue of the cluster is named for (no local
     * queue, or one that leads nowhere): a row of their own. */
    const struct cq_counts *none = counts ? &counts[c->n_cqs] : NULL;
    bool none_row = none && none->pending + none->admitted + none->finished;
    int width = (int)strlen(none_row ? NO_CQ_ROW : "CLUSTERQUEUE");
    for (uint32_t i = 0; i < c->n_cqs; i++) {
        size_t len = strlen(c->cqs_v[i]->name);
        if (len > (size_t)width)
            width = len > 200 ? 200 : (int)len;
    }
    fprintf(out, "%-*s%10s%10s%10s  %s\n", width, "CLUSTERQUEUE", "PENDING",
            "ADMITTED", "FINISHED", "USAGE (of nominal)");
    if (!counts)
        fputs("(out of memory: no rows per ClusterQueue)\n", out);
    for (uint32_t i = 0; counts && i < c->n_cqs; i++) {
        const struct cq *q = c->cqs_v[i];
        fprintf(out, "%-*s%10" PRIu64 "%10" PRIu64 "%10" PRIu64 "  ", width,
                q->name, counts[i].pending, counts[i].admitted,
                counts[i].finished);
        print_usage(out, q);
        fputc('\n', out);
    }
    if (none_row)
        fprintf(out, "%-*s%10" PRIu64 "%10" PRIu64 "%10" PRIu64 "  -\n", width,
                NO_CQ_ROW, none->pending, none->admitted, none->finished);
    free(counts);

    uint64_t total = 0, pending = 0, admitted = 0, finished = 0;
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        total++;
        pending += w->state == WL_PENDING;
        admitted += w->state == WL_ADMITTED;
        finished += w->state == WL_FINISHED;
    }
    char dur[48];
    fprintf(out,
            "workloads: %" PRIu64 " (%" PRIu64 " pending, %" PRIu64
            " admitted, %" PRIu64 " finished), end time %s\n",
            total, pending, admitted, finished,
            fmt_duration(end_ns, dur, sizeof(dur)));
}
