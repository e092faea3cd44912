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

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "doc.h"
#include "err.h"
#include "objects.h"

#define DECODE_PATH_MAX 256

/* One entry of a table of the fields a map may have (decode_check_known()).
 * A field Kueue has and Ordo reads has unsupported NULL; one Kueue has and
 * Ordo does not implement names why ("Ordo does not implement admission
 * checks yet"). Tables end with {NULL, NULL}. */
struct decode_known {
    const char *name;
    const char *unsupported;
};

struct decode_ctx {
    struct arena *arena;
    const char *file;
    const char *kind;
    const struct object_meta *meta; /* for the name in messages, once known */
    bool strict;                    /* validate enums (Kueue kinds) */
    bool check_known;   /* report unknown fields (Kueue kinds) */
    bool warn_is_error; /* --strict: warnings count as errors */
    bool v1beta1;       /* kueue.x-k8s.io/v1beta1 input */
    struct diag_list *diags; /* every error and warning; NULL: only the
                                first error, in err */
    size_t n_errors;         /* errors reported so far */
    bool oom;                /* a diagnostic could not be stored */
    struct err *err;         /* the first error */
    char path[DECODE_PATH_MAX]; /* field path of the node being decoded */
    size_t path_len;
};

/* Appends ".key" (or "key" at the root) / "[i]" to the path and returns the
 * previous length for decode_path_pop(). */
size_t decode_path_push(struct decode_ctx *c, const char *key);
size_t decode_path_push_index(struct decode_ctx *c, size_t i);
void decode_path_pop(struct decode_ctx *c, size_t mark);

/* Reports an error for node n at the current path: into c->diags, and into
 * c->err when it is the first. The line is that of n's key when n is a
 * map's value (the line of `field`'s key when n is a map holding it), else
 * n's own. Returns -EINVAL. */
int decode_fail(struct decode_ctx *c, const struct doc_node *n, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));
/* Same, for a child field of the current path. */
int decode_fail_at(struct decode_ctx *c, const struct doc_node *n,
                   const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A warning for field `field` of map n (NULL: n itself) at the current path,
 * or an error when c->warn_is_error. Returns 0, or -EINVAL for an error. */
int decode_warn_at(struct decode_ctx *c, const struct doc_node *n,
                   const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A note (never an error) about node n at the current path. Returns 0. */
int decode_note(struct decode_ctx *c, const struct doc_node *n,
                const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Checks every key of map n (at the current path) against known, when
 * c->check_known: an unknown key is reported with the closest known name
 * ("unknown field (did you mean \"preemption\"?)"), an unsupported one
 * (not null) with its reason. Warnings, or errors with c->warn_is_error
 * (then -EINVAL); every key is looked at. Like every error, these are
 * counted in c->n_errors, and decode_document() fails an object with any:
 * a decoder may go on past them. */
int decode_check_known(struct decode_ctx *c, const struct doc_node *n,
                       const struct decode_known *known);

/* The result of two steps of a decoder that goes on past a failed field:
 * -ENOMEM wins, then the first error, then 0. */
static inline int decode_join(int r, int r2)
{
    if (r == -ENOMEM || r2 == -ENOMEM)
        return -ENOMEM;
    return r < 0 ? r : r2;
}

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
