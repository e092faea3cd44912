/* test_kubeconfig.c - unit tests for core/kube/kubeconfig*.c: which files
 * are read and how they merge, every field, relative paths, in-cluster
 * files, token files that rotate, exec plugins (shell scripts written
 * here) with expiry, the error messages, and the credentials reaching the
 * fake API server of tests/lib through kclient. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fake_apiserver.h"
#include "kclient.h"
#include "kubeconfig.h"
#include "test_helpers.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"
/* Expected messages are templates with the temporary directory in them. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define CA_PEM "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n"
#define CERT_PEM                                                               \
    "-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n"
#define KEY_PEM "-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n"
#define S       1000000000LL

static char dir[256];
static int64_t fake_now = 1700000000 * S; /* 2023-11-14T22:13:20Z */

static int64_t test_clock(void *data)
{
    return fake_now;
}

static int tmp_setup(void **state)
{
    snprintf(dir, sizeof(dir), "%s/kcfg-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fake_now = 1700000000 * S;
    return mkdtemp(dir) ? 0 : -1;
}

static int tmp_teardown(void **state)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes dir/name (mode 0755 when exec) and returns its path (static). */
static const char *put(const char *name, const char *text, bool exec)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    for (char *q = p + strlen(dir) + 1; (q = strchr(q, '/')); q++) {
        *q = '\0';
        mkdir(p, 0755);
        *q = '/';
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    chmod(p, exec ? 0755 : 0644);
    return p;
}

static struct kubeconfig_load_options opts(void)
{
    return (struct kubeconfig_load_options){.clock_ns = test_clock};
}

static struct kubeconfig *load_ok(const struct kubeconfig_load_options *o)
{
    struct kubeconfig *kc = NULL;
    struct err e = {{0}};
    int r = kubeconfig_load(o, &kc, &e);
    if (r != 0)
        print_error("kubeconfig_load: %d: %s\n", r, e.msg);
    assert_int_equal(r, 0);
    assert_non_null(kc);
    return kc;
}

/* Loads file (with --context ctx) and expects the error want. */
static void load_fails(const char *file, const char *ctx, int code,
                       const char *want)
{
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = file;
    o.context = ctx;
    struct kubeconfig *kc = NULL;
    struct err e = {{0}};
    assert_int_equal(kubeconfig_load(&o, &kc, &e), -code);
    assert_null(kc);
    char full[1024];
    snprintf(full, sizeof(full), want, dir, dir);
    assert_string_equal(e.msg, full);
}

static const char *cred_token(struct kclient_options *opt)
{
    struct kclient_cred c = {0};
    assert_non_null(opt->cred);
    assert_int_equal(opt->cred->get(opt->cred->data, &c), 0);
    return c.token;
}

static void test_merged_kubeconfig(void **state)
{
    const char *a = put("a.yaml",
                        "apiVersion: v1\nkind: Config\n"
                        "current-context: one\n"
                        "clusters:\n"
                        "- name: c1\n  cluster: {server: 'https://a:1'}\n"
                        "users:\n- name: u1\n  user: {token: tok-a}\n"
                        "contexts:\n"
                        "- name: one\n  context: {cluster: c1, user: u1}\n",
                        false);
    const char *b = put("b.yaml",
                        "current-context: two\n"
                        "clusters:\n"
                        "- name: c1\n  cluster: {server: 'https://b:1'}\n"
                        "- name: c2\n  cluster: {server: 'https://b:2'}\n"
                        "users:\n- name: u1\n  user: {token: tok-b}\n"
                        "contexts:\n"
                        "- name: one\n  context: {cluster: c2}\n"
                        "- name: two\n"
                        "  context: {cluster: c1, user: u1, namespace: ns2}\n",
                        false);
    char env[1200];
    snprintf(env, sizeof(env), "%s:%s/missing.yaml::%s", a, dir, b);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig_env = env;
    o.home = dir; /* not read: KUBECONFIG is set */
    put(".kube/config", "current-context: home\n", false);
    struct kubeconfig *kc = load_ok(&o);
    /* current-context from the first file; its entries win. */
    assert_string_equal(kubeconfig_server(kc), "https://a:1");
    assert_string_equal(kubeconfig_namespace(kc), "default");
    char want[600];
    snprintf(want, sizeof(want), "context \"one\" of %s", a);
    assert_string_equal(kubeconfig_describe(kc), want);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_string_equal(opt.bearer_token, "tok-a");
    assert_null(opt.cred);
    kubeconfig_free(kc);
    /* A context of the second file, with the first file's c1 and u1. */
    o.context = "two";
    kc = load_ok(&o);
    assert_string_equal(kubeconfig_server(kc), "https://a:1");
    assert_string_equal(kubeconfig_namespace(kc), "ns2");
    kubeconfig_client_options(kc, &opt);
    assert_string_equal(opt.bearer_token, "tok-a");
    kubeconfig_free(kc);
    /* Without KUBECONFIG, $HOME/.kube/config. */
    o = opts();
    o.home = dir;
    put(".kube/config",
        "current-context: h\nclusters: [{name: c, cluster: {server: "
        "'http://home:8080'}}]\ncontexts: [{name: h, context: {cluster: c}}]\n",
        false);
    kc = load_ok(&o);
    assert_string_equal(kubeconfig_server(kc), "http://home:8080");
    kubeconfig_client_options(kc, &opt);
    assert_null(opt.bearer_token);
    kubeconfig_free(kc);
    /* --kubeconfig: that file alone. */
    o.kubeconfig = b;
    o.context = NULL;
    kc = load_ok(&o);
    assert_string_equal(kubeconfig_server(kc), "https://b:1");
    kubeconfig_free(kc);
}

static void test_every_field(void **state)
{
    /* base64 of CA_PEM, CERT_PEM, KEY_PEM, with a line break in one. */
    const char *f =
        put("all.yaml",
            "current-context: x\n"
            "clusters:\n- name: c\n  cluster:\n"
            "    server: https://10.0.0.1:6443\n"
            "    certificate-authority-data: "
            "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClEwRT0KLS0tLS1FTkQgQ0VSVElGSU"
            "NBVEUtLS0tLQo=\n"
            "    tls-server-name: kube.test\n"
            "    proxy-url: http://proxy:3128\n"
            "    disable-compression: true\n"
            "users:\n- name: u\n  user:\n"
            "    token: abc\n"
            "    tokenFile: ignored-because-token-wins\n"
            "    client-certificate-data: |\n"
            "      LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClEw\n"
            "      VlNWQT09Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K\n"
            "    client-key-data: "
            "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClMwVloKLS0tLS1FTkQgUFJJVkFURS"
            "BLRVktLS0tLQo=\n"
            "contexts:\n- name: x\n  context: {cluster: c, user: u, namespace: "
            "batch}\n",
            false);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = f;
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_string_equal(opt.base_url, "https://10.0.0.1:6443");
    assert_int_equal(opt.ca_len, strlen(CA_PEM));
    assert_memory_equal(opt.ca_data, CA_PEM, opt.ca_len);
    assert_string_equal(opt.tls_server_name, "kube.test");
    assert_string_equal(opt.proxy_url, "http://proxy:3128");
    assert_false(opt.insecure_skip_verify);
    assert_string_equal(opt.bearer_token, "abc");
    assert_null(opt.cred);
    assert_int_equal(opt.client_cert_len, strlen(CERT_PEM));
    assert_memory_equal(opt.client_cert_data, CERT_PEM, opt.client_cert_len);
    assert_int_equal(opt.client_key_len, strlen(KEY_PEM));
    assert_memory_equal(opt.client_key_data, KEY_PEM, opt.client_key_len);
    assert_string_equal(kubeconfig_namespace(kc), "batch");
    /* kclient takes them. */
    struct kclient *cl = NULL;
    assert_int_equal(kclient_new(&opt, &cl), 0);
    kclient_free(cl);
    kubeconfig_free(kc);

    f = put("insecure.yaml",
            "current-context: x\nclusters: [{name: c, cluster: {server: "
            "'https://h', insecure-skip-tls-verify: true}}]\n"
            "contexts: [{name: x, context: {cluster: c, user: nobody}}]\n"
            "users: [{name: nobody, user: {}}]\n",
            false);
    o.kubeconfig = f;
    kc = load_ok(&o);
    opt = (struct kclient_options){0};
    kubeconfig_client_options(kc, &opt);
    assert_true(opt.insecure_skip_verify);
    assert_null(opt.ca_data);
    assert_null(opt.bearer_token);
    assert_null(opt.client_cert_data);
    kubeconfig_free(kc);
}

static void test_relative_paths(void **state)
{
    put("conf/pki/ca.pem", CA_PEM, false);
    put("conf/pki/c.pem", CERT_PEM, false);
    put("conf/k.pem", KEY_PEM, false);
    put("conf/tok", "  rotating-1\n", false);
    const char *f =
        put("conf/config",
            "current-context: x\nclusters: [{name: c, cluster: {server: "
            "'https://h', certificate-authority: pki/ca.pem}}]\n"
            "users: [{name: u, user: {client-certificate: pki/c.pem, "
            "client-key: k.pem, tokenFile: tok}}]\n"
            "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
            false);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = f;
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_memory_equal(opt.ca_data, CA_PEM, strlen(CA_PEM));
    assert_memory_equal(opt.client_cert_data, CERT_PEM, strlen(CERT_PEM));
    assert_memory_equal(opt.client_key_data, KEY_PEM, strlen(KEY_PEM));
    assert_null(opt.bearer_token);
    assert_string_equal(cred_token(&opt), "rotating-1");
    kubeconfig_free(kc);
}

static void test_token_file_rotates(void **state)
{
    const char *tok = put("tok", "first\n", false);
    char text[800];
    snprintf(text, sizeof(text),
             "current-context: x\nclusters: [{name: c, cluster: {server: "
             "'http://h'}}]\nusers: [{name: u, user: {tokenFile: %s}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
             tok);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = put("config", text, false);
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_string_equal(cred_token(&opt), "first");
    /* Rewritten (another size): read again at the next request. */
    put("tok", "second-token\n", false);
    assert_string_equal(cred_token(&opt), "second-token");
    /* Rewritten with the same size and mtime: only the re-read period
     * finds it. */
    struct stat st;
    assert_int_equal(stat(tok, &st), 0);
    put("tok", "third--token\n", false);
    struct timespec ts[2] = {st.st_atim, st.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, tok, ts, 0), 0);
    assert_string_equal(cred_token(&opt), "second-token");
    fake_now += KUBECONFIG_TOKEN_REREAD_S * S;
    assert_string_equal(cred_token(&opt), "third--token");
    /* Gone: the last token is kept, and why is said. */
    assert_int_equal(unlink(tok), 0);
    kubeconfig_invalidate(kc);
    assert_string_equal(cred_token(&opt), "third--token");
    char want[800];
    snprintf(want, sizeof(want),
             "%s/config: context \"x\": user \"u\": tokenFile: %s: No such "
             "file or directory; keeping the last token",
             dir, tok);
    assert_string_equal(kubeconfig_cred_error(kc), want);
    kubeconfig_free(kc);
}

