import Foundation

/// The one writer of description documents: keys in one fixed order, each property, index and history item
/// on a line of its own where the layout says so, every string escaped by ``string(_:)``. The same document
/// gives the same bytes.
package enum DescriptionWriter {
    /// Where `version_history` goes: on the entity's line (`describe`), or an item a line (`import coredata`,
    /// whose histories are long).
    package enum Layout: Sendable {
        case versionHistoryInline
        case versionHistoryOnLines
    }

    package static func json(_ entity: DescriptionDocument, layout: Layout = .versionHistoryInline) -> String {
        var fields: [(String, String)] = [("name", string(entity.name))]
        if let value = entity.persistedName { fields.append(("persisted_name", string(value))) }
        if let value = entity.swiftName { fields.append(("swift_name", string(value))) }
        if let value = entity.takesNameOf { fields.append(("takes_name_of", string(value))) }
        if let value = entity.parent { fields.append(("parent", string(value))) }
        if let identifier = entity.identifier { fields.append(("identifier", json(identifier))) }
        if entity.abstract { fields.append(("abstract", "true")) }
        if entity.strict { fields.append(("strict", "true")) }
        if !entity.checks.isEmpty { fields.append(("checks", inlineArray(entity.checks.map(json)))) }
        if !entity.parentHistory.isEmpty {
            fields.append(
                (
                    "parent_history",
                    inlineArray(
                        entity.parentHistory.map {
                            object([("until_version", string($0.untilVersion)), ("parent", $0.parent.map(string) ?? "null")])
                        })
                ))
        }
        let history = entity.versionHistory.map { item in
            var fields = [("version", string(item.version))]
            if let name = item.previousName { fields.append(("previous_name", string(name))) }
            if item.ignoreMigrationChecks { fields.append(("ignore_migration_checks", "true")) }
            if !item.ignorePropertyMigrationChecksOn.isEmpty {
                fields.append(("ignore_property_migration_checks_on", inlineArray(item.ignorePropertyMigrationChecksOn.map(string))))
            }
            return object(fields)
        }
        fields.append(("version_history", layout == .versionHistoryInline ? inlineArray(history) : linesArray(history)))
        if let value = entity.removedAtVersion { fields.append(("removed_at_version", string(value))) }
        fields.append(("properties", linesArray(entity.properties.map(json))))
        if !entity.indexes.isEmpty { fields.append(("indexes", linesArray(entity.indexes.map(json)))) }
        return "{\n" + fields.map { "  \(string($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    /// A string as JSON text: quotes, backslashes and control characters escaped (slashes kept as they are),
    /// the one escaping every description, origin file, plan note and fixture goes through.
    package static func string(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// A value as JSON text.
    package static func json(_ value: DescriptionDocument.Value) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let text): text
        case .string(let text): string(text)
        case .sql(let expression): object([("sql", string(expression))])
        }
    }

    /// A property type as JSON text: a scalar's name, or a relationship's object.
    package static func json(_ type: DescriptionDocument.PropertyType) -> String {
        switch type {
        case .scalar(let name):
            return string(name)
        case .relationship(let relationship):
            var fields = [("entity_name", string(relationship.entityName)), ("association", string(relationship.association.rawValue))]
            if relationship.ordered { fields.append(("ordered", "true")) }
            if let link = relationship.linkTable {
                let columns = link.columns
                var table = [
                    ("name", string(link.name)), ("source_column", string(columns.source)), ("target_column", string(columns.target)),
                ]
                if let index = columns.targetIndex { table.append(("target_index", string(index))) }
                if columns.strict { table.append(("strict", "true")) }
                if let action = columns.sourceOnUpdate { table.append(("source_on_update", string(action.descriptionName))) }
                if let action = columns.targetOnUpdate { table.append(("target_on_update", string(action.descriptionName))) }
                fields.append(("link_table", object(table)))
            }
            return object(fields)
        }
    }

    static func json(_ identifier: DescriptionDocument.Identifier) -> String {
        var fields: [(String, String)] = []
        if let type = identifier.type { fields.append(("type", string(type))) }
        if let name = identifier.propertyName { fields.append(("property_name", string(name))) }
        if identifier.autoincrement { fields.append(("autoincrement", "true")) }
        if let resolution = identifier.onConflict { fields.append(("on_conflict", string(resolution))) }
        return object(fields)
    }

    static func json(_ check: DescriptionDocument.Check) -> String {
        guard let name = check.name else { return string(check.expression) }
        return object([("name", string(name)), ("expression", string(check.expression))])
    }

    static func json(_ index: DescriptionDocument.Index) -> String {
        var fields = [("properties", "[" + index.properties.map(string).joined(separator: ", ") + "]")]
        if index.unique { fields.append(("unique", "true")) }
        if let resolution = index.onConflict { fields.append(("on_conflict", string(resolution))) }
        if let name = index.name { fields.append(("name", string(name))) }
        return object(fields)
    }

    static func json(_ property: DescriptionDocument.Property) -> String {
        var fields = [("name", string(property.name))]
        if let value = property.swiftName { fields.append(("swift_name", string(value))) }
        if let value = property.persistedName { fields.append(("persisted_name", string(value))) }
        if let value = property.takesNameOf { fields.append(("takes_name_of", string(value))) }
        fields.append(("property_type", json(property.type)))
        if property.composite { fields.append(("composite", "true")) }
        if let value = property.columnType { fields.append(("column_type", string(value))) }
        if let value = property.collation { fields.append(("collation", string(value))) }
        if property.nullable { fields.append(("nullable", "true")) }
        if let value = property.onConflict { fields.append(("on_conflict", string(value))) }
        if let value = property.check { fields.append(("check", string(value))) }
        if let generated = property.generated {
            fields.append(
                ("generated", object([("expression", string(generated.expression))] + (generated.stored ? [("stored", "true")] : []))))
        }
        if let value = property.defaultValue { fields.append(("default_value", json(value))) }
        if let value = property.onDelete { fields.append(("on_delete", string(value.descriptionName))) }
        if let value = property.onUpdate { fields.append(("on_update", string(value.descriptionName))) }
        if property.unique {
            fields.append(("unique", "true"))
        } else if property.indexed {
            fields.append(("indexed", "true"))
        }
        if let value = property.addedAtVersion { fields.append(("added_at_version", string(value))) }
        if let value = property.movedFrom { fields.append(("moved_from", string(value))) }
        if let value = property.removedAtVersion { fields.append(("removed_at_version", string(value))) }
        if let value = property.previousName { fields.append(("previous_name", string(value))) }
        if let value = property.renamedAtVersion { fields.append(("renamed_at_version", string(value))) }
        if !property.typeHistory.isEmpty { fields.append(("type_history", json(property.typeHistory))) }
        return object(fields)
    }

    /// A `type_history` array on one line.
    package static func json(_ typeHistory: [DescriptionDocument.TypeChange]) -> String { inlineArray(typeHistory.map(json)) }

    static func json(_ change: DescriptionDocument.TypeChange) -> String {
        var fields = [("until_version", string(change.untilVersion))]
        if let type = change.propertyType { fields.append(("property_type", json(type))) }
        if let nullable = change.nullable { fields.append(("nullable", nullable ? "true" : "false")) }
        if let value = change.defaultValue { fields.append(("default_value", json(value))) }
        if let name = change.persistedName { fields.append(("persisted_name", name.map(string) ?? "null")) }
        return object(fields)
    }

    /// `{ "key": value, … }` on one line.
    package static func object(_ fields: [(String, String)]) -> String {
        "{ " + fields.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + " }"
    }

    static func inlineArray(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }

    /// An array whose items are each on a line of their own, indented under an entity's key.
    static func linesArray(_ items: [String]) -> String { "[\n    " + items.joined(separator: ",\n    ") + "\n  ]" }
}
