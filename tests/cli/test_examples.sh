#!/usr/bin/env bash
# test_examples.sh - every manifest example of examples/ does what its
# README and comments say: it validates, it simulates, and the quickstart
# shows its point (an urgent job preempting, teams borrowing through the
# cohort). Also: a run's report and plots written into the manifests'
# directory do not break the next run there. (The plugin example has
# test_example_plugin.sh.)
#
# Environment: ORDO_SCHEDULER (the binary), ORDO_SRCDIR (top source
# directory).
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=$(cd "${ORDO_SRCDIR:?ORDO_SRCDIR not set}" && pwd) || exit 1
ex=$src/examples

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

# rows_add_up FILE: the summary table's rows sum to its totals line.
rows_add_up() {
    awk 'NR == 1 { next }
         /^workloads: / { s = $0; gsub(/[(),]/, " ", s); split(s, w, " ")
                          t = w[2]; p = w[3]; a = w[5]; f = w[7]; next }
         match($0, / +[0-9]+ +[0-9]+ +[0-9]+  /) {
             split(substr($0, RSTART, RLENGTH), v, " ")
             sp += v[1]; sa += v[2]; sf += v[3] }
         END { if (t == "" || sp + sa + sf != t || sp != p || sa != a || sf != f) {
                   printf "rows %d/%d/%d, totals %s: %s/%s/%s\n", sp, sa, sf, t, p, a, f
                   exit 1 }
               print "rows add up to " t }' "$1"
}

# Every example directory with manifests validates and simulates.
for dir in "$ex"/*/; do
    name=$(basename "$dir")
    ls "$dir"*.yaml >/dev/null 2>&1 || continue
    check "validate examples/$name" 0 "; 0 errors" -- "$bin" --validate "$dir"
    check "sim examples/$name" 0 "workloads: " -- "$bin" --sim "$dir" --no-progress --sim-check
done
# The README's "check manifests": the whole tree at once. Ignored: the
# kueue-setup ConfigMap and the 29 documents of examples/deploy (CRDs,
# RBAC, Deployment, webhook, APIService, kustomizations), none a kind Ordo reads.
check "validate examples/" 0 "; 30 ignored (kinds Ordo does not read); 0 errors" \
    -- "$bin" --validate "$ex"

# kueue-setup: "two flavors, a cohort of two ClusterQueues", a LocalQueue
# each, and the ConfigMap "counted and skipped".
check "kueue-setup is what its comment says" 0 \
    "6 objects, 2 ResourceFlavor, 2 ClusterQueue, 2 LocalQueue; 1 ignored" \
    -- "$bin" --validate "$ex/kueue-setup"

# quickstart: 21 workloads all finished, every one counted in a row.
"$bin" --sim "$ex/quickstart" --no-progress --report "$tmp/report.json" \
    --plot "$tmp/plots" >"$tmp/summary" 2>&1
check "quickstart runs" 0 "workloads: 21 (0 pending, 0 admitted, 21 finished)" -- cat "$tmp/summary"
check "quickstart summary rows add up" 0 "rows add up to 21" -- rows_add_up "$tmp/summary"
# "An urgent fix ... preempts lower-priority training of its own team ...
# the preempted job is requeued and runs again later."
check "quickstart: the urgent job preempts train-llm" 0 \
    '"preemptedBy": "team-ml/hotfix-train"' \
    -- grep -A14 '"name": "team-ml/train-llm"' "$tmp/report.json"
check "quickstart: hotfix-train admitted on arrival (25m)" 0 '"admittedAt": 1500,' \
    -- grep -A9 '"name": "team-ml/hotfix-train"' "$tmp/report.json"
check "quickstart: train-llm runs again after hotfix-train" 0 '"admittedAt": 3300,' \
    -- grep -A9 '"name": "team-ml/train-llm"' "$tmp/report.json"
# "Both teams share unused quota through the cohort": data borrows.
check "quickstart: data borrows through the cohort" 0 "cpu / cpu: nominal 96, peak 112 (117%)" \
    -- cat "$tmp/plots/usage-1-data.svg"
# "one ETL pod that was already running when Ordo started".
check "quickstart: backfill-0 admitted at the start" 0 '"admittedAt": 0,' \
    -- grep -A9 '"name": "team-data/backfill-0"' "$tmp/report.json"

# Report and plots into the manifests' own directory, twice: the second
# run skips the report with a note (SVG and HTML are never read) and
# gives the same table.
cp -r "$ex/quickstart" "$tmp/qs"
run_into_itself() {
    "$bin" --sim "$tmp/qs" --no-progress --report "$tmp/qs/report.json" --plot "$tmp/qs"
}
check "report and plots into the manifests' directory" 0 "workloads: 21" -- run_into_itself
check "and again: the report is skipped with a note" 0 \
    "note: $tmp/qs/report.json: an Ordo simulation report (schema ordo.dev/sim-report/v1), not a manifest: skipped" \
    -- run_into_itself
run_into_itself 2>&1 | grep -v '^note: ' >"$tmp/again"
check "and again: the same table" 0 "" -- diff "$tmp/summary" "$tmp/again"
check "validate skips the report too" 0 "; 0 errors" -- "$bin" --validate "$tmp/qs"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
