/* diag.h - a list of diagnostics (errors, warnings, notes), each one line
 * of text with the input line it points at, so that a reader of manifests
 * can report every problem of an object at once, in the order of the input.
 *
 * Library code fills a list; the caller prints it. An error makes the
 * object it is about fail; a warning does not (unless the caller asked for
 * warnings to be errors, --strict); a note only says what was done with a
 * document (a kind Ordo does not read) and is never an error. */
#ifndef ORDO_DIAG_H
#define ORDO_DIAG_H

#include <stddef.h>

#include "err.h"

enum diag_level { DIAG_NOTE = 0, DIAG_WARNING, DIAG_ERROR, DIAG_LEVEL_MAX };

struct diag {
    enum diag_level level;
    unsigned line; /* input line it points at; 0 when unknown (JSON) */
    char msg[ERR_MSG_MAX];
};

struct diag_list {
    size_t n, cap;
    struct diag *items; /* owned */
};

/* An empty list (all zero is empty too). */
void diag_list_init(struct diag_list *l);
/* Frees the items and empties the list. NULL-safe. */
void diag_list_release(struct diag_list *l);

/* Appends a copy of msg (cut at ERR_MSG_MAX). 0 or -ENOMEM. */
int diag_list_add(struct diag_list *l, enum diag_level level, unsigned line,
                  const char *msg);

/* Sorts the items from index `from` on by line, keeping the order in which
 * they were added among equal lines. An item of line 0 (JSON input) stays
 * where it is and nothing moves past it, so JSON keeps the order found. */
void diag_list_sort(struct diag_list *l, size_t from);

/* How many items from `from` on have this level. */
size_t diag_list_count(const struct diag_list *l, size_t from,
                       enum diag_level level);

/* "note", "warning", "error". */
const char *diag_level_name(enum diag_level level);

#endif
