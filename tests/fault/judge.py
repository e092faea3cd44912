#!/usr/bin/python3
"""judge.py - the fault matrix's invariants, from ordo-kube-emu's audit
log and the load's manifest (tests/fault/load.py) alone:

  judge.py MANIFEST AUDIT [options]       the checks; exit 1 on a violation
  judge.py MANIFEST AUDIT --settled       exit 0 once every workload ran

  --quota-change CQ:RES=N   the harness lowered CQ's nominal quota of RES to N
                            (millicores, MiB) with the first patch of CQ in
                            the audit: from there on nothing in CQ is evicted
                            and nothing new admitted over the new quota
  --grace S                 only for binds that name no ClusterQueue version
                            (an older scheduler): admissions whose first bind
                            lands within S seconds (1) of the quota change
                            were decided before it
  --lease-duration S        a Lease held is held S seconds after its last
                            renewal (15)
  --clients A,B             the scheduler's token names (default: every user
                            but admin and system:*)

The checks:
- no pod bound twice (two successful binds of one pod);
- no gang split: at the end each workload's live bound pods (bound, not
  deleted, evicted) are none or all of them;
- no ClusterQueue over nominal + borrowingLimit, no cohort over the sum of
  its nominal quotas, at any instant: binds charge the pod's requests to its
  LocalQueue's ClusterQueue, deletions, evictions and completions give them
  back, in audit order;
- every workload ran (all its pods bound at once, or completed), except those
  with a pod the emulator served malformed (--fault-malformed) and plain pods
  the scheduler evicted (a preempted plain pod is gone, as with Kueue);
- nothing written by a scheduler that did not hold the Lease then: once a
  client writes a Lease, a write by another client, or by it after its lease
  ran out, is a violation;
- with --quota-change, nothing in CQ evicted after the change, and each new
  admission in CQ (its first bind) judged by the ClusterQueue version it was
  decided against: the bind's "cqVersion" (the Binding's
  ordo.dev/cluster-queue-version annotation) against the resourceVersion
  the change's patch produced. Older: decided before the change, allowed
  (what it takes may stay over the new quota, as what ran then does). The
  change's version or later: it must fit the new quota, however soon after
  the patch it lands. No cqVersion: decided before if its first bind lands
  within --grace of the patch, else judged.

It prints its figures (pods, binds, evictions, faults injected by kind,
violations). Pod names give their workload: a plain pod is its own, a Job's
are "<job>-<suffix>"."""
import datetime
import json
import sys

RESOURCES = ("cpu", "memory")
WRITES = ("create", "update", "patch", "delete", "deletecollection", "bind", "evict")


