/* kube_workload_name.c - the name Kueue derives for a workload's Workload
 * object (pkg/controller/jobframework GetWorkloadNameForOwnerWithGVK),
 * with the SHA-1 it needs (FIPS 180-4; a name, not a security use). */
#include "kube_workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct sha1 {
    uint32_t h[5];
    uint64_t len;
    unsigned char buf[64];
    size_t n;
};

static uint32_t rol(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

static void sha1_block(struct sha1 *s, const unsigned char *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void sha1_init(struct sha1 *s)
{
    static const uint32_t h0[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE,
                                   0x10325476, 0xC3D2E1F0};
    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
    s->n = 0;
}

static void sha1_update(struct sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    while (len--) {
        s->buf[s->n++] = *p++;
        if (s->n == 64) {
            sha1_block(s, s->buf);
            s->n = 0;
        }
    }
}

static void sha1_hex(struct sha1 *s, char out[41])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80;
    sha1_update(s, &pad, 1);
    pad = 0;
    while (s->n != 56)
        sha1_update(s, &pad, 1);
    unsigned char lenb[8];
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(s, lenb, 8);
    for (int i = 0; i < 5; i++)
        snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

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
    struct sha1 s;
    char hex[41];
    sha1_init(&s);
    sha1_update(&s, kind, strlen(kind));
    sha1_update(&s, "\n", 1);
    sha1_update(&s, group, strlen(group));
    sha1_update(&s, "\n", 1);
    sha1_update(&s, name, strlen(name));
    sha1_update(&s, "\n", 1);
    sha1_update(&s, uid, strlen(uid));
    sha1_hex(&s, hex);
    char prefix[PREFIX_MAX + 1];
    snprintf(prefix, sizeof(prefix), "%s-%s", lower, name);
    if (strlen(prefix) + 1 + HASH_LEN >= size)
        return -ENAMETOOLONG;
    snprintf(buf, size, "%s-%.5s", prefix, hex);
    return 0;
}
