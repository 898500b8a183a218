import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// A store shared with the app, beyond the matrix (``AppObjectMatrixTests``): refusals that name the
/// object and leave the file byte-identical, the stage hooks that let a step through, renames inside a
/// rebuild that the app's objects follow, names the app already took, deferred cleanup, FTS indexes over
/// values a step rewrites, and row transforms.
@Suite struct SharedStoreTests {
    static func item(_ properties: String, history: String = #"{ "version": "1.0" }, { "version": "2.0" }"#) -> String {
        """
        { "name": "item", "identifier": { "type": "string" }, "version_history": [\(history)],
          "properties": [\(properties)] }
        """
    }

    static let rows =
        "INSERT INTO item (rowid, id, title, score) VALUES (10, 'a', 'alpha one', 5), (20, 'b', 'beta', -1), (30, 'c', 'alpha two', 0)"

    func store(_ versions: [Schema], _ folder: TemporaryFolder, rows: String = Self.rows, objects: String) throws -> String {
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write { db in
            try db.execute(sql: rows)
            try db.execute(sql: objects)
        }
        try created.close()
        return path
    }

    func strings(_ path: String, _ sql: String) throws -> [String] {
        try withDatabase(path) { (db: Database) throws in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { $0.isNull ? "NULL" : "\($0.storage.value!)" }.joined(separator: "|")
            }
        }
    }

    static let removesScore = try! resolveSchemas([
        "item.json": item(
            """
            { "name": "title", "property_type": "string" },
            { "name": "score", "property_type": "int", "removed_at_version": "2.0" }
            """)
    ])

    /// A view over a column the step drops: `inspect` finds it, the migration refuses naming the view, its
    /// SQL and the column, the file stays byte-identical, and the message says what to do.
    @Test func aViewOverARemovedColumnRefusesTheStepUpFront() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let view = "CREATE VIEW high AS SELECT id, title FROM item WHERE score > 0"
        let path = try store(Self.removesScore, folder, objects: view + "; CREATE VIEW titles AS SELECT title FROM item")
        let status = try LucidStore.inspect(atPath: path, versions: Self.removesScore)
        #expect(status.appObjects.map(\.description) == ["view high (depends on item)", "view titles (depends on item)"])
        #expect(
            status.appObjectConflicts.map { $0.conflicts.map(\.description) } == [
                [
                    "view high (\(view)) uses column item.score, which the step removes"
                ]
            ])
        let before = fileBytes(path)
        #expect {
            try LucidStore.open(atPath: path, versions: Self.removesScore).database.close()
        } throws: { error in
            guard let error = error as? StoreError, case .appObjectsInTheWay(let step, let from, let to, let conflicts) = error else {
                return false
            }
            return step == "1.0 → 2.0 (inferred)" && from == SchemaVersion("1.0") && to == SchemaVersion("2.0")
                && conflicts.map(\.reason) == [.usesRemovedColumn(table: "item", column: "score")] && conflicts[0].object.name == "high"
                && error.nextStep.contains("willMigrate hook of a MigrationStage from 1.0 to 2.0")
        }
        #expect(fileBytes(path) == before)
    }

    /// The advice works: a stage whose willMigrate drops the view and whose didMigrate recreates it lets
    /// the inferred step through.
    @Test func theStageHooksLetTheStepThrough() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(Self.removesScore, folder, objects: "CREATE VIEW high AS SELECT id, title FROM item WHERE score > 0")
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "the view without score",
                willMigrate: { db in try db.execute(sql: "DROP VIEW high") },
                didMigrate: { db in try db.execute(sql: "CREATE VIEW high AS SELECT id, title FROM item WHERE title LIKE 'alpha%'") })
        ]
        try LucidStore.open(atPath: path, versions: Self.removesScore, options: options).database.close()
        #expect(try strings(path, "SELECT id FROM high ORDER BY id") == ["a", "c"])
        #expect(try strings(path, "SELECT version FROM lucid_store") == ["2.0"])
    }

    /// A column renamed and converted in one step (a rebuild): the app's view, trigger and index that
    /// name it follow the rename, as SQLite's RENAME COLUMN makes them.
    @Test func objectsFollowARenameInsideARebuild() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "points", "previous_name": "score", "renamed_at_version": "2.0", "property_type": "string",
                  "type_history": [{ "until_version": "2.0", "property_type": "int" }] }
                """)
        ])
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.flatMap(\.operations).contains { if case .rebuildTable = $0 { true } else { false } })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder,
            objects: """
                CREATE VIEW scored AS SELECT id, score FROM item WHERE score <> 0;
                CREATE TABLE log (id TEXT, score);
                CREATE TRIGGER scoring AFTER UPDATE OF score ON item BEGIN INSERT INTO log VALUES (new.id, new.score); END;
                CREATE INDEX by_score ON item (score)
                """)
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(
            try strings(path, "SELECT sql FROM sqlite_master WHERE name IN ('scored', 'scoring', 'by_score') ORDER BY name") == [
                "CREATE INDEX by_score ON item (\"points\")",
                "CREATE VIEW scored AS SELECT id, \"points\" FROM item WHERE \"points\" <> 0",
                "CREATE TRIGGER scoring AFTER UPDATE OF \"points\" ON item BEGIN INSERT INTO log VALUES (new.id, new.\"points\"); END",
            ])
        #expect(try strings(path, "SELECT id, points FROM scored ORDER BY id") == ["a|5", "b|-1"])
        try withDatabase(path) { db in try db.execute(sql: "UPDATE item SET points = '7' WHERE id = 'c'") }
        #expect(try strings(path, "SELECT * FROM log") == ["c|7"])
        #expect(try strings(path, "SELECT rowid, id FROM item ORDER BY rowid") == ["10|a", "20|b", "30|c"])
    }

    /// A to-one relationship renamed inside a rebuild: its foreign key keeps the old column name through
    /// the copy too, then SQLite renames it (found by the history explorer: seeds 31098, 31140).
    @Test func aForeignKeyRenamedInsideARebuildWithAView() throws {
        let versions = try resolveSchemas([
            "person.json":
                #"{ "name": "person", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#,
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "score", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "lead", "previous_name": "owner", "renamed_at_version": "2.0", "property_type": { "entity_name": "person", "association": "to_one" }, "nullable": true }
                """),
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder,
            rows: """
                INSERT INTO person (id, name) VALUES (1, 'Ann');
                INSERT INTO item (rowid, id, title, score, owner) VALUES (10, 'a', 'alpha one', 5, 1), (20, 'b', 'beta', -1, NULL)
                """, objects: "CREATE VIEW led AS SELECT id, owner FROM item WHERE owner IS NOT NULL")
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try strings(path, "SELECT id, lead FROM led") == ["a|1"])
        #expect(try strings(path, "SELECT \"from\", \"table\" FROM pragma_foreign_key_list('item')") == ["lead|person"])
        #expect(try strings(path, "SELECT rowid, id, score FROM item ORDER BY rowid") == ["10|a|5", "20|b|-1"])
    }

    /// A column renamed inside a rebuild while a new column takes its old name (explorer seed 61047): the
    /// copy cannot keep the old name, so the rename is not followed, and the step still goes through
    /// for objects that do not name the column.
    @Test func aNewColumnTakesARenamedOnesOldName() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "points", "previous_name": "score", "renamed_at_version": "2.0", "property_type": "string",
                  "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "score", "property_type": "int", "nullable": true, "added_at_version": "2.0" }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder, objects: "CREATE TRIGGER item_guard BEFORE DELETE ON item BEGIN SELECT RAISE(ABORT, 'kept'); END")
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try strings(path, "SELECT id, points, score FROM item ORDER BY rowid") == ["a|5|NULL", "b|-1|NULL", "c|0|NULL"])
        #expect(try strings(path, "SELECT name FROM sqlite_master WHERE type = 'trigger'") == ["item_guard"])
    }

    /// The same, with a view and a trigger that name the renamed column (explorer seed 13031): they follow
    /// the rename to the new name and never read the new column that took the old one. The copy parks the
    /// new column under a placeholder until SQLite has renamed the old one.
    @Test func objectsFollowARenameWhenANewColumnTakesTheOldName() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "points", "previous_name": "score", "renamed_at_version": "2.0", "property_type": "string",
                  "type_history": [{ "until_version": "2.0", "property_type": "int" }] },
                { "name": "score", "property_type": "int", "nullable": true, "added_at_version": "2.0" }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder,
            objects: """
                CREATE VIEW scored AS SELECT id, score FROM item WHERE score IS NOT NULL;
                CREATE TABLE log (id TEXT, score);
                CREATE TRIGGER scoring AFTER UPDATE OF score ON item BEGIN INSERT INTO log VALUES (new.id, new.score); END
                """)
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try strings(path, "SELECT id, points FROM scored ORDER BY id") == ["a|5", "b|-1", "c|0"])
        #expect(try strings(path, "SELECT id, points, score FROM item ORDER BY rowid") == ["a|5|NULL", "b|-1|NULL", "c|0|NULL"])
        try withDatabase(path) { db in
            try db.execute(sql: "UPDATE item SET points = '7' WHERE id = 'c'; UPDATE item SET score = 1 WHERE id = 'a'")
        }
        #expect(try strings(path, "SELECT * FROM log") == ["c|7"])
        let names = try strings(path, "SELECT name FROM pragma_table_info('item') ORDER BY cid");
        #expect(names == ["id", "points", "score", "title"])
    }

    /// Two columns that swap names inside a rebuild: the app's view follows each column, not each name.
    @Test func objectsFollowSwappedNamesInsideARebuild() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "label", "previous_name": "title", "renamed_at_version": "2.0", "property_type": "string" },
                { "name": "title", "previous_name": "score", "renamed_at_version": "2.0", "property_type": "string",
                  "type_history": [{ "until_version": "2.0", "property_type": "int" }] }
                """)
        ])
        let steps = try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.flatMap(\.operations).contains { if case .rebuildTable = $0 { true } else { false } })
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(versions, folder, objects: "CREATE VIEW both_ AS SELECT id, title AS t, score AS s FROM item")
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try strings(path, "SELECT id, t, s FROM both_ ORDER BY id") == ["a|alpha one|5", "b|beta|-1", "c|alpha two|0"])
        #expect(try strings(path, "SELECT id, label, title FROM item ORDER BY id") == ["a|alpha one|5", "b|beta|-1", "c|alpha two|0"])
    }

    /// A table the app made under the name a new version gives to a described table: refused, naming it.
    @Test func aNameTheAppTookRefusesTheStep() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(#"{ "name": "title", "property_type": "string" }, { "name": "score", "property_type": "int" }"#),
            "shelf.json":
                #"{ "name": "shelf", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }], "properties": [{ "name": "label", "property_type": "string" }] }"#,
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(versions, folder, objects: "CREATE TABLE shelf (x); INSERT INTO shelf VALUES (1)")
        let before = fileBytes(path)
        #expect {
            try LucidStore.open(atPath: path, versions: versions).database.close()
        } throws: { error in
            guard case StoreError.appObjectsInTheWay(_, _, _, let conflicts) = error else { return false }
            return conflicts.map(\.reason) == [.nameTaken("shelf")] && conflicts[0].object.kind == .table
        }
        #expect(fileBytes(path) == before)
    }

    /// Deferred cleanup meets a view the app made after the step: the cleanup refuses, naming it.
    @Test func deferredCleanupRefusesWhatAViewMadeSinceUses() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "score", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(versions, folder, objects: "SELECT 1")
        var options = StoreOptions()
        options.deferCleanup = true
        let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
        try database.write { db in try db.execute(sql: "CREATE VIEW late AS SELECT score FROM item") }
        #expect {
            try LucidStore.finishDeferredCleanup(database, history: SchemaHistory(versions: versions))
        } throws: { error in
            guard case StoreError.appObjectsInTheWay(let step, _, _, let conflicts) = error else { return false }
            return step == "deferred cleanup" && conflicts.map(\.object.name) == ["late"]
        }
        try database.write { db in try db.execute(sql: "DROP VIEW late") }
        #expect(try LucidStore.finishDeferredCleanup(database, history: SchemaHistory(versions: versions)) == 1)
        try database.close()
    }

    /// An enum case renamed rewrites the stored values (a rebuild): the app's FTS index over that column
    /// is rebuilt, so it passes its integrity check and finds rows by their new value.
    @Test func anFTSIndexOverRewrittenValuesIsRebuilt() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(#"{ "name": "title", "property_type": "string" }, { "name": "mood", "property_type": "mood" }"#),
            "Subtypes/mood.json":
                #"{ "name": "mood", "cases": [{ "name": "glad", "previous_name": "happy", "renamed_at_version": "2.0" }, "blue"] }"#,
        ])
        let column = try #require(versions[0].table(named: "item")?.columns.first { $0.name.hasPrefix("mood") }?.name)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder,
            rows: "INSERT INTO item (rowid, id, title, \(column)) VALUES (10, 'a', 'one', 'happy'), (20, 'b', 'two', 'blue')",
            objects: """
                CREATE VIRTUAL TABLE mood_fts USING fts5(\(column), content='item');
                INSERT INTO mood_fts (mood_fts) VALUES ('rebuild')
                """)
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try strings(path, "SELECT \(column) FROM item ORDER BY id") == ["glad", "blue"])
        try withDatabase(path) { db in try db.execute(sql: "INSERT INTO mood_fts (mood_fts, rank) VALUES ('integrity-check', 1)") }
        #expect(try strings(path, "SELECT rowid FROM mood_fts WHERE mood_fts MATCH 'glad'") == ["10"])
    }

    /// A step through the app's row transform (rows and dictionaries) keeps every rowid, the app's
    /// trigger, and its FTS index (rebuilt: the app's code may change any value).
    @Test func aRowTransformKeepsRowidsAndTheAppsObjects() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "score", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(
            versions, folder,
            rows:
                "INSERT INTO item (rowid, id, title, score) VALUES (10, 'a', 'alpha one', ' 5'), (20, 'b', 'beta', 'x'), (30, 'c', 'alpha two', '0')",
            objects: """
                CREATE VIRTUAL TABLE item_fts USING fts5(title, content='item');
                INSERT INTO item_fts (item_fts) VALUES ('rebuild');
                CREATE TRIGGER item_guard BEFORE DELETE ON item BEGIN SELECT RAISE(ABORT, 'append-only'); END
                """)
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse scores",
                transforms: [
                    RowTransform(table: "item") { row in
                        let text: String = row["score"]
                        return [
                            "id": row["id"], "title": (row["title"] as String).uppercased().databaseValue,
                            "score": (Int(text.trimmingCharacters(in: .whitespaces)) ?? -1).databaseValue,
                        ]
                    }
                ])
        ]
        try LucidStore.open(atPath: path, versions: versions, options: options).database.close()
        #expect(
            try strings(path, "SELECT rowid, id, title, score FROM item ORDER BY rowid") == [
                "10|a|ALPHA ONE|5", "20|b|BETA|-1", "30|c|ALPHA TWO|0",
            ])
        try withDatabase(path) { db in
            try db.execute(sql: "INSERT INTO item_fts (item_fts, rank) VALUES ('integrity-check', 1)")
            #expect(throws: DatabaseError.self) { try db.execute(sql: "DELETE FROM item") }
        }
        #expect(try strings(path, "SELECT rowid FROM item_fts WHERE item_fts MATCH 'alpha' ORDER BY rowid") == ["10", "30"])
    }

    /// An app view that was already broken makes SQLite's RENAME fail: the error names it (typed), not "the app's stage or data".
    @Test func aBrokenViewIsNamed() throws {
        let versions = try resolveSchemas([
            "item.json": Self.item(
                """
                { "name": "title", "property_type": "string" },
                { "name": "points", "previous_name": "score", "renamed_at_version": "2.0", "property_type": "int" }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try store(versions, folder, objects: "CREATE VIEW stale AS SELECT * FROM gone")
        #expect {
            try LucidStore.open(atPath: path, versions: versions).database.close()
        } throws: { error in
            guard case StoreError.appObjectBroken(_, let version, let kind, let name, _, let message) = error else { return false }
            return version == SchemaVersion("1.0") && kind == "view" && name == "stale" && message.contains("no such table")
        }
    }
}
