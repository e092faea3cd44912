#!/usr/bin/env bash
# test_obs.sh - what an operator sees. --sim --metrics-out on
# tests/data/obs gives exact values (parsed with python3-prometheus-client);
# then ordo-scheduler --listen against the API-server emulator: /healthz
# 200, /readyz 503 naming the kinds not synced while no API server answers,
# 200 once one does; /metrics parses and says what happened (one admitted,
# three pending, every informer synced, binds and API requests counted);
# /queues lists the pending workloads in the order --explain gives, per
# ClusterQueue and LocalQueue, with limit and offset; the LocalQueue
# metrics (values as /queues lists them, a deleted LocalQueue's series
# gone, --no-local-queue-metrics); a clean SIGTERM.
# Bounded by ORDO_OBS_TIMEOUT seconds (default 120). Skips (77) without
# the emulator, kubectl, curl, python3-prometheus-client or python3-yaml.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
check_grep=-E
. "$(dirname "$0")/lib.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
py=/usr/bin/python3
kubectl=${KUBECTL:-$(command -v kubectl || true)}
if [ ! -x "$emu" ] || [ -z "$kubectl" ] || ! command -v curl >/dev/null ||
    ! "$py" -c 'import prometheus_client.parser, yaml' 2>/dev/null; then
    echo "SKIP: needs the emulator, kubectl, curl and python3-prometheus-client"
    exit 77
fi
limit=${ORDO_OBS_TIMEOUT:-120}
data=$src/tests/data/obs
tmp=$(mktemp -d)
emu_pid= sched_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# metric FILE NAME LABEL=VALUE...: the sample's value ("-" when absent).
metric() {
    "$py" - "$@" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families as parse
path, name, *want = sys.argv[1:]
want = dict(w.split("=", 1) for w in want)
for fam in parse(open(path).read()):
    for s in fam.samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in want.items()):
            v = s.value
            print(v if v in (float("inf"), float("-inf")) or v != int(v)
                  else int(v))
            sys.exit(0)
print("-")
PY
}

# ---- the simulator: exact values at the end of the run ------------------
"$bin" --sim "$data" --plugin-dir "$plugins" --no-progress \
    --metrics-out "$tmp/sim.prom" --explain team/j-low --explain team/j-high \
    --explain team/j-mid >"$tmp/sim.out" 2>&1
check "sim with --metrics-out" 0 "" -- cat "$tmp/sim.prom"
check "sim exposition parses" 0 "" -- "$py" -c "
from prometheus_client.parser import text_string_to_metric_families as p
import sys; list(p(open(sys.argv[1]).read()))" "$tmp/sim.prom"
r=standalone
check "sim: one admitted (urgent)" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_admitted_workloads_total cluster_queue=q priority_class=urgent
check "sim: three inadmissible" 0 "^3$" -- metric "$tmp/sim.prom" \
    kueue_pending_workloads cluster_queue=q status=inadmissible replica_role=$r
check "sim: none active" 0 "^0$" -- metric "$tmp/sim.prom" \
    kueue_pending_workloads cluster_queue=q status=active
# LocalQueue metrics: lq-a holds the urgent one and two waiting, lq-b one.
check "sim: lq-a two inadmissible" 0 "^2$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_pending_workloads namespace=team name=lq-a \
    status=inadmissible replica_role=$r
check "sim: lq-b one inadmissible" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_pending_workloads namespace=team name=lq-b \
    status=inadmissible
check "sim: lq-a reserving one" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_reserving_active_workloads namespace=team name=lq-a
check "sim: lq-b reserving none" 0 "^0$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_admitted_active_workloads namespace=team name=lq-b
check "sim: lq-a admitted the urgent one" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_admitted_workloads_total namespace=team name=lq-a \
    priority_class=urgent
check "sim: lq-a uses 1 cpu" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_resource_usage namespace=team name=lq-a \
    flavor=default resource=cpu
check "sim: lq-b reserves 0 cpu" 0 "^0$" -- metric "$tmp/sim.prom" \
    kueue_local_queue_resource_reservation namespace=team name=lq-b \
    flavor=default resource=cpu
check "sim: ordo_build_info 1" 0 "^1$" -- metric "$tmp/sim.prom" \
    ordo_build_info version="$("$bin" --version | awk '{print $2}')"
"$bin" --sim "$data" --plugin-dir "$plugins" --no-progress \
    --no-local-queue-metrics --metrics-out "$tmp/nolq.prom" >/dev/null 2>&1
