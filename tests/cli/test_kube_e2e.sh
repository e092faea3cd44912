#!/usr/bin/env bash
# test_kube_e2e.sh - ordo-scheduler against the API-server emulator
# (tests/kube-emu/ordo-kube-emu): the quickstart applied with kubectl, the
# daemon run until every workload finished (bounded by ORDO_E2E_TIMEOUT
# seconds, default 300), stopped with SIGTERM (a clean exit), and who was
# admitted, preempted and finished compared with --sim on the same
# manifests. Skips (77) when the emulator is not built or kubectl or
# python3 is missing.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
. "$(dirname "$0")/lib.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
if [ ! -x "$emu" ]; then
    echo "SKIP: $emu is not built"
    exit 77
fi
kubectl=${KUBECTL:-$(command -v kubectl || true)}
if [ -z "$kubectl" ] || ! command -v python3 >/dev/null; then
    echo "SKIP: needs kubectl and python3"
    exit 77
fi
limit=${ORDO_E2E_TIMEOUT:-300}
qs=$src/examples/quickstart
tmp=$(mktemp -d)
emu_pid= sched_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" \
    --controllers job --kubelet >"$tmp/emu.log" 2>&1 &
emu_pid=$!
for _ in $(seq 100); do
    [ -s "$tmp/kubeconfig" ] && break
    sleep 0.1
done
k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "emulator up" 0 "" -- k get namespaces
check "quickstart applied" 0 "created" -- k apply -f "$qs"

"$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" -v 2 \
    >"$tmp/sched.log" 2>&1 &
sched_pid=$!

# Every Job complete or failed, every plain pod ended.
all_done() {
    k get jobs,pods -A -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
def ended(o):
    if o["kind"] == "Job":
        return any(c.get("type") in ("Complete", "Failed") and
                   c.get("status") == "True"
                   for c in o.get("status", {}).get("conditions", []))
    if o["metadata"].get("ownerReferences"):
        return True  # a Job pod: its Job says
    return o.get("status", {}).get("phase") in ("Succeeded", "Failed")
sys.exit(0 if items and all(ended(o) for o in items) else 1)'
}
deadline=$((SECONDS + limit))
until all_done || [ $SECONDS -ge $deadline ]; do
    sleep 1
done
check "every workload finished within ${limit}s" 0 "" -- all_done
kill -TERM "$sched_pid"
wait "$sched_pid"
rc=$?
sched_pid=
check "SIGTERM stops it cleanly" 0 "stopping" -- \
    bash -c "cat '$tmp/sched.log'; exit $rc"

"$bin" --sim "$qs" --plugin-dir "$plugins" --no-progress \
    --report "$tmp/sim.json" >/dev/null 2>&1
k get jobs,pods -A -o json >"$tmp/cluster.json"
compare() {
    python3 - "$tmp/sim.json" "$tmp/cluster.json" "$tmp/sched.log" <<'EOF'
import json, re, sys
sim = json.load(open(sys.argv[1]))["workloads"]
cluster = json.load(open(sys.argv[2]))["items"]
log = open(sys.argv[3]).read()
want = {
    "admitted": {w["name"] for w in sim if w.get("admittedAt") is not None},
    "preempted": {w["name"] for w in sim if w.get("evictions", 0) > 0},
    "finished": {w["name"] for w in sim if w["state"] == "finished"},
}
# The daemon's bind lines name each pod's workload; its evictions name pods.
pod_wl = dict(re.findall(r'bind pod="([^"]+)" node="[^"]*" workload="([^"]+)"',
                         log))
evicted = set(re.findall(r'evict pod="([^"]+)"', log))
finished = set()
for o in cluster:
    key = o["metadata"].get("namespace", "") + "/" + o["metadata"]["name"]
    conds = o.get("status", {}).get("conditions", [])
    if o["kind"] == "Job" and any(c.get("type") in ("Complete", "Failed") and
                                  c.get("status") == "True" for c in conds):
        finished.add(key)
    if o["kind"] == "Pod" and not o["metadata"].get("ownerReferences") and \
            o.get("status", {}).get("phase") in ("Succeeded", "Failed"):
        finished.add(key)
present = {o["metadata"].get("namespace", "") + "/" + o["metadata"]["name"]
           for o in cluster}
preempted = {pod_wl[p] for p in evicted if p in pod_wl}
# A plain pod evicted is deleted, and nothing makes it again: it ended, as
# the simulator says.
finished |= {w for w in preempted if w not in present}
got = {"admitted": set(pod_wl.values()), "preempted": preempted,
       "finished": finished}
bad = 0
for k in want:
    if want[k] != got[k]:
        bad = 1
        print(f"{k}: sim {sorted(want[k])}\n{k}: cluster {sorted(got[k])}")
print("same outcomes" if not bad else "outcomes differ")
sys.exit(bad)
EOF
}
check "same admitted, preempted, finished as --sim" 0 "same outcomes" -- compare
check_done
