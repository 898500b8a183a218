import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// A lucidgen store whose tables contradict its record (a development build's store, a column added or
/// dropped by hand): refused by default, brought back to the recorded version with
/// ``StoreOptions/acceptsInferableDrift`` when every difference is inferable, each repair in the outcome;
/// refused byte-identical otherwise.
@Suite struct StoreDriftTests {
    static let v1 = Schema(
        version: SchemaVersion("1.0"),
        tables: [
            SchemaTable(
                name: "note",
                columns: [
                    SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "title", type: .text, notNull: true),
                    SchemaColumn(name: "body", type: .text, notNull: false),
                    SchemaColumn(name: "pinned", type: .integer, notNull: true, defaultSQL: "0"),
                ], primaryKey: ["id"], indexes: [SchemaIndex(name: "note_title", columns: ["title"], unique: false)])
        ])
    static let v2 = Schema(
        version: SchemaVersion("2.0"),
        tables: [
            SchemaTable(
                name: "note",
                columns: [
                    SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "title", type: .text, notNull: true),
                    SchemaColumn(name: "body", type: .text, notNull: false),
                    SchemaColumn(name: "pinned", type: .integer, notNull: true, defaultSQL: "0"),
                    SchemaColumn(name: "color", type: .text, notNull: false),
                ], primaryKey: ["id"], indexes: [SchemaIndex(name: "note_title", columns: ["title"], unique: false)])
        ])
    static let versions = [v1, v2]

    /// A store at 1.0 with two notes, then `change` (which changes the schema cookie: the record is checked).
    static func store(_ change: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("notes.sqlite")
        let created = try LucidStore.create(atPath: path, versions: [v1], version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(sql: "INSERT INTO note (id, title, body, pinned) VALUES (1, 'a', 'first', 1), (2, 'b', NULL, 0)")
        }
        try created.close()
        try withDatabase(path) { db in try db.execute(sql: change) }
        return path
    }

    static let inferable: [(change: String, repairs: [String])] = [
        ("ALTER TABLE note DROP COLUMN body", ["added column note.body (NULL)"]),
        ("ALTER TABLE note DROP COLUMN pinned", ["added column note.pinned (its default 0)"]),
        ("ALTER TABLE note ADD COLUMN scratch TEXT", ["dropped column note.scratch, which 1.0 does not have (it held no value)"]),
        ("DROP INDEX note_title", ["created index note_title on note (title)"]),
        (
            "DROP INDEX note_title; ALTER TABLE note DROP COLUMN body",
            ["added column note.body (NULL)", "created index note_title on note (title)"]
        ),
    ]

    @Test(arguments: inferable.map(\.change))
    func inferableDriftIsRefusedByDefaultAndRepairedWhenTheAppSaysSo(change: String) throws {
        let repairs = Self.inferable.first { $0.change == change }!.repairs
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.store(change, in: folder)
        let before = fileBytes(path)
        #expect { try LucidStore.open(atPath: path, versions: Self.versions).database } throws: { error in
            guard case StoreError.recordContradictsTables = error else { return false }
            return true
        }
        #expect(fileBytes(path) == before)

        var options = StoreOptions()
        options.acceptsInferableDrift = true
        let opened = try LucidStore.open(atPath: path, versions: Self.versions, options: options)
        #expect(opened.outcome.drift == repairs, "\(opened.outcome.drift)")
        #expect(
            "\(opened.outcome)"
                == "brought the store's tables back to 1.0, the version it records (\(repairs.joined(separator: "; "))); migrated from 1.0 to 2.0 in 1 step: 1.0 → 2.0 (inferred)"
        )
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY id") == ["a", "b"])
            #expect(
                try Int.fetchAll(db, sql: "SELECT pinned FROM note ORDER BY id")
                    == (change.contains("DROP COLUMN pinned") ? [0, 0] : [1, 0]))
            #expect(
                try String?.fetchAll(db, sql: "SELECT body FROM note ORDER BY id")
                    == (change.contains("DROP COLUMN body") ? [nil, nil] : ["first", nil]))
        }
        try opened.database.close()
        // The tables are 2.0's: a check of every open finds nothing to refuse.
        var always = StoreOptions()
        always.versionRecordCheck = .always
        let again = try LucidStore.open(atPath: path, versions: Self.versions, options: always)
        #expect(again.outcome.steps.isEmpty && again.outcome.drift.isEmpty)
        try again.database.close()
    }

    /// Not inferable: a column that holds values the version does not have, a required column without a
    /// default, a column of another type: refused with the option too, byte-identical.
    @Test(arguments: [
        "ALTER TABLE note ADD COLUMN scratch TEXT; UPDATE note SET scratch = 'kept' WHERE id = 1",
        "ALTER TABLE note RENAME COLUMN title TO heading",
        "ALTER TABLE note DROP COLUMN body; ALTER TABLE note ADD COLUMN body BLOB",
    ])
    func driftThatIsNotInferableIsRefusedByteIdentical(change: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.store(change, in: folder)
        let before = fileBytes(path)
        var options = StoreOptions()
        options.acceptsInferableDrift = true
        #expect { try LucidStore.open(atPath: path, versions: Self.versions, options: options).database } throws: { error in
            guard case StoreError.recordContradictsTables(_, _, let differences, _) = error else { return false }
            return differences.contains { $0.hasPrefix("not inferable (StoreOptions.acceptsInferableDrift): ") }
        }
        #expect(fileBytes(path) == before)
    }
}

