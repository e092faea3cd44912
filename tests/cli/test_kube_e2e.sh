#!/usr/bin/env bash
# test_kube_e2e.sh - ordo-scheduler against the API-server emulator
# (tests/kube-emu/ordo-kube-emu): the quickstart applied with kubectl, the
# daemon run until every workload finished (bounded by ORDO_E2E_TIMEOUT
# seconds, default 300), what it wrote back read with kubectl (Workloads
# Finished, ClusterQueues' admitted counts, FailedScheduling on a pod that
# waited), stopped with SIGTERM (a clean exit), and who was
# admitted, preempted and finished compared with --sim on the same
# manifests. Skips (77) when the emulator is not built or kubectl, python3
# or python3-yaml is missing.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
. "$(dirname "$0")/lib.sh"
. "$src/tests/kube-emu/lib_quickstart.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
if [ ! -x "$emu" ]; then
    echo "SKIP: $emu is not built"
    exit 77
fi
kubectl=$(qs_find_kubectl)
if [ -z "$kubectl" ] || ! python3 -c 'import yaml' 2>/dev/null; then
    echo "SKIP: needs kubectl, python3 and python3-yaml"
    exit 77
fi
limit=${ORDO_E2E_TIMEOUT:-300}
tmp=$(mktemp -d)
emu_pid= sched_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# The quickstart as a cluster gets it (lib_quickstart.sh): Jobs and
# JobSets suspended, every workload at once.
qs=$tmp/quickstart
qs_prepare "$src/examples/quickstart" "$qs"

# Pods run for their ordo.dev/sim-runtime, 600 times faster. TLS: kubectl
# sends its token only over it; the kubeconfig carries the CA as data.
"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" \
    --controllers job,jobset --kubelet --time-scale 600 --tls \
    >"$tmp/emu.log" 2>&1 &
emu_pid=$!
for _ in $(seq 100); do
    [ -s "$tmp/kubeconfig" ] && break
    sleep 0.1
done
k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "emulator up" 0 "" -- k get namespaces
check "quickstart applied" 0 "created" -- k apply -f "$qs"

"$bin" --sim "$qs" --plugin-dir "$plugins" --no-progress \
    --report "$tmp/sim.json" >/dev/null 2>&1
"$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" -v 2 \
    >"$tmp/sched.log" 2>&1 &
sched_pid=$!
deadline=$((SECONDS + limit))

# While workloads run, kubectl get clusterqueues shows them admitted.
cq_admitted() { qs_cq_admitted && k get clusterqueues -o wide; }
until cq_admitted >/dev/null 2>&1 || [ $SECONDS -ge $deadline ]; do
    sleep 0.2
done
check "kubectl get clusterqueues: admitted counts" 0 "ADMITTED WORKLOADS" -- \
    cq_admitted

# Every Job complete or failed, every plain pod ended or gone.
all_done() { qs_all_done; }
until all_done || [ $SECONDS -ge $deadline ]; do
    sleep 1
done
check "every workload finished within ${limit}s" 0 "" -- all_done

# What Ordo wrote back, read with kubectl: a Workload per quickstart
# workload with Kueue's Finished condition, the ClusterQueues' admitted
# counts, and a FailedScheduling event on a pod that waited.
# A Workload per workload of --sim, each Finished, but for a preempted plain
# pod: the pod is deleted and its Workload, which it owns, goes with it.
wl_finished() {
    grep "status write" "$tmp/sched.log"
    k get workloads -A -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
sim = json.load(open(sys.argv[1]))["workloads"]
names = {w["name"] for w in sim}
need = {w["name"] for w in sim
        if not (w["kind"] == "Pod" and w.get("evictions", 0) > 0)}
got, unfinished = set(), set()
for o in items:
    m = o["metadata"]
    own = m.get("ownerReferences", [])
    key = m["namespace"] + "/" + (own[0]["name"] if len(own) == 1 else m["name"])
    got.add(key)
    if not any(c.get("type") == "Finished" and c.get("status") == "True"
               for c in o.get("status", {}).get("conditions", [])):
        unfinished.add(key)
print(len(got), "workloads,", len(got) - len(unfinished), "finished")
print("missing:", sorted(need - got), "unknown:", sorted(got - names),
      "unfinished:", sorted(unfinished))
sys.exit(0 if need <= got <= names and not unfinished else 1)' "$tmp/sim.json"
}
until wl_finished >/dev/null 2>&1 || [ $SECONDS -ge $deadline ]; do
    sleep 1
done
check "kubectl get workloads -A: --sim's workloads, every one Finished" 0 \
    "missing: [] unknown: [] unfinished: []" -- wl_finished
waited=$(qs_waited_pod)
check "a pod that waited has a FailedScheduling event" 0 "" -- test -n "$waited"
check "kubectl describe pod shows it" 0 "FailedScheduling" -- \
    k describe pod -n ${waited% *} ${waited#* }
kill -TERM "$sched_pid"
wait "$sched_pid"
rc=$?
sched_pid=
check "SIGTERM stops it cleanly" 0 "stopping" -- \
    bash -c "cat '$tmp/sched.log'; exit $rc"
check "connected through the kubeconfig, over TLS" 0 \
    "watching https://" -- grep -A1 "using context .* of $tmp/kubeconfig" "$tmp/sched.log"

compare() {
    python3 - "$tmp/sim.json" "$tmp/sched.log" <<'PY'
import json, re, sys
sim = json.load(open(sys.argv[1]))["workloads"]
log = open(sys.argv[2]).read()
want = {
    "admitted": {w["name"] for w in sim if w.get("admittedAt") is not None},
    "preempted": {w["name"] for w in sim if w.get("evictions", 0) > 0},
    "finished": {w["name"] for w in sim if w["state"] == "finished"},
}
def wl(what):
    return set(re.findall(what + r' wl="([^"]+)"', log))
admitted = wl("admitted workload")
got = {"preempted": wl("evicting workload"), "finished": wl("workload finished")}
# A pod bound in its manifest ran before Ordo saw it: no admission line,
# but its eviction says it ran. An evicted plain pod is deleted and never
# made again: it ended, as the simulator says.
got["admitted"] = admitted | got["preempted"]
got["finished"] |= got["preempted"] - admitted
bad = 0 if want["admitted"] and got["finished"] else 1
for k in want:
    if want[k] != got[k]:
        bad = 1
        print(f"{k}: sim {sorted(want[k])}\n{k}: cluster {sorted(got[k])}")
print("same outcomes" if not bad else "outcomes differ")
sys.exit(bad)
PY
}
check "same admitted, preempted, finished as --sim" 0 "same outcomes" -- compare
check_done
