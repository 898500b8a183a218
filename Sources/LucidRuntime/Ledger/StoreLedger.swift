import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// What a store records about itself, read through one typed API: its version and checksum, every
/// step applied to it (with when and how long), the data migrations that ran, and the cleanup still
/// deferred.
///
/// ```swift
/// if let ledger = try LucidStore.ledger(atPath: path), let last = ledger.lastMigration {
///     print("last migrated \(last.appliedAt): \(last.label)")   // "last migrated 2026-11-24 02:31:00 +0000: 2.1 → 3.0 (inferred)"
/// }
/// ```
///
/// Inside a transaction the app already holds, read it with ``read(_:registry:)``.
public struct StoreLedger: Sendable, Equatable, Codable {
    /// One step applied to the store.
    public struct Step: Sendable, Equatable, Codable {
        /// What made the step.
        public enum Kind: String, Sendable, Codable {
            /// The store was created at `to`.
            case create
            /// A store without lucidgen's record was recognised as `to` from its tables.
            case adopt
            /// SQL inferred from the descriptions.
            case inferred
            /// The app's stage (and its row transforms or hooks).
            case stage
        }

        /// The version before the step (nil when the store was created or adopted).
        public var from: SchemaVersion?
        /// The version after the step.
        public var to: SchemaVersion
        /// What made the step.
        public var kind: Kind
        /// E.g. `1.0 → 2.0 (inferred)` or `2.0 → 2.1 (moveFlightData)`.
        public var label: String
        /// When the step committed.
        public var appliedAt: Date
        /// How long the step took, in seconds (nil for steps recorded by runtimes before durations).
        public var duration: TimeInterval?
    }

    /// A data migration recorded in the store.
    public struct DataMigrationRecord: Sendable, Equatable, Codable {
        /// The version the data migration belongs to.
        public var version: SchemaVersion
        /// Its label, unique within its version.
        public var label: String
        /// `applied`, or why it was not needed (e.g. `not needed: created at 3.0`).
        public var outcome: String
        /// When it was recorded.
        public var appliedAt: Date
    }

    /// A cleanup item deferred by ``StoreOptions/deferCleanup``, not yet run.
    public struct PendingCleanupItem: Sendable, Equatable, Codable {
        /// Whether lucidgen runs the item (see ``LucidStore/finishDeferredCleanup(_:registry:logger:)``).
        public enum Verdict: Sendable, Equatable, Codable {
            /// Read without the app's versions (lucidgen's own tools): not checked.
            case notChecked
            /// The registry's step into ``PendingCleanupItem/recordedAt`` deferred exactly this, and the
            /// store can take it: lucidgen runs it, rebuilt from the registry.
            case runs
            /// The registry cannot account for it (or the store cannot take it): it stays pending, neither
            /// run nor deleted, and validation does not tolerate what it names.
            case staysPending(reason: String)

            /// Why the item stays pending (nil when it runs or was not checked).
            public var reason: String? {
                guard case .staysPending(let reason) = self else { return nil }
                return reason
            }
        }

        /// The row's id in `lucid_pending_cleanup`.
        public var id: Int64
        /// `drop_column`, `drop_table` or `create_index` (a row written by anyone else may say anything).
        public var kind: String
        /// The table concerned.
        public var table: String
        /// The column, table or index concerned.
        public var object: String
        /// The version whose step deferred it.
        public var recordedAt: SchemaVersion
        /// Whether lucidgen runs it, and why not.
        public var verdict: Verdict = .notChecked
    }

    /// What the store records for an older app at `version` (see
    /// ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``): whether every step from `version` to the
    /// store's version is additive, and if not, the first change that is not.
    public struct CompatibilityRecord: Sendable, Equatable, Codable {
        /// A version of the history of the app that wrote the store, at most the store's version.
        public var version: SchemaVersion
        /// That version's checksum, as the app that wrote the store has it.
        public var checksum: String
        /// The first change between `version` and the store's version that is not additive, in words
        /// (e.g. `column note.text renamed to body`); nil when every step is additive.
        public var firstIncompatibleChange: String?
        /// The version that change belongs to.
        public var firstIncompatibleAt: SchemaVersion?

        /// Whether an older app at `version` (with this checksum) may open the store read-write.
        public var isAdditive: Bool { firstIncompatibleChange == nil }

        /// A record as ``StoreLedger/read(_:)`` returns it (e.g. to compare with, in tests).
        package init(
            version: SchemaVersion, checksum: String, firstIncompatibleChange: String? = nil, firstIncompatibleAt: SchemaVersion? = nil
        ) {
            self.version = version
            self.checksum = checksum
            self.firstIncompatibleChange = firstIncompatibleChange
            self.firstIncompatibleAt = firstIncompatibleAt
        }
    }

