/* test_abi.c - the plugin ABI rules of sched/plugin_loader.c, one test per
 * rule: each loads a fixture plugin from tests/abi/fixtures (built as
 * <name>.so into the directory named by ORDO_ABI_FIXTURES, by default
 * tests/abi/.libs) and checks the exact error the loader gives; then the
 * host table's renamed slots (old names still reach the same function),
 * what the host does with a failing init (sched/plugins.c) and the cycle
 * watchdog that outlives a hanging op (sched/watchdog.c). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ordo/plugin.h"
#include "plugin_loader.h"
#include "host_table.h"
#include "plugins.h"
#include "sched_config.h"
#include "watchdog.h"
#include "../unit/test_helpers.h"

/* Directory of the built fixtures, from ORDO_ABI_FIXTURES when set. */
static const char *fixture_dir(void)
{
    const char *d = getenv("ORDO_ABI_FIXTURES");
    return d && *d ? d : "tests/abi/.libs";
}

/* Writes the path of fixture `name` into buf (PATH_MAX bytes). */
static const char *fixture_path(char *buf, const char *name)
{
    int n = snprintf(buf, PATH_MAX, "%s/%s.so", fixture_dir(), name);
    assert_true(n > 0 && n < PATH_MAX);
    return buf;
}

/* Loads fixture `name` into s, asserting success, and returns its entry. */
static const struct loaded_plugin *load_ok(struct plugin_set *s,
                                           const char *name)
{
    char path[PATH_MAX];
    struct err e = {{0}};
    size_t before = s->n;
    int r = plugin_set_open(s, fixture_path(path, name), &e);
    if (r != 0)
        print_error("loading %s: %d: %s\n", path, r, e.msg);
    assert_int_equal(r, 0);
    assert_int_equal(s->n, before + 1);
    const struct loaded_plugin *lp = &s->items[s->n - 1];
    assert_string_equal(lp->path, path);
    assert_non_null(lp->handle);
    assert_non_null(lp->desc);
    return lp;
}

/* Loads fixture `name` into s and asserts that the loader refuses it with
 * -code and a message that names the file and contains each of the
 * NULL-terminated substrings; s must be left as it was. */
static void load_refused(struct plugin_set *s, const char *name, int code, ...)
{
    char path[PATH_MAX];
    struct err e = {{0}};
    size_t before = s->n;
    int r = plugin_set_open(s, fixture_path(path, name), &e);
    if (r != -code)
        print_error("loading %s: got %d, want %d: %s\n", path, r, -code, e.msg);
    assert_int_equal(r, -code);
    assert_int_equal(s->n, before);
    /* Every message starts with "path: ". */
    assert_int_equal(strncmp(e.msg, path, strlen(path)), 0);
    assert_int_equal(e.msg[strlen(path)], ':');
    va_list ap;
    va_start(ap, code);
    for (const char *want; (want = va_arg(ap, const char *));)
        assert_contains(e.msg, want);
    va_end(ap);
}

/* One fresh set per test, released by the teardown. */
static int set_setup(void **state)
{
    struct plugin_set *s = malloc(sizeof(*s));
    if (!s)
        return -1;
    plugin_set_init(s);
    *state = s;
    return 0;
}

static int set_teardown(void **state)
{
    plugin_set_release(*state);
    free(*state);
    return 0;
}

/* ---- valid plugins ------------------------------------------------------- */

static void test_good_queue(void **state)
{
    const struct loaded_plugin *lp = load_ok(*state, "good_queue");
    const struct ordo_plugin_descriptor *d = lp->desc;
    assert_int_equal(d->abi_major, ORDO_ABI_MAJOR);
    assert_int_equal(d->abi_minor, ORDO_ABI_MINOR);
    assert_int_equal(d->struct_size, sizeof(struct ordo_plugin_descriptor));
    assert_int_equal(d->kind, ORDO_PLUGIN_QUEUE);
    assert_string_equal(d->name, "fixture-good");
    assert_non_null(d->queue);
    assert_non_null(d->queue->less);
    assert_non_null(d->queue->on_not_admitted);
    assert_null(d->quota);
    assert_null(d->preempt);
    assert_null(d->place);
}

