@_spi(Generated) import LucidSchema

/// An app object that a migration step cannot keep: it uses a column or table the step removes, it
/// cannot follow a rename (an FTS5 table names its content table and columns in its own declaration,
/// which SQLite's `RENAME` does not rewrite), or it holds a name the step gives to a table (new, or
/// renamed to it), an index, or a declared search's FTS5 table, shadow table or trigger.
///
/// The step refuses before its first statement (``StoreError/appObjectsInTheWay(step:from:to:conflicts:)``);
/// `lucidgen plan --database` shows the same findings before anyone migrates.
public struct AppObjectConflict: Sendable, Hashable, CustomStringConvertible {
    /// What the object stands in the way of.
    public enum Reason: Sendable, Hashable {
        /// The object uses `column` of `table`, which the step removes.
        case usesRemovedColumn(table: String, column: String)
        /// The object uses `table`, which the step removes.
        case usesRemovedTable(String)
        /// The object names `old` (a table, or a column `table.column`) in a way SQLite's rename does not
        /// rewrite, and the step renames it to `new`.
        case cannotFollowRename(old: String, new: String)
        /// The object holds the name the step gives to a table it creates or renames to it, to an index
        /// it creates (deferred index creation included), or to a declared search's FTS5 table, shadow
        /// tables and triggers.
        case nameTaken(String)
    }

    public var object: AppObject
    public var reason: Reason

    public var description: String {
        let what = "\(object.kind.rawValue) \(object.name) (\(object.sql))"
        switch reason {
        case .usesRemovedColumn(let table, let column): return "\(what) uses column \(table).\(column), which the step removes"
        case .usesRemovedTable(let table): return "\(what) uses table \(table), which the step removes"
        case .cannotFollowRename(let old, let new):
            return
                "\(what) names \(old), which the step renames to \(new), in its own declaration (a virtual table does not follow a rename)"
        case .nameTaken(let name): return "\(what) holds the name \(name), which the step gives to a new table or index"
        }
    }

