#!/bin/sh
# run_fuzz.sh - runs one libFuzzer target for `make fuzz` and says in a few
# lines how it went; exits non-zero when the target found something.
#
# Usage: run_fuzz.sh TARGET BINARY SRCDIR SECONDS OUTDIR
#   SRCDIR   tests/fuzz of the source tree (corpus/TARGET, regress/TARGET)
#   OUTDIR   tests/fuzz of the build tree: the full log goes to
#            OUTDIR/logs/TARGET.log, crash/timeout/leak inputs to
#            OUTDIR/artifacts/TARGET/
# The target runs on a scratch copy of its seed corpus and its regression
# inputs (so an input that once crashed it fails it again at once). Only the
# summary is printed; on failure, also the sanitizer's report, the input it
# wrote and the command that replays it.
set -u
if [ $# -ne 5 ]; then
    echo "usage: run_fuzz.sh TARGET BINARY SRCDIR SECONDS OUTDIR" >&2
    exit 2
fi
target=$1 bin=$2 src=$3 secs=$4 out=$5
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
log=$out/logs/$target.log
art=$out/artifacts/$target
mkdir -p "$out/logs" "$art" || exit 1
# Inputs of an earlier run would be taken for this run's findings.
rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-* \
    "$art"/slow-unit-*

work=$(mktemp -d "${TMPDIR:-/tmp}/ordo-fuzz-$target.XXXXXX") || exit 1
cp -R "$src/corpus/$target/." "$work/" || { rm -rf "$work"; exit 1; }
if [ -d "$src/regress/$target" ]; then
    cp -R "$src/regress/$target/." "$work/" || { rm -rf "$work"; exit 1; }
fi
rm -f "$work"/README*

# A UBSan report with its stack (the check build's setting).
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" "$work" >"$log" 2>&1
rc=$?
rm -rf "$work"

if [ $rc -eq 0 ]; then
    # "#1234 DONE cov: 567 ft: 890 corp: 12/3456b ..."
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
    echo "  FUZZ     $target: ${done_line:-finished} (${secs}s; log $log)"
    exit 0
fi

echo "  FUZZ     $target: FAILED (exit status $rc); full log: $log"
# The report: sanitizer and libFuzzer error lines, with a short stack.
grep -E 'ERROR: |runtime error|SUMMARY: |broken promise|invariant|fuzz_sim:|ALARM|out-of-memory|^    #[0-9] ' \
    "$log" | head -n 40 | sed 's/ (BuildId: [0-9a-f]*)$//; s/^/    /'
unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
if [ -n "$unit" ]; then
    echo "  FUZZ     $target: input that fails: $unit"
    echo "  FUZZ     reproduce: $bin $unit"
    echo "  FUZZ     keep it: cp $unit $src/regress/$target/<what-it-does>"
else
    echo "  FUZZ     $target: no input written; last lines of the log:"
    # Without libFuzzer's recommended dictionary, which it prints last.
    sed '/^###### Recommended dictionary/,/^###### End of recommended dictionary/d' \
        "$log" | tail -n 15 | sed 's/^/    /'
fi
exit 1
