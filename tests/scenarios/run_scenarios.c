/* run_scenarios.c - scenario tests: small clusters run on the simulator and
 * checked against what Kueue's and Kubernetes' rules say must happen.
 *
 * Every directory under ORDO_SCENARIOS (default tests/scenarios) is one
 * scenario and one cmocka test, in name order:
 *
 *   <name>/input/       the manifests (what a user would kubectl apply)
 *   <name>/config.yaml  optional: passed as --config
 *   <name>/plugin-dir   optional: a directory of the build tree
 *                       (ORDO_BUILDDIR/<line>), passed as --plugin-dir
 *   <name>/expect.yaml  what the report must say (see README.md)
 *
 * The test runs ORDO_SCHEDULER --sim <name>/input --report TMP --no-progress
 * [--config ...] [--sim-until ...], requires exit status 0, reads the report
 * (json-c) and expect.yaml (core/doc.h), checks every field expect.yaml
 * lists and the invariants every report must satisfy, and prints one line
 * per mismatch ("scenario X: workload a/b: state: want admitted, got
 * pending (reason: ...)"). Unknown keys in expect.yaml are errors, so that
 * a typo cannot pass silently.
 *
 * A scenario named in KNOWN_FAILURES ("name  reason", one a line) that
 * fails is reported as skipped; one that passes fails, so that the list is
 * cleaned up when the bug is fixed.
 *
 * Arguments, when given, are the names of the scenarios to run. Environment:
 * ORDO_SCHEDULER (required), ORDO_SCENARIOS, ORDO_SCENARIO_TIMEOUT (seconds
 * per run, default 120), ORDO_SCENARIOS_KEEP (keep the report and log of
 * every run and print where they are). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "doc.h"
#include "duration.h"
#include "err.h"
#include "manifest.h"
#include "objects.h"
#include "quantity.h"

extern char **environ;

#define REPORT_SCHEMA "ordo.dev/sim-report/v1"
#define MSG_MAX       2048

struct scenario {
    char *name;
    char *dir;
    char *known; /* reason from KNOWN_FAILURES, or NULL */
};

/* One scenario's run: where its files are and how many checks failed. */
struct run {
    const struct scenario *sc;
    const char *expect_path;
    unsigned failures;
};

static const char *scenarios_root(void)
{
    const char *d = getenv("ORDO_SCENARIOS");
    return d && *d ? d : "tests/scenarios";
}

__attribute__((format(printf, 2, 3))) static void fail_at(struct run *r,
                                                          const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    print_error("scenario %s: %s\n", r->sc->name, msg);
    r->failures++;
}

/* ---- small helpers ------------------------------------------------------ */

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whole file as a NUL-terminated string (NULL when unreadable). */
static char *read_text(const char *path, size_t *ret_len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (len + 1 < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[len] = '\0';
        if (ret_len)
            *ret_len = len;
    }
    return buf;
}

/* ms as the report writes seconds: "1800", "12.5". */
static const char *fmt_secs(int64_t ms, char buf[32])
{
    uint64_t mag = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    int len = snprintf(buf, 32, "%s%" PRIu64, ms < 0 ? "-" : "", mag / 1000);
    if (mag % 1000) {
        snprintf(buf + len, 32 - (size_t)len, ".%03" PRIu64, mag % 1000);
        char *end = buf + strlen(buf) - 1;
        while (*end == '0')
            *end-- = '\0';
    }
    return buf;
}

/* A time of expect.yaml in ms: seconds ("1800", "12.5", at most three
 * decimals) or a Go duration ("30m", "1h30m"). */
static bool expect_time_ms(const struct doc_node *n, int64_t *ret)
{
    const char *s;
    if (!n || n->type != DOC_SCALAR || doc_get_string(n, &s) < 0 || !*s)
        return false;
    const char *p = s;
    int64_t whole = 0, frac = 0;
    int digits = 0, fdigits = 0;
    while (*p >= '0' && *p <= '9' && digits < 15) {
        whole = whole * 10 + (*p++ - '0');
        digits++;
    }
    if (digits && *p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && fdigits < 3) {
            frac = frac * 10 + (*p++ - '0');
            fdigits++;
        }
        if (!fdigits)
            return false;
        for (int i = fdigits; i < 3; i++)
            frac *= 10;
    }
    if (digits && *p == '\0') {
        *ret = whole * 1000 + frac;
        return true;
    }
    int64_t ns;
    if (duration_parse(s, &ns) < 0 || ns % 1000000 != 0)
        return false;
    *ret = ns / 1000000;
    return true;
}

/* A report time (seconds, integer or decimal) in ms. */
static bool report_time_ms(struct json_object *v, int64_t *ret)
{
    if (json_object_is_type(v, json_type_int)) {
        *ret = json_object_get_int64(v) * 1000;
        return true;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v) * 1000.0;
        *ret = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
        return true;
    }
    return false;
}

/* key's value in a JSON object; *ret_present tells an absent key from a
 * null value (both give NULL). */
static struct json_object *jget(struct json_object *o, const char *key,
                                bool *ret_present)
{
    struct json_object *v = NULL;
    bool present = o && json_object_is_type(o, json_type_object) &&
                   json_object_object_get_ex(o, key, &v);
    if (ret_present)
        *ret_present = present;
    return present ? v : NULL;
}

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v = jget(o, key, NULL);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                    : NULL;
}

