/* decode.h - from a document tree (doc.h) to typed objects (objects.h).
 *
 * decode_object() is the entry point; the rest of this header is shared by
 * the decode_*.c files, one per group of kinds. Errors read
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

/* ---- shared by the decoders ------------------------------------------ */

#define DECODE_PATH_MAX 256

struct decode_ctx {
    struct arena *arena;
    const char *file;
    const char *kind;
    const struct object_meta *meta; /* for the name in messages, once known */
    bool strict;                    /* validate enums (Kueue kinds) */
    struct err *err;
    char path[DECODE_PATH_MAX]; /* field path of the node being decoded */
    size_t path_len;
};

/* Appends ".key" (or "key" at the root) / "[i]" to the path and returns the
 * previous length for decode_path_pop(). */
size_t decode_path_push(struct decode_ctx *c, const char *key);
size_t decode_path_push_index(struct decode_ctx *c, size_t i);
void decode_path_pop(struct decode_ctx *c, size_t mark);

/* Fills the error for node n (its line) at the current path. Returns
 * -EINVAL. */
int decode_fail(struct decode_ctx *c, const struct doc_node *n,
                const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same, for a child field of the current path. */
int decode_fail_at(struct decode_ctx *c, const struct doc_node *n,
                   const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Field readers: look up key in map `parent`. An absent or null field
 * leaves *ret untouched and returns 0 (set the default first); a field of the
 * wrong type fails naming the field. */
int decode_field_map(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret);
int decode_field_seq(struct decode_ctx *c, const struct doc_node *parent,
                     const char *key, const struct doc_node **ret);
int decode_field_string(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, const char **ret);
int decode_field_bool(struct decode_ctx *c, const struct doc_node *parent,
                      const char *key, bool *ret);
int decode_field_int32(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, bool *ret_present, int32_t *ret);
int decode_field_int64(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, bool *ret_present, int64_t *ret);
/* A resource.Quantity (string or number) in milli-units. */
int decode_field_quantity(struct decode_ctx *c, const struct doc_node *parent,
                          const char *key, bool *ret_present, int64_t *ret);
/* map[string]string. */
int decode_field_strmap(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, struct strmap *ret);
/* []string. */
int decode_field_strings(struct decode_ctx *c, const struct doc_node *parent,
                         const char *key, size_t *ret_n, const char ***ret);
/* map[resource]Quantity into a heap resource list (appends). A negative
 * quantity is an error, as in every resource list Kubernetes has. */
int decode_field_resources(struct decode_ctx *c, const struct doc_node *parent,
                           const char *key, struct resource_list *ret);
/* A string field that must be one of `names` (NULL-terminated); the index
 * goes to *ret. With c->strict off, an unknown value gives `unknown`. */
int decode_field_enum(struct decode_ctx *c, const struct doc_node *parent,
                      const char *key, const char *const *names, int unknown,
                      int *ret);

/* Kubernetes' name and label rules are in kname.h; decode_names.c
 * applies them. */
/* metadata.name (a subdomain; a label for a Namespace) and, for namespaced
 * kinds, metadata.namespace (a label) of o; meta is its metadata node. */
int decode_check_object_names(struct decode_ctx *c, const struct doc_node *meta,
                              const struct object *o);
/* decode_field_strmap() for a map of labels, each key and value checked. */
int decode_field_labels(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, struct strmap *ret);

/* RFC 3339 time ("2008-01-01T01:01:01Z", fractional seconds and offsets
 * allowed) to ns since the epoch, as Kubernetes parses metav1.Time (Go's
 * time.Parse(time.RFC3339)): real calendar dates of years 0000-9999, hour
 * 0-23, minute and second 0-59. A valid time outside the int64 ns range
 * (about 1678-2262) gives INT64_MIN or INT64_MAX. 0 or -EINVAL. */
int decode_parse_time(const char *s, int64_t *ret_ns);

/* Shared structures (decode_meta.c). */
int decode_meta(struct decode_ctx *c, const struct doc_node *n,
                struct object_meta *ret);
int decode_label_selector(struct decode_ctx *c, const struct doc_node *n,
                          struct label_selector *ret);
int decode_node_selector(struct decode_ctx *c, const struct doc_node *n,
                         struct node_selector *ret);
int decode_taints(struct decode_ctx *c, const struct doc_node *parent,
                  const char *key, size_t *ret_n, struct taint **ret);
int decode_tolerations(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, size_t *ret_n,
                       struct toleration **ret);

/* Kind decoders: n is the whole document; meta is already decoded. */
int decode_namespace(struct decode_ctx *c, const struct doc_node *n,
                     struct object *o);
int decode_node(struct decode_ctx *c, const struct doc_node *n,
                struct object *o);
int decode_pod(struct decode_ctx *c, const struct doc_node *n,
               struct object *o);
int decode_priority_class(struct decode_ctx *c, const struct doc_node *n,
                          struct object *o);
int decode_pod_template(struct decode_ctx *c, const struct doc_node *n,
                        struct pod_template *ret);
void pod_spec_release(struct pod_spec *s);
int decode_job(struct decode_ctx *c, const struct doc_node *n,
               struct object *o);
int decode_jobset(struct decode_ctx *c, const struct doc_node *n,
                  struct object *o);
int decode_resource_flavor(struct decode_ctx *c, const struct doc_node *n,
                           struct object *o);
int decode_cluster_queue(struct decode_ctx *c, const struct doc_node *n,
                         struct object *o);
int decode_local_queue(struct decode_ctx *c, const struct doc_node *n,
                       struct object *o);
int decode_cohort(struct decode_ctx *c, const struct doc_node *n,
                  struct object *o);
int decode_workload_priority_class(struct decode_ctx *c,
                                   const struct doc_node *n, struct object *o);
int decode_topology(struct decode_ctx *c, const struct doc_node *n,
                    struct object *o);

#endif
