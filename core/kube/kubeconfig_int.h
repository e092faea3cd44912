/* kubeconfig_int.h - private to kubeconfig*.c: the loaded configuration
 * and the helpers its three files share (kubeconfig.c finds and merges the
 * files, kubeconfig_fields.c reads a cluster and a user, kubeconfig_cred.c
 * keeps rotating tokens and runs exec plugins). */
#ifndef ORDO_KUBECONFIG_INT_H
#define ORDO_KUBECONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "kclient.h"
#include "kubeconfig.h"

struct doc_node;

#define KCFG_FILE_MAX ((size_t)1 << 20) /* a certificate, key or token file */

struct kcfg_blob {
    char *data; /* NUL-terminated too, for PEM checks */
    size_t len;
};

struct kcfg_exec {
    char *api_version; /* client.authentication.k8s.io/v1 or v1beta1 */
    char *command;
    char **argv; /* command, args..., NULL */
    char **env;  /* "NAME=value"..., NULL */
    char *install_hint;
    bool provide_cluster_info;
};

struct kubeconfig {
    char *describe;
    char *where; /* error prefix: "FILE: context \"c\": user \"u\"" */
    char *namespace;
    /* cluster */
    char *server, *tls_server_name, *proxy_url;
    struct kcfg_blob ca;
    bool insecure;
    /* user */
    char *token, *token_file;
    struct kcfg_blob cert, key;
    struct kcfg_exec *exec;

    /* credential source state (kubeconfig_cred.c) */
    struct kclient_cred_source source;
    long exec_timeout_ms;
    int64_t (*clock_ns)(void *data);
    void *clock_data;
    char *file_token; /* tokenFile's contents, trimmed */
    dev_t tf_dev;
    ino_t tf_ino;
    off_t tf_size;
    int64_t tf_mtime_ns, tf_read_ns;
    char *exec_token; /* the plugin's answer */
    struct kcfg_blob exec_cert, exec_key;
    int64_t exec_expiry_ns; /* 0: does not expire */
    bool exec_valid;
    struct err cred_err;
};

/* Reads path (at most KCFG_FILE_MAX bytes) into *ret. 0 or a negative errno;
 * ret untouched on error. */
int kcfg_read_file(const char *path, struct kcfg_blob *ret);
void kcfg_blob_clear(struct kcfg_blob *b);

/* path, or dir/path when path is relative and dir is not NULL. Returns a
 * malloc'd string or NULL (OOM). */
char *kcfg_resolve(const char *dir, const char *path);

/* Standard base64 (line breaks allowed) to bytes. 0, -EINVAL or -ENOMEM. */
int kcfg_base64_decode(const char *s, struct kcfg_blob *ret);
/* Bytes to standard base64, malloc'd; NULL on OOM. */
char *kcfg_base64_encode(const void *data, size_t len);

/* Reads the cluster map into kc. where: the error prefix ("FILE: context
 * \"c\": cluster \"x\""); dir: the directory of the file. 0 or a negative
 * errno with e filled. */
int kcfg_read_cluster(struct kubeconfig *kc, const struct doc_node *cluster,
                      const char *where, const char *dir, struct err *e);
int kcfg_read_user(struct kubeconfig *kc, const struct doc_node *user,
                   const char *where, const char *dir, struct err *e);

/* Sets up kc->source for a token file or exec plugin and fetches the first
 * credential (running the plugin). 0 or a negative errno with e filled. */
int kcfg_cred_init(struct kubeconfig *kc, struct err *e);
void kcfg_cred_free(struct kubeconfig *kc);

#endif
