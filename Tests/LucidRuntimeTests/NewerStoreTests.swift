import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

// Two releases of one app, written by hand, sharing one store file.

/// The tables of both releases.
enum Logbook {
    static func pilot(_ extra: [SchemaColumn] = [], name: SchemaColumn = SchemaColumn(name: "name", type: .text, notNull: true))
        -> SchemaTable
    {
        SchemaTable(name: "pilot", columns: [SchemaColumn(name: "id", type: .integer, notNull: true), name] + extra, primaryKey: ["id"])
    }

    static let flight = SchemaTable(
        name: "flight",
        columns: [
            SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "pilot_id", type: .integer, notNull: true),
            SchemaColumn(name: "note", type: .text, notNull: false),
        ],
        primaryKey: ["id"],
        foreignKeys: [SchemaForeignKey(columns: ["pilot_id"], table: "pilot", tableColumns: ["id"], onDelete: .cascade)],
        indexes: [SchemaIndex(name: "flight_pilot_id_index", columns: ["pilot_id"])])

    /// New at 1.1: a table whose rows belong to a pilot (deleted with it).
    static let badge = SchemaTable(
        name: "badge",
        columns: [
            SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "pilot_id", type: .integer, notNull: true),
            SchemaColumn(name: "title", type: .text, notNull: true),
        ],
        primaryKey: ["id"],
        foreignKeys: [SchemaForeignKey(columns: ["pilot_id"], table: "pilot", tableColumns: ["id"], onDelete: .cascade)],
        indexes: [SchemaIndex(name: "badge_pilot_id_index", columns: ["pilot_id"])])

    /// 1.1's new pilot columns: an optional one and one with a default.
    static let nickname = SchemaColumn(name: "nickname", type: .text, notNull: false)
    static let rank = SchemaColumn(name: "rank", type: .integer, notNull: true, defaultSQL: "1")

    static let v1_0 = Schema(version: SchemaVersion("1.0"), tables: [pilot(), flight])
    /// Additive: a new table, an optional column, a defaulted column.
    static let v1_1 = Schema(version: SchemaVersion("1.1"), tables: [pilot([nickname, rank]), flight, badge])
    /// Not additive: `pilot.name` renamed.
    static let v1_1Renamed = Schema(
        version: SchemaVersion("1.1"),
        tables: [
            pilot([nickname, rank], name: SchemaColumn(name: "call_sign", type: .text, notNull: true, renamedFrom: "name")), flight, badge,
        ])
    /// Not additive: a required column without a default.
    static let v1_1Required = Schema(
        version: SchemaVersion("1.1"), tables: [pilot([nickname, SchemaColumn(name: "license", type: .text, notNull: true)]), flight])
}

/// App 1.0: knows version 1.0 only.
enum LogbookApp1_0: SchemaRegistry {
    static let versions = [Logbook.v1_0]
    static let checksums = versions.map(\.checksum)
    static let newestVersion = SchemaVersion("1.0")
    static let newestChecksum = Logbook.v1_0.checksum
}

/// App 1.1: versions 1.0 and 1.1 (additive).
enum LogbookApp1_1: SchemaRegistry {
    static let versions = [Logbook.v1_0, Logbook.v1_1]
    static let checksums = versions.map(\.checksum)
    static let newestVersion = SchemaVersion("1.1")
    static let newestChecksum = Logbook.v1_1.checksum
}

/// App 1.1 with the additive schema, but a stage runs the app's code from 1.0 to 1.1.
enum LogbookApp1_1WithStage: SchemaRegistry {
    static let versions = [Logbook.v1_0, Logbook.v1_1]
    static let checksums = versions.map(\.checksum)
    static let stages = [
        ExplicitStage(from: SchemaVersion("1.0"), to: SchemaVersion("1.1"), label: "name the pilots", transformedTables: [])
    ]
    static let newestVersion = SchemaVersion("1.1")
    static let newestChecksum = Logbook.v1_1.checksum
}

/// A pilot as app 1.0's code knows it: a GRDB record of the columns 1.0 has.
struct Pilot1_0: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pilot"
    var id: Int64
    var name: String
}

