#!/usr/bin/env bash
# test_validate.sh - `ordo-scheduler --validate` as strict as Kueue's
# webhooks and kubectl's field validation: the exact messages (unknown and
# unsupported fields, versions, documents Ordo does not read, every error of
# an object at its key's line) and the exit codes with and without --strict
# (0 with warnings only, 1 with an error); and the inputs of the scenarios
# and examples, which must validate without a warning.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
data=${ORDO_TEST_DATA:?ORDO_TEST_DATA not set}
scenarios=${ORDO_SCENARIOS:-$data/../scenarios}
passed=0 failed=0

# expect NAME WANT_RC WANT_OUTPUT -- command...: runs the command in
# $data/manifests and compares its exit status and its whole output (stderr
# then stdout).
expect() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out err rc
    err=$(mktemp) || exit 1
    out=$(cd "$data/manifests" && "$@" 2>"$err"); rc=$?
    out="$(cat "$err")"$'\n'"$out"; rm -f "$err"
    if [ "$rc" -eq "$want_rc" ] && [ "$out" = "$want" ]; then
        passed=$((passed + 1)); echo "ok - $name"
    else
        failed=$((failed + 1)); echo "not ok - $name (rc=$rc, want $want_rc)"
        diff <(echo "$want") <(echo "$out") | sed 's/^/    /'
    fi
}

queues_warnings='warning: validate/queues.yaml:13: ClusterQueue team-a: spec.preemtion: unknown field (did you mean "preemption"?)
warning: validate/queues.yaml:15: ClusterQueue team-a: spec.queueingStratgy: unknown field (did you mean "queueingStrategy"?)
warning: validate/queues.yaml:17: ClusterQueue team-a: spec.admissionChecksStrategy: unsupported: Ordo does not implement admission checks yet
warning: validate/queues.yaml:27: ClusterQueue team-a: spec.resourceGroups[0].flavors[0].resources[0].borrowingLimt: unknown field (did you mean "borrowingLimit"?)'

# Then the checks across objects: the AdmissionCheck it names is missing.
expect "warnings: exit 0, the object read" 0 "$queues_warnings
warning: validate/queues.yaml:8: ClusterQueue team-a: references missing AdmissionCheck(s): provisioning: it admits nothing until they exist
3 objects, 1 ResourceFlavor, 1 ClusterQueue, 1 LocalQueue; 0 ignored (kinds Ordo does not read); 0 errors; 5 warnings" \
    -- "$bin" --validate validate/queues.yaml

expect "--strict: the same messages as errors, exit 1" 1 "${queues_warnings//warning: /}
2 objects, 1 ResourceFlavor, 1 LocalQueue; 0 ignored (kinds Ordo does not read); 4 errors; 0 warnings" \
    -- "$bin" --validate --strict validate/queues.yaml

others='note: validate/others.yaml:3: ConfigMap default/settings (v1): not read by Ordo
warning: validate/others.yaml:9: PyTorchJob default/train (kubeflow.org/v1): unsupported by Ordo: a workload of LocalQueue "team-a" (label kueue.x-k8s.io/queue-name) of a kind Ordo does not read; it is not scheduled
note: validate/others.yaml:17: ResourceFlavor old-flavor: kueue.x-k8s.io/v1beta1 is an older version (deprecated by Kueue), read as kueue.x-k8s.io/v1beta2'

expect "kinds not read are named, each" 0 "$others
1 objects, 1 ResourceFlavor; 2 ignored (kinds Ordo does not read); 0 errors; 1 warnings" \
    -- "$bin" --validate validate/others.yaml

expect "--strict: an unsupported workload is an error, notes stay notes" 1 "${others//warning: /}
1 objects, 1 ResourceFlavor; 1 ignored (kinds Ordo does not read); 1 errors; 0 warnings" \
    -- "$bin" --validate --strict validate/others.yaml

expect "every error of an object, at its key; an unknown version" 1 'invalid/errors.yaml:8: ClusterQueue team-b: spec.queueingStrategy: unsupported value "Fastest" (one of: BestEffortFIFO, StrictFIFO)
invalid/errors.yaml:15: ClusterQueue team-b: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must be >= 0
invalid/errors.yaml:17: ClusterQueue team-b: spec.stopPolicy: unsupported value "Sometimes" (one of: None, Hold, HoldAndDrain)
invalid/errors.yaml:19: LocalQueue team-b: apiVersion: unknown version "kueue.x-k8s.io/v1" of a Kueue kind (Ordo reads kueue.x-k8s.io/v1beta2, and v1beta1): not read
0 objects; 0 ignored (kinds Ordo does not read); 4 errors; 0 warnings' \
    -- "$bin" --validate invalid/errors.yaml

# --validate --config checks the configuration file too, naming the field.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cfg=$tmp/config.yaml
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\ncycleTimout: 10s\n' >"$cfg"
: >"$tmp/empty.yaml"
# An unknown field of it is a warning (ignored), an error with --strict;
# a bad value is an error either way.
expect "--config: an unknown field, with a suggestion" 0 "warning: $cfg:3: cycleTimout: unknown field (did you mean \"cycleTimeout\"?)
0 objects; 0 ignored (kinds Ordo does not read); 0 errors; 1 warnings" \
    -- "$bin" --validate --config "$cfg" "$tmp/empty.yaml"
