import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// A store is shared: what a GRDB app keeps beside the described tables survives every kind of step, or
/// the step refuses before changing anything. Every app object × every operation × both journal modes,
/// on real files: afterwards each object is present and works (the guard still blocks, the view returns
/// the same rows, FTS `integrity-check` passes and a MATCH finds the same rows), or the migration was
/// refused naming it, with the store byte-identical.
@Suite struct AppObjectMatrixTests {
    /// A kind of step on `item` (a string identifier: its rowid is not an alias, so a rebuild that did not
    /// keep rowids would break what stores them).
    struct Change: Sendable, CustomStringConvertible {
        var description: String
        /// `item.json` at 2.0.
        var item: String
        /// The table's name at 2.0 (nil when removed).
        var table: String?
    }

    /// An object the app keeps: its SQL at 1.0, and what it must still do after the migration.
    struct Thing: Sendable, CustomStringConvertible {
        var description: String
        var sql: String
        /// Checks it works at 2.0, on the table `table` (nil when the step removed the table).
        var check: @Sendable (Database, String?) throws -> Void
    }

    static let shelf = """
        { "name": "shelf", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "label", "property_type": "string" }] }
        """
    static let scheme = """
        { "name": "scheme", "properties": [
            { "name": "primary", "property_type": "string" },
            { "name": "accent", "property_type": "string", "nullable": true } ] }
        """

