import Foundation
import GRDB
import LucidSchema
import Logging

/// lucidgen's tables inside a store: the version record, the log of applied steps, and deferred cleanup.
///
/// They live in the store itself, so a step's schema change and its version record commit in one
/// transaction: whatever instant a crash happens at, the recorded version matches the tables.
enum Bookkeeping {
    struct Record {
        var version: String
        var checksum: String
    }

    static func hasBookkeeping(_ db: Database) throws -> Bool {
        try db.tableExists(LedgerTables.Store.name)
    }

    static func record(_ db: Database) throws -> Record? {
        guard try hasBookkeeping(db) else { return nil }
        typealias T = LedgerTables.Store
        guard let row = try Row.fetchOne(db, sql: "SELECT \(T.version), \(T.checksum) FROM \(T.name) WHERE id = 1") else { return nil }
        return Record(version: row[T.version], checksum: row[T.checksum])
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// Creates the tables (if needed) and records `schema` as the store's version, logging the step
    /// (`started`: when the step began, for its duration).
    static func write(_ schema: Schema, from: SchemaVersion?, kind: String, label: String, started: Date? = nil, _ db: Database) throws {
        try LedgerTables.create(db)
        let time = now()
        typealias S = LedgerTables.Store
        try db.execute(
            sql: """
                INSERT INTO \(S.name) (id, \(S.version), \(S.checksum), \(S.updatedAt)) VALUES (1, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET \(S.version) = excluded.\(S.version), \(S.checksum) = excluded.\(S.checksum), \(S.updatedAt) = excluded.\(S.updatedAt)
                """,
            arguments: [schema.version.string, schema.checksum, time])
        typealias L = LedgerTables.Steps
        try db.execute(
            sql: "INSERT INTO \(L.name) (\(L.fromVersion), \(L.toVersion), \(L.kind), \(L.label), \(L.appliedAt), \(L.durationSeconds)) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [from?.string, schema.version.string, kind, label, time, started.map { Date().timeIntervalSince($0) }])
    }
}

/// Expensive cleanup recorded in the store to run later (WWDC23's deferred migration): dropping
/// columns and tables, creating indexes. The store is fully usable meanwhile: dropped columns are
/// nullable or have defaults, dropped tables are no longer used, and a missing index only costs speed.
public enum PendingCleanup {
    /// What validation accepts while cleanup is pending.
    struct Tolerance {
        var tables: Set<String> = []
        /// `table.column`, lower-cased.
        var columns: Set<String> = []
        var indexes: Set<String> = []
    }

    struct Item {
        var kind: String
        var table: String
        var object: String
        var sql: String
    }

    typealias T = LedgerTables.PendingCleanup

    static func record(_ item: Item, version: SchemaVersion, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(T.name) (\(T.kind), \(T.table), \(T.object), \(T.sql), \(T.recordedAtVersion)) VALUES (?, ?, ?, ?, ?)",
            arguments: [item.kind, item.table, item.object, item.sql, version.string])
    }

    static func items(_ db: Database) throws -> [Item] {
        guard try db.tableExists(T.name) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT \(T.kind), \(T.table), \(T.object), \(T.sql) FROM \(T.name) ORDER BY id").map {
            Item(kind: $0[T.kind], table: $0[T.table], object: $0[T.object], sql: $0[T.sql])
        }
    }

    static func tolerance(_ db: Database) throws -> Tolerance {
        var tolerance = Tolerance()
        for item in try items(db) {
            switch item.kind {
            case "drop_table": tolerance.tables.insert(item.table.lowercased())
            case "drop_column": tolerance.columns.insert("\(item.table.lowercased()).\(item.object.lowercased())")
            default: tolerance.indexes.insert(item.object.lowercased())
            }
        }
        return tolerance
    }

    /// Runs the pending items (all, or those of the given tables), in the order recorded, and forgets
    /// them. Returns how many ran.
    @discardableResult
    static func finish(_ db: Database, logger: Logger, tables: Set<String>? = nil) throws -> Int {
        guard try db.tableExists(T.name) else { return 0 }
        let scope = tables.map { Set($0.map { $0.lowercased() }) }
        let rows = try Row.fetchAll(db, sql: "SELECT id, \(T.kind), \(T.table), \(T.object), \(T.sql) FROM \(T.name) ORDER BY id")
        var count = 0
        for row in rows {
            let table: String = row[T.table]
            if let scope, !scope.contains(table.lowercased()) { continue }
            logger.info("finishing deferred cleanup: \(row[T.kind] as String) \(table).\(row[T.object] as String)")
            try db.execute(sql: row[T.sql])
            try db.execute(sql: "DELETE FROM \(T.name) WHERE id = ?", arguments: [row["id"] as Int64])
            count += 1
        }
        return count
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
        }
    }
}

/// The files SQLite keeps beside a store: its journals and the WAL's shared memory.
public enum StoreFiles {
    public static let companions = ["-journal", "-wal", "-shm"]

    /// Removes a store file and its companions, ignoring those that do not exist.
    static func remove(_ path: String) throws {
        for suffix in [""] + companions where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

extension Database {
    /// Runs `body` with foreign key enforcement off. SQLite ignores `PRAGMA foreign_keys` inside a
    /// transaction, so it is switched outside; `body` opens its own transactions and checks foreign keys
    /// (`foreign_key_check`) before committing, as SQLite's documentation prescribes for schema changes.
    /// Enforcement is switched back on afterwards; if that fails, the failure is thrown (after `body`'s
    /// own error, if any, which is the one reported): a connection left without foreign keys must not
    /// go back to the app silently.
    func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        let wasOn = try Bool.fetchOne(self, sql: "PRAGMA foreign_keys") ?? false
        try execute(sql: "PRAGMA foreign_keys = OFF")
        let result: Result<T, any Error> = Result { try body() }
        if wasOn {
            do {
                try execute(sql: "PRAGMA foreign_keys = ON")
            } catch {
                if case .failure(let bodyError) = result { throw bodyError }
                throw error
            }
        }
        return try result.get()
    }
}

extension DatabaseWriter {
    /// ``Database/withForeignKeysOff(_:)`` under a barrier: on a `DatabasePool`, readers wait.
    func writeWithForeignKeysOff<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try barrierWriteWithoutTransaction { db in try db.withForeignKeysOff { try body(db) } }
    }
}
