#!/usr/bin/env bash
# test_backend_line.sh - a backend reaches the scheduler through the line
# only (sched/scheduler.h and the cache's read-only view, sched/local.mk):
#
#   - a backend sees the line (scheduler.h) and the cache's read-only view
#     only: compiled with the simulator's include flags, a file that calls
#     a function that changes the cache (workload_finish, node_charge) or
#     includes a private header does not build, while one that uses
#     scheduler.h does;
#   - the simulator's objects reference no symbol of the cache, the line or
#     the cycle that scheduler.h, cluster.h, quota_tree.h and history.h do not
#     declare (checked with nm; an object that does is caught).
# scripts/check-layers (test_layers.sh) checks circles of calls and file
# sizes.
#
# Environment: ORDO_SCHEDULER (the binary: its build tree has the objects),
# ORDO_SRCDIR, ORDO_CC (the compiler), ORDO_SIM_CPPFLAGS (the simulator's
# preprocessor flags, shell-quoted as make passes them), ORDO_ALL_CPPFLAGS
# (every folder, as tests compile).
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=$(cd "${ORDO_SRCDIR:?ORDO_SRCDIR not set}" && pwd) || exit 1
cc=${ORDO_CC:?ORDO_CC not set}
build=$(cd "$(dirname "$bin")/.." && pwd) || exit 1
eval "sim_flags=(${ORDO_SIM_CPPFLAGS:?ORDO_SIM_CPPFLAGS not set})"
eval "all_flags=(${ORDO_ALL_CPPFLAGS:?ORDO_ALL_CPPFLAGS not set})"
passed=0 failed=0

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() {
    failed=$((failed + 1)); echo "not ok - $1"
    [ -n "${2:-}" ] && sed 's/^/    /' <<<"$2"
}

# The flags are relative to the build tree, as make runs the compiler.
cd "$build" || exit 1

# ---- what a backend can compile ------------------------------------------

# probe NAME WANT(0 builds, 1 does not) WANT_TEXT CODE
probe() {
    local name=$1 want=$2 text=$3 out rc
    printf '%s\n' "$4" >"$tmp/probe.c"
    out=$("$cc" "${sim_flags[@]}" -Werror=implicit-function-declaration \
        -fsyntax-only "$tmp/probe.c" 2>&1)
    rc=$?
    if { [ "$want" -eq 0 ] && [ "$rc" -eq 0 ]; } ||
        { [ "$want" -ne 0 ] && [ "$rc" -ne 0 ] && grep -qF -- "$text" <<<"$out"; }; then
        ok "$name"
    else
        not_ok "$name (rc=$rc, want ${want/1/failure}, '$text')" "$out"
    fi
}

probe "a backend builds on scheduler.h" 0 "" '#include "scheduler.h"
int probe(struct scheduler *s, struct object *o);
int probe(struct scheduler *s, struct object *o)
{
    const struct cluster *c = scheduler_cluster(s);
    return cluster_get_pod(c, "ns/p") ? 0 : scheduler_object_added(s, o);
}'
probe "a backend cannot call workload_finish" 1 "workload_finish" \
'#include "scheduler.h"
void probe(struct cluster *c, struct workload *w);
void probe(struct cluster *c, struct workload *w) { workload_finish(c, w); }'
probe "a backend cannot call node_charge" 1 "node_charge" \
'#include "scheduler.h"
int probe(struct node *n, const struct pod *p);
int probe(struct node *n, const struct pod *p) { return node_charge(n, p, 1); }'
for h in workload.h store.h events.h queues.h qtree_build.h scheduler_int.h \
    cycle.h; do
    probe "a backend cannot include $h" 1 "$h" "#include \"$h\""
done

# ---- what a backend's objects reference ------------------------------------

# The objects of one library: libtool's PIC copies, named after it
# (sched/cache/.libs/libordo_cache_la-cluster.o), so that objects of other
# targets or of an older layout left in the build tree do not count.
objects() {
    local f
    for f in "$build/$1"/.libs/"$2"_la-*.o; do
        [ -f "$f" ] && echo "$f"
    done
}
mapfile -t cache_objs < <(objects sched/cache libordo_cache)
mapfile -t line_objs < <(objects sched libordo_line)
mapfile -t cycle_objs < <(objects sched/cycle libordo_cycle)
mapfile -t sim_objs < <(objects sched/backend/sim libordo_sim)
if [ ${#cache_objs[@]} -lt 5 ] || [ ${#line_objs[@]} -lt 1 ] ||
    [ ${#sim_objs[@]} -lt 5 ]; then
    not_ok "objects found in $build/sched" "cache ${#cache_objs[@]}, line ${#line_objs[@]}, sim ${#sim_objs[@]}"
    echo "$passed passed, $failed failed"
    exit 1
fi

# Symbols defined by the cache, the line and the cycle, and those of them
# a backend may use: the functions the public headers declare.
nm --defined-only -g "${cache_objs[@]}" "${line_objs[@]}" "${cycle_objs[@]}" |
    awk 'NF == 3 {print $3}' | sort -u >"$tmp/inner"
cat "$src/sched/scheduler.h" "$src/sched/cache/cluster.h" \
    "$src/sched/cache/quota_tree.h" "$src/sched/cache/history.h" |
    grep -oE '\b[a-z_][a-z0-9_]*\(' | tr -d '(' | sort -u >"$tmp/public"

# private_refs OBJ...: the symbols the objects take from the inner layers
# that the public headers do not declare.
private_refs() {
    nm -u "$@" | awk 'NF == 2 {print $2}' | sort -u |
        comm -12 - "$tmp/inner" | comm -23 - "$tmp/public"
}

bad=$(private_refs "${sim_objs[@]}")
if [ -z "$bad" ]; then
    ok "the simulator references only scheduler.h, cluster.h, quota_tree.h, history.h"
else
    not_ok "the simulator references private symbols" "$bad"
fi
mapfile -t obs_objs < <(objects sched/obs libordo_obs)
bad=$(private_refs "${obs_objs[@]}")
if [ ${#obs_objs[@]} -ge 3 ] && [ -z "$bad" ]; then
    ok "the metrics and endpoints (sched/obs) read the scheduler as a backend does"
else
    not_ok "sched/obs references private symbols (${#obs_objs[@]} objects)" "$bad"
fi
# The check can fail: an object that calls workload_finish is caught.
printf '#include "workload.h"\nvoid probe(struct cluster *c, struct workload *w);\nvoid probe(struct cluster *c, struct workload *w) { workload_finish(c, w); node_charge(NULL, NULL, 1); }\n' \
    >"$tmp/bad.c"
if "$cc" "${all_flags[@]}" -c "$tmp/bad.c" -o "$tmp/bad.o" 2>"$tmp/bad.err"; then
    bad=$(private_refs "$tmp/bad.o")
    if grep -qx workload_finish <<<"$bad" && grep -qx node_charge <<<"$bad"; then
        ok "an object calling workload_finish and node_charge is caught"
    else
        not_ok "an object calling workload_finish is caught" "$bad"
    fi
else
    not_ok "the probe object builds" "$(cat "$tmp/bad.err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
