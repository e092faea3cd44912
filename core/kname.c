/* kname.c - Kubernetes' syntax rules for names and labels
 * (k8s.io/apimachinery/pkg/util/validation), with its messages; see
 * kname.h. */
#include "kname.h"

#include <stdbool.h>
#include <string.h>

static bool is_lower_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static bool is_alnum(char ch)
{
    return is_lower_alnum(ch) || (ch >= 'A' && ch <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n). */
static bool is_label_text(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static const char dns_label_msg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name')";
static const char dns_subdomain_msg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com')";

const char *kname_check_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    return is_label_text(s, n) ? NULL : dns_label_msg;
}

const char *kname_check_dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n > 253)
        return "must be no more than 253 characters";
    for (const char *part = s;;) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        if (!is_label_text(part, len))
            return dns_subdomain_msg;
        if (!dot)
            return NULL;
        part = dot + 1;
    }
}

const char *kname_check_dns1035_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    if (n == 0 || s[0] < 'a' || s[0] > 'z' || !is_label_text(s, n))
        return "a DNS-1035 label must consist of lower case alphanumeric "
               "characters or '-', start with an alphabetic character, and "
               "end with an alphanumeric character (e.g. 'my-name')";
    return NULL;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n). */
static bool is_name_part(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

static const char name_part_msg[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyName', "
    "'my.name', or '123-abc')";

const char *kname_check_label_key(const char *s)
{
    const char *slash = strchr(s, '/'), *name = s;
    if (slash) {
        if (strchr(slash + 1, '/'))
            return "a qualified name must consist of alphanumeric "
                   "characters, '-', '_' or '.', with an optional DNS "
                   "subdomain prefix and '/' (e.g. 'example.com/MyName')";
        if (slash == s)
            return "prefix part must be non-empty";
        size_t plen = (size_t)(slash - s);
        char prefix[256];
        if (plen > 253)
            return "prefix part must be no more than 253 characters";
        memcpy(prefix, s, plen);
        prefix[plen] = '\0';
        if (kname_check_dns_subdomain(prefix))
            return "prefix part a lowercase RFC 1123 subdomain must consist "
                   "of lower case alphanumeric characters, '-' or '.', and "
                   "must start and end with an alphanumeric character";
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0)
        return "name part must be non-empty";
    if (n > 63)
        return "name part must be no more than 63 characters";
    return is_name_part(name, n) ? NULL : name_part_msg;
}

const char *kname_check_label_value(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    if (n && !is_name_part(s, n))
        return "a valid label must be an empty string or consist of "
               "alphanumeric characters, '-', '_' or '.', and must start "
               "and end with an alphanumeric character (e.g. 'MyValue', or "
               "'my_value', or '12345')";
    return NULL;
}
