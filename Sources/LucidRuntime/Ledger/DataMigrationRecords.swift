import GRDB
@_spi(Generated) import LucidSchema

/// The store's record of its data migrations (``LedgerTables/DataMigrations``): one row per
/// ``DataMigration`` that ran, or was not needed, written in the transaction that ran it.
package enum DataMigrationRecords {
    typealias T = LedgerTables.DataMigrations

    /// Whether `migration` is recorded (creating the table when missing, in the caller's transaction).
    static func isRecorded(_ migration: DataMigration, _ db: Database) throws -> Bool {
        try db.execute(sql: LedgerTables.createDataMigrations)
        return try Bool.fetchOne(
            db, sql: "SELECT count(*) > 0 FROM \(T.name) WHERE \(T.version) = ? AND \(T.label) = ?",
            arguments: [migration.version.string, migration.label]) ?? false
    }

    /// Records `migration` with `outcome` (`applied`, or why it was not needed).
    static func record(_ migration: DataMigration, outcome: String, _ db: Database) throws {
        try db.execute(sql: LedgerTables.createDataMigrations)
        try db.execute(
            sql: "INSERT INTO \(T.name) (\(T.version), \(T.label), \(T.outcome), \(T.appliedAt)) VALUES (?, ?, ?, ?)",
            arguments: [migration.version.string, migration.label, outcome, Bookkeeping.now()])
    }

    /// Whether every one of `migrations` is recorded; reads only (a store without the table records none).
    static func allRecorded(_ migrations: [DataMigration], _ db: Database) throws -> Bool {
        guard try db.tableExists(T.name) else { return false }
        let recorded = Set(
            try Row.fetchAll(db, sql: "SELECT \(T.version), \(T.label) FROM \(T.name)").map {
                "\($0[T.version] as String) \($0[T.label] as String)"
            })
        return migrations.allSatisfy { recorded.contains("\($0.version.string) \($0.label)") }
    }

    /// Every recorded data migration by version and label (a row whose version does not parse is left
    /// out); none when the store has no such table. Reads only.
    package static func recorded(_ db: Database) throws -> [(version: SchemaVersion, label: String)] {
        guard try db.tableExists(T.name) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT \(T.version), \(T.label) FROM \(T.name)").compactMap { row in
            (try? SchemaVersion(parsing: row[T.version] as String)).map { ($0, row[T.label]) }
        }
    }
}
