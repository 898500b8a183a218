#!/usr/bin/env bash
# The command plugin's cost: a no-change `swift package lucidgen generate` against
# the floor of any command plugin, both measured in this run.
#
#   consumer  a package made by `lucidgen init --plugin` (both targets use the LucidGenPlugin build
#             plugin), depending on the lucidgen checkout by path; timed:
#             `swift package --allow-writing-to-package-directory lucidgen generate` with nothing changed.
#   floor     Benchmarks/plugin/Floor: a command plugin that does nothing but run its tool, an executable
#             with lucidgen's dependency shape (lucidgen's library products, Yams, Mustache,
#             ArgumentParser; GRDB and swift-log through LucidRuntime); timed:
#             `swift package --allow-writing-to-package-directory floor hello`. What SwiftPM costs
#             anyway: loading the manifests, planning, deciding that the tool needs no rebuild, compiling
#             (or reusing) the plugin, running it and the tool.
#
# Each package is built on its first use (minutes on 2 cores; kept under .build/bench-plugin for the
# next run), then run once to warm up, then RUNS (default 7) alternating timed runs of each; prints the
# medians, the ratio (goal: consumer <= 1.2 x floor), how many timed runs rebuilt or linked anything
# (from SwiftPM's progress lines) and how many stopped at generate's stamp.
# Then SWITCH_RUNS (default 3) times: `swift build` in the consumer, then the timed plugin call
# (informational: what a call costs right after a build).
#
# Usage: Benchmarks/plugin/run.sh [COMMIT]
#   COMMIT  measure that commit's lucidgen (exported with git archive under .build/bench-plugin)
#           instead of this working tree.
#   env: RUNS=7 SWITCH_RUNS=3 LUCIDGEN=<a lucidgen binary for `init`; default .build-release/release/lucidgen,
#        built if missing>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${RUNS:-7}"; switch_runs="${SWITCH_RUNS:-3}"
base="$root/.build/bench-plugin"
mkdir -p "$base"

if [[ $# -ge 1 ]]; then
    commit="$(git -C "$root" rev-parse --short "$1")"
    checkout="$base/src-$commit"
    if [[ ! -f "$checkout/Package.swift" ]]; then
        mkdir -p "$checkout"
        git -C "$root" archive "$commit" | tar -x -C "$checkout"
    fi
    work="$base/$commit"
else
    checkout="$root"
    work="$base/worktree"
fi
if [[ $# -ge 1 ]]; then
    echo "lucidgen: commit $commit (exported to $checkout)"
else
    echo "lucidgen: this working tree, HEAD $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' with uncommitted changes')"
fi

lucidgen="${LUCIDGEN:-$root/.build-release/release/lucidgen}"
if [[ ! -x "$lucidgen" ]]; then
    (cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$base/release-build.log" 2>&1) || { tail -20 "$base/release-build.log"; exit 1; }
fi

consumer="$work/Consumer"; floor="$work/Floor"
fresh_consumer=0; fresh_floor=0
if [[ ! -f "$consumer/Package.swift" ]]; then
    rm -rf "$consumer"; mkdir -p "$consumer"
    (cd "$consumer" && "$lucidgen" init --plugin --package-path "$checkout" --module Consumer > /dev/null)
    fresh_consumer=1
fi
if [[ ! -f "$floor/Package.swift" ]]; then
    mkdir -p "$floor"
    cp -R "$here/Floor/." "$floor/"
    sed -i.orig "s|LUCIDGEN_PATH|$checkout|" "$floor/Package.swift" && rm -f "$floor/Package.swift.orig"
    fresh_floor=1
fi

plugin() { (cd "$consumer" && swift package --allow-writing-to-package-directory lucidgen generate); }
floor_plugin() { (cd "$floor" && swift package --allow-writing-to-package-directory floor hello); }
# Runs "$@", appends its output to $log, prints the wall time in ms.
log="$work/last-output.txt"; : > "$log"
timed() { local start end; start=$(date +%s%N); "$@" >> "$log" 2>&1; end=$(date +%s%N); echo $(( (end - start) / 1000000 )); }
# Whether the output of the last call (from the marker on) shows SwiftPM compiling or linking anything.
rebuilt() { sed -n "/^=== $1\$/,\$p" "$log" | grep -v 'Compiling plugin' | grep -q -E '\] (Compiling|Linking|Emitting module)' && echo 1 || echo 0; }
stamped() { sed -n "/^=== $1\$/,\$p" "$log" | grep -q 'Inputs unchanged since the last run' && echo 1 || echo 0; }

if [[ $fresh_consumer == 1 || $fresh_floor == 1 ]]; then echo "building the packages (first use)..."; fi
[[ $fresh_consumer == 1 ]] && { plugin > "$work/first-build.log" 2>&1 || { tail -30 "$work/first-build.log"; exit 1; }; }
[[ $fresh_floor == 1 ]] && { floor_plugin > "$work/first-build-floor.log" 2>&1 || { tail -30 "$work/first-build-floor.log"; exit 1; }; }
# Warm-up.
plugin > /dev/null 2>&1; floor_plugin > /dev/null 2>&1

floor_times=(); plugin_times=(); plugin_rebuilt=0; floor_rebuilt=0; plugin_stamped=0
for ((i = 0; i < runs; i++)); do
    echo "=== floor $i" >> "$log"; floor_times+=("$(timed floor_plugin)"); floor_rebuilt=$((floor_rebuilt + $(rebuilt "floor $i")))
    echo "=== plugin $i" >> "$log"; plugin_times+=("$(timed plugin)")
    plugin_rebuilt=$((plugin_rebuilt + $(rebuilt "plugin $i"))); plugin_stamped=$((plugin_stamped + $(stamped "plugin $i")))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
f=$(median "${floor_times[@]}"); p=$(median "${plugin_times[@]}")
echo "floor    (swift package floor hello):             median ${f} ms  [${floor_times[*]}]; runs that compiled or linked: $floor_rebuilt/$runs"
echo "consumer (swift package lucidgen generate):       median ${p} ms  [${plugin_times[*]}]; runs that compiled or linked: $plugin_rebuilt/$runs; stopped at generate's stamp: $plugin_stamped/$runs"
echo "ratio consumer / floor: $(python3 -c "print(f'{$p/$f:.2f}')") (goal <= 1.2)"

if [[ $switch_runs -gt 0 ]]; then
    after_build=(); after_build_rebuilt=0
    for ((i = 0; i < switch_runs; i++)); do
        (cd "$consumer" && swift build > /dev/null 2>&1)
        echo "=== after-build $i" >> "$log"; after_build+=("$(timed plugin)"); after_build_rebuilt=$((after_build_rebuilt + $(rebuilt "after-build $i")))
    done
    echo "consumer right after a swift build:              median $(median "${after_build[@]}") ms  [${after_build[*]}]; runs that compiled or linked: $after_build_rebuilt/$switch_runs"
fi
echo "(every call's output: $log)"
