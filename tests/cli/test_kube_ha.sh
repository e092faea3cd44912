#!/usr/bin/env bash
# test_kube_ha.sh - two ordo-scheduler replicas with leader election on
# tests/kube-emu/ordo-kube-emu, told apart in its audit by their tokens
# (sched-1, sched-2), with short leases (3s/2s/500ms):
#   - only the leader binds; the standby lists and watches, writes nothing;
#   - the leader paused (SIGSTOP) past its lease: the standby takes over;
#     resumed (SIGCONT), the old leader writes nothing more and exits 1;
#   - the leader killed (SIGKILL): the standby takes over and binds on;
#   - SIGTERM mid-binding: exit 0, the lease released (holderIdentity ""),
#     the standby takes over and binds the rest; the last replica's
#     SIGTERM leaves it released;
#   - SIGHUP: a bad --config is reported and kept, a good one restarts
#     the program in place.
# The load is kube_restart.py's (gangs of Jobs under ClusterQueues); the
# audit is the judge (kube_ha.py: nothing written by a replica that did
# not hold the lease; kube_restart.py: no pod bound twice, no gang split,
# quota never exceeded, every workload that fits bound). Every wait is
# bounded (30 s each), none is an assertion on time. Skips (77) without
# the emulator or python3-kubernetes.
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
pods=${ORDO_HA_PODS:-120}
tmp=$(mktemp -d)
emu_pid= pids=
cleanup() {
    for p in $pids $emu_pid; do
        kill -CONT "$p" 2>/dev/null
        kill -KILL "$p" 2>/dev/null
    done
    wait 2>/dev/null
    [ -n "${ORDO_HA_KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
ha() { "$py" "$here/kube_ha.py" "$@"; }
restart() { "$py" "$here/kube_restart.py" "$@"; }

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
    restart setup "$tmp/kubeconfig" "$pods" 1

# A replica: token, log, further flags. Its pid in $started.
start() {
    "$bin" --server "$server" --token "$1" --plugin-dir "$plugins" -v 1 \
        --leader-elect-lease-duration 3s --leader-elect-renew-deadline 2s \
        --leader-elect-retry-period 500ms "${@:3}" >"$tmp/$2.log" 2>&1 &
    started=$!
    pids="$pids $started"
}
# Waits (bounded) for a line in a replica's log.
log_has() {
    local i
    for i in $(seq 300); do
        grep -q -- "$2" "$tmp/$1.log" && return 0
        sleep 0.1
    done
    echo "no \"$2\" in $1.log:"
    tail -5 "$tmp/$1.log"
    return 1
}
# Its exit status, once it exits (killed after 30 s: a hang is a failure).
wait_exit() {
    local i
    for i in $(seq 300); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1"
}
clean_log() { ! grep -E 'Sanitizer|runtime error' "$tmp/$1.log"; }

# The first leads; the second stands by (both slowed, so that each
# handover lands mid-binding).
start secret-1 a --qps 10 --burst 1
a=$started
check "replica a takes the lease" 0 "" -- ha wait "$tmp/audit" sched-1 lease 1
check "replica a binds" 0 "" -- ha wait "$tmp/audit" sched-1 bind 5
start secret-2 b --qps 3 --burst 1
b=$started
check "replica b stands by" 0 "" -- log_has b "standing by; lease held by"
check "replica b synced, runs no cycle" 0 "" -- log_has b "synced; standing by"

# Paused past its lease: b takes over; a, resumed, writes nothing more.
kill -STOP "$a"
check "a paused: b takes the lease over" 0 "" -- \
    ha wait "$tmp/audit" sched-2 lease 1
takeover=$(tr -dc 0-9 <<<"$last_out")
check "b binds after the takeover" 0 "" -- \
    ha wait "$tmp/audit" sched-2 bind 1 "$takeover"
kill -CONT "$a"
wait_exit "$a"
rc=$?
check "a, resumed, exits 1" 0 "" -- test "$rc" -eq 1
check "a says it lost leadership" 0 "" -- grep -q "leadership lost" "$tmp/a.log"
check "a wrote nothing after b's takeover" 0 "0 writes" -- \
    ha silent "$tmp/audit" sched-1 "$takeover"
check "no sanitizer report from a" 0 "" -- clean_log a

# b killed: a new replica with sched-1's token takes over and binds on.
start secret-1 c --qps 3 --burst 1
c=$started
check "replica c stands by" 0 "" -- log_has c "standing by"
before=$(ha lines "$tmp/audit")
kill -KILL "$b"
wait_exit "$b"
check "b killed: c takes the lease over" 0 "" -- \
    ha wait "$tmp/audit" sched-1 lease 1 "$before"
check "c binds after the takeover" 0 "" -- \
    ha wait "$tmp/audit" sched-1 bind 1 "$before"

# SIGTERM to c in the middle of binding, with d standing by: exit 0, the
# lease given back, d takes over (listing everything again first: its
# watches may lag behind c's last binds) and binds the rest.
start secret-2 d --listen 127.0.0.1:0
d=$started
check "replica d stands by" 0 "" -- log_has d "standing by"
dport=$(sed -n 's/.*serving .* (port \([0-9]*\)).*/\1/p' "$tmp/d.log")
check "d's /readyz: a follower" 0 "role: follower" -- \
    curl -s "http://127.0.0.1:$dport/readyz"
before=$(ha lines "$tmp/audit")
kill -TERM "$c"
wait_exit "$c"
rc=$?
check "c stops with status 0 on SIGTERM" 0 "" -- test "$rc" -eq 0
check "c released the lease" 0 "" -- log_has c "lease released"
check "d takes the released lease over" 0 "" -- \
    ha wait "$tmp/audit" sched-2 lease 1 "$before"
check "d leads" 0 "" -- log_has d "became leader"
check "d lists again before scheduling" 0 "" -- log_has d "caught up"
# Its endpoints follow the scheduler it built afresh.
check "d's /readyz: the leader" 0 "role: leader" -- \
    curl -s "http://127.0.0.1:$dport/readyz"
check "d's /queues answers" 0 "PendingWorkloadsSummary" -- \
    curl -s "http://127.0.0.1:$dport/queues/clusterqueues/cq-a/pendingworkloads"
check "d's metrics: the leader's" 0 "replica_role=\"leader\"" -- \
    curl -s "http://127.0.0.1:$dport/metrics"
for _ in $(seq 300); do
    restart settled "$tmp/kubeconfig" && break
    sleep 0.1
done
check "every workload that fits bound" 0 "" -- restart settled "$tmp/kubeconfig"
check "no sanitizer report from c" 0 "" -- clean_log c

# The last replica's SIGTERM leaves the Lease released.
kill -TERM "$d"
wait_exit "$d"
rc=$?
check "d stops with status 0" 0 "" -- test "$rc" -eq 0
check "the Lease is released (holderIdentity empty)" 0 "holder= " -- \
    ha holder "$tmp/kubeconfig" kube-system ordo-scheduler
check "no sanitizer report from d" 0 "" -- clean_log d

# SIGHUP: a configuration that does not load is reported (file, field) and
# the running one stays; one that loads restarts the program in place
# (same pid), which leads again.
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\ncycleTimeout: 30s\n' \
    >"$tmp/config.yaml"
start secret-1 e --config "$tmp/config.yaml"
e=$started
check "replica e leads" 0 "" -- log_has e "became leader"
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\ncycleTimeout: soon\n' \
    >"$tmp/config.yaml"
kill -HUP "$e"
check "SIGHUP with a bad configuration: reported, kept" 0 "" -- \
    log_has e "the running configuration stays"
check "the report names the file and the field" 0 "cycleTimeout" -- \
    grep "SIGHUP: .*config.yaml" "$tmp/e.log"
check "e still runs" 0 "" -- kill -0 "$e"
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\ncycleTimeout: 20s\n' \
    >"$tmp/config.yaml"
kill -HUP "$e"
check "SIGHUP with a good configuration: started again" 0 "" -- \
    log_has e "configuration loads; starting again"
leads_twice() { [ "$(grep -c 'became leader' "$tmp/e.log")" -ge 2 ]; }
for _ in $(seq 300); do
    leads_twice && break
    sleep 0.1
done
check "e, started again in place, leads again" 0 "" -- leads_twice
kill -TERM "$e"
wait_exit "$e"
rc=$?
check "e stops with status 0" 0 "" -- test "$rc" -eq 0
check "no sanitizer report from e" 0 "" -- clean_log e
pids=

check "audit: nothing written by a replica without the lease" 0 \
    ", 0 by a replica" -- ha leader-only "$tmp/audit"
check "audit: binds, quota and gangs" 0 "0 failed" -- \
    restart check "$tmp/kubeconfig" "$tmp/audit" "$server" \
    "$(sed -n 's/^ *token: //p' "$tmp/kubeconfig" | head -n 1)"
kill -TERM "$emu_pid"
wait "$emu_pid"
rc=$?
emu_pid=
check "the emulator stops cleanly" 0 "" -- \
    bash -c "! grep -E 'Sanitizer|runtime error' '$tmp/emu.log' || exit 1; exit $rc"
check_done
