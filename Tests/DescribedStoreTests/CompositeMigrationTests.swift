import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Composite attributes migrated on real SQLite stores, every value checked: a struct stored as JSON
/// becoming a composite (nested three deep, with NULLs at every level), a composite added, removed and
/// renamed with its property, and the steps SQL cannot make.
@Suite struct CompositeMigrationTests {
    static let subtypes: [String: String] = [
        "scheme.json": #"""
        { "name": "scheme", "properties": [
            { "name": "primary", "property_type": "string" },
            { "name": "since", "property_type": "date", "nullable": true },
            { "name": "accent", "property_type": "paint" } ] }
        """#,
        "paint.json": #"""
        { "name": "paint", "properties": [
            { "name": "red", "property_type": "int" },
            { "name": "shiny", "property_type": "bool" },
            { "name": "label", "property_type": "string", "nullable": true },
            { "name": "finish", "property_type": "finish", "nullable": true } ] }
        """#,
        "finish.json": #"""
        { "name": "finish", "properties": [
            { "name": "gloss", "property_type": "double" },
            { "name": "kind", "property_type": "kind" },
            { "name": "layers", "property_type": "layers" } ] }
        """#,
        "kind.json": #"{ "name": "kind", "cases": ["matte", "satin"] }"#,
        "layers.json": #"{ "name": "layers", "options": ["base", "clear"] }"#,
    ]

    static func plane(_ properties: String, history: [String]) -> String {
        """
        { "name": "plane", "identifier": { "type": "int" },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [ { "name": "tail", "property_type": "string" }, \(properties) ] }
        """
    }

    /// The schemas of a history written release by release (each release generated with its
    /// `current_version`, so released snapshots freeze what each version was).
    func releases(_ releases: [(current: String, plane: String)], subtypes: [String: String] = Self.subtypes) throws -> [Schema] {
        try model(releases, subtypes: subtypes).schemas
    }

    func model(_ releases: [(current: String, plane: String)], subtypes: [String: String] = Self.subtypes) throws -> ResolvedModel {
        try model(releases.map { ($0.current, $0.plane, subtypes) })
    }

    /// Each release with its own subtype files (a struct's members edited with their history).
    func model(_ releases: [(current: String, plane: String, subtypes: [String: String])]) throws -> ResolvedModel {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path(".entities/Subtypes"), withIntermediateDirectories: true)
        var model: ResolvedModel?
        for release in releases {
            for (name, json) in release.subtypes {
                try json.write(toFile: folder.path(".entities/Subtypes/" + name), atomically: true, encoding: .utf8)
            }
            let config =
                "input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\ncurrent_version: \"\(release.current)\"\n"
            try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
            try release.plane.write(toFile: folder.path(".entities/plane.json"), atomically: true, encoding: .utf8)
            model = try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).run(check: false).model
        }
        return model!
    }

    func rows(_ path: String, _ columns: [String]) throws -> [[String]] {
        try withDatabase(path) { (db: Database) throws in
            try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM plane ORDER BY id").map { row in
                columns.indices.map { row[$0].map { "\($0)" } ?? "NULL" }
            }
        }
    }

    static let json = #"{ "name": "colors", "property_type": "scheme", "nullable": true }"#
    static let composite = #"{ "name": "colors", "property_type": "scheme", "nullable": true, "composite": true }"#

    /// What GRDB's JSON encoder writes for these values (dates as milliseconds since 1970, nil members left out).
    static let jsonRows = #"""
        INSERT INTO plane (id, tail, colors) VALUES
          (1, 'A', '{"accent":{"finish":{"gloss":0.75,"kind":"satin","layers":3},"label":"it''s \"x\"","red":255,"shiny":true},"primary":"red","since":1700000000123}'),
          (2, 'B', '{"accent":{"red":-1,"shiny":false},"primary":"ünï"}'),
          (3, 'C', NULL),
          (4, 'D', '{"accent":{"finish":{"gloss":2,"kind":"matte","layers":0},"red":0,"shiny":false},"primary":""}')
        """#

    static let columns = [
        "colors_primary", "colors_since", "colors_accent_red", "colors_accent_shiny", "colors_accent_label",
        "colors_accent_finish_gloss", "colors_accent_finish_kind", "colors_accent_finish_layers",
    ]

    @Test func aJSONStructBecomesACompositeWithEveryValue() throws {
        let versions = try releases([
            ("1.0", Self.plane(Self.json, history: ["1.0"])),
            ("2.0", Self.plane(Self.composite, history: ["1.0", "2.0"])),
        ])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.jsonRows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, ["id", "tail"] + Self.columns) == [
                ["1", "A", "red", "2023-11-14 22:13:20.123", "255", "1", "it's \"x\"", "0.75", "satin", "3"],
                ["2", "B", "ünï", "NULL", "-1", "0", "NULL", "NULL", "NULL", "NULL"],
                ["3", "C", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"],
                ["4", "D", "", "NULL", "0", "0", "NULL", "2.0", "matte", "0"],
            ])
        // The JSON column is gone; the types are the columns' (a JSON 2 is REAL 2.0 in a REAL column).
        try withDatabase(path) { (db: Database) throws in
            #expect(try db.columns(in: "plane").map(\.name).contains("colors") == false)
            #expect(try String.fetchOne(db, sql: "SELECT typeof(colors_accent_finish_gloss) FROM plane WHERE id = 4") == "real")
            #expect(try String.fetchOne(db, sql: "SELECT typeof(colors_accent_red) FROM plane WHERE id = 1") == "integer")
        }
    }

    /// A store at 1.0 jumps straight to 3.0 over the conversion and a rename of the property at 3.0.
    @Test func theConversionComposesWithALaterRename() throws {
        let renamed = #"{ "name": "paint_job", "previous_name": "colors", "property_type": "scheme", "nullable": true, "composite": true }"#
        let versions = try releases([
            ("1.0", Self.plane(Self.json, history: ["1.0"])),
            ("2.0", Self.plane(Self.composite, history: ["1.0", "2.0"])),
            ("3.0", Self.plane(renamed, history: ["1.0", "2.0", "3.0"])),
        ])
        let plan = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(plan.map(\.label) == ["1.0 → 3.0 (inferred)"])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.jsonRows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, ["paint_job_primary", "paint_job_accent_finish_kind", "paint_job_since"]) == [
                ["red", "satin", "2023-11-14 22:13:20.123"], ["ünï", "NULL", "NULL"], ["NULL", "NULL", "NULL"], ["", "matte", "NULL"],
            ])
        // From 2.0, the rename is one RENAME COLUMN per element, in place.
        let step = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("2.0"))
        #expect(step.flatMap(\.operations).map(\.description).filter { $0.hasPrefix("rename column") }.count == Self.columns.count)
        #expect(step.flatMap(\.operations).allSatisfy { if case .renameColumn = $0 { true } else { false } })
    }

    @Test func aCompositeAddedThenRemoved() throws {
        let added = #"{ "name": "colors", "property_type": "scheme", "composite": true, "nullable": true, "added_at_version": "2.0" }"#
        let removed =
            #"{ "name": "colors", "property_type": "scheme", "composite": true, "nullable": true, "added_at_version": "2.0", "removed_at_version": "3.0" }"#
        let versions = try releases([
            ("1.0", Self.plane(#"{ "name": "note", "property_type": "string", "nullable": true }"#, history: ["1.0"])),
            ("2.0", Self.plane(#"{ "name": "note", "property_type": "string", "nullable": true }, "# + added, history: ["1.0", "2.0"])),
            (
                "3.0",
                Self.plane(#"{ "name": "note", "property_type": "string", "nullable": true }, "# + removed, history: ["1.0", "2.0", "3.0"])
            ),
        ])
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO plane (id, tail) VALUES (1, 'A')")
        defer { folder.remove() }
        let toTwo = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"))
        #expect(
            toTwo.flatMap(\.operations).allSatisfy { if case .addColumn = $0 { true } else { false } },
            "an optional composite is added column by column: \(toTwo)")
        try LucidStore.open(atPath: path, versions: Array(versions.prefix(2))).database.close()
        try withDatabase(path) { db in
            try db.execute(sql: "UPDATE plane SET colors_primary = 'red', colors_accent_red = 1, colors_accent_shiny = 1")
        }
        #expect(try rows(path, ["colors_primary", "colors_accent_red"]) == [["red", "1"]])
        try LucidStore.open(atPath: path, versions: versions).database.close()
        try withDatabase(path) { (db: Database) throws in
            #expect(try db.columns(in: "plane").map(\.name) == ["id", "note", "tail"])
            #expect(try String.fetchAll(db, sql: "SELECT tail FROM plane") == ["A"])
        }
    }

    /// Steps SQL cannot make are the app's code (a typed transform from the JSON record to the composite one).
    @Test func whatSQLCannotDoNeedsTheAppsCode() throws {
        // A required composite from an optional JSON struct: no default for the NULL rows.
        let required = #"{ "name": "colors", "property_type": "scheme", "composite": true }"#
        let model = try self.model([
            ("1.0", Self.plane(Self.json, history: ["1.0"])), ("2.0", Self.plane(required, history: ["1.0", "2.0"])),
        ])
        #expect(
            model.customSteps.map {
                "\($0.from) → \($0.to) \($0.tables.map(\.table)) \($0.tables.map(\.oldType)) → \($0.tables.map(\.newType))"
            } == [
                "1.0 → 2.0 [\"plane\"] [\"Plane_1_0\"] → [\"Plane_2_0\"]"
            ])
        #expect(
            model.customSteps.first?.tables.first?.reasons.contains(
                "plane.colors_primary is required but plane.colors may be NULL, and it has no default for those rows") == true,
            "\(model.customSteps)")
        // A data member is base64 in the JSON.
        var subtypes = Self.subtypes
        subtypes["scheme.json"] =
            #"{ "name": "scheme", "properties": [{ "name": "primary", "property_type": "string" }, { "name": "logo", "property_type": "data" }] }"#
        let withData = try self.model(
            [("1.0", Self.plane(Self.json, history: ["1.0"])), ("2.0", Self.plane(Self.composite, history: ["1.0", "2.0"]))],
            subtypes: subtypes)
        #expect(
            withData.customSteps.first?.tables.first?.reasons == [
                "plane.colors_logo: member $.logo of colors is data, stored as base64 text in the JSON, which SQLite cannot decode"
            ])
        // A uuid member is its text in the JSON, its 16 bytes in a column.
        subtypes["scheme.json"] =
            #"{ "name": "scheme", "properties": [{ "name": "primary", "property_type": "string" }, { "name": "badge", "property_type": "uuid" }] }"#
        let withUUID = try self.model(
            [("1.0", Self.plane(Self.json, history: ["1.0"])), ("2.0", Self.plane(Self.composite, history: ["1.0", "2.0"]))],
            subtypes: subtypes)
        #expect(
            withUUID.customSteps.first?.tables.first?.reasons == [
                "plane.colors_badge: member $.badge of colors is a uuid, stored as its text in the JSON and as its 16 bytes in a column, which SQLite cannot convert"
            ])
    }

    /// A change inside a nested composite (struct member history): `paint.label` renamed to `name`, `shiny`
    /// removed, `matte` added with a default, `red` optional → required with a default; every value kept.
    @Test func aNestedElementChangesColumnByColumn() throws {
        var subtypes = Self.subtypes
        subtypes["paint.json"] = #"""
            { "name": "paint", "properties": [
                { "name": "red", "property_type": "int", "nullable": true },
                { "name": "shiny", "property_type": "bool" },
                { "name": "label", "property_type": "string", "nullable": true },
                { "name": "finish", "property_type": "finish", "nullable": true } ] }
            """#
        let versions1 = try releases([("1.0", Self.plane(Self.composite, history: ["1.0"]))], subtypes: subtypes)
        let (path, folder) = try storeAtFirstVersion(
            versions1,
            rows: """
                INSERT INTO plane (id, tail, colors_primary, colors_accent_red, colors_accent_shiny, colors_accent_label) VALUES
                  (1, 'A', 'red', 5, 1, 'gloss'), (2, 'B', 'blue', NULL, 0, NULL), (3, 'C', NULL, NULL, NULL, NULL)
                """)
        defer { folder.remove() }
        // 2.0, written as a user would: the struct's file with the members' history, the entity with a 2.0 item.
        var subtypes2 = subtypes
        subtypes2["paint.json"] = #"""
            { "name": "paint", "properties": [
                { "name": "red", "property_type": "int", "default_value": 0, "type_history": [{ "until_version": "2.0", "nullable": true, "default_value": null }] },
                { "name": "shiny", "property_type": "bool", "removed_at_version": "2.0" },
                { "name": "name", "previous_name": "label", "renamed_at_version": "2.0", "property_type": "string", "nullable": true },
                { "name": "matte", "property_type": "bool", "default_value": false, "added_at_version": "2.0" },
                { "name": "finish", "property_type": "finish", "nullable": true } ] }
            """#
        let versions = try model([
            ("1.0", Self.plane(Self.composite, history: ["1.0"]), subtypes),
            ("2.0", Self.plane(Self.composite, history: ["1.0", "2.0"]), subtypes2),
        ]).schemas
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try rows(path, ["id", "colors_primary", "colors_accent_red", "colors_accent_name", "colors_accent_matte"]) == [
                ["1", "red", "5", "gloss", "0"], ["2", "blue", "0", "NULL", "0"], ["3", "NULL", "NULL", "NULL", "NULL"],
            ])
        try withDatabase(path) { (db: Database) throws in
            let columns = try db.columns(in: "plane").map(\.name)
            #expect(!columns.contains("colors_accent_shiny") && !columns.contains("colors_accent_label"))
        }
    }

    /// Separate properties become a composite's elements (`elements_from`: nothing is guessed): their
    /// columns are renamed in place, every value kept.
    @Test func separatePropertiesBecomeACompositeInPlace() throws {
        let separate = #"""
            { "name": "red_value", "property_type": "int" },
            { "name": "label_text", "property_type": "string", "nullable": true }
            """#
        let replaced = #"""
            { "name": "red_value", "property_type": "int", "removed_at_version": "2.0" },
            { "name": "label_text", "property_type": "string", "nullable": true, "removed_at_version": "2.0" },
            { "name": "paint", "property_type": "simple_paint", "composite": true, "added_at_version": "2.0",
              "elements_from": { "red": "red_value", "label": "label_text" } }
            """#
        var subtypes = Self.subtypes
        subtypes["simple_paint.json"] =
            #"{ "name": "simple_paint", "properties": [{ "name": "red", "property_type": "int" }, { "name": "label", "property_type": "string", "nullable": true }] }"#
        let versions = try model([
            ("1.0", Self.plane(separate, history: ["1.0"]), subtypes), ("2.0", Self.plane(replaced, history: ["1.0", "2.0"]), subtypes),
        ]).schemas
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(
            Set(steps.flatMap(\.operations).map(\.description)) == [
                "rename column plane.label_text to paint_label", "rename column plane.red_value to paint_red",
            ])
        let (path, folder) = try storeAtFirstVersion(
            versions, rows: "INSERT INTO plane (id, tail, red_value, label_text) VALUES (1, 'A', 255, 'gloss'), (2, 'B', -1, NULL)")
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try rows(path, ["id", "paint_red", "paint_label"]) == [["1", "255", "gloss"], ["2", "-1", "NULL"]])
        try withDatabase(path) { (db: Database) throws in
            #expect(try db.columns(in: "plane").map(\.name) == ["id", "paint_label", "paint_red", "tail"])
        }
    }
}
