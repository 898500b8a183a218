import Foundation
@_spi(Generated) import LucidSchema

/// `elements_from`: a composite added at a version replaces separate properties of its entity, whose
/// columns become its elements'.
extension ShapeBuilder {
    /// Checks `elements_from`: on a composite added after the entity's first version, each element a column
    /// of the composite, each property one of the entity's values, removed at the composite's version, and
    /// used once.
    func checkElementsFrom(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        let entity = timeline.entity
        for property in entity.properties where !property.elementsFrom.isEmpty {
            let location = property.elementsFromLocation ?? property.location
            let path = property.path + ".elements_from"
            guard case .composite = property.type else {
                diagnostics.error(
                    "elements_from is for a composite (\"composite\": true): '\(property.name)' is not one", at: location, path: path)
                continue
            }
            guard let added = property.addedAtVersion, added > timeline.firstVersion else {
                diagnostics.error(
                    "elements_from says which properties composite '\(property.name)' replaces at the version it is added at: give it an added_at_version after the first version of '\(entity.name)'",
                    at: location, path: path)
                continue
            }
            var used: Set<String> = []
            for (element, source) in property.elementsFrom {
                let parts = element.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                if case .failure(let problem) = compositeElement(property, path: parts) {
                    diagnostics.error(
                        "elements_from of '\(property.name)' names '\(element)': \(problem)", at: location, path: path + "." + element)
                    continue
                }
                guard let old = entity.properties.first(where: { $0.name == source }) else {
                    diagnostics.error(
                        "elements_from of '\(property.name)' maps '\(element)' to '\(source)', which is not a property of '\(entity.name)'",
                        at: location, path: path + "." + element)
                    continue
                }
                switch old.type {
                case .scalar, .subtype: break
                default:
                    diagnostics.error(
                        "elements_from of '\(property.name)' maps '\(element)' to '\(source)', a \(old.type): only a value's column can become an element",
                        at: location, path: path + "." + element)
                    continue
                }
                if old.removedAtVersion != added {
                    diagnostics.error(
                        "elements_from of '\(property.name)' maps '\(element)' to '\(source)', which must be removed at \(added), the version the composite replaces it at: add \"removed_at_version\": \"\(added)\" to '\(source)'",
                        at: location, path: path + "." + element)
                }
                if !used.insert(source).inserted {
                    diagnostics.error(
                        "elements_from of '\(property.name)' maps two elements to '\(source)'", at: location, path: path + "." + element)
                }
            }
        }
    }
}

extension ShapeBuilder {
    /// A composite replacing separate properties at this version (`elements_from`): each element whose
    /// property was a value at the previous version takes over its column (`renamedFrom`), values and all.
    /// `columns` are the composite's, in the order of its leaves.
    func takeOverElementsFrom(
        _ property: PropertyShape, _ composite: CompositeShape, optional: Bool, of owner: ColumnOwner, columns: inout [SchemaColumn]
    ) {
        guard let old = owner.previousShape, !old.properties.contains(where: { $0.currentName == property.currentName }),
            let description = owner.description(of: property), !description.elementsFrom.isEmpty
        else { return }
        let sources = Dictionary(description.elementsFrom.map { ($0.element, $0.property) }, uniquingKeysWith: { a, _ in a })
        for (index, leaf) in composite.leaves(optional: optional).enumerated() {
            guard let source = sources[leaf.identityPath.joined(separator: ".")],
                let was = old.properties.first(where: { $0.currentName == source }), case .value = was.kind
            else { continue }
            columns[index].renamedFrom = was.column
        }
    }
}
