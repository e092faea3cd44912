/* decode.h - from a document tree (doc.h) to typed objects (objects.h).
 *
 * decode_object() is the entry point, the interface for the rest of the
 * tree; the decode_*.c files behind it, one per group of kinds, share
 * decode_field.h and decode_kinds.h. Errors read
 *   file:line: Kind namespace/name: field.path: what is wrong
 * (no line for JSON input, which carries no positions). Input an API server
 * or Kueue's and JobSet's webhooks would refuse is refused (negative
 * quantities, invalid names and labels, impossible times, ...: see
 * docs/operations.md, "Limits"), so that the scheduler can trust what it gets. */
#ifndef ORDO_DECODE_H
#define ORDO_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "doc.h"
#include "err.h"
#include "objects.h"

/* decode_object() result for a kind Ordo does not read (ConfigMap, ...). */
#define DECODE_IGNORED 1

/* How decode_document() treats warnings. */
struct decode_options {
    bool strict; /* --strict: every warning is an error */
};

/* Decodes one document and appends everything it finds to diags, ordered
 * by line: every error (decoding goes on past a failed field where it
 * safely can), warnings (unknown fields of Kueue's kinds with the likely
 * intended name, Kueue fields Ordo does not implement, v1beta1 fields that
 * differ in v1beta2, workloads of kinds Ordo does not schedule, a Kueue
 * Configuration) and notes (a kind Ordo does not read, a v1beta1 object read
 * as v1beta2). Core Kubernetes kinds get no unknown-field reports. Returns
 * 0 with a new object in *ret (free with object_free), DECODE_IGNORED for a
 * kind Ordo does not read, -EINVAL when diags holds an error (an unknown
 * version of a Kueue kind is one; with opt->strict every warning is one),
 * or -ENOMEM. opt may be NULL (not strict). */
int decode_document(const struct doc_node *doc, const char *file,
                    const struct decode_options *opt, struct object **ret,
                    struct diag_list *diags);

/* decode_document() without options, keeping only the first error (by
 * line) in e. Returns 0 with a new object in *ret (free with
 * object_free), DECODE_IGNORED when its kind is not one Ordo reads, or a
 * negative errno with e filled. file names the input in messages. */
int decode_object(const struct doc_node *doc, const char *file,
                  struct object **ret, struct err *e);

/* RFC 3339 time ("2008-01-01T01:01:01Z", fractional seconds and offsets
 * allowed) to ns since the epoch, as Kubernetes parses metav1.Time (Go's
 * time.Parse(time.RFC3339)): real calendar dates of years 0000-9999, hour
 * 0-23, minute and second 0-59. A valid time outside the int64 ns range
 * (about 1678-2262) gives INT64_MIN or INT64_MAX. 0 or -EINVAL. */
int decode_parse_time(const char *s, int64_t *ret_ns);

struct arena;

/* A metav1.LabelSelector read from n outside an object (a configuration
 * field), its strings in a: unknown fields, a bad operator or label is an
 * error "file:line: path.matchExpressions[0].operator: what", as in an
 * object. 0, -EINVAL with e filled, or -ENOMEM. */
int decode_selector(const struct doc_node *n, const char *file,
                    const char *path, struct arena *a,
                    struct label_selector *ret, struct err *e);

#endif
