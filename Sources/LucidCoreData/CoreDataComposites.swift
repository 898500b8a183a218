import Foundation
import LucidSchema

/// Composite attributes (SwiftData's Codable structs): one column per element on the entity's table. That
/// they are flattened so is published (see the SwiftData guide); how Core Data names those columns is not,
/// so each element's column is found in the store itself by its name, and a store where that is not one
/// column is refused, never converted with a guess. The origin file's `store_column` says it by hand.
extension CoreDataConverter {
    /// The name an element's column is matched by: in capitals, without underscores (Core Data's `Z`
    /// prefix, the attribute, then the member path, however they are joined).
    static func elementKey(_ text: String) -> String { text.uppercased().replacingOccurrences(of: "_", with: "") }

    /// `version` with each composite attribute replaced by one attribute per element, named by its member
    /// path (`home.city`), whose store column was found in `tables`; and what could not be found (each a
    /// difference from the store's layout).
    func expandingComposites(_ version: CoreDataOrigin.Version, tables: StoreTables) -> (CoreDataOrigin.Version, problems: [String]) {
        guard version.entities.contains(where: { $0.attributes.contains { $0.elements != nil } }) else { return (version, []) }
        var expanded = version
        var problems: [String] = []
        for (e, entity) in version.entities.enumerated() where entity.attributes.contains(where: { $0.elements != nil }) {
            let rootName = root(of: entity, in: version).name
            let table = "Z" + rootName.uppercased()
            let actual = tables.columns(of: table)
            // Columns the table's other values are stored in: a composite's element is none of them.
            let members = version.entities.filter { root(of: $0, in: version).name == rootName }
            let claimed = Set(
                members.flatMap { member in
                    member.attributes.filter { $0.elements == nil && $0.transient != true }.map(\.storedColumn)
                        + member.relationships.filter { !$0.toMany && $0.transient != true }.map { "Z" + $0.name.uppercased() }
                })
            var attributes: [CoreDataOrigin.Attribute] = []
            for attribute in entity.attributes {
                guard let elements = attribute.elements else {
                    attributes.append(attribute)
                    continue
                }
                if attribute.transient == true { continue }
                for element in elements {
                    let label = "\(entity.name).\(attribute.name).\(element.path.joined(separator: "."))"
                    var leaf = CoreDataOrigin.Attribute(
                        name: "\(attribute.name).\(element.path.joined(separator: "."))", type: element.type)
                    leaf.column = element.column
                    if let given = element.storeColumn {
                        guard actual[given.uppercased()] != nil else {
                            problems.append(
                                "\(table) has no column \(given.uppercased()), which the origin's store_column of \(label) names")
                            continue
                        }
                        leaf.storeColumn = given.uppercased()
                    } else {
                        let key = Self.elementKey("Z" + attribute.name + element.path.joined())
                        let found = actual.keys.filter { !claimed.contains($0) && Self.elementKey($0) == key }.sorted()
                        guard found.count == 1, CoreDataOrigin.isIdentifier(found[0]) else {
                            let looked = "Z" + ([attribute.name] + element.path).joined(separator: "_").uppercased()
                            problems.append(
                                found.isEmpty
                                    ? "\(table) has no column for \(label), a composite's element (looked for one named like \(looked), underscores anywhere; if the store names it otherwise, write its store_column in the origin file)"
                                    : "\(table) has \(found.count) columns that could hold \(label), a composite's element (\(found.joined(separator: ", "))): which one is not guessed; write its store_column in the origin file"
                            )
                            continue
                        }
                        leaf.storeColumn = found[0]
                    }
                    attributes.append(leaf)
                }
            }
            expanded.entities[e].attributes = attributes
        }
        return (expanded, problems)
    }
}
