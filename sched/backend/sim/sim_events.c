/* sim_events.c - the simulator's event heap (see sim_int.h): events by
 * virtual time, ties in the order they were pushed. */
#include <errno.h>
#include <stdlib.h>

#include "grow.h"
#include "sim_int.h"

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
    return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->seq < b->seq;
}

int sim_heap_push(struct sim_heap *h, struct sim_event ev)
{
    if (GROW_ARRAY(h->v, h->n, h->cap) < 0)
        return -ENOMEM;
    ev.seq = h->seq++;
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &h->v[parent]))
            break;
        h->v[i] = h->v[parent];
        i = parent;
    }
    h->v[i] = ev;
    return 0;
}

struct sim_event sim_heap_pop(struct sim_heap *h)
{
    struct sim_event top = h->v[0];
    struct sim_event last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct sim_event *best = &last;
        if (l < h->n && ev_before(&h->v[l], best)) {
            m = l;
            best = &h->v[l];
        }
        if (r < h->n && ev_before(&h->v[r], best))
            m = r;
        if (m == i)
            break;
        h->v[i] = h->v[m];
        i = m;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

void sim_heap_release(struct sim_heap *h)
{
    for (size_t i = 0; i < h->n; i++) {
        object_free(h->v[i].obj);
        sim_copy_release(h->v[i].shadow);
        free(h->v[i].key);
    }
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}
