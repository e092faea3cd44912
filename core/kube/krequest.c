/* krequest.c - the request queue of krequest.h: a FIFO of requests, a
 * token bucket in milli-tokens (integers only), retries and watch streams
 * split into lines, all on the kclient's multi handle. */
#include "krequest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define KREQ_MAX_BODY ((size_t)64 << 20) /* a list page, or one watch line */

struct kreq {
    struct kclient_xfer xfer; /* first: kclient finds done through it */
    struct krequests *q;
    struct kreq *prev, *next; /* q->head: every request not ended, FIFO */
    CURL *easy;
    struct curl_slist *headers;
    char *url, *body;
    struct kreq_spec spec; /* path, body, content_type not kept */
    kreq_done_cb done;
    kreq_line_cb on_line;
    void *data;
    int64_t due_ms, queued_ms;
    bool in_flight, lines_seen, aborted, too_large, oom;
    bool reauthed; /* retried once after a 401 */
    bool refused;  /* the write gate said no */
    uint64_t seq;  /* order of queuing */
    unsigned attempts;
    long retry_after_s; /* -1: the answer had none */
    char *buf;          /* body so far, or a stream's partial line */
    size_t len, cap;
    char errbuf[CURL_ERROR_SIZE];
};

struct krequests {
    struct kclient *kc;
    struct krequest_options opt;
    struct kreq *head, *tail;
    size_t n_pending, n_in_flight;
    int64_t tokens_milli, refill_ms;
    uint64_t rng, seq;
};

const char *kreq_method_name(enum kreq_method m)
{
    static const char *const names[] = {"GET", "POST", "PUT", "PATCH",
                                        "DELETE"};
    return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

const char *kreq_result_what(const struct kreq_result *r, char *buf, size_t n)
{
    if (r->error)
        snprintf(buf, n, "%s", r->error);
    else
        snprintf(buf, n, "HTTP %ld", r->status);
    return buf;
}

static int64_t mono_ms(void *unused)
{
    (void)unused;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t krequests_now_ms(const struct krequests *q)
{
    return q->opt.now_ms(q->opt.clock_data);
}

int krequests_new(struct kclient *kc, const struct krequest_options *opt,
                  struct krequests **ret)
{
    if (!kc || !ret)
        return -EINVAL;
    struct krequests *q = calloc(1, sizeof(*q));
    if (!q)
        return -ENOMEM;
    q->kc = kc;
    if (opt)
        q->opt = *opt;
    if (!q->opt.qps)
        q->opt.qps = KREQ_DEFAULT_QPS;
    if (!q->opt.burst)
        q->opt.burst = KREQ_DEFAULT_BURST;
    if (q->opt.backoff_base_ms <= 0)
        q->opt.backoff_base_ms = KREQ_DEFAULT_BACKOFF_MS;
    if (q->opt.backoff_max_ms <= 0)
        q->opt.backoff_max_ms = KREQ_DEFAULT_BACKOFF_MAX;
    if (!q->opt.max_attempts)
        q->opt.max_attempts = KREQ_DEFAULT_MAX_ATTEMPTS;
    if (!q->opt.now_ms)
        q->opt.now_ms = mono_ms;
    q->tokens_milli = (int64_t)q->opt.burst * 1000;
    q->refill_ms = krequests_now_ms(q);
    q->rng = q->opt.seed ? q->opt.seed
                         : (uint64_t)mono_ms(NULL) * 0x9E3779B97F4A7C15ull | 1;
    *ret = q;
    return 0;
}

static void kreq_free(struct kreq *r)
{
    if (!r)
        return;
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->url);
    free(r->body);
    free(r->buf);
    free(r);
}

static void kreq_unlink(struct kreq *r)
{
    struct krequests *q = r->q;
    if (r->prev)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    r->prev = r->next = NULL;
    q->n_pending--;
    if (r->in_flight) {
        kclient_xfer_remove(q->kc, r->easy);
        r->in_flight = false;
        q->n_in_flight--;
    }
}

void krequest_cancel(struct kreq *r)
{
    if (!r)
        return;
    kreq_unlink(r);
    kreq_free(r);
}

void krequests_free(struct krequests *q)
{
    if (!q)
        return;
    while (q->head)
        krequest_cancel(q->head);
    free(q);
}

size_t krequests_pending(const struct krequests *q)
{
    return q ? q->n_pending : 0;
}

size_t krequests_in_flight(const struct krequests *q)
{
    return q ? q->n_in_flight : 0;
}

static uint64_t rng_next(struct krequests *q)
{
    /* xorshift64*: jitter only, nothing needs more. */
    q->rng ^= q->rng >> 12;
    q->rng ^= q->rng << 25;
    q->rng ^= q->rng >> 27;
    return q->rng * 0x2545F4914F6CDD1Dull;
}

int64_t krequests_backoff_ms(struct krequests *q, unsigned attempt)
{
    int64_t d = q->opt.backoff_base_ms;
    for (unsigned i = 1; i < attempt && d < q->opt.backoff_max_ms; i++)
        d *= 2;
    if (d > q->opt.backoff_max_ms)
        d = q->opt.backoff_max_ms;
    int64_t half = d / 2;
    return half + (int64_t)(rng_next(q) % (uint64_t)(d - half + 1));
}

/* Appends n bytes to the buffer, which never grows past KREQ_MAX_BODY. */
static bool buf_append(struct kreq *r, const char *p, size_t n)
{
    if (n > KREQ_MAX_BODY - r->len) {
        r->too_large = true;
        return false;
    }
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n + 1)
            cap *= 2;
        char *b = realloc(r->buf, cap);
        if (!b) {
            r->oom = true;
            return false;
        }
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
    r->buf[r->len] = '\0';
    return true;
}