static void test_in_cluster(void **state)
{
    char p[512];
    put("var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token\n",
        false);
    put("var/run/secrets/kubernetes.io/serviceaccount/ca.crt", CA_PEM, false);
    put("var/run/secrets/kubernetes.io/serviceaccount/namespace", "batch-ns",
        false);
    struct kubeconfig_load_options o = opts();
    o.home = dir; /* no .kube/config there */
    o.incluster_root = dir;
    o.service_host = "fd00::1";
    o.service_port = "443";
    struct kubeconfig *kc = load_ok(&o);
    assert_string_equal(kubeconfig_server(kc), "https://[fd00::1]:443");
    assert_string_equal(kubeconfig_namespace(kc), "batch-ns");
    assert_string_equal(kubeconfig_describe(kc),
                        "in-cluster (https://[fd00::1]:443)");
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_memory_equal(opt.ca_data, CA_PEM, strlen(CA_PEM));
    assert_string_equal(cred_token(&opt), "sa-token");
    kubeconfig_free(kc);
    /* IPv4, and no namespace file. */
    snprintf(p, sizeof(p),
             "%s/var/run/secrets/kubernetes.io/serviceaccount/namespace", dir);
    unlink(p);
    o.service_host = "10.96.0.1";
    kc = load_ok(&o);
    assert_string_equal(kubeconfig_server(kc), "https://10.96.0.1:443");
    assert_string_equal(kubeconfig_namespace(kc), "default");
    kubeconfig_free(kc);
    /* No token: an error naming the file. */
    snprintf(p, sizeof(p),
             "%s/var/run/secrets/kubernetes.io/serviceaccount/token", dir);
    unlink(p);
    struct err e = {{0}};
    assert_int_equal(kubeconfig_load(&o, &kc, &e), -EIO);
    char want[800];
    snprintf(want, sizeof(want),
             "in-cluster: tokenFile: %s: No such file or directory", p);
    assert_string_equal(e.msg, want);
    /* Neither a kubeconfig nor a cluster. */
    o.service_host = NULL;
    assert_int_equal(kubeconfig_load(&o, &kc, &e), -ENOENT);
    assert_string_equal(e.msg, "no kubeconfig found ($HOME/.kube/config) and "
                               "not in a cluster (KUBERNETES_SERVICE_HOST and "
                               "_PORT unset)");
}

