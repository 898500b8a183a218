import Foundation
import Testing

@testable import LucidSchema

/// The description writer: hostile names and expressions come back as they went in, keys in their order.
@Suite struct DescriptionWriterTests {
    static let hostile = [
        "plain", "a \"quoted\" name", #"back\slash"#, "line\nbreak", "carriage\rreturn", "tab\there", "separator\u{2028}here",
        "paragraph\u{2029}here",
        "nul\u{0}byte", "bell\u{7}", "escape\u{1B}[0m", "delete\u{7F}", "slash/and\\/", "emoji 🦆 and é", "", "{ \"sql\": \"x\" }", "]}\n{",
    ]

    func decoded(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(arguments: hostile)
    func stringsRoundTrip(_ text: String) throws {
        let escaped = DescriptionWriter.string(text)
        #expect(!escaped.contains("\n") && !escaped.contains("\r"))
        let back = try JSONSerialization.jsonObject(with: Data("[\(escaped)]".utf8)) as? [String]
        #expect(back == [text])
    }

    @Test(arguments: hostile)
    func documentRoundTrips(_ text: String) throws {
        var entity = DescriptionDocument(name: text)
        entity.persistedName = text
        entity.identifier = .init(type: "property", propertyName: text, autoincrement: true, onConflict: "replace")
        entity.checks = [.init(expression: text), .init(name: text, expression: text)]
        entity.versionHistory = [.init(version: "1.0"), .init(version: "2.0", previousName: text)]
        var property = DescriptionDocument.Property(name: text, type: .scalar("string"))
        property.persistedName = text
        property.check = text
        property.collation = text
        property.defaultValue = .string(text)
        property.generated = .init(expression: text, stored: true)
        property.typeHistory = [.init(untilVersion: "2.0", defaultValue: .sql(text), persistedName: .some(nil))]
        var link = DescriptionDocument.Property(
            name: "links",
            type: .relationship(
                .init(
                    entityName: text, association: .toMany,
                    linkTable: .init(name: text, columns: .init(source: text, target: text, targetIndex: nil)))))
        link.nullable = false
        entity.properties = [property, link]
        entity.indexes = [.init(properties: [text, "b"], unique: true, name: text)]
        for layout in [DescriptionWriter.Layout.versionHistoryInline, .versionHistoryOnLines] {
            let json = DescriptionWriter.json(entity, layout: layout)
            let object = try decoded(json)
            #expect(object["name"] as? String == text)
            #expect(object["persisted_name"] as? String == text)
            let identifier = try #require(object["identifier"] as? [String: Any])
            #expect(identifier["property_name"] as? String == text)
            let checks = try #require(object["checks"] as? [Any])
            #expect(checks.first as? String == text)
            #expect((checks.last as? [String: String])?["expression"] == text)
            let history = try #require(object["version_history"] as? [[String: String]])
            #expect(history == [["version": "1.0"], ["version": "2.0", "previous_name": text]])
            let properties = try #require(object["properties"] as? [[String: Any]])
            #expect(properties.count == 2)
            #expect(properties[0]["check"] as? String == text)
            #expect(properties[0]["default_value"] as? String == text)
            #expect((properties[0]["generated"] as? [String: Any])?["expression"] as? String == text)
            let change = try #require((properties[0]["type_history"] as? [[String: Any]])?.first)
            #expect((change["default_value"] as? [String: String])?["sql"] == text)
            #expect(change["persisted_name"] is NSNull)
            let type = try #require(properties[1]["property_type"] as? [String: Any])
            #expect(type["entity_name"] as? String == text)
            #expect((type["link_table"] as? [String: String])?["source_column"] == text)
            let index = try #require((object["indexes"] as? [[String: Any]])?.first)
            #expect(index["properties"] as? [String] == [text, "b"])
            #expect(index["name"] as? String == text)
            // Each property is on a line of its own, whatever its strings hold.
            #expect(json.components(separatedBy: "\n").filter { $0.hasPrefix("    { \"name\": ") }.count == 2)
        }
    }

    @Test func layoutAndKeyOrder() {
        var entity = DescriptionDocument(name: "room")
        entity.identifier = .init(type: "int")
        entity.versionHistory = [.init(version: "1.0"), .init(version: "2.0")]
        var property = DescriptionDocument.Property(name: "title", type: .scalar("string"))
        property.nullable = true
        property.defaultValue = .number("5.0")
        property.addedAtVersion = "2.0"
        property.typeHistory = [.init(untilVersion: "2.0", nullable: false)]
        entity.properties = [property]
        #expect(
            DescriptionWriter.json(entity) == """
                {
                  "name": "room",
                  "identifier": { "type": "int" },
                  "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
                  "properties": [
                    { "name": "title", "property_type": "string", "nullable": true, "default_value": 5.0, "added_at_version": "2.0", "type_history": [{ "until_version": "2.0", "nullable": false }] }
                  ]
                }

                """)
        #expect(
            DescriptionWriter.json(entity, layout: .versionHistoryOnLines).contains(
                """
                  "version_history": [
                    { "version": "1.0" },
                    { "version": "2.0" }
                  ],
                """))
    }
}
