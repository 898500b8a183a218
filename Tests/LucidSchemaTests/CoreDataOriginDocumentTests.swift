import Foundation
import Testing

@testable import LucidSchema

/// The Core Data origin file is written and read by one type: what the writer writes decodes to the same document.
@Suite struct CoreDataOriginDocumentTests {
    @Test(arguments: DescriptionWriterTests.hostile)
    func writtenThenReadIsTheSame(_ text: String) throws {
        let entity = CoreDataOriginDocument.Entity(
            name: text, parent: text, abstract: true, table: text, kind: text,
            attributes: [
                .init(name: text, type: "String", column: text, transient: true, externalStorage: true), .init(name: "plain", type: ""),
            ],
            relationships: [
                .init(name: text, toMany: true, ordered: true, destination: text, inverse: text, linkTable: text),
                .init(name: "owner", toMany: false, column: text),
            ])
        let document = CoreDataOriginDocument(versions: [
            .init(version: "1.0", model: text, entities: [entity], hashes: [text: "AAE=", "b": text]),
            .init(version: "2.0", model: "Model 2", entities: [.init(name: "Empty")]),
        ])
        let json = document.json()
        #expect(try JSONDecoder().decode(CoreDataOriginDocument.self, from: Data(json.utf8)) == document)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }

    @Test func flagsOnlyWhenSet() throws {
        let document = CoreDataOriginDocument(versions: [
            .init(
                version: "1.0", model: "Model",
                entities: [.init(name: "Item", table: "item", attributes: [.init(name: "title", type: "String", column: "title")])])
        ])
        #expect(
            document.json() == """
                {
                  "format": 1,
                  "versions": [
                    {
                      "version": "1.0",
                      "model": "Model",
                      "entities": [
                      {
                        "name": "Item",
                        "table": "item",
                        "attributes": [
                          { "name": "title", "type": "String", "column": "title" }
                        ],
                        "relationships": []
                      }
                      ]
                    }
                  ]
                }

                """)
    }
}
