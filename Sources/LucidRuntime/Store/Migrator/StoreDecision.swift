import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// The decision on a store file: what it is (new, empty, a lucidgen store at a known version, a Core Data
// store, or one this app refuses), made in one place without changing it.
extension StoreMigrator {
    /// What a store file is, and what this app may do with it: the one decision that opening,
    /// inspecting, creating, migrating together and the CLI's `plan`/`migrate` all take (through
    /// ``decide(_:)``), so they cannot drift. What the store is, as ``StoreStatus`` and
    /// ``MigrationOutcome`` report it, is its ``state``.
    package enum Decision {
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
        /// `nearest`: that version when it is the only one that near (or the version `user_version` names),
        /// which ``StoreOptions/acceptsInferableDrift`` may bring the tables to before adopting it.
        case unrecognized(differences: [String], nearest: SchemaVersion? = nil)
        /// A version record that the store's tables contradict (checked when the schema changed since
        /// the record was written, or always under ``StoreOptions/VersionRecordCheck/always``);
        /// `tablesMatch` is the version the tables are, when they are exactly one.
        case contradicted(SchemaVersion, differences: [String], tablesMatch: SchemaVersion?)
        /// The file is not an SQLite database.
        case notADatabase
        /// A Core Data store, and the app gave the origin of its history (LucidCoreData's `StoreOptions.coreDataOrigin`):
        /// it converts into lucidgen's tables of the version its layout is, then migrates on.
        case coreData(CoreDataStoreLayout)

        /// What the store is, as ``StoreStatus/start`` and ``MigrationOutcome/start`` say it; nil for a
        /// store this app refuses, and for a Core Data store (its version is known once it is recognised).
        package var state: StoreState? {
            switch self {
            case .newFile: .newFile
            case .emptyFile: .emptyFile
            case .emptyDatabase: .emptyDatabase
            case .known(let schema, let recorded, _): .version(schema.version, adopted: !recorded)
            case .newer, .unknownVersion, .checksumMismatch, .unrecognized, .contradicted, .notADatabase, .coreData: nil
            }
        }

        /// A few words for messages.
        var summary: String {
            switch self {
            case .newFile: "no file"
            case .emptyFile: "an empty (0-byte) file"
            case .emptyDatabase: "a database without lucidgen's tables"
            case .known(let schema, let recorded, _):
                "a store at version \(schema.version)\(recorded ? "" : ", recognised from its tables")"
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
        package func refusal(path: String, versions: [Schema], options: StoreOptions) -> (StoreError, StoreOptions.IncompatibleStorePolicy)?
        {
            switch self {
            case .newFile, .emptyFile, .emptyDatabase, .known, .coreData: nil
            case .newer(let version):
                (.storeIsNewer(storeVersion: version, newestKnown: versions[versions.count - 1].version), options.newerStorePolicy)
            case .unknownVersion(let version): (.unknownVersion(version, known: versions.map(\.version)), options.unknownStorePolicy)
            case .checksumMismatch(let version, let stored, let expected):
                (.checksumMismatch(version: version, stored: stored, expected: expected), options.unknownStorePolicy)
            case .unrecognized(let differences, _): (.unrecognizedSchema(path: path, differences: differences), options.unknownStorePolicy)
            case .contradicted(let version, let differences, let tablesMatch):
                (
                    .recordContradictsTables(path: path, version: version, differences: differences, tablesMatch: tablesMatch),
                    options.unknownStorePolicy
                )
            case .notADatabase: (.notADatabase(path: path), .refuse)
            }
        }
    }

    /// Decides what the store at `path`, without changing it.
    package func decide() throws(StoreError) -> Decision {
        if let start = fileStart() { return start }
        let queue = try makeQueue()
        defer { Self.closeLeavingFilesAsTheyAre(queue) }
        return try decide(queue)
    }

    /// `.newFile` or `.emptyFile` when the file says so before SQLite opens it; nil for a file with content.
    func fileStart() -> Decision? {
        guard let size = Self.fileSize(atPath: path) else { return .newFile }
        return size == 0 ? .emptyFile : nil
    }

    /// Decides the state of the existing store open in `reader`, without changing it.
    func decide(_ reader: some DatabaseReader) throws(StoreError) -> Decision {
        let began = Date()
        do {
            return try reader.read { db in try decide(db) }
        } catch {
            return try Self.decisionOrError(error, path: path, since: began)
        }
    }

    /// ``decide(_:)`` in one read transaction (unless the caller's connection is in one already): the record
    /// and the tables read from one snapshot of the file. Read statement by statement, a migration another
    /// process committed between them showed the old version's record beside the new version's tables, a
    /// record its tables contradict; in one snapshot the store is seen before that migration or after it,
    /// and the step transaction then finds it migrated by the other ("nothing left to do").
    func decideInOneSnapshot(_ db: Database) throws -> Decision {
        guard !db.isInsideTransaction else { return try decide(db) }
        var decision: Decision?
        try db.inTransaction(.deferred) {
            decision = try decide(db)
            return .commit
        }
        return decision!
    }

    /// The decision itself, on a connection the caller holds.
    func decide(_ db: Database) throws -> Decision {
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
            guard options.conversion?.converts == true else {
                return .unrecognized(differences: [coreData.refusal] + coreData.damage.map { "its \($0)" })
            }
            // Bookkeeping of another type than Core Data writes: nothing of the store is read on.
            guard coreData.damage.isEmpty else {
                return .unrecognized(differences: coreData.damage.map { "it is a Core Data store whose \($0): nothing was changed" })
            }
            return .coreData(coreData)
        }
        // Only what the history describes counts: the app's own tables, views, triggers, FTS indexes and
        // indexes may be there (a store shared with the app, or one the app had before it adopted lucidgen).
        let owned = OwnedNames(versions)
        let listing = try StoreSchemaReader.Listing(db)
        let tables = try StoreSchemaReader.tables(db, owned: owned, listing: listing)
        if tables.isEmpty { return .emptyDatabase }
        let search = try StoreSchemaReader.searchObjects(db, owned: owned, listing: listing)
        // A store an app numbered with `PRAGMA user_version` (FMDB, SQLite.swift, raw SQL) is recognised by its
        // rung: user_version N names version N.0, taken when its tables are N.0's (also when a later version
        // has the same tables); else the tables decide, and the status and the log say the rung disagrees.
        let rung = try self.rung(db)
        if let rung, StoreSchemaReader.differences(expected: rung, actual: tables, search: search).isEmpty {
            return .known(rung, recorded: false)
        }
        var closest: [String] = []
        var nearest: SchemaVersion?
        for schema in versions.reversed() {
            let differences = StoreSchemaReader.differences(expected: schema, actual: tables, search: search)
            if differences.isEmpty { return .known(schema, recorded: false) }
            if closest.isEmpty || differences.count < closest.count {
                closest = differences
                nearest = schema.version
            } else if differences.count == closest.count {
                nearest = nil // as near as another: which one the store drifted from cannot be told
            }
        }
        if let rung {
            let differences = StoreSchemaReader.differences(expected: rung, actual: tables, search: search)
            return .unrecognized(
                differences: [
                    "its user_version \(try userVersion(db)) names version \(rung.version), whose tables it does not have exactly"
                ] + differences, nearest: rung.version)
        }
        return .unrecognized(differences: closest, nearest: nearest)
    }

    /// The store's `PRAGMA user_version`.
    func userVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
    }

