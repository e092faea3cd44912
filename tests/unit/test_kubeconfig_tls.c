/* test_kubeconfig_tls.c - a kubeconfig's TLS settings reach a real TLS
 * handshake: a CA, server and client certificates made with `openssl req`
 * (skipped, with a message, where openssl is not installed), a TLS server
 * (libmicrohttpd over GnuTLS) that records the client certificate and the
 * Authorization header, and kclient configured by kubeconfig.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "err.h"
#include "kclient.h"
#include "kubeconfig.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static char dir[256];
static bool have_openssl;
static struct MHD_Daemon *daemon_;
static uint16_t port;

/* What the server saw of the last request. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char seen_auth[256], seen_dn[256];
static bool seen_verified;
static int n_seen;

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    assert_true(n > 0);
    return buf;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *data,
                               size_t *data_size, void **con_cls)
{
    if (!*con_cls) {
        *con_cls = (void *)1;
        return MHD_YES;
    }
    if (*data_size) {
        *data_size = 0;
        return MHD_YES;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t s = ci ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned n = 0, status = 1;
    const gnutls_datum_t *peers =
        s ? gnutls_certificate_get_peers(s, &n) : NULL;
    const char *auth =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    pthread_mutex_lock(&lock);
    n_seen++;
    snprintf(seen_auth, sizeof(seen_auth), "%s", auth ? auth : "");
    seen_dn[0] = '\0';
    seen_verified = s && n > 0 &&
                    gnutls_certificate_verify_peers2(s, &status) == 0 &&
                    status == 0;
    gnutls_x509_crt_t crt;
    if (peers && n > 0 && gnutls_x509_crt_init(&crt) == 0) {
        size_t len = sizeof(seen_dn);
        if (gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) ||
            gnutls_x509_crt_get_dn(crt, seen_dn, &len))
            seen_dn[0] = '\0';
        gnutls_x509_crt_deinit(crt);
    }
    pthread_mutex_unlock(&lock);
    static const char body[] = "{}";
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        2, (void *)body, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result r = MHD_queue_response(c, 201, resp);
    MHD_destroy_response(resp);
    return r;
}

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "%s/kcfg-tls-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    have_openssl = system("command -v openssl >/dev/null 2>&1") == 0;
    if (!have_openssl) {
        printf("# openssl is not installed: the TLS cases are skipped\n");
        return 0;
    }
    /* A CA, a server certificate for kube.test only, a client certificate,
     * and a second CA that signed neither. */
    char cmd[4096];
    snprintf(
        cmd, sizeof(cmd),
        "(cd '%s' && K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
        "-nodes' && "
        "openssl req -x509 $K -keyout ca.key -out ca.pem -days 2 "
        "-subj /CN=test-ca && "
        "openssl req -x509 $K -keyout other.key -out other.pem -days 2 "
        "-subj /CN=other-ca && "
        "openssl req $K -keyout srv.key -out srv.csr -subj /CN=kube.test && "
        "printf 'subjectAltName=DNS:kube.test\\n' > srv.ext && "
        "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
        "-CAcreateserial -out srv.pem -days 2 -extfile srv.ext && "
        "openssl req $K -keyout cl.key -out cl.csr -subj /CN=ordo-client && "
        "openssl x509 -req -in cl.csr -CA ca.pem -CAkey ca.key "
        "-CAcreateserial -out cl.pem -days 2) >/dev/null 2>&1",
        dir);
    if (system(cmd) != 0)
        return -1;
    static char *key, *cert, *trust;
    key = slurp("srv.key");
    cert = slurp("srv.pem");
    trust = slurp("ca.pem");
    struct sockaddr_in sin = {.sin_family = AF_INET};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    daemon_ = MHD_start_daemon(
        MHD_USE_TLS | MHD_USE_THREAD_PER_CONNECTION |
            MHD_USE_INTERNAL_POLLING_THREAD,
        0, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR, &sin,
        MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_HTTPS_MEM_CERT, cert,
        MHD_OPTION_HTTPS_MEM_TRUST, trust, MHD_OPTION_END);
    if (!daemon_)
        return -1;
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    port = info ? info->port : 0;
    return port ? 0 : -1;
}

