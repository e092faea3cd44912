#!/usr/bin/python3
"""kube_restart.py - the cluster side of test_kube_restart.sh, with the
official Python client (python3-kubernetes) against ordo-kube-emu.

  kube_restart.py setup KUBECONFIG PODS SEED   queues, nodes, gangs of Jobs
  kube_restart.py kill KUBECONFIG AUDIT PID N  SIGKILL PID after N binds, mid-gang
  kube_restart.py split KUBECONFIG [-v]        exit 0 when a Job is half bound
  kube_restart.py settled KUBECONFIG           exit 0 when nothing is left to do
  kube_restart.py check KUBECONFIG AUDIT SERVER TOKEN   the assertions

Pods run until deleted (no ordo.dev/sim-runtime), so quota is only given
back by deletions and evictions, which the audit records. Exit 77 without
the client."""
import json
import os
import random
import signal
import sys
import time
import urllib.request

try:
    from kubernetes import client, config
except ImportError:
    print("SKIP: no python3-kubernetes")
    sys.exit(77)

G, V = "kueue.x-k8s.io", "v1beta2"
NAMESPACES = ("team-a", "team-b")
CPUS = ("500m", "1", "2")
MEMS = ("512Mi", "1Gi", "2Gi")
RESOURCES = ("cpu", "memory")


def api(kubeconfig):
    return config.new_client_from_config(config_file=kubeconfig)


