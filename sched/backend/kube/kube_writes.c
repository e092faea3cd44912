/* kube_writes.c - the queue of writes to the API server: states per key,
 * merge patches from what was sent, a token bucket (see kube_writes.h). */
#include "kube_writes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "kube_json.h"

struct kube_write_entry {
    char *key;
    enum kube_write_kind kind;
    char *create_path, *patch_path, *patch_type;
    struct json_object *want; /* the latest state */
    struct json_object *sent; /* what the server has, NULL: unknown */
    bool created;             /* no POST needed (or none ever) */
    bool pending;
    bool retired; /* forgotten once its pending write goes out */
    struct kube_write_entry *prev, *next; /* pending list */
    UT_hash_handle hh;
};

/* ---- token bucket ------------------------------------------------------ */

void kube_bucket_init(struct kube_bucket *b, int64_t burst, int64_t per,
                      int64_t period_ns, int64_t now_ns)
{
    b->burst = burst > 0 ? burst : 1;
    b->per = per > 0 ? per : 1;
    b->period_ns = period_ns > 0 ? period_ns : 1;
    b->level = b->burst * b->period_ns;
    b->last_ns = now_ns;
}

static void bucket_refill(struct kube_bucket *b, int64_t now_ns)
{
    int64_t full = b->burst * b->period_ns;
    if (now_ns <= b->last_ns)
        return;
    int64_t dt = now_ns - b->last_ns;
    b->last_ns = now_ns;
    /* dt * per could wrap: past what fills the bucket, it is full. */
    if (dt >= (full - b->level) / b->per + 1) {
        b->level = full;
        return;
    }
    b->level += dt * b->per;
    if (b->level > full)
        b->level = full;
}

bool kube_bucket_take(struct kube_bucket *b, int64_t now_ns)
{
    bucket_refill(b, now_ns);
    if (b->level < b->period_ns)
        return false;
    b->level -= b->period_ns;
    return true;
}

int64_t kube_bucket_tokens(struct kube_bucket *b, int64_t now_ns)
{
    bucket_refill(b, now_ns);
    return b->level / b->period_ns;
}

/* ---- queue --------------------------------------------------------------- */

void kube_writes_init(struct kube_writes *q, int64_t rate, int64_t burst,
                      int64_t now_ns)
{
    memset(q, 0, sizeof(*q));
    kube_bucket_init(&q->bucket, burst, rate, INT64_C(1000000000), now_ns);
}

static void unlink_pending(struct kube_writes *q, struct kube_write_entry *e)
{
    if (!e->pending)
        return;
    if (e->prev)
        e->prev->next = e->next;
    else
        q->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        q->tail = e->prev;
    e->prev = e->next = NULL;
    e->pending = false;
    q->n_pending--;
}

static void link_pending(struct kube_writes *q, struct kube_write_entry *e)
{
    if (e->pending)
        return; /* keeps its place: the newer state coalesces */
    e->prev = q->tail;
    e->next = NULL;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    e->pending = true;
    q->n_pending++;
}

static void entry_free(struct kube_write_entry *e)
{
    if (!e)
        return;
    free(e->key);
    free(e->create_path);
    free(e->patch_path);
    free(e->patch_type);
    json_object_put(e->want);
    json_object_put(e->sent);
    free(e);
}

void kube_writes_release(struct kube_writes *q)
{
    if (!q)
        return;
    struct kube_write_entry *e, *tmp;
    HASH_ITER(hh, q->by_key, e, tmp)
    {
        HASH_DEL(q->by_key, e);
        entry_free(e);
    }
    q->head = q->tail = NULL;
    q->n_pending = 0;
}

static int set_str(char **to, const char *s)
{
    char *copy = NULL;
    if (s && !(copy = strdup(s)))
        return -ENOMEM;
    free(*to);
    *to = copy;
    return 0;
}

/* Whether e needs a request: not created yet, or its state differs from
 * what the server has. */
static bool entry_differs(const struct kube_write_entry *e)
{
    if (!e->created)
        return true;
    return !e->sent || !json_object_equal(e->sent, e->want);
}

