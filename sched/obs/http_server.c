/* http_server.c - the endpoints of http_server.h on libmicrohttpd in
 * external-poll mode (epoll), so that every answer is made on the
 * caller's loop. */
#include "http_server.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "visibility.h"

#define CONN_TIMEOUT_S 10 /* a client silent this long is dropped */
#define CONN_LIMIT     64
#define CONN_MEMORY    (64 * 1024)
#define CERT_MAX       (1 << 20)

struct http_server {
    struct http_server_options o;
    struct MHD_Daemon *d;
    char *cert, *key;
    uint16_t port;
};

static const char *role(const struct http_server *h)
{
    const char *r =
        h->o.replica.role ? h->o.replica.role(h->o.replica.data) : NULL;
    return r ? r : "standalone";
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code,
                              const char *type, char *body, size_t len)
{
    /* MHD frees body once sent. */
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
                            const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
                            const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return MHD_NO;
    return answer(c, code, "text/plain; charset=utf-8", s, (size_t)n);
}

static enum MHD_Result json_answer(struct MHD_Connection *c, int r, char *s,
                                   const char *what)
{
    if (r == -ENOENT)
        return text(c, MHD_HTTP_NOT_FOUND, "%s not found\n", what);
    if (r < 0)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return answer(c, MHD_HTTP_OK, "application/json", s, strlen(s));
}

/* ?name= as a count, else def; false when malformed. */
static bool arg_count(struct MHD_Connection *c, const char *name, size_t def,
                      size_t *ret)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    *ret = def;
    if (!v || !*v)
        return true;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || errno || v[0] == '-')
        return false;
    *ret = n > VISIBILITY_LIMIT_MAX * 100ULL ? VISIBILITY_LIMIT_MAX * 100ULL
                                             : (size_t)n;
    return true;
}

/* /clusterqueues/NAME/pendingworkloads or
 * /namespaces/NS/localqueues/NAME/pendingworkloads, after the prefix. */
static enum MHD_Result queues(struct http_server *h, struct MHD_Connection *c,
                              const char *rest)
{
    size_t limit, offset;
    if (!arg_count(c, "limit", VISIBILITY_LIMIT_DEFAULT, &limit) ||
        !arg_count(c, "offset", 0, &offset))
        return text(c, MHD_HTTP_BAD_REQUEST,
                    "limit and offset are non-negative integers\n");
    char *s = NULL;
    char a[254], b[254];
    int n = 0, r;
    if (!*rest || strcmp(rest, "/") == 0) {
        r = visibility_overview(h->o.s, limit, &s);
        return json_answer(c, r, s, "queues");
    }
    if (sscanf(rest, "/clusterqueues/%253[^/]/pendingworkloads%n", a, &n) ==
            1 &&
        rest[n] == '\0') {
        r = visibility_pending(h->o.s, a, NULL, NULL, offset, limit, &s);
        return json_answer(c, r, s, "ClusterQueue");
    }
    n = 0;
    if (sscanf(rest,
               "/namespaces/%253[^/]/localqueues/%253[^/]/pendingworkloads%n",
               a, b, &n) == 2 &&
        rest[n] == '\0') {
        r = visibility_pending(h->o.s, NULL, a, b, offset, limit, &s);
        return json_answer(c, r, s, "LocalQueue");
    }
    return text(c, MHD_HTTP_NOT_FOUND, "no such path\n");
}

static enum MHD_Result readyz(struct http_server *h, struct MHD_Connection *c)
{
    char why[1024] = "";
    bool ok = !h->o.ready || h->o.ready(h->o.ready_data, why, sizeof(why));
    const char *holder =
        h->o.replica.holder ? h->o.replica.holder(h->o.replica.data) : NULL;
    if (ok)
        return text(c, MHD_HTTP_OK, "ok\nrole: %s\nleader: %s\n", role(h),
                    holder ? holder : "-");
    return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                "not ready: %s\nrole: %s\nleader: %s\n", why, role(h),
                holder ? holder : "-");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    struct http_server *h = cls;
    (void)version;
    (void)upload;
    if (!*con_cls) {
        /* The first call has only the headers: say we go on. */
        *con_cls = h;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* a body is not read: nothing takes one */
        return MHD_YES;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
    if (strcmp(url, "/healthz") == 0 || strcmp(url, "/livez") == 0)
        return text(c, MHD_HTTP_OK, "ok\n");
    if (strcmp(url, "/readyz") == 0)
        return readyz(h, c);
    if (strcmp(url, "/metrics") == 0 && h->o.metrics) {
        char *s;
        size_t n;
        if (sched_metrics_format(h->o.metrics, &s, &n) < 0)
            return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
        return answer(c, MHD_HTTP_OK,
                      "text/plain; version=0.0.4; charset=utf-8", s, n);
    }
    static const char q[] = "/queues",
                      agg[] = "/apis/visibility.kueue.x-k8s.io/v1beta2";
    if (strncmp(url, q, sizeof(q) - 1) == 0 &&
        (url[sizeof(q) - 1] == '\0' || url[sizeof(q) - 1] == '/'))
        return queues(h, c, url + sizeof(q) - 1);
    /* The aggregated API's own paths, for a proxy that forwards them. */
    if (strncmp(url, agg, sizeof(agg) - 1) == 0 && url[sizeof(agg) - 1] == '/')
        return queues(h, c, url + sizeof(agg) - 1);
    return text(c, MHD_HTTP_NOT_FOUND, "no such path\n");
}

