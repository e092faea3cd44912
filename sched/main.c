/* main.c - ordo-scheduler's command line: parses options and runs one mode.
 *
 * Modes: --version, --list-plugins (peek at plugin descriptors without
 * initialising them), --validate PATH... (decode manifests and report every
 * error and warning; --strict makes warnings errors), --sim PATH... (the
 * simulated cluster), --kubeconfig FILE / --server URL (a real cluster:
 * backend/kube/kube_daemon.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "duration.h"
#include "log.h"
#include "manifest.h"
#include "manifest_check.h"
#include "plugin_loader.h"
#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "sched_config.h"
#include "kube_daemon.h"
#include "sim.h"
#include "watchdog.h"

enum {
    OPT_VERSION = 1000,
    OPT_LIST_PLUGINS,
    OPT_PLUGIN_DIR,
    OPT_VALIDATE,
    OPT_SIM,
    OPT_SIM_UNTIL,
    OPT_CONFIG,
    OPT_REPORT,
    OPT_PLOT,
    OPT_METRICS_OUT,
    OPT_NO_LQ_METRICS,
    OPT_LISTEN,
    OPT_LISTEN_CERT,
    OPT_LISTEN_KEY,
    OPT_LISTEN_CLIENT_CA,
    OPT_LISTEN_CLIENT_NAME,
    OPT_WEBHOOK_LISTEN,
    OPT_WEBHOOK_CERT,
    OPT_WEBHOOK_KEY,
    OPT_NO_PROGRESS,
    OPT_SIM_CHECK,
    OPT_CYCLE_TIMEOUT,
    OPT_STRICT,
    OPT_EXPLAIN,
    OPT_KUBECONFIG,
    OPT_CONTEXT,
    OPT_CLUSTER,
    OPT_NO_WORKLOAD_WRITES,
    OPT_SERVER,
    OPT_TOKEN,
    OPT_CA_FILE,
    OPT_INSECURE,
    OPT_QPS,
    OPT_WRITE_QPS,
    OPT_WRITE_BURST,
    OPT_BURST,
    OPT_LEADER_ELECT,
    OPT_LE_LEASE,
    OPT_LE_RENEW,
    OPT_LE_RETRY,
    OPT_LE_NAMESPACE,
    OPT_LE_NAME,
};

/* --explain may be given this many times. */
#define EXPLAIN_MAX 64

