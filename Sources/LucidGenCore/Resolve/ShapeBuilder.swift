import Foundation
@_spi(Generated) import LucidSchema

/// Builds entity shapes and per-version schemas from the entity timelines.
struct ShapeBuilder {
    let timelines: [String: EntityTimeline]
    let subtypes: [String: SubtypeDescription]
    let frozen: [SchemaVersion: SchemaSnapshot]
    /// The same snapshots oldest first, each with its entities and properties by name: properties are
    /// compared with them one by one.
    let releasedSnapshots: [(version: SchemaVersion, index: SnapshotIndex)]
    /// The Swift type of each struct at each version (structs whose members have a history).
    var structTypes = StructVersionTypes(subtypes: [:], versions: [])
    /// The Swift type of each enum at each version (enums whose cases have a history).
    var enumTypes = EnumVersionTypes(subtypes: [], versions: [])
    /// Each table's DDL as last built, for checksumming the next version (most tables repeat).
    var ddlCache: [String: (table: SchemaTable, statements: [String])] = [:]
    /// Entities already reported wider than SQLite allows (once each, not once per version).
    var tooWide: Set<String> = []

    /// SQLite's default `SQLITE_MAX_COLUMN`: a table with more columns cannot be created (nor read by
    /// builds of SQLite with a lower limit), so the descriptions are refused where they say so.
    static let maximumColumns = 2000

    init(timelines: [String: EntityTimeline], subtypes: [String: SubtypeDescription], frozen: [SchemaVersion: SchemaSnapshot]) {
        self.timelines = timelines
        self.subtypes = subtypes
        self.frozen = frozen
        releasedSnapshots = frozen.sorted { $0.key < $1.key }.map { ($0.key, SnapshotIndex($0.value)) }
    }

    // MARK: Lifetimes

    /// Works out when each property was added, removed and renamed, checking the versions against the history.
    mutating func resolveLifetimes(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        let entity = timeline.entity
        let history = timeline.historyVersions
        let historyList = history.map(\.string).joined(separator: ", ")
        func inHistory(_ version: SchemaVersion, _ key: String, _ property: PropertyDescription) -> Bool {
            if history.contains(version) { return true }
            diagnostics.error(
                "\(key) \(version) of property '\(property.name)' is not in the version_history of '\(entity.name)' (\(historyList)); add a version_history item for \(version)",
                at: property.location, path: property.path + "." + key)
            return false
        }
        for property in entity.properties {
            let added = property.addedAtVersion ?? timeline.firstVersion
            var lifetime = EntityTimeline.PropertyLifetime(added: added, removed: property.removedAtVersion, renamedAt: nil)
            if property.addedAtVersion != nil { _ = inHistory(added, "added_at_version", property) }
            if let removed = property.removedAtVersion {
                _ = inHistory(removed, "removed_at_version", property)
                if removed <= added {
                    diagnostics.error("removed_at_version \(removed) of property '\(property.name)' is not after the version it was added at (\(added))", at: property.location, path: property.path)
                }
            }
            if let previous = property.previousName {
                if let renamedAt = property.renamedAtVersion {
                    if inHistory(renamedAt, "renamed_at_version", property), renamedAt <= added {
                        diagnostics.error(
                            "renamed_at_version \(renamedAt) of property '\(property.name)' must be after the version it was added at (\(added))",
                            at: property.location, path: property.path + ".renamed_at_version")
                    }
                    lifetime.renamedAt = renamedAt
                } else {
                    lifetime.renamedAt = inferRename(of: property, from: previous, in: timeline, added: added, removed: property.removedAtVersion, &diagnostics)
                }
            } else if property.renamedAtVersion != nil {
                diagnostics.error("renamed_at_version needs previous_name (the name before the rename)", at: property.location, path: property.path + ".renamed_at_version")
            }
            var previousUntil: SchemaVersion?
            for item in property.typeHistory {
                if inHistory(item.untilVersion, "until_version", property) {
                    if item.untilVersion <= added {
                        diagnostics.error("until_version \(item.untilVersion) is not after the version property '\(property.name)' was added at (\(added))", at: item.location, path: item.path)
                    }
                    if let previousUntil, item.untilVersion <= previousUntil {
                        diagnostics.error("type_history of '\(property.name)' is out of order: \(item.untilVersion) comes after \(previousUntil)", at: item.location, path: item.path)
                    }
                }
                previousUntil = item.untilVersion
            }
            timeline.propertyLifetimes[property.name] = lifetime
        }
    }

    /// The version of a rename through `previous_name` without `renamed_at_version`: the only history
    /// version after the property was added that agrees with every frozen snapshot.
    private func inferRename(
        of property: PropertyDescription, from previous: String, in timeline: EntityTimeline, added: SchemaVersion, removed: SchemaVersion?,
        _ diagnostics: inout DiagnosticCollector
    ) -> SchemaVersion? {
        let candidates = timeline.historyVersions.filter { version in version > added && (removed.map { version < $0 } ?? true) }
        // Names another property of the entity has or had: a snapshot holding one of them may be that property
        // (a name freed by this rename and taken by a new property at the same version, a swap).
        let othersNames = Set(timeline.entity.properties.filter { $0.name != property.name }.flatMap { [$0.name] + ($0.previousName.map { [$0] } ?? []) })
        let consistent = candidates.filter { candidate in
            releasedSnapshots.allSatisfy { version, snapshot in
                let entityName = timeline.name(at: version)
                guard timeline.exists(at: version), version >= added, removed.map({ version < $0 }) ?? true,
                    snapshot.entity(named: entityName) != nil
                else { return true }
                let (expected, gone) = version < candidate ? (previous, property.name) : (property.name, previous)
                // The name it must have then, and not the other one unless another property explains it: a
                // snapshot with the new name before the candidate means the rename happened earlier.
                return snapshot.hasProperty(named: expected, ofEntityNamed: entityName)
                    && (othersNames.contains(gone) || !snapshot.hasProperty(named: gone, ofEntityNamed: entityName))
            }
        }
        if consistent.count == 1 { return consistent[0] }
        if candidates.isEmpty {
            diagnostics.error(
                "property '\(property.name)' has previous_name '\(previous)' but '\(timeline.entity.name)' has no version after the property was added (\(added)) to rename it at; add the version of the rename to version_history",
                at: property.location, path: property.path + ".previous_name")
        } else {
            let options = (consistent.isEmpty ? candidates : consistent).map(\.string).joined(separator: ", ")
            diagnostics.error(
                "ambiguous rename: property '\(property.name)' (previously '\(previous)') of '\(timeline.entity.name)' could have been renamed at any of \(options); add \"renamed_at_version\" to say which",
                at: property.location, path: property.path + ".previous_name")
        }
        return nil
    }

    // MARK: Separate properties into a composite

