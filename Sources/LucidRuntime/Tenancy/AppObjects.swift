import GRDB
@_spi(Generated) import LucidSchema

/// What lucidgen owns in a store, by name: the tables and indexes that some versions' schemas describe,
/// their declared search (FTS5 table, shadow tables, triggers), its `lucid_*` tables, and SQLite's own `sqlite_*` objects. Everything else in the file is the app's
/// (``AppObject``): its tables (GRDB's `grdb_migrations` included), virtual tables and their shadow
/// tables, views, triggers, and the indexes it made on described tables.
///
/// Deciding a store's state, adopting a store, and the schema check after each step compare only what
/// this owns; every step keeps the rest.
package struct OwnedNames: Sendable {
    private(set) var tables: Set<String> = []
    private(set) var indexes: Set<String> = []
    /// The declared search's FTS5 tables and their shadow tables (``SchemaSearch``): lucidgen's, but not
    /// tables of the schema (the schema check compares them through their SQL).
    private(set) var searchTables: Set<String> = []
    /// The triggers that keep the declared search in step.
    private(set) var triggers: Set<String> = []

    /// The names of `schemas` (a step's source and target, or a whole history), and of the objects
    /// that deferred cleanup still has to remove or create.
    init(_ schemas: some Sequence<Schema>, pendingCleanup: [PendingCleanup.Item] = []) {
        for schema in schemas {
            for table in schema.tables {
                tables.insert(sqlNameKey(table.name))
                for index in table.indexes { indexes.insert(sqlNameKey(index.name)) }
                if table.search != nil {
                    for name in [table.searchTableName] + table.searchShadowTableNames { searchTables.insert(sqlNameKey(name)) }
                    for name in table.searchTriggerNames { triggers.insert(sqlNameKey(name)) }
                }
            }
        }
        for item in pendingCleanup {
            switch item.kind {
            case "drop_table": tables.insert(sqlNameKey(item.table))
            case "create_index": indexes.insert(sqlNameKey(item.object))
            default: break
            }
        }
    }

    /// Only the tables named (with no index): enough to tell the app's objects that involve them.
    package init(tables names: some Sequence<String>) {
        tables = Set(names.map { sqlNameKey($0) })
    }

    /// Whether the table named `name` is lucidgen's (described, or its bookkeeping) or SQLite's.
    func ownsTable(_ name: String) -> Bool {
        let lowered = sqlNameKey(name)
        return tables.contains(lowered) || searchTables.contains(lowered) || lowered.hasPrefix("lucid_") || lowered.hasPrefix("sqlite_")
    }

    /// Whether the table named `name` is a declared search's FTS5 table or one of its shadow tables.
    func ownsSearchTable(_ name: String) -> Bool {
        searchTables.contains(sqlNameKey(name))
    }

    /// Whether the trigger named `name` keeps a declared search in step.
    func ownsTrigger(_ name: String) -> Bool {
        triggers.contains(sqlNameKey(name))
    }

    /// Whether the index named `name`, on `table`, is lucidgen's: a described index on a described table,
    /// any index of lucidgen's bookkeeping, or one SQLite made for a constraint.
    func ownsIndex(_ name: String, on table: String) -> Bool {
        let lowered = sqlNameKey(name)
        if lowered.hasPrefix("sqlite_") { return true }
        let tableName = sqlNameKey(table)
        if tableName.hasPrefix("lucid_") || tableName.hasPrefix("sqlite_") { return true }
        return indexes.contains(lowered) && tables.contains(tableName)
    }
}

