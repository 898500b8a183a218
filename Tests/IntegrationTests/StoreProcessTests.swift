import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// Real store files and real processes: crashes at many instants, bad stores, two processes at once.
@Suite(.serialized) struct StoreProcessTests {
    /// 1.0 → 1.1 → 2.0, each step rebuilding `item` (a column becomes required, a type converts int → string).
    static let entity = """
        {
            "name": "item",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }],
            "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "default_value": "",
                  "type_history": [{ "until_version": "1.1", "nullable": true, "default_value": null }] },
                { "name": "score", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "label", "property_type": "string", "nullable": true, "previous_name": "title", "renamed_at_version": "2.0" },
                { "name": "tag", "property_type": "int", "default_value": 5, "added_at_version": "1.1" }
            ]
        }
        """
    static let rows = 30_000

    /// A project and a store at 1.0 holding `rows` rows, in the given journal mode.
    static func makeStore(journal: String = "delete") throws -> (project: TestProject, store: String) {
        let project = try TestProject(
            files: [".entities/item.json": entity], config: TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        let store = project.root.appendingPathComponent("base.sqlite").path
        let created = try run(lucidgenBinary, ["fixtures", "--schema-version", "1.0", "--rows", "1", "--output", store], in: project.root)
        #expect(created.status == 0, "\(created.error)")
        try fillCrashSoakItems(store, rows: rows, journal: journal)
        return (project, store)
    }

    static func versions(_ project: TestProject) throws -> [Schema] {
        try Resolver.resolve(try GeneratorPipeline(configPath: project.configPath).load()).schemas
    }

    /// The store's version, after checking that its tables are exactly that version's and no row is lost.
    static func checkConsistent(_ path: String, versions: [Schema], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> String
    {
        let status = try LucidStore.inspect(atPath: path, versions: versions)
        let version = try #require(status.version, sourceLocation: sourceLocation)
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        try database.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok", sourceLocation: sourceLocation)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM item") == rows, "no row may be lost", sourceLocation: sourceLocation)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty, sourceLocation: sourceLocation)
            // The tables are exactly those of the recorded version.
            let schema = try #require(versions.first { $0.version == version }, sourceLocation: sourceLocation)
            for table in schema.tables {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY name", arguments: [table.name])
                #expect(columns == table.columns.map(\.name).sorted(), "\(table.name) at \(version)", sourceLocation: sourceLocation)
            }
            #expect(try !db.tableExists("lucid_rebuild_item"), "no half-done rebuild is visible", sourceLocation: sourceLocation)
        }
        return version.string
    }

    /// What uninterrupted runs of the two commands leave: the store at 1.0, 1.1 and 2.0, every value; and
    /// the lines each command prints.
    static func references(_ project: TestProject, base: String) throws -> (snapshots: [String: StoreSnapshot], lines: [[String]]) {
        var snapshots = ["1.0": try StoreSnapshot.read(base)]
        let reference = project.root.appendingPathComponent("reference.sqlite").path
        try copyStore(base, to: reference)
        var lines: [[String]] = []
        for (command, version) in zip(commands(reference), ["1.1", "2.0"]) {
            let process = try ObservedProcess(lucidgenBinary, command, in: project.root)
            #expect(process.finish() == 0, "\(process.lines)")
            lines.append(process.lines)
            snapshots[version] = try StoreSnapshot.read(reference)
        }
        #expect(snapshots.map { $0.key == $0.value.version }.allSatisfy { $0 }, "\(snapshots)")
        return (snapshots, lines)
    }

    /// The two-step migration as two commands: 1.0 → 1.1, then 1.1 → 2.0.
    static func commands(_ store: String) -> [[String]] {
        [["migrate", "--database", store, "--to", "1.1"], ["migrate", "--database", store]]
    }

    /// `lucidgen migrate` is killed right after each progress line it prints (plain lines on a pipe), in
    /// either command; the kill must land mid-migration (the final line never printed), leave the store at
    /// 1.0, 1.1 or 2.0 with every value of an uninterrupted run to that version, and resume to the values
    /// of an uninterrupted run to 2.0.
    @Test(arguments: ["delete", "wal"])
    func killedAfterEveryProgressLineTheStoreStaysConsistentAndResumes(journal: String) throws {
        let (project, base) = try Self.makeStore(journal: journal)
        defer { project.remove() }
        let versions = try Self.versions(project)
        let (references, lines) = try Self.references(project, base: base)
        let work = project.root.appendingPathComponent("work.sqlite").path
        var outcomes: [String: Int] = [:]
        var companionsSeen = 0
        var afterCopies = 0
        for (index, command) in Self.commands(work).enumerated() {
            let progress = lines[index].filter { $0.hasPrefix("step ") }
            #expect(progress.count >= 4, "a step prints its start, its operations and its end: \(lines[index])")
            for (count, line) in progress.enumerated() {
                try copyStore(base, to: work)
                if index == 1 { #expect(try run(lucidgenBinary, Self.commands(work)[0], in: project.root).status == 0) }
                let process = try ObservedProcess(lucidgenBinary, command, in: project.root)
                var seen = 0
                let observed = process.waitForLine {
                    $0.hasPrefix("step ")
                        && {
                            seen += 1; return seen == count + 1
                        }()
                }
                #expect(observed == line, "the same progress as the uninterrupted run")
                process.kill()
                #expect(process.process.terminationReason == .uncaughtSignal, "killed after '\(line)'")
                // The kill landed mid-migration: the command never printed its final line.
                #expect(
                    !process.lines.contains { $0.hasPrefix("migrated") }, "the kill after '\(line)' landed after the end: \(process.lines)")
                let companion = fileSize(work + (journal == "wal" ? "-wal" : "-journal"))
                if companion > 0 { companionsSeen += 1 }
                let version = try Self.checkConsistent(work, versions: versions)
                outcomes[version, default: 0] += 1
                #expect(
                    try StoreSnapshot.read(work) == references[version],
                    "every value after a kill at '\(line)' is that of an uninterrupted run to \(version)")
                if line.hasSuffix(" \(Self.rows)/\(Self.rows) rows") {
                    // Every row copied, nothing committed: the store is still at the command's starting version.
                    // A rollback journal shows the open transaction on disk; in WAL mode SQLite may still hold
                    // the whole copy in its page cache, so the WAL can be empty.
                    #expect(version == (index == 0 ? "1.0" : "1.1"), "the copy after '\(line)' was rolled back")
                    if journal == "delete" { #expect(companion > 0, "a hot journal after '\(line)'") }
                    afterCopies += 1
                }
                let resumed = try run(lucidgenBinary, ["migrate", "--database", work], in: project.root)
                #expect(resumed.status == 0, "resume after a kill at '\(line)': \(resumed.error)")
                #expect(try StoreSnapshot.read(work) == references["2.0"], "resumed after a kill at '\(line)'")
            }
        }
        #expect(afterCopies == 2, "each command's rebuild reports its copied rows, and a kill lands there")
        // The kills landed before and between the steps (a kill after a step's last line may also find its commit).
        #expect(Set(outcomes.keys).isSuperset(of: ["1.0", "1.1"]), "\(outcomes)")
        print(
            "crash test (\(journal)): \(outcomes.values.reduce(0, +)) kills after progress lines, \(companionsSeen) with an open transaction on disk; versions found after the kill: \(outcomes)"
        )
    }

    /// Four `lucidgen migrate` processes started together: one migrates, and each of the others reports
    /// its own outcome (it waited for another process which did the work, or found the store current).
    @Test func fourProcessesOneMigratesTheOthersSayWhatTheyDid() throws {
        let (project, store) = try Self.makeStore()
        defer { project.remove() }
        let versions = try Self.versions(project)
        let reference = project.root.appendingPathComponent("reference.sqlite").path
        try copyStore(store, to: reference)
        #expect(try run(lucidgenBinary, ["migrate", "--database", reference], in: project.root).status == 0)
        let references = try StoreSnapshot.read(reference)
        let outputs = (0..<4).map { _ in Pipe() }
        // Each process's standard error goes to a file (a pipe nobody reads could fill), shown when it fails.
        let errorFiles = (0..<4).map { project.root.appendingPathComponent("migrate-\($0).err") }
        let processes = try zip(outputs, errorFiles).map { output, errorFile in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: lucidgenBinary)
            process.arguments = ["migrate", "--database", store]
            process.currentDirectoryURL = project.root
            process.standardOutput = output
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorFile)
            return process
        }
        for process in processes { try process.run() }
        let said = outputs.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        for process in processes { process.waitUntilExit() }
        let errors = errorFiles.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
        #expect(processes.map(\.terminationStatus) == [0, 0, 0, 0], "standard errors: \(errors)")
        #expect(try Self.checkConsistent(store, versions: versions) == "2.0")
        #expect(try StoreSnapshot.read(store) == references, "every value as one uninterrupted migration leaves it")
        let database = try DatabaseQueue(path: store)
        defer { try? database.close() }
        let log = try database.read { db in try String.fetchAll(db, sql: "SELECT label FROM lucid_migration_log WHERE kind = 'inferred'") }
        #expect(log == ["1.0 → 2.0 (inferred)"], "exactly one process migrated")
        let migrated = said.filter { $0.contains("migrated from 1.0 to 2.0 in 1 step: 1.0 → 2.0 (inferred)") }
        #expect(migrated.count == 1, "exactly one process says it migrated: \(said)")
        for other in said where !other.contains("migrated from 1.0 to 2.0 in 1 step") {
            let waited = other.contains("for another process, which migrated the store from 1.0 to 2.0; nothing left to do")
            let current = other.contains(": already at 2.0.")
            #expect(waited || current, "another process reports its own outcome: \(other)")
        }
    }

    /// A store locked longer than the busy timeout: the error says how long this process waited and what
    /// to do, and the store is unchanged.
    @Test func aLockHeldLongerThanTheBusyTimeoutSaysHowLongItWaitedAndWhatToDo() throws {
        let (project, store) = try Self.makeStore()
        defer { project.remove() }
        let holder = try ObservedProcess("/usr/bin/sqlite3", [store], takesInput: true)
        holder.send("BEGIN EXCLUSIVE;\nINSERT INTO item (id, name, score) VALUES (-1, 'lock', 0);\nSELECT 'holding';\n")
        #expect(holder.waitForLine { $0 == "holding" } != nil, "\(holder.lines)")
        let before = storeFiles(store)
        for command in ["plan", "migrate"] {
            let result = try run(lucidgenBinary, [command, "--database", store, "--busy-timeout", "0.5"], in: project.root)
            #expect(result.status == 3, "\(command): \(result.output) \(result.error)")
            let waited = result.error.firstMatch(of: /waited ([0-9.]+) s/).flatMap { Double($0.1) }
            #expect(waited.map { $0 >= 0.5 } == true, "\(command) says how long it waited, at least the timeout: \(result.error)")
            #expect(
                result.error.contains("busy timeout") && result.error.contains("--busy-timeout") && result.error.contains("fuser"),
                "\(result.error)")
        }
        holder.send("ROLLBACK;\n")
        holder.closeInput()
        #expect(holder.finish() == 0)
        #expect(storeFiles(store)["main"] == before["main"])
    }

    // MARK: Bad stores: a typed error, and the file byte-identical afterwards.

    /// The main file, `-journal` and `-wal` byte-identical afterwards (`-shm` is rebuilt on every open).
    func expectRefused(
        _ path: String, versions: [Schema], options: StoreOptions = StoreOptions(),
        sourceLocation: Testing.SourceLocation = #_sourceLocation, _ matches: (StoreError) -> Bool
    ) {
        let before = storeFiles(path)
        do {
            let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
            try? database.close()
            Issue.record("the store was opened", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
        }
        let after = storeFiles(path)
        #expect(
            after.keys.sorted() == before.keys.sorted(), "the same files: \(before.keys.sorted()) before, \(after.keys.sorted()) after",
            sourceLocation: sourceLocation)
        for (name, data) in before where after[name] != data {
            Issue.record(
                "\(name) must be byte-identical (\(data.count) bytes before, \(after[name]?.count ?? 0) after)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func badStoresAreRefusedWithTypedErrorsAndLeftUntouched() throws {
        let (project, base) = try Self.makeStore()
        defer { project.remove() }
        let versions = try Self.versions(project)
        func copy(_ name: String) throws -> String {
            let path = project.root.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: base, toPath: path)
            return path
        }

        let garbage = project.root.appendingPathComponent("garbage.sqlite").path
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: garbage))
        expectRefused(garbage, versions: versions) { if case .notADatabase = $0 { true } else { false } }

        let truncated = try copy("truncated.sqlite")
        let data = try #require(FileManager.default.contents(atPath: truncated))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: truncated))
        expectRefused(truncated, versions: versions) {
            switch $0 {
            case .corrupt, .notADatabase: true
            default: false
            }
        }

        let newer = try copy("newer.sqlite")
        try withWritable(newer) { db in try db.execute(sql: "UPDATE lucid_store SET version = '9.0'") }
        expectRefused(newer, versions: versions) {
            if case .storeIsNewer(let store, _) = $0 { store == SchemaVersion("9.0") } else { false }
        }

        let unknown = try copy("unknown.sqlite")
        try withWritable(unknown) { db in try db.execute(sql: "UPDATE lucid_store SET checksum = 'feedface'") }
        expectRefused(unknown, versions: versions) {
            if case .checksumMismatch(let version, _, _) = $0 { version == SchemaVersion("1.0") } else { false }
        }

        let full = try copy("full.sqlite")
        let pages = try DatabaseQueue(path: full).read { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
        var fullOptions = StoreOptions()
        fullOptions.configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 20)") }
        expectRefused(full, versions: versions, options: fullOptions) { if case .diskFull = $0 { true } else { false } }

        // Another process holds an exclusive lock: it says so on its output, the store is refused, then it lets go.
        let locked = try copy("locked.sqlite")
        let holder = try ObservedProcess("/usr/bin/sqlite3", [locked], takesInput: true)
        holder.send("BEGIN EXCLUSIVE;\nINSERT INTO item (id, name, score) VALUES (-1, 'lock', 0);\nSELECT 'holding';\n")
        #expect(holder.waitForLine { $0 == "holding" } != nil, "\(holder.lines)")
        var lockedOptions = StoreOptions()
        lockedOptions.busyTimeout = 0.2
        expectRefused(locked, versions: versions, options: lockedOptions) { if case .locked = $0 { true } else { false } }
        holder.send("ROLLBACK;\n")
        holder.closeInput()
        #expect(holder.finish() == 0)
    }

    /// A WAL store whose last transactions were never checkpointed (its writer was killed): what the WAL
    /// holds counts. A bad store there is refused with both files untouched; a good one migrates with
    /// the WAL's rows.
    @Test func pendingWALIsReadAndABadStoreThereIsLeftUntouched() throws {
        let (project, base) = try Self.makeStore(journal: "wal")
        defer { project.remove() }
        let versions = try Self.versions(project)
        /// Commits `sql` in WAL mode and kills the writer before it can checkpoint.
        func pending(_ name: String, _ sql: String) throws -> String {
            let path = project.root.appendingPathComponent(name).path
            try copyStore(base, to: path)
            let writer = try ObservedProcess("/usr/bin/sqlite3", [path], takesInput: true)
            writer.send("PRAGMA wal_autocheckpoint = 0;\n\(sql);\nSELECT 'committed';\n")
            #expect(writer.waitForLine { $0 == "committed" } != nil, "\(writer.lines)")
            writer.kill()
            #expect(fileSize(path + "-wal") > 0, "the commit is only in the WAL")
            return path
        }
        let newer = try pending("newer.sqlite", "UPDATE lucid_store SET version = '9.0'")
        // Closing the last connection would checkpoint the WAL into the main file and delete it (SQLite's
        // default); a refused store is closed without that, so both files stay byte-identical.
        expectRefused(newer, versions: versions) {
            if case .storeIsNewer(let store, _) = $0 { store == SchemaVersion("9.0") } else { false }
        }
        // `plan` (inspect) leaves them as they are too.
        let before = storeFiles(newer)
        #expect(throws: StoreError.self) { try LucidStore.inspect(atPath: newer, versions: versions) }
        #expect(storeFiles(newer) == before)
        #expect(try StoreSnapshot.read(newer).version == "9.0", "the WAL's commit is kept")

        let good = try pending("good.sqlite", "INSERT INTO item (id, name, score, title) VALUES (-7, 'pending', 3, 'only in the WAL')")
        let database = try LucidStore.open(atPath: good, versions: versions).database
        let row = try database.read { db in try Row.fetchOne(db, sql: "SELECT name, score, label FROM item WHERE id = -7") }
        try database.close()
        #expect(row?["name"] == "pending")
        #expect(row?["score"] == "3")
        #expect(row?["label"] == "only in the WAL")
    }

    /// A store in a folder the process may not write to (no journal or WAL can be created) is refused
    /// unchanged. Permissions make the folder read-only; as root (which ignores them) `chattr +i` does,
    /// where the file system supports it. Where neither works the test is skipped, with that reason.
    @Test(
        .enabled(
            if: ReadOnlyFolder.canBeMade,
            "no read-only folder can be made here: running as root, which ignores permissions, on a file system without chattr +i"))
    func storeInAReadOnlyDirectoryIsRefusedUntouched() throws {
        let (project, base) = try Self.makeStore()
        defer { project.remove() }
        let versions = try Self.versions(project)
        let folder = project.root.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: base, toPath: store)
        #expect(ReadOnlyFolder.make(folder.path))
        defer { ReadOnlyFolder.undo(folder.path) }
        expectRefused(store, versions: versions) { if case .cannotWrite = $0 { true } else { false } }
    }

    func withWritable(_ path: String, _ body: (Database) throws -> Void) throws {
        let database = try DatabaseQueue(path: path)
        try database.write(body)
        try database.close()
    }
}

