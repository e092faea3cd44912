#!/usr/bin/python3
"""kube_ha.py - the audit judge of test_kube_ha.sh (two ordo-scheduler
replicas on ordo-kube-emu, told apart by their tokens: sched-1, sched-2).

  kube_ha.py wait AUDIT USER WHAT N [AFTER]  waits (30 s at most) until USER
        made N successful writes WHAT ("lease" or "bind") after line AFTER;
        prints the line of the Nth
  kube_ha.py lines AUDIT                    the audit's line count now
  kube_ha.py silent AUDIT USER AFTER        exit 1 when USER wrote anything
        after line AFTER
  kube_ha.py leader-only AUDIT              exit 1 when a replica wrote
        (bind, evict, status...) while the last lease write was another's
  kube_ha.py holder KUBECONFIG NS NAME      prints the Lease's holderIdentity
        ("" when released), read with the official client (which parses
        its MicroTimes)"""
import json
import sys
import time


def audit(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def ok(a):
    return 200 <= a.get("code", 0) < 300


def is_lease(a):
    return a.get("resource") == "leases"


def wait(path, user, what, n, after):
    deadline = time.monotonic() + 30
    while True:
        seen = 0
        for i, a in enumerate(audit(path), 1):
            if i <= after or a.get("user") != user or not ok(a):
                continue
            if (what == "lease" and is_lease(a)) or (what == "bind" and a.get("verb") == "bind"):
                seen += 1
                if seen == n:
                    print(i)
                    return 0
        if time.monotonic() > deadline:
            print("only %d %s writes by %s after line %d" % (seen, what, user, after))
            return 1
        time.sleep(0.1)


def silent(path, user, after):
    bad = [(i, a) for i, a in enumerate(audit(path), 1) if i > after and a.get("user") == user]
    for i, a in bad[:10]:
        print("line %d: %s %s %s/%s by %s" % (i, a.get("verb"), a.get("resource"),
                                             a.get("namespace"), a.get("name"), user))
    print("%d writes by %s after line %d" % (len(bad), user, after))
    return 1 if bad else 0


def leader_only(path):
    holder, bad, writes = None, [], 0
    for i, a in enumerate(audit(path), 1):
        user = a.get("user") or ""
        if not user.startswith("sched-") or not ok(a):
            continue
        if is_lease(a):
            holder = user
            continue
        writes += 1
        if user != holder:
            bad.append("line %d: %s %s/%s by %s, last lease write by %s"
                       % (i, a.get("verb"), a.get("namespace"), a.get("name"), user, holder))
    for b in bad[:10]:
        print(b)
    print("%d writes, %d by a replica that did not hold the lease" % (writes, len(bad)))
    return 1 if bad else 0


def holder(kubeconfig, ns, name):
    try:
        from kubernetes import client, config
    except ImportError:
        print("SKIP: no python3-kubernetes")
        return 77
    api = client.CoordinationV1Api(config.new_client_from_config(config_file=kubeconfig))
    lease = api.read_namespaced_lease(name, ns)
    print("holder=%s transitions=%s renewTime=%s" % (lease.spec.holder_identity or "",
                                                    lease.spec.lease_transitions,
                                                    lease.spec.renew_time))
    return 0


def main(argv):
    if len(argv) in (6, 7) and argv[1] == "wait":
        return wait(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]) if len(argv) == 7 else 0)
    if len(argv) == 3 and argv[1] == "lines":
        print(len(audit(argv[2])))
        return 0
    if len(argv) == 5 and argv[1] == "silent":
        return silent(argv[2], argv[3], int(argv[4]))
    if len(argv) == 3 and argv[1] == "leader-only":
        return leader_only(argv[2])
    if len(argv) == 5 and argv[1] == "holder":
        return holder(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
