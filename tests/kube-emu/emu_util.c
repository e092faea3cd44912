/* emu_util.c - Status objects, JSON paths, times and uids for the
 * emulator. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"

void emu_err_set(struct emu_err *err, int code, const char *reason, int kind,
                 const char *name, const char *fmt, ...)
{
    va_list ap;
    err->code = code;
    err->reason = reason;
    err->kind = kind;
    err->field = err->cause = NULL;
    snprintf(err->name, sizeof(err->name), "%s", name ? name : "");
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

/* The fields in the order the real server writes them; code goes last. */
static struct json_object *status_base(const char *status)
{
    struct json_object *s = json_object_new_object();
    json_object_object_add(s, "kind", json_object_new_string("Status"));
    json_object_object_add(s, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(s, "metadata", json_object_new_object());
    json_object_object_add(s, "status", json_object_new_string(status));
    return s;
}

static void add_details(struct json_object *s, int kind, const char *name,
                        const char *uid)
{
    struct json_object *d = json_object_new_object();
    if (name && *name)
        json_object_object_add(d, "name", json_object_new_string(name));
    if (kind >= 0) {
        const struct emu_kind *k = &emu_kinds[kind];
        if (*k->group)
            json_object_object_add(d, "group",
                                   json_object_new_string(k->group));
        json_object_object_add(d, "kind", json_object_new_string(k->resource));
    }
    if (uid && *uid)
        json_object_object_add(d, "uid", json_object_new_string(uid));
    json_object_object_add(s, "details", d);
}

struct json_object *emu_status_new(const struct emu_err *err)
{
    struct json_object *s = status_base("Failure");
    json_object_object_add(s, "message", json_object_new_string(err->message));
    json_object_object_add(s, "reason", json_object_new_string(err->reason));
    if (err->kind >= 0 || err->name[0])
        add_details(s, err->kind, err->name, NULL);
    if (err->field && err->cause) {
        struct json_object *d = emu_child(s, "details");
        struct json_object *causes = json_object_new_array();
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "reason",
                               json_object_new_string("FieldValueForbidden"));
        json_object_object_add(c, "message",
                               json_object_new_string(err->cause));
        json_object_object_add(c, "field", json_object_new_string(err->field));
        json_object_array_add(causes, c);
        json_object_object_add(d, "causes", causes);
    }
    json_object_object_add(s, "code", json_object_new_int(err->code));
    return s;
}

struct json_object *emu_status_success(int code, int kind, const char *name,
                                       const char *uid)
{
    struct json_object *s = status_base("Success");
    add_details(s, kind, name, uid);
    json_object_object_add(s, "code", json_object_new_int(code));
    return s;
}

struct json_object *emu_path(struct json_object *o, const char *path)
{
    char part[128];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof(part) || !json_object_is_type(o, json_type_object))
            return NULL;
        memcpy(part, path, n);
        part[n] = '\0';
        if (!json_object_object_get_ex(o, part, &o))
            return NULL;
        path += n + (dot ? 1 : 0);
    }
    return o;
}

const char *emu_path_str(struct json_object *o, const char *path)
{
    struct json_object *v = emu_path(o, path);
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    return json_object_get_string(v);
}

struct json_object *emu_child(struct json_object *o, const char *key)
{
    struct json_object *c;
    if (json_object_object_get_ex(o, key, &c) &&
        json_object_is_type(c, json_type_object))
        return c;
    c = json_object_new_object();
    json_object_object_add(o, key, c);
    return c;
}

void emu_time_now(char *buf, size_t size, bool micro)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    if (micro)
        snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
    else
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t emu_time_parse(const char *s)
{
    struct tm tm = {0};
    if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon,
                     &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm);
}

int64_t emu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Not cryptographic: uids and names only need to differ. */
static uint64_t rnd_next(void)
{
    static uint64_t s;
    if (!s) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ 0x9e37u;
    }
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

void emu_uid_new(char *buf, size_t size)
{
    uint64_t a = rnd_next(), b = rnd_next();
    snprintf(buf, size, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)(0x8000 | (b >> 48 & 0x3fff)),
             (unsigned long long)(b & 0xffffffffffffULL));
}

void emu_random_suffix(char *buf, size_t n)
{
    static const char set[] = "bcdfghjklmnpqrstvwxz2456789";
    for (size_t i = 0; i < n; i++)
        buf[i] = set[rnd_next() % (sizeof(set) - 1)];
    buf[n] = '\0';
}

bool emu_json_equal(struct json_object *a, struct json_object *b)
{
    return json_object_equal(a, b) != 0;
}

struct json_object *emu_copy(struct json_object *o)
{
    struct json_object *c = NULL;
    if (o && json_object_deep_copy(o, &c, NULL) < 0)
        return NULL;
    return c;
}
