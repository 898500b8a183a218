#!/usr/bin/env bash
# Many stores: `lucidgen migrate --stores` on a folder of STORES stores (default 2,000) of one
# project, a third each at 1.0, 1.1 and 2.0 with ROWS rows (default 200), all migrating to 3.0 (each store one
# rebuild of its table). Release lucidgen, in one run on the same stores (a fresh copy for each measurement):
#
#   jobs 1     --jobs 1
#   jobs 2     --jobs 2 (the ratio jobs 1 / jobs 2 is the speed-up; the machine has 2 cores)
#   rerun      --jobs 2 again on the migrated stores: every store current (one open each)
#   quarter    --jobs 2 on a quarter of the stores: peak memory should not grow with the number of stores
#
# Each: wall time, CPU time (user + system) and peak memory (maximum resident set size), from /usr/bin/time -v.
# Usage: Benchmarks/fleet/run.sh [STORES=2000] [ROWS=200]; writes Benchmarks/fleet/last-run.txt.
# LUCIDGEN_ROOT: the lucidgen checkout to measure (default this one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${LUCIDGEN_ROOT:-$here/../..}"
root="$(cd "$root" && pwd)"
stores="${1:-2000}"
rows="${2:-200}"
work="$root/.build/bench-fleet"
rm -rf "$work"
mkdir -p "$work/project/.entities"

(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > "$work/release-build.log" 2>&1) \
    || { tail -20 "$work/release-build.log"; exit 1; }
lucidgen="$root/.build-release/release/lucidgen"

project="$work/project"
cat > "$project/.lucid.yaml" <<'YAML'
input_path: .entities
current_version: "3.0"
targets:
  app:
    module_name: App
    output_path: Sources/App/Generated
YAML
cat > "$project/.entities/item.json" <<'JSON'
{
    "name": "item",
    "identifier": { "type": "int" },
    "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }, { "version": "3.0" }],
    "properties": [
        { "name": "name", "property_type": "string" },
        { "name": "note", "property_type": "string", "default_value": "",
          "type_history": [{ "until_version": "1.1", "nullable": true, "default_value": null }] },
        { "name": "score", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
        { "name": "label", "property_type": "string", "nullable": true, "previous_name": "title", "renamed_at_version": "2.0" },
        { "name": "tag", "property_type": "int", "default_value": 5, "added_at_version": "1.1" },
        { "name": "rank", "property_type": "int", "default_value": 0, "added_at_version": "3.0" }
    ]
}
JSON
cd "$project"
for version in 1.0 1.1 2.0; do
    "$lucidgen" fixtures --schema-version "$version" --rows "$rows" --output "template-$version.store" > /dev/null
done

# A fresh folder of `count` stores, a third at each version.
make_fleet() {
    local folder="$1" count="$2" versions=(1.0 1.1 2.0)
    rm -rf "$folder"; mkdir -p "$folder"
    for ((i = 0; i < count; i++)); do cp "template-${versions[i % 3]}.store" "$folder/$(printf 't%05d.sqlite' "$i")"; done
}

# Runs lucidgen under /usr/bin/time -v; prints "wall_ms cpu_ms peak_kb".
measure() {
    local name="$1"; shift
    local status=0
    /usr/bin/time -v -o "$work/$name.time" "$lucidgen" "$@" > "$work/$name.log" 2>&1 || status=$?
    [[ $status -eq 0 ]] || { echo "$name failed ($status):" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = (n == 3 ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2]) }
        /User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident set size/ { rss = $2 }
        END { printf "%d %d %d\n", wall * 1000, (user + sys) * 1000, rss }' "$work/$name.time"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
make_fleet tenants "$stores"; one=$(measure jobs1 migrate --stores tenants --jobs 1 --report "$work/jobs1.json")
make_fleet tenants "$stores"; two=$(measure jobs2 migrate --stores tenants --jobs 2 --report "$work/jobs2.json")
rerun=$(measure rerun migrate --stores tenants --jobs 2 --report "$work/rerun.json")
quarter_count=$((stores / 4))
make_fleet quarter "$quarter_count"; quarter=$(measure quarter migrate --stores quarter --jobs 2)

rate() { local wall; read -r wall _ _ <<< "$1"; echo "$2 * 1000 / $wall" | bc -l; }
row() {
    local wall cpu rss; read -r wall cpu rss <<< "$2"
    printf '  %-10s %5d stores %7d ms wall %7d ms CPU %7.1f MB peak %7.0f stores/s\n' "$1" "$3" "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)" "$(rate "$2" "$3")"
}
{
    echo "# Benchmarks/fleet/run.sh $stores $rows   (lucidgen migrate --stores, release build)"
    echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD), $(nproc) cores, load average before: $load_before"
    echo "# $stores stores (a third each at 1.0, 1.1, 2.0; $rows rows each, $(du -k "$project/template-1.0.store" | cut -f1) KB at 1.0) migrated to 3.0"
    echo "# Wall time well above CPU time means the run waited: for each commit's sync to disk, and for cores other processes share."
    row "jobs 1" "$one" "$stores"
    row "jobs 2" "$two" "$stores"
    row "rerun" "$rerun" "$stores"
    row "quarter" "$quarter" "$quarter_count"
    read -r wall1 _ _ <<< "$one"; read -r wall2 _ _ <<< "$two"
    printf '  speed-up, jobs 2 against jobs 1: %.2fx\n' "$(echo "$wall1 / $wall2" | bc -l)"
    read -r _ _ rss_all <<< "$two"; read -r _ _ rss_quarter <<< "$quarter"
    printf '  peak memory, %d stores against %d: %.2fx\n' "$stores" "$quarter_count" "$(echo "$rss_all / $rss_quarter" | bc -l)"
    echo "  summaries: $(tail -1 "$work/jobs1.log") | $(tail -1 "$work/jobs2.log") | $(tail -1 "$work/rerun.log")"
    echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$here/last-run.txt"
