import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// Data migrations added after the store passed their version.
extension StoreMigrator {
    /// Data migrations added after the store passed their version (an app update): each runs once, in
    /// one transaction with its record. Cheap when there are none: no query runs.
    func runLateDataMigrations(_ db: Database) throws(StoreError) {
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
}
