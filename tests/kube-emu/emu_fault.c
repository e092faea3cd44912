/* emu_fault.c - the faults ordo-kube-emu injects on request (--fault-*):
 * shares drawn from one seeded generator, so a run is reproducible up to
 * the order in which concurrent requests draw, and one audit line per
 * fault injected ("verb":"fault", "fault": what) so a judge can count
 * them. The HTTP side (emu_http.c), watches (emu_watch.c), the API
 * (emu_api.c) and views (emu_store.c) ask here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

struct emu_faults emu_faults;

/* The client of the request this thread serves (libmicrohttpd runs a
 * thread per connection, and a watch's reader runs on it too). */
static __thread bool spared;

void emu_fault_set_client(const char *user)
{
    spared = user && emu_faults.spare && !strcmp(user, emu_faults.spare);
}

bool emu_fault_spared(void)
{
    return spared;
}

static pthread_mutex_t rng_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: small, seedable, good enough for shares. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void emu_fault_seed(uint64_t seed)
{
    pthread_mutex_lock(&rng_lock);
    emu_faults.seed = seed;
    rng_state = mix(seed);
    pthread_mutex_unlock(&rng_lock);
}

uint64_t emu_fault_random(void)
{
    pthread_mutex_lock(&rng_lock);
    uint64_t v = mix(rng_state++);
    pthread_mutex_unlock(&rng_lock);
    return v;
}

bool emu_fault_draw(uint32_t ppm)
{
    if (!ppm)
        return false;
    return emu_fault_random() % 1000000 < ppm;
}

int emu_fault_parse_share(const char *s, uint32_t *ret_ppm)
{
    char *end;
    errno = 0;
    double p = strtod(s, &end);
    if (errno || end == s || *end || !(p >= 0.0 && p <= 1.0))
        return -EINVAL;
    *ret_ppm = (uint32_t)(p * 1000000.0 + 0.5);
    return 0;
}

void emu_fault_audit(const char *fault, const char *verb, const char *resource,
                     const char *ns, const char *name, const char *user,
                     const char *user_agent, int code)
{
    struct emu_audit_rec a = {
        .verb = "fault",
        .fault = fault,
        .request_verb = verb,
        .resource = resource,
        .ns = ns,
        .name = name,
        .user = user,
        .user_agent = user_agent,
        .code = code,
    };
    emu_audit_write(&a);
}

/* ---- malformed objects -------------------------------------------- */

/* Deep nesting a decoder with a depth limit of 32 still reads whole:
 * the pod sits 3 levels deep in a list, so 20 more stay below it. */
static struct json_object *nested(int depth)
{
    struct json_object *o = json_object_new_array();
    if (depth > 1)
        json_object_array_add(o, nested(depth - 1));
    return o;
}

static void set_requests(struct json_object *pod, struct json_object *v)
{
    struct json_object *cs = emu_path(pod, "spec.containers");
    struct json_object *c = cs && json_object_is_type(cs, json_type_array) &&
                                    json_object_array_length(cs)
                                ? json_object_array_get_idx(cs, 0)
                                : NULL;
    if (!c || !json_object_is_type(c, json_type_object)) {
        json_object_put(v);
        return;
    }
    json_object_object_add(emu_child(emu_child(c, "resources"), "requests"),
                           "cpu", v);
}

/* The share of pods served malformed is fixed per pod (a hash of the
 * seed and the key), so a pod is either always well formed or always
 * not: the judge leaves the latter's workloads out. */
static int malformed_kind(const char *key)
{
    uint64_t h = mix(emu_faults.seed ^ 0x6d616c66ULL);
    for (const char *p = key; *p; p++)
        h = mix(h ^ (unsigned char)*p);
    if (h % 1000000 >= emu_faults.malformed_ppm)
        return -1;
    return (int)((h >> 32) % 5);
}

struct json_object *emu_fault_malform(int kind, struct json_object *view)
{
    const char *ns = emu_path_str(view, "metadata.namespace");
    const char *name = emu_path_str(view, "metadata.name");
    char key[600];
    if (!emu_faults.malformed_ppm || strcmp(emu_kinds[kind].kind, "Pod") ||
        !name || spared)
        return view;
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    int how = malformed_kind(key);
    if (how < 0)
        return view;
    struct json_object *o = emu_copy(view);
    json_object_put(view);
    static const char *const what[] = {
        "malformed-quantity", "malformed-type", "malformed-huge-string",
        "malformed-deep-nesting", "malformed-negative"};
    switch (how) {
    case 0: /* an absurd quantity */
        set_requests(o, json_object_new_string("9e999999999"));
        break;
    case 1: /* a list where an object belongs, a number for a string */
        json_object_object_add(emu_child(o, "spec"), "containers",
                               json_object_new_string("not-a-list"));
        json_object_object_add(emu_child(o, "spec"), "schedulerName",
                               json_object_new_int(42));
        break;
    case 2: { /* a 256 KiB label value */
        size_t n = 256 * 1024;
        char *s = malloc(n + 1);
        if (s) {
            memset(s, 'x', n);
            s[n] = '\0';
            json_object_object_add(
                emu_child(emu_child(o, "metadata"), "labels"), "ordo.dev/huge",
                json_object_new_string(s));
            free(s);
        }
        break;
    }
    case 3: /* deep nesting and a wrong type */
        json_object_object_add(emu_child(o, "spec"), "affinity", nested(20));
        set_requests(o, nested(10));
        break;
    default: /* a negative request */
        set_requests(o, json_object_new_string("-4"));
        break;
    }
    emu_fault_audit(what[how], "serve", "pods", ns, name, NULL, NULL, 0);
    return o;
}
