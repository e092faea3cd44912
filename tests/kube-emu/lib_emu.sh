# lib_emu.sh - what the emulator's shell tests share (sourced, not run):
# emu_start ARGS... starts ordo-kube-emu on a free port with a kubeconfig
# in $EMU_DIR and waits for it; emu_stop ends it (its status in EMU_RC,
# its stderr in $EMU_DIR/emu.log); emu_clean says whether every run so far
# exited 0 with no sanitizer report. KUBECTL is the newest
# kubectl on the machine (emu_have_kubectl says whether there is one).
EMU_BIN=${ORDO_BUILDDIR:-.}/tests/kube-emu/ordo-kube-emu
EMU_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ordo-kube-emu-test.XXXXXX")
EMU_PID=

emu_find_kubectl() {
    local k best=
    for k in /usr/lib/google-cloud-sdk/bin/kubectl.1.*; do
        [ -x "$k" ] || continue
        if [ -z "$best" ] || [ "${k##*.}" -gt "${best##*.}" ]; then
            best=$k
        fi
    done
    KUBECTL=${ORDO_KUBECTL:-$best}
}

emu_start() {
    rm -f "$EMU_DIR/kubeconfig"
    "$EMU_BIN" --listen 127.0.0.1:0 --kubeconfig-out "$EMU_DIR/kubeconfig" \
        "$@" 2>>"$EMU_DIR/emu.log" &
    EMU_PID=$!
    # The kubeconfig appears (atomically) once the server listens.
    local i
    for i in $(seq 1 200); do
        [ -s "$EMU_DIR/kubeconfig" ] && break
        kill -0 "$EMU_PID" 2>/dev/null || break
        sleep 0.05
    done
    if [ ! -s "$EMU_DIR/kubeconfig" ]; then
        echo "ordo-kube-emu did not start:" >&2
        cat "$EMU_DIR/emu.log" >&2
        return 1
    fi
    export KUBECONFIG="$EMU_DIR/kubeconfig"
    EMU_SERVER=$(sed -n 's/^ *server: //p' "$KUBECONFIG")
    EMU_TOKEN=$(sed -n 's/^ *token: //p' "$KUBECONFIG" | head -n 1)
}

emu_stop() {
    if [ -n "$EMU_PID" ]; then
        kill "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null
        EMU_RC=$?
        EMU_PID=
    fi
}

emu_clean() {
    [ "${EMU_RC:-0}" -eq 0 ] &&
        ! grep -E "Sanitizer|runtime error" "$EMU_DIR/emu.log"
}

emu_cleanup() {
    emu_stop
    rm -rf "$EMU_DIR"
}

# Runs "$@" until it succeeds, at most N times 0.1 s apart: the emulated
# controllers act asynchronously. Not a timing assertion: the bound only
# keeps a broken run from hanging.
emu_eventually() {
    local n=$1 i out
    shift
    for i in $(seq 1 "$n"); do
        if out=$("$@" 2>&1); then
            [ -z "$out" ] || printf '%s\n' "$out"
            return 0
        fi
        sleep 0.1
    done
    "$@"
}
