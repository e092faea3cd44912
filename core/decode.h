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

#include "doc.h"
#include "err.h"
#include "objects.h"

/* decode_object() result for a kind Ordo does not read (ConfigMap, ...). */
#define DECODE_IGNORED 1

/* Decodes one document. Returns 0 with a new object in *ret (free with
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

#endif
