import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import Logging

// A Core Data store converted into lucidgen's tables, then migrated on.
extension StoreMigrator {
    /// A Core Data store: recognised from its layout, its path to the newest version planned and its
    /// stages checked (nothing is written before), a copy kept beside it, converted in one transaction
    /// into lucidgen's tables of its version (a step of the outcome), then migrated on like any store.
    func convertCoreData(_ db: Database, layout: CoreDataStoreLayout) throws -> MigrationOutcome {
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
        let drift = recognition.drift.isEmpty ? "" : ", drifted: \(recognition.drift.count) difference\(recognition.drift.count == 1 ? "" : "s")"
        let label = "converted from Core Data (model \(recognition.version.model)\(drift)) at \(schema.version)"
        if !recognition.drift.isEmpty {
            logger.notice("\(path): a Core Data store whose layout is none of the imported model versions, taken as model \(recognition.version.model) drifted: \(recognition.drift.joined(separator: "; "))")
        }
        let began = Date()
        var log: [String] = []
        var report: CoreDataConversionReport?
        do {
            try db.withForeignKeysOff {
                try stepTransaction(db) {
                    // Another process may have converted it meanwhile.
                    if try Bookkeeping.record(db) != nil { return .rollback }
                    let progress = options.progress
                    progress?(MigrationProgress(totalSteps: route.count, step: 0, stepLabel: label, operation: "starting"))
                    let converted = try converter.convert(db, recognition, layout: layout) { line in
                        log.append(line)
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
                    report = converted
                    return .commit
                }
            }
        } catch let refusal as CoreDataConverter.Refusal {
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [refusal.description]), policy: .refuse)
        } catch {
            // Rolled back: the store is still the Core Data store it was, never at a version of lucidgen's.
            let mapped = Self.storeError(error, path: path, step: "convert from Core Data", version: schema.version)
            guard case .stepFailed = mapped else { throw mapped }
            let message = (error as? DatabaseError)?.message ?? "\(error)"
            throw Refusal(error: .unrecognizedSchema(path: path, differences: [
                "converting the Core Data store (model \(recognition.version.model)) into lucidgen's tables at \(schema.version) failed and was rolled back: \(message); the store is the Core Data store it was, unchanged",
            ]), policy: .refuse)
        }
        outcome.steps.append(MigrationOutcome.Step(from: schema.version, to: schema.version, label: label))
        outcome.coreDataConversion = report
        if !route.isEmpty { try migrate(db, outcome: &outcome, route: route) }
        return outcome
    }
}
