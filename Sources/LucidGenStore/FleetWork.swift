import Foundation
import GRDB
import LucidCoreData
import LucidFleet
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// `migrate --stores` and `status --stores` on the project's versions: the fleet they run, each store's
/// job (on a copy for a dry run), the stages on the stores' paths, and the reports they print or write.
/// The command keeps the terminal: its display, the signals, the exit codes.
package struct FleetWork {
    /// What the command line says of a run.
    package struct Settings: Sendable {
        package var jobs = 1
        package var canary = 0
        package var maxFailures: Int?
        package var dryRun = false
        package var deferCleanup = false
        package var finishCleanup = false
        package var wholePath = false
        package var traceSQL = false
        package var busyTimeout: Double = 5
        /// What `import coredata` wrote beside the descriptions: a Core Data store of the fleet is converted.
        package var coreDataOrigin: CoreDataOrigin?

        package init() {}
    }

    package let fleet: StoreFleet
    package let history: SchemaHistory
    /// The project's newest version, every store's target.
    package let target: SchemaVersion
    package let settings: Settings

    package init(_ resolved: ProjectVersions.Resolved, settings: Settings) {
        let (versions, stages) = (resolved.versions, resolved.stages)
        target = versions[versions.count - 1].version
        // Each version's checksum once for the whole fleet, not once per store.
        history = SchemaHistory(versions: versions, stages: stages, checksums: resolved.checksums ?? versions.map(\.checksum))
        var options = StoreOptions()
        options.declaredStages = stages
        options.deferCleanup = settings.deferCleanup
        options.atomicity = settings.wholePath ? .wholePath : .perStep
        options.logger.logLevel = settings.traceSQL ? .trace : .warning
        options.busyTimeout = settings.busyTimeout
        // Files handed to the CLI may come from anywhere: each record is checked against its tables.
        options.versionRecordCheck = .always
        options.coreDataOrigin = settings.coreDataOrigin
        var fleet = StoreFleet(
            history: history, options: options,
            limits: .init(jobs: settings.jobs, canary: settings.canary, maxFailures: settings.maxFailures))
        fleet.checksPagesFirst = true
        self.fleet = fleet
        self.settings = settings
    }

    /// One store's migration, for ``StoreFleet``'s run: on a copy under the store's own name for a dry run
    /// (the report still names the store), the deferred cleanup finished first with `finishCleanup`.
    package var job: FleetRun.Job {
        let (fleet, history, settings) = (fleet, history, settings)
        let logger = fleet.options.logger
        return { path, stopRequested in
            let cleanup: ((DatabaseQueue) throws(StoreError) -> Void)? =
                !settings.finishCleanup
                ? nil
                : { database throws(StoreError) in
                    try LucidStore.finishDeferredCleanup(database, history: history, logger: logger)
                }
            guard settings.dryRun else { return fleet.migrateStore(atPath: path, stopRequested: stopRequested, afterOpening: cleanup) }
            let copy: String
            do {
                copy = try DryRunCopy.make(of: path)
            } catch {
                return StoreFleet.StoreReport(
                    path: path, outcome: .failed(.cannotWrite(path: path, message: "could not copy it for the dry run: \(error)")))
            }
            defer { DryRunCopy.remove(copy) }
            var report = fleet.migrateStore(atPath: copy, stopRequested: stopRequested, afterOpening: cleanup)
            // The report names the store asked about, never its copy.
            report.path = path
            switch report.outcome {
            case .failed(let error): report.outcome = .failed(error.naming(copy, as: path))
            case .notAStore(let what): report.outcome = .notAStore(what.replacingOccurrences(of: copy, with: path))
            default: break
            }
            return report
        }
    }

    /// A stage (the app's code) on the path of some stores, and those stores in path order.
    package struct StageOnPath: Sendable {
        package var stage: MigrationStep
        package var paths: [String]
    }

    /// The stages the stores' paths pass, in the order first met: `migrate --stores` cannot run the app's
    /// code, so it refuses them all before any store changes. Reads each store's version only.
    package func stagesOnPath(_ paths: [String]) -> [StageOnPath] {
        guard !history.stages.isEmpty else { return [] }
        var stepsFrom: [SchemaVersion: [MigrationStep]] = [:]
        var concerned: [StageOnPath] = []
        for (path, survey) in zip(paths, fleet.survey(paths)) {
            guard case .store(let version) = survey else { continue }
            if stepsFrom[version] == nil { stepsFrom[version] = (try? fleet.steps(from: version)) ?? [] }
            for step in stepsFrom[version]! {
                guard case .explicit = step.kind else { continue }
                if let index = concerned.firstIndex(where: { $0.stage.from == step.from && $0.stage.to == step.to }) {
                    concerned[index].paths.append(path)
                } else {
                    concerned.append(StageOnPath(stage: step, paths: [path]))
                }
            }
        }
        return concerned
    }

    /// `status --stores`: how many stores are at each version, newest first, and the files refused.
    package static func survey(
        _ resolved: ProjectVersions.Resolved, stores: String, paths: [String], busyTimeout: Double, coreDataOrigin: CoreDataOrigin? = nil
    ) -> FleetSurvey {
        // The fleet `migrate --stores` would run, its stores read as many at a time as there are cores.
        var settings = Settings()
        (settings.jobs, settings.busyTimeout, settings.coreDataOrigin) = (
            ProcessInfo.processInfo.activeProcessorCount, busyTimeout, coreDataOrigin
        )
        let work = FleetWork(resolved, settings: settings)
        let (fleet, newest) = (work.fleet, work.target)
        var counts: [SchemaVersion: Int] = [:]
        var report = FleetSurvey(
            stores: stores, newestVersion: newest.string, total: paths.count, versions: [], coreData: [], notAStore: [], refused: [])
        for (path, survey) in zip(paths, fleet.survey(paths)) {
            switch survey {
            case .store(let version): counts[version, default: 0] += 1
            case .refused(.storeIsNewer(let version, _)): counts[version, default: 0] += 1
            case .refused(let error): report.refused.append(.init(path: path, problem: error.problem, nextStep: error.nextStep))
            case .notAStore(let what):
                report.notAStore.append(
                    .init(path: path, problem: what, nextStep: StoreFleet.StoreReport(path: path, outcome: .notAStore(what)).nextStep))
            case .coreData: report.coreData.append(path)
            }
        }
        for (version, count) in counts.sorted(by: { $0.key > $1.key }) {
            if version > newest {
                report.versions.append(.init(version: version.string, stores: count, state: "newer than this project", steps: nil))
            } else {
                let steps = (try? fleet.steps(from: version).count) ?? 0
                report.versions.append(
                    .init(version: version.string, stores: count, state: steps == 0 ? "current" : "needs migrating", steps: steps))
            }
        }
        return report
    }
}

