/* arena.c - bump allocator backing decoded objects (see arena.h). */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_MIN 4096
#define ARENA_ALIGN _Alignof(max_align_t)

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(max_align_t) unsigned char data[];
};

struct arena {
    struct arena_block *head;
};

struct arena *arena_new(void)
{
    return calloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    struct arena_block *b = a->head;
    while (b) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0)
        size = ARENA_ALIGN;
    struct arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t bsize = size > ARENA_BLOCK_MIN ? size : ARENA_BLOCK_MIN;
        b = malloc(sizeof(*b) + bsize);
        if (!b)
            return NULL;
        b->size = bsize;
        b->used = 0;
        /* Keep a partly used block at the head when the new one is a
         * one-off large allocation, so small allocations keep filling it. */
        if (a->head && bsize == size) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return arena_alloc(a, n * size);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
