import Foundation
import Testing

@_spi(Generated) @testable import LucidSchema

/// Generated registries write each table as JSON in a raw string literal (`SchemaTable(json:)`): it must
/// read back as exactly the table the generator had (the checksum is computed from it), whatever the
/// names and default SQL hold.
@Suite struct SchemaTableJSONTests {
    static let tables: [SchemaTable] = [
        SchemaTable(name: "item", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"]),
        SchemaTable(
            name: "we\"ird \\ \"\"\"# name", kind: .entity,
            columns: [
                SchemaColumn(name: "id", type: .text, notNull: true, valueType: .string),
                SchemaColumn(
                    name: "note", type: .text, notNull: false, defaultSQL: "'a\"b\\c ''quoted'' é 🚀'", renamedFrom: "old note",
                    valueType: .string, lossyConversionFrom: .double, reusesName: true),
                SchemaColumn(
                    name: "owner", type: .integer, notNull: false, convertedFromJoinTable: "item_owners", valueType: .toOne(target: nil)),
                SchemaColumn(name: "ratio", type: .real, notNull: true, defaultSQL: "(1.5 * 2)"),
                SchemaColumn(name: "blob", type: .blob, notNull: false),
            ],
            primaryKey: ["id"],
            foreignKeys: [SchemaForeignKey(columns: ["owner"], table: "owner", tableColumns: ["id"], onDelete: .setNull)],
            indexes: [SchemaIndex(name: "a", columns: ["owner", "ratio"], unique: true), SchemaIndex(name: "b", columns: ["note"])],
            renamedFrom: "old", convertedFromColumn: "owner_id", reusesName: true),
        SchemaTable(
            name: "item_tags", kind: .join,
            columns: [
                SchemaColumn(name: "source_id", type: .integer, notNull: true),
                SchemaColumn(name: "target_id", type: .integer, notNull: true),
            ],
            primaryKey: ["source_id", "target_id"],
            foreignKeys: [
                SchemaForeignKey(columns: ["source_id"], table: "item", tableColumns: ["id"], onDelete: .cascade),
                SchemaForeignKey(columns: ["target_id"], table: "tag", tableColumns: ["id"], onDelete: .noAction),
            ]),
    ]

    @Test(arguments: tables)
    func jsonReadsBackAsTheSameTable(_ table: SchemaTable) throws {
        let json = table.json(indent: "        ")
        #expect(SchemaTable(json: json) == table)
        // The small reader agrees with Foundation's decoder.
        #expect(try JSONDecoder().decode(SchemaTable.self, from: Data(json.utf8)) == table)
        #expect(SchemaTable(json: json).createStatements == table.createStatements)
        // One column, foreign key and index per line after the first (a long one wraps onto more), an empty list on its key's line.
        #expect(json.split(separator: "\n").count >= 1 + 3 + table.columns.count + table.foreignKeys.count + table.indexes.count)
    }

    /// Every JSON escape, as another encoder may write it, and unknown keys (skipped, as Codable does).
    @Test func escapesAndUnknownKeysRead() throws {
        let json = #"""
            {"name": "a\"b\\c\/d\b\f\n\r\t\u0001\u00e9\ud83d\ude80é", "kind": "join", "primaryKey": [], "future": [1, -2.5e3, {"x": null}],
             "columns": [{"name": "id", "type": "INTEGER", "notNull": false, "defaultSQL": null}], "foreignKeys": [], "indexes": [{"name": "i", "columns": ["id"], "unique": true}]}
            """#
        let table = try TableJSONReader.table(json)
        #expect(table.name == "a\"b\\c/d\u{8}\u{c}\n\r\t\u{1}é🚀é")
        #expect(table.kind == .join && table.columns.first?.notNull == false && table.columns.first?.defaultSQL == nil)
        #expect(table.indexes == [SchemaIndex(name: "i", columns: ["id"], unique: true)])
        #expect(try JSONDecoder().decode(SchemaTable.self, from: Data(json.utf8)) == table)
    }

    @Test(arguments: [
        "", "{", #"{"name": "t"}"#, #"{"name": "t", "kind": "view", "primaryKey": [], "columns": [], "foreignKeys": [], "indexes": []}"#,
        #"{"name": "t", "kind": "entity", "primaryKey": [1], "columns": [], "foreignKeys": [], "indexes": []}"#,
        #"{"name": "t\x", "kind": "entity", "primaryKey": [], "columns": [], "foreignKeys": [], "indexes": []}"#,
        #"{"name": "\ud83d", "kind": "entity", "primaryKey": [], "columns": [], "foreignKeys": [], "indexes": []}"#,
        #"{"name": "t", "kind": "entity", "primaryKey": [], "columns": [], "foreignKeys": [], "indexes": []} x"#,
        #"{"name": "t", "kind": "entity", "primaryKey": [], "columns": [{"name": "a", "type": "TEXT", "notNull": tru}], "foreignKeys": [], "indexes": []}"#,
    ])
    func malformedJSONIsAnError(_ json: String) {
        #expect(throws: TableJSONReader.Failure.self) { try TableJSONReader.table(json) }
    }
}
