import Foundation
import GRDB
import GRDBSQLite
import Logging
@_spi(Generated) import LucidSchema

/// Runs the operations of one inferred step as SQL, inside the caller's transaction.
///
/// Rebuilds follow SQLite's documented order (lang_altertable, "other kinds of table schema changes"):
/// create the new table under a temporary name, copy the rows, drop the old table, rename the new one,
/// recreate the indexes. The old table is never renamed first: since SQLite 3.26 that would rewrite the
/// foreign keys of other tables to point at the renamed table. Foreign key enforcement is off for the
/// whole step (it cannot be changed inside a transaction); the caller runs `foreign_key_check` before
/// committing.
struct StepExecutor {
    let db: Database
    let target: Schema
    let deferCleanup: Bool
    let logger: Logger
    /// The stage's row transforms, by table name at the target version.
    var transforms: [String: RowTransform] = [:]
    /// What lucidgen owns in the store during the step (the rest is the app's, and is kept).
    var owned = OwnedNames([])
    /// The version the step starts from, for errors.
    var sourceVersion = SchemaVersion("0.0")
    /// The schema the step starts from: which table a dropped index was on.
    var source: Schema?
    /// Tables whose dropped unique index is a UNIQUE constraint in the table's SQL (a store lucidgen adopted):
    /// only a rebuild removes it, made at the end of the step.
    private(set) var constraintRebuilds: [String] = []
    let report: (_ operation: String, _ rowsDone: Int, _ rowsTotal: Int) -> Void

    /// Rows copied per statement in a rebuild: large enough to cost nothing per row, small enough to
    /// report progress several times a second.
    static let chunkSize = 50_000
    /// Rows per batch handed to the app's code on the rows-and-dictionaries path (two batches in memory; a
    /// divisor of `chunkSize`, so progress is reported at the same row counts as the other paths).
    static let transformBatchSize = 500

    /// Tables whose rows or shape the step touched, for the scoped schema validation.
    private(set) var touchedTables: Set<String> = []
    /// Tables whose rows could now break a foreign key: rewritten or filled tables, tables given a
    /// foreign key column, and tables that referenced a dropped one. Renames and plain added columns
    /// cannot break one (SQLite rewrites references on rename), so they cost no check.
    private(set) var foreignKeyCheckTables: Set<String> = []

    /// The target version and the later ones: a dropped AUTOINCREMENT table whose name one of their
    /// AUTOINCREMENT tables has keeps its highest id handed out for the one that takes it.
    var laterVersions: ArraySlice<Schema> = []

    /// The label of the step being run, for errors raised deep in a rebuild.
    private(set) var currentStep = ""
    /// Tables the app's row transform filled with moved rows and dropped some of (``RowMove/transformed``).
    private(set) var droppedByMoves: [String] = []

    /// Where a row transform of moved rows (``RowMove/transformed``) reads and writes: the source's rows
    /// that `filter` keeps (nil: every row), written straight into `destination`, which the step created,
    /// instead of a rebuild's temporary table that replaces the source.
    struct Moved {
        var filter: String?
        var destination: String
    }

    mutating func run(_ operations: [MigrationOperation], stepLabel: String) throws {
        currentStep = stepLabel
        try checkFunctions(of: operations.compactMap(\.filledTable).compactMap { target.table(named: $0) }, stepLabel: stepLabel)
        for operation in operations {
            report(operation.description, 0, 0)
            try run(operation, stepLabel: stepLabel)
        }
        for table in droppedByMoves { try applyDeleteActions(afterDroppingRowsOf: table) }
        droppedByMoves = []
        for name in constraintRebuilds {
            guard let table = target.table(named: name) else { continue }
            try checkFunctions(of: [table], stepLabel: stepLabel)
            report("rebuild table \(table.name) (its UNIQUE constraint goes)", 0, 0)
            try rebuild(
                TableRebuild(
                    table: table, sourceTable: name, sources: table.columns.map { "src.\(quoteIdentifier($0.name))" },
                    reasons: ["its UNIQUE constraint goes"]),
                stepLabel: stepLabel)
            touchedTables.insert(table.name)
        }
        constraintRebuilds = []
    }

    /// SQLite resolves every function a table's defaults call when it prepares an INSERT into the table, even one
    /// that gives every column (a rebuild's copy): a function the connection lacks (SQLiteData's `uuid()`, which
    /// the app registers or its SQLite has) is refused here, before the step changes anything, naming it and the
    /// column, so the step runs from the app. Nothing is checked when SQLite cannot list its functions.
    private func checkFunctions(of tables: [SchemaTable], stepLabel: String) throws {
        // The target's defaults are descriptions' (their grammar admits no other name followed by `(`): the
        // app functions among a default's words are the ones it calls.
        let called = tables.flatMap { table in
            table.columns.flatMap { column in
                column.defaultSQL.map { sql in
                    SQLTokens(sql).words.filter(SchemaColumn.appFunctions.contains).map { (table.name, column.name, $0) }
                } ?? []
            }
        }
        guard !called.isEmpty, let known = try? Set(String.fetchAll(db, sql: "SELECT DISTINCT lower(name) FROM pragma_function_list")),
            !known.isEmpty
        else { return }
        for (table, column, function) in called where !known.contains(function) {
            throw StoreError.stepFailed(
                step: stepLabel, version: sourceVersion,
                message:
                    "\(table).\(column) defaults to \(function)(), a function this connection does not have, and SQLite needs it to copy or insert the table's rows; "
                    + "run the step from the app, which registers \(function)() on its connections (GRDB's Configuration.prepareDatabase, in StoreOptions.configuration), before migrating"
            )
        }
    }

