#!/usr/bin/python3
"""load.py - the fault matrix's load, with the official Python client
(python3-kubernetes) against ordo-kube-emu, seeded so a case can be run
again:

  load.py queues KUBECONFIG PODS SEED MANIFEST [alone]
                                                  flavor, cohort, ClusterQueues,
                                                  LocalQueues, priorities, nodes;
                                                  writes MANIFEST (JSON) for judge.py
  load.py wave KUBECONFIG MANIFEST N              creates wave N (0: low priority,
                                                  1: high) of the workloads

PODS pods in gangs of 2-8 (Jobs, created suspended as Kueue's webhook leaves
them) and single pods, about 70/30, in four namespaces whose ClusterQueues
share the cohort "pool" (two may borrow without limit, two up to a limit),
preemption within the ClusterQueue and reclaim in the cohort by priority.
Wave 0 is three quarters of the pods at priority "low", wave 1 the rest at
"high": created once wave 0 runs, it preempts. Every pod runs for 1-4 s
(ordo.dev/sim-runtime), so the load drains. The quotas hold about a third
of the demand and the nodes 1.5 times the quotas. "alone": no cohort, no
preemption, one wave at one priority (where any eviction is a fault's).
Exit 77 without the client."""
import json
import random
import sys

try:
    from kubernetes import client, config
except ImportError:
    print("SKIP: no python3-kubernetes")
    sys.exit(77)

G, V = "kueue.x-k8s.io", "v1beta2"
NAMESPACES = ("team-a", "team-b", "team-c", "team-d")
CPUS = {"500m": 500, "1": 1000, "2": 2000}  # millicores
MEMS = {"512Mi": 512, "1Gi": 1024, "2Gi": 2048}  # MiB
PRIORITIES = {"low": 100, "high": 1000}


def api(kubeconfig):
    return config.new_client_from_config(config_file=kubeconfig)


def cq_name(ns):
    return "cq-" + ns.split("-")[1]


def plan(pods, seed, alone=False):
    """The workloads: (wave, kind, ns, name, pods, cpu, mem, runtime)."""
    rnd = random.Random(seed)
    out, total = [], 0
    while total < pods:
        wave = 0 if total < pods * 3 // 4 or alone else 1
        ns = NAMESPACES[rnd.randrange(len(NAMESPACES))]
        gang = rnd.random() < 0.7 * 2 / 5  # ~70% of pods in gangs of 2-8
        n = rnd.randint(2, 8) if gang else 1
        cpu, mem = rnd.choice(list(CPUS)), rnd.choice(list(MEMS))
        name = "%s-%04d" % ("job" if gang else "pod", len(out))
        out.append((wave, "Job" if gang else "Pod", ns, name, n, cpu, mem,
                    "%ds" % rnd.randint(1, 4)))
        total += n
    return out


