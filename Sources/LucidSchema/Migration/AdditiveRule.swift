/// CloudKit's rule for schema changes (WWDC22, "Evolve your Core Data schema": a production schema is
/// additive only), applied to SQLite tables: a step is **additive** when an app built for the older
/// version keeps reading and writing a store at the newer version correctly, ignoring what it does not
/// know. That is: new tables, and new columns that are nullable or have a default; nothing removed,
/// renamed or changed; no new constraint an older app's writes could break.
///
/// One definition serves `lucidgen check --additive-only` (CI refuses a non-additive step) and the
/// runtime's newer-store policy (an older app opens a newer store only across additive steps), so the
/// two can never disagree.
///
/// ```swift
/// let changes = AdditiveRule.changes(from: v1, to: v2)
/// if let first = changes.first { print("not additive: \(first)") }
/// ```
package enum AdditiveRule {
    /// One change that makes a step non-additive.
    package struct Change: Sendable, Hashable, Codable, CustomStringConvertible {
        package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// A table (an entity, or a to-many relationship's join table) was removed.
            case tableRemoved
            /// A table was renamed: an older app looks for it under its old name.
            case tableRenamed
            /// A table's primary key changed.
            case primaryKeyChanged
            /// A column was removed.
            case columnRemoved
            /// A column was renamed.
            case columnRenamed
            /// A column's storage type, nullability or default changed (or its relationship's association).
            case columnChanged
            /// A new column that is required and has no default: an older app's inserts leave it NULL and fail.
            case requiredColumnAdded
            /// A new foreign key on a table an older app writes, or a new table whose foreign key would
            /// refuse an older app's deletes (`ON DELETE NO ACTION`).
            case foreignKeyAdded
            /// A new uniqueness (or one removed, which an older app may rely on).
            case uniqueIndexChanged
            /// An enum column's stored values are rewritten: a case was renamed or removed, so an older app
            /// reads values it does not know.
            case enumCaseChanged
            /// The step runs the app's own code (a custom stage): what it does to rows is unknown here.
            case appCode
            /// A data migration runs at the step's version.
            case dataMigration
        }

        package var kind: Kind
        /// The table concerned, named as at the newer version where it still exists.
        package var table: String?
        package var column: String?
        /// What changed, in words: `column aircraft.tail_number removed`.
        package var message: String

        package init(_ kind: Kind, table: String? = nil, column: String? = nil, _ message: String) {
            self.kind = kind
            self.table = table
            self.column = column
            self.message = message
        }

        package var description: String { message }
    }

    /// Every change from `old` to `new` (consecutive versions of one history) that breaks the rule, in a
    /// stable order (tables by name, then columns in table order). Empty when the step is additive as far
    /// as the tables go; `appCode` and `dataMigration` add those two kinds, which the schemas cannot show.
    package static func changes(from old: Schema, to new: Schema, appCode: String? = nil, dataMigration: String? = nil) -> [Change] {
        var changes: [Change] = []
        if let appCode { changes.append(Change(.appCode, "the step runs the app's code (\(appCode))")) }
        if let dataMigration { changes.append(Change(.dataMigration, "a data migration runs at \(new.version) (\(dataMigration))")) }
        // Read once: a version of a generated registry builds its table list behind a lock on each read.
        let oldTables = old.tables
        let newTables = new.tables
        var matched = Set<String>()
        // A table equal at both versions (most of them, in a long history) has nothing to compare: the
        // runtime classifies every step of a store's history when it records compatibility. Found by
        // position first (versions list their tables in one order), then by exact name; no name folding.
        var unchanged = [Bool](repeating: false, count: oldTables.count)
        var positions: [String: Int]?
        for (position, table) in newTables.enumerated() {
            var index: Int? = position < oldTables.count && oldTables[position].name == table.name ? position : nil
            if index == nil {
                if positions == nil {
                    positions = Dictionary(
                        oldTables.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
                }
                index = positions?[table.name]
            }
            if let index, oldTables[index] == table, table.reusesName != true, !table.columns.contains(where: { $0.reusesName == true }) {
                unchanged[index] = true
                continue
            }
            // An annotation carried over from an earlier version is not a rename in this step.
            // The table of the same name at the older version, found above when spelt alike.
            let sameName = index.map { oldTables[$0] } ?? old.table(named: table.name)
            if let previous = table.renamedFrom, old.table(named: previous) != nil, table.reusesName == true || sameName == nil {
                matched.insert(sqlNameKey(previous))
                changes.append(Change(.tableRenamed, table: table.name, "table \(previous) renamed to \(table.name)"))
                continue
            }
            guard table.reusesName != true, let before = sameName else {
                // A new table: only its foreign keys can reach what an older app does (its deletes).
                for key in table.foreignKeys where key.onDelete == .noAction && old.table(named: key.table) != nil {
                    changes.append(
                        Change(
                            .foreignKeyAdded, table: table.name, column: key.columns.first,
                            "new table \(table.name) references \(key.table) without ON DELETE CASCADE or SET NULL: an older app's deletes of \(key.table) rows would fail"
                        ))
                }
                continue
            }
            matched.insert(sqlNameKey(before.name))
            changes += self.changes(in: table, from: before)
        }
        for (index, table) in oldTables.enumerated() where !unchanged[index] && !matched.contains(sqlNameKey(table.name)) {
            changes.append(Change(.tableRemoved, table: table.name, "table \(table.name) removed"))
        }
        return changes
    }

    /// The changes to one table that exists at both versions under the same name.
    private static func changes(in table: SchemaTable, from before: SchemaTable) -> [Change] {
        var changes: [Change] = []
        let name = table.name
        if table.primaryKey.map(sqlNameKey) != before.primaryKey.map(sqlNameKey) {
            changes.append(
                Change(
                    .primaryKeyChanged, table: name,
                    "table \(name)'s primary key changed from (\(before.primaryKey.joined(separator: ", "))) to (\(table.primaryKey.joined(separator: ", ")))"
                ))
        }
        var matched = Set<String>()
        // Renamed columns, old name (as a key) → new name: an index keeps its columns through a rename.
        var renamed: [String: String] = [:]
        for column in table.columns {
            for change in column.caseChanges ?? [] {
                changes.append(Change(.enumCaseChanged, table: name, column: column.name, "column \(name).\(column.name): \(change)"))
            }
            if let previous = column.renamedFrom, before.column(named: previous) != nil,
                column.reusesName == true || before.column(named: column.name) == nil
            {
                matched.insert(sqlNameKey(previous))
                renamed[sqlNameKey(previous)] = column.name
                changes.append(
                    Change(.columnRenamed, table: name, column: column.name, "column \(name).\(previous) renamed to \(column.name)"))
                continue
            }
            guard column.reusesName != true, let old = before.column(named: column.name) else {
                if column.notNull && column.defaultSQL == nil {
                    changes.append(
                        Change(
                            .requiredColumnAdded, table: name, column: column.name,
                            "required column \(name).\(column.name) added without a default: an older app's inserts would fail"))
                }
                continue
            }
            matched.insert(sqlNameKey(old.name))
            var what: [String] = []
            if column.type != old.type { what.append("type \(old.type.rawValue) → \(column.type.rawValue)") }
            if let from = old.valueType, let to = column.valueType, from != to, column.type == old.type {
                what.append("value type \(from) → \(to)")
            }
            if column.notNull != old.notNull { what.append(column.notNull ? "optional → required" : "required → optional") }
            if column.defaultSQL != old.defaultSQL { what.append("default \(old.defaultSQL ?? "none") → \(column.defaultSQL ?? "none")") }
            if column.convertedFromJoinTable != nil { what.append("to-many → to-one") }
            if !what.isEmpty {
                changes.append(
                    Change(
                        .columnChanged, table: name, column: column.name,
                        "column \(name).\(column.name) changed: \(what.joined(separator: ", "))"))
            }
        }
        for column in before.columns where !matched.contains(sqlNameKey(column.name)) {
            changes.append(Change(.columnRemoved, table: name, column: column.name, "column \(name).\(column.name) removed"))
        }
        // Equal lists have nothing to compare (most changed tables only gained a column).
        if table.foreignKeys != before.foreignKeys {
            let oldKeys = Set(before.foreignKeys.map(foreignKeyIdentity))
            for key in table.foreignKeys where !oldKeys.contains(foreignKeyIdentity(key)) {
                changes.append(
                    Change(
                        .foreignKeyAdded, table: name, column: key.columns.first,
                        "foreign key \(name)(\(key.columns.joined(separator: ", "))) → \(key.table) added: an older app's writes are checked against a constraint it does not know"
                    ))
            }
        }
        if table.indexes != before.indexes {
            func renaming(_ index: SchemaIndex) -> SchemaIndex {
                var index = index
                index.columns = index.columns.map { renamed[sqlNameKey($0)] ?? $0 }
                return index
            }
            let oldUnique = Set(before.indexes.filter(\.unique).map { indexIdentity(renaming($0)) })
            let newUnique = Set(table.indexes.filter(\.unique).map(indexIdentity))
            for index in table.indexes where index.unique && !oldUnique.contains(indexIdentity(index)) {
                changes.append(
                    Change(
                        .uniqueIndexChanged, table: name, column: index.columns.first,
                        "uniqueness of \(name)(\(index.columns.joined(separator: ", "))) added: an older app's writes may break it"))
            }
            for index in before.indexes where index.unique && !newUnique.contains(indexIdentity(renaming(index))) {
                changes.append(
                    Change(
                        .uniqueIndexChanged, table: name, column: index.columns.first,
                        "uniqueness of \(name)(\(index.columns.joined(separator: ", "))) removed: an older app may rely on it"))
            }
        }
        return changes
    }

    private static func foreignKeyIdentity(_ key: SchemaForeignKey) -> String {
        key.columns.map(sqlNameKey).joined(separator: ",") + "→" + sqlNameKey(key.table) + "("
            + key.tableColumns.map(sqlNameKey).joined(separator: ",") + ")"
            + key.onDelete.rawValue
    }

    private static func indexIdentity(_ index: SchemaIndex) -> String {
        index.columns.map(sqlNameKey).joined(separator: ",")
    }
}