    /// What one operation did, for the step's scoped validation: the tables whose rows or shape it
    /// touched, and those whose rows could now break a foreign key.
    struct OperationEffect {
        var touched: Set<String> = []
        var foreignKeyChecks: Set<String> = []

        static let none = OperationEffect()
        /// A table whose rows were rewritten: touched, and its foreign keys checked.
        static func rewrote(_ table: String) -> OperationEffect { OperationEffect(touched: [table], foreignKeyChecks: [table]) }
    }

    /// One operation, by its kind; what it did is recorded for the step's validation.
    private mutating func run(_ operation: MigrationOperation, stepLabel: String) throws {
        let effect: OperationEffect
        switch operation {
        case .renameTable, .createTable, .fillJoinTable, .renameColumn, .addColumn, .dropColumn:
            effect = try alterInPlace(operation)
        case .rebuildTable(let rebuild):
            try self.rebuild(rebuild, stepLabel: stepLabel)
            effect = .rewrote(rebuild.table.name)
        case .dropTable(let table, let deferrable):
            effect = try dropTable(table, deferrable: deferrable)
        case .transformTable(let table, let sourceTable):
            guard let transform = transforms[table.name] else { throw StoreError.missingStage("row transform for \(table.name)") }
            let dropped = try runTransform(transform, into: table, from: sourceTable, moved: nil)
            // Only dropped rows can leave references behind: no scan of the referencing tables otherwise.
            if dropped > 0 { try applyDeleteActions(afterDroppingRowsOf: table.name) }
            effect = .rewrote(table.name)
        case .dropIndex(let name):
            effect = try dropIndex(name)
        case .dropSearch, .createSearch:
            try changeSearch(operation)
            effect = .none
        case .rewriteKinds(let rewrite):
            // Entity inheritance: rows of removed entities go (their references get their ON DELETE actions, as
            // a DELETE with enforcement on would), then renamed entities' rows take their new kind.
            if let delete = rewrite.deleteStatement {
                try execute(delete)
                if db.changesCount > 0 { try applyDeleteActions(afterDroppingRowsOf: rewrite.table) }
            }
            if let update = rewrite.updateStatement { try execute(update) }
            effect = .rewrote(rewrite.table)
        case .moveRows(let move):
            effect = try moveRows(move, stepLabel: stepLabel)
        case .createIndex(let table, let index, let deferrable):
            let statement = SchemaTable(name: table, columns: [], primaryKey: [], indexes: [index]).createIndexStatements[0]
            if deferCleanup && deferrable && !index.unique {
                try PendingCleanup.record(
                    .init(kind: "create_index", table: table, object: index.name, sql: statement), version: target.version, db)
            } else {
                try createIndex(statement, index, on: table, stepLabel: stepLabel)
            }
            effect = OperationEffect(touched: [table])
        }
        touchedTables.formUnion(effect.touched)
        foreignKeyCheckTables.formUnion(effect.foreignKeyChecks)
    }

    /// The operations SQLite makes in place with one statement (a dropped column's may wait for the
    /// deferred cleanup).
    private func alterInPlace(_ operation: MigrationOperation) throws -> OperationEffect {
        switch operation {
        case .renameTable(let from, let to):
            try execute("ALTER TABLE \(quoteIdentifier(from)) RENAME TO \(quoteIdentifier(to))")
            return OperationEffect(touched: [to])
        case .createTable(let table):
            for statement in table.createStatements { try execute(statement) }
            return OperationEffect(touched: [table.name])
        case .fillJoinTable(let join, let owner, let key, let column):
            // An ordered relationship's single link per row is the first of its list.
            let ordered = target.table(named: join)?.column(named: LinkTable.positionColumn) != nil
            let link = LinkTable.columns(of: target.table(named: join))
            try execute(
                "INSERT INTO \(quoteIdentifier(join)) (\(quoteIdentifier(link.source)), \(quoteIdentifier(link.target))\(ordered ? ", \(quoteIdentifier(LinkTable.positionColumn))" : "")) SELECT \(quoteIdentifier(key)), \(quoteIdentifier(column))\(ordered ? ", 0" : "") FROM \(quoteIdentifier(owner)) WHERE \(quoteIdentifier(column)) IS NOT NULL"
            )
            return OperationEffect(touched: [join])
        case .renameColumn(let table, let from, let to):
            try execute("ALTER TABLE \(quoteIdentifier(table)) RENAME COLUMN \(quoteIdentifier(from)) TO \(quoteIdentifier(to))")
            return OperationEffect(touched: [table])
        case .addColumn(let table, let column):
            var sql = "ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(quoteIdentifier(column.name)) \(column.constraintsSQL())"
            var effect = OperationEffect(touched: [table])
            if let key = target.table(named: table)?.foreignKeys.first(where: { $0.columns == [column.name] }) {
                sql +=
                    " REFERENCES \(quoteIdentifier(key.table))(\(key.tableColumns.map(quoteIdentifier).joined(separator: ", ")))\(key.actionsSQL)"
                effect.foreignKeyChecks.insert(table)
            }
            try execute(sql)
            return effect
        case .dropColumn(let table, let column, let deferrable):
            let sql = "ALTER TABLE \(quoteIdentifier(table)) DROP COLUMN \(quoteIdentifier(column))"
            if deferCleanup && deferrable {
                try PendingCleanup.record(.init(kind: "drop_column", table: table, object: column, sql: sql), version: target.version, db)
            } else {
                try execute(sql)
            }
            return .none
        default:
            preconditionFailure("\(operation) is not made in place")
        }
    }

