/* klease.h - leader election on a coordination.k8s.io/v1 Lease with
 * client-go's rules (k8s.io/client-go/tools/leaderelection), and no I/O:
 * the caller sends the requests it asks for and hands back the answers,
 * with the time of its monotonic clock and of the wall clock.
 *
 *   - Every retry period a GET of the Lease. Absent: create it. Held by
 *     another and not expired: wait. Expired, released (holderIdentity
 *     empty) or ours: PUT it with our identity and the resourceVersion we
 *     read (optimistic concurrency: 409 means another replica won).
 *   - Expiry is measured on our monotonic clock from when we observed the
 *     record change (any new resourceVersion or renewTime), never from
 *     the record's timestamps, so skewed clocks do not matter.
 *   - A leader is leader until renew_deadline after the last renew it
 *     *sent* that succeeded. renew_deadline < lease_duration: it stops
 *     writing before any other replica may take over. Once lost, never
 *     again (the caller exits, as kube-scheduler does).
 *   - A takeover increments leaseTransitions and sets acquireTime;
 *     acquireTime and renewTime are MicroTime ("...05.000000Z").
 *   - Release (ReleaseOnCancel): holderIdentity cleared,
 *     leaseDurationSeconds 1, so a standby takes over at once. */
#ifndef ORDO_KLEASE_H
#define ORDO_KLEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct klease_config {
    const char *identity;      /* copied; holderIdentity */
    const char *ns, *name;     /* copied; the Lease */
    int64_t lease_ms;          /* leaseDurationSeconds, in ms (>= 1 s) */
    int64_t renew_deadline_ms; /* < lease_ms */
    int64_t retry_ms;          /* < renew_deadline_ms */
};

enum klease_do {
    KLEASE_WAIT = 0, /* nothing to send; call klease_tick() by at_ms */
    KLEASE_GET,      /* GET path */
    KLEASE_CREATE,   /* POST body to the collection */
    KLEASE_UPDATE,   /* PUT body to path */
};

struct klease_action {
    enum klease_do what;
    int64_t at_ms; /* KLEASE_WAIT: when something may change */
    char *body;    /* CREATE, UPDATE: the Lease as JSON (the caller frees) */
};

enum klease_role {
    KLEASE_FOLLOWER = 0,
    KLEASE_LEADER,
    KLEASE_RELEASING, /* release sent: no longer leader */
    KLEASE_RELEASED,  /* released (or never held): done */
    KLEASE_LOST,      /* could not renew in time, or another took it */
};

struct klease;

/* A new elector, follower, nothing observed. 0 and *ret (free with
 * klease_free()), -EINVAL (durations out of order, no identity) or
 * -ENOMEM. */
int klease_new(const struct klease_config *cfg, struct klease **ret);
void klease_free(struct klease *kl); /* accepts NULL */

/* The Lease's path and its collection's (static in kl). */
const char *klease_path(const struct klease *kl);
const char *klease_collection(const struct klease *kl);

/* What to send now (one request at a time). Notices a missed renew
 * deadline first. 0, -ENOMEM. */
int klease_tick(struct klease *kl, int64_t mono_ms, int64_t wall_us,
                struct klease_action *ret);
/* The answer to a GET (body: the Lease for 200). May ask for a write. */
int klease_got(struct klease *kl, int64_t mono_ms, int64_t wall_us, long status,
               const char *body, struct klease_action *ret);
/* The answer to a CREATE or UPDATE (body: the Lease for 2xx). */
void klease_wrote(struct klease *kl, int64_t mono_ms, long status,
                  const char *body);
/* A Lease from a watch (NULL or another name: ignored): observed. A late
 * (stale) event only restarts the expiry clock: a takeover comes later,
 * never sooner. */
void klease_observe(struct klease *kl, int64_t mono_ms,
                    struct json_object *lease);
/* Starts giving the lease back: an UPDATE clearing holderIdentity when
 * we lead (and no request is outstanding: else KLEASE_WAIT, call again
 * after the answer), else KLEASE_WAIT and the role becomes RELEASED. From
 * now on klease_is_leader() is false. 0, -ENOMEM. */
int klease_release(struct klease *kl, int64_t mono_ms, int64_t wall_us,
                   struct klease_action *ret);

/* Whether we may write now: leader, and a renew sent less than
 * renew_deadline ago succeeded. */
bool klease_is_leader(const struct klease *kl, int64_t mono_ms);
/* Whether a Lease write asked for may still be sent now (the request
 * queue's may_write for the elector's own requests): a follower's (an
 * acquisition, fenced by resourceVersion) unless stopping; a leader's
 * renew or release only before the renew deadline; none once lost. */
bool klease_may_send(const struct klease *kl, int64_t mono_ms);
enum klease_role klease_role(const struct klease *kl);
/* The holder last observed ("" none or released; static in kl), the
 * leaseTransitions last observed. */
const char *klease_holder(const struct klease *kl);
int64_t klease_transitions(const struct klease *kl);

/* RFC 3339 with 6 fractional digits, UTC: MicroTime. buf >= 28 bytes. */
char *klease_microtime(int64_t wall_us, char *buf, size_t size);
/* client-go's identity: HOST "_" a UUID made of the 16 random bytes. */
char *klease_identity(const char *host, const uint8_t rnd[16], char *buf,
                      size_t size);

#endif
