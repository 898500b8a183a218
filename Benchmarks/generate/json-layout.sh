#!/usr/bin/env bash
# Loading is linear in the file whatever its layout: one entity description of about
# 50 MB (1,500 properties, each with a 33,000-character "documentation" string, a key lucidgen ignores),
# written minified (one line) and indented, each generated with `lucidgen generate --force` (release),
# alternating, RUNS times (default 3); prints the medians and the ratio (goal: minified <= 2 x indented).
#
# Usage: Benchmarks/generate/json-layout.sh [PROPERTIES] [CHARACTERS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
properties="${1:-1500}"; characters="${2:-33000}"; runs="${RUNS:-3}"
(cd "$root" && swift build -c release --product lucidgen --scratch-path "$root/.build-release" > /dev/null)
lucidgen="$root/.build-release/release/lucidgen"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.entities"
printf 'input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\n' > "$work/.lucid.yaml"
python3 - "$work" "$properties" "$characters" <<'PY'
import json, sys
work, count, chars = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
entity = {"name": "wide", "identifier": {"type": "int"}, "version_history": [{"version": "1.0"}],
          "properties": [{"name": f"p{i}", "property_type": "string", "nullable": True, "documentation": "x" * chars} for i in range(count)]}
open(f"{work}/minified.json", "w").write(json.dumps(entity, separators=(",", ":")))
open(f"{work}/indented.json", "w").write(json.dumps(entity, indent=2))
PY
ms() { date +%s%N; }
declare -A times
for ((i = 0; i < runs; i++)); do
    for layout in minified indented; do
        cp "$work/$layout.json" "$work/.entities/wide.json"
        start=$(ms); (cd "$work" && "$lucidgen" generate --force > /dev/null 2>&1); end=$(ms)
        times[$layout]+="$(( (end - start) / 1000000 )) "
    done
done
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m=$(median "${times[minified]}"); d=$(median "${times[indented]}")
echo "description of $(stat -c %s "$work/minified.json") bytes minified, $(stat -c %s "$work/indented.json") indented"
echo "generate: minified ${m} ms, indented ${d} ms, ratio $(python3 -c "print(f'{$m/$d:.2f}')") (goal <= 2)"
