#!/usr/bin/python3
"""test_emu_faults.py - ordo-kube-emu's --fault-* flags, each alone at
share 1 (or a seeded share) with the standard library's HTTP client: what
the faulty client sees, that the spared client (--fault-spare) sees none
of it, and one audit line per injected fault. Prints "ok - ..." lines and
the counts."""
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

BUILD = os.environ.get("ORDO_BUILDDIR", ".")
EMU = os.path.join(BUILD, "tests", "kube-emu", "ordo-kube-emu")
TOKEN = "fault-secret"  # the faulty client's; the kubeconfig's admin is spared
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s %s" % (name, detail))


class Emu:
    def __init__(self, tmp, *args):
        self.dir = tempfile.mkdtemp(dir=tmp)
        kc = os.path.join(self.dir, "kubeconfig")
        self.audit = os.path.join(self.dir, "audit")
        self.log = open(os.path.join(self.dir, "emu.log"), "w")
        self.p = subprocess.Popen(
            [EMU, "--listen", "127.0.0.1:0", "--kubeconfig-out", kc, "--audit", self.audit,
             "--token", "client:" + TOKEN, "--fault-spare", "admin"] + list(args),
            stderr=self.log)
        for _ in range(200):  # bounded wait for the listening server
            if os.path.exists(kc) or self.p.poll() is not None:
                break
            time.sleep(0.05)
        text = open(kc).read()
        server = [l.split()[-1] for l in text.splitlines() if "server:" in l][0]
        self.port = int(server.rsplit(":", 1)[1])
        self.admin = [l.split()[-1] for l in text.splitlines() if "token:" in l][0]

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def req(self, method, path, body=None, admin=False):
        c = self.conn()
        h = {"Authorization": "Bearer " + (self.admin if admin else TOKEN),
             "Content-Type": "application/json"}
        c.request(method, path, json.dumps(body) if body is not None else None, h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, dict(r.getheaders()), data

    def faults(self, what=None):
        out = []
        for line in open(self.audit):
            a = json.loads(line)
            if a["verb"] == "fault" and (what is None or a["fault"] == what):
                out.append(a)
        return out

    def stop(self):
        self.p.terminate()
        rc = self.p.wait()
        self.log.close()
        log = open(os.path.join(self.dir, "emu.log")).read()
        check("the emulator exits 0, no sanitizer report",
              rc == 0 and "Sanitizer" not in log and "runtime error" not in log, log[-2000:])


def pod(name, pad=0):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "busybox",
                                  "resources": {"requests": {"cpu": "1"}}}]}}
    if pad:
        p["metadata"]["annotations"] = {"pad": "x" * pad}
    return p


def node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "8"}, "capacity": {"cpu": "8"}}}


def make_pods(e, n, pad=0):
    for i in range(n):
        e.req("POST", "/api/v1/namespaces/default/pods", pod("p-%03d" % i, pad), admin=True)


def test_429(tmp):
    e = Emu(tmp, "--fault-429", "1")
    code, headers, _ = e.req("GET", "/api/v1/pods")
    check("--fault-429: 429", code == 429, code)
    check("--fault-429: with Retry-After", headers.get("Retry-After") == "1", headers)
    check("--fault-429: the spared client is served",
          e.req("GET", "/api/v1/pods", admin=True)[0] == 200)
    f = e.faults("429")
    check("--fault-429: one audit line", len(f) == 1 and f[0]["requestVerb"] == "GET"
          and f[0]["user"] == "client", f)
    e.stop()


def test_500(tmp):
    e = Emu(tmp, "--fault-500", "1")
    codes = {e.req("GET", "/api/v1/nodes")[0] for _ in range(20)}
    check("--fault-500: 500 or 503 only", codes <= {500, 503} and codes, codes)
    check("--fault-500: 20 audit lines", len(e.faults("500") + e.faults("503")) == 20)
    e.stop()


def test_seed(tmp):
    seqs = []
    for _ in range(2):
        e = Emu(tmp, "--fault-429", "0.5", "--seed", "7")
        seqs.append([e.req("GET", "/api/v1/nodes")[0] for _ in range(30)])
        e.stop()
    e = Emu(tmp, "--fault-429", "0.5", "--seed", "8")
    other = [e.req("GET", "/api/v1/nodes")[0] for _ in range(30)]
    e.stop()
    check("--seed: the same seed, the same faults", seqs[0] == seqs[1], seqs)
    check("--seed: a share, both answers", {200, 429} == set(seqs[0]), seqs[0])
    check("--seed: another seed, other faults", other != seqs[0])


