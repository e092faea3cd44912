/* kube_json.h - the JSON pieces the Kubernetes backend's status writers
 * share (json-c): adding members without leaking on failure, RFC 3339
 * times as metav1.Time prints them, the RFC 7386 merge patch from one
 * state of an object to the next, and Kubernetes conditions whose
 * lastTransitionTime moves only when their status does. */
#ifndef ORDO_KUBE_JSON_H
#define ORDO_KUBE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/* Adds key: value to obj, taking value; -ENOMEM when value is NULL or the
 * add failed (value is released then). */
int kjson_put(struct json_object *obj, const char *key,
              struct json_object *value);
/* kjson_put of a new string (s NULL: nothing is added, 0). */
int kjson_put_str(struct json_object *obj, const char *key, const char *s);
int kjson_put_int(struct json_object *obj, const char *key, int64_t v);
/* Appends value (taken) to arr; -ENOMEM on failure (value released). */
int kjson_append(struct json_object *arr, struct json_object *value);

/* t_ns (ns since the epoch) as metav1.Time: "2006-01-02T15:04:05Z", whole
 * seconds (a new string, NULL when out of memory). */
struct json_object *kjson_time(int64_t t_ns);
/* Same as MicroTime: "2006-01-02T15:04:05.000000Z". */
struct json_object *kjson_micro_time(int64_t t_ns);

/* The merge patch (RFC 7386) that turns old into new (objects; old NULL:
 * an empty object): members of new that differ (objects recursively,
 * arrays and scalars whole), null for members old has and new lacks. *ret
 * is a new object, or NULL when nothing differs. 0 or -ENOMEM. */
int kjson_merge_diff(const struct json_object *old,
                     const struct json_object *new, struct json_object **ret);

/* A condition {type, status, reason, message, lastTransitionTime}
 * (status "True"/"False"), or NULL when out of memory. */
struct json_object *kjson_condition(const char *type, bool status,
                                    const char *reason, const char *message,
                                    int64_t since_ns);
/* For each condition of conds whose type prev (an array of conditions, or
 * NULL) has with the same status, the lastTransitionTime of prev's:
 * Kubernetes moves it only when the status changes. */
void kjson_keep_transition_times(struct json_object *conds,
                                 const struct json_object *prev);

#endif
