#!/usr/bin/env bash
# test_explain.sh - --explain on the quickstart (examples/quickstart): the
# history of a preempted job in virtual time, a waiting job's place in its
# queues and its reason, an unknown name (exit 2, the closest names), and
# --sim's log lines: virtual time, a pending reason logged once.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
qs="$src/examples/quickstart"
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { failed=$((failed + 1)); echo "not ok - $1"; sed 's/^/    /' <<<"$2"; }

# expect NAME OUTPUT LINE...: every LINE is a whole line of OUTPUT.
expect() {
    local name=$1 out=$2; shift 2
    local line
    for line in "$@"; do
        if ! grep -qxF -- "$line" <<<"$out"; then
            fail "$name: missing line '$line'" "$out"
            return
        fi
    done
    ok "$name"
}

sim() { "$bin" --sim "$qs" --plugin-dir "$plugins" --no-progress "$@" 2>&1; }

# The preempted job, run to the end: admitted, placed, evicted by the job
# that preempted it and why, requeued, admitted again, finished, its pod's
# node now.
out=$(sim --explain team-ml/finetune-a); rc=$?
[ "$rc" -eq 0 ] && ok "explain preempted: exit 0" || fail "explain preempted: exit $rc" "$out"
expect "explain preempted" "$out" \
    "Job team-ml/finetune-a (LocalQueue training, ClusterQueue ml): finished" \
    "  [ 300.000s] created" \
    "  [1500.000s] admitted to ml: main: cpu=a100, memory=a100, nvidia.com/gpu=a100" \
    "  [1500.000s] placed: every pod of the admission has a node" \
    "  [3300.000s] evicted from ml, preempted by team-ml/train-llm: InClusterQueue" \
    "  [3300.000s] requeued" \
    "  [3300.000s] waiting in ml: evicted: preempted by team-ml/train-llm (InClusterQueue)" \
    "  [14100.000s] admitted to ml: main: cpu=a100, memory=a100, nvidia.com/gpu=a100" \
    "  [16500.000s] finished" \
    "  now: pod set main: gpu-1"

# Waiting at 1h: places in the QUEUE plugin's order (BestEffortFIFO:
# higher priority, then earlier), the same in its LocalQueue here (the
# only one of ClusterQueue ml), and its reason.
out=$(sim --sim-until 1h --explain team-ml/eval-sweep --explain team-ml/finetune-a --explain team-ml/train-vision); rc=$?
[ "$rc" -eq 0 ] && ok "explain waiting: exit 0" || fail "explain waiting: exit $rc" "$out"
expect "explain waiting" "$out" \
    "Job team-ml/eval-sweep (LocalQueue training, ClusterQueue ml): pending" \
    "  now: waiting, 4 of 5 in LocalQueue team-ml/training, 4 of 5 in ClusterQueue ml" \
    "  now: waiting, 2 of 5 in LocalQueue team-ml/training, 2 of 5 in ClusterQueue ml" \
    "  now: waiting, 1 of 5 in LocalQueue team-ml/training, 1 of 5 in ClusterQueue ml"
if grep -q "^  reason: couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu" <<<"$out"; then
    ok "explain waiting: reason"
else
    fail "explain waiting: reason" "$out"
fi

# An unknown name: exit 2, named, with the closest names.
out=$(sim --explain team-ml/finetun); rc=$?
[ "$rc" -eq 2 ] && ok "explain unknown: exit 2" || fail "explain unknown: exit $rc" "$out"
expect "explain unknown" "$out" \
    "ordo-scheduler: --explain: no workload team-ml/finetun; closest: team-ml/finetune-a, team-ml/finetune-b, team-ml/tokenize"

# Log lines carry virtual time, and a pending reason is logged when it
# changes: never the same reason twice in a row for one workload.
out=$(sim -v 3)
if grep -qE '^I\[ *[0-9]+\.[0-9]{3}s\] cycle\.c:[0-9]+\] workload not admitted' <<<"$out"; then
    ok "log: virtual time"
else
    fail "log: virtual time" "$(head -5 <<<"$out")"
fi
dups=$(grep -o 'workload not admitted wl=.*' <<<"$out" |
    awk '{ wl = $4; if (last[wl] == $0) { print; n++ } last[wl] = $0 } END { exit n > 0 }')
if [ $? -eq 0 ] && [ "$(grep -c 'workload not admitted' <<<"$out")" -gt 0 ]; then
    ok "log: a reason logged once"
else
    fail "log: a reason logged once" "$dups"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
