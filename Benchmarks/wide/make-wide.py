#!/usr/bin/env python3
"""Writes a wide or many-entity synthetic lucidgen project: ENTITIES entities of
PROPERTIES properties each, over two versions, 1.0 and 1.1, where 1.1 adds one property (with a default) to
the last entity. A store at 1.0 therefore migrates to 1.1 by one added column.

The properties cycle through the common types (string, int, double, bool, date, optional string), so the
generated records, DDL and fixture rows are those of an ordinary model, only wide. Every entity but the first
has a to-one relationship to the previous one (counted among its PROPERTIES). Both the app and its migration
tests are generated (an `app_tests` target), as in a real project.

Usage: make-wide.py FOLDER ENTITIES PROPERTIES      e.g. make-wide.py /tmp/w 1 1500; make-wide.py /tmp/m 2000 20
"""
import json, os, sys

folder, entities, properties = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
versions = ["1.0", "1.1"]

os.makedirs(os.path.join(folder, ".entities"), exist_ok=True)
for sub in ["Sources/Wide", "Tests/WideTests"]:
    os.makedirs(os.path.join(folder, sub), exist_ok=True)
with open(os.path.join(folder, ".lucid.yaml"), "w") as f:
    f.write(f'input_path: .entities\ncurrent_version: "{versions[-1]}"\n'
            "targets:\n"
            "  app:\n    module_name: Wide\n    output_path: Sources/Wide/Generated\n"
            "  app_tests:\n    module_name: WideTests\n    output_path: Tests/WideTests/Generated\n"
            "    expectations_provider: WideExpectations\n")
with open(os.path.join(folder, "Tests/WideTests/WideExpectations.swift"), "w") as f:
    f.write("import LucidRuntime\nimport LucidTesting\n@testable import Wide\n\n"
            "struct WideExpectations {\n    func storeOptions() -> StoreOptions { StoreOptions() }\n}\n")

kinds = [
    {"property_type": "string"},
    {"property_type": "int", "default_value": 0},
    {"property_type": "double", "default_value": 1.5},
    {"property_type": "bool", "default_value": False},
    {"property_type": "date", "nullable": True},
    {"property_type": "string", "nullable": True},
]

for e in range(entities):
    props = []
    if e > 0:
        props.append({"name": "parent", "property_type": {"entity_name": f"entity_{e - 1}", "association": "to_one"}, "nullable": True})
    for p in range(properties - len(props)):
        props.append({"name": f"field_{p}", **kinds[p % len(kinds)]})
    history = ["1.0"]
    if e == entities - 1:
        props.append({"name": "added_in_1_1", "property_type": "int", "default_value": 7, "added_at_version": "1.1"})
        history.append("1.1")
    description = {"name": f"entity_{e}", "identifier": {"type": "int"},
                   "version_history": [{"version": v} for v in history], "properties": props}
    with open(os.path.join(folder, ".entities", f"entity_{e}.json"), "w") as f:
        json.dump(description, f, indent=2)
