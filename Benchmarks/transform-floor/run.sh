#!/usr/bin/env bash
# The floor of a row transform in SQLite (floor.c): each mode on the migration benchmark's 1M-row store,
# interleaved, median of 5, as a ratio to `copy` (the SQL rebuild's INSERT ... SELECT).
#   Benchmarks/transform-floor/run.sh [rows]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows="${1:-1000000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall Benchmarks/transform-floor/floor.c -o "$work/floor" -lsqlite3
swift build -c release --scratch-path .build-release --product migration-benchmark > /dev/null
.build-release/release/migration-benchmark --make-base "$work/store.sqlite" "$rows" > /dev/null
modes=(copy functions lookahead rowwise)
for run in 1 2 3 4 5; do
    for mode in "${modes[@]}"; do "$work/floor" "$work/store.sqlite" "$mode" >> "$work/$mode.txt"; done
done
median() { awk '{print $2}' "$work/$1.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
copy="$(median copy)"
for mode in "${modes[@]}"; do
    m="$(median "$mode")"
    printf '%-10s median %8.1f ms   ratio to copy %.2f   %s\n' "$mode" "$m" "$(python3 -c "print($m/$copy)")" "$(head -1 "$work/$mode.txt" | sed 's/^[a-z]* [0-9.]* ms //')"
done
