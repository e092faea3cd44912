/* history.c - recording a workload's history (history.h): the cache notes
 * each thing that happens to a workload, at the cluster's clock.
 *
 * Cost: a note is O(1) amortised. Appending doubles the array (grow.h);
 * once WL_HISTORY_MAX events are kept, one pass over them (a constant
 * number) drops a quarter of them, the oldest WAITING notes first, then
 * the oldest others after CREATED, so that such a pass comes at most once
 * every WL_HISTORY_MAX / 4 notes. The reason and placement rules look back
 * only to the last admission, a bounded number of events (an admission
 * adds at most PLACED, EVICTED and REQUEUED after it). Memory: at most
 * WL_HISTORY_MAX events and their strings per workload; a reason whose
 * numbers alone change is folded into the note before it (history.h), so
 * that a waiting workload costs a note per kind of reason, not one per
 * cycle. */
#include "workload.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "grow.h"
#include "resid.h"

const char *wl_event_type_name(enum wl_event_type t)
{
    static const char *const names[WL_EV_TYPE_MAX] = {
        "created", "waiting",  "admitted", "placed",
        "evicted", "requeued", "finished", "deleted"};
    return (unsigned)t < WL_EV_TYPE_MAX ? names[t] : "unknown";
}

static void event_release(struct wl_event *e)
{
    free(e->cq);
    free(e->detail);
    free(e->by);
}

void workload_history_release(struct wl_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        event_release(&h->ev[i]);
    free(h->ev);
    *h = (struct wl_history){0};
}

/* Drops up to `want` events matching the rule (WAITING ones, or any but
 * the first CREATED), oldest first, in one pass. Returns how many. */
static size_t drop_oldest(struct wl_history *h, size_t want, bool waiting)
{
    size_t keep = 0, dropped = 0;
    for (size_t i = 0; i < h->n; i++) {
        struct wl_event *e = &h->ev[i];
        bool match = waiting ? e->type == WL_EV_WAITING
                             : !(i == 0 && e->type == WL_EV_CREATED);
        if (match && dropped < want) {
            event_release(e);
            dropped++;
            continue;
        }
        h->ev[keep++] = *e;
    }
    h->n = keep;
    return dropped;
}

/* Makes room under WL_HISTORY_MAX for one more event. */
static void make_room(struct wl_history *h)
{
    if (h->n < WL_HISTORY_MAX)
        return;
    size_t want = WL_HISTORY_MAX / 4;
    size_t got = drop_oldest(h, want, true);
    if (got < want)
        got += drop_oldest(h, want - got, false);
    h->n_dropped += got;
}

static int dup_or_null(const char *s, char **ret)
{
    *ret = NULL;
    if (!s)
        return 0;
    *ret = strdup(s);
    return *ret ? 0 : -ENOMEM;
}

int workload_note(const struct cluster *c, struct workload *w,
                  enum wl_event_type type, const char *cq, const char *detail,
                  const char *by)
{
    struct wl_history *h = &w->history;
    struct wl_event e = {.t_ns = c->now_ns, .type = type};
    changes_note(c, w);
    make_room(h);
    if (dup_or_null(cq, &e.cq) < 0 || dup_or_null(detail, &e.detail) < 0 ||
        dup_or_null(by, &e.by) < 0 || GROW_ARRAY(h->ev, h->n, h->cap) < 0) {
        event_release(&e);
        h->n_dropped++;
        return -ENOMEM;
    }
    h->ev[h->n++] = e;
    return 0;
}

/* The last event of type t after the last admission (or since creation),
 * or NULL. Looks back over a bounded number of events (see the top). */
static const struct wl_event *last_since_admission(const struct wl_history *h,
                                                   enum wl_event_type t)
{
    for (size_t i = h->n; i-- > 0;) {
        if (h->ev[i].type == t)
            return &h->ev[i];
        if (h->ev[i].type == WL_EV_ADMITTED)
            return NULL;
    }
    return NULL;
}

/* Past a run of digits (and the points between them) and the unit that
 * follows it (m, k, Ki, Mi, Gi, ...): where a quantity ends. */
