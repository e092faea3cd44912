/* decode_admission.c - the decoder of kueue.x-k8s.io/v1beta2 AdmissionCheck,
 * validated as its CRD schema does: spec.controllerName required, and
 * spec.parameters, when given, a reference with apiGroup, kind and name.
 * Ordo reads AdmissionChecks only so that the ClusterQueues naming them can
 * be checked (core/manifest_check.c) and kept inactive (sched/cache). */
#include <ctype.h>
#include <string.h>

#include "decode_kinds.h"
#include "kname.h"

/* The CRD's pattern for parameters.kind: ^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$,
 * at most 63 characters. NULL when s matches, else why not. */
static const char *check_kind(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return "must be 1 to 63 characters";
    if (!isalpha((unsigned char)s[0]) || s[n - 1] == '-')
        return "must start with a letter and end with a letter or digit";
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return "must consist of letters, digits and '-'";
    return NULL;
}

/* One required string field of parameters p, checked by check. */
static int decode_param(struct decode_ctx *c, const struct doc_node *p,
                        const char *key, const char *(*check)(const char *),
                        const char **ret)
{
    int r = decode_field_string(c, p, key, ret);
    if (r < 0)
        return r;
    if (!*ret || !**ret)
        return decode_fail_at(c, p, key, "required");
    const char *why = check(*ret);
    return why ? decode_fail_at(c, doc_map_get(p, key), key,
                                "invalid \"%s\": %s", *ret, why)
               : 0;
}

/* AdmissionCheckSpec and its parameters reference
 * (AdmissionCheckParametersReference). */
static const struct decode_known spec_known[] = {
    {"controllerName", NULL},
    {"parameters", NULL},
    {"retryDelayMinutes", NULL}, /* deprecated by Kueue, never used */
    {NULL, NULL}};
static const struct decode_known params_known[] = {
    {"apiGroup", NULL}, {"kind", NULL}, {"name", NULL}, {NULL, NULL}};

int decode_admission_check(struct decode_ctx *c, const struct doc_node *n,
                           struct object *o)
{
    struct admission_check *ac = &o->u.admission_check;
    const struct doc_node *spec = NULL, *params = NULL;
    int r = decode_field_map_required(c, n, "spec", &spec);
    if (r < 0)
        return r;
    size_t mark = decode_path_push(c, "spec");
    int known = decode_check_known(c, spec, spec_known);
    r = decode_field_string(c, spec, "controllerName", &ac->controller_name);
    if (r == 0 && (!ac->controller_name || !*ac->controller_name))
        r = decode_fail_at(c, spec, "controllerName", "required");
    if (r == 0)
        r = decode_field_map(c, spec, "parameters", &params);
    if (r == 0 && params) {
        size_t m2 = decode_path_push(c, "parameters");
        known = decode_join(known, decode_check_known(c, params, params_known));
        r = decode_param(c, params, "apiGroup", kname_check_dns_subdomain,
                         &ac->parameters_api_group);
        if (r == 0)
            r = decode_param(c, params, "kind", check_kind,
                             &ac->parameters_kind);
        if (r == 0)
            r = decode_param(c, params, "name", kname_check_dns_label,
                             &ac->parameters_name);
        decode_path_pop(c, m2);
    }
    decode_path_pop(c, mark);
    return decode_join(r, known);
}
