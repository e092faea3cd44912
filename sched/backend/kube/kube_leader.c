/* kube_leader.c - the Lease requests of kube_leader.h: each action of
 * klease.h becomes one request on the elector's own queue. */
#include "kube_leader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "krequest.h"
#include "log.h"

struct kube_leader {
    struct krequests *q;
    struct klease *kl;
    char identity[320];
    enum klease_role last_role;
    char last_holder[256];
    bool busy, releasing;
};

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_ms(const struct kube_leader *l)
{
    return krequests_now_ms(l->q);
}

static bool lease_may_send(void *data)
{
    struct kube_leader *l = data;
    return l->kl && klease_may_send(l->kl, now_ms(l));
}

int kube_leader_new(struct kclient *kc, const struct kube_leader_options *opt,
                    struct kube_leader **ret)
{
    if (!kc || !opt || !ret)
        return -EINVAL;
    struct kube_leader *l = calloc(1, sizeof(*l));
    if (!l)
        return -ENOMEM;
    if (opt->identity) {
        snprintf(l->identity, sizeof(l->identity), "%s", opt->identity);
    } else {
        char host[256] = "";
        uint8_t rnd[16] = {0};
        if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
            snprintf(host, sizeof(host), "ordo-scheduler");
        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
            uint64_t t = (uint64_t)wall_us() ^ (uint64_t)getpid() << 32;
            memcpy(rnd, &t, sizeof(t));
        }
        klease_identity(host, rnd, l->identity, sizeof(l->identity));
    }
    struct klease_config kc_ = {.identity = l->identity,
                                .ns = opt->ns,
                                .name = opt->name,
                                .lease_ms = opt->lease_ms,
                                .renew_deadline_ms = opt->renew_deadline_ms,
                                .retry_ms = opt->retry_ms};
    /* Its own queue and rate limit; its writes fenced by the elector. */
    struct krequest_options qo = {.may_write = lease_may_send, .gate_data = l};
    int r = krequests_new(kc, &qo, &l->q);
    if (r == 0)
        r = klease_new(&kc_, &l->kl);
    if (r < 0) {
        kube_leader_free(l);
        return r;
    }
    *ret = l;
    return 0;
}

void kube_leader_free(struct kube_leader *l)
{
    if (!l)
        return;
    krequests_free(l->q);
    klease_free(l->kl);
    free(l);
}

const char *kube_leader_identity(const struct kube_leader *l)
{
    return l->identity;
}

const char *kube_leader_holder(const struct kube_leader *l)
{
    const char *h = klease_holder(l->kl);
    return h && *h ? h : NULL;
}

bool kube_leader_is_leader(const struct kube_leader *l)
{
    return l && klease_is_leader(l->kl, now_ms(l));
}

bool kube_leader_may_write(void *l)
{
    return kube_leader_is_leader(l);
}

enum klease_role kube_leader_role(const struct kube_leader *l)
{
    return klease_role(l->kl);
}

void kube_leader_observe(struct kube_leader *l, struct json_object *lease)
{
    if (l)
        klease_observe(l->kl, now_ms(l), lease);
}

static void lease_send(struct kube_leader *l, struct klease_action *a);

static void got_done(void *data, const struct kreq_result *res)
{
    struct kube_leader *l = data;
    struct klease_action a;
    l->busy = false;
    char what[256];
    if (res->status != 200 && res->status != 404)
        LOG_W("leader election: reading the Lease: %s",
              kreq_result_what(res, what, sizeof(what)));
    if (klease_got(l->kl, now_ms(l), wall_us(), res->status, res->body, &a) < 0)
        LOG_E("leader election: out of memory");
    else
        lease_send(l, &a);
}

static void wrote_done(void *data, const struct kreq_result *res)
{
    struct kube_leader *l = data;
    l->busy = false;
    char what[256];
    if (res->status != 200 && res->status != 201)
        LOG_W("leader election: writing the Lease: %s",
              kreq_result_what(res, what, sizeof(what)));
    klease_wrote(l->kl, now_ms(l), res->status, res->body);
}

/* Sends a's request (and frees its body). A request that cannot be
 * queued counts as no answer. */
static void lease_send(struct kube_leader *l, struct klease_action *a)
{
    if (a->what == KLEASE_WAIT)
        return;
    struct kreq_spec spec = {
        .method = a->what == KLEASE_GET      ? KREQ_GET
                  : a->what == KLEASE_CREATE ? KREQ_POST
                                             : KREQ_PUT,
        .path = a->what == KLEASE_CREATE ? klease_collection(l->kl)
                                         : klease_path(l->kl),
        .body = a->body,
        .timeout_ms = 5000,
    };
    int r = krequest_start(l->q, &spec,
                           a->what == KLEASE_GET ? got_done : wrote_done, NULL,
                           l, NULL);
    free(a->body);
    a->body = NULL;
    if (r < 0) {
        struct kreq_result none = {.error = strerror(-r), .body = ""};
        (a->what == KLEASE_GET ? got_done : wrote_done)(l, &none);
        return;
    }
    l->busy = true;
}

/* One line per change of role or of the holder seen. */
static void log_changes(struct kube_leader *l)
{
    enum klease_role role = klease_role(l->kl);
    const char *holder = klease_holder(l->kl);
    if (role != l->last_role) {
        if (role == KLEASE_LEADER)
            LOG_I("leader election: became leader identity=\"%s\" "
                  "transitions=%lld",
                  l->identity, (long long)klease_transitions(l->kl));
        else if (role == KLEASE_LOST)
            LOG_E("leader election: leadership lost identity=\"%s\"; no "
                  "more writes",
                  l->identity);
        l->last_role = role;
    }
    if (role == KLEASE_FOLLOWER && strcmp(holder, l->last_holder)) {
        LOG_I("leader election: standing by; lease held by \"%s\"",
              *holder ? holder : "(nobody)");
        snprintf(l->last_holder, sizeof(l->last_holder), "%s", holder);
    }
}

void kube_leader_step(struct kube_leader *l)
{
    if (krequests_process(l->q, 0) < 0)
        LOG_W("leader election: request queue error");
    struct klease_action a = {0};
    if (l->releasing && !l->busy) {
        if (klease_release(l->kl, now_ms(l), wall_us(), &a) == 0)
            lease_send(l, &a);
    } else if (!l->busy) {
        if (klease_tick(l->kl, now_ms(l), wall_us(), &a) == 0)
            lease_send(l, &a);
    }
    log_changes(l);
}

void kube_leader_release(struct kube_leader *l)
{
    if (!l)
        return;
    l->releasing = true;
    struct klease_action a = {0};
    /* At once: no write of ours may start after this. */
    if (klease_release(l->kl, now_ms(l), wall_us(), &a) == 0 && !l->busy)
        lease_send(l, &a);
    else
        free(a.body);
}
