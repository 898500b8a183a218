import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// A lucidgen store whose tables contradict its record, brought back to the recorded version when every
// difference is inferable (StoreOptions.acceptsInferableDrift).
extension StoreMigrator {
    /// Adds the recorded version's columns the store lacks (nullable or with a constant default, no key),
    /// drops columns it does not have that hold no value (no key), and creates its missing indexes, in one
    /// transaction; then the tables must be the version's exactly, or the transaction rolls back and the
    /// store is refused with what is left. Returns each repair.
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
            let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
            let actual = try StoreSchemaReader.tables(db, owned: OwnedNames([schema], pendingCleanup: pending))
            for table in schema.tables {
                guard let found = actual[sqlNameKey(table.name)] else { continue }
                let keyed = Set((table.primaryKey + table.foreignKeys.flatMap(\.columns)).map(sqlNameKey))
                for column in table.columns where found.column(named: column.name) == nil && !keyed.contains(sqlNameKey(column.name)) {
                    guard !column.notNull || column.defaultSQL.map(SchemaColumn.isConstantDefault) == true else { continue }
                    try db.execute(
                        sql:
                            "ALTER TABLE \(quoteIdentifier(table.name)) ADD COLUMN \(quoteIdentifier(column.name)) \(column.constraintsSQL())"
                    )
                    repairs.append("added column \(table.name).\(column.name) (\(column.defaultSQL.map { "its default \($0)" } ?? "NULL"))")
                }
                let foundKeyed = Set(
                    (found.primaryKey + found.foreignKeys.flatMap(\.columns) + found.indexes.flatMap(\.columns)).map(sqlNameKey))
                for column in found.columns where table.column(named: column.name) == nil && !foundKeyed.contains(sqlNameKey(column.name)) {
                    let held =
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column.name)) IS NOT NULL"
                        ) ?? 0
                    guard held == 0 else { continue }
                    try db.execute(sql: "ALTER TABLE \(quoteIdentifier(table.name)) DROP COLUMN \(quoteIdentifier(column.name))")
                    repairs.append("dropped column \(table.name).\(column.name), which \(schema.version) does not have (it held no value)")
                }
            }
            // The version's indexes the store lacks (CREATE INDEX IF NOT EXISTS: those it has stay).
            let before = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'").map(sqlNameKey))
            for table in schema.tables {
                guard let found = actual[sqlNameKey(table.name)] else { continue }
                // A unique index the table's UNIQUE constraint on its columns already is (its index has
                // SQLite's name): the version has it, under the name a rebuild would give it.
                let constraints = found.indexes.filter(StoreSchemaReader.isConstraintIndex).map { $0.columns.map(sqlNameKey) }
                for (index, statement) in zip(table.indexes, table.createIndexStatements)
                where !before.contains(sqlNameKey(index.name)) && !(index.unique && constraints.contains(index.columns.map(sqlNameKey))) {
                    do {
                        try db.execute(sql: statement)
                    } catch let error as DatabaseError {
                        refusedLeft =
                            differences + ["index \(index.name) cannot be created (\(error.message ?? "\(error)")): not inferable"]
                        return .rollback
                    }
                    repairs.append("created index \(index.name) on \(table.name) (\(index.columns.joined(separator: ", ")))")
                }
            }
            let left = try recordedTablesDifferences(schema, db)
            guard left.isEmpty, !repairs.isEmpty else {
                refusedLeft =
                    differences
                    + (left.isEmpty ? [] : ["not inferable (StoreOptions.acceptsInferableDrift): " + left.joined(separator: "; ")])
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
