import Foundation
import LucidSchema
import Testing

/// Generated registries write each table as JSON in a raw string literal (`SchemaTable(json:)`): it must
/// read back as exactly the table the generator had (the checksum is computed from it), whatever the
/// names and default SQL hold.
@Suite struct SchemaTableJSONTests {
    static let tables: [SchemaTable] = [
        SchemaTable(name: "item", columns: [SchemaColumn(name: "id", type: .integer, notNull: true)], primaryKey: ["id"]),
        SchemaTable(
            name: "we\"ird \\ \"\"\"# name", kind: .entity,
            columns: [
                SchemaColumn(name: "id", type: .text, notNull: true, valueType: "string"),
                SchemaColumn(
                    name: "note", type: .text, notNull: false, defaultSQL: "'a\"b\\c ''quoted'' é 🚀'", renamedFrom: "old note",
                    valueType: "string", lossyConversionFrom: "double", reusesName: true),
                SchemaColumn(name: "owner", type: .integer, notNull: false, convertedFromJoinTable: "item_owners", valueType: "to_one"),
                SchemaColumn(name: "ratio", type: .real, notNull: true, defaultSQL: "(1.5 * 2)"),
                SchemaColumn(name: "blob", type: .blob, notNull: false),
            ],
            primaryKey: ["id"],
            foreignKeys: [SchemaForeignKey(columns: ["owner"], table: "owner", tableColumns: ["id"], onDelete: .setNull)],
            indexes: [SchemaIndex(name: "a", columns: ["owner", "ratio"], unique: true), SchemaIndex(name: "b", columns: ["note"])],
            renamedFrom: "old", convertedFromColumn: "owner_id", reusesName: true),
        SchemaTable(
            name: "item_tags", kind: .join,
            columns: [SchemaColumn(name: "source_id", type: .integer, notNull: true), SchemaColumn(name: "target_id", type: .integer, notNull: true)],
            primaryKey: ["source_id", "target_id"],
            foreignKeys: [
                SchemaForeignKey(columns: ["source_id"], table: "item", tableColumns: ["id"], onDelete: .cascade),
                SchemaForeignKey(columns: ["target_id"], table: "tag", tableColumns: ["id"], onDelete: .noAction),
            ]),
    ]

    @Test(arguments: tables)
    func jsonReadsBackAsTheSameTable(_ table: SchemaTable) {
        let json = table.json(indent: "        ")
        #expect(SchemaTable(json: json) == table)
        #expect(SchemaTable(json: json).createStatements == table.createStatements)
        // One column per line after the first.
        #expect(json.split(separator: "\n").count == table.columns.count + 2)
    }
}
