#!/usr/bin/env bash
# The long-history benchmarks : a synthetic history like a real app's (default 60 entities over 150
# versions, 2 changed per version; make-long-history.py), measured side by side.
#
#   generate   `lucidgen generate` first run and with no change; lines generated (app, tests)
#   build      debug build of the generated app and test modules (dependencies built before, not counted)
#   launch     the first open of an up-to-date store in a fresh process (LucidStore.open with the generated
#              registry, its static initialisation included) ÷ a plain GRDB DatabaseQueue reading one row:
#              median of LAUNCH_RUNS (default 21) alternating fresh processes, release build; and, when
#              valgrind is installed, callgrind's instruction counts of exactly that work.
#
#   plan       what a migration decides before its first step (registry, recorded version, path) for a store
#              at the oldest version and one a version behind, each in a fresh process, against the whole
#              LucidStore.open migrating the same store (median of PLAN_RUNS, default 7), release build
#
#   sqlite     LucidStore.open migrating a store at the oldest version to the newest ÷ `sqlite3`
#              running the same SQL (every statement that migration runs, traced by SQLite: the plan's steps in their
#              transactions, the foreign-key check, the schema check, the bookkeeping) on a copy of the same store:
#              median of SQLITE_RUNS (default 7) alternating runs (ours in process, sqlite3 as a process), and
#              callgrind's instruction counts of both when valgrind is installed
#
#   cli        the commands as the build plugin and CI run them (debug lucidgen), at each history length of
#              CLI_VERSIONS (default "150 1000"; "150 1000 3000" on demand): user CPU seconds of `generate`
#              (first run, unchanged, and --force with every older version released), `fixtures` at 1.0,
#              `plan` of that store, `migrate` of it to the newest and `status` of the result, the generated
#              lines and the snapshots' size, each one's growth against linear (1.00 = linear; the issue's goal
#              <= 1.2), and every stage's CPU seconds from `generate --timings` with its growth. Not part of
#              `all` (1,000 versions take minutes).
#
# Usage: Benchmarks/long-history/run.sh [generate|build|launch|plan|sqlite|cli|all] [ENTITIES] [VERSIONS] [CHANGED]
# LUCIDGEN_ROOT: the lucidgen checkout to measure (default this one), e.g. an older commit's worktree for "before".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${LUCIDGEN_ROOT:-$here/../..}"
root="$(cd "$root" && pwd)"
what="${1:-all}"; entities="${2:-60}"; versions="${3:-150}"; changed="${4:-2}"
work="$root/.build/bench-long-history"
project="$work/project"
mkdir -p "$work"
ms() { date +%s%N; }

