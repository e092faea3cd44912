#!/usr/bin/env bash
# test_host_checks.sh - the host does not trust its plugins: ordo-scheduler
# --sim with the ABI fixture fixture-hostile-preempt
# (tests/abi/fixtures/hostile_preempt.c) as the PREEMPT plugin, next to the
# built-in plugins.
#
#   - Each tests/scenarios/host-*/hostile/MODE.yaml is what that
#     scenario's cluster must show with the fixture in MODE (all, overflow,
#     leak): the scenario's input/ is run by run_scenarios, with a
#     configuration selecting the fixture and MODE.yaml as its expect.yaml.
#     The scenario itself (its expect.yaml) shows that kueue-preempt's
#     answers on the same cluster are accepted.
#   - leak: the error is logged once, naming the plugin, and the instant
#     settles (no queue rebuild, no run of cycles up to the cap).
#   - loop: the cycle watchdog aborts the process within a few seconds of
#     --cycle-timeout (or cycleTimeout), naming the plugin and op.
#
# Environment: ORDO_SCHEDULER (the binary; run_scenarios is found in the
# same build tree), ORDO_SCENARIOS, ORDO_ABI_FIXTURES (the fixture .so
# files), ORDO_BUILD_PLUGIN_DIR (the built-in plugin .so files).
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
scenarios=$(cd "${ORDO_SCENARIOS:?ORDO_SCENARIOS not set}" && pwd) || exit 1
fixtures=${ORDO_ABI_FIXTURES:?ORDO_ABI_FIXTURES not set}
builtin=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
runner=$(dirname "$bin")/../tests/scenarios/run_scenarios

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

# absent NAME TEXT: the output of the last check does not contain TEXT.
absent() {
    if grep -qF -- "$2" <<<"$last_out"; then
        failed=$((failed + 1)); echo "not ok - $1 (found '$2')"
    else
        passed=$((passed + 1)); echo "ok - $1"
    fi
}

# config FILE MODE [EXTRA]: selects the fixture in MODE as PREEMPT plugin.
config() {
    cat >"$1" <<EOF
apiVersion: ordo.dev/v1alpha1
kind: SchedulerConfiguration
plugins:
  preempt: fixture-hostile-preempt
pluginConfig:
- name: fixture-hostile-preempt
  args: {mode: $2}
${3:-}
EOF
}

mkdir "$tmp/plugins" "$tmp/scenarios"
cp "$builtin"/*.so "$fixtures/hostile_preempt.so" "$tmp/plugins/" || exit 1
# run_scenarios runs ORDO_SCHEDULER with its own arguments: this one adds
# the plugin directory.
cat >"$tmp/ordo-scheduler" <<EOF
#!/bin/sh
exec "$bin" --plugin-dir "$tmp/plugins" "\$@"
EOF
chmod +x "$tmp/ordo-scheduler"

check "fixture listed" 0 "fixture-hostile-preempt  preempt" -- \
    "$bin" --list-plugins --plugin-dir "$tmp/plugins"

# ---- the scenarios' clusters with the fixture ---------------------------
names=()
for expect in "$scenarios"/host-*/hostile/*.yaml; do
    [ -f "$expect" ] || continue
    dir=$(dirname "$(dirname "$expect")")
    mode=$(basename "$expect" .yaml)
    name=$(basename "$dir")-$mode
    mkdir "$tmp/scenarios/$name"
    ln -s "$dir/input" "$tmp/scenarios/$name/input"
    cp "$expect" "$tmp/scenarios/$name/expect.yaml"
    config "$tmp/scenarios/$name/config.yaml" "$mode"
    names+=("$name")
done
if [ "${#names[@]}" -lt 6 ]; then
    failed=$((failed + 1))
    echo "not ok - hostile scenarios: found ${#names[@]} in $scenarios/host-*/hostile"
fi
check "hostile scenarios (${#names[@]})" 0 "[  PASSED  ] ${#names[@]} test(s)." -- \
    env ORDO_SCHEDULER="$tmp/ordo-scheduler" ORDO_SCENARIOS="$tmp/scenarios" \
    "$runner" "${names[@]}"

# ---- leaked what-ifs: one error, no retry storm --------------------------
input=$scenarios/host-preempt-higher-priority/input
config "$tmp/leak.yaml" leak
check "leak: logged, naming the plugin" 0 \
    "plugin fixture-hostile-preempt left 2 what-if removal(s) in place; put back, and its answer refused" -- \
    "$bin" --plugin-dir "$tmp/plugins" --config "$tmp/leak.yaml" --sim "$input" \
    --no-progress --sim-check
absent "leak: no run of cycles to the cap" "cycles at one instant"
absent "leak: no rebuild" "quota usage rebuilt"
if [ "$(grep -c 'what-if removal' <<<"$last_out")" -eq 1 ]; then
    passed=$((passed + 1)); echo "ok - leak: refused once"
else
    failed=$((failed + 1)); echo "not ok - leak: refused once"
    sed 's/^/    /' <<<"$last_out"
fi

config "$tmp/overflow.yaml" overflow
check "overflow: a reason, not out of memory" 0 "workloads: 3 (" -- \
    "$bin" --plugin-dir "$tmp/plugins" --config "$tmp/overflow.yaml" \
    --sim "$input" --no-progress --sim-check
absent "overflow: no out of memory" "out of memory"

# ---- a hanging plugin: the cycle watchdog --------------------------------
want="ordo-scheduler: watchdog: a scheduling cycle ran longer than 1s (cycleTimeout): plugin fixture-hostile-preempt op select_victims is running; aborting"
config "$tmp/loop.yaml" loop
config "$tmp/loop-1h.yaml" loop "cycleTimeout: 1h"
config "$tmp/loop-1s.yaml" loop "cycleTimeout: 1s"
# timeout(1) is a guard against a watchdog that never fires; rc 124 fails.
check "watchdog: --cycle-timeout aborts a hanging op" 134 "$want" -- \
    timeout 60 "$bin" --plugin-dir "$tmp/plugins" --config "$tmp/loop.yaml" \
    --sim "$input" --no-progress --cycle-timeout 1s
check "watchdog: --cycle-timeout overrides cycleTimeout" 134 "$want" -- \
    timeout 60 "$bin" --plugin-dir "$tmp/plugins" --config "$tmp/loop-1h.yaml" \
    --sim "$input" --no-progress --cycle-timeout 1s
check "watchdog: cycleTimeout from the configuration" 134 "$want" -- \
    timeout 60 "$bin" --plugin-dir "$tmp/plugins" --config "$tmp/loop-1s.yaml" \
    --sim "$input" --no-progress
check "watchdog: bad --cycle-timeout" 2 \
    "--cycle-timeout: expected a duration like \"30s\" (\"0s\": no watchdog), got \"soon\"" -- \
    "$bin" --sim "$input" --cycle-timeout soon
check "watchdog: a normal run is not aborted" 0 "workloads: 3 (" -- \
    "$bin" --sim "$input" --no-progress --cycle-timeout 30s

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
