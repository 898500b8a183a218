/// One operation of an inferred migration step, in the order a step runs them.
///
/// Operations are plain values so that the CLI can print a plan and tests can compare plans; the runtime
/// turns each into SQL (`LucidRuntime.StepExecutor`).
package enum MigrationOperation: Sendable, Hashable, CustomStringConvertible {
    /// `ALTER TABLE from RENAME TO to`.
    case renameTable(from: String, to: String)
    /// `CREATE TABLE` (and its indexes) for a table that is new at the target version.
    case createTable(SchemaTable)
    /// Fills a new join table from the to-one column it replaces (to-one → to-many keeps every link).
    case fillJoinTable(join: String, ownerTable: String, ownerKey: String, fromColumn: String)
    /// `ALTER TABLE table RENAME COLUMN from TO to`.
    case renameColumn(table: String, from: String, to: String)
    /// `ALTER TABLE table ADD COLUMN …` (constant default, no constraint SQLite refuses on ADD COLUMN).
    case addColumn(table: String, column: SchemaColumn)
    /// `ALTER TABLE table DROP COLUMN column` (or, deferred, a pending cleanup).
    case dropColumn(table: String, column: String, deferrable: Bool)
    /// SQLite's 12-step rebuild of one table into its new shape, copying rows through `TableRebuild/sources`.
    case rebuildTable(TableRebuild)
    /// `DROP TABLE` (or, deferred, a pending cleanup).
    case dropTable(String, deferrable: Bool)
    /// `DROP INDEX`.
    case dropIndex(String)
    /// A rebuild whose rows come from the app's per-row transform (a custom stage), not from SQL.
    case transformTable(table: SchemaTable, sourceTable: String)
    /// `CREATE INDEX` (or, deferred, a pending cleanup: the table works without it meanwhile).
    case createIndex(table: String, index: SchemaIndex, deferrable: Bool)
    /// Drops the table's declared search (its FTS5 index and the triggers that keep it in step), first in a
    /// step whose searched columns, tokenizer or table name change, or whose table goes.
    case dropSearch(table: String)
    /// Creates the table's declared search and fills it from every row (FTS5's `'rebuild'`), last in the step.
    case createSearch(SchemaTable)
    /// Entity inheritance: in a table holding an entity hierarchy, deletes the rows of removed entities
    /// (rows referencing them get their foreign keys' ON DELETE actions) and rewrites the kind of renamed
    /// ones (`UPDATE … SET kind = …`), first among the table's changes.
    case rewriteKinds(KindRewrite)
    /// Copies rows of a table of the previous version into a table of this one, ids kept (an entity that
    /// gains, loses or changes its parent: its rows go to its new root's table).
    case moveRows(RowMove)

    package var description: String {
        switch self {
        case .renameTable(let from, let to): "rename table \(from) to \(to)"
        case .createTable(let table): "create table \(table.name)"
        case .fillJoinTable(let join, let owner, _, let column): "fill \(join) from \(owner).\(column) (to-one becomes to-many)"
        case .renameColumn(let table, let from, let to): "rename column \(table).\(from) to \(to)"
        case .addColumn(let table, let column): "add column \(table).\(column.name)\(column.defaultSQL.map { " default \($0)" } ?? "")"
        case .dropColumn(let table, let column, _): "drop column \(table).\(column)"
        case .rebuildTable(let rebuild): "rebuild table \(rebuild.table.name) (\(rebuild.reasons.joined(separator: "; ")))"
        case .dropTable(let table, _): "drop table \(table)"
        case .dropIndex(let index): "drop index \(index)"
        case .transformTable(let table, let source): "rebuild table \(table.name) from \(source) through the app's row transform"
        case .createIndex(let table, let index, _): "create index \(index.name) on \(table)(\(index.columns.joined(separator: ", ")))"
        case .dropSearch(let table): "drop search index \(SchemaTable.searchTableName(of: table))"
        case .createSearch(let table):
            "create search index \(table.searchTableName) on \(table.name)(\((table.search?.columns ?? []).joined(separator: ", ")))\(table.search?.tokenizer.map { " tokenize '\($0)'" } ?? "") and fill it"
        case .rewriteKinds(let rewrite): rewrite.description
        case .moveRows(let move): move.description
        }
    }

    /// Each operation of a step as plans show it (``planText``), except that a table whose rows all moved to
    /// another table in the step (``moveRows(_:)``, an entity whose parent changed) is dropped as moved, not lost.
    package static func planTexts(of operations: [MigrationOperation]) -> [(line: String, changes: [String])] {
        var movedOut: [String: String] = [:]
        for case .moveRows(let move) in operations where move.sourceKindColumn == nil { movedOut[sqlNameKey(move.source)] = move.table }
        return operations.map { operation in
            if case .dropTable(let table, _) = operation, let target = movedOut[sqlNameKey(table)] {
                return (operation.description + " (its rows moved to \(target) above)", [])
            }
            return operation.planText
        }
    }

    /// The operation as plans show it: its description, marked when it deletes data, and for a rebuild
    /// each change it makes (``TableRebuild/changes``), indented under it by the caller.
    package var planText: (line: String, changes: [String]) {
        switch self {
        case .dropColumn: (description + " (destructive: its values are deleted)", [])
        case .dropTable: (description + " (destructive: its rows are deleted)", [])
        case .rewriteKinds(let rewrite) where !rewrite.deleted.isEmpty: (description + " (destructive: those rows are deleted)", [])
        case .rebuildTable(let rebuild): ("rebuild table \(rebuild.table.name)", rebuild.changes)
        default: (description, [])
        }
    }

    /// A rough cost, so the planner prefers paths that rewrite fewer rows: a rebuild or a dropped column
    /// rewrites every row of a table, most other operations only change the schema.
    package var cost: Int {
        switch self {
        case .renameTable, .renameColumn, .addColumn, .createTable, .dropIndex, .dropSearch: 1
        case .createSearch: 300
        case .createIndex: 200
        case .dropTable(_, let deferrable): deferrable ? 1 : 5
        case .fillJoinTable, .moveRows: 300
        case .dropColumn, .rewriteKinds: 500
        case .rebuildTable, .transformTable: 1000
        }
    }

    /// Whether the operation rewrites every row of a table.
    package var rewritesRows: Bool {
        switch self {
        case .rebuildTable, .transformTable, .dropColumn, .fillJoinTable, .moveRows: true
        default: false
        }
    }
}

