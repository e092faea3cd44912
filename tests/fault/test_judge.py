#!/usr/bin/python3
"""test_judge.py - tests/fault/judge.py on small hand-written audits: each
invariant it checks is broken once (it must say so) and kept once (it
must not). Prints "ok - ..." lines and the counts."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s %s" % (name, detail))


# Two ClusterQueues in a cohort: cq-a 4 CPUs (may borrow 2), cq-b 4 CPUs
# (no limit); a third alone with 2.
MANIFEST = {
    "clusterQueues": {
        "cq-a": {"cohort": "pool", "nominal": {"cpu": 4000, "memory": 4096},
                 "borrowingLimit": {"cpu": 2000, "memory": 2048}},
        "cq-b": {"cohort": "pool", "nominal": {"cpu": 4000, "memory": 4096}, "borrowingLimit": {}},
        "cq-c": {"cohort": None, "nominal": {"cpu": 2000, "memory": 4096}, "borrowingLimit": {}},
    },
    "localQueues": {"a/lq": "cq-a", "b/lq": "cq-b", "c/lq": "cq-c"},
    "workloads": [
        {"kind": "Job", "namespace": "a", "name": "job-1", "pods": 2, "queue": "lq",
         "requests": {"cpu": 1000, "memory": 1024}},
        {"kind": "Job", "namespace": "a", "name": "job-2", "pods": 4, "queue": "lq",
         "requests": {"cpu": 1000, "memory": 1024}},
        {"kind": "Pod", "namespace": "b", "name": "pod-1", "queue": "lq", "pods": 1,
         "requests": {"cpu": 3000, "memory": 1024}},
        {"kind": "Pod", "namespace": "c", "name": "pod-2", "queue": "lq", "pods": 1,
         "requests": {"cpu": 2000, "memory": 1024}},
    ],
}
T = [0.0]


def rec(verb, ns, name, user="sched-1", code=None, resource="pods", dt=0.1, **kw):
    T[0] += dt
    s = T[0]
    a = {"time": "2026-01-01T00:%02d:%02d.%06dZ" % (s // 60, s % 60, (s % 1) * 1e6),
         "verb": verb, "resource": resource, "namespace": ns, "name": name,
         "code": code if code is not None else (201 if verb in ("bind", "evict") else 200),
         "user": user}
    a.update(kw)
    return a


def bind(ns, name, **kw):
    return rec("bind", ns, name, **kw)


def done(ns, name):
    return rec("complete", ns, name, user="system:node:kubelet")


def everything_runs():
    """job-1, job-2, pod-1 and pod-2 each bound whole, then completed."""
    out = []
    for p in ("job-1-x1", "job-1-x2"):
        out.append(bind("a", p))
    for p in ("job-1-x1", "job-1-x2"):
        out.append(done("a", p))
    for p in ("job-2-y1", "job-2-y2", "job-2-y3", "job-2-y4"):
        out.append(bind("a", p))
    out += [bind("b", "pod-1"), bind("c", "pod-2")]
    for p in ("job-2-y1", "job-2-y2", "job-2-y3", "job-2-y4"):
        out.append(done("a", p))
    out += [done("b", "pod-1"), done("c", "pod-2")]
    return out


def judged(audit, **kw):
    j = judge.Judge(MANIFEST, audit, **kw).run()
    with open(os.devnull, "w") as null:
        j.report(null)
    return j


def kinds(j):
    return {v.split(":")[0] for v in j.violations}


def main():
    good = everything_runs()
    j = judged(good)
    check("a clean run: no violation", not j.violations, j.violations)
    check("a clean run: its figures", j.figures["binds"] == 8 and j.figures["completions"] == 8,
          j.figures)

    j = judged(good + [bind("c", "pod-2")])
    check("a pod bound twice", "pod bound twice" in kinds(j), j.violations)

    # job-2's 4 pods and pod-1's 3 CPUs: cq-a at 6 (its limit) is fine,
    # cq-a and cq-b at 9 > 8 in the cohort is not.
    over = [bind("a", "job-2-y%d" % i) for i in range(1, 5)] + \
        [bind("a", "job-1-x1"), bind("a", "job-1-x2"), bind("b", "pod-1")]
    j = judged(over)
    check("a cohort over its quota", "cohort over its quota" in kinds(j), j.violations)
    check("a ClusterQueue at its borrowing limit is within it",
          "ClusterQueue over its limit" not in kinds(j), j.violations)
    j = judged(over[:6] + [bind("a", "job-x-1")])
    check("a bind of no workload", "bind of a pod of no workload" in kinds(j), j.violations)
    j = judged([bind("c", "pod-2"), bind("a", "job-1-x1"), done("c", "pod-2"), done("a", "job-1-x1")])
    check("a gang never whole: never ran", "workload never ran" in kinds(j), j.violations)
    j = judged([bind("a", "job-2-y1"), bind("a", "job-2-y2")])
    check("a gang half bound at the end: split", "gang split at the end" in kinds(j), j.violations)
    evicted = [bind("a", "job-1-x1"), rec("evict", "a", "job-1-x1")] + \
        [a for a in good if not a["name"].startswith("job-1-x1")]
    j = judged(evicted)
    check("a gang's bound pod evicted at the end: no split",
          "gang split at the end" not in kinds(j), j.violations)
    plain = [a for a in good if a["name"] != "pod-1"] + [rec("evict", "b", "pod-1")]
    j = judged(plain)
    check("a plain pod preempted before it ran has ended", not j.violations, j.violations)
    cq_c = [bind("c", "pod-2"), done("c", "pod-2"), bind("c", "pod-2-again")]
    MANIFEST["workloads"].append({"kind": "Pod", "namespace": "c", "name": "pod-2-again",
                                  "queue": "lq", "pods": 1,
                                  "requests": {"cpu": 2000, "memory": 1024}})
    j = judged(cq_c)
    check("quota given back by completions", "ClusterQueue over its limit" not in kinds(j),
          j.violations)
    j = judged([bind("c", "pod-2"), bind("c", "pod-2-again")])
    check("a ClusterQueue alone over its nominal", "ClusterQueue over its limit" in kinds(j),
          j.violations)
    MANIFEST["workloads"].pop()

    # Quota lowered (cq-a to 1 CPU, so 3 with what it may borrow; the
    # patch makes version 50) while job-1 runs: job-2 admitted later, 6
    # CPUs in all, is a violation unless the version its binds name says
    # it was decided before the change; binds naming none fall back to
    # the grace; an eviction after it is one.
    change = {"cq-a": {"cpu": 1000}}

    def base():
        return [bind("a", "job-1-x1", cqVersion="40"), bind("a", "job-1-x2", cqVersion="40"),
                rec("patch", None, "cq-a", user="admin", resource="clusterqueues",
                    resourceVersion="50")]
    j = judged(base() + [bind("a", "job-2-y1", dt=5), bind("a", "job-2-y2")],
               quota_change=change)
    check("an admission over a lowered quota", "ClusterQueue over its limit" in kinds(j),
          j.violations)
    check("the change's usage is reported", j.changes and j.changes[0][2]["cpu"] == (2000, 1000),
          j.changes)
    j = judged(base() + [bind("a", "job-2-y1", dt=0.2), bind("a", "job-2-y2")],
               quota_change=change)
    check("an admission naming no version within the grace was decided before",
          "ClusterQueue over its limit" not in kinds(j) and j.graced == 1
          and j.unversioned == 1, j.violations)
    j = judged(base() + [bind("a", "job-2-y1", dt=0.2), bind("a", "job-2-y2")],
               quota_change=change, grace_s=0.0)
    check("an admission naming no version, no grace: judged",
          "ClusterQueue over its limit" in kinds(j) and j.graced == 0, j.violations)
    # The version the admission was decided against tells, not the time:
    # the change's version is judged even 0.1 s after the patch, an older
    # one is allowed even 3 s after (binds still in flight), whatever the
    # grace.
    for ver, dt, over, name in (("50", 0.1, True, "the change's version 0.1 s after"),
                                ("61", 0.1, True, "a later version 0.1 s after"),
                                ("40", 3.0, False, "an older version 3 s after"),
                                ("49", 0.1, False, "an older version 0.1 s after")):
        j = judged(base() + [bind("a", "job-2-y1", dt=dt, cqVersion=ver),
                             bind("a", "job-2-y2", cqVersion=ver)],
                   quota_change=change, grace_s=1.0)
        check("an admission over a lowered quota naming %s: %s" % (
            name, "a violation" if over else "decided before"),
            ("ClusterQueue over its limit" in kinds(j)) == over and
            j.before == (0 if over else 1) and j.after == (1 if over else 0)
            and j.graced == 0, j.violations)
    # Versions are numbers: "9" is older than "50", not later.
    j = judged(base() + [bind("a", "job-2-y1", dt=5, cqVersion="9"),
                         bind("a", "job-2-y2", cqVersion="9")], quota_change=change)
    check("versions compare as numbers", "ClusterQueue over its limit" not in kinds(j)
          and j.before == 1, j.violations)
    # Decided before the change, it may stay over the new quota while its
    # pods bind; one decided after that fits is fine.
    j = judged(base() + [done("a", "job-1-x1"), done("a", "job-1-x2"),
                         bind("a", "job-1-z1", dt=5, cqVersion="50"),
                         bind("a", "job-1-z2", cqVersion="50")],
               quota_change=change)
    check("an admission after the change that fits the new quota",
          "ClusterQueue over its limit" not in kinds(j) and j.after == 1, j.violations)
    j = judged(base() + [done("a", "job-1-x1"), done("a", "job-1-x2"),
                       bind("c", "pod-2", dt=5)], quota_change=change)
    check("admissions elsewhere go on", "ClusterQueue over its limit" not in kinds(j), j.violations)
    j = judged(base() + [rec("evict", "a", "job-1-x1", dt=5)], quota_change=change)
    check("an eviction after the quota was lowered",
          "eviction after the quota was lowered" in kinds(j), j.violations)

    # The Lease: sched-1 holds it; sched-2 writes: a violation; sched-1
    # writes 20 s after its last renewal: a violation.
    lease = rec("update", "kube-system", "ordo", resource="leases")
    j = judged([lease, bind("c", "pod-2")])
    check("a write by the holder", not (kinds(j) & {"write without the lease",
                                                   "write after the lease ran out"}), j.violations)
    j = judged([lease, bind("c", "pod-2", user="sched-2")])
    check("a write by a client without the lease", "write without the lease" in kinds(j),
          j.violations)
    j = judged([lease, bind("c", "pod-2", dt=20)])
    check("a write after the lease ran out", "write after the lease ran out" in kinds(j),
          j.violations)
    j = judged([lease, rec("update", "kube-system", "ordo", user="sched-2", resource="leases"),
                bind("c", "pod-2", user="sched-2")])
    check("a write by the new holder", "write without the lease" not in kinds(j), j.violations)
    j = judged([bind("c", "pod-2", user="sched-2"), bind("a", "job-1-x1", user="sched-1")])
    check("no Lease written: the check is off", "write without the lease" not in kinds(j),
          j.violations)

    # Malformed pods: their workloads need not run; faults are counted.
    j = judged(good[:2] + [{"time": good[0]["time"], "verb": "fault",
                            "fault": "malformed-type", "namespace": "a", "name": "job-2-y1"},
                           {"time": good[0]["time"], "verb": "fault", "fault": "429"}])
    check("a malformed workload need not run",
          not any("job-2" in v for v in j.violations), j.violations)
    check("faults injected are counted", j.figures["faults injected"] == 2 and
          j.figures["faults"] == {"malformed-type": 1, "429": 1}, j.figures)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
