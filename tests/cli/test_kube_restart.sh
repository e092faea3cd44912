#!/usr/bin/env bash
# test_kube_restart.sh - ordo-scheduler killed with SIGKILL in the middle
# of binding, and a second one started on the same cluster
# (tests/kube-emu/ordo-kube-emu): ORDO_RESTART_PODS pods (default 300) in
# gangs of 2-8 (Jobs, half of them suspended as Kueue's webhook leaves
# them) under ClusterQueues holding about 40% of the demand. The first
# scheduler is slowed (--qps) so that the kill lands while it binds; the
# second runs until every workload that fits is bound (bounded by
# ORDO_RESTART_TIMEOUT seconds, default 300). Then, from the emulator's
# audit and the final objects (tests/cli/kube_restart.py): no pod bound
# twice, no gang split, quota never exceeded at any point of the audit,
# every workload that fits bound. `make restart-stress` runs it larger.
# Skips (77) when the emulator is not built or python3-kubernetes is
# missing.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
here=$(dirname "$0")
. "$here/lib.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
py=/usr/bin/python3
if [ ! -x "$emu" ]; then
    echo "SKIP: $emu is not built"
    exit 77
fi
if ! "$py" -c 'import kubernetes' 2>/dev/null; then
    echo "SKIP: needs /usr/bin/python3 and python3-kubernetes"
    exit 77
fi
pods=${ORDO_RESTART_PODS:-300}
seed=${ORDO_RESTART_SEED:-1}
limit=${ORDO_RESTART_TIMEOUT:-300}
tmp=$(mktemp -d)
emu_pid= s1= s2=
cleanup() {
    for p in $s1 $s2 $emu_pid; do
        kill -KILL "$p" 2>/dev/null
    done
    wait 2>/dev/null
    [ -n "${ORDO_RESTART_KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
helper() { "$py" "$here/kube_restart.py" "$@"; }

# The watch window keeps every change: the checks replay pods from
# resourceVersion 1.
"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" \
    --controllers job --kubelet --audit "$tmp/audit" \
    --watch-window 10000000 \
    --token sched-1:secret-1 --token sched-2:secret-2 \
    >"$tmp/emu.log" 2>&1 &
emu_pid=$!
for _ in $(seq 100); do
    [ -s "$tmp/kubeconfig" ] && break
    sleep 0.1
done
server=$(sed -n 's/^ *server: //p' "$tmp/kubeconfig")
check "emulator up" 0 "" -- test -n "$server"
check "queues, nodes and $pods pods' Jobs created" 0 "jobs" -- \
    helper setup "$tmp/kubeconfig" "$pods" "$seed"

sched() {
    exec "$bin" --server "$server" --token "$1" --plugin-dir "$plugins" -v 2 \
        "${@:2}"
}
binds() { grep -c "\"verb\":\"bind\".*\"user\":\"$1\"" "$tmp/audit"; }

# 20 requests a second, one at a time: the kill comes after a fifth of
# the pods, just after a bind that left a gang two or more pods short.
sched secret-1 --qps 20 --burst 1 >"$tmp/sched1.log" 2>&1 &
s1=$!
check "SIGKILL in the middle of binding" 0 "killed after" -- \
    timeout "$limit" "$py" "$here/kube_restart.py" kill "$tmp/kubeconfig" \
    "$tmp/audit" "$s1" $((pods / 5))
kill -KILL "$s1" 2>/dev/null  # the helper timed out: end it anyway
wait "$s1" 2>/dev/null
s1=
echo "# $(grep killed <<<"$last_out"); $(binds sched-1) binds in the audit;" \
    "$(helper split "$tmp/kubeconfig" -v)"

sched secret-2 >"$tmp/sched2.log" 2>&1 &
s2=$!
deadline=$((SECONDS + limit))
until helper settled "$tmp/kubeconfig" || [ $SECONDS -ge $deadline ]; do
    kill -0 "$s2" 2>/dev/null || break
    sleep 1
done
check "every workload that fits bound within ${limit}s" 0 "" -- \
    helper settled "$tmp/kubeconfig"
kill -TERM "$s2"
wait "$s2"
rc=$?
s2=
check "the second scheduler stops cleanly" 0 "" -- \
    bash -c "! grep -E 'Sanitizer|runtime error' '$tmp/sched2.log' || exit 1; exit $rc"
check "the second found the first's admissions on the pods" 0 \
    "workload found running" -- grep "(recorded)" "$tmp/sched2.log"
check "no sanitizer report from the first" 0 "" -- \
    bash -c "! grep -E 'Sanitizer|runtime error' '$tmp/sched1.log'"
check "audit: binds, quota and gangs" 0 "0 failed" -- \
    helper check "$tmp/kubeconfig" "$tmp/audit" "$server" \
    "$(sed -n 's/^ *token: //p' "$tmp/kubeconfig" | head -n 1)"
echo "$last_out" | grep -E '^(binds|[0-9]+ of)' | sed 's/^/# /'
kill -TERM "$emu_pid"
wait "$emu_pid"
rc=$?
emu_pid=
check "the emulator stops cleanly" 0 "" -- \
    bash -c "! grep -E 'Sanitizer|runtime error' '$tmp/emu.log' || exit 1; exit $rc"
check_done