    static func item(_ properties: [String], history: String = #"{ "version": "1.0" }, { "version": "2.0" }"#, removed: Bool = false)
        -> String
    {
        """
        { "name": "item", "identifier": { "type": "string" }, "version_history": [\(history)],\(removed ? #" "removed_at_version": "2.0","# : "")
          "properties": [\(properties.joined(separator: ",\n"))] }
        """
    }

    static let title = #"{ "name": "title", "property_type": "string" }"#
    static let body = #"{ "name": "body", "property_type": "string", "nullable": true }"#
    static let score = #"{ "name": "score", "property_type": "int" }"#
    static let extra = #"{ "name": "extra", "property_type": "string", "nullable": true }"#
    static let shelfKey = #"{ "name": "shelf", "property_type": { "entity_name": "shelf", "association": "to_one" }, "nullable": true }"#
    static let colors = #"{ "name": "colors", "property_type": "scheme", "nullable": true }"#
    static let base = [title, body, score, extra, shelfKey, colors]
    static let v1 = item(base, history: #"{ "version": "1.0" }"#)

    static func replacing(_ old: String, with new: String?) -> [String] {
        base.compactMap { $0 == old ? new : $0 }
    }

    static let changes: [Change] = [
        Change(
            description: "add column",
            item: item(base + [#"{ "name": "note", "property_type": "string", "nullable": true, "added_at_version": "2.0" }"#]),
            table: "item"),
        Change(
            description: "rename column",
            item: item(
                replacing(
                    body,
                    with:
                        #"{ "name": "text", "previous_name": "body", "renamed_at_version": "2.0", "property_type": "string", "nullable": true }"#
                )),
            table: "item"),
        Change(
            description: "rename table",
            item: item(base, history: #"{ "version": "1.0" }, { "version": "2.0", "previous_name": "item" }"#).replacingOccurrences(
                of: #""name": "item""#, with: #""name": "entry""#), table: "entry"),
        Change(
            description: "drop column",
            item: item(
                replacing(extra, with: #"{ "name": "extra", "property_type": "string", "nullable": true, "removed_at_version": "2.0" }"#)),
            table: "item"),
        Change(
            description: "type change (rebuild)",
            item: item(
                replacing(
                    score,
                    with:
                        #"{ "name": "score", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] }"#
                )),
            table: "item"),
        Change(
            description: "remove a foreign key column (rebuild)",
            item: item(
                replacing(
                    shelfKey,
                    with:
                        #"{ "name": "shelf", "property_type": { "entity_name": "shelf", "association": "to_one" }, "nullable": true, "removed_at_version": "2.0" }"#
                )),
            table: "item"),
        Change(description: "table removal", item: item(base, history: #"{ "version": "1.0" }"#, removed: true), table: nil),
        Change(
            description: "JSON to composite",
            item: item(replacing(colors, with: #"{ "name": "colors", "property_type": "scheme", "nullable": true, "composite": true }"#)),
            table: "item"),
        Change(
            description: "to-one to to-many",
            item: item(
                replacing(
                    shelfKey,
                    with: #"""
                        { "name": "shelf", "property_type": { "entity_name": "shelf", "association": "to_many" },
                          "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "shelf", "association": "to_one" }, "nullable": true }] }
                        """#)),
            table: "item"),
    ]

    /// Rowids 10, 20, 30: a rebuild that renumbered them would point FTS, R*Tree and the app's rows elsewhere.
    static let rows = """
        INSERT INTO shelf (id, label) VALUES (1, 'top'), (2, 'low');
        INSERT INTO item (rowid, id, title, body, score, extra, shelf, colors) VALUES
          (10, 'a', 'alpha one', 'first body', 5, 'x', 1, '{"primary":"red"}'),
          (20, 'b', 'beta', NULL, -1, NULL, NULL, NULL),
          (30, 'c', 'alpha two', 'ünï body', 0, 'y', 2, '{"primary":"blue","accent":"teal"}');
        """

    static func strings(_ db: Database, _ sql: String) throws -> [String] {
        try Row.fetchAll(db, sql: sql).map { row in
            row.databaseValues.map { $0.isNull ? "NULL" : "\($0.storage.value!)" }.joined(separator: "|")
        }
    }

    static let things: [Thing] = [
        Thing(description: "view", sql: "CREATE VIEW item_titles AS SELECT id, title FROM item WHERE title LIKE 'alpha%'") {
            (db: Database, table: String?) throws in
            #expect(try strings(db, "SELECT id, title FROM item_titles ORDER BY id") == ["a|alpha one", "c|alpha two"])
        },
        Thing(
            description: "BEFORE DELETE guard trigger",
            sql: "CREATE TRIGGER item_guard BEFORE DELETE ON item BEGIN SELECT RAISE(ABORT, 'append-only'); END"
        ) { (db: Database, table: String?) throws in
            guard let table else { return }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "DELETE FROM \(table) WHERE id = 'a'") }
            #expect(try strings(db, "SELECT count(*) FROM \(table)") == ["3"])
        },
        Thing(
            description: "AFTER UPDATE trigger",
            sql: """
                CREATE TABLE audit (item_id TEXT, old_title TEXT, new_title TEXT);
                CREATE TRIGGER item_audit AFTER UPDATE OF title ON item BEGIN INSERT INTO audit VALUES (old.id, old.title, new.title); END
                """
        ) { (db: Database, table: String?) throws in
            guard let table else { return }
            try db.execute(sql: "UPDATE \(table) SET title = 'alpha three' WHERE id = 'c'")
            #expect(try strings(db, "SELECT * FROM audit") == ["c|alpha two|alpha three"])
        },
        Thing(
            description: "trigger on another table writing this one",
            sql: """
                CREATE TABLE inbox (id TEXT, title TEXT);
                CREATE TRIGGER inbox_to_item AFTER INSERT ON inbox BEGIN INSERT INTO item (id, title, score) VALUES (new.id, new.title, 0); END
                """
        ) { (db: Database, table: String?) throws in
            guard let table else { return }
            try db.execute(sql: "INSERT INTO inbox VALUES ('d', 'delta')")
            #expect(try strings(db, "SELECT id, title FROM \(table) WHERE id = 'd'") == ["d|delta"])
        },
        Thing(description: "app index", sql: "CREATE INDEX item_by_score ON item (score, title)") { (db: Database, table: String?) throws in
            guard let table else { return }
            #expect(try strings(db, "SELECT tbl_name FROM sqlite_master WHERE name = 'item_by_score'") == [table])
            #expect(try strings(db, "SELECT name FROM pragma_index_info('item_by_score') ORDER BY seqno") == ["score", "title"])
        },
        Thing(
            description: "FTS5 external content with sync triggers",
            sql: """
                CREATE VIRTUAL TABLE item_fts USING fts5(title, body, content='item', content_rowid='rowid');
                CREATE TRIGGER item_fts_ai AFTER INSERT ON item BEGIN INSERT INTO item_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body); END;
                CREATE TRIGGER item_fts_ad AFTER DELETE ON item BEGIN INSERT INTO item_fts (item_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body); END;
                CREATE TRIGGER item_fts_au AFTER UPDATE ON item BEGIN
                  INSERT INTO item_fts (item_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
                  INSERT INTO item_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
                END;
                INSERT INTO item_fts (item_fts) VALUES ('rebuild')
                """
        ) { (db: Database, table: String?) throws in
            guard let table else { return }
            try db.execute(sql: "INSERT INTO item_fts (item_fts, rank) VALUES ('integrity-check', 1)")
            let match =
                "SELECT \(table).id FROM item_fts JOIN \(table) ON \(table).rowid = item_fts.rowid WHERE item_fts MATCH 'alpha' ORDER BY \(table).id"
            #expect(try strings(db, match) == ["a", "c"])
            try db.execute(sql: "INSERT INTO \(table) (id, title, score) VALUES ('e', 'alpha five', 1)")
            try db.execute(sql: "UPDATE \(table) SET title = 'gamma' WHERE id = 'a'")
            try db.execute(sql: "INSERT INTO item_fts (item_fts, rank) VALUES ('integrity-check', 1)")
            #expect(try strings(db, match) == ["c", "e"])
        },
        Thing(
            description: "contentless FTS5",
            sql: """
                CREATE VIRTUAL TABLE note_fts USING fts5(title, content='');
                INSERT INTO note_fts (rowid, title) SELECT rowid, title FROM item;
                CREATE TRIGGER note_fts_ai AFTER INSERT ON item BEGIN INSERT INTO note_fts (rowid, title) VALUES (new.rowid, new.title); END
                """
        ) { (db: Database, table: String?) throws in
            try db.execute(sql: "INSERT INTO note_fts (note_fts) VALUES ('integrity-check')")
            guard let table else { return }
            let match = "SELECT id FROM \(table) WHERE rowid IN (SELECT rowid FROM note_fts WHERE note_fts MATCH 'alpha') ORDER BY id"
            #expect(try strings(db, match) == ["a", "c"])
            try db.execute(sql: "INSERT INTO \(table) (id, title, score) VALUES ('e', 'alpha five', 1)")
            #expect(try strings(db, match) == ["a", "c", "e"])
        },
        Thing(
            description: "app table with a foreign key",
            sql: """
                CREATE TABLE review (id INTEGER PRIMARY KEY, item_id TEXT REFERENCES item(id) ON DELETE CASCADE, stars INTEGER);
                INSERT INTO review VALUES (1, 'a', 5), (2, 'c', 3)
                """
        ) { (db: Database, table: String?) throws in
            guard let table else { return }
            #expect(try strings(db, "SELECT * FROM review ORDER BY id") == ["1|a|5", "2|c|3"])
            #expect(try strings(db, "SELECT \"table\" FROM pragma_foreign_key_list('review')") == [table])
            #expect(try strings(db, "PRAGMA foreign_key_check") == [])
        },
        Thing(
            description: "R*Tree",
            sql: """
                CREATE VIRTUAL TABLE item_box USING rtree(id, min_x, max_x);
                INSERT INTO item_box SELECT rowid, score, score + 1 FROM item
                """
        ) { (db: Database, table: String?) throws in
            #expect(try strings(db, "SELECT rtreecheck('item_box')") == ["ok"])
            guard let table else { return }
            #expect(
                try strings(
                    db,
                    "SELECT \(table).id FROM item_box JOIN \(table) ON \(table).rowid = item_box.id WHERE min_x >= 0 ORDER BY \(table).id")
                    == ["a", "c"])
        },
        Thing(
            description: "grdb_migrations",
            sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1')"
        ) { (db: Database, _: String?) throws in
            #expect(try strings(db, "SELECT identifier FROM grdb_migrations") == ["v1"])
        },
    ]

    /// The objects a change cannot keep: everything on a removed table; an FTS index names its content
    /// table and columns in its own declaration, which a rename does not rewrite.
    static func refused(_ thing: Thing, by change: Change) -> Bool {
        switch change.description {
        case "table removal": !["R*Tree", "grdb_migrations"].contains(thing.description)
        case "rename column", "rename table": thing.description == "FTS5 external content with sync triggers"
        default: false
        }
    }

    /// Both releases' schemas, each generated as released (so 1.0's snapshot freezes it).
    static func versions(_ change: Change) throws -> [Schema] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path(".entities/Subtypes"), withIntermediateDirectories: true)
        try scheme.write(toFile: folder.path(".entities/Subtypes/scheme.json"), atomically: true, encoding: .utf8)
        try shelf.write(toFile: folder.path(".entities/shelf.json"), atomically: true, encoding: .utf8)
        var schemas: [Schema] = []
        for (current, item) in [("1.0", v1), ("2.0", change.item)] {
            let config =
                "input_path: .entities\ntargets:\n  app:\n    module_name: App\n    output_path: Sources/App/Generated\ncurrent_version: \"\(current)\"\n"
            try config.write(toFile: folder.path(".lucid.yaml"), atomically: true, encoding: .utf8)
            try item.write(toFile: folder.path(".entities/item.json"), atomically: true, encoding: .utf8)
            schemas = try GeneratorPipeline(configPath: folder.path(".lucid.yaml")).run(check: false).model.schemas
        }
        return schemas
    }

    @Test(arguments: changes)
    func everyObjectSurvivesOrTheStepRefuses(_ change: Change) throws {
        let versions = try Self.versions(change)
        #expect(versions.map(\.version.string) == ["1.0", "2.0"])
        for wal in [false, true] {
            for thing in Self.things {
                try check(thing, change, versions, wal: wal)
            }
        }
    }

    func check(_ thing: Thing, _ change: Change, _ versions: [Schema], wal: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write { db in
            try db.execute(sql: Self.rows)
            try db.execute(sql: thing.sql)
        }
        try created.close()
        if wal {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try queue.close()
        }
        let before = fileBytes(path)
        let label = "\(thing) × \(change) (\(wal ? "WAL" : "rollback journal"))"
        do {
            try LucidStore.open(atPath: path, versions: versions).database.close()
            #expect(!Self.refused(thing, by: change), "\(label): expected a refusal")
        } catch let error as StoreError {
            guard case .appObjectsInTheWay(_, _, _, let conflicts) = error else {
                Issue.record("\(label): \(error)")
                return
            }
            #expect(Self.refused(thing, by: change), "\(label): refused: \(error)")
            #expect(!conflicts.isEmpty && conflicts.allSatisfy { thing.sql.contains($0.object.name) }, "\(label): \(conflicts)")
            #expect(fileBytes(path) == before, "\(label): the store changed")
            #expect(
                (try? withDatabase(path) { (db: Database) throws in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") })
                    == "1.0")
            return
        }
        try withDatabase(path) { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "2.0", "\(label)")
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"], "\(label)")
            let names = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master"))
            for name in [
                "item_titles", "item_guard", "item_audit", "inbox_to_item", "item_by_score", "item_fts", "item_fts_ai", "item_fts_ad",
                "item_fts_au", "note_fts", "note_fts_ai", "review", "item_box", "grdb_migrations",
            ]
            where thing.sql.contains(" \(name) ") {
                #expect(names.contains(name), "\(label): \(name) is gone")
            }
            if let table = change.table {
                // Every row kept its rowid.
                #expect(try Self.strings(db, "SELECT rowid, id FROM \(table) ORDER BY rowid") == ["10|a", "20|b", "30|c"], "\(label)")
            }
            do {
                try thing.check(db, change.table)
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
    }
}