/* A JSON value for messages: strings quoted, null as null. */
static const char *jtext(struct json_object *v)
{
    if (!v)
        return "null";
    return json_object_to_json_string_ext(
        v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static bool key_allowed(const char *key, const char *const *allowed)
{
    for (size_t i = 0; allowed[i]; i++)
        if (strcmp(key, allowed[i]) == 0)
            return true;
    return false;
}

/* Fails for each key of map not in allowed; true when all are. */
static bool check_keys(struct run *r, const struct doc_node *map,
                       const char *where, const char *const *allowed)
{
    bool ok = true;
    for (size_t i = 0; i < map->n; i++) {
        if (key_allowed(map->keys[i], allowed))
            continue;
        char list[512] = "";
        for (size_t k = 0; allowed[k]; k++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                     k ? ", " : "", allowed[k]);
        fail_at(r, "%s:%u: %s: unknown key \"%s\" (known: %s)", r->expect_path,
                map->items[i]->line, where, map->keys[i], list);
        ok = false;
    }
    return ok;
}

static bool want_map(struct run *r, const struct doc_node *n, const char *where)
{
    if (n && n->type == DOC_MAP)
        return true;
    fail_at(r, "%s:%u: %s: must be a map, got %s", r->expect_path,
            n ? n->line : 0, where, doc_type_name(n));
    return false;
}

/* ---- the report --------------------------------------------------------- */

static struct json_object *report_workload(struct json_object *report,
                                           const char *name, size_t *ret_index)
{
    struct json_object *arr = jget(report, "workloads", NULL);
    size_t n = json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *w = json_object_array_get_idx(arr, i);
        const char *wn = jstr(w, "name");
        if (wn && strcmp(wn, name) == 0) {
            if (ret_index)
                *ret_index = i;
            return w;
        }
    }
    return NULL;
}

static struct json_object *report_cq(struct json_object *report,
                                     const char *name)
{
    struct json_object *arr = jget(report, "clusterQueues", NULL);
    size_t n = json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *q = json_object_array_get_idx(arr, i);
        const char *qn = jstr(q, "name");
        if (qn && strcmp(qn, name) == 0)
            return q;
    }
    return NULL;
}

static struct json_object *report_podset(struct json_object *w,
                                         const char *name)
{
    struct json_object *arr = jget(w, "podSets", NULL);
    size_t n = json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *ps = json_object_array_get_idx(arr, i);
        const char *pn = jstr(ps, "name");
        if (pn && strcmp(pn, name) == 0)
            return ps;
    }
    return NULL;
}

/* "main, workers": names of the pod sets, for messages. */
static const char *podset_names(struct json_object *w, char *buf, size_t size)
{
    struct json_object *arr = jget(w, "podSets", NULL);
    size_t n = json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr)
                   : 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *pn = jstr(json_object_array_get_idx(arr, i), "name");
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", i ? ", " : "", pn ? pn : "?");
    }
    return buf;
}

/* ---- workload fields ---------------------------------------------------- */

/* A string field (or null). substring: reason matches when it contains the
 * expected text. */
static void check_string(struct run *r, const char *wl, const char *field,
                         const struct doc_node *want, struct json_object *w,
                         bool substring)
{
    bool present;
    struct json_object *got = jget(w, field, &present);
    const char *reason = jstr(w, "reason");
    char extra[400] = "";
    if (reason && strcmp(field, "reason") != 0)
        snprintf(extra, sizeof(extra), " (reason: %s)", reason);
    if (!present) {
        fail_at(r, "workload %s: %s: not in the report", wl, field);
        return;
    }
    if (doc_is_null(want) && !want->quoted) {
        if (got)
            fail_at(r, "workload %s: %s: want null, got %s%s", wl, field,
                    json_object_is_type(got, json_type_string)
                        ? json_object_get_string(got)
                        : jtext(got),
                    extra);
        return;
    }
    const char *s;
    if (want->type != DOC_SCALAR || doc_get_string(want, &s) < 0) {
        fail_at(r, "%s:%u: workload %s: %s: must be a string or null, got %s",
                r->expect_path, want->line, wl, field, doc_type_name(want));
        return;
    }
    const char *g = json_object_is_type(got, json_type_string)
                        ? json_object_get_string(got)
                        : NULL;
    bool ok = g && (substring ? strstr(g, s) != NULL : strcmp(g, s) == 0);
    if (!ok)
        fail_at(r, "workload %s: %s: want %s%s, got %s%s", wl, field,
                substring ? "text containing " : "", s, g ? g : jtext(got),
                extra);
}

static void check_int(struct run *r, const char *wl, const char *field,
                      const struct doc_node *want, struct json_object *w)
{
    int64_t v;
    if (doc_get_int64(want, &v) < 0) {
        fail_at(r, "%s:%u: workload %s: %s: must be an integer, got %s",
                r->expect_path, want->line, wl, field, doc_type_name(want));
        return;
    }
    struct json_object *got = jget(w, field, NULL);
    if (!json_object_is_type(got, json_type_int) ||
        json_object_get_int64(got) != v)
        fail_at(r, "workload %s: %s: want %" PRId64 ", got %s", wl, field, v,
                jtext(got));
}