    /// A table dropped (or left to the deferred cleanup); the tables that referenced it have their foreign
    /// keys checked.
    private func dropTable(_ table: String, deferrable: Bool) throws -> OperationEffect {
        let sql = "DROP TABLE \(quoteIdentifier(table))"
        var effect = OperationEffect()
        for child in target.tables where child.foreignKeys.contains(where: { sqlNameKey($0.table) == sqlNameKey(table) }) {
            effect.foreignKeyChecks.insert(child.name)
        }
        if deferCleanup && deferrable {
            try PendingCleanup.record(.init(kind: "drop_table", table: table, object: table, sql: sql), version: target.version, db)
        } else {
            let sequence = try highestAssignedID(of: table).flatMap { sequence in
                laterVersions.contains { $0.tables.contains { $0.autoincrement == true && sameSQLName($0.name, table) } } ? sequence : nil
            }
            try execute(sql)
            // A new lineage takes the name (`takes_name_of`), at this version or a later one: its table
            // starts above the ids the old one handed out (SQLite reads sqlite_sequence by name, whether the
            // table exists or not), so an id once handed out in a table is never handed out again.
            if let sequence { try execute("INSERT INTO sqlite_sequence (name, seq) VALUES (\(quoteLiteral(table)), \(sequence))") }
        }
        return effect
    }

    /// The app's row transform of `source` into `table`, on the fastest path the transform and the
    /// connection allow: the number of rows it dropped.
    private mutating func runTransform(_ transform: RowTransform, into table: SchemaTable, from source: String, moved: Moved?) throws -> Int
    {
        if let typed = transform.recordTransform, let connection = db.sqliteConnection {
            if typed.sourceColumns.count + 1 <= sqlite3_limit(connection, SQLITE_LIMIT_FUNCTION_ARG, -1) {
                return try self.transform(table: table, source: source, with: typed, connection: connection, moved: moved)
            }
            return try self.transformRowByRow(table: table, source: source, with: typed, moved: moved)
        }
        return try self.transform(table: table, source: source, with: transform, moved: moved)
    }

    /// An index dropped. One the store enforces with a UNIQUE constraint in its table's SQL (a store
    /// lucidgen adopted) is gone only once the table is rebuilt without it, at the end of the step.
    private mutating func dropIndex(_ name: String) throws -> OperationEffect {
        var effect = OperationEffect()
        if let table = try String.fetchOne(
            db, sql: "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name])
        {
            effect.touched.insert(table)
        } else if let table = source?.tables.first(where: { $0.indexes.contains { sameSQLName($0.name, name) } }),
            let index = table.indexes.first(where: { sameSQLName($0.name, name) }), index.unique,
            let live = try? StoreSchemaReader.table(named: table.name, db),
            live.indexes.contains(where: {
                StoreSchemaReader.isConstraintIndex($0) && $0.columns.map { sqlNameKey($0) } == index.columns.map { sqlNameKey($0) }
            })
        {
            if !constraintRebuilds.contains(where: { sameSQLName($0, table.name) }) { constraintRebuilds.append(table.name) }
        }
        try execute("DROP INDEX IF EXISTS \(quoteIdentifier(name))")
        return effect
    }

    /// A table's full-text search index dropped, or made and filled from the table's rows.
    private func changeSearch(_ operation: MigrationOperation) throws {
        switch operation {
        case .dropSearch(let table):
            // The triggers first: they write into the index.
            for trigger in SchemaTable.searchTriggerNames(of: table) {
                try execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(trigger))")
            }
            try execute("DROP TABLE IF EXISTS \(quoteIdentifier(SchemaTable.searchTableName(of: table)))")
        case .createSearch(let table):
            for statement in table.searchStatements { try execute(statement) }
            let label = "fill search index \(table.searchTableName)"
            report(label, 0, 0)
            try execute(table.rebuildSearchStatement)
            report(label, 1, 1)
        default:
            preconditionFailure("\(operation) changes no search index")
        }
    }

    /// An entity's rows moved to its new root's table, ids kept, by SQL or by the app's row transform; the
    /// kind rewrite or the drop that follows takes them from their old table, as for a copy.
    private mutating func moveRows(_ move: RowMove, stepLabel: String) throws -> OperationEffect {
        guard move.transformed else {
            try execute(move.insertStatement)
            return .rewrote(move.table)
        }
        // The app's row transform makes each moved row, straight into the table the step created.
        guard let transform = transforms[move.table] else { throw StoreError.missingStage("row transform for \(move.table)") }
        guard let table = target.table(named: move.table) else {
            throw StoreError.stepFailed(step: stepLabel, version: sourceVersion, message: "no table \(move.table) at \(target.version)")
        }
        let dropped = try runTransform(
            transform, into: table, from: move.source, moved: Moved(filter: move.sourceFilter, destination: table.name))
        // A row the app's code dropped is a deleted row: its references get their ON DELETE actions once
        // every table has its new shape (the tables that reference it are rebuilt later in the step).
        if dropped > 0 { droppedByMoves.append(move.table) }
        return .rewrote(move.table)
    }

