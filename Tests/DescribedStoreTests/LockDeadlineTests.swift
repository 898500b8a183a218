import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Locks around a step: in rollback-journal mode, a reader in another process makes
/// a step wait at `BEGIN`, at each statement whose page cache must spill, and at `COMMIT`. The busy
/// timeout bounds the whole step, not each of these waits.
@Suite struct LockDeadlineTests {
    /// 1.0: `person(first_name, last_name)` with an index; 2.0 makes `first_name` optional, a rebuild
    /// (new table, copy, drop, rename, indexes again): several statements that each spill the cache.
    func versions() throws -> [Schema] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path(".entities"), withIntermediateDirectories: true)
        func person(_ firstName: String, history: [String]) -> String {
            """
            { "name": "person", "identifier": { "type": "int" },
              "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
              "properties": [\(firstName), { "name": "last_name", "property_type": "string", "indexed": true }] }
            """
        }
        var schemas: [Schema] = []
        for (current, json) in [
            ("1.0", person(#"{ "name": "first_name", "property_type": "string" }"#, history: ["1.0"])),
            ("2.0", person(#"{ "name": "first_name", "property_type": "string", "nullable": true }"#, history: ["1.0", "2.0"])),
        ] {
            let config =
                "input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\ncurrent_version: \"\(current)\"\n"
            try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
            try json.write(toFile: folder.path(".entities/person.json"), atomically: true, encoding: .utf8)
            schemas = try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).run(check: false).model.schemas
        }
        return schemas
    }

    /// The store's version and a digest of its rows (a read: the reader's lock allows it).
    func state(_ path: String) throws -> [String] {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { db in
            [
                try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?",
                "\(try Int.fetchOne(db, sql: "SELECT count(*) FROM person") ?? -1)",
                try String.fetchOne(
                    db,
                    sql:
                        "SELECT group_concat(id || first_name || last_name, ',') FROM (SELECT * FROM person WHERE id % 997 = 0 ORDER BY id)"
                ) ?? "",
            ]
        }
    }

    @Test func theBusyTimeoutBoundsAWholeStepNotEachWaitInIt() throws {
        let versions = try versions()
        let rows = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO person (id, first_name, last_name) SELECT i, printf('first %060d', i), printf('last %060d', i % 500) FROM n
            """
        let (path, folder) = try storeAtFirstVersion(versions, rows: rows)
        defer { folder.remove() }
        #expect(try withDatabase(path) { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete", "a rollback-journal store")
        let before = try state(path)

        var options = StoreOptions()
        options.busyTimeout = 0.5
        // A page cache of 20 pages: the rebuild's statements must spill into the file, which needs the
        // EXCLUSIVE lock the reader keeps it from taking.
        options.configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = 20") }

        let reader = try SQLiteShell(path)
        reader.send("BEGIN;\nSELECT count(*) FROM person;\nSELECT 'holding';\n")
        #expect(reader.waitForLine { $0 == "holding" } != nil, "\(reader.lines)")

        let migrator = try StoreMigrator(path: path, history: SchemaHistory(versions: versions), options: options)
        let deadline = try #require(migrator.lockDeadline)
        let error = #expect(throws: StoreError.self) { try migrator.openAndMigrate().0.close() }
        guard case .locked(_, let waited)? = error else {
            Issue.record("expected .locked, got \(String(describing: error))")
            return
        }
        // The step met several waits (spills, then COMMIT); one timeout each would have waited
        // `waits` × 0.5 s. They shared one deadline instead.
        #expect(deadline.waits >= 3, "waits: \(deadline.waits), calls: \(deadline.calls)")
        #expect(waited >= 0.4 && waited < 3 * options.busyTimeout, "waited \(waited) s for \(deadline.waits) waits")
        #expect(error?.problem.contains("waited \(String(format: "%.1f", waited)) s") == true, "\(error?.problem ?? "")")
        #expect(try state(path) == before, "the step was rolled back: same version, same rows")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))

        reader.send("COMMIT;\n")
        reader.closeInput()
        #expect(reader.finish() == 0)

        // The reader gone, the same migration goes through, under the same deadline and cache.
        let (database, outcome) = try migrator.openAndMigrate()
        try database.close()
        #expect(outcome.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        #expect(deadline.waits == 0)
        let after = try state(path)
        #expect(after[0] == "2.0")
        #expect(Array(after.dropFirst()) == Array(before.dropFirst()), "every row kept")
    }
}

/// `/usr/bin/sqlite3` on a store in another process: the test writes SQL to it and reads what it says,
/// line by line (it holds locks the way another app would).
final class SQLiteShell {
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffer = Data()
    private(set) var lines: [String] = []

    init(_ path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        try process.run()
    }

    func send(_ sql: String) { input.fileHandleForWriting.write(Data(sql.utf8)) }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Reads until a line satisfies `matches` (returning it), or nil when the output ends first.
    func waitForLine(_ matches: (String) -> Bool) -> String? {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                lines.append(line)
                if matches(line) { return line }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Reads everything and waits for the process to end.
    func finish() -> Int32 {
        _ = waitForLine { _ in false }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
