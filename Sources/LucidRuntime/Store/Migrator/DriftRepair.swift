import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// A lucidgen store whose tables contradict its record, brought back to the recorded version when every
// difference is inferable (StoreOptions.acceptsInferableDrift).
extension StoreMigrator {
    /// What bringing a drifted store to `schema` takes, read without changing it: each repair (its words,
    /// its statement) and the differences that no repair removes (empty when every one is inferable).
    /// The version's columns the store lacks (nullable or with a constant default, no key) are added, columns
    /// it does not have that hold no value (no key) dropped, its missing indexes created (a unique one only
    /// when the rows hold no duplicate); what is left is the tables' differences once those are made.
    struct DriftRepairPlan {
        var repairs: [(words: String, sql: String)] = []
        var left: [String] = []
    }

    func driftRepairPlan(_ db: Database, to schema: Schema) throws -> DriftRepairPlan {
        let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
        let owned = OwnedNames([schema], pendingCleanup: pending)
        var actual = try StoreSchemaReader.tables(db, owned: owned)
        var plan = DriftRepairPlan()
        var refused: [String] = []
        for table in schema.tables {
            guard var found = actual[sqlNameKey(table.name)] else { continue }
            let keyed = Set((table.primaryKey + table.foreignKeys.flatMap(\.columns)).map(sqlNameKey))
            for column in table.columns where found.column(named: column.name) == nil && !keyed.contains(sqlNameKey(column.name)) {
                guard !column.notNull || column.defaultSQL.map(SchemaColumn.isConstantDefault) == true else { continue }
                plan.repairs.append(
                    (
                        "added column \(table.name).\(column.name) (\(column.defaultSQL.map { "its default \($0)" } ?? "NULL"))",
                        "ALTER TABLE \(quoteIdentifier(table.name)) ADD COLUMN \(quoteIdentifier(column.name)) \(column.constraintsSQL())"
                    ))
                found.columns.append(column)
            }
            let foundKeyed = Set(
                (found.primaryKey + found.foreignKeys.flatMap(\.columns) + found.indexes.flatMap(\.columns)).map(sqlNameKey))
            for column in found.columns where table.column(named: column.name) == nil && !foundKeyed.contains(sqlNameKey(column.name)) {
                let held =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column.name)) IS NOT NULL"
                    ) ?? 0
                guard held == 0 else {
                    refused.append(
                        "column \(table.name).\(column.name) holds \(held) value\(held == 1 ? "" : "s"), which \(schema.version) has no column for"
                    )
                    continue
                }
                plan.repairs.append(
                    (
                        "dropped column \(table.name).\(column.name), which \(schema.version) does not have (it held no value)",
                        "ALTER TABLE \(quoteIdentifier(table.name)) DROP COLUMN \(quoteIdentifier(column.name))"
                    ))
                found.columns.removeAll { sqlNameKey($0.name) == sqlNameKey(column.name) }
            }
            actual[sqlNameKey(table.name)] = found
        }
        // The version's indexes the store lacks (those it has stay).
        let before = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'").map(sqlNameKey))
        for table in schema.tables {
            guard var found = actual[sqlNameKey(table.name)] else { continue }
            // A unique index the table's UNIQUE constraint on its columns already is (its index has SQLite's
            // name): the version has it, under the name a rebuild would give it.
            let constraints = found.indexes.filter(StoreSchemaReader.isConstraintIndex).map { $0.columns.map(sqlNameKey) }
            for (index, statement) in zip(table.indexes, table.createIndexStatements)
            where !before.contains(sqlNameKey(index.name)) && !(index.unique && constraints.contains(index.columns.map(sqlNameKey))) {
                if index.unique, try Self.holdsDuplicates(db, table: table.name, columns: index.columns) {
                    refused.append("index \(index.name) cannot be created (its columns hold duplicate values): not inferable")
                    continue
                }
                plan.repairs.append(("created index \(index.name) on \(table.name) (\(index.columns.joined(separator: ", ")))", statement))
                found.indexes.append(index)
            }
            actual[sqlNameKey(table.name)] = found
        }
        plan.left =
            refused
            + StoreSchemaReader.differences(
                expected: schema, actual: actual, search: try StoreSchemaReader.searchObjects(db, owned: owned),
                tolerated: PendingCleanup.tolerance(of: pending))
        return plan
    }

    /// Whether two rows hold the same values in `columns`, none of them NULL (what a unique index refuses).
    static func holdsDuplicates(_ db: Database, table: String, columns: [String]) throws -> Bool {
        let list = columns.map(quoteIdentifier).joined(separator: ", ")
        let present = columns.map { "\(quoteIdentifier($0)) IS NOT NULL" }.joined(separator: " AND ")
        return try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM \(quoteIdentifier(table)) WHERE \(present) GROUP BY \(list) HAVING count(*) > 1)") ?? false
    }

    /// Brings a drifted store to `schema` as ``driftRepairPlan(_:to:)`` says, in one transaction; then the
    /// tables must be the version's exactly, or the transaction rolls back and the store is refused with what
    /// is left. Returns each repair.
    /// `recorded`: the store records `schema`'s version (its tables contradict the record); false for a
    /// store without a record whose tables are nearest that version's (adopted once repaired).
    func repairDrift(_ db: Database, to schema: Schema, differences: [String], tablesMatch: SchemaVersion?, recorded: Bool = true) throws
        -> [String]
    {
        let refuse = { (left: [String]) in
            Refusal(
                error: recorded
                    ? .recordContradictsTables(path: path, version: schema.version, differences: left, tablesMatch: tablesMatch)
                    : .unrecognizedSchema(path: path, differences: left),
                policy: options.unknownStorePolicy)
        }
        var repairs: [String] = []
        var refusedLeft: [String]?
        try stepTransaction(db) {
            let plan = try driftRepairPlan(db, to: schema)
            guard plan.left.isEmpty, !plan.repairs.isEmpty else {
                refusedLeft =
                    differences
                    + (plan.left.isEmpty
                        ? [] : ["not inferable (StoreOptions.acceptsInferableDrift): " + plan.left.joined(separator: "; ")])
                return .rollback
            }
            for repair in plan.repairs {
                do {
                    try db.execute(sql: repair.sql)
                } catch let error as DatabaseError {
                    refusedLeft = differences + ["\(repair.words): failed (\(error.message ?? "\(error)")): not inferable"]
                    return .rollback
                }
                repairs.append(repair.words)
            }
            let left = try recordedTablesDifferences(schema, db)
            guard left.isEmpty else {
                refusedLeft = differences + ["not inferable (StoreOptions.acceptsInferableDrift): " + left.joined(separator: "; ")]
                return .rollback
            }
            return .commit
        }
        if let refusedLeft { throw refuse(refusedLeft) }
        logger.notice(
            "\(path): \(recorded ? "its tables contradicted its record of \(schema.version)" : "its tables (no lucidgen record) were nearest \(schema.version)'s"); brought to \(schema.version) (acceptsInferableDrift): \(repairs.joined(separator: "; "))"
        )
        return repairs
    }
}
