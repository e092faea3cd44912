/* diag.c - the list of diagnostics (see diag.h). */
#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

void diag_list_init(struct diag_list *l)
{
    memset(l, 0, sizeof(*l));
}

void diag_list_release(struct diag_list *l)
{
    if (!l)
        return;
    free(l->items);
    diag_list_init(l);
}

int diag_list_add(struct diag_list *l, enum diag_level level, unsigned line,
                  const char *msg)
{
    if (GROW_ARRAY(l->items, l->n, l->cap) < 0)
        return -ENOMEM;
    struct diag *d = &l->items[l->n++];
    d->level = level;
    d->line = line;
    size_t len = strlen(msg);
    if (len >= sizeof(d->msg))
        len = sizeof(d->msg) - 1;
    memcpy(d->msg, msg, len);
    d->msg[len] = '\0';
    return 0;
}

void diag_list_sort(struct diag_list *l, size_t from)
{
    /* Insertion sort: stable, and an object has few diagnostics. */
    for (size_t i = from + 1; i < l->n; i++) {
        if (!l->items[i].line)
            continue;
        struct diag d = l->items[i];
        size_t j = i;
        while (j > from && l->items[j - 1].line > d.line)
            j--;
        if (j == i)
            continue;
        memmove(&l->items[j + 1], &l->items[j], (i - j) * sizeof(d));
        l->items[j] = d;
    }
}

size_t diag_list_count(const struct diag_list *l, size_t from,
                       enum diag_level level)
{
    size_t n = 0;
    for (size_t i = from; i < l->n; i++)
        n += l->items[i].level == level;
    return n;
}

const char *diag_level_name(enum diag_level level)
{
    static const char *const names[] = {"note", "warning", "error"};
    return level < DIAG_LEVEL_MAX ? names[level] : "?";
}
