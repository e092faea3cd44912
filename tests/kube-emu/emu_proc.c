/* emu_proc.c - ordo-kube-emu as a child process of a C test (emu_proc.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu_proc.h"

/* The value of "key: value" lines of the kubeconfig (the first one). */
static int read_field(const char *path, const char *key, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int rc = -ENOENT;
    if (!f)
        return -errno;
    while (rc < 0 && fgets(line, sizeof(line), f)) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (!strncmp(p, key, strlen(key))) {
            p += strlen(key);
            p[strcspn(p, "\n")] = '\0';
            snprintf(buf, size, "%s", p);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

int emu_proc_start(struct emu_proc *p, const char *const *args)
{
    char bin[512];
    const char *argv[64];
    size_t n = 0;
    const char *env = getenv("ORDO_KUBE_EMU");
    memset(p, 0, sizeof(*p));
    if (env)
        snprintf(bin, sizeof(bin), "%s", env);
    else
        snprintf(bin, sizeof(bin), "%s/tests/kube-emu/ordo-kube-emu",
                 getenv("ORDO_BUILDDIR") ? getenv("ORDO_BUILDDIR") : ".");
    snprintf(p->dir, sizeof(p->dir), "/tmp/ordo-emu-proc-XXXXXX");
    if (!mkdtemp(p->dir))
        return -errno;
    snprintf(p->kubeconfig, sizeof(p->kubeconfig), "%s/kubeconfig", p->dir);
    snprintf(p->audit, sizeof(p->audit), "%s/audit", p->dir);
    argv[n++] = bin;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--kubeconfig-out";
    argv[n++] = p->kubeconfig;
    argv[n++] = "--audit";
    argv[n++] = p->audit;
    for (size_t i = 0; args && args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    p->pid = pid;
    /* The kubeconfig appears, renamed into place, once it listens; a
     * bound on the wait keeps a broken emulator from hanging the test. */
    for (int i = 0; i < 400; i++) {
        int st;
        if (access(p->kubeconfig, R_OK) == 0)
            break;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            p->pid = 0;
            return -ECHILD;
        }
        nanosleep(&(struct timespec){0, 25 * 1000 * 1000}, NULL);
    }
    if (read_field(p->kubeconfig, "server: ", p->server, sizeof(p->server)) <
            0 ||
        read_field(p->kubeconfig, "token: ", p->token, sizeof(p->token)) < 0) {
        emu_proc_stop(p);
        return -ETIMEDOUT;
    }
    return 0;
}

int emu_proc_stop(struct emu_proc *p)
{
    int st = 0, rc = 0;
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        if (waitpid(p->pid, &st, 0) < 0)
            rc = -errno;
        else
            rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        p->pid = 0;
    }
    if (p->dir[0]) {
        unlink(p->kubeconfig);
        unlink(p->audit);
        rmdir(p->dir);
        p->dir[0] = '\0';
    }
    return rc;
}
