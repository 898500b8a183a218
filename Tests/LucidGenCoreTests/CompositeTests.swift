import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Composite attributes in descriptions: the columns of every version, located errors, element indexes,
/// the lint of a storage change, and the generated Swift.
@Suite struct CompositeTests {
    static func config(current: String) -> String { TestProject.defaultConfig + "\ncurrent_version: \"\(current)\"\n" }

    /// `scheme` = { primary, since?, accent: paint }, `paint` = { red, label?, finish?: finish }, `finish` = { gloss, name }.
    static let subtypes: [String: String] = [
        ".entities/Subtypes/scheme.json": #"""
        { "name": "scheme", "properties": [
            { "name": "primary", "property_type": "string" },
            { "name": "since", "property_type": "date", "nullable": true },
            { "name": "accent", "property_type": "paint" } ] }
        """#,
        ".entities/Subtypes/paint.json": #"""
        { "name": "paint", "properties": [
            { "name": "red", "property_type": "int", "default_value": 0 },
            { "name": "label", "property_type": "string", "nullable": true },
            { "name": "finish", "property_type": "finish", "nullable": true } ] }
        """#,
        ".entities/Subtypes/finish.json": #"""
        { "name": "finish", "properties": [
            { "name": "gloss", "property_type": "double" },
            { "name": "kind", "property_type": "kind" } ] }
        """#,
        ".entities/Subtypes/kind.json": #"{ "name": "kind", "cases": ["matte", "satin"] }"#,
    ]

    static func plane(_ colors: String, history: [String] = ["1.0"], extra: String = "") -> String {
        """
        { "name": "plane", "identifier": { "type": "int" },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],\(extra)
          "properties": [
            { "name": "tail", "property_type": "string" },
            \(colors) ] }
        """
    }

    func project(_ plane: String, current: String = "1.0", subtypes: [String: String] = Self.subtypes) throws -> TestProject {
        try TestProject(files: subtypes.merging([".entities/plane.json": plane]) { a, _ in a }, config: Self.config(current: current))
    }

    func table(_ result: GeneratorPipeline.Result, _ version: String) -> SchemaTable? {
        result.model.schemas.first { $0.version.string == version }?.table(named: "plane")
    }

    @Test func nestedThreeDeepIsOneColumnPerElement() throws {
        let project = try project(
            Self.plane(
                #"{ "name": "colors", "property_type": "scheme", "composite": true }"#,
                extra:
                    #" "indexes": [{ "properties": ["colors.accent.finish.gloss"] }, { "properties": ["colors.primary", "tail"], "name": "by_color" }],"#
            ))
        defer { project.remove() }
        let plane = try #require(table(try project.generate(), "1.0"))
        #expect(
            plane.columns.map {
                "\($0.name) \($0.type.rawValue)\($0.notNull ? " NOT NULL" : "")\($0.defaultSQL.map { " DEFAULT \($0)" } ?? "")"
            } == [
                "id INTEGER NOT NULL",
                "colors_accent_finish_gloss REAL", // in an optional member: NULL when the finish is nil
                "colors_accent_finish_kind TEXT",
                "colors_accent_label TEXT",
                "colors_accent_red INTEGER NOT NULL DEFAULT 0",
                "colors_primary TEXT NOT NULL",
                "colors_since TEXT",
                "tail TEXT NOT NULL",
            ])
        #expect(plane.column(named: "colors_accent_finish_kind")?.valueType == .enumeration("kind"))
        #expect(
            plane.indexes == [
                SchemaIndex(name: "plane_colors_accent_finish_gloss_index", columns: ["colors_accent_finish_gloss"]),
                SchemaIndex(name: "by_color", columns: ["colors_primary", "tail"]),
            ])
        // The record reads and writes each column; typed column references reach every element.
        let record = try project.read("Sources/App/Generated/Entities/Plane.swift")
        #expect(record.contains("public static let colors = Scheme.Columns(prefix: \"colors\")"))
        #expect(record.contains(#"container["colors_accent_finish_gloss"] = self.colors.accent.finish?.gloss"#))
        #expect(
            layoutFree(record).contains(
                #"finish: row.allNull(6..<8) ? nil : Finish(gloss: row.decode(Swift.Double.self, at: 6), kind: row.decode(Kind.self, at: 7))"#
            ))
        let paint = try project.read("Sources/App/Generated/Subtypes/Paint.swift")
        #expect(paint.contains("public let finish: Finish.Columns"))
        #expect(paint.contains(#"finish = Finish.Columns(prefix: prefix + "_finish")"#))
        // The snapshot names the storage.
        #expect(try project.read(".entities/.schema/1.0.json").contains(#""type" : "composite scheme""#))
    }

    /// A required composite whose elements all have a default (or are optional) defaults its initializer
    /// parameter to the struct of those defaults, as a defaulted property does: code written before it was
    /// added keeps compiling. One element without a default: no default.
    @Test func aRequiredCompositeOfDefaultsHasADefaultArgument() throws {
        let subtypes = [
            ".entities/Subtypes/frame.json":
                #"{ "name": "frame", "properties": [{ "name": "x", "property_type": "int", "default_value": 0 }, { "name": "origin", "property_type": "corner" }, { "name": "label", "property_type": "string", "nullable": true }] }"#,
            ".entities/Subtypes/corner.json":
                #"{ "name": "corner", "properties": [{ "name": "default", "property_type": "double", "default_value": 1.5 }, { "name": "kind", "property_type": "kind", "default_value": ".wide" }] }"#,
            ".entities/Subtypes/kind.json": #"{ "name": "kind", "cases": ["wide", "narrow"] }"#,
        ]
        let item =
            #"{ "name": "item", "version_history": [{ "version": "1.0" }], "properties": [{ "name": "title", "property_type": "string" }, { "name": "frame", "property_type": "frame", "composite": true }] }"#
        let project = try TestProject(files: subtypes.merging([".entities/item.json": item]) { a, _ in a })
        defer { project.remove() }
        _ = try project.generate()
        let record = try project.read("Sources/App/Generated/Entities/Item.swift")
        #expect(record.contains("        frame: Frame = Frame(x: 0, origin: Corner(default: 1.5, kind: .wide), label: nil)"), "\(record)")
        // The corner's `kind` without a default: neither it nor the frame has one.
        try project.write(
            ".entities/Subtypes/corner.json",
            #"{ "name": "corner", "properties": [{ "name": "default", "property_type": "double", "default_value": 1.5 }, { "name": "kind", "property_type": "kind" }] }"#
        )
        _ = try project.generate()
        #expect(
            try project.read("Sources/App/Generated/Entities/Item.swift").contains("        frame: Frame,\n")
                || project.read("Sources/App/Generated/Entities/Item.swift").contains("        frame: Frame\n"))
    }

    @Test func anOptionalCompositeKeepsNoColumnRequired() throws {
        let project = try project(Self.plane(#"{ "name": "colors", "property_type": "scheme", "composite": true, "nullable": true }"#))
        defer { project.remove() }
        let plane = try #require(table(try project.generate(), "1.0"))
        #expect(plane.columns.filter(\.notNull).map(\.name) == ["id", "tail"])
        #expect(plane.column(named: "colors_accent_red")?.defaultSQL == "0", "defaults stay: a value is written whole")
    }

    @Test func locatedErrors() throws {
        let cases: [(String, [String: String], String)] = [
            (
                #"{ "name": "colors", "property_type": "kind", "composite": true }"#, Self.subtypes,
                "composite 'colors' needs a struct subtype (one with 'properties'), but 'kind' is an enum, which is one column already; drop \"composite\""
            ),
            (
                #"{ "name": "colors", "property_type": "string", "composite": true }"#, Self.subtypes,
                "\"composite\": true needs a struct subtype as property_type (its members become the columns), found string"
            ),
            (
                #"{ "name": "colors", "property_type": "tagged", "composite": true }"#,
                Self.subtypes.merging([
                    ".entities/Subtypes/tagged.json":
                        #"{ "name": "tagged", "properties": [{ "name": "tags", "property_type": "[string]" }] }"#
                ]) { a, _ in a },
                "member 'tags' of 'tagged' is an array, which cannot be a composite element (an element is one queryable column); store 'tagged' as JSON (drop \"composite\" from 'colors') or make the array a property of its own"
            ),
            (
                #"{ "name": "colors", "property_type": "loose", "composite": true, "nullable": true }"#,
                Self.subtypes.merging([
                    ".entities/Subtypes/loose.json":
                        #"{ "name": "loose", "properties": [{ "name": "a", "property_type": "string", "nullable": true }] }"#
                ]) { a, _ in a },
                "optional composite 'colors' has no required element: nil and a 'loose' whose elements are all nil would both be stored as NULL in every column; make one element of 'loose' required, or the composite required"
            ),
            (
                #"{ "name": "colors", "property_type": "scheme", "composite": true, "default_value": "x" }"#, Self.subtypes,
                "composite 'colors' cannot have a default_value: give its elements default_value in the subtype 'scheme'"
            ),
            (
                #"{ "name": "colors", "property_type": "outer", "composite": true }"#,
                Self.subtypes.merging([
                    ".entities/Subtypes/outer.json":
                        #"{ "name": "outer", "properties": [{ "name": "a", "property_type": "string" }, { "name": "inner", "property_type": "loose", "nullable": true }] }"#,
                    ".entities/Subtypes/loose.json":
                        #"{ "name": "loose", "properties": [{ "name": "b", "property_type": "string", "nullable": true }] }"#,
                ]) { a, _ in a },
                "optional member 'inner' of 'outer' is a nested composite with no required element: nil and a 'loose' whose elements are all nil would both be NULL in every column; make one element of 'loose' required"
            ),
        ]
        for (property, subtypes, message) in cases {
            let project = try project(Self.plane(property), subtypes: subtypes)
            defer { project.remove() }
            let errors = try project.errors()
            #expect(errors.map(\.message) == [message])
            #expect(errors.allSatisfy { $0.location?.line != nil }, "located: \(errors)")
        }
    }

    @Test func indexErrors() throws {
        let colors = #"{ "name": "colors", "property_type": "scheme", "composite": true }"#
        let cases: [(String, String)] = [
            (#"["colors"]"#, "index of 'plane' names 'colors', a composite: name its elements instead (e.g. 'colors.primary')"),
            (#"["colors.secondary"]"#, "index of 'plane' names 'colors.secondary': 'scheme' has no member 'secondary'"),
            (#"["colors.accent"]"#, "index of 'plane' names 'colors.accent': 'accent' is a nested composite: name one of its elements"),
            (#"["tail.x"]"#, "index of 'plane' names 'tail.x': 'tail' is not a composite (\"composite\": true), so it has no elements"),
        ]
        for (properties, message) in cases {
            let project = try project(Self.plane(colors, extra: #" "indexes": [{ "properties": \#(properties) }],"#))
            defer { project.remove() }
            #expect(try project.errors().map(\.message) == [message])
        }
        // Unique over an element the seeds can make distinct per row: accepted; over an enum element: located error.
        let unique = try project(Self.plane(colors, extra: #" "indexes": [{ "properties": ["colors.primary"], "unique": true }],"#))
        defer { unique.remove() }
        #expect(
            try #require(table(try unique.generate(), "1.0")).indexes.contains(
                SchemaIndex(name: "plane_colors_primary_unique", columns: ["colors_primary"], unique: true)))
        let enumUnique = try project(
            Self.plane(colors, extra: #" "indexes": [{ "properties": ["colors.accent.finish.kind"], "unique": true }],"#))
        defer { enumUnique.remove() }
        #expect(
            try enumUnique.errors().map(\.message) == [
                "unique index of 'plane' names 'colors.accent.finish.kind', a composite element of type kind, which cannot differ on every row (the generated tests and fixtures seed distinct values per row); make the index plain, or name an element of type string, int, double, float, date, url, data or color"
            ])
    }

    @Test func elementsFromErrors() throws {
        let scheme = #"{ "name": "colors", "property_type": "scheme", "composite": true, "added_at_version": "2.0", "elements_from": "#
        let cases: [(String, String)] = [
            (#"{ "primary": "nothing" } }"#, "elements_from of 'colors' maps 'primary' to 'nothing', which is not a property of 'plane'"),
            (#"{ "secondary": "tail" } }"#, "elements_from of 'colors' names 'secondary': 'scheme' has no member 'secondary'"),
            (
                #"{ "primary": "tail" } }"#,
                "elements_from of 'colors' maps 'primary' to 'tail', which must be removed at 2.0, the version the composite replaces it at: add \"removed_at_version\": \"2.0\" to 'tail'"
            ),
            (#"[] }"#, "elements_from must be an object: { \"<element>\": \"<property it was>\" }, found an array"),
        ]
        for (value, message) in cases {
            let project = try project(Self.plane(scheme + value, history: ["1.0", "2.0"]), current: "2.0")
            defer { project.remove() }
            let messages = try project.errors().map(\.message)
            #expect(messages.contains(message), "\(messages)")
        }
    }

    @Test func aColumnClashWithAnElementIsAnError() throws {
        let project = try project(
            Self.plane(
                #"{ "name": "colors", "property_type": "scheme", "composite": true }, { "name": "colors_primary", "property_type": "string" }"#
            ))
        defer { project.remove() }
        #expect(
            try project.errors().map(\.message) == [
                "property 'colors_primary' of 'plane' would have the column `colors_primary`, as would property 'colors'; rename one of them (or give it a persisted_name)"
            ])
    }

    /// Released as JSON at 1.0, edited to a composite at 2.0: the snapshot says what it was, each column
    /// is extracted from the JSON in the rebuild, lint reports the storage change, and a composite never
    /// turns back into JSON silently.
    @Test func editingAJSONStructIntoACompositeIsEnough() throws {
        let project = try project(Self.plane(#"{ "name": "colors", "property_type": "scheme", "nullable": true }"#))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(".lucid.yaml", Self.config(current: "2.0"))
        try project.write(
            ".entities/plane.json",
            Self.plane(#"{ "name": "colors", "property_type": "scheme", "nullable": true, "composite": true }"#, history: ["1.0", "2.0"]))
        let result = try project.generate()
        #expect(
            result.diagnostics.map(\.message).contains(
                #"inferred from the released snapshots: property 'colors' of 'plane' changed type from scheme to composite scheme at 2.0; to say so in the description, add to the property "type_history": [{ "until_version": "2.0", "property_type": "scheme" }]"#
            ))
        let columns = try #require(table(result, "2.0")).columns.filter { $0.extractedFrom != nil }
        #expect(
            columns.map { "\($0.name) ← \($0.extractedFrom!) \($0.jsonPath!)" } == [
                "colors_accent_finish_gloss ← colors $.accent.finish.gloss", "colors_accent_finish_kind ← colors $.accent.finish.kind",
                "colors_accent_label ← colors $.accent.label", "colors_accent_red ← colors $.accent.red",
                "colors_primary ← colors $.primary", "colors_since ← colors $.since",
            ])
        let steps = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        guard case .rebuildTable(let rebuild)? = steps.first?.operations.first else { Issue.record("expected a rebuild: \(steps)"); return }
        #expect(rebuild.reasons == ["the JSON struct in plane.colors becomes composite columns (json_extract of each member)"])
        #expect(rebuild.sources.contains("strftime('%Y-%m-%d %H:%M:%f', json_extract(src.\"colors\", '$.since') / 1000.0, 'unixepoch')"))

        // Back to JSON at 3.0: refused, located.
        try project.write(".lucid.yaml", Self.config(current: "3.0"))
        try project.write(
            ".entities/plane.json",
            Self.plane(#"{ "name": "colors", "property_type": "scheme", "nullable": true }"#, history: ["1.0", "2.0", "3.0"]))
        #expect(
            try project.errors().map(\.message).contains(
                "property 'colors' of 'plane' changes at 3.0 from composite scheme to scheme: lucidgen converts a struct stored as JSON into a composite, not a composite into anything else; add a new property and move the values in a stage"
            ))
    }
}

/// Struct members with a history: each version's records see the struct as it was, a composite's
/// elements follow column by column, a JSON-stored struct's change is the app's code, and lint reports
/// element removals, renames and new requirements.
@Suite struct StructMemberHistoryTests {
    static func scheme(_ members: String) -> String { #"{ "name": "scheme", "properties": [ "# + members + " ] }" }

    static let version1 = scheme(
        #"""
        { "name": "primary", "property_type": "string" },
        { "name": "second", "property_type": "string", "nullable": true },
        { "name": "old", "property_type": "int", "nullable": true }
        """#)
    static let version2 = scheme(
        #"""
        { "name": "primary", "property_type": "string" },
        { "name": "secondary", "previous_name": "second", "renamed_at_version": "2.0", "property_type": "string", "default_value": "white",
          "type_history": [{ "until_version": "2.0", "nullable": true, "default_value": null }] },
        { "name": "old", "property_type": "int", "nullable": true, "removed_at_version": "2.0" },
        { "name": "tertiary", "property_type": "string", "nullable": true, "added_at_version": "2.0" }
        """#)

    static func plane(_ properties: String, history: [String]) -> String {
        """
        { "name": "plane", "identifier": { "type": "int" },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [ { "name": "tail", "property_type": "string" }, \(properties) ] }
        """
    }

    static let colors = #"{ "name": "colors", "property_type": "scheme", "composite": true }"#

    /// Releases 1.0 and 2.0, generated in turn (2.0 edits the struct with its history).
    func released(properties: String = colors, second: String = version2, history2: [String] = ["1.0", "2.0"]) throws -> (
        TestProject, GeneratorPipeline.Result
    ) {
        let project = try TestProject(
            files: [".entities/Subtypes/scheme.json": Self.version1, ".entities/plane.json": Self.plane(properties, history: ["1.0"])],
            config: CompositeTests.config(current: "1.0"))
        _ = try project.generate()
        try project.write(".lucid.yaml", CompositeTests.config(current: "2.0"))
        try project.write(".entities/Subtypes/scheme.json", second)
        try project.write(".entities/plane.json", Self.plane(properties, history: history2))
        return (project, try project.generate())
    }

    @Test func eachVersionSeesTheStructAsItWas() throws {
        let (project, result) = try released()
        defer { project.remove() }
        let types = try project.read("Sources/App/Generated/Subtypes/Scheme.swift")
        #expect(types.contains("public struct Scheme: Swift.Codable, Swift.Hashable, Swift.Sendable {"))
        #expect(types.contains("public struct Scheme_1_0: Swift.Codable, Swift.Hashable, Swift.Sendable {"))
        #expect(types.contains("/// The `scheme` struct subtype as it was at version 1.0 (its members have a"))
        #expect(types.contains("public var second: Swift.String?"), "1.0's member, by its name then")
        #expect(types.contains("public var secondary: Swift.String\n"), "2.0's member, required")
        let records = try project.read("Sources/App/Generated/Entities/Plane.swift")
        #expect(records.contains("public var colors: Scheme_1_0\n"))
        #expect(records.contains("public var colors: Scheme\n"))
        // Column by column: renamed in place, removed, added, required with the default for NULLs.
        let plane = try #require(result.model.schemas.last?.table(named: "plane"))
        #expect(
            plane.columns.map {
                "\($0.name)\($0.renamedFrom.map { " ← \($0)" } ?? "")\($0.notNull ? " NOT NULL" : "")\($0.defaultSQL.map { " DEFAULT \($0)" } ?? "")"
            } == [
                "id NOT NULL", "colors_primary NOT NULL", "colors_secondary ← colors_second NOT NULL DEFAULT 'white'", "colors_tertiary",
                "tail NOT NULL",
            ])
        let step = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"))
        guard case .rebuildTable(let rebuild)? = step.first?.operations.first else { Issue.record("expected a rebuild: \(step)"); return }
        #expect(
            rebuild.reasons == [
                "plane.colors_secondary becomes required (NULLs take the default 'white')",
                "plane.colors_secondary default changes to 'white'",
            ])
        #expect(rebuild.sources.contains(#"COALESCE(src."colors_second", 'white')"#))
    }

    @Test func lintReportsElementsLikeProperties() throws {
        let (project, _) = try released()
        defer { project.remove() }
        let check = try run(lucidgenBinary, ["check", "--config", project.root.appendingPathComponent(".lucid.yaml").path])
        #expect(check.status == 4, "DS102 is an error: \(check.output)")
        #expect(
            check.output.contains("scheme.json:4:1: error: [DS102] element plane.colors.old is removed at 2.0 (column colors_old)"),
            "\(check.output)")
        #expect(
            check.output.contains(
                "warning: [BC102] element plane.colors.second is renamed to secondary at 2.0 (column colors_second → colors_secondary)"))
        #expect(check.output.contains("warning: [MF102] element plane.colors.secondary becomes required at 2.0 (NULLs become 'white')"))
    }

    @Test func aJSONStoredStructWhoseMembersChangeIsTheAppsCode() throws {
        let (project, result) = try released(properties: #"{ "name": "raw", "property_type": "scheme", "nullable": true }"#)
        defer { project.remove() }
        #expect(
            result.model.customSteps.map { $0.tables.flatMap(\.reasons) } == [
                [
                    "plane.raw: the members of its struct change (Scheme_1_0 → Scheme: scheme.second is renamed to secondary, scheme.secondary becomes required), and its stored JSON is converted by the app's code"
                ]
            ])
        #expect(
            try project.read("Sources/App/Generated/AppMigrations.swift").contains("func migrate(_ old: Plane_1_0) throws -> Plane_2_0?"))
    }

    /// What decoding follows by itself needs nothing: an optional member added (reads as nil), a member
    /// removed (its key is ignored), one made optional.
    @Test func aJSONStoredStructThatStillDecodesNeedsNoCode() throws {
        let relaxed = Self.scheme(
            #"""
            { "name": "primary", "property_type": "string" },
            { "name": "second", "property_type": "string", "nullable": true },
            { "name": "old", "property_type": "int", "nullable": true, "removed_at_version": "2.0" },
            { "name": "tertiary", "property_type": "string", "nullable": true, "added_at_version": "2.0" }
            """#)
        let (project, result) = try released(properties: #"{ "name": "raw", "property_type": "[scheme]" }"#, second: relaxed)
        defer { project.remove() }
        #expect(result.model.customSteps.isEmpty)
        #expect(try project.read("Sources/App/Generated/Entities/Plane.swift").contains("public var raw: [Scheme_1_0]\n"))
        let step = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"))
        #expect(step.flatMap(\.operations).isEmpty, "the JSON stays as it is: \(step)")
    }

    /// Found by the history explorer (seed 10): a JSON struct's change names the Swift types, which are named
    /// after the newest version; a member change at a later release renamed the frozen 2.0's `Scheme` to
    /// `Scheme_2_0`, and the next generate said "released version 2.0 was changed".
    @Test func aLaterMemberChangeKeepsTheReleasedJSONStructChange() throws {
        let (project, _) = try released(properties: #"{ "name": "raw", "property_type": "scheme", "nullable": true }"#)
        defer { project.remove() }
        try project.write(".lucid.yaml", CompositeTests.config(current: "3.0"))
        try project.write(
            ".entities/Subtypes/scheme.json",
            Self.version2.replacingOccurrences(
                of: " ] }", with: #", { "name": "hint", "property_type": "bool", "default_value": false, "added_at_version": "3.0" } ] }"#))
        try project.write(
            ".entities/plane.json",
            Self.plane(#"{ "name": "raw", "property_type": "scheme", "nullable": true }"#, history: ["1.0", "2.0", "3.0"]))
        let result = try project.generate()
        let changes = result.model.schemas.map { $0.table(named: "plane")?.column(named: "raw")?.jsonStructChange ?? "-" }
        #expect(
            changes == [
                "-", "Scheme_1_0 → Scheme_2_0: scheme.second is renamed to secondary, scheme.secondary becomes required",
                "Scheme_2_0 → Scheme: scheme.hint is added as required",
            ])
        #expect(
            result.model.customSteps.map { $0.tables.flatMap(\.reasons) } == [
                [
                    "plane.raw: the members of its struct change (Scheme_1_0 → Scheme_2_0: scheme.second is renamed to secondary, scheme.secondary becomes required), and its stored JSON is converted by the app's code"
                ],
                [
                    "plane.raw: the members of its struct change (Scheme_2_0 → Scheme: scheme.hint is added as required), and its stored JSON is converted by the app's code"
                ],
            ])
    }

    @Test func locatedErrors() throws {
        let cases: [(String, [String], String)] = [
            (
                Self.scheme(
                    #"{ "name": "primary", "property_type": "string" }, { "name": "b", "property_type": "int", "nullable": true, "added_at_version": "9.0" }"#
                ), ["1.0", "2.0"],
                "added_at_version 9.0 of member 'b' of struct 'scheme' is not a schema version (no entity's version_history lists it; versions: 1.0, 2.0)"
            ),
            (
                Self.scheme(
                    #"{ "name": "primary", "property_type": "string" }, { "name": "b", "previous_name": "a", "property_type": "int" }"#),
                ["1.0", "2.0"],
                "member 'b' of 'scheme' has previous_name but no renamed_at_version: say at which version it was renamed"
            ),
            (
                Self.scheme(
                    #"{ "name": "primary", "property_type": "string" }, { "name": "primary", "previous_name": "second", "renamed_at_version": "2.0", "property_type": "string", "nullable": true }"#
                ), ["1.0", "2.0"],
                "struct 'scheme' has two members named 'primary' at version 2.0; a member can only be renamed to (or added with) a name no other member has then"
            ),
            (
                Self.version2, ["1.0"],
                "struct 'scheme' changes its members at 2.0, which 'plane' holds: add { \"version\": \"2.0\" } to the version_history of 'plane' so that its records at 2.0 see the change"
            ),
        ]
        for (scheme, history, message) in cases {
            let project = try TestProject(
                files: [
                    ".entities/Subtypes/scheme.json": scheme, ".entities/plane.json": Self.plane(Self.colors, history: history),
                    // Another entity makes 2.0 a schema version when plane has no item for it.
                    ".entities/other.json":
                        #"{ "name": "other", "version_history": [{ "version": "1.0" }, { "version": "2.0" }], "properties": [{ "name": "x", "property_type": "int" }] }"#,
                ],
                config: CompositeTests.config(current: "2.0"))
            defer { project.remove() }
            let errors = try project.errors()
            #expect(errors.map(\.message).contains(message), "\(errors.map(\.message))")
            #expect(errors.allSatisfy { $0.location?.line != nil }, "located: \(errors)")
        }
    }

    /// A released snapshot records each struct's members: editing a released struct without history (its
    /// stored JSON would no longer decode in that version's records) is an error naming it.
    @Test func editingAReleasedStructWithoutHistoryIsAnError() throws {
        let project = try TestProject(
            files: [
                ".entities/Subtypes/scheme.json": Self.version1,
                ".entities/plane.json": Self.plane(#"{ "name": "raw", "property_type": "scheme" }"#, history: ["1.0"]),
            ],
            config: CompositeTests.config(current: "1.0"))
        defer { project.remove() }
        _ = try project.generate()
        #expect(try project.read(".entities/.schema/1.0.json").contains(#""kind" : "struct""#))
        try project.write(".lucid.yaml", CompositeTests.config(current: "2.0"))
        try project.write(".entities/plane.json", Self.plane(#"{ "name": "raw", "property_type": "scheme" }"#, history: ["1.0", "2.0"]))
        try project.write(
            ".entities/Subtypes/scheme.json",
            Self.scheme(#"{ "name": "primary", "property_type": "string" }, { "name": "second", "property_type": "string" }"#))
        let messages = try project.errors().map(\.message)
        #expect(
            messages.contains {
                $0.hasPrefix("released version 1.0 was changed")
                    && $0.contains(
                        "struct 'scheme' had the members primary: string, second: string?, old: int?, now primary: string, second: string; say at which later version each member was added, removed, renamed or made optional or required"
                    )
            },
            "\(messages)")
    }
}