/// What `status --stores --format json` prints: the stores by version, and the files it refused.
package struct FleetSurvey: Encodable, Sendable {
    package var stores: String
    package var newestVersion: String
    package var total: Int
    package var versions: [VersionCount]
    /// The Core Data stores the project's `.coredata/origin.json` converts (then migrates) when migrated.
    package var coreData: [String]
    package var notAStore: [Problem]
    package var refused: [Problem]

    package struct VersionCount: Encodable, Sendable {
        package var version: String
        package var stores: Int
        /// `current`, `needs migrating`, `newer than this project`.
        package var state: String
        /// The steps to the newest version (nil for a newer version).
        package var steps: Int?
    }

    package struct Problem: Encodable, Sendable {
        package var path: String
        package var problem: String
        package var nextStep: String?
    }
}

/// The error as `lucidgen` prints it: the runtime's words (written for apps), except where the CLI's own
/// situation calls for its own next step.
package func cliDescription(_ error: StoreError) -> String {
    switch error {
    case .missingStage:
        // The CLI declares the app's stages without their code (StoreOptions.declaredStages): it stops there.
        "\(error.problem). Open the store from the app, with StoreOptions.stages = <Module>Schema.stages(using: <your implementation>); `lucidgen migrate` cannot run the app's code (its `--to` stops before the stage)"
    default:
        error.description
    }
}