/// The example app's own stage, interrupted: a crash inside the custom stage leaves the store at a
/// consistent version with no flight data lost, and the next open completes.
@Suite(.serialized) struct StageCrashTests {
    var demo: String { productsDirectory.appendingPathComponent("flightlog-demo").path }

    /// Flight data blobs wherever they are: still on aircraft (before 2.1) or in flight_data rows (from 2.1).
    func flightDataCount(_ path: String) throws -> Int {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { db in
            let version = try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? ""
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            if ["1.1", "2.0"].contains(version) {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM aircraft WHERE flight_data IS NOT NULL") ?? -1
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM flight_data") ?? -1
        }
    }

    @Test func killedInsideTheAppsStageTheStoreResumes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stage-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = folder.appendingPathComponent("base.sqlite").path
        let config = repositoryRoot.appendingPathComponent(".lucid.yaml").path
        #expect(
            try run(lucidgenBinary, ["fixtures", "--config", config, "--schema-version", "1.1", "--rows", "1", "--output", base]).status
                == 0)
        // Many aircraft with flight data, so the stage's copy takes a while.
        let database = try DatabaseQueue(path: base)
        try database.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
                    INSERT INTO aircraft (id, tail_number, aircraft_type, aircraft_class, category, is_favorite, flight_data)
                    SELECT 'bulk-' || i, 'N' || i, 'type', 'single_engine_land', 'airplane', 0, randomblob(64) FROM n
                    """)
        }
        try database.close()
        let expected = try flightDataCount(base)

        let work = folder.appendingPathComponent("work.sqlite").path
        try FileManager.default.copyItem(atPath: base, toPath: work)
        #expect(try run(demo, [work]).status == 0)
        #expect(try flightDataCount(work) == expected)
        try copyStore(base, to: work)

        // Killed right after each step's start line (the stage's copy of 60,000 blobs is under way then).
        let steps = try ObservedProcess(demo, [work])
        #expect(steps.finish() == 0)
        let startLines = steps.lines.filter { $0.hasPrefix("  step ") }
        #expect(startLines.count >= 3, "\(steps.lines)")
        var versions: [String: Int] = [:]
        for line in startLines {
            try copyStore(base, to: work)
            let process = try ObservedProcess(demo, [work])
            #expect(process.waitForLine { $0 == line } != nil, "\(process.lines)")
            process.kill()
            #expect(!process.lines.contains { $0.hasPrefix("version ") }, "the kill after '\(line)' landed after the end")
            let version = try DatabaseQueue(path: work).read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?"
            }
            versions[version, default: 0] += 1
            #expect(try flightDataCount(work) == expected, "no flight data lost after a kill at \(version)")
            #expect(try run(demo, [work]).status == 0, "the next open completes")
            #expect(try flightDataCount(work) == expected)
        }
        print("stage crash test: \(startLines.count) kills, one after each step's start line; versions found: \(versions)")
    }
}
