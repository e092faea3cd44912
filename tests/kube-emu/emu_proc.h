/* emu_proc.h - start and stop ordo-kube-emu from a C test: the emulator
 * runs as a child process on a free port; its kubeconfig, URL and token
 * are read back once it listens. */
#ifndef ORDO_KUBE_EMU_PROC_H
#define ORDO_KUBE_EMU_PROC_H

#include <sys/types.h>

struct emu_proc {
    pid_t pid;
    char dir[64];         /* a private temporary directory */
    char kubeconfig[128]; /* dir/kubeconfig */
    char audit[128];      /* dir/audit, always passed as --audit */
    char server[128];     /* "http://127.0.0.1:PORT" */
    char token[64];       /* the admin token */
};

/* Starts $ORDO_BUILDDIR/tests/kube-emu/ordo-kube-emu (or ORDO_KUBE_EMU)
 * with args (NULL-terminated, may be NULL) after --listen, --kubeconfig-out
 * and --audit, and waits until it listens. 0 or a negative errno. */
int emu_proc_start(struct emu_proc *p, const char *const *args);
/* SIGTERM, wait, remove the directory; the exit status (0: clean), or a
 * negative errno. Accepts a never started p (pid 0). */
int emu_proc_stop(struct emu_proc *p);

#endif
