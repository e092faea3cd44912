/* client_cert.h - the TLS client certificate of a request on the
 * --listen port, checked against the CA of --listen-client-ca (the API
 * server's front-proxy CA: the aggregator proxies the visibility API with
 * a certificate it signed). GnuTLS verifies it, on the session
 * libmicrohttpd keeps; refusals are logged once per peer address. */
#ifndef ORDO_CLIENT_CERT_H
#define ORDO_CLIENT_CERT_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

/* Whether this build verifies client certificates (GnuTLS found). */
bool client_cert_supported(void);

/* The certificates of a PEM bundle (0: none, not PEM; -1 without
 * GnuTLS). */
int client_cert_count(const char *pem);

/* The peer addresses already logged (bounded). */
struct client_cert_log {
    char peers[64][64];
    size_t n, next;
};

/* 0 when c presented a certificate that the daemon's trust list (its
 * MHD_OPTION_HTTPS_MEM_TRUST) verifies, whose common name is one of the
 * comma-separated names (NULL: any; the API server's
 * requestheader-allowed-names), else the HTTP code to refuse with, 401
 * (none presented) or 403 (not signed by the CA, expired, not yet valid,
 * another name), and why into buf. The first refusal of each peer address is
 * logged in l, with the certificate's subject and issuer (never a
 * header). */
unsigned client_cert_check(struct MHD_Connection *c, const char *names,
                           struct client_cert_log *l, char *buf, size_t n);

#endif
