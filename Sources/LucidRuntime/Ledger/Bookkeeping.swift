import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// lucidgen's tables inside a store: the version record, the log of applied steps, and deferred cleanup.
///
/// They live in the store itself, so a step's schema change and its version record commit in one
/// transaction: whatever instant a crash happens at, the recorded version matches the tables.
package enum Bookkeeping {
    package struct Record {
        var version: String
        var checksum: String
        /// The schema cookie the record was written with (``LedgerTables/Store/schemaCookie``); nil when
        /// none was recorded (an older runtime's ledger).
        var schemaCookie: Int64? = nil
        /// The store's schema cookie now (`PRAGMA schema_version`).
        var currentSchemaCookie: Int64? = nil

        /// Whether the schema changed since the record was written (or the record cannot tell): then the
        /// tables are checked against it before it is believed.
        var schemaChangedSinceRecorded: Bool { schemaCookie == nil || schemaCookie != currentSchemaCookie }
    }

    /// What a migration's transaction reads before each step: the version record and, when the ledger
    /// already has this runtime's shape (every table, today's columns), how much cleanup is pending.
    /// Then the step needs no other bookkeeping query before its own work: no table checks, no cleanup
    /// lookup when none is pending, no ledger upgrade (each costs a statement to compile, which is most
    /// of an O(1) migration's fixed cost).
    struct StepStart {
        var record: Record?
        /// The ledger's tables and columns are today's: writing the step needs no `LedgerTables.create`.
        var ledgerCurrent: Bool
        /// Items of deferred cleanup, when known (nil: look).
        var pendingCleanup: Int?
        /// The compatibility record has the row of the recorded version (then it was written for that
        /// version, in the same transaction, and a step only updates it; see ``CompatibilityRecorder``).
        var compatibilityRecorded = false
    }

    /// ``StepStart`` in one statement when the ledger is current; in the older way otherwise (a store
    /// whose ledger an older runtime wrote, or that has none yet).
    static func stepStart(_ db: Database) throws -> StepStart {
        typealias S = LedgerTables.Store
        typealias L = LedgerTables.Steps
        typealias C = LedgerTables.PendingCleanup
        typealias K = LedgerTables.Compatibility
        let statement: Statement
        do {
            // Preparing it proves every ledger table and the newest log column exist.
            statement = try db.cachedStatement(
                sql: """
                    SELECT \(S.version), \(S.checksum), (SELECT count(*) FROM \(C.name)), (SELECT \(L.durationSeconds) FROM \(L.name) WHERE 0),
                        (SELECT count(*) FROM \(K.name) WHERE \(K.name).\(K.version) = \(S.name).\(S.version)), \(S.schemaCookie)
                    FROM \(S.name) WHERE id = 1
                    """)
        } catch let error as DatabaseError where isMissingObject(error) {
            return StepStart(record: try record(db), ledgerCurrent: false, pendingCleanup: nil)
        }
        guard let row = try Row.fetchOne(statement) else { return StepStart(record: nil, ledgerCurrent: true, pendingCleanup: nil) }
        return StepStart(
            record: Record(version: row[0], checksum: row[1]), ledgerCurrent: true, pendingCleanup: row[2],
            compatibilityRecorded: (row[4] as Int) > 0)
    }

    /// SQLite's "no such table" or "no such column" when preparing a statement.
    static func isMissingObject(_ error: DatabaseError) -> Bool {
        guard error.resultCode == .SQLITE_ERROR, let message = error.message else { return false }
        return message.hasPrefix("no such table") || message.hasPrefix("no such column")
    }

    static func hasBookkeeping(_ db: Database) throws -> Bool {
        try tableExists(LedgerTables.Store.name, db)
    }

    /// Whether the table exists: one small query where GRDB's `tableExists` reads and caches the whole
    /// schema (these checks run on every open and in every step).
    static func tableExists(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name]) == true
    }

    /// The version record, or nil when the store has none (one query: a missing table is the rare case).
    package static func record(_ db: Database) throws -> Record? {
        do {
            return try recordedVersion(db)
        } catch let error as DatabaseError where isMissingObject(error) {
            return nil
        }
    }

    /// The version record of a store known to have the table (inside a migration's transaction), with
    /// the recorded and the current schema cookie.
    static func recordedVersion(_ db: Database) throws -> Record? {
        typealias T = LedgerTables.Store
        do {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT \(T.version), \(T.checksum), \(T.schemaCookie), (SELECT schema_version FROM pragma_schema_version) FROM \(T.name) WHERE id = 1"
                )
            else { return nil }
            return Record(version: row[0], checksum: row[1], schemaCookie: row[2], currentSchemaCookie: row[3])
        } catch let error as DatabaseError where isMissingColumn(error) {
            // A record written by a runtime from before the cookie: it cannot say whether the schema changed.
            guard let row = try Row.fetchOne(db, sql: "SELECT \(T.version), \(T.checksum) FROM \(T.name) WHERE id = 1") else { return nil }
            return Record(version: row[T.version], checksum: row[T.checksum])
        }
    }

    /// The launch path's question, in one query: whether the version record says `version` with
    /// `checksum`, written with the schema cookie the store has now (nothing changed its schema since).
    /// A record without the cookie column (an older runtime's) fails to prepare: the caller takes the
    /// full path then.
    static func recordIsCurrent(version: SchemaVersion, checksum: String, _ db: Database) throws -> Bool {
        typealias S = LedgerTables.Store
        guard
            let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT \(S.version), \(S.checksum), \(S.schemaCookie) IS (SELECT schema_version FROM pragma_schema_version) FROM \(S.name) WHERE id = 1"
            )
        else { return false }
        return row[0] == version.string && row[1] == checksum && row[2] == true
    }

    /// SQLite's "no such column" when preparing a statement.
    static func isMissingColumn(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_ERROR && error.message?.hasPrefix("no such column") == true
    }

    /// Records the store's schema cookie as it is now in its version record (``LedgerTables/Store/schemaCookie``),
    /// adding the column to a record an older runtime wrote. Called last in every transaction that commits a
    /// version record or a schema change of lucidgen's (after its last DDL, whose cookie it records), and
    /// after the tables were checked against the record: a store without a record is left as it is.
    static func recordSchemaCookie(_ db: Database) throws {
        typealias T = LedgerTables.Store
        let sql = "UPDATE \(T.name) SET \(T.schemaCookie) = (SELECT schema_version FROM pragma_schema_version) WHERE id = 1"
        do {
            try db.cachedStatement(sql: sql).execute()
        } catch let error as DatabaseError where isMissingColumn(error) {
            // Adding the column changes the cookie: the update reads it afterwards.
            try LedgerTables.addSchemaCookie(db)
            try db.execute(sql: sql)
        } catch let error as DatabaseError where isMissingObject(error) {
            return
        }
    }

    /// The current time as the ledger records it: ISO 8601 in UTC with milliseconds
    /// (`2026-11-24T06:33:00.123Z`), what `StoreLedger` reads back.
    static func now() -> String { timestamp(Date()) }

    /// `date` as the ledger records it. Formatted by hand: Foundation's `ISO8601DateFormatter` costs more
    /// to create on Linux (ICU) than the rest of a one-step migration's bookkeeping together.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var whole = milliseconds / 1000
        var millis = Int32(milliseconds % 1000)
        if millis < 0 { millis += 1000; whole -= 1 } // before 1970: the remainder counts up from the second below
        var seconds = time_t(whole)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }

    /// Creates the tables (if needed) and records `schema` as the store's version, logging the step
    /// (`started`: when the step began, for its duration).
    /// `ledgerCurrent`: the caller knows every ledger table and column exists (``stepStart(_:)``).
    /// `checksum`: the schema's, when the caller has it (a registry's generated one); else computed.
    package static func write(
        _ schema: Schema, checksum: String? = nil, from: SchemaVersion?, kind: String, label: String, started: Date? = nil,
        ledgerCurrent: Bool = false,
        _ db: Database
    ) throws {
        if !ledgerCurrent { try LedgerTables.create(db) }
        let time = now()
        typealias S = LedgerTables.Store
        try db.execute(
            sql: """
                INSERT INTO \(S.name) (id, \(S.version), \(S.checksum), \(S.updatedAt)) VALUES (1, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET \(S.version) = excluded.\(S.version), \(S.checksum) = excluded.\(S.checksum), \(S.updatedAt) = excluded.\(S.updatedAt)
                """,
            arguments: [schema.version.string, checksum ?? schema.checksum, time])
        typealias L = LedgerTables.Steps
        try db.execute(
            sql:
                "INSERT INTO \(L.name) (\(L.fromVersion), \(L.toVersion), \(L.kind), \(L.label), \(L.appliedAt), \(L.durationSeconds)) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [from?.string, schema.version.string, kind, label, time, started.map { Date().timeIntervalSince($0) }])
    }
}
