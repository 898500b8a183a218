import Foundation
import LucidGenCore
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// SQLite's column limit (`SQLITE_MAX_COLUMN`, 2000 by default) is a located error at generate, counting
/// every element of a composite, not SQLite's "too many columns" when a store is first made.
@Suite struct WideTableTests {
    func entity(properties count: Int, composite: Bool = false) -> String {
        var properties = (0..<count).map { #"{ "name": "p\#($0)", "property_type": "int", "nullable": true }"# }
        if composite { properties.append(#"{ "name": "pair", "property_type": "pair", "nullable": true, "composite": true }"#) }
        return entityJSON("wide", properties: properties.joined(separator: ",\n        "), extra: #" "identifier": { "type": "int" },"#)
    }

    static let pair =
        #"{ "name": "pair", "properties": [{ "name": "left", "property_type": "int" }, { "name": "right", "property_type": "int" }] }"#

    @Test func aTableWiderThanSQLiteAllowsIsALocatedError() throws {
        let project = try TestProject(files: [".entities/wide.json": entity(properties: 2000)])
        defer { project.remove() }
        let errors = try project.errors()
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("entity 'wide' has 2001 columns at 1.0") == true, "\(errors)")
        #expect(errors.first?.message.contains("SQLITE_MAX_COLUMN") == true)
        #expect(errors.first?.location?.file.hasSuffix(".entities/wide.json") == true && errors.first?.location?.line == 1)
    }

    @Test func compositeElementsCountOneColumnEach() throws {
        // 1998 properties, the identifier and a composite of two elements: 2001 columns.
        let project = try TestProject(files: [
            ".entities/wide.json": entity(properties: 1998, composite: true), ".entities/Subtypes/pair.json": Self.pair,
        ])
        defer { project.remove() }
        let errors = try project.errors()
        #expect(errors.map(\.message).contains { $0.contains("has 2001 columns") }, "\(errors)")
    }

    @Test func twoThousandColumnsGenerate() throws {
        let project = try TestProject(files: [".entities/wide.json": entity(properties: 1999)])
        defer { project.remove() }
        let result = try project.generate()
        #expect(result.model.schemas.last?.table(named: "wide")?.columns.count == 2000)
    }
}