    private mutating func rebuild(_ rebuild: TableRebuild, stepLabel: String) throws {
        let table = rebuild.table
        for join in rebuild.collapsedJoinTables {
            let sourceColumn = quoteIdentifier(LinkTable.columns(of: source?.table(named: join)).source)
            if let source = try Row.fetchOne(
                db,
                sql:
                    "SELECT \(sourceColumn) AS source, count(*) AS links FROM \(quoteIdentifier(join)) GROUP BY \(sourceColumn) HAVING count(*) > 1 LIMIT 1"
            ) {
                throw StoreError.dataWouldBeLost(
                    step: stepLabel,
                    message:
                        "row \(source["source"] as DatabaseValue) of \(rebuild.sourceTable) has \(source["links"] as Int) links in \(join), but \(table.name) keeps one; a custom stage must choose"
                )
            }
        }
        let aside = try setAside(for: rebuild.sourceTable)
        // With app objects to keep, renamed columns keep their old names through the copy (a column added
        // under a renamed one's old name gets a placeholder); SQLite's RENAME COLUMN then gives every column
        // its name and rewrites the objects that name them.
        let copyNames = aside.objects.isEmpty ? CopyNames() : CopyNames(rebuild)
        func copiedName(_ name: String) -> String { copyNames.copied[sqlNameKey(name)] ?? name }
        let oldName = Dictionary(rebuild.renamedColumns.map { (sqlNameKey($0.value), $0.key) }, uniquingKeysWith: { first, _ in first })
        // The new shape under the copy's names: columns, primary key and foreign keys.
        var copied = table
        for index in copied.columns.indices { copied.columns[index].name = copiedName(copied.columns[index].name) }
        copied.primaryKey = copied.primaryKey.map(copiedName)
        for index in copied.foreignKeys.indices { copied.foreignKeys[index].columns = copied.foreignKeys[index].columns.map(copiedName) }
        let temporary = "lucid_rebuild_\(table.name)"
        try execute(copied.createTableStatement(named: temporary))
        // The rowid first: every row keeps it (FTS content, R*Tree and the app's rows may store rowids),
        // and a column that is the rowid's alias, listed after it, still decides.
        // A generated column is SQLite's to compute: never written.
        let written = zip(copied.columns, rebuild.sources).filter { !$0.0.isGenerated }
        let columns = (["rowid"] + written.map { quoteIdentifier($0.0.name) }).joined(separator: ", ")
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO \(quoteIdentifier(temporary)) (\(columns)) SELECT src.rowid, \(written.map(\.1).joined(separator: ", ")) FROM \(quoteIdentifier(rebuild.sourceTable)) AS src WHERE src.rowid BETWEEN ? AND ?"
        )
        var rowsCopied = 0
        do {
            try insertInChunks(from: rebuild.sourceTable, label: "rebuild table \(table.name)", insert) {
                rowsCopied += db.changesCount
                return rowsCopied
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK {
            throw try checkFailure(
                error, copying: rebuild.sourceTable, into: temporary, with: insert, table: table.name, stepLabel: stepLabel)
        }
        // The columns whose values may differ from the old column's: what an FTS index over the table must re-read.
        var changed: [String] = []
        for (column, source) in zip(table.columns, rebuild.sources) {
            let old = oldName[sqlNameKey(column.name)] ?? column.name
            if source != "src.\(quoteIdentifier(old))" { changed += [column.name, old] }
        }
        try replace(rebuild.sourceTable, with: temporary, as: table, aside: aside, renames: copyNames.renames) { index in
            changed.contains { index.tokens.names(column: $0) }
        }
    }

    /// The typed error of a rebuild whose rows break a CHECK constraint of the new table: the first row that
    /// does, found by copying the rows again one at a time (only once the copy failed), and the constraint as
    /// SQLite names it (its name, or its expression). The caller's transaction rolls the step back.
    private func checkFailure(
        _ error: DatabaseError, copying source: String, into temporary: String, with insert: Statement, table: String, stepLabel: String
    ) throws -> StoreError {
        let prefix = "CHECK constraint failed: "
        func constraint(_ error: DatabaseError) -> String {
            let message = error.message ?? ""
            return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        }
        try execute("DELETE FROM \(quoteIdentifier(temporary))")
        // A new statement: resetting the one that failed reports its error again.
        let insert = try db.makeStatement(sql: insert.sql)
        let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM \(quoteIdentifier(source)) ORDER BY rowid")
        for rowid in rowids {
            do {
                try insert.execute(arguments: [rowid, rowid])
            } catch let failure as DatabaseError where failure.extendedResultCode == .SQLITE_CONSTRAINT_CHECK {
                return StoreError.checkFailed(step: stepLabel, table: table, constraint: constraint(failure), rowid: rowid)
            }
        }
        return StoreError.stepFailed(step: stepLabel, version: sourceVersion, message: error.message ?? "\(error)")
    }

    /// How a rebuild that keeps app objects copies its rows: every renamed column under its old name (the
    /// name the app's objects use), a new column that takes a renamed one's old name under a placeholder,
    /// and the `RENAME COLUMN`s, in order, that give every column its name afterwards. Each renamed column
    /// goes to a placeholder first, so that swapped names and an old name taken by another column work
    /// (SQLite rewrites the app's objects at each rename, so they follow the renamed column).
    struct CopyNames {
        /// A column's name in the copy, by its new name lowercased (absent: its own name).
        var copied: [String: String] = [:]
        var renames: [(from: String, to: String)] = []

        init() {}

        init(_ rebuild: TableRebuild) {
            let renamed = rebuild.renamedColumns.sorted { $0.key < $1.key }
            guard !renamed.isEmpty else { return }
            var used = Set(rebuild.table.columns.map { sqlNameKey($0.name) }).union(renamed.map { sqlNameKey($0.key) })
            func placeholder() -> String {
                var number = used.count
                while used.contains("lucid_column_\(number)") { number += 1 }
                used.insert("lucid_column_\(number)")
                return "lucid_column_\(number)"
            }
            let oldNames = Set(renamed.map { sqlNameKey($0.key) })
            let newNames = Set(renamed.map { sqlNameKey($0.value) })
            let takenOldName = rebuild.table.columns.contains {
                !newNames.contains(sqlNameKey($0.name)) && oldNames.contains(sqlNameKey($0.name))
            }
            if oldNames.isDisjoint(with: newNames) && !takenOldName {
                // The usual case: each rename at once.
                for (old, new) in renamed {
                    copied[sqlNameKey(new)] = old
                    renames.append((old, new))
                }
                return
            }
            var finalRenames: [(from: String, to: String)] = []
            for (old, new) in renamed {
                copied[sqlNameKey(new)] = old
                guard old != new else { continue }
                let parked = placeholder()
                renames.append((old, parked))
                finalRenames.append((parked, new))
            }
            for column in rebuild.table.columns
            where !newNames.contains(sqlNameKey(column.name)) && oldNames.contains(sqlNameKey(column.name)) {
                let parked = placeholder()
                copied[sqlNameKey(column.name)] = parked
                finalRenames.append((parked, column.name))
            }
            renames += finalRenames
        }
    }

    /// Sets aside the app's objects that involve `table` before it is rebuilt (``SetAsideObjects``).
    private func setAside(for table: String) throws -> SetAsideObjects {
        try SetAsideObjects.setAside(for: table, owned: owned, db, step: currentStep, version: sourceVersion) { try execute($0) }
    }

    /// Runs `insert`, whose two arguments are the bounds of a rowid range of `source`, over the whole
    /// table, one range of about `chunkSize` rows at a time, reporting progress after each range.
    /// `rowsDone` runs after each range and returns the progress count (the rows copied or read so far).
    private func insertInChunks(from sourceTable: String, label: String, _ insert: Statement, rowsDone: () throws -> Int) throws {
        logger.trace("SQL: \(insert.sql)")
        let source = quoteIdentifier(sourceTable)
        // min/max of the rowid are two b-tree seeks; count(*) would read the whole table, so it is only
        // run when the rowid span is too wide to be cut into ranges directly.
        let bounds = try Row.fetchOne(db, sql: "SELECT min(rowid) AS low, max(rowid) AS high FROM \(source)")!
        guard let low: Int64 = bounds["low"], let high: Int64 = bounds["high"] else { return }
        // Dense rowids (the usual case) are cut into ranges by arithmetic; sparse ones (e.g. ids near
        // Int64.max) by looking up each chunk's last rowid, so a chunk always holds about `chunkSize` rows.
        let (span, spanOverflow) = high.subtractingReportingOverflow(low)
        var total: Int
        var dense = true
        if spanOverflow || span > Int64(Self.chunkSize) * 4_000 {
            total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source)") ?? 0
            dense = !spanOverflow && span / Int64(max(total, 1)) < 4
        } else {
            total = Int(span) + 1
        }
        let next = try db.makeStatement(
            sql: "SELECT rowid FROM \(source) WHERE rowid >= ? ORDER BY rowid LIMIT 1 OFFSET \(Self.chunkSize - 1)")
        var lower = low
        var done = 0
        report(label, 0, total)
        while true {
            let upper: Int64
            if dense {
                let (end, overflow) = lower.addingReportingOverflow(Int64(Self.chunkSize - 1))
                upper = overflow ? high : min(end, high)
            } else {
                upper = try Int64.fetchOne(next, arguments: [lower]) ?? high
            }
            try insert.execute(arguments: [lower, upper])
            done = try rowsDone()
            if upper >= high { break }
            report(label, done, max(total, done))
            lower = upper + 1
        }
        // The total was an estimate from the rowid span: the final report gives the real count.
        report(label, done, done)
    }

