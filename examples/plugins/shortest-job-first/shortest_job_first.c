/* shortest_job_first.c - a sample out-of-tree QUEUE plugin,
 * "shortest-job-first", written against ABI 1.4.
 *
 * It orders the pending workloads of a ClusterQueue by
 *   1. priority, higher first;
 *   2. ageing: a workload that has waited maxWait or longer since it was
 *      created (host->now - host->wl_creation_time) goes before those that
 *      have not, so that a stream of short jobs cannot starve a long one
 *      (maxWait 0s, the default, turns ageing off);
 *   3. expected runtime, shorter first: the Go duration in the workload's
 *      annotation `annotation` (default ordo.dev/expected-runtime, e.g.
 *      "15m"); without one, or with one that does not read, defaultRuntime;
 *   4. creation time, earlier first (wl_creation_time does not move when a
 *      workload is evicted, unlike wl_queue_time);
 *   5. name, so that no two workloads tie.
 * A head that cannot be admitted lets the next one try (as BestEffortFIFO).
 *
 * Its three arguments are declared in the descriptor: the scheduler refuses
 * any other argument, or one of the wrong type, before init runs. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <ordo/plugin.h>

#define NS_PER_S 1000000000LL

struct sjf {
    const struct ordo_host *host;
    const struct ordo_plugin *p; /* for host->now and host->log */
    const char *annotation;      /* the host's string, valid until fini */
    int64_t default_runtime_ns;
    int64_t max_wait_ns; /* 0: no ageing */
};

/* Parses a Go-style duration of whole units ("90s", "1h30m", "2h"), or
 * plain seconds ("600"), into ns. Returns 0 or -EINVAL. */
static int parse_runtime(const char *s, int64_t *ret_ns)
{
    int64_t total = 0;
    if (!s || !*s)
        return -EINVAL;
    while (*s) {
        int64_t n = 0, unit;
        if (*s < '0' || *s > '9')
            return -EINVAL;
        while (*s >= '0' && *s <= '9') {
            if (n > INT64_MAX / 10 / NS_PER_S)
                return -EINVAL;
            n = n * 10 + (*s++ - '0');
        }
        switch (*s) {
        case 'h':
            unit = 3600 * NS_PER_S;
            s++;
            break;
        case 'm':
            unit = 60 * NS_PER_S;
            s++;
            break;
        case 's':
            unit = NS_PER_S;
            s++;
            break;
        case '\0':
            unit = NS_PER_S;
            break;
        default:
            return -EINVAL;
        }
        if (n > (INT64_MAX - total) / unit)
            return -EINVAL;
        total += n * unit;
    }
    *ret_ns = total;
    return 0;
}

/* The workload's expected runtime, ns. */
static int64_t runtime_of(const struct sjf *s, const struct ordo_workload *wl)
{
    int64_t ns;
    const char *v = s->host->wl_annotation(wl, s->annotation);
    return v && parse_runtime(v, &ns) == 0 ? ns : s->default_runtime_ns;
}

/* Whether wl has waited maxWait or longer since it was created. */
static bool aged(const struct sjf *s, const struct ordo_workload *wl,
                 int64_t now)
{
    return s->max_wait_ns > 0 &&
           now - s->host->wl_creation_time(wl) >= s->max_wait_ns;
}

/* QUEUE op `less`. It has no cycle argument: host->now takes the instance
 * (s->p), and the clock does not move while the host sorts, so the order
 * stays a strict weak order. */
static bool sjf_less(void *self, const struct ordo_workload *a,
                     const struct ordo_workload *b)
{
    const struct sjf *s = self;
    const struct ordo_host *h = s->host;

    int32_t pa = h->wl_priority(a), pb = h->wl_priority(b);
    if (pa != pb)
        return pa > pb;
    int64_t now = h->now(s->p);
    bool oa = aged(s, a, now), ob = aged(s, b, now);
    if (oa != ob)
        return oa;
    if (!oa) { /* the aged ones go by creation time alone */
        int64_t ra = runtime_of(s, a), rb = runtime_of(s, b);
        if (ra != rb)
            return ra < rb;
    }
    int64_t ca = h->wl_creation_time(a), cb = h->wl_creation_time(b);
    if (ca != cb)
        return ca < cb;
    return strcmp(h->wl_name(a), h->wl_name(b)) < 0;
}

static enum ordo_queue_action
sjf_on_not_admitted(void *self, const struct ordo_workload *wl,
                    enum ordo_verdict verdict)
{
    (void)self;
    (void)wl;
    (void)verdict;
    return ORDO_QUEUE_NEXT;
}

static int sjf_init(const struct ordo_host *host, const struct ordo_plugin *p,
                    void **ret_self)
{
    /* ABI 1.4 functions: refuse an older ordo-scheduler. */
    if (host->abi_minor < 4) {
        host->log(p, ORDO_LOG_ERROR, "needs ordo-scheduler with ABI 1.4");
        return -ENOTSUP;
    }
    struct sjf *s = host->alloc(sizeof(*s));
    if (!s) {
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    s->host = host;
    s->p = p;
    /* The host checked the types already; these cannot fail. */
    if (host->config_string(p, "annotation", "ordo.dev/expected-runtime",
                            &s->annotation) < 0 ||
        host->config_duration(p, "defaultRuntime", 3600 * NS_PER_S,
                              &s->default_runtime_ns) < 0 ||
        host->config_duration(p, "maxWait", 0, &s->max_wait_ns) < 0) {
        host->free(s);
        return -EINVAL;
    }
    host->log(p, ORDO_LOG_INFO,
              "runtime from annotation %s (default %llds), maxWait %llds",
              s->annotation, (long long)(s->default_runtime_ns / NS_PER_S),
              (long long)(s->max_wait_ns / NS_PER_S));
    *ret_self = s;
    return 0;
}

static void sjf_fini(void *self)
{
    struct sjf *s = self;
    if (s)
        s->host->free(s);
}

static const struct ordo_queue_ops sjf_ops = {
    .less = sjf_less,
    .on_not_admitted = sjf_on_not_admitted,
};

static const struct ordo_arg sjf_args[] = {
    {"annotation", ORDO_ARG_STRING, "ordo.dev/expected-runtime",
     "annotation holding a workload's expected runtime (\"15m\")"},
    {"defaultRuntime", ORDO_ARG_DURATION, "1h",
     "expected runtime of a workload without the annotation"},
    {"maxWait", ORDO_ARG_DURATION, "0s",
     "after this long since creation a workload goes first (0s: never)"},
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "shortest-job-first",
    .version = "1.0.0",
    .summary = "priority, then aged, then shortest expected runtime "
               "(annotation), then creation time",
    .init = sjf_init,
    .fini = sjf_fini,
    .queue = &sjf_ops,
    .args = sjf_args,
    .n_args = ORDO_N_ARGS(sjf_args),
};
