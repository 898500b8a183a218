import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// An app-provided step between two versions, with code that runs around the step's SQL (Core Data's
/// `NSCustomMigrationStage`): `willMigrate` sees the database at the old schema, `didMigrate` at the new
/// one, both inside the step's transaction. The planner takes a stage wherever it applies and never
/// skips it with an inferred step; a stage may also jump over versions (e.g. 2.0 → 6.0 for a large user
/// base), in which case stores at 2.0 take it and others do not.
///
/// ```swift
/// var options = StoreOptions()
/// options.stages = [
///     MigrationStage(from: SchemaVersion("1.1"), to: SchemaVersion("2.0"), label: "merge duplicate pilots",
///                    willMigrate: { db in try db.execute(sql: "DELETE FROM pilot WHERE id NOT IN (SELECT min(id) FROM pilot GROUP BY name)") }),
/// ]
/// ```
///
/// The schema change between `from` and `to` must itself be inferable (the hooks fix the data around it).
/// A failing hook rolls the whole step back: the store stays at `from`.
public struct MigrationStage: Sendable {
    /// The version the stage starts from.
    public var from: SchemaVersion
    /// The version it reaches (possibly several versions later).
    public var to: SchemaVersion
    /// Names the stage in logs, progress and the store's ledger.
    public var label: String
    /// Runs at the old schema, inside the step's transaction, before its SQL.
    public var willMigrate: (@Sendable (Database) throws -> Void)?
    /// Runs at the new schema, inside the step's transaction, after its SQL.
    public var didMigrate: (@Sendable (Database) throws -> Void)?
    /// Tables whose rows the stage converts one by one (the changes SQL cannot infer).
    public var transforms: [RowTransform]

    /// A stage with hooks and/or row transforms (see the type's example).
    public init(
        from: SchemaVersion, to: SchemaVersion, label: String, transforms: [RowTransform] = [],
        willMigrate: (@Sendable (Database) throws -> Void)? = nil, didMigrate: (@Sendable (Database) throws -> Void)? = nil
    ) {
        self.from = from
        self.to = to
        self.label = label
        self.transforms = transforms
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }

    /// The stage as the planner sees it.
    public var explicit: ExplicitStage { ExplicitStage(from: from, to: to, label: label, transformedTables: transforms.map(\.table)) }
}

/// A per-row conversion of one table inside a stage: each old row (at the stage's `from` schema) becomes
/// the new row (at `to`), or nil drops the row. The table is never loaded whole.
///
/// Two paths, chosen by how the transform is made:
///
/// - **Typed records** (`RowTransform.records(table:) { (old: Item_1_0) -> Item_2_0? in … }`, what the
///   generated `<Module>Schema.stages(using:)` uses): when both record types are ``MigrationRecord``s
///   (every generated record is), the table is rebuilt by chunked `INSERT … SELECT` statements in which
///   SQL functions call the app's code for each row, reading and writing values by position. This costs
///   about 1.4–1.5× an SQL rebuild of the same table (1M rows in `migration-benchmark`).
/// - **Rows and dictionaries** (`RowTransform(table:) { row in … }`, or `records` over record types that
///   are not ``MigrationRecord``s): the flexible path, for hand-written conversions. Old rows are read
///   through a cursor; the app's code runs on another thread, one batch of 500 rows at a time and in
///   rowid order (never two rows at once), while the connection reads the next batch and inserts the
///   previous one with one prepared statement per row: about 2.4–2.6× an SQL rebuild.
public struct RowTransform: Sendable {
    /// The table's name at the stage's `to` version.
    public var table: String
    /// The conversion on the rows-and-dictionaries path. A typed transform has one too (over its records'
    /// `init(databaseValues:)` and `databaseValues()`), but the migration runs its records directly, row
    /// by row when the old record has more columns than an SQL function takes arguments (127 by default).
    public var transform: @Sendable (Row) throws -> [String: DatabaseValue]?
    /// The typed path, for transforms made by `records` between ``MigrationRecord`` types.
    @usableFromInline var recordTransform: RecordTransform?

