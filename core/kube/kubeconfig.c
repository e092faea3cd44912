/* kubeconfig.c - finds the configuration (--kubeconfig, KUBECONFIG,
 * $HOME/.kube/config, in-cluster), merges kubeconfig files as kubectl does,
 * picks the context and hands a cluster and a user to kubeconfig_fields.c
 * (order and rules in kubeconfig.h). */
#include "kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "kubeconfig_int.h"

/* One named entry of clusters/users/contexts, the first one met. */
struct entry {
    const char *name;
    const struct doc_node *body; /* NULL: null or absent */
    size_t file;
};

struct kfile {
    char *path, *dir;
    struct doc *doc;
};

struct merged {
    struct kfile *files;
    size_t n_files;
    struct entry *ent[3]; /* clusters, users, contexts */
    size_t n_ent[3];
    const char *current;
    size_t current_file;
};

enum { CLUSTERS, USERS, CONTEXTS };
static const char *const list_key[3] = {"clusters", "users", "contexts"};
static const char *const body_key[3] = {"cluster", "user", "context"};

void kubeconfig_options_from_env(struct kubeconfig_load_options *o)
{
    o->kubeconfig_env = getenv("KUBECONFIG");
    o->home = getenv("HOME");
    o->service_host = getenv("KUBERNETES_SERVICE_HOST");
    o->service_port = getenv("KUBERNETES_SERVICE_PORT");
}

static bool set(const char *s)
{
    return s && *s;
}

static const struct entry *find(const struct merged *m, int kind,
                                const char *name)
{
    for (size_t i = 0; i < m->n_ent[kind]; i++)
        if (strcmp(m->ent[kind][i].name, name) == 0)
            return &m->ent[kind][i];
    return NULL;
}

/* Adds the file's clusters, users or contexts that no earlier one named. */
static int merge_list(struct merged *m, int kind, const struct doc_node *root,
                      const char *path, struct err *e)
{
    const struct doc_node *l = doc_map_get(root, list_key[kind]);
    if (doc_is_null(l))
        return 0;
    if (l->type != DOC_SEQ)
        return err_set(e, EINVAL, "%s: %s: must be a list, not a %s", path,
                       list_key[kind], doc_type_name(l));
    struct entry *grown =
        realloc(m->ent[kind], (m->n_ent[kind] + l->n) * sizeof(*grown));
    if (!grown && m->n_ent[kind] + l->n)
        return -ENOMEM;
    m->ent[kind] = grown;
    for (size_t i = 0; i < l->n; i++) {
        const struct doc_node *it = l->items[i], *nm = doc_map_get(it, "name");
        const char *name = NULL;
        if (it->type != DOC_MAP)
            return err_set(e, EINVAL, "%s: %s[%zu]: must be a map, not a %s",
                           path, list_key[kind], i, doc_type_name(it));
        if (doc_is_null(nm) || doc_get_string(nm, &name) < 0)
            return err_set(e, EINVAL, "%s: %s[%zu]: name: missing", path,
                           list_key[kind], i);
        if (find(m, kind, name))
            continue; /* the first file (or entry) that names it wins */
        const struct doc_node *body = doc_map_get(it, body_key[kind]);
        m->ent[kind][m->n_ent[kind]++] =
            (struct entry){.name = name,
                           .body = doc_is_null(body) ? NULL : body,
                           .file = m->n_files - 1};
    }
    return 0;
}