    /// The end of every rebuild, in SQLite's documented order: drop the old table, give the new one its
    /// name, recreate the app's objects set aside (under the old names, then renamed by SQLite, which
    /// rewrites them), refresh the FTS indexes over the table whose values `changed`, and recreate
    /// lucidgen's indexes. (Never rename the old table first: see the type's comment.)
    private func replace(
        _ source: String, with temporary: String, as table: SchemaTable, aside: SetAsideObjects = SetAsideObjects(),
        renames: [(from: String, to: String)] = [],
        changed: (AppObject) -> Bool = { _ in true }
    ) throws {
        // AUTOINCREMENT's highest id handed out: dropping the table deletes its sqlite_sequence row, and the copy
        // records only the highest id still present, so a deleted row's id would be handed out again.
        let sequence = table.autoincrement == true ? try highestAssignedID(of: source) : nil
        try execute("DROP TABLE \(quoteIdentifier(source))")
        if aside.isEmpty {
            try execute("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table.name))")
        } else {
            try execute("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(source))")
            try aside.recreate(db, step: currentStep, version: sourceVersion) { logger.trace("SQL: \($0)") }
            if !sameSQLName(source, table.name) {
                try execute("ALTER TABLE \(quoteIdentifier(source)) RENAME TO \(quoteIdentifier(table.name))")
            }
            for (old, new) in renames {
                try execute("ALTER TABLE \(quoteIdentifier(table.name)) RENAME COLUMN \(quoteIdentifier(old)) TO \(quoteIdentifier(new))")
            }
            try aside.refreshContentIndexes(changed: changed) { try execute($0) }
        }
        if let sequence {
            let name = quoteLiteral(table.name)
            try execute("UPDATE sqlite_sequence SET seq = max(seq, \(sequence)) WHERE name = \(name)")
            try execute(
                "INSERT INTO sqlite_sequence (name, seq) SELECT \(name), \(sequence) WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = \(name))"
            )
        }
        for (statement, index) in zip(table.createIndexStatements, table.createdIndexes) {
            try createIndex(statement, index, on: table.name, stepLabel: currentStep)
        }
        try restoreSearchTriggers(of: table)
    }

