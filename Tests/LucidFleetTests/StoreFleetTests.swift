import FlightLog
import Foundation
import GRDB
import LucidFleet
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Many stores of one registry (a server's store per tenant): the fleet run, its canary and failure
/// limits, cancellation between steps, and the in-process cache that opens each store once.
@Suite struct StoreFleetTests {
    static let versions = FlightLogSchema.versions
    /// The steps each starting version takes to 4.0 (FlightLogSchema.routes).
    static let steps: [String: [String]] = [
        "1.0": ["1.0 → 2.0 (inferred)", "2.0 → 2.1 (moveFlightData)", "2.1 → 4.0 (inferred)"],
        "2.0": ["2.0 → 2.1 (moveFlightData)", "2.1 → 4.0 (inferred)"],
        "3.0": ["3.0 → 4.0 (inferred)"],
    ]

    /// The app's options, logging warnings only (a fleet logs each step of each store at `.info`).
    static var options: StoreOptions {
        var options = FlightLogStages.storeOptions()
        options.logger.logLevel = .warning
        return options
    }

    /// A store at `version` holding one aircraft (with flight data where the version has the column).
    static func makeStore(_ path: String, version: String, tail: String) throws {
        let store = try LucidStore.create(
            atPath: path, versions: versions, version: try SchemaVersion(parsing: version), dataMigrations: FlightLogStages.dataMigrations,
            stages: FlightLogSchema.stages)
        try store.write { db in
            switch version {
            case "1.0": try Aircraft_1_0(id: tail, tailNumber: tail, aircraftType: "C172", aircraftClass: .singleEngineLand).insert(db)
            case "3.0": try Aircraft_3_0(id: tail, tailNumber: tail, aircraftType: "C172", aircraftClass: .singleEngineLand).insert(db)
            default:
                try Aircraft_1_1(
                    id: tail, tailNumber: tail, aircraftType: "C172", aircraftClass: .singleEngineLand, flightData: Data([1, 2, 3])
                ).insert(db)
            }
        }
        try store.close()
    }

    /// `count` stores named `tenant-0000.sqlite`…, at 1.0, 2.0 and 3.0 in turn; returns their paths
    /// (sorted) and each one's starting version.
    static func makeFleet(_ folder: TemporaryFolder, count: Int) throws -> (paths: [String], start: [String: String]) {
        var start: [String: String] = [:]
        let templates = try ["1.0", "2.0", "3.0"].map { version in
            let path = folder.path("template-\(version).db-template")
            try makeStore(path, version: version, tail: "N0")
            return (version, path)
        }
        for index in 0..<count {
            let (version, template) = templates[index % 3]
            let path = folder.path(String(format: "tenant-%04d.sqlite", index))
            try FileManager.default.copyItem(atPath: template, toPath: path)
            start[path] = version
        }
        return (start.keys.sorted(), start)
    }

    /// Every report of a run, in the order they came.
    static func collect(_ fleet: StoreFleet, _ paths: [String]) async -> [StoreFleet.StoreReport] {
        var reports: [StoreFleet.StoreReport] = []
        for await report in fleet.migrate(paths) { reports.append(report) }
        return reports
    }

    static func recordedVersion(_ path: String) throws -> String? {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") }
    }

    /// The fleet's size: 60 here, `LUCIDGEN_FLEET_STORES` (e.g. 2000) on demand.
    static var fleetSize: Int { ProcessInfo.processInfo.environment["LUCIDGEN_FLEET_STORES"].flatMap(Int.init) ?? 60 }

    @Test func aFleetAtThreeVersionsIsMigratedAndTheStoresThatAreNotReportedWithTheirNextStep() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (stores, start) = try Self.makeFleet(folder, count: Self.fleetSize)
        let foreign = folder.path("foreign.sqlite")
        try withDatabase(foreign) { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note VALUES (1, 'hello')")
        }
        let damaged = folder.path("damaged.sqlite")
        try Data("this is not a database, only text that looks nothing like SQLite's header".utf8).write(to: URL(fileURLWithPath: damaged))
        let untouched = [foreign: fileBytes(foreign), damaged: fileBytes(damaged)]
        let paths = (stores + [foreign, damaged]).sorted()

        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options, limits: .init(jobs: 2))
        let reports = await Self.collect(fleet, paths)
        #expect(reports.count == paths.count)
        #expect(Set(reports.map(\.path)) == Set(paths), "every path reported once")
        let byPath = Dictionary(uniqueKeysWithValues: reports.map { ($0.path, $0) })
        for path in stores {
            let report = try #require(byPath[path])
            guard case .migrated(let outcome) = report.outcome else {
                Issue.record("\(path): \(report.outcome)")
                continue
            }
            #expect(report.versionBefore?.string == start[path])
            #expect(report.versionAfter?.string == "4.0")
            #expect(report.steps.map(\.label) == Self.steps[start[path]!], "\(path)")
            #expect(outcome.steps == report.steps)
            #expect(!report.isFailure && report.error == nil && report.nextStep == nil)
            #expect(try Self.recordedVersion(path) == "4.0")
        }
        // The stage of 2.0 stores moved their flight data, and the 3.0 data migration marked the aircraft.
        let second = try #require(stores.first { start[$0] == "2.0" })
        try withDatabase(second) { (db: Database) throws in
            #expect(try FlightData.fetchAll(db).map(\.data) == [Data([1, 2, 3])])
            #expect(try Aircraft.fetchAll(db).map(\.isFavorite) == [true])
        }

        let notAStore = try #require(byPath[foreign])
        guard case .notAStore(let what) = notAStore.outcome else { throw Expectation("foreign: \(notAStore.outcome)") }
        #expect(what == "a database without lucidgen's tables")
        #expect(notAStore.isFailure && notAStore.versionBefore == nil && notAStore.versionAfter == nil)
        #expect(notAStore.nextStep?.contains("when the app first opens it") == true)
        let bad = try #require(byPath[damaged])
        guard case .failed(.notADatabase(let path)) = bad.outcome else { throw Expectation("damaged: \(bad.outcome)") }
        #expect(path == damaged)
        #expect(bad.nextStep == StoreError.notADatabase(path: damaged).nextStep)
        #expect(fileBytes(foreign) == untouched[foreign]!, "nothing is written to a file that is not a store")
        #expect(fileBytes(damaged) == untouched[damaged]!)

        // A second run: every store is current and costs one look; the two files are reported again.
        let again = await Self.collect(fleet, paths)
        let current = again.filter { if case .alreadyCurrent = $0.outcome { true } else { false } }
        #expect(current.count == stores.count)
        #expect(current.allSatisfy { $0.versionBefore?.string == "4.0" && $0.versionAfter?.string == "4.0" && $0.steps.isEmpty })
        #expect(again.filter(\.isFailure).map(\.path).sorted() == [damaged, foreign])
    }

    @Test func aFailingStoreInTheCanaryStopsTheRunBeforeAnyOtherStoreIsTouched() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, _) = try Self.makeFleet(folder, count: 12)
        // The second store in path order is damaged.
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: paths[1]))
        let before = paths.map(fileBytes)
        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options, limits: .init(jobs: 2, canary: 3))
        let reports = await Self.collect(fleet, paths)
        #expect(reports.count == paths.count)
        let byPath = Dictionary(uniqueKeysWithValues: reports.map { ($0.path, $0) })
        #expect(byPath[paths[1]]?.error.map { if case .notADatabase = $0 { true } else { false } } == true)
        for (index, path) in paths.enumerated().dropFirst(3) {
            guard case .notStarted(.canaryFailed) = byPath[path]?.outcome else {
                Issue.record("\(path) past the canary: \(String(describing: byPath[path]?.outcome))")
                continue
            }
            #expect(fileBytes(path) == before[index], "\(path), past the canary, is untouched")
        }
    }

    @Test func afterMaxFailuresNoNewStoreStarts() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, _) = try Self.makeFleet(folder, count: 10)
        for index in [1, 3, 5] { try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: paths[index])) }
        let before = paths.map(fileBytes)
        // One store at a time: the order is the paths', so the second failure is the fourth store.
        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options, limits: .init(jobs: 1, maxFailures: 2))
        let reports = await Self.collect(fleet, paths)
        #expect(reports.map(\.path) == paths, "one job: reported in path order")
        let kinds = reports.map { report -> String in
            switch report.outcome {
            case .migrated: "migrated"
            case .failed: "failed"
            case .notStarted(.tooManyFailures): "not started"
            default: "\(report.outcome)"
            }
        }
        #expect(kinds == ["migrated", "failed", "migrated", "failed"] + Array(repeating: "not started", count: 6))
        for index in 4..<paths.count { #expect(fileBytes(paths[index]) == before[index]) }
    }

    @Test func aCancelledRunStartsNoNewStoreAndReportsEveryStore() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, start) = try Self.makeFleet(folder, count: 6)
        let before = paths.map(fileBytes)
        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options, limits: .init(jobs: 1))
        let task = Task {
            var reports: [StoreFleet.StoreReport] = []
            for await report in fleet.migrate(paths) {
                reports.append(report)
                if reports.count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return reports
        }
        let reports = await task.value
        #expect(reports.map(\.path) == paths, "every store reported once, in order (one job)")
        guard case .migrated = reports[0].outcome else { throw Expectation("first: \(reports[0].outcome)") }
        // How far the only job got before it heard of the cancellation depends on when the task ran; from
        // there on, no store started, and a store it had started ended after a step, at a version on its path.
        let firstNotStarted = reports.firstIndex { if case .notStarted = $0.outcome { true } else { false } } ?? reports.count
        for (index, report) in reports.enumerated() {
            switch report.outcome {
            case .migrated where index < firstNotStarted:
                #expect(try Self.recordedVersion(paths[index]) == "4.0")
            case .stoppedBetweenSteps where index == firstNotStarted - 1:
                let version = try #require(report.versionAfter)
                #expect(try Self.recordedVersion(paths[index]) == version.string)
                #expect(Self.steps[start[paths[index]]!]!.starts(with: report.steps.map(\.label)))
            case .notStarted(.cancelled) where index >= firstNotStarted:
                #expect(fileBytes(paths[index]) == before[index], "\(paths[index]) not started is untouched")
            default:
                Issue.record("\(paths[index]): \(report.outcome)")
            }
        }
    }

    @Test func aTaskCancelledBeforeItIteratesStartsNoStore() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, _) = try Self.makeFleet(folder, count: 4)
        let before = paths.map(fileBytes)
        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var reports: [StoreFleet.StoreReport] = []
            for await report in fleet.migrate(paths) { reports.append(report) }
            return reports
        }
        let reports = await task.value
        #expect(reports.map(\.path) == paths)
        #expect(reports.allSatisfy { if case .notStarted(.cancelled) = $0.outcome { true } else { false } })
        #expect(paths.map(fileBytes) == before)
    }

    /// Two jobs: the first store (three steps) finishes while the second (two steps) is inside its first
    /// step; the run is stopped as the first store is reported. The second ends after its step, committed;
    /// no other store starts.
    @Test func aStoppedRunLetsTheStoreInFlightEndAfterItsCurrentStep() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (paths, _) = try Self.makeFleet(folder, count: 6)
        let before = paths.map(fileBytes)
        let secondStarted = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        let waits = Recorder()
        var options = Self.options
        // The stores are told apart by their paths' lengths: the first (1.0) has 3 steps, the second (2.0) 2.
        options.progress = { progress in
            guard progress.operation == "starting" else { return }
            if progress.totalSteps == 2 && progress.step == 1 {
                secondStarted.signal()
                if stopped.wait(timeout: .now() + 60) == .timedOut { waits.append("the second store waited in vain for the stop") }
            } else if progress.totalSteps == 3 && progress.step == 2 {
                if secondStarted.wait(timeout: .now() + 60) == .timedOut { waits.append("the first store waited in vain for the second") }
            }
        }
        let fleet = StoreFleet(history: SchemaHistory(registry: FlightLogSchema.self), options: options, limits: .init(jobs: 2))
        let reports = Recorder()
        let holder = RunHolder()
        let run = fleet.run(
            paths,
            deliver: { report in
                reports.append(report)
                if report.path == paths[0] {
                    holder.run?.stop(.cancelled)
                    stopped.signal()
                }
            })
        holder.run = run
        run.start()
        run.waitUntilFinished()
        #expect(waits.items.isEmpty, "\(waits.items)")
        let byPath = Dictionary(uniqueKeysWithValues: reports.reports.map { ($0.path, $0) })
        #expect(byPath.count == paths.count)
        guard case .migrated = byPath[paths[0]]?.outcome else {
            throw Expectation("first: \(String(describing: byPath[paths[0]]?.outcome))")
        }
        guard case .stoppedBetweenSteps(let outcome) = byPath[paths[1]]?.outcome else {
            throw Expectation("second: \(String(describing: byPath[paths[1]]?.outcome))")
        }
        #expect(outcome.steps.map(\.label) == ["2.0 → 2.1 (moveFlightData)"])
        #expect(byPath[paths[1]]?.versionAfter?.string == "2.1")
        #expect(try Self.recordedVersion(paths[1]) == "2.1")
        for index in 2..<paths.count {
            guard case .notStarted(.cancelled) = byPath[paths[index]]?.outcome else {
                Issue.record("\(paths[index]): \(String(describing: byPath[paths[index]]?.outcome))")
                continue
            }
            #expect(fileBytes(paths[index]) == before[index])
        }
        #expect(run.stopReason == .cancelled)
    }

    @Test func aStoreAskedToStopStopsAfterItsCurrentStepAtAVersionOnItsPathAndTheNextRunFinishes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tenant.sqlite")
        try Self.makeStore(path, version: "1.0", tail: "N1")
        let fleet = try StoreFleet(registry: FlightLogSchema.self, options: Self.options)
        let stopped = fleet.migrateStore(atPath: path, stopRequested: { true })
        guard case .stoppedBetweenSteps(let outcome) = stopped.outcome else { throw Expectation("\(stopped.outcome)") }
        #expect(outcome.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        #expect(stopped.versionBefore?.string == "1.0" && stopped.versionAfter?.string == "2.0")
        #expect(try Self.recordedVersion(path) == "2.0")
        #expect(!stopped.isFailure)
        let resumed = fleet.migrateStore(atPath: path)
        guard case .migrated = resumed.outcome else { throw Expectation("\(resumed.outcome)") }
        #expect(resumed.versionBefore?.string == "2.0" && resumed.versionAfter?.string == "4.0")
        #expect(resumed.steps.map(\.label) == Self.steps["2.0"])
    }

    // MARK: One process, many requests

    @Test func fiftyTasksOpeningOneStoreAtOnceMigrateItOnceAndShareItsConnection() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("tenant.sqlite")
        try Self.makeStore(path, version: "1.0", tail: "N1")
        let cache = try StoreCache(registry: FlightLogSchema.self, options: Self.options)
        let seen = try await withThrowingTaskGroup(of: (ObjectIdentifier, String?).self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await cache.withStore(atPath: path) { database in
                        (
                            ObjectIdentifier(database),
                            try await database.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") }
                        )
                    }
                }
            }
            var seen: [(ObjectIdentifier, String?)] = []
            for try await item in group { seen.append(item) }
            return seen
        }
        #expect(seen.count == 50)
        #expect(Set(seen.map(\.0)).count == 1, "one connection, shared by the 50 tasks")
        #expect(seen.allSatisfy { $0.1 == "4.0" }, "each task got the migrated store")
        let ledger = try #require(try LucidStore.ledger(atPath: path, registry: FlightLogSchema.self))
        let migrations = ledger.steps.filter { $0.kind == .inferred || $0.kind == .stage }
        #expect(migrations.map(\.label) == Self.steps["1.0"], "each step ran once")
        #expect(cache.openPaths == [URL(fileURLWithPath: path).resolvingSymlinksInPath().path])
    }

    @Test func theCacheClosesTheLeastRecentlyUsedStoreNoTaskUses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = try StoreCache(registry: FlightLogSchema.self, options: Self.options, capacity: 2)
        let a = folder.path("a.sqlite"), b = folder.path("b.sqlite"), c = folder.path("c.sqlite")
        func key(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        func use(_ path: String) async throws -> String? {
            try await cache.withStore(atPath: path) { database in
                try await database.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") }
            }
        }
        #expect(try await use(a) == "4.0", "a new tenant's store is created on its first use")
        _ = try await use(b)
        _ = try await use(c)
        #expect(cache.openPaths == [key(b), key(c)], "a, the least recently used, was closed")
        _ = try await use(b)
        _ = try await use(a)
        #expect(cache.openPaths == [key(b), key(a)], "c was the least recently used")
        // Stores in use are never closed under their task: the cache holds more than its capacity meanwhile.
        let inside = try await cache.withStore(atPath: a) { _ in
            try await cache.withStore(atPath: b) { _ in
                try await cache.withStore(atPath: c) { _ in cache.openPaths.count }
            }
        }
        #expect(inside == 3)
        #expect(cache.openPaths.count == 2)
        // An open that fails fails for its task and is not kept: the next use tries again.
        let damaged = folder.path("damaged.sqlite")
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: damaged))
        await #expect { try await use(damaged) } throws: { error in
            if case StoreError.notADatabase = error { true } else { false }
        }
        #expect(!cache.openPaths.contains(key(damaged)))
    }
}

/// What a test collects from other threads.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Any] = []

    func append(_ value: Any) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var items: [String] {
        lock.lock()
        defer { lock.unlock() }
        return values.compactMap { $0 as? String }
    }

    var reports: [StoreFleet.StoreReport] {
        lock.lock()
        defer { lock.unlock() }
        return values.compactMap { $0 as? StoreFleet.StoreReport }
    }
}

/// The run a delivery stops, set once it is made.
final class RunHolder: @unchecked Sendable {
    var run: FleetRun?
}

/// A failed expectation that ends the test.
struct Expectation: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
