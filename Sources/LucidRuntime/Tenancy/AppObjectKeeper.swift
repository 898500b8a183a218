import GRDB
import LucidSchema

/// Keeps the app's objects through a table rebuild, in the order SQLite documents for "other kinds of
/// table schema changes" (lang_altertable): remember the `CREATE` of every index, trigger and view
/// involving the table (step 3), drop the views and the triggers on other tables that reference it,
/// since SQLite's `RENAME` of the new table refuses a schema where they point nowhere (step 9), and
/// recreate everything once the new table has its name (step 8), all inside the step's transaction.
///
/// The table's own triggers and the app's indexes on it go with its `DROP TABLE`; they are recreated
/// from the same SQL. Virtual tables stay: an FTS index whose content is the table keeps pointing at it
/// (the rebuild keeps every rowid), and is rebuilt when the values it indexes may have changed.
struct SetAsideObjects {
    /// The objects to recreate, in the order SQLite created them.
    private(set) var objects: [AppObject] = []
    /// Virtual tables that index the table's rows (FTS `content=` the table).
    private(set) var contentIndexes: [AppObject] = []

    var isEmpty: Bool { objects.isEmpty && contentIndexes.isEmpty }

    /// Remembers what involves `table` and drops what its `DROP TABLE` would not (views, and triggers
    /// on other tables or on those views), before a rebuild.
    static func setAside(for table: String, owned: OwnedNames, _ db: Database, log: (String) throws -> Void) throws -> SetAsideObjects {
        var result = SetAsideObjects()
        let all = try AppObjects.read(db, owned: owned, precise: false)
        guard !all.isEmpty else { return result }
        let views = Set(all.filter { $0.kind == .view && $0.depends(on: table) }.map { $0.name.lowercased() })
        for object in all {
            switch object.kind {
            case .index:
                if sameSQLName(object.table, table) { result.objects.append(object) }
            case .view:
                if views.contains(object.name.lowercased()) { result.objects.append(object) }
            case .trigger:
                if sameSQLName(object.table, table) || views.contains(object.table.lowercased()) || object.depends(on: table) { result.objects.append(object) }
            case .virtualTable:
                if object.tokens.namesContent(table) { result.contentIndexes.append(object) }
            case .table, .shadowTable:
                break
            }
        }
        // Triggers first: a trigger on a view goes with the view anyway.
        for object in result.objects where object.kind == .trigger && !sameSQLName(object.table, table) {
            try log("DROP TRIGGER IF EXISTS \(quoteIdentifier(object.name))")
        }
        for object in result.objects where object.kind == .view {
            try log("DROP VIEW IF EXISTS \(quoteIdentifier(object.name))")
        }
        return result
    }

    /// Recreates the objects set aside (indexes and views, then triggers, each in SQLite's creation
    /// order) and checks that each compiles against the new table: a view is prepared, a trigger is
    /// prepared through a statement that fires it. A failure names the object (``StoreError/appObjectBroken(step:version:kind:name:sql:message:)``).
    func recreate(_ db: Database, step: String, version: SchemaVersion, log: (String) throws -> Void) throws {
        func check(_ object: AppObject, _ work: () throws -> Void) throws {
            do {
                try work()
            } catch let error as DatabaseError {
                throw StoreError.appObjectBroken(step: step, version: version, kind: object.kind.rawValue, name: object.name, sql: object.sql, message: error.message ?? "\(error)")
            }
        }
        let ordered = objects.filter { $0.kind != .trigger } + objects.filter { $0.kind == .trigger }
        for object in ordered { try check(object) { try log(object.sql) } }
        for object in objects {
            switch object.kind {
            case .view:
                try check(object) { _ = try db.makeStatement(sql: "SELECT * FROM \(quoteIdentifier(object.name))") }
            case .trigger:
                if let probe = try Self.probe(firing: object, db) { try check(object) { _ = try db.makeStatement(sql: probe) } }
            default:
                break
            }
        }
    }

    /// Rebuilds the FTS indexes whose content is the rebuilt table, when `changed` says the values of a
    /// column they index may differ from before (a conversion, a row transform).
    func refreshContentIndexes(changed: (AppObject) -> Bool, log: (String) throws -> Void) throws {
        for index in contentIndexes where changed(index) {
            try log("INSERT INTO \(quoteIdentifier(index.name))(\(quoteIdentifier(index.name))) VALUES('rebuild')")
        }
    }

    /// A statement that fires `trigger` (it compiles the trigger's body without running anything):
    /// `DELETE … WHERE 0`, `INSERT … DEFAULT VALUES`, or `UPDATE … SET c = c WHERE 0` over its `OF`
    /// columns (or the first column).
    private static func probe(firing trigger: AppObject, _ db: Database) throws -> String? {
        let words = trigger.tokens.words
        guard let on = words.firstIndex(of: "on") else { return nil }
        let prefix = Array(words[..<on])
        guard let event = prefix.lastIndex(where: { ["delete", "insert", "update"].contains($0) }) else { return nil }
        let table = quoteIdentifier(trigger.table)
        switch prefix[event] {
        case "delete": return "DELETE FROM \(table) WHERE 0"
        case "insert": return "INSERT INTO \(table) DEFAULT VALUES"
        default:
            var columns = event + 1 < prefix.count && prefix[event + 1] == "of" ? Array(prefix[(event + 2)...]) : []
            if columns.isEmpty, let first = try Row.fetchOne(db, sql: "PRAGMA table_info(\(table))") { columns = [first["name"]] }
            guard !columns.isEmpty else { return nil }
            return "UPDATE \(table) SET \(columns.map { "\(quoteIdentifier($0)) = \(quoteIdentifier($0))" }.joined(separator: ", ")) WHERE 0"
        }
    }
}
