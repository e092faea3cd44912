/* events_helpers.h - an in-process scheduler with the real plugins and a
 * fake backend, for the tests of the events-in interface
 * (tests/unit/test_events*.c): objects go in through scheduler.h only,
 * and the tests read what the scheduler made of them. */
#ifndef ORDO_EVENTS_HELPERS_H
#define ORDO_EVENTS_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_table.h"
#include "manifest.h"
#include "quantity.h"
#include "resid.h"
#include "scheduler.h"
#include "test_helpers.h"

#define FX_MAX 64

/* The fake backend records every action. bind answers bind_answer (0:
 * done, BACKEND_STARTED, or an error); evict reports the pod deleted at
 * once when evict_deletes is set (as the simulator's kubelet does). */
struct fx {
    struct sched_config cfg;
    struct plugin_registry plugins;
    struct scheduler *s;
    int bind_answer;
    bool evict_deletes;
    char binds[FX_MAX][160];
    size_t n_binds;
    char evicts[FX_MAX][160];
    size_t n_evicts;
    char resumes[FX_MAX][160];
    size_t n_resumes;
};

static inline int fx_bind(void *data, const struct pod *p, const struct node *n)
{
    struct fx *f = data;
    if (f->n_binds < FX_MAX)
        snprintf(f->binds[f->n_binds++], sizeof(f->binds[0]), "%s@%s", p->key,
                 n->name);
    return f->bind_answer;
}

static inline int fx_evict(void *data, const struct pod *p)
{
    struct fx *f = data;
    char key[160];
    snprintf(key, sizeof(key), "%s", p->key);
    if (f->n_evicts < FX_MAX)
        snprintf(f->evicts[f->n_evicts++], sizeof(f->evicts[0]), "%s", key);
    if (!f->evict_deletes)
        return BACKEND_STARTED;
    int r = scheduler_evict_outcome(f->s, key, "deleted");
    return r < 0 ? r : scheduler_object_deleted(f->s, OBJ_POD, key);
}

static inline int fx_resume(void *data, const struct workload *w)
{
    struct fx *f = data;
    if (f->n_resumes < FX_MAX)
        snprintf(f->resumes[f->n_resumes++], sizeof(f->resumes[0]), "%s",
                 w->key);
    return 0;
}

static const struct backend_ops fx_backend = {
    .bind = fx_bind, .evict = fx_evict, .resume = fx_resume};

static inline int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct err e;
    if (!f)
        return -1;
    config_init_defaults(&f->cfg);
    if (plugins_start(&f->plugins, &f->cfg, ORDO_BUILD_PLUGIN_DIR, host_table(),
                      &e) < 0) {
        fprintf(stderr, "plugins: %s\n", e.msg);
        return -1;
    }
    if (scheduler_new(&f->cfg, &f->plugins, &fx_backend, f, &f->s) < 0)
        return -1;
    f->evict_deletes = true;
    *state = f;
    return 0;
}

static inline int fx_teardown(void **state)
{
    struct fx *f = *state;
    scheduler_free(f->s);
    plugins_stop(&f->plugins);
    config_release(&f->cfg);
    free(f);
    resid_reset();
    return 0;
}

/* Feeds every object of yaml as added (update false) or updated; returns
 * the first error, asserting none when want_ok. */
static inline int fx_feed(struct fx *f, const char *yaml, bool update,
                          bool want_ok)
{
    struct manifest_set set;
    int ret = 0;
    manifest_set_init(&set);
    assert_int_equal(
        manifest_load_buffer(&set, yaml, strlen(yaml), "test.yaml", NULL, NULL),
        0);
    assert_int_equal(set.n_errors, 0);
    for (size_t i = 0; i < set.n; i++) {
        struct object *o = set.objects[i];
        set.objects[i] = NULL;
        int r = update ? scheduler_object_updated(f->s, o)
                       : scheduler_object_added(f->s, o);
        if (want_ok)
            assert_int_equal(r, 0);
        if (r < 0 && ret == 0)
            ret = r;
    }
    set.n = 0;
    manifest_set_release(&set);
    return ret;
}

static inline void fx_add(struct fx *f, const char *yaml)
{
    fx_feed(f, yaml, false, true);
}

static inline void fx_update(struct fx *f, const char *yaml)
{
    fx_feed(f, yaml, true, true);
}

static inline void fx_run(struct fx *f)
{
    assert_true(scheduler_run(f->s) >= 0);
}

