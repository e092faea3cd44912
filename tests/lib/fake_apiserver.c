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
    pthread_mutex_lock(&fake_srv.lock);
    if (fake_srv.n_records < MAX_RECORDS) {
        struct record *rec = &fake_srv.records[fake_srv.n_records++];
        snprintf(rec->method, sizeof(rec->method), "%s", method);
        snprintf(rec->path, sizeof(rec->path), "%s", url);
        copy_header(c, "Authorization", rec->auth, sizeof(rec->auth));
        copy_header(c, "Content-Type", rec->ctype, sizeof(rec->ctype));
        copy_header(c, "Accept", rec->accept, sizeof(rec->accept));
        copy_header(c, "User-Agent", rec->agent, sizeof(rec->agent));
        rec->body = up->body;
        up->body = NULL;
    }
    for (size_t i = 0; i < fake_srv.n_rules; i++) {
        struct rule *r = &fake_srv.rules[i];
        if (!r->used && strcmp(r->method, method) == 0 &&
            (!r->path || strcmp(r->path, url) == 0)) {
            r->used = true;
            answer = *r;
            break;
        }
    }
    pthread_mutex_unlock(&fake_srv.lock);
    if (answer.delay_ms)
        usleep(answer.delay_ms * 1000u);
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        strlen(answer.body), (void *)answer.body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "application/json");
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
