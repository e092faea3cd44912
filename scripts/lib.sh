# scripts/lib.sh - shared by scripts/demo and scripts/test: install what a
# fresh Debian 12 machine lacks, bootstrap autotools, configure and build.
# Safe to re-run: each step is skipped when its result is up to date.

ORDO_DEBIAN_PACKAGES="autoconf automake libtool pkg-config make gcc clang \
libclang-rt-14-dev libcurl4-openssl-dev libjson-c-dev libyaml-dev \
libmicrohttpd-dev libhwloc-dev libbpf-dev libcmocka-dev libnuma-dev uthash-dev \
libssl-dev openssl python3-kubernetes python3-prometheus-client curl"

ORDO_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

ordo_log() { printf '==> %s\n' "$*" >&2; }

# Installs missing Debian packages; not root: prints the apt-get line, stops.
ordo_ensure_packages() {
    local missing=() p
    for p in $ORDO_DEBIAN_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "Ordo needs these Debian packages; run as root:" >&2
        echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    ordo_log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ordo_build BUILDDIR [configure flags...]: configure (again when the flags
# changed) and build into BUILDDIR.
ordo_build() {
    local builddir=$1; shift
    local flags="$*"
    if [ ! -x "$ORDO_SRC/configure" ] || [ "$ORDO_SRC/configure.ac" -nt "$ORDO_SRC/configure" ]; then
        ordo_log "bootstrapping autotools"
        (cd "$ORDO_SRC" && autoreconf -fi >/dev/null 2>&1) || {
            (cd "$ORDO_SRC" && autoreconf -fi); exit 1; }
    fi
    mkdir -p "$builddir"
    if [ ! -f "$builddir/config.status" ] || [ "$(cat "$builddir/.ordo-flags" 2>/dev/null)" != "$flags" ] ||
        [ "$ORDO_SRC/configure" -nt "$builddir/config.status" ]; then
        ordo_log "configuring $builddir ($flags)"
        (cd "$builddir" && "$ORDO_SRC/configure" -q $flags) || exit 1
        echo "$flags" > "$builddir/.ordo-flags"
    fi
    ordo_log "building"
    make -C "$builddir" -j"$(nproc)" >/dev/null || make -C "$builddir" || exit 1
}

# ordo_test_summary BUILDDIR: a line per test program that make check ran
# (each has a .trs beside its .log; other logs, such as make fuzz's under
# tests/fuzz/logs/, are none of them), its counts from the log; sets
# ordo_passed and ordo_failed to the sums. A program whose result is not
# PASS counts as at least one failure.
ordo_test_summary() {
    local builddir=$1 trs log name p f res
    ordo_passed=0 ordo_failed=0
    for trs in $(find "$builddir/tests" -name '*.trs' | sort); do
        log=${trs%.trs}.log
        name=${trs#"$builddir/"}; name=${name%.trs}
        p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p; s/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log" 2>/dev/null | tail -n 1)
        f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p; s/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log" 2>/dev/null | tail -n 1)
        res=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
        p=${p:-0}; f=${f:-0}
        if [ "$res" != PASS ] && [ "$f" -eq 0 ]; then f=1; fi
        printf '  %-36s %4d passed, %d failed  (%s)\n' "$name" "$p" "$f" "${res:-no result}"
        ordo_passed=$((ordo_passed + p)); ordo_failed=$((ordo_failed + f))
    done
}
