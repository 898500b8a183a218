#!/usr/bin/env bash
# The plugins with lucidgen built from source (the lucidgen package's LucidGenPlugin/LucidGenCommand: the tool
# is built in the consumer's configuration, debug) against the prebuilt plugins (lucidgen-plugins: the tool is
# the artifact bundle's release binary). Not a test.
#
#   build      a consumer's clean build: a package made by `lucidgen init --plugin` (app and test targets
#              using the build plugin), `swift build --build-tests` from an empty scratch folder (dependencies
#              resolved before, not timed); source-built, then prebuilt; and whether Yams, Mustache and
#              ArgumentParser were compiled
#   generate   the 150-version synthetic history (Benchmarks/long-history/make-long-history.py: 60 entities,
#              150 versions, 2 changed per version) generated through the command plugin,
#              `swift package … lucidgen generate --force` against `… lucidgen-prebuilt generate --force`
#              (each call after a warm-up, so the source-built tool is already built; median of RUNS
#              alternating runs); and the build plugin's command itself (`generate --module LongHistory
#              --module-output … --force`) run with each plugin's tool, without SwiftPM
#
# The bundle is lucidgen-plugins/lucidgen.artifactbundle, made by scripts/make-artifact-bundle (a release
# build) when it is missing. Work folder: .build/bench-plugin-bundle.
#
# Usage: Benchmarks/plugin-bundle/run.sh [build|generate|all]     env: RUNS=3
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
what="${1:-all}"; runs="${RUNS:-3}"
work="$root/.build/bench-plugin-bundle"
mkdir -p "$work"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

plugins="$root/lucidgen-plugins"
if [[ ! -f "$plugins/lucidgen.artifactbundle/info.json" ]]; then
    echo "making the artifact bundle (a release build)..."
    "$root/scripts/make-artifact-bundle" --no-zip > "$work/make-artifact-bundle.log" 2>&1 || { tail -20 "$work/make-artifact-bundle.log"; exit 1; }
fi
prebuilt="$(python3 -c 'import json, sys; i = json.load(open(sys.argv[1] + "/info.json"))["artifacts"]["lucidgen"]; print(sys.argv[1] + "/" + i["variants"][0]["path"])' "$plugins/lucidgen.artifactbundle")"
echo "lucidgen: HEAD $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' with uncommitted changes'); bundle: $prebuilt ($("$prebuilt" --version))"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || uptime)"

# Makes the package in $1 use the prebuilt plugins: the lucidgen-plugins dependency, its plugin for the build plugin.
use_prebuilt() {
    python3 - "$1/Package.swift" "$plugins" <<'PY'
import re, sys
path, plugins = sys.argv[1], sys.argv[2]
text = open(path).read()
text, found = re.subn(r'(\.package\(name: "lucidgen", path: "[^"]*"\))', r'\1, .package(path: "%s")' % plugins, text, count=1)
if not found: sys.exit("no lucidgen path dependency in " + path)
text = text.replace('.plugin(name: "LucidGenPlugin", package: "lucidgen")', '.plugin(name: "LucidGenPrebuiltPlugin", package: "lucidgen-plugins")')
open(path, "w").write(text)
PY
}

if [[ "$what" == build || "$what" == all ]]; then
    for kind in source prebuilt; do
        package="$work/build-$kind"; scratch="$work/build-$kind-scratch"
        rm -rf "$package" "$scratch"; mkdir -p "$package"
        (cd "$package" && "$prebuilt" init --plugin --package-path "$root" --module Consumer > /dev/null)
        [[ $kind == prebuilt ]] && use_prebuilt "$package"
        (cd "$package" && swift package resolve --scratch-path "$scratch" > "$work/build-$kind-resolve.log" 2>&1)
        start=$(ms)
        (cd "$package" && swift build --build-tests --scratch-path "$scratch" > "$work/build-$kind.log" 2>&1) || { tail -20 "$work/build-$kind.log"; exit 1; }
        end=$(ms)
        compiled=$(grep -o -E 'Compiling (Yams|Mustache|ArgumentParser|LucidGenCore|LucidGenCLI|GRDB|LucidRuntime) ' "$work/build-$kind.log" | awk '{print $2}' | sort -u | tr '\n' ' ')
        printf 'clean build (swift build --build-tests), %-8s %6d ms; modules compiled among the watched ones: %s\n' "$kind:" $((end - start)) "$compiled"
    done