/* A kubeconfig whose user runs plugin with the given exec fields. */
static const char *exec_config(const char *extra)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "current-context: x\nclusters: [{name: c, cluster: {server: "
             "'https://api:6443', tls-server-name: kube.test}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
             "users:\n- name: u\n  user:\n    exec:\n"
             "      apiVersion: client.authentication.k8s.io/v1\n"
             "      command: ./plugin.sh\n"
             "      interactiveMode: Never\n%s",
             extra);
    return put("config", text, false);
}

static void test_exec_plugin(void **state)
{
    /* Counts its runs, echoes an arg, an env entry and the cluster info it
     * was given into the token, and expires 300 s after fake_now's
     * start. */
    put("plugin.sh",
        "#!/bin/sh\n"
        "n=$(cat \"$(dirname \"$0\")/runs\" 2>/dev/null || echo 0)\n"
        "n=$((n+1)); echo $n > \"$(dirname \"$0\")/runs\"\n"
        "case \"$KUBERNETES_EXEC_INFO\" in\n"
        "  *'\"server\":\"https://api:6443\"'*) info=yes ;; *) info=no ;;\n"
        "esac\n"
        "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",'\n"
        "printf '\"kind\":\"ExecCredential\",\"status\":{\"token\":'\n"
        "printf '\"%s-%s-%s-%s\",' \"$1\" \"$TEAM\" \"$info\" \"$n\"\n"
        "printf '\"expirationTimestamp\":\"2023-11-14T22:18:20Z\"}}'\n",
        true);
    const char *f = exec_config("      args: [arg1]\n"
                                "      env: [{name: TEAM, value: blue}]\n"
                                "      provideClusterInfo: true\n");
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = f;
    struct kubeconfig *kc = load_ok(&o); /* runs it once */
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    assert_null(opt.bearer_token);
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-1");
    fake_now += 280 * S; /* 20 s left: cached */
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-1");
    fake_now += 15 * S; /* 5 s left, within the margin: run again */
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-2");
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-3"); /* still */
    fake_now -= 295 * S;
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-3");
    kubeconfig_invalidate(kc); /* a 401 */
    assert_string_equal(cred_token(&opt), "arg1-blue-yes-4");
    kubeconfig_free(kc);
}