static void test_good_place(void **state)
{
    const struct loaded_plugin *lp = load_ok(*state, "good_place");
    const struct ordo_plugin_descriptor *d = lp->desc;
    assert_int_equal(d->kind, ORDO_PLUGIN_PLACE);
    assert_string_equal(d->name, "fixture-good-place");
    assert_null(d->fini);
    assert_non_null(d->place);
    assert_non_null(d->place->filter);
    assert_null(d->place->score); /* optional */
    assert_null(d->queue);
}

/* ---- one test per loader rule, in the loader's order --------------------- */

static void test_unresolved(void **state)
{
    load_refused(*state, "unresolved", ENOEXEC, "cannot load",
                 "ordo_fixture_undefined_function", NULL);
}

static void test_no_symbol(void **state)
{
    load_refused(*state, "no_symbol", ENOENT,
                 "not an Ordo plugin: no symbol \"ordo_plugin\"", NULL);
}

static void test_wrong_major(void **state)
{
    char want[128];
    snprintf(want, sizeof(want),
             "plugin ABI major %d, this ordo-scheduler speaks %d",
             ORDO_ABI_MAJOR + 1, ORDO_ABI_MAJOR);
    load_refused(*state, "wrong_major", EPROTO, want, NULL);
}

static void test_newer_minor(void **state)
{
    char want[128];
    snprintf(want, sizeof(want),
             "plugin needs ABI %d.%d, this ordo-scheduler provides %d.%d",
             ORDO_ABI_MAJOR, ORDO_ABI_MINOR + 1, ORDO_ABI_MAJOR,
             ORDO_ABI_MINOR);
    load_refused(*state, "newer_minor", EPROTO, want, NULL);
}

/* A plugin built for an older minor still loads on this host. */
static void test_older_minor(void **state)
{
    const struct loaded_plugin *lp = load_ok(*state, "older_minor");
    assert_int_equal(lp->desc->abi_minor, 0);
    assert_true(ORDO_ABI_MINOR > 0);
    assert_string_equal(lp->desc->name, "fixture-older-minor");
}

static void test_short_struct(void **state)
{
    char want[128];
    snprintf(want, sizeof(want), "descriptor is 12 bytes, ABI %d.%d needs",
             ORDO_ABI_MAJOR, ORDO_ABI_MINOR);
    load_refused(*state, "short_struct", EPROTO, want, NULL);
}

static void test_bad_kind(void **state)
{
    load_refused(*state, "bad_kind", EPROTO, "unknown plugin kind 99", NULL);
}

static void test_bad_name(void **state)
{
    load_refused(*state, "bad_name", EINVAL,
                 "plugin name must be 1-63 characters of [a-z0-9-]", NULL);
}

static void test_no_init(void **state)
{
    load_refused(*state, "no_init", EINVAL,
                 "plugin \"fixture-no-init\" (queue): init is required", NULL);
}

static void test_missing_op(void **state)
{
    load_refused(*state, "missing_op", EINVAL,
                 "plugin \"fixture-missing-op\" (queue): queue ops less and "
                 "on_not_admitted are required",
                 NULL);
}

static void test_two_tables(void **state)
{
    load_refused(*state, "two_tables", EINVAL,
                 "plugin \"fixture-two-tables\" (queue): only the op table "
                 "of its own kind may be set",
                 NULL);
}

static void test_duplicate_name(void **state)
{
    struct plugin_set *s = *state;
    const struct loaded_plugin *first = load_ok(s, "good_queue");
    char want[PATH_MAX + 64];
    snprintf(want, sizeof(want),
             "plugin name \"fixture-good\" is already used by %s", first->path);
    load_refused(s, "duplicate_name", EEXIST, want, NULL);
    /* The first plugin is still there and still usable. */
    assert_int_equal(s->n, 1);
    assert_string_equal(s->items[0].desc->name, "fixture-good");
    assert_string_equal(s->items[0].desc->version, "1.0.0");
}

/* A failing init is not a load error: the loader does not call init. The
 * rule that such a plugin stops startup is tested where plugins are
 * initialised; here we only check the fixture behaves as described. */
static void test_init_fails(void **state)
{
    const struct loaded_plugin *lp = load_ok(*state, "init_fails");
    assert_string_equal(lp->desc->name, "fixture-init-fails");
    void *self = &self; /* must be overwritten */
    assert_int_equal(lp->desc->init(NULL, NULL, &self), -EINVAL);
    assert_null(self);
}

/* ---- the rest of the loader's interface ---------------------------------- */

