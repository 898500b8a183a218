import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `StoreOptions.atomicity` proven through the API on a path of three steps (1.0 → 2.0 inferred with a
/// data migration, 2.0 → 3.0 the app's stage with hooks and a row transform, 3.0 → 4.0 inferred with a
/// data migration): `crash-child` opens the store of scripts/crash-soak-project and is killed at named
/// points inside the migration. `.wholePath` leaves the store at the start; `.perStep` at the version of
/// the last committed step. Either resumes to the values of an uninterrupted run.
@Suite(.serialized) struct WholePathTests {
    static var child: String { productsDirectory.appendingPathComponent("crash-child").path }
    static let rows = 5_000

    /// A copy of the project in a temporary folder, and a store at 1.0 holding `rows` rows.
    static func makeProject(journal: String) throws -> (folder: URL, config: String, base: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("whole-path-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("scripts/crash-soak-project"), to: folder)
        let config = folder.appendingPathComponent(".lucid.yaml").path
        let base = folder.appendingPathComponent("base.sqlite").path
        let created = try run(lucidgenBinary, ["fixtures", "--config", config, "--schema-version", "1.0", "--rows", "1", "--output", base])
        #expect(created.status == 0, "\(created.error)")
        try fillCrashSoakItems(base, rows: rows, journal: journal)
        return (folder, config, base)
    }

    /// What uninterrupted runs leave at each version of the path.
    static func references(config: String, base: String, folder: URL) throws -> [String: StoreSnapshot] {
        var references = ["1.0": try StoreSnapshot.read(base)]
        let reference = folder.appendingPathComponent("reference.sqlite").path
        for version in ["2.0", "3.0", "4.0"] {
            try copyStore(base, to: reference)
            let result = try run(child, [config, reference, "--to", version])
            #expect(result.status == 0, "\(result.error)")
            references[version] = try StoreSnapshot.read(reference)
        }
        #expect(references.values.map(\.version).sorted() == ["1.0", "2.0", "3.0", "4.0"])
        return references
    }

    /// Named points inside the path and the version `.perStep` must leave there.
    static let points: [(point: String, perStep: String)] = [
        ("data 2.0", "1.0"), ("step 1 done", "1.0"), ("step 2 starting", "2.0"), ("will migrate", "2.0"), ("transform", "2.0"),
        ("did migrate", "2.0"), ("step 3 starting", "3.0"), ("data 4.0", "3.0"), ("step 3 done", "3.0"),
    ]

    @Test(arguments: ["delete", "wal"])
    func killedInsideAMultiStepPathWithStagesTheStoreIsAtTheStartOrAtAStep(journal: String) throws {
        let (folder, config, base) = try Self.makeProject(journal: journal)
        defer { try? FileManager.default.removeItem(at: folder) }
        let references = try Self.references(config: config, base: base, folder: folder)
        let work = folder.appendingPathComponent("work.sqlite").path
        for wholePath in [true, false] {
            for (point, perStepVersion) in Self.points {
                try copyStore(base, to: work)
                let child = try ObservedProcess(Self.child, [config, work, "--pause-at", point] + (wholePath ? ["--whole-path"] : []))
                let paused = child.waitForLine { $0 == "paused at \(point)" }
                #expect(paused != nil, "the child never reached \(point): \(child.lines)")
                child.kill()
                // The child was blocked at the point, inside the migration's transaction (SQLite may still hold
                // that transaction's pages in its cache: the journal or WAL on disk need not show it).
                #expect(!child.lines.contains { $0.hasPrefix("opened at") }, "killed before the end")
                #expect(child.process.terminationReason == .uncaughtSignal)

                let killed = try StoreSnapshot.read(work)
                let expected = wholePath ? "1.0" : perStepVersion
                #expect(killed.version == expected, "\(wholePath ? "whole path" : "per step"), killed at \(point)")
                #expect(killed == references[killed.version], "every value is that of an uninterrupted run to \(killed.version)")

                let resumed = try run(Self.child, [config, work] + (wholePath ? ["--whole-path"] : []))
                #expect(resumed.status == 0, "\(resumed.error)")
                #expect(try StoreSnapshot.read(work) == references["4.0"], "resumed after a kill at \(point)")
                let database = try DatabaseQueue(path: work)
                let applied = try database.read { db in
                    try String.fetchAll(db, sql: "SELECT version || ' ' || label FROM lucid_data_migrations ORDER BY version")
                }
                try database.close()
                #expect(applied == ["2.0 mark empty notes", "4.0 level from tag"], "each data migration ran once")
            }
        }
    }

    /// Where a drifted store is killed and the version `.perStep` must leave there (`.wholePath`: the repaired 1.0).
    static let driftPoints: [(point: String, perStep: String)] = [
        ("drift repaired", "1.0"), ("step 1 starting", "1.0"), ("transform", "2.0"), ("step 3 done", "3.0"),
    ]

    /// A store drifted from 1.0 (a column added by hand, never filled), with lucidgen's record (its tables contradict
    /// it) and without (an app's own store nearest 1.0), opened with `acceptsInferableDrift`: refused without it, files
    /// unchanged. Killed once the repair has committed and at points of the path after it, the store is 1.0's tables
    /// exactly (a store without a record not yet adopted) or at the version of the last committed step, every value
    /// an uninterrupted run's; the next open finishes with the values of an undrifted store's run.
    @Test func killedWhileADriftedStoreIsRepairedAndMigratedItResumesToTheSameEnd() throws {
        let (folder, config, base) = try Self.makeProject(journal: "delete")
        defer { try? FileManager.default.removeItem(at: folder) }
        let references = try Self.references(config: config, base: base, folder: folder)
        let drifted = folder.appendingPathComponent("drifted.sqlite").path
        let work = folder.appendingPathComponent("work.sqlite").path
        for recorded in [true, false] {
            try copyStore(base, to: drifted)
            let queue = try DatabaseQueue(path: drifted)
            try queue.write { db in
                try db.execute(sql: "ALTER TABLE item ADD COLUMN scratch TEXT")
                if !recorded {
                    for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid_%'")
                    {
                        try db.drop(table: table)
                    }
                }
            }
            try queue.close()
            let files = storeFiles(drifted)
            let refused = try run(Self.child, [config, drifted])
            #expect(
                refused.status == 3
                    && refused.error.contains(recorded ? "records version 1.0, but its tables are not 1.0's" : "matches no known version"),
                "\(recorded): \(refused.error)")
            #expect(storeFiles(drifted) == files, "refused without acceptsInferableDrift: byte-identical")

            for wholePath in [true, false] {
                for (point, perStepVersion) in Self.driftPoints {
                    let label = "\(recorded ? "recorded" : "no record"), \(wholePath ? "whole path" : "per step"), killed at \(point)"
                    try copyStore(drifted, to: work)
                    let child = try ObservedProcess(
                        Self.child, [config, work, "--accept-drift", "--pause-at", point] + (wholePath ? ["--whole-path"] : []))
                    #expect(child.waitForLine { $0 == "paused at \(point)" } != nil, "\(label): never reached: \(child.lines)")
                    child.kill()
                    #expect(child.process.terminationReason == .uncaughtSignal)

                    // The repair commits on its own, before adoption and the path (under `.wholePath` too).
                    let killed = try StoreSnapshot.read(work)
                    let expected = wholePath ? "1.0" : perStepVersion
                    #expect(killed.version == (point == "drift repaired" && !recorded ? "none" : expected), "\(label)")
                    let reference = references[expected]!
                    #expect(killed.checksum == reference.checksum && killed.rows == reference.rows, "\(label): values")

                    let resumed = try run(Self.child, [config, work, "--accept-drift"] + (wholePath ? ["--whole-path"] : []))
                    #expect(resumed.status == 0, "\(label): \(resumed.error)")
                    #expect(try StoreSnapshot.read(work) == references["4.0"], "\(label): resumed")
                }
            }
        }
    }
}

/// Where `lucidgen migrate --whole-path` differs from the default: a path through a stage the CLI cannot
/// run (the app's code) fails at that stage; per step, the steps before it stay committed, while the whole
/// path leaves the store exactly as it was.
@Suite struct CLIWholePathTests {
    @Test func wholePathLeavesTheStoreUnchangedWhenTheCLIReachesAStageItCannotRun() throws {
        let (folder, config, base) = try WholePathTests.makeProject(journal: "delete")
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try StoreSnapshot.read(base)
        let perStep = folder.appendingPathComponent("per-step.sqlite").path
        let whole = folder.appendingPathComponent("whole.sqlite").path
        try copyStore(base, to: perStep)
        try copyStore(base, to: whole)

        let stepped = try run(lucidgenBinary, ["migrate", "--config", config, "--database", perStep])
        #expect(stepped.status != 0)
        #expect(stepped.error.contains("needs the app's stage '2.0 → 3.0 (rescore)'"), "\(stepped.error)")
        #expect(try StoreSnapshot.read(perStep).version == "2.0", "per step: the inferred step before the stage is committed")

        let files = storeFiles(whole)
        let atOnce = try run(lucidgenBinary, ["migrate", "--config", config, "--database", whole, "--whole-path"])
        #expect(atOnce.status != 0)
        #expect(atOnce.error.contains("needs the app's stage '2.0 → 3.0 (rescore)'"), "\(atOnce.error)")
        #expect(storeFiles(whole) == files, "whole path: the store's files are byte-identical")
        #expect(try StoreSnapshot.read(whole) == before)
    }
}
