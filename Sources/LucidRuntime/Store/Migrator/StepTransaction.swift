import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// The transaction of a step, under one lock deadline.
extension StoreMigrator {
    /// `BEGIN IMMEDIATE`, `body`, `COMMIT` (or rollback): the transaction of one step (or of the whole
    /// path, or of the late data migrations), under one lock deadline.
    ///
    /// On the runtime's own connection, every lock wait of the transaction (at `BEGIN`, at each page
    /// cache spill, at `COMMIT`) shares ``StoreOptions/busyTimeout`` (see ``LockDeadline``), and a
    /// lock error reports their sum. On the app's connection its busy handler waits as it was told, and
    /// a lock error reports how long the transaction took until it gave up (the waits are not visible
    /// from here).
    package func stepTransaction(_ db: Database, _ body: () throws -> Database.TransactionCompletion) throws {
        let asked = Date()
        lockDeadline?.arm()
        defer { lockDeadline?.disarm() }
        do {
            // Last in every committing transaction: the schema cookie as the transaction leaves it, so that
            // the next open knows whether anything changed the schema since.
            try db.inTransaction(.immediate) {
                let completion = try body()
                if completion == .commit { try Bookkeeping.recordSchemaCookie(db) }
                return completion
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw StoreError.locked(path: path, waited: lockDeadline?.waited ?? Date().timeIntervalSince(asked))
        }
    }
}