/* Loads one file into m. A missing file that is not required is skipped. */
static int merge_file(struct merged *m, const char *path, bool required,
                      struct err *e)
{
    for (size_t i = 0; i < m->n_files; i++)
        if (strcmp(m->files[i].path, path) == 0)
            return 0; /* listed twice */
    struct doc *d = NULL;
    int r = doc_load_file(path, &d, e);
    if (r == -ENOENT && !required)
        return 0;
    if (r < 0)
        return r;
    struct kfile *grown = realloc(m->files, (m->n_files + 1) * sizeof(*grown));
    if (!grown) {
        doc_free(d);
        return -ENOMEM;
    }
    m->files = grown;
    struct kfile *f = &m->files[m->n_files++];
    *f = (struct kfile){.doc = d, .path = strdup(path)};
    const char *slash = strrchr(path, '/');
    f->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (f->dir && !*f->dir) {
        free(f->dir);
        f->dir = strdup("/");
    }
    if (!f->path || !f->dir)
        return -ENOMEM;
    if (d->n_docs == 0)
        return 0; /* an empty file is an empty config, as for kubectl */
    const struct doc_node *root = d->docs[0];
    if (d->n_docs > 1)
        return err_set(e, EINVAL, "%s: holds %zu YAML documents, not one", path,
                       d->n_docs);
    if (root->type != DOC_MAP)
        return err_set(e, EINVAL, "%s: must be a map, not a %s", path,
                       doc_type_name(root));
    for (int k = CLUSTERS; k <= CONTEXTS; k++) {
        r = merge_list(m, k, root, path, e);
        if (r < 0)
            return r;
    }
    const struct doc_node *cur = doc_map_get(root, "current-context");
    const char *s = NULL;
    if (!doc_is_null(cur) && doc_get_string(cur, &s) < 0)
        return err_set(e, EINVAL,
                       "%s: current-context: must be a string, "
                       "not a %s",
                       path, doc_type_name(cur));
    if (!m->current && set(s)) {
        m->current = s;
        m->current_file = m->n_files - 1;
    }
    return 0;
}

/* The files kubectl would read: --kubeconfig, or KUBECONFIG's, or home's. */
static int merge_all(struct merged *m, const struct kubeconfig_load_options *o,
                     struct err *e)
{
    if (set(o->kubeconfig))
        return merge_file(m, o->kubeconfig, true, e);
    if (set(o->kubeconfig_env)) {
        char *list = strdup(o->kubeconfig_env), *save = NULL;
        int r = list ? 0 : -ENOMEM;
        for (char *p = list ? strtok_r(list, ":", &save) : NULL; p && r == 0;
             p = strtok_r(NULL, ":", &save))
            r = merge_file(m, p, false, e);
        free(list);
        return r;
    }
    if (!set(o->home))
        return 0;
    char *path = NULL;
    if (asprintf(&path, "%s/.kube/config", o->home) < 0)
        return -ENOMEM;
    int r = merge_file(m, path, false, e);
    free(path);
    return r;
}

static void merged_free(struct merged *m)
{
    for (size_t i = 0; i < m->n_files; i++) {
        free(m->files[i].path);
        free(m->files[i].dir);
        doc_free(m->files[i].doc);
    }
    free(m->files);
    for (int k = CLUSTERS; k <= CONTEXTS; k++)
        free(m->ent[k]);
}

static int ctx_str(const struct doc_node *ctx, const char *key,
                   const char *where, const char **ret, struct err *e)
{
    const struct doc_node *n = doc_map_get(ctx, key);
    *ret = NULL;
    if (!doc_is_null(n) && doc_get_string(n, ret) < 0)
        return err_set(e, EINVAL, "%s: %s: must be a string, not a %s", where,
                       key, doc_type_name(n));
    if (*ret && !**ret)
        *ret = NULL;
    return 0;
}