if [[ "$what" == cli ]]; then
    (cd "$root" && swift build --product lucidgen > "$work/debug-build.log" 2>&1) || { tail -20 "$work/debug-build.log"; exit 1; }
    # A copy: a rebuild of the checkout while this runs must not change the tool under measurement.
    cp "$root/.build/debug/lucidgen" "$work/lucidgen-debug"
    debug="$work/lucidgen-debug"
    # User CPU seconds of one command; its standard error is kept in $work/cpu-stderr.txt (the --timings).
    cpu() { /usr/bin/time -f "%U" -o "$work/cpu.txt" "$@" > /dev/null 2> "$work/cpu-stderr.txt" || { cat "$work/cpu-stderr.txt" >&2; exit 1; }; cat "$work/cpu.txt"; }
    rows=(first unchanged forced fixtures planned migrated status lines snapshots)
    declare -A first unchanged forced fixtures planned migrated status lines snapshots
    lengths=(${CLI_VERSIONS:-150 1000})
    for n in "${lengths[@]}"; do
        project="$work/cli-$n"
        rm -rf "$project"
        python3 "$here/make-long-history.py" "$project" "$root" "$entities" "$n" "$changed"
        cd "$project"
        first[$n]=$(cpu "$debug" generate --timings)
        cp "$work/cpu-stderr.txt" "$work/timings-first-$n.txt"
        unchanged[$n]=$(cpu "$debug" generate)
        # Every version but the newest released (frozen snapshots checked): what a run after adding a version does.
        forced[$n]=$(cpu "$debug" generate --force --timings)
        cp "$work/cpu-stderr.txt" "$work/timings-forced-$n.txt"
        fixtures[$n]=$(cpu "$debug" fixtures --schema-version 1.0 --rows 1 --output oldest.sqlite)
        planned[$n]=$(cpu "$debug" plan --database oldest.sqlite)
        cp oldest.sqlite migrated.sqlite
        migrated[$n]=$(cpu "$debug" migrate --database migrated.sqlite)
        status[$n]=$(cpu "$debug" status --database migrated.sqlite)
        lines[$n]=$(find Sources/LongHistory/Generated Tests/LongHistoryTests/Generated -name '*.swift' -print0 | xargs -0 cat | wc -l)
        snapshots[$n]=$(du -sk .entities/.schema | cut -f1)
        echo "$n versions (debug, user CPU s): generate ${first[$n]}, unchanged ${unchanged[$n]}, --force ${forced[$n]}, fixtures at 1.0 ${fixtures[$n]}, plan of the oldest store ${planned[$n]}, migrate of it ${migrated[$n]}, status ${status[$n]}; ${lines[$n]} generated lines, ${snapshots[$n]} KB of snapshots"
    done
    base=${lengths[0]}
    for n in "${lengths[@]:1}"; do
        echo "growth ${base} -> ${n} versions, against linear ($(python3 -c "print(f'{$n / $base:.2f}')")x = 1.00; the issue's goal <= 1.2):"
        for row in "${rows[@]}"; do
            declare -n values=$row
            python3 -c "b, t, n0, n1 = ${values[$base]}, ${values[$n]}, $base, $n; print(f'  {\"$row\":10} {b} -> {t}: {t / b:.1f}x, against linear {(t / b) / (n1 / n0):.2f}')"
        done
        # Each stage's CPU seconds (--timings), first run and --force, with its growth against linear.
        for run in first forced; do
            echo "  stages of the $run run (CPU s, ${base} -> ${n} versions, against linear):"
            paste -d'|' <(tail -n +2 "$work/timings-$run-$base.txt") <(tail -n +2 "$work/timings-$run-$n.txt") | python3 -c "
import sys
for line in sys.stdin:
    a, b = line.rstrip('\\n').split('|')
    name = a.strip().split('  ')[0]
    ca, cb = float(a.split()[-3]), float(b.split()[-3])
    indent = '      ' if a.startswith('    ') else '    '
    ratio = f'{(cb / ca) / ($n / $base):.2f}' if ca > 0.005 else '-'
    print(f'{indent}{name:24} {ca:8.3f} -> {cb:8.3f}  {ratio}')
"
        done
    done
    exit 0
fi

(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$work/release-build.log" 2>&1) \
    || { tail -20 "$work/release-build.log"; exit 1; }
lucidgen="$root/.build-release/release/lucidgen"

rm -rf "$project"
python3 "$here/make-long-history.py" "$project" "$root" "$entities" "$versions" "$changed"
cd "$project"
echo "history: $entities entities x $versions versions, $changed changed per version"

start=$(ms); "$lucidgen" generate > "$work/generate.log"; end=$(ms)
gen_ms=$(( (end - start) / 1000000 ))
start=$(ms); "$lucidgen" generate > /dev/null; end=$(ms)
regen_ms=$(( (end - start) / 1000000 ))
app_lines=$(find Sources/LongHistory/Generated -name '*.swift' -print0 | xargs -0 cat | wc -l)
test_lines=$(find Tests/LongHistoryTests/Generated -name '*.swift' -print0 | xargs -0 cat | wc -l)
schema_lines=$(find Sources/LongHistory/Generated -name '*Schema.swift' -print0 | xargs -0 cat | wc -l)
echo "generate: first run ${gen_ms} ms, no change ${regen_ms} ms"
echo "generated lines: app ${app_lines} (schema file ${schema_lines}), tests ${test_lines}, total $((app_lines + test_lines))"

if [[ "$what" == build || "$what" == all ]]; then
    # Dependencies first, with placeholder modules, so that the measured build compiles only generated code.
    mkdir -p "$work/hold"; rm -rf "$work/hold/"*
    mv Sources/LongHistory/Generated "$work/hold/app"; mv Tests/LongHistoryTests/Generated "$work/hold/tests"
    echo "import LucidRuntime" > Sources/LongHistory/Placeholder.swift
    echo "import LucidTesting" > Tests/LongHistoryTests/Placeholder.swift
    mv Sources/launch/main.swift "$work/hold/main.swift"; echo "import LucidRuntime" > Sources/launch/main.swift
    swift build --build-tests --scratch-path "$work/scratch" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
    rm Sources/LongHistory/Placeholder.swift Tests/LongHistoryTests/Placeholder.swift
    mv "$work/hold/app" Sources/LongHistory/Generated; mv "$work/hold/tests" Tests/LongHistoryTests/Generated
    mv "$work/hold/main.swift" Sources/launch/main.swift
    start=$(ms); swift build --build-tests --scratch-path "$work/scratch" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }; end=$(ms)
    echo "debug build of the generated app and tests (and the launch tool): $(( (end - start) / 1000000 )) ms"
