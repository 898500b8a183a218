import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// A project released version by version, as a user would: descriptions edited, `current_version` bumped,
/// `generate` run after each edit.
struct ReleasedProject {
    let project: TestProject

    init(_ files: [String: String], current: String) throws {
        project = try TestProject(files: files, config: Self.config(current))
    }

    static func config(_ version: String) -> String { TestProject.defaultConfig + "\ncurrent_version: \"\(version)\"\n" }

    /// Writes `files`, sets current_version and generates.
    @discardableResult
    func release(_ version: String, _ files: [String: String] = [:]) throws -> GeneratorPipeline.Result {
        for (path, contents) in files { try project.write(path, contents) }
        try project.write(".lucid.yaml", Self.config(version))
        return try project.generate()
    }

    func remove() { project.remove() }
}

/// Rows in a real SQLite store, migrated by the runtime.
enum StoreCheck {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-store-\(UUID().uuidString).sqlite").path
    }

    /// Creates a store at `version`, runs `seed`, migrates to the newest of `schemas` and returns `query`'s rows.
    static func migrate(_ schemas: [Schema], from version: String, seed: [String], query: String) throws -> [[String]] {
        let path = path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let created = try LucidStore.create(atPath: path, versions: schemas, version: try SchemaVersion(parsing: version))
        try created.write { db in for statement in seed { try db.execute(sql: statement) } }
        try created.close()
        let migrated = try LucidStore.open(atPath: path, versions: schemas).database
        defer { try? migrated.close() }
        return try migrated.read { db in
            try Row.fetchAll(db, sql: query).map { row in
                row.databaseValues.map { $0.isNull ? "NULL" : String(describing: $0.storage.value!) }
            }
        }
    }
}

