import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// One step: cleanup, the app's objects, the operations, the stage's code, the record, the checks.
extension StoreMigrator {
    /// One step inside the caller's transaction: cleanup left from earlier, the operations, the version
    /// record, then the foreign key check and the schema validation (either failing rolls back).
    /// `start`: what the transaction read before the step (``Bookkeeping/stepStart(_:)``).
    func run(_ step: MigrationStep, db: Database, index: Int, total: Int, start: Bookkeeping.StepStart) throws {
        let started = Date()
        var stage: MigrationStage?
        if case .explicit = step.kind {
            // Only a declared stage (no code here) can lack its code now: the route was checked before its
            // first step, the row transforms of each provided stage included.
            guard let provided = options.stages.first(where: { $0.from == step.from && $0.to == step.to }) else {
                throw StoreError.missingStage(step.label)
            }
            stage = provided
        }
        let progress = options.progress
        let label = step.label
        progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "starting"))
        // Deferred cleanup of the tables this step works on runs first, so that the step finds the tables
        // its plan expects; cleanup of other tables stays deferred.
        guard let target = versions.first(where: { $0.version == step.to }) else {
            throw StoreError.planning(.unknownVersion(step.to, known: versions.map(\.version)))
        }
        guard let source = versions.first(where: { $0.version == step.from }) else {
            throw StoreError.planning(.unknownVersion(step.from, known: versions.map(\.version)))
        }
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
        let cleanupLeft = try PendingCleanup.finishCounting(
            db, logger: logger, tables: stepTables, pending: start.pendingCleanup, accounting: cleanupAccounting(at: source)
        ).left
        logger.info("step \(index)/\(total): \(label): \(step.operations.map(\.description).joined(separator: "; "))")
        var executor = StepExecutor(db: db, target: target, deferCleanup: options.deferCleanup, logger: logger) {
            operation, done, rowsTotal in
            progress?(
                MigrationProgress(
                    totalSteps: total, step: index, stepLabel: label, operation: operation, rowsDone: done, rowsTotal: rowsTotal))
        }
        executor.transforms = Dictionary((stage?.transforms ?? []).map { ($0.table, $0) }, uniquingKeysWith: { first, _ in first })
        executor.owned = OwnedNames([source, target])
        executor.sourceVersion = step.from
        executor.laterVersions = versions[(versions.firstIndex { $0.version >= step.to } ?? versions.endIndex)...]
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
            target, checksum: history.checksum(of: target), from: step.from, kind: stage == nil ? "inferred" : "stage", label: label,
            started: started, ledgerCurrent: start.ledgerCurrent, db)
        try compatibility.record(db, at: target.version, previous: start.compatibilityRecorded ? step.from : nil)
        try executor.checkForeignKeys(stepLabel: label)
        // Tables the step did not touch are unchanged since the last validation; only their names are checked.
        let scope = executor.affectedTables
        let stepOwned = OwnedNames([source, target])
        // `sqlite_master` is read once for the tables' names and SQL and the search objects.
        let listing = try StoreSchemaReader.Listing(db)
        let differences = StoreSchemaReader.differences(
            // Cleanup still pending is tolerated; with none left before the step and none deferred by it,
            // there is nothing to read.
            expected: target, actual: try StoreSchemaReader.tables(db, owned: stepOwned, only: scope, listing: listing),
            search: try StoreSchemaReader.searchObjects(db, owned: stepOwned, listing: listing),
            tolerated: cleanupLeft == 0 && !options.deferCleanup
                ? PendingCleanup.Tolerance() : try PendingCleanup.tolerance(db, accounting: cleanupAccounting(at: target), only: scope),
            only: scope)
        if !differences.isEmpty { throw StoreError.schemaMismatch(version: target.version, differences: differences) }
        progress?(MigrationProgress(totalSteps: total, step: index, stepLabel: label, operation: "done"))
    }

    /// What the step (the pending cleanup of its tables, then its operations) would do to the app's
    /// objects that it cannot keep.
    func appObjectConflicts(of step: MigrationStep, source: Schema, cleanup: [PendingCleanup.Item], owned: OwnedNames, _ db: Database)
        throws -> [AppObjectConflict]
    {
        let operations = AppObjectConflict.operations(of: cleanup) + step.operations
        // An O(1) step of added columns reads no app objects: none of its operations can meet one.
        guard operations.contains(where: AppObjectConflict.canConflict) else { return [] }
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
}
