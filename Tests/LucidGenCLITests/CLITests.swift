import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// The `lucidgen` binary as a user runs it: installed elsewhere, from any working directory.
@Suite struct CLITests {
    /// A copy of the built binary in a folder of its own, as an installed tool would be: no build folder,
    /// no resource bundle beside it.
    static func installedBinary() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("lucidgen").path
        try FileManager.default.copyItem(atPath: lucidgenBinary, toPath: target)
        return target
    }

    @Test func installedBinaryFindsItsTemplatesFromAnyDirectory() throws {
        let binary = try Self.installedBinary()
        let project = try TestProject(files: [".entities/a.json": entityJSON("a")])
        defer { project.remove() }
        let result = try run(binary, ["generate", "--config", project.configPath], in: FileManager.default.temporaryDirectory)
        #expect(result.status == 0, "\(result.error)")
        #expect(try project.read("Sources/App/Generated/Entities/A.swift").contains("public struct A_1_0:"))
    }

    /// `generate --timings` names every stage and phase of a full run on standard error, in run order, and
    /// nothing of it on standard output; a run the stamp skips has no stages to tell.
    @Test func timingsNameEveryStageInOrder() throws {
        let entity = #"""
            { "name": "a", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "1.1" }],
              "properties": [{ "name": "b", "property_type": "int", "default_value": 0, "added_at_version": "1.1" }] }
            """#
        let project = try TestProject(files: [".entities/a.json": entity])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["generate", "--timings"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        let stages = result.error.split(separator: "\n").dropFirst().map { line in
            line.split(separator: "  ", omittingEmptySubsequences: true).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        #expect(result.error.hasPrefix("timings:\n"), "\(result.error)")
        #expect(
            stages == [
                "fingerprint", "load", "resolve", "descriptions", "versions and snapshots", "timelines", "shapes", "schemas",
                "custom steps", "schema trial", "render", "routes", "write", "digest and stamp",
            ], "\(result.error)")
        #expect(result.error.split(separator: "\n").dropFirst().allSatisfy { $0.contains(" s wall") && $0.hasSuffix(" s CPU") })
        #expect(!result.output.contains("timings"))
        let skipped = try run(lucidgenBinary, ["generate", "--timings"], in: project.root)
        #expect(skipped.status == 0 && !skipped.error.contains("timings"), "\(skipped.error)")
    }

    /// A long history's summary names the first versions and the newest, not every one.
    @Test func aLongHistorysSummaryIsOneShortLine() throws {
        let versions = (0..<13).map { "1.\($0)" }
        let entity =
            #"{ "name": "a", "identifier": { "type": "int" }, "version_history": [\#(versions.map { #"{ "version": "\#($0)" }"# }.joined(separator: ", "))], "properties": [{ "name": "b", "property_type": "int" }] }"#
        let project = try TestProject(files: [".entities/a.json": entity])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("\n1 entities, 13 versions: 1.0, 1.1, 1.2, … 1.11, 1.12; "), "\(result.output)")
    }

    @Test func helpAndVersion() throws {
        let help = try run(lucidgenBinary, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("EXIT CODES"))
        #expect(help.output.contains("generate"))
        #expect(help.output.contains("init"))
        let generateHelp = try run(lucidgenBinary, ["generate", "--help"])
        #expect(generateHelp.output.contains("--check"))
        let version = try run(lucidgenBinary, ["--version"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == LucidGenVersion.current)
    }

    @Test func errorsGoToStandardErrorWithExitCode1() throws {
        let project = try TestProject(files: [".entities/a.json": "{ \"name\": 1 }"])
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(result.status == 1)
        #expect(result.error.contains(".entities/a.json:1:11: error: 'name' must be a string, found a number (at $.name)"))
        #expect(result.error.contains("nothing was written"))
        #expect(!project.exists("Sources"))
    }

    @Test func checkExitsWith2WhenStale() throws {
        let project = try TestProject(files: [".entities/a.json": entityJSON("a")])
        defer { project.remove() }
        let stale = try run(lucidgenBinary, ["generate", "--check"], in: project.root)
        #expect(stale.status == 2)
        #expect(stale.output.contains("missing: Sources/App/Generated/Entities/A.swift"))
        #expect(!project.exists("Sources"))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let fresh = try run(lucidgenBinary, ["generate", "--check"], in: project.root)
        #expect(fresh.status == 0)
    }

    @Test func usageErrorsExitWith64() throws {
        #expect(try run(lucidgenBinary, ["generate", "--no-such-flag"]).status == 64)
    }

    @Test func initInAnExistingPackageLeavesItsManifestAlone() throws {
        let project = try TestProject(files: ["Package.swift": "// swift-tools-version:6.1\n", "Sources/Mine/Mine.swift": ""], config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init", "--module", "Mine"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        #expect(try project.read("Package.swift") == "// swift-tools-version:6.1\n")
        #expect(project.exists(".lucid.yaml"))
        #expect(project.exists(".entities/note.json"))
        #expect(project.exists("Sources/Mine/Generated/Entities/Note.swift"))
        // The generated migration tests and the expectations they need; the test target is for the user to declare.
        #expect(project.exists("Tests/MineTests/Generated/MineMigrationTests.swift"))
        #expect(project.exists("Tests/MineTests/MineExpectations.swift"))
        // A brand-new project has released no version: no fixture is missing, and the test for them has no case
        // until `lucidgen release` marks the current version's snapshot.
        let tests = try project.read("Tests/MineTests/Generated/MineMigrationTests.swift")
        #expect(
            tests.contains(
                "static let releasedVersions: [Swift.String] = []\n        + (LucidTesting.FixtureFiles.isMarkedReleased(snapshotAt: Self.currentSnapshot) ? [\"1.0\"] : [])"
            ), "\(tests)")
        #expect(
            layoutFree(tests).contains(
                "static let currentSnapshot = LucidTesting.FixtureFiles.path(besideFile: #filePath, relativePath: \"../../../.entities/.schema/1.0.json\")"
            ), "\(tests)")
        // The migrations_provider, declared and scaffolded, so a step that needs the app's code is a build error.
        #expect(try project.read(".lucid.yaml").contains("migrations_provider: MineStages"))
        #expect(try project.read("Sources/Mine/MineStages.swift").contains("public struct MineStages: Swift.Sendable"))
        #expect(try project.read("Sources/Mine/Generated/MineMigrations.swift").contains("extension MineStages: MineMigrations {}"))
        #expect(result.output.contains("Add to your Package.swift"))
        #expect(
            result.output.contains(
                #".testTarget(name: "MineTests", dependencies: ["Mine", .product(name: "LucidTesting", package: "lucidgen")], exclude: ["Generated/Fixtures"])"#
            ))
        let again = try run(lucidgenBinary, ["init", "--module", "Mine"], in: project.root)
        #expect(again.status == 1)
        #expect(again.error.contains("already exists"))
    }

    @Test func initKeepsAnExistingStagesTypeAndSaysWhatItMustBe() throws {
        let existing = "public struct MineStages: Sendable {\n    public init() {}\n    func mine() {}\n}\n"
        let project = try TestProject(
            files: ["Package.swift": "// swift-tools-version:6.1\n", "Sources/Mine/Stages.swift": existing], config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init", "--module", "Mine"], in: project.root)
        #expect(result.status == 0, "\(result.error)")
        #expect(!project.exists("Sources/Mine/MineStages.swift"))
        #expect(try project.read("Sources/Mine/Stages.swift") == existing)
        #expect(
            result.output.contains(
                "MineStages is declared in Sources/Mine already: keep it `public struct MineStages: Sendable` with `public init()` (migrations_provider in .lucid.yaml)"
            ))
    }

    @Test func initRefusesAFolderThatIsNeitherEmptyNorAPackage() throws {
        let project = try TestProject(files: ["notes.txt": "mine"], config: nil)
        defer { project.remove() }
        let result = try run(lucidgenBinary, ["init"], in: project.root)
        #expect(result.status == 1)
        #expect(result.error.contains("is neither empty nor a Swift package"))
        #expect(project.allFiles() == ["notes.txt"])
    }
}

/// `plan`, `migrate` and `fixtures` on the bundled example's descriptions.
@Suite struct StoreCommandTests {
    /// `fixtures` on relationship graphs no insert order satisfies: `a.b → b` with `a` sorted first, a
    /// self-reference, a required cycle, to-many links; and `--rows 0`, an empty store at the version.
    @Test func fixturesSeedSelfReferencesAndCycles() throws {
        func toOne(_ name: String, _ entity: String, nullable: Bool = false) -> String {
            #"{ "name": "\#(name)", "property_type": { "entity_name": "\#(entity)", "association": "to_one" }\#(nullable ? #", "nullable": true"# : "") }"#
        }
        let project = try TestProject(files: [
            ".entities/a.json": entityJSON("a", properties: toOne("b", "b") + ", " + toOne("parent", "a", nullable: true)),
            ".entities/b.json": entityJSON("b"),
            ".entities/employee.json": entityJSON(
                "employee",
                properties: toOne("team", "team")
                    + #", { "name": "mentors", "property_type": { "entity_name": "employee", "association": "to_many" } }"#),
            ".entities/team.json": entityJSON("team", properties: toOne("lead", "employee")),
        ])
        defer { project.remove() }
        for rows in ["0", "1", "7"] {
            let output = project.root.appendingPathComponent("fixture-\(rows).sqlite").path
            let result = try run(lucidgenBinary, ["fixtures", "--config", project.configPath, "--rows", rows, "--output", output])
            #expect(result.status == 0, "\(result.error)")
            let queue = try DatabaseQueue(path: output)
            let (counts, broken) = try queue.read { db throws -> ([Int], Int) in
                (
                    try ["a", "b", "employee", "team"].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1 },
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
                )
            }
            try queue.close()
            #expect(counts == Array(repeating: Int(rows)!, count: 4) && broken == 0)
        }
    }

    /// `fixtures --rows 40` on the compiled SeedGraphs project (Tests/SeedGraphs), whose 2.0 has unique
    /// indexes over a string, an int, a date, a url, data, a double, a float, a uuid, a decimal, (bool, string), an enum
    /// alone (`tier`: 3 levels, so 3 rows) and (nullable enum, bool): SQLite's unique indexes accept every
    /// row, the unique columns are distinct, and the references point at seeded rows.
    @Test func fixturesKeepUniqueIndexesUnique() throws {
        let project = try TestProject.copy(of: repositoryRoot.appendingPathComponent("Tests/SeedGraphs"))
        defer { project.remove() }
        let output = project.root.appendingPathComponent("unique.sqlite").path
        let result = try run(lucidgenBinary, ["fixtures", "--config", project.configPath, "--rows", "40", "--output", output])
        #expect(result.status == 0, "\(result.error)")
        let queue = try DatabaseQueue(path: output)
        defer { try? queue.close() }
        try queue.read { db in
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE%'") == 13)
            #expect(
                try ["member", "tier", "slot", "employee"].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1 } == [
                    40, 3, 40, 40,
                ])
            for column in ["email", "number", "joined", "photo", "ratio", "weight", "token", "credit"] {
                #expect(try Int.fetchOne(db, sql: "SELECT count(DISTINCT \(column)) FROM member") == 40, "member.\(column)")
            }
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM member WHERE typeof(token) = 'blob' AND length(token) = 16") == 40,
                "member.token: 16-byte blobs")
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM member WHERE typeof(credit) = 'text'") == 40,
                "member.credit: GRDB's decimal text")
            let homepages = try Row.fetchOne(db, sql: "SELECT count(DISTINCT homepage), count(homepage) FROM member")!
            #expect(homepages[0] as Int == homepages[1] as Int && (homepages[1] as Int) > 20)
            let badges = try Row.fetchOne(db, sql: "SELECT count(DISTINCT badge), count(badge) FROM employee")!
            #expect(badges[0] as Int == badges[1] as Int && (badges[1] as Int) > 20)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT active, handle FROM member)") == 40)
            #expect(try Int.fetchOne(db, sql: "SELECT count(DISTINCT handle) FROM member") == 40)
            #expect(Set(try String.fetchAll(db, sql: "SELECT level FROM tier")) == ["bronze", "silver", "gold"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT day, open FROM slot WHERE day IS NOT NULL)") == 14)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM slot WHERE day IS NOT NULL") == 14)
            #expect(try Int.fetchOne(db, sql: "SELECT max(tier) FROM member") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM tier_members WHERE source_id > 3") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM tier_members") == 3, "tier 1 links one member, tier 2 two, tier 3 none")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    @Test func fixturesPlanMigrateAndCleanupOnTheExample() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lucidgen-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("old.sqlite").path
        let config = repositoryRoot.appendingPathComponent(".lucid.yaml").path

        let fixtures = try run(
            lucidgenBinary, ["fixtures", "--config", config, "--schema-version", "1.0", "--rows", "5", "--output", store])
        #expect(fixtures.status == 0, "\(fixtures.error)")
        #expect(fixtures.output.contains("version 1.0, 15 rows"))
        #expect(
            try run(lucidgenBinary, ["fixtures", "--config", config, "--schema-version", "1.0", "--output", store]).status == 3,
            "an existing file is not replaced")

        let plan = try run(lucidgenBinary, ["plan", "--config", config, "--database", store])
        #expect(plan.status == 0)
        #expect(plan.output.contains("at version 1.0; newest is 4.0."))
        #expect(plan.output.contains("1. 1.0 → 2.0 (inferred)"))
        #expect(plan.output.contains("- rename table flight to log_entry"))
        #expect(plan.output.contains("- rename column log_entry.remarks to notes"))
        #expect(plan.output.contains("2. 2.0 → 2.1 (moveFlightData)"), "the app's stage is on the path, never inferred around")
        #expect(plan.output.contains("3. 2.1 → 4.0 (inferred)"))
        #expect(
            plan.output.contains("the JSON struct in aircraft.color_scheme becomes composite columns"),
            "1.0 stored the color scheme as JSON")

        let dryRun = try run(lucidgenBinary, ["migrate", "--config", config, "--database", store, "--dry-run", "--to", "2.0"])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(
            try run(lucidgenBinary, ["plan", "--config", config, "--database", store]).output.contains("at version 1.0"),
            "a dry run changes nothing")

        let migrate = try run(lucidgenBinary, ["migrate", "--config", config, "--database", store, "--defer-cleanup", "--to", "2.0"])
        #expect(migrate.status == 0, "\(migrate.error)")
        #expect(migrate.output.contains("migrated"))
        #expect(migrate.error.contains("step 1/1 (1.0 → 2.0 (inferred)): done"), "plain progress lines when not on a terminal")
        let finish = try run(lucidgenBinary, ["migrate", "--config", config, "--database", store, "--to", "2.0", "--finish-cleanup"])
        #expect(finish.status == 0, "\(finish.error)")
        #expect(finish.output.contains("already at 2.0"))
        #expect(finish.output.contains("finished"))

        // The CLI cannot run the app's code: it stops before the stage, leaving the store at 2.0.
        let stage = try run(lucidgenBinary, ["migrate", "--config", config, "--database", store])
        #expect(stage.status == 3)
        #expect(stage.error.contains("the migration needs the app's stage '2.0 → 2.1 (moveFlightData)'"))
        #expect(
            stage.error.contains("`lucidgen migrate` cannot run the app's code (its `--to` stops before the stage)"),
            "the CLI's own next step")
        #expect(try run(lucidgenBinary, ["plan", "--config", config, "--database", store]).output.contains("at version 2.0"))

        let garbage = folder.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 7, count: 2048).write(to: URL(fileURLWithPath: garbage))
        let refused = try run(lucidgenBinary, ["migrate", "--config", config, "--database", garbage])
        #expect(refused.status == 3)
        #expect(refused.error.contains("is not an SQLite database"))
    }
}
