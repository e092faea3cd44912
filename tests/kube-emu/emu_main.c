/* emu_main.c - ordo-kube-emu: a Kubernetes API-server emulator for tests.
 *
 *   ordo-kube-emu --listen 127.0.0.1:PORT --kubeconfig-out FILE
 *                 [--audit FILE] [--kubelet] [--controllers job,jobset]
 *                 [--tls] [--time-scale N] [--token NAME:SECRET]...
 *                 [--watch-window N] [--bookmark-ms MS] [--openapi-dir DIR]
 *
 *                 [--seed N] [--fault-* ...] [--fault-spare NAME]
 *
 * PORT 0 picks a free port. The kubeconfig is written (atomically) once the
 * server listens: the real URL and a bearer token, one context per token.
 * It runs until SIGTERM or SIGINT. SIGUSR1 stops serving (every connection
 * refused or closed, the state kept), SIGUSR2 serves again. */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "emu.h"

#ifndef EMU_OPENAPI_DIR
#define EMU_OPENAPI_DIR "openapi"
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* Counts the changes, so that the main loop audits each one even when
 * a stop is shorter than its pass. */
static void on_down_up(int sig)
{
    int down = sig == SIGUSR1;
    if (emu_faults.down != down) {
        emu_faults.down = down;
        emu_faults.flips++;
    }
}

/* Waits for a change or ms, emu.lock held. */
static void wait_ms(int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&emu.changed, &emu.lock, &ts);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ordo-kube-emu --listen HOST:PORT --kubeconfig-out FILE\n"
            "         [--audit FILE] [--kubelet] [--controllers job,jobset]\n"
            "         [--tls] [--time-scale N] [--token NAME:SECRET]...\n"
            "         [--watch-window N] [--bookmark-ms MS] "
            "[--openapi-dir DIR]\n"
            "         [--seed N] [--fault-drop-watch P] [--fault-410 P]\n"
            "         [--fault-duplicate P] [--fault-429 P] [--fault-500 P]\n"
            "         [--fault-latency-ms N] [--fault-bind-504 P]\n"
            "         [--fault-malformed[=P]] [--fault-spare NAME]\n"
            "\n"
            "Faults (P: a share, 0 to 1; each injected fault is one audit "
            "line,\n"
            "verb \"fault\"; draws come from --seed, default 1):\n"
            "  --fault-drop-watch P  cut P of the watch streams at a random "
            "byte\n"
            "                        (mid-line included) in their first 16 "
            "KiB\n"
            "  --fault-410 P         answer P of the watches 410 Gone, or an "
            "ERROR\n"
            "                        event with 410 Expired\n"
            "  --fault-duplicate P   send P of the watch events twice\n"
            "  --fault-429 P         answer P of the requests 429 with "
            "Retry-After: 1\n"
            "  --fault-500 P         answer P of the requests 500 or 503\n"
            "  --fault-latency-ms N  add N ms to every request (that "
            "connection's\n"
            "                        thread waits, no other)\n"
            "  --fault-bind-504 P    apply P of the bindings, then answer "
            "504\n"
            "  --fault-malformed[=P] serve P (default 0.02) of the pods "
            "broken in\n"
            "                        lists, gets and watches: absurd or "
            "negative\n"
            "                        quantities, wrong types, a 256 KiB "
            "label,\n"
            "                        deep nesting (the same pods every time)\n"
            "  --fault-spare NAME    no fault for the token NAME (a test's "
            "own client)\n"
            "  SIGUSR1 / SIGUSR2     stop serving (refuse and close every "
            "connection,\n"
            "                        keep the state) / serve again\n");
}

static int add_token(const char *name, const char *secret)
{
    struct emu_token *t = realloc(emu.tokens, (emu.ntokens + 1) * sizeof(*t));
    if (!t)
        return -ENOMEM;
    emu.tokens = t;
    t[emu.ntokens].name = strdup(name);
    t[emu.ntokens].secret = strdup(secret);
    emu.ntokens++;
    return 0;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, r;
    if (!f)
        return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *b = realloc(buf, cap = (n + 4096) * 2);
            if (!b)
                break;
            buf = b;
        }
        r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r < 4096)
            break;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static char *base64(const char *s)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s), o = 0;
    char *out = malloc(n / 3 * 4 + 5);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* A self-signed certificate for 127.0.0.1 by openssl's command line. */
