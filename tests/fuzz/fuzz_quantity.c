/* fuzz_quantity.c - libFuzzer target for core/quantity.c.
 *
 * Parses the input as a NUL-terminated string. Every failure must come with a
 * reason; every success must format to text that parses back to exactly the
 * same milli-value, and that formats to the same text again. Any violation
 * aborts. Seeds live in tests/fuzz/corpus/quantity/. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    struct quantity q, back;
    const char *reason = NULL;
    int r = quantity_parse(s, &q, &reason);
    if (r < 0) {
        if ((r != -EINVAL && r != -ERANGE) || !reason || !*reason)
            abort();
        free(s);
        return 0;
    }

    char text[QUANTITY_STR_MAX], again[QUANTITY_STR_MAX];
    int n = quantity_format(&q, text, sizeof(text));
    if (n <= 0 || (size_t)n != strlen(text))
        abort();
    if (quantity_parse(text, &back, &reason) != 0) {
        fprintf(stderr, "\"%s\" formatted as \"%s\": %s\n", s, text, reason);
        abort();
    }
    if (back.milli != q.milli) {
        fprintf(stderr, "\"%s\" -> %lld -> \"%s\" -> %lld\n", s,
                (long long)q.milli, text, (long long)back.milli);
        abort();
    }
    back.format = q.format;
    if (quantity_format(&back, again, sizeof(again)) != n ||
        strcmp(text, again) != 0)
        abort();

    free(s);
    return 0;
}