@Suite struct NewerStoreTests {
    static func olderAppOptions() -> StoreOptions {
        var options = StoreOptions()
        options.newerStorePolicy = .openIfAdditive
        return options
    }

    /// 1.0 creates the store; 1.1 migrates it and writes values in its new columns and table.
    static func storeMigratedBy1_1(_ path: String) throws {
        let old = try LucidStore.open(atPath: path, registry: LogbookApp1_0.self).database
        try old.write { db in
            for (id, name) in [(1, "Ann"), (2, "Bo"), (3, "Cy"), (5, "Eve")] { try Pilot1_0(id: Int64(id), name: name).insert(db) }
            try db.execute(sql: "INSERT INTO flight (id, pilot_id, note) VALUES (10, 1, 'first'), (11, 2, 'second'), (12, 3, 'third')")
        }
        try old.close()
        let opened = try LucidStore.open(atPath: path, registry: LogbookApp1_1.self)
        let (new, outcome) = (opened.database, opened.outcome)
        #expect(outcome.steps.map(\.to) == [SchemaVersion("1.1")])
        try new.write { db in
            try db.execute(sql: "UPDATE pilot SET nickname = 'Ace', rank = 5 WHERE id = 1")
            try db.execute(sql: "UPDATE pilot SET nickname = 'Bee', rank = 3 WHERE id = 2")
            try db.execute(sql: "UPDATE pilot SET nickname = 'Cee', rank = 4 WHERE id = 3")
            try db.execute(sql: "UPDATE pilot SET nickname = 'Vee', rank = 9 WHERE id = 5")
            try db.execute(
                sql:
                    "INSERT INTO badge (id, pilot_id, title) VALUES (100, 1, 'Wings'), (101, 2, 'Night'), (102, 3, 'Glider'), (103, 5, 'Aerobatics')"
            )
        }
        try new.close()
    }

