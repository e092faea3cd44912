/* klease.c - the leader-election state machine of klease.h: what the
 * record says, when we observed it change, when our last good renew was
 * sent, and the Lease bodies to send. */
#include "klease.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOLDER_MAX 256
#define TIME_MAX   40
#define RV_MAX     64

/* What a Lease says (spec and resourceVersion). */
struct record {
    bool present;
    char holder[HOLDER_MAX];
    int64_t duration_s, transitions;
    char acquire[TIME_MAX], renew[TIME_MAX], rv[RV_MAX];
};

enum pending { P_NONE = 0, P_GET, P_WRITE };

struct klease {
    char *identity;
    char path[512], collection[400], ns[256], name[256];
    int64_t lease_ms, renew_deadline_ms, retry_ms;
    enum klease_role role;
    struct record rec;   /* last observed */
    int64_t observed_ms; /* when rec last changed, our clock */
    int64_t renewed_ms;  /* when the last good write was sent */
    int64_t next_ms;     /* next GET no sooner */
    enum pending pending;
    int64_t write_sent_ms;
    bool write_release; /* the write in flight gives the lease back */
    bool stopping;      /* klease_release() called: no more leading */
};

int klease_new(const struct klease_config *cfg, struct klease **ret)
{
    if (!cfg || !ret || !cfg->identity || !*cfg->identity ||
        strlen(cfg->identity) >= HOLDER_MAX || !cfg->ns || !*cfg->ns ||
        !cfg->name || !*cfg->name || strlen(cfg->ns) > 253 ||
        strlen(cfg->name) > 253 || cfg->lease_ms < 1000 ||
        cfg->renew_deadline_ms >= cfg->lease_ms || cfg->retry_ms <= 0 ||
        cfg->retry_ms >= cfg->renew_deadline_ms)
        return -EINVAL;
    struct klease *kl = calloc(1, sizeof(*kl));
    if (!kl || !(kl->identity = strdup(cfg->identity))) {
        free(kl);
        return -ENOMEM;
    }
    snprintf(kl->ns, sizeof(kl->ns), "%s", cfg->ns);
    snprintf(kl->name, sizeof(kl->name), "%s", cfg->name);
    snprintf(kl->collection, sizeof(kl->collection),
             "/apis/coordination.k8s.io/v1/namespaces/%s/leases", cfg->ns);
    snprintf(kl->path, sizeof(kl->path), "%s/%s", kl->collection, cfg->name);
    kl->lease_ms = cfg->lease_ms;
    kl->renew_deadline_ms = cfg->renew_deadline_ms;
    kl->retry_ms = cfg->retry_ms;
    kl->next_ms = INT64_MIN;
    *ret = kl;
    return 0;
}

void klease_free(struct klease *kl)
{
    if (!kl)
        return;
    free(kl->identity);
    free(kl);
}

const char *klease_path(const struct klease *kl)
{
    return kl->path;
}
const char *klease_collection(const struct klease *kl)
{
    return kl->collection;
}
enum klease_role klease_role(const struct klease *kl)
{
    return kl->role;
}
const char *klease_holder(const struct klease *kl)
{
    return kl->rec.holder;
}
int64_t klease_transitions(const struct klease *kl)
{
    return kl->rec.transitions;
}

/* Leader by the renew deadline (klease_is_leader() less stopping). */
static bool leading(const struct klease *kl, int64_t mono_ms)
{
    return kl->role == KLEASE_LEADER &&
           mono_ms - kl->renewed_ms < kl->renew_deadline_ms;
}

bool klease_is_leader(const struct klease *kl, int64_t mono_ms)
{
    return kl && !kl->stopping && leading(kl, mono_ms);
}

bool klease_may_send(const struct klease *kl, int64_t mono_ms)
{
    switch (kl->role) {
    case KLEASE_FOLLOWER:
        return !kl->stopping;
    case KLEASE_LEADER:
    case KLEASE_RELEASING:
        return mono_ms - kl->renewed_ms < kl->renew_deadline_ms;
    default:
        return false;
    }
}

