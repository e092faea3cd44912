/* kube_workload_name.c - the name Kueue derives for a workload's Workload
 * object (pkg/controller/jobframework GetWorkloadNameForOwnerWithGVK),
 * with the SHA-1 it needs (OpenSSL's libcrypto; a name, not a security
 * use). */
#include "kube_workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

/* Kueue's cap on the "<kind>-<name>" prefix: 253, less "-" and the hash. */
#define HASH_LEN   5
#define PREFIX_MAX (252 - HASH_LEN)

int kube_workload_name(const struct workload *w, char *buf, size_t size)
{
    const struct object *top = w->top;
    if (!top || !top->meta.name)
        return -EINVAL;
    if (w->kind == WL_POD_GROUP) {
        /* A pod group's Workload is named after the group. */
        const char *slash = strchr(w->key, '/');
        const char *name = slash ? slash + 1 : w->key;
        if (strlen(name) >= size)
            return -ENAMETOOLONG;
        snprintf(buf, size, "%s", name);
        return 0;
    }
    const char *kind, *lower, *group;
    switch (w->kind) {
    case WL_JOB:
        kind = "Job", lower = "job", group = "batch";
        break;
    case WL_JOBSET:
        kind = "JobSet", lower = "jobset", group = "jobset.x-k8s.io";
        break;
    default:
        kind = "Pod", lower = "pod", group = "";
        break;
    }
    const char *name = top->meta.name;
    const char *uid = top->meta.uid ? top->meta.uid : "";
    /* "Kind\ngroup\nname\nuid", as Kueue hashes it. */
    char input[1024], hex[2 * EVP_MAX_MD_SIZE + 1];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    int n = snprintf(input, sizeof(input), "%s\n%s\n%s\n%s", kind, group, name,
                     uid);
    if (n < 0 || (size_t)n >= sizeof(input))
        return -ENAMETOOLONG;
    if (EVP_Digest(input, (size_t)n, md, &md_len, EVP_sha1(), NULL) != 1)
        return -ENOMEM;
    for (unsigned int i = 0; i < md_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    char prefix[PREFIX_MAX + 1];
    snprintf(prefix, sizeof(prefix), "%s-%s", lower, name);
    if (strlen(prefix) + 1 + HASH_LEN >= size)
        return -ENAMETOOLONG;
    snprintf(buf, size, "%s-%.5s", prefix, hex);
    return 0;
}
