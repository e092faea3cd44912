# lib.sh - what the command-line tests share (sourced, not run): one check
# of a command's exit status and output, and the counts of a TAP-like run.
#
#   . "$(dirname "$0")/lib.sh"
#   check NAME WANT_RC WANT_TEXT -- command...
#   ...
#   check_done
#
# check runs the command, compares its exit status with WANT_RC and looks
# for WANT_TEXT in its stdout and stderr: a fixed string, or with
# check_grep=-E an extended regular expression; WANT_TEXT starting with "!"
# must not be there. The output stays in $last_out for further looks.
passed=0 failed=0
check_grep=${check_grep:--F}
last_out=

check() {
    local name=$1 want_rc=$2 want=$3
    shift 4
    local out rc ok
    out=$("$@" 2>&1)
    rc=$?
    if [ "${want:0:1}" = "!" ]; then
        ! grep -q "$check_grep" -- "${want:1}" <<<"$out" && ok=1 || ok=0
    else
        grep -q "$check_grep" -- "$want" <<<"$out" && ok=1 || ok=0
    fi
    if [ "$rc" -eq "$want_rc" ] && [ "$ok" -eq 1 ]; then
        passed=$((passed + 1))
        echo "ok - $name"
    else
        failed=$((failed + 1))
        echo "not ok - $name (rc=$rc, want $want_rc, '$want')"
        sed 's/^/    /' <<<"$out"
    fi
    last_out=$out
}

# Prints the counts; the status to exit with is check_done's own.
check_done() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
