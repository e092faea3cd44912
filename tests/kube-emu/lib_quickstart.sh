# lib_quickstart.sh - examples/quickstart on a cluster, shared by
# tests/cli/test_kube_e2e.sh and `scripts/demo --kube` (sourced, not run).
# The caller defines k, its kubectl (k get ... runs kubectl on the cluster);
# python3 with python3-yaml is needed.
#
#   qs_find_kubectl        prints kubectl: $KUBECTL, PATH, the Cloud SDK's
#   qs_prepare SRC DST     the quickstart as a cluster gets it, into DST
#   qs_cq_admitted         some ClusterQueue counts admitted workloads
#   qs_all_done            every Job ended, every plain pod ended or gone
#   qs_workloads_finished  every Workload Finished (prints the counts)
#   qs_progress            one line: how far the workloads are
#   qs_waited_pod          prints "NAMESPACE NAME" of a pod that got a
#                          FailedScheduling event

qs_find_kubectl() {
    local c
    for c in "${KUBECTL:-}" "$(command -v kubectl 2>/dev/null)" \
        /usr/lib/google-cloud-sdk/bin/kubectl; do
        if [ -n "$c" ] && [ -x "$c" ]; then
            echo "$c"
            return 0
        fi
    done
    return 1
}

# Jobs and JobSets created suspended (Kueue's webhook does that where Kueue
# runs), every workload at once: the simulator's arrival times dropped.
# The simulator reads the same files.
qs_prepare() {
    mkdir -p "$2" && python3 - "$1" "$2" <<'PY'
import os, sys, yaml
src, dst = sys.argv[1:]
for f in sorted(os.listdir(src)):
    if not f.endswith(".yaml"):
        continue
    docs = [d for d in yaml.safe_load_all(open(os.path.join(src, f))) if d]
    for d in docs:
        d.get("metadata", {}).get("annotations", {}).pop(
            "ordo.dev/sim-arrival", None)
        if d["kind"] in ("Job", "JobSet"):
            d["spec"]["suspend"] = True
    yaml.safe_dump_all(docs, open(os.path.join(dst, f), "w"))
PY
}

qs_cq_admitted() {
    k get clusterqueues -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
adm = sum(o.get("status", {}).get("admittedWorkloads") or 0 for o in items)
sys.exit(0 if adm > 0 else 1)'
}

# A Job pod's end is its Job's to say.
qs_all_done() {
    k get jobs,pods -A -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
def ended(o):
    if o["kind"] == "Job":
        return any(c.get("type") in ("Complete", "Failed") and
                   c.get("status") == "True"
                   for c in o.get("status", {}).get("conditions", []))
    if o["metadata"].get("ownerReferences"):
        return True
    return o.get("status", {}).get("phase") in ("Succeeded", "Failed")
sys.exit(0 if items and all(ended(o) for o in items) else 1)'
}

# A preempted plain pod is deleted, and its Workload, which it owns, with
# it: what is left must all be Finished.
qs_workloads_finished() {
    k get workloads -A -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
fin = [o for o in items
       if any(c.get("type") == "Finished" and c.get("status") == "True"
              for c in o.get("status", {}).get("conditions", []))]
print(len(items), "workloads,", len(fin), "finished")
sys.exit(0 if items and len(fin) == len(items) else 1)'
}

qs_progress() {
    k get workloads,pods -A -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
def cond(o, t):
    return any(c.get("type") == t and c.get("status") == "True"
               for c in o.get("status", {}).get("conditions", []))
wl = [o for o in items if o["kind"] == "Workload"]
pods = [o for o in items if o["kind"] == "Pod"]
phase = lambda p: sum(1 for o in pods if o.get("status", {}).get("phase") == p)
print("workloads: %d admitted, %d finished of %d; pods: %d pending, "
      "%d running, %d succeeded" % (
      sum(1 for o in wl if cond(o, "Admitted")),
      sum(1 for o in wl if cond(o, "Finished")), len(wl),
      phase("Pending"), phase("Running"), phase("Succeeded")))'
}

# Of the pods FailedScheduling names, the first still there.
qs_waited_pod() {
    local ns name
    while read -r ns name; do
        if k get pod -n "$ns" "$name" >/dev/null 2>&1; then
            echo "$ns $name"
            return 0
        fi
    done < <(k get events -A -o json | python3 -c '
import json, sys
seen = set()
for e in json.load(sys.stdin)["items"]:
    o = e.get("involvedObject") or e.get("regarding") or {}
    key = (o.get("namespace"), o.get("name"))
    if e.get("reason") == "FailedScheduling" and o.get("kind") == "Pod" \
            and key not in seen:
        seen.add(key)
        print(*key)')
    return 1
}
