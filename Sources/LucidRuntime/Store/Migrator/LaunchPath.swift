import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// The launch path: an up-to-date store opened in one or two queries.
extension StoreMigrator {
    /// The launch path: the store at `path` opened as is when its record says it is at `version` with
    /// `checksum`, recorded with the schema cookie the store has now (nothing changed its schema since),
    /// and every data migration of `options` is recorded; nil (nothing changed, the connection closed)
    /// when anything else holds, for the full path to decide. One or two queries. Never taken under
    /// ``StoreOptions/VersionRecordCheck/always``.
    static func openIfCurrent(atPath path: String, version: SchemaVersion, checksum: String, options: StoreOptions) throws(StoreError)
        -> DatabaseQueue?
    {
        guard options.versionRecordCheck == .whenSchemaChanged, let size = fileSize(atPath: path), size > 0 else { return nil }
        var configuration = options.configuration
        // One read, no step: SQLite's own timeout, which a disarmed ``LockDeadline`` equals.
        configuration.busyMode = .timeout(StoreOptions.boundedBusyTimeout(options.busyTimeout))
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
                guard try Bookkeeping.recordIsCurrent(version: version, checksum: checksum, db) else { return false }
                return try options.dataMigrations.isEmpty || DataMigrationRecords.allRecorded(options.dataMigrations, db)
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
}
