import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// What the app's policy does with a store this app cannot migrate: refuse, open read-only, or erase.
extension StoreMigrator {
    func incompatible(_ queue: DatabaseQueue, policy: StoreOptions.IncompatibleStorePolicy, _ error: StoreError) throws(StoreError) -> (
        DatabaseQueue, MigrationOutcome
    ) {
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
            let version: SchemaVersion? =
                switch error {
                case .storeIsNewer(let version, _), .unknownVersion(let version, _), .checksumMismatch(let version, _, _): version
                default: nil
                }
            var outcome = MigrationOutcome(
                start: .version(version ?? newest.version, adopted: false), finalVersion: version ?? newest.version)
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
                logger.debug(
                    "read-only: the store lacks part of this app's tables, read as: \(outcome.readOnlyStandIns.joined(separator: ", "))")
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
}
