/* client_cert.c - client_cert.h on GnuTLS (the session of libmicrohttpd's
 * TLS); without GnuTLS every check refuses and client_cert_supported()
 * says so, so that the flag is refused at start. */
#include "client_cert.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"

#ifdef ORDO_HAVE_GNUTLS
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#endif

bool client_cert_supported(void)
{
#ifdef ORDO_HAVE_GNUTLS
    return true;
#else
    return false;
#endif
}

int client_cert_count(const char *pem)
{
#ifdef ORDO_HAVE_GNUTLS
    gnutls_x509_crt_t *certs = NULL;
    unsigned n = 0;
    gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
    if (gnutls_x509_crt_list_import2(&certs, &n, &d, GNUTLS_X509_FMT_PEM, 0) <
        0)
        return 0;
    for (unsigned i = 0; i < n; i++)
        gnutls_x509_crt_deinit(certs[i]);
    gnutls_free(certs);
    return (int)n;
#else
    (void)pem;
    return -1;
#endif
}

static void peer_name(struct MHD_Connection *c, char *buf, size_t n)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(buf, n, "?");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                              : sizeof(struct sockaddr_in);
    if (getnameinfo(sa, len, buf, (socklen_t)n, NULL, 0, NI_NUMERICHOST) != 0)
        snprintf(buf, n, "?");
}

/* True the first time peer is seen (the oldest forgotten past 64). */
static bool first_time(struct client_cert_log *l, const char *peer)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->peers[i], peer) == 0)
            return false;
    size_t cap = sizeof(l->peers) / sizeof(l->peers[0]);
    snprintf(l->peers[l->next], sizeof(l->peers[0]), "%s", peer);
    l->next = (l->next + 1) % cap;
    if (l->n < cap)
        l->n++;
    return true;
}

#ifdef ORDO_HAVE_GNUTLS
/* The first certificate's subject and issuer, for the log. */
static void describe(gnutls_session_t s, char *buf, size_t n)
{
    unsigned count = 0;
    const gnutls_datum_t *certs = gnutls_certificate_get_peers(s, &count);
    gnutls_x509_crt_t crt;
    gnutls_datum_t dn = {0}, issuer = {0};
    snprintf(buf, n, "an unreadable certificate");
    if (!certs || !count || gnutls_x509_crt_init(&crt) < 0)
        return;
    if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) >= 0 &&
        gnutls_x509_crt_get_dn2(crt, &dn) >= 0 &&
        gnutls_x509_crt_get_issuer_dn2(crt, &issuer) >= 0)
        snprintf(buf, n, "subject \"%s\", issuer \"%s\"", (char *)dn.data,
                 (char *)issuer.data);
    gnutls_free(dn.data);
    gnutls_free(issuer.data);
    gnutls_x509_crt_deinit(crt);
}

/* The first certificate's common name into cn ("" when none). */
static void common_name(gnutls_session_t s, char *cn, size_t n)
{
    unsigned count = 0;
    const gnutls_datum_t *certs = gnutls_certificate_get_peers(s, &count);
    gnutls_x509_crt_t crt;
    cn[0] = '\0';
    if (!certs || !count || gnutls_x509_crt_init(&crt) < 0)
        return;
    size_t size = n;
    if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) < 0 ||
        gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0,
                                      cn, &size) < 0)
        cn[0] = '\0';
    gnutls_x509_crt_deinit(crt);
}
#endif

/* Whether cn is one of the comma-separated names. */
static bool named(const char *names, const char *cn)
{
    size_t len = strlen(cn);
    for (const char *p = names; *p;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && len && strncmp(p, cn, l) == 0)
            return true;
        p += l + (end ? 1 : 0);
    }
    return false;
}

unsigned client_cert_check(struct MHD_Connection *c, const char *names,
                           struct client_cert_log *l, char *buf, size_t n)
{
    char peer[64], who[512] = "no certificate";
    unsigned code = 403;
    snprintf(buf, n, "this build cannot verify client certificates");
#ifdef ORDO_HAVE_GNUTLS
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t s = ci ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned count = 0, status = 0;
    if (!s || !gnutls_certificate_get_peers(s, &count) || !count) {
        code = 401;
        snprintf(buf, n,
                 "a client certificate signed by --listen-client-ca is "
                 "required");
    } else if (gnutls_certificate_verify_peers2(s, &status) < 0 || status) {
        gnutls_datum_t out = {0};
        describe(s, who, sizeof(who));
        if (status && gnutls_certificate_verification_status_print(
                          status, GNUTLS_CRT_X509, &out, 0) >= 0)
            snprintf(buf, n,
                     "the client certificate is not accepted by "
                     "--listen-client-ca: %s",
                     (char *)out.data);
        else
            snprintf(buf, n,
                     "the client certificate is not accepted by "
                     "--listen-client-ca");
        gnutls_free(out.data);
    } else if (names) {
        char cn[256];
        common_name(s, cn, sizeof(cn));
        if (named(names, cn))
            return 0;
        describe(s, who, sizeof(who));
        snprintf(buf, n,
                 "the client certificate's common name \"%s\" is not one "
                 "of --listen-client-name",
                 cn);
    } else
        return 0;
#else
    (void)names;
    (void)named;
#endif
    peer_name(c, peer, sizeof(peer));
    if (first_time(l, peer))
        LOG_W("--listen: refused %s (%s): %s (logged once per address)", peer,
              who, buf);
    return code;
}
