/* kubeconfig_cred.c - credentials that change while the scheduler runs: a
 * token file that kubelet rotates, and exec credential plugins
 * (ExecCredential, client.authentication.k8s.io/v1 and v1beta1) whose
 * answer is kept until it expires. Both are served to kclient through a
 * kclient_cred_source (policy in kubeconfig.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "decode.h"
#include "kubeconfig_int.h"

extern char **environ;

#define EXEC_STDOUT_MAX ((size_t)1 << 20)
#define EXEC_STDERR_MAX 512 /* kept for the error message */
#define NS_PER_S        1000000000LL

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ns(struct kubeconfig *kc)
{
    if (kc->clock_ns)
        return kc->clock_ns(kc->clock_data);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Reads the token file again when it changed or the copy is old. Keeps
 * the last token when the file cannot be read any more. */
static int token_file_refresh(struct kubeconfig *kc, struct err *e)
{
    int64_t now = wall_ns(kc);
    struct stat st;
    int r = stat(kc->token_file, &st) < 0 ? -errno : 0;
    if (r == 0 && kc->file_token && st.st_dev == kc->tf_dev &&
        st.st_ino == kc->tf_ino && st.st_size == kc->tf_size &&
        (int64_t)st.st_mtim.tv_sec * NS_PER_S + st.st_mtim.tv_nsec ==
            kc->tf_mtime_ns &&
        now - kc->tf_read_ns < KUBECONFIG_TOKEN_REREAD_S * NS_PER_S)
        return 0;
    struct kcfg_blob b = {0};
    if (r == 0)
        r = kcfg_read_file(kc->token_file, &b);
    const char *why = r < 0 ? strerror(-r) : NULL;
    if (r == 0) {
        /* Trimmed, as client-go does. */
        char *s = b.data, *end = b.data + b.len;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
                           end[-1] == '\n' || end[-1] == '\r'))
            *--end = '\0';
        for (const char *p = s; *p && !why; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                why = "holds control characters";
        if (!*s)
            why = "empty";
        if (!why)
            memmove(b.data, s, (size_t)(end - s) + 1);
    }
    if (why) {
        kcfg_blob_clear(&b);
        int code = r == -ENOMEM ? ENOMEM : r < 0 ? EIO : EINVAL;
        if (kc->file_token) {
            err_set(e, 0, "%s: tokenFile: %s: %s; keeping the last token",
                    kc->where, kc->token_file, why);
            return 0;
        }
        return err_set(e, code, "%s: tokenFile: %s: %s", kc->where,
                       kc->token_file, why);
    }
    free(kc->file_token);
    kc->file_token = b.data;
    kc->tf_dev = st.st_dev;
    kc->tf_ino = st.st_ino;
    kc->tf_size = st.st_size;
    kc->tf_mtime_ns =
        (int64_t)st.st_mtim.tv_sec * NS_PER_S + st.st_mtim.tv_nsec;
    kc->tf_read_ns = now;
    return 0;
}

/* KUBERNETES_EXEC_INFO: the ExecCredential the plugin is given. */
static char *exec_info(const struct kubeconfig *kc)
{
    struct json_object *root = json_object_new_object();
    struct json_object *spec = json_object_new_object();
    char *out = NULL;
    if (!root || !spec)
        goto cleanup;
    json_object_object_add(root, "apiVersion",
                           json_object_new_string(kc->exec->api_version));
    json_object_object_add(root, "kind",
                           json_object_new_string("ExecCredential"));
    json_object_object_add(spec, "interactive", json_object_new_boolean(0));
    if (kc->exec->provide_cluster_info) {
        struct json_object *c = json_object_new_object();
        if (!c)
            goto cleanup;
        json_object_object_add(spec, "cluster", c);
        json_object_object_add(c, "server", json_object_new_string(kc->server));
        if (kc->tls_server_name)
            json_object_object_add(c, "tls-server-name",
                                   json_object_new_string(kc->tls_server_name));
        if (kc->insecure)
            json_object_object_add(c, "insecure-skip-tls-verify",
                                   json_object_new_boolean(1));
        if (kc->proxy_url)
            json_object_object_add(c, "proxy-url",
                                   json_object_new_string(kc->proxy_url));
        if (kc->ca.data) {
            char *b64 = kcfg_base64_encode(kc->ca.data, kc->ca.len);
            if (!b64)
                goto cleanup;
            json_object_object_add(c, "certificate-authority-data",
                                   json_object_new_string(b64));
            free(b64);
        }
    }
    json_object_object_add(root, "spec", spec);
    spec = NULL;
    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (s && asprintf(&out, "KUBERNETES_EXEC_INFO=%s", s) < 0)
        out = NULL;
cleanup:
    json_object_put(spec);
    json_object_put(root);
    return out;
}

