@_spi(Generated) import LucidSchema

/// A table (or one column of it) whose values the generated migration tests leave unchecked for stores of
/// some versions: Lucid's ignore keys, resolved to the newest tables.
package struct CheckExclusionTarget: Sendable, Equatable {
    package var table: String
    /// nil: the whole table.
    package var column: String?
    package var from: SchemaVersion?
    package var before: SchemaVersion
    /// Which key of which description asks for it, for comments and messages.
    package var reason: String
}

extension ResolvedModel {
    /// Every entity's check exclusions, on the newest tables (removed entities have none to check).
    package var checkExclusionTargets: [CheckExclusionTarget] {
        var targets: [CheckExclusionTarget] = []
        for entity in entities {
            guard let newest = entity.newest else { continue }
            var joinTables: [String: String] = [:]
            for property in newest.properties {
                if case .toMany(_, _, _, let joinTable, _, _, _) = property.kind { joinTables[property.currentName] = joinTable }
            }
            for exclusion in entity.checkExclusions {
                func add(table: String, column: String?, reason: String) {
                    targets.append(
                        CheckExclusionTarget(table: table, column: column, from: exclusion.from, before: exclusion.before, reason: reason))
                }
                guard let name = exclusion.property else {
                    let reason = "\(entity.name): ignore_migration_checks at \(exclusion.before)"
                    add(table: newest.tableName, column: nil, reason: reason)
                    for joinTable in joinTables.values.sorted() { add(table: joinTable, column: nil, reason: reason) }
                    continue
                }
                let reason = "\(entity.name).\(name): ignore_property_migration_checks_on at \(exclusion.before)"
                if let joinTable = joinTables[name] {
                    add(table: joinTable, column: nil, reason: reason)
                } else if let property = newest.properties.first(where: { $0.currentName == name }) {
                    add(table: newest.tableName, column: property.column, reason: reason)
                }
            }
        }
        return targets
    }
}
