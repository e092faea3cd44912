/* emu_http.c - the emulator's HTTP side (libmicrohttpd, a thread per
 * connection): bearer-token authentication, JSON-only content
 * negotiation, URL routing to discovery, the resource API and watches;
 * the request-level faults (latency, 429, 5xx, a stopped server). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "emu.h"

/* MHD callbacks ignore some parameters. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

struct upload {
    char *body;
    size_t len;
};

static enum MHD_Result send_body(struct MHD_Connection *c, int code, char *body,
                                 const char *ctype)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_status(struct MHD_Connection *c, int code,
                                   const char *reason, const char *msg)
{
    struct emu_err err = {0};
    emu_err_set(&err, code, reason, -1, "", "%s", msg);
    struct json_object *s = emu_status_new(&err);
    char *b = strdup(json_object_to_json_string_ext(s, EMU_JSON));
    json_object_put(s);
    return send_body(c, code, b, "application/json");
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

static bool truthy(const char *v)
{
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true"));
}

/* The token's name, or NULL when the request does not authenticate. */
static const char *authenticate(struct MHD_Connection *c)
{
    const char *h =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7))
        return NULL;
    h += 7;
    for (size_t i = 0; i < emu.ntokens; i++)
        if (!strcmp(emu.tokens[i].secret, h))
            return emu.tokens[i].name;
    return NULL;
}

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    ssize_t n = emu_watch_read(cls, buf, max);
    if (n == 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void watch_free(void *cls)
{
    emu_watch_free(cls);
}

/* Splits the path after /api/v1 or /apis/G/V into the request. */
static int route(const char *url, struct emu_req *r, char *segbuf, size_t size)
{
    char *seg[12];
    int n = 0, base;
    snprintf(segbuf, size, "%s", url);
    for (char *save = NULL, *t = strtok_r(segbuf, "/", &save); t && n < 12;
         t = strtok_r(NULL, "/", &save))
        seg[n++] = t;
    if (n >= 2 && !strcmp(seg[0], "api"))
        base = 2;
    else if (n >= 3 && !strcmp(seg[0], "apis"))
        base = 3;
    else
        return -ENOENT;
    const char *group = base == 2 ? "" : seg[1];
    const char *version = seg[base - 1];
    char **rest = seg + base;
    int nr = n - base;
    if (nr <= 0)
        return -ENOENT;
    if (nr >= 3 && !strcmp(rest[0], "namespaces")) {
        int k = emu_kind_find(group, version, rest[2]);
        if (k >= 0 && emu_kinds[k].namespaced && nr <= 5) {
            r->kind = k;
            r->ns = rest[1];
            r->name = nr >= 4 ? rest[3] : NULL;
            r->sub = nr >= 5 ? rest[4] : NULL;
            return 0;
        }
    }
    int k = emu_kind_find(group, version, rest[0]);
    if (k < 0 || nr > 3 || (emu_kinds[k].namespaced && nr > 1))
        return -ENOENT;
    r->kind = k;
    r->ns = NULL;
    r->name = nr >= 2 ? rest[1] : NULL;
    r->sub = nr >= 3 ? rest[2] : NULL;
    return 0;
}

static bool json_acceptable(const char *accept)
{
    if (!accept || !*accept)
        return true;
    return strstr(accept, "json") || strstr(accept, "*/*");
}

/* --fault-429 and --fault-500 on a share of resource requests: true
 * with the answer sent. */
static bool inject(struct MHD_Connection *c, const struct emu_req *r,
                   enum MHD_Result *ret)
{
    const char *res = emu_kinds[r->kind].resource;
    const char *verb = r->watch ? "watch" : r->method;
    if (emu_fault_spared())
        return false;
    if (emu_fault_draw(emu_faults.too_many_ppm)) {
        struct emu_err err = {0};
        emu_err_set(&err, 429, "TooManyRequests", -1, "",
                    "the server has received too many requests and has "
                    "asked us to try again later (injected)");
        struct json_object *s = emu_status_new(&err);
        char *b = strdup(json_object_to_json_string_ext(s, EMU_JSON));
        json_object_put(s);
        struct MHD_Response *mr = MHD_create_response_from_buffer(
            strlen(b), b, MHD_RESPMEM_MUST_FREE);
        if (!mr) {
            free(b);
            *ret = MHD_NO;
            return true;
        }
        MHD_add_response_header(mr, "Content-Type", "application/json");
        MHD_add_response_header(mr, "Retry-After", "1");
        emu_fault_audit("429", verb, res, r->ns, r->name, r->user,
                        r->user_agent, 429);
        *ret = MHD_queue_response(c, 429, mr);
        MHD_destroy_response(mr);
        return true;
    }
    if (emu_fault_draw(emu_faults.server_error_ppm)) {
        bool unavailable = emu_fault_random() & 1;
        int code = unavailable ? 503 : 500;
        emu_fault_audit(unavailable ? "503" : "500", verb, res, r->ns, r->name,
                        r->user, r->user_agent, code);
        *ret = send_status(c, code,
                           unavailable ? "ServiceUnavailable" : "InternalError",
                           "an error on the server (injected) has prevented "
                           "the request from succeeding");
        return true;
    }
    return false;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *data,
                               size_t *data_size, void **con_cls)
{
    struct upload *up = *con_cls;
    char *body = NULL, segbuf[1024];
    int code;
    if (emu_faults.down)
        return MHD_NO; /* stopped (SIGUSR1): the connection is closed */
    if (!up) {
        *con_cls = up = calloc(1, sizeof(*up));
        return up ? MHD_YES : MHD_NO;
    }
    if (*data_size) {
        char *b = realloc(up->body, up->len + *data_size + 1);
        if (!b)
            return MHD_NO;
        memcpy(b + up->len, data, *data_size);
        up->len += *data_size;
        b[up->len] = '\0';
        up->body = b;
        *data_size = 0;
        return MHD_YES;
    }
    const char *user = authenticate(c);
    const char *accept =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    bool public = !strncmp(url, "/version", 8) || !strcmp(url, "/healthz") ||
                  !strcmp(url, "/livez") || !strcmp(url, "/readyz");
    if (!user && !public)
        return send_status(c, 401, "Unauthorized", "Unauthorized");
    emu_fault_set_client(user);
    if (emu_faults.latency_ms > 0 && !emu_fault_spared()) {
        /* Only this connection's thread waits. */
        struct timespec ts = {emu_faults.latency_ms / 1000,
                              (long)(emu_faults.latency_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
        emu_fault_audit("latency", method, NULL, NULL, url, user, NULL, 0);
    }
    if (!json_acceptable(accept))
        return send_status(c, 406, "NotAcceptable",
                           "only application/json is served");
    if (!strcmp(method, "GET") && emu_discovery(url, &body, &code) == 0)
        return send_body(c, code, body,
                         !strcmp(url, "/healthz") || !strcmp(url, "/livez") ||
                                 !strcmp(url, "/readyz")
                             ? "text/plain"
                             : "application/json");
    struct emu_req r = {
        .method = method,
        .body = up->body,
        .body_len = up->len,
        .content_type =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"),
        .table = accept && strstr(accept, "as=Table"),
        .user = user,
        .user_agent =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent"),
        .label_sel = arg(c, "labelSelector"),
        .field_sel = arg(c, "fieldSelector"),
        .rv = arg(c, "resourceVersion"),
        .cont = arg(c, "continue"),
        .field_manager = arg(c, "fieldManager"),
        .dry_run = arg(c, "dryRun"),
        .watch = truthy(arg(c, "watch")),
        .bookmarks = truthy(arg(c, "allowWatchBookmarks")),
        .initial_events = truthy(arg(c, "sendInitialEvents")),
    };
    const char *lim = arg(c, "limit"), *to = arg(c, "timeoutSeconds");
    r.limit = lim ? strtol(lim, NULL, 10) : 0;
    r.timeout_s = to ? strtol(to, NULL, 10) : 0;
    if (route(url, &r, segbuf, sizeof(segbuf)) < 0)
        return send_status(c, 404, "NotFound",
                           "the server could not find the requested resource");
    enum MHD_Result injected;
    if (inject(c, &r, &injected))
        return injected;
    struct emu_resp resp = {0};
    if (r.watch && !strcmp(method, "GET") && !r.name && !r.sub) {
        struct emu_watch *w = emu_watch_new(&r, &resp);
        if (!w)
            return resp.body
                       ? send_body(c, resp.code, resp.body, "application/json")
                       : MHD_NO;
        struct MHD_Response *mr = MHD_create_response_from_callback(
            MHD_SIZE_UNKNOWN, 16 * 1024, watch_reader, w, watch_free);
        if (!mr) {
            emu_watch_free(w);
            return MHD_NO;
        }
        MHD_add_response_header(mr, "Content-Type", "application/json");
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, mr);
        MHD_destroy_response(mr);
        return ret;
    }
    emu_api_handle(&r, &resp);
    if (!resp.body)
        return send_status(c, 500, "InternalError", "no answer");
    return send_body(c, resp.code, resp.body, "application/json");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct upload *up = *con_cls;
    if (up) {
        free(up->body);
        free(up);
    }
    *con_cls = NULL;
}

/* While stopped (SIGUSR1) no connection is taken. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr,
                                     socklen_t len)
{
    return emu_faults.down ? MHD_NO : MHD_YES;
}

int emu_http_start(const char *host, int port, bool tls, const char *cert,
                   const char *key, struct MHD_Daemon **ret_d, int *ret_port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port)};
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG;
    struct MHD_Daemon *d;
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -EINVAL;
    if (tls)
        flags |= MHD_USE_TLS;
    if (tls)
        d = MHD_start_daemon(
            flags, 0, accept_policy, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR,
            &sa, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
            MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
            MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_END);
    else
        d = MHD_start_daemon(flags, 0, accept_policy, NULL, handler, NULL,
                             MHD_OPTION_SOCK_ADDR, &sa,
                             MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                             MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_END);
    if (!d)
        return -EADDRINUSE;
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
    struct sockaddr_in bound;
    socklen_t len = sizeof(bound);
    if (!info ||
        getsockname(info->listen_fd, (struct sockaddr *)&bound, &len) < 0) {
        MHD_stop_daemon(d);
        return -EIO;
    }
    *ret_port = ntohs(bound.sin_port);
    *ret_d = d;
    return 0;
}
