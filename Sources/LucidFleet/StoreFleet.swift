import Foundation
import GRDB
import LucidRuntime
@_spi(Generated) import LucidSchema

/// Migrates many store files of one registry (a server's store per tenant), a few at a time on threads
/// of its own, and tells each store's outcome as it finishes.
///
/// ```swift
/// let fleet = try StoreFleet(registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
/// for await report in fleet.migrate(tenantPaths) {
///     if let error = report.error { logger.error("\(report.path): \(error.problem). \(error.nextStep)") }
/// }
/// ```
///
/// Each store is migrated exactly as `LucidStore.open(atPath:registry:options:)` migrates it, with the
/// same guarantees: every step commits with the store's version record (or the whole path at once under
/// `StoreOptions.Atomicity.wholePath`), another process migrating the same store waits for the lock,
/// and a store that is refused is left byte-identical. A store already at the newest version costs one
/// open and one read. What differs from opening: the fleet never creates a store (a missing, empty or
/// foreign file is reported as ``StoreReport/Outcome/notAStore(_:)``) and never applies the incompatible
/// store policies (a newer or unknown store is reported as failed, never erased or opened read-only).
///
/// **Threads.** ``Limits/jobs`` dedicated threads run the SQLite work; the task iterating the results only
/// awaits them, so a server's cooperative threads stay free to answer requests meanwhile.
///
/// **Cancellation.** Cancelling the task that iterates (a graceful shutdown) starts no new store; each
/// store in flight stops after its current step, which commits (it is reported as
/// ``StoreReport/Outcome/stoppedBetweenSteps(_:)``, at a version on its path), and the sequence then
/// reports every store not started as ``StoreReport/Outcome/notStarted(_:)`` and ends. Leaving the loop
/// early does the same without waiting.
public struct StoreFleet: Sendable {
    /// How many stores at a time, and when to stop starting new ones.
    public struct Limits: Sendable, Equatable {
        /// How many stores are migrated at the same time, each on a thread of its own (default: the
        /// active processor count).
        public var jobs: Int
        /// The first `canary` stores (in the order given) are migrated first; if any of them fails, no
        /// other store starts (default 0: no canary).
        public var canary: Int
        /// After this many failures no new store starts (default nil: every store is tried).
        public var maxFailures: Int?

