/* kube_status_helpers.h - reading the JSON the Kubernetes backend's status
 * builders make, for tests/unit/test_kube_*.c: a member by dotted path
 * ("status.admission.clusterQueue", "podSets.0.count") and a condition by
 * type. */
#ifndef ORDO_KUBE_STATUS_HELPERS_H
#define ORDO_KUBE_STATUS_HELPERS_H

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/* The member at path (dots; numbers index arrays), or NULL. */
static inline struct json_object *kj_at(struct json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, ".")) {
        if (json_object_is_type(o, json_type_array)) {
            char *end;
            long i = strtol(tok, &end, 10);
            o = *end ? NULL : json_object_array_get_idx(o, (size_t)i);
        } else if (!json_object_object_get_ex(o, tok, &o)) {
            o = NULL;
        }
    }
    return o;
}

/* The string at path, or "(none)". */
static inline const char *kj_str(struct json_object *o, const char *path)
{
    struct json_object *v = kj_at(o, path);
    return v ? json_object_get_string(v) : "(none)";
}

static inline int64_t kj_int(struct json_object *o, const char *path)
{
    struct json_object *v = kj_at(o, path);
    return v ? json_object_get_int64(v) : -1;
}

/* The condition of type in the array at path, or NULL. */
static inline struct json_object *kj_cond(struct json_object *o,
                                          const char *path, const char *type)
{
    struct json_object *arr = kj_at(o, path);
    for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
        struct json_object *c = json_object_array_get_idx(arr, i);
        if (strcmp(kj_str(c, "type"), type) == 0)
            return c;
    }
    return NULL;
}

/* Asserts condition type at path has status, reason and message. */
#define assert_cond(o, path, type, status, reason, message)                    \
    do {                                                                       \
        struct json_object *c_ = kj_cond(o, path, type);                       \
        if (!c_)                                                               \
            fail_msg("no condition %s", type);                                 \
        assert_string_equal(kj_str(c_, "status"), status);                     \
        assert_string_equal(kj_str(c_, "reason"), reason);                     \
        assert_string_equal(kj_str(c_, "message"), message);                   \
    } while (0)

#endif