/// What `--report` writes: the run, and each store in path order.
package struct FleetReport: Encodable, Sendable {
    /// The `--stores` argument.
    package var stores: String
    package var newestVersion: String
    package var dryRun: Bool
    package var jobs: Int
    package var total: Int
    package var counts: Counts
    /// Why the run stopped starting stores (`canary failed`, `max failures reached`), or nil.
    package var stoppedEarly: String?
    package var durationSeconds: Double
    package var results: [Entry]

    package struct Counts: Encodable, Sendable {
        package var migrated = 0
        package var current = 0
        package var failed = 0
        package var notAStore = 0
        package var stoppedBetweenSteps = 0
        package var notStarted = 0
    }

    package struct Entry: Encodable, Sendable {
        package var path: String
        package var versionBefore: String?
        package var versionAfter: String?
        package var steps: [String]
        package var durationSeconds: Double
        /// `migrated`, `current`, `failed`, `not a store`, `stopped between steps`, `not started`.
        package var outcome: String
        package var error: String?
        package var nextStep: String?
    }

    package init(
        source: String, target: String, dryRun: Bool, jobs: Int, reports: [StoreFleet.StoreReport], stopped: StoreFleet.StopReason?,
        elapsed: TimeInterval
    ) {
        stores = source
        newestVersion = target
        self.dryRun = dryRun
        self.jobs = jobs
        total = reports.count
        counts = Counts()
        stoppedEarly = stopped.map(Self.words)
        durationSeconds = (elapsed * 1000).rounded() / 1000
        results = reports.map { report in
            var entry = Entry(
                path: report.path, versionBefore: report.versionBefore?.string, versionAfter: report.versionAfter?.string,
                steps: report.steps.map(\.label),
                durationSeconds: (report.duration * 1000).rounded() / 1000, outcome: "", nextStep: report.nextStep)
            switch report.outcome {
            case .migrated: entry.outcome = "migrated"
            case .alreadyCurrent: entry.outcome = "current"
            case .failed(let error):
                entry.outcome = "failed"
                entry.error = error.problem
                if case .missingStage = error { entry.nextStep = cliDescription(error) }
            case .notAStore(let what):
                entry.outcome = "not a store"
                entry.error = what
            case .stoppedBetweenSteps: entry.outcome = "stopped between steps"
            case .notStarted(let reason):
                entry.outcome = "not started"
                entry.error = "the run stopped before this store (\(Self.words(reason)))"
            }
            return entry
        }
        for entry in results {
            switch entry.outcome {
            case "migrated": counts.migrated += 1
            case "current": counts.current += 1
            case "failed": counts.failed += 1
            case "not a store": counts.notAStore += 1
            case "stopped between steps": counts.stoppedBetweenSteps += 1
            default: counts.notStarted += 1
            }
        }
    }

    package static func words(_ reason: StoreFleet.StopReason) -> String {
        switch reason {
        case .canaryFailed: "canary failed"
        case .tooManyFailures: "max failures reached"
        case .cancelled: "interrupted"
        }
    }

    /// One line: how many stores did what, and how long it took.
    package var summary: String {
        var parts = ["\(counts.migrated) migrated", "\(counts.current) already at \(newestVersion)"]
        if counts.failed > 0 { parts.append("\(counts.failed) failed") }
        if counts.notAStore > 0 { parts.append("\(counts.notAStore) not a lucidgen store") }
        if counts.stoppedBetweenSteps > 0 { parts.append("\(counts.stoppedBetweenSteps) stopped between steps") }
        if counts.notStarted > 0 { parts.append("\(counts.notStarted) not started (\(stoppedEarly ?? "stopped"))") }
        return "\(total) store\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + String(format: "; %.1f s, %d job%@.", durationSeconds, jobs, jobs == 1 ? "" : "s")
    }
}