    /// The store's version.
    public var version: SchemaVersion
    /// The SHA-256 of the version's DDL, as the app that wrote it computed it.
    public var checksum: String
    /// When the version record last changed.
    public var updatedAt: Date
    /// Every step, oldest first.
    public var steps: [Step]
    /// Every data migration recorded, oldest first.
    public var dataMigrations: [DataMigrationRecord]
    /// The cleanup still deferred, in the order it will run.
    public var pendingCleanup: [PendingCleanupItem]
    /// For every version up to the store's, oldest first, whether an older app at that version may keep
    /// working on the store; nil for a store written before compatibility was recorded (an older app
    /// refuses it under ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``).
    public var compatibility: [CompatibilityRecord]?
    /// What the app keeps in the store beside lucidgen's tables, in the order SQLite created them; nil
    /// unless read with the registry that says which tables are lucidgen's (``read(_:registry:)``).
    public var appObjects: [AppObject]?

    /// The compatibility record of `version`, if the store has one.
    ///
    /// ```swift
    /// if let record = ledger.compatibility(of: SchemaVersion("1.0")), !record.isAdditive {
    ///     print("1.0 cannot write this store: \(record.firstIncompatibleChange!)")
    /// }
    /// ```
    public func compatibility(of version: SchemaVersion) -> CompatibilityRecord? {
        compatibility?.first { $0.version == version }
    }

    /// The last step that changed the store's version after it was created or adopted, if any.
    public var lastMigration: Step? { steps.last { $0.kind == .inferred || $0.kind == .stage } }

    /// Reads the ledger of the database `db` is connected to; nil when it has no lucidgen record (a
    /// new, empty or foreign database).
    ///
    /// ```swift
    /// let ledger = try database.read { db in try StoreLedger.read(db) }
    /// ```
    /// ``read(_:)``, with ``appObjects``: what the app keeps in the store beside the tables that
    /// `versions` describe at the recorded version (nil when the recorded version is not among them).
    ///
    /// ```swift
    /// let ledger = try database.read { db in try StoreLedger.read(db, registry: AppSchema.self) }
    /// for object in ledger?.appObjects ?? [] { print(object) }   // "view item_titles (depends on item)"
    /// ```
    ///
    /// Each pending cleanup item also gets its ``PendingCleanupItem/verdict``: whether the registry's step
    /// into its version deferred it (then lucidgen runs it), or why it stays pending.
    package static func read(_ db: Database, versions: [Schema]) throws -> StoreLedger? {
        try read(db, history: SchemaHistory(versions: versions))
    }

    /// ``read(_:registry:)`` for the database of a store an app holds itself (a GRDB pool it migrates with
    /// ``LucidMigrator``).
    public static func read<Registry: SchemaRegistry>(_ db: Database, registry: Registry.Type) throws -> StoreLedger? {
        try read(db, history: SchemaHistory(registry: registry))
    }

    /// ``read(_:versions:)`` for a schema history (its stages are inferred around as a migration does).
    package static func read(_ db: Database, history: SchemaHistory) throws -> StoreLedger? {
        guard var ledger = try read(db) else { return nil }
        guard let planner = try? MigrationPlanner(versions: history.versions, stages: history.stages) else { return ledger }
        let accounting = try CleanupAccounting.atRecordedVersion(planner: planner, db)
        let verdicts = try accounting.verdicts(try PendingCleanup.rows(db), db)
        let outcomes = Dictionary(verdicts.map { ($0.row.id, $0.outcome) }, uniquingKeysWith: { first, _ in first })
        for index in ledger.pendingCleanup.indices {
            switch outcomes[ledger.pendingCleanup[index].id] {
            case .runs?: ledger.pendingCleanup[index].verdict = .runs
            case .staysPending(let reason)?: ledger.pendingCleanup[index].verdict = .staysPending(reason: reason)
            case nil: break
            }
        }
        if let schema = history.versions.first(where: { $0.version == ledger.version }) {
            ledger.appObjects = try AppObjects.read(db, owned: OwnedNames([schema], pendingCleanup: verdicts.compactMap(\.item)))
        }
        return ledger
    }

