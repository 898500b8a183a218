import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// How ``LucidStore`` opens and migrates a store.
public struct StoreOptions: Sendable {
    /// What to do with a store this app cannot migrate: one from a newer app, or one whose schema does
    /// not match what this app knows. Nothing is ever erased unless the app asks for it here.
    public enum IncompatibleStorePolicy: Sendable, Equatable {
        /// Throw a ``StoreError`` (the default).
        case refuse
        /// Open the store read-only, unmigrated, for this app's records to read.
        ///
        /// A newer app may have removed or renamed columns and tables this app's records read. For each
        /// table of this app's newest version whose columns the store's table lacks, the connection gets a
        /// temporary view of the same name that reads each missing column as its default (`DEFAULT`) or
        /// NULL, beside the store's columns; for a table the store lacks, one with no rows. SQLite looks
        /// an unqualified name up in the temporary schema first, so `SELECT * FROM pilot`,
        /// `Pilot.fetchAll(db)` and `Pilot.fetchOne(db, key: 1)` read the view. The views live in the
        /// connection's temporary database, never in the store's file; a store that lacks nothing gets
        /// none. ``MigrationOutcome/readOnlyStandIns`` lists what was stood in for. Values the newer app
        /// moved elsewhere (a renamed column or table) are not followed: the old name reads its default,
        /// NULL or no rows; a non-optional property without a default cannot decode NULL. Writes fail,
        /// as on any read-only connection.
        ///
        /// ```swift
        /// options.newerStorePolicy = .openReadOnly   // show the data, never migrate it down
        /// ```
        case openReadOnly
        /// Delete the store and create a new, empty one. For development builds.
        case eraseAndRecreate
        /// For ``StoreOptions/newerStorePolicy``: keep working on a store written by a newer app, read-write
        /// and unmigrated, when every step from this app's newest version to the store's is additive (only
        /// new tables, and new columns that are nullable or have a default; no app code, no data
        /// migration). The store itself says so: the app that migrated it recorded, for each older version,
        /// the first change that is not additive (`lucid_compatibility`, ``StoreLedger/compatibility``). This
        /// app reads its own newest version's row, checks that it has this app's checksum and no such
        /// change, and that every table and column this app knows is there with its type; then it opens the
        /// store without touching its version record or schema. Otherwise it throws
        /// ``StoreError/newerStoreNotAdditive(storeVersion:appVersion:firstIncompatibleChange:at:)`` or
        /// ``StoreError/newerStoreRecordsNoCompatibility(storeVersion:appVersion:)`` and the file is left
        /// byte-identical.
        ///
        /// What this app's writes do to the newer data: rows it does not touch keep every value; rows it
        /// inserts get NULL or the column default in the columns it does not know; an `UPDATE` (GRDB's
        /// `update`, `updateChanges`) keeps them; a delete-and-reinsert (`INSERT OR REPLACE`, GRDB's
        /// `insert(onConflict: .replace)`, `save` of a record whose table declares `.replace`) resets them
        /// to NULL or their default; its deletes cascade into newer tables through their
        /// `ON DELETE CASCADE` foreign keys (or set them NULL), as SQLite enforces them.
        ///
        /// ```swift
        /// options.newerStorePolicy = .openIfAdditive   // an older app keeps working after a downgrade
        /// ```
        ///
        /// As ``StoreOptions/unknownStorePolicy`` it refuses, like ``refuse``.
        case openIfAdditive
    }

    /// When the store's version record is checked against its tables before it is believed.
    ///
    /// A store records its version, and SQLite's schema cookie as lucidgen's last schema change left it.
    /// An honest change of the schema since (the app's own DDL, `VACUUM`, a first `ANALYZE`, a step by an
    /// older runtime) changes the cookie, and the next open checks the tables once. An edited record keeps
    /// the cookie, so a file from outside the app (an import, a shared document, a support request)
    /// should be checked on every open: ``always``.
    public enum VersionRecordCheck: Sendable, Equatable {
        /// When the schema changed since the record was written (the default): an up-to-date store whose
        /// cookie matches opens on the launch path (one query), trusting the record.
        case whenSchemaChanged
        /// On every open: the tables are compared with the recorded version's (about as costly as reading
        /// the schema), and a record they contradict is refused
        /// (``StoreError/recordContradictsTables(path:version:differences:tablesMatch:)``).
        case always
    }

    /// What one transaction covers.
    public enum Atomicity: Sendable, Equatable {
        /// Each step commits with its version record; a crash resumes from the last committed step.
        case perStep
        /// The whole path commits at once or not at all.
        case wholePath
    }