/// A store without lucidgen's record whose tables are nearest one version's (an app's own GRDB store made
/// by a development build, a column added by hand): refused by default, as a store matching no version is;
/// with ``StoreOptions/acceptsInferableDrift``, brought to that version when every difference is inferable,
/// then adopted and migrated, each repair in the outcome; a column holding values the version lacks, or two
/// versions equally near, still refused byte-identical.
@Suite struct AdoptedStoreDriftTests {
    typealias Drift = StoreDriftTests

    /// 1.0's tables made by the app (no record), two notes, then `change`.
    static func appStore(_ change: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("app.sqlite")
        try withDatabase(path) { db in
            for statement in Drift.v1.ddl { try db.execute(sql: statement) }
            try db.execute(sql: "INSERT INTO note (id, title, body, pinned) VALUES (1, 'a', 'first', 1), (2, 'b', NULL, 0)")
            try db.execute(sql: change)
        }
        return path
    }

    static var drifting: StoreOptions {
        var options = StoreOptions()
        options.acceptsInferableDrift = true
        return options
    }

    /// Inspecting with acceptsInferableDrift (`lucidgen plan --accept-drift`) reads the repairs the open makes,
    /// and the path after them, changing nothing; a GRDB writer the app opened (LucidMigrator) gets the same.
    @Test(arguments: Drift.inferable.map(\.change))
    func inspectingADriftedStoreReadsTheRepairsAndLucidMigratorMakesThem(change: String) throws {
        let repairs = Drift.inferable.first { $0.change == change }!.repairs
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.appStore(change, in: folder)
        let before = fileBytes(path)
        let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: Drift.versions), acceptsInferableDrift: true)
        #expect(status.drift == repairs, "\(status.drift)")
        #expect(status.start == .version(SchemaVersion("1.0"), adopted: true))
        #expect(status.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        #expect(fileBytes(path) == before)

        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let outcome = try LucidMigrator(versions: Drift.versions, options: Self.drifting).migrate(queue)
        #expect(outcome.drift == repairs && outcome.finalVersion == SchemaVersion("2.0"), "\(outcome)")
        #expect(try queue.read { db in try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY id") } == ["a", "b"])
    }

    @Test(arguments: Drift.inferable.map(\.change))
    func inferableDriftOfAStoreWithoutARecordIsRepairedAndAdoptedWhenTheAppSaysSo(change: String) throws {
        let repairs = Drift.inferable.first { $0.change == change }!.repairs
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.appStore(change, in: folder)
        let before = fileBytes(path)
        #expect { try LucidStore.open(atPath: path, versions: Drift.versions).database } throws: { error in
            guard case StoreError.unrecognizedSchema = error else { return false }
            return true
        }
        #expect(fileBytes(path) == before)

        let opened = try LucidStore.open(atPath: path, versions: Drift.versions, options: Self.drifting)
        #expect(opened.outcome.start == .version(SchemaVersion("1.0"), adopted: true))
        #expect(opened.outcome.drift == repairs, "\(opened.outcome.drift)")
        #expect(
            "\(opened.outcome)"
                == "brought the store's tables to 1.0, the nearest version (\(repairs.joined(separator: "; "))), and adopted it; migrated from 1.0 to 2.0 in 1 step: 1.0 → 2.0 (inferred)"
        )
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY id") == ["a", "b"])
            #expect(
                try String?.fetchAll(db, sql: "SELECT body FROM note ORDER BY id")
                    == (change.contains("DROP COLUMN body") ? [nil, nil] : ["first", nil]))
        }
        try opened.database.close()
        var always = StoreOptions()
        always.versionRecordCheck = .always
        let again = try LucidStore.open(atPath: path, versions: Drift.versions, options: always)
        #expect(
            again.outcome.steps.isEmpty && again.outcome.drift.isEmpty
                && again.outcome.start == .version(SchemaVersion("2.0"), adopted: false))
        try again.database.close()
    }

    @Test(arguments: [
        "ALTER TABLE note ADD COLUMN scratch TEXT; UPDATE note SET scratch = 'kept' WHERE id = 1",
        "DROP INDEX note_title; ALTER TABLE note DROP COLUMN title; ALTER TABLE note ADD COLUMN title INTEGER NOT NULL DEFAULT 0",
    ])
    func driftThatIsNotInferableIsRefusedByteIdentical(change: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.appStore(change, in: folder)
        let before = fileBytes(path)
        #expect { try LucidStore.open(atPath: path, versions: Drift.versions, options: Self.drifting).database } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return !differences.isEmpty
        }
        #expect(fileBytes(path) == before)
    }
}
