/* store.h - the store (cluster.c): objects by key, nodes, pods, workloads
 * and ClusterQueues, and the accounting every change keeps (node usage,
 * quota usage, pod counts, the lists the cycle and the line work from).
 *
 * Private to the cache, the line and the decision core: backends change
 * the cache only through the events of scheduler.h. Nothing here decides;
 * workload.h assembles workloads and queues them, events.h applies what a
 * backend reports. */
#ifndef ORDO_STORE_H
#define ORDO_STORE_H

#include "cluster.h"
#include "qtree_build.h"

/* Pods waiting for their owner (struct pod_orphans): files pod key under
 * owner (0 or -ENOMEM), and hands over the list of owner (NULL when none:
 * free it with cluster_orphans_free). O(1) each. */
int cluster_orphan_add(struct cluster *c, const char *owner, const char *pod);
struct pod_orphans *cluster_orphans_take(struct cluster *c, const char *owner);
void cluster_orphans_free(struct pod_orphans *o); /* NULL-safe */

/* Lifecycle. */
void cluster_init(struct cluster *c);
void cluster_release(struct cluster *c); /* frees every object it holds */

struct obj_entry *cluster_find(struct obj_entry *index, const char *key);
struct node *cluster_node(const struct cluster *c, const char *name);
struct cq *cluster_cq(const struct cluster *c, const char *name);
struct flavor *cluster_flavor(const struct cluster *c, const char *name);
struct pod *cluster_pod(const struct cluster *c, const char *key);
struct workload *cluster_workload(const struct cluster *c, const char *key);

/* Files o by key in index, replacing (and freeing) an object of that key.
 * Takes o; 0 or -ENOMEM (o freed). */
int cluster_index_put(struct obj_entry **index, struct object *o);
/* The index objects of kind are filed in, or NULL for the kinds that have
 * their own records (Node, Pod, ResourceFlavor, ClusterQueue). */
struct obj_entry **cluster_index_of(struct cluster *c, enum object_kind kind);

/* Files Node o (takes it). 0, -EEXIST (o freed) or -ENOMEM. */
int cluster_node_add(struct cluster *c, struct object *o);
/* Files ResourceFlavor o (takes it), replacing one of that name. */
int cluster_flavor_put(struct cluster *c, struct object *o);
/* Files ClusterQueue o (takes it), replacing the object of one of that
 * name (its queues are rebuilt by the caller). */
int cluster_cq_put(struct cluster *c, struct object *o);

/* Frees a workload record (not its pods) / a pod record and its object.
 * Accept NULL. */
void workload_free(struct workload *w);
void cluster_pod_free(struct pod *p);

/* ---- what changes and goes (cluster.c, removal.c) ------------------- */

/* Node o (takes it) is the new version of its node: its object and
 * allocatable change, its pods stay. One not known is added. */
int cluster_node_update(struct cluster *c, struct object *o);
/* Takes n out of the nodes (nothing new goes there); it stays allocated
 * for the pods still bound to it. 0 or -ENOMEM. */
int cluster_node_remove(struct cluster *c, struct node *n);
/* Takes q out of the ClusterQueues by name (the caller rebuilds cqs_v and
 * the tree); it stays allocated for what still points to it. */
int cluster_cq_retire(struct cluster *c, struct cq *q);
/* Frees n resource groups of a ClusterQueue (its quota and usage arrays).
 * Accepts NULL. */
void cq_groups_free(struct cq_group *groups, size_t n);
/* Removes (and frees) the object of key from index: 1, or 0 when absent. */
int cluster_index_remove(struct obj_entry **index, const char *key);

/* Pod p is gone: it leaves its node, the store (its key may come again)
 * and its workload's counts; it is freed by the next cluster_purge().
 * Nothing else follows here (events.c decides what it means). */
int cluster_pod_unlink(struct cluster *c, struct pod *p);
/* Workload w is gone: its quota, queue place and held room are given back,
 * it leaves the store, and it is freed by the next cluster_purge(). */
int cluster_workload_unlink(struct cluster *c, struct workload *w);
/* Frees what was unlinked since the last call, after taking it out of
 * every list (fresh, stragglers, changed, to_stop, workloads' pods). Call
 * between batches only: nothing else may hold those pointers then. */