struct options {
    bool version;
    bool list_plugins;
    bool validate;
    bool sim;
    size_t n_plugin_dirs; /* --plugin-dir, in order */
    const char *plugin_dirs[CONFIG_MAX_PLUGIN_DIRS];
    bool strict; /* --strict: manifest warnings and missing references are
                    errors */
    const char *config;
    bool cycle_timeout_set; /* --cycle-timeout, over cycleTimeout */
    int64_t cycle_timeout_ns;
    struct sim_options sim_opt;
    bool kube; /* --kubeconfig or --server: run against a cluster */
    struct kube_daemon_options kube_opt;
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "Usage: ordo-scheduler [OPTIONS] MODE\n"
        "\n"
        "Ordo, a batch scheduler for Kubernetes that reads Kueue's API.\n"
        "\n"
        "Modes:\n"
        "  --version             print the version and plugin ABI\n"
        "  --list-plugins        list the plugins found (name, kind, "
        "version, summary;\n"
        "                        with -v 1 path and arguments)\n"
        "  --validate PATH...    check manifests (files or directories) "
        "and report every\n"
        "                        error and warning (exit 1 on an error); "
        "with --config,\n"
        "                        the configuration file too\n"
        "  --sim PATH...         run the scheduler on a simulated cluster "
        "built from manifests\n"
        "  --kubeconfig FILE     schedule a cluster: its API server from "
        "FILE\n"
        "                        (--context NAME: not the current one)\n"
        "  --cluster             schedule the cluster of KUBECONFIG or "
        "~/.kube/config,\n"
        "                        else the one it runs in "
        "(service account)\n"
        "  --server URL          schedule a cluster at URL (--token T, "
        "--certificate-authority\n"
        "                        FILE, --insecure-skip-tls-verify; over "
        "the kubeconfig's)\n"
        "  --no-workload-writes  write no Workload objects (queue and "
        "pod status and\n"
        "                        Events still)\n"
        "  --qps N, --burst N    API request rate limit (default 200, "
        "burst 400)\n"
        "  --write-qps N, --write-burst N\n"
        "                        status writes' share of it (Workloads, "
        "queue and pod\n"
        "                        status, Events; default 100, burst 400)\n"
        "  --listen HOST:PORT    serve /metrics, /healthz, /readyz and "
        "/queues there\n"
        "  --listen-cert FILE, --listen-key FILE\n"
        "                        serve them over HTTPS (PEM files)\n"
        "  --listen-client-ca FILE  and require a client certificate "
        "signed by a CA of\n"
        "                        FILE (the front-proxy CA) but for "
        "/healthz and /readyz\n"
        "  --listen-client-name NAME[,NAME...]  and one of these common "
        "names\n"
        "                        (requestheader-allowed-names)\n"
        "  --leader-elect[=BOOL] elect one leader on a Lease (default "
        "true; false: always lead)\n"
        "  --leader-elect-lease-duration DUR, --leader-elect-renew-deadline "
        "DUR,\n"
        "  --leader-elect-retry-period DUR   (default 15s, 10s, 2s)\n"
        "  --leader-elect-resource-namespace NS, "
        "--leader-elect-resource-name NAME\n"
        "                        the Lease (default "
        "kube-system/ordo-scheduler)\n"
        "  --webhook-listen HOST:PORT, --webhook-cert FILE, --webhook-key "
        "FILE\n"
        "                        serve the pod webhook there (HTTPS; the "
        "files are\n"
        "                        read again when they change)\n"
        "\n"
        "Options:\n"
        "  --config FILE         scheduler configuration "
        "(SchedulerConfiguration YAML)\n"
        "  --plugin-dir DIR      search DIR for plugins first (again: "
        "in order),\n"
        "                        before pluginDirs and %s\n"
        "  --sim-until WHEN      idle (default: until nothing can change) "
        "or a virtual time (\"2h\")\n"
        "  --report FILE         write the simulation report "
        "(ordo.dev/sim-report/v1 JSON)\n"
        "  --plot DIR            write SVG plots of usage and a workload "
        "timeline\n"
        "  --metrics-out FILE    write the metrics (Prometheus text) at the "
        "end of the run\n"
        "  --no-local-queue-metrics  no kueue_local_queue_* metrics (one "
        "set per LocalQueue;\n"
        "                        with --metrics-out and --listen)\n"
        "  --strict              unknown or unsupported Kueue fields, older "
        "API versions,\n"
        "                        references to objects not in the "
        "manifests and workloads\n"
        "                        Ordo does not schedule are errors, not "
        "warnings\n"
        "                        (--validate, --sim)\n"
        "  --no-progress         no progress bar\n"
        "  --sim-check           check invariants after every instant "
        "(exit 1 when one fails)\n"
        "  --cycle-timeout DUR   abort when a scheduling cycle runs longer "
        "(default:\n"
        "                        cycleTimeout of --config, 60s; 0s: "
        "never)\n"

        "  --explain NS/NAME     after --sim, what happened to a workload "
        "and where it\n"
        "                        stands (repeatable)\n"
        "  -v, --v N             log verbosity (-v alone: 1; with "
        "--list-plugins:\n"
        "                        each plugin's path, ABI and arguments)\n"
        "  -h, --help            this help\n",
        plugin_default_dir());
}

/* The search path of --plugin-dir, --config's pluginDirs and the built-in
 * directory; 0 or 1 after printing why. */
