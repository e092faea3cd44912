/* fake_apiserver.c - the fake Kubernetes API server of fake_apiserver.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "fake_apiserver.h"

/* MHD callbacks ignore some parameters. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

struct fake fake_srv = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct upload {
    char *body;
    size_t len;
};

static void copy_header(struct MHD_Connection *c, const char *name, char *dst,
                        size_t size)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    snprintf(dst, size, "%s", v ? v : "");
}

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *value)
{
    char *q = cls;
    size_t n = strlen(q);
    snprintf(q + n, sizeof(((struct record *)0)->query) - n, "%s%s=%s",
             n ? "&" : "", key, value ? value : "");
    return MHD_YES;
}

/* A streamed answer: the rule's chunks, one per call. */
struct stream {
    struct rule r;
    size_t next;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *st = cls;
    if (st->next >= MAX_CHUNKS || !st->r.chunks[st->next])
        return st->r.drop ? MHD_CONTENT_READER_END_WITH_ERROR
                          : MHD_CONTENT_READER_END_OF_STREAM;
    if (st->next && st->r.chunk_pause_ms)
        usleep(st->r.chunk_pause_ms * 1000u);
    const char *c = st->r.chunks[st->next++];
    size_t n = strlen(c);
    assert_true(n <= max);
    memcpy(buf, c, n);
    return (ssize_t)n;
}

static enum MHD_Result fake_handler(void *cls, struct MHD_Connection *c,
                                    const char *url, const char *method,
                                    const char *version, const char *data,
                                    size_t *data_size, void **con_cls)
{
    struct upload *up = *con_cls;
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
    struct rule answer = {.status = 418, .body = "{\"message\":\"no rule\"}"};
    char query[sizeof(((struct record *)0)->query)] = "";
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, query);
    pthread_mutex_lock(&fake_srv.lock);
    if (fake_srv.n_records < MAX_RECORDS) {
        struct record *rec = &fake_srv.records[fake_srv.n_records++];
        snprintf(rec->method, sizeof(rec->method), "%s", method);
        snprintf(rec->path, sizeof(rec->path), "%s", url);
        copy_header(c, "Authorization", rec->auth, sizeof(rec->auth));
        copy_header(c, "Content-Type", rec->ctype, sizeof(rec->ctype));
        copy_header(c, "Accept", rec->accept, sizeof(rec->accept));
        copy_header(c, "User-Agent", rec->agent, sizeof(rec->agent));
        snprintf(rec->query, sizeof(rec->query), "%s", query);
        rec->body = up->body;
        up->body = NULL;
    }
    for (size_t i = 0; i < fake_srv.n_rules; i++) {
        struct rule *r = &fake_srv.rules[i];
        if (!r->used && strcmp(r->method, method) == 0 &&
            (!r->path || strcmp(r->path, url) == 0) &&
            (!r->query || strstr(query, r->query))) {
            r->used = !r->sticky;
            answer = *r;
            break;
        }
    }
    pthread_mutex_unlock(&fake_srv.lock);
    if (answer.delay_ms)
        usleep(answer.delay_ms * 1000u);
    struct MHD_Response *resp;
    if (answer.chunks[0]) {
        struct stream *st = calloc(1, sizeof(*st));
        if (!st)
            return MHD_NO;
        st->r = answer;
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
                                                 stream_read, st, free);
    } else {
        resp = MHD_create_response_from_buffer(
            strlen(answer.body), (void *)answer.body, MHD_RESPMEM_MUST_COPY);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "application/json");
    if (answer.header) {
        char name[64];
        const char *colon = strchr(answer.header, ':');
        size_t n = colon ? (size_t)(colon - answer.header) : 0;
        assert_true(colon && n < sizeof(name));
        memcpy(name, answer.header, n);
        name[n] = '\0';
        MHD_add_response_header(resp, name, colon + 1 + strspn(colon + 1, " "));
    }
    enum MHD_Result ret = MHD_queue_response(c, answer.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void fake_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct upload *up = *con_cls;
    if (up)
        free(up->body);
    free(up);
    *con_cls = NULL;
}

void fake_reset(void)
{
    pthread_mutex_lock(&fake_srv.lock);
    for (size_t i = 0; i < fake_srv.n_records; i++)
        free(fake_srv.records[i].body);
    memset(fake_srv.records, 0, sizeof(fake_srv.records));
    memset(fake_srv.rules, 0, sizeof(fake_srv.rules));
    fake_srv.n_records = fake_srv.n_rules = 0;
    pthread_mutex_unlock(&fake_srv.lock);
}

struct rule *fake_rule(const char *method, const char *path, unsigned status,
                       const char *body)
{
    assert_true(fake_srv.n_rules < MAX_RULES);
    struct rule *r = &fake_srv.rules[fake_srv.n_rules++];
    *r = (struct rule){.method = method,
                       .path = path,
                       .status = status,
                       .body = body ? body : ""};
    return r;
}

int fake_start(void **state)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fake_srv.daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
        NULL, NULL, fake_handler, NULL, MHD_OPTION_SOCK_ADDR, &sin,
        MHD_OPTION_NOTIFY_COMPLETED, fake_completed, NULL, MHD_OPTION_END);
    if (!fake_srv.daemon)
        return -1;
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(fake_srv.daemon, MHD_DAEMON_INFO_BIND_PORT);
    fake_srv.port = info ? info->port : 0;
    snprintf(fake_srv.base, sizeof(fake_srv.base), "http://127.0.0.1:%u/",
             (unsigned)fake_srv.port);
    return fake_srv.port ? 0 : -1;
}

int fake_stop(void **state)
{
    MHD_stop_daemon(fake_srv.daemon);
    fake_srv.daemon = NULL;
    fake_reset();
    return 0;
}
