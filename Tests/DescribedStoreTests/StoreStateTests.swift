import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime
@_spi(Generated) @testable import LucidTesting

/// One decision of a store's state (issue #11, item 6): open, inspect, create, openTogether and the
/// CLI decide it with `StoreMigrator.decide`, so an adopted store is treated as a recorded one.
@Suite struct StoreStateTests {
    func versions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "note", "property_type": "string", "nullable": true, "added_at_version": "2.0" }] }
            """
        ])
    }

    /// A data migration for 1.0 added after the store was written at 1.0 (an app update).
    static let lateMigration = DataMigration(version: SchemaVersion("1.0"), label: "exclaim") { db in
        try db.execute(sql: "UPDATE item SET name = name || '!'")
    }

    /// A store at 1.0 with one row: recorded (lucidgen's record) or adoptable (the same tables, no record).
    func store(at path: String, recorded: Bool, versions: [Schema]) throws {
        let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try database.write { db in
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')")
            if !recorded {
                for table in try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid\\_%' ESCAPE '\\'")
                {
                    try db.execute(sql: "DROP TABLE \(quoteIdentifier(table))")
                }
            }
        }
        try database.close()
    }

    @Test(arguments: [true, false])
    func aLateDataMigrationRunsOnceOnARecordedAndOnAnAdoptedStore(recorded: Bool) throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try store(at: path, recorded: recorded, versions: versions)
        let status = try LucidStore.inspect(atPath: path, versions: versions)
        #expect(
            status.adopted == !recorded && status.needsMigration && status.start == .version(SchemaVersion("1.0"), adopted: !recorded)
                && status.version == SchemaVersion("1.0"))
        var options = StoreOptions()
        options.dataMigrations = [Self.lateMigration]
        for _ in 1...2 {
            let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
            let name = try database.read { db throws -> String? in try String.fetchOne(db, sql: "SELECT name FROM item") }
            #expect(name == "a!", "run exactly once (recorded: \(recorded))")
            try database.close()
        }
    }

    /// One ``StoreState`` for what a store is: what `inspect` says of a store is what opening it reports
    /// as its start, for a missing file, an empty file, an empty database, and a recorded or adoptable store.
    @Test func inspectAndOpenSayWhatAStoreIsWithOneType() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(FileManager.default.createFile(atPath: folder.path("empty-file.sqlite"), contents: Data()))
        try withDatabase(folder.path("empty-database.sqlite")) { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)") }
        try store(at: folder.path("recorded.sqlite"), recorded: true, versions: versions)
        try store(at: folder.path("adoptable.sqlite"), recorded: false, versions: versions)
        let expected: [(String, StoreState, needsMigration: Bool)] = [
            ("missing.sqlite", .newFile, false), ("empty-file.sqlite", .emptyFile, false), ("empty-database.sqlite", .emptyDatabase, false),
            ("recorded.sqlite", .version(SchemaVersion("1.0"), adopted: false), true),
            ("adoptable.sqlite", .version(SchemaVersion("1.0"), adopted: true), true),
        ]
        for (file, state, needsMigration) in expected {
            let status = try LucidStore.inspect(atPath: folder.path(file), versions: versions)
            #expect(status.start == state && status.needsMigration == needsMigration, "\(file)")
            let opened = try LucidStore.open(atPath: folder.path(file), versions: versions)
            #expect(opened.outcome.start == state, "\(file)")
            try opened.database.close()
            let reopened = try LucidStore.inspect(atPath: folder.path(file), versions: versions)
            #expect(reopened.start == .version(SchemaVersion("2.0"), adopted: false) && !reopened.needsMigration, "\(file)")
        }
    }

    /// `lucid_%` in a LIKE matches `lucidity` (`_` is a wildcard): a user table named so is the app's, not
    /// lucidgen's bookkeeping. The store is adopted beside it, and it stays.
    @Test func aTableNamedLucidityIsTheApps() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try store(at: path, recorded: false, versions: versions)
        try withDatabase(path) { db in try db.execute(sql: "CREATE TABLE lucidity (id INTEGER PRIMARY KEY)") }
        let status = try LucidStore.inspect(atPath: path, versions: versions)
        #expect(status.appObjects.map { "\($0.kind.rawValue) \($0.name)" } == ["table lucidity"])
        #expect(status.rowCounts.keys.sorted() == ["item"])
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try withDatabase(path) { db in try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name = 'lucidity'") }
                == "lucidity")
        // The migration tests' schema comparison sees it too, and leaves lucidgen's own tables out.
        let shape = try withDatabase(path) { db in try SchemaShape.read(db) }
        #expect(shape.keys.sorted() == ["item", "lucidity"])
        try LucidStore.create(atPath: folder.path("recorded.sqlite"), versions: versions, version: SchemaVersion("1.0")).close()
        let recordedShape = try withDatabase(folder.path("recorded.sqlite")) { db in try SchemaShape.read(db) }
        #expect(recordedShape.keys.sorted() == ["item"])
    }

    /// `create` refuses an existing file, naming what it is.
    @Test func createNamesTheStateOfAnExistingFile() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try store(at: path, recorded: false, versions: versions)
        #expect {
            try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("2.0")).close()
        } throws: { error in
            "\(error)".contains("the file already exists (a store at version 1.0, recognised from its tables)")
        }
    }

    /// A fixture without a version in its name is listed and reported, not a trap.
    @Test func aFixtureWithoutAVersionIsReported() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LucidStore.create(atPath: folder.path("Items_1_0.sqlite"), versions: versions, version: SchemaVersion("1.0")).close()
        try FixtureFiles.writeChecksum(forFileAt: folder.path("Items_1_0.sqlite"))
        try LucidStore.create(atPath: folder.path("Foo.sqlite"), versions: versions, version: SchemaVersion("1.0")).close()
        try FixtureFiles.writeChecksum(forFileAt: folder.path("Foo.sqlite"))
        let listed = try FixtureFiles.list(in: folder.url.path)
        #expect(listed.map { ($0 as NSString).lastPathComponent } == ["Foo.sqlite", "Items_1_0.sqlite"])
        let harness = MigrationTestHarness(versions: versions, options: StoreOptions())
        let failures = harness.checkFixture(at: folder.path("Foo.sqlite"))
        #expect(
            failures.map(\.description) == [
                "from fixture Foo.sqlite: its name has no version: fixtures are named <Module>_<version>.sqlite (e.g. App_1_0.sqlite), as `lucidgen fixtures` writes them"
            ])
        #expect(harness.checkFixture(at: folder.path("Items_1_0.sqlite")).isEmpty)
    }
}
