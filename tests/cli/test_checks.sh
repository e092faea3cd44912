#!/usr/bin/env bash
# test_checks.sh - the checks across objects as a user meets them in
# --validate and --sim: each finding on its own line with file, line,
# object and field; warnings by default, errors with --strict; a Cohort
# cycle an error; nothing said about consistent manifests (the examples).
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}

. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/refs" "$dir/cycle" "$dir/broken" "$dir/strict"
cat >"$dir/refs/queues.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "8"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: kueue.x-k8s.io/provisioning-request}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy: {admissionChecks: [{name: prov}]}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: default, resources: [{name: cpu, nominalQuota: 8}]}
    - {name: spot, resources: [{name: cpu, nominalQuota: 8}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: team, name: main}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: team, name: typo}
spec: {clusterQueue: cq-a}
EOF
cat >"$dir/refs/jobs.yaml" <<'EOF'
apiVersion: batch/v1
kind: Job
metadata:
  name: web-batch
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: main}
spec:
  template:
    spec:
      schedulerName: volcano
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: lost
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: mian}
spec:
  template:
    spec:
      schedulerName: ordo-scheduler
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
EOF
# The same without the AdmissionCheck strategy, which --strict refuses as
# unsupported before any check across objects could run.
sed '/admissionChecksStrategy/d' "$dir/refs/queues.yaml" >"$dir/strict/queues.yaml"
cp "$dir/refs/jobs.yaml" "$dir/strict/"
cat >"$dir/cycle/cohorts.yaml" <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: east}
spec: {parentName: west}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: west}
spec: {parentName: east}
EOF
cat >"$dir/broken/queues.yaml" <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec: {queueingStrategy: Sometimes}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: team, name: main}
spec: {clusterQueue: cq}
EOF

check "help: --strict" 0 "--strict" -- "$bin" --help
# Missing references: warnings, exit 0, one line each.
check "warning: missing flavor" 0 "warning: $dir/refs/queues.yaml:15: ClusterQueue cq: spec.resourceGroups: references missing ResourceFlavor(s): spot" \
    -- "$bin" --validate "$dir/refs"
check "warning: admission check never active" 0 "warning: $dir/refs/queues.yaml:15: ClusterQueue cq: references inactive AdmissionCheck(s): prov: Ordo runs no admission check controller" \
    -- "$bin" --validate "$dir/refs"
check "warning: missing ClusterQueue" 0 "warning: $dir/refs/queues.yaml:32: LocalQueue team/typo: spec.clusterQueue: ClusterQueue cq-a doesn't exist" \
    -- "$bin" --validate "$dir/refs"
check "warning: not Ordo's" 0 "warning: $dir/refs/jobs.yaml:1: Job team/web-batch has queue label main but its spec.template.spec.schedulerName is \"volcano\": Ordo will not schedule it" \
    -- "$bin" --validate "$dir/refs"
check "warning: missing LocalQueue" 0 "warning: $dir/refs/jobs.yaml:13: Job team/lost: metadata.labels[kueue.x-k8s.io/queue-name]: LocalQueue mian doesn't exist in namespace team" \
    -- "$bin" --validate "$dir/refs"
check "summary counts warnings" 0 "8 objects, 1 Node, 2 Job, 1 ResourceFlavor, 1 ClusterQueue, 2 LocalQueue, 1 AdmissionCheck; 0 ignored (kinds Ordo does not read); 0 errors; 6 warnings" \
    -- "$bin" --validate "$dir/refs"
check "no note outside the simulator" 0 "!the whole cluster" -- "$bin" --validate "$dir/refs"
# --strict: missing references are errors (no "warning:"), exit 1.
check "strict: error" 1 "$dir/strict/queues.yaml:31: LocalQueue team/typo: spec.clusterQueue: ClusterQueue cq-a doesn't exist" \
    -- "$bin" --validate --strict "$dir/strict"
check "strict: summary" 1 "; 3 errors; 1 warnings" -- "$bin" --validate --strict "$dir/strict"
check "strict: unsupported field" 1 "$dir/refs/queues.yaml:20: ClusterQueue cq: spec.admissionChecksStrategy: unsupported" \
    -- "$bin" --validate --strict "$dir/refs"
# A cycle is an error without --strict.
check "cohort cycle" 1 "cohorts.yaml:1: Cohort east: spec.parentName: cohort has a cycle: east -> west -> east" \
    -- "$bin" --validate "$dir/cycle"
# A reference to an object that failed to decode is not reported again.
check "decode errors first" 1 "!doesn't exist" -- "$bin" --validate "$dir/broken"
# The simulator says the same, noting that its manifests are all there is.
check "sim warns" 0 "warning: $dir/refs/queues.yaml:32: LocalQueue team/typo: spec.clusterQueue: ClusterQueue cq-a doesn't exist: its workloads wait for it (in the simulator the manifests are the whole cluster)" \
    -- "$bin" --sim "$dir/refs" --no-progress
check "sim --strict refuses" 1 "--sim --strict: 3 errors in the manifests" \
    -- "$bin" --sim --strict "$dir/strict" --no-progress
# The examples are consistent: nothing to say.
for ex in quickstart kueue-setup; do
    check "examples/$ex: no warnings" 0 "!warning:" -- "$bin" --validate "$src/examples/$ex"
    check "examples/$ex: strict" 0 "; 0 errors" -- "$bin" --validate --strict "$src/examples/$ex"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
