import Foundation
import GRDB
import GRDBSQLite
@_spi(Generated) import LucidSchema

/// The files SQLite keeps beside a store: its journals and the WAL's shared memory.
public enum StoreFiles {
    /// The suffixes of a store's companion files; copy them with the store.
    ///
    /// ```swift
    /// for suffix in [""] + StoreFiles.companions { try? FileManager.default.copyItem(atPath: path + suffix, toPath: backup + suffix) }
    /// ```
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
    package func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
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

extension Database {
    /// Runs `body` with `ATTACH` refused on this connection (`SQLITE_LIMIT_ATTACHED` 0), then gives
    /// the connection its previous limit back, whatever `body` does.
    ///
    /// Every connection lucidgen migrates on (its own, or the writer an app hands to ``LucidMigrator``)
    /// is held through this while lucidgen works: a store is untrusted input, and whatever runs meanwhile
    /// (the app's stage code, the store's own triggers) cannot reach another file through it. No
    /// authorizer is installed (GRDB owns the connection's only one); extension loading stays off, as
    /// SQLite and GRDB leave it, and lucidgen's SQL functions are `SQLITE_DIRECTONLY`, so no view or
    /// trigger in a store can call them (``RecordTransformRunner``).
    package func withoutAttaching<T>(_ body: () throws -> T) rethrows -> T {
        guard let connection = sqliteConnection else { return try body() }
        let previous = sqlite3_limit(connection, SQLITE_LIMIT_ATTACHED, 0)
        defer { sqlite3_limit(connection, SQLITE_LIMIT_ATTACHED, previous) }
        return try body()
    }
}

extension DatabaseWriter {
    /// ``Database/withForeignKeysOff(_:)`` under a barrier (on a `DatabasePool`, readers wait), with
    /// `ATTACH` refused meanwhile (``Database/withoutAttaching(_:)``).
    func writeWithForeignKeysOff<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try barrierWriteWithoutTransaction { db in try db.withoutAttaching { try db.withForeignKeysOff { try body(db) } } }
    }
}