/// An object in a store that lucidgen does not own: the app's table, virtual table (FTS5, R*Tree) or
/// one of its shadow tables, view, trigger, or an index the app made on a described table. Every
/// migration step keeps these, or refuses before changing anything (``StoreError/appObjectsInTheWay(step:from:to:conflicts:)``).
///
/// ```swift
/// for object in try LucidStore.inspect(atPath: path, history: AppSchema.history).appObjects {
///     print(object.kind, object.name, "depends on", object.dependsOn)
/// }
/// ```
public struct AppObject: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case table
        case virtualTable = "virtual table"
        /// A table a virtual table keeps its data in (FTS5's `_data`, `_idx`, …, R*Tree's `_node`, …).
        case shadowTable = "shadow table"
        case view
        case trigger
        case index
    }

    public var kind: Kind
    public var name: String
    /// The table an index or trigger is on (the view, for an `INSTEAD OF` trigger); the object itself
    /// for tables and views.
    public var table: String
    /// Its `CREATE` statement, as SQLite keeps it.
    public var sql: String
    /// The described tables it depends on: the table it is on, the tables its SQL reads or writes, the
    /// tables its foreign keys reference, the content table of an FTS index.
    public var dependsOn: [String]

    /// The words of `sql`, for the questions a step asks (which columns it names).
    var tokens: SQLTokens
    /// For an app table: the described tables and columns its foreign keys reference, lower-cased.
    var referencedColumns: [String: Set<String>] = [:]
    /// For a view: the columns it reads, by lower-cased table name, as SQLite compiles it (nil when it
    /// does not compile, or for other kinds).
    var readColumns: [String: Set<String>]?

    private enum CodingKeys: String, CodingKey { case kind, name, table, sql, dependsOn }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        name = try container.decode(String.self, forKey: .name)
        table = try container.decode(String.self, forKey: .table)
        sql = try container.decode(String.self, forKey: .sql)
        dependsOn = try container.decode([String].self, forKey: .dependsOn)
        tokens = SQLTokens(sql)
    }

    init(kind: Kind, name: String, table: String, sql: String, dependsOn: [String], tokens: SQLTokens) {
        self.kind = kind
        self.name = name
        self.table = table
        self.sql = sql
        self.dependsOn = dependsOn
        self.tokens = tokens
    }

    public var description: String {
        let on = dependsOn.isEmpty ? "" : " (depends on \(dependsOn.joined(separator: ", ")))"
        return "\(kind.rawValue) \(name)\(on)"
    }

    /// Whether it depends on the described table `table`.
    func depends(on table: String) -> Bool {
        dependsOn.contains { sameSQLName($0, table) }
    }

    /// Whether it uses `column` of the described table `table`: a view that reads it (as SQLite compiles
    /// the view), an app table whose foreign key references it, or another object that depends on the
    /// table and names the column.
    func uses(column: String, of table: String) -> Bool {
        guard depends(on: table) else { return false }
        switch kind {
        case .table, .shadowTable:
            return referencedColumns[sqlNameKey(table)]?.contains(sqlNameKey(column)) ?? false
        case .view:
            if let readColumns { return readColumns[sqlNameKey(table)]?.contains(sqlNameKey(column)) ?? false }
            return tokens.names(column: column)
        case .virtualTable, .trigger, .index:
            return tokens.names(column: column)
        }
    }

    /// The object as it is after SQLite's `ALTER TABLE old RENAME TO new` (which rewrites its references).
    func renamingTable(_ old: String, to new: String) -> AppObject {
        guard depends(on: old) || sameSQLName(table, old) else { return self }
        var copy = self
        copy.dependsOn = dependsOn.map { sameSQLName($0, old) ? new : $0 }
        if sameSQLName(table, old) { copy.table = new }
        copy.tokens = tokens.renaming(table: old, to: new)
        if let columns = referencedColumns[sqlNameKey(old)] {
            copy.referencedColumns[sqlNameKey(old)] = nil
            copy.referencedColumns[sqlNameKey(new)] = columns
        }
        if let columns = readColumns?[sqlNameKey(old)] {
            copy.readColumns?[sqlNameKey(old)] = nil
            copy.readColumns?[sqlNameKey(new)] = columns
        }
        return copy
    }

    /// The object as it is after SQLite's `ALTER TABLE table RENAME COLUMN old TO new`.
    func renamingColumn(_ old: String, to new: String, of table: String) -> AppObject {
        guard depends(on: table) else { return self }
        var copy = self
        copy.tokens = tokens.renaming(column: old, to: new)
        let key = sqlNameKey(table)
        if var columns = referencedColumns[key], columns.remove(sqlNameKey(old)) != nil {
            columns.insert(sqlNameKey(new))
            copy.referencedColumns[key] = columns
        }
        if var columns = readColumns?[key], columns.remove(sqlNameKey(old)) != nil {
            columns.insert(sqlNameKey(new))
            copy.readColumns?[key] = columns
        }
        return copy
    }
}