char *klease_microtime(int64_t wall_us, char *buf, size_t size)
{
    time_t s = (time_t)(wall_us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char base[24];
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%06lldZ", base, (long long)(wall_us % 1000000));
    return buf;
}

char *klease_identity(const char *host, const uint8_t rnd[16], char *buf,
                      size_t size)
{
    uint8_t u[16];
    memcpy(u, rnd, 16);
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(buf, size,
             "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             host, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
             u[10], u[11], u[12], u[13], u[14], u[15]);
    return buf;
}

static const char *str_at(struct json_object *o, const char *a, const char *b)
{
    struct json_object *x, *y;
    if (!json_object_object_get_ex(o, a, &x) ||
        !json_object_object_get_ex(x, b, &y) ||
        !json_object_is_type(y, json_type_string))
        return NULL;
    return json_object_get_string(y);
}

static int64_t int_at(struct json_object *o, const char *a, const char *b)
{
    struct json_object *x, *y;
    if (!json_object_object_get_ex(o, a, &x) ||
        !json_object_object_get_ex(x, b, &y) ||
        !json_object_is_type(y, json_type_int))
        return 0;
    return json_object_get_int64(y);
}

/* A Lease's record; false when it is not ours to read (name). */
static bool parse(const struct klease *kl, struct json_object *o,
                  struct record *r)
{
    const char *name = str_at(o, "metadata", "name");
    if (!name || strcmp(name, kl->name))
        return false;
    const char *s;
    memset(r, 0, sizeof(*r));
    r->present = true;
    snprintf(r->holder, sizeof(r->holder), "%s",
             (s = str_at(o, "spec", "holderIdentity")) ? s : "");
    snprintf(r->acquire, sizeof(r->acquire), "%s",
             (s = str_at(o, "spec", "acquireTime")) ? s : "");
    snprintf(r->renew, sizeof(r->renew), "%s",
             (s = str_at(o, "spec", "renewTime")) ? s : "");
    snprintf(r->rv, sizeof(r->rv), "%s",
             (s = str_at(o, "metadata", "resourceVersion")) ? s : "");
    r->duration_s = int_at(o, "spec", "leaseDurationSeconds");
    r->transitions = int_at(o, "spec", "leaseTransitions");
    return true;
}

/* Takes r as the record; the expiry clock restarts when it changed. */
static void observe(struct klease *kl, int64_t mono_ms, const struct record *r)
{
    if (!kl->rec.present || !r->present || strcmp(kl->rec.rv, r->rv) ||
        strcmp(kl->rec.holder, r->holder) || strcmp(kl->rec.renew, r->renew))
        kl->observed_ms = mono_ms;
    kl->rec = *r;
}

void klease_observe(struct klease *kl, int64_t mono_ms,
                    struct json_object *lease)
{
    struct record r;
    if (kl && lease && parse(kl, lease, &r))
        observe(kl, mono_ms, &r);
}

static bool held_by_other(const struct klease *kl, int64_t mono_ms)
{
    if (!kl->rec.present || !kl->rec.holder[0] ||
        !strcmp(kl->rec.holder, kl->identity))
        return false;
    /* The record's duration, as client-go does; ours when it has none. */
    int64_t d =
        kl->rec.duration_s > 0 ? kl->rec.duration_s * 1000 : kl->lease_ms;
    return mono_ms < kl->observed_ms + d;
}

static void wait_until(struct klease_action *ret, int64_t at)
{
    *ret = (struct klease_action){.what = KLEASE_WAIT, .at_ms = at};
}

/* The Lease to send: ours from now (or released), from the last record. */
static int body(struct klease *kl, int64_t mono_ms, int64_t wall_us,
                bool release, struct klease_action *ret)
{
    char now[TIME_MAX];
    klease_microtime(wall_us, now, sizeof(now));
    bool takeover = release || !kl->rec.present || !kl->rec.holder[0] ||
                    strcmp(kl->rec.holder, kl->identity);
    int64_t transitions = kl->rec.transitions;
    /* client-go counts a transition whenever a non-holder takes it, a
     * released lease included. */
    if (kl->rec.present && !release && strcmp(kl->rec.holder, kl->identity))
        transitions++;
    struct json_object *o = json_object_new_object(),
                       *meta = json_object_new_object(),
                       *spec = json_object_new_object();
    if (!o || !meta || !spec) {
        json_object_put(o);
        json_object_put(meta);
        json_object_put(spec);
        return -ENOMEM;
    }
    json_object_object_add(o, "apiVersion",
                           json_object_new_string("coordination.k8s.io/v1"));
    json_object_object_add(o, "kind", json_object_new_string("Lease"));
    json_object_object_add(meta, "name", json_object_new_string(kl->name));
    json_object_object_add(meta, "namespace", json_object_new_string(kl->ns));
    if (kl->rec.present)
        json_object_object_add(meta, "resourceVersion",
                               json_object_new_string(kl->rec.rv));
    json_object_object_add(o, "metadata", meta);
    json_object_object_add(spec, "holderIdentity",
                           json_object_new_string(release ? "" : kl->identity));
    json_object_object_add(
        spec, "leaseDurationSeconds",
        json_object_new_int64(release ? 1 : kl->lease_ms / 1000));
    json_object_object_add(
        spec, "acquireTime",
        json_object_new_string(
            takeover || !kl->rec.acquire[0] ? now : kl->rec.acquire));
    json_object_object_add(spec, "renewTime", json_object_new_string(now));
    json_object_object_add(spec, "leaseTransitions",
                           json_object_new_int64(transitions));
    json_object_object_add(o, "spec", spec);
    char *text =
        strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    if (!text)
        return -ENOMEM;
    *ret = (struct klease_action){
        .what = kl->rec.present ? KLEASE_UPDATE : KLEASE_CREATE, .body = text};
    kl->pending = P_WRITE;
    kl->write_sent_ms = mono_ms;
    kl->write_release = release;
    return 0;
}

/* The renew deadline passed: leadership ends, for good. */
static void check_deadline(struct klease *kl, int64_t mono_ms)
{
    if (kl->role == KLEASE_LEADER && !leading(kl, mono_ms))
        kl->role = KLEASE_LOST;
}

static bool done(const struct klease *kl)
{
    return kl->role == KLEASE_LOST || kl->role == KLEASE_RELEASED ||
           kl->role == KLEASE_RELEASING;
}

int klease_tick(struct klease *kl, int64_t mono_ms, int64_t wall_us,
                struct klease_action *ret)
{
    (void)wall_us;
    check_deadline(kl, mono_ms);
    if (done(kl) || kl->pending) {
        wait_until(ret, done(kl) ? INT64_MAX : mono_ms + kl->retry_ms);
        return 0;
    }
    if (mono_ms < kl->next_ms) {
        int64_t at = kl->next_ms;
        if (kl->role == KLEASE_LEADER &&
            kl->renewed_ms + kl->renew_deadline_ms < at)
            at = kl->renewed_ms + kl->renew_deadline_ms;
        wait_until(ret, at);
        return 0;
    }
    kl->pending = P_GET;
    *ret = (struct klease_action){.what = KLEASE_GET};
    return 0;
}

int klease_got(struct klease *kl, int64_t mono_ms, int64_t wall_us, long status,
               const char *text, struct klease_action *ret)
{
    kl->pending = P_NONE;
    kl->next_ms = mono_ms + kl->retry_ms;
    check_deadline(kl, mono_ms);
    wait_until(ret, done(kl) ? INT64_MAX : kl->next_ms);
    if (done(kl) || kl->stopping)
        return 0;
    if (status == 404) {
        struct record none = {0};
        observe(kl, mono_ms, &none);
    } else if (status == 200) {
        struct json_object *o = json_tokener_parse(text ? text : "");
        struct record r;
        bool ok = o && parse(kl, o, &r);
        json_object_put(o);
        if (!ok)
            return 0; /* not a Lease of ours: try again later */
        observe(kl, mono_ms, &r);
    } else {
        return 0; /* no answer or an error: the next retry */
    }
    if (held_by_other(kl, mono_ms)) {
        if (kl->role == KLEASE_LEADER)
            kl->role = KLEASE_LOST; /* another holds it: we lost */
        return 0;
    }
    return body(kl, mono_ms, wall_us, false, ret);
}

void klease_wrote(struct klease *kl, int64_t mono_ms, long status,
                  const char *text)
{
    bool release = kl->write_release;
    kl->pending = P_NONE;
    kl->write_release = false;
    kl->next_ms = kl->write_sent_ms + kl->retry_ms;
    if (status >= 200 && status < 300) {
        struct json_object *o = json_tokener_parse(text ? text : "");
        struct record r;
        if (o && parse(kl, o, &r))
            observe(kl, mono_ms, &r);
        json_object_put(o);
        if (release) {
            kl->role = KLEASE_RELEASED;
            return;
        }
        /* An answer later than the deadline proves nothing for now. */
        if (kl->role == KLEASE_FOLLOWER || kl->role == KLEASE_LEADER) {
            if (mono_ms - kl->write_sent_ms < kl->renew_deadline_ms) {
                kl->role = KLEASE_LEADER;
                kl->renewed_ms = kl->write_sent_ms;
            }
        }
    } else if (release) {
        kl->role = KLEASE_RELEASED; /* tried once; it expires anyway */
        return;
    } else if (status == 409 && kl->role == KLEASE_LEADER) {
        kl->role = KLEASE_LOST; /* another replica wrote it */
        return;
    }
    check_deadline(kl, mono_ms);
}

int klease_release(struct klease *kl, int64_t mono_ms, int64_t wall_us,
                   struct klease_action *ret)
{
    wait_until(ret, INT64_MAX);
    kl->stopping = true;
    if (kl->role == KLEASE_RELEASING || kl->role == KLEASE_RELEASED)
        return 0;
    if (!leading(kl, mono_ms)) {
        kl->role = kl->role == KLEASE_LOST ? KLEASE_LOST : KLEASE_RELEASED;
        return 0;
    }
    if (kl->pending) {
        wait_until(ret, mono_ms + kl->retry_ms); /* after the answer */
        return 0;
    }
    int r = body(kl, mono_ms, wall_us, true, ret);
    if (r == 0)
        kl->role = KLEASE_RELEASING;
    return r;
}