static void check_time(struct run *r, const char *wl, const char *field,
                       const struct doc_node *want, struct json_object *w)
{
    bool present;
    struct json_object *got = jget(w, field, &present);
    int64_t want_ms, got_ms;
    char a[32], b[32];
    const char *reason = jstr(w, "reason");
    char extra[400] = "";
    if (reason)
        snprintf(extra, sizeof(extra), " (state %s, reason: %s)",
                 jstr(w, "state") ? jstr(w, "state") : "?", reason);
    if (!present) {
        fail_at(r, "workload %s: %s: not in the report", wl, field);
        return;
    }
    if (doc_is_null(want) && !want->quoted) {
        if (got && report_time_ms(got, &got_ms))
            fail_at(r, "workload %s: %s: want null, got %s", wl, field,
                    fmt_secs(got_ms, b));
        else if (got)
            fail_at(r, "workload %s: %s: want null, got %s", wl, field,
                    jtext(got));
        return;
    }
    if (!expect_time_ms(want, &want_ms)) {
        fail_at(r,
                "%s:%u: workload %s: %s: want seconds (1800, 12.5), a "
                "duration (\"30m\") or null",
                r->expect_path, want->line, wl, field);
        return;
    }
    if (!got || !report_time_ms(got, &got_ms)) {
        fail_at(r, "workload %s: %s: want %s, got %s%s", wl, field,
                fmt_secs(want_ms, a), jtext(got), extra);
        return;
    }
    if (got_ms != want_ms)
        fail_at(r, "workload %s: %s: want %s, got %s%s", wl, field,
                fmt_secs(want_ms, a), fmt_secs(got_ms, b), extra);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "[n1, n1]" from n strings. */
static const char *list_text(const char *const *v, size_t n, char *buf,
                             size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                v[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
    return buf;
}

/* nodes: {podset: [node, ...]}: the same nodes, in any order. */
static void check_nodes(struct run *r, const char *wl, const char *ps,
                        const struct doc_node *want, struct json_object *pso)
{
    if (!want || want->type != DOC_SEQ) {
        fail_at(r,
                "%s:%u: workload %s: nodes.%s: must be a list of node "
                "names",
                r->expect_path, want ? want->line : 0, wl, ps);
        return;
    }
    struct json_object *arr = jget(pso, "nodes", NULL);
    size_t ng = json_object_is_type(arr, json_type_array)
                    ? json_object_array_length(arr)
                    : 0;
    const char **w = calloc(want->n + 1, sizeof(*w));
    const char **g = calloc(ng + 1, sizeof(*g));
    const char **ws = calloc(want->n + 1, sizeof(*ws));
    const char **gs = calloc(ng + 1, sizeof(*gs));
    if (!w || !g || !ws || !gs) {
        fail_at(r, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < want->n; i++) {
        const struct doc_node *it = want->items[i];
        if (it->type != DOC_SCALAR || doc_get_string(it, &w[i]) < 0) {
            fail_at(r,
                    "%s:%u: workload %s: nodes.%s[%zu]: must be a node "
                    "name",
                    r->expect_path, it->line, wl, ps, i);
            goto out;
        }
        ws[i] = w[i];
    }
    for (size_t i = 0; i < ng; i++) {
        const char *s =
            json_object_get_string(json_object_array_get_idx(arr, i));
        g[i] = gs[i] = s ? s : "";
    }
    qsort(ws, want->n, sizeof(*ws), cmp_str);
    qsort(gs, ng, sizeof(*gs), cmp_str);
    bool same = ng == want->n;
    for (size_t i = 0; same && i < ng; i++)
        same = strcmp(ws[i], gs[i]) == 0;
    if (!same) {
        char a[700], b[700];
        fail_at(r, "workload %s: nodes.%s: want %s, got %s (any order)", wl, ps,
                list_text(w, want->n, a, sizeof(a)),
                list_text(g, ng, b, sizeof(b)));
    }
out:
    free(w);
    free(g);
    free(ws);
    free(gs);
}

/* flavors: {podset: {resource: flavor}}: the listed resources. */
static void check_flavors(struct run *r, const char *wl, const char *ps,
                          const struct doc_node *want, struct json_object *pso)
{
    char where[300];
    snprintf(where, sizeof(where), "workload %s: flavors.%s", wl, ps);
    if (!want_map(r, want, where))
        return;
    struct json_object *fl = jget(pso, "flavors", NULL);
    for (size_t i = 0; i < want->n; i++) {
        const char *res = want->keys[i], *f;
        if (want->items[i]->type != DOC_SCALAR ||
            doc_get_string(want->items[i], &f) < 0) {
            fail_at(r, "%s:%u: %s.%s: must be a flavor name", r->expect_path,
                    want->items[i]->line, where, res);
            continue;
        }
        const char *got = jstr(fl, res);
        if (!got || strcmp(got, f) != 0)
            fail_at(r, "%s.%s: want %s, got %s (pod set flavors: %s)", where,
                    res, f, got ? got : "none", jtext(fl));
    }
}

static void check_count(struct run *r, const char *wl, const char *ps,
                        const struct doc_node *want, struct json_object *pso)
{
    int64_t v;
    if (doc_get_int64(want, &v) < 0) {
        fail_at(r, "%s:%u: workload %s: count.%s: must be an integer",
                r->expect_path, want->line, wl, ps);
        return;
    }
    struct json_object *got = jget(pso, "count", NULL);
    if (!json_object_is_type(got, json_type_int) ||
        json_object_get_int64(got) != v)
        fail_at(r, "workload %s: count.%s: want %" PRId64 ", got %s", wl, ps, v,
                jtext(got));
}

/* count / nodes / flavors: a map by pod set name. */
static void check_podsets(struct run *r, const char *wl, const char *field,
                          const struct doc_node *want, struct json_object *w)
{
    char where[300];
    snprintf(where, sizeof(where), "workload %s: %s", wl, field);
    if (!want_map(r, want, where))
        return;
    for (size_t i = 0; i < want->n; i++) {
        const char *ps = want->keys[i];
        struct json_object *pso = report_podset(w, ps);
        if (!pso) {
            char names[300];
            fail_at(r, "workload %s: %s.%s: no pod set \"%s\" (pod sets: %s)",
                    wl, field, ps, ps, podset_names(w, names, sizeof(names)));
            continue;
        }
        if (strcmp(field, "nodes") == 0)
            check_nodes(r, wl, ps, want->items[i], pso);
        else if (strcmp(field, "flavors") == 0)
            check_flavors(r, wl, ps, want->items[i], pso);
        else
            check_count(r, wl, ps, want->items[i], pso);
    }
}

static void check_workload(struct run *r, struct json_object *report,
                           const char *wl, const struct doc_node *want)
{
    static const char *const keys[] = {
        "absent",     "state",     "kind",   "localQueue", "clusterQueue",
        "priority",   "evictions", "reason", "createdAt",  "admittedAt",
        "finishedAt", "count",     "nodes",  "flavors",    "lastEviction",
        "preemptedBy", "preemptionReason", NULL};
    char where[300];
    snprintf(where, sizeof(where), "workloads.%s", wl);
    if (!want_map(r, want, where))
        return;
    check_keys(r, want, where, keys);
    struct json_object *w = report_workload(report, wl, NULL);
    const struct doc_node *absent = doc_map_get(want, "absent");
    if (absent) {
        bool v;
        if (doc_get_bool(absent, &v) < 0) {
            fail_at(r, "%s:%u: %s.absent: must be true or false",
                    r->expect_path, absent->line, where);
            return;
        }
        if (v && want->n > 1) {
            fail_at(r, "%s:%u: %s: absent: true takes no other fields",
                    r->expect_path, absent->line, where);
            return;
        }
        if (v) {
            if (w)
                fail_at(r,
                        "workload %s: want no such workload in the report, "
                        "got one in state %s",
                        wl, jstr(w, "state") ? jstr(w, "state") : "?");
            return;
        }
    }
    if (!w) {
        fail_at(r, "workload %s: not in the report", wl);
        return;
    }
    for (size_t i = 0; i < want->n; i++) {
        const char *k = want->keys[i];
        const struct doc_node *v = want->items[i];
        if (strcmp(k, "absent") == 0 || !key_allowed(k, keys))
            continue;
        if (strcmp(k, "priority") == 0 || strcmp(k, "evictions") == 0)
            check_int(r, wl, k, v, w);
        else if (strcmp(k, "createdAt") == 0 || strcmp(k, "admittedAt") == 0 ||
                 strcmp(k, "finishedAt") == 0)
            check_time(r, wl, k, v, w);
        else if (strcmp(k, "count") == 0 || strcmp(k, "nodes") == 0 ||
                 strcmp(k, "flavors") == 0)
            check_podsets(r, wl, k, v, w);
        else
            check_string(r, wl, k, v, w,
                         strcmp(k, "reason") == 0 ||
                             strcmp(k, "lastEviction") == 0);
    }
}

/* ---- ClusterQueues ------------------------------------------------------ */

static void check_usage(struct run *r, const char *cq,
                        const struct doc_node *want, struct json_object *q)
{
    char where[300];
    snprintf(where, sizeof(where), "clusterQueues.%s.usage", cq);
    if (!want_map(r, want, where))
        return;
    struct json_object *usage = jget(q, "usage", NULL);
    for (size_t i = 0; i < want->n; i++) {
        const char *flavor = want->keys[i];
        const struct doc_node *res = want->items[i];
        char fwhere[400];
        snprintf(fwhere, sizeof(fwhere), "%s.%s", where, flavor);
        if (!want_map(r, res, fwhere))
            continue;
        struct json_object *fo = jget(usage, flavor, NULL);
        if (!fo) {
            fail_at(r, "clusterQueue %s: usage: no flavor %s (usage: %s)", cq,
                    flavor, jtext(usage));
            continue;
        }
        for (size_t k = 0; k < res->n; k++) {
            const char *rname = res->keys[k], *ws, *why = NULL;
            struct quantity wq, gq;
            if (res->items[k]->type != DOC_SCALAR ||
                doc_get_string(res->items[k], &ws) < 0 ||
                quantity_parse(ws, &wq, &why) < 0) {
                fail_at(r, "%s:%u: %s.%s: not a quantity%s%s", r->expect_path,
                        res->items[k]->line, fwhere, rname, why ? ": " : "",
                        why ? why : "");
                continue;
            }
            const char *gs = jstr(fo, rname);
            if (!gs || quantity_parse(gs, &gq, NULL) < 0) {
                fail_at(r, "clusterQueue %s: usage.%s.%s: want %s, got %s", cq,
                        flavor, rname, ws, gs ? gs : "none");
                continue;
            }
            if (gq.milli != wq.milli)
                fail_at(r, "clusterQueue %s: usage.%s.%s: want %s, got %s", cq,
                        flavor, rname, ws, gs);
        }
    }
}

static void check_cq(struct run *r, struct json_object *report, const char *cq,
                     const struct doc_node *want)
{
    static const char *const keys[] = {"pending", "admitted", "usage", NULL};
    char where[300];
    snprintf(where, sizeof(where), "clusterQueues.%s", cq);
    if (!want_map(r, want, where))
        return;
    check_keys(r, want, where, keys);
    struct json_object *q = report_cq(report, cq);
    if (!q) {
        fail_at(r, "clusterQueue %s: not in the report", cq);
        return;
    }
    for (size_t i = 0; i < want->n; i++) {
        const char *k = want->keys[i];
        const struct doc_node *v = want->items[i];
        if (!key_allowed(k, keys))
            continue;
        if (strcmp(k, "usage") == 0) {
            check_usage(r, cq, v, q);
            continue;
        }
        int64_t n;
        if (doc_get_int64(v, &n) < 0) {
            fail_at(r, "%s:%u: %s.%s: must be an integer", r->expect_path,
                    v->line, where, k);
            continue;
        }
        struct json_object *got = jget(q, k, NULL);
        if (!json_object_is_type(got, json_type_int) ||
            json_object_get_int64(got) != n)
            fail_at(r, "clusterQueue %s: %s: want %" PRId64 ", got %s", cq, k,
                    n, jtext(got));
    }
}

/* ---- admission order ---------------------------------------------------- */

struct admitted_at {
    const char *name;
    int64_t ms;
    size_t index; /* in the report */
};

static int cmp_admitted(const void *a, const void *b)
{
    const struct admitted_at *x = a, *y = b;
    if (x->ms != y->ms)
        return x->ms < y->ms ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void check_order(struct run *r, struct json_object *report,
                        const struct doc_node *want)
{
    if (!want || want->type != DOC_SEQ) {
        fail_at(r, "%s:%u: order: must be a list of workload names",
                r->expect_path, want ? want->line : 0);
        return;
    }
    struct admitted_at *v = calloc(want->n + 1, sizeof(*v));
    const char **names = calloc(want->n + 1, sizeof(*names));
    const char **got = calloc(want->n + 1, sizeof(*got));
    bool ok = v && names && got;
    if (!ok)
        fail_at(r, "out of memory");
    for (size_t i = 0; ok && i < want->n; i++) {
        const struct doc_node *it = want->items[i];
        if (it->type != DOC_SCALAR || doc_get_string(it, &names[i]) < 0) {
            fail_at(r, "%s:%u: order[%zu]: must be a workload name",
                    r->expect_path, it->line, i);
            ok = false;
            break;
        }
        size_t index = 0;
        struct json_object *w = report_workload(report, names[i], &index);
        struct json_object *at = jget(w, "admittedAt", NULL);
        if (!w) {
            fail_at(r, "order: workload %s: not in the report", names[i]);
            ok = false;
        } else if (!at || !report_time_ms(at, &v[i].ms)) {
            fail_at(r, "order: workload %s: never admitted (state %s%s%s)",
                    names[i], jstr(w, "state") ? jstr(w, "state") : "?",
                    jstr(w, "reason") ? ", reason: " : "",
                    jstr(w, "reason") ? jstr(w, "reason") : "");
            ok = false;
        }
        v[i].name = names[i];
        v[i].index = index;
    }
    if (ok) {
        qsort(v, want->n, sizeof(*v), cmp_admitted);
        bool same = true;
        for (size_t i = 0; i < want->n; i++) {
            got[i] = v[i].name;
            same &= strcmp(got[i], names[i]) == 0;
        }
        if (!same) {
            char a[1000], b[1000], times[1000] = "";
            for (size_t i = 0; i < want->n; i++) {
                char s[32];
                size_t len = strlen(times);
                snprintf(times + len, sizeof(times) - len, "%s%s=%s",
                         i ? ", " : "", v[i].name, fmt_secs(v[i].ms, s));
            }
            fail_at(r, "order: want %s, got %s (admittedAt: %s)",
                    list_text(names, want->n, a, sizeof(a)),
                    list_text(got, want->n, b, sizeof(b)), times);
        }
    }
    free(v);
    free(names);
    free(got);
}

/* ---- invariants of every report ----------------------------------------- */

static void manifest_error(const struct err *e, void *userdata)
{
    struct run *r = userdata;
    fail_at(r, "input: %s", e->msg);
}

/* No ClusterQueue outside a cohort uses more than its nominal quota of any
 * (flavor, resource): nominal quotas come from the input manifests. */
static void check_nominal(struct run *r, struct json_object *report,
                          const char *input)
{
    struct manifest_set set;
    manifest_set_init(&set);
    manifest_load_path(&set, input, manifest_error, r);
    for (size_t i = 0; i < set.n; i++) {
        const struct object *o = set.objects[i];
        if (o->kind != OBJ_CLUSTER_QUEUE || o->u.cluster_queue.cohort_name)
            continue;
        struct json_object *q = report_cq(report, o->meta.name);
        struct json_object *usage = jget(q, "usage", NULL);
        const struct cluster_queue *cq = &o->u.cluster_queue;
        for (size_t g = 0; q && g < cq->n_resource_groups; g++) {
            const struct resource_group *rg = &cq->resource_groups[g];
            for (size_t f = 0; f < rg->n_flavors; f++) {
                const struct flavor_quotas *fq = &rg->flavors[f];
                struct json_object *fo = jget(usage, fq->name, NULL);
                for (size_t k = 0; k < fq->n_resources && k < rg->n_covered;
                     k++) {
                    const char *res = rg->covered_resources[k];
                    const char *gs = jstr(fo, res);
                    struct quantity used;
                    if (!gs || quantity_parse(gs, &used, NULL) < 0) {
                        fail_at(r,
                                "invariant: clusterQueue %s: usage.%s.%s: "
                                "missing or not a quantity (%s)",
                                o->meta.name, fq->name, res, gs ? gs : "none");
                        continue;
                    }
                    int64_t nominal = fq->resources[k].nominal_quota;
                    if (used.milli < 0 || used.milli > nominal) {
                        char nb[QUANTITY_STR_MAX];
                        struct quantity nq = {nominal, used.format};
                        quantity_format(&nq, nb, sizeof(nb));
                        fail_at(
                            r,
                            "invariant: clusterQueue %s: usage.%s.%s is %s, "
                            "outside [0, nominal quota %s]",
                            o->meta.name, fq->name, res, gs, nb);
                    }
                }
            }
        }
    }
    manifest_set_release(&set);
}

static size_t jlen(struct json_object *arr)
{
    return json_object_is_type(arr, json_type_array)
               ? json_object_array_length(arr)
               : 0;
}

/* 0 <= createdAt <= admittedAt <= finishedAt <= endTime, for the times a
 * workload has: all are on the virtual clock. */
static void check_times(struct run *r, struct json_object *w, const char *name,
                        int64_t end_ms)
{
    static const char *const keys[] = {"createdAt", "admittedAt", "finishedAt"};
    int64_t prev = 0;
    const char *prev_key = "the start";
    for (size_t i = 0; i < 3; i++) {
        struct json_object *v = jget(w, keys[i], NULL);
        int64_t ms;
        if (!v)
            continue;
        char a[32], b[32];
        if (!report_time_ms(v, &ms)) {
            fail_at(r, "invariant: workload %s: %s: not a time: %s", name,
                    keys[i], jtext(v));
            continue;
        }
        if (ms < prev)
            fail_at(r, "invariant: workload %s: %s %s is before %s (%s)", name,
                    keys[i], fmt_secs(ms, a), prev_key, fmt_secs(prev, b));
        if (ms > end_ms)
            fail_at(r, "invariant: workload %s: %s %s is after endTime %s",
                    name, keys[i], fmt_secs(ms, a), fmt_secs(end_ms, b));
        prev = ms;
        prev_key = keys[i];
    }
}

/* Admission periods: each has a ClusterQueue and its admission time; one
 * that ended ended at or after it, evicted or finished; every period that
 * ended finished was placed whole first (gangs are bound whole); the last
 * period of an admitted workload is open. */
static void check_admissions(struct run *r, struct json_object *w)
{
    const char *name = jstr(w, "name") ? jstr(w, "name") : "?";
    const char *state = jstr(w, "state") ? jstr(w, "state") : "";
    struct json_object *adms = jget(w, "admissions", NULL);
    if (!json_object_is_type(adms, json_type_array)) {
        fail_at(r, "invariant: workload %s: no admissions list", name);
        return;
    }
    size_t n = jlen(adms);
    for (size_t k = 0; k < n; k++) {
        struct json_object *a = json_object_array_get_idx(adms, k);
        const char *end = jstr(a, "end");
        int64_t t0 = 0, t1 = 0;
        if (!jstr(a, "cq") || !report_time_ms(jget(a, "admitted", NULL), &t0))
            fail_at(r,
                    "invariant: workload %s: admission %zu: no cq or "
                    "admitted time",
                    name, k);
        if (end && (!report_time_ms(jget(a, "ended", NULL), &t1) || t1 < t0))
            fail_at(r,
                    "invariant: workload %s: admission %zu: ended %s "
                    "before it was admitted",
                    name, k, jtext(jget(a, "ended", NULL)));
        if (end && strcmp(end, "finished") == 0 && !jget(a, "placed", NULL))
            fail_at(r,
                    "invariant: workload %s: admission %zu finished "
                    "without all its pods placed (gangs are bound whole)",
                    name, k);
        if (!end && k + 1 < n)
            fail_at(r,
                    "invariant: workload %s: admission %zu is open but "
                    "not the last",
                    name, k);
    }
    if (strcmp(state, "admitted") == 0 &&
        (n == 0 || jstr(json_object_array_get_idx(adms, n - 1), "end") != NULL))
        fail_at(r,
                "invariant: workload %s: admitted, but its last admission "
                "period is not open",
                name);
}

/* What holds for every report: a workload's times agree with its state
 * and with each other; a gang is bound whole (an admitted workload has
 * every pod of each pod set on a node, at least count of them with a Job
 * that runs in waves; a finished one's admissions were placed before they
 * finished) or not at all (a workload never admitted has no pod on a node);
 * ClusterQueue counters agree with the workloads; no ClusterQueue is over
 * its nominal quota. */
static void check_invariants(struct run *r, struct json_object *report,
                             const char *input)
{
    const char *schema = jstr(report, "schema");
    if (!schema || strcmp(schema, REPORT_SCHEMA) != 0)
        fail_at(r, "invariant: schema: want %s, got %s", REPORT_SCHEMA,
                jtext(jget(report, "schema", NULL)));
    int64_t end_ms = INT64_MAX;
    if (!report_time_ms(jget(report, "endTime", NULL), &end_ms))
        fail_at(r, "invariant: endTime: not a time: %s",
                jtext(jget(report, "endTime", NULL)));
    struct json_object *wls = jget(report, "workloads", NULL);
    for (size_t i = 0; i < jlen(wls); i++) {
        struct json_object *w = json_object_array_get_idx(wls, i);
        const char *name = jstr(w, "name") ? jstr(w, "name") : "?";
        const char *state = jstr(w, "state") ? jstr(w, "state") : "";
        bool pending = strcmp(state, "pending") == 0;
        bool admitted = strcmp(state, "admitted") == 0;
        bool finished = strcmp(state, "finished") == 0;
        struct json_object *ev = jget(w, "evictions", NULL);
        bool evicted = json_object_get_int64(ev) > 0;
        bool has_adm = jget(w, "admittedAt", NULL) != NULL;
        bool has_fin = jget(w, "finishedAt", NULL) != NULL;
        if (!pending && !admitted && !finished)
            fail_at(r, "invariant: workload %s: unknown state \"%s\"", name,
                    state);
        if ((admitted || finished) && !has_adm)
            fail_at(r, "invariant: workload %s: %s without admittedAt", name,
                    state);
        if (finished != has_fin)
            fail_at(r, "invariant: workload %s: state %s with finishedAt %s",
                    name, state, jtext(jget(w, "finishedAt", NULL)));
        if (pending && !evicted && has_adm)
            fail_at(r,
                    "invariant: workload %s: pending and never evicted, but "
                    "admittedAt is %s",
                    name, jtext(jget(w, "admittedAt", NULL)));
        check_times(r, w, name, end_ms);
        struct json_object *pss = jget(w, "podSets", NULL);
        for (size_t k = 0; k < jlen(pss); k++) {
            struct json_object *ps = json_object_array_get_idx(pss, k);
            const char *psn = jstr(ps, "name") ? jstr(ps, "name") : "?";
            int64_t count = json_object_get_int64(jget(ps, "count", NULL));
            size_t nodes = jlen(jget(ps, "nodes", NULL));
            /* Nodes are where the pods are now: an admitted gang has them
             * all; a finished one's may be gone (evicted, deleted), so its
             * admission periods say it was placed whole. */
            if (admitted && (int64_t)nodes < count)
                fail_at(r,
                        "invariant: workload %s: %s with %zu of %" PRId64
                        " pods of pod set %s on nodes (gangs are bound whole)",
                        name, state, nodes, count, psn);
            if (pending && !evicted && nodes > 0)
                fail_at(r,
                        "invariant: workload %s: never admitted, but %zu "
                        "pods of pod set %s are on nodes (%s)",
                        name, nodes, psn, jtext(jget(ps, "nodes", NULL)));
        }
    }
    for (size_t i = 0; i < jlen(wls); i++)
        check_admissions(r, json_object_array_get_idx(wls, i));
    struct json_object *cqs = jget(report, "clusterQueues", NULL);
    for (size_t i = 0; i < jlen(cqs); i++) {
        struct json_object *q = json_object_array_get_idx(cqs, i);
        const char *name = jstr(q, "name") ? jstr(q, "name") : "?";
        int64_t pending = 0, admitted = 0;
        for (size_t k = 0; k < jlen(wls); k++) {
            struct json_object *w = json_object_array_get_idx(wls, k);
            const char *wq = jstr(w, "clusterQueue"), *st = jstr(w, "state");
            if (!wq || !st || strcmp(wq, name) != 0)
                continue;
            pending += strcmp(st, "pending") == 0;
            admitted += strcmp(st, "admitted") == 0;
        }
        int64_t rp = json_object_get_int64(jget(q, "pending", NULL));
        int64_t ra = json_object_get_int64(jget(q, "admitted", NULL));
        if (rp != pending || ra != admitted)
            fail_at(r,
                    "invariant: clusterQueue %s: pending %" PRId64
                    ", admitted %" PRId64 ", but its workloads say %" PRId64
                    " and %" PRId64,
                    name, rp, ra, pending, admitted);
    }
    check_nominal(r, report, input);
}

/* ---- running the simulator ---------------------------------------------- */

static void print_log(const char *path)
{
    size_t len = 0;
    char *text = read_text(path, &len);
    if (!text)
        return;
    const char *start = len > 4000 ? text + len - 4000 : text;
    print_error("---- ordo-scheduler output%s ----\n%s%s---- end ----\n",
                start != text ? " (last 4000 bytes)" : "", start,
                len && text[len - 1] != '\n' ? "\n" : "");
    free(text);
}

/* Runs argv with stdout and stderr into log; true when it exited 0. */
static bool run_sim(struct run *r, char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        fail_at(r, "posix_spawn_file_actions_init failed");
        return false;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        fail_at(r, "cannot run %s: %s", argv[0], strerror(e));
        return false;
    }
    const char *t = getenv("ORDO_SCENARIO_TIMEOUT");
    long limit_ms = (t && atol(t) > 0 ? atol(t) : 120) * 1000L;
    int status = 0;
    long waited = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            fail_at(r, "waitpid: %s", strerror(errno));
            return false;
        }
        if (waited >= limit_ms) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_at(r, "ordo-scheduler ran over %ld s (ORDO_SCENARIO_TIMEOUT)",
                    limit_ms / 1000);
            print_log(log);
            return false;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited += 5;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (WIFEXITED(status))
        fail_at(r, "ordo-scheduler exited with status %d", WEXITSTATUS(status));
    else
        fail_at(r, "ordo-scheduler was killed by signal %d",
                WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    print_log(log);
    return false;
}

/* expect.yaml starts with a comment that says what the scenario shows. */
static void check_header_comment(struct run *r)
{
    char *text = read_text(r->expect_path, NULL);
    if (!text)
        return; /* doc_load_file reports it */
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '#')
        fail_at(r,
                "%s: must start with a comment (# ...) that says what the "
                "scenario shows",
                r->expect_path);
    free(text);
}

/* Reads <name>/plugin-dir (one line, a path relative to ORDO_BUILDDIR)
 * into buf as an absolute path; "" when the file is absent. false after
 * failing the run. */
static bool plugin_dir_arg(struct run *r, const struct scenario *sc, char *buf,
                           size_t size)
{
    char *file = path_join(sc->dir, "plugin-dir");
    char line[1024] = "";
    buf[0] = '\0';
    if (!file) {
        fail_at(r, "out of memory");
        return false;
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        free(file);
        return true;
    }
    bool ok = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    const char *build = getenv("ORDO_BUILDDIR");
    if (!ok || !line[0] || line[0] == '/')
        fail_at(r, "%s: must hold one path relative to the build tree", file);
    else if (!build || !*build)
        fail_at(r, "%s: ORDO_BUILDDIR is not set (top of the build tree)",
                file);
    else
        snprintf(buf, size, "%s/%s", build, line);
    free(file);
    return buf[0] != '\0';
}

static void run_scenario(struct run *r)
{
    static const char *const top_keys[] = {
        "until", "endTime", "workloads", "clusterQueues", "order", NULL};
    const struct scenario *sc = r->sc;
    const char *bin = getenv("ORDO_SCHEDULER");
    char *expect = path_join(sc->dir, "expect.yaml");
    char *input = path_join(sc->dir, "input");
    char *config = path_join(sc->dir, "config.yaml");
    char tmpdir[4096] = "", *report_path = NULL, *log_path = NULL;
    struct doc *doc = NULL;
    struct json_object *report = NULL;
    struct err e;
    r->expect_path = expect;
    if (!expect || !input || !config) {
        fail_at(r, "out of memory");
        goto out;
    }
    if (!bin || !*bin) {
        fail_at(r, "ORDO_SCHEDULER is not set (path of ordo-scheduler)");
        goto out;
    }
    if (!is_dir(input)) {
        fail_at(r, "%s: no such directory", input);
        goto out;
    }
    if (doc_load_file(expect, &doc, &e) < 0) {
        fail_at(r, "%s", e.msg);
        goto out;
    }
    check_header_comment(r);
    if (doc->n_docs != 1 || doc->docs[0]->type != DOC_MAP) {
        fail_at(r, "%s: must hold exactly one document, a map", expect);
        goto out;
    }
    const struct doc_node *root = doc->docs[0];
    check_keys(r, root, "expect.yaml", top_keys);
    const struct doc_node *until = doc_map_get(root, "until");
    const char *until_s = NULL;
    if (until &&
        (until->type != DOC_SCALAR || doc_get_string(until, &until_s) < 0)) {
        fail_at(r, "%s:%u: until: must be a duration like 2h", expect,
                until->line);
        goto out;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/ordo-scenario-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fail_at(r, "mkdtemp %s: %s", tmpdir, strerror(errno));
        tmpdir[0] = '\0';
        goto out;
    }
    report_path = path_join(tmpdir, "report.json");
    log_path = path_join(tmpdir, "sim.log");
    if (!report_path || !log_path) {
        fail_at(r, "out of memory");
        goto out;
    }
    char *argv[14], plugin_dir[4096];
    int argc = 0;
    argv[argc++] = (char *)bin;
    argv[argc++] = "--sim";
    argv[argc++] = input;
    argv[argc++] = "--report";
    argv[argc++] = report_path;
    argv[argc++] = "--no-progress";
    /* Every scenario also checks the scheduler's invariants at every
     * instant (no quota or node over its limit, gangs whole, nobody
     * preempted for nothing). */
    argv[argc++] = "--sim-check";
    if (is_file(config)) {
        argv[argc++] = "--config";
        argv[argc++] = config;
    }
    if (until_s) {
        argv[argc++] = "--sim-until";
        argv[argc++] = (char *)until_s;
    }
    /* <name>/plugin-dir: a directory of the build tree (ORDO_BUILDDIR)
     * searched before the built-in plugins, for plugins built there. */
    if (!plugin_dir_arg(r, sc, plugin_dir, sizeof(plugin_dir)))
        goto out;
    if (plugin_dir[0]) {
        argv[argc++] = "--plugin-dir";
        argv[argc++] = plugin_dir;
    }
    argv[argc] = NULL;
    if (!run_sim(r, argv, log_path))
        goto out;
    report = json_object_from_file(report_path);
    if (!report) {
        fail_at(r, "%s: %s", report_path, json_util_get_last_err());
        goto out;
    }

    const struct doc_node *end = doc_map_get(root, "endTime");
    if (end) {
        int64_t want_ms, got_ms;
        char a[32], b[32];
        struct json_object *got = jget(report, "endTime", NULL);
        if (!expect_time_ms(end, &want_ms))
            fail_at(r, "%s:%u: endTime: want seconds or a duration", expect,
                    end->line);
        else if (!report_time_ms(got, &got_ms))
            fail_at(r, "endTime: want %s, got %s", fmt_secs(want_ms, a),
                    jtext(got));
        else if (got_ms != want_ms)
            fail_at(r, "endTime: want %s, got %s", fmt_secs(want_ms, a),
                    fmt_secs(got_ms, b));
    }
    const struct doc_node *wls = doc_map_get(root, "workloads");
    if (wls && want_map(r, wls, "workloads"))
        for (size_t i = 0; i < wls->n; i++)
            check_workload(r, report, wls->keys[i], wls->items[i]);
    const struct doc_node *cqs = doc_map_get(root, "clusterQueues");
    if (cqs && want_map(r, cqs, "clusterQueues"))
        for (size_t i = 0; i < cqs->n; i++)
            check_cq(r, report, cqs->keys[i], cqs->items[i]);
    const struct doc_node *order = doc_map_get(root, "order");
    if (order)
        check_order(r, report, order);
    check_invariants(r, report, input);

out:
    if (report_path && getenv("ORDO_SCENARIOS_KEEP"))
        print_message("scenario %s: report %s, log %s\n", sc->name, report_path,
                      log_path);
    else if (tmpdir[0]) {
        if (report_path)
            unlink(report_path);
        if (log_path)
            unlink(log_path);
        rmdir(tmpdir);
    }
    json_object_put(report);
    doc_free(doc);
    free(report_path);
    free(log_path);
    free(expect);
    free(input);
    free(config);
}

static void test_scenario(void **state)
{
    const struct scenario *sc = *state;
    struct run r = {.sc = sc};
    run_scenario(&r);
    if (sc->known) {
        if (r.failures) {
            print_message("scenario %s: known failure: %s\n", sc->name,
                          sc->known);
            skip();
        }
        fail_msg("scenario %s: listed in KNOWN_FAILURES (%s) but passes: "
                 "remove it from the list",
                 sc->name, sc->known);
    }
    if (r.failures)
        fail_msg("scenario %s: %u check(s) failed", sc->name, r.failures);
}

/* ---- finding the scenarios ---------------------------------------------- */

struct known {
    char *name, *reason;
    unsigned line;
};

static struct known *known_list;
static size_t n_known;
static struct scenario *scenarios;
static size_t n_scenarios;

/* Reads KNOWN_FAILURES: "name  reason" per line, # comments. */
static int load_known(const char *root)
{
    char *path = path_join(root, "KNOWN_FAILURES");
    char *text = path ? read_text(path, NULL) : NULL;
    free(path);
    if (!text)
        return 0;
    unsigned line = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        line++;
        while (*l == ' ' || *l == '\t')
            l++;
        if (*l == '\0' || *l == '#')
            continue;
        char *sp = l + strcspn(l, " \t");
        char *reason = sp + strspn(sp, " \t");
        *sp = '\0';
        size_t rl = strlen(reason);
        while (rl && (reason[rl - 1] == ' ' || reason[rl - 1] == '\r'))
            reason[--rl] = '\0';
        struct known *v = realloc(known_list, (n_known + 1) * sizeof(*v));
        if (!v) {
            free(text);
            return -ENOMEM;
        }
        known_list = v;
        known_list[n_known].name = strdup(l);
        known_list[n_known].reason = strdup(reason);
        known_list[n_known].line = line;
        if (!known_list[n_known].name || !known_list[n_known].reason) {
            free(known_list[n_known].name);
            free(known_list[n_known].reason);
            free(text);
            return -ENOMEM;
        }
        n_known++;
    }
    free(text);
    return 0;
}

/* Every line of KNOWN_FAILURES names a scenario and gives a reason. */
static void test_known_failures_list(void **state)
{
    (void)state;
    unsigned bad = 0;
    for (size_t i = 0; i < n_known; i++) {
        bool found = false;
        char *dir = path_join(scenarios_root(), known_list[i].name);
        found = dir && is_dir(dir);
        free(dir);
        if (!found) {
            print_error("KNOWN_FAILURES:%u: no scenario named %s\n",
                        known_list[i].line, known_list[i].name);
            bad++;
        }
        if (!known_list[i].reason[0]) {
            print_error("KNOWN_FAILURES:%u: %s: give a one-line reason\n",
                        known_list[i].line, known_list[i].name);
            bad++;
        }
    }
    if (bad)
        fail_msg("KNOWN_FAILURES: %u problem(s)", bad);
}

static int cmp_scenario(const void *a, const void *b)
{
    return strcmp(((const struct scenario *)a)->name,
                  ((const struct scenario *)b)->name);
}

static bool wanted(const char *name, int argc, char **argv)
{
    if (argc <= 1)
        return true;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return true;
    return false;
}

static int find_scenarios(const char *root, int argc, char **argv)
{
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "run_scenarios: %s: %s (set ORDO_SCENARIOS)\n", root,
                strerror(errno));
        return -errno;
    }
    struct dirent *de;
    int r = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *dir = path_join(root, de->d_name);
        if (!dir) {
            r = -ENOMEM;
            break;
        }
        if (!is_dir(dir) || !wanted(de->d_name, argc, argv)) {
            free(dir);
            continue;
        }
        struct scenario *v = realloc(scenarios, (n_scenarios + 1) * sizeof(*v));
        if (v)
            scenarios = v;
        char *name = v ? strdup(de->d_name) : NULL;
        if (!name) {
            free(dir);
            r = -ENOMEM;
            break;
        }
        scenarios[n_scenarios++] = (struct scenario){name, dir, NULL};
    }
    closedir(d);
    if (r < 0)
        return r;
    if (n_scenarios)
        qsort(scenarios, n_scenarios, sizeof(*scenarios), cmp_scenario);
    for (size_t i = 0; i < n_scenarios; i++)
        for (size_t k = 0; k < n_known; k++)
            if (strcmp(known_list[k].name, scenarios[i].name) == 0)
                scenarios[i].known = known_list[k].reason;
    for (int i = 1; i < argc; i++) {
        bool found = false;
        for (size_t k = 0; k < n_scenarios && !found; k++)
            found = strcmp(scenarios[k].name, argv[i]) == 0;
        if (!found) {
            fprintf(stderr, "run_scenarios: no scenario %s in %s\n", argv[i],
                    root);
            return -ENOENT;
        }
    }
    return 0;
}

