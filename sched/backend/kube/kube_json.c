/* kube_json.c - JSON helpers of the status writers: members, times, merge
 * patches, conditions (see kube_json.h). */
#include "kube_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int kjson_put(struct json_object *obj, const char *key,
              struct json_object *value)
{
    if (!value)
        return -ENOMEM;
    if (json_object_object_add(obj, key, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

int kjson_put_str(struct json_object *obj, const char *key, const char *s)
{
    return s ? kjson_put(obj, key, json_object_new_string(s)) : 0;
}

int kjson_put_int(struct json_object *obj, const char *key, int64_t v)
{
    return kjson_put(obj, key, json_object_new_int64(v));
}

int kjson_append(struct json_object *arr, struct json_object *value)
{
    if (!value)
        return -ENOMEM;
    if (json_object_array_add(arr, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

static struct json_object *format_time(int64_t t_ns, bool micro)
{
    int64_t sec = t_ns / 1000000000;
    int64_t rem = t_ns % 1000000000;
    if (rem < 0) {
        rem += 1000000000;
        sec--;
    }
    time_t s = (time_t)sec;
    struct tm tm;
    char buf[48];
    if (!gmtime_r(&s, &tm))
        return json_object_new_string("1970-01-01T00:00:00Z");
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro)
        snprintf(buf + n, sizeof(buf) - n, ".%06ldZ", (long)(rem / 1000));
    else
        snprintf(buf + n, sizeof(buf) - n, "Z");
    return json_object_new_string(buf);
}

struct json_object *kjson_time(int64_t t_ns)
{
    return format_time(t_ns, false);
}

struct json_object *kjson_micro_time(int64_t t_ns)
{
    return format_time(t_ns, true);
}

/* A deep copy of v (NULL stays NULL); -ENOMEM. */
static int copy(const struct json_object *v, struct json_object **ret)
{
    *ret = NULL;
    if (!v)
        return 0;
    return json_object_deep_copy((struct json_object *)v, ret, NULL) < 0
               ? -ENOMEM
               : 0;
}

int kjson_merge_diff(const struct json_object *old,
                     const struct json_object *new, struct json_object **ret)
{
    struct json_object *patch = json_object_new_object();
    *ret = NULL;
    if (!patch)
        return -ENOMEM;
    struct json_object *o = (struct json_object *)old;
    struct json_object *n = (struct json_object *)new;
    /* Members new has that differ. */
    json_object_object_foreach(n, key, nv)
    {
        struct json_object *ov = NULL;
        bool had = o && json_object_object_get_ex(o, key, &ov);
        struct json_object *member = NULL;
        int r = 0;
        if (had && json_object_equal(ov, nv))
            continue;
        if (had && json_object_is_type(ov, json_type_object) &&
            json_object_is_type(nv, json_type_object)) {
            r = kjson_merge_diff(ov, nv, &member);
            if (r == 0 && !member)
                continue;
        } else if (!nv) {
            /* A JSON null in new: the member is removed by the patch too. */
            member = NULL;
        } else {
            r = copy(nv, &member);
        }
        if (r < 0 || json_object_object_add(patch, key, member) < 0) {
            json_object_put(member);
            json_object_put(patch);
            return -ENOMEM;
        }
    }
    /* Members only old has: removed. */
    if (o) {
        json_object_object_foreach(o, okey, ov)
        {
            (void)ov;
            if (json_object_object_get_ex(n, okey, NULL))
                continue;
            if (json_object_object_add(patch, okey, NULL) < 0) {
                json_object_put(patch);
                return -ENOMEM;
            }
        }
    }
    if (json_object_object_length(patch) == 0) {
        json_object_put(patch);
        return 0;
    }
    *ret = patch;
    return 0;
}

struct json_object *kjson_condition(const char *type, bool status,
                                    const char *reason, const char *message,
                                    int64_t since_ns)
{
    struct json_object *c = json_object_new_object();
    if (!c)
        return NULL;
    if (kjson_put_str(c, "type", type) < 0 ||
        kjson_put_str(c, "status", status ? "True" : "False") < 0 ||
        kjson_put_str(c, "reason", reason) < 0 ||
        kjson_put_str(c, "message", message ? message : "") < 0 ||
        kjson_put(c, "lastTransitionTime", kjson_time(since_ns)) < 0) {
        json_object_put(c);
        return NULL;
    }
    return c;
}

static const char *member_str(struct json_object *o, const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v)
                                                 : NULL;
}

void kjson_keep_transition_times(struct json_object *conds,
                                 const struct json_object *prev)
{
    if (!conds || !prev)
        return;
    struct json_object *p = (struct json_object *)prev;
    size_t n = json_object_array_length(conds);
    size_t np = json_object_array_length(p);
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(conds, i);
        const char *type = member_str(c, "type");
        const char *status = member_str(c, "status");
        for (size_t k = 0; type && status && k < np; k++) {
            struct json_object *pc = json_object_array_get_idx(p, k);
            const char *pt = member_str(pc, "type");
            const char *ps = member_str(pc, "status");
            struct json_object *ltt;
            if (!pt || !ps || strcmp(pt, type) != 0)
                continue;
            if (strcmp(ps, status) == 0 &&
                json_object_object_get_ex(pc, "lastTransitionTime", &ltt))
                (void)json_object_object_add(c, "lastTransitionTime",
                                             json_object_get(ltt));
            break;
        }
    }
}
