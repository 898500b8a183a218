import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

/// Opens SQLite stores for a generated schema registry, migrating them to the newest version.
///
/// ```swift
/// let database = try LucidStore.open(atPath: url.path, registry: FlightLogSchema.self).database
/// let aircraft = try database.read { db in try Aircraft.fetchAll(db) }   // import GRDB
/// ```
///
/// A new file is created directly at the newest version. An existing store is recognised by the
/// version and checksum recorded inside it, migrated along the cheapest path,
/// and validated against the newest schema. A store from a newer app, or one whose schema this app
/// does not know, is refused with a ``StoreError`` unless ``StoreOptions`` chooses another policy.
public enum LucidStore {
    /// Opens (or creates) the store at `path`, migrates it to the registry's newest version, and tells
    /// what this call did (``MigrationOutcome``), which may differ from what the store needed when it was
    /// inspected: another process may have migrated it meanwhile.
    ///
    /// ```swift
    /// let opened = try LucidStore.open(atPath: url.path, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
    /// if opened.outcome.changedTheStore { logger.info("store: \(opened.outcome)") }
    /// let aircraft = try opened.database.read { db in try Aircraft.fetchAll(db) }   // import GRDB
    /// ```
    ///
    /// Opening a store that is already at the newest version (every launch but the first after an
    /// update) reads its version record and compares it with the registry's `newestVersion` and
    /// checksum: no schema is built, no planner, no checksum computed. Anything else takes the full
    /// path (registry check, state decision, planner, migration, validation).
    public static func open<Registry: SchemaRegistry>(
        atPath path: String, registry: Registry.Type, options: StoreOptions = StoreOptions()
    ) throws(StoreError) -> OpenedStore {
        if let upToDate = try StoreMigrator.openIfCurrent(
            atPath: path, version: registry.newestVersion, checksum: registry.newestChecksum, options: options)
        {
            return OpenedStore(
                database: upToDate,
                outcome: MigrationOutcome(start: .version(registry.newestVersion, adopted: false), finalVersion: registry.newestVersion))
        }
        try checkRegistry(registry)
        return try open(atPath: path, history: SchemaHistory(registry: registry), options: options)
    }

    /// ``open(atPath:registry:options:)`` for a schema history (lucidgen's own tools and tests).
    package static func open(atPath path: String, history: SchemaHistory, options: StoreOptions = StoreOptions()) throws(StoreError)
        -> OpenedStore
    {
        let migrator = try StoreMigrator(path: path, history: history, options: options)
        let (database, outcome) = try migrator.openAndMigrate()
        return OpenedStore(database: database, outcome: outcome)
    }

    /// ``open(atPath:registry:options:)`` for a list of versions, oldest first (lucidgen's own tools and tests).
    package static func open(atPath path: String, versions: [Schema], options: StoreOptions = StoreOptions()) throws(StoreError)
        -> OpenedStore
    {
        try open(atPath: path, history: SchemaHistory(versions: versions), options: options)
    }

