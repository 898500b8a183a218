import Foundation
import GRDB
import LucidSQLiteShims
@_spi(Generated) import LucidSchema
import Logging

/// Opens one store file and brings it to the newest version.
struct StoreMigrator {
    let path: String
    let history: SchemaHistory
    let options: StoreOptions
    let planner: MigrationPlanner
    /// Whether a migration may follow the registry's routes (``plan(from:)``).
    let routesApply: Bool
    /// Writes the compatibility record with every version record (classifying each step once).
    let compatibility: CompatibilityRecorder
    var versions: [Schema] { history.versions }
    var logger: Logger { options.logger }
    var newest: Schema { versions[versions.count - 1] }
    /// The busy handler of the connections this migrator opens: one deadline per step transaction
    /// (``LockDeadline``). Nil on a connection the app made (``LucidMigrator``): its own busy mode
    /// applies, which this runtime does not change.
    var lockDeadline: LockDeadline?

    /// The planner routes through the history's stages and ``StoreOptions/declaredStages``; the app's
    /// ``StoreOptions/stages`` provide the code for those it runs.
    init(path: String, history: SchemaHistory, options: StoreOptions) throws(StoreError) {
        guard !history.versions.isEmpty else { throw .planning(.noRoute(from: SchemaVersion("0.0"), to: SchemaVersion("0.0"), blocked: [])) }
        self.path = path
        self.history = history
        self.options = options
        do {
            let provided = options.stages.map(\.explicit)
            let declared = (options.declaredStages + history.stages).filter { stage in !provided.contains { $0.from == stage.from && $0.to == stage.to } }
            var unique: [ExplicitStage] = []
            for stage in declared where !unique.contains(where: { $0.from == stage.from && $0.to == stage.to }) { unique.append(stage) }
            self.planner = try MigrationPlanner(versions: history.versions, stages: provided + unique)
            // The registry's routes hold only for the stages it was planned with (same versions and transformed
            // tables): declaredStages or an app stage the registry does not list would change the graph.
            func key(_ stage: ExplicitStage) -> String { "\(stage.from) \(stage.to) \(stage.transformedTables.sorted())" }
            self.routesApply = !history.routes.isEmpty && Set(planner.stages.map(key)) == Set(history.stages.map(key))
        } catch {
            throw .planning(error)
        }
        self.compatibility = CompatibilityRecorder(history: history, options: options)
        self.lockDeadline = LockDeadline(timeout: options.busyTimeout)
    }

    /// The steps from `version` to the newest: along the registry's route for it when the route was
    /// computed for the stages this migration plans with (the history's; the app's code for them does
    /// not change the path), inferring only those steps; else planned (to the same path, inferring every
    /// consecutive step on the way).
    func plan(from version: SchemaVersion) throws(PlanningError) -> [MigrationStep] {
        if let route = history.routes[version], routesApply, let steps = planner.plan(along: route, from: version) { return steps }
        return try planner.plan(from: version)
    }

    private var configuration: Configuration {
        var configuration = options.configuration
        configuration.busyMode = lockDeadline?.busyMode ?? .timeout(options.busyTimeout)
        configuration.label = "lucidgen store"
        return configuration
    }

