import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Synchronization
import Testing

@_spi(Generated) @testable import LucidTesting

/// A registry that counts how often its versions are built: an open that builds none took the launch
/// path (the record trusted on its schema cookie); one that builds them checked or migrated.
enum RecordCheckRegistry: SchemaRegistry {
    static let builds = Mutex(0)
    static let v1 = Schema(
        version: SchemaVersion("1.0"),
        tables: [
            SchemaTable(
                name: "item",
                columns: [SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "name", type: .text, notNull: true)],
                primaryKey: ["id"])
        ])
    static let v2 = Schema(
        version: SchemaVersion("2.0"),
        tables: [
            SchemaTable(
                name: "item",
                columns: [
                    SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "name", type: .text, notNull: true),
                    SchemaColumn(name: "count", type: .integer, notNull: true, defaultSQL: "0"),
                ], primaryKey: ["id"]),
            SchemaTable(
                name: "tag",
                columns: [
                    SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "label", type: .text, notNull: false),
                ], primaryKey: ["id"]),
        ])
    static var versions: [Schema] {
        builds.withLock { $0 += 1 }
        return [v1, v2]
    }
    static let checksums = [v1.checksum, v2.checksum]
    static let newestVersion = SchemaVersion("2.0")
    static var newestChecksum: String { v2.checksum }

    /// Opens `path` and says whether the open built the versions (took the full path).
    static func openTookFullPath(_ path: String, options: StoreOptions = StoreOptions()) throws -> Bool {
        builds.withLock { $0 = 0 }
        try LucidStore.open(atPath: path, registry: Self.self, options: options).database.close()
        return builds.withLock { $0 } > 0
    }
}

/// The version record is checked against the tables when SQLite's schema cookie says the schema changed
/// since it was written, and on every open of a file from outside (`VersionRecordCheck.always`, and the
/// CLI's `plan`, `status`, `migrate`); a forged record with its cookie untouched is believed only by the
/// default launch path, as the threat model says.
@Suite(.serialized) struct VersionRecordTests {
    static let versions = [RecordCheckRegistry.v1, RecordCheckRegistry.v2]