    /// The highest id an AUTOINCREMENT table handed out (`sqlite_sequence`), nil when it has none recorded.
    private func highestAssignedID(of table: String) throws -> Int64? {
        guard try db.tableExists("sqlite_sequence") else { return nil }
        return try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ? COLLATE NOCASE", arguments: [table])
    }

    /// The triggers of the table's declared search went with the old table: on the new one (every rowid
    /// kept, the same searched values) they are created again and the index stays valid as it is. When the
    /// step renews the search instead (``MigrationOperation/dropSearch(table:)`` ran first), there is no
    /// index yet: `createSearch` makes everything at the end of the step.
    private func restoreSearchTriggers(of table: SchemaTable) throws {
        guard table.search != nil, try db.tableExists(table.searchTableName) else { return }
        for statement in table.searchTriggerStatements { try execute(statement) }
    }

    /// Runs a `CREATE INDEX`. A unique index that the table's rows break fails the step with the rows that
    /// share values (found only then: a unique index the rows satisfy costs no extra scan).
    private func createIndex(_ statement: String, _ index: SchemaIndex, on table: String, stepLabel: String) throws {
        do {
            try execute(statement)
        } catch let error as DatabaseError where index.unique && error.resultCode == .SQLITE_CONSTRAINT {
            let (duplicates, groups) = try Self.duplicates(of: index.columns, in: table, db)
            guard groups > 0 else { throw error }
            throw StoreError.duplicateRows(
                step: stepLabel, table: table, columns: index.columns, index: index.name, duplicates: duplicates, groupCount: groups)
        }
    }

