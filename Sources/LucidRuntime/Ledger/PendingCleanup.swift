import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// Expensive cleanup recorded in the store to run later (WWDC23's deferred migration): dropping
/// columns and tables, creating indexes. The store is fully usable meanwhile: dropped columns are
/// nullable or have defaults, dropped tables are no longer used, and a missing index only costs speed.
///
/// The store is untrusted input, so its `sql` column is never run (it is still written, for older
/// runtimes, which run it). Each item is rebuilt from the registry instead (``CleanupAccounting``): it
/// runs only when the registry's step into its `recorded_at_version` defers exactly that drop or index,
/// as one statement lucidgen writes. A row the registry cannot account for stays pending, neither run
/// nor deleted, and the ledger lists it with why (``StoreLedger/PendingCleanupItem/verdict``).
package enum PendingCleanup {
    /// What validation accepts while cleanup is pending.
    struct Tolerance {
        var tables: Set<String> = []
        /// `table.column`, lower-cased.
        var columns: Set<String> = []
        var indexes: Set<String> = []
    }

    /// An item lucidgen runs: `sql` is the statement rebuilt from the registry (or, when recording,
    /// the one written into the store for older runtimes).
    struct Item {
        var kind: String
        var table: String
        var object: String
        var sql: String
    }

    /// A row of the table as the store holds it (its `sql` is not read).
    struct Row {
        var id: Int64
        var kind: String
        var table: String
        var object: String
        var recordedAt: String
    }

    typealias T = LedgerTables.PendingCleanup

    static func record(_ item: Item, version: SchemaVersion, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(T.name) (\(T.kind), \(T.table), \(T.object), \(T.sql), \(T.recordedAtVersion)) VALUES (?, ?, ?, ?, ?)",
            arguments: [item.kind, item.table, item.object, item.sql, version.string])
    }

    /// Every row, in the order recorded.
    static func rows(_ db: Database) throws -> [Row] {
        guard try Bookkeeping.tableExists(T.name, db) else { return [] }
        return try GRDB.Row.fetchAll(
            db, sql: "SELECT id, \(T.kind), \(T.table), \(T.object), \(T.recordedAtVersion) FROM \(T.name) ORDER BY id"
        ).map {
            Row(id: $0["id"], kind: $0[T.kind], table: $0[T.table], object: $0[T.object], recordedAt: $0[T.recordedAtVersion])
        }
    }

    /// The items the registry accounts for, in the order recorded, each with its rebuilt statement.
    static func items(_ db: Database, accounting: CleanupAccounting) throws -> [Item] {
        try accounting.verdicts(try rows(db), db).compactMap { $0.item }
    }

    /// What validation tolerates: only what the registry accounts for (a row it cannot account for must
    /// not make a wrong schema pass). Columns and indexes only of the tables `only` (all when nil) whose
    /// shape validation reads; dropped tables of any (validation checks every table's name).
    static func tolerance(_ db: Database, accounting: CleanupAccounting, only tables: Set<String>? = nil) throws -> Tolerance {
        let scope = tables.map { Set($0.map { sqlNameKey($0) }) }
        let rows = try rows(db).filter { row in row.kind == "drop_table" || (scope.map { $0.contains(sqlNameKey(row.table)) } ?? true) }
        return tolerance(of: try accounting.verdicts(rows, db).compactMap(\.item))
    }

    static func tolerance(of items: [Item]) -> Tolerance {
        var tolerance = Tolerance()
        for item in items {
            switch item.kind {
            case "drop_table": tolerance.tables.insert(sqlNameKey(item.table))
            case "drop_column": tolerance.columns.insert("\(sqlNameKey(item.table)).\(sqlNameKey(item.object))")
            default: tolerance.indexes.insert(sqlNameKey(item.object))
            }
        }
        return tolerance
    }

    /// Runs the pending items the registry accounts for (all, or those of the given tables), in the
    /// order recorded, and forgets them; the others stay. Returns how many ran.
    @discardableResult
    static func finish(_ db: Database, logger: Logger, tables: Set<String>? = nil, accounting: CleanupAccounting) throws -> Int {
        try finishCounting(db, logger: logger, tables: tables, accounting: accounting).ran
    }

    /// ``finish(_:logger:tables:accounting:)``, also saying how many rows stay pending (of other tables,
    /// or not accounted for). `pending`: how many rows the caller knows are pending (0 runs no query).
    static func finishCounting(_ db: Database, logger: Logger, tables: Set<String>?, pending: Int? = nil, accounting: CleanupAccounting)
        throws -> (ran: Int, left: Int)
    {
        if pending == 0 { return (0, 0) }
        let rows = try rows(db)
        guard !rows.isEmpty else { return (0, 0) }
        let scope = tables.map { Set($0.map { sqlNameKey($0) }) }
        let verdicts = try accounting.verdicts(rows, db)
        let due = verdicts.filter { verdict in scope.map { $0.contains(sqlNameKey(verdict.row.table)) } ?? true }
        for verdict in due {
            if case .staysPending(let reason) = verdict.outcome {
                logger.warning(
                    "deferred cleanup #\(verdict.row.id) (\(verdict.row.kind) \(verdict.row.table).\(verdict.row.object)) stays pending: \(reason)"
                )
            }
        }
        let items = due.compactMap(\.item)
        // The app's objects made since the cleanup was deferred must not use what it removes: refused
        // with the same error as a step, before anything runs.
        if !items.isEmpty {
            var objects = try AppObjects.read(db, owned: OwnedNames(tables: items.map(\.table)))
            let conflicts = AppObjectConflict.find(
                in: AppObjectConflict.operations(of: items), from: Schema(version: SchemaVersion("0.0"), tables: []), objects: &objects)
            if !conflicts.isEmpty {
                let version =
                    due.first { $0.item != nil }.flatMap { try? SchemaVersion(parsing: $0.row.recordedAt) } ?? SchemaVersion("0.0")
                throw StoreError.appObjectsInTheWay(step: "deferred cleanup", from: version, to: version, conflicts: conflicts)
            }
        }
        var count = 0
        for verdict in due {
            guard let item = verdict.item else { continue }
            logger.info("finishing deferred cleanup: \(item.kind) \(item.table).\(item.object)")
            // One statement, lucidgen's own: a second one would be refused here.
            try db.makeStatement(sql: item.sql).execute()
            try db.execute(sql: "DELETE FROM \(T.name) WHERE id = ?", arguments: [verdict.row.id])
            count += 1
        }
        return (count, rows.count - count)
    }
}

