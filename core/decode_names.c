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

#include "decode_kinds.h"
#include "kname.h"

/* How much of a bad string a message quotes. */
#define QUOTE_MAX 64

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
                          ? kname_check_dns_label(o->meta.name)
                          : kname_check_dns_subdomain(o->meta.name);
    int r = 0;
    if (why)
        r = fail_invalid(c, meta, "name", "name", o->meta.name, why);
    /* A namespace given to a cluster-scoped kind is dropped, as the API
     * server does. */
    if (r == 0 && object_kind_namespaced(o->kind) && o->meta.namespace_ &&
        (why = kname_check_dns_label(o->meta.namespace_)))
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
        if ((why = kname_check_label_key(k)))
            r = fail_invalid(c, m, k, "label key", k, why);
        else if (v && (why = kname_check_label_value(v)))
            r = fail_invalid(c, m, k, "label value", v, why);
    }
    decode_path_pop(c, mark);
    return r;
}
