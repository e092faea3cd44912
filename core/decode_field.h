/* decode_field.h - private to the decoders of core/: the decoding context,
 * the field path, errors and the readers of one field (decode_field.c).
 *
 * Decoding is layered and calls only down:
 *   decode.c          decode_object(): kind -> decoder, metadata first
 *   decode_job.c      Job, JobSet (their pod templates: decode_pod.c)
 *   decode_pod.c      Namespace, Node, Pod, PriorityClass, pod templates
 *   decode_kueue.c    Kueue's kinds
 *   decode_meta.c     structures many kinds share (decode_kinds.h)
 *   decode_names.c    Kubernetes' name and label rules
 *   decode_field.c    this header: context, path, errors, field readers
 * with decode_time.c (RFC 3339 times) and objects.c (object_free(), kind
 * names) below them all. decode.h is the interface for the rest of the
 * tree. */
#ifndef ORDO_DECODE_FIELD_H
#define ORDO_DECODE_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc.h"
#include "err.h"
#include "objects.h"

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
int decode_fail(struct decode_ctx *c, const struct doc_node *n, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));
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
/* decode_field_map() for a map that must be there: absent or null fails
 * ("required"). */
int decode_field_map_required(struct decode_ctx *c,
                              const struct doc_node *parent, const char *key,
                              const struct doc_node **ret);
/* 0 when n (a list item, at the current path) is a map; else fails. */
int decode_want_map(struct decode_ctx *c, const struct doc_node *n);
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

#endif