static bool env_overridden(const char *var, char *const *env)
{
    size_t n = strcspn(var, "=");
    if (strncmp(var, "KUBERNETES_EXEC_INFO=", 21) == 0)
        return true;
    for (; *env; env++)
        if (strncmp(*env, var, n + 1) == 0)
            return true;
    return false;
}

/* The parent's environment, the exec entry's env over it, and the info.
 * The strings are borrowed except info; the array is malloc'd. */
static char **exec_envp(const struct kubeconfig *kc, char *info)
{
    size_t n = 0, m = 0, k = 0;
    while (environ && environ[n])
        n++;
    while (kc->exec->env[m])
        m++;
    char **envp = calloc(n + m + 2, sizeof(*envp));
    if (!envp)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!env_overridden(environ[i], kc->exec->env))
            envp[k++] = environ[i];
    for (size_t i = 0; i < m; i++)
        envp[k++] = kc->exec->env[i];
    envp[k] = info;
    return envp;
}

struct exec_out {
    char *out;
    size_t len;
    char err[EXEC_STDERR_MAX + 1];
    size_t err_len;
    bool too_long, timed_out;
};

/* Reads the plugin's stdout and stderr until both close or the time is up.
 * Returns 0 or a negative errno. */
static int exec_collect(int fd_out, int fd_err, long timeout_ms,
                        struct exec_out *o)
{
    struct pollfd p[2] = {{.fd = fd_out, .events = POLLIN},
                          {.fd = fd_err, .events = POLLIN}};
    int64_t deadline = mono_ms() + timeout_ms;
    char buf[4096];
    o->out = malloc(EXEC_STDOUT_MAX + 1);
    if (!o->out)
        return -ENOMEM;
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            o->timed_out = true;
            return 0;
        }
        int n = poll(p, 2, (int)(left > 60000 ? 60000 : left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            ssize_t got = read(p[i].fd, buf, sizeof(buf));
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                p[i].fd = -1; /* closed by the caller */
                continue;
            }
            size_t g = (size_t)got;
            if (i == 0 && g > EXEC_STDOUT_MAX - o->len) {
                o->too_long = true;
                g = EXEC_STDOUT_MAX - o->len;
            }
            if (i == 0) {
                memcpy(o->out + o->len, buf, g);
                o->len += g;
            } else {
                size_t room = EXEC_STDERR_MAX - o->err_len;
                g = g < room ? g : room;
                memcpy(o->err + o->err_len, buf, g);
                o->err_len += g;
            }
        }
    }
    o->out[o->len] = '\0';
    o->err[o->err_len] = '\0';
    return 0;
}