expect "--config --strict: an unknown field is an error" 1 "$cfg:3: cycleTimout: unknown field (did you mean \"cycleTimeout\"?)
0 objects; 0 ignored (kinds Ordo does not read); 1 errors; 0 warnings" \
    -- "$bin" --validate --strict --config "$cfg" "$tmp/empty.yaml"
printf 'apiVersion: ordo.dev/v1alpha1\nkind: SchedulerConfiguration\ncycleTimeout: soon\n' >"$tmp/bad.yaml"
out=$("$bin" --validate --config "$tmp/bad.yaml" "$tmp/empty.yaml" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -qF "$tmp/bad.yaml:3: cycleTimeout:" <<<"$out"; then
    passed=$((passed + 1)); echo "ok - --config: a bad value is an error without --strict"
else
    failed=$((failed + 1)); echo "not ok - --config: a bad value is an error without --strict (rc=$rc)"; sed 's/^/    /' <<<"$out"
fi
# --sim runs with the warning, and refuses the file with --strict.
out=$("$bin" --sim --config "$cfg" "$data/../../examples/quickstart" --no-progress 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qF "warning: $cfg:3: cycleTimout: unknown field" <<<"$out"; then
    passed=$((passed + 1)); echo "ok - --sim --config: an unknown field warned, run goes on"
else
    failed=$((failed + 1)); echo "not ok - --sim --config: an unknown field warned (rc=$rc)"; sed 's/^/    /' <<<"$out"
fi
out=$("$bin" --sim --strict --config "$cfg" "$tmp/empty.yaml" --no-progress 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -qF "ordo-scheduler: --config: $cfg:3: cycleTimout: unknown field" <<<"$out"; then
    passed=$((passed + 1)); echo "ok - --sim --strict --config: an unknown field stops it"
else
    failed=$((failed + 1)); echo "not ok - --sim --strict --config: an unknown field stops it (rc=$rc)"; sed 's/^/    /' <<<"$out"
fi

if "$bin" --help | grep -qF -- "--strict"; then
    passed=$((passed + 1)); echo "ok - --help names --strict"
else
    failed=$((failed + 1)); echo "not ok - --help names --strict"
fi

# --sim prints the warnings on load and runs; --strict refuses.
out=$("$bin" --sim "$data/manifests/validate/queues.yaml" --no-progress 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qF "warning: $data/manifests/validate/queues.yaml:13: ClusterQueue team-a: spec.preemtion: unknown field" <<<"$out"; then
    passed=$((passed + 1)); echo "ok - sim warns on load"
else
    failed=$((failed + 1)); echo "not ok - sim warns on load (rc=$rc)"; sed 's/^/    /' <<<"$out"
fi
out=$("$bin" --sim "$data/manifests/validate/queues.yaml" --no-progress --strict 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -qF "$data/manifests/validate/queues.yaml:13: ClusterQueue team-a: spec.preemtion: unknown field" <<<"$out" &&
    ! grep -q "^warning:" <<<"$out"; then
    passed=$((passed + 1)); echo "ok - sim --strict refuses"
else
    failed=$((failed + 1)); echo "not ok - sim --strict refuses (rc=$rc)"; sed 's/^/    /' <<<"$out"
fi

# The scenarios' and examples' inputs hold nothing Ordo would warn about,
# except what a scenario shows on purpose: its validate-findings file lists
# each line --validate --strict [--config its config.yaml] prints (paths
# relative to its input/), and
# those must be exactly what it prints.
dirty=0
for d in "$scenarios"/*/input "$data"/../../examples/quickstart "$data"/../../examples/kueue-setup; do
    [ -d "$d" ] || continue
    cfg=()
    [ -f "${d%/input}/config.yaml" ] && cfg=(--config "${d%/input}/config.yaml")
    out=$("$bin" --validate --strict "${cfg[@]}" "$d" 2>&1); rc=$?
    expect=${d%/input}/validate-findings
    if [ "$d" != "${d%/input}" ] && [ -f "$expect" ]; then
        got=$(grep -v -e "^note:" -e "objects, .*ignored" <<<"$out" | sed "s|^warning: $d/|warning: |; s|^$d/||")
        if [ "$got" != "$(cat "$expect")" ]; then
            dirty=$((dirty + 1)); echo "    $d: not what $expect says:"
            diff "$expect" - <<<"$got" | sed 's/^/      /'
        fi
        continue
    fi
    if [ "$rc" -ne 0 ] || grep -q "^warning:" <<<"$out"; then
        dirty=$((dirty + 1)); echo "    $d:"; grep -v "^note:" <<<"$out" | sed 's/^/      /'
    fi
done
if [ "$dirty" -eq 0 ]; then
    passed=$((passed + 1)); echo "ok - scenario and example inputs validate with --strict"
else
    failed=$((failed + 1)); echo "not ok - $dirty scenario or example inputs have warnings or errors"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
