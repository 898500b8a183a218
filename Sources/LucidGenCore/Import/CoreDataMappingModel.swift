import Foundation
import LucidSchema

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A Core Data mapping model (`Name.xcmappingmodel`): the file an app keeps for a migration Core Data cannot
/// infer, read so that the import turns it into a declared stage (``CoreDataMappingStages``).
///
/// The package holds `xcmapping.xml`, a Core Data XML store of Xcode's editing objects: one `XDDEVMAPPINGMODEL`
/// (`sourcemodelpath`, `destinationmodelpath`, the `entitymappings` it holds), an `XDDEVENTITYMAPPING` per entity
/// mapping (`name`, `sourcename`, `destinationname`, `mappingtypename`, `migrationpolicyclassname`,
/// `sourcefilterpredicatestring`, `mappingnumber`, its `attributemappings` and `relationshipmappings`) and an
/// `XDDEVATTRIBUTEMAPPING` / `XDDEVRELATIONSHIPMAPPING` per property mapping (`name`, `autogenerateexpression`, an
/// archived `valueexpressiondata`). Apple does not document it; the names read here are the ones public tools
/// that read the file use (the Core Data guide lists them). Archived data (expressions, the models' copies) is
/// never decoded: a value expression written by hand is reported as such, to be read in Xcode.
package struct CoreDataMappingModel: Sendable {
    /// The mapping model's name: its folder without `.xcmappingmodel` (`Shop2to3`).
    package var name: String
    /// Where reports point: the `xcmapping.xml` as the path it was read from names it
    /// (`Model/Shop2to3.xcmappingmodel/xcmapping.xml`).
    package var file: String
    /// The model versions it maps between, as their names (the recorded paths' last component without
    /// `.xcdatamodel`), with the line of the mapping model object.
    package var source: String?
    package var destination: String?
    package var line: Int
    /// In the order the author put them in (`mappingnumber`).
    package var entityMappings: [EntityMapping]

    package struct EntityMapping: Sendable, Equatable {
        package var name: String
        package var source: String?
        package var destination: String?
        /// `Copy`, `Transform`, `Add`, `Remove`, `Custom`, `Undefined`, as Xcode writes it.
        package var type: String?
        package var policyClass: String?
        package var filter: String?
        /// Property mappings whose value expression was written by hand (not the generated `$source.name`).
        package var writtenAttributes: [String]
        package var writtenRelationships: [String]
        package var line: Int
    }

    /// Reads `path` (an `.xcmappingmodel` folder, or its `xcmapping.xml`).
    package static func read(_ path: String) throws -> CoreDataMappingModel {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CoreDataImportError(location: path, message: "no mapping model here (an .xcmappingmodel folder)")
        }
        let xml = isFolder.boolValue ? (path as NSString).appendingPathComponent("xcmapping.xml") : path
        let folder = isFolder.boolValue ? path : (path as NSString).deletingLastPathComponent
        let name = ((folder as NSString).lastPathComponent as NSString).deletingPathExtension
        guard let data = FileManager.default.contents(atPath: xml) else {
            throw CoreDataImportError(location: xml, message: "cannot read the mapping model's xcmapping.xml")
        }
        return try parse(data, name: name, file: xml)
    }

    /// Parses an `xcmapping.xml`. Throws ``CoreDataImportError`` naming the file and line of what is not a mapping model.
    package static func parse(_ data: Data, name: String, file: String) throws -> CoreDataMappingModel {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false // the file names Core Data's DTD by a file: URL; never read
        let reader = Reader()
        parser.delegate = reader
        if !parser.parse() {
            throw CoreDataImportError(
                location: "\(file):\(parser.lineNumber)",
                message: "not well-formed XML (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"))")
        }
        guard let root = reader.objects.first(where: { $0.type == "XDDEVMAPPINGMODEL" }) else {
            throw CoreDataImportError(location: "\(file):1", message: "no XDDEVMAPPINGMODEL object: not an Xcode mapping model")
        }
        let byID = Dictionary(reader.objects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        func modelName(_ path: String?) -> String? {
            guard let path, !path.isEmpty else { return nil }
            let last = (path as NSString).lastPathComponent
            return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
        }
        func written(_ ids: [String]) -> [String] {
            ids.compactMap { byID[$0] }.filter { property in
                !property.flag("autogenerateexpression") && !(property.attributes["valueexpressiondata"] ?? "").isEmpty
            }.compactMap { $0.attributes["name"] }
        }
        // The root's own list when it has one (the author's mappings), else every entity mapping in the file.
        let listed =
            root.references["entitymappings"].map { $0.compactMap { byID[$0] } }
            ?? reader.objects.filter { $0.type == "XDDEVENTITYMAPPING" }
        let ordered = listed.filter { $0.type == "XDDEVENTITYMAPPING" }.enumerated().sorted { a, b in
            let (x, y) = (a.element.attributes["mappingnumber"].flatMap(Int.init), b.element.attributes["mappingnumber"].flatMap(Int.init))
            if let x, let y, x != y { return x < y }
            return a.offset < b.offset
        }.map(\.element)
        let mappings = ordered.map { object in
            let source = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
            let destination = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
            let given = object.attributes["name"] ?? ""
            return EntityMapping(
                name: given.isEmpty ? [source, destination].compactMap { $0 }.joined(separator: "To") : given,
                source: source, destination: destination,
                type: object.attributes["mappingtypename"].flatMap { $0.isEmpty ? nil : $0 },
                policyClass: object.attributes["migrationpolicyclassname"].flatMap { $0.isEmpty ? nil : $0 },
                filter: object.attributes["sourcefilterpredicatestring"].flatMap { $0.isEmpty || $0 == "TRUEPREDICATE" ? nil : $0 },
                writtenAttributes: written(object.references["attributemappings"] ?? []),
                writtenRelationships: written(object.references["relationshipmappings"] ?? []),
                line: object.line)
        }
        return CoreDataMappingModel(
            name: name, file: file, source: modelName(root.attributes["sourcemodelpath"]),
            destination: modelName(root.attributes["destinationmodelpath"]), line: root.line, entityMappings: mappings)
    }

    /// The mapping models beside a model package (`Model.xcdatamodeld`'s folder), by name.
    package static func besides(_ packagePath: String) -> [String] {
        let folder = (packagePath as NSString).deletingLastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return entries.filter { $0.hasSuffix(".xcmappingmodel") }.sorted().map { (folder as NSString).appendingPathComponent($0) }
    }

    /// One `<object>` of the file: its string attributes and relationship references, by lowercased name.
    private struct Object {
        var type: String
        var id: String
        var line: Int
        var attributes: [String: String] = [:]
        var references: [String: [String]] = [:]
        func flag(_ key: String) -> Bool { ["1", "yes", "true"].contains((attributes[key] ?? "").lowercased()) }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var objects: [Object] = []
        private var current: Object?
        private var attribute: String?
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch element {
            case "object":
                current = Object(type: (attributes["type"] ?? "").uppercased(), id: attributes["id"] ?? "", line: parser.lineNumber)
            case "attribute" where current != nil:
                attribute = attributes["name"]?.lowercased()
                text = ""
            case "relationship" where current != nil:
                if let name = attributes["name"]?.lowercased() {
                    current?.references[name] = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if attribute != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            switch element {
            case "attribute":
                if let name = attribute { current?.attributes[name] = text.trimmingCharacters(in: .whitespacesAndNewlines) }
                attribute = nil
            case "object":
                if let finished = current { objects.append(finished) }
                current = nil
            default:
                break
            }
        }
    }
}