    /// Creates a new store at a given (possibly old) version, e.g. to test migrations from it or to
    /// write a fixture. Fails if the file exists. `dataMigrations` up to `version` are recorded as not
    /// needed, as an app at that version would have done when it created the store. Its compatibility
    /// record (``StoreLedger/compatibility``) classifies the steps up to `version` with `dataMigrations`
    /// and the history's `stages` (pass the registry's, e.g. `FlightLogSchema.stages`, for a record
    /// like the app's).
    package static func create(
        atPath path: String, versions: [Schema], version: SchemaVersion, dataMigrations: [DataMigration] = [], stages: [ExplicitStage] = [],
        configuration: Configuration = Configuration()
    ) throws(StoreError) -> DatabaseQueue {
        guard let schema = versions.first(where: { $0.version == version }) else {
            throw .unknownVersion(version, known: versions.map(\.version))
        }
        let decision = try StoreMigrator(path: path, history: SchemaHistory(versions: versions), options: StoreOptions()).decide()
        guard case .newFile = decision else { throw .cannotWrite(path: path, message: "the file already exists (\(decision.summary))") }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { db in
                for statement in schema.ddl { try db.execute(sql: statement) }
                try Bookkeeping.write(schema, from: nil, kind: "create", label: "created at \(schema.version)", db)
                try CompatibilityRecorder(history: SchemaHistory(versions: versions, stages: stages), dataMigrations: dataMigrations)
                    .record(db, at: schema.version)
                for migration in dataMigrations where migration.version <= schema.version {
                    try DataMigrationRecords.record(migration, outcome: "not needed: created at \(schema.version)", db)
                }
                try Bookkeeping.recordSchemaCookie(db)
            }
            return queue
        } catch {
            throw StoreMigrator.storeError(error, path: path, step: "create", version: version)
        }
    }

    /// ``inspect(atPath:registry:busyTimeout:)`` for a list of versions and the stages that need the app's code.
    package static func inspect(
        atPath path: String, versions: [Schema], stages: [ExplicitStage] = [], busyTimeout: TimeInterval = 60,
        conversion: (any StoreConversion)? = nil
    ) throws(StoreError) -> StoreStatus {
        try inspect(
            atPath: path, history: SchemaHistory(versions: versions, stages: stages), busyTimeout: busyTimeout, conversion: conversion)
    }

    /// What the store at `path` is and what opening it would do, without changing it.
    ///
    /// It runs the same decision as ``open(atPath:registry:options:)`` and throws the same refusals,
    /// and it also reads every page (`PRAGMA quick_check`), so that damage a migration would meet
    /// anywhere in the file is refused now (``StoreError/corrupt(path:message:)``); `open` does not, to
    /// keep an app's launch fast, and refuses such damage when a step reads it (rolled back).
    /// `busyTimeout` is how long to wait for a connection that holds a lock on the store.
    ///
    /// ```swift
    /// let status = try LucidStore.inspect(atPath: path, registry: FlightLogSchema.self)
    /// if status.needsMigration { print(status.steps.map(\.label)) }
    /// ```
    public static func inspect<Registry: SchemaRegistry>(atPath path: String, registry: Registry.Type, busyTimeout: TimeInterval = 60)
        throws(StoreError) -> StoreStatus
    {
        try checkRegistry(registry)
        return try inspect(atPath: path, history: SchemaHistory(registry: registry), busyTimeout: busyTimeout)
    }

    /// ``inspect(atPath:registry:busyTimeout:)`` for a schema history (lucidgen's own tools and tests).
    package static func inspect(
        atPath path: String, history: SchemaHistory, busyTimeout: TimeInterval = 60, conversion: (any StoreConversion)? = nil,
        acceptsInferableDrift: Bool = false
    ) throws(StoreError) -> StoreStatus {
        // Not a read-only connection: after a crash, SQLite must roll back the hot journal before any
        // read, which needs write access. Nothing else is written.
        var options = StoreOptions()
        options.conversion = conversion
        options.busyTimeout = busyTimeout
        options.acceptsInferableDrift = acceptsInferableDrift
        // Nothing may be written here, so no cookie is recorded: the tables are checked every time.
        options.versionRecordCheck = .always
        let migrator = try StoreMigrator(path: path, history: history, options: options)
        return try migrator.inspect()
    }

    /// Runs the cleanup deferred by ``StoreOptions/deferCleanup``, in one transaction. Returns how many
    /// items ran.
    ///
    /// ```swift
    /// try LucidStore.finishDeferredCleanup(database, registry: FlightLogSchema.self)
    /// ```
    ///
    /// Each item is rebuilt from the registry: it runs (as one statement lucidgen writes) only when the
    /// registry's step into the version that recorded it deferred exactly that drop or index, and the
    /// store still holds what it removes. The SQL text a store carries is never run (a store is untrusted
    /// input). An item the registry cannot account for stays pending, neither run nor deleted:
    /// ``StoreLedger/PendingCleanupItem/verdict`` (read with the versions) and `lucidgen status` say why.
    @discardableResult
    public static func finishDeferredCleanup<Registry: SchemaRegistry>(
        _ database: DatabaseQueue, registry: Registry.Type, logger: Logger = Logger(label: "lucidgen.store")
    ) throws(StoreError) -> Int {
        try finishDeferredCleanup(database, history: SchemaHistory(registry: registry), logger: logger)
    }

    /// ``finishDeferredCleanup(_:registry:logger:)`` for a schema history (lucidgen's own tools and tests).
    @discardableResult
    package static func finishDeferredCleanup(
        _ database: DatabaseQueue, history: SchemaHistory, logger: Logger = Logger(label: "lucidgen.store")
    ) throws(StoreError) -> Int {
        let planner: MigrationPlanner
        do {
            planner = try MigrationPlanner(versions: history.versions, stages: history.stages)
        } catch {
            throw .planning(error)
        }
        do {
            return try database.writeWithForeignKeysOff { db in
                var count = 0
                try db.inTransaction(.immediate) {
                    // The cookie is recorded only where it was current: a schema change since the record was
                    // written stays visible to the next open, which checks the tables.
                    let cookieWasCurrent = try Bookkeeping.record(db).map { !$0.schemaChangedSinceRecorded } ?? false
                    count = try PendingCleanup.finish(
                        db, logger: logger, accounting: try CleanupAccounting.atRecordedVersion(planner: planner, db))
                    if cookieWasCurrent { try Bookkeeping.recordSchemaCookie(db) }
                    return .commit
                }
                return count
            }
        } catch {
            throw StoreMigrator.storeError(error, path: database.path, step: "deferred cleanup", version: nil)
        }
    }

    /// Checks that the generated checksums agree with this runtime's DDL.
    package static func checkRegistry<Registry: SchemaRegistry>(_ registry: Registry.Type) throws(StoreError) {
        // One checksum, not one per version: the newest is what the launch path trusts (newestVersion and
        // newestChecksum) and what every migration ends at, so a generator and runtime that disagree on
        // the DDL are caught here. Older versions are compared with a store's record through their
        // generated checksums (verified where the generator produced them, and by `generate --check`),
        // so a migration computes this one checksum and no other.
        guard let newest = registry.versions.last else { return }
        let checksum = newest.checksum
        if newest.version != registry.newestVersion || checksum != registry.newestChecksum || registry.checksums.last != checksum {
            throw .registryMismatch(version: newest.version, generated: registry.newestChecksum, runtime: checksum)
        }
    }
}

