import Foundation
import Logging
import LucidFleet
import LucidRuntime
import Notes
import ServiceLifecycle

/// The startup task: migrates every store of the data folder with a ``StoreFleet`` (a few at a time, on
/// the fleet's own threads) while the server already answers requests. A graceful shutdown (SIGTERM,
/// SIGINT) cancels it: no new store starts, the stores in flight stop after their current step.
struct FleetMigration: Service {
    let fleet: StoreFleet
    let paths: [String]
    let progress: FleetProgress
    let logger: Logger

    func run() async throws {
        logger.info("fleet: migrating \(paths.count) stores to \(NotesSchema.newestVersion), \(fleet.limits.jobs) at a time")
        let fleet = self.fleet, paths = self.paths, progress = self.progress, logger = self.logger
        await cancelWhenGracefulShutdown {
            for await report in fleet.migrate(paths) {
                progress.record(report)
                if report.isFailure {
                    let problem =
                        if case .notAStore(let what) = report.outcome { "not a store (\(what))" } else { report.error?.problem ?? "failed" }
                    logger.error("fleet: \(report.path): \(problem). \(report.nextStep ?? "")")
                }
            }
        }
        progress.finish()
        let counts = progress.snapshot
        let seconds = String(format: "%.2f", counts.seconds ?? 0)
        let headline =
            counts.notStarted + counts.stopped > 0
            ? "stopped by the shutdown after \(seconds) s" : "\(counts.stores) stores in \(seconds) s"
        logger.info(
            """
            fleet: \(headline): \(counts.migratedByTheFleet) migrated by the fleet, \
            \(counts.currentAfterARequest) current after a request opened them, \(counts.alreadyCurrent) already current, \
            \(counts.failed) failed, \(counts.notAStore) not a store, \(counts.stopped) stopped between steps, \
            \(counts.notStarted) not started; \(counts.requests) requests so far, \(counts.requestsAheadOfTheFleet) ahead of the fleet
            """)
        // A service that returns ends the application's service group: wait for the shutdown instead.
        try? await gracefulShutdown()
    }
}