/// Decides, for each row of `lucid_pending_cleanup`, whether the registry deferred it, and rebuilds the
/// statement from the registry when it did.
///
/// A row recorded at version R runs only when the registry's step into R (from the version before it
/// on the path the store took, as its migration log says, or else from R's predecessor in the history),
/// inferred exactly as a migration infers it, defers that drop or index; the statement is written from
/// the step's operation (a created index's definition is the target schema's, never the store's). Then
/// the store must still hold what the item removes (and not yet the index it creates), and the store's
/// version `current` must not keep it. Anything else stays pending, with the reason.
struct CleanupAccounting {
    let planner: MigrationPlanner
    /// The schema of the version the store is at when the items would run (nil: the store's version is
    /// not one of the registry's, and nothing runs).
    let current: Schema?
    /// Why nothing can run, when `current` is nil.
    var unknownCurrent = ""

    enum Outcome: Equatable {
        case runs(statement: String)
        case staysPending(reason: String)
    }

    struct Verdict {
        var row: PendingCleanup.Row
        var outcome: Outcome
        var item: PendingCleanup.Item? {
            guard case .runs(let statement) = outcome else { return nil }
            return PendingCleanup.Item(kind: row.kind, table: row.table, object: row.object, sql: statement)
        }
    }

    static let kinds = ["drop_column", "drop_table", "create_index"]

    func verdicts(_ rows: [PendingCleanup.Row], _ db: Database) throws -> [Verdict] {
        var cache = Cache()
        var result: [Verdict] = []
        for row in rows {
            result.append(Verdict(row: row, outcome: try outcome(of: row, cache: &cache, db)))
        }
        return result
    }

    /// What one call works out once: each step's operations, and where the log says each version came from.
    private struct Cache {
        var operations: [String: [MigrationOperation]] = [:]
        var sources: [String: [SchemaVersion]] = [:]
    }

    private func outcome(of row: PendingCleanup.Row, cache: inout Cache, _ db: Database) throws -> Outcome {
        guard Self.kinds.contains(row.kind) else {
            return .staysPending(reason: "'\(row.kind)' is not a kind of cleanup lucidgen defers (\(Self.kinds.joined(separator: ", ")))")
        }
        let versions = planner.versions.map(\.version)
        guard let recordedAt = try? SchemaVersion(parsing: row.recordedAt), let position = versions.firstIndex(of: recordedAt) else {
            return .staysPending(reason: "'\(row.recordedAt)' is not a version of the registry")
        }
        guard let current else { return .staysPending(reason: unknownCurrent) }
        // The steps that could have recorded it: into R from where the store's log says it came, else
        // from R's predecessor.
        let sources = try cache.sources[row.recordedAt] ?? sourceVersions(into: position, db)
        cache.sources[row.recordedAt] = sources
        guard !sources.isEmpty else { return .staysPending(reason: "no step of the registry leads into \(recordedAt)") }
        var statement: (sql: String, operation: MigrationOperation)?
        for source in sources where statement == nil {
            let key = "\(source) \(recordedAt)"
            if cache.operations[key] == nil { cache.operations[key] = stepOperations(from: source, to: recordedAt) }
            statement = cache.operations[key]!.lazy.compactMap { Self.statement(for: row, $0).map { ($0, $1) } }.first
        }
        guard let (sql, operation) = statement else {
            return .staysPending(
                reason:
                    "the step \(sources.map { "\($0) → \(recordedAt)" }.joined(separator: " or ")) does not defer \(row.kind) \(row.table).\(row.object)"
            )
        }
        if let problem = try storeProblem(operation, current: current, db) { return .staysPending(reason: problem) }
        return .runs(statement: sql)
    }

