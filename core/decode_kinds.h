/* decode_kinds.h - private to the decoders of core/: the decoders of
 * structures many kinds share and of each kind, which decode.c dispatches
 * to (the layers are in decode_field.h). */
#ifndef ORDO_DECODE_KINDS_H
#define ORDO_DECODE_KINDS_H

#include "decode_field.h"

/* Kubernetes' name and label rules are in kname.h; decode_names.c
 * applies them. */
/* metadata.name (a subdomain; a label for a Namespace) and, for namespaced
 * kinds, metadata.namespace (a label) of o; meta is its metadata node. */
int decode_check_object_names(struct decode_ctx *c, const struct doc_node *meta,
                              const struct object *o);
/* decode_field_strmap() for a map of labels, each key and value checked. */
int decode_field_labels(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, struct strmap *ret);

/* Shared structures (decode_meta.c). */
int decode_meta(struct decode_ctx *c, const struct doc_node *n,
                struct object_meta *ret);
/* A template's metadata (tmpl's "metadata"): labels and annotations. */
int decode_template_meta(struct decode_ctx *c, const struct doc_node *tmpl,
                         struct object_meta *ret);
int decode_label_selector(struct decode_ctx *c, const struct doc_node *n,
                          struct label_selector *ret);
int decode_node_selector(struct decode_ctx *c, const struct doc_node *n,
                         struct node_selector *ret);
int decode_taints(struct decode_ctx *c, const struct doc_node *parent,
                  const char *key, size_t *ret_n, struct taint **ret);
int decode_tolerations(struct decode_ctx *c, const struct doc_node *parent,
                       const char *key, size_t *ret_n, struct toleration **ret);

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
/* decode_admission.c */
int decode_admission_check(struct decode_ctx *c, const struct doc_node *n,
                           struct object *o);

#endif
