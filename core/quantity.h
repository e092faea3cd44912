/* quantity.h - Kubernetes resource.Quantity parsing and canonical formatting.
 *
 * Ordo computes with int64 milli-units ("1" = 1000, "1Ki" = 1024000,
 * "100m" = 100). Parsing follows k8s.io/apimachinery resource.ParseQuantity:
 * decimal SI suffixes (n u m "" k M G T P E), binary SI (Ki Mi Gi Ti Pi Ei),
 * decimal exponents (1e3, 1E-3), an optional sign and a fractional part.
 * Values finer than a milli-unit are rounded up (away from zero, as
 * Quantity.MilliValue() does); values that do not fit int64 milli-units are an
 * error, never a wrap. The format (suffix family) of the input is kept so that
 * formatting prints what Kubernetes prints ("1.5Gi" -> "1536Mi"). */
#ifndef ORDO_QUANTITY_H
#define ORDO_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

enum quantity_format {
    QUANTITY_DECIMAL_SI = 0, /* 1500m, 1k, 5G */
    QUANTITY_BINARY_SI,      /* 1536Mi, 2Gi */
    QUANTITY_DECIMAL_EXPONENT, /* 1e3, 15e-1 */
    QUANTITY_FORMAT_MAX
};

struct quantity {
    int64_t milli;
    enum quantity_format format;
};

/* Longest string quantity_format() produces, with the NUL. */
#define QUANTITY_STR_MAX 32

/* Parses s. Returns 0 and sets *ret, or -EINVAL (malformed) / -ERANGE (out of
 * the int64 milli-unit range) and sets *reterr_reason (when not NULL) to a
 * static string saying what is wrong, e.g. "unknown suffix \"Gb\"". */
int quantity_parse(const char *s, struct quantity *ret,
                   const char **reterr_reason);

/* Writes the canonical Kubernetes form of q into buf (size bytes; at least
 * QUANTITY_STR_MAX is always enough). Returns the length written, or
 * -ENOSPC when buf is too small. */
int quantity_format(const struct quantity *q, char *buf, size_t size);

/* Shortcut: formats milli with the given format into buf, returns buf. */
const char *quantity_str(int64_t milli, enum quantity_format format,
                         char buf[QUANTITY_STR_MAX]);

#endif