/// What the import makes of an app's mapping models: a stage for each (declared in `.lucid.yaml`, with the
/// mapping's entity mappings as the stage's notes, which the generated requirement's comment lists), and notes
/// for what could not become one.
package struct CoreDataMappingStages: Sendable {
    package struct Stage: Sendable, Equatable {
        package var name: String
        package var from: SchemaVersion
        package var to: SchemaVersion
        /// One line each: the entity mappings, as the generated comment lists them.
        package var notes: [String]
    }

    package var stages: [Stage] = []
    package var notes: [CoreDataImporter.Note] = []

    /// Resolves each mapping model's source and destination against the package's versions.
    package init(_ mappings: [CoreDataMappingModel], package: CoreDataModelPackage) {
        let versions = Dictionary(package.versions.map { ($0.model.name, $0.version) }, uniquingKeysWith: { first, _ in first })
        var taken: Set<String> = []
        for mapping in mappings {
            let at = "\(mapping.file):\(mapping.line)"
            guard let sourceName = mapping.source, let destinationName = mapping.destination else {
                notes.append(
                    .init(
                        location: at,
                        message:
                            "mapping model \(mapping.name) does not name the model versions it maps between; no stage made: declare one in .lucid.yaml by hand"
                    ))
                continue
            }
            guard let from = versions[sourceName], let to = versions[destinationName] else {
                let missing = [sourceName, destinationName].filter { versions[$0] == nil }.map { "'\($0)'" }.joined(separator: " and ")
                notes.append(
                    .init(
                        location: at,
                        message:
                            "mapping model \(mapping.name) maps \(sourceName) → \(destinationName), but the import has no model version \(missing) (not in the package or left out by the version map); no stage made"
                    ))
                continue
            }
            guard from < to else {
                notes.append(
                    .init(
                        location: at,
                        message:
                            "mapping model \(mapping.name) maps \(sourceName) (\(from)) → \(destinationName) (\(to)), not to a newer version; no stage made"
                    ))
                continue
            }
            var name = Self.stageName(mapping.name)
            if taken.contains(name) {
                var number = 2
                while taken.contains("\(name)\(number)") { number += 1 }
                name += "\(number)"
            }
            taken.insert(name)
            let lines = mapping.entityMappings.map(Self.describe)
            stages.append(
                Stage(
                    name: name, from: from, to: to,
                    notes: ["from mapping model \(mapping.name) (\(sourceName) → \(destinationName)):"] + lines))
            let custom = mapping.entityMappings.filter {
                $0.policyClass != nil || $0.filter != nil || !$0.writtenAttributes.isEmpty || !$0.writtenRelationships.isEmpty
            }
            notes.append(
                .init(
                    location: at,
                    message:
                        "mapping model \(mapping.name) (\(from) → \(to)) becomes stage `\(name)` in .lucid.yaml: `lucidgen generate` asks for its code, "
                        + "with the \(mapping.entityMappings.count) entity mapping\(mapping.entityMappings.count == 1 ? "" : "s") listed in the requirement's comment"
                        + (custom.isEmpty
                            ? ""
                            : "; write what \(custom.map(\.name).joined(separator: ", ")) did (policy classes, filters, hand-written expressions)")
                ))
        }
    }

    /// A Swift identifier from a mapping model's name: `Shop 2 to 3` → `shop2To3`, `Model1to2` → `model1to2`.
    static func stageName(_ name: String) -> String {
        let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
        var result = words.enumerated().map { index, word in
            index == 0 ? word.prefix(1).lowercased() + word.dropFirst() : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
        if result.isEmpty || result.first!.isNumber { result = "mapping" + result.prefix(1).uppercased() + result.dropFirst() }
        if Naming.swiftKeywords.contains(result) { result += "Mapping" }
        return result
    }

    /// One entity mapping on one line: `ItemToItem: Item → Item (Transform; policy ItemPolicy; filter …; written: price)`.
    static func describe(_ mapping: CoreDataMappingModel.EntityMapping) -> String {
        var details: [String] = []
        if let type = mapping.type { details.append(type) }
        if let policy = mapping.policyClass { details.append("policy \(policy)") }
        if let filter = mapping.filter { details.append("filter \(filter)") }
        if !mapping.writtenAttributes.isEmpty { details.append("attributes by hand: \(mapping.writtenAttributes.joined(separator: ", "))") }
        if !mapping.writtenRelationships.isEmpty {
            details.append("relationships by hand: \(mapping.writtenRelationships.joined(separator: ", "))")
        }
        let line =
            "\(mapping.name): \(mapping.source ?? "(none)") → \(mapping.destination ?? "(none)")"
            + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))")
        // It goes into a YAML string and a `///` comment: one line, no control characters.
        return String(String.UnicodeScalarView(line.unicodeScalars.map { ObjectReader.isControlOrLineBreak($0) ? " " : $0 }))
    }
}