int kube_writes_put(struct kube_writes *q, enum kube_write_kind kind,
                    const char *key, const char *create_path,
                    const char *patch_path, const char *patch_type,
                    struct json_object *state)
{
    if (!state)
        return -ENOMEM;
    if (kind == KUBE_WRITE_WORKLOAD && q->workloads_off) {
        q->dropped++;
        json_object_put(state);
        return 0;
    }
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    bool fresh = !e;
    if (fresh) {
        e = calloc(1, sizeof(*e));
        if (!e || !(e->key = strdup(key))) {
            free(e);
            json_object_put(state);
            return -ENOMEM;
        }
        e->kind = kind;
        e->created = !create_path;
    }
    if (set_str(&e->create_path, create_path) < 0 ||
        set_str(&e->patch_path, patch_path) < 0 ||
        set_str(&e->patch_type, patch_type) < 0) {
        json_object_put(state);
        if (fresh)
            entry_free(e);
        return -ENOMEM;
    }
    if (fresh)
        HASH_ADD_KEYPTR(hh, q->by_key, e->key, strlen(e->key), e);
    q->puts++;
    e->retired = false; /* wanted again */
    if (e->pending)
        q->coalesced++;
    json_object_put(e->want);
    e->want = state;
    if (entry_differs(e))
        link_pending(q, e);
    else
        unlink_pending(q, e);
    return 0;
}

const struct json_object *kube_writes_state(const struct kube_writes *q,
                                            const char *key)
{
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    return e ? e->want : NULL;
}

bool kube_writes_pending(const struct kube_writes *q, const char *key)
{
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    return e && e->pending;
}

void kube_writes_failed(struct kube_writes *q, const char *key,
                        bool not_created)
{
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    if (!e)
        return;
    q->failed++;
    json_object_put(e->sent);
    e->sent = NULL;
    if (not_created && e->create_path)
        e->created = false;
    link_pending(q, e);
}

void kube_writes_forget(struct kube_writes *q, const char *key)
{
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    if (!e)
        return;
    unlink_pending(q, e);
    HASH_DEL(q->by_key, e);
    entry_free(e);
}

void kube_writes_retire(struct kube_writes *q, const char *key)
{
    struct kube_write_entry *e = NULL;
    HASH_FIND_STR(q->by_key, key, e);
    if (!e)
        return;
    if (e->pending && entry_differs(e)) {
        e->retired = true; /* its last write still to go */
        return;
    }
    kube_writes_forget(q, key);
    q->retired++;
}

size_t kube_writes_count(const struct kube_writes *q)
{
    return HASH_COUNT(q->by_key);
}

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Sends e's request: a POST of the whole state, or the merge patch from
 * what was sent. */
static int send_entry(struct kube_writes *q, struct kube_write_entry *e,
                      kube_write_fn fn, void *data)
{
    struct json_object *patch = NULL;
    struct kube_request req = {.kind = e->kind, .key = e->key};
    int r;
    if (!e->created) {
        req.method = "POST";
        req.path = e->create_path;
        req.content_type = "application/json";
        req.body = json_object_to_json_string_ext(e->want, JSON_FLAGS);
    } else {
        if ((r = kjson_merge_diff(e->sent, e->want, &patch)) < 0)
            return r;
        req.method = "PATCH";
        req.path = e->patch_path;
        req.content_type =
            e->patch_type ? e->patch_type : "application/merge-patch+json";
        req.body =
            patch ? json_object_to_json_string_ext(patch, JSON_FLAGS) : "{}";
    }
    if (!req.body || !req.path) {
        json_object_put(patch);
        return -ENOMEM;
    }
    r = fn(data, &req);
    json_object_put(patch);
    if (r < 0)
        return r;
    struct json_object *sent = NULL;
    if (json_object_deep_copy(e->want, &sent, NULL) < 0)
        sent = NULL; /* unknown: the next put sends it whole */
    json_object_put(e->sent);
    e->sent = sent;
    e->created = true;
    q->sent++;
    unlink_pending(q, e);
    if (e->retired) {
        HASH_DEL(q->by_key, e);
        entry_free(e);
        q->retired++;
    }
    return 0;
}

int kube_writes_drain(struct kube_writes *q, int64_t now_ns, kube_write_fn fn,
                      void *data)
{
    int n = 0;
    while (q->head) {
        struct kube_write_entry *e = q->head;
        if (!entry_differs(e)) {
            unlink_pending(q, e);
            if (e->retired) {
                HASH_DEL(q->by_key, e);
                entry_free(e);
                q->retired++;
            }
            continue;
        }
        if (!kube_bucket_take(&q->bucket, now_ns))
            break;
        int r = send_entry(q, e, fn, data);
        if (r < 0)
            return r;
        n++;
    }
    return n;
}
