/* kubeconfig.h - where the API server is and who we are to it: kubeconfig
 * files (merged as kubectl merges them), in-cluster service-account files,
 * token files that rotate and exec credential plugins, turned into the
 * options of kclient.h.
 *
 * Which configuration is used (kubectl's order):
 *   1. kubeconfig given (--kubeconfig FILE): that file alone; it must exist.
 *   2. else every file of KUBECONFIG (':'-separated; missing ones skipped),
 *      or, when KUBECONFIG is unset or empty, $HOME/.kube/config if it
 *      exists. Merged: the first file that names a cluster, user or
 *      context wins it whole; current-context comes from the first file
 *      that sets one.
 *   3. the context: context given (--context NAME), else current-context.
 *      When neither the files nor the options name one (or no file was
 *      found) and context was not given: in-cluster, when
 *      KUBERNETES_SERVICE_HOST and _PORT are set.
 *
 * Fields read (client-go's names): cluster server, certificate-authority
 * (-data), tls-server-name, insecure-skip-tls-verify, proxy-url; user token,
 * tokenFile, client-certificate(-data), client-key(-data), exec. A *-data
 * field wins over the file of the same thing, token over tokenFile. Paths
 * are relative to the file that names them (so is an exec command with a
 * '/' in it). Unknown fields are ignored, as kubectl does; fields that
 * would change who we are and that Ordo does not implement (username/
 * password, auth-provider, as/as-groups/as-user-extra) are errors.
 * Certificates and keys are read once, at load, and kept in memory.
 *
 * Errors name the file, the context and the field, e.g.
 *   "/root/.kube/config: context \"prod\": user \"admin\": client-key-data:
 *    not base64".
 *
 * Credentials that change (kclient_cred_source, given to kclient through
 * kubeconfig_client_options()):
 *   - tokenFile (and the in-cluster token): the file is stat()ed as each
 *     request starts and read again when its inode, size or mtime changed,
 *     or when the copy is older than KUBECONFIG_TOKEN_REREAD_S (kubelet
 *     rewrites projected tokens). A file that cannot be read any more keeps
 *     the last token.
 *   - exec plugins (client.authentication.k8s.io/v1 and v1beta1): run once
 *     at load, so that a broken plugin stops the start with its message,
 *     then again as a request starts when the credential expires within
 *     KUBECONFIG_EXEC_MARGIN_S of expirationTimestamp (none: never) or
 *     after kubeconfig_invalidate() (a 401). The plugin runs synchronously,
 *     stdin on /dev/null, killed after exec_timeout_ms: that refresh is the
 *     only time a request start may wait, once per credential lifetime.
 *     interactiveMode Always is refused: the scheduler has no terminal.
 *
 * A struct kubeconfig is used by one thread (the event loop's). */
#ifndef ORDO_KUBECONFIG_H
#define ORDO_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kclient.h"

struct err;

#define KUBECONFIG_EXEC_TIMEOUT_MS 10000L /* exec_timeout_ms left 0 */
#define KUBECONFIG_EXEC_MARGIN_S   10     /* refresh this early */
#define KUBECONFIG_TOKEN_REREAD_S  60 /* tokenFile read at least this often */
#define KUBECONFIG_INCLUSTER_DIR   "/var/run/secrets/kubernetes.io/serviceaccount"

struct kubeconfig_load_options {
    const char *kubeconfig; /* --kubeconfig FILE; NULL: KUBECONFIG, home */
    const char *context;    /* --context NAME; NULL: current-context */
    /* The environment, passed in (kubeconfig_options_from_env() fills
     * these) so that tests choose it. NULL or "": unset. */
    const char *kubeconfig_env; /* KUBECONFIG */
    const char *home;           /* HOME, for $HOME/.kube/config */
    const char *service_host;   /* KUBERNETES_SERVICE_HOST */
    const char *service_port;   /* KUBERNETES_SERVICE_PORT */
    /* Prefix of KUBECONFIG_INCLUSTER_DIR. NULL: "" (the real one). */
    const char *incluster_root;
    long exec_timeout_ms; /* 0: KUBECONFIG_EXEC_TIMEOUT_MS */
    /* Wall clock in ns since the epoch, for credential expiry and token
     * re-reads. NULL: clock_gettime(CLOCK_REALTIME). */
    int64_t (*clock_ns)(void *data);
    void *clock_data;
};

/* Fills kubeconfig_env, home, service_host and service_port from getenv();
 * the strings belong to the environment. */
void kubeconfig_options_from_env(struct kubeconfig_load_options *o);

struct kubeconfig;

/* Finds, reads and checks the configuration (the exec plugin runs once).
 * Returns 0 and sets *ret (owned by the caller, kubeconfig_free()), or a
 * negative errno with e filled: -ENOENT (no configuration found, no such
 * context, cluster or user), -EINVAL (a wrong field), -EIO (a file or the
 * exec plugin failed), -ENOMEM. */
int kubeconfig_load(const struct kubeconfig_load_options *o,
                    struct kubeconfig **ret, struct err *e);

void kubeconfig_free(struct kubeconfig *kc); /* NULL-safe */

/* Sets opt's base_url, ca_data, insecure_skip_verify, tls_server_name,
 * proxy_url, client certificate and key, bearer_token (a static token) and
 * cred (tokenFile or exec) from kc, leaving the other fields alone. The
 * pointers belong to kc, which must outlive the client made with them. */
void kubeconfig_client_options(struct kubeconfig *kc,
                               struct kclient_options *opt);

/* "context \"prod\" of /root/.kube/config" or "in-cluster". Owned by kc. */
const char *kubeconfig_describe(const struct kubeconfig *kc);

/* The context's namespace ("default" when it names none); in-cluster, the
 * service account's. Owned by kc. */
const char *kubeconfig_namespace(const struct kubeconfig *kc);

/* The server URL. Owned by kc. */
const char *kubeconfig_server(const struct kubeconfig *kc);

/* Forgets the exec plugin's credential, so that the next request runs the
 * plugin again (call it on a 401), and the token file's copy. */
void kubeconfig_invalidate(struct kubeconfig *kc);

/* Why the credential source last failed, or kept a stale token ("" when it
 * did not). Owned by kc, valid until its next use. */
const char *kubeconfig_cred_error(const struct kubeconfig *kc);

#endif
