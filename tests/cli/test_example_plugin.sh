#!/usr/bin/env bash
# test_example_plugin.sh - the sample out-of-tree plugin of
# examples/plugins/smallest-first, built as its README says (its own
# Makefile, here against the in-tree <ordo/plugin.h>) and used by
# ordo-scheduler: listed, selected by a SchedulerConfiguration, given its
# pluginConfig args, and changing the admission order on a small cluster.
#
# Environment: ORDO_SCHEDULER (the binary), ORDO_SRCDIR (top source
# directory), ORDO_BUILD_PLUGIN_DIR (the built-in plugin .so files); CC
# (default cc) builds the example.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=$(cd "${ORDO_SRCDIR:?ORDO_SRCDIR not set}" && pwd) || exit 1
builtin=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
cc=${CC:-cc}
passed=0 failed=0

if ! command -v "$cc" >/dev/null || ! command -v make >/dev/null; then
    echo "SKIP: needs make and a C compiler ($cc) to build the example"
    exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check NAME WANT_RC WANT_REGEX -- command...: runs the command, compares
# the exit status and looks for WANT_REGEX (grep -E) in stdout+stderr.
check() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want_rc" ] && grep -qE -- "$want" <<<"$out"; then
        passed=$((passed + 1)); echo "ok - $name"
    else
        failed=$((failed + 1)); echo "not ok - $name (rc=$rc, want $want_rc, /$want/)"
        sed 's/^/    /' <<<"$out"
    fi
}

# config FILE [ARGS]: a SchedulerConfiguration that puts smallest-first on
# BestEffortFIFO ClusterQueues, with ARGS (a flow map) as its args.
config() {
    cat >"$1" <<EOF
apiVersion: ordo.dev/v1alpha1
kind: SchedulerConfiguration
plugins:
  queue:
    bestEffortFIFO: smallest-first
pluginConfig:
- name: smallest-first
  args: ${2:-{\}}
EOF
}

# ---- build, as a user would, from a copy of the sources only ------------
mkdir "$tmp/build" "$tmp/plugins" "$tmp/alone"
cp "$src/examples/plugins/smallest-first/smallest_first.c" \
    "$src/examples/plugins/smallest-first/Makefile" "$tmp/build/" || exit 1
check "example builds with its Makefile" 0 "smallest-first\.so" -- \
    make -C "$tmp/build" CC="$cc" ORDO_CFLAGS="-I$src/core/include" \
    CFLAGS="-O2 -g -Wall -Wextra -Werror"
so=$tmp/build/smallest-first.so
if [ ! -f "$so" ]; then
    echo "$passed passed, $((failed + 1)) failed (no $so: nothing else can run)"
    exit 1
fi
cp "$builtin"/*.so "$so" "$tmp/plugins/"
cp "$so" "$tmp/alone/"

# ---- loading ----------------------------------------------------------
check "listed next to the built-in plugins" 0 \
    "^smallest-first +queue +1\.0\.0 +priority, then fewest GPUs requested" -- \
    "$bin" --list-plugins --plugin-dir "$tmp/plugins"
check "built-ins still listed" 0 "^best-effort-fifo +queue" -- \
    "$bin" --list-plugins --plugin-dir "$tmp/plugins"

config "$tmp/default.yaml"
config "$tmp/tpu.yaml" "{resource: example.com/tpu}"
config "$tmp/bad.yaml" "{resource: [a, b]}"
check "sim quickstart with smallest-first" 0 "^workloads: [0-9]+ \(" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress \
    --config "$tmp/default.yaml" --plugin-dir "$tmp/plugins"
check "initialised with the default resource" 0 \
    "smallest-first.*ordering by total nvidia\.com/gpu requested" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress -v 1 \
    --config "$tmp/default.yaml" --plugin-dir "$tmp/plugins"
check "pluginConfig args reach init" 0 \
    "ordering by total example\.com/tpu requested" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress -v 1 \
    --config "$tmp/tpu.yaml" --plugin-dir "$tmp/plugins"
check "bad args: init refuses, scheduler stops" 1 \
    "plugin \"smallest-first\" \(.*\) failed to initialise" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress \
    --config "$tmp/bad.yaml" --plugin-dir "$tmp/plugins"
# --plugin-dir replaces the default directory: the other plugins the
# configuration uses must be there too.
check "one directory holds every plugin used" 1 \
    "plugin \"strict-fifo\" not found in $tmp/alone" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress \
    --config "$tmp/default.yaml" --plugin-dir "$tmp/alone"

# ---- order ------------------------------------------------------------
# One node and 8 GPUs of quota. "first" takes all 8 GPUs at 0s; "big" (8
# GPUs) arrives at 1m, "small" (2 GPUs) at 2m. When "first" ends, FIFO
# admits big, smallest-first admits small.
cat >"$tmp/cluster.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-0}
status:
  allocatable: {cpu: "32", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpus}
spec:
  queueingStrategy: BestEffortFIFO
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 32}
      - {name: memory, nominalQuota: 256Gi}
      - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: ns, name: lq}
spec: {clusterQueue: gpus}
EOF
for j in "first 0s 8" "big 1m 8" "small 2m 2"; do
    read -r name arrival gpus <<<"$j"
    cat >>"$tmp/cluster.yaml" <<EOF
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {ordo.dev/sim-arrival: "$arrival"}
spec:
  template:
    metadata:
      annotations: {ordo.dev/sim-runtime: "10m"}
    spec:
      schedulerName: ordo-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: example
        resources:
          requests: {cpu: 1, memory: 1Gi, nvidia.com/gpu: $gpus}
EOF
done

# admission_order [ARGS...]: the workloads in the order they were admitted.
admission_order() {
    "$bin" --sim "$tmp/cluster.yaml" --no-progress -v 2 \
        --plugin-dir "$tmp/plugins" "$@" 2>&1 |
        sed -n 's/.*admitted workload wl="\([^"]*\)".*/\1/p' | tr '\n' ' '
}
check "best-effort-fifo: big before small" 0 "^ns/first ns/big ns/small $" -- \
    admission_order
check "smallest-first: small before big" 0 "^ns/first ns/small ns/big $" -- \
    admission_order --config "$tmp/default.yaml"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