static int make_cert(char **ret_cert, char **ret_key)
{
    char dir[] = "/tmp/ordo-kube-emu-XXXXXX", cmd[2048], c[64], k[64];
    if (!mkdtemp(dir))
        return -errno;
    snprintf(c, sizeof(c), "%s/tls.crt", dir);
    snprintf(k, sizeof(k), "%s/tls.key", dir);
    snprintf(cmd, sizeof(cmd),
             "openssl req -x509 -newkey rsa:2048 -nodes -keyout '%s' "
             "-out '%s' -days 2 -subj /CN=ordo-kube-emu "
             "-addext subjectAltName=IP:127.0.0.1,DNS:localhost "
             ">/dev/null 2>&1",
             k, c);
    int rc = system(cmd);
    *ret_cert = rc == 0 ? read_all(c) : NULL;
    *ret_key = rc == 0 ? read_all(k) : NULL;
    unlink(c);
    unlink(k);
    rmdir(dir);
    if (!*ret_cert || !*ret_key) {
        free(*ret_cert);
        free(*ret_key);
        return -EIO;
    }
    return 0;
}

static int write_kubeconfig(const char *path, const char *host, int port,
                            const char *cert)
{
    char tmp[4096];
    char *ca = cert ? base64(cert) : NULL;
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(ca);
        return -errno;
    }
    fprintf(f,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: emu\n"
            "  cluster:\n    server: %s://%s:%d\n",
            cert ? "https" : "http", host, port);
    if (ca)
        fprintf(f, "    certificate-authority-data: %s\n", ca);
    fprintf(f, "users:\n");
    for (size_t i = 0; i < emu.ntokens; i++)
        fprintf(f, "- name: %s\n  user:\n    token: %s\n", emu.tokens[i].name,
                emu.tokens[i].secret);
    fprintf(f, "contexts:\n");
    for (size_t i = 0; i < emu.ntokens; i++)
        fprintf(f,
                "- name: %s\n  context:\n    cluster: emu\n    user: %s\n"
                "    namespace: default\n",
                i ? emu.tokens[i].name : "emu", emu.tokens[i].name);
    fprintf(f, "current-context: emu\n");
    free(ca);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -errno;
    return 0;
}

static void seed_namespaces(void)
{
    const char *names[] = {"default", "kube-system", "kube-public",
                           "kube-node-lease"};
    int k = emu_k("namespaces");
    for (size_t i = 0; i < 4; i++) {
        struct json_object *o = json_object_new_object(), *out;
        struct json_object *m = json_object_new_object();
        struct emu_err err = {0};
        json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
        json_object_object_add(o, "kind", json_object_new_string("Namespace"));
        json_object_object_add(m, "name", json_object_new_string(names[i]));
        json_object_object_add(o, "metadata", m);
        emu_store_create(k, o, &out, &err);
    }
}