    /// Finds what the operations of one step (in order) would do to `objects`, and updates `objects` to
    /// what they are after the step (renames followed, as SQLite's `ALTER TABLE … RENAME` does), so that
    /// a whole path can be checked step after step. `source` is the schema the step starts from.
    static func find(in operations: [MigrationOperation], from source: Schema, objects: inout [AppObject]) -> [AppObjectConflict] {
        guard !objects.isEmpty else { return [] }
        var conflicts: [AppObjectConflict] = []
        var originalName: [String: String] = [:]
        func sourceTable(_ current: String) -> SchemaTable? { source.table(named: originalName[sqlNameKey(current)] ?? current) }
        func add(_ object: AppObject, _ reason: Reason) {
            let conflict = AppObjectConflict(object: object, reason: reason)
            if !conflicts.contains(where: { $0.object.name == object.name && $0.reason == reason }) { conflicts.append(conflict) }
        }
        func taken(_ name: String) {
            for object in objects where sameSQLName(object.name, name) { add(object, .nameTaken(name)) }
        }
        func removed(column: String, of table: String) {
            for object in objects where object.uses(column: column, of: table) {
                add(object, .usesRemovedColumn(table: table, column: column))
            }
        }
        func renamed(column old: String, to new: String, of table: String) {
            for object in objects where object.kind == .virtualTable && object.uses(column: old, of: table) {
                add(object, .cannotFollowRename(old: "\(table).\(old)", new: "\(table).\(new)"))
            }
            objects = objects.map { $0.renamingColumn(old, to: new, of: table) }
        }
        func renamed(table old: String, to new: String) {
            for object in objects where object.kind == .virtualTable && object.depends(on: old) {
                add(object, .cannotFollowRename(old: old, new: new))
            }
            objects = objects.map { $0.renamingTable(old, to: new) }
            originalName[sqlNameKey(new)] = originalName[sqlNameKey(old)] ?? old
        }
        for operation in operations {
            switch operation {
            case .renameTable(let from, let to):
                taken(to)
                renamed(table: from, to: to)
            case .createTable(let table):
                taken(table.name)
                for index in table.indexes { taken(index.name) }
                for name in table.searchObjectNames { taken(name) }
            case .createSearch(let table):
                for name in table.searchObjectNames { taken(name) }
            case .renameColumn(let table, let from, let to):
                renamed(column: from, to: to, of: table)
            case .dropColumn(let table, let column, _):
                removed(column: column, of: table)
            case .rebuildTable(let rebuild):
                let old = sourceTable(rebuild.sourceTable)
                // A column the rebuild drops is removed even when a new column takes its name (the new one
                // holds other values: an object reading it by name would silently read them).
                let kept = Set(rebuild.table.columns.map { sqlNameKey($0.name) }).union(rebuild.renamedColumns.keys.map { sqlNameKey($0) })
                let dropped = Set(rebuild.droppedColumns.map { sqlNameKey($0) })
                for column in old?.columns ?? [] where !kept.contains(sqlNameKey(column.name)) || dropped.contains(sqlNameKey(column.name))
                {
                    removed(column: column.name, of: rebuild.sourceTable)
                }
                for (from, to) in rebuild.renamedColumns.sorted(by: { $0.key < $1.key }) {
                    for object in objects where object.kind == .virtualTable && object.uses(column: from, of: rebuild.sourceTable) {
                        add(object, .cannotFollowRename(old: "\(rebuild.sourceTable).\(from)", new: "\(rebuild.sourceTable).\(to)"))
                    }
                }
                // In the order the rebuild renames them (swapped names through placeholders).
                for (from, to) in StepExecutor.CopyNames(rebuild).renames {
                    objects = objects.map { $0.renamingColumn(from, to: to, of: rebuild.sourceTable) }
                }
                let oldIndexes = Set((old?.indexes ?? []).map { sqlNameKey($0.name) })
                for index in rebuild.table.indexes where !oldIndexes.contains(sqlNameKey(index.name)) { taken(index.name) }
            case .transformTable(let table, let sourceName):
                let old = sourceTable(sourceName)
                for column in old?.columns ?? [] where table.column(named: column.name) == nil {
                    removed(column: column.name, of: sourceName)
                }
                if !sameSQLName(sourceName, table.name) { renamed(table: sourceName, to: table.name) }
                let oldIndexes = Set((old?.indexes ?? []).map { sqlNameKey($0.name) })
                for index in table.indexes where !oldIndexes.contains(sqlNameKey(index.name)) { taken(index.name) }
            case .dropTable(let table, _):
                for object in objects where object.depends(on: table) { add(object, .usesRemovedTable(table)) }
            case .createIndex(_, let index, _):
                taken(index.name)
            case .addColumn, .dropIndex, .fillJoinTable, .dropSearch, .rewriteKinds, .moveRows:
                break
            }
        }
        return conflicts
    }

    /// Whether `operation` can meet an app's object at all (what ``find(in:from:objects:)`` checks): an added
    /// column, a dropped index, a filled join table … never can, so that a step of only these reads none.
    static func canConflict(_ operation: MigrationOperation) -> Bool {
        switch operation {
        case .renameTable, .createTable, .createSearch, .renameColumn, .dropColumn, .rebuildTable, .transformTable, .dropTable,
            .createIndex:
            true
        case .addColumn, .dropIndex, .fillJoinTable, .dropSearch, .rewriteKinds, .moveRows: false
        }
    }

    /// The pending cleanup items of a store as the operations they run.
    static func operations(of items: [PendingCleanup.Item]) -> [MigrationOperation] {
        items.compactMap { item in
            switch item.kind {
            case "drop_table": .dropTable(item.table, deferrable: false)
            case "drop_column": .dropColumn(table: item.table, column: item.object, deferrable: false)
            case "create_index":
                .createIndex(table: item.table, index: SchemaIndex(name: item.object, columns: [], unique: false), deferrable: false)
            default: nil
            }
        }
    }
}
