#!/usr/bin/env python3
"""Writes a synthetic lucidgen project: N entities x V versions, for measuring `generate`.

Each entity starts with a few properties and, at each later version, gains a property with a default;
every third version renames a property (previous_name + renamed_at_version); every entity but the first
has a to-one relationship to the previous one. Usage: make-synthetic.py FOLDER [ENTITIES] [VERSIONS]
"""
import json, os, sys

folder = sys.argv[1]
entities = int(sys.argv[2]) if len(sys.argv) > 2 else 500
versions = int(sys.argv[3]) if len(sys.argv) > 3 else 10
version_names = [f"1.{i}" for i in range(versions)]

os.makedirs(os.path.join(folder, ".entities"), exist_ok=True)
os.makedirs(os.path.join(folder, "Sources/Synthetic"), exist_ok=True)
with open(os.path.join(folder, ".lucid.yaml"), "w") as f:
    f.write(f'input_path: .entities\ncurrent_version: "{version_names[-1]}"\n'
            "targets:\n  app:\n    module_name: Synthetic\n    output_path: Sources/Synthetic/Generated\n")
for e in range(entities):
    props = [
        {"name": "title", "property_type": "string"},
        {"name": "count", "property_type": "int", "default_value": 0},
        {"name": "created_at", "property_type": "date", "nullable": True},
        {"name": "score", "property_type": "double", "default_value": 1.5},
    ]
    for v in range(1, versions):
        prop = {"name": f"field_{v}", "property_type": "string", "default_value": "", "added_at_version": version_names[v]}
        if v % 3 == 0 and v + 1 < versions:
            prop = {"name": f"renamed_{v}", "previous_name": f"field_{v}", "renamed_at_version": version_names[v + 1],
                    "property_type": "string", "default_value": "", "added_at_version": version_names[v]}
        props.append(prop)
    if e > 0:
        props.append({"name": "parent", "property_type": {"entity_name": f"entity_{e - 1}", "association": "to_one"}, "nullable": True})
    description = {"name": f"entity_{e}", "identifier": {"type": "int"},
                   "version_history": [{"version": v} for v in version_names], "properties": props}
    with open(os.path.join(folder, ".entities", f"entity_{e}.json"), "w") as f:
        json.dump(description, f, indent=2)
with open(os.path.join(folder, "Package.swift"), "w") as f:
    lucidgen = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
    f.write(f"""// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Synthetic",
    dependencies: [.package(name: "lucidgen", path: "{lucidgen}")],
    targets: [.target(name: "Synthetic", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")])],
    swiftLanguageModes: [.v6]
)
""")
