import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One model version of an `.xcdatamodeld` package, as its `contents` XML says it: what the importer reads
/// (``CoreDataImporter``). Every element keeps its line, so that each decision is reported where it was made.
///
/// The format is Xcode's (not documented by Apple); the elements and attributes read here are the ones
/// atomicbird/momcom and SwiftGen read, listed in the Core Data guide's "What the importer reads".
package struct CoreDataModel: Sendable {
    /// The model version's name: its folder without `.xcdatamodel` (`Wikipedia 2`).
    package var name: String
    /// Where reports point: `Wikipedia 2.xcdatamodel/contents`.
    package var file: String
    package var entities: [Entity]
    /// Elements with no place in SQLite (configurations, fetch requests), with their lines.
    package var unstored: [(what: String, line: Int)]

    package struct Entity: Sendable {
        package var name: String
        package var line: Int
        package var representedClassName: String?
        package var parentEntity: String?
        package var isAbstract: Bool
        package var elementID: String?
        package var attributes: [Attribute] = []
        package var relationships: [Relationship] = []
        /// `fetchIndex` items and the older `compoundIndexes`: property names, in order.
        package var indexes: [Index] = []
        /// `uniquenessConstraints`: each constraint's property names.
        package var uniquenessConstraints: [(properties: [String], line: Int)] = []
        package var fetchedProperties: [(name: String, line: Int)] = []
        package var hasUserInfo: Int? = nil
    }

    package struct Attribute: Sendable {
        package var name: String
        package var line: Int
        package var type: String?
        package var optional: Bool
        package var transient: Bool
        package var indexed: Bool
        package var defaultValueString: String?
        package var defaultDateTimeInterval: String?
        package var valueTransformerName: String?
        package var customClassName: String?
        package var externalStorage: Bool
        package var elementID: String?
        package var derivation: String?
        package var hasUserInfo: Bool = false
        /// A composite attribute's structure (`type` is `Composite`): SwiftData's Codable struct, one column per
        /// element on the entity's table.
        package var composite: Composite? = nil
    }

    /// A composite attribute's struct: its members in order, each a value or a nested struct.
    package struct Composite: Sendable, Hashable {
        /// The struct's Swift name (`Address`), which names its subtype.
        package var name: String
        package var members: [Member]

        package struct Member: Sendable, Hashable {
            package var name: String
            package var optional: Bool
            package var kind: Kind
        }

        package indirect enum Kind: Sendable, Hashable {
            /// A Core Data attribute type (`String`, `Integer 64`).
            case value(String)
            case nested(Composite)
        }

        /// Whether some element is required all the way down: an optional composite of it is nil exactly
        /// when its columns are all NULL.
        package var hasRequiredLeaf: Bool {
            members.contains { member in
                guard !member.optional else { return false }
                if case .nested(let inner) = member.kind { return inner.hasRequiredLeaf }
                return true
            }
        }

        /// Every element at any depth, depth first: its member path and Core Data type.
        package var leaves: [(path: [String], type: String)] {
            members.flatMap { member -> [(path: [String], type: String)] in
                switch member.kind {
                case .value(let type): [([member.name], type)]
                case .nested(let inner): inner.leaves.map { ([member.name] + $0.path, $0.type) }
                }
            }
        }
    }

    package struct Relationship: Sendable {
        package var name: String
        package var line: Int
        package var optional: Bool
        package var toMany: Bool
        package var ordered: Bool
        package var deletionRule: String
        package var destination: String?
        package var inverseName: String?
        package var inverseEntity: String?
        package var elementID: String?
        package var transient: Bool
    }

    package struct Index: Sendable {
        package var name: String?
        package var properties: [String]
        package var descending: Bool
        package var line: Int
        /// Why SQLite's plain indexes cannot say it (an R-tree, an expression), if so.
        package var unsupported: String? = nil
    }

    /// Parses a `contents` file. Throws ``CoreDataImportError`` naming the file and line of what is not
    /// a model.
    package static func parse(_ data: Data, name: String, file: String) throws -> CoreDataModel {
        guard data.count <= fileLimit else {
            throw CoreDataImportError(
                location: file, message: "larger than \(fileLimit >> 20) MB, far beyond any model Xcode writes: not read")
        }
        // A model has no document type; one declaring entities could expand them without bound.
        if data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw CoreDataImportError(
                location: file, message: "declares XML entities (<!ENTITY), which no model Xcode writes has: not read")
        }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let reader = Reader(file: file)
        parser.delegate = reader
        if !parser.parse() || reader.failure != nil {
            let line = reader.failure?.line ?? parser.lineNumber
            throw CoreDataImportError(
                location: "\(file):\(line)",
                message: reader.failure?.message
                    ?? "not well-formed XML (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"))")
        }
        guard reader.sawModel else {
            throw CoreDataImportError(location: "\(file):1", message: "no <model> element: not an Xcode data model")
        }
        return CoreDataModel(name: name, file: file, entities: reader.entities, unstored: reader.unstored)
    }

    /// A model's `contents` is at most a few hundred KB; sixteen MB is far beyond any Xcode writes.
    static let fileLimit = 16 << 20
    /// Elements within elements: a model nests six deep (model, entity, attribute, userInfo, entry); a file
    /// nested deeper than this is no model, and is stopped before it exhausts the parser's stack.
    static let depthLimit = 32

    /// The XML delegate: a small state machine over the elements the importer reads.
    private final class Reader: NSObject, XMLParserDelegate {
        let file: String
        var entities: [Entity] = []
        var unstored: [(what: String, line: Int)] = []
        var failure: (line: Int, message: String)?
        var sawModel = false
        private var stack: [String] = []
        private var index: Index?
        private var constraint: (properties: [String], line: Int)?

        init(file: String) { self.file = file }

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let line = parser.lineNumber
            let parent = stack.last
            stack.append(element)
            guard stack.count <= CoreDataModel.depthLimit else {
                if failure == nil {
                    failure = (line, "elements nested more than \(CoreDataModel.depthLimit) deep: not an Xcode data model")
                }
                parser.abortParsing()
                return
            }
            func flag(_ key: String) -> Bool { attributes[key] == "YES" }
            func required(_ key: String) -> String? {
                guard let value = attributes[key], !value.isEmpty else {
                    if failure == nil { failure = (line, "<\(element)> without \(key)") }
                    return nil
                }
                return value
            }
            switch (parent, element) {
            case (nil, "model"):
                sawModel = true
            case (nil, _):
                if failure == nil { failure = (line, "the root element is <\(element)>, not <model>: not an Xcode data model") }
            case ("model", "entity"):
                guard let name = required("name") else { return }
                entities.append(
                    Entity(
                        name: name, line: line, representedClassName: attributes["representedClassName"],
                        parentEntity: attributes["parentEntity"],
                        isAbstract: flag("isAbstract"), elementID: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 }))
            case ("model", "configuration"):
                unstored.append(("configuration \(attributes["name"] ?? "")", line))
            case ("model", "fetchRequest"):
                unstored.append(("fetch request \(attributes["name"] ?? "")", line))
            case ("entity", "attribute"):
                guard let name = required("name"), !entities.isEmpty else { return }
                entities[entities.count - 1].attributes.append(
                    Attribute(
                        name: name, line: line, type: attributes["attributeType"], optional: flag("optional"), transient: flag("transient"),
                        indexed: flag("indexed"), defaultValueString: attributes["defaultValueString"],
                        defaultDateTimeInterval: attributes["defaultDateTimeInterval"],
                        valueTransformerName: attributes["valueTransformerName"],
                        customClassName: attributes["customClassName"], externalStorage: flag("allowsExternalBinaryDataStorage"),
                        elementID: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 },
                        derivation: flag("derived") ? (attributes["derivationExpression"] ?? "") : nil))
            case ("entity", "relationship"):
                guard let name = required("name"), !entities.isEmpty else { return }
                // Core Data's default for a relationship without maxCount is to-many only when toMany says so.
                entities[entities.count - 1].relationships.append(
                    Relationship(
                        name: name, line: line, optional: flag("optional"), toMany: flag("toMany"), ordered: flag("ordered"),
                        deletionRule: attributes["deletionRule"] ?? "Nullify", destination: attributes["destinationEntity"],
                        inverseName: attributes["inverseName"], inverseEntity: attributes["inverseEntity"],
                        elementID: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 }, transient: flag("transient")))
            case ("entity", "fetchedProperty"):
                guard !entities.isEmpty else { return }
                entities[entities.count - 1].fetchedProperties.append((attributes["name"] ?? "", line))
            case ("entity", "userInfo"):
                if !entities.isEmpty { entities[entities.count - 1].hasUserInfo = line }
            case ("attribute", "userInfo"), ("relationship", "userInfo"):
                if let last = entities.last, !last.attributes.isEmpty, parent == "attribute" {
                    entities[entities.count - 1].attributes[last.attributes.count - 1].hasUserInfo = true
                }
            case ("entity", "fetchIndex"):
                index = Index(name: attributes["name"], properties: [], descending: false, line: line)
            case ("fetchIndex", "fetchIndexElement"):
                if let property = attributes["property"] { index?.properties.append(property) }
                if attributes["order"] == "descending" { index?.descending = true }
                if attributes["property"] == nil || attributes["type"] == "RTree" {
                    index?.unsupported = attributes["type"] == "RTree" ? "an R-tree index" : "an index on an expression"
                }
            case ("compoundIndexes", "compoundIndex"):
                index = Index(name: nil, properties: [], descending: false, line: line)
            case ("compoundIndex", "index"):
                if let value = attributes["value"] { index?.properties.append(value) }
            case ("uniquenessConstraints", "uniquenessConstraint"):
                constraint = ([], line)
            case ("uniquenessConstraint", "constraint"):
                if let value = attributes["value"] { constraint?.properties.append(value) }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
            switch element {
            case "fetchIndex", "compoundIndex":
                if let finished = index, !entities.isEmpty, !finished.properties.isEmpty {
                    entities[entities.count - 1].indexes.append(finished)
                }
                index = nil
            case "uniquenessConstraint":
                if let finished = constraint, !entities.isEmpty, !finished.properties.isEmpty {
                    entities[entities.count - 1].uniquenessConstraints.append(finished)
                }
                constraint = nil
            default:
                break
            }
        }
    }
}

/// An import that cannot go on, located at `<version>.xcdatamodel/contents:line` or at the package.
package struct CoreDataImportError: Error, CustomStringConvertible, Sendable {
    package var location: String
    package var message: String
    package init(location: String, message: String) {
        self.location = location
        self.message = message
    }
    package var description: String { "\(location): error: \(message)" }
}

/// Every refusal of one import, each located, with the notes found on the way: all that stops the history
/// in one run, so that it is fixed in one go. Nothing is written while there is one.
package struct CoreDataImportRefusals: Error, CustomStringConvertible, Sendable {
    package var errors: [CoreDataImportError]
    package var notes: [CoreDataImporter.Note]
    package init(errors: [CoreDataImportError], notes: [CoreDataImporter.Note] = []) {
        self.errors = errors
        self.notes = notes
    }
    package var description: String { (errors.map(\.description) + notes.map(\.description)).joined(separator: "\n") }
}
