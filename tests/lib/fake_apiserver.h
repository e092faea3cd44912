/* fake_apiserver.h - a fake Kubernetes API server for unit tests: libmicrohttpd
 * on an ephemeral loopback port, answering from a per-test script of rules
 * and recording every request it receives.
 *
 * One server per test program (fake_srv). Rules and records are read by the
 * test after its client is idle; the server thread writes them under lock. */
#ifndef ORDO_FAKE_APISERVER_H
#define ORDO_FAKE_APISERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_RULES   32
#define MAX_RECORDS 64
#define MAX_CHUNKS  8

/* A scripted answer: the first unused rule matching method and path (NULL:
 * any path) and whose query, when set, is a substring of the request's
 * (rebuilt as "k=v&k=v" in the client's order, values decoded) answers,
 * after delay_ms, with status and body. Unmatched requests get 418.
 * header, when set, is one more response header ("Retry-After: 2").
 * chunks, when chunks[0] is set, replace body: each is sent as its own
 * HTTP chunk, chunk_pause_ms apart (so that a client sees them in separate
 * reads; nothing may depend on it), and with drop the connection is then
 * cut without ending the response. A sticky rule is never used up (a
 * default answer, put after the others). */
struct rule {
    const char *method, *path;
    unsigned status;
    const char *body;
    unsigned delay_ms;
    bool used;
    const char *query;
    const char *header;
    const char *chunks[MAX_CHUNKS];
    unsigned chunk_pause_ms;
    bool drop;
    bool sticky;
};

/* One request as received; body is owned by the server (NULL when empty). */
struct record {
    char method[16], path[512], auth[256], ctype[64], accept[64], agent[64];
    char query[1024];
    char *body;
};

struct fake {
    struct MHD_Daemon *daemon;
    uint16_t port;
    char base[64]; /* "http://127.0.0.1:PORT/" */
    pthread_mutex_t lock;
    struct rule rules[MAX_RULES];
    size_t n_rules;
    struct record records[MAX_RECORDS];
    size_t n_records;
};

extern struct fake fake_srv;

/* cmocka setup/teardown: start the server / stop it and forget everything. */
int fake_start(void **state);
int fake_stop(void **state);
/* Forgets rules and records (between cases of one test). */
void fake_reset(void);
/* Appends a rule; body NULL means empty. Returns it (owned by fake_srv) so
 * the caller can set delay_ms. Fails the test when the script is full. */
struct rule *fake_rule(const char *method, const char *path, unsigned status,
                       const char *body);

#endif