/// What a step does to the rows of a table holding an entity hierarchy (its ``SchemaColumn/isKindColumn``
/// column): entities removed (their rows deleted) and renamed (their rows' kind rewritten), composed over
/// the versions of the step.
package struct KindRewrite: Sendable, Hashable, CustomStringConvertible {
    package struct Rename: Sendable, Hashable, Codable {
        package var from: String
        package var to: String

        package init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The table (named as at the step's target version).
    package var table: String
    /// The kind column.
    package var column: String
    /// Kinds renamed, applied at once (two kinds may swap names).
    package var renamed: [Rename]
    /// Kinds removed: their rows are deleted, before any rename.
    package var deleted: [String]
    /// Kinds whose rows moved to another table in this step (their entity's parent changed): deleted here
    /// too, after they were copied (``MigrationOperation/moveRows(_:)``), which destroys nothing.
    package var moved: [String] = []

    package init(table: String, column: String, renamed: [Rename], deleted: [String]) {
        self.table = table
        self.column = column
        self.renamed = renamed
        self.deleted = deleted
    }

    /// `DELETE FROM t WHERE kind IN (…)`, or nil.
    package var deleteStatement: String? {
        let kinds = deleted + moved
        guard !kinds.isEmpty else { return nil }
        return
            "DELETE FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IN (\(kinds.map(quoteLiteral).joined(separator: ", ")))"
    }

    /// `UPDATE t SET kind = CASE kind WHEN 'old' THEN 'new' … END WHERE kind IN (…)`, or nil.
    package var updateStatement: String? {
        guard !renamed.isEmpty else { return nil }
        let column = quoteIdentifier(self.column)
        let branches = renamed.map { "WHEN \(quoteLiteral($0.from)) THEN \(quoteLiteral($0.to))" }.joined(separator: " ")
        return
            "UPDATE \(quoteIdentifier(table)) SET \(column) = CASE \(column) \(branches) ELSE \(column) END WHERE \(column) IN (\(renamed.map { quoteLiteral($0.from) }.joined(separator: ", ")))"
    }

    /// `delete rows of vehicle of kind truck; rewrite kind of vehicle: automobile → car`.
    package var description: String {
        var parts: [String] = []
        if !deleted.isEmpty { parts.append("delete rows of \(table) of kind \(deleted.joined(separator: ", "))") }
        if !moved.isEmpty {
            parts.append("delete rows of \(table) of kind \(moved.joined(separator: ", ")) (moved to another table above)")
        }
        if !renamed.isEmpty { parts.append("rewrite kind of \(table): \(renamed.map { "\($0.from) → \($0.to)" }.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}

/// Rows copied from one table into another, ids kept (``MigrationOperation/moveRows(_:)``): the columns the
/// two tables share by name, and the kind column set (from the source's kinds, or one kind for every row).
package struct RowMove: Sendable, Hashable, CustomStringConvertible {
    /// The table the rows go to (named as at the step's target version).
    package var table: String
    /// The table they come from (its name during the step: after renames, before it is dropped).
    package var source: String
    /// Columns copied, each of the same name in both tables.
    package var columns: [String]
    /// The target's kind column, if any, and what it takes: the source's kinds renamed, or one kind.
    package var kindColumn: String?
    /// The source's kind column (nil: the source has none, and every row moves).
    package var sourceKindColumn: String?
    /// The kinds of the source rows that move, each with its kind in the target.
    package var kinds: [KindRewrite.Rename]
    /// The kind every row takes when the source has no kind column.
    package var kind: String?
    /// True when the app's row transform for ``table`` makes each moved row (a stage's `transforms`, e.g. a
    /// moved column whose type changes): it reads the rows of ``source`` of ``kinds`` as the old record
    /// does and writes what it returns into ``table``, ids kept; ``columns`` are not copied.
    package var transformed: Bool = false

    package init(
        table: String, source: String, columns: [String], kindColumn: String?, sourceKindColumn: String?, kinds: [KindRewrite.Rename],
        kind: String?,
        transformed: Bool = false
    ) {
        self.transformed = transformed
        self.table = table
        self.source = source
        self.columns = columns
        self.kindColumn = kindColumn
        self.sourceKindColumn = sourceKindColumn
        self.kinds = kinds
        self.kind = kind
    }

    /// `INSERT INTO t (id, a, kind) SELECT src.id, src.a, 'gear' FROM s AS src [WHERE src.kind IN (…)]`.
    package var insertStatement: String {
        var targets = columns.map(quoteIdentifier)
        var values = columns.map { "src.\(quoteIdentifier($0))" }
        if let kindColumn {
            targets.append(quoteIdentifier(kindColumn))
            if let sourceKindColumn {
                let source = "src.\(quoteIdentifier(sourceKindColumn))"
                let branches = kinds.map { "WHEN \(quoteLiteral($0.from)) THEN \(quoteLiteral($0.to))" }.joined(separator: " ")
                values.append(kinds.allSatisfy { $0.from == $0.to } ? source : "CASE \(source) \(branches) ELSE \(source) END")
            } else {
                values.append(kind.map(quoteLiteral) ?? "NULL")
            }
        }
        var sql =
            "INSERT INTO \(quoteIdentifier(table)) (\(targets.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(source)) AS src"
        if let sourceKindColumn {
            sql += " WHERE src.\(quoteIdentifier(sourceKindColumn)) IN (\(kinds.map { quoteLiteral($0.from) }.joined(separator: ", ")))"
        }
        sql += " ORDER BY src.rowid"
        return sql
    }

    /// The condition on the source's rows (aliased `src`) that move: nil when every row does.
    package var sourceFilter: String? {
        sourceKindColumn.map { "src.\(quoteIdentifier($0)) IN (\(kinds.map { quoteLiteral($0.from) }.joined(separator: ", ")))" }
    }

    /// `move rows of gear into meta_reward (kind gear)`.
    package var description: String {
        let which = sourceKindColumn == nil ? "rows of \(source)" : "rows of \(source) of kind \(kinds.map(\.from).joined(separator: ", "))"
        let kindText =
            kindColumn == nil
            ? ""
            : sourceKindColumn == nil
                ? " (kind \(kind ?? "NULL"))"
                : kinds.contains { $0.from != $0.to } ? " (kind \(kinds.map { "\($0.from) → \($0.to)" }.joined(separator: ", ")))" : ""
        if transformed { return "move \(which) into \(table) through the app's row transform, ids kept" }
        return "move \(which) into \(table)\(kindText), ids kept"
    }
}

/// How one table is rebuilt: the new shape, the table rows are copied from, and an SQL expression per
/// new column over the old row.
package struct TableRebuild: Sendable, Hashable {
    /// The table in its new shape (named as at the target version).
    package var table: SchemaTable
    /// The table the rows come from (its name just before the rebuild, after any rename).
    package var sourceTable: String
    /// For each column of `table`, in order: an SQL expression over the source row.
    package var sources: [String]
    /// Why the table is rebuilt rather than altered, for plans and logs.
    package var reasons: [String]
    /// Join tables whose links become to-one values: each must hold at most one link per row.
    package var collapsedJoinTables: [String]
    /// Columns of the source table that the new table keeps under another name (old name → new name):
    /// the app's views, triggers and indexes that name them follow, as SQLite's `RENAME COLUMN` does.
    package var renamedColumns: [String: String]
    /// Columns of the source table the new table does not keep: their values are lost.
    package var droppedColumns: [String]
    /// Columns of the new table that no source column fills (their default, or NULL, for every row).
    package var addedColumns: [String]

    package init(
        table: SchemaTable, sourceTable: String, sources: [String], reasons: [String], collapsedJoinTables: [String] = [],
        renamedColumns: [String: String] = [:], droppedColumns: [String] = [], addedColumns: [String] = []
    ) {
        self.table = table
        self.sourceTable = sourceTable
        self.sources = sources
        self.reasons = reasons
        self.collapsedJoinTables = collapsedJoinTables
        self.renamedColumns = renamedColumns
        self.droppedColumns = droppedColumns
        self.addedColumns = addedColumns
    }

    /// Everything the rebuild does, one line each, in the words of the other operations: the columns
    /// dropped (marked destructive), renamed and added, then each change that needs the rebuild
    /// (conversions, enum values rewritten, …; one rewriting enum values to NULL is marked destructive).
    ///
    /// ```
    /// drop column plane.legacy (destructive: its values are deleted)
    /// rename column plane.tail to tail_number
    /// add column plane.note
    /// plane.seats converts text to integer (CAST)
    /// ```
    package var changes: [String] {
        var lines = droppedColumns.map { "drop column \(sourceTable).\($0) (destructive: its values are deleted)" }
        lines += renamedColumns.sorted { $0.key < $1.key }.map { "rename column \(sourceTable).\($0.key) to \($0.value)" }
        lines += addedColumns.map { name in
            "add column \(table.name).\(name)" + (table.column(named: name)?.defaultSQL.map { " default \($0)" } ?? "")
        }
        lines += reasons.map { reason in
            reason.contains(" rewrites enum values (") && reason.contains("→ NULL")
                ? reason + " (destructive: values of removed cases become NULL)" : reason
        }
        return lines
    }
}

/// Why the change between two versions cannot be run as SQL alone and needs the app's code.
public struct NotInferable: Error, Sendable, Hashable, CustomStringConvertible {
    public var from: SchemaVersion
    public var to: SchemaVersion
    /// One reason per change that needs code, e.g. "log_entry.duration: int → double cannot convert every value exactly (…)".
    public var reasons: [String]
    /// The tables (named as at `to`) whose changes need code.
    public var tables: [String]

    package init(from: SchemaVersion, to: SchemaVersion, reasons: [String], tables: [String] = []) {
        self.from = from
        self.to = to
        self.reasons = reasons
        self.tables = tables
    }

    public var description: String {
        "\(from) → \(to) is not inferable: \(reasons.joined(separator: "; "))"
    }
}
