import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// Store files are untrusted input: a store whose `lucid_pending_cleanup` or `sqlite_master`
/// carries SQL of someone else's never has it run. Each test tampers with a real store file, migrates or
/// finishes its cleanup, and checks that only the registry's intent happened: no file but the store's own
/// appears beside it, the other tables' rows are unchanged, and a refusal leaves the file byte-identical.
@Suite struct StoreTamperingTests {
    // MARK: Histories

    static func column(_ name: String, _ type: SchemaColumn.StorageType = .text, notNull: Bool = true) -> SchemaColumn {
        SchemaColumn(name: name, type: type, notNull: notNull)
    }

    static let id = column("id", .integer)

    /// 1.0 → 2.0 drops `item.score` and the table `old` and adds an index on `item.title` (all deferrable);
    /// 2.0 → 3.0 adds a column to `item` and to `note` (so the step works on both tables).
    static let cleanupVersions: [Schema] = {
        let index = SchemaIndex(name: "item_title_index", columns: ["title"])
        return [
            Schema(
                version: SchemaVersion("1.0"),
                tables: [
                    SchemaTable(
                        name: "item", columns: [id, column("title"), column("score", .integer, notNull: false)], primaryKey: ["id"]),
                    SchemaTable(name: "note", columns: [id, column("body")], primaryKey: ["id"]),
                    SchemaTable(name: "old", columns: [id, column("x")], primaryKey: ["id"]),
                ]),
            Schema(
                version: SchemaVersion("2.0"),
                tables: [
                    SchemaTable(name: "item", columns: [id, column("title")], primaryKey: ["id"], indexes: [index]),
                    SchemaTable(name: "note", columns: [id, column("body")], primaryKey: ["id"]),
                ]),
            Schema(
                version: SchemaVersion("3.0"),
                tables: [
                    SchemaTable(
                        name: "item", columns: [id, column("title"), column("rank", .integer, notNull: false)], primaryKey: ["id"],
                        indexes: [index]),
                    SchemaTable(name: "note", columns: [id, column("body"), column("tag", notNull: false)], primaryKey: ["id"]),
                ]),
        ]
    }()

    /// 1.0 → 2.0 rebuilds `item` (its title becomes optional); `note` does not change.
    static let rebuildVersions: [Schema] = [
        Schema(
            version: SchemaVersion("1.0"),
            tables: [
                SchemaTable(name: "item", columns: [id, column("title"), column("score", .integer, notNull: false)], primaryKey: ["id"]),
                SchemaTable(name: "note", columns: [id, column("body")], primaryKey: ["id"]),
            ]),
        Schema(
            version: SchemaVersion("2.0"),
            tables: [
                SchemaTable(
                    name: "item", columns: [id, column("title", notNull: false), column("score", .integer, notNull: false)],
                    primaryKey: ["id"]),
                SchemaTable(name: "note", columns: [id, column("body")], primaryKey: ["id"]),
            ]),
    ]

    static let rows = "INSERT INTO item (id, title) VALUES (1, 'a'), (2, 'b'); INSERT INTO note (id, body) VALUES (1, 'n1'), (2, 'n2')"

    // MARK: Helpers