fi

if [[ "$what" == generate || "$what" == all ]]; then
    for kind in source prebuilt; do
        project="$work/history-$kind"
        rm -rf "$project" "$work/history-$kind-scratch"
        python3 "$root/Benchmarks/long-history/make-long-history.py" "$project" "$root" 60 150 2
        [[ $kind == prebuilt ]] && use_prebuilt "$project"
        (cd "$project" && swift package resolve --scratch-path "$work/history-$kind-scratch" > "$work/history-$kind-resolve.log" 2>&1)
    done
    call() {  # source|prebuilt: one `generate --force` through the command plugin
        local verb=lucidgen; [[ $1 == prebuilt ]] && verb=lucidgen-prebuilt
        (cd "$work/history-$1" && swift package --scratch-path "$work/history-$1-scratch" --allow-writing-to-package-directory "$verb" generate --force)
    }
    start=$(ms); call source > "$work/history-source-first.log" 2>&1 || { tail -20 "$work/history-source-first.log"; exit 1; }; end=$(ms)
    echo "first call, source-built (builds the debug tool, then generates): $((end - start)) ms"
    start=$(ms); call prebuilt > "$work/history-prebuilt-first.log" 2>&1 || { tail -20 "$work/history-prebuilt-first.log"; exit 1; }; end=$(ms)
    echo "first call, prebuilt (builds nothing, generates): $((end - start)) ms"
    source_times=(); prebuilt_times=()
    for ((i = 0; i < runs; i++)); do
        start=$(ms); call source >> "$work/history-source.log" 2>&1; end=$(ms); source_times+=($((end - start)))
        start=$(ms); call prebuilt >> "$work/history-prebuilt.log" 2>&1; end=$(ms); prebuilt_times+=($((end - start)))
    done
    s=$(median "${source_times[@]}"); p=$(median "${prebuilt_times[@]}")
    echo "150 versions, swift package … generate --force: source-built median ${s} ms [${source_times[*]}], prebuilt median ${p} ms [${prebuilt_times[*]}], ratio $(python3 -c "print(f'{$s/$p:.2f}')")"

    # The build plugin's command with each plugin's tool (the debug product the command plugin built, the bundle's).
    debug_tool="$work/history-source-scratch/debug/lucidgen"
    module_source=(); module_prebuilt=()
    for ((i = 0; i < runs; i++)); do
        for kind in source prebuilt; do
            tool="$prebuilt"; [[ $kind == source ]] && tool="$debug_tool"
            start=$(ms)
            (cd "$work/history-$kind" && "$tool" generate --config .lucid.yaml --module LongHistory --module-output "$work/module-$kind.swift" --force > /dev/null)
            end=$(ms)
            if [[ $kind == source ]]; then module_source+=($((end - start))); else module_prebuilt+=($((end - start))); fi
        done
    done
    s=$(median "${module_source[@]}"); p=$(median "${module_prebuilt[@]}")
    echo "150 versions, the build plugin's command (generate --module LongHistory --force): debug tool median ${s} ms [${module_source[*]}], prebuilt median ${p} ms [${module_prebuilt[*]}], ratio $(python3 -c "print(f'{$s/$p:.2f}')")"
    cmp -s "$work/module-source.swift" "$work/module-prebuilt.swift" && echo "(both tools wrote the same file)" || echo "(the two tools' files differ!)"
fi
echo "(logs: $work)"