fi

if [[ "$what" == plan || "$what" == all ]]; then
    swift build -c release --product launch --scratch-path "$work/scratch-release" > "$work/launch-build.log" 2>&1 \
        || { tail -20 "$work/launch-build.log"; exit 1; }
    launch="$work/scratch-release/release/launch"
    runs="${PLAN_RUNS:-7}"
    median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    for start in oldest previous; do
        base="$work/plan-$start.sqlite"
        "$launch" "create-$start" "$base" > /dev/null
        planned=(); migrated=(); steps=0
        for ((i = 0; i < runs; i++)); do
            cp "$base" "$work/plan-copy.sqlite"; read -r us steps < <("$launch" plan "$work/plan-copy.sqlite"); planned+=("$us")
            cp "$base" "$work/plan-copy.sqlite"; migrated+=("$("$launch" migrate "$work/plan-copy.sqlite" 2> /dev/null)")
        done
        mp=$(median "${planned[@]}"); mm=$(median "${migrated[@]}")
        echo "plan from the $start version ($steps step(s)): ${mp} us (goal <= $([[ $start == oldest ]] && echo 50000 || echo 5000) us); LucidStore.open migrating it ${mm} us; plan / open $(python3 -c "print(f'{100*$mp/$mm:.1f}')") % (goal <= 2 %)"
    done
fi

if [[ "$what" == sqlite || "$what" == all ]]; then
    swift build -c release --product launch --scratch-path "$work/scratch-release" > "$work/launch-build.log" 2>&1 \
        || { tail -20 "$work/launch-build.log"; exit 1; }
    launch="$work/scratch-release/release/launch"
    base="$work/sqlite-oldest.sqlite"
    "$launch" create-oldest "$base" > /dev/null
    cp "$base" "$work/sqlite-copy.sqlite"; "$launch" migrate-sql "$work/sqlite-copy.sqlite" > "$work/migrate.sql" 2> /dev/null
    statements=$(grep -c ';$' "$work/migrate.sql")
    runs="${SQLITE_RUNS:-7}"
    median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    lucid=(); plain=()
    for ((i = 0; i < runs; i++)); do
        cp "$base" "$work/sqlite-copy.sqlite"; lucid+=("$("$launch" migrate "$work/sqlite-copy.sqlite" 2> /dev/null)")
        cp "$base" "$work/sqlite-copy.sqlite"
        start=$(ms); sqlite3 "$work/sqlite-copy.sqlite" < "$work/migrate.sql" > /dev/null; end=$(ms); plain+=($(( (end - start) / 1000 )))
        [[ "$(sqlite3 "$work/sqlite-copy.sqlite" 'SELECT version FROM lucid_store')" == "$("$launch" newest)" ]] || { echo "sqlite3 did not migrate the copy" >&2; exit 1; }
    done
    ml=$(median "${lucid[@]}"); mp=$(median "${plain[@]}")
    echo "oldest store migrated ($statements statements): LucidStore.open ${ml} us, sqlite3 running its SQL ${mp} us, ratio $(python3 -c "print(f'{$ml/$mp:.2f}')") (goal <= 1.2)"
    if command -v valgrind > /dev/null; then
        cp "$launch" "$work/launch-nodebug"; strip --strip-debug "$work/launch-nodebug"
        cp "$base" "$work/sqlite-copy.sqlite"
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.migrate" --collect-atstart=no \
            '--toggle-collect=$s6launch20measuredLucidMigrateySSSgSSKF' "$work/launch-nodebug" migrate "$work/sqlite-copy.sqlite" > /dev/null 2>&1
        cp "$base" "$work/sqlite-copy.sqlite"
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.sqlite3" sqlite3 "$work/sqlite-copy.sqlite" < "$work/migrate.sql" > /dev/null 2>&1
        il=$(grep -E '^summary:' "$work/callgrind.migrate" | awk '{print $2}'); is=$(grep -E '^summary:' "$work/callgrind.sqlite3" | awk '{print $2}')
        echo "oldest store migrated (callgrind instructions): LucidStore.open ${il}, sqlite3 (whole process) ${is}, ratio $(python3 -c "print(f'{$il/$is:.2f}')") (goal <= 1.2)"
    fi
