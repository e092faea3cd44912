#!/usr/bin/env bash
# test_example_plugin.sh - the sample out-of-tree plugins of
# examples/plugins, built as their READMEs say from the files `make install`
# puts in place (into a temporary DESTDIR): smallest-first with its
# Makefile, shortest-job-first and its unit test with pkg-config and the
# plugin test kit. Then ordo-scheduler uses them: listed (with their
# declared arguments), found through several plugin directories, selected
# by a SchedulerConfiguration, given their pluginConfig args (undeclared or
# wrongly typed ones refused), and changing the admission order.
#
# Environment: ORDO_SCHEDULER (the binary), ORDO_SRCDIR (top source
# directory), ORDO_BUILDDIR (top build directory, for make install),
# ORDO_BUILD_PLUGIN_DIR (the built-in plugin .so files); CC (default cc)
# builds the examples.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=$(cd "${ORDO_SRCDIR:?ORDO_SRCDIR not set}" && pwd) || exit 1
builtin=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
cc=${CC:-cc}

if ! command -v "$cc" >/dev/null || ! command -v make >/dev/null; then
    echo "SKIP: needs make and a C compiler ($cc) to build the example"
    exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check_grep=-E
. "$(dirname "$0")/lib.sh"

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

# ---- install the headers, the test kit and the .pc files ----------------
builddir=$(cd "${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}" && pwd) || exit 1
root=$tmp/root
check "make install (headers, test kit, pkg-config)" 0 "" -- \
    make -C "$builddir" DESTDIR="$root" install-ordoincludeHEADERS \
    install-pkgconfigDATA install-libLIBRARIES
# The .pc files name the configured prefix; the sysroot maps it into root.
pcdir=$(find "$root" -name ordo-plugin.pc -printf '%h\n' | head -n 1)
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$pcdir
for f in ordo/plugin.h ordo/plugin-test.h; do
    check "installed <$f>" 0 "/$f\$" -- find "$root" -path "*/include/$f"
done
abi=$("$bin" --version | sed -n 's/.*plugin ABI \([0-9.]*\)).*/\1/p')
check "ordo-plugin.pc: abi_version is the binary's ABI ($abi)" 0 "^$abi\$" -- \
    pkg-config --variable=abi_version ordo-plugin
check "ordo-plugin-test.pc links the kit" 0 "-lordo-plugin-test" -- \
    pkg-config --libs ordo-plugin-test

# ---- build, as a user would, from a copy of the sources only ------------
mkdir "$tmp/build" "$tmp/sjf" "$tmp/plugins" "$tmp/plugins2" "$tmp/alone"
cp "$src/examples/plugins/smallest-first/smallest_first.c" \
    "$src/examples/plugins/smallest-first/Makefile" "$tmp/build/" || exit 1
cp "$src/examples/plugins/shortest-job-first/"*.c \
    "$src/examples/plugins/shortest-job-first/Makefile" "$tmp/sjf/" || exit 1
check "example builds with its Makefile" 0 "smallest-first\.so" -- \
    make -C "$tmp/build" CC="$cc" CFLAGS="-O2 -g -Wall -Wextra -Werror"
check "shortest-job-first builds with its Makefile" 0 "shortest-job-first\.so" -- \
    make -C "$tmp/sjf" CC="$cc" CFLAGS="-O2 -g -Wall -Wextra -Werror"
check "shortest-job-first's unit test passes on the installed kit" 0 \
    "^[1-9][0-9]* passed, 0 failed" -- make -C "$tmp/sjf" CC="$cc" \
    CFLAGS="-O2 -g -Wall -Wextra -Werror" check
so=$tmp/build/smallest-first.so
sjf=$tmp/sjf/shortest-job-first.so
if [ ! -f "$so" ] || [ ! -f "$sjf" ]; then
    echo "$passed passed, $((failed + 1)) failed (no $so or $sjf: nothing else can run)"
    exit 1
fi
cp "$so" "$tmp/plugins/"
cp "$so" "$tmp/alone/"
cp "$sjf" "$tmp/plugins2/"

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
check "bad args: the host refuses them, scheduler stops" 1 \
    "args\.resource: plugin \"smallest-first\": argument \"resource\" must be a string, got a list" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress \
    --config "$tmp/bad.yaml" --plugin-dir "$tmp/plugins"
# The built-in directory is searched after --plugin-dir, unless
# builtinPluginDir: false.
config "$tmp/alone.yaml"
printf 'builtinPluginDir: false\n' >>"$tmp/alone.yaml"
check "builtinPluginDir: false: only the directories given" 1 \
    "plugin \"strict-fifo\" not found in $tmp/alone" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress \
    --config "$tmp/alone.yaml" --plugin-dir "$tmp/alone"
check "--plugin-dir twice: both searched, then the built-ins" 0 \
    "shortest-job-first +queue.*strict-fifo +queue" -- \
    bash -c "'$bin' --list-plugins --plugin-dir '$tmp/plugins' \
        --plugin-dir '$tmp/plugins2' | tr '\n' ' '"
mkdir "$tmp/dup"
cp "$builtin/strict_fifo.so" "$tmp/dup/"
check "a name found twice: the first wins, with a warning" 0 \
    "plugin \"strict-fifo\" of .*strict_fifo\.so is hidden by $tmp/dup/strict_fifo\.so, found first" -- \
    "$bin" --list-plugins --plugin-dir "$tmp/dup"
check "--list-plugins -v 1: declared arguments" 0 \
    "arg maxWait +duration +default 0s +after this long" -- \
    "$bin" --list-plugins -v 1 --plugin-dir "$tmp/plugins2"
check "--list-plugins -v (no number): built-in arguments" 0 \
    "arg scoringStrategy +string +default LeastAllocated" -- \
    "$bin" --list-plugins -v
cat >"$tmp/dirs.yaml" <<EOF
apiVersion: ordo.dev/v1alpha1
kind: SchedulerConfiguration
pluginDirs: [plugins2]
plugins:
  queue:
    bestEffortFIFO: shortest-job-first
pluginConfig:
- name: shortest-job-first
  args: {maxWait: 1h}
EOF
check "pluginDirs (relative to the file) and declared args reach init" 0 \
    "shortest-job-first: runtime from annotation ordo.dev/expected-runtime \(default 3600s\), maxWait 3600s" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress -v 1 --config "$tmp/dirs.yaml"
sed -i 's/maxWait: 1h/maxwait: 1h/' "$tmp/dirs.yaml"
check "undeclared argument: refused, with a suggestion" 1 \
    "dirs.yaml:9: pluginConfig\[0\]\.args\.maxwait: plugin \"shortest-job-first\" has no argument \"maxwait\" \(did you mean \"maxWait\"\?\)" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress --config "$tmp/dirs.yaml"
sed -i 's/maxwait: 1h/maxWait: soon/' "$tmp/dirs.yaml"
check "wrongly typed argument: refused" 1 \
    "plugin \"shortest-job-first\": argument \"maxWait\" must be a duration" -- \
    "$bin" --sim "$src/examples/quickstart" --no-progress --config "$tmp/dirs.yaml"

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
