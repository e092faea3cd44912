/* kubeconfig_fields.c - one kubeconfig cluster and one user, field by field
 * (client-go's names and precedence), with errors that name the field; and
 * the small helpers they need: base64, files read into memory, paths
 * relative to the kubeconfig. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc.h"
#include "kubeconfig_int.h"

void kcfg_blob_clear(struct kcfg_blob *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
}

int kcfg_read_file(const char *path, struct kcfg_blob *ret)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    int r = 0;
    char *buf = NULL;
    size_t len = 0;
    if (fstat(fd, &st) < 0) {
        r = -errno;
        goto cleanup;
    }
    if (S_ISDIR(st.st_mode)) {
        r = -EISDIR;
        goto cleanup;
    }
    buf = malloc(KCFG_FILE_MAX + 1);
    if (!buf) {
        r = -ENOMEM;
        goto cleanup;
    }
    for (;;) {
        ssize_t n = read(fd, buf + len, KCFG_FILE_MAX + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            r = -errno;
            goto cleanup;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > KCFG_FILE_MAX) {
            r = -EFBIG;
            goto cleanup;
        }
    }
    buf[len] = '\0';
    ret->data = buf;
    ret->len = len;
    buf = NULL;
cleanup:
    free(buf);
    close(fd);
    return r;
}

char *kcfg_resolve(const char *dir, const char *path)
{
    char *s = NULL;
    if (path[0] == '/' || !dir)
        return strdup(path);
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return asprintf(&s, "%s/%s", dir, path) < 0 ? NULL : s;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Go's base64.StdEncoding as encoding/json uses it: padding required, CR
 * and LF skipped. */
int kcfg_base64_decode(const char *s, struct kcfg_blob *ret)
{
    size_t n = strlen(s);
    char *out = malloc(n / 4 * 3 + 4);
    if (!out)
        return -ENOMEM;
    size_t len = 0, quad = 0, pad = 0;
    uint32_t acc = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n' || *p == '\r')
            continue;
        int v = *p == '=' ? 0 : b64_value((unsigned char)*p);
        if (v < 0 || (pad && *p != '=') || (*p == '=' && quad < 2))
            goto bad;
        pad += *p == '=';
        acc = acc << 6 | (uint32_t)v;
        if (++quad == 4) {
            out[len++] = (char)(acc >> 16);
            if (pad < 2)
                out[len++] = (char)(acc >> 8 & 0xff);
            if (pad < 1)
                out[len++] = (char)(acc & 0xff);
            quad = 0;
            acc = 0;
            if (pad)
                break;
        }
    }
    /* Nothing but line breaks may follow the padding. */
    for (const char *p = s + strcspn(s, "="); *p; p++)
        if (*p != '=' && *p != '\n' && *p != '\r')
            goto bad;
    if (quad != 0 || len == 0)
        goto bad;
    out[len] = '\0';
    ret->data = out;
    ret->len = len;
    return 0;
bad:
    free(out);
    return -EINVAL;
}