static void test_exec_client_cert(void **state)
{
    put("plugin.sh",
        "#!/bin/sh\n"
        "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",'\n"
        "printf '\"kind\":\"ExecCredential\",\"status\":{'\n"
        "printf '\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\\\n"
        "X\\\\n-----END CERTIFICATE-----\\\\n\",'\n"
        "printf '\"clientKeyData\":\"KEY\"}}'\n",
        true);
    char text[1024];
    snprintf(
        text, sizeof(text),
        "current-context: x\nclusters: [{name: c, cluster: {server: "
        "'https://api'}}]\ncontexts: [{name: x, context: {cluster: c, "
        "user: u}}]\nusers: [{name: u, user: {exec: {apiVersion: "
        "client.authentication.k8s.io/v1beta1, command: %s/plugin.sh}}}]\n",
        dir);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = put("config", text, false);
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    struct kclient_cred c = {0};
    assert_int_equal(opt.cred->get(opt.cred->data, &c), 0);
    assert_null(c.token);
    assert_string_equal((const char *)c.cert,
                        "-----BEGIN CERTIFICATE-----\nX\n-----END "
                        "CERTIFICATE-----\n");
    assert_int_equal(c.key_len, 3);
    kubeconfig_free(kc);
}

static void exec_fails(const char *plugin, long timeout_ms, int code,
                       const char *want)
{
    put("plugin.sh", plugin, true);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = exec_config("      installHint: install it\n");
    o.exec_timeout_ms = timeout_ms;
    struct kubeconfig *kc = NULL;
    struct err e = {{0}};
    assert_int_equal(kubeconfig_load(&o, &kc, &e), -code);
    char full[1024];
    snprintf(full, sizeof(full), want, dir, dir);
    assert_string_equal(e.msg, full);
}

