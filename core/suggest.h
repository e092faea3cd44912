/* suggest.h - "did you mean": the known name closest to a misspelt one.
 *
 * Used for unknown fields in Kueue objects and in the scheduler
 * configuration: `preemtion` suggests `preemption`. */
#ifndef ORDO_SUGGEST_H
#define ORDO_SUGGEST_H

#include <stddef.h>

/* Optimal string alignment distance between a and b (insertions,
 * deletions, substitutions and swaps of two neighbours each cost 1),
 * letters compared without case. Names longer than SUGGEST_MAX_LEN count
 * as far from everything (SIZE_MAX). */
#define SUGGEST_MAX_LEN 64
size_t suggest_distance(const char *a, const char *b);

/* The name among `names` (`n` of them; NULL entries are skipped) closest
 * to `word`, when it is close enough to be a likely typo: at most 1 edit
 * for words of up to 4 letters, 2 up to 8, 3 beyond; else the first name
 * that word (of 4 letters or more) begins ("cohort" suggests "cohortName").
 * Ties go to the first name. NULL when none is close. The result points
 * into names. */
const char *suggest_closest(const char *word, const char *const *names,
                            size_t n);

#endif
