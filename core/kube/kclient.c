/* kclient.c - asynchronous Kubernetes API client on a libcurl multi handle:
 * pod eviction with a DELETE fallback (policy in kclient.h).
 *
 * Each eviction owns one easy handle, reused for the DELETE fallback, and
 * sits on the client's list until its callback has run. Response bodies are
 * kept up to a cap so that the Kubernetes Status object can be read. */
#include "kclient.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kclient_tls.h"
#include "kname.h"

#define DESC_MAX 512  /* one response, described */
#define WHY_MAX  1024 /* the whole story handed to the callback */

enum kevict_phase {
    PHASE_EVICT,
    PHASE_DELETE,
};

struct kevict {
    struct kclient_xfer xfer; /* first: done NULL marks an eviction */
    struct kclient *kc;
    struct kevict *prev, *next; /* kc->evictions */
    CURL *easy;
    enum kevict_phase phase;
    char *ns, *name, *uid; /* uid may be NULL */
    int64_t grace_seconds;
    char *pod_url; /* {base}/api/v1/namespaces/{ns}/pods/{name}, escaped */
    kclient_evict_cb cb;
    void *data;
    char *body; /* response so far, NUL-terminated */
    size_t len, cap;
    bool too_large, oom;
    bool fenced; /* may_write said no: ends failed, unsent */
    bool fenced_late; /* said no as the request was about to leave */
    char errbuf[CURL_ERROR_SIZE];
    char refusal[DESC_MAX + 32]; /* why the eviction fell back to DELETE */
    char why[WHY_MAX];
};

struct kclient {
    CURLM *multi;
    char *base_url, *user_agent, *ca_file;
    bool insecure;
    long timeout_ms;
    size_t max_response;
    struct curl_slist *headers;
    struct kclient_tls *tls; /* kclient_tls.c: certificates, proxy, tokens */
    struct kevict *evictions;
    size_t n_pending;
    size_t n_foreign; /* kclient_xfer_add() transfers in the multi handle */
    bool (*may_write)(void *gate_data);
    void *gate_data;
};

/* Sets an option unless an earlier one failed; rc is the caller's
 * CURLcode. */
#define SETOPT(easy, opt, val)                                                 \
    do {                                                                       \
        if (rc == CURLE_OK)                                                    \
            rc = curl_easy_setopt((easy), (opt), (val));                       \
    } while (0)

/* libcurl's error codes as a negative errno. */
#define curl_errno(rc)  ((rc) == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO)
#define curlm_errno(mc) ((mc) == CURLM_OUT_OF_MEMORY ? -ENOMEM : -EIO)

static bool is_ctl(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f;
}

static bool has_control_chars(const char *s)
{
    for (; *s; s++)
        if (is_ctl(*s))
            return true;
    return false;
}

