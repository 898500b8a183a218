import Foundation
import Testing

@_spi(Generated) @testable import LucidSchema

/// Value types read from and write to the text registries and snapshots hold, unchanged.
@Suite struct ValueTypeTests {
    static let spelled: [(String, ValueType)] = [
        ("int", .int), ("string", .string), ("bool", .bool), ("double", .double), ("float", .float), ("seconds", .seconds),
        ("milliseconds", .milliseconds), ("date", .date), ("url", .url), ("color", .color), ("data", .data), ("uuid", .uuid),
        ("decimal", .decimal), ("enum aircraft_class", .enumeration("aircraft_class")), ("option_set format", .optionSet("format")),
        ("struct color_scheme", .structure("color_scheme")), ("composite scheme", .composite("scheme")), ("[string]", .array(.string)),
        ("[struct locale]", .array(.structure("locale"))), ("[[int]]", .array(.array(.int))), ("to_one", .toOne(target: nil)),
        // Snapshots of an early lucidgen named the target.
        ("to_one pilot", .toOne(target: "pilot")), ("to_many", .toMany), ("kind", .kind),
        // Text no case spells stays as it is.
        ("weekday", .other("weekday")), ("range int", .other("range int")), ("[]", .array(.other(""))), ("", .other("")),
    ]

    @Test(arguments: spelled) func readsAndWritesItsText(text: String, valueType: ValueType) {
        #expect(ValueType(text) == valueType)
        #expect(valueType.description == text)
    }

    @Test func encodesAsTheStringItWas() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let column = SchemaColumn(
            name: "a", type: .text, notNull: true, valueType: .array(.enumeration("unit")), lossyConversionFrom: .double)
        let json = String(decoding: try encoder.encode(column), as: UTF8.self)
        #expect(json == #"{"lossyConversionFrom":"double","name":"a","notNull":true,"type":"TEXT","valueType":"[enum unit]"}"#)
        #expect(try JSONDecoder().decode(SchemaColumn.self, from: Data(json.utf8)) == column)
    }

    @Test func generatedTableJSONReadsTypedValueTypes() {
        let table = SchemaTable(
            json: #"{"name": "t", "kind": "entity", "primaryKey": ["id"], "columns": ["#
                + #"{"name":"id","notNull":true,"type":"INTEGER","valueType":"int"}, {"name":"owner","notNull":false,"type":"INTEGER","valueType":"to_one"}],"#
                + #" "foreignKeys": [], "indexes": []}"#)
        #expect(table.columns.map(\.valueType) == [.int, .toOne(target: nil)])
    }

    @Test func numbersAndReferences() {
        #expect(ValueType.scalars.filter(\.isNumber) == [.int, .double, .float, .decimal])
        #expect(ValueType("to_one pilot").isToOne && ValueType("to_one").isToOne && !ValueType("to_many").isToOne)
    }
}
