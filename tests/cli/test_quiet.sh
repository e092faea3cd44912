#!/usr/bin/env bash
# test_quiet.sh - the tools say what matters and nothing else: configure
# does not run "rm -f core" in a build tree that has a core/ directory
# (rm complains, and the exit trap then leaves confdefs.h behind); `make
# fuzz` (tests/fuzz/run_fuzz.sh) prints one line per target and keeps
# libFuzzer's output, its recommended dictionary included, in the log, but
# fails loudly with the report and the log's tail when a target fails.
# run_fuzz.sh is run here on a stand-in for a fuzzer binary. scripts/test's
# table lists the programs make check ran, not make fuzz's logs.
#
# Environment: ORDO_SRCDIR (the source tree), ORDO_BUILDDIR (the build
# tree).
set -u
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

check "configure never removes 'core'" 1 "" -- grep -n "rm -f core " "$src/configure"
check "configure cleaned up after itself" 1 "" -- test -e "$build/confdefs.h"

# A stand-in fuzzer: MODE (ok, crash, error) says how it ends; it prints
# what libFuzzer prints, a recommended dictionary last.
mkdir -p "$tmp/src/corpus/fake" "$tmp/out"
echo seed >"$tmp/src/corpus/fake/seed"
cat >"$tmp/fake" <<'FAKE'
#!/bin/sh
art=
for a in "$@"; do case $a in -artifact_prefix=*) art=${a#-artifact_prefix=} ;; esac; done
echo "INFO: Seed: 1"
echo "#2	INITED cov: 10 ft: 10 corp: 1/5b"
case $MODE in
crash)
    echo "==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x1"
    echo "    #0 0x1 in doc_parse core/doc.c:10"
    echo "SUMMARY: AddressSanitizer: heap-use-after-free core/doc.c:10"
    echo x >"${art}crash-1"
    echo "artifact_prefix='$art'; Test unit written to ${art}crash-1"
    ;;
error) echo "the line before the end" ;;
*) echo "#100	DONE   cov: 10 ft: 12 corp: 3/9b" ;;
esac
echo "###### Recommended dictionary. ######"
echo "\"apiVersion\" # Uses: 12"
echo "###### End of recommended dictionary. ######"
[ "$MODE" = ok ]
FAKE
chmod +x "$tmp/fake"
fuzz() { MODE=$1 sh "$src/tests/fuzz/run_fuzz.sh" fake "$tmp/fake" "$tmp/src" 1 "$tmp/out"; }

check "a passing target: one line" 0 "  FUZZ     fake: #100	DONE   cov: 10" -- fuzz ok
check "a passing target: nothing else" 0 "1" -- sh -c 'MODE=ok sh "$1" fake "$2" "$3" 1 "$4" | wc -l' \
    sh "$src/tests/fuzz/run_fuzz.sh" "$tmp/fake" "$tmp/src" "$tmp/out"
check "the dictionary is in the log" 0 "Recommended dictionary" -- cat "$tmp/out/logs/fake.log"
check "a crash fails loudly" 1 "FUZZ     fake: FAILED (exit status 1)" -- fuzz crash
check "a crash: the report" 1 "ERROR: AddressSanitizer: heap-use-after-free" -- fuzz crash
check "a crash: the input and how to replay it" 1 "reproduce: $tmp/fake $tmp/out/artifacts/fake/crash-1" -- fuzz crash
check "a failure without an input: the log's tail" 1 "    the line before the end" -- fuzz error
check "no dictionary in the output" 1 "" -- sh -c '{ MODE=ok sh "$1" fake "$2" "$3" 1 "$4"; MODE=crash sh "$1" fake "$2" "$3" 1 "$4"; MODE=error sh "$1" fake "$2" "$3" 1 "$4"; } 2>&1 | grep -e dictionary -e apiVersion' \
    sh "$src/tests/fuzz/run_fuzz.sh" "$tmp/fake" "$tmp/src" "$tmp/out"

# scripts/test's table: the programs make check ran (a .trs each), not
# make fuzz's logs beside them, which have no result and would be counted
# as failures.
b=$tmp/build
mkdir -p "$b/tests/unit" "$b/tests/cli" "$b/tests/fuzz/logs"
printf '[  PASSED  ] 3 test(s).\n' >"$b/tests/unit/test_a.log"
printf ':test-result: PASS\n' >"$b/tests/unit/test_a.trs"
printf '1 passed, 2 failed\n' >"$b/tests/cli/x.sh.log"
printf ':test-result: FAIL\n' >"$b/tests/cli/x.sh.trs"
cp "$tmp/out/logs/fake.log" "$b/tests/fuzz/logs/doc.log"
summary() { bash -c '. "$1/scripts/lib.sh" && ordo_test_summary "$2" && echo "sums $ordo_passed $ordo_failed"' sh "$src" "$b"; }
check "scripts/test: a passing program" 0 "  tests/unit/test_a                       3 passed, 0 failed  (PASS)" -- summary
check "scripts/test: a failing program" 0 "  tests/cli/x.sh                          1 passed, 2 failed  (FAIL)" -- summary
check "scripts/test: the sums" 0 "sums 4 2" -- summary
check "scripts/test: no fuzz logs in the table" 1 "" -- sh -c '"$@" | grep -e fuzz -e "(?)" -e "()"' sh summary
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