    /// A store at 1.0 with two rows, whose record is then forged to say 2.0 with 2.0's checksum by an
    /// `UPDATE` (a row change: the schema cookie stays what lucidgen recorded).
    static func forgedStore(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("forged.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a'), (2, 'b')")
            try db.execute(sql: "UPDATE lucid_store SET version = '2.0', checksum = ?", arguments: [RecordCheckRegistry.v2.checksum])
        }
        try created.close()
        return path
    }

    static func files(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    static func isContradiction(_ error: any Error, tablesMatch: SchemaVersion?) -> Bool {
        guard case StoreError.recordContradictsTables(_, let version, let differences, let match) = error else { return false }
        return version == SchemaVersion("2.0") && match == tablesMatch
            && differences.contains("table item: expected column count INTEGER NOT NULL DEFAULT 0, found none")
            && differences.contains { $0.hasPrefix("table tag:") }
    }

    @Test func aForgedRecordIsRefusedByInspectAndByTheOutsideFileSettingAndTheFileIsUnchanged() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.forgedStore(folder)
        let before = fileBytes(path)
        let filesBefore = try Self.files(folder)

        // `lucidgen plan` and `status` inspect: they check on every open.
        #expect { try LucidStore.inspect(atPath: path, versions: Self.versions) } throws: {
            Self.isContradiction($0, tablesMatch: SchemaVersion("1.0"))
        }
        var outside = StoreOptions()
        outside.versionRecordCheck = .always
        #expect { try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self, options: outside).database } throws: {
            Self.isContradiction($0, tablesMatch: SchemaVersion("1.0"))
        }
        // The app's own connection, under the same setting.
        let queue = try DatabaseQueue(path: path)
        #expect { try LucidMigrator(registry: RecordCheckRegistry.self, options: outside).migrate(queue) } throws: {
            Self.isContradiction($0, tablesMatch: SchemaVersion("1.0"))
        }
        try queue.close()
        #expect(fileBytes(path) == before)
        #expect(try Self.files(folder) == filesBefore)

        let message =
            "\(StoreError.recordContradictsTables(path: path, version: SchemaVersion("2.0"), differences: ["table tag: missing"], tablesMatch: SchemaVersion("1.0")))"
        #expect(message.contains("records version 2.0, but its tables are not 2.0's (they are 1.0's)"))
        #expect(message.contains("is recognised as 1.0 from its tables"))
    }

    @Test func theDefaultLaunchTrustsAMatchingCookieAsDocumented() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.forgedStore(folder)
        // The edit kept the cookie lucidgen recorded: the launch path believes the record (one query),
        // which is why a file from outside is opened with `.always`.
        #expect(try RecordCheckRegistry.openTookFullPath(path) == false)
    }

    @Test func aForgedOlderRecordOverNewerTablesIsRefusedUpFrontUnderAlways() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self).database.close()
        try withDatabase(path) { (db: Database) throws in
            try db.execute(sql: "UPDATE lucid_store SET version = '1.0', checksum = ?", arguments: [RecordCheckRegistry.v1.checksum])
        }
        let before = fileBytes(path)
        var outside = StoreOptions()
        outside.versionRecordCheck = .always
        #expect { try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self, options: outside).database } throws: { error in
            guard case StoreError.recordContradictsTables(_, let version, let differences, let match) = error else { return false }
            return version == SchemaVersion("1.0") && match == SchemaVersion("2.0")
                && differences.contains("table item: expected no column count, found count INTEGER NOT NULL DEFAULT 0")
        }
        #expect(fileBytes(path) == before)
    }

    /// An honest change of the schema (the app's DDL, `VACUUM`, a first `ANALYZE`) changes the cookie:
    /// one open checks the tables and records the new cookie, the next takes the launch path again.
    @Test(arguments: [
        "CREATE INDEX item_by_name ON item(name)",
        "VACUUM",
        "ANALYZE",
        "CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT)",
    ])
    func anHonestSchemaChangeCostsOneCheckThenTheLaunchPathAgain(_ change: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self).database.close()
        try withDatabase(path) { try $0.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')") }
        #expect(try RecordCheckRegistry.openTookFullPath(path) == false, "a row change keeps the launch path")

        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: change) }
        try queue.close()
        #expect(try RecordCheckRegistry.openTookFullPath(path) == true, "the schema changed: checked once")
        #expect(try RecordCheckRegistry.openTookFullPath(path) == false, "the new cookie recorded: the launch path again")
        try withDatabase(path) { (db: Database) throws in
            #expect(
                try Int64.fetchOne(db, sql: "SELECT schema_cookie FROM lucid_store")
                    == (try Int64.fetchOne(db, sql: "PRAGMA schema_version")))
            #expect(try String.fetchOne(db, sql: "SELECT name FROM item") == "a")
        }
    }

    @Test func aRecordWrittenBeforeTheCookieIsCheckedOnceThenGetsOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self).database.close()
        // An older runtime's ledger: no cookie column.
        try withDatabase(path) { try $0.execute(sql: "ALTER TABLE lucid_store DROP COLUMN schema_cookie") }
        #expect(try RecordCheckRegistry.openTookFullPath(path) == true)
        #expect(try RecordCheckRegistry.openTookFullPath(path) == false)
        let ledger = try withDatabase(path) { try StoreLedger.read($0) }
        #expect(ledger?.version == SchemaVersion("2.0"))
    }

    @Test func aStoreWithoutCookieWhoseTablesDriftedIsRefusedEvenByTheDefaultLaunch() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self).database.close()
        // A table of lucidgen's dropped behind its back: the cookie changes, the record is checked.
        try withDatabase(path) { try $0.execute(sql: "DROP TABLE tag") }
        let before = fileBytes(path)
        #expect { try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self).database } throws: { error in
            guard case StoreError.recordContradictsTables(_, _, let differences, let match) = error else { return false }
            return differences == ["table tag: expected, found none"] && match == nil
        }
        #expect(fileBytes(path) == before)
    }

    @Test func everyStepRecordsTheCookieItLeaves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.create(atPath: path, versions: Self.versions, version: SchemaVersion("1.0")).close()
        try withDatabase(path) { (db: Database) throws in
            #expect(
                try Int64.fetchOne(db, sql: "SELECT schema_cookie FROM lucid_store")
                    == (try Int64.fetchOne(db, sql: "PRAGMA schema_version")))
        }
        let opened = try LucidStore.open(atPath: path, registry: RecordCheckRegistry.self)
        let (store, outcome) = (opened.database, opened.outcome)
        #expect(outcome.steps.map(\.to) == [SchemaVersion("2.0")])
        try store.close()
        try withDatabase(path) { (db: Database) throws in
            #expect(
                try Int64.fetchOne(db, sql: "SELECT schema_cookie FROM lucid_store")
                    == (try Int64.fetchOne(db, sql: "PRAGMA schema_version")))
        }
        #expect(try RecordCheckRegistry.openTookFullPath(path) == false)
    }
}

/// What SQLite refuses leaves nothing behind: a store that cannot be created is not left as a
/// 0-byte file that the next open would take for an empty store.
@Suite struct FailedCreationTests {
    @Test(arguments: ["delete", "wal"])
    func aStoreThatCannotBeCreatedLeavesNoFile(_ journal: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("new.sqlite")
        let table = SchemaTable(
            name: "note",
            columns: [SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "body", type: .text, notNull: false)],
            primaryKey: ["id"], search: SchemaSearch(columns: ["body"], tokenizer: "bogus"))
        var options = StoreOptions()
        options.configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = \(journal)") }
        #expect(throws: StoreError.self) {
            try LucidStore.open(atPath: path, versions: [Schema(version: SchemaVersion("1.0"), tables: [table])], options: options).database
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
    }
}

/// A migrated row that its record cannot decode is named by its key in the generated tests' failure
///, not by its position in the table.
@Suite struct RecordCheckNamingTests {
    struct Dated: FetchableRecord, TableRecord, Decodable {
        static let databaseTableName = "dated"
        var id: Int64
        var at: Date
    }

    @Test func aRowThatDoesNotDecodeIsNamedByItsKey() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE dated (id INTEGER PRIMARY KEY, at TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO dated (id, at) VALUES (1, '2026-11-28'), (1007, 'not a date')")
        }
        let check = RecordCheck.records(Dated.self, entity: "Dated")
        #expect { try queue.read { try check.check($0) } } throws: { error in
            "\(error)".hasPrefix("row id=1007: ")
        }
    }
}
