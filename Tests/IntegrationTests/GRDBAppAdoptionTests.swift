import Foundation
import GRDB
import LucidTestSupport
import Testing

/// Issue 37's proof, as a stranger does it: "Hearth", a real package shipping on GRDB. Its `DatabaseMigrator`
/// (camelCase columns, `autoIncrementedPrimaryKey`, `belongsTo(…, onDelete: .cascade)`, `.indexed()`, `unique()`,
/// `collate(.nocase)`, `defaults(sql: "CURRENT_TIMESTAMP")`, an FTS5 table synchronized with its table, a view)
/// made users' stores at two levels. `lucidgen describe` on one store of each level writes one history; the
/// app, compiled against the generated code, opens both through LucidRuntime with no SQL of its own (the
/// older one migrates); two releases follow, one rebuilding `item`; every row, every id (a deleted id is not
/// handed out again), the ON DELETE CASCADE, the FTS5 index (integrity-check, same answers), the view and
/// `grdb_migrations` survive; and `describe` on the migrated store gives descriptions whose newest version is
/// the store exactly. The guide AdoptingAnExistingStore walks the same steps.
@Suite(.serialized) struct GRDBAppAdoptionTests {
    static let manifest = """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "Hearth",
            dependencies: [.package(name: "lucidgen", path: "\(repositoryRoot.path)")],
            targets: [
                // The app as it shipped: GRDB's migrator made its users' stores.
                .executableTarget(name: "MakeStores", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
                // The app on lucidgen: the generated code, opened through LucidRuntime.
                .executableTarget(name: "App", dependencies: [.product(name: "LucidRuntime", package: "lucidgen")]),
            ],
            swiftLanguageModes: [.v6]
        )

        """