    /// Checks `elements_from`: on a composite added after the entity's first version, each element a column
    /// of the composite, each property one of the entity's values, removed at the composite's version, and
    /// used once.
    func checkElementsFrom(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        let entity = timeline.entity
        for property in entity.properties where !property.elementsFrom.isEmpty {
            let location = property.elementsFromLocation ?? property.location
            let path = property.path + ".elements_from"
            guard case .composite = property.type else {
                diagnostics.error("elements_from is for a composite (\"composite\": true): '\(property.name)' is not one", at: location, path: path)
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
                    diagnostics.error("elements_from of '\(property.name)' names '\(element)': \(problem)", at: location, path: path + "." + element)
                    continue
                }
                guard let old = entity.properties.first(where: { $0.name == source }) else {
                    diagnostics.error("elements_from of '\(property.name)' maps '\(element)' to '\(source)', which is not a property of '\(entity.name)'", at: location, path: path + "." + element)
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
                    diagnostics.error("elements_from of '\(property.name)' maps two elements to '\(source)'", at: location, path: path + "." + element)
                }
            }
        }
    }

    // MARK: Indexes

    /// Checks the indexes the descriptions ask for (`indexed`/`unique` on properties, the entity's
    /// `indexes`) and records them on the timeline: every property named must be one of the entity's
    /// (by its current name) and have a column, and no two indexes may cover the same properties.
    func checkIndexes(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        let entity = timeline.entity
        var specs: [IndexDescription] = []
        for property in entity.properties where property.indexed {
            let key = property.unique ? "unique" : "indexed"
            specs.append(IndexDescription(properties: [property.name], unique: property.unique, location: property.location, path: property.path + "." + key))
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
                    diagnostics.error("index of '\(entity.name)' names '\(name)', which is not one of its properties\(renamed)", at: spec.location, path: spec.path)
                    valid = false
                    continue
                }
                if property.unused {
                    diagnostics.error("index of '\(entity.name)' names '\(name)', which is unused (it has no column)", at: spec.location, path: spec.path)
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
            if let other = accepted.first(where: { $0.properties == spec.properties }) {
                diagnostics.error(
                    "duplicate index: (\(spec.properties.joined(separator: ", "))) of '\(entity.name)' is already indexed (\(other.path)); keep one (\"unique\": true makes it unique)",
                    at: spec.location, path: spec.path)
                continue
            }
            if let name = spec.name, let other = accepted.first(where: { $0.name.map { sameSQLName($0, name) } ?? false }) {
                diagnostics.error("duplicate index name '\(name)' in '\(entity.name)' (also \(other.path))", at: spec.location, path: spec.path)
                continue
            }
            if spec.properties.count == 1, !spec.unique, let property = named.first(where: { $0.name == spec.properties[0] }),
                case .relationship(_, false, _) = property.type
            {
                // The column is always indexed; a name given here is that index's (a store GRDB made names it
                // `<table>_on_<column>`).
                if let name = spec.name {
                    timeline.toOneIndexNames[property.name] = name
                } else {
                    diagnostics.note("'\(entity.name).\(property.name)' is a to-one relationship, whose column is always indexed: \"indexed\" adds nothing", at: spec.location, path: spec.path)
                }
                continue
            }
            if spec.properties.count == 1, case .property(let key) = entity.identifier.kind, key == spec.properties[0] {
                diagnostics.note("'\(entity.name).\(key)' is the identifier, the table's primary key, which is unique and indexed already", at: spec.location, path: spec.path)
                continue
            }
            accepted.append(spec)
            if spec.unique { noteSmallUniqueIndex(spec, of: entity, &diagnostics) }
        }
        timeline.indexes = accepted
    }

    /// The element `path` of composite `property` (its current members): the scalar or subtype name of
    /// its values, or why it is not one of the composite's columns.
    func compositeElement(_ property: PropertyDescription, path: [String]) -> Result<String, ElementProblem> {
        guard case .composite(var type) = property.type else {
            return .failure(ElementProblem("'\(property.name)' is not a composite (\"composite\": true), so it has no elements"))
        }
        for (depth, member) in path.enumerated() {
            guard case .structure(let members)? = subtypes[type]?.kind, let found = members.first(where: { $0.name == member }) else {
                return .failure(ElementProblem("'\(type)' has no member '\(member)'"))
            }
            let last = depth == path.count - 1
            switch found.type {
            case .subtype(let nested) where { if case .structure? = subtypes[nested]?.kind { true } else { false } }():
                if last { return .failure(ElementProblem("'\(member)' is a nested composite: name one of its elements")) }
                type = nested
            case .scalar(let scalar) where last: return .success(scalar.rawValue)
            case .subtype(let name) where last: return .success(name)
            default: return .failure(ElementProblem(last ? "'\(member)' of '\(type)' cannot be an element" : "'\(member)' of '\(type)' is not a struct"))
            }
        }
        return .failure(ElementProblem("an element path names at least one member"))
    }

    struct ElementProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func firstMember(of type: String, _ subtypes: [String: SubtypeDescription]) -> String? {
        if case .structure(let members)? = subtypes[type]?.kind { return members.first?.name }
        return nil
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
            case .scalar: return  // a distinct value per row
            case .relationship: return  // references are a permutation of the target's rows
            case .composite: return  // an index names its elements
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
    func describedIndexes(of timeline: EntityTimeline, table: String, at version: SchemaVersion) -> (indexes: [SchemaIndex], defaultNamed: Set<String>) {
        // A subentity's index may cover its ancestors' properties: each is named as its owner names it then.
        let owners = [timeline] + timeline.ancestors.reversed()
        let live = owners.flatMap { $0.properties(at: version) }
        func columnName(_ property: PropertyDescription) -> String {
            (owners.first { owner in owner.entity.properties.contains { $0.name == property.name } } ?? timeline).columnName(property, at: version)
        }
        var indexes: [SchemaIndex] = []
        var defaultNamed: Set<String> = []
        for spec in timeline.indexes {
            var columns: [String] = []
            for name in spec.properties {
                if let dot = name.firstIndex(of: ".") {
                    // A composite element's column, while the property is a composite.
                    guard let property = live.first(where: { $0.name == name[..<dot] }), case .composite = property.asOf(version).type else { break }
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
            let name = spec.name ?? Self.defaultIndexName(table: table, columns: columns, unique: spec.unique, naming: timeline.columnNaming)
            if spec.name == nil { defaultNamed.insert(name) }
            indexes.append(SchemaIndex(name: name, columns: columns, unique: spec.unique))
        }
        return (indexes, defaultNamed)
    }

    /// The versions a search names (`added_at_version`, `removed_at_version`, each history item's
    /// `until_version`) must be in the entity's `version_history`: a table changes only there.
    func checkSearchVersions(of timeline: EntityTimeline, _ diagnostics: inout DiagnosticCollector) {
        guard let search = timeline.entity.search else { return }
        let history = Set(timeline.historyVersions)
        var named: [(SchemaVersion, String, SourceLocation, String)] = []
        if let added = search.addedAtVersion { named.append((added, "added_at_version", search.location, search.path)) }
        if let removed = search.removedAtVersion { named.append((removed, "removed_at_version", search.location, search.path)) }
        for item in search.history { named.append((item.untilVersion, "until_version", item.location, item.path)) }
        // The index finds rows by rowid: only an INTEGER PRIMARY KEY keeps rowids through VACUUM.
        let entity = timeline.entity
        let integerKey: Bool =
            switch entity.identifier.kind {
            case .local, .scalar(.int): true
            case .scalar: false
            case .property(let key): entity.properties.first { $0.name == key }.map { $0.type == .scalar(.int) } ?? false
            }
        if !integerKey {
            diagnostics.warning(
                "search of '\(entity.name)': its table has no INTEGER PRIMARY KEY, so SQLite's VACUUM may renumber its rowids, which the search index refers to; after a VACUUM run INSERT INTO \(SchemaTable.searchTableName(of: entity.tableName))(\(SchemaTable.searchTableName(of: entity.tableName))) VALUES('rebuild')",
                at: search.location, path: search.path)
        }
        for (version, key, location, path) in named where !history.contains(version) {
            diagnostics.error(
                "search of '\(timeline.entity.name)': \(key) \(version) is not in its version_history; add {\"version\": \"\(version)\"} there", at: location, path: path + "." + key)
        }
    }

    /// The entity's declared search at `version` (a version of its history), over `columns` (its table's
    /// columns then): each searched property must exist then and be stored as text (a string, URL, color or
    /// enum). Problems are located on the search (or the history item that says what it was then).
    func describedSearch(of timeline: EntityTimeline, at version: SchemaVersion, columns: [SchemaColumn], _ diagnostics: inout DiagnosticCollector) -> SchemaSearch? {
        let entity = timeline.entity
        guard let description = entity.search, let state = description.state(at: version) else { return nil }
        let live = timeline.properties(at: version)
        var searched: [String] = []
        // Every version of the history is shaped: a problem is reported at the first version it shows in.
        func report(_ name: String, _ message: String) {
            let prefix = "search of '\(entity.name)' names '\(name)'"
            let path = state.path + ".properties"
            guard !diagnostics.diagnostics.contains(where: { $0.path == path && $0.message.hasPrefix(prefix) }) else { return }
            diagnostics.error(prefix + message, at: state.location, path: path)
        }
        for name in state.properties {
            guard let property = live.first(where: { $0.name == name }) else {
                let renamed = entity.properties.first { $0.previousName == name }.map { " (did you mean '\($0.name)', its current name?)" } ?? ""
                let known = entity.properties.contains { $0.name == name }
                report(
                    name,
                    known
                        ? ", which does not exist at \(version); add the search after the property (\"added_at_version\"), or say what it searched before in its \"history\""
                        : ", which is not one of its properties\(renamed)")
                continue
            }
            let type = property.asOf(version).type
            if case .relationship(_, true, _) = type {
                report(name, ", a to-many relationship: its links are in a join table, which holds no text to search")
                continue
            }
            let column = timeline.columnName(property, at: version)
            guard let schemaColumn = columns.first(where: { $0.name == column }), schemaColumn.type == .text,
                let valueType = schemaColumn.valueType, Self.searchableValueTypes.contains(valueType) || valueType.hasPrefix("enum ")
            else {
                report(name, ", which is \(valueType(of: type)) at \(version), not text: search covers properties of type string, url, color or an enum")
                continue
            }
            searched.append(column)
        }
        guard searched.count == state.properties.count else { return nil }
        return SchemaSearch(columns: searched, tokenizer: state.tokenizer)
    }

    /// The names a declared search takes (`<table>_fts`, its shadow tables and triggers) must be free at
    /// the version: no described table or index, and no other search, may hold one.
    private func checkSearchNames(_ tables: [SchemaTable], entities: [ResolvedEntity], at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector) {
        guard tables.contains(where: { $0.search != nil }) else { return }
        var owners: [String: String] = [:]
        for table in tables {
            owners[sqlNameKey(table.name)] = "table \(table.name)"
            for index in table.indexes { owners[sqlNameKey(index.name)] = "index \(index.name) of \(table.name)" }
        }
        for table in tables where table.search != nil {
            let description = timelines.values.first { $0.exists(at: version) && $0.tableName(at: version) == table.name }?.entity.search
            for name in table.searchObjectNames {
                if let owner = owners[sqlNameKey(name)] {
                    let message = "the search of table \(table.name) needs the name \(name), which \(owner) holds at \(version); rename one of them"
                    if !diagnostics.diagnostics.contains(where: { $0.message.hasPrefix(String(message.prefix(while: { $0 != "," }))) }) {
                        diagnostics.error(message, at: description?.location, path: description?.path)
                    }
                } else {
                    owners[sqlNameKey(name)] = "the search of \(table.name)"
                }
            }
        }
    }

    /// The value types a search may cover: stored as text, read as text.
    static let searchableValueTypes: Set<String> = ["string", "url", "color"]

    /// An index that keeps covering the same columns (through renames of them or of the table) with the
    /// same uniqueness keeps its name from the previous version, as SQLite keeps it through `RENAME`:
    /// the step then leaves it alone. Unless another index or table of this version takes that name.
    private static func inheritingIndexNames(_ tables: inout [SchemaTable], defaultNamed: [String: Set<String>], previous: Schema, naming: ColumnNaming) {
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
                guard let old = before.indexes.first(where: { old in
                    old.unique == current.unique && old.name != current.name && old.columns.map({ newName[$0] ?? "" }) == current.columns
                        && !(before.foreignKeys.contains { $0.columns == old.columns } && old.name == Self.defaultIndexName(table: before.name, columns: old.columns, unique: false, naming: naming))
                }), !taken.contains(sqlNameKey(old.name))
                else { continue }
                taken.remove(sqlNameKey(current.name))
                taken.insert(sqlNameKey(old.name))
                tables[tableIndex].indexes[index].name = old.name
            }
        }
    }

    // MARK: Shapes

    /// The entity at one of its history versions.
    func shape(of timeline: EntityTimeline, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector) -> EntityShape? {
        let entity = timeline.entity
        guard let identifier = identifierShape(of: timeline, at: version, &diagnostics) else { return nil }
        var properties: [PropertyShape] = []
        // A subentity's record has its ancestors' properties first (root first), as they are at this version;
        // each ancestor reports their problems in its own shapes.
        var inherited = DiagnosticCollector()
        for ancestor in timeline.ancestors {
            for property in ancestor.properties(at: version) {
                if case .property(let key) = ancestor.entity.identifier.kind, key == property.name { continue }
                if let shape = propertyShape(property.asOf(version), of: ancestor, at: version, &inherited) { properties.append(shape) }
            }
        }
        for property in timeline.properties(at: version) {
            if case .property(let key) = timeline.root.entity.identifier.kind, key == property.name { continue }
            if let shape = propertyShape(property.asOf(version), of: timeline, at: version, &diagnostics) { properties.append(shape) }
        }
        let name = timeline.name(at: version)
        if timeline.hasKind(at: version) {
            // Which entity of the hierarchy the row is: its description name (an abstract entity's records name it).
            var kind = PropertyShape(
                name: Hierarchy.kindColumn, currentName: Hierarchy.kindColumn, swiftName: Hierarchy.kindColumn, column: Hierarchy.kindColumn, storage: .text,
                swiftType: SwiftTypes.string, nullable: false, defaultSQL: nil, defaultSwift: entity.abstract ? nil : swiftStringLiteral(name),
                typeDescription: "string", kind: .value)
            kind.isKind = true
            properties.append(kind)
        }
        // `swift_name` renames the records of the versions with the entity's current name; older names keep theirs.
        let base = name == entity.name ? entity.swiftTypeName : Naming.typeName(name)
        var result = EntityShape(
            entityName: entity.name, name: name, version: version, typeName: "\(base)_\(version.identifierSuffix)",
            tableName: timeline.tableName(at: version), identifier: identifier, properties: properties)
        result.abstract = entity.abstract
        if timeline.hasKind(at: version) { result.kinds = Self.kinds(of: timeline, from: version) }
        return result
    }

    /// The kinds the records of `timeline`'s shape at history version `version` read: its own and its
    /// subentities', at every version until its next history version (a subentity added, renamed or
    /// removed in between changes no record of this entity, only the rows it reads).
    static func kinds(of timeline: EntityTimeline, from version: SchemaVersion) -> [String] {
        let next = (timeline.historyVersions.filter { $0 > version } + (timeline.entity.removedAtVersion.map { [$0] } ?? [])).min()
        let members = [timeline] + timeline.descendants
        var moments: Set<SchemaVersion> = [version]
        for member in members {
            for candidate in member.historyVersions + (member.entity.removedAtVersion.map { [$0] } ?? []) where candidate > version && next.map({ candidate < $0 }) ?? true {
                moments.insert(candidate)
            }
        }
        var kinds: [String] = []
        for moment in moments.sorted() {
            for member in members where member.exists(at: moment) && !kinds.contains(member.name(at: moment)) { kinds.append(member.name(at: moment)) }
        }
        return kinds
    }

    func identifierShape(of timeline: EntityTimeline, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector) -> IdentifierShape? {
        // A subentity's rows are its root's: so is its key (relationships to it reference the root's table).
        if timeline.parent != nil {
            let root = timeline.root
            return identifierShape(of: root, at: root.historyVersion(at: version) ?? version, &diagnostics)
        }
        let entity = timeline.entity
        switch entity.identifier.kind {
        case .local:
            return IdentifierShape(kind: .local, column: "id", storage: .integer, swiftType: SwiftTypes.int64)
        case .scalar(let scalar):
            let (storage, swiftType) = Self.storage(of: scalar)
            return IdentifierShape(kind: .scalar(scalar), column: "id", storage: storage, swiftType: swiftType)
        case .property(let key):
            guard let property = entity.properties.first(where: { $0.name == key }) else {
                diagnostics.error("identifier property '\(key)' is not a property of '\(entity.name)'", at: entity.identifier.location)
                return nil
            }
            guard case .scalar(let scalar) = property.type, [.int, .string, .uuid].contains(scalar), !property.nullable, !property.lazy else {
                diagnostics.error("identifier property '\(key)' must be a required int, string or uuid", at: property.location, path: property.path)
                return nil
            }
            guard timeline.properties(at: version).contains(where: { $0.name == key }) else {
                diagnostics.error("identifier property '\(key)' does not exist at version \(version)", at: property.location, path: property.path)
                return nil
            }
            let name = timeline.propertyName(property, at: version)
            return IdentifierShape(
                kind: .property(name), column: timeline.columnName(property, at: version),
                storage: Self.storage(of: scalar).0, swiftType: Self.storage(of: scalar).1,
                swiftName: property.swiftPropertyName(as: name))
        }
    }

    func propertyShape(_ property: PropertyDescription, of timeline: EntityTimeline, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector)
        -> PropertyShape?
    {
        let name = timeline.propertyName(property, at: version)
        let column = timeline.columnName(property, at: version)
        let nullable = property.nullable || property.lazy
        var shape = PropertyShape(
            name: name, currentName: property.name, swiftName: property.swiftPropertyName(as: name), column: column, storage: .text, swiftType: SwiftTypes.string,
            nullable: nullable, defaultSQL: nil, defaultSwift: nil, typeDescription: property.type.description, kind: .value)
        switch property.type {
        case .relationship(let targetName, let toMany, let ordered):
            guard let target = timelines[targetName] else {
                let hint = timelines.values.first { $0.entity.versionHistory.contains { $0.previousName == targetName } }.map { " (did you mean '\($0.entity.name)', its current name?)" }
                    ?? KeySuggestion.nearest(to: targetName, among: timelines.keys.sorted()).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.error("relationship '\(property.name)' refers to unknown entity '\(targetName)'\(hint)", at: property.typeLocation, path: property.path + ".property_type")
                return nil
            }
            guard target.exists(at: version) else {
                diagnostics.error("relationship '\(property.name)' refers to '\(targetName)', which does not exist at version \(version)", at: property.location, path: property.path)
                return nil
            }
            guard let targetIdentifier = identifierShape(of: target, at: target.historyVersion(at: version)!, &diagnostics) else { return nil }
            // The target as it was named at this version: a rename of the target keeps the relationship.
            shape.typeDescription = Self.relationshipDescription(target: target.name(at: version), toMany: toMany, ordered: ordered)
            if property.defaultValue != nil && property.defaultValue != .null {
                diagnostics.error("relationship '\(property.name)' cannot have a default_value", at: property.location, path: property.path + ".default_value")
            }
            if toMany {
                let joinTable = LinkTable.name(owner: timeline.tableName(at: version), relationship: column)
                shape.kind = .toMany(
                    entity: targetName, table: target.tableName(at: version), column: targetIdentifier.column, joinTable: joinTable,
                    targetStorage: targetIdentifier.storage, targetSwiftType: targetIdentifier.swiftType, ordered: ordered)
                shape.swiftType = "[\(targetIdentifier.swiftType)]"
                shape.nullable = false
            } else {
                shape.kind = .toOne(entity: targetName, table: target.tableName(at: version), column: targetIdentifier.column)
                shape.storage = targetIdentifier.storage
                shape.swiftType = targetIdentifier.swiftType
                if property.defaultValue == .null { shape.defaultSQL = "NULL"; shape.defaultSwift = "nil" }
            }
            return shape
        case .composite(let name):
            guard let composite = compositeShape(name, prefix: column, of: property, at: version, stack: [], &diagnostics) else { return nil }
            if let value = property.defaultValue, value != .null {
                diagnostics.error(
                    "composite '\(property.name)' cannot have a default_value: give its elements default_value in the subtype '\(name)'",
                    at: property.location, path: property.path + ".default_value")
                return nil
            }
            if nullable, !composite.hasRequiredColumn {
                diagnostics.error(
                    "optional composite '\(property.name)' has no required element: nil and a '\(name)' whose elements are all nil would both be stored as NULL in every column; make one element of '\(name)' required, or the composite required",
                    at: property.location, path: property.path + ".nullable")
                return nil
            }
            shape.kind = .composite(composite)
            shape.swiftType = composite.swiftType
            // An optional composite defaults to nil (the view model says so); a required one to its elements' defaults.
            if !nullable { shape.defaultSwift = composite.defaultSwift }
            return shape
        default:
            guard let (storage, swiftType) = storageAndSwiftType(of: property.type, property, at: version, &diagnostics) else { return nil }
            shape.storage = storage
            shape.swiftType = swiftType
            shape.storedAsJSON = isStoredAsJSON(property.type)
            if let value = property.defaultValue {
                guard let (sql, swift) = defaultLiterals(value, for: property, nullable: nullable, at: version, &diagnostics) else { return nil }
                shape.defaultSQL = sql
                shape.defaultSwift = swift
            }
            return shape
        }
    }

    /// A composite's elements: `name` must be a struct subtype whose members are scalars, enums, option
    /// sets or structs (nested composites, flattened the same way), never arrays or relationships.
    func compositeShape(
        _ name: String, prefix: String, of property: PropertyDescription, at version: SchemaVersion, stack: [String], _ diagnostics: inout DiagnosticCollector
    ) -> CompositeShape? {
        guard let subtype = subtypes[name] else {
            diagnostics.error(
                "unknown property type '\(name)': a composite needs a struct subtype in Subtypes/", at: property.typeLocation, path: property.path + ".property_type")
            return nil
        }
        guard case .structure = subtype.kind, let members = subtype.members(at: version) else {
            let kind = if case .enumeration = subtype.kind { "an enum" } else { "an option set" }
            diagnostics.error(
                "composite '\(property.name)' needs a struct subtype (one with 'properties'), but '\(name)' is \(kind), which is one column already; drop \"composite\"",
                at: property.typeLocation, path: property.path + ".property_type")
            return nil
        }
        if stack.contains(name) {
            diagnostics.error(
                "composite '\(property.name)' contains itself: \((stack + [name]).joined(separator: " → ")); a composite's columns must be finite",
                at: subtype.location)
            return nil
        }
        var elements: [CompositeShape.Element] = []
        // Each element's value in the struct made of defaults (nil: the element has none).
        var elementDefaults: [String?] = []
        var valid = true
        for member in members {
            let column = prefix + "_" + member.name
            let swiftName = Naming.swiftIdentifier(member.swiftMemberName)
            func leaf(_ storage: SchemaColumn.StorageType, _ swiftType: String, _ typeName: String) {
                var defaultSQL: String?
                var defaultSwift: String? = member.nullable ? "nil" : nil
                if let value = member.defaultValue {
                    var asProperty = property
                    asProperty.name = member.name
                    asProperty.type = member.type
                    asProperty.location = member.location
                    asProperty.path = member.path
                    guard let (sql, swift) = defaultLiterals(value, for: asProperty, nullable: member.nullable, &diagnostics) else { valid = false; return }
                    defaultSQL = sql
                    defaultSwift = swift ?? defaultSwift
                }
                elementDefaults.append(defaultSwift)
                elements.append(CompositeShape.Element(
                    name: member.name, identity: member.identity, swiftName: swiftName, column: column, nullable: member.nullable,
                    kind: .column(storage: storage, swiftType: swiftType, valueType: valueType(of: member.type), typeName: typeName, defaultSQL: defaultSQL)))
            }
            switch member.type {
            case .scalar(let scalar):
                let (storage, swiftType) = Self.storage(of: scalar)
                leaf(storage, swiftType, scalar.rawValue)
            case .subtype(let nestedName), .composite(let nestedName):
                guard let nested = subtypes[nestedName] else {
                    diagnostics.error("unknown type '\(nestedName)' of member '\(member.name)' of '\(name)': not a scalar nor a subtype in Subtypes/", at: member.location, path: member.path)
                    valid = false
                    continue
                }
                switch nested.kind {
                case .enumeration: leaf(.text, enumTypes.typeName(of: nestedName, at: version) ?? nested.swiftTypeName, nestedName)
                case .optionSet: leaf(.integer, nested.swiftTypeName, nestedName)
                case .structure:
                    if member.defaultValue != nil {
                        diagnostics.error("member '\(member.name)' of '\(name)' is a nested composite, which cannot have a default_value: give its elements one", at: member.location, path: member.path + ".default_value")
                        valid = false
                    }
                    guard let shape = compositeShape(nestedName, prefix: column, of: property, at: version, stack: stack + [name], &diagnostics) else { valid = false; continue }
                    if member.nullable, !shape.hasRequiredColumn {
                        diagnostics.error(
                            "optional member '\(member.name)' of '\(name)' is a nested composite with no required element: nil and a '\(nestedName)' whose elements are all nil would both be NULL in every column; make one element of '\(nestedName)' required",
                            at: member.location, path: member.path)
                        valid = false
                        continue
                    }
                    elementDefaults.append(shape.defaultSwift ?? (member.nullable ? "nil" : nil))
                    elements.append(CompositeShape.Element(
                        name: member.name, identity: member.identity, swiftName: swiftName, column: column, nullable: member.nullable, kind: .nested(shape)))
                }
            case .array:
                diagnostics.error(
                    "member '\(member.name)' of '\(name)' is an array, which cannot be a composite element (an element is one queryable column); store '\(name)' as JSON (drop \"composite\" from '\(property.name)') or make the array a property of its own",
                    at: member.location, path: member.path)
                valid = false
            case .relationship:
                diagnostics.error("member '\(member.name)' of '\(name)' is a relationship: a composite is made of values, never relationships", at: member.location, path: member.path)
                valid = false
            }
        }
        guard valid else { return nil }
        if elements.isEmpty {
            diagnostics.error("composite '\(property.name)': the struct '\(name)' has no members, so it would have no column", at: subtype.location)
            return nil
        }
        let swiftType = structTypes.typeName(of: name, at: version)
        var shape = CompositeShape(subtype: name, swiftType: swiftType, elements: elements)
        if elementDefaults.count == elements.count, elementDefaults.allSatisfy({ $0 != nil }) {
            let arguments = zip(elements, elementDefaults).map { "\(Naming.argumentLabel($0.swiftName)): \($1!)" }
            shape.defaultSwift = "\(swiftType)(\(arguments.joined(separator: ", ")))"
        }
        return shape
    }

    /// A relationship's type in snapshots and messages (`to_one aircraft`, `ordered to_many pilot`), naming the
    /// target as it was named at that version.
    static func relationshipDescription(target: String, toMany: Bool, ordered: Bool = false) -> String {
        PropertyType.relationship(entity: target, toMany: toMany, ordered: ordered).description
    }

    /// The entity (current name) that had `name` at some version, if exactly one did.
    func lineage(named name: String) -> String? {
        let owners = timelines.values.filter { timeline in
            timeline.entity.name == name || timeline.entity.versionHistory.contains { $0.previousName == name }
        }
        return owners.count == 1 ? owners[0].entity.name : nil
    }

    /// `frozen`, with each relationship type that names its target by another name of the same
    /// lineage than `derived` does spelled as `derived` spells it. Snapshots frozen before relationship
    /// types named the target as it was named at their version spell it by its newer name; both mean
    /// the same relationship.
    func aligningRelationshipTargets(of frozen: SchemaSnapshot, with derived: SchemaSnapshot) -> SchemaSnapshot {
        var result = frozen
        let derivedIndex = SnapshotIndex(derived)
        for (entityIndex, entity) in frozen.entities.enumerated() {
            guard derivedIndex.entity(named: entity.name) != nil else { continue }
            for (propertyIndex, property) in entity.properties.enumerated() {
                guard let now = derivedIndex.property(named: property.name, ofEntityNamed: entity.name), now.type != property.type,
                    let old = Self.relationshipTarget(property.type), let new = Self.relationshipTarget(now.type), old.toMany == new.toMany, old.ordered == new.ordered,
                    let lineage = lineage(named: old.target), lineage == self.lineage(named: new.target)
                else { continue }
                result.entities[entityIndex].properties[propertyIndex].type = now.type
            }
        }
        return result
    }

    /// The target and association of a snapshot's relationship type description (`ordered to_many pilot`;
    /// snapshots written before ordered relationships existed say `to_many pilot`, which is unordered).
    static func relationshipTarget(_ description: String) -> (target: String, toMany: Bool, ordered: Bool)? {
        for (prefix, toMany, ordered) in [("to_one ", false, false), ("to_many ", true, false), ("ordered to_many ", true, true)] where description.hasPrefix(prefix) {
            return (String(description.dropFirst(prefix.count)), toMany, ordered)
        }
        return nil
    }

    func storageAndSwiftType(of type: PropertyType, _ property: PropertyDescription, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector) -> (SchemaColumn.StorageType, String)? {
        switch type {
        case .scalar(let scalar): return Self.storage(of: scalar)
        case .array(let element):
            guard let (_, swift) = storageAndSwiftType(of: element, property, at: version, &diagnostics) else { return nil }
            return (.text, "[\(swift)]")
        case .composite(let name): return (.text, structTypes.typeName(of: name, at: version))
        case .subtype(let name):
            guard let subtype = subtypes[name] else {
                let suggestion = KeySuggestion.nearest(to: name, among: (subtypes.keys + ScalarType.allCases.map(\.rawValue)).sorted()).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.error("unknown property type '\(name)': not a scalar (\(ScalarType.allCases.map(\.rawValue).joined(separator: ", "))) nor a subtype in Subtypes/\(suggestion)", at: property.typeLocation, path: property.path + ".property_type")
                return nil
            }
            switch subtype.kind {
            case .enumeration: return (.text, enumTypes.typeName(of: name, at: version) ?? subtype.swiftTypeName)
            case .optionSet: return (.integer, subtype.swiftTypeName)
            case .structure: return (.text, structTypes.typeName(of: name, at: version))
            }
        case .relationship:
            diagnostics.error("a relationship cannot be an array element", at: property.location, path: property.path)
            return nil
        }
    }

    func isStoredAsJSON(_ type: PropertyType) -> Bool {
        switch type {
        case .array: return true
        case .subtype(let name):
            if case .structure = subtypes[name]?.kind { return true }
            return false
        case .scalar, .relationship, .composite: return false
        }
    }

    static func storage(of scalar: ScalarType) -> (SchemaColumn.StorageType, String) {
        switch scalar {
        case .string, .color: (.text, SwiftTypes.string)
        case .int: (.integer, SwiftTypes.int)
        case .bool: (.integer, SwiftTypes.bool)
        case .double, .seconds, .milliseconds: (.real, SwiftTypes.double)
        case .float: (.real, SwiftTypes.float)
        case .date: (.text, SwiftTypes.date)
        case .url: (.text, SwiftTypes.url)
        case .data: (.blob, SwiftTypes.data)
        // As GRDB stores a `UUID` (its `databaseValue`): a BLOB of its 16 bytes.
        case .uuid: (.blob, SwiftTypes.uuid)
        // As GRDB stores a `Decimal` (its `databaseValue`): its text (`DecimalText`).
        case .decimal: (.text, SwiftTypes.decimal)
        }
    }

    /// The SQL and Swift forms of a default value, checked against the property's type. An SQL expression
    /// has no Swift form (the record's initialiser then asks for the value), except `CURRENT_TIMESTAMP` on a date.
    /// `version`: the version whose enum cases a default case names (nil: the newest), for its Swift name.
    func defaultLiterals(
        _ value: DefaultValue, for property: PropertyDescription, nullable: Bool, at version: SchemaVersion? = nil, _ diagnostics: inout DiagnosticCollector
    ) -> (String, String?)? {
        func mismatch() -> (String, String?)? {
            diagnostics.error("default_value does not fit property '\(property.name)' of type \(property.type)", at: property.location, path: property.path + ".default_value")
            return nil
        }
        func number(_ double: Double) -> String {
            double == double.rounded() && abs(double) < 1e15 ? String(format: "%.1f", double) : "\(double)"
        }
        if value == .null { return nullable ? ("NULL", "nil") : mismatch() }
        switch property.type {
        case .scalar(let scalar):
            if case .string(let text) = value, text.utf8.contains(0) {
                // SQLite reads SQL text up to its first NUL: the column's DEFAULT could not hold the value.
                diagnostics.error(
                    "default_value of '\(property.name)' contains NUL (U+0000), which a SQL default cannot hold",
                    at: property.location, path: property.path + ".default_value")
                return nil
            }
            switch (scalar, value) {
            case (.date, .sqlExpression(let sql)) where sql.uppercased() == "CURRENT_TIMESTAMP":
                return (sql, "\(SwiftTypes.date)()")
            case (_, .sqlExpression(let sql)):
                return (sql, nil)
            case (.bool, .bool(let flag)): return (flag ? "1" : "0", flag ? "true" : "false")
            case (.int, .int(let integer)): return ("\(integer)", "\(integer)")
            case (.double, .int(let integer)), (.float, .int(let integer)), (.seconds, .int(let integer)), (.milliseconds, .int(let integer)):
                return (number(Double(integer)), number(Double(integer)))
            case (.double, .double(let double)), (.float, .double(let double)), (.seconds, .double(let double)), (.milliseconds, .double(let double)):
                return (number(double), number(double))
            case (.double, .number(let text)), (.float, .number(let text)), (.seconds, .number(let text)), (.milliseconds, .number(let text)):
                guard let double = Double(text) else { return mismatch() }
                return (number(double), number(double))
            case (.decimal, .int(let integer)):
                return (quoteLiteral("\(integer)"), "\(SwiftTypes.decimal)(\(integer))")
            case (.decimal, .number(let text)), (.decimal, .string(let text)):
                // Exact: the text GRDB stores for that `Decimal`, never through a `Double`.
                guard let stored = DecimalText.stored(text) else {
                    diagnostics.error(
                        "default_value '\(text)' of '\(property.name)' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most \(DecimalText.maximumDigits) significant digits, e.g. \"12.50\"",
                        at: property.location, path: property.path + ".default_value")
                    return nil
                }
                return (quoteLiteral(stored), "\(SwiftTypes.decimal)(string: \(swiftStringLiteral(stored)))!")
            case (.seconds, .seconds(let seconds)): return (number(seconds), number(seconds))
            case (.seconds, .milliseconds(let milliseconds)): return (number(milliseconds / 1000), number(milliseconds / 1000))
            case (.milliseconds, .milliseconds(let milliseconds)): return (number(milliseconds), number(milliseconds))
            case (.milliseconds, .seconds(let seconds)): return (number(seconds * 1000), number(seconds * 1000))
            case (.string, .string(let text)), (.color, .string(let text)):
                return (quoteLiteral(text), swiftStringLiteral(text))
            case (.url, .string(let text)):
                guard URL(string: text) != nil else { return mismatch() }
                return (quoteLiteral(text), "\(SwiftTypes.url)(string: \(swiftStringLiteral(text)))!")
            case (.uuid, .string(let text)):
                // The canonical text; the column's default is the blob GRDB writes for that `UUID`.
                guard let bytes = UUIDText.bytes(text) else {
                    diagnostics.error(
                        "default_value '\(text)' of '\(property.name)' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"",
                        at: property.location, path: property.path + ".default_value")
                    return nil
                }
                return (UUIDText.sqlLiteral(bytes), "\(SwiftTypes.uuid)(uuidString: \(swiftStringLiteral(UUIDText.string(bytes))))!")
            case (.date, .currentDate):
                // The same text form GRDB stores dates in, to the millisecond.
                return ("(strftime('%Y-%m-%d %H:%M:%f', 'now'))", "\(SwiftTypes.date)()")
            default: return mismatch()
            }
        case .subtype(let name):
            guard let subtype = subtypes[name], case .enumeration(let cases) = subtype.kind, case .enumCase(let item) = value else { return mismatch() }
            // Any case the enum ever had: which one exists at each version is checked with the enum's history.
            guard cases.contains(item) || subtype.everyCaseName.contains(item) else {
                diagnostics.error("default_value '.\(item)' is not a case of '\(name)' (\(cases.joined(separator: ", ")))", at: property.location, path: property.path + ".default_value")
                return nil
            }
            let swiftCase = subtype.swiftCaseName(item, at: version)
            // `.none` where an optional is expected is `Optional.none` (nil), and Swift warns: name the enum.
            let type = swiftCase == "none" ? (version.flatMap { enumTypes.typeName(of: name, at: $0) } ?? subtype.swiftTypeName) : ""
            return (quoteLiteral(item), "\(type).\(Naming.swiftIdentifier(swiftCase))")
        default:
            diagnostics.error("default_value is not supported for property '\(property.name)' of type \(property.type)", at: property.location, path: property.path + ".default_value")
            return nil
        }
    }

    // MARK: Schemas

    /// The schema at a version, and the snapshot that freezes it.
    mutating func schema(
        at version: SchemaVersion, previous: SchemaVersion?, previousSchema: Schema? = nil, entities: [ResolvedEntity], _ diagnostics: inout DiagnosticCollector
    ) -> (Schema, SchemaSnapshot) {
        var tables: [SchemaTable] = []
        // Tables and columns with no predecessor at the previous version: if one of the same name existed
        // there, it was another table or column (renamed or removed at this version).
        var newTables: Set<String> = []
        var newColumns: Set<String> = []
        var entitySnapshots: [SchemaSnapshot.EntitySnapshot] = []
        var defaultNamedIndexes: [String: Set<String>] = [:]
        let frozenSchema = frozen[version]
        let frozenTables = Dictionary((frozenSchema?.tables ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let resolvedByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            let timeline = timelines[entity.name]!
            guard let historyVersion = timeline.historyVersion(at: version), let shape = entity.shapes.first(where: { $0.version == historyVersion }) else { continue }
            let previousShape = previous.flatMap { previous in timeline.historyVersion(at: previous).flatMap { h in entity.shapes.first { $0.version == h } } }
            if let parent = timeline.parent {
                // A subentity: its own properties are columns of its root's table (built with the root's, below);
                // its snapshot records its own properties and its parent.
                let own = Set(timeline.entity.properties.map(\.name))
                var snapshot = SchemaSnapshot.EntitySnapshot(
                    name: shape.name, table: shape.tableName, identifier: Self.describe(shape.identifier),
                    properties: shape.properties.filter { own.contains($0.currentName) && !$0.isKind }
                        .map { SchemaSnapshot.PropertySnapshot(name: $0.name, type: $0.typeDescription, nullable: $0.nullable, defaultValue: $0.defaultSQL) }
                        .sorted { $0.name < $1.name })
                snapshot.parent = parent.name(at: version)
                snapshot.abstract = timeline.entity.abstract ? true : nil
                entitySnapshots.append(snapshot)
                continue
            }
            let renamedTable = previousShape.flatMap { $0.tableName != shape.tableName ? $0.tableName : nil }
            if previousShape == nil { newTables.insert(shape.tableName) }
            var columns = [SchemaColumn(name: shape.identifier.column, type: shape.identifier.storage, notNull: shape.identifier.kind != .local, valueType: Self.valueType(of: shape.identifier))]
            if case .property = timeline.entity.identifier.kind, let old = previousShape, old.identifier.column != shape.identifier.column {
                columns[0].renamedFrom = old.identifier.column
            }
            var foreignKeys: [SchemaForeignKey] = []
            var indexes: [SchemaIndex] = []
            /// The columns (and join tables, foreign keys, indexes) of `shape`'s properties: the root's, or a
            /// subentity's own (`ofSubentity`: nullable in SQL, since rows of other kinds hold NULL).
            func addColumns(of shape: EntityShape, previousShape: EntityShape?, timeline: EntityTimeline, historyVersion: SchemaVersion, ofSubentity: Bool) {
                let own = Set(timeline.entity.properties.map(\.name))
                let properties = shape.properties.filter { !$0.isKind && (!ofSubentity || own.contains($0.currentName)) }
                for property in properties {
                    let previousProperty = previousShape?.properties.first { $0.currentName == property.currentName }
                    if case .composite(let composite) = property.kind {
                        // Elements that were not elements of this composite at the previous version are new columns.
                        var before: Set<[String]> = []
                        if case .composite(let old)? = previousProperty?.kind { before = Set(old.leaves(optional: false).map(\.identityPath)) }
                        for leaf in composite.leaves(optional: false) where !before.contains(leaf.identityPath) { newColumns.insert("\(shape.tableName).\(leaf.column)") }
                        continue
                    }
                    guard previousProperty == nil else { continue }
                    if case .toMany(_, _, _, let joinTable, _, _, _) = property.kind { newTables.insert(joinTable) } else { newColumns.insert("\(shape.tableName).\(property.column)") }
                }
                func previousColumn(of property: PropertyShape) -> String? {
                    guard let old = previousShape?.properties.first(where: { $0.currentName == property.currentName }), old.column != property.column else { return nil }
                    return old.column
                }

                for property in properties {
                    if let old = previousShape?.properties.first(where: { $0.currentName == property.currentName }), case .composite(let was) = old.kind {
                        // Nothing would carry the composite's values into other storage: refused, not lost.
                        let now: String? = if case .composite(let composite) = property.kind { composite.subtype } else { nil }
                        if now != was.subtype, let description = timeline.entity.properties.first(where: { $0.name == property.currentName }) {
                            diagnostics.error(
                                "property '\(property.name)' of '\(shape.name)' changes at \(version) from composite \(was.subtype) to \(property.typeDescription): lucidgen converts a struct stored as JSON into a composite, not a composite into anything else; add a new property and move the values in a stage",
                                at: description.typeLocation, path: description.path + ".property_type")
                        }
                    }
                    let annotations = valueTypeAnnotations(of: property, in: timeline, shape: shape, previousShape: previousShape)
                    switch property.kind {
                    case .value:
                        var column = SchemaColumn(
                            name: property.column, type: property.storage, notNull: !property.nullable && !ofSubentity, defaultSQL: property.defaultSQL, renamedFrom: previousColumn(of: property),
                            valueType: annotations.valueType, lossyConversionFrom: annotations.lossyConversionFrom)
                        // An enum whose cases change at this version: what its stored values become.
                        if historyVersion == version, let subtype = subtypes[property.typeDescription], subtype.hasCaseHistory,
                            previousShape?.properties.contains(where: { $0.currentName == property.currentName && $0.typeDescription == property.typeDescription }) == true
                        {
                            let changes = subtype.caseChanges(at: version)
                            if !changes.isEmpty { column.caseChanges = changes }
                        }
                        if property.storedAsJSON, let previous, let old = previousShape?.properties.first(where: { $0.currentName == property.currentName }),
                            old.storedAsJSON, old.typeDescription == property.typeDescription, old.swiftType != property.swiftType,
                            let structName = description(of: property, in: timeline)?.asOf(version).type.structName(in: subtypes)
                        {
                            // A struct stored as JSON whose members changed in a way its JSON cannot follow: the app's to convert.
                            let problems = StructVersionTypes.jsonIncompatibilities(structName, from: previous, to: version, subtypes)
                            if !problems.isEmpty { column.jsonStructChange = "\(old.swiftType) → \(property.swiftType): \(problems.joined(separator: ", "))" }
                        }
                        let described = timeline.entity.properties.first { $0.name == property.currentName }
                        column.declaredType = described?.columnType
                        column.collation = described?.collation
                        columns.append(column)
                    case .toOne(let targetEntity, _, let targetColumn):
                        var column = SchemaColumn(
                            name: property.column, type: property.storage, notNull: !property.nullable && !ofSubentity, defaultSQL: property.defaultSQL, renamedFrom: previousColumn(of: property),
                            valueType: annotations.valueType, lossyConversionFrom: annotations.lossyConversionFrom)
                        if case .toMany(_, _, _, let oldJoin, _, _, _)? = previousShape?.properties.first(where: { $0.currentName == property.currentName })?.kind {
                            column.renamedFrom = nil
                            column.convertedFromJoinTable = oldJoin
                        }
                        columns.append(column)
                        let described = timeline.entity.properties.first { $0.name == property.currentName }
                        foreignKeys.append(SchemaForeignKey(
                            columns: [property.column], table: timelines[targetEntity]!.tableName(at: version), tableColumns: [targetColumn],
                            onDelete: described?.onDelete ?? (property.nullable ? .setNull : .cascade), onUpdate: described?.onUpdate))
                        let indexName = timeline.toOneIndexNames[property.currentName] ?? Self.defaultIndexName(table: shape.tableName, columns: [property.column], unique: false, naming: timeline.columnNaming)
                        indexes.append(SchemaIndex(name: indexName, columns: [property.column]))
                    case .composite(let composite):
                        // In a subentity's composite, every column is nullable (rows of other kinds hold NULL), as an optional composite's.
                        var columnsOf = property
                        if ofSubentity { columnsOf.nullable = true }
                        var compositeColumns = compositeColumns(
                            composite, of: columnsOf, previous: previousShape?.properties.first { $0.currentName == property.currentName }, previousSchemaVersion: previous, &diagnostics)
                        // A composite replacing separate properties at this version (`elements_from`): their columns become its elements'.
                        if let old = previousShape, !old.properties.contains(where: { $0.currentName == property.currentName }),
                            let description = timeline.entity.properties.first(where: { $0.name == property.currentName }), !description.elementsFrom.isEmpty
                        {
                            let sources = Dictionary(description.elementsFrom.map { ($0.element, $0.property) }, uniquingKeysWith: { a, _ in a })
                            for (index, leaf) in composite.leaves(optional: columnsOf.nullable).enumerated() {
                                guard let source = sources[leaf.identityPath.joined(separator: ".")],
                                    let was = old.properties.first(where: { $0.currentName == source }), case .value = was.kind
                                else { continue }
                                compositeColumns[index].renamedFrom = was.column
                            }
                        }
                        columns += compositeColumns
                    case .toMany(let targetEntity, _, let targetColumn, let joinTable, let targetStorage, _, let ordered):
                        let previousProperty = previousShape?.properties.first { $0.currentName == property.currentName }
                        let oldJoin = previousProperty.flatMap { old -> String? in
                            if case .toMany(_, _, _, let oldJoinTable, _, _, _) = old.kind, oldJoinTable != joinTable { return oldJoinTable }
                            return nil
                        }
                        var convertedFromColumn: String?
                        if let previousProperty, case .toOne = previousProperty.kind { convertedFromColumn = previousProperty.column }
                        var linkColumns = [SchemaColumn(name: LinkTable.sourceColumn, type: shape.identifier.storage, notNull: true), SchemaColumn(name: LinkTable.targetColumn, type: targetStorage, notNull: true)]
                        // An ordered relationship's links keep their place: after the keys, so that an unordered
                        // table's DDL (and every existing checksum) is what it was.
                        if ordered { linkColumns.append(SchemaColumn(name: LinkTable.positionColumn, type: .integer, notNull: true)) }
                        tables.append(
                            SchemaTable(
                                name: joinTable, kind: .join,
                                columns: linkColumns,
                                primaryKey: [LinkTable.sourceColumn, LinkTable.targetColumn],
                                foreignKeys: [
                                    SchemaForeignKey(columns: [LinkTable.sourceColumn], table: shape.tableName, tableColumns: [shape.identifier.column], onDelete: .cascade),
                                    SchemaForeignKey(columns: [LinkTable.targetColumn], table: timelines[targetEntity]!.tableName(at: version), tableColumns: [targetColumn], onDelete: .cascade),
                                ],
                                indexes: [SchemaIndex(name: LinkTable.targetIndexName(joinTable), columns: [LinkTable.targetColumn])], renamedFrom: oldJoin,
                                convertedFromColumn: convertedFromColumn))
                    }
                }
            }
            addColumns(of: shape, previousShape: previousShape, timeline: timeline, historyVersion: historyVersion, ofSubentity: false)
            // Entity inheritance: each subentity's own properties are columns of this table, then the `kind` column.
            var subentityIndexes: [SchemaIndex] = []
            var subentityDefaultNamed: Set<String> = []
            for member in timeline.descendants {
                guard let memberHistory = member.historyVersion(at: version), let resolved = resolvedByName[member.entity.name],
                    let memberShape = resolved.shapes.first(where: { $0.version == memberHistory })
                else { continue }
                let memberPrevious = previous.flatMap { previous in member.historyVersion(at: previous).flatMap { h in resolved.shapes.first { $0.version == h } } }
                addColumns(of: memberShape, previousShape: memberPrevious, timeline: member, historyVersion: memberHistory, ofSubentity: true)
                let described = describedIndexes(of: member, table: shape.tableName, at: memberHistory)
                subentityIndexes += described.indexes
                subentityDefaultNamed.formUnion(described.defaultNamed)
            }
            if let kind = kindColumn(of: timeline, at: version, previous: previous) {
                columns.append(kind)
                indexes.append(SchemaIndex(name: Self.defaultIndexName(table: shape.tableName, columns: [kind.name], unique: false, naming: timeline.columnNaming), columns: [kind.name]))
            }
            // Described indexes: a released version's are its snapshot's (adding `indexed` to a description
            // changes the versions from the current one on), any other version's the descriptions'.
            if let frozenTable = frozenSchema?.tables.first(where: { $0.name == shape.tableName }) {
                let automatic = Set(indexes.map(\.name))
                indexes += frozenTable.indexes.filter { !automatic.contains($0.name) }
            } else {
                let described = describedIndexes(of: timeline, table: shape.tableName, at: historyVersion)
                indexes += described.indexes + subentityIndexes
                defaultNamedIndexes[shape.tableName] = described.defaultNamed.union(subentityDefaultNamed)
            }
            // Declared search: a released version's is its snapshot's, any other version's the description's.
            let search: SchemaSearch? =
                if let frozenTable = frozenTables[shape.tableName] {
                    frozenTable.search
                } else {
                    describedSearch(of: timeline, at: historyVersion, columns: columns, &diagnostics)
                }
            if columns.count > Self.maximumColumns, tooWide.insert(timeline.entity.name).inserted {
                diagnostics.error(
                    "entity '\(shape.name)' has \(columns.count) columns at \(version) (its identifier, each property, each element of a composite): SQLite allows at most \(Self.maximumColumns) in a table (SQLITE_MAX_COLUMN); store some properties together (a struct stored as JSON) or split the entity",
                    at: timeline.entity.location, path: "$.properties")
            }
            let identifierColumn = columns.removeFirst()
            columns.sort { $0.name < $1.name }
            tables.append(
                SchemaTable(
                    name: shape.tableName, columns: [identifierColumn] + columns, primaryKey: [identifierColumn.name], foreignKeys: foreignKeys, indexes: indexes,
                    renamedFrom: renamedTable, search: search, autoincrement: timeline.entity.identifier.autoincrement ? true : nil))

            var snapshot = SchemaSnapshot.EntitySnapshot(
                name: shape.name, table: shape.tableName, identifier: Self.describe(shape.identifier),
                properties: shape.properties.filter { !$0.isKind }
                    .map { SchemaSnapshot.PropertySnapshot(name: $0.name, type: $0.typeDescription, nullable: $0.nullable, defaultValue: $0.defaultSQL) }
                    .sorted { $0.name < $1.name })
            snapshot.abstract = timeline.entity.abstract ? true : nil
            entitySnapshots.append(snapshot)
        }
        if let previousSchema {
            let previousTables = previousSchema.tablesByNameKey()
            for index in tables.indices {
                let table = tables[index]
                if previousShapeless(table, newTables), previousTables[sqlNameKey(table.name)] != nil { tables[index].reusesName = true }
                guard let previousTable = previousTables[sqlNameKey(table.renamedFrom ?? table.name)], tables[index].reusesName != true else { continue }
                for column in table.columns.indices where newColumns.contains("\(table.name).\(table.columns[column].name)") {
                    if previousTable.column(named: table.columns[column].name) != nil { tables[index].columns[column].reusesName = true }
                }
            }
        }
        if let previousSchema, frozenSchema == nil { Self.inheritingIndexNames(&tables, defaultNamed: defaultNamedIndexes, previous: previousSchema, naming: timelines.values.first?.columnNaming ?? .asNamed) }
        checkSearchNames(tables, entities: entities, at: version, &diagnostics)
        let schema = Schema(version: version, tables: tables)
        let snapshot = SchemaSnapshot(
            format: SchemaSnapshot.currentFormat, version: version, checksum: schema.checksum(cache: &ddlCache), entities: entitySnapshots.sorted { $0.name < $1.name }, tables: schema.tables)
        return (schema, snapshot)
    }

    /// The `kind` column of a hierarchy's root table at `version` (nil before its first subentity): TEXT NOT
    /// NULL, its default the root's name (rows that were there before the hierarchy are the root's), with
    /// the entities of the hierarchy renamed (their rows' kind rewritten) and removed (their rows deleted)
    /// since the previous version as ``SchemaColumn/caseChanges``.
    func kindColumn(of root: EntityTimeline, at version: SchemaVersion, previous: SchemaVersion?) -> SchemaColumn? {
        guard root.hasKind(at: version) else { return nil }
        var column = SchemaColumn(
            name: Hierarchy.kindColumn, type: .text, notNull: true, defaultSQL: quoteLiteral(root.name(at: version)), valueType: Hierarchy.kindValueType)
        if let previous, root.hasKind(at: previous) {
            var changes: [EnumCaseChange] = []
            for member in [root] + root.descendants where member.exists(at: previous) {
                let before = member.name(at: previous)
                if !member.exists(at: version) {
                    changes.append(EnumCaseChange(from: before, to: nil, removed: true))
                } else if member.name(at: version) != before {
                    changes.append(EnumCaseChange(from: before, to: member.name(at: version)))
                }
            }
            if !changes.isEmpty { column.caseChanges = changes.sorted { $0.from < $1.from } }
        }
        return column
    }

    /// A composite's columns at a version. Relative to the previous version, an element keeps its column
    /// through a rename of the property (`renamedFrom`), and a struct that was stored as JSON gives each
    /// element its member's value (`extractedFrom`/`jsonPath`, read by `json_extract` in the rebuild).
    private func compositeColumns(
        _ composite: CompositeShape, of property: PropertyShape, previous: PropertyShape?, previousSchemaVersion: SchemaVersion?, _ diagnostics: inout DiagnosticCollector
    ) -> [SchemaColumn] {
        // Elements by identity (their current names): a member renamed at this version keeps its column.
        var previousColumns: [[String]: String] = [:]
        var jsonSource: String?
        switch previous?.kind {
        case .composite(let old)?:
            for leaf in old.leaves(optional: false) { previousColumns[leaf.identityPath] = leaf.column }
        case .value? where previous!.storedAsJSON && previous!.typeDescription == composite.subtype:
            jsonSource = previous!.column
        default: break
        }
        return composite.leaves(optional: property.nullable).map { leaf in
            var column = SchemaColumn(name: leaf.column, type: leaf.storage, notNull: leaf.notNull, defaultSQL: leaf.defaultSQL, valueType: leaf.valueType)
            column.compositeGroup = leaf.group
            column.requiredWhenPresent = leaf.requiredWhenPresent ? true : nil
            if let old = previousColumns[leaf.identityPath], old != leaf.column { column.renamedFrom = old }
            // The JSON was written with the members as they were at the previous version; a member new at
            // this version has no value there (its column takes its default).
            if let jsonSource, let before = previousSchemaVersion, let names = SubtypeDescription.members(along: leaf.identityPath, from: composite.subtype, in: subtypes, at: before)?.map(\.name) {
                column.extractedFrom = jsonSource
                column.jsonPath = "$." + names.joined(separator: ".")
            }
            return column
        }
    }

    func description(of property: PropertyShape, in timeline: EntityTimeline) -> PropertyDescription? {
        timeline.entity.properties.first { $0.name == property.currentName }
    }

    private func previousShapeless(_ table: SchemaTable, _ newTables: Set<String>) -> Bool {
        newTables.contains(table.name) && table.renamedFrom == nil && table.convertedFromColumn == nil
    }

    static func describe(_ identifier: IdentifierShape) -> String {
        switch identifier.kind {
        case .local: "local"
        case .scalar(let scalar): scalar.rawValue
        case .property(let name): "property \(name)"
        }
    }
}

extension PropertyDescription {
    /// The property as it was at `version`, with its `type_history` applied.
    func asOf(_ version: SchemaVersion) -> PropertyDescription {
        var result = self
        // Items are oldest first; the one that applies is the first whose until_version is later, but
        // fields it leaves out come from the later items (or the property itself).
        for item in typeHistory.reversed() where version < item.untilVersion {
            if let type = item.type { result.type = type }
            if let nullable = item.nullable { result.nullable = nullable }
            if let defaultValue = item.defaultValue { result.defaultValue = defaultValue }
        }
        return result
    }
}
