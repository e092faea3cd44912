/* doc_build.h - private to doc*.c: what the parsers (doc_yaml.c,
 * doc_json.c) and the file reader (doc_load.c) share to build a doc
 * (doc.c). */
#ifndef ORDO_DOC_BUILD_H
#define ORDO_DOC_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "doc.h"
#include "err.h"

/* doc_load_file() refuses anything larger: manifests are small, and a
 * bigger file is a mistake (or an attack) rather than input. JSON buffers
 * are held to it too. */
#define DOC_MAX_FILE_SIZE ((size_t)64 << 20)

/* A new empty doc with its own arena, named file ("<input>" for NULL), or
 * NULL with e filled on OOM. */
struct doc *doc_new(const char *file, struct err *e);
/* Appends a document root to d->docs; *cap is the allocated length. 0 or
 * -ENOMEM. */
int doc_add(struct doc *d, size_t *cap, struct doc_node *root);
/* JSON whitespace (doc_json.c). */
bool doc_json_blank(char ch);

#endif
