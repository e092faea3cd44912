/* sim_report_hist.c - a workload's history in the report (sim_report.c):
 * its events ("history") and its admission periods ("admissions"), read
 * from the history the cache records (history.h); and the report's times
 * in seconds. */
#include "sim_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

#define NS_PER_MS INT64_C(1000000)

struct json_object *sim_json_seconds(int64_t ns)
{
    /* Milliseconds, halves away from zero. */
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t ms = mag / (uint64_t)NS_PER_MS +
                  (mag % (uint64_t)NS_PER_MS >= (uint64_t)NS_PER_MS / 2);
    const char *sign = ns < 0 && ms ? "-" : "";
    if (ms % 1000 == 0)
        return json_object_new_int64((ns < 0 ? -1 : 1) * (int64_t)(ms / 1000));
    char buf[40];
    int len = snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%03" PRIu64, sign,
                       ms / 1000, ms % 1000);
    while (len > 0 && buf[len - 1] == '0')
        buf[--len] = '\0';
    double v = (double)ms / 1000.0;
    return json_object_new_double_s(ns < 0 ? -v : v, buf);
}

/* obj[key] = value (taken); a NULL value is a JSON null. -ENOMEM. */
static int put(struct json_object *obj, const char *key,
               struct json_object *value)
{
    if (json_object_object_add(obj, key, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

static struct json_object *string_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *event_json(const struct wl_event *e)
{
    struct json_object *obj = json_object_new_object();
    if (!obj || put(obj, "t", sim_json_seconds(e->t_ns)) < 0 ||
        put(obj, "type", json_object_new_string(wl_event_type_name(e->type))) <
            0 ||
        put(obj, "cq", string_or_null(e->cq)) < 0 ||
        put(obj, "detail", string_or_null(e->detail)) < 0 ||
        put(obj, "by", string_or_null(e->by)) < 0 ||
        (e->changes &&
         (put(obj, "changes", json_object_new_int64(e->changes)) < 0 ||
          put(obj, "lastChange", sim_json_seconds(e->t_last_ns)) < 0))) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

/* Appends value (taken); -ENOMEM when it or the append failed. */
static int append(struct json_object *arr, struct json_object *value)
{
    if (!value || json_object_array_add(arr, value) < 0) {
        json_object_put(value);
        return -ENOMEM;
    }
    return 0;
}

struct json_object *sim_history_json(const struct workload *w)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < w->history.n; i++)
        if (append(arr, event_json(&w->history.ev[i])) < 0) {
            json_object_put(arr);
            return NULL;
        }
    return arr;
}

/* One admission period, from its WL_EV_ADMITTED event a to the event that
 * ended it (EVICTED or FINISHED, if any) with PLACED in between. */
static struct json_object *period_json(const struct wl_event *a,
                                       const struct wl_event *placed,
                                       const struct wl_event *end)
{
    struct json_object *obj = json_object_new_object();
    bool evicted = end && end->type == WL_EV_EVICTED;
    if (!obj || put(obj, "cq", string_or_null(a->cq)) < 0 ||
        put(obj, "flavors", string_or_null(a->detail)) < 0 ||
        put(obj, "admitted", sim_json_seconds(a->t_ns)) < 0 ||
        put(obj, "placed", placed ? sim_json_seconds(placed->t_ns) : NULL) <
            0 ||
        put(obj, "ended", end ? sim_json_seconds(end->t_ns) : NULL) < 0 ||
        put(obj, "end",
            end ? json_object_new_string(evicted ? "evicted" : "finished")
                : NULL) < 0 ||
        put(obj, "evictedBy", string_or_null(evicted ? end->by : NULL)) < 0 ||
        put(obj, "reason", string_or_null(evicted ? end->detail : NULL)) < 0) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

struct json_object *sim_admissions_json(const struct workload *w)
{
    struct json_object *arr = json_object_new_array();
    const struct wl_event *adm = NULL, *placed = NULL;
    for (size_t i = 0; arr && i <= w->history.n; i++) {
        const struct wl_event *e = i < w->history.n ? &w->history.ev[i] : NULL;
        bool ends = !e || e->type == WL_EV_ADMITTED ||
                    e->type == WL_EV_EVICTED || e->type == WL_EV_FINISHED;
        if (adm && ends) {
            /* A new admission (or the end of the history) leaves the
             * period open. */
            bool closes = e && e->type != WL_EV_ADMITTED;
            if (append(arr, period_json(adm, placed, closes ? e : NULL)) < 0) {
                json_object_put(arr);
                return NULL;
            }
            adm = placed = NULL;
        }
        if (e && e->type == WL_EV_ADMITTED)
            adm = e;
        else if (e && e->type == WL_EV_PLACED && adm)
            placed = e;
    }
    return arr;
}
