import Foundation
import GRDB
import LucidSchema
import Testing

@testable import LucidRuntime

/// A migration takes the path `inspect` (and `lucidgen plan`) shows, step after step: the planner searches
/// the jumps a path from its start can take, so planning again from a version on the way could choose
/// another path (found by the history explorer, seed 83091).
@Suite struct PathFollowingTests {
    /// 1.0 and 1.1: `item` with a self-referencing `size`; 1.2 drops it (a rebuild: it is a key); 1.3 changes
    /// nothing; 1.4 renames the table. From 1.0 the path is the four neighbouring steps; from 1.2 alone the
    /// planner would jump straight to 1.4.
    static let versions: [Schema] = {
        let id = SchemaColumn(name: "id", type: .integer, notNull: true)
        let size = SchemaColumn(name: "size", type: .integer, notNull: false)
        let withSize = SchemaTable(
            name: "item", columns: [id, size], primaryKey: ["id"],
            foreignKeys: [SchemaForeignKey(columns: ["size"], table: "item", tableColumns: ["id"], onDelete: .setNull)],
            indexes: [SchemaIndex(name: "item_size_index", columns: ["size"])])
        let plain = SchemaTable(name: "item", columns: [id], primaryKey: ["id"])
        let renamed = SchemaTable(name: "node", columns: [id], primaryKey: ["id"], renamedFrom: "item")
        return [("1.0", withSize), ("1.1", withSize), ("1.2", plain), ("1.3", plain), ("1.4", renamed)].map { version, table in
            Schema(version: SchemaVersion(version), tables: [table])
        }
    }()

    @Test func theMigrationTakesThePathInspectShows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        try LucidStore.create(atPath: path, versions: Self.versions, version: SchemaVersion("1.0")).close()
        try withDatabase(path) { db in
            try db.execute(sql: "INSERT INTO item (id, size) VALUES (1, NULL), (2, 1)")
        }
        let shown = try LucidStore.inspect(atPath: path, versions: Self.versions).steps.map { "\($0.from) → \($0.to)" }
        #expect(shown == ["1.0 → 1.1", "1.1 → 1.2", "1.2 → 1.3", "1.3 → 1.4"])
        // Planned from 1.2 alone, the path differs: what a migration must not switch to on the way.
        let fromTheMiddle = try MigrationPlanner(versions: Self.versions).plan(from: SchemaVersion("1.2")).map { "\($0.from) → \($0.to)" }
        #expect(fromTheMiddle == ["1.2 → 1.4"])

        let (database, outcome) = try LucidStore.openReportingOutcome(atPath: path, versions: Self.versions)
        defer { try? database.close() }
        #expect(outcome.steps.map { "\($0.from) → \($0.to)" } == shown)
        #expect(try database.read { try Int.fetchAll($0, sql: "SELECT id FROM node ORDER BY id") } == [1, 2])
    }
}