/* Starts the plugin with its stdout and stderr on pipes. */
static int exec_spawn(const struct kubeconfig *kc, pid_t *ret_pid, int *ret_out,
                      int *ret_err)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    char *info = exec_info(kc);
    char **envp = info ? exec_envp(kc, info) : NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    bool fa_ok = false, attr_ok = false;
    int r = -ENOMEM;
    if (!envp)
        goto cleanup;
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        r = -errno;
        goto cleanup;
    }
    fa_ok = posix_spawn_file_actions_init(&fa) == 0;
    attr_ok = posix_spawnattr_init(&attr) == 0;
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    if (!fa_ok || !attr_ok ||
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
        posix_spawn_file_actions_adddup2(&fa, po[1], 1) ||
        posix_spawn_file_actions_adddup2(&fa, pe[1], 2) ||
        posix_spawnattr_setsigmask(&attr, &none) ||
        posix_spawnattr_setsigdefault(&attr, &dfl) ||
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF))
        goto cleanup;
    r = -posix_spawnp(ret_pid, kc->exec->command, &fa, &attr, kc->exec->argv,
                      envp);
    if (r == 0) {
        *ret_out = po[0];
        *ret_err = pe[0];
        po[0] = pe[0] = -1;
    }
cleanup:
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    free(envp);
    free(info);
    return r;
}

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* Takes the plugin's ExecCredential. */
static int exec_parse(struct kubeconfig *kc, const char *out, struct err *e)
{
    const char *w = kc->where, *cmd = kc->exec->command;
    struct json_object *root = json_tokener_parse(out), *st = NULL;
    int r = -EINVAL;
    if (!root || !json_object_is_type(root, json_type_object)) {
        err_set(e, EINVAL,
                "%s: exec: %s: output is not an ExecCredential "
                "JSON object",
                w, cmd);
        goto cleanup;
    }
    const char *api = jstr(root, "apiVersion"), *kind = jstr(root, "kind");
    if (!api || strcmp(api, kc->exec->api_version) != 0) {
        err_set(e, EINVAL,
                "%s: exec: %s: returned apiVersion \"%s\", "
                "configured for \"%s\"",
                w, cmd, api ? api : "", kc->exec->api_version);
        goto cleanup;
    }
    if (!kind || strcmp(kind, "ExecCredential") != 0 ||
        !json_object_object_get_ex(root, "status", &st) ||
        !json_object_is_type(st, json_type_object)) {
        err_set(e, EINVAL,
                "%s: exec: %s: not an ExecCredential with a "
                "status",
                w, cmd);
        goto cleanup;
    }
    const char *token = jstr(st, "token");
    const char *cert = jstr(st, "clientCertificateData");
    const char *key = jstr(st, "clientKeyData");
    const char *exp = jstr(st, "expirationTimestamp");
    int64_t expiry = 0;
    if (token && !*token)
        token = NULL;
    if ((!cert || !*cert) != (!key || !*key) || (!token && !(cert && *cert))) {
        err_set(e, EINVAL,
                "%s: exec: %s: status has neither a token nor "
                "clientCertificateData and clientKeyData",
                w, cmd);
        goto cleanup;
    }
    if (exp && (decode_parse_time(exp, &expiry) < 0 || expiry == 0)) {
        err_set(e, EINVAL,
                "%s: exec: %s: status.expirationTimestamp: \"%.64s\""
                " is not an RFC 3339 time",
                w, cmd, exp);
        goto cleanup;
    }
    char *t = token ? strdup(token) : NULL;
    char *c = cert && *cert ? strdup(cert) : NULL;
    char *k = c ? strdup(key) : NULL;
    if ((token && !t) || (cert && *cert && (!c || !k))) {
        free(t);
        free(c);
        free(k);
        r = -ENOMEM;
        goto cleanup;
    }
    free(kc->exec_token);
    kcfg_blob_clear(&kc->exec_cert);
    kcfg_blob_clear(&kc->exec_key);
    kc->exec_token = t;
    kc->exec_cert = (struct kcfg_blob){c, c ? strlen(c) : 0};
    kc->exec_key = (struct kcfg_blob){k, k ? strlen(k) : 0};
    kc->exec_expiry_ns = expiry;
    kc->exec_valid = true;
    r = 0;
cleanup:
    json_object_put(root);
    return r;
}

