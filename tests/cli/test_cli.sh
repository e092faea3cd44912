#!/usr/bin/env bash
# test_cli.sh - ordo-scheduler's command line as a user meets it: --version,
# --list-plugins, --validate on good and bad manifests, bad options.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
data=${ORDO_TEST_DATA:?ORDO_TEST_DATA not set}

. "$(dirname "$0")/lib.sh"

check "version" 0 "ordo-scheduler 0.1.0 (plugin ABI 1.4)" -- "$bin" --version
check "help" 0 "--validate PATH" -- "$bin" --help
check "help: --cycle-timeout" 0 "--cycle-timeout DUR" -- "$bin" --help
check "unknown option" 2 "Usage: ordo-scheduler" -- "$bin" --bogus
check "bad -v" 2 "-v: expected 0 to 10" -- "$bin" -v x --version
check "no mode" 2 "Usage:" -- "$bin"
# The built-in directory is searched last unless builtinPluginDir: false.
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\nbuiltinPluginDir: false\n' \
    >"${TMPDIR:-/tmp}/ordo-cli-nobuiltin.$$.yaml"
check "list plugins, empty dir" 0 "(no plugins in" -- "$bin" --list-plugins --plugin-dir "$data" \
    --config "${TMPDIR:-/tmp}/ordo-cli-nobuiltin.$$.yaml"
rm -f "${TMPDIR:-/tmp}/ordo-cli-nobuiltin.$$.yaml"
check "list plugins, empty dir then built-in" 0 "strict-fifo              queue" -- "$bin" --list-plugins --plugin-dir "$data"
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

# The simulator's annotations: a bad ordo.dev/sim-runtime is an error at
# load time wherever the simulator reads it, naming file, object and field.
sim=$(mktemp -d) || exit 1
trap 'rm -rf "$sim"' EXIT
queues() {
    cat <<EOF
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "8", memory: 8Gi}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 8}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: lq}
spec: {clusterQueue: cq}
EOF
}
# job NAME JOB_ANNOTATIONS TEMPLATE_ANNOTATIONS: a 1-pod Job.
job() {
    cat <<EOF
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {$2}
spec:
  template:
    metadata:
      annotations: {$3}
    spec:
      schedulerName: ordo-scheduler
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
EOF
}
mkdir "$sim/pod" "$sim/job" "$sim/template" "$sim/jobset" "$sim/range" \
    "$sim/limit" "$sim/near"
{ queues; cat <<EOF
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {ordo.dev/sim-runtime: "-5m"}
spec:
  schedulerName: ordo-scheduler
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
EOF
} >"$sim/pod/all.yaml"
{ queues; job j 'ordo.dev/sim-runtime: "1hr"' ''; } >"$sim/job/all.yaml"
{ queues; job j '' 'ordo.dev/sim-runtime: "5 m"'; } >"$sim/template/all.yaml"
{ queues; cat <<EOF
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicatedJobs:
  - name: leader
    template:
      spec:
        template:
          metadata:
            annotations: {ordo.dev/sim-runtime: "1m"}
          spec:
            schedulerName: ordo-scheduler
            containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  - name: workers
    template:
      spec:
        template:
          metadata:
            annotations: {ordo.dev/sim-runtime: "forever"}
          spec:
            schedulerName: ordo-scheduler
            containers: [{name: c, resources: {requests: {cpu: "1"}}}]
EOF
} >"$sim/jobset/all.yaml"
{ queues; job j '' 'ordo.dev/sim-runtime: "9999999h"'; } >"$sim/range/all.yaml"
# Arriving at 2562047h (about the int64 limit of nanoseconds): with 1h to
# run it would end past the limit, which never comes; with 47m it ends
# just before it.
{ queues; job late 'ordo.dev/sim-arrival: "2562047h"' 'ordo.dev/sim-runtime: "1h"'; } \
    >"$sim/limit/all.yaml"
{ queues; job late 'ordo.dev/sim-arrival: "2562047h"' 'ordo.dev/sim-runtime: "47m"'; } \
    >"$sim/near/all.yaml"
check "sim bad runtime: pod" 1 "all.yaml:24: Pod default/p: metadata.annotations[ordo.dev/sim-runtime]: invalid duration \"-5m\" (e.g." \
    -- "$bin" --sim "$sim/pod" --no-progress
check "sim bad runtime: job" 1 "Job default/j: metadata.annotations[ordo.dev/sim-runtime]: invalid duration \"1hr\"" \
    -- "$bin" --sim "$sim/job" --no-progress
check "sim bad runtime: job template" 1 "Job default/j: spec.template.metadata.annotations[ordo.dev/sim-runtime]: invalid duration \"5 m\"" \
    -- "$bin" --sim "$sim/template" --no-progress
check "sim bad runtime: jobset template" 1 "JobSet default/js: spec.replicatedJobs[1].template.spec.template.metadata.annotations[ordo.dev/sim-runtime]: invalid duration \"forever\"" \
    -- "$bin" --sim "$sim/jobset" --no-progress
check "sim runtime out of range" 1 "spec.template.metadata.annotations[ordo.dev/sim-runtime]: duration \"9999999h\" out of range" \
    -- "$bin" --sim "$sim/range" --no-progress
check "sim end past the time limit never comes" 0 "workloads: 1 (0 pending, 1 admitted, 0 finished), end time 2562047h00m00s" \
    -- "$bin" --sim "$sim/limit" --no-progress --sim-check
check "sim end just before the time limit" 0 "workloads: 1 (0 pending, 0 admitted, 1 finished), end time 2562047h47m00s" \
    -- "$bin" --sim "$sim/near" --no-progress --sim-check

# --plot never uses an object name as a file name: a valid 252-character
# ClusterQueue name gets usage-1-<its first 40 characters>.svg.
long=$(printf 'a%.0s' $(seq 63)).$(printf 'b%.0s' $(seq 63)).$(printf 'c%.0s' $(seq 63)).$(printf 'd%.0s' $(seq 60))
mkdir "$sim/long"
queues | sed "s/name: cq}/name: $long}/; s/clusterQueue: cq}/clusterQueue: $long}/" >"$sim/long/all.yaml"
check "sim plot with a 252-character ClusterQueue name" 0 "<tr><td>$long</td><td><a href=\"usage-1-${long:0:40}.svg\">" \
    -- sh -c '"$1" --sim "$2/long" --no-progress --plot "$2/plots" >/dev/null && cat "$2/plots/index.html" && test -f "$2/plots/usage-1-$3.svg"' \
    sh "$bin" "$sim" "${long:0:40}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
