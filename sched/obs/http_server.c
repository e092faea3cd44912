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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "client_cert.h"
#include "visibility.h"

#define CONN_TIMEOUT_S 10 /* a client silent this long is dropped */
#define CONN_LIMIT     64
#define CONN_MEMORY    (64 * 1024)
#define CERT_MAX       (1 << 20)
#define RELOAD_EVERY_S 10 /* how often reload_tls looks at the files */

struct http_server {
    struct http_server_options o;
    struct MHD_Daemon *d;
    char *cert, *key, *ca;
    struct client_cert_log refused;
    uint16_t port;
    int family;
    /* What the files were when read (reload_tls). */
    struct timespec cert_mtime, key_mtime;
    off_t cert_size, key_size;
    time_t next_check;
};

/* A POST body being read. */
struct upload {
    char *buf;
    size_t n, cap;
    bool too_big;
};

static const char *flag(const struct http_server *h)
{
    return h->o.flag ? h->o.flag : "--listen";
}

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
    if (!h->o.s)
        return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                    "the scheduler is starting again\n");
    /* A standby runs no cycle and learns the leader's admissions only
     * when it leads: its order would list admitted workloads as pending
     * and give no reasons. */
    if (strcmp(role(h), "follower") == 0) {
        const char *holder = h->o.replica.holder
                                 ? h->o.replica.holder(h->o.replica.data)
                                 : NULL;
        return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                    "this replica stands by: pending workloads are answered "
                    "by the leader (%s)\n",
                    holder ? holder : "none yet");
    }
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