void cluster_purge(struct cluster *c);

/* Whether w's top or a pod set's spec points into o. */
bool workload_refers_to(const struct workload *w, const struct object *o);
/* Keeps o (takes it) with w, freed with it. 0 or -ENOMEM. */
int workload_keep_object(struct workload *w, struct object *o);

/* Lists admitted workload w for the line to stop before the next cycle
 * (cluster.to_stop). 0 or -ENOMEM. */
int cluster_mark_stop(struct cluster *c, struct workload *w);

/* Something freed quota or node room: every parked workload gets another
 * try (BestEffortFIFO). O(1): it moves every queue's cq_requeue_gen(). */
void cluster_wake_parked(struct cluster *c);

/* Sets a pod's state, keeping its workload's counts (pod sets) and marking
 * the workload changed. */
void pod_set_state(struct cluster *c, struct pod *p, enum pod_phase_sim s);

/* Adds (sign 1) or removes (-1) pod p in its workload's counts, by its
 * current state and pod set. */
void workload_count_pod(struct workload *w, const struct pod *p, int sign);

/* Lists w among the workloads that changed (once until taken). 0 or
 * -ENOMEM. */
int cluster_mark_changed(struct cluster *c, struct workload *w);
/* Hands over the changed workloads (in the order of their creation) and
 * starts a new list: *ret (free it) gets *ret_n entries, their `changed`
 * cleared. 0 or -ENOMEM. */
int cluster_take_changed(struct cluster *c, struct workload ***ret,
                         size_t *ret_n);

/* Lists q as having pending workloads (queue_push). 0 or -ENOMEM. */
int cluster_mark_busy(struct cluster *c, struct cq *q);
/* Sorts the busy list by index and drops queues with nothing pending. */
void cluster_busy_refresh(struct cluster *c);

/* Marks q's usage as changed (cq_charge, rebuilds). */
void cluster_mark_usage(struct cluster *c, struct cq *q);
/* The ClusterQueues whose usage changed, by index, into the caller's
 * *ret (free it); the list starts again. 0 or -ENOMEM. */
int cluster_take_usage_changed(struct cluster *c, struct cq ***ret,
                               uint32_t *ret_n);

/* Node room held for w, pods already charged on their nodes: a
 * preemptor's (its own pending pods, where the check before its evictions
 * placed them) until it is tried again, or an admitted job's planned pods
 * (owned by w: cluster_planned_pod_free) until its real pods come (those
 * that wait already are stragglers then). Gives back what w held before.
 * 0 or -ENOMEM. */
int cluster_hold_room(struct workload *w, struct pod **pods,
                      struct node **nodes, size_t n, bool planned);
/* Gives back all the room w holds. */
void cluster_release_room(struct workload *w);
/* Gives back up to k planned pods of pod set ps: its real pods are about
 * to be placed. */
void cluster_release_planned(struct workload *w, uint32_t ps, uint32_t k);
/* Frees a planned pod (one that stands for a pod not created yet). */
void cluster_planned_pod_free(struct pod *p);

/* Records that admitted workload w has a pod without a node. */
int cluster_mark_straggler(struct cluster *c, struct workload *w);
/* Records a new workload for the next cluster_sync(). */
int cluster_mark_fresh(struct cluster *c, struct workload *w);

/* Adds (sign 1) or removes (sign -1) a pod's request on a node. */
int node_charge(struct node *n, const struct pod *p, int sign);

/* Quota accounting of an admission: adds (sign 1) or removes (-1) the
 * workload's usage on its admitted ClusterQueue. */
void cq_charge(struct cq *cq, const struct workload *wl, int sign);
/* Appends w (pending) to q's pending list and lists q among c's busy
 * queues; the cycle sorts the list lazily (q->dirty). 0 or -ENOMEM. */
int cq_queue_push(struct cluster *c, struct cq *q, struct workload *w);
/* Removes w from q's pending list when it is there. */
void cq_queue_remove(struct cq *q, struct workload *w);
/* Files w among q's admitted workloads (0 or -ENOMEM) / takes it out. */
int cq_add_admitted(struct cq *q, struct workload *w);
void cq_remove_admitted(struct cq *q, struct workload *w);

#endif