/* Reason phrases for the statuses an API server answers with. */
/* clang-format off */
static const struct {
    long status;
    const char *text;
} status_texts[] = {
    {200, "OK"}, {201, "Created"}, {202, "Accepted"}, {400, "Bad Request"},
    {401, "Unauthorized"}, {403, "Forbidden"}, {404, "Not Found"},
    {405, "Method Not Allowed"}, {409, "Conflict"}, {410, "Gone"},
    {422, "Unprocessable Entity"}, {429, "Too Many Requests"},
    {500, "Internal Server Error"}, {501, "Not Implemented"},
    {502, "Bad Gateway"}, {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
};
/* clang-format on */

static const char *http_status_text(long status)
{
    for (size_t i = 0; i < sizeof(status_texts) / sizeof(status_texts[0]); i++)
        if (status_texts[i].status == status)
            return status_texts[i].text;
    return NULL;
}

const char *kclient_evict_result_name(enum kclient_evict_outcome s)
{
    static const char *const names[KEVICT_OUTCOME_MAX] = {
        [KEVICT_EVICTED] = "evicted",
        [KEVICT_DELETED] = "deleted",
        [KEVICT_GONE] = "gone",
        [KEVICT_FAILED] = "failed",
        [KEVICT_REFUSED] = "refused"};
    return (unsigned)s < KEVICT_OUTCOME_MAX ? names[s] : "unknown";
}

static char *dup_opt(const char *s, int *r)
{
    if (!s || *r < 0)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *r = -ENOMEM;
    return d;
}

static int options_check(const struct kclient_options *opt)
{
    const char *u = opt ? opt->base_url : NULL;
    if (!u || has_control_chars(u) || strpbrk(u, " ?#"))
        return -EINVAL;
    size_t skip = strncmp(u, "http://", 7) == 0    ? 7
                  : strncmp(u, "https://", 8) == 0 ? 8
                                                   : 0;
    if (skip == 0 || u[skip] == '\0' || u[skip] == '/')
        return -EINVAL;
    if (opt->bearer_token &&
        (!*opt->bearer_token || has_control_chars(opt->bearer_token)))
        return -EINVAL;
    if (opt->user_agent && has_control_chars(opt->user_agent))
        return -EINVAL;
    if (opt->ca_file && !*opt->ca_file)
        return -EINVAL;
    if (opt->max_response_bytes > KCLIENT_MAX_RESPONSE_LIMIT)
        return -EINVAL;
    return opt->timeout_ms < 0 ? -EINVAL : 0;
}

static int headers_build(struct kclient *kc, const char *token)
{
    static const char *const fixed[] = {
        "Content-Type: application/json", "Accept: application/json",
        "Expect:", /* no 100-continue round trip */
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        struct curl_slist *l = curl_slist_append(kc->headers, fixed[i]);
        if (!l)
            return -ENOMEM;
        kc->headers = l;
    }
    if (!token)
        return 0;
    char *auth = NULL;
    if (asprintf(&auth, "Authorization: Bearer %s", token) < 0)
        return -ENOMEM;
    struct curl_slist *l = curl_slist_append(kc->headers, auth);
    free(auth);
    if (!l)
        return -ENOMEM;
    kc->headers = l;
    return 0;
}

int kclient_new(const struct kclient_options *opt, struct kclient **ret)
{
    int r = options_check(opt);
    if (r < 0 || !ret)
        return r < 0 ? r : -EINVAL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return -EIO;
    struct kclient *kc = calloc(1, sizeof(*kc));
    if (!kc) {
        curl_global_cleanup();
        return -ENOMEM;
    }
    kc->insecure = opt->insecure_skip_verify;
    kc->may_write = opt->may_write;
    kc->gate_data = opt->gate_data;
    kc->timeout_ms =
        opt->timeout_ms ? opt->timeout_ms : KCLIENT_DEFAULT_TIMEOUT_MS;
    kc->max_response = opt->max_response_bytes ? opt->max_response_bytes
                                               : KCLIENT_DEFAULT_MAX_RESPONSE;
    r = kclient_tls_new(opt, &kc->tls);
    kc->base_url = dup_opt(kclient_tls_base_url(kc->tls), &r);
    kc->user_agent = dup_opt(
        opt->user_agent ? opt->user_agent : KCLIENT_DEFAULT_USER_AGENT, &r);
    kc->ca_file = dup_opt(opt->ca_file, &r);
    if (r < 0)
        goto fail;
    for (size_t n = strlen(kc->base_url); n > 0 && kc->base_url[n - 1] == '/';)
        kc->base_url[--n] = '\0';
    r = headers_build(kc, opt->bearer_token);
    if (r < 0)
        goto fail;
    kc->multi = curl_multi_init();
    if (!kc->multi) {
        r = -ENOMEM;
        goto fail;
    }
    /* HTTP/2 streams share one connection when the server offers it. */
    curl_multi_setopt(kc->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    *ret = kc;
    return 0;
fail:
    kclient_free(kc);
    return r;
}

/* Frees one eviction; its easy handle must be out of the multi handle. */
static void kevict_free(struct kevict *ev)
{
    if (!ev)
        return;
    curl_easy_cleanup(ev->easy);
    free(ev->ns);
    free(ev->name);
    free(ev->uid);
    free(ev->pod_url);
    free(ev->body);
    free(ev);
}

static void kevict_unlink(struct kevict *ev)
{
    struct kclient *kc = ev->kc;
    if (ev->prev)
        ev->prev->next = ev->next;
    else
        kc->evictions = ev->next;
    if (ev->next)
        ev->next->prev = ev->prev;
    ev->prev = ev->next = NULL;
    kc->n_pending--;
}

void kclient_free(struct kclient *kc)
{
    if (!kc)
        return;
    while (kc->evictions) {
        struct kevict *ev = kc->evictions;
        kevict_unlink(ev);
        curl_multi_remove_handle(kc->multi, ev->easy);
        kevict_free(ev);
    }
    if (kc->multi)
        curl_multi_cleanup(kc->multi);
    curl_slist_free_all(kc->headers);
    kclient_tls_free(kc->tls);
    free(kc->base_url);
    free(kc->user_agent);
    free(kc->ca_file);
    free(kc);
    curl_global_cleanup();
}

CURLM *kclient_multi(struct kclient *kc)
{
    return kc ? kc->multi : NULL;
}

size_t kclient_pending(const struct kclient *kc)
{
    return kc ? kc->n_pending : 0;
}

/* Keeps the response body, up to kc->max_response bytes. */
static size_t kevict_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct kevict *ev = userdata;
    size_t n = size * nmemb, max = ev->kc->max_response;
    if (n > max - ev->len) {
        ev->too_large = true;
        return 0; /* not n: curl fails the transfer with a write error */
    }
    /* Not GROW_ARRAY: a chunk of any size must fit at once, and the
     * buffer never grows past the limit. */
    if (ev->len + n + 1 > ev->cap) {
        size_t cap = ev->cap ? ev->cap : 4096;
        while (cap < ev->len + n + 1)
            cap *= 2;
        if (cap > max + 1)
            cap = max + 1;
        char *b = realloc(ev->body, cap);
        if (!b) {
            ev->oom = true;
            return 0;
        }
        ev->body = b;
        ev->cap = cap;
    }
    memcpy(ev->body + ev->len, ptr, n);
    ev->len += n;
    ev->body[ev->len] = '\0';
    return n;
}

/* Adds key: v to o, taking v, unless *r already holds an error; v NULL
 * (OOM) or a failed add sets *r to -ENOMEM. o is not touched when *r < 0. */
static void jset(struct json_object *o, const char *key, struct json_object *v,
                 int *r)
{
    if (*r == 0 && !v)
        *r = -ENOMEM;
    if (*r == 0 && json_object_object_add(o, key, v) < 0)
        *r = -ENOMEM;
    if (*r < 0)
        json_object_put(v);
}

/* Sets the request body: the policy/v1 Eviction for PHASE_EVICT, v1
 * DeleteOptions for PHASE_DELETE (curl copies it). 0, -ENOMEM or -EIO. */
static int kevict_body_set(struct kevict *ev, enum kevict_phase phase)
{
    bool evict = phase == PHASE_EVICT;
    struct json_object *root = json_object_new_object(), *opts = root;
    int r = root ? 0 : -ENOMEM;
    jset(root, "apiVersion", json_object_new_string(evict ? "policy/v1" : "v1"),
         &r);
    jset(root, "kind",
         json_object_new_string(evict ? "Eviction" : "DeleteOptions"), &r);
    if (evict) {
        struct json_object *meta = json_object_new_object();
        jset(root, "metadata", meta, &r);
        jset(meta, "name", json_object_new_string(ev->name), &r);
        jset(meta, "namespace", json_object_new_string(ev->ns), &r);
        opts = NULL;
        if (ev->uid || ev->grace_seconds >= 0)
            jset(root, "deleteOptions", opts = json_object_new_object(), &r);
    }
    if (opts && ev->uid) {
        struct json_object *pre = json_object_new_object();
        jset(opts, "preconditions", pre, &r);
        jset(pre, "uid", json_object_new_string(ev->uid), &r);
    }
    if (opts && ev->grace_seconds >= 0)
        jset(opts, "gracePeriodSeconds",
             json_object_new_int64(ev->grace_seconds), &r);
    const char *s = NULL;
    if (r == 0) {
        s = json_object_to_json_string_ext(
            root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        r = s ? 0 : -ENOMEM;
    }
    if (r == 0) {
        CURLcode rc = curl_easy_setopt(ev->easy, CURLOPT_COPYPOSTFIELDS, s);
        r = rc == CURLE_OK ? 0 : curl_errno(rc);
    }
    json_object_put(root);
    return r;
}

int kclient_easy_setup(struct kclient *kc, CURL *easy)
{
    if (!kc || !easy)
        return -EINVAL;
    CURLcode rc = CURLE_OK;
    SETOPT(easy, CURLOPT_NOSIGNAL, 1L);
    SETOPT(easy, CURLOPT_HTTPHEADER, kc->headers);
    SETOPT(easy, CURLOPT_USERAGENT, kc->user_agent);
    SETOPT(easy, CURLOPT_TIMEOUT_MS, kc->timeout_ms);
    /* HTTP/2 when TLS negotiates it; many streams on one connection. */
    SETOPT(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    SETOPT(easy, CURLOPT_PIPEWAIT, 1L);
    if (kc->ca_file)
        SETOPT(easy, CURLOPT_CAINFO, kc->ca_file);
    if (kc->insecure) {
        SETOPT(easy, CURLOPT_SSL_VERIFYPEER, 0L);
        SETOPT(easy, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    /* CA and client certificates from memory, proxy, rotating tokens. */
    if (rc == CURLE_OK)
        return kclient_tls_apply(kc->tls, easy);
    return curl_errno(rc);
}

/* CURLOPT_PREREQFUNCTION: the fence again as the request leaves (see
 * krequest.c's kreq_prereq: curl may hold a handle a while). */
static int kevict_prereq(void *clientp, char *conn_primary_ip,
                         char *conn_local_ip, int conn_primary_port,
                         int conn_local_port)
{
    struct kevict *ev = clientp;
    (void)conn_primary_ip;
    (void)conn_local_ip;
    (void)conn_primary_port;
    (void)conn_local_port;
    if (!ev->kc->may_write || ev->kc->may_write(ev->kc->gate_data))
        return CURL_PREREQFUNC_OK;
    ev->fenced_late = true;
    return CURL_PREREQFUNC_ABORT;
}

/* Options every request of an eviction shares. */
static int easy_setup(struct kevict *ev)
{
    int r = kclient_easy_setup(ev->kc, ev->easy);
    if (r < 0)
        return r;
    CURLcode rc = CURLE_OK;
    SETOPT(ev->easy, CURLOPT_PRIVATE, (void *)ev);
    SETOPT(ev->easy, CURLOPT_ERRORBUFFER, ev->errbuf);
    SETOPT(ev->easy, CURLOPT_WRITEFUNCTION, kevict_write);
    SETOPT(ev->easy, CURLOPT_WRITEDATA, (void *)ev);
    if (ev->kc->may_write) {
        SETOPT(ev->easy, CURLOPT_PREREQFUNCTION, kevict_prereq);
        SETOPT(ev->easy, CURLOPT_PREREQDATA, (void *)ev);
    }
    return rc == CURLE_OK ? 0 : curl_errno(rc);
}

/* Starts one request of the eviction, reusing its handle: POST
 * {pod_url}/eviction or DELETE {pod_url}. 0 or a negative errno. */
static int kevict_send(struct kevict *ev, enum kevict_phase phase)
{
    struct kclient *kc = ev->kc;
    if (kc->may_write && !kc->may_write(kc->gate_data))
        return -EPERM; /* fenced: not the leader now */
    char *url = NULL;
    if (asprintf(&url, "%s%s", ev->pod_url,
                 phase == PHASE_EVICT ? "/eviction" : "") < 0)
        return -ENOMEM;
    CURLcode rc = CURLE_OK;
    SETOPT(ev->easy, CURLOPT_URL, url);
    if (phase == PHASE_DELETE)
        SETOPT(ev->easy, CURLOPT_CUSTOMREQUEST, "DELETE");
    free(url);
    int r = rc == CURLE_OK ? kevict_body_set(ev, phase) : curl_errno(rc);
    if (r < 0)
        return r;
    /* Forget what the previous request left. */
    ev->len = 0;
    ev->too_large = ev->oom = false;
    ev->errbuf[0] = '\0';
    CURLMcode mc = curl_multi_add_handle(ev->kc->multi, ev->easy);
    if (mc != CURLM_OK)
        return curlm_errno(mc);
    ev->phase = phase;
    return 0;
}

int kclient_evict_pod(struct kclient *kc, const char *ns, const char *name,
                      const char *uid, int64_t grace_seconds,
                      kclient_evict_cb cb, void *data)
{
    if (!kc || !cb || !ns || !name || (uid && !*uid) ||
        kname_check_dns_label(ns) || kname_check_dns_subdomain(name))
        return -EINVAL;
    char *ens = NULL, *ename = NULL;
    int r = -ENOMEM;
    struct kevict *ev = calloc(1, sizeof(*ev));
    if (!ev)
        return -ENOMEM;
    ev->kc = kc;
    ev->grace_seconds = grace_seconds;
    ev->cb = cb;
    ev->data = data;
    ev->ns = strdup(ns);
    ev->name = strdup(name);
    ev->uid = uid ? strdup(uid) : NULL;
    ev->easy = curl_easy_init();
    if (!ev->ns || !ev->name || (uid && !ev->uid) || !ev->easy)
        goto cleanup;
    /* The names are validated, so escaping changes nothing today; it keeps
     * the path safe should validation ever be relaxed. */
    ens = curl_easy_escape(ev->easy, ns, 0);
    ename = curl_easy_escape(ev->easy, name, 0);
    if (!ens || !ename)
        goto cleanup;
    if (asprintf(&ev->pod_url, "%s/api/v1/namespaces/%s/pods/%s", kc->base_url,
                 ens, ename) < 0) {
        ev->pod_url = NULL;
        goto cleanup;
    }
    r = easy_setup(ev);
    if (r == 0)
        r = kevict_send(ev, PHASE_EVICT);
    if (r == -EPERM) {
        /* Fenced: fails from kclient_complete(), as if unanswered, so
         * that the caller's retry takes it up again. */
        ev->fenced = true;
        r = 0;
    }
    if (r < 0)
        goto cleanup;
    ev->next = kc->evictions;
    if (kc->evictions)
        kc->evictions->prev = ev;
    kc->evictions = ev;
    kc->n_pending++;
    ev = NULL;
cleanup:
    curl_free(ens);
    curl_free(ename);
    kevict_free(ev);
    return r;
}

/* Ends the eviction: formats why (one line: the server's control
 * characters become spaces), calls the callback, frees the eviction. */
static __attribute__((format(printf, 4, 5))) void
kevict_end(struct kevict *ev, enum kclient_evict_outcome outcome, long http,
           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->why, sizeof(ev->why), fmt, ap);
    va_end(ap);
    for (char *p = ev->why; *p; p++)
        if (is_ctl(*p))
            *p = ' ';
    kevict_unlink(ev);
    struct kclient_evict_result res = {
        .outcome = outcome,
        .http_status = http,
        .used_delete = ev->phase == PHASE_DELETE,
        .why = ev->why,
        .ns = ev->ns,
        .name = ev->name,
    };
    ev->cb(ev->data, &res);
    kevict_free(ev);
}

static const char *jstring(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    return s && *s ? s : NULL;
}

/* "429 TooManyRequests: Cannot evict ..." from the Status in the body, or
 * "429 Too Many Requests" when there is none. Sets *ret_multi_pdb when the
 * message says the pod has more than one PodDisruptionBudget. */
static void response_describe(const struct kevict *ev, long http, char *out,
                              size_t size, bool *ret_multi_pdb)
{
    struct json_object *root = ev->len ? json_tokener_parse(ev->body) : NULL;
    const char *reason = NULL, *message = NULL;
    if (root && json_object_is_type(root, json_type_object)) {
        reason = jstring(root, "reason");
        message = jstring(root, "message");
    }
    if (!reason)
        reason = http_status_text(http);
    int n = snprintf(out, size, "%ld", http);
    if (reason && n >= 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, " %.64s", reason);
    if (message && n >= 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, ": %.300s", message);
    *ret_multi_pdb =
        message && strstr(message, "more than one PodDisruptionBudget");
    json_object_put(root);
}

static void transport_describe(const struct kevict *ev, CURLcode rc, char *out,
                               size_t size)
{
    if (ev->too_large)
        snprintf(out, size, "response body over %zu bytes",
                 ev->kc->max_response);
    else if (ev->oom)
        snprintf(out, size, "out of memory reading the response");
    else if (ev->errbuf[0])
        snprintf(out, size, "%s", ev->errbuf);
    else
        snprintf(out, size, "%s", curl_easy_strerror(rc));
}

/* Statuses that say the Eviction API itself is not there: only then is
 * the pod deleted instead. A 404 whose Status names no pod is the
 * subresource missing ("the server could not find the requested
 * resource"), not the pod. */
static bool eviction_unavailable(const struct kevict *ev, long http)
{
    if (http == 405 || http == 501)
        return true;
    if (http != 404)
        return false;
    struct json_object *root = ev->len ? json_tokener_parse(ev->body) : NULL;
    struct json_object *det = NULL, *kind = NULL;
    bool pod = root && json_object_is_type(root, json_type_object) &&
               json_object_object_get_ex(root, "details", &det) &&
               json_object_object_get_ex(det, "kind", &kind) &&
               json_object_is_type(kind, json_type_string) &&
               strcmp(json_object_get_string(kind), "pods") == 0;
    const char *m = root && json_object_is_type(root, json_type_object)
                        ? jstring(root, "message")
                        : NULL;
    bool missing =
        !pod && m && strstr(m, "could not find the requested resource");
    json_object_put(root);
    return missing;
}

/* Statuses that say someone refuses the eviction: a PodDisruptionBudget
 * (429; 500 for a pod with several), or policy (403). Never overridden by
 * DELETE: the caller reports them and tries again later. */
static bool eviction_refused(long http, bool multi_pdb)
{
    return http == 429 || http == 403 || (http == 500 && multi_pdb);
}

/* Applies the policy of kclient.h to the request that just finished. */
static void kevict_finished(struct kevict *ev, CURLcode rc)
{
    if (ev->fenced_late) {
        kevict_end(ev, KEVICT_FAILED, 0, "eviction not sent: not the leader");
        return;
    }
    char desc[DESC_MAX];
    long http = 0;
    bool multi_pdb = false;
    if (rc == CURLE_OK &&
        curl_easy_getinfo(ev->easy, CURLINFO_RESPONSE_CODE, &http) == CURLE_OK)
        response_describe(ev, http, desc, sizeof(desc), &multi_pdb);
    else
        transport_describe(ev, rc, desc, sizeof(desc));
    /* In the messages below a transport error reads "...: <curl error>",
     * an HTTP answer "(<status> <reason>: <message>)". */
    const char *lp = http ? " (" : ": ", *rp = http ? ")" : "";

    if (ev->phase == PHASE_EVICT) {
        if (http == 200 || http == 201) {
            kevict_end(ev, KEVICT_EVICTED, http, "evicted (%s)", desc);
        } else if (eviction_refused(http, multi_pdb)) {
            kevict_end(ev, KEVICT_REFUSED, http, "eviction refused%s (%s)",
                       http == 403 ? "" : " by a PodDisruptionBudget", desc);
        } else if (eviction_unavailable(ev, http)) {
            snprintf(ev->refusal, sizeof(ev->refusal), "no Eviction API (%s)",
                     desc);
            int r = kevict_send(ev, PHASE_DELETE);
            if (r < 0)
                kevict_end(ev, KEVICT_FAILED, http,
                           "%s; delete not started: %s", ev->refusal,
                           strerror(-r));
        } else if (http == 404) {
            kevict_end(ev, KEVICT_GONE, http, "pod not found (%s)", desc);
        } else {
            kevict_end(ev, KEVICT_FAILED, http, "eviction failed%s%s%s", lp,
                       desc, rp);
        }
    } else if (http == 200 || http == 202) {
        kevict_end(ev, KEVICT_DELETED, http, "%s; deleted instead",
                   ev->refusal);
    } else if (http == 404) {
        kevict_end(ev, KEVICT_GONE, http, "%s; pod already gone (%s)",
                   ev->refusal, desc);
    } else if (http == 409 && ev->uid) {
        kevict_end(ev, KEVICT_GONE, http,
                   "%s; pod replaced, uid precondition failed (%s)",
                   ev->refusal, desc);
    } else {
        kevict_end(ev, KEVICT_FAILED, http, "%s; delete failed%s%s%s",
                   ev->refusal, lp, desc, rp);
    }
}

int kclient_complete(struct kclient *kc)
{
    if (!kc)
        return -EINVAL;
    /* Fenced evictions, those queued before this call only (a callback
     * may start more). */
    size_t n = 0;
    for (struct kevict *ev = kc->evictions; ev; ev = ev->next)
        n += ev->fenced;
    while (n--) {
        struct kevict *ev = kc->evictions;
        while (ev && !ev->fenced)
            ev = ev->next;
        if (!ev)
            break;
        kevict_end(ev, KEVICT_FAILED, 0, "eviction not sent: not the leader");
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(kc->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        /* msg dies with curl_multi_remove_handle(): copy what we need. */
        CURL *easy = msg->easy_handle;
        CURLcode rc = msg->data.result;
        char *priv = NULL;
        if (curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv) != CURLE_OK ||
            !priv)
            continue; /* not ours */
        struct kclient_xfer *x = (struct kclient_xfer *)(void *)priv;
        curl_multi_remove_handle(kc->multi, easy);
        if (x->done) {
            kc->n_foreign--;
            x->done(x, rc);
        } else {
            kevict_finished((struct kevict *)(void *)priv, rc);
        }
    }
    return (int)kc->n_pending;
}

int kclient_process(struct kclient *kc, int timeout_ms)
{
    if (!kc || timeout_ms < 0)
        return -EINVAL;
    if (kc->n_pending == 0 && kc->n_foreign == 0)
        return 0;
    CURLMcode mc = curl_multi_poll(kc->multi, NULL, 0, timeout_ms, NULL);
    int running = 0;
    if (mc == CURLM_OK)
        mc = curl_multi_perform(kc->multi, &running);
    if (mc != CURLM_OK)
        return curlm_errno(mc);
    return kclient_complete(kc);
}

const char *kclient_base_url(const struct kclient *kc)
{
    return kc ? kc->base_url : NULL;
}

const struct curl_slist *kclient_headers(const struct kclient *kc)
{
    return kc ? kc->headers : NULL;
}

int kclient_xfer_add(struct kclient *kc, CURL *easy)
{
    struct kclient_xfer *x = NULL;
    if (!kc || !easy ||
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x) != CURLE_OK ||
        !x || !x->done)
        return -EINVAL;
    CURLMcode mc = curl_multi_add_handle(kc->multi, easy);
    if (mc != CURLM_OK)
        return curlm_errno(mc);
    kc->n_foreign++;
    return 0;
}

void kclient_xfer_remove(struct kclient *kc, CURL *easy)
{
    if (kc && easy && curl_multi_remove_handle(kc->multi, easy) == CURLM_OK)
        kc->n_foreign--;
}
