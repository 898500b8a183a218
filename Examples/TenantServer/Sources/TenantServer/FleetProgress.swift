import Foundation
import LucidFleet
import LucidRuntime

/// What the startup fleet did so far, and what the requests saw of it: served at `GET /stats` and logged
/// when the fleet ends.
final class FleetProgress: @unchecked Sendable {
    private let lock = NSLock()
    /// The stores the fleet migrates, and whether each was reported.
    private var reported: [String: Bool]
    private var counts = Counts()
    /// The stores requested before the fleet reported them.
    private var requestedFirst: Set<String> = []
    private let began = Date()

    /// The fleet's counts (and the requests') as JSON.
    struct Counts: Codable, Sendable {
        /// The stores the fleet was given.
        var stores = 0
        /// The stores reported so far.
        var reported = 0
        /// The stores the fleet migrated itself (it ran their steps).
        var migratedByTheFleet = 0
        /// The stores the fleet found at the newest version after a request had opened them (through the
        /// StoreCache): that open migrated them, unless they were current already; or the fleet waited for
        /// their lock while a request's open migrated them.
        var currentAfterARequest = 0
        /// The stores already at the newest version when the fleet reached them, which no request had opened.
        var alreadyCurrent = 0
        var failed = 0
        var notAStore = 0
        /// Stopped between two steps (graceful shutdown).
        var stopped = 0
        var notStarted = 0
        /// Whether the fleet ended, and after how many seconds.
        var finished = false
        var seconds: Double?

        /// Requests for a tenant's notes received (whatever their answer).
        var requests = 0
        /// Requests for a tenant whose store the fleet had not reported yet when they arrived: each was
        /// answered from a store its tenant's first request migrated, or waited for that migration (its own,
        /// another request's, or the fleet's).
        var requestsAheadOfTheFleet = 0
        /// Requests that arrived before the fleet ended.
        var requestsWhileTheFleetRan = 0
        /// Requests answered with a 5xx status (a store that could not be opened, an unexpected error).
        var serverErrors = 0
    }

    init(paths: [String]) {
        reported = Dictionary(paths.map { ($0, false) }, uniquingKeysWith: { first, _ in first })
        counts.stores = reported.count
    }

    /// Counts a request for the store at `path`, ahead of the fleet when the fleet has it and has not
    /// reported it yet.
    func requestArrived(for path: String) {
        lock.withLock {
            counts.requests += 1
            if !counts.finished { counts.requestsWhileTheFleetRan += 1 }
            if reported[path] == false {
                counts.requestsAheadOfTheFleet += 1
                requestedFirst.insert(path)
            }
        }
    }

    func requestFailed() {
        lock.withLock { counts.serverErrors += 1 }
    }

    /// Counts one store's report.
    func record(_ report: StoreFleet.StoreReport) {
        lock.withLock {
            reported[report.path] = true
            counts.reported += 1
            switch report.outcome {
            case .migrated(let outcome):
                if outcome.steps.isEmpty { counts.currentAfterARequest += 1 } else { counts.migratedByTheFleet += 1 }
            case .alreadyCurrent:
                if requestedFirst.contains(report.path) { counts.currentAfterARequest += 1 } else { counts.alreadyCurrent += 1 }
            case .stoppedBetweenSteps: counts.stopped += 1
            case .failed: counts.failed += 1
            case .notAStore: counts.notAStore += 1
            case .notStarted: counts.notStarted += 1
            }
        }
    }

    func finish() {
        lock.withLock {
            counts.finished = true
            counts.seconds = Date().timeIntervalSince(began)
        }
    }

    var snapshot: Counts {
        lock.withLock { counts }
    }
}
