import Foundation
@_spi(Generated) import LucidSchema

/// What ``ShapeBuilder/schema(at:previous:previousSchema:entities:_:)`` gathers going through the entities
/// of a version: the tables so far, what has no predecessor at the previous version, and each entity's snapshot.
struct VersionSchemaDraft {
    let version: SchemaVersion
    /// The version before `version` (nil for the first), which columns and tables are renamed or converted from.
    let previous: SchemaVersion?
    var tables: [SchemaTable] = []
    /// Tables and columns (`table.column`) with no predecessor at the previous version: if one of the same
    /// name existed there, it was another table or column (renamed or removed at this version).
    var newTables: Set<String> = []
    var newColumns: Set<String> = []
    var entitySnapshots: [SchemaSnapshot.EntitySnapshot] = []
    /// Per table, its described indexes whose names are defaults (they may keep the previous version's name).
    var defaultNamedIndexes: [String: Set<String>] = [:]

    /// Records the columns and join tables of `properties` (of `owner`) that have no predecessor at the
    /// previous version: a property new then, or an element that was not an element of its composite.
    mutating func recordNew(_ properties: [PropertyShape], of owner: ColumnOwner) {
        let table = owner.shape.tableName
        for property in properties {
            let previousProperty = owner.previousProperty(of: property)
            if case .composite(let composite) = property.kind {
                var before: Set<[String]> = []
                if case .composite(let old)? = previousProperty?.kind { before = Set(old.leaves(optional: false).map(\.identityPath)) }
                for leaf in composite.leaves(optional: false) where !before.contains(leaf.identityPath) {
                    newColumns.insert("\(table).\(leaf.column)")
                }
                continue
            }
            guard previousProperty == nil else { continue }
            if case .toMany(_, _, _, let joinTable, _, _, _) = property.kind {
                newTables.insert(joinTable)
            } else {
                newColumns.insert("\(table).\(property.column)")
            }
        }
    }
}

/// A root entity's table while its columns are gathered: its own, its subentities', the kind column.
struct TableDraft {
    var columns: [SchemaColumn]
    var foreignKeys: [SchemaForeignKey] = []
    var indexes: [SchemaIndex] = []
}

