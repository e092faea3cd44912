/* changes.c - what changed for a backend's status writes (see
 * private/changes.h): sets of workload keys, ClusterQueue names and
 * LocalQueue keys, each once, until taken. A leaf of the cache: it calls
 * nothing else in it. */
#include "changes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

struct change_key {
    UT_hash_handle hh;
    char key[];
};

struct cluster_changes {
    struct change_key *set[CHANGES_KINDS];
    size_t n[CHANGES_KINDS];
    bool oom; /* a key was lost: the taker should file everything */
};

static void set_add(struct cluster_changes *ch, int kind, const char *key)
{
    struct change_key *e = NULL;
    HASH_FIND_STR(ch->set[kind], key, e);
    if (e)
        return;
    size_t len = strlen(key) + 1;
    if (!(e = malloc(sizeof(*e) + len))) {
        ch->oom = true;
        return;
    }
    memcpy(e->key, key, len);
    HASH_ADD_STR(ch->set[kind], key, e);
    ch->n[kind]++;
}

void changes_note(const struct cluster *c, const struct workload *w)
{
    struct cluster_changes *ch = c->changes;
    if (!ch || !w)
        return;
    set_add(ch, CHANGES_WORKLOADS, w->key);
    if (w->cq)
        set_add(ch, CHANGES_CQS, w->cq->name);
    if (w->admitted_cq && w->admitted_cq != w->cq)
        set_add(ch, CHANGES_CQS, w->admitted_cq->name);
    if (w->ns) {
        char lq[512];
        snprintf(lq, sizeof(lq), "%s/%s", w->ns,
                 w->local_queue ? w->local_queue : "default");
        set_add(ch, CHANGES_LQS, lq);
    }
}

static void set_clear(struct cluster_changes *ch, int kind)
{
    struct change_key *e, *tmp;
    HASH_ITER(hh, ch->set[kind], e, tmp)
    {
        HASH_DEL(ch->set[kind], e);
        free(e);
    }
    ch->n[kind] = 0;
}

void changes_free(struct cluster_changes *ch)
{
    if (!ch)
        return;
    for (int k = 0; k < CHANGES_KINDS; k++)
        set_clear(ch, k);
    free(ch);
}

/* Moves set kind into *ret (*ret_n strings, each owned). */
static int set_take(struct cluster_changes *ch, int kind, char ***ret,
                    size_t *ret_n)
{
    *ret = NULL;
    *ret_n = 0;
    if (ch->n[kind] == 0)
        return 0;
    char **v = calloc(ch->n[kind], sizeof(*v));
    if (!v)
        return -ENOMEM;
    size_t n = 0;
    struct change_key *e, *tmp;
    HASH_ITER(hh, ch->set[kind], e, tmp)
    {
        if (!(v[n] = strdup(e->key))) {
            while (n > 0)
                free(v[--n]);
            free(v);
            return -ENOMEM;
        }
        n++;
    }
    set_clear(ch, kind);
    *ret = v;
    *ret_n = n;
    return 0;
}

int changes_take(struct cluster *c, char **ret[CHANGES_KINDS],
                 size_t ret_n[CHANGES_KINDS], bool *ret_all)
{
    *ret_all = !c->changes;
    for (int k = 0; k < CHANGES_KINDS; k++) {
        ret[k] = NULL;
        ret_n[k] = 0;
    }
    if (!c->changes) {
        /* Tracking starts now: what came before is "everything". */
        if (!(c->changes = calloc(1, sizeof(*c->changes))))
            return -ENOMEM;
        return 0;
    }
    *ret_all = c->changes->oom;
    c->changes->oom = false;
    for (int k = 0; k < CHANGES_KINDS; k++) {
        int r = set_take(c->changes, k, &ret[k], &ret_n[k]);
        if (r < 0) {
            c->changes->oom = true; /* kept: taken again next time */
            for (int j = 0; j < k; j++) {
                for (size_t i = 0; i < ret_n[j]; i++)
                    free(ret[j][i]);
                free(ret[j]);
                ret[j] = NULL;
                ret_n[j] = 0;
            }
            return r;
        }
    }
    return 0;
}