#define EXEC_WHERE "%s/config: context \"x\": user \"u\": exec: %s/plugin.sh: "

static void test_exec_errors(void **state)
{
    exec_fails("#!/bin/sh\necho 'token expired\nlogin again' >&2\nexit 3\n", 0,
               EIO,
               EXEC_WHERE "exited with status 3: token expired login again; "
                          "install it");
    exec_fails("#!/bin/sh\nexec sleep 30\n", 100, EIO,
               EXEC_WHERE "no answer within 100 ms; killed");
    exec_fails("#!/bin/sh\necho nope\n", 0, EINVAL,
               EXEC_WHERE "output is not an ExecCredential JSON object");
    exec_fails("#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s."
               "io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n",
               0, EINVAL,
               EXEC_WHERE "returned apiVersion \"client.authentication.k8s.io/"
                          "v1beta1\", configured for \"client.authentication."
                          "k8s.io/v1\"");
    exec_fails("#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s."
               "io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n",
               0, EINVAL,
               EXEC_WHERE "status has neither a token nor "
                          "clientCertificateData and clientKeyData");
    exec_fails("#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s."
               "io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":"
               "\"t\",\"expirationTimestamp\":\"soon\"}}'\n",
               0, EINVAL,
               EXEC_WHERE "status.expirationTimestamp: \"soon\" is not an RFC "
                          "3339 time");
    put("config.yaml", "", false);
    unlink(put("plugin.sh", "", true));
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = exec_config("");
    struct kubeconfig *kc = NULL;
    struct err e = {{0}};
    assert_int_equal(kubeconfig_load(&o, &kc, &e), -EIO);
    char want[1024];
    snprintf(want, sizeof(want), EXEC_WHERE "No such file or directory", dir,
             dir);
    assert_string_equal(e.msg, want);
}

/* Writes a config of one context "prod" (cluster "main", user "admin") with
 * the given cluster and user bodies, and expects the error want ("%s" is
 * the directory). */
static void field_fails(const char *cluster, const char *user, int code,
                        const char *want)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "current-context: prod\nclusters:\n- name: main\n  cluster:\n%s"
             "users:\n- name: admin\n  user:\n%s"
             "contexts:\n- name: prod\n  context: {cluster: main, user: "
             "admin}\n",
             cluster, user);
    load_fails(put("config", text, false), NULL, code, want);
}

#define OK_CLUSTER "    server: https://h\n"
#define OK_USER    "    token: t\n"
#define CL         "%s/config: context \"prod\": cluster \"main\": "
#define US         "%s/config: context \"prod\": user \"admin\": "

