/* sim_explain.c - --explain NAMESPACE/NAME: after a run, what happened to
 * one workload in virtual time (its history: created, each admission with
 * its ClusterQueue and flavors, its pods placed, each eviction with who
 * preempted it and why, finished) and where it stands now: the nodes of
 * its pods, or, while it waits, its place in its LocalQueue and its
 * ClusterQueue and its reason. Reads the cluster through the line. */
#include "sim_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* How many close names an unknown one is answered with. */
#define CLOSEST_MAX 3

static void print_time(FILE *out, int64_t ns)
{
    long long ms = (long long)(ns / 1000000);
    fprintf(out, "[%4lld.%03llds] ", ms / 1000, ms % 1000);
}

static void print_event(FILE *out, const struct wl_event *e)
{
    print_time(out, e->t_ns);
    switch (e->type) {
    case WL_EV_WAITING:
        fprintf(out, "waiting%s%s: %s", e->cq ? " in " : "", e->cq ? e->cq : "",
                e->detail ? e->detail : "");
        if (e->changes) {
            long long ms = (long long)(e->t_last_ns / 1000000);
            fprintf(
                out, " (its numbers changed %u time%s, last at %lld.%03llds)",
                e->changes, e->changes == 1 ? "" : "s", ms / 1000, ms % 1000);
        }
        fputc('\n', out);
        break;
    case WL_EV_ADMITTED:
        fprintf(out, "admitted to %s%s%s\n", e->cq ? e->cq : "?",
                e->detail ? ": " : "", e->detail ? e->detail : "");
        break;
    case WL_EV_PLACED:
        fputs("placed: every pod of the admission has a node\n", out);
        break;
    case WL_EV_EVICTED:
        fprintf(out, "evicted%s%s%s%s: %s\n", e->cq ? " from " : "",
                e->cq ? e->cq : "", e->by ? ", preempted by " : "",
                e->by ? e->by : "", e->detail ? e->detail : "");
        break;
    default:
        fprintf(out, "%s%s%s\n", wl_event_type_name(e->type),
                e->detail ? ": " : "", e->detail ? e->detail : "");
    }
}

/* Each pod set's nodes, where its pods are now (as the report lists
 * them: the simulator's records of the current or last admission). */
static void print_nodes(FILE *out, const struct workload *w,
                        const struct sim_ran *all)
{
    const struct sim_ran *ran = NULL;
    if (all)
        HASH_FIND_STR(all, w->key, ran);
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        size_t n = 0;
        fprintf(out, "  now: pod set %s:", w->podsets[ps].name);
        for (size_t i = 0; ran && i < ran->n; i++) {
            const struct sim_pod_ran *p = ran->pods[i];
            if (p->node && p->podset == ps && p->admission == w->evictions) {
                fprintf(out, "%s%s", n ? ", " : " ", p->node);
                n++;
            }
        }
        fprintf(out, "%s\n", n ? "" : " no pod on a node");
    }
}

static const char *state_word(enum wl_state s)
{
    return s == WL_PENDING    ? "pending"
           : s == WL_ADMITTED ? "admitted"
                              : "finished";
}

static void explain_one(FILE *out, struct scheduler *s,
                        const struct sim_ran *ran, const struct workload *w)
{
    const struct cq *q = w->state == WL_PENDING ? w->cq : w->admitted_cq;
    fprintf(out, "%s %s (LocalQueue %s, ClusterQueue %s): %s\n",
            workload_kind_name(w->kind), w->key,
            w->local_queue ? w->local_queue : "-", q ? q->name : "-",
            state_word(w->state));
    if (w->history.n_dropped)
        fprintf(out, "  (%zu older events not kept)\n", w->history.n_dropped);
    for (size_t i = 0; i < w->history.n; i++) {
        fputs("  ", out);
        print_event(out, &w->history.ev[i]);
    }
    if (w->state != WL_PENDING) {
        print_nodes(out, w, ran);
        return;
    }
    struct scheduler_queue_position pos;
    if (scheduler_queue_position(s, w->key, &pos) == 0)
        fprintf(out,
                "  now: waiting, %zu of %zu in LocalQueue %s/%s, %zu of %zu "
                "in ClusterQueue %s\n",
                pos.lq_pos, pos.lq_len, w->ns,
                w->local_queue ? w->local_queue : "-", pos.cq_pos, pos.cq_len,
                w->cq->name);
    else
        fputs("  now: waiting, in no ClusterQueue\n", out);
    fprintf(out, "  reason: %s\n", w->reason[0] ? w->reason : "-");
}

/* Levenshtein distance of a and b, capped at what fits a row of 256. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 255), lb = strnlen(b, 255);
    size_t row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Prints the error for unknown key: the closest workload names. */
static void print_unknown(FILE *err, const struct cluster *c, const char *key)
{
    const char *best[CLOSEST_MAX] = {0};
    size_t dist[CLOSEST_MAX];
    struct workload *w, *tmp;
    HASH_ITER(hh, c->workloads, w, tmp)
    {
        size_t d = distance(key, w->key);
        /* Insert in order (ties: by name, so the answer is stable). */
        for (size_t k = 0; k < CLOSEST_MAX; k++) {
            if (best[k] &&
                (d > dist[k] || (d == dist[k] && strcmp(w->key, best[k]) > 0)))
                continue;
            memmove(&best[k + 1], &best[k],
                    (CLOSEST_MAX - k - 1) * sizeof(best[0]));
            memmove(&dist[k + 1], &dist[k],
                    (CLOSEST_MAX - k - 1) * sizeof(dist[0]));
            best[k] = w->key;
            dist[k] = d;
            break;
        }
    }
    fprintf(err, "ordo-scheduler: --explain: no workload %s", key);
    for (size_t k = 0; k < CLOSEST_MAX && best[k]; k++)
        fprintf(err, "%s%s", k ? ", " : "; closest: ", best[k]);
    fputc('\n', err);
}

int sim_explain(FILE *out, FILE *err, struct scheduler *s,
                const struct sim_ran *ran, const char *key)
{
    const struct cluster *c = scheduler_cluster(s);
    const struct workload *w = cluster_get_workload(c, key);
    if (!w) {
        print_unknown(err, c, key);
        return -ENOENT;
    }
    explain_one(out, s, ran, w);
    return 0;
}
