import Foundation

/// The Core Data origin file (`<input_path>/.coredata/origin.json`): each model version's entities as Core Data
/// stored them, with the lucidgen table and column each attribute and relationship became. `lucidgen import
/// coredata` writes it with ``json()``, the runtime's `CoreDataOrigin` reads it with `Decodable`: one type, so
/// the writer and the reader cannot drift apart.
package struct CoreDataOriginDocument: Sendable, Equatable, Codable {
    package var format = 1
    package var versions: [Version]

    package init(versions: [Version]) {
        self.versions = versions
    }

    package struct Version: Sendable, Equatable, Codable {
        package var version: String
        package var model: String
        package var entities: [Entity]
        /// The compiled model's version hash of each entity (base64), from the `.momd`'s `VersionInfo.plist`
        /// (`lucidgen import coredata --momd`): what a store's metadata (`NSStoreModelVersionHashes`) holds.
        package var hashes: [String: String]? = nil

        package init(version: String, model: String, entities: [Entity], hashes: [String: String]? = nil) {
            self.version = version
            self.model = model
            self.entities = entities
            self.hashes = hashes
        }
    }

    package struct Entity: Sendable, Equatable, Codable {
        package var name: String
        package var parent: String?
        package var abstract: Bool?
        package var table: String?
        /// In an entity hierarchy: the `kind` its rows have in the root's table.
        package var kind: String?
        package var attributes: [Attribute]
        package var relationships: [Relationship]

        package init(
            name: String, parent: String? = nil, abstract: Bool? = nil, table: String? = nil, kind: String? = nil,
            attributes: [Attribute] = [],
            relationships: [Relationship] = []
        ) {
            self.name = name
            self.parent = parent
            self.abstract = abstract
            self.table = table
            self.kind = kind
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    package struct Attribute: Sendable, Equatable, Codable {
        package var name: String
        package var type: String
        package var column: String?
        package var transient: Bool?
        package var externalStorage: Bool?
        /// A composite attribute's elements (`type` is `Composite`), depth first.
        package var elements: [Element]?
        /// The store's column of the value, where it is not `Z` and the name in capitals: a composite's
        /// element as the converter found it in the store (never written by the importer).
        package var storeColumn: String?

        package init(name: String, type: String, column: String? = nil, transient: Bool? = nil, externalStorage: Bool? = nil) {
            self.name = name
            self.type = type
            self.column = column
            self.transient = transient
            self.externalStorage = externalStorage
        }

        /// The store's column that holds the attribute.
        package var storedColumn: String { storeColumn ?? "Z" + name.uppercased() }

        enum CodingKeys: String, CodingKey {
            case name, type, column, transient, elements
            case externalStorage = "external_storage"
            case storeColumn = "store_column"
        }
    }

    /// One element of a composite attribute: its member path from the composite down, its Core Data type,
    /// lucidgen's column, and (written by hand, when the converter cannot tell) the store's column.
    package struct Element: Sendable, Equatable, Codable {
        package var path: [String]
        package var type: String
        package var column: String?
        package var storeColumn: String?

        package init(path: [String], type: String, column: String? = nil, storeColumn: String? = nil) {
            self.path = path
            self.type = type
            self.column = column
            self.storeColumn = storeColumn
        }

        enum CodingKeys: String, CodingKey {
            case path, type, column
            case storeColumn = "store_column"
        }
    }

    package struct Relationship: Sendable, Equatable, Codable {
        package var name: String
        package var toMany: Bool
        package var ordered: Bool?
        package var destination: String?
        package var inverse: String?
        package var transient: Bool?
        package var column: String?
        package var linkTable: String?

        package init(
            name: String, toMany: Bool, ordered: Bool? = nil, destination: String? = nil, inverse: String? = nil, transient: Bool? = nil,
            column: String? = nil,
            linkTable: String? = nil
        ) {
            self.name = name
            self.toMany = toMany
            self.ordered = ordered
            self.destination = destination
            self.inverse = inverse
            self.transient = transient
            self.column = column
            self.linkTable = linkTable
        }

        enum CodingKeys: String, CodingKey {
            case name, ordered, destination, inverse, transient, column
            case toMany = "to_many"
            case linkTable = "link_table"
        }
    }

    /// The file's text: an entity a block, an attribute or relationship a line, keys in a fixed order, a flag
    /// only when it is set; the same document gives the same bytes.
    package func json() -> String {
        let string = DescriptionWriter.string
        let items = versions.map { version in
            let entities = version.entities.map { entity in
                var fields = [("name", string(entity.name))]
                if let parent = entity.parent { fields.append(("parent", string(parent))) }
                if entity.abstract == true { fields.append(("abstract", "true")) }
                if let table = entity.table { fields.append(("table", string(table))) }
                if let kind = entity.kind { fields.append(("kind", string(kind))) }
                let attributes = entity.attributes.map { attribute in
                    var fields = [("name", string(attribute.name)), ("type", string(attribute.type))]
                    if let column = attribute.column { fields.append(("column", string(column))) }
                    if attribute.transient == true { fields.append(("transient", "true")) }
                    if attribute.externalStorage == true { fields.append(("external_storage", "true")) }
                    if let elements = attribute.elements {
                        let items = elements.map { element in
                            var fields = [
                                ("path", "[" + element.path.map(string).joined(separator: ", ") + "]"), ("type", string(element.type)),
                            ]
                            if let column = element.column { fields.append(("column", string(column))) }
                            if let stored = element.storeColumn { fields.append(("store_column", string(stored))) }
                            return DescriptionWriter.object(fields)
                        }
                        fields.append(("elements", "[\n            " + items.joined(separator: ",\n            ") + "\n          ]"))
                    }
                    return DescriptionWriter.object(fields)
                }
                let relationships = entity.relationships.map { relationship in
                    var fields = [("name", string(relationship.name)), ("to_many", relationship.toMany ? "true" : "false")]
                    if relationship.ordered == true { fields.append(("ordered", "true")) }
                    if let destination = relationship.destination { fields.append(("destination", string(destination))) }
                    if let inverse = relationship.inverse { fields.append(("inverse", string(inverse))) }
                    if relationship.transient == true { fields.append(("transient", "true")) }
                    if let column = relationship.column { fields.append(("column", string(column))) }
                    if let table = relationship.linkTable { fields.append(("link_table", string(table))) }
                    return DescriptionWriter.object(fields)
                }
                fields.append(("attributes", "[\n          " + attributes.joined(separator: ",\n          ") + "\n        ]"))
                fields.append(
                    (
                        "relationships",
                        relationships.isEmpty ? "[]" : "[\n          " + relationships.joined(separator: ",\n          ") + "\n        ]"
                    ))
                return "{\n        " + fields.map { "\(string($0.0)): \($0.1)" }.joined(separator: ",\n        ") + "\n      }"
            }
            var hashes = ""
            if let known = version.hashes, !known.isEmpty {
                hashes =
                    ",\n      \"hashes\": " + DescriptionWriter.object(known.sorted { $0.key < $1.key }.map { ($0.key, string($0.value)) })
            }
            return
                "{\n      \"version\": \(string(version.version)),\n      \"model\": \(string(version.model)),\n      \"entities\": [\n      "
                + entities.joined(separator: ",\n      ") + "\n      ]" + hashes + "\n    }"
        }
        return "{\n  \"format\": \(format),\n  \"versions\": [\n    " + items.joined(separator: ",\n    ") + "\n  ]\n}\n"
    }
}