def queues(kubeconfig, pods, seed, manifest_file, alone=False):
    a = api(kubeconfig)
    v1, co = client.CoreV1Api(a), client.CustomObjectsApi(a)
    sched = client.SchedulingV1Api(a)
    work = plan(pods, seed, alone)
    demand = {ns: {"cpu": 0, "memory": 0} for ns in NAMESPACES}
    for _, _, ns, _, n, cpu, mem, _ in work:
        demand[ns]["cpu"] += n * CPUS[cpu]
        demand[ns]["memory"] += n * MEMS[mem]
    for p, v in PRIORITIES.items():
        sched.create_priority_class(client.V1PriorityClass(
            metadata=client.V1ObjectMeta(name=p), value=v))
    co.create_cluster_custom_object(G, V, "resourceflavors", {
        "apiVersion": G + "/" + V, "kind": "ResourceFlavor",
        "metadata": {"name": "default"}, "spec": {}})
    manifest = {"clusterQueues": {}, "localQueues": {}, "workloads": []}
    quota_cpu = 0
    for i, ns in enumerate(NAMESPACES):
        v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        # A third of the demand, whole CPUs and GiB, at least the largest
        # gang (8 pods of 2 CPUs and 2 GiB).
        cpu = max(demand[ns]["cpu"] // 3 // 1000, 16)
        mem = max(demand[ns]["memory"] // 3 // 1024, 16)
        quota_cpu += cpu
        res = [{"name": "cpu", "nominalQuota": str(cpu)},
               {"name": "memory", "nominalQuota": "%dGi" % mem}]
        limits = {}
        if i % 2 and not alone:  # two of the four borrow at most half their quota
            res[0]["borrowingLimit"] = str(cpu // 2)
            res[1]["borrowingLimit"] = "%dGi" % (mem // 2)
            limits = {"cpu": cpu // 2 * 1000, "memory": mem // 2 * 1024}
        co.create_cluster_custom_object(G, V, "clusterqueues", {
            "apiVersion": G + "/" + V, "kind": "ClusterQueue",
            "metadata": {"name": cq_name(ns)},
            "spec": dict({"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                          "resourceGroups": [{"coveredResources": ["cpu", "memory"],
                                              "flavors": [{"name": "default",
                                                           "resources": res}]}]},
                         **({} if alone else {
                             "cohortName": "pool",
                             "preemption": {"withinClusterQueue": "LowerPriority",
                                            "reclaimWithinCohort": "Any"}}))})
        co.create_namespaced_custom_object(G, V, ns, "localqueues", {
            "apiVersion": G + "/" + V, "kind": "LocalQueue",
            "metadata": {"name": "lq", "namespace": ns},
            "spec": {"clusterQueue": cq_name(ns)}})
        manifest["clusterQueues"][cq_name(ns)] = {
            "cohort": None if alone else "pool", "nominal": {"cpu": cpu * 1000, "memory": mem * 1024},
            "borrowingLimit": limits}
        manifest["localQueues"][ns + "/lq"] = cq_name(ns)
    nodes = quota_cpu * 3 // 2 // 32 + 2
    for i in range(nodes):
        name = "node-%03d" % i
        v1.create_node(client.V1Node(
            metadata=client.V1ObjectMeta(name=name, labels={"kubernetes.io/hostname": name}),
            status=client.V1NodeStatus(
                capacity={"cpu": "32", "memory": "256Gi", "pods": "110"},
                allocatable={"cpu": "32", "memory": "256Gi", "pods": "110"})))
    for wave, kind, ns, name, n, cpu, mem, rt in work:
        manifest["workloads"].append({
            "kind": kind, "namespace": ns, "name": name, "pods": n, "queue": "lq",
            "requests": {"cpu": CPUS[cpu], "memory": MEMS[mem]}, "wave": wave,
            "priority": "high" if wave else "low", "cpu": cpu, "mem": mem, "runtime": rt})
    manifest["nodes"] = ["node-%03d" % i for i in range(nodes)]
    with open(manifest_file, "w") as f:
        json.dump(manifest, f, indent=1)
    print("%d workloads, %d pods, %d nodes, quota %d CPUs in 4 ClusterQueues"
          % (len(work), sum(w[4] for w in work), nodes, quota_cpu))


def pod_spec(w):
    return client.V1PodSpec(
        scheduler_name="ordo-scheduler", restart_policy="Never",
        priority_class_name=w["priority"],
        containers=[client.V1Container(
            name="main", image="busybox",
            resources=client.V1ResourceRequirements(
                requests={"cpu": w["cpu"], "memory": w["mem"]}))])


def wave(kubeconfig, manifest_file, n):
    a = api(kubeconfig)
    v1, batch = client.CoreV1Api(a), client.BatchV1Api(a)
    manifest = json.load(open(manifest_file))
    made = 0
    for w in manifest["workloads"]:
        if w["wave"] != n:
            continue
        labels = {"kueue.x-k8s.io/queue-name": w["queue"]}
        ann = {"ordo.dev/sim-runtime": w["runtime"]}
        if w["kind"] == "Pod":
            v1.create_namespaced_pod(w["namespace"], client.V1Pod(
                metadata=client.V1ObjectMeta(name=w["name"], labels=labels, annotations=ann),
                spec=pod_spec(w)))
        else:
            batch.create_namespaced_job(w["namespace"], client.V1Job(
                metadata=client.V1ObjectMeta(name=w["name"], labels=labels),
                spec=client.V1JobSpec(
                    parallelism=w["pods"], completions=w["pods"], suspend=True,
                    template=client.V1PodTemplateSpec(
                        metadata=client.V1ObjectMeta(annotations=ann), spec=pod_spec(w)))))
        made += w["pods"]
    print("wave %d: %d pods" % (n, made))


def main(argv):
    if len(argv) in (6, 7) and argv[1] == "queues":
        queues(argv[2], int(argv[3]), int(argv[4]), argv[5], argv[6:] == ["alone"])
        return 0
    if len(argv) == 5 and argv[1] == "wave":
        wave(argv[2], argv[3], int(argv[4]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
