/* test_sim_plot.c - unit tests for what the simulator draws from workloads'
 * histories (sched/backend/sim/sim_plot_timeline.c): one bar per admission
 * period, the part before the pods were placed, eviction markers naming
 * the preemptor; the usage plots' dash patterns and overlap notes
 * (sim_plot_usage.c); and the summary table's rows adding up to its total
 * (sim_summary.c). Histories and the cluster are built by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "resid.h"
#include "sim.h"
#include "test_helpers.h"

#define S(n) ((int64_t)(n)*INT64_C(1000000000))

enum { N_WL = 5, MAX_EV = 8 };

struct fixture {
    struct cluster c;
    struct flavor fl;
    struct cq cq_a, cq_b;
    struct cq *cqs_v[2];
    struct cq_group grp_a, grp_b;
    int32_t res_a[2], res_b[1];
    struct flavor *flv[1];
    int64_t nom_a[2], use_a[2], nom_b[1], use_b[1];
    struct workload wl[N_WL];
    struct wl_event ev[N_WL][MAX_EV];
    struct usage_sample samples[6];
    struct sim_history hist;
};

/* Appends an event to w's history (strings are the test's own). */
static void note(struct fixture *fx, struct workload *w, int64_t t,
                 enum wl_event_type type, const char *cq, const char *detail,
                 const char *by)
{
    struct wl_history *h = &w->history;
    assert_true(h->n < MAX_EV);
    h->ev = fx->ev[w - fx->wl];
    h->ev[h->n++] =
        (struct wl_event){.t_ns = t, .type = type, .cq = (char *)cq,
                          .detail = (char *)detail, .by = (char *)by};
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    assert_non_null(fx);
    int32_t cpu = resid_intern("cpu"), mem = resid_intern("memory");
    assert_true(cpu >= 0 && mem >= 0);
    fx->fl.name = "default";
    fx->flv[0] = &fx->fl;
    fx->res_a[0] = cpu;
    fx->res_a[1] = mem;
    fx->nom_a[0] = 4000;
    fx->nom_a[1] = INT64_C(8) * 1073741824 * 1000;
    fx->grp_a =
        (struct cq_group){2, 1, fx->res_a, fx->flv, fx->nom_a, fx->use_a};
    fx->cq_a.name = "team-a";
    fx->cq_a.n_groups = 1;
    fx->cq_a.groups = &fx->grp_a;
    fx->res_b[0] = cpu;
    fx->nom_b[0] = 2000;
    fx->grp_b =
        (struct cq_group){1, 1, fx->res_b, fx->flv, fx->nom_b, fx->use_b};
    fx->cq_b.name = "team-b";
    fx->cq_b.index = 1;
    fx->cq_b.n_groups = 1;
    fx->cq_b.groups = &fx->grp_b;
    fx->cqs_v[0] = &fx->cq_a;
    fx->cqs_v[1] = &fx->cq_b;
    fx->c.cqs_v = fx->cqs_v;
    fx->c.n_cqs = 2;

    struct workload *w;
    /* Admitted, preempted by ns/urgent, admitted again, finished. */
    w = &fx->wl[0];
    w->key = "ns/victim";
    w->kind = WL_JOB;
    w->cq = w->admitted_cq = &fx->cq_a;
    w->state = WL_FINISHED;
    w->has_admitted = w->has_finished = true;
    w->admitted_ns = S(8);
    w->finished_ns = S(20);
    w->evictions = 1;
    note(fx, w, 0, WL_EV_CREATED, NULL, NULL, NULL);
    note(fx, w, S(1), WL_EV_ADMITTED, "team-a", "main: cpu=default", NULL);
    note(fx, w, S(2), WL_EV_PLACED, NULL, NULL, NULL);
    note(fx, w, S(5), WL_EV_EVICTED, NULL, "preempted (InClusterQueue)",
         "ns/urgent");
    note(fx, w, S(6), WL_EV_REQUEUED, NULL, NULL, NULL);
    note(fx, w, S(8), WL_EV_ADMITTED, "team-a", "main: cpu=default", NULL);
    note(fx, w, S(9), WL_EV_PLACED, NULL, NULL, NULL);
    note(fx, w, S(20), WL_EV_FINISHED, NULL, NULL, NULL);

    /* The preemptor: admitted at 5s, its pods placed at 7s, running. */
    w = &fx->wl[1];
    w->key = "ns/urgent";
    w->kind = WL_JOB;
    w->cq = w->admitted_cq = &fx->cq_a;
    w->state = WL_ADMITTED;
    w->created_ns = S(4);
    w->has_admitted = true;
    w->admitted_ns = S(5);
    note(fx, w, S(4), WL_EV_CREATED, NULL, NULL, NULL);
    note(fx, w, S(4), WL_EV_WAITING, NULL, "insufficient quota", NULL);
    note(fx, w, S(5), WL_EV_ADMITTED, "team-a", "main: cpu=default", NULL);
    note(fx, w, S(7), WL_EV_PLACED, NULL, NULL, NULL);

    /* A bare pod on team-b, evicted (not by a workload): done then, and
     * no admission left to count it by. */
    w = &fx->wl[2];
    w->key = "ns/bare";
    w->kind = WL_POD;
    w->cq = &fx->cq_b;
    w->state = WL_FINISHED;
    w->has_admitted = w->has_finished = true;
    w->admitted_ns = S(1);
    w->finished_ns = S(3);
    w->evictions = 1;
    note(fx, w, 0, WL_EV_CREATED, NULL, NULL, NULL);
    note(fx, w, S(1), WL_EV_ADMITTED, "team-b", NULL, NULL);
    note(fx, w, S(1), WL_EV_PLACED, NULL, NULL, NULL);
    note(fx, w, S(3), WL_EV_EVICTED, NULL, "its node went away", NULL);
    note(fx, w, S(3), WL_EV_FINISHED, NULL, NULL, NULL);

    /* A pod without a ClusterQueue, pending; no history. */
    w = &fx->wl[3];
    w->key = "ns/lost";
    w->kind = WL_POD;
    w->created_ns = S(2);

    /* Admitted to team-b, no history (an older caller). */
    w = &fx->wl[4];
    w->key = "ns/old";
    w->kind = WL_JOB;
    w->cq = w->admitted_cq = &fx->cq_b;
    w->state = WL_ADMITTED;
    w->created_ns = S(3);
    w->has_admitted = true;
    w->admitted_ns = S(6);

    for (int i = 0; i < N_WL; i++) {
        w = &fx->wl[i];
        HASH_ADD_KEYPTR(hh, fx->c.workloads, w->key, strlen(w->key), w);
    }

    /* team-a: cpu and memory at the same share all along (one line on
     * the other); team-b: cpu alone. */
    struct usage_sample smp[6] = {
        {S(1), "team-a", "default", "cpu", 2000, 4000},
        {S(1), "team-a", "default", "memory", fx->nom_a[1] / 2, fx->nom_a[1]},
        {S(20), "team-a", "default", "cpu", 1000, 4000},
        {S(20), "team-a", "default", "memory", fx->nom_a[1] / 4, fx->nom_a[1]},
        {S(1), "team-b", "default", "cpu", 1000, 2000},
        {S(3), "team-b", "default", "cpu", 0, 2000},
    };
    memcpy(fx->samples, smp, sizeof(smp));
    fx->hist.samples = fx->samples;
    fx->hist.n = fx->hist.cap = 6;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    HASH_CLEAR(hh, fx->c.workloads);
    free(fx);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    resid_reset();
    return 0;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* The plots of fx in a new directory: the timeline (*ret_t) and team-a's
 * usage (*ret_a), both to free; the files are removed. */
static void plot(struct fixture *fx, char **ret_t, char **ret_a)
{
    char dir[] = "/tmp/test_sim_plot_XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct err e = {{0}};
    assert_int_equal(sim_plot_write(&fx->c, &fx->hist, S(30), dir, &e), 0);
    static const char *const files[] = {"timeline.svg", "usage-1-team-a.svg",
                                        "usage-2-team-b.svg", "index.html"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *path = NULL;
        assert_true(asprintf(&path, "%s/%s", dir, files[i]) > 0);
        if (i == 0)
            *ret_t = slurp(path);
        else if (i == 1)
            *ret_a = slurp(path);
        assert_int_equal(unlink(path), 0);
        free(path);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* The row of workload key in the timeline (a new string, to free): from
 * its group to the next row's. */
static char *row_of(const char *svg, const char *key)
{
    char *start = NULL;
    assert_true(asprintf(&start, "<g><title>%s (", key) > 0);
    const char *p = strstr(svg, start);
    free(start);
    assert_non_null(p);
    const char *end = strstr(p + 1, "<g><title>");
    if (!end)
        end = p + strlen(p);
    return strndup(p, (size_t)(end - p));
}

static void test_timeline_periods(void **state)
{
    struct fixture *fx = *state;
    char *t = NULL, *a = NULL;
    plot(fx, &t, &a);

    /* One bar per admission period: 2 + 1 + 1, none for the rows without
     * a history. */
    assert_int_equal(count(t, "<g class=\"period\">"), 4);
    char *victim = row_of(t, "ns/victim");
    assert_int_equal(count(victim, "<g class=\"period\">"), 2);
    /* Each period: pods not yet placed (1s-2s, 8s-9s), then running. */
    assert_int_equal(count(victim, "class=\"unplaced\""), 2);
    assert_int_equal(count(victim, "class=\"run\""), 2);
    assert_contains(victim, "<title>admitted to team-a at 1s (main: "
                            "cpu=default), pods placed 2s, evicted 5s</title>");
    assert_contains(victim, "<title>admitted to team-a at 8s (main: "
                            "cpu=default), pods placed 9s, ended 20s</title>");
    /* The eviction: a marker, its tooltip and a label naming the
     * preemptor. */
    assert_int_equal(count(victim, "class=\"evicted\""), 1);
    assert_contains(victim, "<title>evicted at 5s by ns/urgent: preempted "
                            "(InClusterQueue)</title>");
    assert_contains(victim, ">by ns/urgent</text>");
    /* Drawn after every bar of the row: the second admission does not
     * hide the label. */
    const char *last_bar = victim;
    for (const char *p = strstr(victim, "<rect "); p;
         p = strstr(p + 1, "<rect "))
        last_bar = p;
    assert_true(strstr(victim, "class=\"evicted\"") > last_bar);
    /* Alive from 0s to its finish at 20s (x0 120, 700px over 30s); the
     * first period's parts: 1s-2s faded, 2s-5s solid. */
    assert_contains(victim, "class=\"wait\" x=\"120.0\"");
    assert_contains(victim, "width=\"466.7\" height=\"4.0\"");
    assert_contains(victim, "class=\"unplaced\" x=\"143.3\"");
    assert_contains(victim, "class=\"run\" x=\"166.7\"");

    /* The preemptor: admitted at 5s, its pods placed at 7s, running to
     * the end. */
    char *urgent = row_of(t, "ns/urgent");
    assert_int_equal(count(urgent, "<g class=\"period\">"), 1);
    assert_contains(urgent, "class=\"unplaced\" x=\"236.7\"");
    assert_contains(urgent, "width=\"46.7\"");
    assert_contains(urgent, "class=\"run\" x=\"283.3\"");
    assert_contains(urgent, "stroke-dasharray=\"3 2\"");
    assert_int_equal(count(urgent, "class=\"evicted\""), 0);

    /* Placed as admitted: no not-yet-placed part. Evicted by no one: a
     * marker with why, no "by" label. */
    char *bare = row_of(t, "ns/bare");
    assert_int_equal(count(bare, "class=\"unplaced\""), 0);
    assert_int_equal(count(bare, "class=\"run\""), 1);
    assert_contains(bare, "<title>evicted at 3s: its node went away</title>");
    assert_int_equal(count(bare, "class=\"preemptor\""), 0);

    /* No history: today's drawing from the fields. */
    char *old = row_of(t, "ns/old");
    assert_int_equal(count(old, "class=\"period\""), 0);
    assert_int_equal(count(old, "class=\"run\""), 1);
    char *lost = row_of(t, "ns/lost");
    assert_int_equal(count(lost, "class=\"run\""), 0);
    assert_int_equal(count(lost, "class=\"wait\""), 1);

    /* The legend tells the kinds apart. */
    assert_contains(t, "admitted, pods not yet placed</text>");
    assert_contains(t, "running (its pods placed)</text>");
    assert_contains(t, "evicted (by: the workload that preempted it)");

    free(victim);
    free(urgent);
    free(bare);
    free(old);
    free(lost);
    free(t);
    free(a);
}

/* An admission the history never saw end is drawn to the next one, or to
 * the end of the run; one never placed is all not-yet-placed. */
static void test_timeline_open_periods(void **state)
{
    struct fixture *fx = *state;
    struct workload *w = &fx->wl[1];
    w->history.n = 0;
    note(fx, w, S(4), WL_EV_CREATED, NULL, NULL, NULL);
    note(fx, w, S(5), WL_EV_ADMITTED, "team-b", NULL, NULL);
    note(fx, w, S(10), WL_EV_ADMITTED, "team-a", NULL, NULL);
    char *t = NULL, *a = NULL;
    plot(fx, &t, &a);
    char *urgent = row_of(t, "ns/urgent");
    assert_int_equal(count(urgent, "<g class=\"period\">"), 2);
    assert_int_equal(count(urgent, "class=\"run\""), 0);
    assert_int_equal(count(urgent, "class=\"unplaced\""), 2);
    assert_contains(urgent, "<title>admitted to team-b at 5s, pods not all "
                            "placed, ended 10s</title>");
    assert_contains(urgent, "<title>admitted to team-a at 10s, pods not all "
                            "placed</title>");
    /* Each in its ClusterQueue's colour (team-b is the second). */
    assert_contains(urgent, "fill=\"#f28e2b\" fill-opacity=\"0.30\"");
    assert_contains(urgent, "fill=\"#4e79a7\" fill-opacity=\"0.30\"");
    free(urgent);
    free(t);
    free(a);
}

static void test_usage_overlap(void **state)
{
    struct fixture *fx = *state;
    char *t = NULL, *a = NULL;
    plot(fx, &t, &a);
    /* cpu and memory of team-a hold the same share all along: the second
     * is dashed, drawn 2px lower, and the legend says it lies on cpu. */
    assert_int_equal(count(a, "<path "), 2);
    assert_contains(a, "<path fill=\"none\" stroke=\"#4e79a7\" "
                       "stroke-width=\"2\" d=\"M70.0 350.0 L96.7 350.0 "
                       "L96.7 225.0 ");
    assert_contains(a, "<path fill=\"none\" stroke=\"#f28e2b\" "
                       "stroke-width=\"2\" stroke-dasharray=\"8 4\" "
                       "d=\"M70.0 352.0 L96.7 352.0 L96.7 227.0 ");
    assert_contains(a, "default / memory: nominal 8Gi, peak 4Gi (50%) - on "
                       "top of default / cpu (drawn 2px lower)</text>");
    assert_contains(a, "default / cpu: nominal 4, peak 2 (50%)</text>");
    /* The legend's swatches carry the dash patterns. */
    assert_contains(a, "stroke=\"#f28e2b\" stroke-width=\"2\" "
                       "stroke-dasharray=\"8 4\"/>");

    /* Apart from 20s on: no offset, the legend says they meet for a
     * while. */
    fx->samples[3].usage_milli = fx->nom_a[1] / 8;
    free(t);
    free(a);
    plot(fx, &t, &a);
    assert_true(strstr(a, "drawn 2px lower") == NULL);
    assert_int_equal(count(a, "d=\"M70.0 350.0 L96.7 350.0 L96.7 225.0 "), 2);
    assert_contains(a, "default / memory: nominal 8Gi, peak 4Gi (50%) - "
                       "partly on top of default / cpu (dashed)</text>");
    free(t);
    free(a);

    /* Never together above 0%: no note at all. */
    fx->samples[1].usage_milli = fx->nom_a[1] / 4;
    plot(fx, &t, &a);
    assert_true(strstr(a, "on top of") == NULL);
    free(t);
    free(a);
}

static char *summary(const struct cluster *c, int64_t end_ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    sim_summary_print(m, c, end_ns);
    fclose(m);
    return buf;
}

/* Every workload is in a row: the evicted bare pod under FINISHED where
 * it waited, the pod without a ClusterQueue in a row of its own; the
 * rows add up to the total. */
static void test_summary_rows_add_up(void **state)
{
    struct fixture *fx = *state;
    char *out = summary(&fx->c, S(30));
    assert_string_equal(
        out,
        "CLUSTERQUEUE        PENDING  ADMITTED  FINISHED  USAGE (of nominal)\n"
        "team-a                    0         1         1  cpu 0/4 (default), "
        "memory 0/8Gi (default)\n"
        "team-b                    0         1         1  cpu 0/2 (default)\n"
        "(no ClusterQueue)         1         0         0  -\n"
        "workloads: 5 (1 pending, 2 admitted, 2 finished), end time 30s\n");
    /* The same sums, read back from the table. */
    unsigned long total, p, a, f, sum[3] = {0, 0, 0};
    const char *line = strchr(out, '\n') + 1;
    for (int i = 0; i < 3; i++) {
        const char *num = line + strlen("(no ClusterQueue)");
        assert_int_equal(sscanf(num, "%lu %lu %lu", &p, &a, &f), 3);
        sum[0] += p;
        sum[1] += a;
        sum[2] += f;
        line = strchr(line, '\n') + 1;
    }
    assert_int_equal(sscanf(line,
                            "workloads: %lu (%lu pending, %lu admitted, "
                            "%lu finished)",
                            &total, &p, &a, &f),
                     4);
    assert_int_equal(sum[0] + sum[1] + sum[2], total);
    assert_int_equal(sum[0], p);
    assert_int_equal(sum[1], a);
    assert_int_equal(sum[2], f);
    free(out);

    /* A ClusterQueue the cluster no longer has counts as none; without
     * such workloads the row is left out and the table keeps its width. */
    struct cq gone = {.name = "gone"};
    fx->wl[4].admitted_cq = fx->wl[4].cq = &gone;
    out = summary(&fx->c, S(30));
    assert_contains(out, "team-b                    0         0         1");
    assert_contains(out,
                    "(no ClusterQueue)         1         1         0  -\n");
    free(out);
    HASH_DEL(fx->c.workloads, &fx->wl[3]);
    HASH_DEL(fx->c.workloads, &fx->wl[4]);
    out = summary(&fx->c, S(30));
    assert_true(strstr(out, "(no ClusterQueue)") == NULL);
    assert_contains(out, "CLUSTERQUEUE   PENDING");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_timeline_periods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeline_open_periods, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_usage_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_rows_add_up, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("sim_plot", tests, NULL, group_teardown);
}
