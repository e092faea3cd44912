/* objects.c - what every holder of a typed object (objects.h) uses: kind
 * names, the controlling owner, keys, and object_free(). Below the
 * decoders, which call it; it calls none of them. */
#include "objects.h"

#include <stdio.h>
#include <stdlib.h>

#include "arena.h"

static const char *const kind_names[OBJ_KIND_MAX] = {
    [OBJ_NAMESPACE] = "Namespace",
    [OBJ_NODE] = "Node",
    [OBJ_POD] = "Pod",
    [OBJ_JOB] = "Job",
    [OBJ_JOBSET] = "JobSet",
    [OBJ_PRIORITY_CLASS] = "PriorityClass",
    [OBJ_RESOURCE_FLAVOR] = "ResourceFlavor",
    [OBJ_CLUSTER_QUEUE] = "ClusterQueue",
    [OBJ_LOCAL_QUEUE] = "LocalQueue",
    [OBJ_COHORT] = "Cohort",
    [OBJ_WORKLOAD_PRIORITY_CLASS] = "WorkloadPriorityClass",
    [OBJ_TOPOLOGY] = "Topology",
    [OBJ_ADMISSION_CHECK] = "AdmissionCheck",
};

const char *object_kind_name(enum object_kind k)
{
    if ((int)k < 0 || k >= OBJ_KIND_MAX || !kind_names[k])
        return "Unknown";
    return kind_names[k];
}

bool object_kind_namespaced(enum object_kind k)
{
    return k == OBJ_POD || k == OBJ_JOB || k == OBJ_JOBSET ||
           k == OBJ_LOCAL_QUEUE;
}

const struct owner_ref *object_meta_controller(const struct object_meta *m)
{
    for (size_t i = 0; i < m->n_owners; i++)
        if (m->owners[i].controller)
            return &m->owners[i];
    return NULL;
}

/* The one part of a pod spec on the heap. */
static void pod_spec_release(struct pod_spec *s)
{
    resource_list_release(&s->requests);
}

void object_free(struct object *o)
{
    if (!o)
        return;
    switch (o->kind) {
    case OBJ_POD:
        pod_spec_release(&o->u.pod.spec);
        break;
    case OBJ_NODE:
        resource_list_release(&o->u.node.capacity);
        resource_list_release(&o->u.node.allocatable);
        break;
    case OBJ_JOB:
        pod_spec_release(&o->u.job.spec.template.spec);
        break;
    case OBJ_JOBSET:
        for (size_t i = 0; i < o->u.jobset.n_replicated_jobs; i++)
            pod_spec_release(
                &o->u.jobset.replicated_jobs[i].spec.template.spec);
        break;
    default:
        break;
    }
    arena_free(o->arena);
    free(o);
}

const char *object_key(const struct object *o, char *buf, size_t size)
{
    if (o->meta.namespace_)
        snprintf(buf, size, "%s/%s", o->meta.namespace_, o->meta.name);
    else
        snprintf(buf, size, "%s", o->meta.name);
    return buf;
}
