import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// A store command refused: the runtime's error, and what `--accept-drift` would do with the store when
/// that helps (a drifted store's note, only when the option was not given).
package struct StoreRefusal: Error {
    package var error: StoreError
    package var note: String?
}

/// `lucidgen plan`'s work: the path from the oldest version, or what a store's open would do. Reads the
/// store without changing it.
package enum StorePlan {
    package enum Subject {
        /// No store given: the steps from the oldest version to the newest.
        case fromOldest(steps: [MigrationStep])
        /// A store: how it stands, its steps, drift, app objects and conversion.
        case store(StoreStatus)
    }

    package struct Options {
        /// The store file as given (nil: plan from the oldest version).
        package var database: String?
        /// Also list the edges the planner searches from the oldest version (markdown's diagram).
        package var searchedEdges = false
        package var acceptDrift = false
        package var busyTimeout: Double
        package var coreDataOrigin: CoreDataOrigin?

        package init(database: String?, busyTimeout: Double, coreDataOrigin: CoreDataOrigin?) {
            self.database = database
            self.busyTimeout = busyTimeout
            self.coreDataOrigin = coreDataOrigin
        }
    }

    package struct Planned {
        package var subject: Subject
        /// With ``Options/searchedEdges``: the edges searched from the oldest version; empty otherwise.
        package var edges: [MigrationEdge]
    }

    package static func plan(_ resolved: ProjectVersions.Resolved, _ options: Options) throws(StoreRefusal) -> Planned {
        let (versions, stages) = (resolved.versions, resolved.stages)
        let planner: MigrationPlanner
        let edges: [MigrationEdge]
        do {
            planner = try MigrationPlanner(versions: versions, stages: stages)
            // The diagram draws the edges searched from the oldest version (linear in the versions; every
            // pair would be quadratic, and too many edges for Mermaid); a text plan infers only the store's path.
            edges = options.searchedEdges ? try planner.searchedEdges() : []
        } catch {
            throw StoreRefusal(error: .planning(error))
        }
        guard let database = options.database else {
            do {
                return Planned(subject: .fromOldest(steps: try planner.plan(from: versions[0].version)), edges: edges)
            } catch {
                throw StoreRefusal(error: .planning(error))
            }
        }
        do {
            let status = try LucidStore.inspect(
                atPath: absolutePath(database), history: resolved.history, busyTimeout: options.busyTimeout,
                coreDataOrigin: options.coreDataOrigin, acceptsInferableDrift: options.acceptDrift)
            return Planned(subject: .store(status), edges: edges)
        } catch {
            throw StoreRefusal(
                error: error,
                note: options.acceptDrift
                    ? nil
                    : StoreInspection.driftNote(
                        for: error, path: absolutePath(database), versions: versions, stages: stages, busyTimeout: options.busyTimeout,
                        coreDataOrigin: options.coreDataOrigin))
        }
    }
}

/// `lucidgen migrate --database`'s work: one store migrated to the project's target version (or a copy of
/// it, for a dry run), with the same decision and refusals as `plan`.
package struct StoreMigration {
    /// The store file as given.
    package var database: String
    package var dryRun = false
    package var deferCleanup = false
    /// After migrating, finish the deferred cleanup the history accounts for.
    package var finishCleanup = false
    package var wholePath = false
    package var traceSQL = false
    package var acceptDrift = false
    package var busyTimeout: Double
    package var coreDataOrigin: CoreDataOrigin?
    /// Called with each step's and operation's progress.
    package var progress: (@Sendable (MigrationProgress) -> Void)?

    package init(database: String, busyTimeout: Double, coreDataOrigin: CoreDataOrigin?) {
        self.database = database
        self.busyTimeout = busyTimeout
        self.coreDataOrigin = coreDataOrigin
    }

    package struct Migrated {
        package var outcome: MigrationOutcome
        /// With ``StoreMigration/finishCleanup``: how many deferred cleanup items were finished.
        package var finishedCleanup: Int?
    }

    package func run(_ resolved: ProjectVersions.Resolved) throws -> Migrated {
        // One history for the inspection and the open: the open takes the steps the inspection planned.
        var history = resolved.history
        history.plannedRoutes = SchemaHistory.PlannedRoutes()
        let original = absolutePath(database)
        let path: String
        if dryRun {
            guard FileManager.default.fileExists(atPath: original) else {
                throw StoreRefusal(error: .cannotWrite(path: original, message: "no such file"))
            }
            path = try DryRunCopy.make(of: original)
        } else {
            path = original
        }
        defer { if dryRun { DryRunCopy.remove(path) } }

        var storeOptions = StoreOptions()
        storeOptions.declaredStages = resolved.stages
        storeOptions.deferCleanup = deferCleanup
        storeOptions.atomicity = wholePath ? .wholePath : .perStep
        storeOptions.logger.logLevel = traceSQL ? .trace : .warning
        if let progress { storeOptions.progress = progress }
        storeOptions.busyTimeout = busyTimeout
        // A file handed to the CLI may come from anywhere: its record is checked against its tables.
        storeOptions.versionRecordCheck = .always
        storeOptions.coreDataOrigin = coreDataOrigin
        storeOptions.acceptsInferableDrift = acceptDrift
        // The functions apps register that their defaults call (SQLiteData's uuid()), as the app has them.
        storeOptions.configuration.prepareDatabase { db in try CommonFunctions.registerMissing(db) }
        do {
            // The same decision and refusals as `plan` (same exit code), then what this process did: another
            // process may have migrated the store meanwhile, which the outcome says.
            // With --accept-drift a drifted store is inspected as the open takes it (its repairs read, not made).
            _ = try LucidStore.inspect(
                atPath: path, history: history, busyTimeout: busyTimeout, coreDataOrigin: coreDataOrigin,
                acceptsInferableDrift: acceptDrift)
            let opened = try LucidStore.open(atPath: path, history: history, options: storeOptions)
            var migrated = Migrated(outcome: opened.outcome)
            if finishCleanup {
                migrated.finishedCleanup = try LucidStore.finishDeferredCleanup(
                    opened.database, history: history, logger: storeOptions.logger)
            }
            try opened.database.close()
            return migrated
        } catch let error as StoreError {
            let note =
                acceptDrift
                ? nil
                : StoreInspection.driftNote(
                    for: error, path: path, versions: resolved.versions, stages: resolved.stages, busyTimeout: busyTimeout,
                    coreDataOrigin: coreDataOrigin)
            // A dry run's refusal names the store asked about, not its copy.
            guard dryRun else { throw StoreRefusal(error: error, note: note) }
            throw StoreRefusal(
                error: error.naming(path, as: original), note: note?.replacingOccurrences(of: path, with: original))
        }
    }
}

/// The copy a dry run migrates, in a temporary folder of its own, under the store's own name.
package enum DryRunCopy {
    package static func make(of path: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-dry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent((path as NSString).lastPathComponent).path
        for suffix in [""] + StoreFiles.companions where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        return copy
    }

    package static func remove(_ copy: String) {
        try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent)
    }
}
