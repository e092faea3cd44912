/* kinformer.h - one resource of the API server kept in step: list it
 * (paginated), then watch from the list's resourceVersion, and tell the
 * owner what was added, updated and deleted.
 *
 *   list     GET {path}?limit=N[&continue=T], page after page; an expired
 *            continue token (410) starts the list again
 *   watch    GET {path}?watch=1&resourceVersion=RV&allowWatchBookmarks=true
 *            &timeoutSeconds=S; lines buffered to '\n'; BOOKMARKs move RV
 *   ended    a watch the server closed resumes from the last RV; one that
 *            broke resumes after a backoff
 *   410      (an ERROR event or the status of the watch) relists; every
 *            object known before and absent from the new list is reported
 *            deleted
 *   404      on the list: the server does not serve the resource (a CRD not
 *            installed). Reported once (unserved), counted as synced with no
 *            objects, listed again every absent_retry_ms.
 * Events come in the server's order; one whose resourceVersion is the one
 * already known is dropped (a replayed list or watch), so duplicates are
 * harmless. List items get the kind and apiVersion that lists leave out.
 * "synced" is called once, when the first list (or the first 404) ended. */
#ifndef ORDO_KINFORMER_H
#define ORDO_KINFORMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "krequest.h"

#define KINF_DEFAULT_PAGE         500
#define KINF_DEFAULT_WATCH_S      300
#define KINF_DEFAULT_ABSENT_RETRY 30000

enum kinf_event { KINF_ADDED = 0, KINF_UPDATED, KINF_DELETED };

struct kinformer_ops {
    /* obj is the object (for DELETED, its last state: the watch's, the
     * one kept, or the stub of keep_objects); borrowed: take a reference
     * (json_object_get) to keep it. */
    void (*event)(void *data, enum kinf_event ev, struct json_object *obj);
    void (*synced)(void *data); /* may be NULL */
    void (*unserved)(void *data, long status, const char *why); /* NULL ok */
};

struct kinformer_config {
    const char *path;         /* "/api/v1/pods", "/apis/batch/v1/jobs" */
    const char *kind;         /* "Pod": set on list items */
    const char *api_version;  /* "v1", "batch/v1" */
    uint32_t page_size;       /* 0: KINF_DEFAULT_PAGE */
    uint32_t watch_timeout_s; /* 0: KINF_DEFAULT_WATCH_S */
    int64_t absent_retry_ms;  /* 0: KINF_DEFAULT_ABSENT_RETRY */
    /* Keep every object (kinformer_get()). Without, only keys and
     * resourceVersions are kept (a large cluster's pods are many), and an
     * object a relist no longer sees is reported deleted with just its
     * kind, apiVersion, name, namespace and resourceVersion. */
    bool keep_objects;
};

struct kinformer_stats {
    uint64_t lists, pages, watches, relists, events, bad_lines;
};

struct kinformer;

/* An informer on q (not owned); the config's strings are copied. Starts
 * nothing. 0 and *ret (free with kinformer_free()), -EINVAL or -ENOMEM. */
int kinformer_new(struct krequests *q, const struct kinformer_config *cfg,
                  const struct kinformer_ops *ops, void *data,
                  struct kinformer **ret);
/* Cancels its request and frees it with what it knows. Accepts NULL. Not
 * from its own callback. */
void kinformer_free(struct kinformer *inf);
/* Queues the first list. 0, -EALREADY or what krequest_start() returns. */
int kinformer_start(struct kinformer *inf);

bool kinformer_synced(const struct kinformer *inf);
/* The server answered 404 to the last list. */
bool kinformer_unserved(const struct kinformer *inf);
size_t kinformer_count(const struct kinformer *inf);
/* The object known under key ("ns/name" or "name"), borrowed; NULL when
 * unknown or when objects are not kept. */
struct json_object *kinformer_get(const struct kinformer *inf, const char *key);
const char *kinformer_resource_version(const struct kinformer *inf);
void kinformer_get_stats(const struct kinformer *inf,
                         struct kinformer_stats *ret);

/* "ns/name" or "name" of an object into buf (NULL when it has no name). */
const char *kinformer_key(struct json_object *obj, char *buf, size_t size);

#endif
