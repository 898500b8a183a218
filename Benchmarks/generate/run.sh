#!/usr/bin/env bash
# Measures `lucidgen generate` on a synthetic project (default 500 entities x 10 versions) and the time
# `swift build` takes to compile its output, and prints the ratio (goal: <= 0.05).
# Usage: Benchmarks/generate/run.sh [ENTITIES] [VERSIONS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
entities="${1:-500}"; versions="${2:-10}"
work="$root/.build/bench-generate"
rm -rf "$work/project"; mkdir -p "$work"
python3 "$here/make-synthetic.py" "$work/project" "$entities" "$versions"
# A separate scratch folder, so the benchmark never waits for (or blocks) a debug build in .build.
(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$work/release-build.log" 2>&1) || { tail -20 "$work/release-build.log"; exit 1; }
lucidgen="$root/.build-release/release/lucidgen"

cd "$work/project"
# Build the dependencies first so the measured build compiles only the generated module.
mkdir -p Sources/Synthetic && echo "import LucidRuntime" > Sources/Synthetic/Placeholder.swift
swift build --scratch-path "$work/scratch" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
rm Sources/Synthetic/Placeholder.swift

start=$(date +%s%N); "$lucidgen" generate >/dev/null; end=$(date +%s%N)
gen_ms=$(( (end - start) / 1000000 ))
start=$(date +%s%N); "$lucidgen" generate >/dev/null; end=$(date +%s%N)
regen_ms=$(( (end - start) / 1000000 ))
files=$(find Sources/Synthetic/Generated -name '*.swift' | wc -l)
lines=$(cat Sources/Synthetic/Generated/*.swift Sources/Synthetic/Generated/*/*.swift | wc -l)
start=$(date +%s%N); swift build --scratch-path "$work/scratch" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }; end=$(date +%s%N)
build_ms=$(( (end - start) / 1000000 ))
echo "entities=$entities versions=$versions files=$files lines=$lines"
echo "generate (first run): ${gen_ms} ms; generate (no change): ${regen_ms} ms"
echo "swift build of the generated module (debug): ${build_ms} ms"
python3 -c "print(f'ratio generate/build = {$gen_ms/$build_ms:.4f} (goal <= 0.05)')"
