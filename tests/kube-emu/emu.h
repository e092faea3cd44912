/* emu.h - the Kubernetes API-server emulator (ordo-kube-emu): what its
 * parts share. One process, one store behind one lock; libmicrohttpd runs
 * a thread per connection, so a watch may block in its reader while the
 * main thread runs the emulated controllers and kubelet. */
#ifndef ORDO_KUBE_EMU_H
#define ORDO_KUBE_EMU_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

/* How every JSON answer is written. */
#define EMU_JSON (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ---- kinds (emu_discovery.c) ---------------------------------------- */
struct emu_kind {
    const char *group; /* "" for core */
    const char *version;
    const char *resource; /* plural */
    const char *singular;
    const char *kind;
    bool namespaced;
    const char *short_names; /* comma separated, or NULL */
    bool has_status;
    bool crd;      /* served as a custom resource: no strategic merge */
    int storage;   /* index of the kind whose objects these are */
    bool writable; /* false: only the subresources write (bindings) */
};

extern const struct emu_kind emu_kinds[];
extern const size_t emu_nkinds;

/* Index of the kind serving group/version/resource, or -1. */
int emu_kind_find(const char *group, const char *version, const char *resource);
/* Index of the kind by its apiVersion and kind name, or -1. */
int emu_kind_by_kind(const char *api_version, const char *kind);
/* "v1" or "group/version"; buf of 128 bytes. */
const char *emu_kind_api_version(const struct emu_kind *k, char *buf,
                                 size_t size);

/* ---- errors as metav1.Status (emu_util.c) --------------------------- */
struct emu_err {
    int code;           /* HTTP status; 0: no error */
    const char *reason; /* NotFound, Conflict, ... */
    char message[512];
    int kind; /* for details.kind; -1 if none */
    char name[256];
    /* A 422's one cause (details.causes), kubectl prints "field: cause". */
    const char *field, *cause;
};

