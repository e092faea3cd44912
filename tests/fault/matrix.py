#!/usr/bin/python3
"""matrix.py - the fault matrix: ordo-scheduler against ordo-kube-emu under
one fault at a time (tests/kube-emu's --fault-* flags, signals, kubectl-like
writes), the load of tests/fault/load.py, and tests/fault/judge.py over the
audit at the end of each case.

  matrix.py [--quick] [--pods N] [--kill-runs N] [--down-s S] [--seed S]
            [--timeout S] [--case NAME]... [--keep]

Each case starts a fresh emulator and load, runs until every workload ran
(bounded by --timeout seconds, default 300) and prints its figures: runs,
pods, faults injected, violations. --quick is the make check version (a few
cases, 200 pods, 3 kill runs). Needs ORDO_SCHEDULER, ORDO_BUILDDIR and
ORDO_BUILD_PLUGIN_DIR (as make check sets them). Exit 0 when no case found a
violation, 1 otherwise, 77 without python3-kubernetes or the emulator."""
import atexit
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402

try:
    import kubernetes  # noqa: F401
except ImportError:
    print("SKIP: no python3-kubernetes")
    sys.exit(77)

BUILD = os.environ.get("ORDO_BUILDDIR", ".")
EMU = os.path.join(BUILD, "tests", "kube-emu", "ordo-kube-emu")
SCHED = os.environ.get("ORDO_SCHEDULER", os.path.join(BUILD, "sched", "ordo-scheduler"))
PLUGINS = os.environ.get("ORDO_BUILD_PLUGIN_DIR", os.path.join(BUILD, "plugins", ".libs"))
PY = sys.executable
G, V = "kueue.x-k8s.io", "v1beta2"


STARTED = []  # every process started: none outlives the matrix


def _end_all():
    for p in STARTED:
        if p.poll() is None:
            p.kill()


def _on_term(sig, frame):
    _end_all()
    sys.exit(1)


atexit.register(_end_all)
signal.signal(signal.SIGTERM, _on_term)


