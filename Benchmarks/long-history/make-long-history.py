#!/usr/bin/env python3
"""Writes a long synthetic history, like a real app's: ENTITIES entities over VERSIONS versions, where each
version after the first changes CHANGED entities (rotating) and leaves the others alone.

A change adds a property with a default; every fourth change also renames a property added earlier
(previous_name + renamed_at_version), and every seventh adds an optional property. Every entity but the first
has a to-one relationship to the previous one. Each entity's version_history lists 1.0 and the versions where
it changed, as a hand-kept history does.

The package has the app module (`LongHistory`), its generated migration tests (`LongHistoryTests`) and an
executable `launch` (Benchmarks/long-history/launch.swift) that opens a store in a fresh process.

Usage: make-long-history.py FOLDER LUCIDGEN_ROOT [ENTITIES=60] [VERSIONS=150] [CHANGED=2]
"""
import json, os, shutil, sys

folder, root = sys.argv[1], os.path.abspath(sys.argv[2])
entities = int(sys.argv[3]) if len(sys.argv) > 3 else 60
versions = int(sys.argv[4]) if len(sys.argv) > 4 else 150
changed = int(sys.argv[5]) if len(sys.argv) > 5 else 2
names = [f"{1 + i // 10}.{i % 10}" for i in range(versions)]

os.makedirs(os.path.join(folder, ".entities"), exist_ok=True)
for sub in ["Sources/LongHistory", "Sources/launch", "Tests/LongHistoryTests"]:
    os.makedirs(os.path.join(folder, sub), exist_ok=True)
with open(os.path.join(folder, ".lucid.yaml"), "w") as f:
    f.write(f'input_path: .entities\ncurrent_version: "{names[-1]}"\n'
            "targets:\n"
            "  app:\n    module_name: LongHistory\n    output_path: Sources/LongHistory/Generated\n"
            "  app_tests:\n    module_name: LongHistoryTests\n    output_path: Tests/LongHistoryTests/Generated\n"
            "    expectations_provider: LongHistoryExpectations\n")
with open(os.path.join(folder, "Tests/LongHistoryTests/LongHistoryExpectations.swift"), "w") as f:
    f.write("import LucidRuntime\nimport LucidTesting\n@testable import LongHistory\n\n"
            "struct LongHistoryExpectations {\n    func storeOptions() -> StoreOptions { StoreOptions() }\n}\n")

props = {e: [
    {"name": "title", "property_type": "string"},
    {"name": "count", "property_type": "int", "default_value": 0},
    {"name": "created_at", "property_type": "date", "nullable": True},
] + ([{"name": "parent", "property_type": {"entity_name": f"entity_{e - 1}", "association": "to_one"}, "nullable": True}] if e > 0 else [])
    for e in range(entities)}
history = {e: ["1.0"] for e in range(entities)}
added = {e: [] for e in range(entities)}  # properties added later, candidates for a rename
change = 0
for v in range(1, versions):
    for k in range(changed):
        e = (v * changed + k) % entities
        version = names[v]
        history[e].append(version)
        name = f"field_{v}"
        field = {"name": name, "property_type": "int", "default_value": v, "added_at_version": version}
        props[e].append(field)
        if change % 4 == 3 and added[e]:
            old = added[e].pop(0)
            old["previous_name"] = old["name"]
            old["name"] = "renamed_" + old["name"]
            old["renamed_at_version"] = version
        elif change % 7 == 6:
            props[e].append({"name": f"note_{v}", "property_type": "string", "nullable": True, "added_at_version": version})
        added[e].append(field)
        change += 1
for e in range(entities):
    description = {"name": f"entity_{e}", "identifier": {"type": "int"},
                   "version_history": [{"version": v} for v in history[e]], "properties": props[e]}
    with open(os.path.join(folder, ".entities", f"entity_{e}.json"), "w") as f:
        json.dump(description, f, indent=2)

shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.swift"),
            os.path.join(folder, "Sources/launch/main.swift"))
with open(os.path.join(folder, "Package.swift"), "w") as f:
    f.write(f"""// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "LongHistory",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "lucidgen", path: "{root}")],
    targets: [
        .target(name: "LongHistory", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
        .executableTarget(name: "launch", dependencies: ["LongHistory", .product(name: "LucidRuntime", package: "lucidgen"), .product(name: "LucidTesting", package: "lucidgen")]),
        .testTarget(name: "LongHistoryTests", dependencies: ["LongHistory", .product(name: "LucidRuntime", package: "lucidgen"), .product(name: "LucidTesting", package: "lucidgen")],
                    exclude: ["Generated/Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
""")