    /// What to do with a store written by a newer app (default: refuse).
    ///
    /// ```swift
    /// options.newerStorePolicy = .openReadOnly   // show the data, never migrate it down
    /// ```
    public var newerStorePolicy: IncompatibleStorePolicy = .refuse
    /// What to do with a store whose version or schema this app does not know (default: refuse;
    /// `.eraseAndRecreate` only in development builds).
    public var unknownStorePolicy: IncompatibleStorePolicy = .refuse
    /// When the version record is checked against the tables (default: when the schema changed since
    /// it was written). Set `.always` for a file that comes from outside the app.
    ///
    /// ```swift
    /// options.versionRecordCheck = .always   // a document the user imported: never trust its record
    /// ```
    public var versionRecordCheck: VersionRecordCheck = .whenSchemaChanged
    /// Defer dropping columns and tables and creating indexes; finish later with
    /// ``LucidStore/finishDeferredCleanup(_:registry:logger:)`` (or automatically before the next
    /// migration step that works on those tables). Each item is rebuilt from the registry when it runs,
    /// never from the SQL the store holds.
    public var deferCleanup = false
    /// One transaction per step (default) or for the whole path.
    public var atomicity: Atomicity = .perStep
    /// The app's stages (see ``MigrationStage``): for a generated registry, what its `stages(using:)` returns.
    /// Every stage on a store's path must be here, with the row transforms its step needs, before any
    /// step runs (``StoreError/missingStages(path:storeVersion:target:missing:registry:)``).
    public var stages: [MigrationStage] = []
    /// Stages known to exist but whose code is not available here (the CLI): the planner routes through
    /// them, the path runs up to one (the steps before it commit, unless ``atomicity`` is
    /// ``Atomicity/wholePath``), and running it fails with ``StoreError/missingStage(_:)`` instead of
    /// skipping it. A stage of the app's registry is not one of these: when ``stages`` lacks its code,
    /// opening throws ``StoreError/missingStages(path:storeVersion:target:missing:registry:)`` before the
    /// first step.
    package var declaredStages: [ExplicitStage] = []
    /// Data-only migrations keyed by version (see ``DataMigration``).
    public var dataMigrations: [DataMigration] = []
    /// How long to wait for another connection (e.g. another process migrating the same store, or an
    /// app reading it), in seconds.
    ///
    /// It bounds each migration step as a whole: every lock wait of the step's transaction (at its
    /// start, at each statement whose page cache spills into the file while another connection reads
    /// in rollback-journal mode, at its commit) shares one deadline, so a step that cannot get its
    /// locks fails with ``StoreError/locked(path:waited:)`` after about this long, not after this long
    /// per wait. After the migration, the connection ``LucidStore`` returns waits up to this long at
    /// each lock, as SQLite's busy timeout does. ``LucidMigrator`` keeps the app's own busy mode.
    ///
    /// ```swift
    /// options.busyTimeout = 5   // give up a step after about 5 s of waiting for other connections
    /// ```
    ///
    /// A value past ``maximumBusyTimeout`` (`.infinity` included) waits that long; a negative one or NaN
    /// does not wait.
    public var busyTimeout: TimeInterval = 60

    /// The longest busy timeout, in seconds: SQLite's busy timeout is a 32-bit count of milliseconds
    /// (about 24.8 days); a day fewer, so that no conversion is near the bound.
    public static let maximumBusyTimeout: TimeInterval = 2_000_000

    /// `seconds` as the runtime waits it: at most ``maximumBusyTimeout`` (infinity too), 0 for a negative
    /// value or NaN. A busy timeout becomes a duration and SQLite's milliseconds, conversions that trap
    /// on a value out of range.
    package static func boundedBusyTimeout(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return 0 } // NaN too
        return min(seconds, maximumBusyTimeout)
    }
    /// Base GRDB configuration (e.g. `prepareDatabase` for pragmas, encryption, tracing).
    public var configuration = Configuration()
    /// Logs at `.info` for each step, `.trace` for every SQL statement.
    public var logger = Logger(label: "lucidgen.store")
    /// Called as the migration advances (from the migrating thread).
    public var progress: (@Sendable (MigrationProgress) -> Void)?
    /// Asked after each committed step of a path (``Atomicity/perStep``): true stops the path there, the
    /// store at that step's version, and the call returns it so (``MigrationOutcome/finalVersion``). What a
    /// fleet run uses to let a cancelled run's stores in flight end at their current step
    /// (``StoreFleet``).
    package var stopBetweenSteps: (@Sendable () -> Bool)?

    /// The defaults: refuse incompatible stores, one transaction per step, a 60 s busy timeout.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.stages = FlightLogSchema.stages(using: FlightLogStages())
    /// options.progress = { print($0.step, $0.totalSteps, $0.operation) }
    /// ```
    /// What opening does with a Core Data store: converts it when the app set `coreDataOrigin` (which the
    /// LucidCoreData product adds, with `keepsCoreDataBackup`); refuses it, unchanged, otherwise.
    package var conversion: (any StoreConversion)?

    /// Whether a store whose tables contradict its version record (a development build's store, a
    /// column added or dropped by hand) is brought back to the recorded version when every difference is
    /// inferable without data of its own: a column the version has and the store lacks, nullable or with a
    /// constant default, and not a key (added); a column the version does not have that holds no value
    /// and is not a key (dropped); an index the version has (created). The repair runs in one transaction,
    /// checked against the recorded version's tables before it commits (anything else that differs rolls it
    /// back and refuses the store, byte-identical), then the store migrates on;
    /// ``MigrationOutcome/drift`` lists each repair. Default `false`: a record its tables contradict is
    /// not believed (``StoreError/recordContradictsTables(path:version:differences:tablesMatch:)``).
    ///
    /// Safe when the differences are known to be the app's own doing (a development build, an edit while
    /// debugging) and the recorded version is what the app wrote; not for a store from elsewhere, whose
    /// record may be a lie (see <doc:Trust>). Only ``LucidStore/open(atPath:registry:options:)`` and
    /// ``LucidMigrator`` repair (and `lucidgen migrate --accept-drift`); `inspect` reports the contradiction as
    /// before, and `lucidgen plan --accept-drift` lists the repairs and the steps after them without making them.
    ///
    /// The repair commits on its own, before the store is adopted and migrated on (under
    /// ``Atomicity/wholePath`` too): a crash after it leaves the version's tables exactly, which the next open
    /// takes with or without this setting.
    ///
    /// A store without lucidgen's record whose tables are no version's exactly is taken the same way: brought
    /// to the one version nearest it (the version its `user_version` names, else the one with the fewest
    /// differences; two as near are refused), then adopted.
    public var acceptsInferableDrift = false

    public init() {}
}
