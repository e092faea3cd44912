#!/usr/bin/env bash
# test_kube_cli.sh - the cluster mode's command line: kubeconfig errors name
# the file, the context and the field, bad rate limits and leader-election
# durations are refused, and a daemon
# with an API server that does not answer keeps trying and stops cleanly on
# SIGTERM.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { "$bin" --plugin-dir "$plugins" "$@"; }

check "missing kubeconfig" 1 "$tmp/none" -- run --kubeconfig "$tmp/none"
cat >"$tmp/noctx" <<'YAML'
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
YAML
check "no current-context" 1 "no current-context" -- run --kubeconfig "$tmp/noctx"
check "unknown context" 1 "$tmp/noctx: context \"other\": not found" -- \
    run --kubeconfig "$tmp/noctx" --context other
cat >"$tmp/noserver" <<'YAML'
apiVersion: v1
kind: Config
current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {}}]
users: [{name: u, user: {token: abc}}]
YAML
check "cluster without server" 1 \
    "$tmp/noserver: context \"x\": cluster \"c\": server: missing" -- \
    run --kubeconfig "$tmp/noserver"
cat >"$tmp/badca" <<'YAML'
apiVersion: v1
kind: Config
current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1",
  certificate-authority-data: "not base64!"}}]
users: [{name: u, user: {token: abc}}]
YAML
check "certificate-authority-data not base64" 1 \
    "$tmp/badca: context \"x\": cluster \"c\": certificate-authority-data" -- \
    run --kubeconfig "$tmp/badca"
# --context alone: the files of KUBECONFIG, merged.
check "--context reads KUBECONFIG" 1 \
    "$tmp/noctx (and the files merged with it): context \"other\": not found" -- \
    env KUBECONFIG="$tmp/noctx:$tmp/noserver" "$bin" --plugin-dir "$plugins" \
    --context other
# --cluster with no kubeconfig and not in a cluster.
check "--cluster with nothing to use" 1 "not in a cluster" -- \
    env -u KUBERNETES_SERVICE_HOST KUBECONFIG= HOME="$tmp/nohome" \
    "$bin" --plugin-dir "$plugins" --cluster
check "bad scheme" 1 "API client for ftp://x" -- run --server ftp://x
check "qps 0" 2 "--qps: expected 1 to 100000" -- run --server http://x --qps 0
check "write-qps 0" 2 "--write-qps: expected 1 to 100000" -- run --server http://x --write-qps 0
check "write-burst junk" 2 "--write-burst: expected 1 to 100000, got \"2x\"" -- run --server http://x --write-burst 2x
check "stray argument" 2 "unexpected argument" -- run --server http://x extra
check "lease duration not a duration" 2 \
    "--leader-elect-lease-duration: expected a duration from 1s to 1h such as 15s or 1m30s, got \"15\"" -- \
    run --server http://x --leader-elect-lease-duration 15
check "lease under a second" 2 "got \"500ms\"" -- \
    run --server http://x --leader-elect-lease-duration 500ms
check "retry period not a duration" 2 "--leader-elect-retry-period: expected" -- \
    run --server http://x --leader-elect-retry-period 2x
check "renew deadline over the lease" 2 \
    "--leader-elect-lease-duration > --leader-elect-renew-deadline > --leader-elect-retry-period" -- \
    run --server http://x --leader-elect-renew-deadline 1m
check "retry period over the renew deadline" 2 "leader election needs" -- \
    run --server http://x --leader-elect-retry-period 10s
check "--leader-elect takes true or false" 2 \
    "--leader-elect: expected true or false, got \"yes\"" -- \
    run --server http://x --leader-elect=yes

# Nothing listens on port 1: the informers retry; SIGTERM ends it with 0.
"$bin" --plugin-dir "$plugins" --server http://127.0.0.1:1 >"$tmp/log" 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM stops it cleanly" 0 "stopping" -- \
    bash -c "cat '$tmp/log'; exit $rc"
check_done
