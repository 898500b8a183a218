import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// `lucidgen describe` (one layout): a store GRDB's `DatabaseMigrator` made the ordinary way is
/// described, generated and recognised as it is, with no hand edit; the app's FTS5 table, its triggers, a view
/// and `grdb_migrations` stay the app's.
@Suite struct DescribeCommandTests {
    /// "Hearth": rooms and items, as a GRDB app makes them.
    static func makeHearth(at path: String, double: Bool = false) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
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
                t.column("price", double ? .double : .real)
                t.column("notes", .text).defaults(to: "none")
                t.column("photo", .blob)
            }
            try db.create(virtualTable: "item_ft", using: FTS5()) { t in
                t.synchronize(withTable: "item")
                t.column("title")
            }
            try db.execute(sql: "CREATE VIEW item_titles AS SELECT title FROM item")
        }
        try migrator.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO room (name) VALUES ('kitchen'), ('attic')")
            try db.execute(sql: "INSERT INTO item (roomId, title, count) VALUES (1, 'kettle', 2), (2, 'trunk', 1), (NULL, 'lamp', 1)")
            try db.execute(sql: "DELETE FROM item WHERE id = 3")
        }
    }

    @Test func aStoreGRDBMadeIsDescribedGeneratedAndRecognised() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        let described = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite", "--module", "Hearth"], in: project.root)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        #expect(!described.error.contains("warning:"), "\(described.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "describe reads the store only")
        for line in [
            "wrote    .entities/item.json", "wrote    .entities/room.json", "wrote    .lucid.yaml",
            "the app's: grdb_migrations (GRDB's migrator's record)",
            "the app's: item_ft (a virtual table)", "the app's: item_titles (a view)", "described 2 tables of hearth.sqlite at 1.0",
        ] {
            #expect(described.output.contains(line), "\(line) in:\n\(described.output)")
        }
        let item = try project.read(".entities/item.json")
        // camelCase columns: the config states GRDB's convention, so no column needs a persisted_name and
        // GRDB's index names (`item_on_roomId`, `item_on_title`) are the defaults.
        #expect(try project.read(".lucid.yaml").contains("column_naming: camel_case\n"))
        #expect(
            item.contains(
                #"{ "name": "room_id", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ), "\(item)")
        #expect(item.contains(#""identifier": { "type": "int", "autoincrement": true }"#), "\(item)")
        #expect(item.contains(#""indexes": [\#n    { "properties": ["title"] }\#n  ]"#), "\(item)")
        #expect(item.contains(#"{ "name": "notes", "property_type": "string", "nullable": true, "default_value": "none" }"#), "\(item)")

        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let plan = try run(lucidgenBinary, ["plan", "--database", "hearth.sqlite"], in: project.root)
        #expect(plan.status == 0, "\(plan.output)\(plan.error)")

        // Opened through the runtime: adopted at 1.0, every row and id as it was, the app's objects kept.
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let opened = try LucidStore.open(atPath: store, versions: schemas)
        defer { try? opened.database.close() }
        #expect(opened.outcome.start == .version(SchemaVersion("1.0"), adopted: true))
        try opened.database.write { db in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM item ORDER BY id") == ["kettle", "trunk"])
            try db.execute(sql: "INSERT INTO item (title) VALUES ('chair')")
            #expect(db.lastInsertedRowID == 4, "AUTOINCREMENT kept: the deleted id 3 is not handed out again")
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM item_ft WHERE item_ft MATCH 'chair'") == 1,
                "the app's FTS5 triggers still run")
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") == ["v1"])
            try db.execute(sql: "DELETE FROM room WHERE id = 2")
            #expect(
                try String.fetchAll(db, sql: "SELECT title FROM item_titles ORDER BY title") == ["chair", "kettle"],
                "ON DELETE CASCADE, and the view")
        }

        // Under a config that keeps names as they are, each camelCase column is a persisted_name, each GRDB index named.
        let asNamed = try TestProject(config: TestProject.defaultConfig)
        defer { asNamed.remove() }
        try Self.makeHearth(at: asNamed.root.appendingPathComponent("hearth.sqlite").path)
        #expect(try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: asNamed.root).status == 0)
        let named = try asNamed.read(".entities/item.json")
        #expect(
            named.contains(
                #"{ "name": "room_id", "persisted_name": "roomId", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ), "\(named)")
        #expect(
            named.contains(#"{ "properties": ["room_id"], "name": "item_on_roomId" }"#)
                && named.contains(#"{ "properties": ["title"], "name": "item_on_title" }"#), "\(named)")
        #expect(try run(lucidgenBinary, ["generate"], in: asNamed.root).status == 0)
        #expect(try run(lucidgenBinary, ["plan", "--database", "hearth.sqlite"], in: asNamed.root).status == 0)
    }

    /// A GRDB app's store described at 1.0, then drifted in a development build (a column the app added by
    /// hand and never filled): `migrate` refuses it as matching no version, unchanged; `migrate --accept-drift`
    /// brings it to 1.0 (the column dropped, said), adopts it, every row kept.
    @Test func aDriftedGRDBStoreIsAdoptedWithAcceptDrift() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store)
        #expect(try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite", "--module", "Hearth"], in: project.root).status == 0)
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try withDatabase(store) { db in try db.execute(sql: "ALTER TABLE room ADD COLUMN scratch TEXT") }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        let refused = try run(lucidgenBinary, ["migrate", "--database", "hearth.sqlite"], in: project.root)
        #expect(
            refused.status != 0 && refused.error.contains("matches no known version: table room: expected no column scratch"),
            "\(refused.output)\(refused.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        // plan, status and migrate say what --accept-drift would do; plan --accept-drift shows it, changing nothing.
        let note =
            "note: every difference is inferable: with --accept-drift (StoreOptions.acceptsInferableDrift) migrate brings it to 1.0 first (dropped column room.scratch, which 1.0 does not have (it held no value)); `lucidgen plan --accept-drift` shows the steps"
        #expect(refused.error.contains(note), "\(refused.error)")
        for command in ["plan", "status"] {
            let said = try run(lucidgenBinary, [command, "--database", "hearth.sqlite"], in: project.root)
            #expect(said.status == 3 && said.error.contains(note), "\(command): \(said.output)\(said.error)")
        }
        // status --format json prints the refusal and the drift's assessment as JSON too (exit code 3).
        func statusJSON() throws -> (status: Int32, object: [String: Any]) {
            let said = try run(lucidgenBinary, ["status", "--database", "hearth.sqlite", "--format", "json"], in: project.root)
            let object = try JSONSerialization.jsonObject(with: Data(said.output.utf8)) as? [String: Any] ?? [:]
            return (said.status, object)
        }
        let json = try statusJSON()
        let refusal = json.object["refusal"] as? [String: Any]
        let drift = json.object["drift"] as? [String: Any]
        #expect(json.status == 3 && json.object["path"] as? String == "hearth.sqlite", "\(json.object)")
        #expect((refusal?["problem"] as? String)?.contains("matches no known version") == true, "\(json.object)")
        #expect(drift?["inferable"] as? Bool == true && drift?["nearestVersion"] as? String == "1.0", "\(json.object)")
        #expect(drift?["repairs"] as? [String] == ["dropped column room.scratch, which 1.0 does not have (it held no value)"])
        #expect(drift?["stepsAfter"] as? [String] == [] && drift?["note"] as? String == String(note.dropFirst("note: ".count)))
        let preview = try run(lucidgenBinary, ["plan", "--database", "hearth.sqlite", "--accept-drift"], in: project.root)
        #expect(preview.status == 0, "\(preview.output)\(preview.error)")
        #expect(
            preview.output.hasPrefix(
                """
                hearth.sqlite: drifted from version 1.0 (no lucidgen record; its tables are nearest 1.0's); --accept-drift brings it to 1.0 first:
                  - dropped column room.scratch, which 1.0 does not have (it held no value)
                Then at version 1.0, the newest.

                """), "\(preview.output)")
        let markdown = try run(
            lucidgenBinary, ["plan", "--database", "hearth.sqlite", "--accept-drift", "--format", "markdown"], in: project.root)
        #expect(
            markdown.status == 0
                && markdown.output.contains(
                    "### Drift repaired first (`--accept-drift`)\n\n- dropped column room.scratch, which 1.0 does not have (it held no value)\n"
                ),
            "\(markdown.output)\(markdown.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        // A value in the column is not inferable: refused with the count, by --accept-drift too, unchanged.
        try withDatabase(store) { db in try db.execute(sql: "UPDATE room SET scratch = 'x' WHERE id = 1") }
        let held = try Data(contentsOf: URL(fileURLWithPath: store))
        let holding = try run(lucidgenBinary, ["plan", "--database", "hearth.sqlite"], in: project.root)
        #expect(
            holding.status == 3
                && holding.error.contains(
                    "note: --accept-drift would refuse it too, not inferable: column room.scratch holds 1 value, which 1.0 has no column for"
                ),
            "\(holding.error)")
        let notInferable = try statusJSON().object["drift"] as? [String: Any]
        #expect(notInferable?["inferable"] as? Bool == false, "\(String(describing: notInferable))")
        #expect(
            notInferable?["notInferable"] as? [String] == [
                "column room.scratch holds 1 value, which 1.0 has no column for; table room: expected no column scratch, found scratch TEXT"
            ])
        let refusedAgain = try run(lucidgenBinary, ["migrate", "--database", "hearth.sqlite", "--accept-drift"], in: project.root)
        #expect(refusedAgain.status == 3 && refusedAgain.error.contains("holds 1 value"), "\(refusedAgain.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == held)
        try withDatabase(store) { db in try db.execute(sql: "UPDATE room SET scratch = NULL") }

        let taken = try run(lucidgenBinary, ["migrate", "--database", "hearth.sqlite", "--accept-drift"], in: project.root)
        #expect(taken.status == 0, "\(taken.output)\(taken.error)")
        #expect(
            taken.output.contains(
                "hearth.sqlite: brought the store's tables to 1.0, the nearest version (dropped column room.scratch, which 1.0 does not have (it held no value)), and adopted it."
            ), "\(taken.output)")
        let status = try run(lucidgenBinary, ["status", "--database", "hearth.sqlite"], in: project.root)
        #expect(status.output.contains("hearth.sqlite: version 1.0"), "\(status.output)")
        try withDatabase(store) { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM item ORDER BY id") == ["kettle", "trunk"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM room ORDER BY id") == ["kitchen", "attic"])
        }
        let fleet = try run(lucidgenBinary, ["migrate", "--stores", ".", "--accept-drift"], in: project.root)
        #expect(fleet.status != 0 && fleet.error.contains("--accept-drift takes one store's drift"), "\(fleet.error)")
    }

    /// GRDB's declared types (`DOUBLE`, `BOOLEAN`, `DATETIME`) are described as `column_type`, created as the store
    /// has them, recognised, and kept by a rebuild.
    @Test func declaredTypesAreDescribedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store, double: true)
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.alter(table: "room") { t in
                t.add(column: "heated", .boolean).notNull().defaults(to: false)
                t.add(column: "paintedAt", .datetime)
            }
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let room = try project.read(".entities/room.json")
        #expect(
            room.contains(#"{ "name": "heated", "property_type": "bool", "column_type": "BOOLEAN", "default_value": false }"#), "\(room)")
        #expect(
            room.contains(#"{ "name": "painted_at", "property_type": "date", "column_type": "DATETIME", "nullable": true }"#), "\(room)")
        #expect(
            try project.read(".entities/item.json").contains(
                #"{ "name": "price", "property_type": "double", "column_type": "DOUBLE", "nullable": true }"#))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(schemas[0].table(named: "room")?.createTableStatement().contains(#""heated" BOOLEAN NOT NULL DEFAULT 0"#) == true)
        let status = try LucidStore.inspect(atPath: store, versions: schemas)
        #expect(status.adopted && status.version == SchemaVersion("1.0"), "\(status.start)")

        // A later version makes the room's name optional: a rebuild of `room`, which keeps the declared types.
        let next = try releaseNext(
            project, "room", room, replacing: #"{ "name": "name", "property_type": "string" }"#,
            with: #"{ "name": "name", "property_type": "string", "nullable": true }"#)
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        let sql = try opened.database.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'room'") } ?? ""
        #expect(sql.contains(#""heated" BOOLEAN"#) && sql.contains(#""paintedAt" DATETIME"#), "\(sql)")
    }

    /// SQL defaults that are expressions (GRDB's `defaults(sql:)`): described as `{ "sql": … }`, created as the store
    /// has them, recognised; a later column with one is added by a rebuild (SQLite's ADD COLUMN refuses it) and filled.
    @Test func expressionDefaultsAreDescribedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store)
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("addedAt", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
                t.column("token", .text).notNull().defaults(sql: "(lower(hex(randomblob(16))))")
            }
            try db.execute(sql: "INSERT INTO note DEFAULT VALUES")
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let note = try project.read(".entities/note.json")
        #expect(
            note.contains(
                #"{ "name": "added_at", "property_type": "date", "column_type": "DATETIME", "default_value": { "sql": "CURRENT_TIMESTAMP" } }"#
            ), "\(note)")
        #expect(
            note.contains(#"{ "name": "token", "property_type": "string", "default_value": { "sql": "(lower(hex(randomblob(16))))" } }"#),
            "\(note)")
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let record = try project.read("Sources/App/Generated/Entities/Note.swift")
        #expect(record.contains("addedAt: Foundation.Date = Foundation.Date()"), "CURRENT_TIMESTAMP on a date is Date() in Swift")
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        // 1.1 adds a required column whose default is an expression: a rebuild (ADD COLUMN would be refused).
        let room = try project.read(".entities/room.json")
        let versions = try releaseNext(
            project, "room", room, replacing: #"{ "name": "name", "property_type": "string" }"#,
            with:
                #"{ "name": "name", "property_type": "string" }, { "name": "seen", "property_type": "string", "default_value": { "sql": "(date('now'))" }, "added_at_version": "1.1" }"#
        )
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(
            steps.flatMap(\.operations).contains { if case .rebuildTable(let rebuild) = $0 { rebuild.table.name == "room" } else { false } }
        )
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        try opened.database.write { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM room WHERE seen = date('now')") == 2)
            try db.execute(sql: "INSERT INTO note DEFAULT VALUES")
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(DISTINCT token) FROM note WHERE length(token) = 32 AND addedAt IS NOT NULL") == 2)
        }
    }

    /// Collations (GRDB's `collate(.nocase)` and its own `localizedCaseInsensitiveCompare`): described as
    /// `collation`, created as the store has them, recognised, and kept by a rebuild with the index over them.
    @Test func collationsAreDescribedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store)
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "tag") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull().collate(.nocase).unique()
                t.column("shown", .text).collate(.localizedCaseInsensitiveCompare)
            }
            try db.execute(sql: "INSERT INTO tag (label, shown) VALUES ('Attic', 'b'), ('kitchen', 'A')")
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let tag = try project.read(".entities/tag.json")
        #expect(tag.contains(#"{ "name": "label", "property_type": "string", "collation": "NOCASE" }"#), "\(tag)")
        #expect(
            tag.contains(
                #"{ "name": "shown", "property_type": "string", "collation": "swiftLocalizedCaseInsensitiveCompare", "nullable": true }"#),
            "\(tag)")
        // A COLLATE inside a nested expression, a string or a comment is not the column's.
        #expect(
            StoreSchemaReader.columnCollations(
                #"""
                CREATE TABLE t ("a b" TEXT COLLATE rtrim, c TEXT CHECK (c <> 'x' COLLATE NOCASE), [d] TEXT DEFAULT 'COLLATE x' -- COLLATE y
                , e COLLATE binary, "F" TEXT COLLATE "swiftLocalizedCompare", CONSTRAINT k UNIQUE (c COLLATE NOCASE))
                """#) == ["a b": "RTRIM", "f": "swiftLocalizedCompare"])
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        // A description without the collation: the store is not recognised, and the message names it.
        try project.write(".entities/tag.json", tag.replacingOccurrences(of: #", "collation": "NOCASE""#, with: ""))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let plain = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(throws: (any Error).self) { try LucidStore.inspect(atPath: store, versions: plain) }
        let plan = try run(lucidgenBinary, ["plan", "--database", "hearth.sqlite"], in: project.root)
        #expect(
            plan.error.contains("expected column label TEXT NOT NULL, found label TEXT NOT NULL COLLATE NOCASE"),
            "\(plan.output)\(plan.error)")

        try project.write(".entities/tag.json", tag)
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)

        // 1.1 makes `label` optional: a rebuild of `tag`, which keeps both collations and the unique index.
        let versions = try releaseNext(
            project, "tag", tag, replacing: #"{ "name": "label", "property_type": "string", "collation": "NOCASE" }"#,
            with:
                #"{ "name": "label", "property_type": "string", "collation": "NOCASE", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'tag'") ?? ""
            #expect(
                sql.contains(#""label" TEXT COLLATE NOCASE"#)
                    && sql.contains(#""shown" TEXT COLLATE swiftLocalizedCaseInsensitiveCompare"#), "\(sql)")
            #expect(try String.fetchAll(db, sql: "SELECT label FROM tag WHERE label = 'ATTIC'") == ["Attic"])
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO tag (label) VALUES ('KITCHEN')") }
        }
    }

    /// A UNIQUE constraint (GRDB's `unique()`, SQLite's `sqlite_autoindex_…`) is a unique `indexes` item: without
    /// it the store was recognised and the first rebuild dropped the uniqueness. A later version that removes it
    /// rebuilds the table (no DROP INDEX removes a constraint); one that keeps it makes it a named index.
    @Test func aUniqueConstraintIsDescribedKeptAndRemovable() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("tags.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "tag") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull().unique()
                t.column("a", .integer)
                t.column("b", .integer)
                t.uniqueKey(["a", "b"])
            }
            try db.execute(
                sql: "INSERT INTO tag (label, a, b) VALUES ('x', 1, 1), ('y', 1, 2), ('z', 1, 3); DELETE FROM tag WHERE label = 'z'")
        }
        try queue.close()
        #expect(try run(lucidgenBinary, ["describe", "--database", "tags.sqlite"], in: project.root).status == 0)
        let tag = try project.read(".entities/tag.json")
        #expect(
            tag.contains(#"{ "properties": ["label"], "unique": true }"#) && tag.contains(#"{ "properties": ["a", "b"], "unique": true }"#),
            "\(tag)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        // 1.1: `label` is no longer unique.
        let versions = try releaseNext(project, "tag", tag, replacing: #"{ "properties": ["label"], "unique": true },"#, with: "")
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        try opened.database.write { db in
            try db.execute(sql: "INSERT INTO tag (label, a, b) VALUES ('x', 2, 1)")
            #expect(db.lastInsertedRowID == 4, "AUTOINCREMENT kept by the rebuild")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO tag (label, a, b) VALUES ('w', 1, 2)") }
            #expect(
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tag' ORDER BY name") == [
                    "tag_a_b_unique"
                ])
        }
    }

    /// `on_update` (GRDB's `belongsTo(…, onUpdate:)`): described, created, compared, kept by a rebuild, and it acts.
    @Test func onUpdateIsDescribedComparedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("shelf.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "shelf") { t in
                t.primaryKey("code", .text)
            }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("shelf", onDelete: .setNull, onUpdate: .cascade)
                t.column("title", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO shelf VALUES ('a'); INSERT INTO book (shelfCode, title) VALUES ('a', 'Emma')")
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "shelf.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let book = try project.read(".entities/book.json")
        #expect(book.contains(#""nullable": true, "on_update": "cascade" }"#), "\(book)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        try project.write(".entities/book.json", book.replacingOccurrences(of: #", "on_update": "cascade""#, with: ""))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let plan = try run(lucidgenBinary, ["plan", "--database", "shelf.sqlite"], in: project.root)
        #expect(plan.error.contains("found one"), "\(plan.error)")
        #expect(plan.error.contains("ON DELETE SET NULL ON UPDATE CASCADE"), "\(plan.error)")
        try project.write(".entities/book.json", book)
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)

        // 1.1 makes the title optional: a rebuild of `book`, which keeps ON UPDATE CASCADE.
        let versions = try releaseNext(
            project, "book", book, replacing: #"{ "name": "title", "property_type": "string" }"#,
            with:
                #"{ "name": "title", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            try db.execute(sql: "UPDATE shelf SET code = 'b'")
            #expect(try String.fetchAll(db, sql: "SELECT shelfCode FROM book") == ["b"])
        }
    }

    /// A table keyed by GRDB's `UUID` (a BLOB of 16 bytes), with a table pointing at it: `--type device.id=uuid`
    /// makes the identifier a uuid, the store is adopted, a rebuild keeps every key, and records fetch by UUID.
    @Test func aUUIDKeyedTableIsDescribedAndKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("devices.sqlite").path
        let phone = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "device") { t in
                t.primaryKey("id", .blob)
                t.column("label", .text).notNull()
            }
            try db.create(table: "session") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("device", onDelete: .cascade).notNull()
            }
            try db.execute(sql: "INSERT INTO device (id, label) VALUES (?, 'phone'), (?, 'tablet')", arguments: [phone, UUID()])
            try db.execute(sql: "INSERT INTO session (deviceId) VALUES (?)", arguments: [phone])
        }
        try queue.close()
        let refused = try run(lucidgenBinary, ["describe", "--database", "devices.sqlite"], in: project.root)
        #expect(
            refused.error.contains(
                "warning: table device: its primary key id is BLOB; lucidgen's identifiers are INTEGER, TEXT, or a BLOB of a UUID's 16 bytes (--type device.id=uuid)"
            ), "\(refused.error)")
        let described = try run(
            lucidgenBinary,
            ["describe", "--database", "devices.sqlite", "--type", "device.id=uuid", "--type", "session.deviceId=uuid", "--force"],
            in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        #expect(try project.read(".entities/device.json").contains(#""identifier": { "type": "uuid" }"#))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        #expect(try project.read("Sources/App/Generated/Entities/Device.swift").contains("public var id: Foundation.UUID"))
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        // 1.1 makes the label optional: a rebuild of `device`, every key kept byte for byte.
        let device = try project.read(".entities/device.json")
        let versions = try releaseNext(
            project, "device", device, replacing: #"{ "name": "label", "property_type": "string" }"#,
            with:
                #"{ "name": "label", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(try String.fetchOne(db, sql: "SELECT label FROM device WHERE id = ?", arguments: [phone]) == "phone")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM device WHERE typeof(id) = 'blob' AND length(id) = 16") == 2)
            try db.execute(sql: "DELETE FROM device WHERE id = ?", arguments: [phone])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM session") == 0, "ON DELETE CASCADE through a uuid key")
        }
    }

    /// A collation whose name is no identifier (an app registered `my coll`, or one with a quote) is a warning,
    /// never written into a description the loader would refuse; the store stays unrecognised, unchanged.
    @Test func aCollationNamedOtherwiseIsAWarning() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("odd.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            for name in ["my coll", #"x"y"#] {
                db.add(collation: DatabaseCollation(name) { $0 < $1 ? .orderedAscending : $0 == $1 ? .orderedSame : .orderedDescending })
            }
        }
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: #"CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT COLLATE "my coll", b TEXT COLLATE "x""y", c TEXT COLLATE nocase)"#)
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let described = try run(lucidgenBinary, ["describe", "--database", "odd.sqlite"], in: project.root)
        #expect(
            described.error.contains("warning: t.a: its collation my coll is not an identifier")
                && described.error.contains(#"warning: t.b: its collation x"y is not an identifier"#), "\(described.error)")
        let json = try project.read(".entities/t.json")
        #expect(
            json.contains(#"{ "name": "a", "property_type": "string", "nullable": true }"#) && json.contains(#""collation": "NOCASE""#),
            "\(json)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let plan = try run(lucidgenBinary, ["plan", "--database", "odd.sqlite"], in: project.root)
        #expect(plan.status != 0 && plan.error.contains("found a TEXT COLLATE my coll"), "\(plan.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// A partial unique index (`… WHERE deleted = 0`, soft deletion) was described as a full unique index, so the
    /// first rebuild made it enforce uniqueness on deleted rows too. Partial and expression indexes stay the app's:
    /// listed, kept by every rebuild as they were.
    @Test func partialAndExpressionIndexesStayTheApps() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("soft.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
                    CREATE UNIQUE INDEX t_live_a ON t(a) WHERE deleted = 0;
                    CREATE INDEX t_lower ON t(lower(a));
                    INSERT INTO t (a, deleted) VALUES ('x', 1), ('x', 0);
                    """)
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "soft.sqlite"], in: project.root)
        #expect(
            described.output.contains("the app's: t_live_a (a partial index (WHERE …), which a description cannot say)")
                && described.output.contains("the app's: t_lower (an index on an expression, which a description cannot say)"),
            "\(described.output)")
        let t = try project.read(".entities/t.json")
        #expect(!t.contains("indexes"), "\(t)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let versions = try releaseNext(
            project, "t", t, replacing: #"{ "name": "a", "property_type": "string" }"#,
            with:
                #"{ "name": "a", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "nullable": false }] }"#
        )
        let opened = try LucidStore.open(atPath: store, versions: versions)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.count == 1)
        try opened.database.write { db in
            #expect(
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 't_live_a'")
                    == "CREATE UNIQUE INDEX t_live_a ON t(a) WHERE deleted = 0")
            try db.execute(sql: "INSERT INTO t (a, deleted) VALUES ('x', 1)")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t (a, deleted) VALUES ('x', 0)") }
        }
    }

    /// `id INT PRIMARY KEY` is not the rowid (only `INTEGER PRIMARY KEY` is) and may hold NULL: described, it would
    /// never be recognised, so describe says why instead of leaving it to `plan`'s column difference.
    @Test func anIntKeyThatIsNotTheRowidIsAWarning() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let queue = try DatabaseQueue(path: project.root.appendingPathComponent("keys.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INT PRIMARY KEY, a TEXT); CREATE TABLE u (id INTEGER PRIMARY KEY, b TEXT)")
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "keys.sqlite"], in: project.root)
        #expect(
            described.error.contains(
                "warning: table t: its primary key id is declared INT, so it is not the table's rowid (only INTEGER PRIMARY KEY is) and may hold NULL"
            ), "\(described.error)")
        #expect(!described.error.contains("table u:"), "\(described.error)")
    }

    /// An expression default outside the accepted grammar is refused where it is written: nothing in a
    /// description runs as code.
    @Test func hostileExpressionDefaultsAreRefused() throws {
        for (sql, problem) in [
            (
                "1); DROP TABLE item; --",
                "an expression default is CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME or an expression in parentheses"
            ),
            ("(1); DROP TABLE item; (1)", "the whole expression must be in one pair of parentheses"),
            ("(SELECT max(id) FROM item)", "'SELECT' is not accepted"),
            ("(load_extension('evil'))", "'load_extension' is not accepted"),
            ("(\\\"title\\\")", "'\"' is not accepted in an expression default"),
            ("(abs(1) -- x)", "comments are not accepted"),
            ("(datetime('now')", "'(' without its ')'"),
            ("(lower 'a')", "a function name must be followed by '('"),
        ] {
            let project = try TestProject(files: [
                ".entities/item.json": """
                { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
                  "properties": [{ "name": "added", "property_type": "string", "default_value": { "sql": "\(sql)" } }] }
                """
            ])
            defer { project.remove() }
            let errors = try project.errors().map(\.description)
            #expect(
                errors.contains { $0.contains(".entities/item.json:2:") && $0.contains("default_value's sql") && $0.contains(problem) },
                "\(sql): \(errors)")
        }
    }

    @Test func whatItCannotDescribeIsAWarningAndAnExistingDescriptionIsKept() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("hearth.sqlite").path
        try Self.makeHearth(at: store)
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, added TEXT DEFAULT (app_stamp()))") }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: project.root)
        #expect(described.status == 0)
        #expect(
            described.error.contains(
                "warning: note.added: its default app_stamp() is an expression lucidgen does not accept ('app_stamp' is not accepted: an expression default may name CURRENT_TIMESTAMP"
            ), "\(described.error)")
        #expect(described.output.contains("1 warning: the store is not recognised until they are resolved"), "\(described.output)")

        try project.write(".entities/room.json", "{}")
        let again = try run(lucidgenBinary, ["describe", "--database", "hearth.sqlite"], in: project.root)
        #expect(again.status != 0)
        #expect(
            again.error.contains(".entities/room.json: error: a description exists already (pass --force to replace it)"), "\(again.error)")
        #expect(try project.read(".entities/room.json") == "{}", "nothing was written")
    }

    /// Two of the app's GRDB migrations, two stores (one per layout): described as one history, generated, and
    /// each store adopted at its version; the older migrates to the newer, whose tables it then has exactly.
    @Test func twoLayoutsAreOneHistoryAndBothStoresAreAdopted() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "room") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("room", onDelete: .cascade)
                t.column("title", .text).notNull().indexed()
                t.column("note", .text)
            }
        }
        migrator.registerMigration("v2") { db in
            try db.alter(table: "item") { t in
                t.rename(column: "note", to: "remark")
                t.add(column: "count", .integer).notNull().defaults(to: 1)
            }
            try db.create(table: "tag") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull()
            }
        }
        let old = project.root.appendingPathComponent("v1.sqlite").path, new = project.root.appendingPathComponent("v2.sqlite").path
        for (path, target) in [(old, "v1"), (new, "v2")] {
            let queue = try DatabaseQueue(path: path)
            try migrator.migrate(queue, upTo: target)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO room (name) VALUES ('kitchen')")
                try db.execute(sql: "INSERT INTO item (roomId, title) VALUES (1, 'kettle')")
            }
            try queue.close()
        }
        let described = try run(
            lucidgenBinary,
            [
                "describe", "--database", "v1.sqlite=1.0", "--database", "v2.sqlite=1.1", "--rename", "item.note=remark@1.1", "--module",
                "Hearth",
            ], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let item = try project.read(".entities/item.json")
        #expect(item.contains(#""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#), "\(item)")
        #expect(
            item.contains(
                #"{ "name": "remark", "property_type": "string", "nullable": true, "type_history": [{ "until_version": "1.1", "persisted_name": "note" }] }"#
            ), "\(item)")
        #expect(item.contains(#"{ "name": "count", "property_type": "int", "default_value": 1, "added_at_version": "1.1" }"#), "\(item)")
        #expect(try project.read(".entities/tag.json").contains(#""version_history": [{ "version": "1.1" }]"#))
        #expect(try project.read(".lucid.yaml").contains(#"current_version: "1.1""#))

        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        for (path, version) in [(new, "1.1"), (old, "1.0")] {
            let status = try LucidStore.inspect(atPath: path, versions: schemas)
            #expect(
                status.version == (try? SchemaVersion(parsing: version)) && status.adopted,
                "\(path): \(status.start) \(String(describing: status.version))")
        }
        let opened = try LucidStore.open(atPath: old, versions: schemas)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 1.1 (inferred)"])
        let migrated = try opened.database.read { db in try ["room", "item", "tag"].map { try StoreSchemaReader.table(named: $0, db) } }
        let reference = try DatabaseQueue(path: new)
        defer { try? reference.close() }
        let made = try reference.read { db in try ["room", "item", "tag"].map { try StoreSchemaReader.table(named: $0, db) } }
        for (a, b) in zip(migrated, made) {
            #expect(
                Set(a.columns.map(\.name)) == Set(b.columns.map(\.name)) && a.foreignKeys == b.foreignKeys && a.indexes == b.indexes
                    && a.autoincrement == b.autoincrement, "\(a.name): \(a) vs \(b)")
        }
        #expect(try opened.database.read { db in try String.fetchOne(db, sql: "SELECT remark IS NULL AND count = 1 FROM item") } == "1")
    }

    /// A column renamed between layouts from camelCase to snake_case (`roomId` → `room_id`, as an app moving to
    /// GRDB's naming does): without --rename they are two properties, the one the newest layout has keeps the
    /// name, and describe says which --rename makes them one (it wrote nothing before: generate refused the
    /// description, naming a file in describe's deleted temporary folder).
    @Test func aCamelCaseColumnRenamedToSnakeCaseBetweenLayoutsIsTwoPropertiesAndTheRenameIsSuggested() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        for (file, column) in [("v1.sqlite", "roomId"), ("v2.sqlite", "room_id")] {
            let queue = try DatabaseQueue(path: project.root.appendingPathComponent(file).path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT, \(column) INTEGER)")
                try db.execute(sql: "INSERT INTO item (title, \(column)) VALUES ('kettle', 7)")
            }
            try queue.close()
        }
        let described = try run(
            lucidgenBinary, ["describe", "--database", "v1.sqlite=1.0", "--database", "v2.sqlite=1.1"], in: project.root)
        #expect(described.status == 0, "\(described.output)\(described.error)")
        #expect(
            described.error.contains(
                "warning: table item: columns roomId (until 1.0) and room_id (from 1.1) both make the property name room_id: roomId is described as room_id_2 (persisted_name roomId); if room_id is roomId renamed, describe again with --rename item.roomId=room_id@1.1"
            ), "\(described.error)")
        #expect(!described.error.contains("lucidgen-describe-"), "\(described.error)")
        let item = try project.read(".entities/item.json")
        #expect(
            item.contains(
                #"{ "name": "room_id_2", "persisted_name": "roomId", "property_type": "int", "nullable": true, "removed_at_version": "1.1" }"#
            ), "\(item)")
        #expect(item.contains(#"{ "name": "room_id", "property_type": "int", "nullable": true, "added_at_version": "1.1" }"#), "\(item)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)

        // The suggested rename makes them one property, whose value the old store keeps through the migration.
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".entities"))
        try FileManager.default.removeItem(atPath: project.configPath)
        let renamed = try run(
            lucidgenBinary,
            ["describe", "--database", "v1.sqlite=1.0", "--database", "v2.sqlite=1.1", "--rename", "item.roomId=room_id@1.1"],
            in: project.root)
        #expect(renamed.status == 0 && !renamed.error.contains("warning:"), "\(renamed.output)\(renamed.error)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let opened = try LucidStore.open(atPath: project.root.appendingPathComponent("v1.sqlite").path, versions: schemas)
        defer { try? opened.database.close() }
        #expect(try opened.database.read { db in try Int.fetchOne(db, sql: "SELECT room_id FROM item") } == 7)
    }

    /// Upper-case table and column names, as Core Data writes them (`ZITEM`, `ZTITLE`): the entity's persisted
    /// name differs from its name only by case, which is no clash with itself (it was).
    @Test func upperCaseNamesAreDescribedAndGenerated() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("store.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE ZROOM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
            try db.execute(sql: "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZTITLE VARCHAR, ZROOM INTEGER REFERENCES ZROOM (Z_PK))")
            try db.execute(sql: "CREATE INDEX ZITEM_ZROOM_INDEX ON ZITEM (ZROOM)")
        }
        try queue.close()
        let described = try run(lucidgenBinary, ["describe", "--database", "store.sqlite"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let generated = try run(lucidgenBinary, ["generate"], in: project.root)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let status = try LucidStore.inspect(atPath: store, versions: schemas)
        #expect(status.adopted && status.version == SchemaVersion("1.0"), "\(status.start)")
    }

    @Test func namesBecomeSnakeCase() {
        #expect(
            ["roomId", "Item", "item_name", "purchasedAt2", "URL"].map(Naming.snakeCase) == [
                "room_id", "item", "item_name", "purchased_at2", "url",
            ])
        // Acronym runs split as the Core Data importer splits them: one rule for both.
        #expect(
            ["WMFArticle", "URLCache", "userID", "HAAppEntity", "messageIDs"].map(Naming.snakeCase) == [
                "wmf_article", "url_cache", "user_id", "ha_app_entity", "message_ids",
            ])
    }

    /// A table with a column named `rowid` (which hides SQLite's rowid, which lucidgen's migrations copy rows
    /// by) stays the app's, with how to let lucidgen adopt it; an `oid` column is described like any other.
    @Test func aTableWithARowidColumnStaysTheApps() throws {
        let project = try TestProject(files: [:])
        defer { project.remove() }
        let store = project.root.appendingPathComponent("app.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE thing(id INTEGER PRIMARY KEY, rowid INTEGER, label TEXT); INSERT INTO thing VALUES (1, NULL, 'a')")
            try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY, oid TEXT)")
        }
        try queue.close()
        try FileManager.default.removeItem(at: project.root.appendingPathComponent(".lucid.yaml"))
        let result = try run(lucidgenBinary, ["describe", "--database", "app.sqlite=1.0", "--module", "App"], in: project.root)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            (result.output + result.error).contains(
                #"thing (its column rowid hides SQLite's rowid, which lucidgen's migrations copy rows by; rename it in the app first: ALTER TABLE "thing" RENAME COLUMN "rowid" TO …)"#
            ))
        #expect(!project.exists(".entities/thing.json"))
        #expect(try project.read(".entities/other.json").contains(#"{ "name": "oid", "property_type": "string", "nullable": true }"#))
    }
}
