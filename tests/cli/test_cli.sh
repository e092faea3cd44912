#!/usr/bin/env bash
# test_cli.sh - ordo-scheduler's command line as a user meets it: --version,
# --list-plugins, --validate on good and bad manifests, bad options.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
data=${ORDO_TEST_DATA:?ORDO_TEST_DATA not set}
passed=0 failed=0

# check NAME WANT_RC WANT_TEXT -- command...: runs the command, compares
# the exit status and looks for WANT_TEXT in stdout+stderr.
check() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want" <<<"$out"; then
        passed=$((passed + 1)); echo "ok - $name"
    else
        failed=$((failed + 1)); echo "not ok - $name (rc=$rc, want $want_rc, '$want')"
        sed 's/^/    /' <<<"$out"
    fi
}

check "version" 0 "ordo-scheduler 0.1.0 (plugin ABI 1.3)" -- "$bin" --version
check "help" 0 "--validate PATH" -- "$bin" --help
check "help: --cycle-timeout" 0 "--cycle-timeout DUR" -- "$bin" --help
check "unknown option" 2 "Usage: ordo-scheduler" -- "$bin" --bogus
check "bad -v" 2 "-v: expected 0 to 10" -- "$bin" -v x --version
check "no mode" 2 "Usage:" -- "$bin"
check "list plugins, empty dir" 0 "(no plugins in" -- "$bin" --list-plugins --plugin-dir "$data"
check "list plugins, missing dir" 1 "plugin directory /nonexistent" -- "$bin" --list-plugins --plugin-dir /nonexistent
check "validate good" 0 "5 objects, 1 Namespace, 1 Job, 1 ResourceFlavor, 1 ClusterQueue, 1 LocalQueue; 1 ignored" \
    -- "$bin" --validate "$data/manifests/good"
check "validate bad: quantity" 1 "broken.yaml:12: ClusterQueue team-b: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: invalid quantity \"5 Gi\"" \
    -- "$bin" --validate "$data/manifests/bad"
check "validate bad: summary" 1 "1 objects, 1 Node; 0 ignored (kinds Ordo does not read); 3 errors" \
    -- "$bin" --validate "$data/manifests/bad"
check "validate missing" 1 "/nonexistent.yaml: No such file or directory" -- "$bin" --validate /nonexistent.yaml
check "validate no args" 2 "needs at least one" -- "$bin" --validate
# The fixtures' placeholder names ("nameValue") are not valid Kubernetes
# names, so each of the 7 objects of kinds Ordo reads is refused for its name,
# as an API server would (the unit tests decode them with the names
# lowercased); the other error is the watch-event envelope, not an object.
check "validate k8s fixtures" 1 "0 objects; 14 ignored (kinds Ordo does not read); 8 errors" \
    -- "$bin" --validate "$data/k8s-api"
check "validate k8s fixtures: names" 1 "core.v1.Pod.json: Pod: metadata.name: invalid name \"nameValue\": a lowercase RFC 1123 subdomain" \
    -- "$bin" --validate "$data/k8s-api"
check "validate k8s fixtures: envelope" 1 "core.v1.WatchEvent.json: kind: missing: not a Kubernetes object" \
    -- "$bin" --validate "$data/k8s-api"

check "sim quickstart with invariant checks" 0 "workloads: 21 (0 pending, 0 admitted, 21 finished)" \
    -- "$bin" --sim "$data/../../examples/quickstart" --no-progress --sim-check
check "sim-check reports a violation" 1 "invariant violated at t=0s: node small: cpu used 2000 > allocatable 1000" \
    -- "$bin" --sim "$data/sim/overcommitted" --no-progress --sim-check
check "sim without manifests" 2 "--sim needs at least one" -- "$bin" --sim
check "sim bad until" 2 "--sim-until: expected" -- "$bin" --sim "$data/sim/overcommitted" --sim-until soon
check "sim bad manifests" 1 "broken.yaml:12: ClusterQueue team-b" -- "$bin" --sim "$data/manifests/bad" --no-progress
# Input Kubernetes would reject is rejected, the field named.
check "validate negative allocatable" 1 "negative-node.yaml:9: Node worker-1: status.allocatable.cpu: must be non-negative, got \"-8\"" \
    -- "$bin" --validate "$data/manifests/negative-node.yaml"
check "sim refuses a negative request" 1 "job.yaml:16: Job default/free-lunch: spec.template.spec.containers[0].resources.requests.cpu: must be non-negative, got \"-4\"" \
    -- "$bin" --sim "$data/manifests/negative-request" --no-progress
check "sim runs the same cluster without it" 0 "workloads: 0" \
    -- "$bin" --sim "$data/manifests/negative-request/cluster.yaml" --no-progress
check "sim bad config" 1 "--config: " -- "$bin" --sim "$data/sim/overcommitted" --config "$data/manifests/good/queues.yaml"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