static int teardown(void **state)
{
    if (daemon_)
        MHD_stop_daemon(daemon_);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void on_done(void *data, const struct kclient_evict_result *res)
{
    snprintf(data, 512, "%s: %s", kclient_evict_result_name(res->outcome),
             res->why);
}

/* t with @DIR@ and @PORT@ replaced, into out. */
static void subst(const char *t, char *out, size_t size)
{
    char port_s[8];
    snprintf(port_s, sizeof(port_s), "%u", (unsigned)port);
    size_t n = 0;
    while (*t && n + 1 < size) {
        const char *v = strncmp(t, "@DIR@", 5) == 0    ? dir
                        : strncmp(t, "@PORT@", 6) == 0 ? port_s
                                                       : NULL;
        if (!v) {
            out[n++] = *t++;
            continue;
        }
        t += v == dir ? 5 : 6;
        n += (size_t)snprintf(out + n, size - n, "%s", v);
    }
    out[n < size ? n : size - 1] = '\0';
}

/* Writes a kubeconfig with the given cluster and user fields, evicts one
 * pod through it and returns "outcome: why". */
static const char *evict_via(const char *cluster, const char *user)
{
    static char outcome[512];
    char c[2048], u[2048], text[4400], path[512];
    subst(cluster, c, sizeof(c));
    subst(user, u, sizeof(u));
    snprintf(text, sizeof(text),
             "current-context: x\ncontexts: [{name: x, context: {cluster: c, "
             "user: u}}]\nclusters:\n- name: c\n  cluster:\n%susers:\n- "
             "name: u\n  user:\n%s",
             c, u);
    snprintf(path, sizeof(path), "%s/config", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    struct kubeconfig_load_options o = {.kubeconfig = path};
    struct kubeconfig *kc = NULL;
    struct err e = {{0}};
    int r = kubeconfig_load(&o, &kc, &e);
    if (r)
        print_error("%s\n", e.msg);
    assert_int_equal(r, 0);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    struct kclient *cl = NULL;
    assert_int_equal(kclient_new(&opt, &cl), 0);
    outcome[0] = '\0';
    pthread_mutex_lock(&lock);
    n_seen = 0;
    seen_auth[0] = seen_dn[0] = '\0';
    pthread_mutex_unlock(&lock);
    assert_int_equal(
        kclient_evict_pod(cl, "ns", "p", NULL, -1, on_done, outcome), 0);
    while (kclient_pending(cl))
        assert_true(kclient_process(cl, 100) >= 0);
    kclient_free(cl);
    kubeconfig_free(kc);
    return outcome;
}

#define SERVER "    server: https://127.0.0.1:@PORT@\n"
#define CA     "    certificate-authority: @DIR@/ca.pem\n"
#define NAME   "    tls-server-name: kube.test\n"
#define CERTS                                                                  \
    "    client-certificate: @DIR@/cl.pem\n    client-key: @DIR@/cl.key\n"

static void test_client_cert_and_token(void **state)
{
    if (!have_openssl)
        skip();
    const char *out = evict_via(SERVER CA NAME, CERTS "    token: tok-1\n");
    assert_string_equal(out, "evicted: evicted (201 Created)");
    assert_int_equal(n_seen, 1);
    assert_string_equal(seen_auth, "Bearer tok-1");
    assert_string_equal(seen_dn, "CN=ordo-client");
    assert_true(seen_verified);
}

static void test_exec_client_cert(void **state)
{
    if (!have_openssl)
        skip();
    /* The plugin answers with the client certificate and key as PEM. */
    char path[512], script[2048];
    snprintf(path, sizeof(path), "%s/plugin.sh", dir);
    snprintf(script, sizeof(script),
             "#!/bin/sh\n"
             "pem() { awk '{printf \"%%s\\\\n\", $0}' \"%s/$1\"; }\n"
             "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
             "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"from-exec\","
             "\"clientCertificateData\":\"%%s\",\"clientKeyData\":\"%%s\"}}' "
             "\"$(pem cl.pem)\" \"$(pem cl.key)\"\n",
             dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
    const char *out = evict_via(
        SERVER CA NAME,
        "    exec: {apiVersion: client.authentication.k8s.io/v1, command: "
        "@DIR@/plugin.sh, interactiveMode: Never}\n");
    assert_string_equal(out, "evicted: evicted (201 Created)");
    assert_string_equal(seen_auth, "Bearer from-exec");
    assert_string_equal(seen_dn, "CN=ordo-client");
    assert_true(seen_verified);
}

static void test_verification_fails(void **state)
{
    if (!have_openssl)
        skip();
    /* The certificate names kube.test, not 127.0.0.1. */
    const char *out = evict_via(SERVER CA, "    token: t\n");
    if (!strstr(out, "failed: eviction failed: ") ||
        !strstr(out, "certificate"))
        fail_msg("%s", out);
    /* Another CA. */
    out = evict_via(SERVER NAME "    certificate-authority: @DIR@/other.pem\n",
                    "    token: t\n");
    if (!strstr(out, "failed: eviction failed: ") ||
        !strstr(out, "certificate"))
        fail_msg("%s", out);
    assert_int_equal(n_seen, 0);
    /* insecure-skip-tls-verify gets through both. */
    out = evict_via(SERVER "    insecure-skip-tls-verify: true\n",
                    "    token: t\n");
    assert_string_equal(out, "evicted: evicted (201 Created)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_cert_and_token),
        cmocka_unit_test(test_exec_client_cert),
        cmocka_unit_test(test_verification_fails),
    };
    int r =
        cmocka_run_group_tests_name("kubeconfig_tls", tests, setup, teardown);
    if (!have_openssl)
        printf("# openssl is not installed: TLS cases skipped\n");
    return r;
}
