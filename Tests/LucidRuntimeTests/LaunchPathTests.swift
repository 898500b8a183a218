import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Synchronization
import Testing

/// A registry that counts how often its versions are built: the launch path must not build them.
enum CountingRegistry: SchemaRegistry {
    static let builds = Mutex(0)
    static let v1 = Schema(
        version: SchemaVersion("1.0"),
        tables: [
            SchemaTable(
                name: "note",
                columns: [SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "text", type: .text, notNull: true)],
                primaryKey: ["id"])
        ])
    static let v2 = Schema(
        version: SchemaVersion("2.0"),
        tables: [
            SchemaTable(
                name: "note",
                columns: [
                    SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "text", type: .text, notNull: true),
                    SchemaColumn(name: "pinned", type: .integer, notNull: true, defaultSQL: "0"),
                ], primaryKey: ["id"])
        ])
    static var versions: [Schema] {
        builds.withLock { $0 += 1 }
        return [v1, v2]
    }
    static let checksums = [v1.checksum, v2.checksum]
    static let newestVersion = SchemaVersion("2.0")
    static var newestChecksum: String { v2.checksum }
}

/// A registry whose generated newest checksum disagrees with the runtime's DDL.
enum SkewedRegistry: SchemaRegistry {
    static var versions: [Schema] { [CountingRegistry.v1, CountingRegistry.v2] }
    static let checksums = [CountingRegistry.v1.checksum, "0000"]
    static let newestVersion = SchemaVersion("2.0")
    static let newestChecksum = "0000"
}

@Suite(.serialized) struct LaunchPathTests {
    @Test func anUpToDateStoreOpensWithoutBuildingAnyVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        try LucidStore.open(atPath: path, registry: CountingRegistry.self).database.close()
        try withDatabase(path) { try $0.execute(sql: "INSERT INTO note (id, text) VALUES (1, 'kept')") }

        CountingRegistry.builds.withLock { $0 = 0 }
        let opened = try LucidStore.open(atPath: path, registry: CountingRegistry.self)
        let (store, outcome) = (opened.database, opened.outcome)
        #expect(CountingRegistry.builds.withLock { $0 } == 0)
        #expect(outcome.start == .version(SchemaVersion("2.0"), adopted: false))
        #expect(outcome.steps.isEmpty && !outcome.created)
        #expect(try store.read { try String.fetchOne($0, sql: "SELECT text FROM note") } == "kept")
        try store.close()
    }

    @Test func anOlderStoreTakesTheFullPathAndMigrates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        try LucidStore.create(atPath: path, versions: [CountingRegistry.v1, CountingRegistry.v2], version: SchemaVersion("1.0")).close()
        CountingRegistry.builds.withLock { $0 = 0 }
        let opened = try LucidStore.open(atPath: path, registry: CountingRegistry.self)
        let (store, outcome) = (opened.database, opened.outcome)
        #expect(CountingRegistry.builds.withLock { $0 } > 0)
        #expect(outcome.steps.map(\.to) == [SchemaVersion("2.0")])
        #expect(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pragma_table_info('note') WHERE name = 'pinned'") } == 1)
        try store.close()
    }

    @Test func aDataMigrationNotYetRecordedTakesTheFullPath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        try LucidStore.open(atPath: path, registry: CountingRegistry.self).database.close()
        try withDatabase(path) { try $0.execute(sql: "INSERT INTO note (id, text) VALUES (1, 'a')") }
        // An app update adds a data migration at the version the store is already at: it runs once.
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "pin all") { db in
                try db.execute(sql: "UPDATE note SET pinned = 1")
            }
        ]
        try LucidStore.open(atPath: path, registry: CountingRegistry.self, options: options).database.close()
        #expect(try withDatabase(path) { try Int.fetchOne($0, sql: "SELECT pinned FROM note") } == 1)
        // Recorded now: the next launch takes the launch path (no version built) and runs nothing again.
        try withDatabase(path) { try $0.execute(sql: "UPDATE note SET pinned = 0") }
        CountingRegistry.builds.withLock { $0 = 0 }
        try LucidStore.open(atPath: path, registry: CountingRegistry.self, options: options).database.close()
        #expect(CountingRegistry.builds.withLock { $0 } == 0)
        #expect(try withDatabase(path) { try Int.fetchOne($0, sql: "SELECT pinned FROM note") } == 0)
    }

    @Test func aGeneratedChecksumTheRuntimeDisagreesWithIsRefusedOnTheFullPath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, registry: SkewedRegistry.self).database }
        guard case .registryMismatch(let version, let generated, let runtime)? = error else {
            Issue.record("expected a registry mismatch, got \(String(describing: error))")
            return
        }
        #expect(version == SchemaVersion("2.0") && generated == "0000" && runtime == CountingRegistry.v2.checksum)
        #expect(!FileManager.default.fileExists(atPath: path))
        // A store the runtime migrated never matches the skewed constant, so it is never opened on trust.
        try LucidStore.open(atPath: path, registry: CountingRegistry.self).database.close()
        let before = fileBytes(path)
        #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, registry: SkewedRegistry.self).database }
        #expect(fileBytes(path) == before)
    }

    /// Older versions are compared with a store's record through the registry's generated checksums (a
    /// migration computes only the newest, in the registry check), and the record a step writes carries the
    /// generated checksum of its target.
    @Test func olderVersionsAreComparedThroughTheirGeneratedChecksums() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        let versions = [CountingRegistry.v1, CountingRegistry.v2]
        try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0")).close()
        // A history whose generated 1.0 checksum is not the one the store recorded: that value is the one compared.
        let skewedOld = SchemaHistory(versions: versions, checksums: ["1111", CountingRegistry.v2.checksum])
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, history: skewedOld).database }
        guard case .checksumMismatch(let version, let stored, let expected)? = error else {
            Issue.record("expected a checksum mismatch, got \(String(describing: error))")
            return
        }
        #expect(version == SchemaVersion("1.0") && stored == CountingRegistry.v1.checksum && expected == "1111")
        // With the real generated checksums the store migrates, and its record is the generated 2.0 checksum.
        try LucidStore.open(atPath: path, history: SchemaHistory(registry: CountingRegistry.self)).database.close()
        #expect(
            try withDatabase(path) { try String.fetchOne($0, sql: "SELECT checksum FROM lucid_store") } == CountingRegistry.checksums[1])
        // A list of checksums that does not match the versions is ignored (computed instead).
        #expect(SchemaHistory(versions: versions, checksums: ["only one"]).checksums == nil)
        #expect(SchemaHistory(versions: versions).checksum(of: CountingRegistry.v1) == CountingRegistry.v1.checksum)
    }
}