/* Runs the plugin and keeps its credential. */
static int exec_run(struct kubeconfig *kc, struct err *e)
{
    const char *w = kc->where, *cmd = kc->exec->command;
    const char *hint = kc->exec->install_hint;
    pid_t pid;
    int fo = -1, fe = -1, status = 0;
    struct exec_out o = {0};
    int r = exec_spawn(kc, &pid, &fo, &fe);
    if (r < 0) {
        if (r == -ENOMEM)
            return r;
        return err_set(e, EIO, "%s: exec: %s: %s%s%s", w, cmd, strerror(-r),
                       hint ? "; " : "", hint ? hint : "");
    }
    r = exec_collect(fo, fe, kc->exec_timeout_ms, &o);
    close(fo);
    close(fe);
    if (r < 0 || o.timed_out)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    for (char *p = o.err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    while (o.err_len > 0 && o.err[o.err_len - 1] == ' ')
        o.err[--o.err_len] = '\0';
    if (r < 0)
        goto cleanup;
    r = -EIO;
    if (o.timed_out)
        err_set(e, EIO, "%s: exec: %s: no answer within %ld ms; killed", w, cmd,
                kc->exec_timeout_ms);
    else if (WIFSIGNALED(status))
        err_set(e, EIO, "%s: exec: %s: killed by signal %d: %s", w, cmd,
                WTERMSIG(status), o.err);
    else if (WEXITSTATUS(status) != 0)
        err_set(e, EIO, "%s: exec: %s: exited with status %d: %s%s%s", w, cmd,
                WEXITSTATUS(status), o.err, hint ? "; " : "", hint ? hint : "");
    else if (o.too_long)
        err_set(e, EIO, "%s: exec: %s: output over %zu bytes", w, cmd,
                EXEC_STDOUT_MAX);
    else
        r = exec_parse(kc, o.out, e);
cleanup:
    free(o.out);
    return r;
}

static int cred_fetch(struct kubeconfig *kc, struct err *e)
{
    if (kc->token_file)
        return token_file_refresh(kc, e);
    if (kc->exec_valid &&
        (kc->exec_expiry_ns == 0 ||
         wall_ns(kc) <
             kc->exec_expiry_ns - KUBECONFIG_EXEC_MARGIN_S * NS_PER_S))
        return 0;
    kc->exec_valid = false;
    return exec_run(kc, e);
}

static int cred_get(void *data, struct kclient_cred *ret)
{
    struct kubeconfig *kc = data;
    kc->cred_err.msg[0] = '\0';
    int r = cred_fetch(kc, &kc->cred_err);
    if (r < 0)
        return r;
    *ret = (struct kclient_cred){0};
    if (kc->token_file) {
        ret->token = kc->file_token;
        return 0;
    }
    ret->token = kc->exec_token;
    ret->cert = kc->exec_cert.data;
    ret->cert_len = kc->exec_cert.len;
    ret->key = kc->exec_key.data;
    ret->key_len = kc->exec_key.len;
    return 0;
}

int kcfg_cred_init(struct kubeconfig *kc, struct err *e)
{
    if (!kc->token_file && !kc->exec)
        return 0;
    kc->source = (struct kclient_cred_source){.get = cred_get, .data = kc};
    return cred_fetch(kc, e);
}

void kcfg_cred_free(struct kubeconfig *kc)
{
    free(kc->file_token);
    free(kc->exec_token);
    kcfg_blob_clear(&kc->exec_cert);
    kcfg_blob_clear(&kc->exec_key);
    if (kc->exec) {
        for (char **p = kc->exec->argv; p && *p; p++)
            free(*p);
        for (char **p = kc->exec->env; p && *p; p++)
            free(*p);
        free(kc->exec->argv);
        free(kc->exec->env);
        free(kc->exec->api_version);
        free(kc->exec->command);
        free(kc->exec->install_hint);
        free(kc->exec);
    }
}

void kubeconfig_invalidate(struct kubeconfig *kc)
{
    if (!kc)
        return;
    kc->exec_valid = false;
    kc->tf_read_ns = INT64_MIN / 2; /* older than any re-read period */
}

const char *kubeconfig_cred_error(const struct kubeconfig *kc)
{
    return kc ? kc->cred_err.msg : "";
}
