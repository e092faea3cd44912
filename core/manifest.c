/* manifest.c - loading manifests from files, directories and buffers (see
 * manifest.h). */
#include "manifest.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode.h"
#include "doc.h"
#include "grow.h"

void manifest_set_init(struct manifest_set *s)
{
    memset(s, 0, sizeof(*s));
    s->max_objects = MANIFEST_MAX_OBJECTS;
}

void manifest_set_release(struct manifest_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        object_free(s->objects[i]);
    free(s->objects);
    manifest_set_init(s);
}

static int set_push(struct manifest_set *s, struct object *o)
{
    if (GROW_ARRAY(s->objects, s->n, s->cap) < 0)
        return -ENOMEM;
    s->objects[s->n++] = o;
    return 0;
}

static void report(struct manifest_set *s, const struct err *e,
                   manifest_error_fn on_error, void *userdata)
{
    s->n_errors++;
    if (on_error)
        on_error(e, userdata);
}

/* Hands what decoding one document found to the callbacks, in order. */
static void report_diags(struct manifest_set *s, const struct diag_list *l,
                         manifest_error_fn on_error, void *userdata)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct diag *d = &l->items[i];
        if (d->level == DIAG_ERROR) {
            struct err e;
            err_set(&e, EINVAL, "%s", d->msg);
            report(s, &e, on_error, userdata);
            continue;
        }
        s->n_warnings += d->level == DIAG_WARNING;
        if (s->on_diag)
            s->on_diag(d, s->diag_userdata);
    }
}

/* Decodes one document, unpacking `kind: List`. */
static int load_node(struct manifest_set *s, const struct doc_node *n,
                     const char *file, manifest_error_fn on_error,
                     void *userdata, int *bad)
{
    struct err e;
    const char *kind = NULL;
    const struct doc_node *items = doc_map_get(n, "items");
    if (doc_get_string(doc_map_get(n, "kind"), &kind) == 0 && items &&
        strlen(kind) >= 4 && strcmp(kind + strlen(kind) - 4, "List") == 0 &&
        items->type == DOC_SEQ) {
        for (size_t i = 0; i < items->n; i++) {
            int r = load_node(s, items->items[i], file, on_error, userdata,
                              bad);
            if (r == -ENOMEM || r == -E2BIG)
                return r;
        }
        return 0;
    }
    if (s->capped)
        return -E2BIG;
    if (s->n_documents >= s->max_objects) {
        s->capped = true;
        char where[32] = "";
        if (n && n->line)
            snprintf(where, sizeof(where), ":%u", n->line);
        err_set(&e, E2BIG,
                "%s%s: more than %zu objects in the manifests (the limit of "
                "one manifest set); the rest is not read",
                file, where, s->max_objects);
        report(s, &e, on_error, userdata);
        return -E2BIG;
    }
    s->n_documents++;
    struct object *o = NULL;
    struct diag_list diags;
    struct decode_options opt = {.strict = s->strict};
    diag_list_init(&diags);
    int r = decode_document(n, file, &opt, &o, &diags);
    if (r != -ENOMEM)
        report_diags(s, &diags, on_error, userdata);
    diag_list_release(&diags);
    if (r == DECODE_IGNORED) {
        s->n_ignored++;
        return 0;
    }
    if (r == -ENOMEM)
        return r;
    if (r < 0) {
        *bad = 1;
        return 0;
    }
    r = set_push(s, o);
    if (r < 0)
        object_free(o);
    return r;
}

/* The schema sim_report.c writes: a report left among the manifests by a
 * run (--report DIR/report.json) is no manifest, and the next run would
 * fail on it. */
#define SIM_REPORT_SCHEMA "ordo.dev/sim-report/v1"

/* Whether document n is Ordo's own simulation report. */
static bool is_sim_report(const struct doc_node *n)
{
    const char *schema = NULL;
    return n && n->type == DOC_MAP && !doc_map_get(n, "kind") &&
           doc_get_string(doc_map_get(n, "schema"), &schema) == 0 &&
           strcmp(schema, SIM_REPORT_SCHEMA) == 0;
}