check "--no-local-queue-metrics: none" 1 "" -- \
    grep kueue_local_queue_ "$tmp/nolq.prom"
check "--no-local-queue-metrics: the ClusterQueue's still" 0 "^3$" -- \
    metric "$tmp/nolq.prom" kueue_pending_workloads cluster_queue=q \
    status=inadmissible
check "sim: waited 0 s" 0 "^0$" -- metric "$tmp/sim.prom" \
    kueue_admission_wait_time_seconds_sum cluster_queue=q
check "sim: wait within the first bucket" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_admission_wait_time_seconds_bucket cluster_queue=q le=1
check "sim: nominal quota 1 cpu" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_cluster_queue_nominal_quota cluster_queue=q resource=cpu
check "sim: no borrowing limit" 0 "^inf$" -- metric "$tmp/sim.prom" \
    kueue_cluster_queue_borrowing_limit cluster_queue=q resource=cpu
check "sim: cq active" 0 "^1$" -- metric "$tmp/sim.prom" \
    kueue_cluster_queue_status cluster_queue=q status=active
check "sim: one scheduled" 0 "^1$" -- metric "$tmp/sim.prom" \
    scheduler_schedule_attempts_total result=scheduled
# Suspended Jobs make no pods until admitted: none wait for a node.
check "sim: no pods waiting" 0 "^0$" -- metric "$tmp/sim.prom" \
    scheduler_pending_pods queue=unschedulable

# A run with preemption: the counters against the report, workload by
# workload.
"$bin" --sim "$src/examples/quickstart" --plugin-dir "$plugins" --no-progress \
    --report "$tmp/qs.json" --metrics-out "$tmp/qs.prom" >/dev/null 2>&1
check "quickstart: metrics match the report" 0 "^compared [0-9]+ counts" -- \
    "$py" "$src/tests/cli/obs_report.py" "$tmp/qs.json" "$tmp/qs.prom" \
    "$src/examples/quickstart"
check "quickstart: victims per preemption = preempted" 0 "^ok$" -- "$py" -c "
import sys
from prometheus_client.parser import text_string_to_metric_families as p
v = {s.name: s.value for f in p(open(sys.argv[1]).read()) for s in f.samples
     if s.name == 'scheduler_preemption_victims_sum'}
n = sum(s.value for f in p(open(sys.argv[1]).read()) for s in f.samples
        if s.name == 'kueue_preempted_workloads_total')
print('ok' if n > 0 and v['scheduler_preemption_victims_sum'] == n else (v, n))
" "$tmp/qs.prom"