/* Hands every complete line in the buffer to on_line; the bytes before
 * from had no newline. False when on_line asked to stop. */
static bool stream_lines(struct kreq *r, size_t from)
{
    size_t start = 0;
    char *nl;
    while ((nl = memchr(r->buf + from, '\n', r->len - from))) {
        size_t end = (size_t)(nl - r->buf), len = end - start;
        *nl = '\0';
        if (len && r->buf[end - 1] == '\r')
            r->buf[end - 1] = '\0', len--;
        from = end + 1;
        if (len) {
            r->lines_seen = true;
            if (r->on_line(r->data, r->buf + start, len)) {
                r->aborted = true;
                return false;
            }
        }
        start = from;
    }
    memmove(r->buf, r->buf + start, r->len - start);
    r->len -= start;
    if (r->buf)
        r->buf[r->len] = '\0';
    return true;
}

static size_t kreq_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct kreq *r = ud;
    size_t n = size * nmemb, old = r->len;
    long st = 0;
    if (r->spec.stream)
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &st);
    if (!buf_append(r, ptr, n))
        return 0; /* curl fails the transfer with a write error */
    if (st >= 200 && st < 300 && !stream_lines(r, old))
        return 0;
    return n;
}

static size_t kreq_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct kreq *r = ud;
    size_t n = size * nmemb;
    static const char name[] = "Retry-After:";
    if (n > sizeof(name) && strncasecmp(ptr, name, sizeof(name) - 1) == 0) {
        char tmp[32];
        size_t k = n - (sizeof(name) - 1);
        k = k < sizeof(tmp) - 1 ? k : sizeof(tmp) - 1;
        memcpy(tmp, ptr + sizeof(name) - 1, k);
        tmp[k] = '\0';
        char *end;
        long v = strtol(tmp, &end, 10);
        /* Seconds only; an HTTP date falls back to the backoff. */
        if (end != tmp && v >= 0 && (*end == '\r' || *end == '\n' || !*end))
            r->retry_after_s =
                v < KREQ_RETRY_AFTER_MAX_S ? v : KREQ_RETRY_AFTER_MAX_S;
    }
    return n;
}