    @Test func theStoreRecordsCompatibilityWithEveryVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        let ledger = try #require(try LucidStore.ledger(atPath: path))
        #expect(
            ledger.compatibility == [
                StoreLedger.CompatibilityRecord(
                    version: SchemaVersion("1.0"), checksum: Logbook.v1_0.checksum, firstIncompatibleChange: nil, firstIncompatibleAt: nil),
                StoreLedger.CompatibilityRecord(
                    version: SchemaVersion("1.1"), checksum: Logbook.v1_1.checksum, firstIncompatibleChange: nil, firstIncompatibleAt: nil),
            ])
        #expect(ledger.compatibility(of: SchemaVersion("1.0"))?.isAdditive == true)
    }

    /// The round trip: 1.1 writes, 1.0 reads, inserts, updates, replaces and deletes under the policy,
    /// 1.1 reopens on its launch path and finds every value as the documented rules say.
    @Test func anOlderAppKeepsWorkingOnANewerAdditiveStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        let ledgerBefore = try #require(try LucidStore.ledger(atPath: path))

        let opened = try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: Self.olderAppOptions())

        let (old, outcome) = (opened.database, opened.outcome)
        #expect(outcome.openedNewerAdditiveStore && outcome.olderAppVersion == SchemaVersion("1.0"))
        #expect(outcome.finalVersion == SchemaVersion("1.1") && outcome.start == .version(SchemaVersion("1.1"), adopted: false))
        #expect(!outcome.changedTheStore && !outcome.openedReadOnly)
        #expect(outcome.description.contains("newer than this app's 1.0, read-write and unmigrated"), "\(outcome)")
        try old.write { db in
            // Reads, with the columns it knows.
            #expect(try Pilot1_0.order(Column("id")).fetchAll(db).map(\.name) == ["Ann", "Bo", "Cy", "Eve"])
            // Inserts: the newer columns take NULL or their default.
            try Pilot1_0(id: 4, name: "Di").insert(db)
            // Updates: GRDB's UPDATE sets the columns it knows only.
            try Pilot1_0(id: 2, name: "Bea").update(db)
            // Replaces: a delete and a reinsert.
            try Pilot1_0(id: 3, name: "Cyd").insert(db, onConflict: .replace)
            // Deletes: cascade into the known flight table and the newer badge table.
            _ = try Pilot1_0.deleteOne(db, key: 1)
            try db.execute(sql: "INSERT INTO flight (id, pilot_id, note) VALUES (13, 4, 'by 1.0')")
        }
        try old.close()
        let ledgerAfter = try #require(try LucidStore.ledger(atPath: path))
        #expect(ledgerAfter == ledgerBefore, "no version record, step or compatibility change")

        let reopenedStore = try LucidStore.open(atPath: path, registry: LogbookApp1_1.self)

        let (new, reopened) = (reopenedStore.database, reopenedStore.outcome)
        #expect(reopened.start == .version(SchemaVersion("1.1"), adopted: false) && reopened.steps.isEmpty && !reopened.changedTheStore)
        try new.read { db in
            let pilots = try Row.fetchAll(db, sql: "SELECT id, name, nickname, rank FROM pilot ORDER BY id").map { row in
                "\(row["id"] as Int) \(row["name"] as String) \((row["nickname"] as String?) ?? "NULL") \(row["rank"] as Int)"
            }
            #expect(
                pilots == [
                    "2 Bea Bee 3", // updated by 1.0: its newer columns kept
                    "3 Cyd NULL 1", // replaced by 1.0: reset to NULL and the default
                    "4 Di NULL 1", // inserted by 1.0: NULL and the default
                    "5 Eve Vee 9", // untouched: every value
                ])
            // Pilot 1's flights and badge went with it (ON DELETE CASCADE, known and newer tables alike).
            // The replace deleted pilot 3 before reinserting it: with foreign keys on, SQLite cascades that
            // delete too, into the known flight table and the newer badge table alike.
            #expect(try String.fetchAll(db, sql: "SELECT note FROM flight ORDER BY id") == ["second", "by 1.0"])
            #expect(try String.fetchAll(db, sql: "SELECT title FROM badge ORDER BY id") == ["Night", "Aerobatics"])
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "1.1")
        }
        try new.close()
    }

    @Test func throughLucidMigratorOnAPool() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        let pool = try DatabasePool(path: path)
        let outcome = try LucidMigrator(registry: LogbookApp1_0.self, options: Self.olderAppOptions()).migrate(pool)
        #expect(outcome.openedNewerAdditiveStore && outcome.finalVersion == SchemaVersion("1.1"))
        try pool.write { db in try Pilot1_0(id: 6, name: "Fay").insert(db) }
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT rank FROM pilot WHERE id = 6") } == 1)
        try pool.close()
        // The default policy refuses the same store through the migrator.
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        #expect(throws: StoreError.self) { try LucidMigrator(registry: LogbookApp1_0.self).migrate(queue) }
    }

    @Test func theDefaultPolicyStillRefusesANewerAdditiveStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        let before = try folder.files()
        #expect {
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self).database
        } throws: { error in
            guard case StoreError.storeIsNewer(let store, let newest) = error else { return false }
            return store == SchemaVersion("1.1") && newest == SchemaVersion("1.0")
        }
        #expect(try folder.files() == before)
    }

    enum NonAdditive: String, CaseIterable {
        case renamedColumn, requiredColumn, stage, dataMigration, lateDataMigration
    }

    /// A store at a non-additive 1.1 (made as each case says) and the change 1.0 must be told about.
    static func nonAdditiveStore(_ kind: NonAdditive, _ path: String) throws -> String {
        switch kind {
        case .renamedColumn:
            try LucidStore.open(atPath: path, versions: [Logbook.v1_0, Logbook.v1_1Renamed]).database.close()
            return "column pilot.name renamed to call_sign"
        case .requiredColumn:
            try LucidStore.open(atPath: path, versions: [Logbook.v1_0, Logbook.v1_1Required]).database.close()
            return "required column pilot.license added without a default: an older app's inserts would fail"
        case .stage:
            // 1.0 creates it, then 1.1 migrates through its stage: the record is updated by the step.
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self).database.close()
            var options = StoreOptions()
            options.stages = [
                MigrationStage(from: SchemaVersion("1.0"), to: SchemaVersion("1.1"), label: "name the pilots", didMigrate: { _ in })
            ]
            try LucidStore.open(atPath: path, registry: LogbookApp1_1WithStage.self, options: options).database.close()
            return "the step runs the app's code (name the pilots)"
        case .dataMigration:
            var options = StoreOptions()
            options.dataMigrations = [
                DataMigration(version: SchemaVersion("1.1"), label: "rank everyone") { db in
                    try db.execute(sql: "UPDATE pilot SET rank = 2")
                }
            ]
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self).database.close()
            try LucidStore.open(atPath: path, registry: LogbookApp1_1.self, options: options).database.close()
            return "a data migration runs at 1.1 (rank everyone)"
        case .lateDataMigration:
            // 1.1 migrated additively (1.0 could open it), then an update of 1.1 adds a data migration at 1.1:
            // it runs once on the next open, and from then on 1.0 must be refused.
            try storeMigratedBy1_1(path)
            #expect(try LucidStore.ledger(atPath: path)?.compatibility(of: SchemaVersion("1.0"))?.isAdditive == true)
            var options = StoreOptions()
            options.dataMigrations = [
                DataMigration(version: SchemaVersion("1.1"), label: "rank everyone") { db in
                    try db.execute(sql: "UPDATE pilot SET rank = 2")
                }
            ]
            try LucidStore.open(atPath: path, registry: LogbookApp1_1.self, options: options).database.close()
            #expect(
                try LucidStore.ledger(atPath: path)?.compatibility(of: SchemaVersion("1.1"))?.isAdditive == true, "1.1 itself is unaffected"
            )
            return "a data migration runs at 1.1 (rank everyone)"
        }
    }

    @Test(arguments: NonAdditive.allCases) func aNonAdditiveNewerStoreIsRefusedNamingTheFirstChange(_ kind: NonAdditive) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        let change = try Self.nonAdditiveStore(kind, path)
        #expect(try LucidStore.ledger(atPath: path)?.compatibility(of: SchemaVersion("1.0"))?.firstIncompatibleChange == change)
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) {
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: Self.olderAppOptions()).database
        }
        guard case .newerStoreNotAdditive(let store, let app, let first, let at)? = error else {
            Issue.record("expected newerStoreNotAdditive, got \(String(describing: error))")
            return
        }
        #expect(store == SchemaVersion("1.1") && app == SchemaVersion("1.0") && first == change && at == SchemaVersion("1.1"))
        #expect(error?.problem.contains("not additive since 1.0: \(change) (at 1.1)") == true, "\(error!)")
        #expect(error?.nextStep.contains(".openReadOnly") == true)
        #expect(try folder.files() == before, "the store's files are byte-identical, with no WAL or journal left")
    }

    @Test func aNewerStoreWithoutACompatibilityRecordIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        // As a runtime from before compatibility records left it.
        try withDatabase(path) { db in try db.execute(sql: "DROP TABLE lucid_compatibility") }
        #expect(try LucidStore.ledger(atPath: path)?.compatibility == nil)
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) {
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: Self.olderAppOptions()).database
        }
        guard case .newerStoreRecordsNoCompatibility(let store, let app)? = error else {
            Issue.record("expected newerStoreRecordsNoCompatibility, got \(String(describing: error))")
            return
        }
        #expect(store == SchemaVersion("1.1") && app == SchemaVersion("1.0"))
        #expect(try folder.files() == before)
    }

    /// A record that says "additive" over tables that are not what 1.0 writes into is not trusted.
    @Test func aRecordTheTablesContradictIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedBy1_1(path)
        try withDatabase(path) { db in try db.execute(sql: "ALTER TABLE pilot RENAME COLUMN name TO call_sign") }
        let before = try folder.files()
        let error = #expect(throws: StoreError.self) {
            try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: Self.olderAppOptions()).database
        }
        guard case .newerStoreNotAdditive(_, _, let first, _)? = error else {
            Issue.record("expected newerStoreNotAdditive, got \(String(describing: error))")
            return
        }
        #expect(first.contains("table pilot: expected column name TEXT NOT NULL, found none"), "\(first)")
        #expect(try folder.files() == before)
    }

    /// The record a migration updates step by step is the one a store created at the newest version gets
    /// in full, and one written before compatibility records is completed by its next migration.
    @Test func theRecordIsTheSameHoweverTheStoreGotThere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 1.0 → 1.1 additive, 1.1 → 1.2 a rename, 1.2 → 1.3 additive.
        let renamed = Schema(
            version: SchemaVersion("1.2"),
            tables: [
                Logbook.pilot(
                    [Logbook.nickname, Logbook.rank], name: SchemaColumn(name: "call_sign", type: .text, notNull: true, renamedFrom: "name")
                ), Logbook.flight, Logbook.badge,
            ])
        let aircraft = SchemaTable(name: "aircraft", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"])
        let v1_3 = Schema(
            version: SchemaVersion("1.3"),
            tables: [
                Logbook.pilot([Logbook.nickname, Logbook.rank], name: SchemaColumn(name: "call_sign", type: .text, notNull: true)),
                Logbook.flight, Logbook.badge, aircraft,
            ])
        let history = [Logbook.v1_0, Logbook.v1_1, renamed, v1_3]

        let created = folder.path("created.sqlite")
        try LucidStore.open(atPath: created, versions: history).database.close()
        let stepwise = folder.path("stepwise.sqlite")
        try LucidStore.create(atPath: stepwise, versions: history, version: SchemaVersion("1.0")).close()
        var perStep = StoreOptions()
        perStep.atomicity = .perStep
        try LucidStore.open(atPath: stepwise, versions: Array(history.prefix(2))).database.close()
        try LucidStore.open(atPath: stepwise, versions: history, options: perStep).database.close()
        let legacy = folder.path("legacy.sqlite")
        try LucidStore.create(atPath: legacy, versions: history, version: SchemaVersion("1.1")).close()
        try withDatabase(legacy) { db in try db.execute(sql: "DROP TABLE lucid_compatibility") }
        try LucidStore.open(atPath: legacy, versions: history).database.close()

        let rename = "column pilot.name renamed to call_sign"
        let expected: [StoreLedger.CompatibilityRecord] = [
            .init(
                version: SchemaVersion("1.0"), checksum: Logbook.v1_0.checksum, firstIncompatibleChange: rename,
                firstIncompatibleAt: SchemaVersion("1.2")),
            .init(
                version: SchemaVersion("1.1"), checksum: Logbook.v1_1.checksum, firstIncompatibleChange: rename,
                firstIncompatibleAt: SchemaVersion("1.2")),
            .init(version: SchemaVersion("1.2"), checksum: renamed.checksum, firstIncompatibleChange: nil, firstIncompatibleAt: nil),
            .init(version: SchemaVersion("1.3"), checksum: v1_3.checksum, firstIncompatibleChange: nil, firstIncompatibleAt: nil),
        ]
        for path in [created, stepwise, legacy] {
            #expect(try LucidStore.ledger(atPath: path)?.compatibility == expected, "\(path)")
        }
    }
}

