/* kube_leader.h - leader election for ordo-scheduler: core/kube/klease.h's
 * state machine driven over its own request queue (its own rate limit,
 * as kube-scheduler's leader-election client has, so that a backlog of
 * binds never delays a renew) on the daemon's API client. GET, POST and
 * PUT on coordination.k8s.io/v1 leases, fenced by klease_may_send() (a
 * paused leader's queued renew is never sent); every other write goes
 * through kube_leader_may_write(). */
#ifndef ORDO_KUBE_LEADER_H
#define ORDO_KUBE_LEADER_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kclient.h"
#include "klease.h"

struct kube_leader_options {
    const char *ns, *name; /* the Lease */
    const char *identity;  /* NULL: hostname_uuid, as client-go */
    int64_t lease_ms, renew_deadline_ms, retry_ms;
};

struct kube_leader;

/* An elector on kc (not owned, must outlive it). 0 and *ret (free with
 * kube_leader_free()), -EINVAL, -ENOMEM. */
int kube_leader_new(struct kclient *kc, const struct kube_leader_options *opt,
                    struct kube_leader **ret);
void kube_leader_free(struct kube_leader *l); /* accepts NULL */

/* Moves its requests on (no waiting) and sends what the election needs.
 * Logs each change of role. */
void kube_leader_step(struct kube_leader *l);
/* Leader now, by the monotonic clock. */
bool kube_leader_is_leader(const struct kube_leader *l);
/* krequest_options.may_write over a struct kube_leader. */
bool kube_leader_may_write(void *l);
enum klease_role kube_leader_role(const struct kube_leader *l);
const char *kube_leader_identity(const struct kube_leader *l);
/* The holder the Lease names now (ours or another replica's), or NULL
 * when none is known. Borrowed. */
const char *kube_leader_holder(const struct kube_leader *l);
/* A Lease from the backend's informer (its hook): observed at once. */
void kube_leader_observe(struct kube_leader *l, struct json_object *lease);
/* Gives the lease back (klease_release()); kube_leader_step() carries it
 * on. Done when the role is KLEASE_RELEASED or KLEASE_LOST. */
void kube_leader_release(struct kube_leader *l);

#endif
