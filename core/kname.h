/* kname.h - Kubernetes' syntax rules for names and labels, as
 * k8s.io/apimachinery/pkg/util/validation states them: each check returns
 * NULL when s is valid, else a static message in Kubernetes' words ("must
 * be no more than 63 characters", "a lowercase RFC 1123 label must consist
 * of ..."). Used by decoding (object names, labels), by selector matching
 * (a malformed requirement selects nothing) and by the API client. */
#ifndef ORDO_KNAME_H
#define ORDO_KNAME_H

/* IsDNS1123Label: at most 63 of [a-z0-9-], alphanumeric at both ends. */
const char *kname_check_dns_label(const char *s);
/* IsDNS1123Subdomain: at most 253 characters, dot-separated DNS labels. */
const char *kname_check_dns_subdomain(const char *s);
/* IsDNS1035Label: a DNS label that starts with a letter. */
const char *kname_check_dns1035_label(const char *s);
/* IsQualifiedName: a label key, [prefix/]name; the prefix a subdomain,
 * the name at most 63 of [A-Za-z0-9_.-], alphanumeric at both ends. */
const char *kname_check_label_key(const char *s);
/* IsValidLabelValue: empty, or a name as in a label key. */
const char *kname_check_label_value(const char *s);

#endif