def quantity(s):
    """cpu in millicores, memory in bytes: the few forms setup writes."""
    s = str(s)
    if s.endswith("m"):
        return int(s[:-1])
    for suffix, mult in (("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30)):
        if s.endswith(suffix):
            return int(s[:-2]) * mult
    return int(s) * 1000


def mem(s):
    """memory: bytes, without the cpu rule for bare numbers."""
    q = quantity(s)
    return q // 1000 if str(s).isdigit() else q


def requests_of(spec):
    """A pod spec's requests, {resource: int}."""
    got = {r: 0 for r in RESOURCES}
    for c in spec.get("containers") or []:
        req = (c.get("resources") or {}).get("requests") or {}
        if "cpu" in req:
            got["cpu"] += quantity(req["cpu"])
        if "memory" in req:
            got["memory"] += mem(req["memory"])
    return got


def cq_name(ns):
    return "cq-" + ns.split("-")[1]


def setup(kubeconfig, pods, seed):
    rnd = random.Random(seed)
    a = api(kubeconfig)
    v1, batch = client.CoreV1Api(a), client.BatchV1Api(a)
    co = client.CustomObjectsApi(a)
    jobs, total, demand = [], 0, {ns: {r: 0 for r in RESOURCES} for ns in NAMESPACES}
    while total < pods:
        ns = NAMESPACES[len(jobs) % 2]
        par = rnd.randint(2, 8)
        cpu, memory = rnd.choice(CPUS), rnd.choice(MEMS)
        jobs.append((ns, "job-%04d" % len(jobs), par, cpu, memory, rnd.random() < 0.5))
        demand[ns]["cpu"] += par * quantity(cpu)
        demand[ns]["memory"] += par * mem(memory)
        total += par
    co.create_cluster_custom_object(G, V, "resourceflavors", {
        "apiVersion": G + "/" + V, "kind": "ResourceFlavor",
        "metadata": {"name": "default"}, "spec": {}})
    quota_cpu = 0
    for ns in NAMESPACES:
        v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        # About 40% of the demand: most workloads wait. Whole units, and
        # at least the largest gang (8 pods of 2 cpu, 2Gi).
        cpu = max(demand[ns]["cpu"] * 2 // 5 // 1000, 16)
        memory = max(demand[ns]["memory"] * 2 // 5 >> 30, 16)
        quota_cpu += cpu
        co.create_cluster_custom_object(G, V, "clusterqueues", {
            "apiVersion": G + "/" + V, "kind": "ClusterQueue",
            "metadata": {"name": cq_name(ns)},
            "spec": {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                     "resourceGroups": [{
                         "coveredResources": list(RESOURCES),
                         "flavors": [{"name": "default", "resources": [
                             {"name": "cpu", "nominalQuota": str(cpu)},
                             {"name": "memory", "nominalQuota": "%dGi" % memory}]}]}]}})
        co.create_namespaced_custom_object(G, V, ns, "localqueues", {
            "apiVersion": G + "/" + V, "kind": "LocalQueue",
            "metadata": {"name": "lq", "namespace": ns},
            "spec": {"clusterQueue": cq_name(ns)}})
    # Nodes hold twice the quota: only quota makes workloads wait.
    for i in range(quota_cpu * 2 // 32 + 2):
        v1.create_node(client.V1Node(
            metadata=client.V1ObjectMeta(name="node-%03d" % i,
                                         labels={"kubernetes.io/hostname": "node-%03d" % i}),
            status=client.V1NodeStatus(
                capacity={"cpu": "32", "memory": "256Gi", "pods": "110"},
                allocatable={"cpu": "32", "memory": "256Gi", "pods": "110"})))
    for ns, name, par, cpu, memory, suspend in jobs:
        batch.create_namespaced_job(ns, client.V1Job(
            metadata=client.V1ObjectMeta(name=name, labels={"kueue.x-k8s.io/queue-name": "lq"}),
            spec=client.V1JobSpec(
                parallelism=par, completions=par, suspend=suspend,
                template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
                    scheduler_name="ordo-scheduler", restart_policy="Never",
                    containers=[client.V1Container(
                        name="main", image="busybox",
                        resources=client.V1ResourceRequirements(
                            requests={"cpu": cpu, "memory": memory}))])))))
    print("%d jobs, %d pods, %d nodes" % (len(jobs), total, quota_cpu * 2 // 32 + 2))


def state(kubeconfig):
    """Jobs, pods by Job uid, and each ClusterQueue's quota, as JSON dicts."""
    a = api(kubeconfig)
    sanitize = a.sanitize_for_serialization
    jobs = [sanitize(j) for j in client.BatchV1Api(a).list_job_for_all_namespaces().items]
    pods = [sanitize(p) for p in client.CoreV1Api(a).list_pod_for_all_namespaces().items]
    cqs = client.CustomObjectsApi(a).list_cluster_custom_object(G, V, "clusterqueues")["items"]
    by_job = {}
    for p in pods:
        for o in p["metadata"].get("ownerReferences") or []:
            if o.get("kind") == "Job":
                by_job.setdefault(o["uid"], []).append(p)
    quota = {}
    for cq in cqs:
        res = cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
        quota[cq["metadata"]["name"]] = {
            r["name"]: (quantity if r["name"] == "cpu" else mem)(r["nominalQuota"]) for r in res}
    return jobs, by_job, quota


def bound(p):
    return bool(p["spec"].get("nodeName"))


def split_jobs(jobs, by_job):
    """Jobs with some pods bound and others not."""
    out = []
    for j in jobs:
        pods = by_job.get(j["metadata"]["uid"], [])
        n = sum(bound(p) for p in pods)
        if 0 < n < j["spec"]["parallelism"] or 0 < n < len(pods):
            out.append(j["metadata"]["namespace"] + "/" + j["metadata"]["name"])
    return out


def left_out(jobs, by_job, quota):
    """Jobs with no pod bound that would fit in their ClusterQueue's room."""
    used = {cq: {r: 0 for r in RESOURCES} for cq in quota}
    waiting = []
    for j in jobs:
        cq = cq_name(j["metadata"]["namespace"])
        pods = [p for p in by_job.get(j["metadata"]["uid"], []) if bound(p)]
        for p in pods:
            for r, q in requests_of(p["spec"]).items():
                used[cq][r] += q
        if not pods:
            waiting.append(j)
    out = []
    for j in waiting:
        cq = cq_name(j["metadata"]["namespace"])
        need = requests_of(j["spec"]["template"]["spec"])
        if all(need[r] * j["spec"]["parallelism"] <= quota[cq][r] - used[cq][r]
               for r in RESOURCES):
            out.append(j["metadata"]["namespace"] + "/" + j["metadata"]["name"])
    return out


def pod_history(server, token, timeout):
    """The last state of every pod ever made, deleted ones included: a
    watch from resourceVersion 1 (the emulator keeps every change, see
    --watch-window), read until a bookmark says it has caught up."""
    req = urllib.request.Request(
        server + "/api/v1/pods?watch=1&resourceVersion=1&allowWatchBookmarks=true"
        "&timeoutSeconds=%d" % timeout, headers={"Authorization": "Bearer " + token})
    last = {}
    with urllib.request.urlopen(req) as r:
        for line in r:
            ev = json.loads(line)
            if ev["type"] == "BOOKMARK":
                break
            if ev["type"] == "ERROR":
                raise SystemExit("watch from resourceVersion 1: %s" % ev["object"])
            o = ev["object"]
            last[(o["metadata"]["namespace"], o["metadata"]["name"])] = o
    return last


passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s %s" % (name, detail))


def check_all(kubeconfig, audit_file, server, token):
    jobs, by_job, quota = state(kubeconfig)
    history = pod_history(server, token, 30)
    audit = [json.loads(line) for line in open(audit_file)]
    binds = [a for a in audit if a["verb"] == "bind" and 200 <= a["code"] < 300]
    users = {}
    for b in binds:
        users[b.get("user")] = users.get(b.get("user"), 0) + 1
    print("binds by token: %s" % json.dumps(users, sort_keys=True))
    check("both schedulers bound pods", users.get("sched-1", 0) > 0 and users.get("sched-2", 0) > 0,
          json.dumps(users))

    seen, twice = set(), []
    for b in binds:
        key = (b["namespace"], b["name"])
        if key in seen:
            twice.append("%s/%s" % key)
        seen.add(key)
    check("no pod bound twice", not twice, " ".join(twice[:10]))

    # Quota replayed in audit order: a bind charges the pod's requests to
    # the ClusterQueue it records, a deletion or eviction gives them back.
    used = {cq: {r: 0 for r in RESOURCES} for cq in quota}
    charged, over, unknown = {}, [], []
    for i, a in enumerate(audit):
        if a.get("resource") != "pods" or not 200 <= a["code"] < 300:
            continue
        key = (a.get("namespace"), a.get("name"))
        if a["verb"] == "bind":
            p = history.get(key)
            cq = ((p or {}).get("metadata", {}).get("annotations") or {}).get("ordo.dev/cluster-queue")
            if cq not in quota:
                unknown.append("%s/%s (%s)" % (key[0], key[1], cq))
                continue
            req = requests_of(p["spec"])
            charged[key] = (cq, req)
            for r in RESOURCES:
                used[cq][r] += req[r]
                if used[cq][r] > quota[cq][r]:
                    over.append("line %d: %s %s %d > %d" % (i + 1, cq, r, used[cq][r], quota[cq][r]))
        elif a["verb"] in ("delete", "evict") and key in charged:
            cq, req = charged.pop(key)
            for r in RESOURCES:
                used[cq][r] -= req[r]
        elif a["verb"] == "deletecollection":
            unknown.append("deletecollection of pods in %s" % a.get("namespace"))
    check("every bound pod records a known ordo.dev/cluster-queue", not unknown, " ".join(unknown[:10]))
    check("ClusterQueue quota never exceeded in the audit", not over, " ".join(over[:10]))

    split = split_jobs(jobs, by_job)
    check("no gang split at the end", not split, " ".join(split[:10]))
    full = [j for j in jobs if sum(bound(p) for p in by_job.get(j["metadata"]["uid"], []))
            == j["spec"]["parallelism"]]
    check("some workloads bound, some waiting on quota", 0 < len(full) < len(jobs),
          "%d of %d" % (len(full), len(jobs)))
    left = left_out(jobs, by_job, quota)
    check("every workload that fits is bound", not left, " ".join(left[:10]))
    print("%d of %d jobs bound" % (len(full), len(jobs)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def kill_mid_gang(kubeconfig, audit_file, pid, at_least):
    """Follows the audit; once PID made AT_LEAST binds and its last bind
    left a Job two or more pods short (one bind still in flight cannot
    complete it), SIGKILL. Gives up waiting for a gang after 200 more
    binds, and for binds when PID exits."""
    jobs, _, _ = state(kubeconfig)
    width = {(j["metadata"]["namespace"], j["metadata"]["name"]): j["spec"]["parallelism"]
             for j in jobs}
    count, per_job, buf = 0, {}, ""
    with open(audit_file) as f:
        while True:
            chunk = f.read()
            if not chunk:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return 1
                time.sleep(0.002)
                continue
            buf += chunk
            *lines, buf = buf.split("\n")
            for line in lines:
                a = json.loads(line)
                if a["verb"] != "bind" or not 200 <= a["code"] < 300:
                    continue
                count += 1
                job = (a["namespace"], a["name"].rsplit("-", 1)[0])
                per_job[job] = per_job.get(job, 0) + 1
                if count >= at_least and (per_job[job] <= width.get(job, 0) - 2
                                          or count >= at_least + 200):
                    os.kill(pid, signal.SIGKILL)
                    print("killed after %d binds, %s/%s at %d of %d pods"
                          % (count, job[0], job[1], per_job[job], width.get(job, 0)))
                    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "setup":
        setup(argv[2], int(argv[3]), int(argv[4]))
        return 0
    if len(argv) == 6 and argv[1] == "kill":
        return kill_mid_gang(argv[2], argv[3], int(argv[4]), int(argv[5]))
    if len(argv) in (3, 4) and argv[1] == "split":
        jobs, by_job, _ = state(argv[2])
        split = split_jobs(jobs, by_job)
        if len(argv) == 4:
            print("half bound: " + (" ".join(split) or "none"))
        return 0 if split else 1
    if len(argv) == 3 and argv[1] == "settled":
        jobs, by_job, quota = state(argv[2])
        return 0 if not split_jobs(jobs, by_job) and not left_out(jobs, by_job, quota) else 1
    if len(argv) == 6 and argv[1] == "check":
        return check_all(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