char *kcfg_base64_encode(const void *data, size_t len)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *in = data;
    char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        *o++ = tab[v >> 18];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < len ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < len ? tab[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* A string field: absent or null leaves *ret NULL. */
static int get_str(const struct doc_node *map, const char *key,
                   const char *where, struct err *e, const char **ret)
{
    const struct doc_node *n = doc_map_get(map, key);
    *ret = NULL;
    if (doc_is_null(n))
        return 0;
    if (doc_get_string(n, ret) < 0)
        return err_set(e, EINVAL, "%s: %s: must be a string, not a %s", where,
                       key, doc_type_name(n));
    return 0;
}

static int get_bool(const struct doc_node *map, const char *key,
                    const char *where, struct err *e, bool *ret)
{
    const struct doc_node *n = doc_map_get(map, key);
    *ret = false;
    if (!doc_is_null(n) && doc_get_bool(n, ret) < 0)
        return err_set(e, EINVAL, "%s: %s: must be a boolean, not a %s", where,
                       key, doc_type_name(n));
    return 0;
}

static int dup_str(const char *s, char **dst)
{
    if (!s)
        return 0;
    *dst = strdup(s);
    return *dst ? 0 : -ENOMEM;
}

static bool has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* What a PEM block of this kind starts with. */
static bool looks_pem(const struct kcfg_blob *b, bool key)
{
    const char *begin = strstr(b->data, "-----BEGIN ");
    if (!begin)
        return false;
    const char *end = strstr(begin + 11, "-----");
    if (!end)
        return false;
    size_t n = (size_t)(end - begin);
    const char *want = key ? "PRIVATE KEY" : "CERTIFICATE";
    size_t wn = strlen(want);
    return n >= 11 + wn && memcmp(end - wn, want, wn) == 0;
}

/* One PEM item given inline (data_key, base64) or as a file (file_key):
 * the inline one wins, as in client-go. */
static int get_pem(const struct doc_node *map, const char *data_key,
                   const char *file_key, bool key, const char *where,
                   const char *dir, struct kcfg_blob *ret, struct err *e)
{
    const char *data, *file;
    int r = get_str(map, data_key, where, e, &data);
    if (r == 0)
        r = get_str(map, file_key, where, e, &file);
    if (r < 0 || (!data && !file))
        return r;
    const char *field = data ? data_key : file_key;
    if (data) {
        r = kcfg_base64_decode(data, ret);
        if (r == -EINVAL)
            return err_set(e, EINVAL, "%s: %s: not base64", where, field);
    } else {
        char *path = kcfg_resolve(dir, file);
        if (!path)
            return -ENOMEM;
        r = kcfg_read_file(path, ret);
        if (r < 0 && r != -ENOMEM)
            err_set(e, EIO, "%s: %s: %s: %s", where, field, path, strerror(-r));
        free(path);
        if (r < 0 && r != -ENOMEM)
            return -EIO;
    }
    if (r < 0)
        return r;
    if (!looks_pem(ret, key))
        return err_set(e, EINVAL, "%s: %s: not a PEM %s", where, field,
                       key ? "private key" : "certificate");
    return 0;
}

int kcfg_read_cluster(struct kubeconfig *kc, const struct doc_node *c,
                      const char *where, const char *dir, struct err *e)
{
    if (!c)
        return err_set(e, EINVAL, "%s: server: missing", where);
    if (c->type != DOC_MAP)
        return err_set(e, EINVAL, "%s: must be a map, not a %s", where,
                       doc_type_name(c));
    const char *server, *name, *proxy;
    int r = get_str(c, "server", where, e, &server);
    if (r == 0)
        r = get_str(c, "tls-server-name", where, e, &name);
    if (r == 0)
        r = get_str(c, "proxy-url", where, e, &proxy);
    if (r == 0)
        r = get_bool(c, "insecure-skip-tls-verify", where, e, &kc->insecure);
    if (r < 0)
        return r;
    if (!server || !*server)
        return err_set(e, EINVAL, "%s: server: missing", where);
    if (has_ctl(server) || (strncmp(server, "https://", 8) != 0 &&
                            strncmp(server, "http://", 7) != 0))
        return err_set(e, EINVAL,
                       "%s: server: \"%.200s\" is not an http:// or https:// "
                       "URL",
                       where, server);
    if (name && (!*name || has_ctl(name) || strpbrk(name, " /:@[]?#")))
        return err_set(e, EINVAL,
                       "%s: tls-server-name: \"%.200s\" is not a "
                       "host name",
                       where, name);
    if (proxy && (!*proxy || has_ctl(proxy) || !strstr(proxy, "://")))
        return err_set(e, EINVAL, "%s: proxy-url: \"%.200s\" is not a URL",
                       where, proxy);
    r = get_pem(c, "certificate-authority-data", "certificate-authority", false,
                where, dir, &kc->ca, e);
    if (r < 0)
        return r;
    if (kc->insecure && kc->ca.data)
        return err_set(e, EINVAL,
                       "%s: insecure-skip-tls-verify: cannot be combined with "
                       "certificate-authority(-data)",
                       where);
    r = dup_str(server, &kc->server);
    if (r == 0)
        r = dup_str(name, &kc->tls_server_name);
    if (r == 0)
        r = dup_str(proxy, &kc->proxy_url);
    return r;
}

/* A list of strings (exec args) into argv[1..]. */
static int read_args(struct kcfg_exec *x, const struct doc_node *args,
                     const char *where, struct err *e)
{
    size_t n = doc_is_null(args) ? 0 : args->n;
    if (!doc_is_null(args) && args->type != DOC_SEQ)
        return err_set(e, EINVAL, "%s: exec: args: must be a list, not a %s",
                       where, doc_type_name(args));
    x->argv = calloc(n + 2, sizeof(*x->argv));
    if (!x->argv || !(x->argv[0] = strdup(x->command)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *s;
        if (doc_get_string(args->items[i], &s) < 0)
            return err_set(e, EINVAL,
                           "%s: exec: args[%zu]: must be a string, not a %s",
                           where, i, doc_type_name(args->items[i]));
        if (!(x->argv[i + 1] = strdup(s)))
            return -ENOMEM;
    }
    return 0;
}

static int read_env(struct kcfg_exec *x, const struct doc_node *env,
                    const char *where, struct err *e)
{
    size_t n = doc_is_null(env) ? 0 : env->n;
    if (!doc_is_null(env) && env->type != DOC_SEQ)
        return err_set(e, EINVAL, "%s: exec: env: must be a list, not a %s",
                       where, doc_type_name(env));
    x->env = calloc(n + 1, sizeof(*x->env));
    if (!x->env)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct doc_node *it = env->items[i];
        const char *name = NULL, *value = NULL;
        char w[ERR_MSG_MAX];
        snprintf(w, sizeof(w), "%s: exec: env[%zu]", where, i);
        if (it->type != DOC_MAP)
            return err_set(e, EINVAL, "%s: must be a map, not a %s", w,
                           doc_type_name(it));
        int r = get_str(it, "name", w, e, &name);
        if (r == 0)
            r = get_str(it, "value", w, e, &value);
        if (r < 0)
            return r;
        if (!name || !*name || strchr(name, '='))
            return err_set(e, EINVAL, "%s: name: missing or holds '='", w);
        if (asprintf(&x->env[i], "%s=%s", name, value ? value : "") < 0) {
            x->env[i] = NULL;
            return -ENOMEM;
        }
    }
    return 0;
}

static int read_exec(struct kubeconfig *kc, const struct doc_node *ex,
                     const char *where, const char *dir, struct err *e)
{
    if (ex->type != DOC_MAP)
        return err_set(e, EINVAL, "%s: exec: must be a map, not a %s", where,
                       doc_type_name(ex));
    char w[ERR_MSG_MAX];
    snprintf(w, sizeof(w), "%s: exec", where);
    const char *api, *cmd, *mode, *hint;
    struct kcfg_exec *x = kc->exec = calloc(1, sizeof(*x));
    if (!x)
        return -ENOMEM;
    int r = get_str(ex, "apiVersion", w, e, &api);
    if (r == 0)
        r = get_str(ex, "command", w, e, &cmd);
    if (r == 0)
        r = get_str(ex, "interactiveMode", w, e, &mode);
    if (r == 0)
        r = get_str(ex, "installHint", w, e, &hint);
    if (r == 0)
        r = get_bool(ex, "provideClusterInfo", w, e, &x->provide_cluster_info);
    if (r < 0)
        return r;
    bool v1 = api && strcmp(api, "client.authentication.k8s.io/v1") == 0;
    if (!api || (!v1 && strcmp(api, "client.authentication.k8s.io/v1beta1")))
        return err_set(e, EINVAL,
                       "%s: apiVersion: \"%s\" is not client.authentication."
                       "k8s.io/v1 or v1beta1",
                       w, api ? api : "");
    if (!cmd || !*cmd)
        return err_set(e, EINVAL, "%s: command: missing", w);
    if (v1 && !mode)
        return err_set(e, EINVAL,
                       "%s: interactiveMode: missing (required by "
                       "client.authentication.k8s.io/v1)",
                       w);
    if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable") &&
        strcmp(mode, "Always"))
        return err_set(e, EINVAL,
                       "%s: interactiveMode: \"%s\" is not Never, IfAvailable "
                       "or Always",
                       w, mode);
    if (mode && strcmp(mode, "Always") == 0)
        return err_set(e, EINVAL,
                       "%s: interactiveMode: Always needs a terminal, and the "
                       "scheduler runs without one",
                       w);
    /* client-go: a command with a '/' is relative to the kubeconfig; a bare
     * name is looked up in PATH. */
    x->command = strchr(cmd, '/') ? kcfg_resolve(dir, cmd) : strdup(cmd);
    r = x->command ? 0 : -ENOMEM;
    if (r == 0)
        r = dup_str(api, &x->api_version);
    if (r == 0)
        r = dup_str(hint, &x->install_hint);
    if (r == 0)
        r = read_args(x, doc_map_get(ex, "args"), where, e);
    if (r == 0)
        r = read_env(x, doc_map_get(ex, "env"), where, e);
    return r;
}

