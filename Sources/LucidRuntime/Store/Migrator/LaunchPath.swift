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
}
