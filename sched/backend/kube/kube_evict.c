/* kube_evict.c - preemption victims' pods through the Eviction API, with
 * the outcome recorded on the workload (see kube_evict.h). */
#include "kube_evict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* One request in flight: the callback finds the pod again by key, since
 * the pod may have left the cluster meanwhile. */
struct kube_evict_req {
    struct kube_evict *ke;
    struct kube_evict_req *prev, *next; /* ke->reqs */
    char key[];
};

static void req_unlink(struct kube_evict_req *req)
{
    struct kube_evict *ke = req->ke;
    if (req->prev)
        req->prev->next = req->next;
    else
        ke->reqs = req->next;
    if (req->next)
        req->next->prev = req->prev;
    ke->in_flight--;
}

void kube_evict_init(struct kube_evict *ke, struct kclient *kc,
                     struct cluster *c, int64_t grace_seconds)
{
    memset(ke, 0, sizeof(*ke));
    ke->kc = kc;
    ke->c = c;
    ke->grace_seconds = grace_seconds;
}

void kube_evict_release(struct kube_evict *ke)
{
    if (!ke)
        return;
    for (size_t i = 0; i < ke->n_retry; i++)
        free(ke->retry[i].key);
    free(ke->retry);
    ke->retry = NULL;
    /* Requests the client dropped without calling back. */
    while (ke->reqs) {
        struct kube_evict_req *req = ke->reqs;
        req_unlink(req);
        free(req);
    }
    ke->n_retry = ke->cap_retry = 0;
}

static struct kube_evict_again *again_find(struct kube_evict *ke,
                                           const char *key)
{
    for (size_t i = 0; i < ke->n_retry; i++)
        if (strcmp(ke->retry[i].key, key) == 0)
            return &ke->retry[i];
    return NULL;
}

static void again_drop(struct kube_evict *ke, struct kube_evict_again *a)
{
    free(a->key);
    *a = ke->retry[--ke->n_retry];
}

/* The entry of key, made when there is none. NULL: no memory. */
static struct kube_evict_again *again_get(struct kube_evict *ke,
                                          const char *key)
{
    struct kube_evict_again *a = again_find(ke, key);
    if (a)
        return a;
    if (ke->n_retry == ke->cap_retry) {
        size_t cap = ke->cap_retry ? 2 * ke->cap_retry : 8;
        struct kube_evict_again *v = realloc(ke->retry, cap * sizeof(*v));
        if (!v)
            return NULL;
        ke->retry = v;
        ke->cap_retry = cap;
    }
    char *k = strdup(key);
    if (!k)
        return NULL;
    a = &ke->retry[ke->n_retry++];
    *a = (struct kube_evict_again){.key = k};
    return a;
}

/* A refusal: tried again after the backoff, reported once. */
static void on_refused(struct kube_evict *ke, const char *key,
                       struct workload *w, const char *why)
{
    struct kube_evict_again *a = again_get(ke, key);
    if (!a) {
        LOG_E("evicting pod %s: no memory to retry it", key);
        return;
    }
    bool first = a->refusals++ == 0;
    a->in_flight = false;
    a->backoff_ns = a->backoff_ns ? a->backoff_ns : KUBE_EVICT_BACKOFF_MIN_NS;
    a->due_ns = ke->c->now_ns + a->backoff_ns;
    if (w)
        snprintf(w->evict_note, sizeof(w->evict_note),
                 "pod %s: %s; tried again in %lld s", key, why,
                 (long long)(a->backoff_ns / 1000000000));
    if (first)
        LOG_W("evicting pod %s: %s; not deleted, tried again with backoff", key,
              why);
    else
        LOG_V(2, "evict pod=\"%s\" refused=%u", key, a->refusals);
    a->backoff_ns = a->backoff_ns * 2 > KUBE_EVICT_BACKOFF_MAX_NS
                        ? KUBE_EVICT_BACKOFF_MAX_NS
                        : a->backoff_ns * 2;
    if (ke->refused)
        ke->refused(ke->hook_data, key, why, first);
}