def parse_time(s):
    return datetime.datetime.strptime(s.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").timestamp()


class Judge:
    def __init__(self, manifest, audit, quota_change=None, lease_s=15.0, clients=None,
                 grace_s=1.0):
        self.m = manifest
        self.audit = audit
        self.quota_change = quota_change or {}  # {cq: {res: new}}
        self.lease_s = lease_s
        self.clients = clients
        self.wl = {}
        self.plain = {}
        for w in manifest["workloads"]:
            key = (w["namespace"], w["name"])
            self.wl[key] = w
        self.violations = []
        self.figures = {}
        self.changes = []  # (line, cq, {res: (usage then, new quota)})
        self.grace_s, self.graced = grace_s, 0
        # New admissions in a changed ClusterQueue after the change, by
        # how they were judged: decided before it by their version,
        # decided after it by their version, no version.
        self.before = self.after = self.unversioned = 0

    def workload_of(self, ns, pod):
        if (ns, pod) in self.wl and self.wl[(ns, pod)]["kind"] == "Pod":
            return (ns, pod)
        job = (ns, pod.rsplit("-", 1)[0])
        return job if job in self.wl else None

    def cq_of(self, key):
        w = self.wl[key]
        return self.m["localQueues"].get(w["namespace"] + "/" + w["queue"])

    def violate(self, what, detail):
        self.violations.append("%s: %s" % (what, detail))

    def is_client(self, user):
        if self.clients is not None:
            return user in self.clients
        return bool(user) and user != "admin" and not user.startswith("system:")

    def cap(self, cq, nominal):
        """What cq may use: nominal + borrowingLimit; in a cohort without a
        limit, only the cohort bounds it."""
        q = self.m["clusterQueues"][cq]
        bl = q.get("borrowingLimit") or {}
        return {r: nominal[cq][r] + bl[r] if r in bl else
                (None if q.get("cohort") else nominal[cq][r]) for r in RESOURCES}

    def run(self):
        cqs = self.m["clusterQueues"]
        used = {cq: {r: 0 for r in RESOURCES} for cq in cqs}
        nominal = {cq: dict(q["nominal"]) for cq, q in cqs.items()}
        cohorts = {}
        for cq, q in cqs.items():
            if q.get("cohort"):
                cohorts.setdefault(q["cohort"], []).append(cq)
        bound_once, charged = set(), {}  # pod -> (cq, workload)
        live = {k: 0 for k in self.wl}  # live bound pods per workload
        best = {k: 0 for k in self.wl}
        done = {k: 0 for k in self.wl}
        held_over = set()  # running when a quota was lowered
        preempted = set()  # plain pods the scheduler evicted: ended
        change_time = {}  # ClusterQueue -> when its quota was lowered
        change_rv = {}  # ClusterQueue -> the resourceVersion that patch made
        changed = set()  # ClusterQueues whose quota was lowered, from then on
        malformed_pods, faults = set(), {}
        holder, renewed = None, 0.0
        binds = evictions = completions = 0
        for i, a in enumerate(self.audit):
            line = i + 1
            verb, res, code = a.get("verb"), a.get("resource"), a.get("code", 0)
            user = a.get("user")
            if verb == "fault":
                faults[a["fault"]] = faults.get(a["fault"], 0) + 1
                if a["fault"].startswith("malformed-"):
                    malformed_pods.add((a.get("namespace"), a.get("name")))
                continue
            ok = 200 <= code < 300
            t = parse_time(a["time"]) if "time" in a else 0.0
            # The Lease: its holder is the client that last wrote it.
            if res == "leases" and ok and verb in ("create", "update", "patch") \
                    and self.is_client(user):
                holder, renewed = user, t
            elif verb in WRITES and ok and self.is_client(user) and holder is not None:
                if user != holder:
                    self.violate("write without the lease", "line %d: %s %s %s/%s by %s, "
                                 "held by %s" % (line, verb, res, a.get("namespace"),
                                                 a.get("name"), user, holder))
                elif t - renewed > self.lease_s:
                    self.violate("write after the lease ran out",
                                 "line %d: %s by %s, %.1f s after its renewal"
                                 % (line, verb, user, t - renewed))
            if res == "clusterqueues" and ok and verb in ("patch", "update") \
                    and a.get("name") in self.quota_change and user == "admin":
                changed.add(a["name"])
                change_time[a["name"]] = t
                change_rv[a["name"]] = version(a.get("resourceVersion"))
                self.changes.append((line, a["name"], {
                    r: (used[a["name"]][r], v) for r, v in self.quota_change[a["name"]].items()}))
                nominal[a["name"]].update(self.quota_change[a["name"]])
                # What runs then may stay over; only new admissions count.
                held_over |= {k for k in self.wl if live[k]}
            if res != "pods" or not ok:
                continue
            pod = (a.get("namespace"), a.get("name"))
            key = self.workload_of(*pod)
            if verb == "bind":
                binds += 1
                if pod in bound_once:
                    self.violate("pod bound twice", "line %d: %s/%s" % (line, *pod))
                    continue
                bound_once.add(pod)
                if key is None:
                    self.violate("bind of a pod of no workload", "line %d: %s/%s" % (line, *pod))
                    continue
                cq = self.cq_of(key)
                new_admission = live[key] == 0
                charged[pod] = (cq, key)
                live[key] += 1
                best[key] = max(best[key], live[key])
                req = self.wl[key]["requests"]
                for r in RESOURCES:
                    used[cq][r] += req[r]
                decided = self.decided(a, t, cq, change_time, change_rv) \
                    if new_admission and cq in change_time else "after"
                if decided == "before":
                    # Decided on the quota before the change: like what
                    # ran then, what it takes may stay over the new one.
                    held_over.add(key)
                elif new_admission or key not in held_over:
                    held_over.discard(key)
                    self.check_quota(line, cq, used, nominal, cohorts)
            elif verb in ("delete", "evict", "complete"):
                if verb == "evict" or (verb == "delete" and self.is_client(user)):
                    evictions += 1
                    if key is not None and self.wl[key]["kind"] == "Pod":
                        preempted.add(key)  # a plain pod goes with its eviction
                    if key is not None and self.cq_of(key) in changed:
                        self.violate("eviction after the quota was lowered",
                                     "line %d: %s %s/%s" % (line, verb, *pod))
                if verb == "complete":
                    completions += 1
                    if key is not None:
                        done[key] += 1
                if pod in charged:
                    cq, k = charged.pop(pod)
                    live[k] -= 1
                    req = self.wl[k]["requests"]
                    for r in RESOURCES:
                        used[cq][r] -= req[r]
        broken = {self.workload_of(*p) for p in malformed_pods} - {None}
        for k in self.wl:
            n = self.wl[k]["pods"]
            if 0 < live[k] < n:
                self.violate("gang split at the end", "%s/%s: %d of %d pods bound"
                             % (k[0], k[1], live[k], n))
        self.not_run = sorted("%s/%s" % k for k in self.wl
                              if k not in broken and k not in preempted
                              and best[k] < self.wl[k]["pods"]
                              and done[k] < self.wl[k]["pods"])
        self.used = used  # at the end of the audit read
        self.figures = {
            "workloads": len(self.wl), "pods": sum(w["pods"] for w in self.wl.values()),
            "binds": binds, "evictions": evictions, "completions": completions,
            "malformed workloads": len(broken), "plain pods preempted": len(preempted), "faults injected": sum(faults.values()),
            "faults": faults,
        }
        return self

    def decided(self, a, t, cq, change_time, change_rv):
        """Whether new admission a (its first bind, at t) in cq, whose
        quota was changed, was decided "before" or "after" the change:
        by the ClusterQueue version the bind names, else by the grace."""
        ver, changed_at = version(a.get("cqVersion")), change_rv.get(cq)
        if ver is not None and changed_at is not None:
            if ver < changed_at:
                self.before += 1
                return "before"
            self.after += 1
            return "after"
        self.unversioned += 1
        if t - change_time[cq] <= self.grace_s:
            # An older scheduler's bind: its watch event may be in flight,
            # and a cycle's binds land over a moment.
            self.graced += 1
            return "before"
        return "after"

    def check_quota(self, line, cq, used, nominal, cohorts):
        cap = self.cap(cq, nominal)
        for r in RESOURCES:
            if cap[r] is not None and used[cq][r] > cap[r]:
                self.violate("ClusterQueue over its limit", "line %d: %s %s %d > %d"
                             % (line, cq, r, used[cq][r], cap[r]))
        cohort = self.m["clusterQueues"][cq].get("cohort")
        if cohort:
            for r in RESOURCES:
                total = sum(used[c][r] for c in cohorts[cohort])
                room = sum(nominal[c][r] for c in cohorts[cohort])
                if total > room:
                    self.violate("cohort over its quota", "line %d: %s %s %d > %d"
                                 % (line, cohort, r, total, room))

    def report(self, out=sys.stdout):
        f = self.figures
        print("pods %d (%d workloads), binds %d, evictions %d, completions %d"
              % (f["pods"], f["workloads"], f["binds"], f["evictions"], f["completions"]), file=out)
        print("faults injected %d %s" % (f["faults injected"],
                                         json.dumps(f["faults"], sort_keys=True)), file=out)
        for line, cq, rs in self.changes:
            print("quota of %s lowered at line %d: %s" % (cq, line, ", ".join(
                "%s %d used > %d" % (r, u, n) if u > n else "%s %d used <= %d" % (r, u, n)
                for r, (u, n) in sorted(rs.items()))), file=out)
            print("new admissions in %s after it, by the ClusterQueue version they "
                  "name: decided before the change: %d, after it: %d"
                  % (cq, self.before, self.after), file=out)
            if self.unversioned:
                print("admissions naming no ClusterQueue version: %d, of which %d in "
                      "the %.1f s grace taken as decided before the change"
                      % (self.unversioned, self.graced, self.grace_s), file=out)
        if self.not_run:
            self.violate("workload never ran", "%d: %s" % (len(self.not_run),
                                                           " ".join(self.not_run[:10])))
        print("violations %d" % len(self.violations), file=out)
        kinds = {}
        for v in self.violations:
            kinds.setdefault(v.split(":")[0], []).append(v)
        for k, vs in sorted(kinds.items()):
            for v in vs[:5]:
                print("  " + v, file=out)
            if len(vs) > 5:
                print("  ... %d more %s" % (len(vs) - 5, k), file=out)
        return len(self.violations)


def version(rv):
    """A resourceVersion as a number to order by (the emulator's are
    counters), or None."""
    try:
        return int(rv)
    except (TypeError, ValueError):
        return None


def load_audit(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.endswith("\n"):  # a line being written is left out
                out.append(json.loads(line))
    return out


def main(argv):
    args = argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    manifest, audit = json.load(open(args[0])), load_audit(args[1])
    change, lease_s, clients, settled, grace_s = {}, 15.0, None, False, 1.0
    rest = args[2:]
    while rest:
        opt = rest.pop(0)
        if opt == "--settled":
            settled = True
        elif opt == "--quota-change" and rest:
            cq, _, kv = rest.pop(0).partition(":")
            r, _, n = kv.partition("=")
            change.setdefault(cq, {})[r] = int(n)
        elif opt == "--grace" and rest:
            grace_s = float(rest.pop(0))
        elif opt == "--lease-duration" and rest:
            lease_s = float(rest.pop(0))
        elif opt == "--clients" and rest:
            clients = set(rest.pop(0).split(","))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    j = Judge(manifest, audit, change, lease_s, clients, grace_s).run()
    if settled:
        return 0 if not j.not_run else 1
    return 1 if j.report() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