    static let makeStores = #"""
        import GRDB

        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "room") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
            }
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("room", onDelete: .cascade)
                t.column("title", .text).notNull().indexed()
                t.column("count", .integer).notNull().defaults(to: 0)
                t.column("createdAt", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
            }
            try db.create(virtualTable: "item_ft", using: FTS5()) { t in
                t.synchronize(withTable: "item")
                t.column("title")
            }
            try db.execute(sql: "CREATE VIEW itemTitles AS SELECT title FROM item")
        }
        migrator.registerMigration("v2") { db in
            try db.alter(table: "item") { t in t.add(column: "purchasedAt", .datetime) }
            try db.create(table: "tag") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull().collate(.nocase)
            }
        }
        let queue = try DatabaseQueue(path: CommandLine.arguments[2])
        try migrator.migrate(queue, upTo: CommandLine.arguments[1])
        try queue.write { db in
            try db.execute(sql: "INSERT INTO room (name) VALUES ('kitchen'), ('attic')")
            try db.execute(sql: "INSERT INTO item (roomId, title, count) VALUES (1, 'kettle', 2), (2, 'trunk', 1), (2, 'lamp', 1), (1, 'spoon', 12)")
            // The highest id goes: without AUTOINCREMENT, the next item would get 4 again.
            try db.execute(sql: "DELETE FROM item WHERE title = 'spoon'")
        }
        print("made \(CommandLine.arguments[2]) at \(CommandLine.arguments[1])")
        """#

    static let app = #"""
        import GRDB
        import LucidRuntime

        let opened = try LucidStore.open(atPath: CommandLine.arguments[1], registry: AppSchema.self)
        print("outcome: \(opened.outcome)")
        try opened.database.write { db in
            print("records: \(try Item.fetchCount(db)) items, \(try Room.fetchCount(db)) rooms")
            print("items: " + (try Row.fetchAll(db, sql: "SELECT id, title, roomId FROM item ORDER BY id")).map { "\($0[0] as Int):\($0[1] as String):\($0[2] as Int)" }.joined(separator: ","))
            try db.execute(sql: "INSERT INTO item_ft(item_ft) VALUES ('integrity-check')")
            print("search: " + (try Int.fetchAll(db, sql: "SELECT rowid FROM item_ft WHERE item_ft MATCH 'kettle OR lamp' ORDER BY rowid")).map(String.init).joined(separator: ","))
            try db.execute(sql: "INSERT INTO item (roomId, title) VALUES (1, 'chair')")
            print("new id: \(db.lastInsertedRowID)")
            print("search after: " + (try Int.fetchAll(db, sql: "SELECT rowid FROM item_ft WHERE item_ft MATCH 'chair'")).map(String.init).joined(separator: ","))
            print("view: " + (try String.fetchAll(db, sql: "SELECT title FROM itemTitles ORDER BY title")).joined(separator: ","))
            print("grdb: " + (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")).joined(separator: ","))
            try db.execute(sql: "DELETE FROM room WHERE id = 2")
            print("cascade: \(try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE roomId = 2")!)")
        }
        try opened.database.close()
        """#

    static func replace(_ text: String, _ pairs: [(String, String)]) -> String {
        pairs.reduce(text) { text, pair in
            #expect(text.contains(pair.0), "\(pair.0) in \(text)")
            return text.replacingOccurrences(of: pair.0, with: pair.1)
        }
    }

    @Test func aGRDBAppsStoresAreAdoptedMigratedAndDescribedAgain() throws {
        let base = repositoryRoot.appendingPathComponent(".build/e2e-hearth")
        let package = base.appendingPathComponent("Hearth")
        try? FileManager.default.removeItem(at: package)
        try CompositeConsumerTests.write(
            ["Package.swift": Self.manifest, "Sources/MakeStores/main.swift": Self.makeStores, "Sources/App/main.swift": Self.app],
            in: package)
        let scratch = base.appendingPathComponent("scratch").path
        func swiftRun(_ arguments: [String]) throws -> String {
            let result = try run(swiftExecutable, ["run", "--scratch-path", scratch] + arguments, in: package)
            #expect(result.status == 0, "swift run \(arguments):\n\((result.output + result.error).suffix(6000))")
            let warnings = (result.output + result.error).split(separator: "\n").filter {
                $0.contains("warning:") && $0.contains("/Hearth/")
            }
            #expect(warnings.isEmpty, "the app and its generated code compile without warnings: \(warnings.prefix(10))")
            return result.output
        }
        func lucidgen(_ arguments: [String], in folder: URL? = nil) throws -> String {
            let result = try run(lucidgenBinary, arguments, in: folder ?? package)
            #expect(result.status == 0, "lucidgen \(arguments):\n\(result.output)\(result.error)")
            #expect(!result.error.contains("warning:"), "lucidgen \(arguments):\n\(result.error)")
            return result.output
        }
        func copy(_ store: String, _ name: String) throws -> String {
            let to = package.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.copyItem(at: package.appendingPathComponent(store), to: to)
            return name
        }

        // Users' stores at the app's two migration levels.
        _ = try swiftRun(["MakeStores", "v1", "v1.sqlite"])
        _ = try swiftRun(["MakeStores", "v2", "v2.sqlite"])

        // One command describes both layouts as one history.
        let described = try lucidgen(["describe", "--database", "v1.sqlite=1.0", "--database", "v2.sqlite=1.1", "--module", "App"])
        #expect(
            described.contains("the app's: item_ft (a virtual table)") && described.contains("the app's: itemTitles (a view)"),
            "\(described)")
        let item = try String(contentsOf: package.appendingPathComponent(".entities/item.json"), encoding: .utf8)
        for line in [
            #"{ "name": "room_id", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#,
            #"{ "name": "created_at", "property_type": "date", "column_type": "DATETIME", "default_value": { "sql": "CURRENT_TIMESTAMP" } }"#,
            #"{ "name": "purchased_at", "property_type": "date", "column_type": "DATETIME", "nullable": true, "added_at_version": "1.1" }"#,
        ] { #expect(item.contains(line), "\(line) in\n\(item)") }
        _ = try lucidgen(["generate"])

        // The app opens both: the 1.1 store is adopted, the 1.0 store adopted and migrated to 1.1.
        let newer = try swiftRun(["App", try copy("v2.sqlite", "open-v2.sqlite")])
        #expect(newer.contains("outcome: adopted the store at 1.1"), "\(newer)")
        let older = try swiftRun(["App", try copy("v1.sqlite", "open-v1.sqlite")])
        #expect(older.contains("outcome: recognised the store from its tables, migrated from 1.0 to 1.1"), "\(older)")
        for output in [newer, older] {
            for line in [
                "records: 3 items, 2 rooms", "items: 1:kettle:1,2:trunk:2,3:lamp:2", "search: 1,3", "new id: 5", "search after: 5",
                "view: chair,kettle,lamp,trunk", "grdb: v1", "cascade: 0",
            ] where !(line == "grdb: v1" && output == newer) {
                #expect(output.contains(line + "\n"), "\(line) in\n\(output)")
            }
        }
        #expect(newer.contains("grdb: v1,v2\n"), "\(newer)")

        // Two releases: 1.2 makes an item's title optional (a rebuild of `item`, under its FTS5 triggers, the
        // view and AUTOINCREMENT), 1.3 adds a room's floor (ADD COLUMN).
        let config = package.appendingPathComponent(".lucid.yaml")
        try Self.replace(try String(contentsOf: config, encoding: .utf8), [(#"current_version: "1.1""#, #"current_version: "1.3""#)]).write(
            to: config, atomically: true, encoding: .utf8)
        try Self.replace(
            item,
            [
                (
                    #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#,
                    #""version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.2" }]"#
                ),
                (
                    #"{ "name": "title", "property_type": "string" }"#,
                    #"{ "name": "title", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.2", "nullable": false }] }"#
                ),
            ]
        ).write(to: package.appendingPathComponent(".entities/item.json"), atomically: true, encoding: .utf8)
        let roomFile = package.appendingPathComponent(".entities/room.json")
        let room = try String(contentsOf: roomFile, encoding: .utf8)
        try Self.replace(
            room,
            [
                (
                    #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#,
                    #""version_history": [{ "version": "1.0" }, { "version": "1.1" }, { "version": "1.3" }]"#
                ),
                (
                    #"{ "name": "name", "property_type": "string" }"#,
                    #"{ "name": "name", "property_type": "string" }, { "name": "floor", "property_type": "int", "default_value": 0, "added_at_version": "1.3" }"#
                ),
            ]
        ).write(to: roomFile, atomically: true, encoding: .utf8)
        _ = try lucidgen(["generate"])
        let plan = try lucidgen(["plan", "--database", "v1.sqlite"])
        #expect(plan.contains("rebuild"), "\(plan)")

        for store in ["v1.sqlite", "v2.sqlite"] {
            let output = try swiftRun(["App", try copy(store, "migrated-\(store)")])
            #expect(
                output.contains("outcome: recognised the store from its tables, migrated from 1.\(store == "v1.sqlite" ? 0 : 1) to 1.3"),
                "\(output)")
            for line in [
                "records: 3 items, 2 rooms", "items: 1:kettle:1,2:trunk:2,3:lamp:2", "search: 1,3", "new id: 5", "search after: 5",
                "view: chair,kettle,lamp,trunk", "cascade: 0",
            ] {
                #expect(output.contains(line + "\n"), "\(store): \(line) in\n\(output)")
            }
        }

        // The migrated store described again: its newest version is the store, exactly.
        let again = base.appendingPathComponent("Again")
        try? FileManager.default.removeItem(at: again)
        try FileManager.default.createDirectory(at: again, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: package.appendingPathComponent("migrated-v1.sqlite"), to: again.appendingPathComponent("store.sqlite"))
        #expect(try Self.stripLucidgenRecords(again.appendingPathComponent("store.sqlite").path) >= 2)
        _ = try lucidgen(["describe", "--database", "store.sqlite"], in: again)
        _ = try lucidgen(["generate"], in: again)
        let recognised = try lucidgen(["plan", "--database", "store.sqlite"], in: again)
        #expect(recognised.contains("store.sqlite: at version 1.0, the newest. Nothing to do."), "\(recognised)")
        let floor = try String(contentsOf: again.appendingPathComponent(".entities/room.json"), encoding: .utf8)
        #expect(floor.contains(#"{ "name": "floor", "property_type": "int", "default_value": 0 }"#), "\(floor)")
    }

    /// Drops lucidgen's own tables, so that the store is one of unknown origin again; returns how many.
    static func stripLucidgenRecords(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.write { db in
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lucid\\_%' ESCAPE '\\'")
            for name in names { try db.execute(sql: "DROP TABLE \(name)") }
            return names.count
        }
    }
}