static inline void fx_delete(struct fx *f, enum object_kind kind,
                             const char *key)
{
    assert_int_equal(scheduler_object_deleted(f->s, kind, key), 0);
}

static inline const struct cluster *fx_c(struct fx *f)
{
    return scheduler_cluster(f->s);
}

static inline const struct workload *fx_wl(struct fx *f, const char *key)
{
    const struct workload *w = cluster_get_workload(fx_c(f), key);
    if (!w)
        fail_msg("no workload %s", key);
    return w;
}

static inline const char *fx_state(struct fx *f, const char *key)
{
    static const char *const names[] = {"pending", "admitted", "finished"};
    const struct workload *w = cluster_get_workload(fx_c(f), key);
    return w ? names[w->state] : "absent";
}

/* Free room of resource res ("cpu", "pods") on node name, in milli. */
static inline int64_t fx_free(struct fx *f, const char *node, const char *res)
{
    const struct node *n = cluster_get_node(fx_c(f), node);
    if (!n)
        fail_msg("no node %s", node);
    return node_free_capacity(n, resid_lookup(res));
}

/* Usage of (flavor, res) in ClusterQueue cq's groups, in milli (-1: the
 * queue does not list the pair). */
static inline int64_t fx_usage(struct fx *f, const char *cq, const char *flavor,
                               const char *res)
{
    const struct cq *q = cluster_get_cq(fx_c(f), cq);
    if (!q)
        fail_msg("no ClusterQueue %s", cq);
    int32_t id = resid_lookup(res);
    for (uint32_t g = 0; g < q->n_groups; g++)
        for (uint32_t k = 0; k < q->groups[g].n_flavors; k++)
            for (uint32_t r = 0; r < q->groups[g].n_res; r++)
                if (strcmp(q->groups[g].flavors[k]->name, flavor) == 0 &&
                    q->groups[g].res_ids[r] == id)
                    return q->groups[g].usage[k * q->groups[g].n_res + r];
    return -1;
}

/* The node pod key is bound to, or NULL. */
static inline const char *fx_node_of(struct fx *f, const char *key)
{
    const struct pod *p = cluster_get_pod(fx_c(f), key);
    return p && p->state == PODSTATE_BOUND && p->node ? p->node->name : NULL;
}

/* Manifest pieces. */
#define FX_RF(name, labels)                                                    \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"          \
    "metadata: {name: " name "}\nspec: {nodeLabels: {" labels "}}\n"
#define FX_CQ(name, extra, flavor, cpu)                                        \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"            \
    "metadata: {name: " name "}\nspec:\n  namespaceSelector: {}\n" extra       \
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"           \
    "    - {name: " flavor ", resources: [{name: cpu, nominalQuota: " cpu      \
    "}]}\n"
#define FX_LQ(ns, name, cq)                                                    \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"              \
    "metadata: {namespace: " ns ", name: " name "}\nspec: {clusterQueue: " cq  \
    "}\n"
#define FX_NODE(name, cpu, extra)                                              \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name                  \
    ", labels: {pool: a}}\n" extra "status: {allocatable: {cpu: '" cpu "'}}\n"
#define FX_JOB(ns, name, lq, par, cpu)                                         \
    "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " name           \
    "\n  namespace: " ns "\n  uid: uid-" name                                  \
    "\n  labels: {kueue.x-k8s.io/queue-name: " lq "}\n"                        \
    "spec:\n  parallelism: " par "\n  template:\n    spec:\n"                  \
    "      schedulerName: ordo-scheduler\n"                                    \
    "      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"
#define FX_JOB_POD(ns, job, i, cpu)                                            \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " job "-" i            \
    "\n  namespace: " ns "\n  ownerReferences:\n"                              \
    "  - {apiVersion: batch/v1, kind: Job, name: " job ", uid: uid-" job       \
    ", controller: true}\n"                                                    \
    "spec:\n  schedulerName: ordo-scheduler\n"                                 \
    "  containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"
#define FX_POD(ns, name, lq, cpu)                                              \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name                 \
    "\n  namespace: " ns "\n  labels: {kueue.x-k8s.io/queue-name: " lq "}\n"   \
    "spec:\n  schedulerName: ordo-scheduler\n"                                 \
    "  containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

/* One flavor "default" on nodes labelled pool=a, ClusterQueue cq (cpu
 * quota `quota`), LocalQueue ns/lq. */
#define FX_QUEUES(quota)                                                       \
    FX_RF("default", "pool: a")                                                \
    FX_CQ("cq", "", "default", quota) FX_LQ("ns", "lq", "cq")

#endif