/* Skips file when it is a report (one document), with a note; true then. */
static bool skip_sim_report(struct manifest_set *s, const struct doc *d,
                            const char *file)
{
    if (d->n_docs != 1 || !is_sim_report(d->docs[0]))
        return false;
    s->n_reports++;
    if (s->on_note) {
        struct err e;
        err_set(&e, 0,
                "note: %s: an Ordo simulation report (schema "
                "%s), not a manifest: skipped",
                file, SIM_REPORT_SCHEMA);
        s->on_note(&e, s->note_data);
    }
    return true;
}

static int load_doc(struct manifest_set *s, struct doc *d, const char *file,
                    manifest_error_fn on_error, void *userdata)
{
    int bad = 0;
    if (skip_sim_report(s, d, file))
        return 0;
    for (size_t i = 0; i < d->n_docs; i++) {
        int r = load_node(s, d->docs[i], file, on_error, userdata, &bad);
        if (r < 0)
            return r;
    }
    return bad ? -EINVAL : 0;
}

/* Decodes what a parser gave (r, d, e) and frees it. */
static int load_parsed(struct manifest_set *s, int r, struct doc *d,
                       const struct err *e, const char *file,
                       manifest_error_fn on_error, void *userdata)
{
    if (r < 0) {
        report(s, e, on_error, userdata);
        return r;
    }
    r = load_doc(s, d, file, on_error, userdata);
    doc_free(d);
    return r;
}

int manifest_load_buffer(struct manifest_set *s, const char *buf, size_t len,
                         const char *file, manifest_error_fn on_error,
                         void *userdata)
{
    struct doc *d = NULL;
    struct err e;
    if (s->capped)
        return -E2BIG;
    int r = doc_parse(buf, len, file, &d, &e);
    return load_parsed(s, r, d, &e, file, on_error, userdata);
}

static int load_file(struct manifest_set *s, const char *path,
                     manifest_error_fn on_error, void *userdata)
{
    struct doc *d = NULL;
    struct err e;
    int r = doc_load_file(path, &d, &e);
    return load_parsed(s, r, d, &e, path, on_error, userdata);
}

static bool is_manifest_name(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dir(struct manifest_set *s, const char *path, int depth,
                    manifest_error_fn on_error, void *userdata)
{
    struct dirent **names = NULL;
    struct err e;
    int n = scandir(path, &names, NULL, cmp_names);
    if (n < 0) {
        int r = err_set(&e, errno, "%s: %s", path, strerror(errno));
        report(s, &e, on_error, userdata);
        return r;
    }
    int result = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char *child = NULL;
        struct stat st;
        if (name[0] == '.' || asprintf(&child, "%s/%s", path, name) < 0) {
            free(names[i]);
            continue;
        }
        int r = 0;
        if (s->capped) {
            r = -E2BIG; /* reported once already */
        } else if (stat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth < 16)
                r = load_dir(s, child, depth + 1, on_error, userdata);
        } else if (is_manifest_name(name)) {
            r = load_file(s, child, on_error, userdata);
        }
        if (r < 0 && result == 0)
            result = r;
        if (r == -ENOMEM || r == -E2BIG)
            result = r;
        free(child);
        free(names[i]);
    }
    free(names);
    return result;
}

int manifest_load_path(struct manifest_set *s, const char *path,
                       manifest_error_fn on_error, void *userdata)
{
    struct stat st;
    struct err e;
    if (s->capped)
        return -E2BIG;
    if (stat(path, &st) < 0) {
        int r = err_set(&e, errno, "%s: %s", path, strerror(errno));
        report(s, &e, on_error, userdata);
        return r;
    }
    if (S_ISDIR(st.st_mode))
        return load_dir(s, path, 0, on_error, userdata);
    return load_file(s, path, on_error, userdata);
}
