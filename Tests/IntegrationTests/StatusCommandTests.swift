import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `lucidgen status` on real stores.
@Suite struct StatusCommandTests {
    @Test func statusShowsTheLedgerInTextAndJSONAndNeverChangesTheFile() throws {
        let (project, store) = try StoreProcessTests.makeStore(journal: "wal")
        defer { project.remove() }
        let before = storeFiles(store)
        let fresh = try run(lucidgenBinary, ["status", "--database", store], in: project.root)
        #expect(fresh.status == 0, "\(fresh.error)")
        #expect(fresh.output.contains("version 1.0, checksum "), "\(fresh.output)")
        #expect(fresh.output.contains("needs migrating: 1.0 → 2.0 (inferred)"), "\(fresh.output)")
        #expect(fresh.output.contains("  wal, "), "\(fresh.output)")
        #expect(storeFiles(store) == before, "status changes nothing")

        #expect(try run(lucidgenBinary, ["migrate", "--database", store, "--to", "1.1"], in: project.root).status == 0)
        #expect(try run(lucidgenBinary, ["migrate", "--database", store], in: project.root).status == 0)
        let text = try run(lucidgenBinary, ["status", "--database", store], in: project.root)
        #expect(text.status == 0, "\(text.error)")
        #expect(
            text.output.contains("version 2.0") && text.output.contains("current for this project (checksum matches)"), "\(text.output)")
        let stepLines = text.output.split(separator: "\n").filter { $0.hasPrefix("  20") }
        #expect(stepLines.count == 3, "\(text.output)")
        #expect(stepLines.map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] } == ["create", "inferred", "inferred"])
        #expect(stepLines.last?.contains("1.1 → 2.0 (inferred) in ") == true)
        // What older apps may do with the store (`.openIfAdditive`): one line, from the compatibility record.
        #expect(text.output.split(separator: "\n").contains { $0.hasPrefix("Older apps (.openIfAdditive): ") }, "\(text.output)")

        let json = try run(lucidgenBinary, ["status", "--database", store, "--format", "json"], in: project.root)
        #expect(json.status == 0, "\(json.error)")
        struct Report: Decodable {
            struct Ledger: Decodable {
                struct Step: Decodable { var from: String?; var to: String; var kind: String; var duration: Double? }
                var version: String
                var steps: [Step]
            }
            var ledger: Ledger
            var projectState: String
            var journalMode: String
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(json.output.utf8))
        #expect(report.ledger.version == "2.0" && report.projectState == "current" && report.journalMode == "wal")
        #expect(
            report.ledger.steps.map { "\($0.from ?? "-")→\($0.to) \($0.kind)" } == ["-→1.0 create", "1.0→1.1 inferred", "1.1→2.0 inferred"])
        #expect(report.ledger.steps.dropFirst().allSatisfy { ($0.duration ?? -1) >= 0 })
    }

    /// A record forged with `UPDATE` keeps the schema cookie lucidgen recorded, so an app's default launch
    /// would believe it; the CLI is handed files from anywhere and checks the tables on every open.
    @Test func aForgedVersionRecordIsRefusedByPlanStatusAndMigrate() throws {
        let (project, store) = try StoreProcessTests.makeStore()
        defer { project.remove() }
        let migrated = project.root.appendingPathComponent("migrated.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: migrated)
        #expect(try run(lucidgenBinary, ["migrate", "--database", migrated], in: project.root).status == 0)
        let checksum = try DatabaseQueue(path: migrated).read { try String.fetchOne($0, sql: "SELECT checksum FROM lucid_store") }
        try DatabaseQueue(path: store).write {
            try $0.execute(sql: "UPDATE lucid_store SET version = '2.0', checksum = ?", arguments: [checksum])
        }
        let before = storeFiles(store)
        for command in ["plan", "status", "migrate"] {
            let result = try run(lucidgenBinary, [command, "--database", store], in: project.root)
            #expect(result.status == 3, "\(command): \(result.output)")
            #expect(
                result.error.contains("records version 2.0, but its tables are not 2.0's (they are 1.0's): table item:"),
                "\(command): \(result.error)")
            #expect(result.error.contains("Do not trust this file's record"), "\(command): \(result.error)")
        }
        #expect(storeFiles(store) == before)
    }

    /// A deferred cleanup row the registry cannot account for (a store is untrusted input) is listed with
    /// its id and why it stays pending, and `migrate --finish-cleanup` neither runs nor deletes it.
    @Test func statusListsACleanupRowTheRegistryCannotAccountFor() throws {
        let (project, store) = try StoreProcessTests.makeStore()
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["migrate", "--database", store], in: project.root).status == 0)
        let database = try DatabaseQueue(path: store)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO lucid_pending_cleanup (id, kind, table_name, object, sql, recorded_at_version)
                    VALUES (7, 'drop_column', 'item', 'name', 'ALTER TABLE item DROP COLUMN name; UPDATE item SET label = NULL', '2.0')
                    """)
        }
        try database.close()
        let text = try run(lucidgenBinary, ["status", "--database", store], in: project.root)
        #expect(text.status == 0, "\(text.error)")
        #expect(
            text.output.contains(
                "  #7 drop_column item.name (deferred at 2.0; stays pending: the step 1.0 → 2.0 or 1.1 → 2.0 does not defer drop_column item.name)"
            ), "\(text.output)")
        let finish = try run(lucidgenBinary, ["migrate", "--database", store, "--finish-cleanup"], in: project.root)
        #expect(finish.status == 0, "\(finish.error)")
        #expect(finish.output.contains("finished 0 deferred cleanup items."), "\(finish.output)")
        let after = try DatabaseQueue(path: store)
        defer { try? after.close() }
        #expect(try after.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lucid_pending_cleanup") } == 1, "stays pending")
        #expect(
            try after.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE label IS NULL AND name IS NOT NULL") } == 0,
            "nothing of the row's SQL ran")
    }

    @Test func aDamagedStoreIsRefusedAsPlanRefusesIt() throws {
        let (project, base) = try StoreProcessTests.makeStore()
        defer { project.remove() }
        let store = project.root.appendingPathComponent("damaged.sqlite").path
        let data = try Data(contentsOf: URL(fileURLWithPath: base))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: store))
        let before = storeFiles(store)
        let status = try run(lucidgenBinary, ["status", "--database", store], in: project.root)
        let plan = try run(lucidgenBinary, ["plan", "--database", store], in: project.root)
        #expect(status.status == 3 && plan.status == 3)
        #expect(status.error == plan.error, "\(status.error)")
        #expect(storeFiles(store) == before)
    }
}