        /// ``jobs`` stores at a time, after a canary of ``canary`` stores, until ``maxFailures`` failures.
        ///
        /// ```swift
        /// let limits = StoreFleet.Limits(jobs: 4, canary: 10, maxFailures: 3)
        /// ```
        public init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, canary: Int = 0, maxFailures: Int? = nil) {
            self.jobs = max(jobs, 1)
            self.canary = max(canary, 0)
            self.maxFailures = maxFailures.map { max($0, 1) }
        }
    }

    /// Why a run started no more stores.
    public enum StopReason: Sendable, Equatable {
        /// One of the first ``Limits/canary`` stores failed.
        case canaryFailed
        /// ``Limits/maxFailures`` stores failed.
        case tooManyFailures
        /// The task iterating the results was cancelled, or the loop left early.
        case cancelled
    }

    /// Every version and the steps that need the app's code.
    package let history: SchemaHistory
    /// How each store is opened: the app's stages and data migrations, busy timeout, logger.
    public var options: StoreOptions
    /// How many stores at a time, the canary and the failures allowed.
    public var limits: Limits
    /// Each store's pages are read (`PRAGMA quick_check`) before its first step, so that a damaged
    /// store is refused untouched, as `LucidStore.inspect(atPath:registry:busyTimeout:)` refuses it
    /// (`lucidgen migrate --stores`); an app's fleet does as its launch does and lets a step meet the damage.
    package var checksPagesFirst = false

    /// A fleet of stores of `registry`, after checking that the registry's checksums agree with this
    /// runtime.
    ///
    /// ```swift
    /// let fleet = try StoreFleet(registry: FlightLogSchema.self, options: FlightLogStages.storeOptions(),
    ///                            limits: StoreFleet.Limits(jobs: 2, maxFailures: 5))
    /// ```
    public init<Registry: SchemaRegistry>(registry: Registry.Type, options: StoreOptions = StoreOptions(), limits: Limits = Limits())
        throws(StoreError)
    {
        try LucidStore.checkRegistry(registry)
        self.init(history: SchemaHistory(registry: registry), options: options, limits: limits)
    }

    /// A fleet for a schema history (lucidgen's own tools and tests).
    package init(history: SchemaHistory, options: StoreOptions = StoreOptions(), limits: Limits = Limits()) {
        self.history = history
        self.options = options
        self.limits = limits
    }

    /// Migrates the stores at `paths`, in that order (``Limits/jobs`` at a time, so they finish in about
    /// that order), and yields one ``StoreReport`` per path as each store finishes: every path is reported
    /// once, those never started included. Nothing starts until the sequence is iterated.
    ///
    /// ```swift
    /// var failed = 0
    /// for await report in fleet.migrate(paths) where report.isFailure { failed += 1 }
    /// ```
    public func migrate(_ paths: [String]) -> Reports {
        let fleet = self
        return Reports { deliver, finished in fleet.run(paths, deliver: deliver, finished: finished) }
    }

    /// The run behind ``migrate(_:)``, delivering each report from the thread that made it (one at a
    /// time, in the order they finish): what `lucidgen migrate --stores` runs, with `job` for the work
    /// of one store when it is not ``migrateStore(atPath:stopRequested:)`` (a dry run's copy, the cleanup
    /// after it). Call ``FleetRun/start()``.
    package func run(
        _ paths: [String], job: FleetRun.Job? = nil, deliver: @escaping @Sendable (StoreReport) -> Void,
        finished: @escaping @Sendable () -> Void = {}
    ) -> FleetRun {
        let fleet = self
        return FleetRun(
            paths: paths, limits: limits, job: job ?? { path, stop in fleet.migrateStore(atPath: path, stopRequested: stop) },
            deliver: deliver, finished: finished)
    }

    /// Migrates one store of the fleet: decides what it is (one open), and opens it to migrate only when
    /// it needs it. `afterOpening` runs on the opened store before it is closed (e.g. the deferred
    /// cleanup); with it every store is opened.
    package func migrateStore(
        atPath path: String, stopRequested: @escaping @Sendable () -> Bool = { false },
        afterOpening: ((DatabaseQueue) throws(StoreError) -> Void)? = nil
    ) -> StoreReport {
        let began = Date()
        var report = StoreReport(path: path, outcome: .notStarted(.cancelled))
        func finish(_ outcome: StoreReport.Outcome) -> StoreReport {
            report.outcome = outcome
            report.duration = Date().timeIntervalSince(began)
            return report
        }
        var options = self.options
        // A fleet migrates: it never erases a store, nor opens one read-only or unmigrated.
        options.newerStorePolicy = .refuse
        options.unknownStorePolicy = .refuse
        options.stopBetweenSteps = stopRequested
        do throws(StoreError) {
            let migrator = try StoreMigrator(path: path, history: history, options: options)
            let decision = try migrator.decide()
            switch decision {
            case .newFile: return finish(.notAStore("no such file"))
            case .emptyFile: return finish(.notAStore("an empty (0-byte) file"))
            case .emptyDatabase: return finish(.notAStore("a database without lucidgen's tables"))
            case .known(let schema, let recorded, let schemaCookieStale):
                report.versionBefore = schema.version
                if schema.version == migrator.newest.version && recorded && !schemaCookieStale && options.dataMigrations.isEmpty
                    && afterOpening == nil
                {
                    report.versionAfter = schema.version
                    return finish(.alreadyCurrent)
                }
                if checksPagesFirst && schema.version != migrator.newest.version { try migrator.checkPages() }
            case .newer(let version), .unknownVersion(let version), .checksumMismatch(let version, _, _), .contradicted(let version, _, _):
                report.versionBefore = version
                return finish(.failed(decision.refusal(path: path, versions: history.versions, options: options)!.0))
            case .unrecognized, .notADatabase:
                return finish(.failed(decision.refusal(path: path, versions: history.versions, options: options)!.0))
            case .coreData:
                break // converted by the open below, then migrated
            }
            let opened = try LucidStore.open(atPath: path, history: history, options: options)
            defer { try? opened.database.close() }
            let outcome = opened.outcome
            report.versionAfter = outcome.finalVersion
            report.steps = outcome.steps
            try afterOpening?(opened.database)
            if outcome.finalVersion != migrator.newest.version { return finish(.stoppedBetweenSteps(outcome)) }
            let adopted = if case .version(_, true) = outcome.start { true } else { false }
            // A store another process migrated while this one waited for its lock counts once, as that
            // process's: here it is current (its versionBefore still says where this run found it).
            return finish(outcome.changedTheStore || adopted ? .migrated(outcome) : .alreadyCurrent)
        } catch {
            return finish(.failed(error))
        }
    }
}

