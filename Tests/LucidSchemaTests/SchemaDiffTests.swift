@_spi(Generated) import LucidSchema
import Testing

/// Generated registries state each version after the first by what changed (`Schema(basedOn:…)`): the
/// result must be exactly the version stated whole.
@Suite struct SchemaDiffTests {
    static func table(_ name: String, _ columns: [String], renamedFrom: String? = nil, reusesName: Bool? = nil) -> SchemaTable {
        SchemaTable(
            name: name,
            columns: [SchemaColumn(name: "id", type: .integer, notNull: true)]
                + columns.map { SchemaColumn(name: $0, type: .text, notNull: false) },
            primaryKey: ["id"], renamedFrom: renamedFrom, reusesName: reusesName)
    }

    static let v1 = Schema(version: SchemaVersion("1.0"), tables: [table("b", ["x"]), table("a", []), table("c", [])])

    @Test func replacingAndAddingKeepsTheOthersInNameOrder() {
        let stated = Schema(
            version: SchemaVersion("1.1"), basedOn: Self.v1, replacing: [Self.table("d", []), Self.table("b", ["x", "y"])])
        let whole = Schema(
            version: SchemaVersion("1.1"),
            tables: [Self.table("a", []), Self.table("b", ["x", "y"]), Self.table("c", []), Self.table("d", [])])
        #expect(stated == whole)
        #expect(stated.tables.map(\.name) == ["a", "b", "c", "d"])
        #expect(stated.checksum == whole.checksum)
    }

    @Test func removingAndRenamingIntoAFreedName() {
        // c is renamed to b (reusing the name b, whose table is removed), and a is removed.
        let stated = Schema(
            version: SchemaVersion("2.0"), basedOn: Self.v1,
            replacing: [Self.table("b", [], renamedFrom: "c", reusesName: true)], removing: ["a", "c"])
        let whole = Schema(version: SchemaVersion("2.0"), tables: [Self.table("b", [], renamedFrom: "c", reusesName: true)])
        #expect(stated == whole)
        #expect(stated.checksum == whole.checksum)
    }

    @Test func nothingChangedIsTheSameTablesAtANewVersion() {
        let stated = Schema(version: SchemaVersion("1.2"), basedOn: Self.v1, replacing: [])
        #expect(stated.tables == Self.v1.tables)
        #expect(stated.version == SchemaVersion("1.2"))
        #expect(stated.checksum == Self.v1.checksum)
    }
}
