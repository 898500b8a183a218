import Foundation
import LucidGenCore
import LucidRuntime
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
    static func path() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-store-\(UUID().uuidString).sqlite").path }

    /// Creates a store at `version`, runs `seed`, migrates to the newest of `schemas` and returns `query`'s rows.
    static func migrate(_ schemas: [Schema], from version: String, seed: [String], query: String) throws -> [[String]] {
        let path = path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let created = try LucidStore.create(atPath: path, versions: schemas, version: try SchemaVersion(parsing: version))
        try created.write { db in for statement in seed { try db.execute(sql: statement) } }
        try created.close()
        let migrated = try LucidStore.open(atPath: path, versions: schemas)
        defer { try? migrated.close() }
        return try migrated.read { db in
            try Row.fetchAll(db, sql: query).map { row in row.databaseValues.map { $0.isNull ? "NULL" : String(describing: $0.storage.value!) } }
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
            [".entities/writer.json": Self.writer("writer", history: [("1.0", nil)]), ".entities/book.json": Self.book("book", target: "writer", history: [("1.0", nil)])],
            current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        // 2.0: writer → author.
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/writer.json"))
        try released.release("2.0", [
            ".entities/author.json": Self.writer("author", history: [("1.0", nil), ("2.0", "writer")]),
            ".entities/book.json": Self.book("book", target: "author", history: [("1.0", nil), ("2.0", nil)]),
        ])
        try released.release("2.0")  // twice: nothing refuses its own output
        // 3.0: author → creator, and book → volume (the owner of the to-many: its link table is renamed).
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/author.json"))
        try FileManager.default.removeItem(at: released.project.root.appendingPathComponent(".entities/book.json"))
        let result = try released.release("3.0", [
            ".entities/creator.json": Self.writer("creator", history: [("1.0", nil), ("2.0", "writer"), ("3.0", "author")]),
            ".entities/volume.json": Self.book("volume", target: "creator", history: [("1.0", nil), ("2.0", nil), ("3.0", "book")]),
        ])
        let schemas = result.model.schemas
        #expect(schemas.map { $0.tables.map(\.name).sorted() } == [
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
            #expect(try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: books) == [["10", "A", "1"], ["11", "B", "2"], ["12", "C", "NULL"]])
            #expect(try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: links) == [["10", "1"], ["10", "2"], ["11", "2"]])
            #expect(try StoreCheck.migrate(schemas, from: version, seed: versionSeed, query: "SELECT id, pen_name FROM creator ORDER BY id") == [["1", "Ann"], ["2", "Bo"]])
        }
        // Step by step, 1.0 → 2.0 → 3.0.
        let path = StoreCheck.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let created = try LucidStore.create(atPath: path, versions: schemas, version: SchemaVersion("1.0"))
        try created.write { db in for statement in seed { try db.execute(sql: statement) } }
        try created.close()
        try LucidStore.open(atPath: path, versions: Array(schemas.prefix(2))).close()
        let last = try LucidStore.open(atPath: path, versions: schemas)
        defer { try? last.close() }
        #expect(try last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM volume_editors") } == 3)
        #expect(try last.read { db in try Int.fetchOne(db, sql: "SELECT author FROM volume WHERE id = 11") } == 2)
    }
}

extension RelationshipLineageTests {
    /// Snapshots frozen by an earlier lucidgen spell a renamed target by its newer name; they still bind.
    @Test func snapshotsNamingTheTargetByItsNewerNameStillMatch() throws {
        let released = try ReleasedProject(
            [".entities/author.json": Self.writer("author", history: [("1.0", nil), ("2.0", "writer")]),
             ".entities/book.json": Self.book("book", target: "author", history: [("1.0", nil)])],
            current: "2.0")
        defer { released.remove() }
        try released.release("2.0")
        let frozen = try released.project.read(".entities/.schema/1.0.json")
        #expect(frozen.contains("\"to_one writer\""))
        try released.project.write(".entities/.schema/1.0.json", frozen.replacingOccurrences(of: " writer\"", with: " author\""))
        let result = try released.release("2.0")
        #expect(result.diagnostics.allSatisfy { $0.severity != .error })
        #expect(try released.project.read(".entities/.schema/1.0.json").contains("\"to_one author\""), "a released snapshot is never rewritten")
    }
}