static void kreq_finished(struct kclient_xfer *x, CURLcode rc);

#define SETOPT(opt, val)                                                       \
    do {                                                                       \
        if (rc == CURLE_OK)                                                    \
            rc = curl_easy_setopt(r->easy, (opt), (val));                      \
    } while (0)

/* The client's headers with this request's Content-Type, built once. */
static int kreq_headers(struct kreq *r, const char *ct)
{
    if (strpbrk(ct, "\r\n"))
        return -EINVAL;
    for (const struct curl_slist *h = kclient_headers(r->q->kc); h;
         h = h->next) {
        if (strncasecmp(h->data, "Content-Type:", 13) == 0)
            continue;
        struct curl_slist *l = curl_slist_append(r->headers, h->data);
        if (!l)
            return -ENOMEM;
        r->headers = l;
    }
    char line[256];
    snprintf(line, sizeof(line), "Content-Type: %s", ct);
    struct curl_slist *l = curl_slist_append(r->headers, line);
    if (!l)
        return -ENOMEM;
    r->headers = l;
    return 0;
}

static bool gate_refuses(const struct krequests *q, const struct kreq *r);

/* CURLOPT_PREREQFUNCTION: the fence asked again when the connection is
 * there and the request about to leave. A write handed to curl may wait
 * there (for a connection, behind a long cycle) past the moment the gate
 * said yes; one that would leave after the lease's renew deadline is
 * stopped unsent. */
static int kreq_prereq(void *clientp, char *conn_primary_ip,
                       char *conn_local_ip, int conn_primary_port,
                       int conn_local_port)
{
    struct kreq *r = clientp;
    (void)conn_primary_ip;
    (void)conn_local_ip;
    (void)conn_primary_port;
    (void)conn_local_port;
    if (!gate_refuses(r->q, r))
        return CURL_PREREQFUNC_OK;
    r->refused = true;
    return CURL_PREREQFUNC_ABORT;
}

/* Sets the handle's options: once, and again before a retry so that it
 * goes with the credential source's current token. */
static int kreq_setopts(struct kreq *r)
{
    const struct kreq_spec *spec = &r->spec;
    int e = kclient_easy_setup(r->q->kc, r->easy);
    if (e < 0)
        return e;
    CURLcode rc = CURLE_OK;
    SETOPT(CURLOPT_PRIVATE, (void *)&r->xfer);
    SETOPT(CURLOPT_URL, r->url);
    SETOPT(CURLOPT_HTTPHEADER, r->headers);
    SETOPT(CURLOPT_ERRORBUFFER, r->errbuf);
    SETOPT(CURLOPT_WRITEFUNCTION, kreq_write);
    SETOPT(CURLOPT_WRITEDATA, (void *)r);
    SETOPT(CURLOPT_HEADERFUNCTION, kreq_header);
    SETOPT(CURLOPT_HEADERDATA, (void *)r);
    if (spec->timeout_ms || spec->stream)
        SETOPT(CURLOPT_TIMEOUT_MS, spec->timeout_ms);
    if (spec->method != KREQ_GET && spec->method != KREQ_POST)
        SETOPT(CURLOPT_CUSTOMREQUEST, kreq_method_name(spec->method));
    if (spec->method != KREQ_GET && r->q->opt.may_write) {
        SETOPT(CURLOPT_PREREQFUNCTION, kreq_prereq);
        SETOPT(CURLOPT_PREREQDATA, (void *)r);
    }
    if (spec->method != KREQ_GET) {
        SETOPT(CURLOPT_POSTFIELDS, r->body ? r->body : "");
        SETOPT(CURLOPT_POSTFIELDSIZE_LARGE,
               (curl_off_t)(r->body ? strlen(r->body) : 0));
    }
    if (rc == CURLE_OUT_OF_MEMORY)
        return -ENOMEM;
    return rc == CURLE_OK ? 0 : -EIO;
}