/* Reads the context named name and its cluster and user into kc. */
static int use_context(struct kubeconfig *kc, const struct merged *m,
                       const char *name, struct err *e)
{
    const struct entry *c = find(m, CONTEXTS, name);
    if (!c) {
        const char *first = m->n_files ? m->files[0].path : "kubeconfig";
        return err_set(e, ENOENT, "%s%s: context \"%s\": not found", first,
                       m->n_files > 1 ? " (and the files merged with it)" : "",
                       name);
    }
    char where[ERR_MSG_MAX], w2[ERR_MSG_MAX];
    snprintf(where, sizeof(where), "%s: context \"%s\"", m->files[c->file].path,
             name);
    if (c->body && c->body->type != DOC_MAP)
        return err_set(e, EINVAL, "%s: must be a map, not a %s", where,
                       doc_type_name(c->body));
    const char *cl, *us, *ns;
    int r = ctx_str(c->body, "cluster", where, &cl, e);
    if (r == 0)
        r = ctx_str(c->body, "user", where, &us, e);
    if (r == 0)
        r = ctx_str(c->body, "namespace", where, &ns, e);
    if (r < 0)
        return r;
    if (!cl)
        return err_set(e, EINVAL, "%s: cluster: missing", where);
    const struct entry *ce = find(m, CLUSTERS, cl);
    const struct entry *ue = us ? find(m, USERS, us) : NULL;
    if (!ce)
        return err_set(e, ENOENT, "%s: cluster \"%s\": not found", where, cl);
    if (us && !ue)
        return err_set(e, ENOENT, "%s: user \"%s\": not found", where, us);
    if (!(kc->namespace = strdup(ns ? ns : "default")) ||
        asprintf(&kc->describe, "context \"%s\" of %s", name,
                 m->files[c->file].path) < 0) {
        kc->describe = NULL;
        return -ENOMEM;
    }
    snprintf(w2, sizeof(w2), "%s: context \"%s\": cluster \"%s\"",
             m->files[ce->file].path, name, cl);
    r = kcfg_read_cluster(kc, ce->body, w2, m->files[ce->file].dir, e);
    if (r < 0)
        return r;
    if (ue)
        snprintf(w2, sizeof(w2), "%s: context \"%s\": user \"%s\"",
                 m->files[ue->file].path, name, us);
    else
        snprintf(w2, sizeof(w2), "%s", where);
    if (!(kc->where = strdup(w2)))
        return -ENOMEM;
    return ue ? kcfg_read_user(kc, ue->body, w2, m->files[ue->file].dir, e) : 0;
}

/* The service account's files under root, and the service's address. */
static int use_incluster(struct kubeconfig *kc,
                         const struct kubeconfig_load_options *o, struct err *e)
{
    const char *root = o->incluster_root ? o->incluster_root : "";
    const char *h = o->service_host, *p = o->service_port;
    if (strspn(p, "0123456789") != strlen(p) || strlen(p) > 5)
        return err_set(e, EINVAL,
                       "in-cluster: KUBERNETES_SERVICE_PORT: "
                       "\"%.32s\" is not a port",
                       p);
    char *ca = NULL, *nsf = NULL;
    int r = -ENOMEM;
    if (asprintf(&kc->server,
                 strchr(h, ':') ? "https://[%s]:%s" : "https://%s:%s", h,
                 p) < 0)
        kc->server = NULL;
    if (asprintf(&kc->token_file, "%s" KUBECONFIG_INCLUSTER_DIR "/token",
                 root) < 0)
        kc->token_file = NULL;
    if (asprintf(&ca, "%s" KUBECONFIG_INCLUSTER_DIR "/ca.crt", root) < 0)
        ca = NULL;
    if (asprintf(&nsf, "%s" KUBECONFIG_INCLUSTER_DIR "/namespace", root) < 0)
        nsf = NULL;
    if (!kc->server || !kc->token_file || !ca || !nsf ||
        !(kc->where = strdup("in-cluster")) ||
        asprintf(&kc->describe, "in-cluster (%s)", kc->server) < 0) {
        kc->describe = NULL;
        goto cleanup;
    }
    r = kcfg_read_file(ca, &kc->ca);
    if (r < 0) {
        if (r != -ENOMEM)
            r = err_set(e, EIO, "in-cluster: ca.crt: %s: %s", ca, strerror(-r));
        goto cleanup;
    }
    struct kcfg_blob ns = {0};
    r = kcfg_read_file(nsf, &ns);
    if (r == -ENOMEM)
        goto cleanup;
    if (r == 0) {
        ns.data[strcspn(ns.data, " \t\r\n")] = '\0';
        if (*ns.data)
            kc->namespace = ns.data;
        else
            free(ns.data);
    }
    r = 0;
    if (!kc->namespace && !(kc->namespace = strdup("default")))
        r = -ENOMEM;
cleanup:
    free(ca);
    free(nsf);
    return r;
}

