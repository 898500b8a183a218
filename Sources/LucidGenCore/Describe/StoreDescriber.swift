import Foundation
import LucidSchema
@_spi(Generated) import LucidSchema

/// `lucidgen describe`: the descriptions of the tables a store already has, so that lucidgen adopts the store
/// as it is, with no hand edits. The inverse of Resolve for one version: each table with a single-column
/// primary key becomes an entity (its name, and its columns' names, in snake_case with the store's spelling as
/// `persisted_name`), each column a property typed by its storage class (or by a hint), each single-column
/// foreign key to another table's key a to-one relationship with its `ON DELETE` action, each index an
/// `indexes` item with its name, `AUTOINCREMENT` the identifier's. Nothing is guessed silently: what it
/// cannot describe faithfully is a finding, and tables it cannot describe stay the app's.
package struct StoreDescriber {
    /// `--type table.column=date`: the description type of a column SQLite cannot tell (lower-cased key).
    package var typeHints: [String: String] = [:]

    package init(typeHints: [String: String] = [:]) {
        self.typeHints = typeHints
    }

    /// One description file to write, and what describing the store found.
    package struct Output: Sendable {
        /// Entity name → the description's JSON text.
        package var entities: [(name: String, json: String)] = []
        /// What the descriptions do not say as the store has it (the store will not be recognised until it is resolved).
        package var problems: [String] = []
        /// What the descriptions say that SQLite does not store (a type from a hint, a default written as a value).
        package var notes: [String] = []
        /// Tables left to the app, with why.
        package var appTables: [(name: String, why: String)] = []
        /// What the descriptions say otherwise than the store's names would (two tables whose names meet
        /// in snake_case, one of them described under another name): nothing the store disagrees with.
        package var warnings: [String] = []
    }

    /// One store's tables at the version they are.
    package struct Layout: Sendable {
        package var version: SchemaVersion
        package var tables: [SchemaTable]
        package init(version: SchemaVersion, tables: [SchemaTable]) {
            self.version = version
            self.tables = tables
        }
    }

    /// `--rename table.oldColumn=newColumn@version`: the column was renamed at that version (lower-cased table
    /// and old column → (new column, version)).
    package var renames: [String: (column: String, version: SchemaVersion)] = [:]
    /// Tables to leave to the app, undescribed, with why (by lower-cased name): those whose descriptions
    /// `generate` would refuse (``Describe`` checks what it would write before writing it).
    package var leftToTheApp: [String: String] = [:]
    /// The project's `column_naming`: a column named by the convention needs no `persisted_name`.
    package var columnNaming: ColumnNaming = .asNamed

    /// The convention a new project's config should state for these tables: `camel_case` when some column is
    /// camelCase (`roomId`) and every column is what `camel_case` makes of its property's name, else `as_named`.
    package static func columnNaming(of layouts: [Layout]) -> ColumnNaming {
        let columns = layouts.flatMap { $0.tables.flatMap { $0.columns.map(\.name) } }
        let camel = columns.filter { ColumnNaming.camelCase.column(Naming.snakeCase($0)) == $0 }
        return camel.count == columns.count && camel.contains { Naming.snakeCase($0) != $0 } ? .camelCase : .asNamed
    }

    package func describe(_ tables: [SchemaTable], version: SchemaVersion) -> Output {
        describe([Layout(version: version, tables: tables)])
    }

    /// The descriptions of a history: each layout is the store's tables at its version (oldest first after
    /// sorting). An entity's history has an item at each version whose layout has its table; a property
    /// appearing later is `added_at_version`, one disappearing `removed_at_version`, a changed type,
    /// nullability or default a `type_history` item, a renamed column (`renames`) a `type_history` item's
    /// `persisted_name`.
    package func describe(_ layouts: [Layout]) -> Output {
        var output = Output()
        let layouts = layouts.sorted { $0.version < $1.version }
        // Layouts with the same tables: a user's store with them is one of those versions, and its tables cannot say which.
        var sameTables: [Set<SchemaTable>: [SchemaVersion]] = [:]
        for layout in layouts { sameTables[Set(layout.tables), default: []].append(layout.version) }
        for versions in sameTables.values.filter({ $0.count > 1 }).sorted(by: { $0[0] < $1[0] }) {
            output.warnings.append(
                "the stores at \(versions.map(\.string).joined(separator: ", ")) have the same tables: a user's store with them is recognised as \(versions[versions.count - 1]), "
                    + "the newest of those versions (unless its PRAGMA user_version N names one of them, N.0), so the steps between them do not run for it"
            )
        }
        let (entityNames, unmanaged) = Self.entityNames(layouts, leftToTheApp: leftToTheApp, &output)
        var perLayout: [[String: (table: SchemaTable, entity: DescribedEntity)]] = []
        for layout in layouts {
            let entityTables = layout.tables.filter { table in
                table.primaryKey.count == 1 && table.column(named: table.primaryKey[0]) != nil && unmanaged[sqlNameKey(table.name)] == nil
            }
            let keyedTables = Dictionary(entityTables.map { (sqlNameKey($0.name), $0) }, uniquingKeysWith: { first, _ in first })
            // lucidgen's own link tables (a store lucidgen made): to-many relationships of their owner.
            var links: [String: [(name: String, column: String, target: String, ordered: Bool)]] = [:]
            var linkTables: Set<String> = []
            for table in layout.tables where unmanaged[sqlNameKey(table.name)] == nil {
                guard let link = Self.linkTable(table, keyed: keyedTables) else { continue }
                links[sqlNameKey(link.owner), default: []].append(
                    (Naming.snakeCase(link.relationship), link.relationship, entityNames[sqlNameKey(link.target)]!, link.ordered))
                linkTables.insert(table.name)
            }
            // The app's own join tables (GRDB's `bookAuthor(bookId, authorId)`): to-many relationships of their
            // primary key's first column's table, through them (`link_table`).
            var appLinks: [String: [(name: String, target: String, link: LinkTable.Columns, table: String)]] = [:]
            var joinProblems: [String: String] = [:]
            for table in layout.tables
            where unmanaged[sqlNameKey(table.name)] == nil && !linkTables.contains(table.name) && table.primaryKey.count == 2 {
                switch Self.appLinkTable(table, keyed: keyedTables) {
                case .failure(let problem): joinProblems[table.name] = problem.why
                case .success(let link):
                    let owner = keyedTables[sqlNameKey(link.owner)]!
                    let target = entityNames[sqlNameKey(link.target)]!
                    let taken = Set(
                        owner.columns.map { Naming.snakeCase($0.name) } + (links[sqlNameKey(link.owner)] ?? []).map(\.name)
                            + (appLinks[sqlNameKey(link.owner)] ?? []).map(\.name))
                    var name = target.hasSuffix("s") ? target : target + "s"
                    if taken.contains(name) { name = Naming.snakeCase(table.name) }
                    appLinks[sqlNameKey(link.owner), default: []].append((name, target, link.columns, table.name))
                    linkTables.insert(table.name)
                    if !output.notes.contains(where: { $0.hasPrefix("\(table.name): ") }) {
                        output.notes.append(
                            "\(table.name): described as \(entityNames[sqlNameKey(link.owner)]!)'s to-many relationship \(name) to \(target) through it (link_table: its primary key's first column, "
                                + "\(link.columns.source), is the owner's); lucidgen's to-many relationships are one-sided, so \(target) has no inverse (GRDB's hasMany(through:) from \(target) is the app's to write)"
                        )
                    }
                }
            }
            for table in layout.tables where !entityTables.contains(where: { $0.name == table.name }) && !linkTables.contains(table.name) {
                if output.appTables.contains(where: { $0.name == table.name }) { continue }
                output.appTables.append(
                    (
                        table.name,
                        unmanaged[sqlNameKey(table.name)] ?? joinProblems[table.name]
                            ?? (table.primaryKey.isEmpty
                                ? "it has no declared primary key (lucidgen's entities are keyed)"
                                : "its primary key has \(table.primaryKey.count) columns, and lucidgen's entities have one")
                    ))
            }
            let keyed = Dictionary(entityTables.map { (sqlNameKey($0.name), $0) }, uniquingKeysWith: { first, _ in first })
            var entities: [String: (SchemaTable, DescribedEntity)] = [:]
            for table in entityTables {
                var described = entity(table, keyed: keyed, entityNames: entityNames, version: layout.version, &output)
                for link in links[sqlNameKey(table.name)] ?? [] {
                    described.properties.append(
                        DescribedProperty(
                            name: link.name, column: link.column,
                            type: .relationship(.init(entityName: link.target, association: .toMany, ordered: link.ordered)),
                            nullable: false,
                            defaultValue: nil, onDelete: nil, isRelationship: true))
                }
                for link in appLinks[sqlNameKey(table.name)] ?? [] {
                    let linkTable = DescriptionDocument.LinkTable(name: link.table, columns: link.link)
                    described.properties.append(
                        DescribedProperty(
                            name: link.name, column: columnNaming.column(link.name),
                            type: .relationship(.init(entityName: link.target, association: .toMany, linkTable: linkTable)),
                            nullable: false, defaultValue: nil, onDelete: nil, isRelationship: true))
                }
                entities[sqlNameKey(table.name)] = (table, described)
            }
            perLayout.append(entities)
        }
        let names = Set(perLayout.flatMap(\.keys)).sorted()
        for name in names {
            let present = layouts.indices.filter { perLayout[$0][name] != nil }
            output.entities.append(
                merged(present.map { (layouts[$0].version, perLayout[$0][name]!.entity) }, allVersions: layouts.map(\.version), &output))
        }
        return output
    }

    /// The entity name of each table of the layouts (by its lower-cased name), and the tables lucidgen
    /// cannot manage by their names, with why and what to do.
    ///
    /// A description's name is its file's name, so a table name is checked, never joined to a path: a table
    /// whose name is not an identifier (`../../victim`, `a/b`, `.hidden`, a line break, empty), or whose
    /// snake_case name is not one (longer than a file's name may be), or that holds such a column (a property
    /// name), or a column named `rowid` (which lucidgen's migrations copy rows by), stays the app's. Two
    /// tables whose names meet in snake_case (`userId`, `user_id`) keep distinct entities: the table
    /// already so named keeps the name, the other takes a numbered one (`user_id_2`), with a warning.
    static func entityNames(_ layouts: [Layout], leftToTheApp: [String: String] = [:], _ output: inout Output) -> (
        names: [String: String], unmanaged: [String: String]
    ) {
        var spelling: [String: String] = [:]
        var columns: [String: [String]] = [:]
        var twinIndexes: [String: (SchemaIndex, SchemaIndex)] = [:]
        for layout in layouts {
            for table in layout.tables {
                spelling[sqlNameKey(table.name)] = table.name // the newest layout's spelling
                columns[sqlNameKey(table.name), default: []] += table.columns.map(\.name)
                // Two indexes on the same columns (one UNIQUE, say): a description has one index per list of properties.
                // A `UNIQUE … ON CONFLICT` is the table's constraint, described apart from the indexes: a plain index
                // beside it on the same columns is no twin.
                var seen: [[String]: SchemaIndex] = [:]
                for index in table.indexes {
                    let key = index.columns.map { sqlNameKey($0) } + (index.onConflict == nil ? [] : ["on conflict"])
                    if let other = seen[key], twinIndexes[sqlNameKey(table.name)] == nil {
                        twinIndexes[sqlNameKey(table.name)] = (other, index)
                    }
                    seen[key] = index
                }
            }
        }
        var unmanaged: [String: String] = [:]
        var candidates: [(key: String, table: String, snake: String)] = []
        for (key, table) in spelling.sorted(by: { $0.key < $1.key }) {
            if let why = leftToTheApp[key] {
                unmanaged[key] = why
                continue
            }
            let rename = "rename it in the app first (ALTER TABLE \(shown(quoteIdentifier(table))) RENAME TO …), then describe again"
            if Naming.fileNameProblem(with: table) != nil || Naming.fileNameProblem(with: Naming.snakeCase(table)) != nil {
                unmanaged[key] =
                    "its name is not one lucidgen manages: a table's name is its description's file name, so ASCII letters, digits and underscores, "
                    + "starting with a letter, at most \(Naming.longestFileName) characters (also in snake_case), not starting with sqlite_ or lucid_; \(rename)"
            } else if let column = columns[key]!.first(where: {
                Naming.problem(with: $0) != nil || Naming.problem(with: Naming.snakeCase($0)) != nil
            }) {
                unmanaged[key] =
                    "its column \(String(reflecting: column)) has a name lucidgen does not manage (a property's: ASCII letters, digits and underscores, starting with a letter, "
                    + "also in snake_case); rename it in the app first: ALTER TABLE \(shown(quoteIdentifier(table))) RENAME COLUMN \(shown(quoteIdentifier(column))) TO …"
            } else if let column = columns[key]!.first(where: { Naming.columnProblem(with: $0) != nil }) {
                unmanaged[key] =
                    "its column \(column) hides SQLite's rowid, which lucidgen's migrations copy rows by; "
                    + "rename it in the app first: ALTER TABLE \(shown(quoteIdentifier(table))) RENAME COLUMN \(shown(quoteIdentifier(column))) TO …"
            } else if let (first, second) = twinIndexes[key] {
                let drop = sqlNameKey(second.name).hasPrefix("sqlite_autoindex_") ? first : second
                unmanaged[key] =
                    "its indexes \(shown(quoteIdentifier(first.name))) and \(shown(quoteIdentifier(second.name))) are both on (\(first.columns.joined(separator: ", "))), "
                    + "and a description has one index per list of properties; drop one in the app first (DROP INDEX \(shown(quoteIdentifier(drop.name)))), then describe again"
            } else {
                candidates.append((key, table, Naming.snakeCase(table)))
            }
        }
        let (names, renamed) = distinctNames(candidates.map { ($0.key, $0.table) })
        for (table, name, owner) in renamed {
            output.warnings.append(
                "tables \(owner) and \(table) both make the entity name \(Naming.snakeCase(table)): \(table) is described as \(name) "
                    + "(\(name).json, persisted_name \(table)); rename that description if another name suits it better")
        }
        return (names, unmanaged)
    }

    /// A distinct snake_case name for each of `items` (a table's or column's name, by its lower-cased key):
    /// where two names meet in snake_case (`userId`, `user_id`), the one already so spelled keeps it and the
    /// other takes a numbered one (`user_id_2`). The renamed, with their names and the name's owner.
    static func distinctNames(_ items: [(key: String, name: String)]) -> (
        names: [String: String], renamed: [(name: String, as: String, owner: String)]
    ) {
        var names: [String: String] = [:]
        var owners: [String: String] = [:]
        var renamed: [(String, String, String)] = []
        for item in items where Naming.snakeCase(item.name) == item.name {
            names[item.key] = item.name
            owners[item.name] = item.name
        }
        for item in items where names[item.key] == nil {
            let snake = Naming.snakeCase(item.name)
            var name = snake
            var number = 2
            while owners[name] != nil {
                name = "\(snake.prefix(60))_\(number)"
                number += 1
            }
            if name != snake { renamed.append((item.name, name, owners[snake]!)) }
            names[item.key] = name
            owners[name] = item.name
        }
        return (names, renamed)
    }

    /// A column's collation as `collation` can say it (an identifier); another (a quoted name with a space) is a warning.
    static func describable(collation: String?, of column: String, _ output: inout Output) -> String? {
        guard let collation else { return nil }
        if DescriptionLoader.isCollationName(collation) { return collation }
        output.problems.append("\(column): its collation \(collation) is not an identifier, which lucidgen does not describe")
        return nil
    }

    /// Whether `table` is a link table as lucidgen makes one for a to-many relationship: `<owner>_<relationship>`
    /// with `source_id` and `target_id` (the primary key), each a foreign key with ON DELETE CASCADE to an
    /// entity table's key, and the index `<table>_target_index`; an ordered relationship's (`ordered`) also has
    /// `position INTEGER NOT NULL`.
    static func linkTable(_ table: SchemaTable, keyed: [String: SchemaTable]) -> (
        owner: String, relationship: String, target: String, ordered: Bool
    )? {
        let position = table.column(named: LinkTable.positionColumn)
        let ordered =
            position.map { $0.type == .integer && $0.declaredType == nil && $0.notNull && $0.defaultSQL == nil && $0.collation == nil }
            ?? false
        guard table.primaryKey.map({ sqlNameKey($0) }) == [LinkTable.sourceColumn, LinkTable.targetColumn],
            table.columns.count == (ordered ? 3 : 2),
            table.indexes.map({ sqlNameKey($0.name) }) == [sqlNameKey(LinkTable.targetIndexName(table.name))],
            let source = table.foreignKeys.first(where: { $0.columns.map { sqlNameKey($0) } == [LinkTable.sourceColumn] }),
            let target = table.foreignKeys.first(where: { $0.columns.map { sqlNameKey($0) } == [LinkTable.targetColumn] }),
            table.foreignKeys.count == 2, source.onDelete == .cascade, target.onDelete == .cascade,
            let owner = keyed[sqlNameKey(source.table)], let targetTable = keyed[sqlNameKey(target.table)],
            sqlNameKey(table.name).hasPrefix(sqlNameKey(owner.name) + "_")
        else { return nil }
        let relationship = String(table.name.dropFirst(owner.name.count + 1))
        guard !relationship.isEmpty, owner.column(named: relationship) == nil else { return nil }
        return (owner.name, relationship, targetTable.name, ordered)
    }

    /// Why a table of two keys is not described as a to-many relationship through it.
    struct JoinTableProblem: Error {
        var why: String
    }

    /// Whether `table` is an app's join table lucidgen describes as a to-many relationship through it
    /// (`link_table`): a primary key of two columns and no other column, each NOT NULL, of its storage class's
    /// type, and a foreign key ON DELETE CASCADE (no ON UPDATE) to an entity table's key of the same type; at
    /// most one index, on the second key column. The owner is the first key column's table. Else why not (the
    /// table stays the app's): a join table that carries more (a `position`, a `createdAt`) is no link.
    static func appLinkTable(_ table: SchemaTable, keyed: [String: SchemaTable]) -> Result<
        (owner: String, target: String, columns: LinkTable.Columns), JoinTableProblem
    > {
        func refuse(_ why: String) -> Result<(owner: String, target: String, columns: LinkTable.Columns), JoinTableProblem> {
            .failure(
                JoinTableProblem(
                    why:
                        "its primary key has 2 columns, so it is no entity of lucidgen's, and it is not described as a to-many relationship through it: \(why)"
                ))
        }
        let keys = table.primaryKey
        let extra = table.columns.filter { column in !keys.contains { sameSQLName($0, column.name) } }
        if !extra.isEmpty {
            return refuse(
                "it holds \(extra.map(\.name).joined(separator: ", ")) beyond its two keys, and a link holds only the two (give the table a key of its own to make it an entity)"
            )
        }
        if let options = table.storeOptions { return refuse("it uses \(options.joined(separator: " and "))") }
        if table.primaryKeyConflict != nil { return refuse("its primary key says ON CONFLICT") }
        var references: [(table: SchemaTable, key: SchemaForeignKey)] = []
        for column in keys {
            guard let schemaColumn = table.column(named: column) else { return refuse("its key \(column) is no column") }
            let keysOfColumn = table.foreignKeys.filter { $0.columns.count == 1 && sameSQLName($0.columns[0], column) }
            guard keysOfColumn.count == 1, let key = keysOfColumn.first, let target = keyed[sqlNameKey(key.table)],
                key.tableColumns.isEmpty || (key.tableColumns.count == 1 && sameSQLName(key.tableColumns[0], target.primaryKey[0]))
            else { return refuse("\(column) is not a foreign key to a described table's key") }
            guard key.onDelete == .cascade else {
                return refuse("\(column)'s foreign key says\(key.actionsSQL) (a link's says ON DELETE CASCADE)")
            }
            guard schemaColumn.notNull, schemaColumn.notNullConflict == nil, schemaColumn.defaultSQL == nil,
                schemaColumn.declaredType == nil, schemaColumn.collation == nil,
                let targetKey = target.column(named: target.primaryKey[0]), targetKey.type == schemaColumn.type
            else { return refuse("\(column) is not \(schemaColumn.type.rawValue) NOT NULL alone, as its target's key") }
            references.append((target, key))
        }
        guard table.foreignKeys.count == 2 else { return refuse("it has \(table.foreignKeys.count) foreign keys") }
        let indexes = table.indexes.filter { !sqlNameKey($0.name).hasPrefix("sqlite_autoindex_") }
        var targetIndex: String?
        if let index = indexes.first {
            guard indexes.count == 1, !index.unique, index.columns.count == 1, sameSQLName(index.columns[0], keys[1]) else {
                return refuse("its indexes are not at most one, on \(keys[1])")
            }
            targetIndex = index.name
        }
        if table.indexes.count != indexes.count { return refuse("it has a UNIQUE constraint") }
        return .success(
            (
                references[0].table.name, references[1].table.name,
                LinkTable.Columns(
                    source: keys[0], target: keys[1], targetIndex: targetIndex, strict: table.strict == true,
                    sourceOnUpdate: references[0].key.onUpdate.flatMap { $0 == .noAction ? nil : $0 },
                    targetOnUpdate: references[1].key.onUpdate.flatMap { $0 == .noAction ? nil : $0 })
            ))
    }

    /// An entity as one layout has it.
    struct DescribedEntity {
        var name: String
        var table: String
        var identifier: DescriptionDocument.Identifier
        var properties: [DescribedProperty]
        var indexes: [DescriptionDocument.Index]
        /// Each index as the store has it: name, uniqueness, columns.
        var indexShapes: [SchemaIndex] = []
        /// The table is `STRICT`.
        var strict = false
        /// The table's CHECK constraints (`checks`).
        var checks: [SchemaCheck] = []
    }

    /// A property as one layout has it; `column` is the store's column name.
    struct DescribedProperty: Equatable {
        var name: String
        var column: String
        var type: DescriptionDocument.PropertyType
        var nullable: Bool
        var defaultValue: DescriptionDocument.Value?
        var onDelete: SchemaForeignKey.Action?
        var onUpdate: SchemaForeignKey.Action? = nil
        var isRelationship: Bool
        /// The declared type, when it is not the storage class's name (`column_type`).
        var columnType: String? = nil
        /// The collating sequence, when it is not BINARY (`collation`).
        var collation: String? = nil
        /// The ON CONFLICT resolution of its NOT NULL (`on_conflict`).
        var onConflict: String? = nil
        /// Its own CHECK constraint's expression (`check`).
        var check: String? = nil
        /// Its `generated` object, when SQLite computes it.
        var generated: DescriptionDocument.Generated? = nil
    }

    private func merged(_ versions: [(SchemaVersion, DescribedEntity)], allVersions: [SchemaVersion], _ output: inout Output) -> (
        name: String, json: String
    ) {
        let newest = versions.last!.1
        var object = DescriptionDocument(name: newest.name)
        if newest.name != newest.table { object.persistedName = newest.table }
        object.identifier = newest.identifier
        object.strict = newest.strict
        if Set(versions.map(\.1.strict)).count > 1 {
            output.problems.append(
                "table \(newest.table): it is STRICT in some layouts and not in others, which describe does not say (an entity is strict at every version or none)"
            )
        }
        object.checks = newest.checks.map { DescriptionDocument.Check(name: $0.name, expression: $0.expression) }
        if Set(versions.map { $0.1.checks.map(\.sql) }).count > 1 {
            output.problems.append(
                "table \(newest.table): its CHECK constraints changed between layouts, which describe does not say (an entity's checks hold at every version)"
            )
        }
        object.versionHistory = versions.map { DescriptionDocument.VersionItem(version: $0.0.string) }
        if let last = versions.last?.0, let after = allVersions.first(where: { $0 > last }) {
            object.removedAtVersion = after.string
        }
        if Set(versions.map(\.1.identifier)).count > 1 {
            output.problems.append("table \(newest.table): its primary key changed between layouts, which describe does not say")
        }
        // A property is known by its column, followed through renames.
        func key(_ column: String, at version: SchemaVersion) -> String {
            var name = sqlNameKey(column)
            for (from, to) in renames.sorted(by: { $0.value.version < $1.value.version })
            where from.hasPrefix(sqlNameKey(newest.table) + ".") && to.version > version {
                if from == "\(sqlNameKey(newest.table)).\(name)" { name = sqlNameKey(to.column) }
            }
            return name
        }
        let indexSignatures = versions.map { version, entity in
            Set(
                entity.indexShapes.map {
                    "\(sqlNameKey($0.name))|\($0.unique)|" + $0.columns.map { key($0, at: version) }.joined(separator: ",")
                })
        }
        if Set(indexSignatures).count > 1 {
            output.problems.append(
                "table \(newest.table): its indexes changed between layouts, which describe does not say (the newest layout's are written)")
        }
        var order: [String] = []
        var states: [String: [(SchemaVersion, DescribedProperty)]] = [:]
        for (version, entity) in versions {
            for property in entity.properties {
                let id = key(property.column, at: version)
                if states[id] == nil { order.append(id) }
                states[id, default: []].append((version, property))
            }
        }
        // Two columns of different layouts whose names meet in snake_case (`roomId` until 1.1, `room_id` from it)
        // are two properties unless --rename says one is the other: the one the newest layout has keeps the name.
        var names: [String: String] = [:]
        var owners: [String: String] = [:]
        let newestVersion = versions.last!.0
        for id in order.filter({ states[$0]!.last!.0 == newestVersion }) + order.filter({ states[$0]!.last!.0 != newestVersion }) {
            let property = states[id]!.last!.1
            var name = property.name
            var number = 2
            while owners[sqlNameKey(name)] != nil {
                name = "\(property.name.prefix(60))_\(number)"
                number += 1
            }
            if let owner = owners[sqlNameKey(property.name)], name != property.name {
                let other = states[owner]!
                let mine = states[id]!
                let (older, newer) = mine.first!.0 < other.first!.0 ? (mine, other) : (other, mine)
                output.warnings.append(
                    "table \(newest.table): columns \(older.last!.1.column) (until \(older.last!.0)) and \(newer.last!.1.column) (from \(newer.first!.0)) both make the property name \(property.name): \(property.column) is described as \(name) (persisted_name \(property.column)); if \(newer.last!.1.column) is \(older.last!.1.column) renamed, describe again with --rename \(newest.table).\(older.last!.1.column)=\(newer.last!.1.column)@\(newer.first!.0)"
                )
            }
            names[id] = name
            owners[sqlNameKey(name)] = id
        }
        for id in order {
            let states = states[id]!
            let (_, now) = states.last!
            let name = names[id]!
            var property = DescriptionDocument.Property(name: name, type: now.type)
            if columnNaming.column(name) != now.column { property.persistedName = now.column }
            property.columnType = now.columnType
            property.collation = now.collation
            property.nullable = now.nullable
            property.onConflict = now.onConflict?.lowercased()
            property.check = now.check
            property.generated = now.generated
            property.defaultValue = now.defaultValue
            property.onDelete = now.onDelete
            property.onUpdate = now.onUpdate
            let first = states.first!.0, last = states.last!.0
            if first != versions.first!.0 { property.addedAtVersion = first.string }
            if last != versions.last!.0, let gone = versions.map(\.0).first(where: { $0 > last }) {
                property.removedAtVersion = gone.string
            }
            for (earlier, later) in zip(states, states.dropFirst()) where earlier.1 != later.1 {
                var item = DescriptionDocument.TypeChange(untilVersion: later.0.string)
                if earlier.1.type != later.1.type { item.propertyType = earlier.1.type }
                if earlier.1.nullable != later.1.nullable { item.nullable = earlier.1.nullable }
                if earlier.1.defaultValue != later.1.defaultValue { item.defaultValue = earlier.1.defaultValue ?? .null }
                if earlier.1.column != later.1.column {
                    item.persistedName = .some(earlier.1.column == columnNaming.column(name) ? nil : earlier.1.column)
                }
                if earlier.1.columnType != later.1.columnType {
                    output.problems.append(
                        "\(newest.table).\(now.column): its declared type changed at \(later.0), which describe does not say")
                }
                if earlier.1.onConflict != later.1.onConflict, !earlier.1.nullable, !later.1.nullable {
                    output.problems.append(
                        "\(newest.table).\(now.column): its NOT NULL's ON CONFLICT changed at \(later.0), which describe does not say")
                }
                if earlier.1.check != later.1.check {
                    output.problems.append("\(newest.table).\(now.column): its CHECK changed at \(later.0), which describe does not say")
                }
                if earlier.1.generated != later.1.generated {
                    output.problems.append(
                        "\(newest.table).\(now.column): its generated expression changed at \(later.0), which describe does not say")
                }
                if earlier.1.collation != later.1.collation {
                    output.problems.append(
                        "\(newest.table).\(now.column): its collation changed at \(later.0), which describe does not say")
                }
                if earlier.1.onUpdate != later.1.onUpdate {
                    output.problems.append(
                        "\(newest.table).\(now.column): its ON UPDATE action changed at \(later.0), which describe does not say")
                }
                if earlier.1.onDelete != later.1.onDelete {
                    output.problems.append(
                        "\(newest.table).\(now.column): its ON DELETE action changed at \(later.0), which describe does not say")
                }
                if item != DescriptionDocument.TypeChange(untilVersion: later.0.string) { property.typeHistory.append(item) }
            }
            object.properties.append(property)
        }
        object.indexes = newest.indexes
        return (newest.name, DescriptionWriter.json(object))
    }

    private func entity(
        _ table: SchemaTable, keyed: [String: SchemaTable], entityNames: [String: String], version: SchemaVersion, _ output: inout Output
    ) -> DescribedEntity {
        let name = entityNames[sqlNameKey(table.name)]!
        if let options = table.storeOptions {
            output.problems.append(
                "table \(table.name): it uses \(options.joined(separator: " and ")), which lucidgen does not describe yet (leave it to the app with --app-table \(table.name))"
            )
        }
        let key = table.column(named: table.primaryKey[0])!
        // Two columns whose names meet in snake_case (`userId`, `user_id`) are two properties.
        let (propertyNames, renamed) = Self.distinctNames(table.columns.map { (sqlNameKey($0.name), $0.name) })
        for (column, name, owner) in renamed {
            output.warnings.append(
                "table \(table.name): columns \(owner) and \(column) both make the property name \(Naming.snakeCase(column)): \(column) is described as \(name) (persisted_name \(column))"
            )
        }
        let keyType = identifierType(of: table, key: key, &output)
        // An `id` key with a default or a NOT NULL ON CONFLICT (SQLiteData's `"id" TEXT PRIMARY KEY NOT NULL ON CONFLICT
        // REPLACE DEFAULT (uuid())`) is the property identifier `id`, whose property says them.
        let keyIsProperty = key.name != "id" || key.defaultSQL != nil || key.notNullConflict != nil || key.check != nil
        let identifier = DescriptionDocument.Identifier(
            type: keyIsProperty ? "property" : keyType, propertyName: keyIsProperty ? propertyNames[sqlNameKey(key.name)]! : nil,
            autoincrement: table.autoincrement == true,
            onConflict: table.primaryKeyConflict?.lowercased())

        let relationships = toOneRelationships(of: table, keyed: keyed, &output)
        var properties: [DescribedProperty] = []
        for column in table.columns {
            let propertyName = propertyNames[sqlNameKey(column.name)]!
            if !keyIsProperty && sameSQLName(column.name, key.name) { continue }
            if let (target, foreignKey) = relationships[sqlNameKey(column.name)] {
                properties.append(
                    relationshipProperty(
                        column, named: propertyName, of: table, target: target, foreignKey: foreignKey, entityNames: entityNames, &output))
            } else {
                let isKey = keyIsProperty && sameSQLName(column.name, key.name)
                properties.append(valueProperty(column, named: propertyName, of: table, isKey: isKey, &output))
            }
        }
        let indexes = describedIndexes(of: table, key: key, relationships: relationships, propertyNames: propertyNames, &output)
        return DescribedEntity(
            name: name, table: table.name, identifier: identifier, properties: properties, indexes: indexes, indexShapes: table.indexes,
            strict: table.strict == true,
            checks: table.checks ?? [])
    }

    /// The identifier's type: lucidgen's `id` column, or the property that is the key.
    private func identifierType(of table: SchemaTable, key: SchemaColumn, _ output: inout Output) -> String {
        let keyType: String
        switch key.type {
        case .integer where key.declaredType != nil:
            keyType = "int"
            output.problems.append(
                "table \(table.name): its primary key \(key.name) is declared \(key.sqlType), so it is not the table's rowid (only INTEGER PRIMARY KEY is) and may hold NULL; lucidgen's int identifiers are INTEGER PRIMARY KEY (leave the table to the app with --app-table \(table.name))"
            )
        case .integer: keyType = "int"
        case .text: keyType = "string"
        case .blob where typeHints[sqlNameKey("\(table.name).\(key.name)")] == "uuid": keyType = "uuid"
        default:
            keyType = "string"
            output.problems.append(
                "table \(table.name): its primary key \(key.name) is \(key.type.rawValue); lucidgen's identifiers are INTEGER, TEXT, or a BLOB of a UUID's 16 bytes (--type \(table.name).\(key.name)=uuid)"
            )
        }
        return keyType
    }

    /// To-one relationships: single-column foreign keys to another table's key, by column; each other
    /// foreign key is a problem.
    private func toOneRelationships(of table: SchemaTable, keyed: [String: SchemaTable], _ output: inout Output) -> [String: (
        target: SchemaTable, key: SchemaForeignKey
    )] {
        var relationships: [String: (target: SchemaTable, key: SchemaForeignKey)] = [:]
        for foreignKey in table.foreignKeys {
            guard foreignKey.columns.count == 1, let target = keyed[sqlNameKey(foreignKey.table)],
                foreignKey.tableColumns.isEmpty
                    || (foreignKey.tableColumns.count == 1 && sameSQLName(foreignKey.tableColumns[0], target.primaryKey[0]))
            else {
                output.problems.append(
                    "table \(table.name): its foreign key (\(foreignKey.columns.joined(separator: ", "))) → \(foreignKey.table) is not a single column referencing a described table's key"
                )
                continue
            }
            // lucidgen's to-one column has its target key's type: another one is not the store's column.
            let targetKey = target.column(named: target.primaryKey[0])
            if let column = table.column(named: foreignKey.columns[0]), let targetKey,
                column.sqlType.uppercased() != targetKey.sqlType.uppercased()
            {
                output.problems.append(
                    "table \(table.name): its foreign key column \(column.name) is \(column.sqlType), but the key it references, \(target.name).\(targetKey.name), is \(targetKey.sqlType); "
                        + "lucidgen's to-one column has its target key's type (change the column's type in the app, or leave the table to the app with --app-table \(table.name))"
                )
            }
            relationships[sqlNameKey(foreignKey.columns[0])] = (target, foreignKey)
        }
        return relationships
    }

    /// A foreign key column as a to-one relationship: no default but NULL, its actions where they are not
    /// lucidgen's.
    private func relationshipProperty(
        _ column: SchemaColumn, named propertyName: String, of table: SchemaTable, target: SchemaTable, foreignKey: SchemaForeignKey,
        entityNames: [String: String], _ output: inout Output
    ) -> DescribedProperty {
        let standard: SchemaForeignKey.Action = column.notNull ? .cascade : .setNull
        // A relationship has no default but NULL: any other is said, never dropped.
        var defaultValue: DescriptionDocument.Value?
        if let defaultSQL = column.defaultSQL {
            if SchemaColumn.unwrappedDefault(defaultSQL.trimmingCharacters(in: .whitespaces)).uppercased() == "NULL" {
                defaultValue = .null
            } else {
                output.problems.append(
                    "table \(table.name): its foreign key column \(column.name) has a default (\(defaultSQL)), which a lucidgen to-one relationship cannot have; "
                        + "drop the default in the app (a rebuild), or leave the table to the app with --app-table \(table.name)")
            }
        }
        return DescribedProperty(
            name: propertyName, column: column.name,
            type: .relationship(.init(entityName: entityNames[sqlNameKey(target.name)]!, association: .toOne)),
            nullable: !column.notNull,
            defaultValue: defaultValue, onDelete: foreignKey.onDelete != standard ? foreignKey.onDelete : nil,
            onUpdate: foreignKey.onUpdate, isRelationship: true, onConflict: column.notNull ? column.notNullConflict : nil,
            check: column.check)
    }

    /// A value column as a property: its type (declared, or a `--type` hint), default, collation, CHECK
    /// and generated expression.
    private func valueProperty(
        _ column: SchemaColumn, named propertyName: String, of table: SchemaTable, isKey: Bool, _ output: inout Output
    )
        -> DescribedProperty
    {
        let path = sqlNameKey("\(table.name).\(column.name)")
        let declared = column.declaredType
        if table.strict == true, declared == "ANY", typeHints[path] == nil {
            // A STRICT table's ANY column keeps each value as it was given (text, number or blob): no one property type reads them all.
            output.problems.append(
                "\(table.name).\(column.name): it is declared ANY in a STRICT table, which holds values of any type; say which with --type \(table.name).\(column.name)=…"
            )
        }
        let type = typeHints[path] ?? declared.map(Self.typeName(declared:)) ?? Self.typeName(column.type)
        if let hint = typeHints[path] {
            output.notes.append("\(table.name).\(column.name): described as \(hint) (--type), stored as \(column.sqlType)")
        }
        if ScalarType(name: type) == .uuid, column.type != .blob {
            // GRDB reads a UUID from its text too, but lucidgen's uuid column is the BLOB GRDB writes.
            output.problems.append(
                "\(table.name).\(column.name): described as uuid (--type), which lucidgen stores as a BLOB of its 16 bytes (as GRDB stores a UUID), but the store's column is \(column.sqlType); describe UUIDs stored as text as string"
            )
        }
        if ScalarType(name: type) == .decimal, column.type != .text || column.declaredType != nil {
            // A NUMERIC or REAL column turns GRDB's decimal text into a floating-point number: its digits are not kept.
            output.problems.append(
                "\(table.name).\(column.name): described as decimal (--type), which lucidgen stores as TEXT (as GRDB stores a Decimal), but the store's column is \(column.sqlType), whose affinity may have stored the values as numbers; describe it as double, or move the values to a TEXT column"
            )
        }
        if let declared, typeHints[path] == nil, !["int", "string", "data"].contains(type) {
            output.notes.append(
                "\(table.name).\(column.name): declared \(declared), described as \(type) (--type \(table.name).\(column.name)=… if its values are another type)"
            )
        }
        var defaultValue: DescriptionDocument.Value?
        if let defaultSQL = column.defaultSQL {
            defaultValue =
                ScalarType(name: type) == .uuid
                ? Self.uuidDefaultValue(defaultSQL) : Self.defaultValue(defaultSQL, type: type, nullable: !column.notNull)
            if defaultValue == nil {
                // SQLite reports `DEFAULT (expr)` as `expr`: the parentheses it needs are put back.
                var expression = defaultSQL.trimmingCharacters(in: .whitespaces)
                if !SQLDefaultExpression.keywords.contains(expression.uppercased()),
                    SchemaColumn.unwrappedDefault(expression) == expression
                {
                    expression = "(\(expression))"
                }
                if let problem = SQLDefaultExpression.problem(with: expression) {
                    output.problems.append(
                        "\(table.name).\(column.name): its default \(defaultSQL) is an expression lucidgen does not accept (\(problem))"
                    )
                } else {
                    defaultValue = .sql(expression)
                }
            }
        }
        return DescribedProperty(
            name: propertyName, column: column.name, type: .scalar(type), nullable: !column.notNull && !isKey,
            defaultValue: defaultValue, onDelete: nil,
            isRelationship: false, columnType: declared,
            collation: Self.describable(collation: column.collation, of: "\(table.name).\(column.name)", &output),
            onConflict: column.notNull || isKey ? column.notNullConflict : nil, check: column.check,
            generated: column.generatedSQL.map {
                DescriptionDocument.Generated(expression: $0, stored: column.generatedStored == true)
            })
    }

    /// Every index, by its name; a to-one's only when the store names it otherwise than lucidgen would.
    private func describedIndexes(
        of table: SchemaTable, key: SchemaColumn, relationships: [String: (target: SchemaTable, key: SchemaForeignKey)],
        propertyNames: [String: String], _ output: inout Output
    ) -> [DescriptionDocument.Index] {
        var indexes: [DescriptionDocument.Index] = []
        for index in table.indexes {
            let names = index.columns.map { propertyNames[sqlNameKey($0)] ?? Naming.snakeCase($0) }
            let standard = ShapeBuilder.defaultIndexName(
                table: table.name, columns: index.columns, unique: index.unique, naming: columnNaming)
            if index.columns.count == 1, !index.unique, relationships[sqlNameKey(index.columns[0])] != nil, index.name == standard {
                continue
            }
            var item = DescriptionDocument.Index(properties: names, unique: index.unique, onConflict: index.onConflict?.lowercased())
            // A UNIQUE constraint's index has SQLite's reserved name: lucidgen's own name is its (a rebuild makes it one).
            if index.name != standard && !sqlNameKey(index.name).hasPrefix("sqlite_autoindex_") { item.name = index.name }
            indexes.append(item)
        }
        // The key needs none: it is the table's own index (a to-one that is the key keys an extension table).
        // A UNIQUE index is one more: lucidgen's own index on a to-one column is a plain one.
        for column in relationships.keys.sorted()
        where column != sqlNameKey(key.name)
            && !table.indexes.contains(where: { $0.columns.count == 1 && !$0.unique && sqlNameKey($0.columns[0]) == column })
        {
            output.problems.append(
                "table \(table.name): lucidgen indexes every to-one column (a plain, not UNIQUE, index), and the store has no such index on \(column)"
            )
        }
        return indexes
    }

    /// A name as a hint shows it: a line break or control character escaped (`\n`), so that the hint stays
    /// on its line and shows what the name holds.
    package static func shown(_ text: String) -> String { swiftCommentText(text) }

    static func typeName(_ type: SchemaColumn.StorageType) -> String {
        switch type {
        case .integer: "int"
        case .real: "double"
        case .text: "string"
        case .blob: "data"
        }
    }

    /// The description type of a declared type that is none of the four storage classes: GRDB's BOOLEAN and
    /// DATETIME as bool and date, any other by its storage class (SQLite's affinity, `SchemaColumn.storage(declared:)`).
    static func typeName(declared: String) -> String {
        let upper = declared.uppercased()
        if upper.contains("BOOL") { return "bool" }
        if upper.contains("DATE") || upper.contains("TIME") { return "date" }
        return typeName(SchemaColumn.storage(declared: upper).0)
    }

    /// A SQL literal default as a description value (JSON) of a property of `type`, or nil for an expression
    /// (then written `{ "sql": … }`). A value only when the generator writes it back as the store has it
    /// (the store's text, compared as a store is recognised: modulo one pair of parentheses), since
    /// `+5`, `007`, `.5`, `5.`, `1E5`, `-0`, `1e999` or `null` are no JSON or are written otherwise
    /// (`5`, `7`, `0.5`, `5.0`, `100000.0`, `0`, `inf`, `NULL`): those are expressions.
    static func defaultValue(_ sql: String, type: String, nullable: Bool) -> DescriptionDocument.Value? {
        let text = SchemaColumn.unwrappedDefault(sql.trimmingCharacters(in: .whitespaces))
        if text == "NULL" { return nullable ? .null : nil }
        switch ScalarType(name: type) {
        case .string?:
            guard let value = SQLLexer.stringLiteral(text) else { return nil }
            return quoteLiteral(value) == text && !value.utf8.contains(0) ? .string(value) : nil
        case .int?:
            return Int64(text).map(String.init) == text ? .number(text) : nil
        case .bool?:
            return text == "0" ? .bool(false) : text == "1" ? .bool(true) : nil
        case .decimal?:
            // GRDB writes a Decimal default as its text (`'12.5'`); the generator writes that text back.
            guard text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") else { return nil }
            let value = String(text.dropFirst().dropLast())
            return DecimalText.stored(value) == value && quoteLiteral(value) == text ? .string(value) : nil
        case .double?:
            guard let double = Double(text), double.isFinite, ShapeBuilder.numberSQL(double) == text else { return nil }
            return .number(text)
        default:
            return nil
        }
    }

    /// A uuid column's SQL default, a blob of 16 bytes (`X'E621E1F8…'`), as the description writes it: its
    /// UUID text. Nil for any other default.
    static func uuidDefaultValue(_ sql: String) -> DescriptionDocument.Value? {
        var text = sql.trimmingCharacters(in: .whitespaces)
        while text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces) }
        return UUIDText.bytes(sqlLiteral: text).map { .string(UUIDText.string($0)) }
    }
}