/// Reads the app's objects from a store.
package enum AppObjects {
    /// Every object of the store that `owned` does not cover, in the order SQLite created them.
    /// `precise` compiles each view to learn exactly which columns it reads and reads each app table's
    /// foreign keys (what a step that removes columns or tables must know); without it a view's columns
    /// are the names its SQL mentions, and an app table depends on nothing (enough to know what to set
    /// aside, or what a rename or an added column could meet).
    package static func read(_ db: Database, owned: OwnedNames, precise: Bool = true) throws -> [AppObject] {
        // GRDB caches introspection per connection; a step's own DDL must be seen.
        db.clearSchemaCache()
        let rows = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        var described: [String] = []
        var virtualTables: [String] = []
        for row in rows where row["type"] as String == "table" {
            let name: String = row["name"]
            if owned.ownsTable(name) {
                let lowered = sqlNameKey(name)
                if !lowered.hasPrefix("lucid_") && !lowered.hasPrefix("sqlite_") && !owned.ownsSearchTable(name) { described.append(name) }
            } else if (row["sql"] as String?)?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") == true {
                virtualTables.append(sqlNameKey(name))
            }
        }
        var objects: [AppObject] = []
        for row in rows {
            let type: String = row["type"]
            let name: String = row["name"]
            let table: String = row["tbl_name"]
            guard let sql: String = row["sql"] else { continue } // automatic indexes
            let kind: AppObject.Kind
            switch type {
            case "table":
                if owned.ownsTable(name) { continue }
                if virtualTables.contains(sqlNameKey(name)) {
                    kind = .virtualTable
                } else if virtualTables.contains(where: { sqlNameKey(name).hasPrefix($0 + "_") }) {
                    kind = .shadowTable
                } else {
                    kind = .table
                }
            case "index":
                if owned.ownsIndex(name, on: table) { continue }
                kind = .index
            case "view": kind = .view
            case "trigger":
                if sqlNameKey(table).hasPrefix("lucid_") || owned.ownsTrigger(name) { continue }
                kind = .trigger
            default: continue
            }
            let tokens = SQLTokens(sql)
            var object = AppObject(kind: kind, name: name, table: table, sql: sql, dependsOn: [], tokens: tokens)
            switch kind {
            case .table, .shadowTable:
                guard precise else { break }
                for key in try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quoteIdentifier(name)))") {
                    let parent: String = key["table"]
                    guard let match = described.first(where: { sameSQLName($0, parent) }) else { continue }
                    object.referencedColumns[sqlNameKey(match), default: []].insert(sqlNameKey(((key["to"] as String?) ?? "")))
                }
                object.dependsOn = described.filter { object.referencedColumns[sqlNameKey($0)] != nil }
            case .view:
                object.readColumns = precise ? try? readColumns(ofView: name, described: described, db) : nil
                if let reads = object.readColumns {
                    object.dependsOn = described.filter { reads[sqlNameKey($0)] != nil }
                } else {
                    object.dependsOn = described.filter { tokens.names(table: $0) }
                }
            case .index:
                object.dependsOn = described.filter { sameSQLName($0, table) }
            case .trigger:
                object.dependsOn = described.filter { sameSQLName($0, table) || tokens.names(table: $0) }
            case .virtualTable:
                object.dependsOn = described.filter { tokens.namesContent($0) }
            }
            objects.append(object)
        }
        // A view over a view over a described table depends on that table too.
        var changed = true
        while changed {
            changed = false
            for index in objects.indices where objects[index].kind == .view || objects[index].kind == .trigger {
                for other in objects
                where other.kind == .view && other.name != objects[index].name
                    && (objects[index].tokens.names(table: other.name) || sameSQLName(objects[index].table, other.name))
                {
                    for table in other.dependsOn where !objects[index].depends(on: table) {
                        objects[index].dependsOn.append(table)
                        changed = true
                    }
                }
            }
        }
        return objects
    }

    /// The columns of described tables that the view reads, as SQLite compiles `SELECT * FROM view`
    /// (through nested views, in every clause), by lower-cased table name.
    private static func readColumns(ofView view: String, described: [String], _ db: Database) throws -> [String: Set<String>] {
        let statement = try db.makeStatement(sql: "SELECT * FROM \(quoteIdentifier(view))")
        let region = statement.databaseRegion
        var result: [String: Set<String>] = [:]
        for table in described where region.isModified(byEventsOfKind: .insert(tableName: table)) {
            let columns = try StoreSchemaReader.columns(of: table, db).map(\.name)
            result[sqlNameKey(table)] = Set(
                columns.filter { region.isModified(byEventsOfKind: .update(tableName: table, columnNames: [$0])) }.map { sqlNameKey($0) })
        }
        return result
    }
}
