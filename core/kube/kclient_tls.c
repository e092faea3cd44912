/* kclient_tls.c - TLS, proxy and credentials of the API client: what a
 * kubeconfig says (CA and client certificate in memory, tls-server-name,
 * proxy-url, rotating tokens) turned into libcurl options on each easy
 * handle. Certificates and keys never touch the disk: libcurl's *_BLOB
 * options (7.71, CAINFO_BLOB 7.77) take them from memory. */
#include "kclient_tls.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kclient_tls {
    void *ca, *cert, *key; /* copies; NULL when not given */
    size_t ca_len, cert_len, key_len;
    char *proxy;
    char *base_url;                /* where requests go (see the header) */
    struct curl_slist *connect_to; /* with tls_server_name only */
    const struct kclient_cred_source *cred;
};

static bool has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static bool bad_name(const char *s)
{
    return s && (!*s || has_ctl(s) || strpbrk(s, " /:@[]?#"));
}

static int blob_dup(const void *src, size_t len, void **dst, size_t *dst_len)
{
    if (!src)
        return 0;
    if (len == 0)
        return -EINVAL;
    *dst = malloc(len);
    if (!*dst)
        return -ENOMEM;
    memcpy(*dst, src, len);
    *dst_len = len;
    return 0;
}

/* Points requests at https://NAME:PORT and connects NAME:PORT to the real
 * host: libcurl checks the certificate against, and sends as SNI, the
 * URL's host, and has no option to name another. */
static int server_name_route(struct kclient_tls *t, const char *base,
                             const char *name)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *url = NULL;
    int r = -ENOMEM;
    if (!u)
        return -ENOMEM;
    if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) !=
            CURLUE_OK ||
        curl_url_set(u, CURLUPART_HOST, name, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
        r = -EINVAL;
        goto cleanup;
    }
    char *entry = NULL;
    if (asprintf(&entry, "%s:%s:%s:%s", name, port, host, port) < 0)
        goto cleanup;
    struct curl_slist *l = curl_slist_append(NULL, entry);
    free(entry);
    t->base_url = strdup(url);
    if (!l || !t->base_url) {
        curl_slist_free_all(l);
        goto cleanup;
    }
    t->connect_to = l;
    r = 0;
cleanup:
    curl_free(host);
    curl_free(port);
    curl_free(url);
    curl_url_cleanup(u);
    return r;
}

int kclient_tls_new(const struct kclient_options *opt, struct kclient_tls **ret)
{
    if (!opt || !opt->base_url || !ret)
        return -EINVAL;
    if (!opt->client_cert_data != !opt->client_key_data ||
        (opt->ca_file && opt->ca_data) || (opt->bearer_token && opt->cred) ||
        (opt->cred && !opt->cred->get) || bad_name(opt->tls_server_name) ||
        (opt->proxy_url && (!*opt->proxy_url || has_ctl(opt->proxy_url))))
        return -EINVAL;
    struct kclient_tls *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->cred = opt->cred;
    int r = blob_dup(opt->ca_data, opt->ca_len, &t->ca, &t->ca_len);
    if (r == 0)
        r = blob_dup(opt->client_cert_data, opt->client_cert_len, &t->cert,
                     &t->cert_len);
    if (r == 0)
        r = blob_dup(opt->client_key_data, opt->client_key_len, &t->key,
                     &t->key_len);
    if (r == 0 && opt->proxy_url && !(t->proxy = strdup(opt->proxy_url)))
        r = -ENOMEM;
    if (r == 0 && opt->tls_server_name)
        r = server_name_route(t, opt->base_url, opt->tls_server_name);
    else if (r == 0 && !(t->base_url = strdup(opt->base_url)))
        r = -ENOMEM;
    if (r < 0) {
        kclient_tls_free(t);
        return r;
    }
    *ret = t;
    return 0;
}

void kclient_tls_free(struct kclient_tls *t)
{
    if (!t)
        return;
    free(t->ca);
    free(t->cert);
    free(t->key);
    free(t->proxy);
    free(t->base_url);
    curl_slist_free_all(t->connect_to);
    free(t);
}

const char *kclient_tls_base_url(const struct kclient_tls *t)
{
    return t ? t->base_url : NULL;
}

static CURLcode set_blob(CURL *easy, CURLoption opt, const void *data,
                         size_t len)
{
    struct curl_blob b = {
        .data = (void *)data, .len = len, .flags = CURL_BLOB_COPY};
    return curl_easy_setopt(easy, opt, &b);
}

/* Client certificate and key, PEM, from memory. */
static CURLcode set_client_cert(CURL *easy, const void *cert, size_t cert_len,
                                const void *key, size_t key_len)
{
    CURLcode rc = set_blob(easy, CURLOPT_SSLCERT_BLOB, cert, cert_len);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    if (rc == CURLE_OK)
        rc = set_blob(easy, CURLOPT_SSLKEY_BLOB, key, key_len);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
    return rc;
}

int kclient_tls_apply(const struct kclient_tls *t, CURL *easy)
{
    if (!t || !easy)
        return -EINVAL;
    CURLcode rc = CURLE_OK;
    if (t->ca) {
        /* Only this CA, as kubectl: not the system store besides. */
        rc = curl_easy_setopt(easy, CURLOPT_CAINFO, (char *)NULL);
        if (rc == CURLE_OK)
            rc = curl_easy_setopt(easy, CURLOPT_CAPATH, (char *)NULL);
        if (rc == CURLE_OK)
            rc = set_blob(easy, CURLOPT_CAINFO_BLOB, t->ca, t->ca_len);
    }
    if (rc == CURLE_OK && t->connect_to)
        rc = curl_easy_setopt(easy, CURLOPT_CONNECT_TO, t->connect_to);
    if (rc == CURLE_OK && t->proxy)
        rc = curl_easy_setopt(easy, CURLOPT_PROXY, t->proxy);
    struct kclient_cred c = {0};
    if (rc == CURLE_OK && t->cred) {
        int r = t->cred->get(t->cred->data, &c);
        if (r < 0)
            return r;
        if ((c.token && (!*c.token || has_ctl(c.token))) ||
            (!c.cert != !c.key) || (c.cert && (!c.cert_len || !c.key_len)))
            return -EINVAL;
    }
    if (rc == CURLE_OK && c.cert)
        rc = set_client_cert(easy, c.cert, c.cert_len, c.key, c.key_len);
    else if (rc == CURLE_OK && t->cert)
        rc = set_client_cert(easy, t->cert, t->cert_len, t->key, t->key_len);
    if (rc == CURLE_OK && c.token) {
        rc = curl_easy_setopt(easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
        if (rc == CURLE_OK)
            rc = curl_easy_setopt(easy, CURLOPT_XOAUTH2_BEARER, c.token);
    }
    if (rc == CURLE_OK)
        return 0;
    return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
}
