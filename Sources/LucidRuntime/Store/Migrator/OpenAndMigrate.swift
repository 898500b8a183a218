import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// Opening a store: the state decided and what it needs done, under one barrier.
extension StoreMigrator {
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

    /// Decides the store's state and does what it needs (create, adopt, migrate, late data migrations),
    /// under one barrier of `writer`: on a `DatabasePool`, reads started before wait to finish, reads
    /// started meanwhile wait, then see the new version (as GRDB's `DatabaseMigrator` does). Throws a
    /// ``Refusal`` for a store the app's policies must decide; then nothing was written.
    ///
    /// `fileStart` is what the file was before SQLite opened it (``fileStart()``); nil decides from the
    /// database alone (a connection the app made).
    func bringUpToDate(_ writer: some DatabaseWriter, fileStart: Decision? = nil) throws -> MigrationOutcome {
        let began = Date()
        do {
            // No ATTACH while lucidgen holds the connection (the store is untrusted input).
            return try writer.barrierWriteWithoutTransaction { db in
                try db.withoutAttaching {
                    let decision: Decision
                    do {
                        decision = try fileStart ?? decideInOneSnapshot(db)
                    } catch {
                        decision = try Self.decisionOrError(error, path: path, since: began)
                    }
                    var outcome: MigrationOutcome
                    switch decision {
                    case .newFile, .emptyFile, .emptyDatabase:
                        outcome = MigrationOutcome(start: decision.state!, finalVersion: newest.version)
                        try initialise(db, outcome: &outcome)
                        if !outcome.created { try migrate(db, outcome: &outcome) }
                    case .known(let schema, let recorded, let schemaCookieStale):
                        outcome = MigrationOutcome(start: decision.state!, finalVersion: schema.version)
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
                        outcome = try options.conversion!.convert(db, layout: layout, by: self)
                    case .contradicted(let version, let differences, let tablesMatch) where options.acceptsInferableDrift:
                        guard let schema = versions.first(where: { $0.version == version }) else {
                            throw Refusal(
                                error: .recordContradictsTables(
                                    path: path, version: version, differences: differences, tablesMatch: tablesMatch),
                                policy: options.unknownStorePolicy)
                        }
                        outcome = try repairingDrift(db, to: schema, differences: differences, tablesMatch: tablesMatch, recorded: true)
                    case .unrecognized(let differences, let version?) where options.acceptsInferableDrift:
                        // A store without a record (an app's own, a development build's) whose tables are nearest
                        // one version's: brought to it when every difference is inferable, then adopted.
                        guard let schema = versions.first(where: { $0.version == version }) else {
                            throw Refusal(
                                error: .unrecognizedSchema(path: path, differences: differences), policy: options.unknownStorePolicy)
                        }
                        outcome = try repairingDrift(db, to: schema, differences: differences, tablesMatch: nil, recorded: false)
                    case .newer(let version) where options.newerStorePolicy == .openIfAdditive:
                        // Nothing is written: no late data migration either.
                        return try openNewerIfAdditive(db, storeVersion: version)
                    case .newer, .unknownVersion, .checksumMismatch, .unrecognized, .contradicted, .notADatabase:
                        let (error, policy) = decision.refusal(path: path, versions: versions, options: options)!
                        throw Refusal(error: error, policy: policy)
                    }
                    try runLateDataMigrations(db)
                    return outcome
                }
            }
        } catch let error as Refusal {
            throw error
        } catch {
            throw Self.storeError(error, path: path, step: "open", version: nil, since: began)
        }
    }

    /// A drifted store brought to `schema` (``StoreOptions/acceptsInferableDrift``), adopted when it had no
    /// record, then migrated on: the path planned and its stages checked before anything is written.
    func repairingDrift(_ db: Database, to schema: Schema, differences: [String], tablesMatch: SchemaVersion?, recorded: Bool) throws
        -> MigrationOutcome
    {
        var outcome = MigrationOutcome(start: .version(schema.version, adopted: !recorded), finalVersion: schema.version)
        let route = schema.version == newest.version ? [] : try plan(from: schema.version)
        try checkStagesProvided(route, storeVersion: schema.version)
        outcome.drift = try repairDrift(db, to: schema, differences: differences, tablesMatch: tablesMatch, recorded: recorded)
        if !recorded { try adopt(db, as: schema) }
        if !route.isEmpty { try migrate(db, outcome: &outcome, route: route) }
        return outcome
    }

    /// Records the schema cookie of a store whose tables were just checked against its record (the
    /// schema changed since it was written: the app's DDL, `VACUUM`, a first `ANALYZE`, an older
    /// runtime's step), so that the next launch trusts the record again. Best effort: a store that cannot
    /// be written now (read-only media, another writer past the busy timeout) is only checked again at
    /// the next open.
    func recordSchemaCookie(_ db: Database) {
        do {
            try stepTransaction(db) {
                try Bookkeeping.recordSchemaCookie(db)
                return .commit
            }
        } catch {
            logger.debug("could not record the schema cookie of \(path) (checked again at the next open): \(error)")
        }
    }
}
