import Foundation
import LucidRuntime
import LucidSchema

/// The Core Data model versions an app's history was imported from (`lucidgen import coredata`), each
/// mapped onto lucidgen's tables and columns of its version: what lets `LucidStore.open(atPath:registry:options:)`
/// recognise a user's Core Data store at any of those model versions and convert it into lucidgen's tables
/// (`StoreOptions.coreDataOrigin`).
///
/// The importer writes it as `<input_path>/.coredata/origin.json`; bundle that file with the app and read it:
///
/// ```swift
/// var options = StoreOptions()
/// options.coreDataOrigin = try CoreDataOrigin(contentsOf: Bundle.main.url(forResource: "origin", withExtension: "json")!)
/// let store = try LucidStore.open(atPath: path, registry: NotesSchema.self, options: options)
/// ```
public struct CoreDataOrigin: Sendable, Equatable {
    package var versions: [Version]

    /// Reads the importer's JSON.
    public init(json: Data) throws {
        do {
            let file = try JSONDecoder().decode(CoreDataOriginDocument.self, from: json)
            guard file.format == 1 else { throw CoreDataOriginError(message: "format \(file.format) is not one this runtime reads (1)") }
            versions = file.versions
            // Names end up in SQL (Core Data's `Z<NAME>` columns, lucidgen's tables): identifiers only.
            for version in versions {
                for entity in version.entities {
                    let names =
                        [entity.name, entity.parent, entity.table, entity.kind].compactMap { $0 }
                        + entity.attributes.flatMap { [$0.name, $0.column, $0.storeColumn].compactMap { $0 } }
                        + entity.attributes.flatMap { attribute in
                            (attribute.elements ?? []).flatMap { $0.path + [$0.column, $0.storeColumn].compactMap { $0 } }
                        }
                        + entity.relationships.flatMap { [$0.name, $0.destination, $0.inverse, $0.column, $0.linkTable].compactMap { $0 } }
                    if let bad = names.first(where: { !Self.isIdentifier($0) }) {
                        throw CoreDataOriginError(
                            message: "version \(version.version): '\(bad)' is not an identifier (letters, digits and underscores)")
                    }
                }
            }
        } catch let error as CoreDataOriginError {
            throw error
        } catch {
            throw CoreDataOriginError(message: "not the JSON `lucidgen import coredata` writes: \(error)")
        }
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && CharacterSet.letters.contains(first)) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && CharacterSet.alphanumerics.contains($0)) }
    }

    /// Reads the importer's JSON file (`<input_path>/.coredata/origin.json`).
    public init(contentsOf url: URL) throws {
        try self.init(json: try Data(contentsOf: url))
    }

    /// The model versions, oldest first, as `(lucidgen version, Core Data model version name)`.
    public var modelVersions: [(version: String, model: String)] { versions.map { ($0.version, $0.model) } }

    // The file's model is the one the importer writes it with.
    package typealias Version = CoreDataOriginDocument.Version
    package typealias Entity = CoreDataOriginDocument.Entity
    package typealias Attribute = CoreDataOriginDocument.Attribute
    package typealias Relationship = CoreDataOriginDocument.Relationship
}

/// The origin file is not what the importer writes.
public struct CoreDataOriginError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { "Core Data origin: \(message)" }
}
