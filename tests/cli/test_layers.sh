#!/usr/bin/env bash
# test_layers.sh - the layering rules hold (scripts/check-layers): no call
# cycle between the files of a library, no source file over 800 lines,
# every source starting with a comment. First the checker itself is shown
# to catch each offence on a small tree built here, then it runs on the
# real build tree for the libraries and folders in LAYERS.
#
# Environment: ORDO_SRCDIR (the source tree), ORDO_BUILDDIR (the build
# tree, built); CC (default cc) compiles the small tree.
set -u
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
checker=$src/scripts/check-layers
cc=${CC:-cc}

# Every library on its own, the whole scheduler as one graph (circles
# across folders too), and every folder's files.
LAYERS="core/libordo-core.la core/kube/libordo-kube.la \
    sched/host/libordo-host.la sched/cache/libordo-cache.la \
    sched/cycle/libordo-cycle.la sched/libordo-line.la \
    sched/backend/sim/libordo-sim.la sched/backend/kube/libordo-kube-backend.la \
    sched/obs/libordo-obs.la \
    sched/libordo-sched.la core plugins sched topology examples"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

# A small tree: lib/libx.la of a.c and b.c, which call each other, and
# c.c, which calls nobody; lib/liby.la of c.c alone. The build side is laid
# out as automake and libtool do it: per-target object names, .lo files
# naming the object, <canonical name>_OBJECTS in the Makefile.
mkdir -p "$tmp/src/lib" "$tmp/src/long" "$tmp/build/lib/.libs"
printf '/* a.c */\nint b(void);\nint a(void) { return b(); }\n' >"$tmp/src/lib/a.c"
printf '/* b.c */\nint a(void);\nint b(void) { return a() + 1; }\n' >"$tmp/src/lib/b.c"
printf '/* c.c */\nint c(void) { return 3; }\n' >"$tmp/src/lib/c.c"
for f in a b c; do
    "$cc" -c -o "$tmp/build/lib/.libs/libx_la-$f.o" "$tmp/src/lib/$f.c" || exit 1
    printf "pic_object='.libs/libx_la-%s.o'\nnon_pic_object=none\n" "$f" \
        >"$tmp/build/lib/libx_la-$f.lo"
done
touch "$tmp/build/lib/libx.la" "$tmp/build/lib/liby.la"
cat >"$tmp/build/Makefile" <<'EOF'
lib_libx_la_OBJECTS = lib/libx_la-a.lo lib/libx_la-b.lo lib/libx_la-c.lo
lib_libx_la_LIBADD =
lib_liby_la_OBJECTS = lib/libx_la-c.lo
lib_liby_la_LIBADD =
lib_libz_la_OBJECTS =
lib_libz_la_LIBADD = lib/liby.la -lm
EOF
touch "$tmp/build/lib/libz.la"
# long/: one file of 801 lines, one of 800, one without its comment.
{ echo '/* long.c */'; for i in $(seq 800); do echo "int v$i;"; done; } >"$tmp/src/long/long.c"
{ echo '/* ok.c */'; for i in $(seq 799); do echo "int w$i;"; done; } >"$tmp/src/long/ok.c"
printf 'int bare;\n/* a comment, but not on line 1 */\n' >"$tmp/src/long/bare.h"

run() { "$checker" -s "$tmp/src" "$tmp/build" "$@"; }
check "finds a call cycle" 1 "check-layers: lib/libx.la: call cycle: lib/" -- run lib/libx.la
check "names the symbols of a cycle" 1 "lib/a.c uses b of lib/b.c" -- run lib/libx.la
check "names the symbols of a cycle, back" 1 "lib/b.c uses a of lib/a.c" -- run lib/libx.la
check "no cycle in a library without one" 0 "OK: lib/liby.la" -- run lib/liby.la
check "a library's LIBADD counts" 0 "OK: lib/libz.la" -- run lib/libz.la
check "finds a long file" 1 "check-layers: long/long.c: 801 lines (at most 800" -- run long
check "finds a file without its comment" 1 "check-layers: long/bare.h: line 1 is not a comment" -- run long
check "800 lines are allowed" 0 "" -- sh -c '! "$@" | grep -q ok.c' sh "$checker" -s "$tmp/src" "$tmp/build" long
check "unknown library" 2 "lib/nope.la: no such library" -- run lib/nope.la
check "unknown folder" 2 "nope: no such folder" -- run nope
check "not a build tree" 2 "no Makefile" -- "$checker" -s "$tmp/src" "$tmp/src" lib/libx.la
check "usage" 2 "usage: check-layers" -- "$checker"

# The real tree.
# shellcheck disable=SC2086 # LAYERS is a list
check "layers: $LAYERS" 0 "check-layers: OK" -- "$checker" -s "$src" "$build" $LAYERS

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
