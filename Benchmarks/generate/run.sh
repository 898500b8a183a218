#!/usr/bin/env bash
# Measures `lucidgen generate` on a synthetic project (default 500 entities x 10 versions):
#   - the first run (no stamp), a run with nothing changed (the Fingerprint stage stops it), the same
#     with --check, and the whole pipeline again with --force: medians of RUNS runs (default 5);
#   - with BUILD=1, also the debug `swift build` of the generated module (minutes for 500 x 10).
# Issue 14's goal: no change <= 0.1 s for 500 x 10.
# Usage: Benchmarks/generate/run.sh [ENTITIES] [VERSIONS]    (env: RUNS=5 BUILD=0)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
entities="${1:-500}"; versions="${2:-10}"; runs="${RUNS:-5}"
work="$root/.build/bench-generate"
rm -rf "$work/project"; mkdir -p "$work"
python3 "$here/make-synthetic.py" "$work/project" "$entities" "$versions"
# A separate scratch folder, so the benchmark never waits for (or blocks) a debug build in .build.
(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$work/release-build.log" 2>&1) || { tail -20 "$work/release-build.log"; exit 1; }
lucidgen="$root/.build-release/release/lucidgen"
cd "$work/project"

ms() { local start end; start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N); echo $(( (end - start) / 1000000 )); }
median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
repeat() { local n="$1"; shift; local all=""; for _ in $(seq "$n"); do all="$all $(ms "$@")"; done; echo "$all" | xargs -n1 | median; }

first=$(ms "$lucidgen" generate)
sleep 2   # past the racy window, as a real next run is: the outputs are then checked by size, time and inode only
unchanged=$(repeat "$runs" "$lucidgen" generate)
check=$(repeat "$runs" "$lucidgen" generate --check)
forced=$(repeat "$runs" "$lucidgen" generate --force)
rm -rf .build/lucidgen; "$lucidgen" generate >/dev/null
racy=$(ms "$lucidgen" generate)
files=$(find Sources/Synthetic/Generated -name '*.swift' | wc -l)
lines=$(cat Sources/Synthetic/Generated/*.swift Sources/Synthetic/Generated/*/*.swift | wc -l)
inputs=$(du -sb .entities | cut -f1)
echo "entities=$entities versions=$versions files=$files lines=$lines input bytes=$inputs (release lucidgen, medians of $runs)"
echo "generate, first run (no stamp):                 ${first} ms"
echo "generate, nothing changed:                      ${unchanged} ms   (goal <= 100 ms)"
echo "generate --check, nothing changed:              ${check} ms"
echo "generate --force (every stage, nothing written): ${forced} ms"
echo "generate right after a run (outputs rehashed):  ${racy} ms"
python3 -c "print(f'nothing changed / --force = {$unchanged/$forced:.4f}')"

if [ "${BUILD:-0}" = 1 ]; then
    mkdir -p Sources/Synthetic/Placeholder && echo "import LucidRuntime" > Sources/Synthetic/Placeholder/P.swift
    mv Sources/Synthetic/Generated /tmp/lucid-bench-generated.$$ && swift build --scratch-path "$work/scratch" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
    mv /tmp/lucid-bench-generated.$$ Sources/Synthetic/Generated; rm -rf Sources/Synthetic/Placeholder
    build=$(ms swift build --scratch-path "$work/scratch")
    echo "swift build of the generated module (debug): ${build} ms"
fi
