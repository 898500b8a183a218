import Foundation
import GRDB
import LucidFleet
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `lucidgen migrate --stores` killed (SIGKILL) at moments drawn from a fixed seed: every store stays at
/// a version on its path with every row, and the next run finishes and accounts for every store.
@Suite(.serialized) struct FleetKillTests {
    /// Kills: 3 here, `LUCIDGEN_FLEET_KILLS` (e.g. 20) on demand.
    static var kills: Int { ProcessInfo.processInfo.environment["LUCIDGEN_FLEET_KILLS"].flatMap(Int.init) ?? 3 }
    static let stores = 24

    /// SplitMix64: the same kill moments on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func killedAtRandomMomentsEveryStoreStaysOnItsPathAndTheRerunFinishes() throws {
        let fleet = try FleetProject(rows: 3000)
        defer { fleet.remove() }
        // The versions each starting version's path passes, as the planner takes it.
        let history = SchemaHistory(versions: try fleet.versions())
        let planner = StoreFleet(history: history)
        var onPath: [String: Set<String>] = [:]
        for start in FleetProject.starts {
            let steps = try planner.steps(from: SchemaVersion(parsing: start))
            onPath[start] = Set([start] + steps.map(\.to.string))
        }
        // Every fourth store is large (60,000 rows, 4 MB): its rebuild spills SQLite's page cache into the
        // file before it commits, so a kill then finds a transaction open on disk.
        let large = fleet.path("large.store")
        let made = try run(lucidgenBinary, ["fixtures", "--schema-version", "1.0", "--rows", "60000", "--output", large], in: fleet.root)
        #expect(made.status == 0, "\(made.error)")
        var random = Seeded(state: 38)
        var killedMidRun = 0
        var openTransactions = 0
        var foundAt: [String: Int] = [:]
        for kill in 0..<Self.kills {
            var (paths, start) = try fleet.makeFleet(Self.stores)
            var rows: [String: Int] = [:]
            for path in paths.enumerated().filter({ $0.offset % 4 == 0 }).map(\.element) {
                try FileManager.default.removeItem(atPath: fleet.path(path))
                try FileManager.default.copyItem(atPath: large, toPath: fleet.path(path))
                start[path] = "1.0"
                rows[path] = 60000
            }
            paths.sort()
            // Every other store in WAL mode.
            for path in paths.enumerated().filter({ $0.offset % 2 == 1 }).map(\.element) {
                let queue = try DatabaseQueue(path: fleet.path(path))
                _ = try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = wal") }
                try queue.close()
            }
            // Killed after the k-th store reported (k = 0: as soon as it started), while the other job works.
            let after = Int(random.next() % UInt64(Self.stores))
            let process = try ObservedProcess(
                lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "2", "--verbose"], in: fleet.root)
            if after > 0 {
                var seen = 0
                let line = process.waitForLine { line in
                    guard line.hasPrefix("migrated ") || line.hasPrefix("current ") else { return false }
                    seen += 1
                    return seen == after
                }
                #expect(line != nil, "kill \(kill): the run reported \(seen) stores before ending: \(process.lines)")
            }
            process.kill()
            if process.process.terminationReason == .uncaughtSignal { killedMidRun += 1 }
            if paths.contains(where: { fileSize(fleet.path($0) + "-journal") > 0 || fileSize(fleet.path($0) + "-wal") > 0 }) {
                openTransactions += 1
            }

            var afterKill: [String: String] = [:]
            for path in paths {
                let version = try fleet.check(path, rows: rows[path])
                #expect(
                    onPath[start[path]!]!.contains(version),
                    "kill \(kill) after \(after) stores: \(path) from \(start[path]!) is at \(version)")
                afterKill[path] = version
                foundAt[version, default: 0] += 1
            }

            let rerun = try run(
                lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "2", "--report", "rerun.json"], in: fleet.root)
            #expect(rerun.status == 0, "kill \(kill): \(rerun.error)")
            let report = try fleet.report("rerun.json")
            #expect(report.results.map(\.path) == paths, "the rerun's report accounts for every store")
            for entry in report.results {
                let was = afterKill[entry.path]
                #expect(entry.versionAfter == "3.0" && entry.versionBefore == was, "\(entry.path): \(entry)")
                #expect(
                    entry.outcome == (was == "3.0" ? "current" : "migrated"), "\(entry.path) was at \(was ?? "?") after the kill: \(entry)")
                #expect(try fleet.check(entry.path, rows: rows[entry.path]) == "3.0")
            }
        }
        #expect(killedMidRun > 0, "at least one kill landed while the run was going on")
        print(
            "fleet kill test: \(Self.kills) kills of a \(Self.stores)-store run, \(killedMidRun) mid-run, \(openTransactions) with a transaction open on disk; versions found after the kills: \(foundAt)"
        )
    }

    /// SIGINT (an operator's Ctrl-C) after the first store reported: no new store starts, the ones in flight
    /// finish their current step, the report is written and accounts for every store, exit 6; every store is
    /// at a version on its path; the rerun finishes the rest.
    @Test func anInterruptedRunStopsBetweenStoresAndWritesItsReport() throws {
        let fleet = try FleetProject(rows: 3000)
        defer { fleet.remove() }
        let (paths, start) = try fleet.makeFleet(40)
        let process = try ObservedProcess(
            lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "1", "--verbose", "--report", "report.json"], in: fleet.root)
        let first = process.waitForLine { $0.hasPrefix("migrated ") || $0.hasPrefix("current ") }
        #expect(first != nil, "\(process.lines)")
        process.process.interrupt()
        process.process.waitUntilExit()
        _ = process.waitForLine { _ in false }
        #expect(process.process.terminationStatus == 6, "\(process.lines.joined(separator: "\n"))")
        #expect(process.lines.contains { $0.contains("lucidgen: interrupted: starting no new store") }, "\(process.lines)")
        let report = try fleet.report("report.json")
        #expect(report.stoppedEarly == "interrupted")
        #expect(report.results.map(\.path) == paths.sorted(), "the report accounts for every store")
        #expect(report.results.contains { $0.outcome == "not started" }, "stopped before the end: \(report.results.map(\.outcome))")
        for entry in report.results {
            let version = try fleet.check(entry.path, rows: nil)
            #expect(entry.outcome != "not started" || version == start[entry.path], "\(entry.path) was not started but is at \(version)")
        }
        let rerun = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "2"], in: fleet.root)
        #expect(rerun.status == 0, "\(rerun.output)\(rerun.error)")
        for path in paths { #expect(try fleet.check(path, rows: nil) == "3.0") }
    }
}