def test_latency(tmp):
    e = Emu(tmp, "--fault-latency-ms", "1500")
    t0 = time.monotonic()
    code = e.req("GET", "/api/v1/nodes")[0]
    check("--fault-latency-ms: the request waits at least that long",
          code == 200 and time.monotonic() - t0 >= 1.5)
    # A slow request does not hold up another connection: the spared
    # client's answer comes while the slow one still waits.
    slow = threading.Thread(target=e.req, args=("GET", "/api/v1/nodes"))
    slow.start()
    time.sleep(0.2)
    code = e.req("GET", "/api/v1/nodes", admin=True)[0]
    check("--fault-latency-ms: other connections are not blocked",
          code == 200 and slow.is_alive())
    slow.join()
    e.stop()


def watch(e, query, admin=False):
    """A raw watch: (status, lines, complete)."""
    c = e.conn()
    c.request("GET", "/api/v1/namespaces/default/pods?watch=1&" + query,
              headers={"Authorization": "Bearer " + (e.admin if admin else TOKEN)})
    r = c.getresponse()
    try:
        data, complete = r.read(), True
    except http.client.IncompleteRead as ex:
        data, complete = ex.partial, False
    c.close()
    return r.status, data, complete


def test_drop_watch(tmp):
    e = Emu(tmp, "--fault-drop-watch", "1")
    make_pods(e, 40, pad=1000)  # ~40 KiB of events: the cut lands inside
    code, data, complete = watch(e, "timeoutSeconds=2")
    check("--fault-drop-watch: the stream ends without its end", code == 200 and not complete,
          (code, complete))
    check("--fault-drop-watch: cut within 16 KiB", len(data) < 16384, len(data))
    code, data, complete = watch(e, "timeoutSeconds=1", admin=True)
    check("--fault-drop-watch: the spared client's stream is whole",
          complete and data.count(b"\n") == 40)
    check("--fault-drop-watch: one audit line", len(e.faults("drop-watch")) == 1)
    e.stop()


def test_410(tmp):
    e = Emu(tmp, "--fault-410", "1")
    make_pods(e, 2)
    kinds = set()
    for _ in range(16):
        code, data, _ = watch(e, "resourceVersion=1&timeoutSeconds=1")
        if code == 410:
            kinds.add("status")
        elif code == 200:
            ev = json.loads(data.splitlines()[0])
            if ev["type"] == "ERROR" and ev["object"]["code"] == 410 and len(data.splitlines()) == 1:
                kinds.add("event")
    check("--fault-410: both a 410 answer and an ERROR event", kinds == {"status", "event"}, kinds)
    check("--fault-410: 16 audit lines", len(e.faults("410")) == 16)
    e.stop()


def test_duplicate(tmp):
    e = Emu(tmp, "--fault-duplicate", "1")
    make_pods(e, 5)
    _, data, _ = watch(e, "timeoutSeconds=1")
    lines = data.splitlines()
    check("--fault-duplicate: every event twice",
          len(lines) == 10 and all(lines[i] == lines[i + 1] for i in range(0, 10, 2)), len(lines))
    check("--fault-duplicate: 5 audit lines", len(e.faults("duplicate")) == 5)
    e.stop()


def test_bind_504(tmp):
    e = Emu(tmp, "--fault-bind-504", "1")
    e.req("POST", "/api/v1/nodes", node("n1"), admin=True)
    make_pods(e, 1)
    code, _, body = e.req("POST", "/api/v1/namespaces/default/pods/p-000/binding",
                          {"apiVersion": "v1", "kind": "Binding",
                           "metadata": {"name": "p-000"}, "target": {"kind": "Node", "name": "n1"}})
    check("--fault-bind-504: answered 504", code == 504, (code, body))
    _, _, body = e.req("GET", "/api/v1/namespaces/default/pods/p-000", admin=True)
    check("--fault-bind-504: the binding was applied",
          json.loads(body)["spec"].get("nodeName") == "n1")
    audit = [json.loads(l) for l in open(e.audit)]
    binds = [a for a in audit if a["verb"] == "bind"]
    check("--fault-bind-504: the audit has the bind (201) and the fault",
          [b["code"] for b in binds] == [201] and len(e.faults("bind-504")) == 1)
    e.stop()