void http_server_set_scheduler(struct http_server *h, struct scheduler *s)
{
    if (h)
        h->o.s = s;
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

/* A POST: the body gathered, then answered by o.post. */
static enum MHD_Result post(struct http_server *h, struct MHD_Connection *c,
                            const char *url, struct upload *u, const char *data,
                            size_t *size)
{
    if (*size) {
        size_t n = *size;
        *size = 0;
        /* Past the bound (a chunked body: a declared length is refused
         * at the headers) the rest is dropped to answer 413, up to as
         * much again, then the connection is closed: MHD sends no answer
         * before the body is read. */
        if (u->too_big || n > h->o.max_body - u->n) {
            if (!u->too_big) {
                free(u->buf);
                u->buf = NULL;
                u->cap = 0;
                u->too_big = true;
            }
            u->n += n;
            return u->n > 2 * h->o.max_body ? MHD_NO : MHD_YES;
        }
        if (u->n + n > u->cap) {
            size_t cap = u->cap ? u->cap : 16384;
            while (cap < u->n + n)
                cap *= 2;
            char *b = realloc(u->buf, cap);
            if (!b)
                return MHD_NO;
            u->buf = b;
            u->cap = cap;
        }
        memcpy(u->buf + u->n, data, n);
        u->n += n;
        return MHD_YES;
    }
    if (u->too_big)
        return text(c, MHD_HTTP_CONTENT_TOO_LARGE,
                    "request body over %zu bytes\n", h->o.max_body);
    char *body = NULL;
    unsigned code =
        h->o.post(h->o.post_data, url, u->buf ? u->buf : "", u->n, &body);
    if (!body)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return answer(c, code,
                  code == MHD_HTTP_OK ? "application/json"
                                      : "text/plain; charset=utf-8",
                  body, strlen(body));
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode why)
{
    (void)c;
    (void)why;
    if (*con_cls && *con_cls != cls) {
        struct upload *u = *con_cls;
        free(u->buf);
        free(u);
    }
    *con_cls = NULL;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    struct http_server *h = cls;
    (void)version;
    if (!*con_cls) {
        /* The first call has only the headers: say we go on. */
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (h->o.post && strcmp(method, "POST") == 0 && cl &&
            strtoull(cl, NULL, 10) > h->o.max_body)
            return text(c, MHD_HTTP_CONTENT_TOO_LARGE,
                        "request body over %zu bytes\n", h->o.max_body);
        if (h->o.post && strcmp(method, "POST") == 0) {
            struct upload *u = calloc(1, sizeof(*u));
            if (!u)
                return MHD_NO;
            *con_cls = u;
        } else
            *con_cls = h;
        return MHD_YES;
    }
    if (*con_cls != h)
        return post(h, c, url, *con_cls, upload, upload_size);
    if (*upload_size) {
        *upload_size = 0; /* a body is not read: nothing takes one */
        return MHD_YES;
    }
    if (h->o.post_only)
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only\n");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
    if (strcmp(url, "/healthz") == 0 || strcmp(url, "/livez") == 0)
        return text(c, MHD_HTTP_OK, "ok\n");
    if (strcmp(url, "/readyz") == 0)
        return readyz(h, c);
    char why[512];
    unsigned refuse = h->ca ? client_cert_check(c, h->o.client_names,
                                                &h->refused, why, sizeof(why))
                            : 0;
    if (refuse)
        return text(c, refuse, "%s\n", why);
    if (strcmp(url, "/metrics") == 0 && h->o.metrics) {
        char *s;
        size_t n;
        if (sched_metrics_format(h->o.metrics, &s, &n) < 0)
            return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
        return answer(c, MHD_HTTP_OK,
                      "text/plain; version=0.0.4; charset=utf-8", s, n);
    }
    static const char q[] = "/queues",
                      agg[] = "/apis/" VISIBILITY_GROUP "/" VISIBILITY_VERSION;
    const char *disc = visibility_discovery(url);
    if (disc) {
        char *b = strdup(disc);
        if (!b)
            return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
        return answer(c, MHD_HTTP_OK, "application/json", b, strlen(b));
    }
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
        return err_set(e, EINVAL, "expected HOST:PORT, got \"%s\"", s ? s : "");
    char host[256];
    size_t hl = (size_t)(colon - s);
    if (hl >= sizeof(host))
        return err_set(e, EINVAL, "host too long");
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
        return err_set(e, EINVAL, "bad port \"%s\"", colon + 1);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    int r = getaddrinfo(*hp ? hp : NULL, colon + 1, &hints, ret);
    if (r != 0)
        return err_set(e, EINVAL, "%s: %s", s, gai_strerror(r));
    return 0;
}

/* Starts MHD on address ai, or on the listening socket fd (>= 0) of a
 * daemon being replaced, with h's certificate. NULL when it cannot. */
static struct MHD_Daemon *start(struct http_server *h,
                                const struct sockaddr *addr, int fd)
{
    unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    if (h->family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (h->cert)
        flags |= MHD_USE_TLS;
    /* With a trust list MHD asks for (not requires) a client
     * certificate: the probes' paths stay open. */
    struct MHD_OptionItem tls[] = {
        {h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, h->cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, h->key},
        {h->ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, h->ca},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem where[] = {
        {fd >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_SOCK_ADDR, fd,
         (void *)addr},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, h, MHD_OPTION_ARRAY, where,
        MHD_OPTION_NOTIFY_COMPLETED, completed, h,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u, MHD_OPTION_ARRAY, tls,
        MHD_OPTION_END);
}

static int stat_file(const char *path, struct timespec *ret_mtime,
                     off_t *ret_size)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    *ret_mtime = st.st_mtim;
    *ret_size = st.st_size;
    return 0;
}

/* Reads the certificate and key into h (the old ones freed on success).
 * 0 or a negative errno. */
static int load_tls(struct http_server *h)
{
    char *cert = NULL, *key = NULL, *ca = NULL;
    struct timespec cm, km;
    off_t cs, ks;
    int r;
    if ((r = stat_file(h->o.cert_file, &cm, &cs)) < 0 ||
        (r = stat_file(h->o.key_file, &km, &ks)) < 0 ||
        (r = read_file(h->o.cert_file, &cert)) < 0 ||
        (r = read_file(h->o.key_file, &key)) < 0 ||
        (h->o.client_ca_file &&
         (r = read_file(h->o.client_ca_file, &ca)) < 0) ||
        /* MHD takes a bundle without certificates and then trusts
         * nothing: every client refused, with no word why. */
        (ca && (r = client_cert_count(ca) > 0 ? 0 : -EBADMSG) < 0)) {
        free(cert);
        free(key);
        free(ca);
        return r;
    }
    free(h->cert);
    free(h->key);
    free(h->ca);
    h->cert = cert;
    h->key = key;
    h->ca = ca;
    h->cert_mtime = cm;
    h->key_mtime = km;
    h->cert_size = cs;
    h->key_size = ks;
    return 0;
}

int http_server_new(const struct http_server_options *o,
                    struct http_server **ret, struct err *e)
{
    const char *fl = o && o->flag ? o->flag : "--listen";
    if (!o || (!o->s && !o->post_only) || !!o->cert_file != !!o->key_file)
        return err_set(e, EINVAL, "%s-cert and %s-key go together", fl, fl);
    if (o->client_ca_file && !o->cert_file)
        return err_set(e, EINVAL,
                       "%s-client-ca needs %s-cert and %s-key: client "
                       "certificates come with TLS",
                       fl, fl, fl);
    if (o->client_names && !o->client_ca_file)
        return err_set(e, EINVAL, "%s-client-name needs %s-client-ca", fl, fl);
    if (o->client_ca_file && !client_cert_supported())
        return err_set(e, ENOTSUP,
                       "%s-client-ca: this build has no GnuTLS to verify "
                       "client certificates",
                       fl);
    if (o->cert_file && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        return err_set(e, ENOTSUP,
                       "%s: this libmicrohttpd was built without TLS", fl);
    struct http_server *h = calloc(1, sizeof(*h));
    struct addrinfo *ai = NULL;
    int r;
    if (!h)
        return err_set(e, ENOMEM, "out of memory");
    h->o = *o;
    if ((r = parse_listen(o->listen, &ai, e)) < 0) {
        err_set(e, -r, "%s: %s", fl, e->msg);
        goto fail;
    }
    if (o->cert_file && (r = load_tls(h)) < 0) {
        if (r == -EBADMSG)
            err_set(e, EINVAL, "%s-client-ca %s: no PEM certificate in it",
                    fl, o->client_ca_file);
        else if (o->client_ca_file)
            err_set(e, -r, "%s-cert/%s-key/%s-client-ca: %s", fl, fl, fl,
                    strerror(-r));
        else
            err_set(e, -r, "%s-cert/%s-key: %s", fl, fl, strerror(-r));
        goto fail;
    }
    h->family = ai->ai_family;
    h->d = start(h, ai->ai_addr, -1);
    if (!h->d) {
        r = err_set(e, EADDRINUSE, "%s %s: cannot listen there%s", fl,
                    o->listen,
                    h->ca     ? " (or the certificate, key or client CA is bad)"
                    : h->cert ? " (or the certificate is bad)"
                              : "");
        goto fail;
    }
    const union MHD_DaemonInfo *pi =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = pi ? pi->port : 0;
    h->next_check = time(NULL) + RELOAD_EVERY_S;
    freeaddrinfo(ai);
    *ret = h;
    return 0;
fail:
    if (ai)
        freeaddrinfo(ai);
    http_server_free(h);
    return r;
}

static bool changed(const struct timespec *a, off_t as,
                    const struct timespec *b, off_t bs)
{
    return a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec || as != bs;
}

int http_server_reload(struct http_server *h, struct err *e)
{
    if (!h->cert)
        return 0;
    struct timespec cm, km;
    off_t cs, ks;
    int r;
    if ((r = stat_file(h->o.cert_file, &cm, &cs)) < 0 ||
        (r = stat_file(h->o.key_file, &km, &ks)) < 0)
        return err_set(e, -r,
                       "%s-cert/%s-key: %s: keeping the certificate "
                       "in use",
                       flag(h), flag(h), strerror(-r));
    if (!changed(&cm, cs, &h->cert_mtime, h->cert_size) &&
        !changed(&km, ks, &h->key_mtime, h->key_size))
        return 0;
    char *old_cert = h->cert, *old_key = h->key;
    char *old_ca = h->ca;
    h->cert = h->key = h->ca = NULL;
    if ((r = load_tls(h)) < 0) {
        h->cert = old_cert;
        h->key = old_key;
        h->ca = old_ca;
        return err_set(e, -r,
                       "%s-cert/%s-key: %s: keeping the certificate "
                       "in use",
                       flag(h), flag(h), strerror(-r));
    }
    /* The socket moves to a daemon with the new pair; the old one's
     * connections are closed. */
    MHD_socket fd = MHD_quiesce_daemon(h->d);
    if (fd == MHD_INVALID_SOCKET) {
        free(old_cert);
        free(old_key);
        free(old_ca);
        return err_set(e, EIO, "%s: cannot hand the socket over", flag(h));
    }
    struct MHD_Daemon *d = start(h, NULL, fd);
    r = 1;
    if (!d) {
        /* The new pair does not load: the old one again. */
        free(h->cert);
        free(h->key);
        free(h->ca);
        h->cert = old_cert;
        h->key = old_key;
        h->ca = old_ca;
        old_cert = old_key = old_ca = NULL;
        d = start(h, NULL, fd);
        r = err_set(e, EINVAL,
                    "%s-cert/%s-key changed but do not load "
                    "(not a certificate and its key?): keeping "
                    "the old ones",
                    flag(h), flag(h));
    }
    MHD_stop_daemon(h->d);
    h->d = d;
    free(old_cert);
    free(old_key);
    free(old_ca);
    if (!d)
        close(fd);
    if (!d)
        return err_set(e, EIO, "%s: cannot listen again", flag(h));
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
    free(h->ca);
    free(h);
}

uint16_t http_server_port(const struct http_server *h)
{
    return h->port;
}

int http_server_fd(const struct http_server *h)
{
    if (!h->d)
        return -1;
    const union MHD_DaemonInfo *i =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
    return i ? i->epoll_fd : -1;
}

int64_t http_server_timeout_ms(const struct http_server *h)
{
    MHD_UNSIGNED_LONG_LONG t;
    if (!h->d)
        return -1;
    if (MHD_get_timeout(h->d, &t) != MHD_YES)
        return -1;
    return t > INT64_MAX ? INT64_MAX : (int64_t)t;
}

void http_server_run(struct http_server *h)
{
    if (h->d)
        MHD_run(h->d);
}

bool http_server_reload_due(struct http_server *h)
{
    time_t now = time(NULL);
    if (!h->o.reload_tls || !h->cert || now < h->next_check)
        return false;
    h->next_check = now + RELOAD_EVERY_S;
    return true;
}