    /// The first `limit` groups of rows of `table` that share non-NULL values in `columns` (SQLite's
    /// unique indexes let NULLs repeat), each with its first rowids, and how many groups there are.
    static func duplicates(of columns: [String], in table: String, _ db: Database, limit: Int = 5, rowidsShown: Int = 5) throws -> (
        [DuplicateRows], Int
    ) {
        let quoted = columns.map(quoteIdentifier)
        let list = quoted.joined(separator: ", ")
        let notNull = quoted.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let grouped = "FROM \(quoteIdentifier(table)) WHERE \(notNull) GROUP BY \(list) HAVING count(*) > 1"
        let groups = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 \(grouped))") ?? 0
        let literals = quoted.map { "quote(\($0))" }.joined(separator: ", ")
        var result: [DuplicateRows] = []
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(list), \(literals), count(*), min(rowid) \(grouped) ORDER BY min(rowid) LIMIT \(limit)")
        for row in rows {
            let values = (0..<columns.count).map { row[$0] as DatabaseValue }
            let condition = quoted.map { "\($0) = ?" }.joined(separator: " AND ")
            let rowids = try Int64.fetchAll(
                db, sql: "SELECT rowid FROM \(quoteIdentifier(table)) WHERE \(condition) ORDER BY rowid LIMIT \(rowidsShown)",
                arguments: StatementArguments(values))
            result.append(
                DuplicateRows(
                    values: (0..<columns.count).map { row[columns.count + $0] as String? ?? "NULL" }, rowids: rowids,
                    count: row[2 * columns.count]))
        }
        return (result, groups)
    }

    /// A rebuild whose rows come from Swift on the typed-records path: chunked `INSERT … SELECT`
    /// statements whose SQL functions run the app's code for each row (see ``RecordTransformRunner``).
    /// The functions exist only during this call. Returns how many old rows the transform dropped.
    private mutating func transform(
        table: SchemaTable, source: String, with transform: RecordTransform, connection: OpaquePointer, moved: Moved? = nil
    ) throws -> Int {
        let aside = try moved == nil ? setAside(for: source) : SetAsideObjects()
        let temporary = moved?.destination ?? "lucid_rebuild_\(table.name)"
        if moved == nil { try execute(table.createTableStatement(named: temporary)) }
        // Generated columns: the record encodes them, SQLite computes them.
        let runner = RecordTransformRunner(
            transform, sourceTable: source, targetTable: table.name,
            generatedColumns: Set(table.columns.filter(\.isGenerated).map { sqlNameKey($0.name) }))
        defer { runner.unregister(from: connection) }
        try runner.register(on: connection)
        var inserted = 0
        do {
            let insert = try db.makeStatement(sql: runner.insertSQL(into: temporary, from: source, filter: moved?.filter))
            try insertInChunks(from: source, label: "transform table \(table.name)", insert) {
                try runner.checkComplete()
                inserted += db.changesCount
                return runner.rowsSeen
            }
        } catch {
            // The statement failed because a callback did: rethrow the callback's own error (the app's).
            throw runner.error ?? error
        }
        if moved == nil { try replace(source, with: temporary, as: table, aside: aside) }
        return runner.rowsSeen - inserted
    }

    /// A typed rebuild for a table wider than an SQL function's arguments (127 by default): the same
    /// records and the same conversion as the functions path, row by row through a cursor and one
    /// prepared `INSERT`. Returns how many old rows the transform dropped.
    private mutating func transformRowByRow(table: SchemaTable, source: String, with transform: RecordTransform, moved: Moved? = nil) throws
        -> Int
    {
        let aside = try moved == nil ? setAside(for: source) : SetAsideObjects()
        let temporary = moved?.destination ?? "lucid_rebuild_\(table.name)"
        if moved == nil { try execute(table.createTableStatement(named: temporary)) }
        let condition = moved?.filter.map { " WHERE \($0)" } ?? ""
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(source)) AS src\(condition)") ?? 0
        let context = TransformContext(
            sourceTable: source, sourceColumns: transform.sourceColumns, targetTable: table.name, targetColumns: transform.targetColumns,
            makeDecoder: transform.makeDecoder, makeEncoder: transform.makeEncoder)
        let targets = transform.targetColumns
        // Generated columns: the record encodes them, SQLite computes them.
        let generated = Set(table.columns.filter(\.isGenerated).map { sqlNameKey($0.name) })
        let written = targets.indices.filter { !generated.contains(sqlNameKey(targets[$0])) }
        let insert = try RowInserter(
            db,
            sql:
                "INSERT INTO \(quoteIdentifier(temporary)) (rowid, \(written.map { quoteIdentifier(targets[$0]) }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: written.count + 1).joined(separator: ", ")))"
        )
        let label = "transform table \(table.name)"
        report(label, 0, total)
        let columns = transform.sourceColumns
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT src.rowid, \(columns.map { "src.\(quoteIdentifier($0))" }.joined(separator: ", ")) FROM \(quoteIdentifier(source)) AS src\(condition) ORDER BY src.rowid"
        )
        var values = [DatabaseValue](repeating: .null, count: columns.count)
        var encoded = EncodedRows(capacity: targets.count)
        var done = 0
        var dropped = 0
        while let row = try rows.next() {
            done += 1
            context.state.pointee.rowid = row[0]
            for index in values.indices { values[index] = row[index + 1] }
            var output = MigrationValues(context: context)
            let keep = try values.withUnsafeBufferPointer { buffer in
                try transform.convert(MigrationRow(databaseValues: buffer.baseAddress!, context: context), &output)
            }
            if keep {
                encoded.removeAll()
                encoded.append(row[0] as DatabaseValue)
                for index in targets.indices {
                    if !generated.contains(sqlNameKey(targets[index])) { encoded.append(context.slots[index].databaseValue) }
                    context.slots[index] = .null
                }
                try insert.insert(encoded)
            } else {
                dropped += 1
            }
            if done % StepExecutor.chunkSize == 0 { report(label, done, total) }
        }
        report(label, done, total)
        if moved == nil { try replace(source, with: temporary, as: table, aside: aside) }
        return dropped
    }

    /// A rebuild whose rows come from Swift on the rows-and-dictionaries path: old rows are read through
    /// a cursor (never the whole table), converted by the app's transform, and inserted with one prepared
    /// statement per row. Returns how many old rows the transform dropped.
    private mutating func transform(table: SchemaTable, source: String, with transform: RowTransform, moved: Moved? = nil) throws -> Int {
        let aside = try moved == nil ? setAside(for: source) : SetAsideObjects()
        let temporary = moved?.destination ?? "lucid_rebuild_\(table.name)"
        if moved == nil { try execute(table.createTableStatement(named: temporary)) }
        let condition = moved?.filter.map { " WHERE \($0)" } ?? ""
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(source)) AS src\(condition)") ?? 0
        let columns = table.columns.filter { !$0.isGenerated }.map(\.name)
        let insert = try RowInserter(
            db,
            sql:
                "INSERT INTO \(quoteIdentifier(temporary)) (rowid, \(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))"
        )
        let label = "transform table \(table.name)"
        report(label, 0, total)
        var done = 0
        var dropped = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT src.* FROM \(quoteIdentifier(source)) AS src\(condition) ORDER BY src.rowid")
        // The same rows' rowids, in step with `rows` (the app's transform sees the rows as they are).
        let rowids = try Int64.fetchCursor(
            db, sql: "SELECT src.rowid FROM \(quoteIdentifier(source)) AS src\(condition) ORDER BY src.rowid")
        // Batches of copied rows: the app's code converts one batch on another thread while this one
        // inserts the previous batch's new rows and reads the next batch.
        var converting: RowTransformBatch?
        defer { _ = try? converting?.wait() }
        while true {
            var batch: [Row] = []
            var batchRowids: [Int64] = []
            batch.reserveCapacity(Self.transformBatchSize)
            batchRowids.reserveCapacity(Self.transformBatchSize)
            while batch.count < Self.transformBatchSize, let row = try rows.next(), let rowid = try rowids.next() {
                batch.append(row.copy())
                batchRowids.append(rowid)
            }
            // The rows are done: step the rowids to their end too (an unfinished statement would keep the
            // table locked against its DROP).
            if batch.count < Self.transformBatchSize { _ = try rowids.next() }
            let converted = try converting?.wait()
            let last = batch.isEmpty
            // Consumed: the worker holds the only reference, so the copied rows are freed there.
            converting = last ? nil : RowTransformBatch(consume batch, rowids: batchRowids, columns: columns, transform.transform)
            if let converted {
                try insert.insert(converted)
                let before = done
                done += converted.kinds.count / (columns.count + 1) + converted.dropped
                dropped += converted.dropped
                if done / StepExecutor.chunkSize > before / StepExecutor.chunkSize { report(label, done, total) }
            }
            if last { break }
        }
        report(label, done, total)
        if moved == nil { try replace(source, with: temporary, as: table, aside: aside) }
        return dropped
    }

    /// Rows a transform dropped are deleted rows: the rows that referenced them get their foreign key's
    /// `ON DELETE` action (CASCADE deletes them, SET NULL clears the reference), as a `DELETE` would have
    /// done with enforcement on (SET DEFAULT writes the column's default), and so on down the chain. NO ACTION
    /// and RESTRICT leave them for the foreign key check, which then rolls the step back.
    private mutating func applyDeleteActions(afterDroppingRowsOf table: String) throws {
        var pending = [table]
        var visited: Set<String> = []
        while let parent = pending.popLast() {
            guard visited.insert(sqlNameKey(parent)).inserted, let parentTable = target.table(named: parent) else { continue }
            for child in target.tables {
                for key in child.foreignKeys where sqlNameKey(key.table) == sqlNameKey(parent) && key.onDelete != .noAction {
                    let columns = key.columns.map(quoteIdentifier)
                    let parentColumns = (key.tableColumns.isEmpty ? parentTable.primaryKey : key.tableColumns).map(quoteIdentifier)
                    let orphan =
                        "(\(columns.joined(separator: ", "))) NOT IN (SELECT \(parentColumns.joined(separator: ", ")) FROM \(quoteIdentifier(parent)))"
                        + columns.map { " AND \($0) IS NOT NULL" }.joined()
                    switch key.onDelete {
                    case .cascade:
                        try execute("DELETE FROM \(quoteIdentifier(child.name)) WHERE \(orphan)")
                        if db.changesCount > 0 { pending.append(child.name) }
                    case .setNull:
                        try execute(
                            "UPDATE \(quoteIdentifier(child.name)) SET \(columns.map { "\($0) = NULL" }.joined(separator: ", ")) WHERE \(orphan)"
                        )
                    case .setDefault:
                        let assignments = key.columns.map { "\(quoteIdentifier($0)) = \(child.column(named: $0)?.defaultSQL ?? "NULL")" }
                        try execute("UPDATE \(quoteIdentifier(child.name)) SET \(assignments.joined(separator: ", ")) WHERE \(orphan)")
                    case .noAction, .restrict:
                        // As SQLite would refuse the delete: the foreign key check rolls the step back, naming the rows.
                        break
                    }
                    touchedTables.insert(child.name)
                    foreignKeyCheckTables.insert(child.name)
                }
            }
        }
    }

    private func execute(_ sql: String) throws {
        logger.trace("SQL: \(sql)")
        try db.execute(sql: sql)
    }

    /// The touched tables and the tables whose foreign keys reference them (renaming a table rewrites
    /// those references): what the foreign key check and the schema validation look at.
    var affectedTables: Set<String> {
        var tables = touchedTables
        for table in target.tables
        where table.foreignKeys.contains(where: { key in touchedTables.contains { sqlNameKey($0) == sqlNameKey(key.table) } }) {
            tables.insert(table.name)
        }
        return tables
    }

    /// `PRAGMA foreign_key_check` on the tables whose rows could break a foreign key, and on the tables
    /// referencing a rebuilt one (a rebuild could, in principle, lose a referenced key).
    func checkForeignKeys(stepLabel: String) throws {
        var tables = foreignKeyCheckTables
        for table in target.tables
        where table.foreignKeys.contains(where: { key in foreignKeyCheckTables.contains { sqlNameKey($0) == sqlNameKey(key.table) } }) {
            tables.insert(table.name)
        }
        for table in tables.sorted() where try db.tableExists(table) {
            let violations = try DanglingReference.find(db, table: table)
            if !violations.isEmpty {
                throw StoreError.foreignKeyViolation(step: stepLabel, violations: violations)
            }
        }
    }
}