/* A whole PEM file into *ret (free it). 0 or a negative errno. */
static int read_file(const char *path, char **ret)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    char *buf = malloc(CERT_MAX + 1);
    size_t n = buf ? fread(buf, 1, CERT_MAX + 1, f) : 0;
    int e = !buf ? -ENOMEM : ferror(f) ? -EIO : n > CERT_MAX ? -EFBIG : 0;
    fclose(f);
    if (e < 0) {
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *ret = buf;
    return 0;
}

/* HOST:PORT ([v6]:PORT, :PORT for every address) into an address. */
static int parse_listen(const char *s, struct addrinfo **ret, struct err *e)
{
    const char *colon = s ? strrchr(s, ':') : NULL;
    if (!colon || !colon[1])
        return err_set(e, EINVAL, "--listen: expected HOST:PORT, got \"%s\"",
                       s ? s : "");
    char host[256];
    size_t hl = (size_t)(colon - s);
    if (hl >= sizeof(host))
        return err_set(e, EINVAL, "--listen: host too long");
    memcpy(host, s, hl);
    host[hl] = '\0';
    char *hp = host;
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        hp++;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535)
        return err_set(e, EINVAL, "--listen: bad port \"%s\"", colon + 1);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    int r = getaddrinfo(*hp ? hp : NULL, colon + 1, &hints, ret);
    if (r != 0)
        return err_set(e, EINVAL, "--listen: %s: %s", s, gai_strerror(r));
    return 0;
}

int http_server_new(const struct http_server_options *o,
                    struct http_server **ret, struct err *e)
{
    if (!o || !o->s || !!o->cert_file != !!o->key_file)
        return err_set(e, EINVAL, "--listen-cert and --listen-key go together");
    struct http_server *h = calloc(1, sizeof(*h));
    struct addrinfo *ai = NULL;
    int r;
    if (!h)
        return err_set(e, ENOMEM, "out of memory");
    h->o = *o;
    if ((r = parse_listen(o->listen, &ai, e)) < 0)
        goto fail;
    if (o->cert_file && ((r = read_file(o->cert_file, &h->cert)) < 0 ||
                         (r = read_file(o->key_file, &h->key)) < 0)) {
        err_set(e, -r, "--listen-cert/--listen-key: %s", strerror(-r));
        goto fail;
    }
    unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (h->cert)
        flags |= MHD_USE_TLS;
    struct MHD_OptionItem tls[] = {
        {h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, h->cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, h->key},
        {MHD_OPTION_END, 0, NULL},
    };
    h->d = MHD_start_daemon(
        flags, 0, NULL, NULL, handler, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u, MHD_OPTION_ARRAY, tls,
        MHD_OPTION_END);
    if (!h->d) {
        r = err_set(e, EADDRINUSE, "--listen %s: cannot listen there%s",
                    o->listen, h->cert ? " (or the certificate is bad)" : "");
        goto fail;
    }
    const union MHD_DaemonInfo *pi =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = pi ? pi->port : 0;
    freeaddrinfo(ai);
    *ret = h;
    return 0;
fail:
    if (ai)
        freeaddrinfo(ai);
    http_server_free(h);
    return r;
}

void http_server_free(struct http_server *h)
{
    if (!h)
        return;
    if (h->d)
        MHD_stop_daemon(h->d);
    free(h->cert);
    free(h->key);
    free(h);
}

uint16_t http_server_port(const struct http_server *h)
{
    return h->port;
}

int http_server_fd(const struct http_server *h)
{
    const union MHD_DaemonInfo *i =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
    return i ? i->epoll_fd : -1;
}

int64_t http_server_timeout_ms(const struct http_server *h)
{
    MHD_UNSIGNED_LONG_LONG t;
    if (MHD_get_timeout(h->d, &t) != MHD_YES)
        return -1;
    return t > INT64_MAX ? INT64_MAX : (int64_t)t;
}

void http_server_run(struct http_server *h)
{
    MHD_run(h->d);
}
