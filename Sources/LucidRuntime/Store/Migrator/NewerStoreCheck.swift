import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// An older app on a newer store: opened as it is when every step since is additive.
extension StoreMigrator {
    /// ``StoreOptions/IncompatibleStorePolicy/openIfAdditive``: the store at `storeVersion`, newer than
    /// this app's newest version O, opens as it is when its compatibility record has O's row with this
    /// app's checksum and no breaking change, and it has every table and column O expects. Reads only
    /// (in one read transaction); throws a ``Refusal`` to refuse (then the caller closes the connection
    /// without a checkpoint, leaving the file byte-identical).
    func openNewerIfAdditive(_ db: Database, storeVersion: SchemaVersion) throws -> MigrationOutcome {
        let app = newest.version
        var refusal: StoreError?
        try db.inTransaction(.deferred) {
            guard let row = try CompatibilityRecorder.row(of: app, db) else {
                refusal = .newerStoreRecordsNoCompatibility(storeVersion: storeVersion, appVersion: app)
                return .commit
            }
            let checksum = row.checksum
            let expected = history.checksum(of: newest)
            if checksum != expected {
                refusal = .newerStoreNotAdditive(
                    storeVersion: storeVersion, appVersion: app,
                    firstIncompatibleChange:
                        "the store's version \(app) is another definition of it (checksum \(checksum.prefix(12))…, this app's \(expected.prefix(12))…)",
                    at: app)
                return .commit
            }
            if let change = row.firstIncompatibleChange {
                refusal = .newerStoreNotAdditive(
                    storeVersion: storeVersion, appVersion: app, firstIncompatibleChange: change, at: row.firstIncompatibleAt)
                return .commit
            }
            // The record vouches for the store; the tables must still be what this app writes into.
            let problems = StoreSchemaReader.olderAppProblems(
                expected: newest,
                actual: try StoreSchemaReader.tables(db, owned: OwnedNames([newest]), only: Set(newest.tables.map(\.name))))
            if !problems.isEmpty {
                refusal = .newerStoreNotAdditive(
                    storeVersion: storeVersion, appVersion: app,
                    firstIncompatibleChange: "its tables are not what its record says: " + problems.prefix(3).joined(separator: "; "),
                    at: nil)
            }
            return .commit
        }
        if let refusal { throw Refusal(error: refusal, policy: .refuse) }
        // Every launch of the older app does this: debug, not info (info is for work done once).
        logger.debug(
            "opening \(path) at \(storeVersion), newer than this app's \(app): every step since \(app) is additive (StoreOptions.newerStorePolicy = .openIfAdditive)"
        )
        var outcome = MigrationOutcome(start: .version(storeVersion, adopted: false), finalVersion: storeVersion)
        outcome.openedNewerAdditiveStore = true
        outcome.olderAppVersion = app
        return outcome
    }
}