extension MigrationOperation {
    /// Every table name the operation reads or writes (before and after renames).
    var tableNames: [String] {
        switch self {
        case .renameTable(let from, let to): [from, to]
        case .createTable(let table): [table.name]
        case .fillJoinTable(let join, let owner, _, _): [join, owner]
        case .renameColumn(let table, _, _), .addColumn(let table, _), .dropColumn(let table, _, _), .createIndex(let table, _, _): [table]
        case .rebuildTable(let rebuild): [rebuild.table.name, rebuild.sourceTable] + rebuild.collapsedJoinTables
        case .dropTable(let table, _): [table]
        case .dropIndex: []
        case .transformTable(let table, let source): [table.name, source]
        case .dropSearch(let table): [table]
        case .createSearch(let table): [table.name]
        case .rewriteKinds(let rewrite): [rewrite.table]
        case .moveRows(let move): [move.table, move.source]
        }
    }
}

extension MigrationOperation {
    /// The table the operation inserts rows into (a rebuild's copy, a transform, a join table's links), at the
    /// target version: SQLite needs the functions its defaults call (``SchemaColumn/appFunctions``).
    fileprivate var filledTable: String? {
        switch self {
        case .rebuildTable(let rebuild): rebuild.table.name
        case .transformTable(let table, _): table.name
        case .fillJoinTable(let join, _, _, _): join
        default: nil
        }
    }
}
