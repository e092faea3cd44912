/* test_shortest_job_first.c - unit test of shortest-job-first against the
 * mock host of the plugin test kit (<ordo/plugin-test.h>, installed with
 * Ordo), with nothing but a C compiler:
 *
 *   cc test_shortest_job_first.c shortest_job_first.c \
 *       $(pkg-config --cflags --libs ordo-plugin-test) -o test-sjf
 *   ./test-sjf
 *
 * Each check prints "ok" or "not ok" with its line; the exit status is the
 * number of failures. */
#include <stdio.h>
#include <string.h>

#include <ordo/plugin-test.h>

#define MIN_NS (60LL * 1000000000)

static int passes, failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        bool ok_ = (cond);                                                     \
        printf("%s - %s:%d: %s\n", ok_ ? "ok" : "not ok", __FILE__, __LINE__,  \
               #cond);                                                         \
        passes += ok_;                                                         \
        failures += !ok_;                                                      \
    } while (0)

/* Initialises the plugin with p's args; returns its self, or NULL. */
static void *start(struct ordo_plugin *p)
{
    void *self = NULL;
    char why[256];
    if (mock_check_args(p, why, sizeof(why)) < 0) {
        printf("# %s\n", why);
        return NULL;
    }
    return ordo_plugin.init(mock_host(), p, &self) == 0 ? self : NULL;
}

static bool less(void *self, const struct ordo_workload *a,
                 const struct ordo_workload *b)
{
    return ordo_plugin.queue->less(self, a, b);
}

static void test_shorter_first(void)
{
    struct ordo_plugin p = {.name = "shortest-job-first"};
    void *self = start(&p);
    struct ordo_workload short_job = {
        .name = "ns/short",
        .creation_time = 10 * MIN_NS,
        .annotations = {{"ordo.dev/expected-runtime", "5m"}},
    };
    struct ordo_workload long_job = {
        .name = "ns/long",
        .creation_time = 0,
        .annotations = {{"ordo.dev/expected-runtime", "2h"}},
    };
    struct ordo_workload unknown = {.name = "ns/unknown"}; /* default 1h */
    CHECK(self);
    CHECK(less(self, &short_job, &long_job));
    CHECK(!less(self, &long_job, &short_job));
    CHECK(less(self, &unknown, &long_job));
    CHECK(less(self, &short_job, &unknown));
    CHECK(!less(self, &short_job, &short_job));
    ordo_plugin.fini(self);
}

static void test_priority_then_creation(void)
{
    struct ordo_plugin p = {.name = "shortest-job-first"};
    void *self = start(&p);
    struct ordo_workload high = {
        .name = "ns/high",
        .priority = 10,
        .annotations = {{"ordo.dev/expected-runtime", "3h"}},
    };
    struct ordo_workload early = {
        .name = "ns/early",
        .creation_time = 1 * MIN_NS,
        .annotations = {{"ordo.dev/expected-runtime", "10m"}},
    };
    struct ordo_workload late = {
        .name = "ns/late",
        .creation_time = 2 * MIN_NS,
        .annotations = {{"ordo.dev/expected-runtime", "600"}}, /* 10m too */
    };
    CHECK(self);
    CHECK(less(self, &high, &early));
    CHECK(less(self, &early, &late));
    CHECK(!less(self, &late, &early));
    ordo_plugin.fini(self);
}

static void test_ageing(void)
{
    /* maxWait 30m: at 40m, a long job created at 0 has waited long enough
     * and goes before a short one created at 35m. */
    struct ordo_plugin p = {
        .name = "shortest-job-first",
        .args = {{.key = "maxWait", .str = "30m"},
                 {.key = "annotation", .str = "example.com/runtime"}},
        .now = 40 * MIN_NS,
    };
    void *self = start(&p);
    struct ordo_workload old_long = {
        .name = "ns/old",
        .creation_time = 0,
        .annotations = {{"example.com/runtime", "4h"}},
    };
    struct ordo_workload new_short = {
        .name = "ns/new",
        .creation_time = 35 * MIN_NS,
        .annotations = {{"example.com/runtime", "1m"}},
    };
    CHECK(self);
    CHECK(less(self, &old_long, &new_short));
    p.now = 20 * MIN_NS; /* before maxWait: shortest first again */
    CHECK(less(self, &new_short, &old_long));
    ordo_plugin.fini(self);
}

static void test_declared_args(void)
{
    char why[256];
    struct ordo_plugin typo = {
        .name = "shortest-job-first",
        .args = {{.key = "maxwait", .str = "30m"}},
    };
    struct ordo_plugin bad = {
        .name = "shortest-job-first",
        .args = {{.key = "maxWait", .str = "soon"}},
    };
    CHECK(mock_check_args(&typo, why, sizeof(why)) < 0);
    CHECK(strstr(why, "no argument \"maxwait\"") != NULL);
    CHECK(mock_check_args(&bad, why, sizeof(why)) < 0);
    CHECK(ordo_plugin.n_args == 3);
    CHECK(mock_live_allocs() == 0);
}

int main(void)
{
    mock_reset();
    test_shorter_first();
    test_priority_then_creation();
    test_ageing();
    test_declared_args();
    printf("%d passed, %d failed\n", passes, failures);
    return failures;
}
