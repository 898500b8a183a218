import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `column_naming: camel_case`: GRDB's convention for a whole project. A property's column is
/// the camelCase of its name unless `persisted_name` says otherwise, and default index names are GRDB's
/// `<table>_on_<columns>`; the convention is part of every released version's tables, so changing it after a
/// release is a change of released versions, refused where the snapshot records them.
@Suite struct ColumnNamingTests {
    static func config(_ naming: String?) -> String {
        """
        input_path: .entities
        current_version: "1.0"
        \(naming.map { "column_naming: \($0)" } ?? "")
        targets:
          app:
            module_name: App
            output_path: Sources/App/Generated
        """
    }

    static let files = [
        ".entities/room.json":
            #"{ "name": "room", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#,
        ".entities/item.json": """
        { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [
            { "name": "room_id", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": true },
            { "name": "created_at", "property_type": "date", "indexed": true },
            { "name": "legacy_code", "persisted_name": "LEGACY", "property_type": "string" }
          ] }
        """,
    ]

    @Test func camelCaseNamesColumnsAndIndexesAsGRDBDoes() throws {
        let project = try TestProject(files: Self.files, config: Self.config("camel_case"))
        defer { project.remove() }
        let item = try #require(try project.generate().model.schemas.last?.table(named: "item"))
        #expect(item.columns.map(\.name).sorted() == ["LEGACY", "createdAt", "id", "roomId"])
        #expect(item.foreignKeys.map(\.columns) == [["roomId"]])
        #expect(item.indexes.map(\.name).sorted() == ["item_on_createdAt", "item_on_roomId"])
        let record = try project.read("Sources/App/Generated/Entities/Item.swift")
        #expect(record.contains(#"GRDB.Column("createdAt")"#) && record.contains("public var createdAt: Foundation.Date"), "\(record)")
    }

    @Test func asNamedIsTheDefault() throws {
        let project = try TestProject(files: Self.files, config: Self.config(nil))
        defer { project.remove() }
        let item = try #require(try project.generate().model.schemas.last?.table(named: "item"))
        #expect(item.columns.map(\.name).sorted() == ["LEGACY", "created_at", "id", "room_id"])
        #expect(item.indexes.map(\.name).sorted() == ["item_created_at_index", "item_room_id_index"])
    }

    @Test func anUnknownConventionIsALocatedError() throws {
        let project = try TestProject(files: Self.files, config: Self.config("kebab_case"))
        defer { project.remove() }
        let errors = try project.errors().map(\.description)
        #expect(
            errors.contains { $0.contains(".lucid.yaml:3:") && $0.contains("column_naming 'kebab_case' is not a convention") }, "\(errors)")
    }

    @Test func changingItAfterAReleaseIsRefused() throws {
        let project = try TestProject(files: Self.files, config: Self.config("camel_case"))
        defer { project.remove() }
        _ = try project.generate()
        try project.write(
            ".lucid.yaml", Self.config(nil).replacingOccurrences(of: #"current_version: "1.0""#, with: #"current_version: "1.1""#))
        try project.write(
            ".entities/room.json",
            #"{ "name": "room", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }], "properties": [{ "name": "name", "property_type": "string" }] }"#
        )
        let errors = try project.errors().map(\.description)
        #expect(errors.contains { $0.contains("released version 1.0 was changed") && $0.contains("table 'item' differs") }, "\(errors)")
    }
}
