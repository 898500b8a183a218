import Foundation
import LucidGenCore
import LucidRuntime
import Testing

/// Real store files and real processes: crashes at many instants, bad stores, two processes at once.
@Suite(.serialized) struct StoreProcessTests {
    /// 1.0 → 1.1 → 2.0, each step rebuilding `item` (a column becomes required, a type converts).
    static let entity = """
        {
            "name": "item",
            "identifier": { "type": "int" },
            "version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "2.0" }],
            "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "default_value": "",
                  "type_history": [{ "until_version": "1.1", "nullable": true, "default_value": null }] },
                { "name": "score", "property_type": "double", "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "label", "property_type": "string", "nullable": true, "previous_name": "title", "renamed_at_version": "2.0" },
                { "name": "tag", "property_type": "int", "default_value": 5, "added_at_version": "1.1" }
            ]
        }
        """
    static let rows = 150_000

    /// A project and a store at 1.0 holding `rows` rows.
    static func makeStore() throws -> (project: TestProject, store: String) {
        let project = try TestProject(files: [".entities/item.json": entity], config: TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n")
        let store = project.root.appendingPathComponent("base.sqlite").path
        let created = try run(lucidgenBinary, ["fixtures", "--version", "1.0", "--rows", "1", "--output", store], in: project.root)
        #expect(created.status == 0, "\(created.error)")
        let database = try DatabaseQueue(path: store)
        try database.write { db in
            try db.execute(sql: "DELETE FROM item")
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO item (id, name, note, score, title) SELECT i, 'name ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'note ' || i END, i * 7, 'title ' || i FROM n
                """)
        }
        try database.close()
        return (project, store)
    }

    static func versions(_ project: TestProject) throws -> [Schema] {
        try Resolver.resolve(try GeneratorPipeline(configPath: project.configPath).load()).schemas
    }

    /// The store's version, after checking that its tables are exactly that version's and no row is lost.
    static func checkConsistent(_ path: String, versions: [Schema], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
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

    static func checkValues(_ path: String) throws {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        try database.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT name, note, score, typeof(score) AS kind, label, tag FROM item WHERE id = 3"))
            #expect(row["name"] as String == "name 3")
            #expect(row["note"] as String == "")
            #expect(row["score"] as Double == 21)
            #expect(row["kind"] as String == "real")
            #expect(row["label"] as String == "title 3")
            #expect(row["tag"] as Int == 5)
        }
    }

    @Test func killedAtManyInstantsTheStoreStaysConsistentAndResumes() throws {
        let (project, base) = try Self.makeStore()
        defer { project.remove() }
        let versions = try Self.versions(project)
        let work = project.root.appendingPathComponent("work.sqlite").path

        // How long an uninterrupted two-step migration (1.0 → 1.1, then 1.1 → 2.0) takes.
        let script = "\(lucidgenBinary) migrate --database \(work) --to 1.1 && \(lucidgenBinary) migrate --database \(work)"
        try FileManager.default.copyItem(atPath: base, toPath: work)
        let started = Date()
        let clean = try run("/bin/sh", ["-c", script], in: project.root)
        let duration = Date().timeIntervalSince(started)
        #expect(clean.status == 0, "\(clean.error)")
        #expect(try Self.checkConsistent(work, versions: versions) == "2.0")
        try Self.checkValues(work)

        var outcomes: [String: Int] = [:]
        let killPoints = 24
        for point in 0..<killPoints {
            try? FileManager.default.removeItem(atPath: work)
            for suffix in ["-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: work + suffix) }
            try FileManager.default.copyItem(atPath: base, toPath: work)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // `exec` chains keep one process at a time, so killing the group kills the running migration.
            process.arguments = ["-c", script]
            process.currentDirectoryURL = project.root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = duration * Double(point) / Double(killPoints - 1) * 1.5
            Thread.sleep(forTimeInterval: delay)
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            // The shell's child (lucidgen) is in the same session; kill any migrate still running on this file.
            _ = try? run("/usr/bin/pkill", ["-KILL", "-f", "migrate --database \(work)"])
            process.waitUntilExit()
            let version = try Self.checkConsistent(work, versions: versions)
            outcomes[version, default: 0] += 1
            // Resuming completes.
            let resumed = try run(lucidgenBinary, ["migrate", "--database", work], in: project.root)
            #expect(resumed.status == 0, "resume after a kill at \(delay) s: \(resumed.error)")
            #expect(try Self.checkConsistent(work, versions: versions) == "2.0")
            try Self.checkValues(work)
        }
        // The kills landed before, between and after the steps.
        #expect(outcomes.keys.count >= 2, "kill points should leave stores at several versions: \(outcomes)")
        print("crash test: \(killPoints) kill points over \(String(format: "%.2f", duration)) s; versions found after the kill: \(outcomes)")
    }

    @Test func twoProcessesOneMigratesTheOtherWaits() throws {
        let (project, store) = try Self.makeStore()
        defer { project.remove() }
        let versions = try Self.versions(project)
        let processes = (0..<2).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: lucidgenBinary)
            process.arguments = ["migrate", "--database", store]
            process.currentDirectoryURL = project.root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        #expect(try Self.checkConsistent(store, versions: versions) == "2.0")
        try Self.checkValues(store)
        let database = try DatabaseQueue(path: store)
        defer { try? database.close() }
        let log = try database.read { db in try String.fetchAll(db, sql: "SELECT label FROM lucid_migration_log WHERE kind = 'inferred'") }
        #expect(log == ["1.0 → 2.0 (inferred)"], "exactly one process migrated")
    }

    // MARK: Bad stores: a typed error, and the file byte-identical afterwards.

    func expectRefused(_ path: String, versions: [Schema], options: StoreOptions = StoreOptions(), sourceLocation: Testing.SourceLocation = #_sourceLocation, _ matches: (StoreError) -> Bool) {
        let before = FileManager.default.contents(atPath: path)
        do {
            let database = try LucidStore.open(atPath: path, versions: versions, options: options)
            try? database.close()
            Issue.record("the store was opened", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
        }
        #expect(FileManager.default.contents(atPath: path) == before, "the file must be byte-identical", sourceLocation: sourceLocation)
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
        expectRefused(newer, versions: versions) { if case .storeIsNewer(let store, _) = $0 { store == SchemaVersion("9.0") } else { false } }

        let unknown = try copy("unknown.sqlite")
        try withWritable(unknown) { db in try db.execute(sql: "UPDATE lucid_store SET checksum = 'feedface'") }
        expectRefused(unknown, versions: versions) { if case .checksumMismatch(let version, _, _) = $0 { version == SchemaVersion("1.0") } else { false } }

        let full = try copy("full.sqlite")
        let pages = try DatabaseQueue(path: full).read { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
        var fullOptions = StoreOptions()
        fullOptions.configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(pages + 20)") }
        expectRefused(full, versions: versions, options: fullOptions) { if case .diskFull = $0 { true } else { false } }

        let locked = try copy("locked.sqlite")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [locked, "BEGIN EXCLUSIVE;", "INSERT INTO item (id, name, score) VALUES (-1, 'lock', 0);", ".shell sleep 4", "ROLLBACK;"]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        Thread.sleep(forTimeInterval: 0.8)
        var lockedOptions = StoreOptions()
        lockedOptions.busyTimeout = 0.5
        expectRefused(locked, versions: versions, options: lockedOptions) { if case .locked = $0 { true } else { false } }
        holder.waitUntilExit()

        let readOnly = try copy("readonly.sqlite")
        #expect(try run("/usr/bin/chattr", ["+i", readOnly]).status == 0)
        defer { _ = try? run("/usr/bin/chattr", ["-i", readOnly]) }
        expectRefused(readOnly, versions: versions) { if case .cannotWrite = $0 { true } else { false } }
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
        #expect(try run(lucidgenBinary, ["fixtures", "--config", config, "--version", "1.1", "--rows", "1", "--output", base]).status == 0)
        // Many aircraft with flight data, so the stage's copy takes a while.
        let database = try DatabaseQueue(path: base)
        try database.write { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
                INSERT INTO aircraft (id, tail_number, aircraft_type, aircraft_class, category, is_favorite, flight_data)
                SELECT 'bulk-' || i, 'N' || i, 'type', 'single_engine_land', 'airplane', 0, randomblob(64) FROM n
                """)
        }
        try database.close()
        let expected = try flightDataCount(base)

        let work = folder.appendingPathComponent("work.sqlite").path
        try FileManager.default.copyItem(atPath: base, toPath: work)
        let started = Date()
        #expect(try run(demo, [work]).status == 0)
        let duration = Date().timeIntervalSince(started)
        #expect(try flightDataCount(work) == expected)

        var versions: [String: Int] = [:]
        for point in 0..<16 {
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: work + suffix) }
            try FileManager.default.copyItem(atPath: base, toPath: work)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: demo)
            process.arguments = [work]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: duration * Double(point) / 15 * 1.2)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let version = try DatabaseQueue(path: work).read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?" }
            versions[version, default: 0] += 1
            #expect(try flightDataCount(work) == expected, "no flight data lost after a kill at \(version)")
            #expect(try run(demo, [work]).status == 0, "the next open completes")
            #expect(try flightDataCount(work) == expected)
        }
        print("stage crash test: 16 kill points over \(String(format: "%.2f", duration)) s; versions found: \(versions)")
    }
}
