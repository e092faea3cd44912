/* smallest_first.c - a sample out-of-tree QUEUE plugin, "smallest-first".
 *
 * A QUEUE plugin decides the order in which the pending workloads of a
 * ClusterQueue are tried. This one orders them by
 *   1. priority, higher first;
 *   2. GPUs requested by the whole workload, fewer first: for each pod set,
 *      its pod count x what one pod requests, summed over the pod sets. The
 *      resource counted is pluginConfig args `resource` (default
 *      "nvidia.com/gpu");
 *   3. queue time, earlier first;
 *   4. name ("namespace/name"), so that no two workloads tie.
 * A head that cannot be admitted steps aside and lets the next one try
 * (as BestEffortFIFO does), so small jobs are not stuck behind a big one.
 *
 * The plugin sees Ordo only through <ordo/plugin.h>: opaque handles, the
 * host's function table given to init, and the descriptor at the bottom.
 * See docs/plugin-guide.md. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <ordo/plugin.h>

/* Everything the plugin remembers. init allocates it, the host passes it
 * back to every op as `self`, fini frees it. No globals: the same .so may
 * be instantiated more than once. */
struct smallest_first {
    const struct ordo_host *host; /* the host's functions, valid until fini */
    const struct ordo_plugin *p;  /* this instance, for host->log */
    char *resource;               /* the resource counted; our own copy */
    ordo_resource_id id;          /* its id, once a request carried it */
};

/* Whether id is the counted resource. The host names resources by ids that
 * never change, but it may not know a name yet at init (names are interned
 * as manifests mention them), so the id is learnt from the first request
 * that carries the name and cached in self. */
static bool is_counted(struct smallest_first *s, ordo_resource_id id)
{
    if (s->id == ORDO_RESOURCE_NONE) {
        const char *name = s->host->resource_name(id);
        if (!name || strcmp(name, s->resource) != 0)
            return false;
        s->id = id;
    }
    return id == s->id;
}

/* How much of the counted resource workload wl requests in all, in
 * milli-units (8 GPUs = 8000). Saturates instead of overflowing. */
static int64_t total_request(struct smallest_first *s,
                             const struct ordo_workload *wl)
{
    const struct ordo_host *h = s->host;
    int64_t total = 0;

    for (uint32_t ps = 0; ps < h->wl_n_podsets(wl); ps++) {
        for (uint32_t i = 0; i < h->ps_n_requests(wl, ps); i++) {
            ordo_resource_id id;
            int64_t milli, all_pods;
            h->ps_request(wl, ps, i, &id, &milli); /* of ONE pod */
            if (!is_counted(s, id))
                continue;
            if (__builtin_mul_overflow(milli, (int64_t)h->ps_count(wl, ps),
                                       &all_pods) ||
                __builtin_add_overflow(total, all_pods, &total))
                return INT64_MAX;
        }
    }
    return total;
}

/* QUEUE op `less`: true when a goes before b.
 * When: whenever the host sorts a ClusterQueue's pending workloads (after
 * the queue changed, before it picks the queue's head), so many times per
 * cycle. It must be a strict weak order (never less(a, a); never both
 * less(a, b) and less(b, a)); comparing keys one after the other as here
 * guarantees it.
 * May touch: self, a and b through the host's wl_ and ps_ functions. The
 * handles are valid only until it returns: keep none of them. */
static bool smallest_first_less(void *self, const struct ordo_workload *a,
                                const struct ordo_workload *b)
{
    struct smallest_first *s = self;
    const struct ordo_host *h = s->host;

    int32_t pa = h->wl_priority(a), pb = h->wl_priority(b);
    if (pa != pb)
        return pa > pb;
    int64_t ga = total_request(s, a), gb = total_request(s, b);
    if (ga != gb)
        return ga < gb;
    int64_t ta = h->wl_queue_time(a), tb = h->wl_queue_time(b);
    if (ta != tb)
        return ta < tb;
    return strcmp(h->wl_name(a), h->wl_name(b)) < 0;
}