/// A store ``LucidStore/open(atPath:registry:options:)`` opened, and what opening it did.
public struct OpenedStore: Sendable {
    /// The open store, at the registry's newest version (or, with
    /// ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``, at a newer version this app may write).
    public let database: DatabaseQueue
    /// What this call did: created, migrated (each step), adopted, or nothing.
    public let outcome: MigrationOutcome
}

/// What a store is, and the path that opening it would take.
///
/// ```swift
/// let status = try LucidStore.inspect(atPath: path, registry: FlightLogSchema.self)
/// if status.needsMigration { showMigrationNotice(steps: status.steps.count) }
/// ```
public struct StoreStatus: Sendable {
    /// What opening the store would do: ``start`` says what the store is, ``needsMigration`` whether it
    /// would be migrated.
    @available(*, deprecated, message: "use start (a StoreState, which MigrationOutcome.start shares) and needsMigration")
    public enum State: Sendable, Equatable {
        /// No file: it would be created at the newest version.
        case missing
        /// An empty database: it would be initialised at the newest version.
        case empty
        /// A file of zero bytes, which SQLite reads as an empty database: it would be initialised at the
        /// newest version, like a new file.
        case emptyFile
        /// At the newest version.
        case current
        /// At an older version, with this path to the newest.
        case needsMigration
    }

    /// What the store is now: where opening it starts (what the outcome's ``MigrationOutcome/start``
    /// says, unless another process changes the store first).
    public var start: StoreState
    /// Whether opening it would migrate it: a path to the newest version (``steps``), or a Core Data
    /// store to convert (``coreDataModel``).
    public var needsMigration: Bool { !steps.isEmpty || coreDataModel != nil }
    /// What opening it would do.
    @available(*, deprecated, message: "use start (a StoreState, which MigrationOutcome.start shares) and needsMigration")
    public var state: State {
        switch start {
        case .newFile: .missing
        case .emptyFile: .emptyFile
        case .emptyDatabase: .empty
        case .version: needsMigration ? .needsMigration : .current
        }
    }
    /// The recorded version (nil for a missing or empty store).
    public var version: SchemaVersion?
    /// The recorded checksum of the version's DDL (nil for a missing or empty store).
    public var checksum: String?
    /// Whether the version was recognised from the tables (a store without lucidgen's records).
    public var adopted: Bool
    /// A store recognised from its tables whose `PRAGMA user_version` N names another version of the
    /// history (N.0) than its tables are: what `lucidgen plan` says about it (the runtime logs it).
    package var userVersionDisagreement: String?
    /// The path to the newest version, in order (empty when current).
    public var steps: [MigrationStep]
    /// Rows per table, for estimating work.
    public var rowCounts: [String: Int]
    /// Deferred cleanup items not yet run (see ``StoreOptions/deferCleanup``).
    public var pendingCleanup: Int
    /// What the app keeps in the store beside lucidgen's tables (its tables, FTS and other virtual
    /// tables, views, triggers, indexes), in the order SQLite created them: every step keeps these.
    public var appObjects: [AppObject] = []
    /// The steps of ``steps`` that would refuse because they cannot keep some of ``appObjects``, with
    /// what each finds (the same findings as the step's ``StoreError/appObjectsInTheWay(step:from:to:conflicts:)``,
    /// unless the stage's `willMigrate` removes the objects first).
    public var appObjectConflicts: [StepConflicts] = []
    /// A Core Data store (LucidCoreData's `StoreOptions.coreDataOrigin`): the model version its layout is. Opening it
    /// converts it into lucidgen's tables of ``version`` first, then takes ``steps``.
    public var coreDataModel: String?
    /// With ``coreDataModel``: what the conversion will write (LucidCoreData's `coreDataConversion`).
    package var conversionReport: ConversionReport?
    /// Inspected with ``StoreOptions/acceptsInferableDrift`` (`lucidgen plan --accept-drift`), a store whose
    /// tables drifted from ``version``: each repair opening it makes first, e.g. `added column note.pinned (NULL)`.
    package var drift: [String] = []

    /// The app's objects that one step of the path cannot keep.
    public struct StepConflicts: Sendable {
        public var step: MigrationStep
        public var conflicts: [AppObjectConflict]
    }
}
