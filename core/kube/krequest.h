/* krequest.h - generic asynchronous API-server requests (GET, POST, PUT,
 * PATCH, DELETE with JSON bodies, and watch streams) on a kclient's multi
 * handle, with a client-side rate limit and retries.
 *
 * Nothing blocks. krequest_start() queues; krequests_process() waits on the
 * sockets (bounded by the caller's timeout and the next queued request's
 * time), moves transfers on, starts queued requests as the token bucket
 * allows and calls callbacks. Callbacks run only from krequests_process(),
 * never from the call that queued the request.
 *
 * Rate limit: a token bucket of qps tokens a second holding at most burst;
 * every attempt takes one. The defaults (200 QPS, burst 400) let a batch
 * scheduler bind a few hundred pods a second while staying under an API
 * server's default priority-and-fairness share.
 *
 * Retries (each counted in attempts, at most max_attempts in all):
 *   429           always (the server did not act): after Retry-After
 *                 seconds when it says, else after the backoff
 *   5xx, no answer (connection refused or dropped, timeout): only when the
 *                 request says retry_unsure (a GET, or a write the caller
 *                 knows is safe to repeat); otherwise the caller decides
 *   401           once, at once, after on_unauthorized (when set)
 *   backoff       base * 2^(attempt-1), capped at max, with jitter: a
 *                 uniform draw in [d/2, d]
 * A watch stream (stream true) is never retried once it started
 * delivering lines: its owner resumes it from its own resourceVersion. */
#ifndef ORDO_KREQUEST_H
#define ORDO_KREQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kclient.h"

#define KREQ_DEFAULT_QPS          200
#define KREQ_DEFAULT_BURST        400
#define KREQ_DEFAULT_BACKOFF_MS   250
#define KREQ_DEFAULT_BACKOFF_MAX  32000
#define KREQ_DEFAULT_MAX_ATTEMPTS 8
#define KREQ_RETRY_AFTER_MAX_S    600 /* a longer Retry-After is capped */

enum kreq_method { KREQ_GET = 0, KREQ_POST, KREQ_PUT, KREQ_PATCH, KREQ_DELETE };

struct krequest_options {
    uint32_t qps, burst;     /* 0: the defaults above */
    int64_t backoff_base_ms; /* 0: KREQ_DEFAULT_BACKOFF_MS */
    int64_t backoff_max_ms;  /* 0: KREQ_DEFAULT_BACKOFF_MAX */
    uint32_t max_attempts;   /* 0: KREQ_DEFAULT_MAX_ATTEMPTS */
    /* Monotonic milliseconds; NULL: CLOCK_MONOTONIC. Tests pass their own
     * so that nothing depends on real time. */
    int64_t (*now_ms)(void *clock_data);
    void *clock_data;
    uint64_t seed; /* of the jitter; 0: one from the clock */
    /* Called on each 401 (kubeconfig_invalidate(), so that exec and
     * tokenFile credentials are fetched again); the request is then tried
     * once more, at once, with the source's new token. NULL: a 401 ends
     * the request. */
    void (*on_unauthorized)(void *auth_data);
    void *auth_data;
    /* Called as each request ends (not when cancelled): its method, a
     * stream (watch) or not, its URL, the last attempt's HTTP status (0: no
     * answer) and the milliseconds since it was queued, retries included
     * (metrics). NULL: none. */
    void (*on_result)(void *result_data, enum kreq_method m, bool stream,
                      const char *url, long status, int64_t latency_ms);
    void *result_data;
    /* Fencing: consulted right before each attempt of a request that is
     * not a GET (retries and requests queued by the rate limit too) is
     * handed to curl. false: the request is not sent and ends at once
     * with status 0, refused true and error "refused: not the leader".
     * NULL: every write may go. */
    bool (*may_write)(void *gate_data);
    void *gate_data;
};

/* "GET", ...; "?" out of range. Static. */
const char *kreq_method_name(enum kreq_method m);

