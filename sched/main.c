/* main.c - ordo-scheduler's command line: parses options and runs one mode.
 *
 * Modes: --version, --list-plugins (peek at plugin descriptors without
 * initialising them), --validate PATH... (decode manifests and report every
 * error and warning; --strict makes warnings errors), --sim PATH... (the
 * simulated cluster). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "duration.h"
#include "log.h"
#include "manifest.h"
#include "plugin_loader.h"
#include "host_table.h"
#include "plugins.h"
#include "resid.h"
#include "sched_config.h"
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
    OPT_NO_PROGRESS,
    OPT_SIM_CHECK,
    OPT_CYCLE_TIMEOUT,
    OPT_STRICT,
};

struct options {
    bool version;
    bool list_plugins;
    bool validate;
    bool sim;
    bool strict; /* --strict: manifest warnings are errors */
    const char *plugin_dir;
    const char *config;
    bool cycle_timeout_set; /* --cycle-timeout, over cycleTimeout */
    int64_t cycle_timeout_ns;
    struct sim_options sim_opt;
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: ordo-scheduler [OPTIONS] MODE\n"
            "\n"
            "Ordo, a batch scheduler for Kubernetes that reads Kueue's API.\n"
            "\n"
            "Modes:\n"
            "  --version             print the version and plugin ABI\n"
            "  --list-plugins        list the plugins found (name, kind, "
            "version, summary)\n"
            "  --validate PATH...    check manifests (files or directories) "
            "and report every\n"
            "                        error and warning (exit 1 on an error); "
            "with --config,\n"
            "                        the configuration file too\n"
            "  --sim PATH...         run the scheduler on a simulated cluster "
            "built from manifests\n"
            "\n"
            "Options:\n"
            "  --config FILE         scheduler configuration "
            "(SchedulerConfiguration YAML)\n"
            "  --plugin-dir DIR      where plugins are (default: %s)\n"
            "  --sim-until WHEN      idle (default: until nothing can change) "
            "or a virtual time (\"2h\")\n"
            "  --report FILE         write the simulation report "
            "(ordo.dev/sim-report/v1 JSON)\n"
            "  --plot DIR            write SVG plots of usage and a workload "
            "timeline\n"
            "  --strict              unknown or unsupported Kueue fields, older "
            "API versions\n"
            "                        and workloads Ordo does not schedule are "
            "errors, not\n"
            "                        warnings (--validate, --sim)\n"
            "  --no-progress         no progress bar\n"
            "  --sim-check           check invariants after every instant "
            "(exit 1 when one fails)\n"
            "  --cycle-timeout DUR   abort when a scheduling cycle runs longer "
            "(default:\n"
            "                        cycleTimeout of --config, 60s; 0s: "
            "never)\n"
            "  -v, --v N             log verbosity\n"
            "  -h, --help            this help\n",
            plugin_default_dir());
}

static int list_plugins(const char *dir)
{
    struct plugin_set set;
    struct err e;
    plugin_set_init(&set);
    int r = plugin_set_open_dir(&set, dir, &e);
    if (r < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        plugin_set_release(&set);
        return 1;
    }
    printf("%-24s %-8s %-9s %s\n", "NAME", "KIND", "VERSION", "SUMMARY");
    for (size_t i = 0; i < set.n; i++) {
        const struct ordo_plugin_descriptor *d = set.items[i].desc;
        printf("%-24s %-8s %-9s %s\n", d->name, plugin_kind_name(d->kind),
               d->version ? d->version : "-", d->summary ? d->summary : "");
    }
    if (set.n == 0)
        printf("(no plugins in %s)\n", dir);
    plugin_set_release(&set);
    return 0;
}

static void print_error(const struct err *e, void *userdata)
{
    fprintf(stderr, "%s\n", e->msg);
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
    size_t config_errors = 0;
    if (o->config) {
        struct sched_config cfg;
        struct err e;
        config_init_defaults(&cfg);
        if (config_load(&cfg, o->config, &e) < 0) {
            fprintf(stderr, "%s\n", e.msg);
            config_errors = 1;
        }
        config_release(&cfg);
    }
    manifest_set_init(&set);
    set.strict = o->strict;
    set.on_diag = print_diag;
    for (int i = 0; i < n; i++) {
        if (manifest_load_path(&set, paths[i], print_error, NULL) == -ENOMEM) {
            fprintf(stderr, "ordo-scheduler: out of memory\n");
            break;
        }
    }
    for (size_t i = 0; i < set.n; i++)
        by_kind[set.objects[i]->kind]++;
    printf("%zu objects", set.n);
    for (int k = 0; k < OBJ_KIND_MAX; k++)
        if (by_kind[k])
            printf(", %zu %s", by_kind[k], object_kind_name(k));
    printf("; %zu ignored (kinds Ordo does not read); %zu errors; %zu "
           "warnings\n",
           set.n_ignored, set.n_errors + config_errors, set.n_warnings);
    int rc = set.n_errors || config_errors ? 1 : 0;
    manifest_set_release(&set);
    return rc;
}

static int simulate(const struct options *o, char **paths, int n)
{
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct err e;
    const char *dir = o->plugin_dir ? o->plugin_dir : plugin_default_dir();
    int rc = 1;
    config_init_defaults(&cfg);
    if (o->config && config_load(&cfg, o->config, &e) < 0) {
        fprintf(stderr, "ordo-scheduler: --config: %s\n", e.msg);
        goto out;
    }
    if (plugins_start(&plugins, &cfg, dir, host_table(), &e) < 0) {
        fprintf(stderr, "ordo-scheduler: %s\n", e.msg);
        goto out;
    }
    int r = watchdog_start(o->cycle_timeout_set ? o->cycle_timeout_ns
                                                : cfg.cycle_timeout_ns);
    if (r < 0)
        fprintf(stderr, "ordo-scheduler: cycle watchdog: %s\n", strerror(-r));
    else
        rc = sim_run(&cfg, &plugins, paths, n, &o->sim_opt) < 0 ? 1 : 0;
    watchdog_stop();
    plugins_stop(&plugins);
out:
    config_release(&cfg);
    resid_reset();
    return rc;
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
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"sim-check", no_argument, NULL, OPT_SIM_CHECK},
        {"cycle-timeout", required_argument, NULL, OPT_CYCLE_TIMEOUT},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"v", required_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct options o = {0};
    o.sim_opt.until_idle = true;
    o.sim_opt.progress = true;
    int c;
    while ((c = getopt_long(argc, argv, "hv:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_VERSION:
            o.version = true;
            break;
        case OPT_LIST_PLUGINS:
            o.list_plugins = true;
            break;
        case OPT_PLUGIN_DIR:
            o.plugin_dir = optarg;
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
        return list_plugins(o.plugin_dir ? o.plugin_dir
                                         : plugin_default_dir());
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
        return simulate(&o, argv + optind, argc - optind);
    }
    if (optind < argc) {
        fprintf(stderr, "ordo-scheduler: unexpected argument \"%s\"\n",
                argv[optind]);
        return 2;
    }
    usage(stderr);
    return 2;
}
