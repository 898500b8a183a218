#!/usr/bin/env bash
# Wide and many: lucidgen's own cost on (a) one entity of 1,500 properties and (b) 2,000
# entities of 20 properties, each over versions 1.0 and 1.1 where 1.1 adds one column to one entity
# (make-wide.py). Release lucidgen, wall time of one run each, in this order:
#
#   generate   `lucidgen generate` on a fresh project (no stamp, nothing generated yet: all the work)
#   fixtures   `lucidgen fixtures --schema-version 1.0` (40 rows per entity), which also makes the store
#              the next two measure
#   plan       `lucidgen plan --database <that store at 1.0>`: the one-column path to 1.1
#   migrate    `lucidgen migrate --database <a copy of that store>`: the one-column migrate
#
# Goal: each <= 2000 ms wall. Also printed: the CPU time (user + system) of each, since the machine is shared.
# Needs /usr/bin/time. Usage: Benchmarks/wide/run.sh [wide|many|all]
# LUCIDGEN_ROOT: the lucidgen checkout to measure (default this one), e.g. an older commit's worktree.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${LUCIDGEN_ROOT:-$here/../..}"
root="$(cd "$root" && pwd)"
what="${1:-all}"
work="$root/.build/bench-wide"
mkdir -p "$work"

(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$work/release-build.log" 2>&1) \
    || { tail -20 "$work/release-build.log"; exit 1; }
lucidgen="$root/.build-release/release/lucidgen"

# Runs a command once, its output to $work/<name>.log; prints its wall time and its CPU time (user + system,
# all threads) in ms, and stops on failure. The CPU time says more than the wall time on a busy machine.
timed() {
    local name="$1"; shift
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%U %S" -o "$work/$name.time" "$@" > "$work/$name.log" 2>&1 || { echo "$name failed:" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $(awk '{printf "%d", ($1 + $2) * 1000}' "$work/$name.time")"
}

report() {
    local wall cpu; read -r wall cpu <<< "$2"
    printf '  %-9s %6d ms wall, %6d ms CPU   (goal <= 2000 ms)%s\n' "$1" "$wall" "$cpu" "$([[ $wall -le 2000 ]] && echo "" || echo "   OVER")"
}

measure() {
    local label="$1" entities="$2" properties="$3"
    local project="$work/$label"
    rm -rf "$project"
    python3 "$here/make-wide.py" "$project" "$entities" "$properties"
    cd "$project"
    echo "$label: $entities entit$([[ $entities == 1 ]] && echo y || echo ies) x $properties properties, versions 1.0 and 1.1 (1.1 adds one column to one entity)"
    local generate fixtures plan migrate
    generate=$(timed "$label-generate" "$lucidgen" generate)
    fixtures=$(timed "$label-fixtures" "$lucidgen" fixtures --schema-version 1.0 --output "$project/store-1.0.sqlite")
    plan=$(timed "$label-plan" "$lucidgen" plan --database "$project/store-1.0.sqlite")
    cp "$project/store-1.0.sqlite" "$project/store.sqlite"
    migrate=$(timed "$label-migrate" "$lucidgen" migrate --database "$project/store.sqlite")
    report generate "$generate"; report fixtures "$fixtures"; report plan "$plan"; report migrate "$migrate"
    echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -m1 -E 'Path:' "$work/$label-plan.log" | sed 's/^/  plan says: /' || true
    grep -m1 -E "migrated|at version" "$work/$label-migrate.log" | sed 's/^/  migrate says: /'
}

if [[ "$what" == wide || "$what" == all ]]; then measure wide 1 1500; fi
if [[ "$what" == many || "$what" == all ]]; then measure many 2000 20; fi