static void test_open_missing_file(void **state)
{
    struct plugin_set *s = *state;
    struct err e = {{0}};
    const char *path = "/nonexistent/ordo-abi-test/none.so";
    assert_int_equal(plugin_set_open(s, path, &e), -ENOEXEC);
    assert_int_equal(s->n, 0);
    assert_int_equal(strncmp(e.msg, path, strlen(path)), 0);
    assert_contains(e.msg, ": cannot load: ");
}

/* Links the named fixtures into a fresh temporary directory. */
static void make_dir_of(char *dir, size_t size, const char *const *names,
                        size_t n)
{
    char abs[PATH_MAX];
    assert_non_null(realpath(fixture_dir(), abs));
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, size, "%s/ordo-abi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < n; i++) {
        char from[PATH_MAX + 64], to[PATH_MAX + 64];
        snprintf(from, sizeof(from), "%s/%s.so", abs, names[i]);
        snprintf(to, sizeof(to), "%s/%s.so", dir, names[i]);
        assert_int_equal(symlink(from, to), 0);
    }
}

static void remove_dir_of(const char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char to[PATH_MAX + 64];
        snprintf(to, sizeof(to), "%s/%s.so", dir, names[i]);
        assert_int_equal(unlink(to), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

static void test_open_dir_name_order(void **state)
{
    struct plugin_set *s = *state;
    /* Listed out of order on purpose: the loader sorts by file name. */
    static const char *const names[] = {"good_queue", "good_place"};
    char dir[PATH_MAX];
    make_dir_of(dir, sizeof(dir), names, 2);

    struct err e = {{0}};
    int r = plugin_set_open_dir(s, dir, &e);
    /* Loaded objects stay mapped: clean up before anything can fail. */
    remove_dir_of(dir, names, 2);
    if (r != 0)
        print_error("%s\n", e.msg);
    assert_int_equal(r, 0);
    assert_int_equal(s->n, 2);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof(want), "%s/good_place.so", dir);
    assert_string_equal(s->items[0].path, want);
    assert_string_equal(s->items[0].desc->name, "fixture-good-place");
    snprintf(want, sizeof(want), "%s/good_queue.so", dir);
    assert_string_equal(s->items[1].path, want);
    assert_string_equal(s->items[1].desc->name, "fixture-good");
}

/* ---- plugins others could have written ------------------------------- */

/* Copies fixture `name` to DIR/name.so in a fresh directory of mode
 * dir_mode, the file of mode file_mode; the path into file. */
static void copy_fixture(char *dir, char *file, const char *name,
                         mode_t dir_mode, mode_t file_mode)
{
    char from[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, PATH_MAX, "%s/ordo-abi-perm-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(file, PATH_MAX + 64, "%s/%s.so", dir, name);
    FILE *in = fopen(fixture_path(from, name), "rb");
    FILE *out = fopen(file, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(chmod(file, file_mode), 0);
    assert_int_equal(chmod(dir, dir_mode), 0);
}

static void remove_copy(const char *dir, const char *file)
{
    assert_int_equal(chmod(dir, 0700), 0);
    assert_int_equal(unlink(file), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Tries file; -want (0: success) and, on failure, a message naming the file
 * with `text`. */
static void open_copy(struct plugin_set *s, const char *dir, const char *file,
                      int want, const char *text)
{
    struct err e = {{0}};
    int r = plugin_set_open(s, file, &e);
    remove_copy(dir, file);
    if (r != -want)
        print_error("%s: got %d, want %d: %s\n", file, r, -want, e.msg);
    assert_int_equal(r, -want);
    if (want) {
        assert_int_equal(strncmp(e.msg, file, strlen(file)), 0);
        assert_contains(e.msg, text);
    }
}

static void test_refuses_world_writable_file(void **state)
{
    char dir[PATH_MAX], file[PATH_MAX + 64];
    copy_fixture(dir, file, "good_queue", 0700, 0666);
    open_copy(*state, dir, file, EPERM,
              ": refused: the file is world-writable");
    assert_int_equal(((struct plugin_set *)*state)->n, 0);
}

static void test_refuses_open_directory(void **state)
{
    char dir[PATH_MAX], file[PATH_MAX + 64];
    copy_fixture(dir, file, "good_queue", 0777, 0644);
    open_copy(*state, dir, file, EPERM,
              "is world-writable without the sticky bit");
}

/* World-writable with the sticky bit (as /tmp): others cannot replace our
 * own file, so it loads; the same file made world-writable does not. */
static void test_sticky_directory_own_file(void **state)
{
    char dir[PATH_MAX], file[PATH_MAX + 64];
    copy_fixture(dir, file, "good_queue", 01777, 0644);
    open_copy(*state, dir, file, 0, NULL);
    assert_int_equal(((struct plugin_set *)*state)->n, 1);
    plugin_set_release(*state);
    copy_fixture(dir, file, "good_queue", 01777, 0646);
    open_copy(*state, dir, file, EPERM, "world-writable (mode 0646");
}

static void test_release_null(void **state)
{
    plugin_set_release(NULL);
    /* Releasing twice is safe too: release leaves an empty set. */
    struct plugin_set *s = *state;
    load_ok(s, "good_queue");
    plugin_set_release(s);
    assert_int_equal(s->n, 0);
    assert_null(s->items);
    plugin_set_release(s);
}

/* ---- renamed host slots ------------------------------------------------- */

/* The what-if slots were sim_remove / sim_restore up to ABI 1.3: the old
 * names are aliases of the new ones, the same slots at the same offsets,
 * so a plugin built or written against 1.3 reaches the host's what-ifs
 * through either. */
static void test_whatif_aliases(void **state)
{
    (void)state;
    const struct ordo_host *h = host_table();
    const size_t slot = sizeof(h->whatif_remove);
    assert_non_null(h->whatif_remove);
    assert_non_null(h->whatif_restore);
    assert_true(h->sim_remove == h->whatif_remove);
    assert_true(h->sim_restore == h->whatif_restore);
    assert_true(h->whatif_remove != h->whatif_restore);
    assert_int_equal(offsetof(struct ordo_host, sim_remove),
                     offsetof(struct ordo_host, whatif_remove));
    assert_int_equal(offsetof(struct ordo_host, sim_restore),
                     offsetof(struct ordo_host, whatif_restore));
    /* One pointer each, between the slots that surround them in 1.3:
     * nothing after them moved. */
    assert_int_equal(offsetof(struct ordo_host, whatif_remove),
                     offsetof(struct ordo_host, cq_over_nominal_for) + slot);
    assert_int_equal(offsetof(struct ordo_host, whatif_restore),
                     offsetof(struct ordo_host, whatif_remove) + slot);
    assert_int_equal(offsetof(struct ordo_host, preemptor_fits),
                     offsetof(struct ordo_host, whatif_restore) + slot);
}

/* ---- initialisation (plugins.c) ----------------------------------------- */

/* Starts the plugins of the default configuration, with fixture `name` as
 * the StrictFIFO QUEUE plugin (the first one initialised), from a directory
 * holding only it; returns plugins_start's result, its message in e. */
static int start_with_queue(const char *name, const char *plugin, struct err *e)
{
    static const char *names[1];
    names[0] = name;
    char dir[PATH_MAX];
    make_dir_of(dir, sizeof(dir), names, 1);
    struct sched_config cfg;
    config_init_defaults(&cfg);
    cfg.queue_strict_fifo = plugin;
    struct plugin_registry r;
    int rc = plugins_start(&r, &cfg, dir, host_table(), e);
    if (rc == 0)
        plugins_stop(&r);
    remove_dir_of(dir, names, 1);
    return rc;
}

static void test_init_errno_reported(void **state)
{
    (void)state;
    struct err e = {{0}};
    assert_int_equal(start_with_queue("init_fails", "fixture-init-fails", &e),
                     -EINVAL);
    assert_contains(e.msg, "plugins.queue.strictFIFO: plugin "
                           "\"fixture-init-fails\" (");
    assert_contains(e.msg, "init_fails.so) failed to initialise: Invalid "
                           "argument");
}

/* INT_MIN cannot be negated: reported as what it is, with EINVAL. */
static void test_init_int_min(void **state)
{
    (void)state;
    struct err e = {{0}};
    assert_int_equal(
        start_with_queue("init_int_min", "fixture-init-int-min", &e), -EINVAL);
    assert_contains(e.msg, "plugins.queue.strictFIFO: plugin "
                           "\"fixture-init-int-min\" (");
    char want[128];
    snprintf(want, sizeof(want),
             "failed to initialise: init returned %d, not a negative errno",
             INT_MIN);
    assert_contains(e.msg, want);
}

/* ---- the cycle watchdog (watchdog.c) ------------------------------------- */

#define WD_TIMEOUT_NS (200LL * 1000000) /* 200ms */

/* What a child does under the watchdog. */
enum wd_case {
    WD_IN_OP,    /* spins inside a marked op */
    WD_IN_HOST,  /* spins in a cycle, no op marked */
    WD_DISARMED, /* a cycle ends, then the process idles past the timeout */
    WD_OFF       /* started with 0: spins in a cycle, never stopped */
};

/* Spins (or idles) for about ms milliseconds of wall time. */
static void wd_wait(long ms, bool busy)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        if (!busy) {
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL); /* EINTR from a late expiry is fine */
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000 +
                 (now.tv_nsec - start.tv_nsec) / 1000000 <
             ms);
}

static void wd_child(enum wd_case c)
{
    if (watchdog_start(c == WD_OFF ? 0 : WD_TIMEOUT_NS) < 0)
        _exit(3);
    struct watchdog_mark m, inner;
    watchdog_arm();
    switch (c) {
    case WD_IN_OP:
        watchdog_enter(&m, "fixture-spin", "less");
        watchdog_enter(&inner, "fixture-inner", "filter");
        watchdog_leave(&inner); /* back to the outer op */
        for (;;)
            wd_wait(1000, true);
    case WD_IN_HOST:
        for (;;)
            wd_wait(1000, true);
    case WD_DISARMED:
        watchdog_disarm();
        wd_wait(3 * WD_TIMEOUT_NS / 1000000, false);
        break;
    case WD_OFF:
        wd_wait(3 * WD_TIMEOUT_NS / 1000000, true);
        break;
    }
    watchdog_stop();
    _exit(0);
}

/* Runs case c in a child with stderr into buf; returns its wait status. A
 * child still running after a minute is killed (a hang, not a slow run). */
static int wd_run(enum wd_case c, char *buf, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        wd_child(c);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < size && (n = read(fds[0], buf + len, size - len - 1)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    close(fds[0]);
    int status = 0;
    for (int i = 0; i < 6000; i++) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        assert_true(w >= 0);
        if (w == pid)
            return status;
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    fail_msg("watchdog case %d: child still running after a minute", c);
    return status;
}

static void test_watchdog_names_op(void **state)
{
    (void)state;
    char out[1024];
    int status = wd_run(WD_IN_OP, out, sizeof(out));
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    assert_contains(out, "ordo-scheduler: watchdog: a scheduling cycle ran "
                         "longer than 0.2s (cycleTimeout): plugin "
                         "fixture-spin op less is running; aborting\n");
}

static void test_watchdog_host_stuck(void **state)
{
    (void)state;
    char out[1024];
    int status = wd_run(WD_IN_HOST, out, sizeof(out));
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    assert_contains(out, "cycleTimeout): no plugin op running (the host is "
                         "stuck); aborting\n");
}

static void test_watchdog_quiet(void **state)
{
    (void)state;
    char out[1024];
    /* A cycle that ended in time, then a long idle: no abort. */
    int status = wd_run(WD_DISARMED, out, sizeof(out));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(out, "");
    /* 0 turns it off. */
    status = wd_run(WD_OFF, out, sizeof(out));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(out, "");
    /* Marks nest and unwind; nothing is left after the last leave. */
    struct watchdog_mark a, b;
    assert_null(watchdog_current);
    watchdog_enter(&a, "p", "init");
    watchdog_enter(&b, "q", "fini");
    assert_ptr_equal(watchdog_current, &b);
    watchdog_leave(&b);
    assert_ptr_equal(watchdog_current, &a);
    watchdog_leave(&a);
    assert_null(watchdog_current);
}

/* ---- ABI 1.4: declared arguments, the search path, the clock ------------ */

/* Starts the plugins of configuration yaml (strictFIFO: the fixture's
 * plugin) from a directory holding only fixture `name`, then the built-in
 * directory; on success the
 * registry stays started in *r (the caller stops it) and cfg loaded. */
static int start_yaml(const char *name, const char *yaml,
                      struct sched_config *cfg, struct plugin_registry *r,
                      struct err *e)
{
    static const char *names[1];
    names[0] = name;
    char dir[PATH_MAX];
    make_dir_of(dir, sizeof(dir), names, 1);
    int rc = config_load_buffer(cfg, yaml, strlen(yaml), "test.yaml", e);
    assert_int_equal(rc, 0);
    /* The fixture's directory, then the built-in plugins (quota, place). */
    struct plugin_path path;
    const char *dirs[] = {dir};
    assert_int_equal(
        plugins_search_path(dirs, 1, cfg, ORDO_BUILD_PLUGIN_DIR, &path, e), 0);
    rc = plugins_start_path(r, cfg, &path, host_table(), e);
    plugin_path_release(&path);
    remove_dir_of(dir, names, 1);
    return rc;
}

#define YAML_HEAD                                                              \
    "apiVersion: ordo.dev/v1alpha1\n"                                          \
    "kind: SchedulerConfiguration\n"                                           \
    "plugins:\n"                                                               \
    "  queue: {strictFIFO: %s, bestEffortFIFO: %s}\n"                          \
    "pluginConfig:\n"                                                          \
    "- name: %s\n"                                                             \
    "  args: %s\n"

/* Runs start_yaml for plugin `plugin` of fixture `name` with args (a flow
 * map), and stops the plugins again. */
static int start_args(const char *name, const char *plugin, const char *args,
                      struct err *e)
{
    char yaml[1024];
    snprintf(yaml, sizeof(yaml), YAML_HEAD, plugin, plugin, plugin, args);
    struct sched_config cfg;
    struct plugin_registry r;
    int rc = start_yaml(name, yaml, &cfg, &r, e);
    if (rc == 0)
        plugins_stop(&r);
    config_release(&cfg);
    return rc;
}

/* A 1.3 plugin (1.3 descriptor size, no declarations) still loads, and
 * takes any argument: the host does not read past its descriptor. */
static void test_abi13_plugin_loads(void **state)
{
    struct plugin_set *s = *state;
    const struct loaded_plugin *lp = load_ok(s, "abi13_queue");
    uint32_t n = 7;
    assert_null(plugin_declared_args(lp->desc, &n));
    assert_int_equal(n, 0);
    struct err e = {{0}};
    int rc =
        start_args("abi13_queue", "fixture-abi13", "{anything: 5, x: y}", &e);
    if (rc)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, 0);
    /* A wrong type still reaches its init, which says no, as before. */
    assert_int_equal(
        start_args("abi13_queue", "fixture-abi13", "{anything: [1]}", &e),
        -EINVAL);
    assert_contains(e.msg, "failed to initialise");
}

/* A 1.4 plugin's declared arguments, read through the real host's
 * getters. */
static void test_declared_args_getters(void **state)
{
    (void)state;
    char yaml[1024];
    snprintf(yaml, sizeof(yaml), YAML_HEAD, "fixture-args", "fixture-args",
             "fixture-args",
             "{limit: 7, mode: slow, size: 1500m, wait: 1m30s, "
             "enabled: false, names: [a, b, c]}");
    struct sched_config cfg;
    struct plugin_registry r;
    struct err e = {{0}};
    int rc = start_yaml("args_queue", yaml, &cfg, &r, &e);
    if (rc)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, 0);
    const struct ordo_host *h = host_table();
    const struct ordo_plugin *p = r.queue_strict;
    int64_t v;
    bool b;
    const char *str, *list[2];
    uint32_t n;
    assert_int_equal(h->config_int(p, "limit", 0, &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(h->config_string(p, "mode", "", &str), 0);
    assert_string_equal(str, "slow");
    assert_int_equal(h->config_quantity(p, "size", 0, &v), 0);
    assert_int_equal(v, 1500);
    assert_int_equal(h->config_duration(p, "wait", 0, &v), 0);
    assert_int_equal(v, 90LL * 1000000000);
    assert_int_equal(h->config_bool(p, "enabled", true, &b), 0);
    assert_false(b);
    /* Two of three fit in ret; the count says three. */
    assert_int_equal(h->config_list(p, "names", list, 2, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(list[0], "a");
    assert_string_equal(list[1], "b");
    /* Absent: the defaults. */
    assert_int_equal(h->config_quantity(p, "absent", 42, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(h->config_list(p, "absent", list, 2, &n), 0);
    assert_int_equal(n, 0);
    /* Read with the wrong getter: -EINVAL, the default kept. */
    assert_int_equal(h->config_duration(p, "mode", 5, &v), -EINVAL);
    assert_int_equal(v, 5);
    assert_int_equal(h->config_bool(p, "limit", true, &b), -EINVAL);
    assert_int_equal(h->config_list(p, "mode", list, 2, &n), -EINVAL);
    plugins_stop(&r);
    config_release(&cfg);
}

static void test_undeclared_arg_refused(void **state)
{
    (void)state;
    struct err e = {{0}};
    assert_int_equal(start_args("args_queue", "fixture-args", "{limti: 7}", &e),
                     -EINVAL);
    assert_contains(e.msg, "test.yaml:7: pluginConfig[0].args.limti: plugin "
                           "\"fixture-args\" has no argument \"limti\" "
                           "(did you mean \"limit\"?)");
    assert_contains(e.msg, "it takes: limit, mode, size, wait, enabled, names");
    /* Nothing close: no suggestion. */
    assert_int_equal(
        start_args("args_queue", "fixture-args", "{colour: red}", &e), -EINVAL);
    assert_contains(e.msg, "has no argument \"colour\" (it takes:");
}

static void test_wrong_type_refused(void **state)
{
    (void)state;
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"{limit: many}", "argument \"limit\" must be an integer, got "
                          "\"many\""},
        {"{size: 2GB}", "argument \"size\" must be a quantity"},
        {"{wait: soon}", "argument \"wait\" must be a duration"},
        {"{enabled: maybe}", "argument \"enabled\" must be a boolean"},
        {"{names: a}", "argument \"names\" must be a list of strings, got "
                       "\"a\""},
        {"{names: [[x]]}", "must be a list of strings, got a list"},
        {"{mode: {a: b}}", "argument \"mode\" must be a string, got a map"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e = {{0}};
        assert_int_equal(
            start_args("args_queue", "fixture-args", cases[i].args, &e),
            -EINVAL);
        assert_contains(e.msg, "plugin \"fixture-args\": ");
        assert_contains(e.msg, cases[i].want);
    }
    /* null is an absent argument. */
    struct err e = {{0}};
    assert_int_equal(
        start_args("args_queue", "fixture-args", "{wait: null}", &e), 0);
}

static void test_bad_arg_default(void **state)
{
    load_refused(*state, "bad_arg_default", EINVAL,
                 "plugin \"fixture-bad-arg-default\" (queue): argument "
                 "\"wait\": default \"soon\" is not a duration",
                 NULL);
}

/* Two directories with a plugin of the same name: the first wins. */
static void test_search_path_first_wins(void **state)
{
    struct plugin_set *s = *state;
    static const char *const names[] = {"good_queue"};
    char first[PATH_MAX], second[PATH_MAX];
    make_dir_of(first, sizeof(first), names, 1);
    make_dir_of(second, sizeof(second), names, 1);
    const char *dirs[] = {first, second};
    struct err e = {{0}};
    int r = plugin_set_open_path(s, dirs, 2, &e);
    remove_dir_of(first, names, 1);
    remove_dir_of(second, names, 1);
    assert_int_equal(r, 0);
    assert_int_equal(s->n, 1);
    assert_int_equal(strncmp(s->items[0].path, first, strlen(first)), 0);
}

static void test_search_path_order(void **state)
{
    (void)state;
    const char *yaml = "apiVersion: ordo.dev/v1alpha1\n"
                       "kind: SchedulerConfiguration\n"
                       "pluginDirs: [rel, /abs, /cli]\n";
    struct sched_config cfg;
    struct plugin_path path;
    struct err e = {{0}};
    assert_int_equal(config_load_buffer(&cfg, yaml, strlen(yaml),
                                        "/etc/ordo/config.yaml", &e),
                     0);
    const char *cli[] = {"/cli", "/cli2"};
    assert_int_equal(plugins_search_path(cli, 2, &cfg, "/builtin", &path, &e),
                     0);
    /* --plugin-dir first, then pluginDirs (relative to the file, /cli
     * only once), then the built-in directory. */
    assert_int_equal(path.n, 5);
    assert_string_equal(path.dirs[0], "/cli");
    assert_string_equal(path.dirs[1], "/cli2");
    assert_string_equal(path.dirs[2], "/etc/ordo/rel");
    assert_string_equal(path.dirs[3], "/abs");
    assert_string_equal(path.dirs[4], "/builtin");
    plugin_path_release(&path);
    cfg.builtin_plugin_dir = false;
    assert_int_equal(plugins_search_path(NULL, 0, &cfg, "/builtin", &path, &e),
                     0);
    assert_int_equal(path.n, 3);
    assert_string_equal(path.dirs[2], "/cli");
    plugin_path_release(&path);
    plugin_path_release(NULL);
    config_release(&cfg);
}

/* host->now answers the clock a scheduler gives the instances, and notes
 * that the plugin reads it. */
static void test_now_is_the_schedulers_clock(void **state)
{
    (void)state;
    struct sched_config cfg;
    struct plugin_registry r;
    struct err e = {{0}};
    char yaml[512];
    snprintf(yaml, sizeof(yaml), YAML_HEAD, "fixture-args", "fixture-args",
             "fixture-args", "{}");
    assert_int_equal(start_yaml("args_queue", yaml, &cfg, &r, &e), 0);
    int64_t clock = 1234567;
    assert_false(r.queue_strict->reads_clock);
    plugins_set_clock(&r, &clock);
    assert_int_equal(host_table()->now(r.queue_strict), 1234567);
    clock += 1000;
    assert_int_equal(host_table()->now(r.queue_strict), 1235567);
    assert_true(r.queue_strict->reads_clock);
    plugins_stop(&r);
    config_release(&cfg);
}

/* The 1.4 slots come after every 1.3 slot: nothing before them moved. */
static void test_abi14_appended(void **state)
{
    (void)state;
    const struct ordo_host *h = host_table();
    assert_int_equal(h->abi_minor, 4);
    assert_int_equal(h->struct_size, sizeof(struct ordo_host));
    assert_true(offsetof(struct ordo_host, config_quantity) >
                offsetof(struct ordo_host, ps_flavor_mismatch));
    assert_int_equal(offsetof(struct ordo_plugin_descriptor, args),
                     offsetof(struct ordo_plugin_descriptor, place) +
                         sizeof(void *));
    /* Every slot is set. */
    const void *const *slot = (const void *const *)&h->config_quantity;
    const void *const *end = (const void *const *)(h + 1);
    for (; slot < end; slot++)
        assert_non_null(*slot);
}

/* Each test gets a fresh plugin set in *state. */
#define ABI_TEST(f) cmocka_unit_test_setup_teardown(f, set_setup, set_teardown)

int main(void)
{
    /* One per line: the valid plugins, then the rules in the order the
     * loader checks them, then the rest of its interface. */
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        ABI_TEST(test_good_queue),
        ABI_TEST(test_good_place),
        ABI_TEST(test_unresolved),
        ABI_TEST(test_no_symbol),
        ABI_TEST(test_wrong_major),
        ABI_TEST(test_newer_minor),
        ABI_TEST(test_older_minor),
        ABI_TEST(test_short_struct),
        ABI_TEST(test_bad_kind),
        ABI_TEST(test_bad_name),
        ABI_TEST(test_no_init),
        ABI_TEST(test_missing_op),
        ABI_TEST(test_two_tables),
        ABI_TEST(test_duplicate_name),
        ABI_TEST(test_init_fails),
        ABI_TEST(test_open_missing_file),
        ABI_TEST(test_open_dir_name_order),
        ABI_TEST(test_refuses_world_writable_file),
        ABI_TEST(test_refuses_open_directory),
        ABI_TEST(test_sticky_directory_own_file),
        ABI_TEST(test_release_null),
        ABI_TEST(test_abi13_plugin_loads),
        ABI_TEST(test_bad_arg_default),
        ABI_TEST(test_search_path_first_wins),
        cmocka_unit_test(test_declared_args_getters),
        cmocka_unit_test(test_undeclared_arg_refused),
        cmocka_unit_test(test_wrong_type_refused),
        cmocka_unit_test(test_search_path_order),
        cmocka_unit_test(test_now_is_the_schedulers_clock),
        cmocka_unit_test(test_abi14_appended),
        cmocka_unit_test(test_whatif_aliases),
        cmocka_unit_test(test_init_errno_reported),
        cmocka_unit_test(test_init_int_min),
        cmocka_unit_test(test_watchdog_names_op),
        cmocka_unit_test(test_watchdog_host_stuck),
        cmocka_unit_test(test_watchdog_quiet),
    };
    /* clang-format on */
    return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