int kubeconfig_load(const struct kubeconfig_load_options *o,
                    struct kubeconfig **ret, struct err *e)
{
    if (!o || !ret)
        return -EINVAL;
    struct merged m = {0};
    struct kubeconfig *kc = calloc(1, sizeof(*kc));
    if (!kc)
        return -ENOMEM;
    kc->exec_timeout_ms = o->exec_timeout_ms > 0 ? o->exec_timeout_ms
                                                 : KUBECONFIG_EXEC_TIMEOUT_MS;
    kc->clock_ns = o->clock_ns;
    kc->clock_data = o->clock_data;
    int r = merge_all(&m, o, e);
    if (r < 0)
        goto fail;
    const char *ctx = set(o->context) ? o->context : m.current;
    if (ctx && m.n_files) {
        r = use_context(kc, &m, ctx, e);
    } else if (!ctx && !set(o->kubeconfig) && set(o->service_host) &&
               set(o->service_port)) {
        r = use_incluster(kc, o, e);
    } else if (m.n_files) {
        r = err_set(e, ENOENT, "%s%s: no current-context and no context given",
                    m.files[0].path,
                    m.n_files > 1 ? " (and the files merged with it)" : "");
    } else {
        r = err_set(e, ENOENT,
                    "no kubeconfig found (%s%s) and not in a cluster "
                    "(KUBERNETES_SERVICE_HOST and _PORT unset)",
                    set(o->kubeconfig_env) ? "KUBECONFIG=" : "",
                    set(o->kubeconfig_env) ? o->kubeconfig_env
                                           : "$HOME/.kube/config");
    }
    if (r == 0)
        r = kcfg_cred_init(kc, e);
    if (r < 0)
        goto fail;
    merged_free(&m);
    *ret = kc;
    return 0;
fail:
    merged_free(&m);
    kubeconfig_free(kc);
    return r;
}

void kubeconfig_free(struct kubeconfig *kc)
{
    if (!kc)
        return;
    kcfg_cred_free(kc);
    free(kc->describe);
    free(kc->where);
    free(kc->namespace);
    free(kc->server);
    free(kc->tls_server_name);
    free(kc->proxy_url);
    free(kc->token);
    free(kc->token_file);
    kcfg_blob_clear(&kc->ca);
    kcfg_blob_clear(&kc->cert);
    kcfg_blob_clear(&kc->key);
    free(kc);
}

void kubeconfig_client_options(struct kubeconfig *kc,
                               struct kclient_options *opt)
{
    opt->base_url = kc->server;
    opt->ca_data = kc->ca.data;
    opt->ca_len = kc->ca.len;
    opt->insecure_skip_verify = kc->insecure;
    opt->tls_server_name = kc->tls_server_name;
    opt->proxy_url = kc->proxy_url;
    opt->client_cert_data = kc->cert.data;
    opt->client_cert_len = kc->cert.len;
    opt->client_key_data = kc->key.data;
    opt->client_key_len = kc->key.len;
    opt->bearer_token = kc->token;
    opt->cred = kc->source.get ? &kc->source : NULL;
}

const char *kubeconfig_describe(const struct kubeconfig *kc)
{
    return kc->describe;
}

const char *kubeconfig_namespace(const struct kubeconfig *kc)
{
    return kc->namespace;
}

const char *kubeconfig_server(const struct kubeconfig *kc)
{
    return kc->server;
}
