import GRDB
@_spi(Generated) import LucidSchema

/// lucidgen's bookkeeping tables inside a store, defined in one place: their names, columns and
/// shapes. Everything that writes them (``Bookkeeping``, ``PendingCleanup``, ``DataMigrations``) and
/// the typed reader (``StoreLedger``) goes through these names.
///
/// They live in the store itself, so a step's schema change and its record commit in one transaction.
/// Their shape only ever grows by added nullable columns, so a store written by an older runtime
/// opens with a newer one (``create(_:)`` adds what an older runtime's ledger lacks), and an older runtime reads a newer store's ledger.
enum LedgerTables {
    /// The store's version: one row.
    enum Store {
        static let name = "lucid_store"
        static let version = "version"
        static let checksum = "checksum"
        static let updatedAt = "updated_at"
        /// SQLite's schema cookie (`PRAGMA schema_version`) as the transaction that last changed the
        /// store's schema left it, read after its last schema change. An equal cookie at open means no
        /// schema change since (the launch path trusts the record); another one, or NULL (a store written
        /// before this column, or by an older runtime), makes the next open check the tables against the
        /// record once. Added after the first release.
        static let schemaCookie = "schema_cookie"
    }

    /// Every step applied to the store, in order (including its creation or adoption).
    enum Steps {
        static let name = "lucid_migration_log"
        static let fromVersion = "from_version"
        static let toVersion = "to_version"
        static let kind = "kind"
        static let label = "label"
        /// When the step committed (ISO 8601, UTC, milliseconds).
        static let appliedAt = "applied_at"
        /// How long the step took, in seconds. Added after the first release: NULL on older rows.
        static let durationSeconds = "duration_seconds"
    }

    /// Cleanup deferred by `StoreOptions.deferCleanup`, run later in order.
    enum PendingCleanup {
        static let name = "lucid_pending_cleanup"
        static let kind = "kind"
        static let table = "table_name"
        static let object = "object"
        static let sql = "sql"
        static let recordedAtVersion = "recorded_at_version"
    }

    /// Data migrations that ran (or were not needed), once per store.
    enum DataMigrations {
        static let name = "lucid_data_migrations"
        static let version = "version"
        static let label = "label"
        static let outcome = "outcome"
        static let appliedAt = "applied_at"
    }

    /// What an older app needs to decide whether it may keep working on this store (the newer-store
    /// policy ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``): one row per version of the
    /// history of the app that wrote the store, up to the store's version N, rewritten in the transaction
    /// that records N. Added after the first release: a store written before has no such table, and an
    /// older app refuses it.
    enum Compatibility {
        static let name = "lucid_compatibility"
        /// A version V, at most the store's version.
        static let version = "version"
        /// V's checksum, as the app that wrote the row has it: an older app at V compares its own.
        static let checksum = "checksum"
        /// The first change between V and the store's version that breaks `AdditiveRule`, in words;
        /// NULL when every step from V to the store's version is additive.
        static let firstIncompatibleChange = "first_incompatible_change"
        /// The version that change belongs to (the newer end of its step); NULL with the change.
        static let firstIncompatibleAt = "first_incompatible_at"
    }

    static let createStore = """
        CREATE TABLE IF NOT EXISTS \(Store.name) (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            \(Store.version) TEXT NOT NULL,
            \(Store.checksum) TEXT NOT NULL,
            \(Store.updatedAt) TEXT NOT NULL,
            \(Store.schemaCookie) INTEGER)
        """
    static let createSteps = """
        CREATE TABLE IF NOT EXISTS \(Steps.name) (
            id INTEGER PRIMARY KEY,
            \(Steps.fromVersion) TEXT,
            \(Steps.toVersion) TEXT NOT NULL,
            \(Steps.kind) TEXT NOT NULL,
            \(Steps.label) TEXT NOT NULL,
            \(Steps.appliedAt) TEXT NOT NULL,
            \(Steps.durationSeconds) REAL)
        """
    static let createPendingCleanup = """
        CREATE TABLE IF NOT EXISTS \(PendingCleanup.name) (
            id INTEGER PRIMARY KEY,
            \(PendingCleanup.kind) TEXT NOT NULL,
            \(PendingCleanup.table) TEXT NOT NULL,
            \(PendingCleanup.object) TEXT NOT NULL,
            \(PendingCleanup.sql) TEXT NOT NULL,
            \(PendingCleanup.recordedAtVersion) TEXT NOT NULL)
        """
    static let createDataMigrations = """
        CREATE TABLE IF NOT EXISTS \(DataMigrations.name) (
            \(DataMigrations.version) TEXT NOT NULL,
            \(DataMigrations.label) TEXT NOT NULL,
            \(DataMigrations.outcome) TEXT NOT NULL,
            \(DataMigrations.appliedAt) TEXT NOT NULL,
            PRIMARY KEY (\(DataMigrations.version), \(DataMigrations.label)))
        """

    static let createCompatibility = """
        CREATE TABLE IF NOT EXISTS \(Compatibility.name) (
            \(Compatibility.version) TEXT PRIMARY KEY NOT NULL,
            \(Compatibility.checksum) TEXT NOT NULL,
            \(Compatibility.firstIncompatibleChange) TEXT,
            \(Compatibility.firstIncompatibleAt) TEXT)
        """

    /// The tables a version record needs, created if missing (in the caller's transaction).
    static func create(_ db: Database) throws {
        // One query says which exist and whether the log has today's columns (this runs with every step):
        // only missing tables are created, and only a log written by an older runtime is upgraded.
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT group_concat(name, ' ') FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?)),
                           (SELECT count(*) FROM pragma_table_info(?) WHERE name = ?),
                           (SELECT count(*) FROM pragma_table_info(?) WHERE name = ?)
                    """,
                arguments: [
                    Store.name, Steps.name, PendingCleanup.name, Compatibility.name, Steps.name, Steps.durationSeconds, Store.name,
                    Store.schemaCookie,
                ])
        else { return }
        let existing = Set(((row[0] as String?) ?? "").split(separator: " ").map(String.init))
        for (name, statement) in [
            (Store.name, createStore), (Steps.name, createSteps), (PendingCleanup.name, createPendingCleanup),
            (Compatibility.name, createCompatibility),
        ]
        where !existing.contains(name) {
            try db.execute(sql: statement)
        }
        if existing.contains(Steps.name), (row[1] as Int) == 0 { try addDuration(db) }
        if existing.contains(Store.name), (row[2] as Int) == 0 { try addSchemaCookie(db) }
    }

    /// Brings a version record written by an older runtime to today's shape: an added nullable column.
    static func addSchemaCookie(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE \(Store.name) ADD COLUMN \(Store.schemaCookie) INTEGER")
    }

    /// Brings a log written by an older runtime to today's shape: an added nullable column.
    static func addDuration(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE \(Steps.name) ADD COLUMN \(Steps.durationSeconds) REAL")
    }
}
