/* replay_main.c - runs a fuzz target's LLVMFuzzerTestOneInput over saved
 * inputs, without libFuzzer, so that `make check` (any compiler, the check
 * build's sanitizers) replays every seed and every input that ever crashed
 * a target.
 *
 * Usage: replay_<target> [PATH...]   files, or directories of files
 * Without PATH it replays tests/fuzz/corpus/<target>/ and, when present,
 * tests/fuzz/regress/<target>/ under $ORDO_SRCDIR (default: the source
 * tree it was built from). Names starting with '.' and README files are
 * skipped; a directory is read in name order. Each input is handed over in
 * a buffer of exactly its size, as libFuzzer does, so a read past the end
 * is caught. The name of each input is printed before it runs: a crash
 * (sanitizer report or abort) then names its input. The last line is
 * "N passed, 0 failed"; the exit status is 1 when a path cannot be read or
 * no input was found. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET (the target's name) must be defined"
#endif
#ifndef FUZZ_SRCDIR
#error "FUZZ_SRCDIR (the source tree) must be defined"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct replay {
    size_t ran;
    size_t errors;
};

/* Reads path whole into an exact-size buffer (one byte for an empty
 * file, never handed over as data). */
static int read_file(const char *path, uint8_t **ret_data, size_t *ret_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    int r = 0;
    uint8_t *data = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) < 0) {
        r = -errno;
        goto out;
    }
    size_t size = (size_t)st.st_size;
    data = malloc(size ? size : 1);
    if (!data) {
        r = -ENOMEM;
        goto out;
    }
    if (size && fread(data, 1, size, f) != size) {
        r = ferror(f) ? -EIO : -EAGAIN; /* short: changed while read */
        goto out;
    }
    *ret_data = data;
    *ret_size = size;
    data = NULL;
out:
    free(data);
    fclose(f);
    return r;
}

static void replay_file(struct replay *rp, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    int r = read_file(path, &data, &size);
    if (r < 0) {
        fprintf(stderr, "replay_%s: %s: %s\n", FUZZ_TARGET, path, strerror(-r));
        rp->errors++;
        return;
    }
    printf("replay %s (%zu bytes)\n", path, size);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    rp->ran++;
}

static bool skipped(const char *name)
{
    return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void replay_path(struct replay *rp, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        fprintf(stderr, "replay_%s: %s: %s\n", FUZZ_TARGET, path,
                strerror(errno));
        rp->errors++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file(rp, path);
        return;
    }
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay_%s: %s: %s\n", FUZZ_TARGET, path,
                strerror(errno));
        rp->errors++;
        return;
    }
    for (int i = 0; i < n; i++) {
        char *file = NULL;
        if (!skipped(names[i]->d_name) &&
            asprintf(&file, "%s/%s", path, names[i]->d_name) >= 0) {
            if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
                replay_file(rp, file);
            free(file);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    struct replay rp = {0, 0};
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            replay_path(&rp, argv[i]);
    } else {
        const char *src = getenv("ORDO_SRCDIR");
        char *corpus = NULL, *regress = NULL;
        struct stat st;
        if (!src || !*src)
            src = FUZZ_SRCDIR;
        if (asprintf(&corpus, "%s/tests/fuzz/corpus/%s", src, FUZZ_TARGET) <
                0 ||
            asprintf(&regress, "%s/tests/fuzz/regress/%s", src, FUZZ_TARGET) <
                0) {
            fprintf(stderr, "replay_%s: out of memory\n", FUZZ_TARGET);
            return 1;
        }
        replay_path(&rp, corpus);
        /* A target that never crashed has no regress directory. */
        if (stat(regress, &st) == 0)
            replay_path(&rp, regress);
        free(corpus);
        free(regress);
    }
    if (rp.ran == 0 && rp.errors == 0) {
        fprintf(stderr, "replay_%s: no inputs found\n", FUZZ_TARGET);
        rp.errors++;
    }
    printf("%zu passed, %zu failed\n", rp.ran, rp.errors);
    return rp.errors ? 1 : 0;
}