    /// The names in the folder, sorted.
    static func listing(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    /// Whether the folder holds only the store and SQLite's own companions of it.
    static func onlyStoreFiles(_ folder: TemporaryFolder, store: String = "store.sqlite") throws -> Bool {
        try listing(folder).allSatisfy { name in ([""] + StoreFiles.companions).contains { name == store + $0 } }
    }

    static func strings(_ path: String, _ sql: String) throws -> [String] {
        try withDatabase(path) { db in try String.fetchAll(db, sql: sql) }
    }

    static func columns(_ path: String, _ table: String) throws -> [String] {
        try strings(path, "SELECT name FROM pragma_table_info('\(table)')")
    }

    /// A store migrated from 1.0 to 2.0 with its cleanup deferred (three items pending), its rows in.
    static func deferredStore(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: cleanupVersions, version: SchemaVersion("1.0"))
        try created.write { db in
            try db.execute(sql: rows)
            try db.execute(sql: "INSERT INTO old (id, x) VALUES (1, 'x')")
        }
        try created.close()
        var options = StoreOptions()
        options.deferCleanup = true
        try LucidStore.open(atPath: path, versions: Array(cleanupVersions.prefix(2)), options: options).database.close()
        #expect(
            try strings(path, "SELECT kind || ' ' || table_name || '.' || object FROM lucid_pending_cleanup ORDER BY id").sorted()
                == ["create_index item.item_title_index", "drop_column item.score", "drop_table old.old"])
        return path
    }

    /// Runs `sql` with `PRAGMA writable_schema` on, as someone editing the file would.
    static func plant(_ path: String, _ sql: String) throws {
        try withDatabase(path) { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    // MARK: lucid_pending_cleanup

    /// A deferred drop whose recorded SQL holds more statements (ATTACH, a table in the attached file, a
    /// write to another table): the next step that works on the table drops the column and nothing else.
    @Test func aCleanupRowsExtraStatementsNeverRunInAStep() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.deferredStore(folder)
        let evil = folder.path("evil.db")
        let sql =
            "ALTER TABLE item DROP COLUMN score; ATTACH DATABASE \(Self.quoted(evil)) AS x; CREATE TABLE x.owned(a); UPDATE note SET body = 'pwned'"
        try withDatabase(path) { db in
            try db.execute(sql: "UPDATE lucid_pending_cleanup SET sql = ? WHERE kind = 'drop_column'", arguments: [sql])
            try db.execute(
                sql:
                    "UPDATE lucid_pending_cleanup SET sql = 'CREATE INDEX item_title_index ON item(title); UPDATE item SET title = ''pwned''' WHERE kind = 'create_index'"
            )
        }
        try LucidStore.open(atPath: path, versions: Self.cleanupVersions).database.close()
        #expect(try Self.strings(path, "SELECT body FROM note ORDER BY id") == ["n1", "n2"])
        #expect(try Self.strings(path, "SELECT title FROM item ORDER BY id") == ["a", "b"])
        #expect(try Self.columns(path, "item") == ["id", "title", "rank"], "the deferred drop ran")
        #expect(try Self.strings(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item'") == ["item_title_index"])
        #expect(!FileManager.default.fileExists(atPath: evil), "no ATTACH ran")
        #expect(try Self.onlyStoreFiles(folder), "\((try? Self.listing(folder)) ?? [])")
        // The drop of `old` is of a table the step does not work on: still pending, still tolerated.
        #expect(try Self.strings(path, "SELECT kind FROM lucid_pending_cleanup") == ["drop_table"])
    }

    /// Finishing the cleanup runs what the registry's step into each row's version deferred, rebuilt from
    /// the registry; rows it cannot account for stay pending (not run, not deleted) and are listed with why.
    @Test func finishingCleanupRunsOnlyWhatTheRegistryDeferred() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.deferredStore(folder)
        let evil = folder.path("evil.db")
        try withDatabase(path) { db in
            try db.execute(
                sql: "UPDATE lucid_pending_cleanup SET sql = 'DROP TABLE old; UPDATE item SET title = ''pwned''' WHERE kind = 'drop_table'")
            let insert = "INSERT INTO lucid_pending_cleanup (kind, table_name, object, sql, recorded_at_version) VALUES (?, ?, ?, ?, ?)"
            // A drop the step into 2.0 never deferred.
            try db.execute(sql: insert, arguments: ["drop_column", "note", "body", "ALTER TABLE note DROP COLUMN body", "2.0"])
            // A version the registry does not know.
            try db.execute(sql: insert, arguments: ["drop_table", "note", "note", "DROP TABLE note", "9.9"])
            // A column the store lacks.
            try db.execute(sql: insert, arguments: ["drop_column", "item", "nosuch", "ATTACH DATABASE \(Self.quoted(evil)) AS x", "2.0"])
            // An index the step never deferred, with a write to another table.
            try db.execute(
                sql: insert,
                arguments: [
                    "create_index", "item", "evil_index", "CREATE INDEX evil_index ON item(title); UPDATE note SET body = 'pwned'", "2.0",
                ])
            // A kind lucidgen never records.
            try db.execute(sql: insert, arguments: ["vacuum_into", "item", "item", "VACUUM INTO \(Self.quoted(evil))", "2.0"])
        }
        let database = try LucidStore.open(atPath: path, versions: Array(Self.cleanupVersions.prefix(2))).database
        #expect(
            try LucidStore.finishDeferredCleanup(database, history: SchemaHistory(versions: Array(Self.cleanupVersions.prefix(2)))) == 3)
        let ledger = try #require(try database.read { db in try StoreLedger.read(db, versions: Array(Self.cleanupVersions.prefix(2))) })
        try database.close()
        #expect(try Self.strings(path, "SELECT body FROM note ORDER BY id") == ["n1", "n2"])
        #expect(try Self.strings(path, "SELECT title FROM item ORDER BY id") == ["a", "b"])
        #expect(try Self.columns(path, "item") == ["id", "title"])
        #expect(try Self.columns(path, "note") == ["id", "body"])
        let names = try Self.strings(
            path,
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'lucid_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        #expect(names == ["item", "item_title_index", "note"], "\(names)")
        #expect(!FileManager.default.fileExists(atPath: evil))
        #expect(try Self.onlyStoreFiles(folder), "\((try? Self.listing(folder)) ?? [])")
        // The five rows stay, each listed with its id and why.
        let stuck = ledger.pendingCleanup.map { "\($0.id) \($0.kind) \($0.table).\($0.object)" }
        #expect(
            stuck == [
                "4 drop_column note.body", "5 drop_table note.note", "6 drop_column item.nosuch", "7 create_index item.evil_index",
                "8 vacuum_into item.item",
            ])
        let reasons = ledger.pendingCleanup.map { $0.verdict.reason ?? "runs" }
        #expect(reasons[0].contains("the step 1.0 → 2.0 does not defer"), "\(reasons[0])")
        #expect(reasons[1].contains("'9.9' is not a version of the registry"), "\(reasons[1])")
        #expect(reasons[2].contains("the step 1.0 → 2.0 does not defer"), "\(reasons[2])")
        #expect(reasons[3].contains("the step 1.0 → 2.0 does not defer"), "\(reasons[3])")
        #expect(reasons[4].contains("not a kind of cleanup"), "\(reasons[4])")
        // Read without the versions, the ledger cannot tell.
        let plain = try #require(try LucidStore.ledger(atPath: path))
        #expect(plain.pendingCleanup.allSatisfy { $0.verdict == .notChecked })
    }

    /// A legitimate row whose object the store no longer has (the app dropped the table meanwhile) stays
    /// pending rather than failing the cleanup, and so does the table's drop when the table is missing.
    @Test func aRowWhoseObjectTheStoreLacksStaysPending() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.deferredStore(folder)
        try withDatabase(path) { db in try db.execute(sql: "DROP TABLE old") }
        let versions = Array(Self.cleanupVersions.prefix(2))
        let database = try LucidStore.open(atPath: path, versions: versions).database
        #expect(try LucidStore.finishDeferredCleanup(database, history: SchemaHistory(versions: versions)) == 2)
        let ledger = try #require(try database.read { db in try StoreLedger.read(db, versions: versions) })
        try database.close()
        #expect(ledger.pendingCleanup.map { "\($0.kind) \($0.table)" } == ["drop_table old"])
        #expect(ledger.pendingCleanup.first?.verdict.reason?.contains("the store has no table old") == true, "\(ledger.pendingCleanup)")
    }

    /// A row the registry cannot account for does not make validation accept what it names: an extra
    /// column beside a stuck "drop" of it is refused (the `ALTER` changed the schema cookie, so the tables
    /// are checked against the record before any step, and the stuck row is not tolerated there either).
    @Test func aStuckRowDoesNotMakeValidationAcceptAWrongSchema() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.deferredStore(folder)
        let versions = Array(Self.cleanupVersions.prefix(2))
        let database = try LucidStore.open(atPath: path, versions: versions).database
        try LucidStore.finishDeferredCleanup(database, history: SchemaHistory(versions: versions))
        try database.close()
        try withDatabase(path) { db in
            try db.execute(sql: "ALTER TABLE note ADD COLUMN extra TEXT")
            try db.execute(
                sql:
                    "INSERT INTO lucid_pending_cleanup (kind, table_name, object, sql, recorded_at_version) VALUES ('drop_column', 'note', 'extra', 'ALTER TABLE note DROP COLUMN extra', '2.0')"
            )
        }
        let before = try #require(fileBytes(path))
        #expect {
            try LucidStore.open(atPath: path, versions: Self.cleanupVersions).database.close()
        } throws: { error in
            guard case StoreError.recordContradictsTables(_, _, let differences, _) = error else { return false }
            return differences.contains { $0.contains("extra") }
        }
        #expect(fileBytes(path) == before, "nothing was changed: the store is byte-identical")
    }

    // MARK: The app's objects in sqlite_master

    /// A view whose stored SQL carries a second statement: the step that rebuilds its table refuses
    /// before changing anything, naming the view.
    @Test func aViewRowWithATrailingStatementIsRefusedBeforeTheRebuild() throws {
        let (path, folder) = try storeAtFirstVersion(
            Self.rebuildVersions, rows: Self.rows + "; CREATE VIEW item_titles AS SELECT title FROM item")
        defer { folder.remove() }
        try Self.plant(path, "UPDATE sqlite_master SET sql = sql || '; UPDATE note SET body = ''pwned''' WHERE name = 'item_titles'")
        #expect(try Self.strings(path, "PRAGMA integrity_check") == ["ok"], "the planted row loads")
        let before = try #require(fileBytes(path))
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: Self.rebuildVersions).database.close() }
        guard case .appObjectUnsafe(_, let version, let kind, let name, _, let problem)? = error else {
            Issue.record("expected .appObjectUnsafe, got \(String(describing: error))")
            return
        }
        #expect(version == SchemaVersion("1.0") && kind == "view" && name == "item_titles")
        #expect(problem.contains("more than one statement"), "\(problem)")
        #expect(try #require(error).description.contains("view item_titles"))
        #expect(fileBytes(path) == before, "the store is byte-identical")
        #expect(try Self.strings(path, "SELECT body FROM note ORDER BY id") == ["n1", "n2"])
        #expect(try Self.onlyStoreFiles(folder), "\((try? Self.listing(folder)) ?? [])")
    }

    /// A trigger whose stored SQL carries an ATTACH after its END: refused the same way.
    @Test func aTriggerRowWithATrailingAttachIsRefusedBeforeTheRebuild() throws {
        let trigger = "CREATE TRIGGER item_audit AFTER UPDATE ON item BEGIN UPDATE note SET body = body WHERE id = new.id; END"
        let (path, folder) = try storeAtFirstVersion(Self.rebuildVersions, rows: Self.rows + "; " + trigger)
        defer { folder.remove() }
        let evil = folder.path("evil.db")
        try Self.plant(
            path,
            "UPDATE sqlite_master SET sql = sql || \(Self.quoted("; ATTACH DATABASE \(Self.quoted(evil)) AS x; CREATE TABLE x.owned(a)")) WHERE name = 'item_audit'"
        )
        #expect(try Self.strings(path, "PRAGMA integrity_check") == ["ok"])
        let before = try #require(fileBytes(path))
        let error = #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: Self.rebuildVersions).database.close() }
        guard case .appObjectUnsafe(_, _, let kind, let name, _, _)? = error else {
            Issue.record("expected .appObjectUnsafe, got \(String(describing: error))")
            return
        }
        #expect(kind == "trigger" && name == "item_audit")
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: evil))
        #expect(try Self.onlyStoreFiles(folder), "\((try? Self.listing(folder)) ?? [])")
    }

    /// The same objects, untampered, are kept by the rebuild (each recreated as the one statement it is).
    @Test func untamperedObjectsAreKeptByTheRebuild() throws {
        let trigger = "CREATE TRIGGER item_audit AFTER UPDATE ON item BEGIN UPDATE note SET body = body || '!' WHERE id = new.id; END"
        let (path, folder) = try storeAtFirstVersion(
            Self.rebuildVersions,
            rows: Self.rows + "; CREATE VIEW item_titles AS SELECT title FROM item; " + trigger + "; CREATE INDEX item_score ON item(score)"
        )
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: Self.rebuildVersions).database.close()
        #expect(
            try Self.strings(path, "SELECT name FROM sqlite_master WHERE name IN ('item_titles', 'item_audit', 'item_score') ORDER BY name")
                == ["item_audit", "item_score", "item_titles"])
        try withDatabase(path) { db in try db.execute(sql: "UPDATE item SET title = 'c' WHERE id = 1") }
        #expect(try Self.strings(path, "SELECT body FROM note ORDER BY id") == ["n1!", "n2"], "the store's own trigger fires")
        #expect(try Self.strings(path, "SELECT title FROM item_titles ORDER BY 1") == ["b", "c"])
    }

    /// What the stored SQL of a view, trigger or index must be to be recreated: one `CREATE` of its kind
    /// and name.
    @Test func theStoredSQLOfAnObjectIsOneCreateOfItsKindAndName() {
        func problem(_ kind: AppObject.Kind, _ name: String, _ sql: String) -> String? {
            AppObjectStatement.problem(kind: kind, name: name, sql: sql)
        }
        #expect(problem(.view, "v", "CREATE VIEW v AS SELECT 1") == nil)
        #expect(problem(.view, "My View", #"CREATE VIEW "My View" AS SELECT 1"#) == nil)
        #expect(problem(.view, "v", "CREATE TEMP VIEW IF NOT EXISTS [v] AS SELECT 1") == nil)
        #expect(problem(.index, "i", "CREATE UNIQUE INDEX i ON t(a)") == nil)
        #expect(problem(.trigger, "g", "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT CASE WHEN 1 THEN 2 END; END") == nil)
        #expect(problem(.view, "v", "CREATE VIEW w AS SELECT 1")?.contains("creates w") == true)
        #expect(problem(.view, "v", "CREATE TABLE v (a)")?.contains("not CREATE VIEW") == true)
        #expect(problem(.index, "i", "DROP TABLE t") != nil)
        #expect(problem(.trigger, "g", "CREATE VIEW g AS SELECT 1") != nil)
    }

    // MARK: The connection while lucidgen holds it

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String] = []
        func append(_ value: String) { lock.withLock { values.append(value) } }
        var all: [String] { lock.withLock { values } }
    }

    /// A stage's code runs on the connection lucidgen holds: ATTACH and extension loading fail there; on
    /// the connection handed back to the app, ATTACH works again (the limit restored).
    @Test func attachingFromAStageFailsWhileLucidgenHoldsTheConnection() throws {
        for appConnection in [false, true] {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let path = try Self.deferredStore(folder)
            let evil = folder.path("evil.db")
            let seen = Seen()
            var options = StoreOptions()
            @Sendable func attempt(_ db: Database, _ label: String) {
                do {
                    try db.execute(sql: "ATTACH DATABASE \(Self.quoted(evil)) AS x")
                    seen.append("\(label): attached")
                } catch {
                    seen.append("\(label): \((error as? DatabaseError)?.message ?? "\(error)")")
                }
                do {
                    try db.execute(sql: "SELECT load_extension('x')")
                    seen.append("\(label): loaded")
                } catch {
                    seen.append("\(label): no extension")
                }
            }
            options.stages = [
                MigrationStage(
                    from: SchemaVersion("2.0"), to: SchemaVersion("3.0"), label: "probe",
                    willMigrate: { db in attempt(db, "will") }, didMigrate: { db in attempt(db, "did") })
            ]
            let database: DatabaseQueue
            if appConnection {
                database = try DatabaseQueue(path: path)
                try LucidMigrator(versions: Self.cleanupVersions, options: options).migrate(database)
            } else {
                database = try LucidStore.open(atPath: path, versions: Self.cleanupVersions, options: options).database
            }
            #expect(
                seen.all == [
                    "will: too many attached databases - max 0", "will: no extension", "did: too many attached databases - max 0",
                    "did: no extension",
                ])
            #expect(!FileManager.default.fileExists(atPath: evil))
            #expect(try Self.onlyStoreFiles(folder), "\((try? Self.listing(folder)) ?? [])")
            // Back with the app: it may attach what it likes; extensions stay off.
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ':memory:' AS mine")
                try db.execute(sql: "DETACH DATABASE mine")
                #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT load_extension('x')") }
            }
            try database.close()
        }
    }

    /// lucidgen's SQL functions are `SQLITE_DIRECTONLY`: while registered (during a typed transform), a
    /// trigger or view in the store that calls them fails instead of running the app's code.
    @Test func aStoreTriggerCannotCallLucidgensFunctions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("samples.sqlite")
        try LucidStore.create(atPath: path, versions: SamplesSchema.versions, version: SchemaVersion("1.0")).close()
        let transform = try #require(SamplesSchema.stages(using: RecordTransformTests.ParseCodes())[0].transforms[0].recordTransform)
        try withDatabase(path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE spy (a);
                    CREATE TABLE seen (a);
                    CREATE TRIGGER spy_calls AFTER INSERT ON spy BEGIN INSERT INTO seen VALUES (lucid_value_0()); END;
                    CREATE VIEW spy_view AS SELECT lucid_value_0() AS a;
                    """)
            let connection = try #require(db.sqliteConnection)
            let runner = RecordTransformRunner(transform, sourceTable: "sample", targetTable: "sample")
            try runner.register(on: connection)
            defer { runner.unregister(from: connection) }
            let fromTrigger = #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO spy VALUES (1)") }
            #expect(fromTrigger?.message?.contains("unsafe use of lucid_value_0") == true, "\(String(describing: fromTrigger))")
            let fromView = #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT * FROM spy_view") }
            #expect(fromView?.message?.contains("unsafe use of lucid_value_0") == true, "\(String(describing: fromView))")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM seen") == 0)
        }
    }
}
