/* err.h - error messages that library code hands back to its caller.
 *
 * Functions in core/ return 0 or a negative errno and, where a human needs to
 * know what went wrong, fill a caller-provided struct err with one line such
 * as "quickstart.yaml:12: ClusterQueue team-a: spec.resourceGroups[0]...".
 * The caller decides whether and how to log it. */
#ifndef ORDO_ERR_H
#define ORDO_ERR_H

#define ERR_MSG_MAX 512

struct err {
    char msg[ERR_MSG_MAX];
};

/* Formats the message into e (truncating). e may be NULL. Returns -code
 * when code > 0, else code, so that `return err_set(e, EINVAL, ...)`
 * yields -EINVAL. */
int err_set(struct err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
