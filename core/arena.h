/* arena.h - bump allocator that owns everything decoded into one object.
 *
 * Decoded Kubernetes objects hold many small strings and arrays; they are
 * allocated from the object's arena and released together with arena_free(),
 * so no decoder needs a matching destructor per field. */
#ifndef ORDO_ARENA_H
#define ORDO_ARENA_H

#include <stddef.h>

struct arena;

/* Returns a new empty arena, or NULL on OOM. Free with arena_free(). */
struct arena *arena_new(void);

/* Releases the arena and every block allocated from it. Accepts NULL. */
void arena_free(struct arena *a);

/* Returns zeroed memory, aligned for any type, owned by the arena; valid until
 * arena_free(). NULL on OOM or when size overflows. */
void *arena_alloc(struct arena *a, size_t size);

/* Like arena_alloc() for n elements of size bytes, checking the product. */
void *arena_calloc(struct arena *a, size_t n, size_t size);

/* Copies a string (or its first n bytes) into the arena. NULL on OOM;
 * arena_strdup(a, NULL) returns NULL. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);

/* Formats into arena memory (printf rules). NULL on OOM. */
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