    /// A transform over GRDB rows: return the new row's values by column, or nil to drop the row.
    ///
    /// ```swift
    /// RowTransform(table: "shelf") { row in
    ///     guard let label = Int(row["label"] as String) else { return nil }
    ///     return ["code": row["code"], "label": label.databaseValue]
    /// }
    /// ```
    public init(table: String, transform: @escaping @Sendable (Row) throws -> [String: DatabaseValue]?) {
        self.table = table
        self.transform = transform
    }

    /// A typed transform between two record types, on the rows-and-dictionaries path (record types that
    /// are not ``MigrationRecord``s).
    public static func records<Old: FetchableRecord & Sendable, New: EncodableRecord>(
        table: String, _ transform: @escaping @Sendable (Old) throws -> New?
    ) -> RowTransform {
        RowTransform(table: table) { row in try transform(try Old(row: row)).map { try $0.databaseDictionary } }
    }

    /// A typed transform between two record types that are ``MigrationRecord``s, on the typed-records path.
    @inlinable
    public static func records<Old: MigrationRecord, New: MigrationRecord>(
        table: String, _ transform: @escaping @Sendable (Old) throws -> New?
    ) -> RowTransform {
        // The rows path (a table wider than an SQL function's arguments) reads and writes the same values.
        var result = RowTransform(table: table) { row in
            try transform(try Old(databaseValues: Dictionary(row, uniquingKeysWith: { first, _ in first }))).map { try $0.databaseValues() }
        }
        result.recordTransform = RecordTransform(transform)
        return result
    }

    /// A typed transform between two record types that are both GRDB records and ``MigrationRecord``s:
    /// the typed-records path (this overload only settles which of the two above applies).
    @inlinable
    public static func records<Old: FetchableRecord & MigrationRecord, New: EncodableRecord & MigrationRecord>(
        table: String, _ transform: @escaping @Sendable (Old) throws -> New?
    ) -> RowTransform {
        var result = RowTransform(table: table) { row in try transform(try Old(row: row)).map { try $0.databaseDictionary } }
        result.recordTransform = RecordTransform(transform)
        return result
    }
}

/// A data-only migration keyed by a schema version (Lucid's `Migration(version: .appVersion("1.1"))`):
/// it runs exactly once per store, in the same transaction as the step that brings the store to (or
/// past) its version, at that step's new schema, and is recorded in the store (`lucid_data_migrations`)
/// in that transaction. A failure rolls the step back: the store never "advances anyway".
///
/// A store created at or after the version never runs it (its data was never in the old shape). A store
/// already past the version when the migration is added (an app update) runs it once on the next open.
public struct DataMigration: Sendable {
    /// The version whose step runs it.
    public var version: SchemaVersion
    /// Identifies the migration within its version; with `version`, the record kept in the store.
    public var label: String
    /// The code, run inside the step's transaction at the new schema.
    public var run: @Sendable (Database) throws -> Void

    /// A data migration.
    ///
    /// ```swift
    /// DataMigration(version: SchemaVersion("3.0"), label: "favourite aircraft with flight data") { db in
    ///     try db.execute(sql: "UPDATE aircraft SET is_favorite = 1 WHERE id IN (SELECT aircraft FROM flight_data)")
    /// }
    /// ```
    public init(version: SchemaVersion, label: String, run: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.label = label
        self.run = run
    }
}

/// Runs an app's data migrations, each once per store (recorded through ``DataMigrationRecords``).
enum DataMigrations {
    /// Runs the unrecorded migrations whose version is in `range` (lower bound exclusive), oldest first;
    /// returns the ones it ran.
    @discardableResult
    static func run(_ migrations: [DataMigration], after lower: SchemaVersion?, upTo upper: SchemaVersion, _ db: Database, logger: Logger)
        throws -> [DataMigration]
    {
        var ran: [DataMigration] = []
        for migration in migrations.sorted(by: { ($0.version, $0.label) < ($1.version, $1.label) })
        where migration.version <= upper && lower.map({ migration.version > $0 }) ?? true {
            guard try !DataMigrationRecords.isRecorded(migration, db) else { continue }
            logger.info("data migration \(migration.version) '\(migration.label)'")
            try migration.run(db)
            try DataMigrationRecords.record(migration, outcome: "applied", db)
            ran.append(migration)
        }
        return ran
    }
}
