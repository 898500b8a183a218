import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A stored value that is no case of its enum is a typed error naming table, row and column, both when
/// a record is fetched and when a row is read by a typed transform during a migration; never a trap.
@Suite struct UnknownEnumValueTests {
    enum Kind: String, Codable, Hashable, Sendable, CaseIterable, DatabaseValueConvertible, StoredEnumeration {
        case airplane, glider
    }

    /// What a generated newest record looks like (its `init(row:)` as `entity.mustache` writes it).
    struct Plane: Codable, Equatable, FetchableRecord, PersistableRecord, MigrationRecord {
        static let databaseTableName = "plane"
        static let migrationColumns = ["id", "kind"]
        var id: String
        var kind: Kind

        init(id: String, kind: Kind) {
            self.id = id
            self.kind = kind
        }

        init(row: Row) throws {
            self = try UnknownEnumValueError.decode(Self.self, from: row, primaryKey: "id", enumColumns: [("kind", Kind.self)])
        }

        init(migrationRow row: MigrationRow) throws {
            id = try row.decode(String.self, at: 0)
            kind = try row.decode(Kind.self, at: 1)
        }

        func encode(to values: inout MigrationValues) throws {
            values.encode(id, at: 0)
            values.encode(kind, at: 1)
        }
    }

    static func store() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE plane (id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO plane VALUES ('N1', 'glider'), ('N2', 'zeppelin')")
        }
        return queue
    }

    @Test func fetchingNamesTableRowAndColumn() throws {
        let queue = try Self.store()
        let error = try #require(throws: UnknownEnumValueError.self) { try queue.read { db in try Plane.fetchAll(db) } }
        #expect(error.table == "plane")
        #expect(error.row == .primaryKey(column: "id", value: "N2".databaseValue))
        #expect(error.column == "kind")
        #expect(error.value == "zeppelin".databaseValue)
        #expect(error.cases == ["airplane", "glider"])
        #expect(error.description == "table plane, row id \"N2\", column kind: \"zeppelin\" is not a case of Kind (airplane, glider)")
        // Known values decode as before.
        let known = try queue.read { db in try Plane.fetchOne(db, key: "N1") }
        #expect(known == Plane(id: "N1", kind: .glider))
    }

    /// During a migration, the typed transform's `MigrationRow` throws the same error (the row by its
    /// rowid in the old table); the step fails, is rolled back, and its message names table, row and column.
    @Test func aTypedTransformNamesTableRowAndColumn() throws {
        let queue = try DatabaseQueue()
        let table1 = SchemaTable(
            name: "plane",
            columns: [SchemaColumn(name: "id", type: .text, notNull: true), SchemaColumn(name: "kind", type: .text, notNull: true)],
            primaryKey: ["id"])
        var table2 = table1
        table2.columns[1].defaultSQL = "'airplane'"
        let versions = [Schema(version: SchemaVersion("1.0"), tables: [table1]), Schema(version: SchemaVersion("2.0"), tables: [table2])]
        try LucidMigrator(versions: Array(versions.prefix(1))).migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO plane VALUES ('N1', 'glider'), ('N2', 'zeppelin')") }
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "planes",
                transforms: [RowTransform.records(table: "plane") { (old: Plane) -> Plane? in old }])
        ]
        do {
            try LucidMigrator(versions: versions, options: options).migrate(queue)
            Issue.record("the migration should fail")
        } catch {
            // A typed error the app can catch: the step's StoreError carries the UnknownEnumValueError.
            guard case .unknownEnumValue(_, let version, let unknown) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(version == SchemaVersion("1.0"))
            #expect(
                unknown.table == "plane" && unknown.row == .rowid(2) && unknown.column == "kind"
                    && unknown.value == "zeppelin".databaseValue)
            #expect(
                error.description.contains("table plane, row 2, column kind: \"zeppelin\" is not a case of Kind (airplane, glider)"),
                "\(error)")
        }
        #expect(try queue.read { db in try String.fetchAll(db, sql: "SELECT kind FROM plane ORDER BY rowid") } == ["glider", "zeppelin"])
    }
}