# Scenarios with stop policies and every kind of preemption: the counters
# against the report, and the reasons Kueue gives.
fails=
for sc in "$src"/tests/scenarios/{quota-stop-drain-cq,quota-stop-drain-lq,host-preempt-*,quota-fair-*,preempt-*}; do
    [ -d "$sc/input" ] || continue
    cfg=()
    [ -f "$sc/config.yaml" ] && cfg=(--config "$sc/config.yaml")
    n=${sc##*/}
    "$bin" --sim "$sc/input" "${cfg[@]}" --plugin-dir "$plugins" --no-progress \
        --report "$tmp/$n.json" --metrics-out "$tmp/$n.prom" >/dev/null 2>&1
    "$py" "$src/tests/cli/obs_report.py" "$tmp/$n.json" "$tmp/$n.prom" \
        "$sc/input" >"$tmp/$n.cmp" 2>&1 || fails="$fails $n: $(cat "$tmp/$n.cmp")"
done
check "scenarios: metrics match the reports" 0 "^$" -- echo "$fails"
check "HoldAndDrain ClusterQueue: ClusterQueueStopped" 0 "^1$" -- metric \
    "$tmp/quota-stop-drain-cq.prom" kueue_evicted_workloads_total \
    cluster_queue=team-a reason=ClusterQueueStopped
check "HoldAndDrain LocalQueue: LocalQueueStopped" 0 "^1$" -- metric \
    "$tmp/quota-stop-drain-lq.prom" kueue_evicted_workloads_total \
    cluster_queue=shared reason=LocalQueueStopped

# --explain's positions (1-based), to compare with /queues (0-based).
pos() { sed -n "/^Job team\/$1 /,/now:/s/.* \([0-9]*\) of [0-9]* in ClusterQueue.*/\1/p" "$tmp/sim.out"; }
want_order=$(for j in j-low j-high j-mid; do echo "$(pos $j) $j"; done |
    sort -n | awk '{print $2}' | tr '\n' ' ')
check "sim order known" 0 "j-high j-mid j-low" -- echo "$want_order"

# ---- the daemon: before and after an API server --------------------------
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
secret=obs-test-token
"$bin" --server "https://127.0.0.1:$port" --insecure-skip-tls-verify \
    --token "$secret" --plugin-dir "$plugins" --listen 127.0.0.1:0 \
    >"$tmp/sched.log" 2>&1 &
sched_pid=$!
deadline=$((SECONDS + limit))
lport=
while [ -z "$lport" ] && [ $SECONDS -lt $deadline ] && kill -0 $sched_pid 2>/dev/null; do
    lport=$(sed -n 's/.*serving .* (port \([0-9]*\)).*/\1/p' "$tmp/sched.log")
    [ -n "$lport" ] || sleep 0.1
done
check "listening" 0 "serving /metrics" -- cat "$tmp/sched.log"
url=http://127.0.0.1:$lport
get() { curl -s -w '\n%{http_code}\n' "$url$1"; }
check "healthz" 0 "ok" -- get /healthz
check "readyz 503 before any API server" 0 "503" -- get /readyz
check "readyz names what is missing" 0 "Pod not synced" -- get /readyz
check "readyz says the role (no lease yet)" 0 "role: follower" -- get /readyz
check "unknown path 404" 0 "404" -- get /nope

"$emu" --listen "127.0.0.1:$port" --kubeconfig-out "$tmp/kubeconfig" --tls \
    --token "obs:$secret" --controllers job --kubelet >"$tmp/emu.log" 2>&1 &
emu_pid=$!
until [ -s "$tmp/kubeconfig" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" = 200 ]; }
until ready || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "readyz 200 once synced" 0 "200" -- get /readyz
until get /readyz | grep -q "role: leader" || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "readyz: this replica leads" 0 "role: leader" -- get /readyz

k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "queues applied" 0 "created" -- k apply -f "$data/queue.yaml"
check "jobs applied" 0 "created" -- k apply -f "$data/jobs.yaml"
settled() {
    curl -s "$url/metrics" >"$tmp/m.prom" &&
        [ "$(metric "$tmp/m.prom" kueue_pending_workloads cluster_queue=q status=inadmissible)" = 3 ] &&
        [ "$(metric "$tmp/m.prom" ordo_binds_total result=success)" = 1 ]
}
until settled || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
m=$tmp/m.prom
check "metrics parse" 0 "" -- "$py" -c "
from prometheus_client.parser import text_string_to_metric_families as p
import sys; list(p(open(sys.argv[1]).read()))" "$m"
check "content type 0.0.4" 0 "version=0.0.4" -- curl -sI "$url/metrics"
check "admitted: the urgent one" 0 "^1$" -- metric "$m" \
    kueue_admitted_workloads_total cluster_queue=q priority_class=urgent
check "pending: three" 0 "^3$" -- metric "$m" kueue_pending_workloads \
    cluster_queue=q status=inadmissible replica_role=leader
check "reserving: one" 0 "^1$" -- metric "$m" \
    kueue_reserving_active_workloads cluster_queue=q
check "usage 1 cpu" 0 "^1$" -- metric "$m" \
    kueue_cluster_queue_resource_usage cluster_queue=q flavor=default resource=cpu
check "one bind, succeeded" 0 "^1$" -- metric "$m" ordo_binds_total result=success
check "pods informer synced" 0 "^1$" -- metric "$m" ordo_informer_synced kind=Pod
check "binding POSTs counted" 0 "^[1-9]" -- metric "$m" \
    ordo_api_requests_total verb=POST code=201
check "lists counted" 0 "^[1-9]" -- metric "$m" ordo_api_requests_total \
    verb=GET code=200

# ---- /queues -------------------------------------------------------------
cat >"$tmp/order.py" <<'PY'
import json, sys
d = json.load(sys.stdin)
assert d["kind"] == "PendingWorkloadsSummary", d
assert all(i["reason"] for i in d["items"]), d
print(" ".join("%s:%d:%d:%s" % (i["metadata"]["name"],
    i["positionInClusterQueue"], i["positionInLocalQueue"],
    i["localQueueName"]) for i in d["items"]))
PY
# name:positionInClusterQueue:positionInLocalQueue:localQueueName ...
order() { curl -sf "$url$1" | "$py" "$tmp/order.py"; }
cq=/queues/clusterqueues/q/pendingworkloads
check "queue order as --explain" 0 \
    "^$(echo $want_order | awk '{print $1":0:0:lq-b "$2":1:0:lq-a "$3":2:1:lq-a"}')$" \
    -- order $cq
check "offset and limit" 0 "^j-mid:1:0:lq-a$" -- order "$cq?offset=1&limit=1"
check "local queue" 0 "^j-mid:1:0:lq-a j-low:2:1:lq-a$" -- \
    order /queues/namespaces/team/localqueues/lq-a/pendingworkloads
check "the aggregated API's path too" 0 "^j-high:0:0:lq-b$" -- \
    order "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/q/pendingworkloads?limit=1"
check "overview" 0 '"pending":3' -- curl -sf "$url/queues"
# Each LocalQueue's pending gauges add up to what /queues lists for it.
lq_pending() {
    curl -s "$url/metrics" >"$tmp/lq.prom"
    echo $(($(metric "$tmp/lq.prom" kueue_local_queue_pending_workloads \
        namespace=team name=$1 status=active replica_role=leader) + \
        $(metric "$tmp/lq.prom" kueue_local_queue_pending_workloads \
        namespace=team name=$1 status=inadmissible replica_role=leader)))
}
lq_listed() {
    curl -sf "$url/queues/namespaces/team/localqueues/$1/pendingworkloads" |
        "$py" -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))'
}
for lq in lq-a lq-b; do
    want=$(lq_listed $lq)
    check "$lq: pending metrics = /queues ($want)" 0 "^$want$" -- lq_pending $lq