/// Quiet by default: what happens on every launch logs at `debug`; `info` is for work done once.
@Suite struct LaunchLoggingTests {
    /// Collects each message's level.
    final class Levels: @unchecked Sendable {
        private let lock = NSLock()
        private var collected: [(Logger.Level, String)] = []
        func append(_ level: Logger.Level, _ message: String) { lock.withLock { collected.append((level, message)) } }
        var messages: [(Logger.Level, String)] { lock.withLock { collected } }
    }

    struct Handler: LogHandler {
        let levels: Levels
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { levels.append(event.level, "\(event.message)") }
    }

    @Test func anOlderAppOnAnAdditiveNewerStoreLogsNothingAtInfo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try NewerStoreTests.storeMigratedBy1_1(path)
        let levels = Levels()
        var options = NewerStoreTests.olderAppOptions()
        options.logger = Logger(label: "test") { _ in Handler(levels: levels) }
        for _ in 0..<2 {
            let opened = try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: options)
            let (database, outcome) = (opened.database, opened.outcome)
            #expect(outcome.openedNewerAdditiveStore)
            try database.close()
        }
        #expect(levels.messages.contains { $0.0 == .debug && $0.1.contains("newer than this app's 1.0") })
        #expect(levels.messages.allSatisfy { $0.0 < .info }, "\(levels.messages)")
    }
}