/// A relationship follows its target's lineage: renaming the target entity keeps the relationship and its links.
@Suite struct RelationshipLineageTests {
    static func writer(_ name: String, history: [(String, String?)]) -> String {
        let items = history.map { version, previous in
            previous.map { #"{ "version": "\#(version)", "previous_name": "\#($0)" }"# } ?? #"{ "version": "\#(version)" }"#
        }
        return """
            { "name": "\(name)", "identifier": { "type": "int" }, "version_history": [\(items.joined(separator: ", "))],
              "properties": [{ "name": "pen_name", "property_type": "string" }] }
            """
    }

    static func book(_ name: String, target: String, history: [(String, String?)]) -> String {
        let items = history.map { version, previous in
            previous.map { #"{ "version": "\#(version)", "previous_name": "\#($0)" }"# } ?? #"{ "version": "\#(version)" }"#
        }
        return """
            { "name": "\(name)", "identifier": { "type": "int" }, "version_history": [\(items.joined(separator: ", "))],
              "properties": [
                { "name": "title", "property_type": "string" },
                { "name": "author", "property_type": { "entity_name": "\(target)", "association": "to_one" }, "nullable": true },
                { "name": "editors", "property_type": { "entity_name": "\(target)", "association": "to_many" } }
              ] }
            """
    }

    @Test func renamedTargetKeepsItsRelationshipsAcrossThreeReleases() throws {
        let released = try ReleasedProject(
            [
                ".entities/writer.json": Self.writer("writer", history: [("1.0", nil)]),
                ".entities/book.json": Self.book("book", target: "writer", history: [("1.0", nil)]),
            ],
            current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        // 2.0: writer → author.
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/writer.json"))
        try released.release(
            "2.0",
            [
                ".entities/author.json": Self.writer("author", history: [("1.0", nil), ("2.0", "writer")]),
                ".entities/book.json": Self.book("book", target: "author", history: [("1.0", nil), ("2.0", nil)]),
            ])
        try released.release("2.0") // twice: nothing refuses its own output
        // 3.0: author → creator, and book → volume (the owner of the to-many: its link table is renamed).
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/author.json"))
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/book.json"))
        let result = try released.release(
            "3.0",
            [
                ".entities/creator.json": Self.writer("creator", history: [("1.0", nil), ("2.0", "writer"), ("3.0", "author")]),
                ".entities/volume.json": Self.book("volume", target: "creator", history: [("1.0", nil), ("2.0", nil), ("3.0", "book")]),
            ])
        let schemas = result.model.schemas
        #expect(
            schemas.map { $0.tables.map(\.name).sorted() } == [
                ["book", "book_editors", "writer"], ["author", "book", "book_editors"], ["creator", "volume", "volume_editors"],
            ])
        #expect(schemas[2].table(named: "volume_editors")?.renamedFrom == "book_editors")
        let snapshot = try released.project.read(".entities/.schema/2.0.json")
        #expect(snapshot.contains("\"to_one author\"") && snapshot.contains("\"to_many author\""))

        let seed = [
            "INSERT INTO writer (id, pen_name) VALUES (1, 'Ann'), (2, 'Bo')",
            "INSERT INTO book (id, title, author) VALUES (10, 'A', 1), (11, 'B', 2), (12, 'C', NULL)",
            "INSERT INTO book_editors (source_id, target_id) VALUES (10, 1), (10, 2), (11, 2)",
        ]
        let books = "SELECT id, title, author FROM volume ORDER BY id"
        let links = "SELECT source_id, target_id FROM volume_editors ORDER BY source_id, target_id"
        for version in ["1.0", "2.0"] {
            var versionSeed = seed
            if version == "2.0" { versionSeed = seed.map { $0.replacingOccurrences(of: "INTO writer", with: "INTO author") } }
            #expect(
                try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: books) == [
                    ["10", "A", "1"], ["11", "B", "2"], ["12", "C", "NULL"],
                ])
            #expect(
                try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: links) == [
                    ["10", "1"], ["10", "2"], ["11", "2"],
                ])
            #expect(
                try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: "SELECT id, pen_name FROM creator ORDER BY id")
                    == [["1", "Ann"], ["2", "Bo"]])
        }
        // Step by step, 1.0 → 2.0 → 3.0.
        let path = StoreCheck.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let created = try LucidStore.create(atPath: path, versions: schemas, version: SchemaVersion("1.0"))
        try created.write { db in for statement in seed { try db.execute(sql: statement) } }
        try created.close()
        try LucidStore.open(atPath: path, versions: Array(schemas.prefix(2))).database.close()
        let last = try LucidStore.open(atPath: path, versions: schemas).database
        defer { try? last.close() }
        #expect(try last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM volume_editors") } == 3)
        #expect(try last.read { db in try Int.fetchOne(db, sql: "SELECT author FROM volume WHERE id = 11") } == 2)
    }
}

extension RelationshipLineageTests {
    /// Snapshots frozen by an earlier lucidgen spell a renamed target by its newer name; they still bind.
    @Test func snapshotsNamingTheTargetByItsNewerNameStillMatch() throws {
        let released = try ReleasedProject(
            [
                ".entities/author.json": Self.writer("author", history: [("1.0", nil), ("2.0", "writer")]),
                ".entities/book.json": Self.book("book", target: "author", history: [("1.0", nil)]),
            ],
            current: "2.0")
        defer { released.remove() }
        try released.release("2.0")
        let frozen = try released.project.read(".entities/.schema/1.0.json")
        #expect(frozen.contains("\"to_one writer\""))
        try released.project.write(".entities/.schema/1.0.json", frozen.replacingOccurrences(of: " writer\"", with: " author\""))
        let result = try released.release("2.0")
        #expect(result.diagnostics.allSatisfy { $0.severity != .error })
        #expect(
            try released.project.read(".entities/.schema/1.0.json").contains("\"to_one author\""), "a released snapshot is never rewritten")
    }
}

/// Editing a description is enough: a released snapshot says what a property was, so editing its type,
/// nullability, default, target or association and bumping `current_version` needs no `type_history`.
@Suite struct InferredTypeHistoryTests {
    static func weather(_ properties: String, history: [String]) -> String {
        """
        { "name": "weather", "identifier": { "type": "int" },
          "version_history": [\(history.map { #"{ "version": "\#($0)" }"# }.joined(separator: ", "))],
          "properties": [\(properties)] }
        """
    }

