/* manifest.h - reading Kubernetes manifests (files and directories of YAML
 * or JSON, as a user would `kubectl apply -f`) into typed objects.
 *
 * Used by the simulator and by `ordo-scheduler --validate`. Every document
 * is decoded; a `kind: List` is unpacked into its items; kinds Ordo does not
 * read are counted and skipped, and so is a file that is Ordo's own
 * simulation report (schema ordo.dev/sim-report/v1). Errors do not stop
 * the load: each is handed to the caller's callback so that a user sees all
 * of them at once, and so are warnings and notes (decode.h says which),
 * when the caller asks. */
#ifndef ORDO_MANIFEST_H
#define ORDO_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "err.h"
#include "objects.h"

/* At most this many documents (each item of a List counts as one, and so
 * does a document of a kind Ordo does not read or one that fails to decode)
 * are read into one manifest set. Past it the load stops with an error
 * naming the file, reported once, and returns -E2BIG; later loads into the
 * set return -E2BIG at once. Each file is also held to doc.h's limits: at
 * most 64 MiB and DOC_MAX_NODES nodes (so at most that many documents). */
#define MANIFEST_MAX_OBJECTS 1000000

/* Called with each warning and note (d->level), in the order of the input;
 * errors go to the manifest_error_fn. */
typedef void (*manifest_diag_fn)(const struct diag *d, void *userdata);

struct manifest_set {
    size_t n, cap;
    struct object **objects; /* owned */
    size_t n_ignored;        /* documents of kinds Ordo does not read */
    size_t n_errors;
    size_t n_documents; /* documents seen, counted against max_objects */
    size_t max_objects; /* MANIFEST_MAX_OBJECTS; tests may lower it */
    bool capped;        /* max_objects was passed */
    /* Files skipped on purpose: Ordo's own simulation reports (a
     * --report written among the manifests), counted and told to on_note
     * (when set) as a note, not an error. */
    size_t n_reports;
    void (*on_note)(const struct err *e, void *userdata);
    void *note_data;
    /* Set by the caller after manifest_set_init(): */
    bool strict;             /* --strict: warnings are errors */
    manifest_diag_fn on_diag; /* warnings and notes; NULL: dropped */
    void *diag_userdata;
    size_t n_warnings; /* warnings reported (errors with strict) */
};

typedef void (*manifest_error_fn)(const struct err *e, void *userdata);

/* An empty set with max_objects = MANIFEST_MAX_OBJECTS. */
void manifest_set_init(struct manifest_set *s);
/* Frees every object. NULL-safe. */
void manifest_set_release(struct manifest_set *s);

/* Loads one path: a file, or a directory whose *.yaml, *.yml and *.json
 * files are read in name order (subdirectories too). Returns 0 when every
 * document decoded, -EINVAL when some did not (each reported through
 * on_error, counted in n_errors), or another negative errno (-ENOMEM,
 * -E2BIG past max_objects, or -ENOENT for a missing path, also reported). */
int manifest_load_path(struct manifest_set *s, const char *path,
                       manifest_error_fn on_error, void *userdata);

/* Decodes every document of a buffer (YAML or JSON) named `file`. */
int manifest_load_buffer(struct manifest_set *s, const char *buf, size_t len,
                         const char *file, manifest_error_fn on_error,
                         void *userdata);

#endif
