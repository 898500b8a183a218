import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// `persisted_name` has a history: a type_history item's `persisted_name` says what the column
/// was called before its `until_version`, so an adopted store's camelCase column is renamed at a later release
/// (`ALTER TABLE … RENAME COLUMN`), its index follows, and the released version stays as it was frozen.
@Suite struct PersistedNameHistoryTests {
    static func item(_ property: String, history: [String]) -> String {
        """
        { "name": "item", "identifier": { "type": "int" },
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [\(property)] }
        """
    }

    /// 1.0 released with the column `purchasedAt`, 1.1 renames it `purchased_at`.
    func versions() throws -> [Schema] {
        try IndexMigrationTests().releasesOf(
            "item",
            [
                (
                    "1.0",
                    Self.item(
                        #"{ "name": "purchased_at", "persisted_name": "purchasedAt", "property_type": "string", "indexed": true }"#,
                        history: ["1.0"])
                ),
                (
                    "1.1",
                    Self.item(
                        #"{ "name": "purchased_at", "property_type": "string", "indexed": true, "type_history": [{ "until_version": "1.1", "persisted_name": "purchasedAt" }] }"#,
                        history: ["1.0", "1.1"])
                ),
            ])
    }

    @Test func theColumnIsRenamedAtItsVersionAndItsIndexFollows() throws {
        let versions = try versions()
        #expect(versions[0].table(named: "item")?.columns.map(\.name) == ["id", "purchasedAt"])
        let newest = try #require(versions[1].table(named: "item"))
        #expect(newest.columns.map(\.name) == ["id", "purchased_at"])
        #expect(newest.column(named: "purchased_at")?.renamedFrom == "purchasedAt")
        #expect(newest.indexes.map(\.columns) == [["purchased_at"]], "no index left on the old column")

        let (path, folder) = try storeAtFirstVersion(
            versions, rows: "INSERT INTO item (id, purchasedAt) VALUES (1, '2024-05-01'), (2, '2024-06-01')")
        defer { folder.remove() }
        final class Statements: @unchecked Sendable {
            let lock = NSLock()
            var sql: [String] = []
        }
        let traced = Statements()
        var options = StoreOptions()
        options.configuration.prepareDatabase { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { traced.lock.withLock { traced.sql.append(statement.sql) } }
            }
        }
        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
        defer { try? opened.database.close() }
        #expect(
            traced.lock.withLock { traced.sql }.contains { $0.contains(#"RENAME COLUMN "purchasedAt" TO "purchased_at""#) },
            "a rename, not a rebuild")
        #expect(
            try opened.database.read { db in try String.fetchAll(db, sql: "SELECT purchased_at FROM item ORDER BY id") } == [
                "2024-05-01", "2024-06-01",
            ])
    }

    /// Without the history item, the released version's frozen table differs, and the error says how to say it.
    @Test func aRenameWithoutItsHistoryItemSaysWhatToWrite() throws {
        do {
            _ = try IndexMigrationTests().releasesOf(
                "item",
                [
                    (
                        "1.0",
                        Self.item(
                            #"{ "name": "purchased_at", "persisted_name": "purchasedAt", "property_type": "string" }"#, history: ["1.0"])
                    ),
                    ("1.1", Self.item(#"{ "name": "purchased_at", "property_type": "string" }"#, history: ["1.0", "1.1"])),
                ])
            Issue.record("a released column's rename without its history item was accepted")
        } catch let error as GenerationFailed {
            #expect(
                error.errors.contains {
                    $0.message.contains(
                        #"if column purchasedAt was renamed at a later version, say so on its property: a type_history item { "until_version": "<that version>", "persisted_name": "<the old column name>" }"#
                    )
                }, "\(error.errors)")
        }
    }
}
