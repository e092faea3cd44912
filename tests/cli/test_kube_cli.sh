#!/usr/bin/env bash
# test_kube_cli.sh - the cluster mode's command line: kubeconfig errors name
# the file and what is missing, bad rate limits are refused, and a daemon
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
check "unknown context" 1 "no context \"other\"" -- \
    run --kubeconfig "$tmp/noctx" --context other
cat >"$tmp/noserver" <<'YAML'
apiVersion: v1
kind: Config
current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {}}]
users: [{name: u, user: {token: abc}}]
YAML
check "cluster without server" 1 "its cluster has no server" -- \
    run --kubeconfig "$tmp/noserver"
check "bad scheme" 1 "API client for ftp://x" -- run --server ftp://x
check "qps 0" 2 "--qps: expected 1 to 100000" -- run --server http://x --qps 0
check "stray argument" 2 "unexpected argument" -- run --server http://x extra

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
