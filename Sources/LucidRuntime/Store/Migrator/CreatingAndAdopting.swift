import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// A store without lucidgen's record: created at the newest version, or adopted at the version its tables are.
extension StoreMigrator {
    /// Creates the newest schema in a database without lucidgen's tables (empty, or holding only the
    /// app's objects, which stay), with its version record, in one transaction.
    func initialise(_ db: Database, outcome: inout MigrationOutcome) throws {
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
                let conflicts = AppObjectConflict.find(
                    in: newest.tables.map { .createTable($0) }, from: Schema(version: newest.version, tables: []), objects: &objects)
                if !conflicts.isEmpty {
                    throw StoreError.appObjectsInTheWay(
                        step: "create \(newest.version)", from: newest.version, to: newest.version, conflicts: conflicts)
                }
                for statement in newest.ddl { try db.execute(sql: statement) }
                try Bookkeeping.write(
                    newest, checksum: history.checksum(of: newest), from: nil, kind: "create", label: "created at \(newest.version)", db)
                try compatibility.record(db, at: newest.version)
                // Born at the newest version: no data was ever in an older shape.
                for migration in options.dataMigrations where migration.version <= newest.version {
                    try DataMigrationRecords.record(migration, outcome: "not needed: created at \(newest.version)", db)
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

    /// Records the version of a store whose tables match it exactly (e.g. made before lucidgen).
    func adopt(_ db: Database, as schema: Schema) throws {
        do {
            try stepTransaction(db) {
                if try Bookkeeping.record(db) == nil {
                    try Bookkeeping.write(
                        schema, checksum: history.checksum(of: schema), from: nil, kind: "adopt",
                        label: "recognised as \(schema.version) from its tables", db)
                    try compatibility.record(db, at: schema.version)
                }
                return .commit
            }
            logger.info("recognised \(path) as version \(schema.version) from its tables")
            if let disagreement = try? rungDisagreement(db, recognised: schema.version) { logger.warning("\(path): \(disagreement)") }
        } catch {
            throw Self.storeError(error, path: path, step: "adopt", version: schema.version)
        }
    }
}
