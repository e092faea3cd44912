#!/usr/bin/env bash
# test_layers.sh - the house's layers hold (sched/local.mk):
#
#   - a backend sees the line (scheduler.h) and the cache's read-only view
#     only: compiled with the simulator's include flags, a file that calls
#     a function that changes the cache (workload_finish, node_charge) or
#     includes a private header does not build, while one that uses
#     scheduler.h does;
#   - the simulator's objects reference no symbol of the cache, the line or
#     the cycle that scheduler.h, cluster.h and quota_tree.h do not
#     declare (checked with nm; an object that does is caught);
#   - no circle of calls between the files of sched/cache, sched/scheduler.c
#     and sched/backend/sim (which file references symbols defined in
#     which, by nm);
#   - every file of sched/cache, sched/line, the line and sched/backend/sim
#     starts with a comment and has at most 800 lines.
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

# The object of each source of a folder (libtool's PIC copy when there is
# one).
objects() {
    local d f seen=" "
    for d in "$@"; do
        for f in "$build/$d"/.libs/*.o "$build/$d"/*.o; do
            [ -f "$f" ] || continue
            case "$seen" in *" $(basename "$f") "*) continue ;; esac
            seen="$seen$(basename "$f") "
            echo "$f"
        done
    done
}
mapfile -t cache_objs < <(objects sched/cache)
mapfile -t line_objs < <(objects sched)
mapfile -t cycle_objs < <(objects sched/cycle)
mapfile -t sim_objs < <(objects sched/backend/sim)
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
    "$src/sched/cache/quota_tree.h" |
    grep -oE '\b[a-z_][a-z0-9_]*\(' | tr -d '(' | sort -u >"$tmp/public"

# private_refs OBJ...: the symbols the objects take from the inner layers
# that the public headers do not declare.
private_refs() {
    nm -u "$@" | awk 'NF == 2 {print $2}' | sort -u |
        comm -12 - "$tmp/inner" | comm -23 - "$tmp/public"
}

bad=$(private_refs "${sim_objs[@]}")
if [ -z "$bad" ]; then
    ok "the simulator references only scheduler.h, cluster.h, quota_tree.h"
else
    not_ok "the simulator references private symbols" "$bad"
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

# ---- no circle of calls between files ----------------------------------

# edges OBJ...: "from to" for each object that references a symbol another
# of them defines (file names without libtool's prefix).
edges() {
    local o
    for o in "$@"; do
        nm --defined-only -g "$o" | awk -v f="$o" 'NF == 3 {print "D", $3, f}'
        nm -u "$o" | awk -v f="$o" 'NF == 2 {print "U", $2, f}'
    done | awk '
        function short(p) { sub(/.*\//, "", p); sub(/^lib[a-z_]*_la-/, "", p);
                            sub(/\.o$/, "", p); return p }
        $1 == "D" { def[$2] = short($3) }
        $1 == "U" { use[NR] = $2; from[NR] = short($3) }
        END { for (i in use) if ((use[i] in def) && def[use[i]] != from[i])
                  print from[i], def[use[i]] }' | sort -u
}

# cycles: reads "from to" lines; prints the files left on a circle (those
# that never run out of outgoing edges when files without any are taken
# away, over and over).
cycles() {
    awk '
        { out[$1] = out[$1] " " $2; node[$1]; node[$2] }
        END {
            do {
                changed = 0
                for (n in node) {
                    if (n in gone) continue
                    m = split(out[n], t, " "); live = 0
                    for (k = 1; k <= m; k++) if (!(t[k] in gone)) live = 1
                    if (!live) { gone[n]; changed = 1 }
                }
            } while (changed)
            for (n in node) if (!(n in gone)) printf "%s ->%s\n", n, out[n]
        }'
}

mapfile -t sched_line < <(printf '%s\n' "${line_objs[@]}" | grep -- '-scheduler\.o$')
edges "${cache_objs[@]}" "${sched_line[@]}" "${sim_objs[@]}" >"$tmp/edges"
circle=$(cycles <"$tmp/edges")
if [ -s "$tmp/edges" ] && [ -z "$circle" ]; then
    ok "no circle of calls among sched/cache, scheduler.c, backend/sim"
else
    not_ok "no circle of calls among sched/cache, scheduler.c, backend/sim" \
        "${circle:-no edges found}"
fi
# The check can fail: a circle made up is found.
circle=$(printf 'a b\nb c\nc a\nc d\n' | cycles)
if grep -q '^a ' <<<"$circle" && ! grep -q '^d ' <<<"$circle"; then
    ok "a circle of calls is found"
else
    not_ok "a circle of calls is found" "$circle"
fi

# ---- files ---------------------------------------------------------------

long=""
for f in "$src"/sched/cache/*.[ch] "$src"/sched/cache/private/*.h \
    "$src"/sched/line/*.h "$src"/sched/scheduler.[ch] \
    "$src"/sched/backend/sim/*.[ch]; do
    n=$(wc -l <"$f")
    [ "$n" -le 800 ] || long="$long${f#"$src"/}: $n lines"$'\n'
    head -c 2 "$f" | grep -q '^/\*' || long="$long${f#"$src"/}: no comment first"$'\n'
done
if [ -z "$long" ]; then
    ok "every file starts with a comment and has at most 800 lines"
else
    not_ok "every file starts with a comment and has at most 800 lines" "$long"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
