/* qtree_build.h - what changes the quota tree (quota_tree.c): building it
 * from ClusterQueues and cohorts, and moving usage through it. Private to
 * the cache, the line and the decision core (see quota_tree.h for the
 * arithmetic anyone may read). */
#ifndef ORDO_QTREE_BUILD_H
#define ORDO_QTREE_BUILD_H

#include "quota_tree.h"

struct obj_entry;

/* Builds the tree from n_cqs ClusterQueues (their order is the tree's
 * cq_nodes order), the Cohort objects of index `cohorts` and the flavors
 * they name (hash `flavors`; a name not there is skipped). ClusterQueues
 * under a parentName cycle are made inactive with a reason. Usage starts
 * at zero (the caller re-charges admitted workloads). 0 or -ENOMEM. */
int qtree_build(struct qtree *t, struct cq *const *cqs, uint32_t n_cqs,
                const struct obj_entry *cohorts, const struct flavor *flavors);
void qtree_release(struct qtree *t);

/* Records every node's usage as its baseline; called once a rebuilt tree
 * carries the usage of the admitted workloads again. */
void qtree_mark_baseline(struct qtree *t);

/* Adds (val > 0) or removes (val < 0) usage of a CQ on FR i, passing the
 * part beyond what each node holds locally to its parent. */
void qtree_add_usage(struct qnode *cq_node, int i, int64_t val);

#endif
