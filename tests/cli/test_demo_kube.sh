#!/usr/bin/env bash
# test_demo_kube.sh - `scripts/demo --kube` on the built tree
# (ORDO_DEMO_BUILD: no package install, no build): what it shows (the
# ClusterQueues with admitted counts while workloads run, every Workload
# Finished, a pod's FailedScheduling event), that it stops what it started,
# also when killed while it waits, and its --help. Bounded by
# ORDO_DEMO_TIMEOUT (default 180 s). Skips (77) when the emulator is not
# built or kubectl, python3 or python3-yaml is missing.
set -u
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
. "$(dirname "$0")/lib.sh"
. "$src/tests/kube-emu/lib_quickstart.sh"

if [ ! -x "$build/tests/kube-emu/ordo-kube-emu" ]; then
    echo "SKIP: the emulator is not built"
    exit 77
fi
if ! qs_find_kubectl >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
    echo "SKIP: needs kubectl, python3 and python3-yaml"
    exit 77
fi
export ORDO_DEMO_BUILD=$build
demo=$src/scripts/demo
tmp=$(mktemp -d)
export TMPDIR=$tmp
bg=
cleanup() {
    [ -n "$bg" ] && kill "$bg" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

check "--help documents both modes" 0 "--kube" -- "$demo" --help
check "--help: the simulator is the default" 0 "(no option)  on the embedded simulator" -- \
    "$demo" --help
check "an unknown option is refused" 2 "unknown option '--kub'" -- "$demo" --kub

"$demo" --kube >"$tmp/out" 2>&1
rc=$?
out() { cat "$tmp/out"; }
check "--kube runs to the end" 0 "stopped ordo-kube-emu" -- bash -c "cat '$tmp/out'; exit $rc"
check "kubectl applied the quickstart" 0 "jobset.jobset.x-k8s.io/rl-actors created" -- out

# Table of `kubectl get clusterqueues -o wide` while workloads run: both
# ClusterQueues, and some admitted (ADMITTED WORKLOADS is the last column).
running() {
    sed -n '/clusterqueues -o wide   # while/,/^$/p' "$tmp/out" | awk '
        NR == 2 && $0 !~ /ADMITTED WORKLOADS$/ { exit 1 }
        NR > 2 && NF { names = names " " $1; n += $NF }
        END { print "queues:" names, "admitted:", n; exit !(n > 0) }'
}
check "kubectl get clusterqueues while workloads run: admitted counts" 0 \
    "queues: data ml admitted:" -- running

# The final tables: both ClusterQueues and every LocalQueue with their
# counts, and every Workload admitted and finished.
check "final table: ClusterQueue ml" 0 \
    "clusterqueue.kueue.x-k8s.io/ml " -- out
check "final table: ClusterQueue data" 0 \
    "clusterqueue.kueue.x-k8s.io/data " -- out
check "final table: LocalQueues" 0 "team-ml     localqueue.kueue.x-k8s.io/training   ml" -- out
# kubectl pads its columns: FINISHED is read where its heading starts.
workloads() {
    awk '/QUEUE +RESERVED IN +ADMITTED +FINISHED/ { col = index($0, "FINISHED") }
         col && $2 ~ /^workload\.kueue\.x-k8s\.io\// {
            n++; if (substr($0, col, 5) == "True ") fin++ }
         END { print n + 0, "workloads,", fin + 0, "finished"
               exit !(col && n >= 15 && n == fin) }' "$tmp/out"
}
check "kubectl get workloads: every one finished" 0 \
    " finished" -- workloads
check "kubectl describe pod of a pod that waited" 0 \
    "Warning  FailedScheduling" -- out
check "... which Ordo then scheduled" 0 "Successfully assigned" -- out
check "its temporary directory is gone" 0 "" -- \
    bash -c "! ls -d '$tmp'/ordo-demo.* 2>/dev/null"

# Every pid it said it started is gone.
pids_gone() {
    local pids
    pids=$(sed -n 's/^==> started .*(pid \([0-9]*\)).*/\1/p' "$1")
    [ "$(wc -w <<<"$pids")" -eq 2 ] || { echo "started: $pids"; return 1; }
    for p in $pids; do
        kill -0 "$p" 2>/dev/null && { echo "pid $p still runs"; return 1; }
    done
    echo "gone: $pids"
}
check "the emulator and the scheduler are stopped" 0 "gone:" -- pids_gone "$tmp/out"

# Killed while it waits: both stopped all the same, and it fails.
"$demo" --kube >"$tmp/out2" 2>&1 &
bg=$!
for _ in $(seq 600); do
    grep -q "waiting until every workload finished" "$tmp/out2" && break
    kill -0 "$bg" 2>/dev/null || break
    sleep 0.1
done
kill -TERM "$bg"
wait "$bg"
rc=$?
bg=
check "SIGTERM while waiting: it fails" 143 "" -- bash -c "exit $rc"
check "SIGTERM while waiting: the scheduler stopped" 0 "stopped ordo-scheduler" -- \
    cat "$tmp/out2"
check "SIGTERM while waiting: the emulator and scheduler are gone" 0 "gone:" -- \
    pids_gone "$tmp/out2"
check_done