    package static func read(_ db: Database) throws -> StoreLedger? {
        typealias S = LedgerTables.Store
        guard try db.tableExists(S.name), let store = try Row.fetchOne(db, sql: "SELECT * FROM \(S.name) WHERE id = 1") else { return nil }
        var ledger = StoreLedger(
            version: try Self.version(store[S.version]), checksum: store[S.checksum], updatedAt: try Self.date(store[S.updatedAt]),
            steps: [], dataMigrations: [], pendingCleanup: [], compatibility: nil)

        typealias L = LedgerTables.Steps
        if try db.tableExists(L.name) {
            // `SELECT *`: a ledger written before a column existed reads it as absent (NULL).
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(L.name) ORDER BY id") {
                let kind: String = row[L.kind]
                ledger.steps.append(
                    Step(
                        from: try (row[L.fromVersion] as String?).map(Self.version), to: try Self.version(row[L.toVersion]),
                        kind: Step.Kind(rawValue: kind) ?? .inferred, label: row[L.label], appliedAt: try Self.date(row[L.appliedAt]),
                        duration: row.hasColumn(L.durationSeconds) ? row[L.durationSeconds] : nil))
            }
        }
        typealias D = LedgerTables.DataMigrations
        if try db.tableExists(D.name) {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(D.name) ORDER BY \(D.appliedAt), \(D.version), \(D.label)") {
                ledger.dataMigrations.append(
                    DataMigrationRecord(
                        version: try Self.version(row[D.version]), label: row[D.label], outcome: row[D.outcome],
                        appliedAt: try Self.date(row[D.appliedAt])))
            }
        }
        typealias C = LedgerTables.PendingCleanup
        if try db.tableExists(C.name) {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(C.name) ORDER BY id") {
                ledger.pendingCleanup.append(
                    PendingCleanupItem(
                        id: row["id"], kind: row[C.kind], table: row[C.table], object: row[C.object],
                        recordedAt: try Self.version(row[C.recordedAtVersion])))
            }
        }
        typealias K = LedgerTables.Compatibility
        if try db.tableExists(K.name) {
            ledger.compatibility = try Row.fetchAll(db, sql: "SELECT * FROM \(K.name)").map { row in
                CompatibilityRecord(
                    version: try Self.version(row[K.version]), checksum: row[K.checksum],
                    firstIncompatibleChange: row[K.firstIncompatibleChange],
                    firstIncompatibleAt: try (row[K.firstIncompatibleAt] as String?).map(Self.version))
            }.sorted { $0.version < $1.version }
        }
        return ledger
    }

    static func version(_ text: String) throws -> SchemaVersion {
        guard let version = try? SchemaVersion(parsing: text) else {
            throw LedgerError(message: "the ledger records '\(text)', which is not a version")
        }
        return version
    }

    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { throw LedgerError(message: "the ledger records '\(text)', which is not a date") }
        return date
    }

    struct LedgerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

extension LucidStore {
    /// Reads the ledger of the store at `path` without changing the file (a pending WAL stays as it
    /// is); nil when the file has no lucidgen record. A file that is not a database, or damaged, is
    /// refused as ``open(atPath:registry:options:)`` refuses it. Read with the app's versions, each pending
    /// cleanup item says whether lucidgen runs it, and the app's own objects are listed.
    ///
    /// ```swift
    /// let ledger = try LucidStore.ledger(atPath: url.path, registry: FlightLogSchema.self)
    /// print(ledger?.version, ledger?.lastMigration?.appliedAt)
    /// ```
    public static func ledger<Registry: SchemaRegistry>(atPath path: String, registry: Registry.Type, busyTimeout: TimeInterval = 60)
        throws(StoreError) -> StoreLedger?
    {
        try ledger(atPath: path, history: SchemaHistory(registry: registry), busyTimeout: busyTimeout)
    }

    /// ``ledger(atPath:registry:busyTimeout:)`` without the app's versions (lucidgen's own tools).
    package static func ledger(atPath path: String, busyTimeout: TimeInterval = 60) throws(StoreError) -> StoreLedger? {
        try ledger(atPath: path, history: nil, busyTimeout: busyTimeout)
    }

    /// ``ledger(atPath:busyTimeout:)``, read with the app's versions (``StoreLedger/read(_:history:)``):
    /// each pending cleanup item says whether lucidgen runs it, and the app's objects are listed.
    package static func ledger(atPath path: String, history: SchemaHistory?, busyTimeout: TimeInterval = 60) throws(StoreError)
        -> StoreLedger?
    {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotWrite(path: path, message: "no such file") }
        var configuration = Configuration()
        configuration.busyMode = .timeout(StoreOptions.boundedBusyTimeout(busyTimeout))
        let began = Date()
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { StoreMigrator.closeLeavingFilesAsTheyAre(queue) }
            return try queue.read { db in try history.map { try StoreLedger.read(db, history: $0) } ?? StoreLedger.read(db) }
        } catch let error as StoreLedger.LedgerError {
            throw .corrupt(path: path, message: error.message)
        } catch {
            throw StoreMigrator.storeError(error, path: path, step: "read the ledger", version: nil, since: began)
        }
    }
}