static void on_evicted(void *data, const struct kclient_evict_result *res)
{
    struct kube_evict_req *req = data;
    struct kube_evict *ke = req->ke;
    struct pod *p = NULL;
    req_unlink(req);
    if (res->outcome < KEVICT_OUTCOME_MAX)
        ke->outcomes[res->outcome]++;
    HASH_FIND_STR(ke->c->pods, req->key, p);
    struct workload *w = p ? p->wl : NULL;
    const char *why = res->why ? res->why : "";
    if (res->outcome == KEVICT_REFUSED) {
        on_refused(ke, req->key, w, why);
        free(req);
        return;
    }
    struct kube_evict_again *a = again_find(ke, req->key);
    if (a && res->outcome != KEVICT_FAILED)
        again_drop(ke, a); /* refused before, gone now */
    bool failed = res->outcome == KEVICT_FAILED;
    if (w)
        snprintf(w->evict_note, sizeof(w->evict_note), "pod %s: %s%s", req->key,
                 why, failed ? "; will retry" : "");
    if (failed) {
        LOG_E("evicting pod %s failed: %s", req->key,
              res->why ? res->why : "no answer");
        /* A pod that left meanwhile needs nothing more. */
        if (p && !(a = again_get(ke, req->key)))
            LOG_E("evicting pod %s: no memory to retry it", req->key);
        else if (a)
            *a = (struct kube_evict_again){.key = a->key}; /* at once */
    } else {
        LOG_V(2, "evict pod=\"%s\" outcome=%s", req->key,
              kclient_evict_result_name(res->outcome));
    }
    free(req);
}

int kube_evict_pod(void *data, const struct pod *p)
{
    struct kube_evict *ke = data;
    const struct object_meta *m = p->obj ? &p->obj->meta : NULL;
    if (!m || !m->name || !m->namespace_)
        return -EINVAL;
    size_t len = strlen(p->key) + 1;
    struct kube_evict_req *req = malloc(sizeof(*req) + len);
    if (!req)
        return -ENOMEM;
    req->ke = ke;
    memcpy(req->key, p->key, len);
    /* The uid makes sure a pod that took the same name is not hit. */
    const char *uid = m->uid && m->uid[0] ? m->uid : NULL;
    int r = kclient_evict_pod(ke->kc, m->namespace_, m->name, uid,
                              ke->grace_seconds, on_evicted, req);
    if (r < 0) {
        free(req);
        return r;
    }
    struct kube_evict_again *a = again_find(ke, p->key);
    if (a && a->refusals)
        a->in_flight = true; /* not started twice by kube_evict_retry */
    req->prev = NULL;
    req->next = ke->reqs;
    if (ke->reqs)
        ke->reqs->prev = req;
    ke->reqs = req;
    ke->in_flight++;
    return 0;
}

int kube_evict_retry(struct kube_evict *ke)
{
    int started = 0;
    int err = 0;
    for (size_t i = 0; i < ke->n_retry;) {
        struct kube_evict_again *a = &ke->retry[i];
        struct pod *p = NULL;
        HASH_FIND_STR(ke->c->pods, a->key, p);
        bool wanted =
            p && p->wl && p->wl->evicting && p->state == PODSTATE_BOUND;
        if (a->in_flight || (wanted && a->due_ns > ke->c->now_ns)) {
            i++; /* its answer, or its time, still to come */
            continue;
        }
        int r = wanted && !err ? kube_evict_pod(ke, p) : 0;
        if (r < 0)
            err = r;
        if (wanted && err) {
            i++; /* try again next time */
        } else if (wanted && a->refusals) {
            a->in_flight = true; /* keeps its backoff */
            started++;
            i++;
        } else {
            started += wanted;
            again_drop(ke, a); /* the entry moved: i stays */
        }
    }
    return err ? err : started;
}
