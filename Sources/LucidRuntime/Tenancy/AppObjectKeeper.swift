import GRDB
@_spi(Generated) import LucidSchema

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
    ///
    /// The store is untrusted input: each object's SQL in `sqlite_master` must be exactly one `CREATE` of
    /// its own kind and name (``AppObjectStatement``), or the step refuses here, before anything is
    /// dropped, with ``StoreError/appObjectUnsafe(step:version:kind:name:sql:problem:)``.
    static func setAside(
        for table: String, owned: OwnedNames, _ db: Database, step: String, version: SchemaVersion, log: (String) throws -> Void
    ) throws -> SetAsideObjects {
        var result = SetAsideObjects()
        let all = try AppObjects.read(db, owned: owned, precise: false)
        guard !all.isEmpty else { return result }
        let views = Set(all.filter { $0.kind == .view && $0.depends(on: table) }.map { sqlNameKey($0.name) })
        for object in all {
            switch object.kind {
            case .index:
                if sameSQLName(object.table, table) { result.objects.append(object) }
            case .view:
                if views.contains(sqlNameKey(object.name)) { result.objects.append(object) }
            case .trigger:
                if sameSQLName(object.table, table) || views.contains(sqlNameKey(object.table)) || object.depends(on: table) {
                    result.objects.append(object)
                }
            case .virtualTable:
                if object.tokens.namesContent(table) { result.contentIndexes.append(object) }
            case .table, .shadowTable:
                break
            }
        }
        for object in result.objects {
            if let problem = try AppObjectStatement.problem(of: object, db) {
                throw StoreError.appObjectUnsafe(
                    step: step, version: version, kind: object.kind.rawValue, name: object.name, sql: object.sql, problem: problem)
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
    /// order), each as the one prepared statement its SQL is (checked when set aside), and checks that
    /// each compiles against the new table: a view is prepared, a trigger is prepared through a statement
    /// that fires it. A failure names the object (``StoreError/appObjectBroken(step:version:kind:name:sql:message:)``).
    func recreate(_ db: Database, step: String, version: SchemaVersion, trace: (String) -> Void) throws {
        func check(_ object: AppObject, _ work: () throws -> Void) throws {
            do {
                try work()
            } catch let error as DatabaseError {
                throw StoreError.appObjectBroken(
                    step: step, version: version, kind: object.kind.rawValue, name: object.name, sql: object.sql,
                    message: error.message ?? "\(error)")
            }
        }
        let ordered = objects.filter { $0.kind != .trigger } + objects.filter { $0.kind == .trigger }
        for object in ordered {
            trace(object.sql)
            // One statement: GRDB refuses a text that holds a second one.
            try check(object) { try db.makeStatement(sql: object.sql).execute() }
        }
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
            return
                "UPDATE \(table) SET \(columns.map { "\(quoteIdentifier($0)) = \(quoteIdentifier($0))" }.joined(separator: ", ")) WHERE 0"
        }
    }
}

/// What the stored SQL of an app's view, trigger or index must be for a rebuild to run it again: one
/// `CREATE [TEMP] VIEW|TRIGGER|[UNIQUE] INDEX [IF NOT EXISTS] name` of the object's own kind and name,
/// and nothing after it. SQLite itself only ever stores that; anything else was written into
/// `sqlite_master` by hand (`PRAGMA writable_schema`), and a store is untrusted input.
enum AppObjectStatement {
    /// Why `sql` is not one `CREATE` of `kind` named `name` (nil when it is), from its words alone.
    static func problem(kind: AppObject.Kind, name: String, sql: String) -> String? {
        let words = SQLTokens(sql).words
        var position = 0
        func take(_ word: String) -> Bool {
            guard position < words.count, words[position] == word else { return false }
            position += 1
            return true
        }
        let keyword: String
        switch kind {
        case .view: keyword = "view"
        case .trigger: keyword = "trigger"
        case .index: keyword = "index"
        default: return "is not a view, trigger or index"
        }
        let expected = "CREATE \(keyword.uppercased())"
        let begins = words.prefix(3).joined(separator: " ").uppercased()
        guard take("create") else { return "is not \(expected) (it begins \(begins))" }
        if !take("temp") { _ = take("temporary") }
        if kind == .index { _ = take("unique") }
        guard take(keyword) else { return "is not \(expected) (it begins \(begins))" }
        if take("if"), !(take("not") && take("exists")) { return "is not \(expected) [IF NOT EXISTS] \(name)" }
        guard position < words.count else { return "names no \(keyword)" }
        guard words[position] == sqlNameKey(name) else { return "creates \(words[position]), not \(name)" }
        return nil
    }

    /// ``problem(kind:name:sql:)``, then whether the SQL is one statement: inside a savepoint rolled
    /// back at once, the object is dropped and its SQL prepared (never run), which GRDB refuses when
    /// the text holds a second statement.
    static func problem(of object: AppObject, _ db: Database) throws -> String? {
        if let problem = problem(kind: object.kind, name: object.name, sql: object.sql) { return problem }
        let keyword = object.kind == .index ? "INDEX" : object.kind == .view ? "VIEW" : "TRIGGER"
        var problem: String?
        try db.inSavepoint {
            try db.execute(sql: "DROP \(keyword) IF EXISTS \(quoteIdentifier(object.name))")
            do {
                _ = try db.makeStatement(sql: object.sql)
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_MISUSE && (error.message ?? "").hasPrefix("Multiple statements")
            {
                problem = "holds more than one statement"
            } catch {
                // Whether it compiles is checked when it is made again (``SetAsideObjects/recreate``).
            }
            return .rollback
        }
        return problem
    }
}