    /// The version a store's `PRAGMA user_version` N names, N.0, when the history has it (nil for 0, or a
    /// number the history has no such version for: then user_version is not about this history's versions).
    func rung(_ db: Database) throws -> Schema? {
        let number = try userVersion(db)
        guard number > 0, let version = try? SchemaVersion(parsing: "\(number).0") else { return nil }
        return versions.first { $0.version == version }
    }

    /// What to say when a store without lucidgen's record was recognised as `version` from its tables but its
    /// user_version names another version of the history; nil when it names none or this one.
    func rungDisagreement(_ db: Database, recognised version: SchemaVersion) throws -> String? {
        guard let rung = try rung(db), rung.version != version else { return nil }
        return
            "its user_version \(try userVersion(db)) names version \(rung.version), but its tables are \(version)'s: recognised as \(version) from its tables"
    }

    /// How the store's tables differ from `schema`, the version its record names: lucidgen's tables
    /// only (the app's objects are its own), deferred cleanup tolerated. Empty when they agree.
    func recordedTablesDifferences(_ schema: Schema, _ db: Database) throws -> [String] {
        let pending = try PendingCleanup.items(db, accounting: cleanupAccounting(at: schema))
        let owned = OwnedNames([schema], pendingCleanup: pending)
        let listing = try StoreSchemaReader.Listing(db)
        return StoreSchemaReader.differences(
            expected: schema, actual: try StoreSchemaReader.tables(db, owned: owned, listing: listing),
            search: try StoreSchemaReader.searchObjects(db, owned: owned, listing: listing),
            tolerated: PendingCleanup.tolerance(of: pending))
    }

    /// The version whose tables the store has exactly, newest first, ignoring its record (for a refusal's
    /// message); nil when none.
    private func versionOfTables(_ db: Database) throws -> SchemaVersion? {
        let owned = OwnedNames(versions)
        let listing = try StoreSchemaReader.Listing(db)
        let tables = try StoreSchemaReader.tables(db, owned: owned, listing: listing)
        let search = try StoreSchemaReader.searchObjects(db, owned: owned, listing: listing)
        return versions.reversed().first { StoreSchemaReader.differences(expected: $0, actual: tables, search: search).isEmpty }?.version
    }

    /// A file SQLite cannot read as a database is a state (refused, or erased by the app's policy); any
    /// other error is thrown.
    static func decisionOrError(_ error: any Error, path: String, since: Date? = nil) throws(StoreError) -> Decision {
        if let error = error as? StoreError { throw error }
        let mapped = storeError(error, path: path, step: "open", version: nil, since: since)
        if case .notADatabase = mapped { return .notADatabase }
        throw mapped
    }
}
