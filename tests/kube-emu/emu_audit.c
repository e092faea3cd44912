/* emu_audit.c - the emulator's audit log: one JSON line per write, with
 * the client that made it (token name and User-Agent), so a test can tell
 * two schedulers apart and check that no pod was bound twice; and one
 * line per injected fault (verb "fault", see emu_fault.c); a bind's line
 * names the ClusterQueue version its admission was decided against
 * ("cqVersion", from the Binding's annotation); the emulated
 * controllers' pod deletions and the kubelet's completions too. */
#include <errno.h>
#include <string.h>

#include "emu.h"

static FILE *audit;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;

int emu_audit_open(const char *path)
{
    audit = fopen(path, "a");
    return audit ? 0 : -errno;
}

static void add(struct json_object *o, const char *k, const char *v)
{
    if (v && *v)
        json_object_object_add(o, k, json_object_new_string(v));
}

void emu_audit_write(const struct emu_audit_rec *r)
{
    char ts[40];
    if (!audit)
        return;
    struct json_object *o = json_object_new_object();
    emu_time_now(ts, sizeof(ts), true);
    add(o, "time", ts);
    add(o, "verb", r->verb);
    add(o, "fault", r->fault);
    add(o, "requestVerb", r->request_verb);
    add(o, "resource", r->resource);
    add(o, "subresource", r->subresource);
    add(o, "namespace", r->ns);
    add(o, "name", r->name);
    add(o, "resourceVersion", r->rv);
    add(o, "node", r->node);
    add(o, "cqVersion", r->cq_version);
    json_object_object_add(o, "code", json_object_new_int(r->code));
    add(o, "user", r->user);
    add(o, "userAgent", r->user_agent);
    pthread_mutex_lock(&audit_lock);
    fprintf(audit, "%s\n", json_object_to_json_string_ext(o, EMU_JSON));
    fflush(audit);
    pthread_mutex_unlock(&audit_lock);
    json_object_put(o);
}

void emu_audit_internal(const char *verb, const char *resource, const char *ns,
                        const char *name, const char *user)
{
    struct emu_audit_rec a = {.verb = verb,
                              .resource = resource,
                              .ns = ns,
                              .name = name,
                              .user = user,
                              .code = 200};
    emu_audit_write(&a);
}

void emu_audit_close(void)
{
    if (audit)
        fclose(audit);
    audit = NULL;
}
