/* sim_copy.c - the controllers' own copy of a Job or JobSet (see
 * sim_int.h): what they read of it (names, counts, pod templates), in the
 * simulator's arena, so that the pods they make can point into it while
 * the scheduler owns, replaces and frees its own object. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "sim_int.h"

/* Copies string s into a (NULL stays NULL); *ok goes false on OOM. */
static const char *dup(struct arena *a, const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = arena_strdup(a, s);
    *ok &= d != NULL;
    return d;
}

static void copy_map(struct arena *a, struct strmap *dst,
                     const struct strmap *src, bool *ok)
{
    memset(dst, 0, sizeof(*dst));
    for (size_t i = 0; *ok && i < src->n; i++) {
        const char *k = dup(a, src->items[i].key, ok);
        const char *v = dup(a, src->items[i].value, ok);
        if (*ok && strmap_set(dst, a, k, v) < 0)
            *ok = false;
    }
}

static struct selector_requirement *
copy_reqs(struct arena *a, const struct selector_requirement *v, size_t n,
          bool *ok)
{
    struct selector_requirement *r = n ? arena_calloc(a, n, sizeof(*r)) : NULL;
    *ok &= !n || r != NULL;
    for (size_t i = 0; *ok && i < n; i++) {
        r[i].key = dup(a, v[i].key, ok);
        r[i].op = v[i].op;
        r[i].n_values = v[i].n_values;
        r[i].values = v[i].n_values
                          ? arena_calloc(a, v[i].n_values, sizeof(char *))
                          : NULL;
        *ok &= !v[i].n_values || r[i].values != NULL;
        for (size_t k = 0; *ok && k < v[i].n_values; k++)
            r[i].values[k] = dup(a, v[i].values[k], ok);
    }
    return r;
}

static struct node_selector *
copy_affinity(struct arena *a, const struct node_selector *s, bool *ok)
{
    if (!s)
        return NULL;
    struct node_selector *d = arena_calloc(a, 1, sizeof(*d));
    if (!d || (s->n_terms &&
               !(d->terms = arena_calloc(a, s->n_terms, sizeof(*d->terms))))) {
        *ok = false;
        return NULL;
    }
    d->n_terms = s->n_terms;
    for (size_t i = 0; *ok && i < s->n_terms; i++) {
        const struct node_selector_term *t = &s->terms[i];
        d->terms[i].n_exprs = t->n_exprs;
        d->terms[i].match_expressions =
            copy_reqs(a, t->match_expressions, t->n_exprs, ok);
        d->terms[i].n_fields = t->n_fields;
        d->terms[i].match_fields =
            copy_reqs(a, t->match_fields, t->n_fields, ok);
    }
    return d;
}

/* A pod template: its labels, annotations and spec (the request list on
 * the heap: sim_copy_release). */
static void copy_template(struct arena *a, struct pod_template *dst,
                          const struct pod_template *src, bool *ok)
{
    const struct pod_spec *s = &src->spec;
    struct pod_spec *d = &dst->spec;
    memset(dst, 0, sizeof(*dst));
    copy_map(a, &dst->meta.labels, &src->meta.labels, ok);
    copy_map(a, &dst->meta.annotations, &src->meta.annotations, ok);
    *d = *s;
    resource_list_init(&d->requests);
    d->scheduler_name = dup(a, s->scheduler_name, ok);
    d->node_name = dup(a, s->node_name, ok);
    d->priority_class_name = dup(a, s->priority_class_name, ok);
    d->restart_policy = dup(a, s->restart_policy, ok);
    copy_map(a, &d->node_selector, &s->node_selector, ok);
    d->required_affinity = copy_affinity(a, s->required_affinity, ok);
    d->tolerations = s->n_tolerations ? arena_calloc(a, s->n_tolerations,
                                                     sizeof(*d->tolerations))
                                      : NULL;
    *ok &= !s->n_tolerations || d->tolerations != NULL;
    for (size_t i = 0; *ok && i < s->n_tolerations; i++) {
        d->tolerations[i] = s->tolerations[i];
        d->tolerations[i].key = dup(a, s->tolerations[i].key, ok);
        d->tolerations[i].value = dup(a, s->tolerations[i].value, ok);
    }
    if (*ok && resource_list_copy(&d->requests, &s->requests) < 0)
        *ok = false;
}

void sim_copy_release(struct object *c)
{
    if (!c)
        return;
    if (c->kind == OBJ_JOB)
        resource_list_release(&c->u.job.spec.template.spec.requests);
    for (size_t i = 0;
         c->kind == OBJ_JOBSET && i < c->u.jobset.n_replicated_jobs; i++)
        resource_list_release(
            &c->u.jobset.replicated_jobs[i].spec.template.spec.requests);
    /* The rest is the arena's. */
    c->kind = OBJ_KIND_MAX;
}

struct object *sim_copy_owner(struct arena *a, const struct object *o)
{
    if (o->kind != OBJ_JOB && o->kind != OBJ_JOBSET)
        return NULL;
    struct object *c = arena_calloc(a, 1, sizeof(*c));
    if (!c)
        return NULL;
    bool ok = true;
    c->kind = o->kind;
    c->arena = a;
    c->line = o->line;
    c->api_version = dup(a, o->api_version, &ok);
    c->file = dup(a, o->file, &ok);
    c->meta.name = dup(a, o->meta.name, &ok);
    c->meta.namespace_ = dup(a, o->meta.namespace_, &ok);
    c->meta.uid = dup(a, o->meta.uid, &ok);
    if (o->kind == OBJ_JOB) {
        c->u.job.spec = o->u.job.spec;
        copy_template(a, &c->u.job.spec.template, &o->u.job.spec.template, &ok);
    } else {
        const struct jobset *js = &o->u.jobset;
        size_t n = js->n_replicated_jobs;
        struct replicated_job *r = n ? arena_calloc(a, n, sizeof(*r)) : NULL;
        ok &= !n || r != NULL;
        c->u.jobset.suspend = js->suspend;
        c->u.jobset.replicated_jobs = r;
        /* Counted as they are copied: sim_copy_release() releases that
         * many. */
        for (size_t i = 0; ok && i < n; i++) {
            r[i].name = dup(a, js->replicated_jobs[i].name, &ok);
            r[i].replicas = js->replicated_jobs[i].replicas;
            r[i].spec = js->replicated_jobs[i].spec;
            copy_template(a, &r[i].spec.template,
                          &js->replicated_jobs[i].spec.template, &ok);
            c->u.jobset.n_replicated_jobs = i + 1;
        }
    }
    if (!ok) {
        sim_copy_release(c);
        return NULL;
    }
    return c;
}
