import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// The typed ledger (issue #13, item 3): what a store records, read through `StoreLedger`.
@Suite struct LedgerTests {
    /// 1.0 → 1.1 (`tag.old` dropped: deferred) → 2.0 (the app's stage on `item`), with a data migration at 2.0.
    func versions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "note", "property_type": "string", "nullable": true, "added_at_version": "2.0" }] }
            """,
            "tag.json": """
            { "name": "tag", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }],
              "properties": [{ "name": "label", "property_type": "string" },
                             { "name": "old", "property_type": "string", "nullable": true, "removed_at_version": "1.1" }] }
            """,
        ])
    }

    static let stage = MigrationStage(
        from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "note items",
        didMigrate: { db in
            try db.execute(sql: "UPDATE item SET note = 'noted'")
        })
    static let dataMigration = DataMigration(version: SchemaVersion("2.0"), label: "shout") { db in
        try db.execute(sql: "UPDATE item SET name = upper(name)")
    }

    @Test func theLedgerAfterAMultiStepMigrationWithAStageADataMigrationAndDeferredCleanup() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(
                sql: "INSERT INTO item (id, name) VALUES (1, 'a'), (2, 'b'); INSERT INTO tag (id, label, old) VALUES (1, 't', 'x')")
        }
        try created.close()
        let start = Date()

        var options = StoreOptions()
        options.stages = [Self.stage]
        options.dataMigrations = [Self.dataMigration]
        options.deferCleanup = true
        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
        let (database, outcome) = (opened.database, opened.outcome)
        #expect(outcome.steps.map(\.label) == ["1.0 → 1.1 (inferred)", "1.1 → 2.0 (note items)"])
        let ledger = try #require(try database.read { db in try StoreLedger.read(db) })
        try database.close()

        #expect(ledger.version == SchemaVersion("2.0"))
        #expect(ledger.checksum == versions[2].checksum)
        #expect(ledger.steps.map(\.kind) == [.create, .inferred, .stage])
        #expect(ledger.steps.map { $0.from?.string } == [nil, "1.0", "1.1"])
        #expect(ledger.steps.map(\.to.string) == ["1.0", "1.1", "2.0"])
        #expect(ledger.steps.map(\.label) == ["created at 1.0", "1.0 → 1.1 (inferred)", "1.1 → 2.0 (note items)"])
        #expect(ledger.steps[0].duration == nil, "creation has no duration")
        #expect(ledger.steps.dropFirst().allSatisfy { ($0.duration ?? -1) >= 0 }, "each step's duration is recorded")
        #expect(ledger.steps.dropFirst().allSatisfy { $0.appliedAt >= start.addingTimeInterval(-1) })
        #expect(ledger.steps.map(\.appliedAt) == ledger.steps.map(\.appliedAt).sorted())
        #expect(ledger.steps.allSatisfy { $0.appliedAt <= Date().addingTimeInterval(1) })
        // The recorded text: ISO 8601, UTC, milliseconds (formatted by hand, not by ISO8601DateFormatter).
        let recorded = try withDatabase(path) { try String.fetchAll($0, sql: "SELECT applied_at FROM lucid_migration_log") }
        #expect(
            recorded.count == 3 && recorded.allSatisfy { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil },
            "\(recorded)")
        #expect(ledger.lastMigration?.label == "1.1 → 2.0 (note items)")
        #expect(ledger.dataMigrations.map { "\($0.version) \($0.label): \($0.outcome)" } == ["2.0 shout: applied"])
        #expect(ledger.pendingCleanup.map { "\($0.kind) \($0.table).\($0.object) at \($0.recordedAt)" } == ["drop_column tag.old at 1.1"])

        // Finishing the cleanup empties that part of the ledger; the file-level reader agrees.
        let reopened = try LucidStore.open(atPath: path, versions: versions, options: options).database
        #expect(try LucidStore.finishDeferredCleanup(reopened, history: SchemaHistory(versions: versions)) == 1)
        try reopened.close()
        let after = try #require(try LucidStore.ledger(atPath: path))
        #expect(after.pendingCleanup.isEmpty)
        #expect(after.steps == ledger.steps)
    }

    /// A store whose bookkeeping was written by the runtime before durations existed (its exact shape,
    /// in raw SQL) is read, migrated, and its ledger grows the column without losing a row.
    @Test func aStoreWithTheFirstReleasesBookkeepingOpensAndReads() throws {
        let versions = try versions()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            for statement in versions[0].ddl { try db.execute(sql: statement) }
            try db.execute(
                sql: """
                    CREATE TABLE lucid_store (id INTEGER PRIMARY KEY CHECK (id = 1), version TEXT NOT NULL, checksum TEXT NOT NULL, updated_at TEXT NOT NULL);
                    CREATE TABLE lucid_migration_log (id INTEGER PRIMARY KEY, from_version TEXT, to_version TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL, applied_at TEXT NOT NULL);
                    CREATE TABLE lucid_pending_cleanup (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, table_name TEXT NOT NULL, object TEXT NOT NULL, sql TEXT NOT NULL, recorded_at_version TEXT NOT NULL);
                    INSERT INTO lucid_store VALUES (1, '1.0', '\(versions[0].checksum)', '2025-01-02T03:04:05.678Z');
                    INSERT INTO lucid_migration_log VALUES (1, NULL, '1.0', 'create', 'created at 1.0', '2025-01-02T03:04:05.678Z');
                    INSERT INTO item (id, name) VALUES (1, 'a');
                    """)
        }
        try database.close()
        let old = try #require(try LucidStore.ledger(atPath: path))
        #expect(
            old.steps == [
                StoreLedger.Step(
                    from: nil, to: SchemaVersion("1.0"), kind: .create, label: "created at 1.0",
                    appliedAt: Date(timeIntervalSince1970: 1_735_787_045.678), duration: nil)
            ])

        var options = StoreOptions()
        options.stages = [Self.stage]
        try LucidStore.open(atPath: path, versions: versions, options: options).database.close()
        let migrated = try #require(try LucidStore.ledger(atPath: path))
        #expect(migrated.version == SchemaVersion("2.0"))
        #expect(migrated.steps.first == old.steps.first, "the first release's row is kept")
        #expect(migrated.steps.count == 3 && migrated.steps.dropFirst().allSatisfy { $0.duration != nil })
    }

    @Test func aDatabaseWithoutARecordHasNoLedgerAndAForeignFileIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = folder.path("empty.sqlite")
        try DatabaseQueue(path: empty).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        #expect(try LucidStore.ledger(atPath: empty) == nil)
        let garbage = folder.path("garbage.sqlite")
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect { try LucidStore.ledger(atPath: garbage) } throws: { error in
            if case StoreError.notADatabase = error { true } else { false }
        }
    }
}
