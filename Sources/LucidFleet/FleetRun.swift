import Foundation
import LucidRuntime

/// One run of a ``StoreFleet``: the stores taken in order by ``StoreFleet/Limits/jobs`` dedicated threads,
/// the canary waited for before any other store starts, the failures counted, and a stop that lets the
/// stores in flight finish. Every path is delivered exactly once, the stores not started last.
package final class FleetRun: @unchecked Sendable {
    /// The work of one store: its path, and whether the run was cancelled (to stop between its steps).
    package typealias Job = @Sendable (_ path: String, _ stopRequested: @escaping @Sendable () -> Bool) -> StoreFleet.StoreReport

    private let paths: [String]
    private let limits: StoreFleet.Limits
    private let job: Job
    private let deliver: @Sendable (StoreFleet.StoreReport) -> Void
    private let finished: @Sendable () -> Void

    private let condition = NSCondition()
    /// Held while a report is delivered (not ``condition``: `deliver` may call ``stop(_:)``), so that
    /// reports arrive one at a time.
    private let delivery = NSLock()
    /// The next path to start.
    private var next = 0
    private var canaryFinished = 0
    private var failures = 0
    private var reason: StoreFleet.StopReason?
    private var workersLeft = 0
    private var started = false
    private var over = false

    init(
        paths: [String], limits: StoreFleet.Limits, job: @escaping Job, deliver: @escaping @Sendable (StoreFleet.StoreReport) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        self.paths = paths
        self.limits = limits
        self.job = job
        self.deliver = deliver
        self.finished = finished
    }

    /// Starts the threads (once). A run stopped before it starts reports every path as not started.
    package func start() {
        condition.lock()
        guard !started else {
            condition.unlock()
            return
        }
        started = true
        let workers = max(1, min(limits.jobs, paths.count))
        workersLeft = workers
        condition.unlock()
        let threads = DedicatedThreads(count: workers, name: "lucidgen fleet")
        for _ in 0..<workers {
            threads.submit { [self] in work() }
        }
        threads.shutDown()
    }

    /// Starts no new store from now on; the stores in flight finish (after their current step when
    /// `reason` is ``StoreFleet/StopReason/cancelled``). The first reason given is the run's.
    package func stop(_ reason: StoreFleet.StopReason) {
        condition.lock()
        if self.reason == nil { self.reason = reason }
        condition.broadcast()
        condition.unlock()
    }

    /// Why the run started no more stores (nil: every store was started).
    package var stopReason: StoreFleet.StopReason? {
        condition.lock()
        defer { condition.unlock() }
        return next < paths.count ? reason : nil
    }

    /// Blocks until every path was delivered (not on Swift's cooperative threads).
    package func waitUntilFinished() {
        condition.lock()
        while !over { condition.wait() }
        condition.unlock()
    }

    private var cancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return reason == .cancelled
    }

    private func work() {
        let stopRequested: @Sendable () -> Bool = { [self] in cancelled }
        while let index = take() {
            let report = job(paths[index], stopRequested)
            condition.lock()
            if index < limits.canary { canaryFinished += 1 }
            if report.isFailure {
                failures += 1
                if index < limits.canary, reason == nil { reason = .canaryFailed }
                if let most = limits.maxFailures, failures >= most, reason == nil { reason = .tooManyFailures }
            }
            condition.broadcast()
            condition.unlock()
            delivery.lock()
            deliver(report)
            delivery.unlock()
        }
        condition.lock()
        workersLeft -= 1
        let last = workersLeft == 0
        condition.unlock()
        guard last else { return }
        // Every thread is done (each delivered its last report before leaving): nothing else starts or delivers.
        condition.lock()
        let notStarted = reason ?? .cancelled
        let first = next
        condition.unlock()
        for index in first..<paths.count {
            deliver(StoreFleet.StoreReport(path: paths[index], outcome: .notStarted(notStarted)))
        }
        finished()
        condition.lock()
        over = true
        condition.broadcast()
        condition.unlock()
    }

    /// The index of the next store to start, or nil when the run starts no more: after a stop, at the
    /// end, and, past the canary, only once every canary store has finished (and none failed).
    private func take() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while reason == nil, next < paths.count, next >= limits.canary, canaryFinished < min(limits.canary, paths.count) {
            condition.wait()
        }
        guard reason == nil, next < paths.count else { return nil }
        next += 1
        return next - 1
    }
}