def test_malformed(tmp):
    e = Emu(tmp, "--fault-malformed=1")
    make_pods(e, 40)
    _, _, body = e.req("GET", "/api/v1/namespaces/default/pods")
    items = json.loads(body)["items"]
    broken = set()
    for p in items:
        spec = p["spec"]
        if not isinstance(spec.get("containers"), list):
            broken.add("type")
        elif len(json.dumps(p)) > 256 * 1024:
            broken.add("huge")
        elif "affinity" in spec:
            broken.add("nesting")
        else:
            cpu = spec["containers"][0]["resources"]["requests"]["cpu"]
            broken.add({"9e999999999": "quantity", "-4": "negative"}.get(cpu, "none"))
    check("--fault-malformed: every pod broken, the five ways",
          broken == {"type", "huge", "nesting", "quantity", "negative"}, broken)
    _, _, body = e.req("GET", "/api/v1/namespaces/default/pods", admin=True)
    ok = all(p["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1"
             for p in json.loads(body)["items"])
    check("--fault-malformed: the stored pods are whole (the spared client)", ok)
    _, data, _ = watch(e, "timeoutSeconds=1")
    again = json.loads(data.splitlines()[0])["object"]
    first = [p for p in items if p["metadata"]["name"] == again["metadata"]["name"]][0]
    check("--fault-malformed: a pod is broken the same way every time", again == first)
    check("--fault-malformed: one audit line per pod served (40 listed, 40 watched)",
          len([f for f in e.faults() if f["fault"].startswith("malformed-")]) == 80)
    e.stop()


def test_down(tmp):
    e = Emu(tmp)
    make_pods(e, 3)
    c = e.conn()  # a watch open when the server goes down ends
    c.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=0",
              headers={"Authorization": "Bearer " + TOKEN})
    r = c.getresponse()
    r.readline()
    e.p.send_signal(signal.SIGUSR1)
    try:
        rest = r.read()
        ended = True
    except (http.client.IncompleteRead, ConnectionError, OSError):
        ended = True
    c.close()
    check("SIGUSR1: an open watch ends", ended)
    try:
        code = e.req("GET", "/api/v1/pods", admin=True)[0]
    except (ConnectionError, http.client.HTTPException, OSError):
        code = None
    check("SIGUSR1: every connection is refused or closed", code is None, code)
    e.p.send_signal(signal.SIGUSR2)
    served = None
    for _ in range(50):  # the handler runs at once; bounded retry anyway
        try:
            served = e.req("GET", "/api/v1/namespaces/default/pods")
            break
        except (ConnectionError, http.client.HTTPException, OSError):
            time.sleep(0.1)
    check("SIGUSR2: served again with the state kept",
          served and served[0] == 200 and len(json.loads(served[2])["items"]) == 3)
    for _ in range(50):
        if e.faults("up"):
            break
        time.sleep(0.1)
    check("SIGUSR1/2: audit lines down and up",
          [f["fault"] for f in e.faults()] == ["down", "up"], e.faults())
    e.stop()


def test_bad_flags(tmp):
    for args in (["--fault-429", "2"], ["--fault-500", "x"], ["--fault-latency-ms", "-1"],
                 ["--seed", "z"]):
        r = subprocess.run([EMU, "--listen", "127.0.0.1:0", "--kubeconfig-out",
                            os.path.join(tmp, "kc")] + args, capture_output=True, text=True)
        check("%s: refused (2) naming the flag" % " ".join(args),
              r.returncode == 2 and args[0] in r.stderr, r.stderr)
    r = subprocess.run([EMU, "--help"], capture_output=True, text=True)
    check("--help names every fault flag", all(f in r.stdout for f in (
        "--seed", "--fault-drop-watch", "--fault-410", "--fault-duplicate", "--fault-429",
        "--fault-500", "--fault-latency-ms", "--fault-bind-504", "--fault-malformed",
        "--fault-spare", "SIGUSR1", "SIGUSR2")))


def main():
    if not os.access(EMU, os.X_OK):
        print("skipping: %s is not built" % EMU)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        for t in (test_bad_flags, test_429, test_500, test_seed, test_latency, test_drop_watch,
                  test_410, test_duplicate, test_bind_504, test_malformed, test_down):
            t(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