    /// Every file but the descriptions, by relative path.
    static func outputs(of project: TestProject) throws -> [String: String] {
        var result: [String: String] = [:]
        for file in project.allFiles()
        where !(file.hasPrefix(".entities/") && !file.hasPrefix(".entities/.schema/")) && file != ".lucid.yaml" {
            result[file] = try project.read(file)
        }
        return result
    }

    /// The suggested `type_history` is description JSON as the descriptions' writer writes it: an SQL default is
    /// `{ "sql": … }` (not the bare expression, which is no JSON), a string keeps its quote and slash, and pasting
    /// the suggestion gives the inferred output byte for byte.
    @Test(arguments: [
        (#"{ "sql": "CURRENT_TIMESTAMP" }"#, #"{ "sql": "CURRENT_TIMESTAMP" }"#),
        (#""a \"b\" c/d""#, #""a \"b\" c/d""#),
    ])
    func suggestedHistoryOfAnEditedDefaultIsPasteable(released written: String, suggested: String) throws {
        let property = { (defaultValue: String?) in
            #"{ "name": "seen", "property_type": "string""# + (defaultValue.map { #", "default_value": "# + $0 } ?? "") + " }"
        }
        let released = try ReleasedProject([".entities/weather.json": Self.weather(property(written), history: ["1.0"])], current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let result = try released.release("1.1", [".entities/weather.json": Self.weather(property(nil), history: ["1.0", "1.1"])])
        let note = try #require(result.diagnostics.first { $0.message.hasPrefix("inferred") })
        let snippet = #""type_history": [{ "until_version": "1.1", "default_value": "# + suggested + " }]"
        #expect(note.message.hasSuffix(snippet), "\(note.message)")

        let pasted = #"{ "name": "seen", "property_type": "string", "# + snippet + " }"
        let explicit = try ReleasedProject([".entities/weather.json": Self.weather(pasted, history: ["1.0", "1.1"])], current: "1.1")
        defer { explicit.remove() }
        let explicitResult = try explicit.release("1.1")
        #expect(explicitResult.model.schemas == result.model.schemas)
        #expect(try Self.outputs(of: explicit.project) == Self.outputs(of: released.project))
    }

    @Test func editedTypeIsInferredAndEqualsTheHandWrittenHistory() throws {
        let released = try ReleasedProject(
            [".entities/weather.json": Self.weather(#"{ "name": "temperature", "property_type": "string" }"#, history: ["1.0"])],
            current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let edited = Self.weather(#"{ "name": "temperature", "property_type": "double" }"#, history: ["1.0", "1.1"])
        let result = try released.release("1.1", [".entities/weather.json": edited])
        let notes = result.diagnostics.filter { $0.severity == .note }
        let note = try #require(notes.first { $0.message.hasPrefix("inferred") })
        #expect(
            note.message
                == #"inferred from the released snapshots: property 'temperature' of 'weather' changed type from string to double at 1.1; to say so in the description, add to the property "type_history": [{ "until_version": "1.1", "property_type": "string" }]"#
        )
        #expect(note.location?.file.hasSuffix(".entities/weather.json") == true)
        #expect(note.path == "$.properties[0]")
        #expect(result.model.entities[0].shapes.map { $0.properties.map(\.swiftType) } == [["Swift.String"], ["Swift.Double"]])
        try released.release("1.1") // and again

        // The same project with the history written by hand gives the same output, byte for byte.
        let handWritten = Self.weather(
            #"{ "name": "temperature", "property_type": "double", "type_history": [{ "until_version": "1.1", "property_type": "string" }] }"#,
            history: ["1.0", "1.1"])
        let explicit = try ReleasedProject([".entities/weather.json": handWritten], current: "1.1")
        defer { explicit.remove() }
        let explicitResult = try explicit.release("1.1")
        #expect(explicitResult.model.schemas == result.model.schemas)
        #expect(try Self.outputs(of: explicit.project) == Self.outputs(of: released.project))
        #expect(!explicitResult.diagnostics.contains { $0.message.hasPrefix("inferred") }, "a hand-written history needs no inference")

        // 1.2: double → int, with 1.1 released; nothing hand-written.
        let again = Self.weather(#"{ "name": "temperature", "property_type": "int" }"#, history: ["1.0", "1.1", "1.2"])
        let third = try released.release("1.2", [".entities/weather.json": again])
        #expect(
            third.model.entities[0].shapes.map { $0.properties.map(\.swiftType) } == [["Swift.String"], ["Swift.Double"], ["Swift.Int"]])
        let thirdNotes = third.diagnostics.map(\.message).filter { $0.hasPrefix("inferred") }
        let json =
            #""type_history": [{ "until_version": "1.1", "property_type": "string" }, { "until_version": "1.2", "property_type": "double" }]"#
        #expect(
            thirdNotes == [
                "inferred from the released snapshots: property 'temperature' of 'weather' changed type from string to double at 1.1; to say so in the description, add to the property "
                    + json,
                "inferred from the released snapshots: property 'temperature' of 'weather' changed type from double to int at 1.2; to say so in the description, add to the property "
                    + json,
            ])
        try released.release("1.2")
        // Committing the suggested JSON changes nothing.
        let committed = Self.weather(#"{ "name": "temperature", "property_type": "int", "# + json + #" }"#, history: ["1.0", "1.1", "1.2"])
        let before = try Self.outputs(of: released.project)
        let fourth = try released.release("1.2", [".entities/weather.json": committed])
        #expect(try Self.outputs(of: released.project) == before)
        #expect(!fourth.diagnostics.contains { $0.message.hasPrefix("inferred") })
    }

    @Test func nullabilityDefaultTargetAndAssociationAreInferred() throws {
        let pilot =
            #"{ "name": "pilot", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#
        let crew =
            #"{ "name": "crew", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#
        let before = #"""
            { "name": "note", "property_type": "string", "default_value": "none" },
            { "name": "gusts", "property_type": "int", "nullable": true },
            { "name": "observer", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true },
            { "name": "reviewers", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true }
            """#
        let after = #"""
            { "name": "note", "property_type": "string", "default_value": "n/a" },
            { "name": "gusts", "property_type": "int", "default_value": 0 },
            { "name": "observer", "property_type": { "entity_name": "crew", "association": "to_one" }, "nullable": true },
            { "name": "reviewers", "property_type": { "entity_name": "pilot", "association": "to_many" } }
            """#
        let released = try ReleasedProject(
            [".entities/pilot.json": pilot, ".entities/crew.json": crew, ".entities/weather.json": Self.weather(before, history: ["1.0"])],
            current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let result = try released.release("2.0", [".entities/weather.json": Self.weather(after, history: ["1.0", "2.0"])])
        let notes = result.diagnostics.map(\.message).filter { $0.hasPrefix("inferred") }
        #expect(
            notes == [
                #"inferred from the released snapshots: property 'note' of 'weather' changed default from 'none' to 'n/a' at 2.0; to say so in the description, add to the property "type_history": [{ "until_version": "2.0", "default_value": "none" }]"#,
                #"inferred from the released snapshots: property 'gusts' of 'weather' changed from nullable to required and default from none to 0 at 2.0; to say so in the description, add to the property "type_history": [{ "until_version": "2.0", "nullable": true, "default_value": null }]"#,
                #"inferred from the released snapshots: property 'observer' of 'weather' changed type from to_one pilot to to_one crew at 2.0; to say so in the description, add to the property "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_one" } }]"#,
                #"inferred from the released snapshots: property 'reviewers' of 'weather' changed type from to_one pilot to to_many pilot and from nullable to required at 2.0; to say so in the description, add to the property "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true }]"#,
            ])
        #expect(result.model.schemas[1].table(named: "weather_reviewers")?.convertedFromColumn == "reviewers")
        let withHistory = Self.weather(
            #"""
            { "name": "note", "property_type": "string", "default_value": "n/a", "type_history": [{ "until_version": "2.0", "default_value": "none" }] },
            { "name": "gusts", "property_type": "int", "default_value": 0, "type_history": [{ "until_version": "2.0", "nullable": true, "default_value": null }] },
            { "name": "observer", "property_type": { "entity_name": "crew", "association": "to_one" }, "nullable": true, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_one" } }] },
            { "name": "reviewers", "property_type": { "entity_name": "pilot", "association": "to_many" }, "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "pilot", "association": "to_one" }, "nullable": true }] }
            """#, history: ["1.0", "2.0"])
        let explicit = try ReleasedProject(
            [".entities/pilot.json": pilot, ".entities/crew.json": crew, ".entities/weather.json": withHistory], current: "2.0")
        defer { explicit.remove() }
        let explicitResult = try explicit.release("2.0")
        #expect(explicitResult.model.schemas == result.model.schemas)
        #expect(try Self.outputs(of: explicit.project) == Self.outputs(of: released.project))

        // The store's rows survive: the link of the to-one becomes a link row.
        let rows = try StoreCheck.migrate(
            result.model.schemas, from: "1.0",
            seed: [
                "INSERT INTO pilot (id, name) VALUES (1, 'Ann')", "INSERT INTO crew (id, name) VALUES (1, 'Cy')",
                "INSERT INTO weather (id, note, gusts, observer, reviewers) VALUES (5, 'x', 12, 1, 1)",
            ],
            query: "SELECT w.id, w.note, w.gusts, w.observer, r.target_id FROM weather w JOIN weather_reviewers r ON r.source_id = w.id")
        #expect(rows == [["5", "x", "12", "1", "1"]])
    }

    @Test func anEditWithoutAVersionToLandAtShowsTheJSON() throws {
        let released = try ReleasedProject(
            [".entities/weather.json": Self.weather(#"{ "name": "temperature", "property_type": "string" }"#, history: ["1.0"])],
            current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        try released.project.write(
            ".entities/weather.json", Self.weather(#"{ "name": "temperature", "property_type": "double" }"#, history: ["1.0"]))
        try released.project.write(".lucid.yaml", ReleasedProject.config("1.1"))
        let error = try #require(try released.project.errors().first)
        #expect(
            error.message
                == #"property 'temperature' of 'weather' was string, required, default none in released version 1.0 and is now double, required, default none, but 'weather' has no version_history item after 1.0 to change it at; add { "version": "1.1" } to its version_history (the change is then inferred, as if you wrote "type_history": [{ "until_version": "1.1", "property_type": "string" }])"#
        )
        #expect(error.path == "$.properties[0]")
    }

    @Test func inconsistentReleasedSnapshotsShowTheJSON() throws {
        // weather changes only at 1.0 and 2.0; a second entity adds 1.5. Snapshots 1.0 and 1.5 must agree.
        let other =
            #"{ "name": "other", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.5" }], "properties": [{ "name": "x", "property_type": "date" }] }"#
        let released = try ReleasedProject(
            [
                ".entities/other.json": other,
                ".entities/weather.json": Self.weather(#"{ "name": "temperature", "property_type": "string" }"#, history: ["1.0", "2.0"]),
            ], current: "2.0")
        defer { released.remove() }
        try released.release("2.0")
        // 1.5's file holds what changed since 1.0 (other's entry): an edit gives it weather's entry, with another type.
        var file = try JSONDecoder().decode(SnapshotFile.self, from: Data(try released.project.read(".entities/.schema/1.5.json").utf8))
        var weather = try #require(
            try JSONDecoder().decode(SnapshotFile.self, from: Data(try released.project.read(".entities/.schema/1.0.json").utf8))
                .entities.first { $0.name == "weather" })
        #expect(!file.entities.contains { $0.name == "weather" }, "weather did not change at 1.5")
        weather.properties = weather.properties.map { property in
            var property = property
            if property.name == "temperature" { property.type = "int" }
            return property
        }
        file.entities = (file.entities + [weather]).sorted { $0.name < $1.name }
        try released.project.write(".entities/.schema/1.5.json", file.encoded())
        try released.project.write(
            ".entities/weather.json", Self.weather(#"{ "name": "temperature", "property_type": "double" }"#, history: ["1.0", "2.0"]))
        let error = try #require(try released.project.errors().first)
        #expect(
            error.message
                == #"released snapshots 1.0 and 1.5 disagree about property 'temperature' of 'weather' (string, required, default none and int, required, default none), though 'weather' did not change between them, so what it was before 2.0 is ambiguous; restore the snapshots from version control, or write the property's type_history by hand: "type_history": [{ "until_version": "2.0", "property_type": "string" }] or "type_history": [{ "until_version": "2.0", "property_type": "int" }]"#
        )
    }
}

/// One version has one snapshot, whatever its spelling: the existing snapshot's spelling is canonical.
@Suite struct VersionSpellingTests {
    static func note(history: [String]) -> String {
        """
        { "name": "note", "version_history": [\(history.map { #"{ "version": "\#($0)" }"# }.joined(separator: ", "))],
          "properties": [{ "name": "title", "property_type": "string" }] }
        """
    }

    /// Generates twice (the second run must accept what the first wrote and change nothing).
    func generateTwice(_ released: ReleasedProject, current: String, history: [String]) throws -> GeneratorPipeline.Result {
        let first = try released.release(current, [".entities/note.json": Self.note(history: history)])
        let second = try released.release(current)
        #expect(second.report.isUpToDate, "the second run changes nothing (current \(current), history \(history))")
        return first
    }

    func snapshots(_ released: ReleasedProject) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: released.project.root.appendingPathComponent(".entities/.schema").path).sorted()
    }

    @Test func respellingKeepsTheSnapshotsSpelling() throws {
        let released = try ReleasedProject([".entities/note.json": Self.note(history: ["1.0"])], current: "1.0")
        defer { released.remove() }
        _ = try generateTwice(released, current: "1.0", history: ["1.0"])
        for (current, history) in [("1.0.0", ["1.0"]), ("1.0.0", ["1.0.0"]), ("1.0", ["1.0.0"]), ("1.0", ["1.0"])] {
            let result = try generateTwice(released, current: current, history: history)
            #expect(try snapshots(released) == ["1.0.json"])
            #expect(result.model.entities[0].shapes.map(\.typeName) == ["Note_1_0"])
            #expect(result.model.currentVersion.string == "1.0")
        }
        // The other direction: a store first spelled 1.0.0 stays 1.0.0.
        let other = try ReleasedProject([".entities/note.json": Self.note(history: ["1.0.0"])], current: "1.0.0")
        defer { other.remove() }
        _ = try generateTwice(other, current: "1.0.0", history: ["1.0.0"])
        for (current, history) in [("1.0", ["1.0.0"]), ("1.0", ["1.0"]), ("1.0.0", ["1.0"])] {
            let result = try generateTwice(other, current: current, history: history)
            #expect(try snapshots(other) == ["1.0.0.json"])
            #expect(result.model.entities[0].shapes.map(\.typeName) == ["Note_1_0_0"])
            let notes = result.diagnostics.filter { $0.message.hasPrefix("version 1.0 is version 1.0.0") }
            #expect(notes.count == 1)
        }
    }

    @Test func respelledReleasedVersionsKeepTheirOrderAndNames() throws {
        let released = try ReleasedProject([".entities/note.json": Self.note(history: ["1.9", "1.10"])], current: "1.10")
        defer { released.remove() }
        _ = try generateTwice(released, current: "1.10", history: ["1.9", "1.10"])
        for (current, history) in [("1.10.0", ["1.9.0", "1.10.0"]), ("1.10", ["1.9", "1.10.0"]), ("1.11", ["1.9.0", "1.10", "1.11"])] {
            let result = try generateTwice(released, current: current, history: history)
            #expect(result.model.versions.map(\.string) == ["1.9", "1.10"] + (current == "1.11" ? ["1.11"] : []))
            #expect(result.model.entities[0].shapes.map(\.typeName).prefix(2) == ["Note_1_9", "Note_1_10"])
            #expect(try Set(snapshots(released)) == Set(result.model.versions.map { "\($0.string).json" }))
        }
    }
}