/* QUEUE op `on_not_admitted`: what happens to the queue behind a head that
 * the cycle did not admit (quota, placement or a plugin said no; verdict
 * says how).
 * When: once per cycle for such a head, after the decision.
 * ORDO_QUEUE_NEXT parks the head until something relevant changes (a
 * workload finishes, capacity comes free) and lets the next one be the head;
 * ORDO_QUEUE_HOLD would keep it at the head, blocking the queue. */
static enum ordo_queue_action
smallest_first_on_not_admitted(void *self, const struct ordo_workload *wl,
                               enum ordo_verdict verdict)
{
    (void)self;
    (void)wl;
    (void)verdict;
    return ORDO_QUEUE_NEXT;
}

/* `init`: called once at startup on the main thread, before any op. Reads
 * the configuration, allocates self with host->alloc and returns 0, or logs
 * why and returns a negative errno (the scheduler then refuses to start),
 * having freed what it allocated. */
static int smallest_first_init(const struct ordo_host *host,
                               const struct ordo_plugin *p, void **ret_self)
{
    const char *resource;
    int rc = host->config_string(p, "resource", "nvidia.com/gpu", &resource);
    if (rc < 0) {
        host->log(p, ORDO_LOG_ERROR, "args.resource must be a string");
        return rc;
    }
    if (!*resource) {
        host->log(p, ORDO_LOG_ERROR, "args.resource must not be empty");
        return -EINVAL;
    }

    struct smallest_first *self = host->alloc(sizeof(*self)); /* zeroed */
    /* The host owns `resource`; keep a copy rather than its pointer. */
    char *copy = self ? host->alloc(strlen(resource) + 1) : NULL;
    if (!copy) {
        host->free(self); /* NULL-safe */
        host->log(p, ORDO_LOG_ERROR, "out of memory");
        return -ENOMEM;
    }
    memcpy(copy, resource, strlen(resource) + 1);
    self->host = host;
    self->p = p;
    self->resource = copy;
    self->id = ORDO_RESOURCE_NONE;
    host->log(p, ORDO_LOG_INFO, "ordering by total %s requested", copy);
    *ret_self = self;
    return 0;
}

/* `fini`: called once at shutdown with what init returned; must accept
 * NULL. Frees with host->free what init took with host->alloc. */
static void smallest_first_fini(void *self)
{
    struct smallest_first *s = self;
    if (!s)
        return;
    s->host->free(s->resource);
    s->host->free(s);
}

static const struct ordo_queue_ops smallest_first_ops = {
    .less = smallest_first_less,
    .on_not_admitted = smallest_first_on_not_admitted,
};

/* The one symbol the scheduler looks up. ORDO_PLUGIN_HEADER fills the three
 * frozen fields (ABI major, minor, struct size) from the header this file
 * was compiled against; the loader checks them before anything else. */
/* The arguments it reads (ABI 1.4): the scheduler refuses any other in
 * pluginConfig[].args, and one of the wrong type, before init runs, and
 * `ordo-scheduler --list-plugins -v 1` prints them. */
static const struct ordo_arg smallest_first_args[] = {
    {"resource", ORDO_ARG_STRING, "nvidia.com/gpu",
     "the resource whose total request orders the queue"},
};

ORDO_PLUGIN_DESCRIPTOR = {
    ORDO_PLUGIN_HEADER,
    .kind = ORDO_PLUGIN_QUEUE,
    .name = "smallest-first",
    .version = "1.0.0",
    .summary = "priority, then fewest GPUs requested, then FIFO; a head that "
               "does not fit lets the next one try",
    .init = smallest_first_init,
    .fini = smallest_first_fini,
    .queue = &smallest_first_ops,
    .args = smallest_first_args,
    .n_args = ORDO_N_ARGS(smallest_first_args),
};
