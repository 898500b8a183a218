import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A typed row transform (`RowTransform.records`) of a table with generated columns: the record reads and
/// encodes every column (`migrationColumns` holds the generated ones, as the generated records' do), and the
/// rebuild writes all but the generated ones, which SQLite computes (writing them made SQLite refuse the
/// step).
@Suite struct GeneratedColumnTransformTests {
    /// A record as `entity.mustache` writes a table with a VIRTUAL and a STORED generated column.
    struct Player: MigrationRecord, Equatable {
        static let migrationColumns = ["id", "name", "score", "label", "doubled"]
        var id: Int64
        var name: String
        var score: Int64
        var label: String?
        var doubled: Int64?

        init(migrationRow row: MigrationRow) throws {
            id = try row.decode(Int64.self, at: 0)
            name = try row.decode(String.self, at: 1)
            score = try row.decode(Int64.self, at: 2)
            label = try row.decode(String?.self, at: 3)
            doubled = try row.decode(Int64?.self, at: 4)
        }

        func encode(to values: inout MigrationValues) throws {
            values.encode(id, at: 0)
            values.encode(name, at: 1)
            values.encode(score, at: 2)
            values.encode(label, at: 3)
            values.encode(doubled, at: 4)
        }
    }

    static func versions() -> [Schema] {
        let table1 = SchemaTable(
            name: "player",
            columns: [
                SchemaColumn(name: "id", type: .integer, notNull: true), SchemaColumn(name: "name", type: .text, notNull: true),
                SchemaColumn(name: "score", type: .integer, notNull: true), SchemaColumn(name: "label", type: .text, notNull: false),
                SchemaColumn(name: "doubled", type: .integer, notNull: false),
            ],
            primaryKey: ["id"])
        var generated = table1
        generated.columns[3].generatedSQL = "name || ':' || score"
        generated.columns[4].generatedSQL = "score * 2"
        generated.columns[4].generatedStored = true
        var table2 = generated
        table2.columns[1].defaultSQL = "'anonymous'"
        return [Schema(version: SchemaVersion("1.0"), tables: [generated]), Schema(version: SchemaVersion("2.0"), tables: [table2])]
    }

    @Test func aTypedTransformNeverWritesGeneratedColumns() throws {
        let queue = try DatabaseQueue()
        let versions = Self.versions()
        try LucidMigrator(versions: Array(versions.prefix(1))).migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO player (id, name, score) VALUES (1, 'Arthur', 10), (2, 'Barbara', 20)") }
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "scores",
                transforms: [
                    RowTransform.records(table: "player") { (old: Player) -> Player? in
                        var new = old
                        new.score += 1
                        new.label = "written by the app" // SQLite computes it: never written
                        return new
                    }
                ])
        ]
        try LucidMigrator(versions: versions, options: options).migrate(queue)
        let rows = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT id || '/' || label || '/' || doubled FROM player ORDER BY id")
        }
        #expect(rows == ["1/Arthur:11/22", "2/Barbara:21/42"])
    }
}