extension ShapeBuilder {
    /// The schema at a version, and the snapshot that freezes it: a table per root entity (with its
    /// subentities' columns) and a join table per to-many relationship; then the names reused from the
    /// previous version are marked, index names kept through renames, and the searches' names checked.
    mutating func schema(
        at version: SchemaVersion, previous: SchemaVersion?, previousSchema: Schema? = nil, entities: [ResolvedEntity],
        _ diagnostics: inout DiagnosticCollector
    ) -> (Schema, SchemaSnapshot) {
        var draft = VersionSchemaDraft(version: version, previous: previous)
        let frozenSchema = frozen[version]
        let resolvedByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            let timeline = timelines[entity.name]!
            guard let historyVersion = timeline.historyVersion(at: version),
                let shape = entity.shapes.first(where: { $0.version == historyVersion })
            else { continue }
            if let parent = timeline.parent(at: version) {
                // A subentity: its own properties are columns of its root's table (built with the root's);
                // its snapshot records its own properties and its parent.
                var snapshot = entitySnapshot(of: shape, timeline, ownPropertiesOnly: true)
                snapshot.parent = parent.name(at: version)
                draft.entitySnapshots.append(snapshot)
                continue
            }
            let previousShape = previous.flatMap { previous in
                timeline.historyVersion(at: previous).flatMap { h in entity.shapes.first { $0.version == h } }
            }
            var owner = ColumnOwner(
                shape: shape, previousShape: previousShape, timeline: timeline, historyVersion: historyVersion, isSubentity: false)
            owner.movedIn = movedIn(owner, previous: previous, resolvedByName: resolvedByName)
            let frozenTable = frozenSchema?.tables.first { $0.name == shape.tableName }
            let quiet = quietTableKey(of: owner, frozenTable: frozenTable, resolvedByName: resolvedByName, at: version, previous: previous)
            if tableReuse != .off, let quiet, let reused = reusedTable(of: entity.name, quiet, previous: previous) {
                // Nothing of its hierarchy changed here or at the previous version: the table built there.
                if tableReuse == .verified {
                    verifyReused(reused, of: owner, frozenTable: frozenTable, resolvedByName: resolvedByName, draft, &diagnostics)
                }
                draft.tables += reused.linkTables
                if let named = reused.defaultNamedIndexes { draft.defaultNamedIndexes[shape.tableName] = named }
                draft.tables.append(reused.table)
                quietTables[entity.name]?.version = version
                reusedTables += 1
            } else {
                let linksBefore = draft.tables.count
                let table = rootTableWithMovedRows(
                    of: owner, frozenTable: frozenTable, resolvedByName: resolvedByName, &draft, &diagnostics)
                quietTables[entity.name] = quiet.map { key in
                    QuietTable(
                        version: version, key: key, table: table, linkTables: Array(draft.tables[linksBefore...]),
                        defaultNamedIndexes: draft.defaultNamedIndexes[shape.tableName])
                }
                draft.tables.append(table)
            }
            draft.entitySnapshots.append(entitySnapshot(of: shape, timeline, ownPropertiesOnly: false))
        }
        var tables = draft.tables
        if let previousSchema {
            Self.markReusedNames(in: &tables, newTables: draft.newTables, newColumns: draft.newColumns, previous: previousSchema)
            if frozenSchema == nil {
                Self.inheritingIndexNames(
                    &tables, defaultNamed: draft.defaultNamedIndexes, previous: previousSchema,
                    naming: timelines.values.first?.columnNaming ?? .asNamed)
            }
        }
        checkSearchNames(tables, entities: entities, at: version, &diagnostics)
        checkLinkTableNames(tables, entities: entities, at: version, &diagnostics)
        let schema = Schema(version: version, tables: tables)
        let snapshot = SchemaSnapshot(
            version: version, checksum: schema.checksum(cache: &ddlCache),
            entities: draft.entitySnapshots.sorted { $0.name < $1.name }, tables: schema.tables)
        return (schema, snapshot)
    }

    /// ``rootTable(of:frozenTable:resolvedByName:_:_:)`` with the rows that come into it at the draft's
    /// version (``movedRows(into:of:at:previous:)``): what a root's table at a version is, reused or not.
    mutating func rootTableWithMovedRows(
        of owner: ColumnOwner, frozenTable: SchemaTable?, resolvedByName: [String: ResolvedEntity], _ draft: inout VersionSchemaDraft,
        _ diagnostics: inout DiagnosticCollector
    ) -> SchemaTable {
        var table = rootTable(of: owner, frozenTable: frozenTable, resolvedByName: resolvedByName, &draft, &diagnostics)
        if let previous = draft.previous {
            table.movedRows = movedRows(into: table, of: owner.timeline, at: draft.version, previous: previous)
        }
        return table
    }

    /// The rows that come into the table of `root` at `version` from other tables of `previous`: those of
    /// each entity of its hierarchy (itself included) whose root was another then (it gained, lost or
    /// changed its parent), grouped by the table they were in. Nil when none.
    func movedRows(into table: SchemaTable, of root: EntityTimeline, at version: SchemaVersion, previous: SchemaVersion) -> [MovedRows]? {
        var result: [MovedRows] = []
        let hasKind = table.columns.contains(where: \.isKindColumn)
        for member in [root] + root.descendants(at: version) where member.exists(at: previous) && member.exists(at: version) {
            let oldRoot = member.root(at: previous)
            guard !oldRoot.isSame(as: root) else { continue }
            let source = oldRoot.tableName(at: previous)
            let index =
                result.firstIndex { $0.table == source }
                ?? {
                    result.append(MovedRows(table: source, kinds: oldRoot.hasKind(at: previous) ? [] : nil, kind: nil))
                    return result.count - 1
                }()
            if result[index].kinds != nil {
                result[index].kinds!.append(KindRewrite.Rename(from: member.name(at: previous), to: member.name(at: version)))
            } else if hasKind {
                result[index].kind = member.name(at: version)
            }
        }
        return result.isEmpty ? nil : result
    }

    /// The app's join table a to-many names (`link_table`) is a table of its own: one that another table of the
    /// version is named too (an entity's, another link's) is an error at the `link_table`.
    func checkLinkTableNames(
        _ tables: [SchemaTable], entities: [ResolvedEntity], at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    ) {
        for entity in entities {
            // Only a description that names a link table somewhere can name one at this version.
            guard let timeline = timelines[entity.name],
                timeline.entity.properties.contains(where: { $0.linkTable != nil || $0.typeHistory.contains { $0.linkTable != nil } }),
                timeline.exists(at: version)
            else { continue }
            for property in timeline.properties(at: version) {
                guard let link = property.asOf(version).linkTable, tables.filter({ sqlNameKey($0.name) == sqlNameKey(link.name) }).count > 1
                else { continue }
                diagnostics.error(
                    "link_table '\(link.name)' of '\(entity.name).\(property.name)' is the name of another table too (an entity's or another relationship's); the app's join table needs a name of its own",
                    at: link.location, path: property.path + ".property_type.link_table")
            }
        }
    }

    /// The properties of `owner` that moved to it at this version from another entity of its hierarchy
    /// (`moved_from`), as that entity had them at the previous version: their columns carry on.
    func movedIn(_ owner: ColumnOwner, previous: SchemaVersion?, resolvedByName: [String: ResolvedEntity]) -> [String: PropertyShape] {
        guard let previous else { return [:] }
        // The same shape as at the previous version: every property was there (most entities, most versions).
        if owner.previousShape?.version == owner.shape.version { return [:] }
        let before = Set(owner.previousShape?.properties.map(\.currentName) ?? [])
        var result: [String: PropertyShape] = [:]
        for property in owner.shape.properties where !before.contains(property.currentName) {
            guard let source = owner.description(of: property)?.movedFrom, let sourceTimeline = timelines[source],
                let sourceHistory = sourceTimeline.historyVersion(at: previous),
                let sourceShape = resolvedByName[source]?.shapes.first(where: { $0.version == sourceHistory }),
                let earlier = sourceShape.properties.first(where: { $0.currentName == property.currentName })
            else { continue }
            result[property.currentName] = earlier
        }
        return result
    }

    /// The table of a root entity at `draft.version`: its identifier, its properties' columns (their join
    /// tables go to `draft`), its subentities' own columns, a hierarchy's kind column, then its indexes and
    /// search. A released version's indexes and search are its snapshot's (`frozenTable`).
    mutating func rootTable(
        of owner: ColumnOwner, frozenTable: SchemaTable?, resolvedByName: [String: ResolvedEntity], _ draft: inout VersionSchemaDraft,
        _ diagnostics: inout DiagnosticCollector
    ) -> SchemaTable {
        let (shape, timeline, version) = (owner.shape, owner.timeline, draft.version)
        if owner.previousShape == nil { draft.newTables.insert(shape.tableName) }
        var table = TableDraft(columns: [Self.identifierColumn(of: owner)])
        addColumns(of: owner, to: &table, &draft, &diagnostics)
        // Entity inheritance: each subentity's own properties are columns of this table, then the `kind` column.
        var subentityIndexes: [SchemaIndex] = []
        var subentityDefaultNamed: Set<String> = []
        for member in timeline.descendants(at: version) {
            guard let memberHistory = member.historyVersion(at: version), let resolved = resolvedByName[member.entity.name],
                let memberShape = resolved.shapes.first(where: { $0.version == memberHistory })
            else { continue }
            let memberPrevious = draft.previous.flatMap { previous in
                member.historyVersion(at: previous).flatMap { h in resolved.shapes.first { $0.version == h } }
            }
            var memberOwner = ColumnOwner(
                shape: memberShape, previousShape: memberPrevious, timeline: member, historyVersion: memberHistory, isSubentity: true)
            memberOwner.movedIn = movedIn(memberOwner, previous: draft.previous, resolvedByName: resolvedByName)
            addColumns(of: memberOwner, to: &table, &draft, &diagnostics)
            let described = describedIndexes(of: member, table: shape.tableName, at: memberHistory)
            subentityIndexes += described.indexes
            subentityDefaultNamed.formUnion(described.defaultNamed)
        }
        if let kind = kindColumn(of: timeline, at: version, previous: draft.previous) {
            table.columns.append(kind)
            table.indexes.append(
                SchemaIndex(
                    name: Self.defaultIndexName(table: shape.tableName, columns: [kind.name], unique: false, naming: timeline.columnNaming),
                    columns: [kind.name]))
        }
        // Described indexes: a released version's are its snapshot's (adding `indexed` to a description
        // changes the versions from the current one on), any other version's the descriptions'.
        if let frozenTable {
            let automatic = Set(table.indexes.map(\.name))
            table.indexes += frozenTable.indexes.filter { !automatic.contains($0.name) }
        } else {
            let described = describedIndexes(of: timeline, table: shape.tableName, at: owner.historyVersion)
            table.indexes += described.indexes + subentityIndexes
            draft.defaultNamedIndexes[shape.tableName] = described.defaultNamed.union(subentityDefaultNamed)
        }
        // Declared search: a released version's is its snapshot's, any other version's the description's.
        let search: SchemaSearch? =
            if let frozenTable {
                frozenTable.search
            } else {
                describedSearch(of: timeline, at: owner.historyVersion, columns: table.columns, &diagnostics)
            }
        checkColumnCount(table.columns.count, of: owner, at: version, &diagnostics)
        var columns = table.columns
        let identifierColumn = columns.removeFirst()
        columns.sort { $0.name < $1.name }
        // A table renamed with its entity; an entity that was in another hierarchy's table then (its parent
        // changed) has a new table, which its rows move into (``SchemaTable/movedRows``).
        let wasRoot = draft.previous.map { timeline.root(at: $0).isSame(as: timeline) } ?? true
        let renamedTable = owner.previousShape.flatMap { $0.tableName != shape.tableName && wasRoot ? $0.tableName : nil }
        var result = SchemaTable(
            name: shape.tableName, columns: [identifierColumn] + columns, primaryKey: [identifierColumn.name],
            foreignKeys: (shape.identifier.foreignKey.map { [$0] } ?? []) + table.foreignKeys, indexes: table.indexes,
            renamedFrom: renamedTable, search: search, autoincrement: timeline.entity.identifier.autoincrement ? true : nil)
        result.primaryKeyConflict = timeline.entity.identifier.onConflict
        let checks = timeline.entity.checks.filter { $0.holds(at: version) }.map(\.check)
        if !checks.isEmpty { result.checks = checks }
        if timeline.entity.strict {
            result.strict = true
            checkStrictTypes(of: result, owner, at: version, &diagnostics)
        }
        return result
    }

    /// A `STRICT` table's columns must declare one of the types SQLite's strict tables accept (a `column_type`
    /// such as GRDB's `DATETIME` or `BOOLEAN` makes SQLite refuse the `CREATE TABLE`): each other one is an
    /// error, once per entity and type, at the entity.
    mutating func checkStrictTypes(
        of table: SchemaTable, _ owner: ColumnOwner, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector
    ) {
        for column in table.columns where !SchemaColumn.strictTypes.contains(column.sqlType.uppercased()) {
            guard strictTypeErrors.insert("\(owner.timeline.entity.name).\(column.name)").inserted else { continue }
            diagnostics.error(
                "entity '\(owner.shape.name)' is strict, and its column '\(column.name)' declares \(column.sqlType) at \(version): a STRICT table's columns are INTEGER, INT, REAL, TEXT, BLOB or ANY; "
                    + "remove its column_type, or \"strict\"",
                at: owner.timeline.entity.strictLocation ?? owner.timeline.entity.location, path: "$.strict")
        }
    }

    /// The primary key column; an identifier property renamed at this version keeps its column.
    static func identifierColumn(of owner: ColumnOwner) -> SchemaColumn {
        let identifier = owner.shape.identifier
        var column = SchemaColumn(
            name: identifier.column, type: identifier.storage, notNull: identifier.kind != .local, valueType: valueType(of: identifier))
        if case .property(let key) = owner.timeline.entity.identifier.kind {
            if let old = owner.previousShape, old.identifier.column != identifier.column { column.renamedFrom = old.identifier.column }
            // The key property's declared type and collation are its column's, as any property's (a `COLLATE NOCASE` text key).
            let described = owner.timeline.entity.properties.first { $0.name == key }
            column.declaredType = described?.columnType
            column.collation = described?.collation
            column.notNullConflict = described?.onConflict
            // Its default too (SQLiteData's `DEFAULT (uuid())`: an insert that gives no key takes it).
            column.defaultSQL =
                owner.shape.properties.first { $0.currentName == key }?.defaultSQL
                ?? { if case .sqlExpression(let sql)? = described?.defaultValue { sql } else { nil } }()
            column.check = described?.check
        }
        return column
    }

    /// A table may not have more columns than SQLite allows: reported once per entity, at the first version
    /// with too many.
    mutating func checkColumnCount(_ count: Int, of owner: ColumnOwner, at version: SchemaVersion, _ diagnostics: inout DiagnosticCollector)
    {
        guard count > Self.maximumColumns, tooWide.insert(owner.timeline.entity.name).inserted else { return }
        diagnostics.error(
            "entity '\(owner.shape.name)' has \(count) columns at \(version) (its identifier, each property, each element of a composite): SQLite allows at most \(Self.maximumColumns) in a table (SQLITE_MAX_COLUMN); store some properties together (a struct stored as JSON) or split the entity",
            at: owner.timeline.entity.location, path: "$.properties")
    }

    /// ``entitySnapshot(of:_:ownPropertiesOnly:)-swift.type.method``, made once per history version: a
    /// snapshot is its shape's, and most versions change few entities.
    mutating func entitySnapshot(of shape: EntityShape, _ timeline: EntityTimeline, ownPropertiesOnly: Bool)
        -> SchemaSnapshot.EntitySnapshot
    {
        if let made = entitySnapshots[timeline.entity.name], made.version == shape.version, made.ownPropertiesOnly == ownPropertiesOnly {
            return made.snapshot
        }
        let snapshot = Self.entitySnapshot(of: shape, timeline, ownPropertiesOnly: ownPropertiesOnly)
        entitySnapshots[timeline.entity.name] = (shape.version, ownPropertiesOnly, snapshot)
        return snapshot
    }

    /// An entity's snapshot at a version: its properties by name (a subentity's own only, with
    /// `ownPropertiesOnly`), never the kind column.
    static func entitySnapshot(of shape: EntityShape, _ timeline: EntityTimeline, ownPropertiesOnly: Bool) -> SchemaSnapshot.EntitySnapshot
    {
        let own = timeline.ownPropertyNames(at: shape.version)
        var snapshot = SchemaSnapshot.EntitySnapshot(
            name: shape.name, table: shape.tableName, identifier: describe(shape.identifier),
            properties: shape.properties.filter { !$0.isKind && (!ownPropertiesOnly || own.contains($0.currentName)) }
                .map {
                    SchemaSnapshot.PropertySnapshot(
                        name: $0.name, type: $0.typeDescription, nullable: $0.nullable, defaultValue: $0.defaultSQL)
                }
                .sorted { $0.name < $1.name })
        snapshot.abstract = timeline.entity.abstract ? true : nil
        return snapshot
    }

    static func describe(_ identifier: IdentifierShape) -> String {
        switch identifier.kind {
        case .local: "local"
        case .scalar(let scalar): scalar.rawValue
        case .property(let name): "property \(name)"
        }
    }

    /// Marks the tables and columns new at this version that take a name the previous version's schema
    /// had (``SchemaTable/reusesName``, ``SchemaColumn/reusesName``): that table or column was renamed or
    /// removed, and this one is not it.
    static func markReusedNames(in tables: inout [SchemaTable], newTables: Set<String>, newColumns: Set<String>, previous: Schema) {
        let previousTables = previous.tablesByNameKey()
        for index in tables.indices {
            let table = tables[index]
            let hasPredecessor = !newTables.contains(table.name) || table.renamedFrom != nil || table.convertedFromColumn != nil
            if !hasPredecessor, previousTables[sqlNameKey(table.name)] != nil { tables[index].reusesName = true }
            guard let previousTable = previousTables[sqlNameKey(table.renamedFrom ?? table.name)], tables[index].reusesName != true else {
                continue
            }
            for column in table.columns.indices where newColumns.contains("\(table.name).\(table.columns[column].name)") {
                if previousTable.column(named: table.columns[column].name) != nil { tables[index].columns[column].reusesName = true }
            }
        }
    }
}
