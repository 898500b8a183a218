import Foundation
@_spi(Generated) import LucidSchema

/// Indexes: the ones the descriptions ask for (`indexed`, `unique`, `indexes`), checked, named and kept
/// at each version.
extension ShapeBuilder {
    /// The indexes an entity's description asks for, checked; and the names it gives its to-one
    /// relationships' indexes, by property.
    struct CheckedIndexes: Sendable {
        var indexes: [IndexDescription] = []
        var toOneIndexNames: [String: String] = [:]
    }

    /// Checks the indexes the descriptions ask for (`indexed`/`unique` on properties, the entity's
    /// `indexes`): every property named must be one of the entity's (by its current name) and have a
    /// column, and no two indexes may cover the same properties.
    func checkedIndexes(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) -> CheckedIndexes {
        let entity = timeline.entity
        var toOneIndexNames: [String: String] = [:]
        var specs: [IndexDescription] = []
        for property in entity.properties where property.indexed {
            let key = property.unique ? "unique" : "indexed"
            specs.append(
                IndexDescription(
                    properties: [property.name], unique: property.unique, location: property.location, path: property.path + "." + key))
        }
        specs += entity.indexes
        // A subentity's index may name its ancestors' properties too (they are columns of the same table).
        let named = timeline.propertiesWithInherited
        var accepted: [IndexDescription] = []
        for spec in specs {
            var valid = true
            for name in spec.properties {
                if let dot = name.firstIndex(of: "."), let property = named.first(where: { $0.name == name[..<dot] }) {
                    // An element of a composite: `color_scheme.primary`, `color_scheme.accent.red`.
                    let path = name[name.index(after: dot)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    let element = compositeElement(property, path: path)
                    if case .failure(let problem) = element {
                        diagnostics.error("index of '\(entity.name)' names '\(name)': \(problem)", at: spec.location, path: spec.path)
                        valid = false
                    } else if spec.unique, case .success(let type) = element, !SeedPlan.leafCanBeDistinct(type) {
                        // The seeders keep a unique index unique by giving its element a distinct value per row.
                        diagnostics.error(
                            "unique index of '\(entity.name)' names '\(name)', a composite element of type \(type), which cannot differ on every row (the generated tests and fixtures seed distinct values per row); make the index plain, or name an element of type string, int, double, float, date, url, data or color",
                            at: spec.location, path: spec.path)
                        valid = false
                    }
                    continue
                }
                guard let property = named.first(where: { $0.name == name }) else {
                    let renamed = named.first { $0.previousName == name }.map { " (did you mean '\($0.name)', its current name?)" } ?? ""
                    diagnostics.error(
                        "index of '\(entity.name)' names '\(name)', which is not one of its properties\(renamed)", at: spec.location,
                        path: spec.path)
                    valid = false
                    continue
                }
                if property.unused {
                    diagnostics.error(
                        "index of '\(entity.name)' names '\(name)', which is unused (it has no column)", at: spec.location, path: spec.path)
                    valid = false
                } else if case .composite(let type) = property.type {
                    diagnostics.error(
                        "index of '\(entity.name)' names '\(name)', a composite: name its elements instead (e.g. '\(name).\(Self.firstMember(of: type, subtypes) ?? "element")')",
                        at: spec.location, path: spec.path)
                    valid = false
                } else if case .relationship(_, true, _) = property.type {
                    diagnostics.error(
                        "index of '\(entity.name)' names '\(name)', a to-many relationship: it has no column (its links are in a join table, which is indexed already)",
                        at: spec.location, path: spec.path)
                    valid = false
                }
            }
            guard valid else { continue }
            // A `UNIQUE … ON CONFLICT` is the table's constraint, not an index lucidgen makes: a plain index the app
            // made beside it on the same columns (as a store may have both) is no duplicate of it.
            if let other = accepted.first(where: { $0.properties == spec.properties && ($0.onConflict == nil) == (spec.onConflict == nil) })
            {
                diagnostics.error(
                    "duplicate index: (\(spec.properties.joined(separator: ", "))) of '\(entity.name)' is already indexed (\(other.path)); keep one (\"unique\": true makes it unique)",
                    at: spec.location, path: spec.path)
                continue
            }
            if let name = spec.name, let other = accepted.first(where: { $0.name.map { sameSQLName($0, name) } ?? false }) {
                diagnostics.error(
                    "duplicate index name '\(name)' in '\(entity.name)' (also \(other.path))", at: spec.location, path: spec.path)
                continue
            }
            if spec.properties.count == 1, !spec.unique, let property = named.first(where: { $0.name == spec.properties[0] }),
                case .relationship(_, false, _) = property.type
            {
                // The column is always indexed; a name given here is that index's (a store GRDB made names it
                // `<table>_on_<column>`).
                if let name = spec.name {
                    toOneIndexNames[property.name] = name
                } else {
                    diagnostics.note(
                        "'\(entity.name).\(property.name)' is a to-one relationship, whose column is always indexed: \"indexed\" adds nothing",
                        at: spec.location, path: spec.path)
                }
                continue
            }
            if spec.properties.count == 1, case .property(let key) = entity.identifier.kind, key == spec.properties[0] {
                diagnostics.note(
                    "'\(entity.name).\(key)' is the identifier, the table's primary key, which is unique and indexed already",
                    at: spec.location, path: spec.path)
                continue
            }
            accepted.append(spec)
            if spec.unique { noteSmallUniqueIndex(spec, of: entity, &diagnostics) }
        }
        return CheckedIndexes(indexes: accepted, toOneIndexNames: toOneIndexNames)
    }

    /// A unique index none of whose columns can take a distinct value per row (only booleans,
    /// enumerations, option sets or JSON values) holds only so many rows: the seeders (`SeedPlan`) count
    /// through every combination of its values, then seed NULL in its nullable columns, or seed only that
    /// many rows of the table. Legitimate (one row per category), so a note, located on the index.
    private func noteSmallUniqueIndex(_ spec: IndexDescription, of entity: EntityDescription, _ diagnostics: inout DiagnosticCollector) {
        var combinations = 1
        var nullable: [String] = []
        for name in spec.properties {
            if case .property(let key) = entity.identifier.kind, key == name { return }
            guard let property = entity.properties.first(where: { $0.name == name }) else { return }
            let count: Int
            switch property.type {
            case .scalar(.bool): count = 2
            case .scalar: return // a distinct value per row
            case .relationship: return // references are a permutation of the target's rows
            case .composite: return // an index names its elements
            case .array: count = 1
            case .subtype(let type):
                switch subtypes[type]?.kind {
                case .enumeration(let cases)?: count = max(cases.count, 1)
                case .optionSet(let options)?: count = 1 << min(options.count, 62)
                case .structure?, nil: count = 1
                }
            }
            combinations = SeedPlan.saturatingMultiply(combinations, count)
            if property.nullable || property.lazy { nullable.append(name) }
        }
        let index = "(\(spec.properties.joined(separator: ", ")))"
        if nullable.isEmpty {
            diagnostics.note(
                "unique index \(index) of '\(entity.name)' allows only \(combinations) rows (one per combination of its values): the generated migration tests and `lucidgen fixtures` seed at most \(combinations) rows of '\(entity.name)', and references to it point at those rows",
                at: spec.location, path: spec.path)
        } else {
            diagnostics.note(
                "unique index \(index) of '\(entity.name)' has only \(combinations) combinations of values: the generated migration tests and `lucidgen fixtures` seed each once, then NULL in \(nullable.joined(separator: ", ")) (NULLs may repeat in a unique index)",
                at: spec.location, path: spec.path)
        }
    }

    /// The default name of an index: `<table>_<column>_…_index`, or `…_unique` (`<table>_on_<column>_…` under
    /// `column_naming: camel_case`).
    static func defaultIndexName(table: String, columns: [String], unique: Bool, naming: ColumnNaming = .asNamed) -> String {
        naming.indexName(table: table, columns: columns, unique: unique)
    }

    /// The described indexes of an entity's table at a version: each over properties that all exist then
    /// and have a column (an index goes with a removed property, and comes with the last of its properties
    /// to be added), columns named as at that version. `defaultNamed`: the names that are defaults.
    func describedIndexes(of timeline: EntityTimeline, table: String, at version: SchemaVersion) -> (
        indexes: [SchemaIndex], defaultNamed: Set<String>
    ) {
        // A subentity's index may cover its ancestors' properties: each is named as its owner names it then.
        let owners = [timeline] + timeline.ancestors(at: version).reversed()
        let live = owners.flatMap { $0.properties(at: version) }
        func columnName(_ property: PropertyDescription) -> String {
            (owners.first { owner in owner.entity.properties.contains { $0.name == property.name } } ?? timeline).columnName(
                property, at: version)
        }
        var indexes: [SchemaIndex] = []
        var defaultNamed: Set<String> = []
        for spec in timeline.indexes {
            var columns: [String] = []
            for name in spec.properties {
                if let dot = name.firstIndex(of: ".") {
                    // A composite element's column, while the property is a composite.
                    guard let property = live.first(where: { $0.name == name[..<dot] }), case .composite = property.asOf(version).type
                    else { break }
                    columns.append(columnName(property) + "_" + name[name.index(after: dot)...].replacingOccurrences(of: ".", with: "_"))
                    continue
                }
                guard let property = live.first(where: { $0.name == name }) else { break }
                let type = property.asOf(version).type
                if case .relationship(_, true, _) = type { break }
                // A to-one column is indexed already; a plain index on it at a version where it is one adds nothing.
                if case .relationship(_, false, _) = type, spec.properties.count == 1, !spec.unique { break }
                columns.append(columnName(property))
            }
            guard columns.count == spec.properties.count else { continue }
            let name =
                spec.name ?? Self.defaultIndexName(table: table, columns: columns, unique: spec.unique, naming: timeline.columnNaming)
            if spec.name == nil { defaultNamed.insert(name) }
            var index = SchemaIndex(name: name, columns: columns, unique: spec.unique)
            index.onConflict = spec.onConflict
            indexes.append(index)
        }
        return (indexes, defaultNamed)
    }

    /// An index that keeps covering the same columns (through renames of them or of the table) with the
    /// same uniqueness keeps its name from the previous version, as SQLite keeps it through `RENAME`:
    /// the step then leaves it alone. Unless another index or table of this version takes that name.
    static func inheritingIndexNames(
        _ tables: inout [SchemaTable], defaultNamed: [String: Set<String>], previous: Schema, naming: ColumnNaming
    ) {
        var taken = Set(tables.flatMap { [sqlNameKey($0.name)] + $0.indexes.map { sqlNameKey($0.name) } })
        let previousTables = previous.tablesByNameKey()
        for tableIndex in tables.indices {
            let table = tables[tableIndex]
            guard let names = defaultNamed[table.name], !names.isEmpty, table.reusesName != true,
                let before = previousTables[sqlNameKey(table.renamedFrom ?? table.name)]
            else { continue }
            var newName: [String: String] = [:]
            for column in table.columns where column.reusesName != true { newName[column.renamedFrom ?? column.name] = column.name }
            for index in table.indexes.indices where names.contains(table.indexes[index].name) {
                let current = table.indexes[index]
                guard
                    let old = before.indexes.first(where: { old in
                        old.unique == current.unique && old.name != current.name
                            && old.columns.map({ newName[$0] ?? "" }) == current.columns
                            && !(before.foreignKeys.contains { $0.columns == old.columns }
                                && old.name
                                    == Self.defaultIndexName(table: before.name, columns: old.columns, unique: false, naming: naming))
                    }), !taken.contains(sqlNameKey(old.name))
                else { continue }
                taken.remove(sqlNameKey(current.name))
                taken.insert(sqlNameKey(old.name))
                tables[tableIndex].indexes[index].name = old.name
            }
        }
    }
}