static void test_field_errors(void **state)
{
    field_fails(OK_CLUSTER,
                "    client-certificate-data: "
                "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClEwVlNWQT09Ci0tLS0tRU5EIE"
                "NFUlRJRklDQVRFLS0tLS0K\n"
                "    client-key-data: not*base64\n",
                EINVAL, US "client-key-data: not base64");
    field_fails(OK_CLUSTER,
                "    client-certificate-data: "
                "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClEwVlNWQT09Ci0tLS0tRU5EIE"
                "NFUlRJRklDQVRFLS0tLS0K\n",
                EINVAL,
                US "client-key(-data): missing (client-certificate(-data) is "
                   "set)");
    field_fails(OK_CLUSTER, "    client-key-data: aGVsbG8=\n", EINVAL,
                US "client-key-data: not a PEM private key");
    field_fails(OK_CLUSTER, "    client-certificate: nothere.pem\n", EIO,
                US "client-certificate: %s/nothere.pem: No such file or "
                   "directory");
    field_fails(OK_CLUSTER, "    token: [a]\n", EINVAL,
                US "token: must be a string, not a list");
    field_fails(OK_CLUSTER, "    username: bob\n", EINVAL,
                US "username: not supported (use a token, client certificates "
                   "or an exec plugin)");
    field_fails(OK_CLUSTER, "    token: t\n    exec: {command: x}\n", EINVAL,
                US "exec: cannot be combined with token");
    field_fails(OK_CLUSTER, "    exec: {command: x}\n", EINVAL,
                US "exec: apiVersion: \"\" is not client.authentication.k8s.io/"
                   "v1 or v1beta1");
    field_fails(OK_CLUSTER,
                "    exec: {apiVersion: client.authentication.k8s.io/v1, "
                "command: x}\n",
                EINVAL,
                US "exec: interactiveMode: missing (required by "
                   "client.authentication.k8s.io/v1)");
    field_fails(OK_CLUSTER,
                "    exec: {apiVersion: client.authentication.k8s.io/v1, "
                "command: x, interactiveMode: Always}\n",
                EINVAL,
                US "exec: interactiveMode: Always needs a terminal, and the "
                   "scheduler runs without one");
    field_fails(
        OK_CLUSTER,
        "    exec: {apiVersion: client.authentication.k8s.io/v1beta1}\n",
        EINVAL, US "exec: command: missing");
    field_fails(OK_CLUSTER,
                "    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
                "command: x, env: [{value: v}]}\n",
                EINVAL, US "exec: env[0]: name: missing or holds '='");
    field_fails(OK_CLUSTER,
                "    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
                "command: x, args: [[a]]}\n",
                EINVAL, US "exec: args[0]: must be a string, not a list");
    field_fails("    insecure-skip-tls-verify: true\n", OK_USER, EINVAL,
                CL "server: missing");
    field_fails("    server: ftp://h\n", OK_USER, EINVAL,
                CL "server: \"ftp://h\" is not an http:// or https:// URL");
    field_fails(OK_CLUSTER "    certificate-authority-data: QUJD\n", OK_USER,
                EINVAL, CL "certificate-authority-data: not a PEM certificate");
    field_fails(OK_CLUSTER "    certificate-authority-data: QUJD=\n", OK_USER,
                EINVAL, CL "certificate-authority-data: not base64");
    field_fails(OK_CLUSTER "    insecure-skip-tls-verify: 'yes'\n", OK_USER,
                EINVAL,
                CL "insecure-skip-tls-verify: must be a boolean, not a "
                   "string");
    put("ca.pem", CA_PEM, false);
    field_fails(OK_CLUSTER "    insecure-skip-tls-verify: true\n"
                           "    certificate-authority: ca.pem\n",
                OK_USER, EINVAL,
                CL "insecure-skip-tls-verify: cannot be combined with "
                   "certificate-authority(-data)");
    field_fails(OK_CLUSTER "    tls-server-name: 'a b'\n", OK_USER, EINVAL,
                CL "tls-server-name: \"a b\" is not a host name");
    field_fails(OK_CLUSTER "    proxy-url: proxy\n", OK_USER, EINVAL,
                CL "proxy-url: \"proxy\" is not a URL");
}

static void test_file_errors(void **state)
{
    const char *f = put("config",
                        "clusters: [{name: c, cluster: {server: 'http://h'}}]\n"
                        "contexts: [{name: x, context: {cluster: c, user: u}},"
                        " {name: y, context: {cluster: d}},"
                        " {name: z, context: {user: u}},"
                        " {name: w, context: [a]}]\n",
                        false);
    load_fails(f, NULL, ENOENT,
               "%s/config: no current-context and no context given");
    load_fails(f, "prod", ENOENT, "%s/config: context \"prod\": not found");
    load_fails(f, "x", ENOENT,
               "%s/config: context \"x\": user \"u\": not found");
    load_fails(f, "y", ENOENT,
               "%s/config: context \"y\": cluster \"d\": not found");
    load_fails(f, "z", EINVAL, "%s/config: context \"z\": cluster: missing");
    load_fails(f, "w", EINVAL,
               "%s/config: context \"w\": must be a map, not a list");
    load_fails(put("config", "clusters: {a: b}\n", false), "x", EINVAL,
               "%s/config: clusters: must be a list, not a map");
    load_fails(put("config", "users: [{user: {}}]\n", false), "x", EINVAL,
               "%s/config: users[0]: name: missing");
    load_fails(put("config", "- a\n", false), "x", EINVAL,
               "%s/config: must be a map, not a list");
    load_fails(put("config", "current-context: [x]\n", false), NULL, EINVAL,
               "%s/config: current-context: must be a string, not a list");
    char missing[600];
    snprintf(missing, sizeof(missing), "%s/none", dir);
    load_fails(missing, NULL, ENOENT, "%s/none: No such file or directory");
}