    private func makeQueue(readOnly: Bool = false) throws(StoreError) -> DatabaseQueue {
        var configuration = self.configuration
        if readOnly {
            configuration.readonly = true
            configuration.schemaSource = ReadOnlyStandIns.PrimaryKeys(newest, app: configuration.schemaSource)
        }
        let began = Date()
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Self.storeError(error, path: path, step: "open", version: nil, since: began)
        }
    }

    // MARK: The store's state

    /// What a store file is: the one decision that opening, inspecting, creating, migrating together
    /// and the CLI's `plan`/`migrate` all take (through ``decideState(_:)``), so they cannot drift.
    enum StoreState {
        /// No file: it would be created at the newest version.
        case newFile
        /// A file of zero bytes. SQLite reads it as an empty database, and apps often create the file
        /// before opening it, so it is initialised like a new file; the outcome and `plan` say so (a
        /// failed copy also leaves zero bytes, but then there is nothing left to keep).
        case emptyFile
        /// A database without a table the history describes (empty, or holding only the app's own
        /// objects, e.g. an app that adds lucidgen to its GRDB database): it would be initialised at the
        /// newest version beside them.
        case emptyDatabase
        /// At a version this app knows, with a matching checksum: `recorded` in lucidgen's version record,
        /// or adoptable (no record, its tables match that version exactly). Both get the same treatment:
        /// the path to the newest version, then the data migrations not yet run.
        /// `recorded`: by its version record (else recognised from its tables). `schemaCookieStale`: the
        /// record's schema cookie is not the store's (the tables were checked against the record, and
        /// agree): the next transaction that may write records the cookie.
        case known(Schema, recorded: Bool, schemaCookieStale: Bool = false)
        /// A recorded version newer than this app's newest.
        case newer(SchemaVersion)
        /// A recorded version this app does not know.
        case unknownVersion(SchemaVersion)
        /// A known recorded version whose checksum is not this app's.
        case checksumMismatch(SchemaVersion, stored: String, expected: String)
        /// Tables but no record, matching no known version (the closest version's differences).
        case unrecognized(differences: [String])
        /// A version record that the store's tables contradict (checked when the schema changed since
        /// the record was written, or always under ``StoreOptions/VersionRecordCheck/always``);
        /// `tablesMatch` is the version the tables are, when they are exactly one.
        case contradicted(SchemaVersion, differences: [String], tablesMatch: SchemaVersion?)
        /// The file is not an SQLite database.
        case notADatabase
        /// A Core Data store, and the app gave the origin of its history (``StoreOptions/coreDataOrigin``):
        /// it converts into lucidgen's tables of the version its layout is, then migrates on.
        case coreData(CoreDataStoreLayout)

        /// A few words for messages.
        var summary: String {
            switch self {
            case .newFile: "no file"
            case .emptyFile: "an empty (0-byte) file"
            case .emptyDatabase: "a database without lucidgen's tables"
            case .known(let schema, let recorded, _): "a store at version \(schema.version)\(recorded ? "" : ", recognised from its tables")"
            case .newer(let version): "a store at version \(version), newer than this app's"
            case .unknownVersion(let version): "a store at unknown version \(version)"
            case .checksumMismatch(let version, _, _): "a store at version \(version) with another schema checksum"
            case .unrecognized: "a database whose tables match no known version"
            case .contradicted(let version, _, _): "a store whose record says \(version) but whose tables are not \(version)'s"
            case .notADatabase: "not an SQLite database"
            case .coreData: "a Core Data store"
            }
        }

        /// Why the store cannot be opened normally, and the policy that decides what happens then.
        func refusal(path: String, versions: [Schema], options: StoreOptions) -> (StoreError, StoreOptions.IncompatibleStorePolicy)? {
            switch self {
            case .newFile, .emptyFile, .emptyDatabase, .known, .coreData: nil
            case .newer(let version): (.storeIsNewer(storeVersion: version, newestKnown: versions[versions.count - 1].version), options.newerStorePolicy)
            case .unknownVersion(let version): (.unknownVersion(version, known: versions.map(\.version)), options.unknownStorePolicy)
            case .checksumMismatch(let version, let stored, let expected): (.checksumMismatch(version: version, stored: stored, expected: expected), options.unknownStorePolicy)
            case .unrecognized(let differences): (.unrecognizedSchema(path: path, differences: differences), options.unknownStorePolicy)
            case .contradicted(let version, let differences, let tablesMatch):
                (.recordContradictsTables(path: path, version: version, differences: differences, tablesMatch: tablesMatch), options.unknownStorePolicy)
            case .notADatabase: (.notADatabase(path: path), .refuse)
            }
        }
    }

    /// Decides the state of the store at `path`, without changing it.
    func decideState() throws(StoreError) -> StoreState {
        if let start = fileStart() { return start }
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        return try decideState(queue)
    }

    /// `.newFile` or `.emptyFile` when the file says so before SQLite opens it; nil for a file with content.
    func fileStart() -> StoreState? {
        guard let size = Self.fileSize(atPath: path) else { return .newFile }
        return size == 0 ? .emptyFile : nil
    }

    /// Decides the state of the existing store open in `reader`, without changing it.
    func decideState(_ reader: some DatabaseReader) throws(StoreError) -> StoreState {
        let began = Date()
        do {
            return try reader.read { db in try decideState(db) }
        } catch {
            return try Self.stateOrError(error, path: path, since: began)
        }
    }

    /// The decision itself, on a connection the caller holds.
    private func decideState(_ db: Database) throws -> StoreState {
        if let record = try Bookkeeping.record(db) {
            guard let version = try? SchemaVersion(parsing: record.version) else {
                throw StoreError.corrupt(path: path, message: "its version record '\(record.version)' is not a version")
            }
            if version > newest.version { return .newer(version) }
            guard let schema = versions.first(where: { $0.version == version }) else { return .unknownVersion(version) }
            let expected = history.checksum(of: schema)
            guard expected == record.checksum else { return .checksumMismatch(version, stored: record.checksum, expected: expected) }
            // The record is believed as it is only when the schema has not changed since it was written
            // (SQLite's schema cookie): the launch path's trust. Otherwise, or when the app asks for it
            // (a file from outside), the tables must be the recorded version's.
            let stale = record.schemaChangedSinceRecorded
            if stale || options.versionRecordCheck == .always {
                let differences = try recordedTablesDifferences(schema, db)
                if !differences.isEmpty {
                    return .contradicted(version, differences: differences, tablesMatch: try versionOfTables(db))
                }
            }
            return .known(schema, recorded: true, schemaCookieStale: stale)
        }
        // A Core Data store is never taken for an app's database to initialise lucidgen's tables beside.
        if let coreData = try CoreDataStoreLayout.read(db) {
            return options.coreDataOrigin == nil ? .unrecognized(differences: [coreData.refusal]) : .coreData(coreData)
        }
        // Only what the history describes counts: the app's own tables, views, triggers, FTS indexes and
        // indexes may be there (a store shared with the app, or one the app had before it adopted lucidgen).
        let owned = OwnedNames(versions)
        let tables = try StoreSchemaReader.tables(db, owned: owned)
        if tables.isEmpty { return .emptyDatabase }
        let search = try StoreSchemaReader.searchObjects(db, owned: owned)
        var closest: [String] = []
        for schema in versions.reversed() {
            let differences = StoreSchemaReader.differences(expected: schema, actual: tables, search: search)
            if differences.isEmpty { return .known(schema, recorded: false) }
            if closest.isEmpty || differences.count < closest.count { closest = differences }
        }
        return .unrecognized(differences: closest)
    }

    /// How the store's tables differ from `schema`, the version its record names: lucidgen's tables
    /// only (the app's objects are its own), deferred cleanup tolerated. Empty when they agree.
    private func recordedTablesDifferences(_ schema: Schema, _ db: Database) throws -> [String] {
        let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
        let owned = OwnedNames([schema], pendingCleanup: pending)
        return StoreSchemaReader.differences(
            expected: schema, actual: try StoreSchemaReader.tables(db, owned: owned), search: try StoreSchemaReader.searchObjects(db, owned: owned),
            tolerated: PendingCleanup.tolerance(of: pending))
    }

    /// The version whose tables the store has exactly, newest first, ignoring its record (for a refusal's
    /// message); nil when none.
    private func versionOfTables(_ db: Database) throws -> SchemaVersion? {
        let owned = OwnedNames(versions)
        let tables = try StoreSchemaReader.tables(db, owned: owned)
        let search = try StoreSchemaReader.searchObjects(db, owned: owned)
        return versions.reversed().first { StoreSchemaReader.differences(expected: $0, actual: tables, search: search).isEmpty }?.version
    }

    /// A file SQLite cannot read as a database is a state (refused, or erased by the app's policy); any
    /// other error is thrown.
    private static func stateOrError(_ error: any Error, path: String, since: Date? = nil) throws(StoreError) -> StoreState {
        if let error = error as? StoreError { throw error }
        let mapped = storeError(error, path: path, step: "open", version: nil, since: since)
        if case .notADatabase = mapped { return .notADatabase }
        throw mapped
    }

    // MARK: Opening

    /// The file's size, or nil when there is no file there: one `stat` call. `FileManager`'s
    /// `attributesOfItem` builds every attribute (owner names through the user database included) and
    /// cost more than the rest of an up-to-date store's launch path (issue 14).
    static func fileSize(atPath path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// The launch path: the store at `path` opened as is when its record says it is at `version` with
    /// `checksum`, recorded with the schema cookie the store has now (nothing changed its schema since),
    /// and every data migration of `options` is recorded; nil (nothing changed, the connection closed)
    /// when anything else holds, for the full path to decide. One or two queries. Never taken under
    /// ``StoreOptions/VersionRecordCheck/always``.
    static func openIfCurrent(atPath path: String, version: SchemaVersion, checksum: String, options: StoreOptions) throws(StoreError) -> DatabaseQueue? {
        guard options.versionRecordCheck == .whenSchemaChanged, let size = fileSize(atPath: path), size > 0 else { return nil }
        var configuration = options.configuration
        // One read, no step: SQLite's own timeout, which a disarmed ``LockDeadline`` equals.
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.label = "lucidgen store"
        let began = Date()
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            // Locked stores are reported now (waiting twice would double the wait); the rest is the full path's.
            if case .locked = storeError(error, path: path, step: "open", version: nil, since: began) {
                throw storeError(error, path: path, step: "open", version: nil, since: began)
            }
            return nil
        }
        do {
            let current = try queue.read { db -> Bool in
                typealias S = LedgerTables.Store
                // A record without the cookie column (an older runtime's) fails to prepare: the full path then.
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT \(S.version), \(S.checksum), \(S.schemaCookie) IS (SELECT schema_version FROM pragma_schema_version) FROM \(S.name) WHERE id = 1"),
                    row[0] == version.string, row[1] == checksum, row[2] == true
                else { return false }
                if options.dataMigrations.isEmpty { return true }
                typealias D = LedgerTables.DataMigrations
                guard try db.tableExists(D.name) else { return false }
                let recorded = Set(try Row.fetchAll(db, sql: "SELECT \(D.version), \(D.label) FROM \(D.name)").map { "\($0[D.version] as String) \($0[D.label] as String)" })
                return options.dataMigrations.allSatisfy { recorded.contains("\($0.version.string) \($0.label)") }
            }
            if current { return queue }
        } catch {
            if case .locked = storeError(error, path: path, step: "open", version: nil, since: began) {
                closeLeavingFilesAsTheyAre(queue)
                throw storeError(error, path: path, step: "open", version: nil, since: began)
            }
        }
        closeLeavingFilesAsTheyAre(queue)
        return nil
    }

    /// Opens the file (creating it if missing), applies the app's file policies, and brings it to the
    /// newest version.
    func openAndMigrate() throws(StoreError) -> (DatabaseQueue, MigrationOutcome) {
        let start = fileStart()
        let began = Date()
        let companions = StoreFiles.companions.filter { Self.fileSize(atPath: path + $0) != nil }
        let queue: DatabaseQueue
        do {
            queue = try makeQueue()
        } catch {
            removeEmptyCompanions(except: companions)
            throw error
        }
        do {
            return (queue, try bringUpToDate(queue, fileStart: start))
        } catch let refusal as Refusal {
            return try incompatible(queue, policy: refusal.policy, refusal.error)
        } catch {
            let failure = rolledBack(Self.storeError(error, path: path, step: "open", version: nil, since: began), closing: queue)
            if case .newFile = start { removeFileThisCallCreated(queue) }
            try? queue.close()
            removeEmptyCompanions(except: companions)
            throw failure
        }
    }

    /// After a failure, once this call's connection is closed: a `-wal` this call created and left empty
    /// (no frame, so nothing to keep) goes, with the `-shm` beside it if this call created that too. SQLite
    /// deletes both itself when the last connection closes, unless the disk is too full to check the WAL;
    /// a `-wal` holding frames, or one that was there before, always stays.
    private func removeEmptyCompanions(except existing: [String]) {
        guard !existing.contains("-wal"), Self.fileSize(atPath: path + "-wal") == 0 else { return }
        try? FileManager.default.removeItem(atPath: path + "-wal")
        if !existing.contains("-shm") { try? FileManager.default.removeItem(atPath: path + "-shm") }
    }

    /// Whether the volume of `path` is (nearly) full: under 1 MiB left. SQLite reports `SQLITE_FULL` only
    /// where it sees the space run out itself; in WAL mode a `-wal` or `-shm` that cannot grow (`ENOSPC`
    /// from `write` or `fallocate`) is `SQLITE_IOERR` or `SQLITE_CANTOPEN` instead, which this tells apart
    /// from a folder that cannot be written.
    static func volumeIsFull(at path: String) -> Bool {
        var volume = statvfs()
        guard statvfs((path as NSString).deletingLastPathComponent, &volume) == 0 else { return false }
        return UInt64(volume.f_bavail) * UInt64(volume.f_frsize) < 1 << 20
    }

    /// After a failed creation: the file this call created, still without a table (the creating transaction
    /// rolled back; in WAL mode SQLite has written the file's header), is removed with its companions, so
    /// that a failed open leaves no file that was not there. A file that holds anything (another process
    /// created the store meanwhile) stays.
    private func removeFileThisCallCreated(_ queue: DatabaseQueue) {
        try? queue.close()
        if Self.fileSize(atPath: path) != 0 {
            guard let reader = try? DatabaseQueue(path: path),
                let objects = try? reader.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }),
                (try? reader.close()) != nil, objects == 0
            else { return }
        }
        try? StoreFiles.remove(path)
    }

    /// `error`, after making ``StoreError/diskFull(path:journalLeft:)`` true: in rollback-journal mode,
    /// when the disk fills while SQLite writes a step's pages into the file, SQLite cannot roll the
    /// step back then; it leaves the `-journal` hot beside the file (its copy of the original pages)
    /// and the file possibly half-written, for the next connection that reads it to roll back. So the
    /// connection is closed and the file read once more on a new one, which rolls the journal back
    /// (rewriting the original pages in place and truncating the file: no new space needed) and
    /// deletes it. If that read fails (another connection holds a lock past the busy timeout), the
    /// error says that the `-journal` must stay beside the file. In WAL mode nothing is left to undo.
    private func rolledBack(_ error: StoreError, closing queue: DatabaseQueue) -> StoreError {
        guard case .diskFull = error else { return error }
        try? queue.close()
        guard let reader = try? makeQueue() else { return Self.diskFull(path: path, afterReading: nil) }
        defer { try? reader.close() }
        return Self.diskFull(path: path, afterReading: reader)
    }

    /// ``StoreError/diskFull(path:journalLeft:)`` after one read on `reader`: the first read transaction
    /// of a connection rolls back a hot journal before it reads (SQLite's rule), when it can get the
    /// file's exclusive lock for a moment. A `-journal` left empty or absent holds nothing to roll back.
    static func diskFull(path: String, afterReading reader: (any DatabaseReader)?) -> StoreError {
        do {
            if let reader {
                _ = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                return .diskFull(path: path)
            }
        } catch {}
        return .diskFull(path: path, journalLeft: (fileSize(atPath: path + "-journal") ?? 0) > 0)
    }

    /// A store this app cannot migrate, and the policy that decides what happens then.
    struct Refusal: Error {
        var error: StoreError
        var policy: StoreOptions.IncompatibleStorePolicy
    }

    /// Decides the store's state and does what it needs (create, adopt, migrate, late data migrations),
    /// under one barrier of `writer`: on a `DatabasePool`, reads started before wait to finish, reads
    /// started meanwhile wait, then see the new version (as GRDB's `DatabaseMigrator` does). Throws a
    /// ``Refusal`` for a store the app's policies must decide; then nothing was written.
    ///
    /// `fileStart` is what the file was before SQLite opened it (``fileStart()``); nil decides from the
    /// database alone (a connection the app made).
    func bringUpToDate(_ writer: some DatabaseWriter, fileStart: StoreState? = nil) throws -> MigrationOutcome {
        let began = Date()
        do {
            // No ATTACH while lucidgen holds the connection (the store is untrusted input).
            return try writer.barrierWriteWithoutTransaction { db in try db.withoutAttaching {
                let state: StoreState
                do {
                    state = try fileStart ?? decideState(db)
                } catch {
                    state = try Self.stateOrError(error, path: path, since: began)
                }
                var outcome: MigrationOutcome
                switch state {
                case .newFile, .emptyFile, .emptyDatabase:
                    let start: MigrationOutcome.Start = switch state {
                    case .newFile: .newFile
                    case .emptyFile: .emptyFile
                    default: .emptyDatabase
                    }
                    outcome = MigrationOutcome(start: start, finalVersion: newest.version)
                    try initialise(db, outcome: &outcome)
                    if !outcome.created { try migrate(db, outcome: &outcome) }
                case .known(let schema, let recorded, let schemaCookieStale):
                    outcome = MigrationOutcome(start: .version(schema.version, adopted: !recorded), finalVersion: schema.version)
                    // The path is planned, and its stages' code checked, before anything is written (an
                    // adopted store's record included): never half a path for want of the app's code.
                    let route = schema.version == newest.version ? [] : try plan(from: schema.version)
                    try checkStagesProvided(route, storeVersion: schema.version)
                    // An adopted store gets its record, then exactly what a recorded one gets.
                    if !recorded { try adopt(db, as: schema) }
                    if !route.isEmpty {
                        try migrate(db, outcome: &outcome, route: route)
                    } else if recorded && schemaCookieStale {
                        recordSchemaCookie(db)
                    }
                case .coreData(let layout):
                    outcome = try convertCoreData(db, layout: layout)
                case .newer(let version) where options.newerStorePolicy == .openIfAdditive:
                    // Nothing is written: no late data migration either.
                    return try openNewerIfAdditive(db, storeVersion: version)
                case .newer, .unknownVersion, .checksumMismatch, .unrecognized, .contradicted, .notADatabase:
                    let (error, policy) = state.refusal(path: path, versions: versions, options: options)!
                    throw Refusal(error: error, policy: policy)
                }
                try runLateDataMigrations(db)
                return outcome
            } }
        } catch let error as Refusal {
            throw error
        } catch {
            throw Self.storeError(error, path: path, step: "open", version: nil, since: began)
        }
    }

    /// Records the schema cookie of a store whose tables were just checked against its record (the
    /// schema changed since it was written: the app's DDL, `VACUUM`, a first `ANALYZE`, an older
    /// runtime's step), so that the next launch trusts the record again. Best effort: a store that cannot
    /// be written now (read-only media, another writer past the busy timeout) is only checked again at
    /// the next open.
    private func recordSchemaCookie(_ db: Database) {
        do {
            try stepTransaction(db) {
                try Bookkeeping.recordSchemaCookie(db)
                return .commit
            }
        } catch {
            logger.debug("could not record the schema cookie of \(path) (checked again at the next open): \(error)")
        }
    }

    private func incompatible(_ queue: DatabaseQueue, policy: StoreOptions.IncompatibleStorePolicy, _ error: StoreError) throws(StoreError) -> (DatabaseQueue, MigrationOutcome) {
        switch policy {
        case .refuse, .openIfAdditive:
            // `.openIfAdditive` never gets here for a newer store (``bringUpToDate(_:fileStart:)`` decides
            // it); as the unknown-store policy it refuses.
            Self.closeLeavingFilesAsTheyAre(queue)
            throw error
        case .openReadOnly:
            // The app's policy, taken on every launch while the store is newer: debug (the outcome says so).
            logger.debug("opening read-only: \(error)")
            Self.closeLeavingFilesAsTheyAre(queue)
            let version: SchemaVersion? = switch error {
            case .storeIsNewer(let version, _), .unknownVersion(let version, _), .checksumMismatch(let version, _, _): version
            default: nil
            }
            var outcome = MigrationOutcome(start: .version(version ?? newest.version, adopted: false), finalVersion: version ?? newest.version)
            outcome.openedReadOnly = true
            let readOnly = try makeQueue(readOnly: true)
            do {
                // What the store lacks of this app's tables, read through temporary views (nothing when it lacks nothing).
                outcome.readOnlyStandIns = try readOnly.inDatabase { db in try ReadOnlyStandIns.create(for: newest, db) }
            } catch {
                try? readOnly.close()
                throw Self.storeError(error, path: path, step: "open read-only", version: version)
            }
            if !outcome.readOnlyStandIns.isEmpty {
                logger.debug("read-only: the store lacks part of this app's tables, read as: \(outcome.readOnlyStandIns.joined(separator: ", "))")
            }
            return (readOnly, outcome)
        case .eraseAndRecreate:
            logger.warning("erasing the store, as the app's policy asks: \(error)")
            do {
                try queue.close()
                try StoreFiles.remove(path)
            } catch {
                throw StoreError.cannotWrite(path: path, message: "\(error)")
            }
            let fresh = try makeQueue()
            do {
                var outcome = try bringUpToDate(fresh, fileStart: .newFile)
                outcome.erased = true
                return (fresh, outcome)
            } catch {
                throw rolledBack(Self.storeError(error, path: path, step: "create", version: nil), closing: fresh)
            }
        }
    }

    /// Creates the newest schema in a database without lucidgen's tables (empty, or holding only the
    /// app's objects, which stay), with its version record, in one transaction.
    private func initialise(_ db: Database, outcome: inout MigrationOutcome) throws {
        do {
            let asked = Date()
            var created = false
            var foundElsewhere: SchemaVersion?
            try stepTransaction(db) {
                outcome.lockWait += Date().timeIntervalSince(asked)
                // Another process may have initialised the store meanwhile.
                if let record = try Bookkeeping.record(db) {
                    foundElsewhere = try? SchemaVersion(parsing: record.version)
                    return .commit
                }
                guard try StoreSchemaReader.tables(db, owned: OwnedNames(versions)).isEmpty else {
                    throw StoreError.unrecognizedSchema(path: path, differences: ["tables appeared while initialising"])
                }
                // The app's objects stay; none may hold a name the newest schema gives to a table or index.
                var objects = try AppObjects.read(db, owned: OwnedNames([]), precise: false)
                let conflicts = AppObjectConflict.find(in: newest.tables.map { .createTable($0) }, from: Schema(version: newest.version, tables: []), objects: &objects)
                if !conflicts.isEmpty {
                    throw StoreError.appObjectsInTheWay(step: "create \(newest.version)", from: newest.version, to: newest.version, conflicts: conflicts)
                }
                for statement in newest.ddl { try db.execute(sql: statement) }
                try Bookkeeping.write(newest, checksum: history.checksum(of: newest), from: nil, kind: "create", label: "created at \(newest.version)", db)
                try compatibility.record(db, at: newest.version)
                // Born at the newest version: no data was ever in an older shape.
                for migration in options.dataMigrations where migration.version <= newest.version {
                    try DataMigrations.record(migration, outcome: "not needed: created at \(newest.version)", db)
                }
                created = true
                return .commit
            }
            if created {
                outcome.created = true
                outcome.finalVersion = newest.version
                logger.info("created \(path) at version \(newest.version)")
            } else if let foundElsewhere {
                outcome.elsewhere.append(.init(from: nil, to: foundElsewhere))
                outcome.finalVersion = foundElsewhere
            }
        } catch {
            throw Self.storeError(error, path: path, step: "create", version: nil)
        }
    }

    /// A Core Data store: recognised from its layout, its path to the newest version planned and its
    /// stages checked (nothing is written before), a copy kept beside it, converted in one transaction
    /// into lucidgen's tables of its version (a step of the outcome), then migrated on like any store.
    private func convertCoreData(_ db: Database, layout: CoreDataStoreLayout) throws -> MigrationOutcome {
        let converter = CoreDataConverter(origin: options.coreDataOrigin!, versions: versions, path: path)
        let recognition: CoreDataConverter.Recognition
        do {
            recognition = try converter.recognise(db, layout: layout)
        } catch let refusal as CoreDataConverter.Refusal {
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [refusal.description]), policy: .refuse)
        }
        let schema = recognition.schema
        var outcome = MigrationOutcome(start: .version(schema.version, adopted: true), finalVersion: schema.version)
        let route = schema.version == newest.version ? [] : try plan(from: schema.version)
        try checkStagesProvided(route, storeVersion: schema.version)
        if options.keepsCoreDataBackup { try CoreDataBackup.keep(db, path: path) }
        let label = "converted from Core Data (model \(recognition.version.model)) at \(schema.version)"
        let began = Date()
        do {
            try db.withForeignKeysOff {
                try stepTransaction(db) {
                    // Another process may have converted it meanwhile.
                    if try Bookkeeping.record(db) != nil { return .rollback }
                    let progress = options.progress
                    progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: "starting"))
                    let log = try converter.convert(db, recognition, layout: layout) { line in
                        progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: line))
                    }
                    progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: "done"))
                    let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    if let first = dangling.first {
                        throw CoreDataConverter.Refusal(
                            description: "\(dangling.count) row\(dangling.count == 1 ? "" : "s") of the Core Data store point at rows that do not exist (first: \(first["table"] as String? ?? "?") rowid \(first["rowid"] as Int64? ?? 0) → \(first["parent"] as String? ?? "?")): nothing was changed")
                    }
                    try Bookkeeping.write(schema, checksum: history.checksum(of: schema), from: nil, kind: "coredata", label: label, started: began, db)
                    try compatibility.record(db, at: schema.version)
                    logger.info("\(label): \(log.joined(separator: "; "))")
                    return .commit
                }
            }
        } catch let refusal as CoreDataConverter.Refusal {
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [refusal.description]), policy: .refuse)
        } catch {
            throw Self.storeError(error, path: path, step: "convert from Core Data", version: schema.version)
        }
        outcome.steps.append(MigrationOutcome.Step(from: schema.version, to: schema.version, label: label))
        if !route.isEmpty { try migrate(db, outcome: &outcome, route: route) }
        return outcome
    }

    /// Records the version of a store whose tables match it exactly (e.g. made before lucidgen).
    private func adopt(_ db: Database, as schema: Schema) throws {
        do {
            try stepTransaction(db) {
                if try Bookkeeping.record(db) == nil {
                    try Bookkeeping.write(schema, checksum: history.checksum(of: schema), from: nil, kind: "adopt", label: "recognised as \(schema.version) from its tables", db)
                    try compatibility.record(db, at: schema.version)
                }
                return .commit
            }
            logger.info("recognised \(path) as version \(schema.version) from its tables")
        } catch {
            throw Self.storeError(error, path: path, step: "adopt", version: schema.version)
        }
    }

    // MARK: Migrating

    /// Runs the path from the store's version to the newest, step by step (or all at once): `route`,
    /// planned and checked (``checkStagesProvided(_:storeVersion:)``) from the store's version, or empty
    /// to plan here.
    ///
    /// Each transaction re-reads the version first: another process may have migrated meanwhile, in
    /// which case there is nothing left to do. `BEGIN IMMEDIATE` makes a second process wait for the
    /// first (up to the busy timeout) instead of failing.
    private func migrate(_ db: Database, outcome: inout MigrationOutcome, route planned: [MigrationStep] = []) throws(StoreError) {
        var currentVersion: SchemaVersion?
        var currentStep = "start"
        let began = Date()
        do {
            try db.withForeignKeysOff {
                var stepIndex = 0
                var totalSteps = 0
                var finished = false
                var lastSeen = outcome.finalVersion
                // The path planned from where the store started, followed step by step while the store is where
                // it leads: planning again from each version could choose another path (the planner searches
                // the jumps a path from its start can take, not every pair), and a migration takes the path
                // that `lucidgen plan` and `inspect` show. A store another process moved is planned again.
                var route = planned
                while !finished {
                    let asked = Date()
                    var applied: [MigrationOutcome.Step] = []
                    try stepTransaction(db) {
                        outcome.lockWait += Date().timeIntervalSince(asked)
                        var first = true
                        repeat {
                            let start = try Bookkeeping.stepStart(db)
                            guard let record = start.record, let version = try? SchemaVersion(parsing: record.version) else {
                                throw StoreError.corrupt(path: path, message: "its version record disappeared")
                            }
                            currentVersion = version
                            if first, version != lastSeen {
                                // Another process moved the store while this one waited for the lock.
                                outcome.elsewhere.append(.init(from: lastSeen, to: version))
                            }
                            first = false
                            if version == newest.version {
                                finished = true
                                break
                            }
                            var steps = route
                            if route.first?.from != version {
                                // Not the route followed so far: the store is new to this call, or another process moved it.
                                steps = try plan(from: version)
                                try checkStagesProvided(steps, storeVersion: version)
                            }
                            if totalSteps == 0 {
                                totalSteps = steps.count
                                logger.info("migrating \(path) from \(version) to \(newest.version) in \(steps.count) step(s): \(steps.map(\.label).joined(separator: ", "))")
                            }
                            stepIndex += 1
                            currentStep = steps[0].label
                            try run(steps[0], db: db, index: stepIndex, total: max(totalSteps, stepIndex), start: start)
                            applied.append(.init(from: version, to: steps[0].to, label: steps[0].label))
                            currentVersion = steps[0].to
                            route = Array(steps.dropFirst())
                        } while options.atomicity == .wholePath
                        return .commit
                    }
                    // Committed: only now are the steps this call's.
                    outcome.steps += applied
                    if let currentVersion {
                        lastSeen = currentVersion
                        outcome.finalVersion = currentVersion
                        // At the newest version by this call's own commit: no transaction to find that out.
                        if currentVersion == newest.version { finished = true }
                    }
                    if !finished, let stop = options.stopBetweenSteps, stop() {
                        logger.info("stopped \(path) at \(outcome.finalVersion), between steps, as asked")
                        finished = true
                    }
                }
            }
        } catch {
            throw Self.storeError(error, path: path, step: currentStep, version: currentVersion, since: began)
        }
    }

    /// Data migrations added after the store passed their version (an app update): each runs once, in
    /// one transaction with its record. Cheap when there are none: no query runs.
    private func runLateDataMigrations(_ db: Database) throws(StoreError) {
        guard !options.dataMigrations.isEmpty else { return }
        do {
            try stepTransaction(db) {
                if let record = try Bookkeeping.record(db), let version = try? SchemaVersion(parsing: record.version) {
                    // A data migration that ran late rewrote rows an older app at an earlier version reads: from
                    // now on the store is not additive for that app.
                    for migration in try DataMigrations.run(options.dataMigrations, after: nil, upTo: version, db, logger: logger) {
                        try CompatibilityRecorder.recordLateDataMigration(migration, db)
                    }
                }
                return .commit
            }
        } catch {
            throw Self.storeError(error, path: path, step: "data migrations", version: nil)
        }
    }

    /// `BEGIN IMMEDIATE`, `body`, `COMMIT` (or rollback): the transaction of one step (or of the whole
    /// path, or of the late data migrations), under one lock deadline.
    ///
    /// On the runtime's own connection, every lock wait of the transaction (at `BEGIN`, at each page
    /// cache spill, at `COMMIT`) shares ``StoreOptions/busyTimeout`` (see ``LockDeadline``), and a
    /// lock error reports their sum. On the app's connection its busy handler waits as it was told, and
    /// a lock error reports how long the transaction took until it gave up (the waits are not visible
    /// from here).
    private func stepTransaction(_ db: Database, _ body: () throws -> Database.TransactionCompletion) throws {
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

    /// One step inside the caller's transaction: cleanup left from earlier, the operations, the version
    /// record, then the foreign key check and the schema validation (either failing rolls back).
    /// `start`: what the transaction read before the step (``Bookkeeping/stepStart(_:)``).
    private func run(_ step: MigrationStep, db: Database, index: Int, total: Int, start: Bookkeeping.StepStart) throws {
        let started = Date()
        var stage: MigrationStage?
        if case .explicit = step.kind {
            // Only a declared stage (no code here) can lack its code now: the route was checked before its
            // first step, the row transforms of each provided stage included.
            guard let provided = options.stages.first(where: { $0.from == step.from && $0.to == step.to }) else { throw StoreError.missingStage(step.label) }
            stage = provided
        }
        let progress = options.progress
        let label = step.label
        progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "starting"))
        // Deferred cleanup of the tables this step works on runs first, so that the step finds the tables
        // its plan expects; cleanup of other tables stays deferred.
        guard let target = versions.first(where: { $0.version == step.to }) else { throw StoreError.planning(.unknownVersion(step.to, known: versions.map(\.version))) }
        guard let source = versions.first(where: { $0.version == step.from }) else { throw StoreError.planning(.unknownVersion(step.from, known: versions.map(\.version))) }
        // What the app keeps in the store must survive the step, or the step refuses before its first
        // statement. A stage's willMigrate may drop such objects, so with one the check is made again after it.
        let stepTables = Set(step.operations.flatMap(\.tableNames))
        let pending = start.pendingCleanup == 0 ? [] : try PendingCleanup.items(db, accounting: cleanupAccounting(at: source))
        let cleanup = pending.filter { item in stepTables.contains { sameSQLName($0, item.table) } }
        let owned = OwnedNames([source], pendingCleanup: pending)
        let conflicts = try appObjectConflicts(of: step, source: source, cleanup: cleanup, owned: owned, db)
        if !conflicts.isEmpty && stage?.willMigrate == nil {
            throw StoreError.appObjectsInTheWay(step: step.label, from: step.from, to: step.to, conflicts: conflicts)
        }
        let cleanupLeft = try PendingCleanup.finishCounting(db, logger: logger, tables: stepTables, pending: start.pendingCleanup, accounting: cleanupAccounting(at: source)).left
        logger.info("step \(index)/\(total): \(label): \(step.operations.map(\.description).joined(separator: "; "))")
        var executor = StepExecutor(db: db, target: target, deferCleanup: options.deferCleanup, logger: logger) { operation, done, rowsTotal in
            progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: operation, rowsDone: done, rowsTotal: rowsTotal))
        }
        executor.transforms = Dictionary((stage?.transforms ?? []).map { ($0.table, $0) }, uniquingKeysWith: { first, _ in first })
        executor.owned = OwnedNames([source, target])
        executor.sourceVersion = step.from
        executor.source = source
        if let willMigrate = stage?.willMigrate {
            progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "will migrate (\(stage!.label))"))
            try willMigrate(db)
            if !conflicts.isEmpty {
                let left = try appObjectConflicts(of: step, source: source, cleanup: [], owned: owned, db)
                if !left.isEmpty { throw StoreError.appObjectsInTheWay(step: step.label, from: step.from, to: step.to, conflicts: left) }
            }
        }
        try executor.run(step.operations, stepLabel: label)
        if let didMigrate = stage?.didMigrate {
            progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "did migrate (\(stage!.label))"))
            try didMigrate(db)
        }
        try DataMigrations.run(options.dataMigrations, after: step.from, upTo: step.to, db, logger: logger)
        try Bookkeeping.write(
            target, checksum: history.checksum(of: target), from: step.from, kind: stage == nil ? "inferred" : "stage", label: label, started: started, ledgerCurrent: start.ledgerCurrent, db)
        try compatibility.record(db, at: target.version, previous: start.compatibilityRecorded ? step.from : nil)
        try executor.checkForeignKeys(stepLabel: label)
        // Tables the step did not touch are unchanged since the last validation; only their names are checked.
        let scope = executor.affectedTables
        let stepOwned = OwnedNames([source, target])
        let differences = StoreSchemaReader.differences(
            // Cleanup still pending is tolerated; with none left before the step and none deferred by it,
            // there is nothing to read.
            expected: target, actual: try StoreSchemaReader.tables(db, owned: stepOwned, only: scope),
            search: try StoreSchemaReader.searchObjects(db, owned: stepOwned),
            tolerated: cleanupLeft == 0 && !options.deferCleanup ? PendingCleanup.Tolerance() : try PendingCleanup.tolerance(db, accounting: cleanupAccounting(at: target), only: scope), only: scope)
        if !differences.isEmpty { throw StoreError.schemaMismatch(version: target.version, differences: differences) }
        progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "done"))
    }

    /// Throws ``StoreError/missingStages(path:storeVersion:target:missing:registry:)`` when `steps` (the
    /// path from `storeVersion`) runs a stage whose code ``StoreOptions/stages`` lacks, or a provided
    /// stage lacks a row transform its step needs. Stages of ``StoreOptions/declaredStages`` are known to
    /// have no code here (`lucidgen migrate`): the path runs up to them and stops with
    /// ``StoreError/missingStage(_:)``.
    func checkStagesProvided(_ steps: [MigrationStep], storeVersion: SchemaVersion) throws(StoreError) {
        let names = history.registry.map(GeneratedNames.init(reflecting:))
        var missing: [MissingStage] = []
        for step in steps {
            guard case .explicit(let label) = step.kind else { continue }
            if let provided = options.stages.first(where: { $0.from == step.from && $0.to == step.to }) {
                let transformed = Set(provided.transforms.map(\.table))
                let inference: Result<[MigrationOperation], NotInferable>
                do {
                    inference = try planner.inferredOperations(from: step.from, to: step.to, transformedTables: transformed)
                } catch {
                    throw .planning(error)
                }
                // The tables that fail are those the stage does not transform.
                if case .failure(let reason) = inference {
                    missing.append(MissingStage(from: step.from, to: step.to, label: label, stageProvided: true, tables: reason.tables, registry: names))
                }
            } else if !options.declaredStages.contains(where: { $0.from == step.from && $0.to == step.to }) {
                let tables = history.stages.first { $0.from == step.from && $0.to == step.to }?.transformedTables ?? []
                missing.append(MissingStage(from: step.from, to: step.to, label: label, stageProvided: false, tables: tables, registry: names))
            }
        }
        guard !missing.isEmpty else { return }
        throw .missingStages(path: path, storeVersion: storeVersion, target: steps.last?.to ?? newest.version, missing: missing, registry: history.registry)
    }

    /// What the step (the pending cleanup of its tables, then its operations) would do to the app's
    /// objects that it cannot keep.
    private func appObjectConflicts(of step: MigrationStep, source: Schema, cleanup: [PendingCleanup.Item], owned: OwnedNames, _ db: Database) throws -> [AppObjectConflict] {
        let operations = AppObjectConflict.operations(of: cleanup) + step.operations
        // Which columns a view reads and what an app table's foreign keys reference matter only to a step
        // that removes columns or tables: an added or renamed column costs no view compiled.
        let removes = operations.contains {
            switch $0 {
            case .dropColumn, .dropTable, .rebuildTable, .transformTable: true
            default: false
            }
        }
        var objects = try AppObjects.read(db, owned: owned, precise: removes)
        return AppObjectConflict.find(in: operations, from: source, objects: &objects)
    }

    // MARK: Older apps on newer stores

    /// ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``: the store at `storeVersion`, newer than
    /// this app's newest version O, opens as it is when its compatibility record has O's row with this
    /// app's checksum and no breaking change, and it has every table and column O expects. Reads only
    /// (in one read transaction); throws a ``Refusal`` to refuse (then the caller closes the connection
    /// without a checkpoint, leaving the file byte-identical).
    private func openNewerIfAdditive(_ db: Database, storeVersion: SchemaVersion) throws -> MigrationOutcome {
        let app = newest.version
        var refusal: StoreError?
        try db.inTransaction(.deferred) {
            typealias K = LedgerTables.Compatibility
            let row: Row?
            do {
                row = try Row.fetchOne(
                    db, sql: "SELECT \(K.checksum), \(K.firstIncompatibleChange), \(K.firstIncompatibleAt) FROM \(K.name) WHERE \(K.version) = ?",
                    arguments: [app.string])
            } catch let error as DatabaseError where Bookkeeping.isMissingObject(error) {
                row = nil
            }
            guard let row else {
                refusal = .newerStoreRecordsNoCompatibility(storeVersion: storeVersion, appVersion: app)
                return .commit
            }
            let checksum: String = row[K.checksum]
            let expected = history.checksum(of: newest)
            if checksum != expected {
                refusal = .newerStoreNotAdditive(
                    storeVersion: storeVersion, appVersion: app,
                    firstIncompatibleChange: "the store's version \(app) is another definition of it (checksum \(checksum.prefix(12))…, this app's \(expected.prefix(12))…)", at: app)
                return .commit
            }
            if let change: String = row[K.firstIncompatibleChange] {
                let at = (row[K.firstIncompatibleAt] as String?).flatMap { try? SchemaVersion(parsing: $0) }
                refusal = .newerStoreNotAdditive(storeVersion: storeVersion, appVersion: app, firstIncompatibleChange: change, at: at)
                return .commit
            }
            // The record vouches for the store; the tables must still be what this app writes into.
            let problems = StoreSchemaReader.olderAppProblems(
                expected: newest, actual: try StoreSchemaReader.tables(db, owned: OwnedNames([newest]), only: Set(newest.tables.map(\.name))))
            if !problems.isEmpty {
                refusal = .newerStoreNotAdditive(
                    storeVersion: storeVersion, appVersion: app,
                    firstIncompatibleChange: "its tables are not what its record says: " + problems.prefix(3).joined(separator: "; "), at: nil)
            }
            return .commit
        }
        if let refusal { throw Refusal(error: refusal, policy: .refuse) }
        // Every launch of the older app does this: debug, not info (info is for work done once).
        logger.debug("opening \(path) at \(storeVersion), newer than this app's \(app): every step since \(app) is additive (StoreOptions.newerStorePolicy = .openIfAdditive)")
        var outcome = MigrationOutcome(start: .version(storeVersion, adopted: false), finalVersion: storeVersion)
        outcome.openedNewerAdditiveStore = true
        outcome.olderAppVersion = app
        return outcome
    }

    // MARK: Inspecting

    /// A Core Data store: the version its layout is, and the path from there (nothing is written).
    private func inspectCoreData(_ layout: CoreDataStoreLayout) throws(StoreError) -> StoreStatus {
        let queue = try makeQueue(readOnly: true)
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let recognition: CoreDataConverter.Recognition
        do {
            recognition = try queue.read { db in
                try db.withoutAttaching { try CoreDataConverter(origin: options.coreDataOrigin!, versions: versions, path: path).recognise(db, layout: layout) }
            }
        } catch let refusal as CoreDataConverter.Refusal {
            throw .unrecognizedSchema(path: path, differences: [refusal.description])
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: nil)
        }
        let steps: [MigrationStep]
        do {
            steps = try plan(from: recognition.schema.version)
        } catch {
            throw .planning(error)
        }
        var status = StoreStatus(
            state: .needsMigration, version: recognition.schema.version, checksum: history.checksum(of: recognition.schema), adopted: true, steps: steps,
            rowCounts: [:], pendingCleanup: 0)
        status.coreDataModel = recognition.version.model
        return status
    }

    func inspect() throws(StoreError) -> StoreStatus {
        let state = try decideState()
        if let (error, _) = state.refusal(path: path, versions: versions, options: options) { throw error }
        if case .coreData(let layout) = state { return try inspectCoreData(layout) }
        guard case .known(let schema, let recorded, _) = state else {
            let start: StoreStatus.State = switch state {
            case .newFile: .missing
            case .emptyFile: .emptyFile
            default: .empty
            }
            return StoreStatus(state: start, version: nil, checksum: nil, adopted: false, steps: [], rowCounts: [:], pendingCleanup: 0)
        }
        let steps: [MigrationStep]
        do {
            steps = try plan(from: schema.version)
        } catch {
            throw .planning(error)
        }
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let began = Date()
        do {
            return try queue.read { db in try db.withoutAttaching {
                // Damage anywhere in the file: what a migration could meet in any page it reads. `lucidgen
                // migrate` inspects first too, so `plan` and `migrate` refuse a damaged store alike.
                try checkPages(db)
                let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
                let owned = OwnedNames([schema], pendingCleanup: pending)
                var counts: [String: Int] = [:]
                for table in try StoreSchemaReader.tables(db, owned: owned).values {
                    counts[table.name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(table.name))") ?? 0
                }
                var status = StoreStatus(
                    state: steps.isEmpty ? .current : .needsMigration, version: schema.version, checksum: history.checksum(of: schema), adopted: !recorded, steps: steps,
                    rowCounts: counts, pendingCleanup: try PendingCleanup.rows(db).count)
                status.appObjects = try AppObjects.read(db, owned: owned)
                // Step after step, with the objects as each step leaves them (renames followed); a step's
                // pending cleanup runs first, as when migrating.
                var objects = status.appObjects
                var cleanup = pending
                for step in steps {
                    guard let source = versions.first(where: { $0.version == step.from }) else { continue }
                    let tables = Set(step.operations.flatMap(\.tableNames))
                    let mine = cleanup.filter { item in tables.contains { sameSQLName($0, item.table) } }
                    cleanup.removeAll { item in tables.contains { sameSQLName($0, item.table) } }
                    let conflicts = AppObjectConflict.find(in: AppObjectConflict.operations(of: mine) + step.operations, from: source, objects: &objects)
                    if !conflicts.isEmpty { status.appObjectConflicts.append(.init(step: step, conflicts: conflicts)) }
                }
                return status
            } }
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: schema.version, since: began)
        }
    }

    /// Reads every page of the store (`PRAGMA quick_check`) and throws ``StoreError/corrupt(path:message:)``
    /// for damage anywhere, without changing it.
    func checkPages() throws(StoreError) {
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        let began = Date()
        do {
            try queue.read { db in try checkPages(db) }
        } catch {
            throw Self.storeError(error, path: path, step: "inspect", version: nil, since: began)
        }
    }

    private func checkPages(_ db: Database) throws {
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
        if problems != ["ok"] {
            let lines = problems.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
            throw StoreError.corrupt(path: path, message: "PRAGMA quick_check: " + lines.prefix(3).joined(separator: "; "))
        }
    }

    // MARK: Errors

    /// Closes a connection that only looked at the store without checkpointing a WAL into the main file
    /// (SQLite does so when the last connection closes): a refused or inspected store keeps its files
    /// byte-identical, a pending WAL included.
    /// A WAL this connection opened empty is removed on close as usual (checkpointing nothing).
    static func closeLeavingFilesAsTheyAre(_ queue: DatabaseQueue) {
        let wal = fileSize(atPath: queue.path + "-wal") ?? 0
        if wal > 0 {
            queue.inDatabase { db in _ = lucid_disable_checkpoint_on_close(db.sqliteConnection) }
        }
        try? queue.close()
    }

    /// SQLite's "error in view v: …" or "error in trigger t: …" (an `ALTER TABLE` that checks the whole
    /// schema found an app object that no longer compiles) as ``StoreError/appObjectBroken(step:version:kind:name:sql:message:)``.
    static func brokenAppObject(_ error: DatabaseError, step: String, version: SchemaVersion?) -> StoreError? {
        guard let message = error.message, message.hasPrefix("error in ") else { return nil }
        let words = message.dropFirst("error in ".count).split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[0] == "view" || words[0] == "trigger", let colon = words[1].firstIndex(of: ":") else { return nil }
        let name = String(words[1][..<colon])
        return .appObjectBroken(
            step: step, version: version ?? SchemaVersion("0.0"), kind: String(words[0]), name: name, sql: nil,
            message: String(words[1][words[1].index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    /// Maps SQLite and GRDB errors to ``StoreError``.
    ///
    /// `since` is when the operation that failed began: a lock error reports how long it waited.
    static func storeError(_ error: any Error, path: String, step: String, version: SchemaVersion?, since: Date? = nil) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PlanningError { return .planning(error) }
        if let error = error as? UnknownEnumValueError { return .unknownEnumValue(step: step, version: version ?? SchemaVersion("0.0"), error) }
        if let error = error as? DatabaseError, let broken = brokenAppObject(error, step: step, version: version) { return broken }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: return .notADatabase(path: path)
            case .SQLITE_CORRUPT: return .corrupt(path: path, message: error.message ?? "\(error)")
            case .SQLITE_FULL: return .diskFull(path: path, journalLeft: false)
            case .SQLITE_IOERR where volumeIsFull(at: path), .SQLITE_CANTOPEN where volumeIsFull(at: path): return .diskFull(path: path, journalLeft: false)
            case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, waited: since.map { Date().timeIntervalSince($0) } ?? 0)
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_IOERR: return .cannotWrite(path: path, message: error.message ?? "\(error)")
            default: break
            }
        }
        return .stepFailed(step: step, version: version ?? SchemaVersion("0.0"), message: "\(error)")
    }
}