    /// The versions a step into the version at `position` may have come from: those the store's
    /// migration log names (among the registry's earlier versions), then its predecessor in the history.
    private func sourceVersions(into position: Int, _ db: Database) throws -> [SchemaVersion] {
        typealias L = LedgerTables.Steps
        let versions = planner.versions.map(\.version)
        var sources: [SchemaVersion] = []
        if try Bookkeeping.tableExists(L.name, db) {
            let logged = try String.fetchAll(
                db, sql: "SELECT DISTINCT \(L.fromVersion) FROM \(L.name) WHERE \(L.toVersion) = ? AND \(L.fromVersion) IS NOT NULL",
                arguments: [versions[position].string])
            for text in logged {
                if let version = try? SchemaVersion(parsing: text), let index = versions.firstIndex(of: version), index < position,
                    !sources.contains(version)
                {
                    sources.append(version)
                }
            }
        }
        if position > 0, !sources.contains(versions[position - 1]) { sources.append(versions[position - 1]) }
        return sources
    }

    /// The operations of the step `from` → `to` as a migration infers them (around the app's stage
    /// there, if the registry has one); none when SQL cannot make the step.
    private func stepOperations(from: SchemaVersion, to: SchemaVersion) -> [MigrationOperation] {
        let transformed = planner.stages.first { $0.from == from && $0.to == to }.map { Set($0.transformedTables) } ?? []
        guard case .success(let operations)? = try? planner.inferredOperations(from: from, to: to, transformedTables: transformed) else {
            return []
        }
        return operations
    }

    /// The statement `operation` runs for `row`, when it is the deferrable operation the row names.
    private static func statement(for row: PendingCleanup.Row, _ operation: MigrationOperation) -> (String, MigrationOperation)? {
        switch (row.kind, operation) {
        case ("drop_column", .dropColumn(let table, let column, true))
        where sameSQLName(table, row.table) && sameSQLName(column, row.object):
            return ("ALTER TABLE \(quoteIdentifier(table)) DROP COLUMN \(quoteIdentifier(column))", operation)
        case ("drop_table", .dropTable(let table, true)) where sameSQLName(table, row.table) && sameSQLName(table, row.object):
            return ("DROP TABLE \(quoteIdentifier(table))", operation)
        case ("create_index", .createIndex(let table, let index, true))
        where !index.unique && sameSQLName(table, row.table) && sameSQLName(index.name, row.object):
            return (SchemaTable(name: table, columns: [], primaryKey: [], indexes: [index]).createIndexStatements[0], operation)
        default:
            return nil
        }
    }

    /// Why the store cannot take `operation` now: what it removes is missing or still wanted by the
    /// store's version, or the index it creates exists or has no columns to index.
    private func storeProblem(_ operation: MigrationOperation, current: Schema, _ db: Database) throws -> String? {
        func columns(_ table: String) throws -> [String]? {
            guard try Bookkeeping.tableExists(table, db) else { return nil }
            return try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
        }
        switch operation {
        case .dropColumn(let table, let column, _):
            guard let present = try columns(table) else { return "the store has no table \(table)" }
            guard present.contains(where: { sameSQLName($0, column) }) else { return "the store has no column \(table).\(column)" }
            if current.table(named: table)?.column(named: column) != nil { return "version \(current.version) keeps \(table).\(column)" }
        case .dropTable(let table, _):
            guard try Bookkeeping.tableExists(table, db) else { return "the store has no table \(table)" }
            if current.table(named: table) != nil { return "version \(current.version) keeps the table \(table)" }
        case .createIndex(let table, let index, _):
            guard let present = try columns(table) else { return "the store has no table \(table)" }
            if let missing = index.columns.first(where: { column in !present.contains { sameSQLName($0, column) } }) {
                return "the store has no column \(table).\(missing)"
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE lower(name) = lower(?)", arguments: [index.name]) == true {
                return "the store already has an object named \(index.name)"
            }
            if current.table(named: table)?.indexes.contains(index) != true {
                return "version \(current.version) has no such index on \(table)"
            }
        default:
            return "not a deferred cleanup"
        }
        return nil
    }
}

extension CleanupAccounting {
    /// The accounting for a store at the version its record names (nothing runs when the registry does
    /// not know that version).
    static func atRecordedVersion(planner: MigrationPlanner, _ db: Database) throws -> CleanupAccounting {
        let record = try Bookkeeping.record(db)
        let version = record.flatMap { try? SchemaVersion(parsing: $0.version) }
        let current = version.flatMap { version in planner.versions.first { $0.version == version } }
        return CleanupAccounting(
            planner: planner, current: current,
            unknownCurrent: "the store's version \(record?.version ?? "(none)") is not one of the registry's")
    }
}

extension StoreMigrator {
    /// How deferred cleanup is accounted for while the store is at `current` (the registry's steps, as
    /// this migration infers them).
    func cleanupAccounting(at current: Schema) -> CleanupAccounting {
        CleanupAccounting(planner: planner, current: current)
    }
}