extension StoreFleet {
    /// What a store of the fleet is, without changing it: what `lucidgen status --stores` counts, and
    /// what `lucidgen migrate --stores` looks at before it starts (the stages on the stores' paths).
    package enum Survey: Sendable {
        /// A store at this version.
        case store(SchemaVersion)
        /// No lucidgen store (``StoreReport/Outcome/notAStore(_:)``).
        case notAStore(String)
        /// A store the fleet would refuse (newer, unknown, damaged…).
        case refused(StoreError)
        /// A Core Data store the fleet's `coreDataOrigin` recognises: converted, then migrated, when migrated.
        case coreData
    }

    /// What each store at `paths` is (one open each, ``Limits/jobs`` at a time), in the order of `paths`.
    package func survey(_ paths: [String]) -> [Survey] {
        let fleet = self
        return DedicatedThreads.map(count: paths.count, threads: limits.jobs) { index in fleet.survey(atPath: paths[index]) }
    }

    private func survey(atPath path: String) -> Survey {
        do throws(StoreError) {
            let decision = try StoreMigrator(path: path, history: history, options: options).decide()
            switch decision {
            case .newFile: return .notAStore("no such file")
            case .emptyFile: return .notAStore("an empty (0-byte) file")
            case .emptyDatabase: return .notAStore("a database without lucidgen's tables")
            case .known(let schema, _, _): return .store(schema.version)
            case .coreData: return .coreData
            default: return .refused(decision.refusal(path: path, versions: history.versions, options: options)!.0)
            }
        } catch {
            return .refused(error)
        }
    }

    /// The steps from `version` to the newest, as a store at `version` would take them.
    package func steps(from version: SchemaVersion) throws(StoreError) -> [MigrationStep] {
        let migrator = try StoreMigrator(path: "", history: history, options: options)
        do throws(PlanningError) {
            return try migrator.plan(from: version)
        } catch {
            throw .planning(error)
        }
    }
}

extension StoreFleet {
    /// What happened to one store of a fleet run.
    public struct StoreReport: Sendable {
        /// What the run did with the store.
        public enum Outcome: Sendable {
            /// Migrated to the newest version (or adopted): what this run's call did.
            case migrated(MigrationOutcome)
            /// Already at the newest version: nothing was written. Also a store another process (another
            /// fleet on the same folder, the app) migrated while this run waited for its lock: it is
            /// counted once, by the process that migrated it; ``StoreReport/versionBefore`` is the version
            /// this run found, ``StoreReport/versionAfter`` the newest.
            case alreadyCurrent
            /// The run was cancelled while this store migrated: it stopped after a committed step, at
            /// ``StoreReport/versionAfter``, a version on its path; the next run goes on from there.
            case stoppedBetweenSteps(MigrationOutcome)
            /// Refused or failed, with what to do next (`StoreError.nextStep`); the store is at
            /// ``StoreReport/versionAfter`` when a step committed before the failure, else unchanged.
            case failed(StoreError)
            /// No lucidgen store here (a missing or empty file, a database without lucidgen's tables): the
            /// fleet does not create stores. Nothing was written.
            case notAStore(String)
            /// Not started: the run stopped before this store's turn.
            case notStarted(StopReason)
        }

        /// The store's path, as given.
        public var path: String
        /// The version the store was at (nil: not a store, or not started).
        public var versionBefore: SchemaVersion?
        /// The version the store is at after the run (nil when unknown or unchanged by a failure).
        public var versionAfter: SchemaVersion?
        /// The steps this run committed, in order.
        public var steps: [MigrationOutcome.Step] = []
        /// How long the store took, in seconds.
        public var duration: TimeInterval = 0
        /// What the run did with it.
        public var outcome: Outcome

        package init(path: String, outcome: Outcome) {
            self.path = path
            self.outcome = outcome
        }

        /// Whether the store failed or is not a store: what ``Limits/canary`` and ``Limits/maxFailures``
        /// count.
        public var isFailure: Bool {
            switch outcome {
            case .failed, .notAStore: true
            case .migrated, .alreadyCurrent, .stoppedBetweenSteps, .notStarted: false
            }
        }

        /// The error of a failed store.
        public var error: StoreError? {
            if case .failed(let error) = outcome { return error }
            return nil
        }

        /// What to do about a store that failed or is not a store (nil otherwise).
        public var nextStep: String? {
            switch outcome {
            case .failed(let error): error.nextStep
            case .notAStore:
                "it holds no table of this registry's versions: a tenant's new store gets them when the app first opens it; anything else does not belong among the stores (move it away)"
            case .migrated, .alreadyCurrent, .stoppedBetweenSteps, .notStarted: nil
            }
        }
    }
}
