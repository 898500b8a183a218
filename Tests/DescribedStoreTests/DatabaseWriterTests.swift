import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// `LucidMigrator` on a connection the app already holds (issue #13, item 2): a `DatabasePool` is
/// migrated under a barrier, so readers before, during and after see a whole version; a
/// `DatabaseQueue` is migrated in place; refusals leave the file byte-identical.
@Suite struct DatabaseWriterTests {
    func versions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "note", "property_type": "string", "nullable": true, "added_at_version": "2.0" }] }
            """
        ])
    }

    /// A store at 1.0 with `rows` rows, in WAL mode.
    func store(at path: String, versions: [Schema], rows: Int) throws {
        let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try database.write { db in
            try db.execute(
                sql:
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO item (id, name) SELECT i, 'name ' || i FROM n"
            )
        }
        try database.close()
        let wal = try DatabaseQueue(path: path)
        _ = try wal.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        try wal.close()
    }

    /// What a reader saw: the version and, at 2.0, how many rows carry the stage's note.
    struct Seen: Equatable, Sendable {
        var version: String
        var rows: Int
        var noted: Int
    }

    static func read(_ db: Database) throws -> Seen {
        let version = try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?"
        let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? -1
        let noted = version == "2.0" ? try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE note = 'moved'") ?? -1 : 0
        return Seen(version: version, rows: rows, noted: noted)
    }

    @Test func aDatabasePoolIsMigratedUnderABarrierWithReadersBeforeDuringAndAfter() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try store(at: path, versions: versions, rows: 5_000)
        let pool = try DatabasePool(path: path)

        let events = Locked<[String]>([])
        let log: @Sendable (String) -> Void = { event in events.withLock { $0.append(event) } }

        // Before: a read in progress when the migration is asked for. The migration cannot start until
        // it has finished, so the reader sees 1.0 whole.
        let readerIn = DispatchSemaphore(value: 0)
        let releaseReader = DispatchSemaphore(value: 0)
        let before = Locked<Seen?>(nil)
        let beforeThread = Thread {
            let seen = try? pool.read { db -> Seen in
                let first = try Self.read(db)
                readerIn.signal()
                releaseReader.wait()
                // Still inside the same read: the snapshot is unchanged.
                let second = try Self.read(db)
                log("reader before finished")
                return first == second ? second : Seen(version: "changed under the reader", rows: -1, noted: -1)
            }
            before.withLock { $0 = seen }
        }
        beforeThread.start()
        readerIn.wait()

        // During: readers started from inside the migration (in the stage's hook) wait for it and see 2.0.
        let during = Locked<[Seen]>([])
        let duringDone = DispatchSemaphore(value: 0)
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "note every item",
                willMigrate: { _ in
                    log("migration started")
                    for _ in 0..<3 {
                        Thread {
                            let seen = (try? pool.read(Self.read)) ?? Seen(version: "failed", rows: -1, noted: -1)
                            during.withLock { $0.append(seen) }
                            duringDone.signal()
                        }.start()
                    }
                },
                didMigrate: { db in
                    try db.execute(sql: "UPDATE item SET note = 'moved'")
                    log("migration finished")
                })
        ]
        let migrator = LucidMigrator(versions: versions, options: options)
        let migrated = DispatchSemaphore(value: 0)
        let migration = Thread {
            defer { migrated.signal() }
            do {
                try migrator.migrate(pool)
                log("migrate returned")
            } catch {
                log("migrate failed: \(error)")
            }
        }
        migration.start()
        releaseReader.signal()
        for _ in 0..<3 { duringDone.wait() }
        // After.
        migrated.wait()
        let after = try pool.read(Self.read)

        let order = events.withLock { $0 }
        #expect(order.firstIndex(of: "reader before finished")! < order.firstIndex(of: "migration started")!, "\(order)")
        #expect(order.last == "migrate returned", "\(order)")
        #expect(before.withLock { $0 } == Seen(version: "1.0", rows: 5_000, noted: 0))
        #expect(during.withLock { $0 } == Array(repeating: Seen(version: "2.0", rows: 5_000, noted: 5_000), count: 3))
        #expect(after == Seen(version: "2.0", rows: 5_000, noted: 5_000))
        // The app's connection gets its foreign keys back.
        #expect(try pool.write { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == true)
        try pool.close()
    }

    @Test func aDatabaseQueueIsCreatedMigratedAndAdoptedInPlace() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // An empty database the app made: created at the newest version.
        let fresh = try DatabaseQueue(path: folder.path("fresh.sqlite"))
        try LucidMigrator(versions: versions).migrate(fresh)
        #expect(try fresh.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") } == "2.0")
        // An in-memory database too.
        let memory = try DatabaseQueue()
        try LucidMigrator(versions: versions).migrate(memory)
        #expect(try memory.read { db in try db.columns(in: "item").map(\.name) } == ["id", "name", "note"])
        // A store at 1.0: migrated; a second call does nothing.
        let path = folder.path("old.sqlite")
        try store(at: path, versions: versions, rows: 3)
        let queue = try DatabaseQueue(path: path)
        try LucidMigrator(versions: versions).migrate(queue)
        try LucidMigrator(versions: versions).migrate(queue)
        #expect(
            try queue.read { db in
                try String.fetchAll(
                    db, sql: "SELECT kind || ' ' || ifnull(from_version, '-') || ' ' || to_version FROM lucid_migration_log ORDER BY id")
            } == ["create - 1.0", "inferred 1.0 2.0"])
    }

    @Test func aNewerStoreIsRefusedByteIdenticalAndErasedOnlyWhenAsked() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("newer.sqlite")
        try LucidStore.open(atPath: path, versions: versions).database.close()
        let oldApp = Array(versions.prefix(1))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let queue = try DatabaseQueue(path: path)
        #expect {
            try LucidMigrator(versions: oldApp).migrate(queue)
        } throws: { error in
            guard case StoreError.storeIsNewer(let store, let newest) = error else { return false }
            return store == SchemaVersion("2.0") && newest == SchemaVersion("1.0")
        }
        try queue.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

        let again = try DatabaseQueue(path: path)
        var options = StoreOptions()
        options.newerStorePolicy = .eraseAndRecreate
        try LucidMigrator(versions: oldApp, options: options).migrate(again)
        #expect(try again.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") } == "1.0")
    }
}

/// A value shared between the test's threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