static void release_all(void)
{
    for (size_t i = 0; i < n_scenarios; i++) {
        free(scenarios[i].name);
        free(scenarios[i].dir);
    }
    free(scenarios);
    for (size_t i = 0; i < n_known; i++) {
        free(known_list[i].name);
        free(known_list[i].reason);
    }
    free(known_list);
}

int main(int argc, char **argv)
{
    const char *root = scenarios_root();
    if (!getenv("ORDO_SCHEDULER") || !*getenv("ORDO_SCHEDULER")) {
        fprintf(stderr, "run_scenarios: set ORDO_SCHEDULER to the path of "
                        "ordo-scheduler\n");
        return 1;
    }
    if (load_known(root) < 0 || find_scenarios(root, argc, argv) < 0) {
        release_all();
        return 1;
    }
    struct CMUnitTest *tests = calloc(n_scenarios + 1, sizeof(*tests));
    if (!tests) {
        release_all();
        return 1;
    }
    size_t n = 0;
    if (argc <= 1)
        tests[n++] = (struct CMUnitTest){
            "KNOWN_FAILURES", test_known_failures_list, NULL, NULL, NULL};
    for (size_t i = 0; i < n_scenarios; i++)
        tests[n++] = (struct CMUnitTest){scenarios[i].name, test_scenario, NULL,
                                         NULL, &scenarios[i]};
    int rc = _cmocka_run_group_tests("scenarios", tests, n, NULL, NULL);
    free(tests);
    release_all();
    return rc;
}