static void on_done(void *data, const struct kclient_evict_result *res)
{
    *(int *)data = res->outcome;
}

static void test_tokens_reach_server(void **state)
{
    put("tok", "from-file\n", false);
    char text[1024];
    snprintf(text, sizeof(text),
             "current-context: x\nclusters: [{name: c, cluster: {server: "
             "'%s'}}]\nusers: [{name: u, user: {tokenFile: tok}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
             fake_srv.base);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = put("config", text, false);
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    struct kclient *cl = NULL;
    assert_int_equal(kclient_new(&opt, &cl), 0);
    int outcome = -1;
    fake_rule("POST", NULL, 201, "{}");
    fake_rule("POST", NULL, 201, "{}");
    assert_int_equal(
        kclient_evict_pod(cl, "ns", "p", NULL, -1, on_done, &outcome), 0);
    while (kclient_pending(cl))
        assert_true(kclient_process(cl, 100) >= 0);
    assert_int_equal(outcome, KEVICT_EVICTED);
    put("tok", "rotated-token\n", false);
    assert_int_equal(
        kclient_evict_pod(cl, "ns", "q", NULL, -1, on_done, &outcome), 0);
    while (kclient_pending(cl))
        assert_true(kclient_process(cl, 100) >= 0);
    kclient_free(cl);
    kubeconfig_free(kc);
    assert_int_equal(fake_srv.n_records, 2);
    assert_string_equal(fake_srv.records[0].auth, "Bearer from-file");
    assert_string_equal(fake_srv.records[1].auth, "Bearer rotated-token");
}

static void test_proxy_url(void **state)
{
    /* The fake server as the proxy: it is sent the absolute URL. */
    char text[1024];
    snprintf(text, sizeof(text),
             "current-context: x\nclusters: [{name: c, cluster: {server: "
             "'http://kube.invalid:6443', proxy-url: '%s'}}]\n"
             "users: [{name: u, user: {token: static}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
             fake_srv.base);
    struct kubeconfig_load_options o = opts();
    o.kubeconfig = put("config", text, false);
    struct kubeconfig *kc = load_ok(&o);
    struct kclient_options opt = {0};
    kubeconfig_client_options(kc, &opt);
    struct kclient *cl = NULL;
    assert_int_equal(kclient_new(&opt, &cl), 0);
    int outcome = -1;
    fake_rule("POST", NULL, 201, "{}");
    assert_int_equal(
        kclient_evict_pod(cl, "ns", "p", NULL, -1, on_done, &outcome), 0);
    while (kclient_pending(cl))
        assert_true(kclient_process(cl, 100) >= 0);
    kclient_free(cl);
    kubeconfig_free(kc);
    assert_int_equal(outcome, KEVICT_EVICTED);
    assert_int_equal(fake_srv.n_records, 1);
    assert_string_equal(fake_srv.records[0].path,
                        "http://kube.invalid:6443/api/v1/namespaces/ns/pods/p/"
                        "eviction");
    assert_string_equal(fake_srv.records[0].auth, "Bearer static");
}

static int both_setup(void **state)
{
    return tmp_setup(state) || fake_start(state);
}

static int both_teardown(void **state)
{
    return fake_stop(state) | tmp_teardown(state);
}

#define T(fn)  cmocka_unit_test_setup_teardown(fn, tmp_setup, tmp_teardown)
#define TS(fn) cmocka_unit_test_setup_teardown(fn, both_setup, both_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_merged_kubeconfig),    T(test_every_field),
        T(test_relative_paths),       T(test_token_file_rotates),
        T(test_in_cluster),           T(test_exec_plugin),
        T(test_exec_client_cert),     T(test_exec_errors),
        T(test_field_errors),         T(test_file_errors),
        TS(test_tokens_reach_server), TS(test_proxy_url),
    };
    return cmocka_run_group_tests_name("kubeconfig", tests, NULL, NULL);
}