int kcfg_read_user(struct kubeconfig *kc, const struct doc_node *u,
                   const char *where, const char *dir, struct err *e)
{
    if (!u)
        return 0; /* no credentials */
    if (u->type != DOC_MAP)
        return err_set(e, EINVAL, "%s: must be a map, not a %s", where,
                       doc_type_name(u));
    static const char *const unsupported[] = {
        "username", "password",  "auth-provider", "as",
        "as-uid",   "as-groups", "as-user-extra"};
    for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
        if (!doc_is_null(doc_map_get(u, unsupported[i])))
            return err_set(e, EINVAL,
                           "%s: %s: not supported (use a token, client "
                           "certificates or an exec plugin)",
                           where, unsupported[i]);
    const char *token, *token_file;
    int r = get_str(u, "token", where, e, &token);
    if (r == 0)
        r = get_str(u, "tokenFile", where, e, &token_file);
    if (r < 0)
        return r;
    /* Empty means unset, as in client-go. */
    if (token && !*token)
        token = NULL;
    if (token_file && !*token_file)
        token_file = NULL;
    if (token && has_ctl(token))
        return err_set(e, EINVAL, "%s: token: holds control characters", where);
    r = get_pem(u, "client-certificate-data", "client-certificate", false,
                where, dir, &kc->cert, e);
    if (r == 0)
        r = get_pem(u, "client-key-data", "client-key", true, where, dir,
                    &kc->key, e);
    if (r < 0)
        return r;
    if (!kc->cert.data != !kc->key.data)
        return err_set(
            e, EINVAL, "%s: %s: missing (%s is set)", where,
            kc->cert.data ? "client-key(-data)" : "client-certificate(-data)",
            kc->cert.data ? "client-certificate(-data)" : "client-key(-data)");
    const struct doc_node *ex = doc_map_get(u, "exec");
    if (!doc_is_null(ex) && (token || token_file))
        return err_set(e, EINVAL, "%s: exec: cannot be combined with %s", where,
                       token ? "token" : "tokenFile");
    if (!doc_is_null(ex))
        return read_exec(kc, ex, where, dir, e);
    r = dup_str(token, &kc->token);
    if (r == 0 && token_file && !token) /* token wins, as in client-go */
        r = (kc->token_file = kcfg_resolve(dir, token_file)) ? 0 : -ENOMEM;
    return r;
}
