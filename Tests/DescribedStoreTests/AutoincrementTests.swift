import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// `AUTOINCREMENT`: described on an integer identifier, created as SQLite writes it,
/// checked when a store is recognised, and kept by every rebuild with its `sqlite_sequence` row, so that an id
/// whose row was deleted is never handed out again.
@Suite struct AutoincrementTests {
    static func item(_ properties: String, history: [String], autoincrement: Bool = true) -> String {
        """
        { "name": "item", "identifier": { "type": "int"\(autoincrement ? #", "autoincrement": true"# : "") },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [\(properties)] }
        """
    }

    static let required = #"{ "name": "title", "property_type": "string" }"#

    /// 1.0 with a required title, 2.0 with it optional: a rebuild of `item`.
    func versions(autoincrement: Bool = true) throws -> [Schema] {
        try IndexMigrationTests().releasesOf(
            "item",
            [
                ("1.0", Self.item(Self.required, history: ["1.0"], autoincrement: autoincrement)),
                (
                    "2.0",
                    Self.item(
                        #"{ "name": "title", "property_type": "string", "nullable": true }"#, history: ["1.0", "2.0"],
                        autoincrement: autoincrement)
                ),
            ])
    }

    @Test func theTableIsCreatedWithAutoincrement() throws {
        let versions = try versions()
        let table = try #require(versions[0].table(named: "item"))
        #expect(
            table.createTableStatement() == #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "title" TEXT NOT NULL)"#
        )
        // The flag is part of the table's JSON (what the generated registry holds) and survives it.
        #expect(SchemaTable(json: table.json(indent: "")) == table)
        // Without it, nothing changes: the DDL and the checksum of every other table are what they were.
        let plain = try #require(try self.versions(autoincrement: false)[0].table(named: "item"))
        #expect(plain.createTableStatement() == #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL, "title" TEXT NOT NULL)"#)
        #expect(!plain.json(indent: "").contains("autoincrement"))
    }

    @Test func aRebuildKeepsTheHighestIdSoADeletedIdIsNeverReused() throws {
        let versions = try versions()
        let (path, folder) = try storeAtFirstVersion(
            versions, rows: "INSERT INTO item (title) VALUES ('a'), ('b'), ('c'); DELETE FROM item WHERE id = 3")
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: versions)
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        let database = opened.database
        defer { try? database.close() }
        let (id, sql, sequence) = try database.write { db in
            try db.execute(sql: "INSERT INTO item (title) VALUES ('d')")
            return (
                db.lastInsertedRowID,
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'") ?? "",
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'item'")
            )
        }
        #expect(id == 4, "the deleted id 3 was handed out again")
        #expect(sql.contains("AUTOINCREMENT"), "\(sql)")
        #expect(sequence == 4)
        #expect(
            try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_sequence") } == 1,
            "one row per table, none left under the rebuild's temporary name")
    }

    /// A store recorded at 1.0 (as lucidgen adopts one) whose `item` table is `createItem` instead of 1.0's:
    /// opening it checks the tables against the record, and must refuse with `expected`, leaving the file as it was.
    func expectRefusal(createItem: String, _ expected: String) throws {
        let described = try versions(autoincrement: false)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("other.sqlite")
        let made = try LucidStore.create(atPath: path, versions: described, version: described[0].version)
        try made.write { db in
            try db.execute(sql: "DROP TABLE item")
            try db.execute(sql: createItem)
            try db.execute(sql: "INSERT INTO item (id, title) VALUES (1, 'a')")
        }
        try made.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var options = StoreOptions()
        options.versionRecordCheck = .always
        #expect {
            _ = try LucidStore.open(atPath: path, versions: described, options: options)
        } throws: { error in
            "\(error)".contains(expected)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// As GRDB's `autoIncrementedPrimaryKey` makes it, undescribed: refused, never adopted and then rebuilt without it.
    @Test func aStoreWhoseAutoincrementIsNotDescribedIsRefusedBeforeAnyChange() throws {
        try expectRefusal(
            createItem: #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "title" TEXT NOT NULL)"#,
            "table item: expected no AUTOINCREMENT, found it on its primary key")
    }

    /// A table WITHOUT ROWID is no version's table: every rebuild copies rows by rowid into a table of
    /// lucidgen's DDL, so such a store is refused when it is recognised, before any step, and left as it was.
    @Test func aTableLucidgenCannotRebuildIsRefusedBeforeAnyChange() throws {
        try expectRefusal(
            createItem: #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL, "title" TEXT NOT NULL) WITHOUT ROWID"#,
            "table item: it uses WITHOUT ROWID, which lucidgen's tables do not")
    }

    /// A STRICT table where the description says none is another table (its inserts refuse values of other
    /// types): refused when the store is recognised, with what to describe.
    @Test func aStrictTableTheDescriptionDoesNotSayIsRefused() throws {
        try expectRefusal(
            createItem: #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL, "title" TEXT NOT NULL) STRICT"#,
            #"table item: expected no STRICT, found it (describe it: "strict": true in the entity's description)"#)
    }

    /// A CHECK constraint or a generated column (GRDB's `check(_:)`, `generatedAs(_:)`) the description does not
    /// say: refused when the store is recognised, before any step (a rebuild would drop it), with what differs.
    @Test(arguments: [
        (
            #", "title" TEXT NOT NULL CHECK (length("title") > 0)"#,
            #"table item: expected column title TEXT NOT NULL, found title TEXT NOT NULL CHECK (length("title") > 0)"#
        ),
        (
            #", "title" TEXT NOT NULL, CONSTRAINT short CHECK (length(title) < 99)"#,
            #"table item: expected no CONSTRAINT "short" CHECK (length(title) < 99), found it (describe it: a "checks" item of the entity)"#
        ),
        (
            #", "title" TEXT NOT NULL, "upper" TEXT GENERATED ALWAYS AS (upper(title)) VIRTUAL"#,
            "table item: expected no column upper, found upper TEXT GENERATED ALWAYS AS (upper(title)) VIRTUAL"
        ),
        (
            #", "title" TEXT NOT NULL, "upper" TEXT AS (upper(title)) STORED"#,
            "table item: expected no column upper, found upper TEXT GENERATED ALWAYS AS (upper(title)) STORED"
        ),
    ]) func aConstraintTheDescriptionDoesNotSayIsRefusedBeforeAnyChange(_ columns: String, _ expected: String) throws {
        try expectRefusal(createItem: #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL\#(columns))"#, expected)
    }

    @Test func autoincrementOnATextIdentifierIsALocatedError() throws {
        let project = try TestProjectFolder(files: [
            ".entities/item.json":
                #"{ "name": "item", "identifier": { "type": "string", "autoincrement": true }, "version_history": [{ "version": "1.0" }], "properties": [] }"#
        ])
        defer { project.remove() }
        do {
            _ = try GeneratorPipeline(configPath: project.path(".lucid.yaml")).run(check: false)
            Issue.record("generate accepted autoincrement on a string identifier")
        } catch {
            let diagnostic = error.errors.first { $0.message.contains("autoincrement") }
            #expect(
                diagnostic?.message
                    == #""autoincrement" needs an "int" identifier (SQLite's INTEGER PRIMARY KEY AUTOINCREMENT); this one is "string""#,
                "\(error.errors)")
            #expect(diagnostic?.location?.line == 1)
            #expect(diagnostic?.path == "$.identifier.autoincrement")
        }
    }
}

/// A folder with a `.lucid.yaml` for module `App` and the given files.
struct TestProjectFolder {
    let folder: TemporaryFolder

    init(files: [String: String]) throws {
        folder = try TemporaryFolder()
        let config = "input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\n"
        try FileManager.default.createDirectory(atPath: folder.path(".entities"), withIntermediateDirectories: true)
        try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(toFile: folder.path(name), atomically: true, encoding: .utf8) }
    }

    func path(_ name: String) -> String { folder.path(name) }
    func remove() { folder.remove() }
}
