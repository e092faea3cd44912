/* doc.h - one document tree for YAML (libyaml) and JSON (json-c) input.
 *
 * Manifests arrive as multi-document YAML files, JSON files and, from the API
 * server, JSON bodies. All are turned into the same tree of maps, sequences
 * and scalars, each node remembering the line it came from (YAML; JSON nodes
 * have line 0 since json-c does not report positions), so that the object
 * decoders can name file, line and field in their errors.
 *
 * Scalars keep their text. A YAML plain scalar or a JSON number, boolean or
 * null is "plain" (its type is resolved when read: null, bool, int); a quoted
 * YAML scalar or a JSON string is "quoted" and is always a string. JSON
 * numbers come from json-c: fractions and exponents keep their text as
 * written, integers are printed back from a 64-bit value ("-0" reads "0"). */
#ifndef ORDO_DOC_H
#define ORDO_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct err;

enum doc_type {
    DOC_SCALAR = 0,
    DOC_SEQ,
    DOC_MAP,
    DOC_TYPE_MAX
};

struct doc_node {
    enum doc_type type;
    bool quoted;        /* scalar: a string for sure */
    const char *scalar; /* scalar text, NUL-terminated ("" for empty) */
    unsigned line;      /* 1-based; 0 when unknown (JSON) */
    unsigned key_line;  /* a map's value: the line of its key (0: unknown,
                           or not a map's value) */
    size_t n;           /* SEQ: items; MAP: key/value pairs */
    const char **keys;  /* MAP only */
    struct doc_node **items; /* SEQ items; MAP values */
};

/* A parsed file or buffer: zero or more documents. Everything is owned by
 * the arena; doc_free() releases it all. */
struct doc {
    struct arena *arena;
    const char *file; /* name used in messages (copied) */
    size_t n_docs;
    struct doc_node **docs; /* YAML "---" documents; empty and null ones
                               ("---" alone, "--- ~") are skipped */
};

/* Limits that keep hostile input from exhausting the stack or memory: at
 * most DOC_MAX_DEPTH maps/sequences nested in one another, and at most
 * DOC_MAX_NODES nodes (map keys included) in a whole input once YAML aliases
 * are expanded (each alias is a copy, so "billion laughs" input is
 * refused). JSON is counted while json-c's tree is copied: json-c has no
 * node limit and builds that tree for the whole input first, so the memory
 * it takes is bounded only by the input's length (some tens of bytes per
 * node), which callers must bound. */
#define DOC_MAX_DEPTH 128
#define DOC_MAX_NODES 4000000

/* Parse YAML (multi-document) or a single JSON value from buf (which need
 * not be NUL-terminated). file names the input in errors. Returns 0 and a new
 * doc in *ret (free with doc_free), or a negative errno with *ret NULL and e
 * filled: "file:line: what is wrong" for YAML, "file: JSON parse error: what
 * at offset N" for JSON syntax errors (json-c's words), "file: JSON parse
 * error: what" for values refused after parsing. Empty or blank input (and,
 * for YAML, only comments or "---"; for JSON, a lone null) gives a doc with
 * zero documents. YAML map keys that are not scalars and text containing a
 * NUL character are errors; YAML merge keys ("<<") are not supported.
 *
 * Repeated keys in one map are an error in YAML. In JSON they are not: json-c
 * keeps the last value, at the place of the first key, so the tree never
 * holds a key twice. JSON input is also held to what json-c decides in its
 * strict mode: NaN, Infinity and numbers that overflow to them are refused
 * here, and so are integers that json-c saturates (anything outside
 * INT64_MIN..UINT64_MAX, and those two bounds themselves, which cannot be
 * told apart); \u0000 in a string is refused, but in a map key json-c cuts
 * the key at it. Single-quoted map keys and raw control characters in
 * strings are accepted. doc_json.c has the details. */
int doc_parse_yaml(const char *buf, size_t len, const char *file,
                   struct doc **ret, struct err *e);
int doc_parse_json(const char *buf, size_t len, const char *file,
                   struct doc **ret, struct err *e);

/* Either of the above: JSON when the first non-blank byte (space, tab, CR,
 * LF) is '{' or '[', YAML otherwise. */
int doc_parse(const char *buf, size_t len, const char *file, struct doc **ret,
              struct err *e);

/* Reads path and parses it with doc_parse(). Files over 64 MiB are refused
 * (-EFBIG); an empty file has zero documents. */
int doc_load_file(const char *path, struct doc **ret, struct err *e);

void doc_free(struct doc *d); /* NULL-safe */

/* Value for key in a MAP node (NULL when absent, or when map is not a MAP). */
const struct doc_node *doc_map_get(const struct doc_node *map, const char *key);

/* True for a plain scalar null, ~, Null, NULL or empty text. A NULL node
 * pointer (absent field) is also null. */
bool doc_is_null(const struct doc_node *n);

/* Typed reads of scalars. Each returns 0, or -EINVAL when the node is not a
 * scalar of that type (a quoted "3" is not an int, a quoted "true" is not a
 * bool), or -ERANGE for integers out of range. Integers are base 10 with an
 * optional sign (no "1.0", "1e3", "0x10", "010", "1_000"). Booleans are the
 * YAML 1.1 words that Kubernetes (go-yaml v2) accepts: true/false, yes/no,
 * y/n, on/off, each also Capitalised or UPPER. */
int doc_get_int64(const struct doc_node *n, int64_t *ret);
int doc_get_bool(const struct doc_node *n, bool *ret);
/* Any non-null scalar as text (numbers and booleans included, as written). */
int doc_get_string(const struct doc_node *n, const char **ret);

/* Human name of a node's type for messages: "string", "number", "boolean",
 * "null", "list", "map". */
const char *doc_type_name(const struct doc_node *n);

#endif
