import Foundation
import GRDB
import Logging
@_spi(Generated) import LucidSchema

// The migrate loop: the path to the newest version, one step transaction after another.
extension StoreMigrator {
    /// Runs the path from the store's version to the newest, step by step (or all at once): `route`,
    /// planned and checked (``checkStagesProvided(_:storeVersion:)``) from the store's version, or empty
    /// to plan here.
    ///
    /// Each transaction re-reads the version first: another process may have migrated meanwhile, in
    /// which case there is nothing left to do. `BEGIN IMMEDIATE` makes a second process wait for the
    /// first (up to the busy timeout) instead of failing.
    package func migrate(_ db: Database, outcome: inout MigrationOutcome, route planned: [MigrationStep] = []) throws(StoreError) {
        var currentVersion: SchemaVersion?
        var currentStep = "start"
        let began = Date()
        do {
            try db.withForeignKeysOff {
                var stepIndex = 0
                var totalSteps = 0
                var finished = false
                var lastSeen = outcome.finalVersion
                // The path planned from where the store started, followed step by step while the store is where
                // it leads: planning again from each version could choose another path (the planner searches
                // the jumps a path from its start can take, not every pair), and a migration takes the path
                // that `lucidgen plan` and `inspect` show. A store another process moved is planned again.
                var route = planned
                while !finished {
                    let asked = Date()
                    var applied: [MigrationOutcome.Step] = []
                    try stepTransaction(db) {
                        outcome.lockWait += Date().timeIntervalSince(asked)
                        var first = true
                        repeat {
                            let start = try Bookkeeping.stepStart(db)
                            guard let record = start.record, let version = try? SchemaVersion(parsing: record.version) else {
                                throw StoreError.corrupt(path: path, message: "its version record disappeared")
                            }
                            currentVersion = version
                            if first, version != lastSeen {
                                // Another process moved the store while this one waited for the lock.
                                outcome.elsewhere.append(.init(from: lastSeen, to: version))
                            }
                            first = false
                            if version == newest.version {
                                finished = true
                                break
                            }
                            var steps = route
                            if route.first?.from != version {
                                // Not the route followed so far: the store is new to this call, or another process moved it.
                                steps = try plan(from: version)
                                try checkStagesProvided(steps, storeVersion: version)
                            }
                            if totalSteps == 0 {
                                totalSteps = steps.count
                                logger.info(
                                    "migrating \(path) from \(version) to \(newest.version) in \(steps.count) step(s): \(steps.map(\.label).joined(separator: ", "))"
                                )
                            }
                            stepIndex += 1
                            currentStep = steps[0].label
                            try run(steps[0], db: db, index: stepIndex, total: max(totalSteps, stepIndex), start: start)
                            applied.append(.init(from: version, to: steps[0].to, label: steps[0].label))
                            currentVersion = steps[0].to
                            route = Array(steps.dropFirst())
                        } while options.atomicity == .wholePath
                        return .commit
                    }
                    // Committed: only now are the steps this call's.
                    outcome.steps += applied
                    if let currentVersion {
                        lastSeen = currentVersion
                        outcome.finalVersion = currentVersion
                        // At the newest version by this call's own commit: no transaction to find that out.
                        if currentVersion == newest.version { finished = true }
                    }
                    if !finished, let stop = options.stopBetweenSteps, stop() {
                        logger.info("stopped \(path) at \(outcome.finalVersion), between steps, as asked")
                        finished = true
                    }
                }
            }
        } catch {
            throw Self.storeError(error, path: path, step: currentStep, version: currentVersion, since: began)
        }
    }
}