static int search_path(const struct options *o, const struct sched_config *cfg,
                       struct plugin_path *ret)
{
    struct err e;
    if (plugins_search_path(o->plugin_dirs, o->n_plugin_dirs, cfg,
                            plugin_default_dir(), ret, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        return 1;
    }
    return 0;
}

/* With -v 1 or more: each plugin's path and declared arguments. */
static void list_plugin_details(const struct loaded_plugin *lp)
{
    uint32_t n;
    const struct ordo_arg *a = plugin_declared_args(lp->desc, &n);
    printf("    path: %s (ABI %u.%u)\n", lp->path, lp->desc->abi_major,
           lp->desc->abi_minor);
    if (lp->desc->abi_minor < 4)
        printf("    arguments: not declared (ABI < 1.4)\n");
    else if (n == 0)
        printf("    arguments: none\n");
    for (uint32_t i = 0; i < n; i++)
        printf("    arg %-20s %-11s default %-10s %s\n", a[i].name,
               plugin_arg_type_name(a[i].type), a[i].def ? a[i].def : "-",
               a[i].help ? a[i].help : "");
}

/* An unknown field of --config without --strict: said, then ignored.
 * userdata: a size_t count, or NULL. */
static void print_config_warning(const char *msg, void *userdata)
{
    fprintf(stderr, "warning: %s\n", msg);
    if (userdata)
        (*(size_t *)userdata)++;
}

static int list_plugins(const struct options *o)
{
    struct sched_config cfg;
    struct plugin_set set;
    struct plugin_path path = {0};
    struct err e;
    int rc = 1;
    config_init_defaults(&cfg);
    plugin_set_init(&set);
    if (o->config && config_load_checked(&cfg, o->config, o->strict,
                                         print_config_warning, NULL, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: --config: %s\n", e.msg);
        goto out;
    }
    if (search_path(o, &cfg, &path))
        goto out;
    if (plugin_set_open_path(&set, (const char *const *)path.dirs, path.n, &e) <
        0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        goto out;
    }
    printf("%-24s %-8s %-9s %s\n", "NAME", "KIND", "VERSION", "SUMMARY");
    for (size_t i = 0; i < set.n; i++) {
        const struct ordo_plugin_descriptor *d = set.items[i].desc;
        printf("%-24s %-8s %-9s %s\n", d->name, plugin_kind_name(d->kind),
               d->version ? d->version : "-", d->summary ? d->summary : "");
        if (log_get_verbosity() >= 1)
            list_plugin_details(&set.items[i]);
    }
    if (set.n == 0)
        printf("(no plugins in %s)\n",
               path.n ? path.dirs[0] : "any plugin directory");
    rc = 0;
out:
    plugin_set_release(&set);
    plugin_path_release(&path);
    config_release(&cfg);
    return rc;
}

static void print_error(const struct err *e, void *userdata)
{
    fprintf(stderr, "%s\n", e->msg);
}

/* A finding of manifest_check(), printed as the decoder's warnings and
 * errors are. */
static void print_finding(enum manifest_severity sev, const char *file,
                          unsigned line, const char *msg, void *userdata)
{
    char where[32] = "";
    if (line)
        snprintf(where, sizeof(where), ":%u", line);
    fprintf(stderr, "%s%s%s: %s\n", sev == MANIFEST_WARNING ? "warning: " : "",
            file, where, msg);
}

/* --validate prints every warning and note, each named as such. */
static void print_diag(const struct diag *d, void *userdata)
{
    fprintf(stderr, "%s: %s\n", diag_level_name(d->level), d->msg);
}

static int validate(const struct options *o, char **paths, int n)
{
    struct manifest_set set;
    size_t by_kind[OBJ_KIND_MAX] = {0};
    size_t config_errors = 0, config_warnings = 0;
    /* Kept for its podDefaulting, which the checks apply. */
    struct sched_config cfg;
    config_init_defaults(&cfg);
    if (o->config) {
        struct err e;
        if (config_load_checked(&cfg, o->config, o->strict,
                                print_config_warning, &config_warnings,
                                &e) < 0) {
            fprintf(stderr, "%s\n", e.msg);
            config_errors = 1;
        }
    }
    manifest_set_init(&set);
    set.on_note = print_error; /* a report of an earlier run, skipped */
    set.strict = o->strict;
    set.on_diag = print_diag;
    for (int i = 0; i < n; i++) {
        if (manifest_load_path(&set, paths[i], print_error, NULL) == -ENOMEM) {
            fprintf(stderr, "ordo-scheduler: out of memory\n");
            break;
        }
    }
    /* Across objects, once each decoded (a reference to one that did not
     * would only repeat its error). */
    struct manifest_check_opts copts = {.strict = o->strict,
                                        .rule = &cfg.pod_defaulting};
    struct manifest_check_counts counts = {0};
    if (set.n_errors == 0 &&
        manifest_check(&set, &copts, print_finding, NULL, &counts) < 0)
        fprintf(stderr, "ordo-scheduler: out of memory\n");
    for (size_t i = 0; i < set.n; i++)
        by_kind[set.objects[i]->kind]++;
    printf("%zu objects", set.n);
    for (int k = 0; k < OBJ_KIND_MAX; k++)
        if (by_kind[k])
            printf(", %zu %s", by_kind[k], object_kind_name(k));
    printf("; %zu ignored (kinds Ordo does not read); %zu errors; %zu "
           "warnings\n",
           set.n_ignored, set.n_errors + config_errors + counts.n_errors,
           set.n_warnings + counts.n_warnings + config_warnings);
    int rc = set.n_errors || config_errors || counts.n_errors ? 1 : 0;
    manifest_set_release(&set);
    config_release(&cfg);
    return rc;
}

/* What runs once the plugins are started: returns the exit status. */
typedef int (*mode_fn)(const struct options *o, const struct sched_config *cfg,
                       struct plugin_registry *plugins, char **paths, int n);

/* Loads --config, starts the plugins of the search path and the cycle
 * watchdog, runs mode, and stops them again: what --sim and the cluster
 * mode share. */
static int with_scheduler(const struct options *o, mode_fn mode, char **paths,
                          int n)
{
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct err e;
    struct plugin_path path = {0};
    int rc = 1;
    config_init_defaults(&cfg);
    if (o->config && config_load_checked(&cfg, o->config, o->strict,
                                         print_config_warning, NULL, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: --config: %s\n", e.msg);
        goto out;
    }
    if (search_path(o, &cfg, &path))
        goto out;
    if (plugins_start_path(&plugins, &cfg, &path, host_table(), &e) < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        goto out;
    }
    int r = watchdog_start(o->cycle_timeout_set ? o->cycle_timeout_ns
                                                : cfg.cycle_timeout_ns);
    if (r < 0)
        fprintf(stderr, "ordo-scheduler: cycle watchdog: %s\n", strerror(-r));
    else
        rc = mode(o, &cfg, &plugins, paths, n);
    watchdog_stop();
    plugins_stop(&plugins);
out:
    plugin_path_release(&path);
    config_release(&cfg);
    resid_reset();
    return rc;
}

static int simulate(const struct options *o, const struct sched_config *cfg,
                    struct plugin_registry *plugins, char **paths, int n)
{
    int r = sim_run(cfg, plugins, paths, n, &o->sim_opt);
    return r < 0 ? 1 : r == SIM_UNKNOWN_WORKLOAD ? 2 : 0;
}

/* Schedules a cluster until SIGTERM or SIGINT. */
static int run_cluster(const struct options *o, const struct sched_config *cfg,
                       struct plugin_registry *plugins, char **paths, int n)
{
    (void)paths;
    (void)n;
    struct kube_daemon_options ko = o->kube_opt;
    ko.obs.webhook_rule = &cfg->pod_defaulting; /* the webhook's rule */
    return kube_daemon_run(cfg, plugins, &ko);
}

/* --leader-elect-{lease-duration,renew-deadline,retry-period} DUR, in
 * Go syntax; 0 or -1 after printing why. */
static int leader_duration(int opt, const char *arg,
                           struct kube_daemon_options *k)
{
    const char *name = opt == OPT_LE_LEASE   ? "lease-duration"
                       : opt == OPT_LE_RENEW ? "renew-deadline"
                                             : "retry-period";
    int64_t ns;
    int64_t min_ns = opt == OPT_LE_LEASE ? 1000000000LL : 1000000LL;
    if (duration_parse(arg, &ns) < 0 || ns < min_ns || ns > 3600000000000LL) {
        fprintf(stderr,
                "ordo-scheduler: --leader-elect-%s: expected a duration "
                "from %s to 1h such as 15s or 1m30s, got \"%s\"\n",
                name, opt == OPT_LE_LEASE ? "1s" : "1ms", arg);
        return -1;
    }
    *(opt == OPT_LE_LEASE   ? &k->lease_ms
      : opt == OPT_LE_RENEW ? &k->renew_deadline_ms
                            : &k->retry_ms) = ns / 1000000;
    return 0;
}

/* "-v" last or before another option means -v 1 ("--list-plugins -v"):
 * getopt would take the next argument as its value, or fail at the end. */
static void bare_verbose(int argc, char **argv)
{
    static char one[] = "-v1";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return;
        if (strcmp(argv[i], "-v") != 0 && strcmp(argv[i], "--v") != 0)
            continue;
        const char *next = i + 1 < argc ? argv[i + 1] : "";
        if (next[0] == '\0' || (next[0] == '-' && next[1] != '\0'))
            argv[i] = one;
        else
            i++; /* its value */
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"version", no_argument, NULL, OPT_VERSION},
        {"list-plugins", no_argument, NULL, OPT_LIST_PLUGINS},
        {"plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR},
        {"validate", no_argument, NULL, OPT_VALIDATE},
        {"sim", no_argument, NULL, OPT_SIM},
        {"sim-until", required_argument, NULL, OPT_SIM_UNTIL},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"report", required_argument, NULL, OPT_REPORT},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"metrics-out", required_argument, NULL, OPT_METRICS_OUT},
        {"no-local-queue-metrics", no_argument, NULL, OPT_NO_LQ_METRICS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"sim-check", no_argument, NULL, OPT_SIM_CHECK},
        {"cycle-timeout", required_argument, NULL, OPT_CYCLE_TIMEOUT},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"explain", required_argument, NULL, OPT_EXPLAIN},
        {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
        {"context", required_argument, NULL, OPT_CONTEXT},
        {"cluster", no_argument, NULL, OPT_CLUSTER},
        {"no-workload-writes", no_argument, NULL, OPT_NO_WORKLOAD_WRITES},
        {"server", required_argument, NULL, OPT_SERVER},
        {"token", required_argument, NULL, OPT_TOKEN},
        {"certificate-authority", required_argument, NULL, OPT_CA_FILE},
        {"insecure-skip-tls-verify", no_argument, NULL, OPT_INSECURE},
        {"qps", required_argument, NULL, OPT_QPS},
        {"write-qps", required_argument, NULL, OPT_WRITE_QPS},
        {"write-burst", required_argument, NULL, OPT_WRITE_BURST},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"listen-cert", required_argument, NULL, OPT_LISTEN_CERT},
        {"listen-key", required_argument, NULL, OPT_LISTEN_KEY},
        {"listen-client-ca", required_argument, NULL, OPT_LISTEN_CLIENT_CA},
        {"listen-client-name", required_argument, NULL,
         OPT_LISTEN_CLIENT_NAME},
        {"webhook-listen", required_argument, NULL, OPT_WEBHOOK_LISTEN},
        {"webhook-cert", required_argument, NULL, OPT_WEBHOOK_CERT},
        {"webhook-key", required_argument, NULL, OPT_WEBHOOK_KEY},
        {"burst", required_argument, NULL, OPT_BURST},
        {"leader-elect", optional_argument, NULL, OPT_LEADER_ELECT},
        {"leader-elect-lease-duration", required_argument, NULL, OPT_LE_LEASE},
        {"leader-elect-renew-deadline", required_argument, NULL, OPT_LE_RENEW},
        {"leader-elect-retry-period", required_argument, NULL, OPT_LE_RETRY},
        {"leader-elect-resource-namespace", required_argument, NULL,
         OPT_LE_NAMESPACE},
        {"leader-elect-resource-name", required_argument, NULL, OPT_LE_NAME},
        {"v", required_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct options o = {0};
    o.sim_opt.until_idle = true;
    o.sim_opt.progress = true;
    o.kube_opt.evict_grace_seconds = -1;
    o.kube_opt.leader_elect = true; /* as kube-scheduler */
    o.kube_opt.lease_ms = 15000;
    o.kube_opt.renew_deadline_ms = 10000;
    o.kube_opt.retry_ms = 2000;
    static const char *explain[EXPLAIN_MAX]; /* --explain names */
    size_t n_explain = 0;
    int c;
    bare_verbose(argc, argv);
    while ((c = getopt_long(argc, argv, "hv:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_VERSION:
            o.version = true;
            break;
        case OPT_LIST_PLUGINS:
            o.list_plugins = true;
            break;
        case OPT_PLUGIN_DIR:
            if (o.n_plugin_dirs >= CONFIG_MAX_PLUGIN_DIRS) {
                fprintf(stderr, "ordo-scheduler: --plugin-dir: at most %d\n",
                        CONFIG_MAX_PLUGIN_DIRS);
                return 2;
            }
            o.plugin_dirs[o.n_plugin_dirs++] = optarg;
            break;
        case OPT_VALIDATE:
            o.validate = true;
            break;
        case OPT_SIM:
            o.sim = true;
            break;
        case OPT_SIM_UNTIL:
            if (strcmp(optarg, "idle") == 0) {
                o.sim_opt.until_idle = true;
            } else if (duration_parse(optarg, &o.sim_opt.until_ns) == 0) {
                o.sim_opt.until_idle = false;
            } else {
                fprintf(stderr,
                        "ordo-scheduler: --sim-until: expected \"idle\" or a "
                        "duration like \"2h30m\", got \"%s\"\n",
                        optarg);
                return 2;
            }
            break;
        case OPT_CONFIG:
            o.config = optarg;
            break;
        case OPT_REPORT:
            o.sim_opt.report = optarg;
            break;
        case OPT_PLOT:
            o.sim_opt.plot_dir = optarg;
            break;
        case OPT_NO_LQ_METRICS:
            o.sim_opt.no_local_queue_metrics = true;
            o.kube_opt.obs.no_local_queue_metrics = true;
            break;
        case OPT_METRICS_OUT:
            o.sim_opt.metrics_out = optarg;
            break;
        case OPT_NO_PROGRESS:
            o.sim_opt.progress = false;
            break;
        case OPT_SIM_CHECK:
            o.sim_opt.check = true;
            break;
        case OPT_STRICT:
            o.strict = true;
            o.sim_opt.strict = true;
            break;
        case OPT_CYCLE_TIMEOUT:
            if (strchr(optarg, '-') ||
                duration_parse(optarg, &o.cycle_timeout_ns) < 0) {
                fprintf(stderr,
                        "ordo-scheduler: --cycle-timeout: expected a duration "
                        "like \"30s\" (\"0s\": no watchdog), got \"%s\"\n",
                        optarg);
                return 2;
            }
            o.cycle_timeout_set = true;
            break;
        case OPT_EXPLAIN:
            /* The names point into argv, which outlives the run. */
            if (n_explain == EXPLAIN_MAX) {
                fprintf(stderr,
                        "ordo-scheduler: --explain: at most %d workloads\n",
                        EXPLAIN_MAX);
                return 2;
            }
            explain[n_explain++] = optarg;
            o.sim_opt.explain = explain;
            o.sim_opt.n_explain = n_explain;
            break;
        case OPT_KUBECONFIG:
            o.kube = true;
            o.kube_opt.kubeconfig = optarg;
            break;
        case OPT_CONTEXT:
            o.kube = true;
            o.kube_opt.context = optarg;
            break;
        case OPT_CLUSTER:
            o.kube = true;
            break;
        case OPT_NO_WORKLOAD_WRITES:
            o.kube_opt.no_workload_writes = true;
            break;
        case OPT_SERVER:
            o.kube = true;
            o.kube_opt.server = optarg;
            break;
        case OPT_TOKEN:
            o.kube_opt.token = optarg;
            break;
        case OPT_CA_FILE:
            o.kube_opt.ca_file = optarg;
            break;
        case OPT_INSECURE:
            o.kube_opt.insecure_skip_verify = true;
            break;
        case OPT_LISTEN:
            o.kube_opt.obs.listen = optarg;
            break;
        case OPT_LISTEN_CERT:
            o.kube_opt.obs.cert_file = optarg;
            break;
        case OPT_LISTEN_KEY:
            o.kube_opt.obs.key_file = optarg;
            break;
        case OPT_LISTEN_CLIENT_CA:
            o.kube_opt.obs.client_ca_file = optarg;
            break;
        case OPT_LISTEN_CLIENT_NAME:
            o.kube_opt.obs.client_names = optarg;
            break;
        case OPT_WEBHOOK_LISTEN:
            o.kube_opt.obs.webhook_listen = optarg;
            break;
        case OPT_WEBHOOK_CERT:
            o.kube_opt.obs.webhook_cert = optarg;
            break;
        case OPT_WEBHOOK_KEY:
            o.kube_opt.obs.webhook_key = optarg;
            break;
        case OPT_QPS:
        case OPT_BURST:
        case OPT_WRITE_QPS:
        case OPT_WRITE_BURST: {
            static const char *const names[] = {"qps", "burst", "write-qps",
                                                "write-burst"};
            uint32_t *dst[] = {&o.kube_opt.qps, &o.kube_opt.burst,
                               &o.kube_opt.write_qps, &o.kube_opt.write_burst};
            int i = c == OPT_QPS ? 0 : c == OPT_BURST ? 1 : c == OPT_WRITE_QPS ? 2 : 3;
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 1 || v > 100000) {
                fprintf(stderr,
                        "ordo-scheduler: --%s: expected 1 to 100000, got "
                        "\"%s\"\n",
                        names[i], optarg);
                return 2;
            }
            *dst[i] = (uint32_t)v;
            break;
        }
        case OPT_LEADER_ELECT:
            if (!optarg || !strcmp(optarg, "true"))
                o.kube_opt.leader_elect = true;
            else if (!strcmp(optarg, "false"))
                o.kube_opt.leader_elect = false;
            else {
                fprintf(stderr,
                        "ordo-scheduler: --leader-elect: expected true or "
                        "false, got \"%s\"\n",
                        optarg);
                return 2;
            }
            break;
        case OPT_LE_LEASE:
        case OPT_LE_RENEW:
        case OPT_LE_RETRY:
            if (leader_duration(c, optarg, &o.kube_opt) < 0)
                return 2;
            break;
        case OPT_LE_NAMESPACE:
            o.kube_opt.lease_namespace = optarg;
            break;
        case OPT_LE_NAME:
            o.kube_opt.lease_name = optarg;
            break;
        case 'v': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 0 || v > 10) {
                fprintf(stderr,
                        "ordo-scheduler: -v: expected 0 to 10, got \"%s\"\n",
                        optarg);
                return 2;
            }
            log_set_verbosity((int)v);
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (o.version) {
        printf("ordo-scheduler %s (plugin ABI %d.%d)\n", PACKAGE_VERSION,
               ORDO_ABI_MAJOR, ORDO_ABI_MINOR);
        return 0;
    }
    if (o.list_plugins)
        return list_plugins(&o);
    if (o.validate) {
        if (optind >= argc) {
            fprintf(stderr, "ordo-scheduler: --validate needs at least one "
                            "file or directory\n");
            return 2;
        }
        return validate(&o, argv + optind, argc - optind);
    }
    if (o.sim) {
        if (optind >= argc) {
            fprintf(stderr, "ordo-scheduler: --sim needs at least one "
                            "manifest file or directory\n");
            return 2;
        }
        return with_scheduler(&o, simulate, argv + optind, argc - optind);
    }
    if (o.kube) {
        if (optind < argc) {
            fprintf(stderr, "ordo-scheduler: unexpected argument \"%s\"\n",
                    argv[optind]);
            return 2;
        }
        const struct kube_daemon_options *k = &o.kube_opt;
        if (k->leader_elect && (k->renew_deadline_ms >= k->lease_ms ||
                                k->retry_ms >= k->renew_deadline_ms)) {
            fprintf(stderr, "ordo-scheduler: leader election needs "
                            "--leader-elect-lease-duration > "
                            "--leader-elect-renew-deadline > "
                            "--leader-elect-retry-period\n");
            return 2;
        }
        o.kube_opt.config_path = o.config;
        o.kube_opt.strict = o.strict;
        int rc = with_scheduler(&o, run_cluster, NULL, 0);
        if (rc == KUBE_DAEMON_RELOAD) {
            /* SIGHUP with a configuration that loads: the same program
             * and arguments again, everything rebuilt from the API. */
            fflush(NULL);
            execv("/proc/self/exe", argv);
            fprintf(stderr, "ordo-scheduler: SIGHUP: exec: %s\n",
                    strerror(errno));
            return 1;
        }
        return rc;
    }
    if (optind < argc) {
        fprintf(stderr, "ordo-scheduler: unexpected argument \"%s\"\n",
                argv[optind]);
        return 2;
    }
    usage(stderr);
    return 2;
}