struct kreq_spec {
    enum kreq_method method;
    /* After the base URL, escaped already: "/api/v1/pods?limit=500". */
    const char *path;
    const char *body;         /* JSON, copied; NULL: none */
    const char *content_type; /* NULL: application/json, for PATCH
                                 application/merge-patch+json */
    bool retry_unsure;        /* retry 5xx and no answer too */
    /* A watch: each line of a 2xx body goes to on_line as it arrives
     * (a line may span many reads), the body is not kept. */
    bool stream;
    int64_t delay_ms; /* start no sooner than this from now */
    long timeout_ms;  /* 0: the client's; streams: 0 is none */
};

struct kreq_result {
    long status;      /* of the last attempt; 0: no complete answer */
    const char *body; /* NUL-terminated ("" when none); a stream's: "" */
    size_t len;
    const char *error; /* no answer: why (curl's words); else NULL */
    unsigned attempts;
    bool aborted; /* on_line asked to stop */
    bool refused; /* may_write said no: nothing was sent this attempt */
};

/* How a request ended, for a log line: "HTTP 503", or curl's words when
 * no answer came ("Empty reply from server"). Writes into buf (size n)
 * and returns it. */
const char *kreq_result_what(const struct kreq_result *r, char *buf, size_t n);

/* Called once per request unless it was cancelled; res is valid during
 * the call. It may start and cancel requests. */
typedef void (*kreq_done_cb)(void *data, const struct kreq_result *res);
/* One line of a stream, without its '\n' (NUL-terminated at len). Return
 * nonzero to end the stream (done then gets aborted true). */
typedef int (*kreq_line_cb)(void *data, const char *line, size_t len);

struct krequests;
struct kreq;

/* A request queue on kc (not owned; it must outlive the queue). 0 and
 * *ret (free with krequests_free()), -EINVAL or -ENOMEM. */
int krequests_new(struct kclient *kc, const struct krequest_options *opt,
                  struct krequests **ret);
/* Cancels every request without callbacks and frees q. Accepts NULL. Not
 * from a callback. */
void krequests_free(struct krequests *q);

/* Queues a request. data is passed to both callbacks (on_line only for
 * streams, may be NULL otherwise). *ret_req (may be NULL) is a handle for
 * krequest_cancel(), valid until done is called. 0, -EINVAL or -ENOMEM. */
int krequest_start(struct krequests *q, const struct kreq_spec *spec,
                   kreq_done_cb done, kreq_line_cb on_line, void *data,
                   struct kreq **ret_req);
/* Drops a request that has not ended: done is not called. Accepts NULL. */
void krequest_cancel(struct kreq *r);

/* Waits up to timeout_ms (>= 0; less when a queued request is due sooner)
 * for activity, moves transfers on, starts what the rate limit allows and
 * calls callbacks (evictions' too: they share the multi handle). Returns
 * the number of requests not ended, or -EINVAL, -ENOMEM, -EIO. */
int krequests_process(struct krequests *q, int timeout_ms);
/* The same, waiting on the caller's descriptors too (curl_multi_poll's
 * extra_fds: another server in the same loop); their revents are set. */
int krequests_process_fds(struct krequests *q, int timeout_ms,
                          struct curl_waitfd *extra, unsigned n_extra);

/* Requests not ended; those of them in a transfer now. */
size_t krequests_pending(const struct krequests *q);
size_t krequests_in_flight(const struct krequests *q);

/* Milliseconds until the first queued request may start (by its delay
 * and the rate limit); -1 when none waits. */
int64_t krequests_due_in_ms(struct krequests *q);

/* The jittered backoff after attempt failures (attempt >= 1), for owners
 * that restart things themselves (informers). */
int64_t krequests_backoff_ms(struct krequests *q, unsigned attempt);
/* The queue's clock. */
int64_t krequests_now_ms(const struct krequests *q);

#endif