static int parse_controllers(const char *s)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "job"))
            emu.ctrl_job = true;
        else if (!strcmp(t, "jobset"))
            emu.ctrl_jobset = true;
        else
            return -EINVAL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"kubeconfig-out", required_argument, NULL, 'k'},
        {"audit", required_argument, NULL, 'a'},
        {"kubelet", no_argument, NULL, 'K'},
        {"controllers", required_argument, NULL, 'c'},
        {"tls", no_argument, NULL, 't'},
        {"time-scale", required_argument, NULL, 's'},
        {"token", required_argument, NULL, 'T'},
        {"watch-window", required_argument, NULL, 'w'},
        {"bookmark-ms", required_argument, NULL, 'b'},
        {"openapi-dir", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, 'S'},
        {"fault-drop-watch", required_argument, NULL, 'D'},
        {"fault-410", required_argument, NULL, 'G'},
        {"fault-duplicate", required_argument, NULL, 'U'},
        {"fault-429", required_argument, NULL, 'R'},
        {"fault-500", required_argument, NULL, 'E'},
        {"fault-latency-ms", required_argument, NULL, 'L'},
        {"fault-bind-504", required_argument, NULL, 'B'},
        {"fault-malformed", optional_argument, NULL, 'M'},
        {"fault-spare", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *listen = NULL, *kubeconfig = NULL, *audit = NULL;
    const char *openapi = EMU_OPENAPI_DIR;
    char host[64], secret[40], *cert = NULL, *key = NULL;
    long window = 10000;
    bool tls = false;
    int port, opt, rc = 1;
    struct MHD_Daemon *d = NULL;
    emu.time_scale = 1;
    emu.bookmark_ms = 1000;
    if (getenv("ORDO_EMU_TIME_SCALE"))
        emu.time_scale = strtoll(getenv("ORDO_EMU_TIME_SCALE"), NULL, 10);
    uint64_t seed = 1;
    int opt_index = 0;
    while ((opt = getopt_long(argc, argv, "h", opts, &opt_index)) != -1) {
        switch (opt) {
        case 'l':
            listen = optarg;
            break;
        case 'k':
            kubeconfig = optarg;
            break;
        case 'a':
            audit = optarg;
            break;
        case 'K':
            emu.kubelet = true;
            break;
        case 'c':
            if (parse_controllers(optarg) < 0) {
                fprintf(stderr,
                        "ordo-kube-emu: --controllers %s: known: job, "
                        "jobset\n",
                        optarg);
                return 2;
            }
            break;
        case 't':
            tls = true;
            break;
        case 's':
            emu.time_scale = strtoll(optarg, NULL, 10);
            break;
        case 'T': {
            char name[128];
            const char *colon = strchr(optarg, ':');
            if (!colon || colon == optarg || !colon[1] ||
                (size_t)(colon - optarg) >= sizeof(name)) {
                fprintf(stderr, "ordo-kube-emu: --token %s: want NAME:SECRET\n",
                        optarg);
                return 2;
            }
            snprintf(name, sizeof(name), "%.*s", (int)(colon - optarg), optarg);
            add_token(name, colon + 1);
            break;
        }
        case 'w':
            window = strtol(optarg, NULL, 10);
            break;
        case 'b':
            emu.bookmark_ms = strtoll(optarg, NULL, 10);
            break;
        case 'o':
            openapi = optarg;
            break;
        case 'S': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end) {
                fprintf(stderr, "ordo-kube-emu: --seed %s: want a number\n",
                        optarg);
                return 2;
            }
            seed = v;
            break;
        }
        case 'D':
        case 'G':
        case 'U':
        case 'R':
        case 'E':
        case 'B':
        case 'M': {
            uint32_t *share = opt == 'D'   ? &emu_faults.drop_watch_ppm
                              : opt == 'G' ? &emu_faults.gone_ppm
                              : opt == 'U' ? &emu_faults.duplicate_ppm
                              : opt == 'R' ? &emu_faults.too_many_ppm
                              : opt == 'E' ? &emu_faults.server_error_ppm
                              : opt == 'B' ? &emu_faults.bind_timeout_ppm
                                           : &emu_faults.malformed_ppm;
            const char *v = optarg ? optarg : "0.02";
            if (emu_fault_parse_share(v, share) < 0) {
                fprintf(stderr,
                        "ordo-kube-emu: --%s %s: want a share from 0 to 1\n",
                        opts[opt_index].name, v);
                return 2;
            }
            break;
        }
        case 'L': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 0 || v > 600000) {
                fprintf(stderr,
                        "ordo-kube-emu: --fault-latency-ms %s: want 0 to "
                        "600000\n",
                        optarg);
                return 2;
            }
            emu_faults.latency_ms = v;
            break;
        }
        case 'P':
            emu_faults.spare = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!listen || !kubeconfig || optind != argc ||
        sscanf(listen, "%63[^:]:%d", host, &port) != 2 || port < 0 ||
        port > 65535 || window < 1 || emu.time_scale < 1 ||
        emu.bookmark_ms < 1) {
        usage(stderr);
        return 2;
    }
    /* The first token is the one the kubeconfig's default context uses. */
    {
        struct emu_token *given = emu.tokens;
        size_t ngiven = emu.ntokens;
        char tok[40];
        emu.tokens = NULL;
        emu.ntokens = 0;
        emu_random_suffix(tok, 32);
        snprintf(secret, sizeof(secret), "%s", tok);
        add_token("admin", secret);
        for (size_t i = 0; i < ngiven; i++) {
            add_token(given[i].name, given[i].secret);
            free(given[i].name);
            free(given[i].secret);
        }
        free(given);
    }
    emu_fault_seed(seed);
    emu_discovery_set_openapi_dir(openapi);
    if (emu_store_init((size_t)window) < 0) {
        fprintf(stderr, "ordo-kube-emu: out of memory\n");
        goto out;
    }
    seed_namespaces();
    if (audit && emu_audit_open(audit) < 0) {
        fprintf(stderr, "ordo-kube-emu: --audit %s: %s\n", audit,
                strerror(errno));
        goto out;
    }
    if (tls && make_cert(&cert, &key) < 0) {
        fprintf(stderr, "ordo-kube-emu: --tls: openssl could not make a "
                        "certificate\n");
        goto out;
    }
    signal(SIGUSR1, on_down_up);
    signal(SIGUSR2, on_down_up);
    int r = emu_http_start(host, port, tls, cert, key, &d, &port);
    if (r < 0) {
        fprintf(stderr, "ordo-kube-emu: --listen %s: %s\n", listen,
                strerror(-r));
        goto out;
    }
    if ((r = write_kubeconfig(kubeconfig, host, port, cert)) < 0) {
        fprintf(stderr, "ordo-kube-emu: --kubeconfig-out %s: %s\n", kubeconfig,
                strerror(-r));
        goto out;
    }
    fprintf(stderr, "ordo-kube-emu: listening on %s://%s:%d\n",
            tls ? "https" : "http", host, port);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    int audited_flips = 0;
    pthread_mutex_lock(&emu.lock);
    int64_t seen = -1, ctrl_seen = -1, last_pass = 0;
    int pods = emu_k("pods"), jobs = emu_k("jobs"), jobsets = emu_k("jobsets");
    while (!stop) {
        while (audited_flips != emu_faults.flips) {
            /* Flips alternate, from up. Watches waiting in their reader
             * notice and end. */
            emu_fault_audit(audited_flips++ % 2 ? "up" : "down", NULL, NULL,
                            NULL, NULL, NULL, NULL, 0);
            pthread_cond_broadcast(&emu.changed);
        }
        /* The controllers look again only when what they read changed. */
        int64_t ctrl = emu.last_change[pods];
        if (emu.last_change[jobs] > ctrl)
            ctrl = emu.last_change[jobs];
        if (emu.last_change[jobsets] > ctrl)
            ctrl = emu.last_change[jobsets];
        seen = emu.rv;
        /* One pass every 20 ms at most: a burst of writes is served at
         * the HTTP rate and looked at together. */
        int64_t now = emu_now_ms();
        if (now - last_pass < 20) {
            wait_ms(20 - (now - last_pass));
            continue;
        }
        last_pass = now;
        if (ctrl != ctrl_seen) {
            ctrl_seen = ctrl;
            if (emu.ctrl_jobset)
                emu_ctrl_jobset();
            if (emu.ctrl_job)
                emu_ctrl_job();
        }
        if (emu.kubelet)
            emu_kubelet_tick();
        if (emu.rv != seen) {
            /* More to do: let the server threads in first, so that
             * controllers that never settle cannot starve them. */
            pthread_mutex_unlock(&emu.lock);
            sched_yield();
            pthread_mutex_lock(&emu.lock);
            continue;
        }
        wait_ms(50);
    }
    emu.stopping = true;
    pthread_cond_broadcast(&emu.changed);
    pthread_mutex_unlock(&emu.lock);
    rc = 0;
out:
    if (d)
        MHD_stop_daemon(d);
    emu_audit_close();
    emu_store_free();
    emu_discovery_set_openapi_dir(NULL);
    for (size_t i = 0; i < emu.ntokens; i++) {
        free(emu.tokens[i].name);
        free(emu.tokens[i].secret);
    }
    free(emu.tokens);
    free(cert);
    free(key);
    return rc;
}
