/* manifest.h - reading Kubernetes manifests (files and directories of YAML
 * or JSON, as a user would `kubectl apply -f`) into typed objects.
 *
 * Used by the simulator and by `ordo-scheduler --validate`. Every document
 * is decoded; a `kind: List` is unpacked into its items; kinds Ordo does not
 * read are counted and skipped. Errors do not stop the load: each is handed
 * to the caller's callback so that a user sees all of them at once. */
#ifndef ORDO_MANIFEST_H
#define ORDO_MANIFEST_H

#include <stddef.h>

#include "err.h"
#include "objects.h"

struct manifest_set {
    size_t n, cap;
    struct object **objects; /* owned */
    size_t n_ignored;        /* documents of kinds Ordo does not read */
    size_t n_errors;
};

typedef void (*manifest_error_fn)(const struct err *e, void *userdata);

void manifest_set_init(struct manifest_set *s);
/* Frees every object. NULL-safe. */
void manifest_set_release(struct manifest_set *s);

/* Loads one path: a file, or a directory whose *.yaml, *.yml and *.json
 * files are read in name order (subdirectories too). Returns 0 when every
 * document decoded, -EINVAL when some did not (each reported through
 * on_error, counted in n_errors), or another negative errno (-ENOMEM, or
 * -ENOENT for a missing path, also reported). */
int manifest_load_path(struct manifest_set *s, const char *path,
                       manifest_error_fn on_error, void *userdata);

/* Decodes every document of a buffer (YAML or JSON) named `file`. */
int manifest_load_buffer(struct manifest_set *s, const char *buf, size_t len,
                         const char *file, manifest_error_fn on_error,
                         void *userdata);

#endif
