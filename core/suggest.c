/* suggest.c - edit distances for "did you mean" (see suggest.h). */
#include "suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

size_t suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return SIZE_MAX;
    /* Three rows of the dynamic programme: i-2, i-1 and i. */
    size_t rows[3][SUGGEST_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        rows[1][j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t *cur = rows[(i + 1) % 3], *prev = rows[i % 3],
               *prev2 = rows[(i + 2) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) &&
                same(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
    }
    return rows[(la + 1) % 3][lb];
}

const char *suggest_closest(const char *word, const char *const *names,
                            size_t n)
{
    size_t len = strlen(word);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        size_t d = suggest_distance(word, names[i]);
        if (d <= limit && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    /* A name cut short, or an older name that became the start of a newer
     * one (v1beta1 spec.cohort, v1beta2 spec.cohortName). */
    for (size_t i = 0; !best && len >= 4 && i < n; i++)
        if (names[i] && strncmp(names[i], word, len) == 0)
            best = names[i];
    return best;
}
