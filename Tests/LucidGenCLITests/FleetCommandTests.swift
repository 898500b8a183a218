import Foundation
import GRDB
import LucidGenCore
import LucidGenStore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@testable import LucidGenCLI

@Suite struct FleetCommandTests {
    /// The fleet's size: 60 here, `LUCIDGEN_FLEET_STORES` (e.g. 2000) on demand.
    static var fleetSize: Int { ProcessInfo.processInfo.environment["LUCIDGEN_FLEET_STORES"].flatMap(Int.init) ?? 60 }

    @Test func aFleetAtThreeVersionsIsMigratedAndEveryStoreIsInTheReport() throws {
        let fleet = try FleetProject()
        defer { fleet.remove() }
        let (stores, start) = try fleet.makeFleet(Self.fleetSize)
        // A database of another app, and a store cut in half (its first pages intact, the rest missing).
        try withDatabase(fleet.path("tenants/foreign.db")) { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
        }
        let template = try Data(contentsOf: URL(fileURLWithPath: fleet.templates["1.0"]!))
        try template.prefix(template.count / 2).write(to: URL(fileURLWithPath: fleet.path("tenants/truncated.sqlite")))
        // Files that are never stores, and a store in a subfolder (only with --recursive).
        for name in ["gone.sqlite-journal", "gone.sqlite-wal", "t0000.sqlite.sha256", "notes.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: fleet.path("tenants/\(name)")))
        }
        try FileManager.default.createDirectory(atPath: fleet.path("tenants/archive"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fleet.templates["1.0"]!, toPath: fleet.path("tenants/archive/old.sqlite"))
        let odd = ["tenants/foreign.db", "tenants/truncated.sqlite", "tenants/archive/old.sqlite", "tenants/gone.sqlite-wal"]
        let before = Dictionary(uniqueKeysWithValues: odd.map { ($0, fileBytes(fleet.path($0))) })

        let result = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "2", "--report", "report.json"], in: fleet.root)
        #expect(result.status == 3, "some stores failed: \(result.error)")
        let report = try fleet.report("report.json")
        #expect(report.total == stores.count + 2 && report.results.count == report.total)
        #expect(
            report.results.map(\.path) == (stores + ["tenants/foreign.db", "tenants/truncated.sqlite"]).sorted(),
            "every store once, in path order")
        #expect(
            report.counts == [
                "migrated": stores.count, "current": 0, "failed": 1, "notAStore": 1, "stoppedBetweenSteps": 0, "notStarted": 0,
            ])
        #expect(report.newestVersion == "3.0" && report.stores == "tenants" && report.stoppedEarly == nil)
        for path in stores {
            let entry = try #require(report.entry(path))
            #expect(entry.outcome == "migrated" && entry.versionBefore == start[path] && entry.versionAfter == "3.0", "\(path): \(entry)")
            #expect(entry.steps == ["\(start[path]!) → 3.0 (inferred)"])
            #expect(entry.error == nil && entry.nextStep == nil && entry.durationSeconds >= 0)
            #expect(try fleet.check(path) == "3.0")
        }
        let foreign = try #require(report.entry("tenants/foreign.db"))
        #expect(foreign.outcome == "not a store" && foreign.error == "a database without lucidgen's tables" && foreign.versionBefore == nil)
        #expect(foreign.nextStep?.contains("when the app first opens it") == true)
        let truncated = try #require(report.entry("tenants/truncated.sqlite"))
        #expect(truncated.outcome == "failed" && truncated.versionAfter == nil, "\(truncated)")
        #expect(truncated.error?.contains("is damaged") == true, "\(truncated)")
        #expect(truncated.nextStep?.contains("Restore the store from a backup") == true, "\(truncated)")
        for (path, bytes) in before { #expect(fileBytes(fleet.path(path)) == bytes, "\(path) is untouched") }
        // Each failure is printed once, then the summary.
        #expect(result.error.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count == 2, "\(result.error)")
        #expect(
            result.output.contains(
                "\(stores.count + 2) stores: \(stores.count) migrated, 0 already at 3.0, 1 failed, 1 not a lucidgen store"),
            "\(result.output)")

        // A second run finds every store current; status counts them, with the store in the subfolder.
        let again = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--report", "again.json"], in: fleet.root)
        #expect(again.status == 3)
        #expect(try fleet.report("again.json").counts["current"] == stores.count)
        let status = try run(lucidgenBinary, ["status", "--stores", "tenants", "--recursive"], in: fleet.root)
        #expect(status.status == 3, "a store that is not lucidgen's and a damaged one: \(status.error)")
        #expect(status.output.contains("tenants: \(stores.count + 3) stores; this project's newest version is 3.0."), "\(status.output)")
        #expect(status.output.contains("  3.0: \(stores.count) (current)"), "\(status.output)")
        #expect(status.output.contains("  1.0: 1 (needs migrating: 1 step)"), "the store in the subfolder: \(status.output)")
        #expect(
            status.output.contains("not a lucidgen store: 1\n    tenants/foreign.db: a database without lucidgen's tables"),
            "\(status.output)")
    }

    @Test func aGlobIsExpandedByLucidgenAndADryRunChangesNothing() throws {
        let fleet = try FleetProject()
        defer { fleet.remove() }
        let (stores, start) = try fleet.makeFleet(9)
        let before = stores.map { fileBytes(fleet.path($0)) }
        let dry = try run(
            lucidgenBinary, ["migrate", "--stores", "tenants/t000[0-4].sqlite", "--dry-run", "--report", "dry.json", "--verbose"],
            in: fleet.root)
        #expect(dry.status == 0, "\(dry.error)")
        let report = try fleet.report("dry.json")
        #expect(report.results.map(\.path) == Array(stores.prefix(5)))
        #expect(report.results.allSatisfy { $0.outcome == "migrated" && $0.versionAfter == "3.0" && $0.versionBefore == start[$0.path] })
        #expect(stores.map { fileBytes(fleet.path($0)) } == before, "a dry run migrates copies")
        #expect(
            dry.output.split(separator: "\n").filter { $0.hasPrefix("migrated tenants/t000") }.count == 5,
            "--verbose: a line per store: \(dry.output)")
        #expect(dry.output.contains("Dry run: 5 stores: 5 migrated") && dry.output.contains("No store was changed."), "\(dry.output)")
    }

    /// A dry run migrates a copy in a temporary folder: what it refuses is said of the store asked about, whose
    /// path the user knows, never of the copy (gone by the time the message is read).
    @Test func aDryRunsRefusalNamesTheStoreNotItsCopy() throws {
        let fleet = try FleetProject()
        defer { fleet.remove() }
        _ = try fleet.makeFleet(2)
        // A table named as the project's, of another shape: no lucidgen record and no known version (refused).
        try withDatabase(fleet.path("tenants/other app's.sqlite")) { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO item (text) VALUES ('x')")
        }
        let before = fileBytes(fleet.path("tenants/other app's.sqlite"))
        let one = try run(lucidgenBinary, ["migrate", "--database", "tenants/other app's.sqlite", "--dry-run"], in: fleet.root)
        #expect(one.status == 3, "\(one.error)")
        #expect(one.error.contains(fleet.path("tenants/other app's.sqlite") + " has tables but no lucidgen version record"), "\(one.error)")
        #expect(!one.error.contains("lucidgen-dry-run"), "\(one.error)")
        let dry = try run(lucidgenBinary, ["migrate", "--stores", "tenants", "--dry-run", "--report", "dry.json"], in: fleet.root)
        #expect(dry.status == 3, "\(dry.error)")
        let entry = try #require(try fleet.report("dry.json").entry("tenants/other app's.sqlite"))
        #expect(entry.outcome == "failed", "\(entry)")
        #expect(entry.error?.hasPrefix("tenants/other app's.sqlite has tables but no lucidgen version record") == true, "\(entry)")
        #expect(!dry.error.contains("lucidgen-dry-run") && !(entry.error ?? "").contains("lucidgen-dry-run"), "\(dry.error)")
        #expect(fileBytes(fleet.path("tenants/other app's.sqlite")) == before)
    }

    @Test func aFailingStoreInTheCanaryStopsTheRunAndNothingBeyondItIsTouched() throws {
        let fleet = try FleetProject()
        defer { fleet.remove() }
        let (stores, _) = try fleet.makeFleet(12)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: fleet.path(stores[1])))
        let before = stores.map { fileBytes(fleet.path($0)) }
        let result = try run(
            lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "2", "--canary", "3", "--report", "report.json"], in: fleet.root)
        #expect(result.status == 6, "stopped early: \(result.output) \(result.error)")
        let report = try fleet.report("report.json")
        #expect(report.stoppedEarly == "canary failed")
        #expect(report.entry(stores[1])?.outcome == "failed")
        for (index, path) in stores.enumerated().dropFirst(3) {
            #expect(report.entry(path)?.outcome == "not started", "\(path)")
            #expect(fileBytes(fleet.path(path)) == before[index], "\(path), past the canary, is untouched")
        }
        #expect(result.output.contains("not started (canary failed)"), "\(result.output)")
    }

    @Test func afterMaxFailuresNoNewStoreStarts() throws {
        let fleet = try FleetProject()
        defer { fleet.remove() }
        let (stores, _) = try fleet.makeFleet(10)
        for index in [1, 3, 5] { try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: fleet.path(stores[index]))) }
        let before = stores.map { fileBytes(fleet.path($0)) }
        let result = try run(
            lucidgenBinary, ["migrate", "--stores", "tenants", "--jobs", "1", "--max-failures", "2", "--report", "report.json"],
            in: fleet.root)
        #expect(result.status == 6, "\(result.error)")
        let report = try fleet.report("report.json")
        #expect(report.results.map(\.outcome) == ["migrated", "failed", "migrated", "failed"] + Array(repeating: "not started", count: 6))
        #expect(report.stoppedEarly == "max failures reached")
        for index in 4..<stores.count { #expect(fileBytes(fleet.path(stores[index])) == before[index]) }
    }

    @Test func aStageOnThePathIsRefusedOnceBeforeAnyStoreChanges() throws {
        let folder = try TestProject(config: nil)
        defer { folder.remove() }
        let config = repositoryRoot.appendingPathComponent(".lucid.yaml").path
        try FileManager.default.createDirectory(at: folder.root.appendingPathComponent("tenants"), withIntermediateDirectories: true)
        var paths: [String] = []
        for (name, version) in [("a", "1.0"), ("b", "2.0"), ("c", "3.0"), ("d", "1.0")] {
            let path = "tenants/\(name).sqlite"
            let made = try run(
                lucidgenBinary, ["fixtures", "--config", config, "--schema-version", version, "--rows", "2", "--output", path],
                in: folder.root)
            #expect(made.status == 0, "\(made.error)")
            paths.append(path)
        }
        let before = paths.map { fileBytes(folder.root.appendingPathComponent($0).path) }
        let result = try run(lucidgenBinary, ["migrate", "--config", config, "--stores", "tenants"], in: folder.root)
        #expect(result.status == 3)
        #expect(
            result.error.contains(
                "the path of 3 stores passes the app's stage 2.0 → 2.1 (moveFlightData), which `lucidgen migrate` cannot run (the app's code): tenants/a.sqlite, tenants/b.sqlite, tenants/d.sqlite."
            ), "\(result.error)")
        #expect(result.error.contains("No store was changed. Migrate up to the stage with --to 2.0"), "\(result.error)")
        #expect(paths.map { fileBytes(folder.root.appendingPathComponent($0).path) } == before)

        // The same work without the command: the stage and its stores, and the stores by version, as values.
        let resolved = try ProjectVersions.resolve(config: config, to: nil, lint: false)
        let absolute = paths.map { folder.root.appendingPathComponent($0).path }
        let work = FleetWork(resolved, settings: FleetWork.Settings())
        let stages = work.stagesOnPath(absolute)
        #expect(stages.map(\.stage.label) == ["2.0 → 2.1 (moveFlightData)"])
        #expect(stages.first?.paths == [absolute[0], absolute[1], absolute[3]])
        let survey = FleetWork.survey(resolved, stores: "tenants", paths: absolute, busyTimeout: 1)
        #expect(survey.total == 4 && survey.newestVersion == work.target.string && survey.notAStore.isEmpty && survey.refused.isEmpty)
        #expect(survey.versions.map(\.version) == ["3.0", "2.0", "1.0"])
        #expect(survey.versions.map(\.stores) == [1, 1, 2])
        #expect(survey.newestVersion == "4.0" && survey.versions.allSatisfy { $0.state == "needs migrating" && ($0.steps ?? 0) > 0 })
        #expect(paths.map { fileBytes(folder.root.appendingPathComponent($0).path) } == before, "surveyed by reading only")
    }

    @Test func theCommandLineSaysWhichStoreOptionsGoTogether() throws {
        for arguments in [
            ["migrate"], ["migrate", "--database", "a.sqlite", "--stores", "tenants"],
            ["migrate", "--database", "a.sqlite", "--jobs", "2"],
            ["migrate", "--stores", "tenants", "--jobs", "0"], ["status", "--database", "a.sqlite", "--recursive"],
        ] {
            let result = try run(lucidgenBinary, arguments)
            #expect(result.status == 64, "\(arguments): \(result.error)")
        }
        let missing = try run(lucidgenBinary, ["migrate", "--stores", "/no/such/folder"], in: repositoryRoot)
        #expect(missing.status == 3 && missing.error.contains("/no/such/folder: no such folder or file"), "\(missing.error)")
        let noMatch = try run(lucidgenBinary, ["migrate", "--stores", "/tmp/no-such-*-folder/*.sqlite"], in: repositoryRoot)
        #expect(noMatch.status == 3 && noMatch.error.contains("no file matches"), "\(noMatch.error)")
    }

    @Test func whichFilesAreStores() throws {
        let folder = try TemporaryStoreFolder()
        defer { folder.remove() }
        for name in [
            "a.sqlite", "b.db", "c.txt", "a.sqlite-wal", "a.sqlite-shm", "a.sqlite-journal", "a.sqlite.sha256",
            "e.sqlite.lucid-migrating-1234",
            "sub/d.sqlite", "sub/deeper/e.db", "elsewhere/x.sqlite",
        ] {
            try folder.write(name)
        }
        try FileManager.default.createDirectory(atPath: folder.path("stores/folder.sqlite"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("stores/link.sqlite"), withDestinationPath: folder.path("elsewhere/x.sqlite"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("stores/same.sqlite"), withDestinationPath: folder.path("stores/a.sqlite"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("stores/sub/loop"), withDestinationPath: folder.path("stores"))
        let stores = folder.path("stores")
        #expect(
            try StoreList.find(stores) == ["a.sqlite", "b.db", "link.sqlite"].map { "\(stores)/\($0)" },
            "a link to a store listed already counts once")
        #expect(
            try StoreList.find(stores, recursive: true)
                == ["a.sqlite", "b.db", "link.sqlite", "sub/d.sqlite", "sub/deeper/e.db"].map { "\(stores)/\($0)" },
            "a link back to the folder is followed once")
        #expect(try StoreList.find(stores, extensions: [".txt", "db"]) == ["\(stores)/b.db", "\(stores)/c.txt"])
        #expect(
            try StoreList.find("\(stores)/*.s*") == ["a.sqlite", "link.sqlite"].map { "\(stores)/\($0)" },
            "a glob chooses its files; companions never count")
        #expect(try StoreList.find("\(stores)/a.sqlite") == ["\(stores)/a.sqlite"])
        #expect(throws: StoreList.ListError.self) { try StoreList.find("\(stores)/nothing-*.sqlite") }
        #expect(throws: StoreList.ListError.self) { try StoreList.find("\(stores)/missing") }
    }

    @Test func theProgressLineSaysDoneFailuresRateAndTimeLeft() {
        #expect(FleetDisplay.progress(done: 0, total: 2000, failures: 0, elapsed: 0) == "0/2000 stores")
        #expect(
            FleetDisplay.progress(done: 120, total: 2000, failures: 1, elapsed: 10)
                == "120/2000 stores, 1 failed, 12.0 stores/s, about 3 min left")
        #expect(FleetDisplay.progress(done: 50, total: 60, failures: 0, elapsed: 5) == "50/60 stores, 10.0 stores/s, about 1 s left")
        #expect(FleetDisplay.progress(done: 60, total: 60, failures: 2, elapsed: 6) == "60/60 stores, 2 failed, 10.0 stores/s")
    }
}

/// A folder of plain files for listing tests, under `stores/` (and `elsewhere/`).
struct TemporaryStoreFolder {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-list-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("stores"), withIntermediateDirectories: true)
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// A file `stores/<name>` (or `elsewhere/…` as given).
    func write(_ name: String) throws {
        let relative = name.hasPrefix("elsewhere/") ? name : "stores/\(name)"
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: url)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