class Case:
    """One case's emulator, load and schedulers, in its own directory."""

    def __init__(self, opts, name, flags=(), alone=False):
        self.opts, self.name = opts, name
        self.dir = tempfile.mkdtemp(prefix="ordo-fault-%s-" % name)
        self.audit = os.path.join(self.dir, "audit")
        self.kc = os.path.join(self.dir, "kubeconfig")
        self.manifest = os.path.join(self.dir, "manifest.json")
        self.scheds, self.runs, self.failures = [], 0, []
        self.killed = set()  # pids killed on purpose: their status is no failure
        self.expected_exit = set()  # pids whose exit 1 is the designed outcome
        self.injected = 0  # faults the harness made (kills, deletions, patches)
        self.emu_log = open(os.path.join(self.dir, "emu.log"), "w")
        self.emu = subprocess.Popen(
            [EMU, "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kc,
             "--audit", self.audit, "--controllers", "job", "--kubelet",
             "--time-scale", str(opts.time_scale), "--watch-window", "100000",
             "--token", "sched-1:secret-1", "--token", "sched-2:secret-2",
             "--token", "sched-3:secret-3",
             "--fault-spare", "admin", "--seed", str(opts.seed)] + list(flags),
            stderr=self.emu_log)
        STARTED.append(self.emu)
        for _ in range(200):  # bounded wait for the listening server
            if os.path.exists(self.kc) or self.emu.poll() is not None:
                break
            time.sleep(0.05)
        text = open(self.kc).read()
        self.server = [l.split()[-1] for l in text.splitlines() if "server:" in l][0]
        self.helper("queues", self.kc, str(opts.pods), str(opts.seed), self.manifest,
                    *(["alone"] if alone else []))
        self.m = json.load(open(self.manifest))
        self.helper("wave", self.kc, self.manifest, "0")

    def helper(self, *args):
        r = subprocess.run([PY, os.path.join(HERE, "load.py")] + list(args),
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("load.py %s: %s" % (args[0], r.stderr[-2000:]))
        return r.stdout

    def sched(self, token="secret-1", *extra):
        log = open(os.path.join(self.dir, "sched-%d.log" % len(self.scheds)), "w")
        p = subprocess.Popen([SCHED, "--server", self.server, "--token", token,
                              "--plugin-dir", PLUGINS, "-v", "1"] + list(extra),
                             stdout=log, stderr=subprocess.STDOUT)
        self.scheds.append((p, log.name))
        STARTED.append(p)
        self.runs += 1
        return p

    def kill(self, p):
        p.kill()
        p.wait()
        self.killed.add(p.pid)
        self.injected += 1

    def lost_lease(self, p, wait):
        """Whether p exited 1 with 'leadership lost' within wait seconds: a
        leader that cannot renew its lease stops writing and exits, as
        kube-scheduler does, and its Deployment starts it again (the
        harness does). That exit is then no failure."""
        try:
            rc = p.wait(wait)
        except subprocess.TimeoutExpired:
            return False
        log = [l for q, l in self.scheds if q is p][0]
        if rc == 1 and "leadership lost" in open(log, errors="replace").read():
            self.expected_exit.add(p.pid)
            return True
        return False

    def lines(self):
        return judge.load_audit(self.audit)

    def binds(self):
        """Successful binds so far, reading only what the audit gained."""
        if not hasattr(self, "_audit"):
            self._audit, self._binds, self._rest = open(self.audit), 0, ""
        self._rest += self._audit.read()
        *whole, self._rest = self._rest.split("\n")
        self._binds += sum(1 for l in whole if '"verb":"bind"' in l and '"code":201' in l)
        return self._binds

    def wait_binds(self, n, limit=60):
        """Until the audit has n binds (bounded: a broken run ends)."""
        end = time.monotonic() + limit
        while self.binds() < n and time.monotonic() < end:
            time.sleep(0.02)

    def judge(self, **kw):
        return judge.Judge(self.m, self.lines(), **kw).run()

    def settle(self, judge_kw):
        """Until every workload ran and no pod runs, or the timeout."""
        end = time.monotonic() + self.opts.timeout
        while time.monotonic() < end:
            j = self.judge(**judge_kw)
            if not j.not_run:
                break
            if all(p.poll() is not None for p, _ in self.scheds):
                self.failures.append("no scheduler left running")
                break
            time.sleep(1)
        time.sleep(5.0 / self.opts.time_scale)  # the last pods' runtime

    def finish(self, judge_kw=None, before_stop=None, after=None):
        """Settles, stops, judges; after(judge) returns the case's own
        failures."""
        judge_kw = judge_kw or {}
        self.settle(judge_kw)
        if before_stop:
            before_stop(self)
        for p, log in self.scheds:
            if p.pid not in self.killed:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
                    try:
                        p.wait(30)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        p.wait()
                        self.failures.append("a scheduler did not stop on SIGTERM")
                if p.returncode != 0 and p.pid not in self.expected_exit:
                    self.failures.append("a scheduler exited %d (%s)" % (p.returncode, log))
            text = open(log, errors="replace").read()
            if "Sanitizer" in text or "runtime error" in text:
                self.failures.append("sanitizer report in " + log)
        j = self.judge(**judge_kw)
        if hasattr(self, "_audit"):
            self._audit.close()
        self.emu.send_signal(signal.SIGTERM)
        if self.emu.wait() != 0:
            self.failures.append("the emulator exited %d" % self.emu.returncode)
        self.emu_log.close()
        elog = open(self.emu_log.name).read()
        if "Sanitizer" in elog or "runtime error" in elog:
            self.failures.append("sanitizer report from the emulator")
        print("## %s" % self.name)
        nviol = j.report()
        if after:
            self.failures += after(j)
        for f in self.failures:
            print("  harness: " + f)
        total = nviol + len(self.failures)
        j.figures["faults injected"] += self.injected
        print("case %s: runs %d, pods %d, faults injected %d, violations %d"
              % (self.name, self.runs, j.figures["pods"], j.figures["faults injected"], total))
        sys.stdout.flush()
        if total == 0 and not self.opts.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            print("  kept " + self.dir)
        return total, j

    def high_wave(self):
        """The high-priority wave once a tenth of the pods is bound: it
        preempts what runs."""
        self.wait_binds(self.opts.pods // 10)
        self.helper("wave", self.kc, self.manifest, "1")

    def api(self):
        from kubernetes import client, config
        return client, config.new_client_from_config(config_file=self.kc)


def plain(opts, name, flags):
    c = Case(opts, name, flags)
    c.sched()
    c.high_wave()
    return c.finish()


def case_kill(opts):
    """SIGKILL at random moments while binding, a new scheduler each time."""
    c = Case(opts, "kill-9")
    rnd = random.Random(opts.seed)
    c.sched()
    c.high_wave()
    for i in range(opts.kill_runs):
        p = c.scheds[-1][0]
        c.wait_binds(c.binds() + rnd.randint(1, max(2, opts.pods // 20)), limit=20)
        time.sleep(rnd.random() * 0.3)
        c.kill(p)
        c.sched("secret-%d" % (i % 2 + 1))
    return c.finish()


def case_watch(opts):
    return plain(opts, "watch-drop-410-duplicate",
                 ["--fault-drop-watch", "0.3", "--fault-410", "0.1", "--fault-duplicate", "0.05"])


def case_errors(opts):
    return plain(opts, "429-5xx", ["--fault-429", "0.05", "--fault-500", "0.05"])


def case_latency(opts):
    return plain(opts, "latency-500ms", ["--fault-latency-ms", "500"])


def case_bind504(opts):
    return plain(opts, "bind-504", ["--fault-bind-504", "0.1"])


def case_down(opts):
    c = Case(opts, "api-server-down")
    c.sched()
    c.high_wave()
    c.wait_binds(c.binds() + opts.pods // 10)
    a = c.scheds[0][0]
    c.emu.send_signal(signal.SIGUSR1)
    time.sleep(opts.down_s)
    c.emu.send_signal(signal.SIGUSR2)
    # Down past its renew deadline, the leader has exited 1 (its lease
    # could not be renewed: no write from it after that, the judge checks);
    # started again, it leads once the lease is free.
    if c.lost_lease(a, 3):
        c.sched("secret-2")
    return c.finish()


def case_node_delete(opts):
    """Nodes deleted while binds are under way."""
    c = Case(opts, "node-deleted")
    client, a = c.api()
    v1 = client.CoreV1Api(a)
    c.sched()
    c.high_wave()
    for n in c.m["nodes"][:2]:
        c.wait_binds(c.binds() + 5)
        v1.delete_node(n)
        c.injected += 1
    return c.finish()


def case_quota(opts):
    """A ClusterQueue's quota lowered below its usage: nothing evicted,
    nothing admitted until usage is back under it."""
    # Enough pods that the quota is above its floor (16 CPUs, the largest
    # gang): lowered, it is under the usage and still holds any workload.
    opts = copy.copy(opts)
    opts.pods = max(opts.pods, 400)
    c = Case(opts, "quota-lowered", alone=True)
    client, a = c.api()
    co = client.CustomObjectsApi(a)
    cq = "cq-a"
    c.sched()
    c.wait_binds(opts.pods // 5)
    q = c.m["clusterQueues"][cq]["nominal"]
    # Below what runs, yet room for its largest workload: all of them run
    # in the end.
    largest = max(w["pods"] * w["requests"]["cpu"] for w in c.m["workloads"]
                  if w["namespace"] == "team-a")
    new_cpu = max(q["cpu"] // 3, largest + 999) // 1000 * 1000
    # Pods complete as others bind, so the usage moves: lowered once it is
    # over the new quota (bounded; the judge's figures say if it was not).
    end = time.monotonic() + 60
    while c.judge().used[cq]["cpu"] <= new_cpu and time.monotonic() < end:
        time.sleep(0.05)
    cur = co.get_cluster_custom_object(G, V, "clusterqueues", cq)
    res = cur["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    for r in res:
        if r["name"] == "cpu":
            r["nominalQuota"] = str(new_cpu // 1000)
    co.patch_cluster_custom_object(G, V, "clusterqueues", cq,
                                   {"spec": {"resourceGroups": cur["spec"]["resourceGroups"]}})
    # Whatever the lowered quota cannot hold waits for ever: what fits
    # runs, the judge's "ran" is about the others.
    c.injected += 1
    # Each admission names the ClusterQueue version that decided it: no
    # time grace, and one that names none is a failure of its own.
    kw = {"quota_change": {cq: {"cpu": new_cpu}}, "grace_s": 0.0}

    def lowered(j):
        if not j.changes or not all(u > n for u, n in j.changes[0][2].values()):
            return ["the quota was not lowered below the usage: %s" % j.changes]
        if j.unversioned:
            return ["%d admissions after the change name no ClusterQueue version"
                    % j.unversioned]
        return []
    return c.finish(kw, after=lowered)


def case_malformed(opts):
    c = Case(opts, "malformed", ["--fault-malformed=0.02"])
    c.sched()
    c.high_wave()
    seen = {}

    def broken_pods(audit):
        return {(a.get("namespace"), a.get("name")) for a in audit
                if a.get("verb") == "fault" and a["fault"].startswith("malformed-")}

    def events(c):
        """The scheduler's Rejected Events, by the object they name. They
        go out through the status write queue, at its rate, behind what
        was queued before them: waited for, bounded."""
        client, a = c.api()
        end = time.monotonic() + 30
        while True:
            for e in client.CoreV1Api(a).list_event_for_all_namespaces().items:
                if e.reason == "Rejected":
                    seen[(e.involved_object.namespace, e.involved_object.name)] = e.message
            if broken_pods(c.lines()) <= set(seen) or time.monotonic() > end:
                break
            time.sleep(1)

    def rejected(j):
        broken = broken_pods(j.audit)
        missing = sorted("%s/%s" % p for p in broken if p not in seen)
        print("malformed pods %d, with a Rejected Event %d"
              % (len(broken), len(broken) - len(missing)))
        if not broken:
            return ["no pod was served malformed"]
        unnamed = sorted(m for p, m in seen.items() if p in broken and
                         "%s/%s" % p not in m)
        out = []
        if missing:
            out.append("malformed pods without a Rejected Event: %s" % " ".join(missing[:10]))
        if unnamed:
            out.append("Rejected Events that do not name their pod: %s" % unnamed[0][:200])
        return out
    return c.finish(before_stop=events, after=rejected)


def case_replicas(opts):
    help_text = subprocess.run([SCHED, "--help"], capture_output=True, text=True).stdout
    if "--leader-elect" not in help_text:
        print("## replicas\nSKIP: ordo-scheduler --help has no --leader-elect: the replica "
              "cases (two replicas, leader killed, leader SIGSTOPped past its lease) wait "
              "for leader election")
        return None
    results = []
    for mode in ("leader-killed", "leader-stopped"):
        c = Case(opts, "replicas-" + mode)
        le = ["--leader-elect", "--leader-elect-lease-duration", "4s",
              "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "1s"]
        a = c.sched("secret-1", *le)
        time.sleep(0.5)
        c.sched("secret-2", *le)
        c.high_wave()
        c.wait_binds(c.binds() + opts.pods // 10)
        if mode == "leader-killed":
            c.kill(a)
        else:
            a.send_signal(signal.SIGSTOP)
            c.injected += 1
            time.sleep(8)
            a.send_signal(signal.SIGCONT)
            # Woken past its lease, the old leader must see it lost the
            # lease, write nothing (the judge checks) and exit 1, as
            # kube-scheduler does; its Deployment restarts it, here as a
            # standby of the new leader.
            if not c.lost_lease(a, 20):
                c.failures.append("the paused leader did not exit 1 with 'leadership lost' "
                                  "(exit %s, %s)" % (a.poll(), c.scheds[0][1]))
            # A token of its own: the judge tells its writes from the old
            # process's late ones.
            c.sched("secret-3", *le)
        results.append(c.finish({"lease_s": 4.0}))
    return sum(r[0] for r in results), results[-1][1]


CASES = {
    "kill-9": case_kill, "watch": case_watch, "errors": case_errors,
    "latency": case_latency, "down": case_down, "bind-504": case_bind504,
    "node-delete": case_node_delete, "quota": case_quota, "malformed": case_malformed,
    "replicas": case_replicas,
}
QUICK = ("kill-9", "watch", "errors", "bind-504", "down", "quota", "malformed", "replicas")


class Opts:
    pods, kill_runs, down_s, seed, timeout, time_scale = 2000, 20, 60, 1, 300, 2
    keep = quick = False


def main(argv):
    opts, cases, quick = Opts(), [], False
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--quick":
            # down 12 s: past the 10 s renew deadline, so the leader exits and
            # is started again (lost_lease)
            opts.pods, opts.kill_runs, opts.down_s, opts.timeout = 160, 3, 12, 60
            opts.time_scale, quick = 4, True
            opts.quick = True
        elif a in ("--pods", "--kill-runs", "--seed", "--timeout") and args:
            setattr(opts, a[2:].replace("-", "_"), int(args.pop(0)))
        elif a == "--down-s" and args:
            opts.down_s = float(args.pop(0))
        elif a == "--case" and args:
            cases.append(args.pop(0))
        elif a == "--keep":
            opts.keep = True
        else:
            print(__doc__, file=sys.stderr)
            return 2
    cases = cases or list(QUICK if quick else CASES)
    for n in cases:
        if n not in CASES:
            print("matrix.py: no case %s (known: %s)" % (n, " ".join(CASES)), file=sys.stderr)
            return 2
    if not os.access(EMU, os.X_OK) or not os.access(SCHED, os.X_OK):
        print("SKIP: %s or %s is not built" % (EMU, SCHED))
        return 77
    rows, bad = [], 0
    for n in cases:
        r = CASES[n](opts)
        if r is None:
            continue
        total, j = r
        bad += total
        rows.append((n, j.figures["pods"], j.figures["faults injected"], total))
    print("\n| case | pods | faults injected | violations |\n|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d | %d |" % r)
    print("%d cases, %d violations" % (len(rows), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
