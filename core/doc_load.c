/* doc_load.c - doc_parse() and doc_load_file() (doc.h): the JSON or the
 * YAML parser, picked by the first non-blank byte, for a buffer or a file
 * (read whole, at most DOC_MAX_FILE_SIZE bytes). */
#include "doc.h"

#include "doc_build.h"
#include "err.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int doc_parse(const char *buf, size_t len, const char *file, struct doc **ret,
              struct err *e)
{
    size_t i = 0;
    while (buf && i < len && doc_json_blank(buf[i]))
        i++;
    if (buf && i < len && (buf[i] == '{' || buf[i] == '['))
        return doc_parse_json(buf, len, file, ret, e);
    return doc_parse_yaml(buf, len, file, ret, e);
}

int doc_load_file(const char *path, struct doc **ret, struct err *e)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd, rc = 0;
    struct stat st;

    *ret = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        return err_set(e, saved, "%s: %s", path, strerror(saved));
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > DOC_MAX_FILE_SIZE)
            goto too_big;
        cap = (size_t)st.st_size + 1; /* +1 to see EOF without growing */
    }
    if (cap < 4096)
        cap = 4096;
    buf = malloc(cap);
    if (!buf) {
        rc = err_set(e, ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    for (;;) {
        if (len == cap && cap > DOC_MAX_FILE_SIZE)
            goto too_big;
        if (GROW_ARRAY(buf, len, cap) < 0) {
            rc = err_set(e, ENOMEM, "%s: out of memory", path);
            goto cleanup;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            int saved = errno;
            if (saved == EINTR)
                continue;
            rc = err_set(e, saved, "%s: %s", path, strerror(saved));
            goto cleanup;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > DOC_MAX_FILE_SIZE)
        goto too_big;

    rc = doc_parse(buf, len, path, ret, e);
    goto cleanup;
too_big:
    rc = err_set(e, EFBIG, "%s: file is larger than %zu MiB", path,
                 DOC_MAX_FILE_SIZE >> 20);
cleanup:
    free(buf);
    close(fd);
    return rc;
}