done
check "lq-a: admitted the urgent one" 0 "^1$" -- metric "$tmp/lq.prom" \
    kueue_local_queue_admitted_workloads_total namespace=team name=lq-a \
    priority_class=urgent replica_role=leader
check "lq-a: uses 1 cpu" 0 "^1$" -- metric "$tmp/lq.prom" \
    kueue_local_queue_resource_usage namespace=team name=lq-a \
    flavor=default resource=cpu
check "ordo_build_info" 0 "^1$" -- metric "$tmp/lq.prom" ordo_build_info
# A LocalQueue deleted: its series go.
check "lq-b deleted" 0 "deleted" -- k delete localqueue -n team lq-b
gone() {
    curl -s "$url/metrics" >"$tmp/gone.prom" &&
        ! grep -q 'name="lq-b"' "$tmp/gone.prom"
}
until gone || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "lq-b's series gone" 1 "" -- grep 'name="lq-b"' "$tmp/gone.prom"
check "lq-a's kept" 0 "^1$" -- metric "$tmp/gone.prom" \
    kueue_local_queue_reserving_active_workloads namespace=team name=lq-a
check "unknown ClusterQueue 404" 0 "404" -- get /queues/clusterqueues/nope/pendingworkloads
check "bad limit 400" 0 "400" -- get "$cq?limit=-1"

kill -TERM $sched_pid
wait $sched_pid
rc=$?
sched_pid=
check "SIGTERM: exit 0" 0 "^0$" -- echo $rc
check "no sanitizer report" 1 "" -- grep -E "Sanitizer|runtime error" "$tmp/sched.log"

# ---- TLS: --listen-cert/--listen-key serve HTTPS only --------------------
if command -v openssl >/dev/null; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
        -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1
    check "cert without key refused" 1 "go together" -- "$bin" \
        --server https://127.0.0.1:1 --plugin-dir "$plugins" \
        --listen 127.0.0.1:0 --listen-cert "$tmp/cert.pem"
    "$bin" --server https://127.0.0.1:1 --plugin-dir "$plugins" \
        --listen 127.0.0.1:0 --listen-cert "$tmp/cert.pem" \
        --listen-key "$tmp/key.pem" >"$tmp/tls.log" 2>&1 &
    sched_pid=$!
    lport=
    while [ -z "$lport" ] && [ $SECONDS -lt $deadline ] && kill -0 $sched_pid 2>/dev/null; do
        lport=$(sed -n 's/.*serving .* (port \([0-9]*\)) over TLS.*/\1/p' "$tmp/tls.log")
        [ -n "$lport" ] || sleep 0.1
    done
    check "healthz over TLS" 0 "^ok$" -- curl -s --cacert "$tmp/cert.pem" \
        "https://127.0.0.1:$lport/healthz"
    plain_refused() { ! curl -sf -o /dev/null --max-time 5 "$1"; }
    check "no plain HTTP then" 0 "" -- plain_refused \
        "http://127.0.0.1:$lport/healthz"
    kill -TERM $sched_pid
    wait $sched_pid
    rc=$?
    sched_pid=
    check "TLS daemon: exit 0" 0 "^0$" -- echo $rc
fi
check_done