int krequest_start(struct krequests *q, const struct kreq_spec *spec,
                   kreq_done_cb done, kreq_line_cb on_line, void *data,
                   struct kreq **ret_req)
{
    if (!q || !spec || !done || !spec->path || spec->path[0] != '/' ||
        (unsigned)spec->method > KREQ_DELETE || (spec->stream && !on_line) ||
        spec->delay_ms < 0 || spec->timeout_ms < 0 ||
        strpbrk(spec->path, " \r\n"))
        return -EINVAL;
    struct kreq *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->xfer.done = kreq_finished;
    r->q = q;
    r->spec = *spec;
    r->spec.path = r->spec.body = r->spec.content_type = NULL;
    r->done = done;
    r->on_line = on_line;
    r->data = data;
    r->retry_after_s = -1;
    int e = -ENOMEM;
    r->easy = curl_easy_init();
    if (!r->easy ||
        asprintf(&r->url, "%s%s", kclient_base_url(q->kc), spec->path) < 0) {
        r->url = NULL;
        goto fail;
    }
    if (spec->body && !(r->body = strdup(spec->body)))
        goto fail;
    e = kreq_headers(r, spec->content_type ? spec->content_type
                        : spec->method == KREQ_PATCH
                            ? "application/merge-patch+json"
                            : "application/json");
    if (e == 0)
        e = kreq_setopts(r);
    if (e < 0)
        goto fail;
    r->queued_ms = krequests_now_ms(q);
    r->due_ms = r->queued_ms + spec->delay_ms;
    r->seq = q->seq++;
    r->prev = q->tail;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->n_pending++;
    if (ret_req)
        *ret_req = r;
    return 0;
fail:
    kreq_free(r);
    return e;
}

/* Takes a token if there is one. */
static bool bucket_take(struct krequests *q, int64_t now)
{
    int64_t cap = (int64_t)q->opt.burst * 1000;
    if (now > q->refill_ms) {
        int64_t add = (now - q->refill_ms) * (int64_t)q->opt.qps;
        q->tokens_milli =
            add >= cap - q->tokens_milli ? cap : q->tokens_milli + add;
        q->refill_ms = now;
    }
    if (q->tokens_milli < 1000)
        return false;
    q->tokens_milli -= 1000;
    return true;
}

/* Whether the fencing gate stops r now (krequest_options.may_write). */
static bool gate_refuses(const struct krequests *q, const struct kreq *r)
{
    return r->spec.method != KREQ_GET && q->opt.may_write &&
           !q->opt.may_write(q->opt.gate_data);
}

/* Starts the due requests, oldest first, while tokens last. A request
 * that cannot be added ends at once with the error. */
static void dispatch(struct krequests *q)
{
    int64_t now = krequests_now_ms(q);
    uint64_t seq_end = q->seq; /* what callbacks queue waits for the next */
    struct kreq *r = q->head;
    while (r) {
        struct kreq *next = r->next;
        if (!r->in_flight && r->due_ms <= now && r->seq < seq_end) {
            if (gate_refuses(q, r)) {
                r->refused = true;
                r->xfer.done(&r->xfer, CURLE_OK);
                r = q->head; /* the callback may have changed the list */
                continue;
            }
            if (!bucket_take(q, now))
                return;
            r->attempts++;
            r->len = 0;
            r->too_large = r->oom = r->lines_seen = r->aborted = false;
            r->retry_after_s = -1;
            r->errbuf[0] = '\0';
            if ((r->attempts == 1 || kreq_setopts(r) == 0) &&
                kclient_xfer_add(q->kc, r->easy) == 0) {
                r->in_flight = true;
                q->n_in_flight++;
            } else {
                snprintf(r->errbuf, sizeof(r->errbuf),
                         "could not start the transfer");
                r->xfer.done(&r->xfer, CURLE_FAILED_INIT);
                next = q->head; /* the callback may have changed the list */
            }
        }
        r = next;
    }
}

