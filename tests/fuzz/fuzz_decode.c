/* fuzz_decode.c - libFuzzer target for the whole manifest path: YAML or JSON
 * bytes -> document tree -> typed objects. Any input must give objects or
 * errors, never a crash, a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct manifest_set s;
    manifest_set_init(&s);
    manifest_load_buffer(&s, (const char *)data, size, "fuzz.yaml", NULL,
                         NULL);
    for (size_t i = 0; i < s.n; i++) {
        char key[512];
        object_key(s.objects[i], key, sizeof(key));
    }
    manifest_set_release(&s);
    return 0;
}
