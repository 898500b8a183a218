import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Every refusal says what to do next; `plan` and `migrate` decide alike.
@Suite struct RefusalTests {
    /// Each case's next step names the concrete action.
    @Test(
        arguments: [
            (StoreError.notADatabase(path: "/s.sqlite"), "backup"),
            (.corrupt(path: "/s.sqlite", message: "malformed"), "sqlite3 /s.sqlite .recover"),
            (.cannotWrite(path: "/folder/s.sqlite", message: "readonly"), "/folder"),
            (.diskFull(path: "/s.sqlite"), "Free disk space"),
            (.diskFull(path: "/s.sqlite", journalLeft: true), "Keep /s.sqlite-journal beside the file"),
            (.locked(path: "/s.sqlite", waited: 60), "fuser /s.sqlite"),
            (.storeIsNewer(storeVersion: SchemaVersion("3.0"), newestKnown: SchemaVersion("2.0")), "newerStorePolicy = .openReadOnly"),
            (.unknownVersion(SchemaVersion("1.5"), known: [SchemaVersion("1.0")]), "lucidgen generate"),
            (.checksumMismatch(version: SchemaVersion("1.0"), stored: "a", expected: "b"), "lucidgen generate --check"),
            (.unrecognizedSchema(path: "/s.sqlite", differences: ["table x"]), "adopt"),
            (.registryMismatch(version: SchemaVersion("1.0"), generated: "a", runtime: "b"), "lucidgen generate"),
            (.missingStage("2.0 → 2.1 (move)"), "StoreOptions.stages"),
            (
                .missingStages(
                    path: "/s.sqlite", storeVersion: SchemaVersion("1.0"), target: SchemaVersion("3.0"),
                    missing: [
                        MissingStage(
                            from: SchemaVersion("2.0"), to: SchemaVersion("2.1"), label: "move", stageProvided: false, tables: [],
                            signatures: ["func moveWillMigrate(_ db: Database) throws"])
                    ], registry: "App.AppSchema"), "options.stages = AppSchema.stages(using: migrations)"
            ),
            (.stepFailed(step: "s", version: SchemaVersion("1.0"), message: "boom"), "resumes"),
            (
                .unknownEnumValue(
                    step: "s", version: SchemaVersion("1.0"),
                    UnknownEnumValueError(
                        table: "plane", row: .rowid(2), column: "kind", value: "zeppelin".databaseValue, enumType: "Kind",
                        cases: ["airplane"])), "plane.kind"
            ),
            (.schemaMismatch(version: SchemaVersion("1.0"), differences: ["x"]), "lucidgen plan"),
            (.foreignKeyViolation(step: "s", violations: []), "rows named above"),
            (.dataWouldBeLost(step: "s", message: "m"), "stage"),
            (
                .duplicateRows(
                    step: "s", table: "t", columns: ["c"], index: "t_c_unique",
                    duplicates: [DuplicateRows(values: ["1"], rowids: [1, 2], count: 2)], groupCount: 1),
                "Remove or merge the duplicate rows"
            ),
            (.checkFailed(step: "s", table: "t", constraint: "c > 0", rowid: 7), #"SELECT * FROM "t" WHERE rowid = 7"#),
            (.planning(.noRoute(from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), blocked: [])), "stages:"),
        ] as [(StoreError, String)])
    func everyRefusalSaysWhatToDoNext(error: StoreError, action: String) {
        #expect(error.nextStep.contains(action), "\(error.nextStep)")
        #expect(error.description == "\(error.problem). \(error.nextStep)")
    }

    /// `plan` and `migrate` on the same bad stores: the same exit code, and the same error line.
    @Test func planAndMigrateRefuseAlike() throws {
        let (project, base) = try StoreProcessTests.makeStore()
        defer { project.remove() }
        func copy(_ name: String, _ change: (String) throws -> Void = { _ in }) throws -> String {
            let path = project.root.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: base, toPath: path)
            try change(path)
            return path
        }
        func damagePage(_ page: Int) -> (String) throws -> Void {
            { path in
                let handle = try #require(FileHandle(forWritingAtPath: path))
                let pageSize = 4096
                try handle.seek(toOffset: UInt64((page - 1) * pageSize))
                handle.write(Data(repeating: 0xDE, count: 600))
                try handle.close()
            }
        }
        let pages = try DatabaseQueue(path: base).read { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
        let stores: [(name: String, path: String, status: Int32)] = [
            (
                "garbage",
                try copy("garbage.sqlite") {
                    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: $0))
                }, 3
            ),
            (
                "truncated",
                try copy("truncated.sqlite") { path in
                    let data = try Data(contentsOf: URL(fileURLWithPath: path))
                    try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: path))
                }, 3
            ),
            ("a damaged index page", try copy("page2.sqlite", damagePage(2)), 3),
            ("a damaged page mid-file", try copy("middle.sqlite", damagePage(pages / 2)), 3),
            (
                "newer",
                try copy("newer.sqlite") { path in
                    let database = try DatabaseQueue(path: path)
                    try database.write { db in try db.execute(sql: "UPDATE lucid_store SET version = '9.0'") }
                    try database.close()
                }, 3
            ),
            ("zero bytes", try copy("empty.sqlite") { try Data().write(to: URL(fileURLWithPath: $0)) }, 0),
            ("healthy", try copy("healthy.sqlite"), 0),
        ]
        for store in stores {
            let before = storeFiles(store.path)
            let plan = try run(lucidgenBinary, ["plan", "--database", store.path], in: project.root)
            #expect(storeFiles(store.path) == before, "plan never changes the store (\(store.name))")
            let migrate = try run(lucidgenBinary, ["migrate", "--database", store.path], in: project.root)
            #expect(
                plan.status == store.status && migrate.status == store.status,
                "\(store.name): plan \(plan.status), migrate \(migrate.status): \(plan.error) | \(migrate.error)")
            if store.status != 0 {
                #expect(plan.error == migrate.error, "\(store.name): the same refusal")
                #expect(storeFiles(store.path) == before, "a refused store is unchanged (\(store.name))")
            }
            if store.name == "zero bytes" {
                #expect(
                    plan.output.contains(
                        "an empty (0-byte) file, which SQLite reads as a new database; migrate would create the store at 2.0 in it"),
                    "\(plan.output)")
                #expect(
                    migrate.output.contains("the file was empty (0 bytes), as SQLite reads a new database; created the store at 2.0 in it"),
                    "\(migrate.output)")
            }
        }
    }

    /// No option is listed twice in any command's help (`fixtures` once listed `--version` for the store
    /// and for the tool).
    @Test(arguments: ["generate", "fixtures", "plan", "migrate", "init"])
    func eachOptionIsListedOnce(command: String) throws {
        let help = try run(lucidgenBinary, [command, "--help"]).output
        let names = help.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\s+(?:-[a-zA-Z], )?(--[a-z-]+)/).map { String($0.1) }
        }
        #expect(!names.isEmpty, "\(help)")
        #expect(Set(names).count == names.count, "\(command): \(names)")
    }
}