static void kreq_end(struct kreq *r, long status, const char *error)
{
    kreq_unlink(r);
    bool streamed = r->spec.stream && status >= 200 && status < 300;
    struct kreq_result res = {
        .status = status,
        .body = !streamed && r->buf ? r->buf : "",
        .len = !streamed ? r->len : 0,
        .error = error,
        .attempts = r->attempts,
        .aborted = r->aborted,
        .refused = r->refused,
    };
    const struct krequest_options *o = &r->q->opt;
    if (o->on_result)
        o->on_result(o->result_data, r->spec.method, r->spec.stream, r->url,
                     status, krequests_now_ms(r->q) - r->queued_ms);
    r->done(r->data, &res);
    kreq_free(r);
}

static void kreq_finished(struct kclient_xfer *x, CURLcode rc)
{
    struct kreq *r = (struct kreq *)(void *)x;
    struct krequests *q = r->q;
    if (r->in_flight) {
        r->in_flight = false;
        q->n_in_flight--;
    }
    if (r->refused) {
        kreq_end(r, 0, "refused: not the leader");
        return;
    }
    long st = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &st);
    if (r->aborted) {
        kreq_end(r, st, NULL);
        return;
    }
    const char *error = NULL;
    if (rc != CURLE_OK || st == 0)
        error = r->too_large   ? "response over the size limit"
                : r->oom       ? "out of memory reading the response"
                : r->errbuf[0] ? r->errbuf
                               : curl_easy_strerror(rc);
    if (error)
        st = 0;
    bool may_retry = r->attempts < q->opt.max_attempts &&
                     !(r->spec.stream && r->lines_seen) && !r->too_large &&
                     !r->oom;
    int64_t delay = -1;
    if (st == 401 && q->opt.on_unauthorized) {
        /* Refused credentials: refresh them (an exec plugin runs again, a
         * token file is read again) and try once more at once. */
        q->opt.on_unauthorized(q->opt.auth_data);
        if (may_retry && !r->reauthed) {
            r->reauthed = true;
            delay = 0;
        }
    } else if (may_retry && st == 429)
        delay = r->retry_after_s >= 0 ? r->retry_after_s * 1000
                                      : krequests_backoff_ms(q, r->attempts);
    else if (may_retry && r->spec.retry_unsure && (st == 0 || st >= 500))
        delay = krequests_backoff_ms(q, r->attempts);
    if (delay >= 0) {
        r->due_ms = krequests_now_ms(q) + delay;
        return; /* stays queued */
    }
    kreq_end(r, st, error);
}

int64_t krequests_due_in_ms(struct krequests *q)
{
    int64_t now = krequests_now_ms(q), best = -1;
    for (struct kreq *r = q->head; r; r = r->next) {
        if (r->in_flight)
            continue;
        int64_t d = r->due_ms > now ? r->due_ms - now : 0;
        if (d == 0 && q->tokens_milli < 1000)
            d = (1000 - q->tokens_milli + q->opt.qps - 1) / q->opt.qps;
        if (best < 0 || d < best)
            best = d;
    }
    return best;
}

int krequests_process(struct krequests *q, int timeout_ms)
{
    return krequests_process_fds(q, timeout_ms, NULL, 0);
}

int krequests_process_fds(struct krequests *q, int timeout_ms,
                          struct curl_waitfd *extra, unsigned n_extra)
{
    if (!q || timeout_ms < 0)
        return -EINVAL;
    dispatch(q);
    int64_t due = krequests_due_in_ms(q);
    int wait = due >= 0 && due < timeout_ms ? (int)due : timeout_ms;
    CURLM *multi = kclient_multi(q->kc);
    CURLMcode mc = curl_multi_poll(multi, extra, n_extra, wait, NULL);
    int running = 0;
    if (mc == CURLM_OK)
        mc = curl_multi_perform(multi, &running);
    if (mc != CURLM_OK)
        return mc == CURLM_OUT_OF_MEMORY ? -ENOMEM : -EIO;
    kclient_complete(q->kc);
    dispatch(q);
    return (int)q->n_pending;
}
