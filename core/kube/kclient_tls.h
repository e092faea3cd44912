/* kclient_tls.h - private to core/kube: the TLS, proxy and credential
 * options of struct kclient_options, checked, copied and applied to each
 * libcurl easy handle (kclient_tls.c). kclient.c calls these four. */
#ifndef ORDO_KCLIENT_TLS_H
#define ORDO_KCLIENT_TLS_H

#include <curl/curl.h>

#include "kclient.h"

struct kclient_tls;

/* Checks and copies the options' TLS/credential fields. Returns 0 and sets
 * *ret (owned by the caller, kclient_tls_free()), -EINVAL (half a client
 * key pair, ca_file with ca_data, bearer_token with a credential source,
 * an empty or control-character server name or proxy, a base URL libcurl
 * cannot parse when tls_server_name needs it) or -ENOMEM. */
int kclient_tls_new(const struct kclient_options *opt,
                    struct kclient_tls **ret);

void kclient_tls_free(struct kclient_tls *t); /* NULL-safe */

/* The base URL requests go to: opt->base_url, or with tls_server_name its
 * host replaced by that name (the connection is pointed back at the real
 * host with CURLOPT_CONNECT_TO). Owned by t. */
const char *kclient_tls_base_url(const struct kclient_tls *t);

/* Sets CA, client certificate, server name, proxy and, from the credential
 * source, the bearer token on easy. 0, the source's error, -EINVAL for a
 * token with control characters, -ENOMEM or -EIO. */
int kclient_tls_apply(const struct kclient_tls *t, CURL *easy);

#endif