fi

if [[ "$what" == launch || "$what" == all ]]; then
    swift build -c release --product launch --scratch-path "$work/scratch-release" > "$work/launch-build.log" 2>&1 \
        || { tail -20 "$work/launch-build.log"; exit 1; }
    launch="$work/scratch-release/release/launch"
    store="$work/launch.sqlite"
    "$launch" create "$store" > /dev/null
    runs="${LAUNCH_RUNS:-21}"
    lucid=(); grdb=(); checked=()
    for ((i = 0; i < runs; i++)); do
        grdb+=("$("$launch" grdb "$store")"); lucid+=("$("$launch" lucid "$store")"); checked+=("$("$launch" checked "$store")")
    done
    median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    ml=$(median "${lucid[@]}"); mg=$(median "${grdb[@]}"); mc=$(median "${checked[@]}")
    echo "launch (wall, median of $runs fresh processes): LucidStore.open ${ml} us, GRDB DatabaseQueue ${mg} us, ratio $(python3 -c "print(f'{$ml/$mg:.2f}')") (goal <= 1.2)"
    echo "checking path (wall, same runs): LucidStore.open with versionRecordCheck = .always ${mc} us, ratio to GRDB $(python3 -c "print(f'{$mc/$mg:.2f}')")"
    if command -v valgrind > /dev/null; then
        # valgrind 3.19 cannot read the DWARF of Swift 6.3 release binaries: a copy without debug information
        # (its symbol table stays, which is all --toggle-collect needs).
        cp "$launch" "$work/launch-nodebug"; strip --strip-debug "$work/launch-nodebug"
        count() {
            valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$1" --collect-atstart=no "--toggle-collect=$2" \
                "$work/launch-nodebug" "$1" "$store" > /dev/null 2> "$work/callgrind.$1.log" || { tail -5 "$work/callgrind.$1.log" >&2; return 1; }
            grep -E '^summary:' "$work/callgrind.$1" | awk '{print $2}'
        }
        # Exact symbols: a pattern also matches the functions' closures, and a second matching function
        # toggles collection off again (the lucid side once counted 10 instructions that way).
        il=$(count lucid '$s6launch17measuredLucidOpenySSSgSSKF'); ig=$(count grdb '$s6launch16measuredGRDBOpenySSSgSSKF')
        ic=$(count checked '$s6launch24measuredLucidCheckedOpenySSSgSSKF')
        echo "launch (callgrind instructions): LucidStore.open ${il}, GRDB DatabaseQueue ${ig}, ratio $(python3 -c "print(f'{$il/$ig:.2f}')") (goal <= 1.2)"
        echo "checking path (callgrind instructions): LucidStore.open with versionRecordCheck = .always ${ic}, ratio to GRDB $(python3 -c "print(f'{$ic/$ig:.2f}')")"
    fi
fi