static const char *skip_number(const char *s)
{
    while (isdigit((unsigned char)*s) ||
           (*s == '.' && isdigit((unsigned char)s[1])))
        s++;
    size_t n = 0;
    while (n < 2 && s[n] && strchr("kmMGTPEi", s[n]))
        n++;
    return isalpha((unsigned char)s[n]) ? s : s + n;
}

/* Whether a and b say the same but for their numbers. */
static bool same_but_numbers(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            a = skip_number(a);
            b = skip_number(b);
            continue;
        }
        if (*a++ != *b++)
            return false;
    }
    return *a == *b;
}

/* Folds reason into the WAITING note that ends w's history (history.h). */
static bool fold_reason(const struct cluster *c, struct workload *w,
                        const char *reason)
{
    struct wl_history *h = &w->history;
    struct wl_event *e = h->n ? &h->ev[h->n - 1] : NULL;
    if (!e || e->type != WL_EV_WAITING || !e->detail ||
        !same_but_numbers(e->detail, reason))
        return false;
    char *text = strdup(reason);
    if (!text)
        return false;
    free(e->detail);
    e->detail = text;
    e->changes++;
    e->t_last_ns = c->now_ns;
    return true;
}

bool workload_note_reason(const struct cluster *c, struct workload *w,
                          const char *reason)
{
    if (!reason || !reason[0])
        return false;
    changes_note(c, w); /* also when folded: the text changed */
    const struct wl_event *last =
        last_since_admission(&w->history, WL_EV_WAITING);
    if (last && last->detail && strcmp(last->detail, reason) == 0)
        return false;
    if (fold_reason(c, w, reason))
        return true;
    return workload_note(c, w, WL_EV_WAITING, w->cq ? w->cq->name : NULL,
                         reason, NULL) == 0;
}

/* "podset: resource=flavor, ...; podset: ..." from w's charges. */
static void flavors_text(const struct workload *w, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        bool first = true;
        for (uint32_t k = 0; k < w->n_charges; k++) {
            const struct wl_charge *ch = &w->charges[k];
            if (ch->ps != ps || !ch->flavor)
                continue;
            const char *res = resid_name(ch->res);
            int n = first ? snprintf(buf + len, size - len, "%s%s: %s=%s",
                                     len ? "; " : "", w->podsets[ps].name,
                                     res ? res : "?", ch->flavor->name)
                          : snprintf(buf + len, size - len, ", %s=%s",
                                     res ? res : "?", ch->flavor->name);
            if (n < 0 || (size_t)n >= size - len) {
                buf[len] = '\0'; /* cut at a whole pair */
                return;
            }
            len += (size_t)n;
            first = false;
        }
    }
}

int workload_note_admitted(const struct cluster *c, struct workload *w)
{
    char flavors[REASON_MAX];
    flavors_text(w, flavors, sizeof(flavors));
    return workload_note(c, w, WL_EV_ADMITTED,
                         w->admitted_cq ? w->admitted_cq->name : NULL,
                         flavors[0] ? flavors : NULL, NULL);
}

void workload_note_placed(const struct cluster *c, struct workload *w)
{
    if (w->state != WL_ADMITTED)
        return;
    uint64_t total = 0;
    for (uint32_t ps = 0; ps < w->n_podsets; ps++) {
        const struct podset *s = &w->podsets[ps];
        if (s->n_pending > 0 || s->n_bound + s->n_succeeded < s->count)
            return;
        total += s->count;
    }
    /* Once per admission, and only after one (a workload found running
     * is admitted when queued, see workload_enqueue). */
    for (size_t i = w->history.n; total && i-- > 0;) {
        enum wl_event_type t = w->history.ev[i].type;
        if (t == WL_EV_PLACED)
            return;
        if (t == WL_EV_ADMITTED) {
            (void)workload_note(c, w, WL_EV_PLACED,
                                w->admitted_cq ? w->admitted_cq->name : NULL,
                                NULL, NULL);
            return;
        }
    }
}
