/* decode_names.c - Kubernetes' rules for object names and labels
 * (k8s.io/apimachinery/pkg/util/validation), applied while decoding so
 * that Ordo refuses what an API server would.
 *
 * metadata.name is an RFC 1123 subdomain (at most 253 characters of
 * [a-z0-9.-], each dot-separated part starting and ending alphanumeric) for
 * every kind; a Namespace's name and metadata.namespace are RFC 1123 labels
 * (at most 63 of [a-z0-9-]). A label key is a qualified name (an optional
 * subdomain prefix of at most 253 and '/', then a name part of at most 63 of
 * [A-Za-z0-9_.-], alphanumeric at both ends); a label value is empty or
 * such a name part. */
#include <stdio.h>
#include <string.h>

#include "decode.h"

/* How much of a bad string a message quotes. */
#define QUOTE_MAX 64

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

const char *decode_check_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        return "must be no more than 63 characters";
    return is_label_text(s, n) ? NULL : dns_label_msg;
}

const char *decode_check_dns_subdomain(const char *s)
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

const char *decode_check_dns1035_label(const char *s)
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

const char *decode_check_label_key(const char *s)
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
        if (decode_check_dns_subdomain(prefix))
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

const char *decode_check_label_value(const char *s)
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

/* Fails for field `key` of map m (whose value is s) with what. */
static int fail_invalid(struct decode_ctx *c, const struct doc_node *m,
                        const char *key, const char *kind, const char *s,
                        const char *what)
{
    bool cut = strlen(s) > QUOTE_MAX;
    return decode_fail_at(c, doc_map_get(m, key), key,
                          "invalid %s \"%.*s%s\": %s", kind, QUOTE_MAX, s,
                          cut ? "..." : "", what);
}

int decode_check_object_names(struct decode_ctx *c, const struct doc_node *meta,
                              const struct object *o)
{
    size_t mark = decode_path_push(c, "metadata");
    const char *why = o->kind == OBJ_NAMESPACE
                          ? decode_check_dns_label(o->meta.name)
                          : decode_check_dns_subdomain(o->meta.name);
    int r = 0;
    if (why)
        r = fail_invalid(c, meta, "name", "name", o->meta.name, why);
    /* A namespace given to a cluster-scoped kind is dropped, as the API
     * server does. */
    if (r == 0 && object_kind_namespaced(o->kind) && o->meta.namespace_ &&
        (why = decode_check_dns_label(o->meta.namespace_)))
        r = fail_invalid(c, meta, "namespace", "namespace", o->meta.namespace_,
                         why);
    decode_path_pop(c, mark);
    return r;
}

int decode_field_labels(struct decode_ctx *c, const struct doc_node *parent,
                        const char *key, struct strmap *ret)
{
    int r = decode_field_strmap(c, parent, key, ret);
    const struct doc_node *m = doc_map_get(parent, key);
    if (r < 0 || !m || m->type != DOC_MAP)
        return r;
    size_t mark = decode_path_push(c, key);
    for (size_t i = 0; r == 0 && i < m->n; i++) {
        const char *k = m->keys[i], *v = strmap_get(ret, k), *why;
        if ((why = decode_check_label_key(k)))
            r = fail_invalid(c, m, k, "label key", k, why);
        else if (v && (why = decode_check_label_value(v)))
            r = fail_invalid(c, m, k, "label value", v, why);
    }
    decode_path_pop(c, mark);
    return r;
}