void emu_err_set(struct emu_err *err, int code, const char *reason, int kind,
                 const char *name, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* A new Status object for err (a failure) or success; caller owns it. */
struct json_object *emu_status_new(const struct emu_err *err);
struct json_object *emu_status_success(int code, int kind, const char *name,
                                       const char *uid);

/* ---- small helpers (emu_util.c) ------------------------------------- */
/* Borrowed member by dotted path ("metadata.name"), or NULL. */
struct json_object *emu_path(struct json_object *o, const char *path);
const char *emu_path_str(struct json_object *o, const char *path);
/* The object at o[key], created as {} when missing or not an object. */
struct json_object *emu_child(struct json_object *o, const char *key);
/* RFC 3339 now, seconds ("2026-01-01T00:00:00Z") or micro precision. */
void emu_time_now(char *buf, size_t size, bool micro);
int64_t emu_time_parse(const char *s); /* seconds since epoch, or -1 */
int64_t emu_now_ms(void);              /* monotonic */
void emu_uid_new(char *buf, size_t size);
void emu_random_suffix(char *buf, size_t n);
bool emu_json_equal(struct json_object *a, struct json_object *b);
/* A deep copy (a new reference), NULL for NULL. */
struct json_object *emu_copy(struct json_object *o);

/* ---- audit (emu_audit.c) -------------------------------------------- */
struct emu_audit_rec {
    const char *verb, *resource, *subresource, *ns, *name;
    const char *rv, *node, *user, *user_agent;
    /* A bind's ordo.dev/cluster-queue-version annotation (the ClusterQueue
     * version its admission was decided against), as "cqVersion". */
    const char *cq_version;
    int code;
    /* An injected fault (verb "fault"): what, and the request's verb. */
    const char *fault, *request_verb;
};
int emu_audit_open(const char *path);
void emu_audit_write(const struct emu_audit_rec *r);
/* A write the emulator made itself (user: the controller), code 200. */
void emu_audit_internal(const char *verb, const char *resource, const char *ns,
                        const char *name, const char *user);
void emu_audit_close(void);

/* ---- the store (emu_store.c); every call with emu.lock held --------- */
enum emu_ev_type { EMU_ADDED, EMU_MODIFIED, EMU_DELETED };

struct emu_obj {
    char *key; /* "ns/name" or "name" */
    struct json_object *obj;
};

struct emu_bucket {
    struct emu_obj *v;
    size_t n, cap;
};

struct emu_event {
    int64_t rv;
    int storage;
    enum emu_ev_type type;
    struct json_object *obj, *old; /* owned references; old may be NULL */
};

struct emu_token {
    char *name, *secret;
};

struct emu {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int64_t rv;
    struct emu_bucket *buckets; /* emu_nkinds */
    int64_t *last_change;       /* emu_nkinds: the newest change's version */
    struct emu_event *ring;
    size_t ring_cap, ring_start, ring_len;
    bool stopping;
    /* configuration */
    struct emu_token *tokens;
    size_t ntokens;
    bool kubelet, ctrl_job, ctrl_jobset;
    int64_t time_scale;
    int64_t bookmark_ms;
};

extern struct emu emu;

int emu_store_init(size_t window);
void emu_store_free(void);
/* Borrowed object, or NULL. */
struct json_object *emu_store_get(int storage, const char *ns,
                                  const char *name);
/* Takes obj (a fresh object); fills metadata; on success *ret_obj is a
 * borrowed reference to the stored object. */
int emu_store_create(int kind, struct json_object *obj,
                     struct json_object **ret_obj, struct emu_err *err);
/* Replaces the stored object by obj (taken), checking the resourceVersion
 * precondition when obj carries one. sub: NULL, or "status" (only status
 * changes), or "*" (an internal write: anything changes). */
int emu_store_update(int kind, struct json_object *obj, const char *sub,
                     struct json_object **ret_obj, struct emu_err *err);
/* Deletes, honouring finalizers and preconditions (uid, resourceVersion,
 * may be NULL); dependents go by ownerReference unless orphan.
 * *ret_obj: a new reference to the last state, or NULL. */
int emu_store_delete(int kind, const char *ns, const char *name,
                     const char *pre_uid, const char *pre_rv, bool orphan,
                     struct json_object **ret_obj, struct emu_err *err);
/* Index of the first item whose key is >= key in the bucket. */
size_t emu_store_lower(int storage, const char *key);
/* The oldest resourceVersion a watch may start after. */
int64_t emu_store_oldest(void);
/* A new reference to o as kind k shows it (events.k8s.io conversion). */
struct json_object *emu_view(int kind, struct json_object *o);

/* ---- selectors (emu_select.c) --------------------------------------- */
struct emu_sel;
/* NULL or "" selects everything; -EINVAL with a message in err. */
int emu_sel_parse(const char *labels, const char *fields,
                  struct emu_sel **ret_sel, struct emu_err *err);
bool emu_sel_match(const struct emu_sel *s, struct json_object *o);
void emu_sel_free(struct emu_sel *s);

/* ---- patches (emu_patch.c) ------------------------------------------ */
/* Applies patch to a deep copy of doc; *ret_out is the caller's. */
int emu_patch_merge(struct json_object *doc, struct json_object *patch,
                    struct json_object **ret_out);
int emu_patch_json(struct json_object *doc, struct json_object *patch,
                   struct json_object **ret_out, struct emu_err *err);
int emu_patch_strategic(struct json_object *doc, struct json_object *patch,
                        struct json_object **ret_out);

/* ---- tables (emu_table.c) ------------------------------------------- */
/* A meta.k8s.io/v1 Table of the items (borrowed views). */
struct json_object *emu_table_new(int kind, struct json_object **items,
                                  size_t n, const char *rv, const char *cont);

/* ---- discovery and OpenAPI (emu_discovery.c) ------------------------ */
/* 0 with *ret_body (malloc'd) when path is a discovery path, else
 * -ENOENT. */
int emu_discovery(const char *path, char **ret_body, int *ret_code);
void emu_discovery_set_openapi_dir(const char *dir);

/* ---- HTTP (emu_http.c) ---------------------------------------------- */
struct MHD_Daemon;
int emu_http_start(const char *host, int port, bool tls, const char *cert,
                   const char *key, struct MHD_Daemon **ret_d, int *ret_port);

/* ---- the resource API (emu_api.c) ----------------------------------- */
struct emu_req {
    const char *method;
    int kind; /* index into emu_kinds */
    const char *ns, *name, *sub;
    const char *body;
    size_t body_len;
    const char *content_type;
    bool table;
    const char *user, *user_agent;
    /* query */
    const char *label_sel, *field_sel, *rv, *cont;
    const char *field_manager, *dry_run;
    long limit;
    bool watch, bookmarks, initial_events;
    long timeout_s;
};
struct emu_resp {
    int code;
    char *body; /* malloc'd */
};
/* Answers a non-watch request on a resource. */
void emu_api_handle(const struct emu_req *r, struct emu_resp *resp);

/* ---- watch (emu_watch.c) -------------------------------------------- */
struct emu_watch;
/* A new watch for r, or an error answer in resp (then NULL). */
struct emu_watch *emu_watch_new(const struct emu_req *r, struct emu_resp *resp);
/* Fills buf with whole lines; 0 at the end of the stream, -1 on stop. */
ssize_t emu_watch_read(struct emu_watch *w, char *buf, size_t max);
void emu_watch_free(struct emu_watch *w);

/* ---- controllers and kubelet (emu_ctrl.c, emu_kubelet.c) ------------ */
void emu_ctrl_job(void);
void emu_ctrl_jobset(void);
void emu_kubelet_tick(void);
/* Kind indexes the controllers use. */
int emu_k(const char *resource);

/* ---- injected faults (emu_fault.c) ---------------------------------- */
/* Shares are parts per million of the requests (or watch streams) they
 * apply to; 0: off. Set once by main before the server starts, except
 * down, which the signal handlers flip. */
struct emu_faults {
    uint64_t seed;
    uint32_t drop_watch_ppm, gone_ppm, duplicate_ppm, too_many_ppm;
    uint32_t server_error_ppm, bind_timeout_ppm, malformed_ppm;
    int64_t latency_ms;
    const char *spare; /* a token name no fault touches (the test's own) */
    volatile sig_atomic_t down;  /* 1: every connection refused */
    volatile sig_atomic_t flips; /* how many times down changed */
};
extern struct emu_faults emu_faults;

void emu_fault_seed(uint64_t seed);
uint64_t emu_fault_random(void);
/* True with probability ppm / 10^6. */
bool emu_fault_draw(uint32_t ppm);
/* "0.25" -> 250000; -EINVAL unless a number in [0, 1]. */
int emu_fault_parse_share(const char *s, uint32_t *ret_ppm);
/* Names the client this thread serves now; emu_fault_spared: whether it
 * is --fault-spare's, which no fault touches. */
void emu_fault_set_client(const char *user);
bool emu_fault_spared(void);
/* One audit line for one injected fault. */
void emu_fault_audit(const char *fault, const char *verb, const char *resource,
                     const char *ns, const char *name, const char *user,
                     const char *user_agent, int code);
/* Takes view; returns it, or a broken copy of it (audited). */
struct json_object *emu_fault_malform(int kind, struct json_object *view);

#endif
