import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// Declared search (an FTS5 index over some text columns of a table, with the triggers of FTS5's
/// "external content tables") kept in step through every kind of migration step, on real SQLite files.
@Suite struct SearchMigrationTests {
    static func column(
        _ name: String, _ type: SchemaColumn.StorageType = .text, valueType: ValueType = .string, notNull: Bool = false,
        renamedFrom: String? = nil
    ) -> SchemaColumn {
        SchemaColumn(name: name, type: type, notNull: notNull, renamedFrom: renamedFrom, valueType: valueType)
    }

    static let id = column("id", .integer, valueType: .int, notNull: true)
    static let title = column("title", notNull: true)
    static let notes = column("notes")
    static let rating = column("rating", .integer, valueType: .int)

    /// One version with a single table.
    static func version(
        _ version: String, _ columns: [SchemaColumn], search: SchemaSearch?, table: String = "recipe", renamedFrom: String? = nil
    ) -> Schema {
        Schema(
            version: try! SchemaVersion(parsing: version),
            tables: [
                SchemaTable(name: table, columns: [id] + columns, primaryKey: ["id"], renamedFrom: renamedFrom, search: search)
            ])
    }

    static let rows = """
        INSERT INTO recipe (id, title, notes, rating) VALUES
          (1, 'Pasta carbonara', 'eggs and pecorino', 5),
          (2, 'Crème brûlée', 'ünï custard', 4),
          (3, 'Green salad', 'pasta-free lunch', 3),
          (7, 'Lentil soup', NULL, NULL)
        """

    /// The rowids whose indexed text matches `pattern`, best first.
    static func matches(_ path: String, _ pattern: String, table: String = "recipe") throws -> [Int64] {
        try withDatabase(path) { db in
            try Int64.fetchAll(
                db, sql: "SELECT rowid FROM \(table)_fts WHERE \(table)_fts MATCH ? ORDER BY rank, rowid", arguments: [pattern])
        }
    }

    /// FTS5's integrity check of an external-content index against its table (throws when they differ).
    static func checkIndex(_ path: String, table: String = "recipe") throws {
        try withDatabase(path) { db in try db.execute(sql: "INSERT INTO \(table)_fts(\(table)_fts, rank) VALUES('integrity-check', 1)") }
    }

    static func names(_ path: String, like pattern: String) throws -> [String] {
        try withDatabase(path) { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE ? ORDER BY name", arguments: [pattern])
        }
    }

    static func operations(_ versions: [Schema], from: Int = 0, to: Int = 1) throws -> [MigrationOperation] {
        try StepInference(versions: versions).operations(from: from, to: to).get()
    }

    /// Inserts, updates and deletes after migrating reach the index through the triggers.
    static func expectTriggersWork(_ path: String, table: String = "recipe", column: String = "notes") throws {
        try withDatabase(path) { db in
            try db.execute(sql: "INSERT INTO \(table) (id, title, \(column)) VALUES (20, 'Quince jam', 'autumn preserve')")
            try db.execute(sql: "UPDATE \(table) SET \(column) = 'spring vinaigrette' WHERE id = 3")
            try db.execute(sql: "DELETE FROM \(table) WHERE id = 1")
        }
        #expect(try matches(path, "autumn", table: table) == [20])
        #expect(try matches(path, "vinaigrette", table: table) == [3])
        #expect(try matches(path, "lunch", table: table) == [])
        #expect(try matches(path, "pecorino", table: table) == [])
        try checkIndex(path, table: table)
    }

    @Test func searchAddedAt2IndexesTheRowsThereAndKeepsUp() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes, Self.rating], search: nil),
            Self.version("2.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"])),
        ]
        #expect(try Self.operations(versions) == [.createSearch(versions[1].tables[0])])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        #expect(try Self.names(path, like: "recipe_fts%") == [])
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.matches(path, "pasta") == [3, 1] || Self.matches(path, "pasta") == [1, 3])
        #expect(try Self.matches(path, "pecorino") == [1])
        #expect(try Self.matches(path, "title: salad") == [3])
        try Self.checkIndex(path)
        #expect(
            try Self.names(path, like: "recipe_fts%") == [
                "recipe_fts", "recipe_fts_config", "recipe_fts_data", "recipe_fts_delete", "recipe_fts_docsize", "recipe_fts_idx",
                "recipe_fts_insert", "recipe_fts_update",
            ])
        // lucidgen's objects are not the app's, and the store is what 2.0 expects.
        let status = try LucidStore.inspect(atPath: path, versions: versions)
        #expect(status.appObjects.isEmpty)
        #expect(status.version == SchemaVersion("2.0"))
        try Self.expectTriggersWork(path)
        try LucidStore.open(atPath: path, versions: versions).database.close()
    }

    @Test func aStoreCreatedWithSearchListsNoAppObjectButTheAppsOwnIndex() throws {
        let versions = [Self.version("1.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title"]))]
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        #expect(try Self.matches(path, "carbonara") == [1])
        try withDatabase(path) { db in try db.execute(sql: "CREATE VIRTUAL TABLE app_notes USING fts5(notes, content='recipe')") }
        let objects = try LucidStore.inspect(atPath: path, versions: versions).appObjects
        #expect(objects.filter { $0.kind == .virtualTable }.map(\.name) == ["app_notes"])
        #expect(!objects.contains { $0.name.hasPrefix("recipe_fts") })
    }

    @Test func searchedPropertiesChangeStepByStep() throws {
        let remarks = Self.column("remarks", renamedFrom: "notes")
        let versions = [
            Self.version(
                "1.0", [Self.title, Self.notes, Self.rating],
                search: SchemaSearch(columns: ["title"], tokenizer: "unicode61 remove_diacritics 0")),
            // A searched property added.
            Self.version(
                "2.0", [Self.title, Self.notes, Self.rating],
                search: SchemaSearch(columns: ["title", "notes"], tokenizer: "unicode61 remove_diacritics 0")),
            // One removed.
            Self.version(
                "3.0", [Self.title, Self.notes, Self.rating],
                search: SchemaSearch(columns: ["notes"], tokenizer: "unicode61 remove_diacritics 0")),
            // The searched column renamed.
            Self.version(
                "4.0", [Self.title, remarks, Self.rating],
                search: SchemaSearch(columns: ["remarks"], tokenizer: "unicode61 remove_diacritics 0")),
            // The tokenizer changed: diacritics no longer count.
            Self.version(
                "5.0", [Self.title, Self.column("remarks"), Self.rating],
                search: SchemaSearch(columns: ["remarks"], tokenizer: "unicode61 remove_diacritics 2")),
        ]
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        #expect(try Self.matches(path, "carbonara") == [1])
        #expect(try Self.matches(path, "pecorino") == [])

        for step in 1..<versions.count {
            let operations = try Self.operations(versions, from: step - 1, to: step)
            #expect(operations.first == .dropSearch(table: "recipe"), "\(step)")
            #expect(operations.last == .createSearch(versions[step].tables[0]), "\(step)")
        }

        try LucidStore.open(atPath: path, versions: Array(versions[...1])).database.close()
        #expect(try Self.matches(path, "carbonara") == [1])
        #expect(try Self.matches(path, "pecorino") == [1])
        try Self.checkIndex(path)

        try LucidStore.open(atPath: path, versions: Array(versions[...2])).database.close()
        #expect(try Self.matches(path, "carbonara") == [])
        #expect(try Self.matches(path, "pecorino") == [1])
        try Self.checkIndex(path)

        try LucidStore.open(atPath: path, versions: Array(versions[...3])).database.close()
        #expect(try Self.matches(path, "remarks: pecorino") == [1])
        #expect(try Self.matches(path, "uni") == [])
        try Self.checkIndex(path)

        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.matches(path, "uni") == [2])
        #expect(try Self.matches(path, "creme") == [])
        try Self.checkIndex(path)
        try Self.expectTriggersWork(path, column: "remarks")
    }

    @Test func aJumpOverSeveralSearchChangesRenewsTheIndexOnce() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title"])),
            Self.version("2.0", [Self.title, Self.notes, Self.rating], search: nil),
            Self.version("3.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"])),
        ]
        let operations = try Self.operations(versions, from: 0, to: 2)
        #expect(operations == [.dropSearch(table: "recipe"), .createSearch(versions[2].tables[0])])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.matches(path, "pecorino") == [1])
        try Self.checkIndex(path)
    }

    @Test func aSearchedTableRebuiltForAnotherReasonKeepsItsIndexAndTriggers() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"])),
            // rating int → string: a rebuild (CAST), the searched columns untouched.
            Self.version("2.0", [Self.title, Self.notes, Self.column("rating")], search: SchemaSearch(columns: ["title", "notes"])),
        ]
        let operations = try Self.operations(versions)
        #expect(operations.count == 1)
        guard case .rebuildTable(let rebuild)? = operations.first else {
            Issue.record("expected a rebuild, got \(operations)")
            return
        }
        #expect(rebuild.reasons.contains { $0.contains("rating") })
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try withDatabase(path) { try String.fetchOne($0, sql: "SELECT typeof(rating) FROM recipe WHERE id = 1") } == "text")
        #expect(try Self.matches(path, "pecorino") == [1])
        try Self.checkIndex(path)
        try Self.expectTriggersWork(path)
    }

    @Test func aSearchedTableRenamedGetsItsIndexUnderTheNewName() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"])),
            Self.version(
                "2.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"]), table: "dish",
                renamedFrom: "recipe"),
        ]
        let operations = try Self.operations(versions)
        #expect(
            operations == [.dropSearch(table: "recipe"), .renameTable(from: "recipe", to: "dish"), .createSearch(versions[1].tables[0])])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.names(path, like: "recipe%") == [])
        #expect(try Self.matches(path, "pecorino", table: "dish") == [1])
        try Self.checkIndex(path, table: "dish")
        try Self.expectTriggersWork(path, table: "dish")
    }

    @Test func searchRemovedLeavesNothingBehind() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title", "notes"])),
            Self.version("2.0", [Self.title, Self.notes, Self.rating], search: nil),
        ]
        #expect(try Self.operations(versions) == [.dropSearch(table: "recipe")])
        let (path, folder) = try storeAtFirstVersion(versions, rows: Self.rows)
        defer { folder.remove() }
        #expect(try Self.names(path, like: "recipe_fts%").count == 8)
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.names(path, like: "recipe_fts%") == [])
        #expect(try withDatabase(path) { try Int.fetchOne($0, sql: "SELECT count(*) FROM recipe") } == 4)
        // Rows are written without any trigger in the way.
        try withDatabase(path) { try $0.execute(sql: "INSERT INTO recipe (id, title) VALUES (9, 'Toast')") }
    }

    @Test func aSearchedTableRemovedTakesItsIndex() throws {
        let other = SchemaTable(name: "cook", columns: [Self.id], primaryKey: ["id"])
        let versions = [
            Schema(
                version: SchemaVersion("1.0"),
                tables: Self.version("1.0", [Self.title, Self.notes], search: SchemaSearch(columns: ["title"])).tables + [other]),
            Schema(version: SchemaVersion("2.0"), tables: [other]),
        ]
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO recipe (id, title) VALUES (1, 'Toast')")
        defer { folder.remove() }
        try LucidStore.open(atPath: path, versions: versions).database.close()
        #expect(try Self.names(path, like: "recipe%") == [])
    }

    @Test func aMissingSearchTriggerContradictsTheRecord() throws {
        let versions = [
            Self.version("1.0", [Self.title, Self.notes], search: SchemaSearch(columns: ["title"])),
            Self.version("2.0", [Self.title, Self.notes, Self.rating], search: SchemaSearch(columns: ["title"])),
        ]
        let (path, folder) = try storeAtFirstVersion(versions, rows: "INSERT INTO recipe (id, title) VALUES (1, 'Toast')")
        defer { folder.remove() }
        try withDatabase(path) { try $0.execute(sql: "DROP TRIGGER recipe_fts_update") }
        do {
            try LucidStore.open(atPath: path, versions: versions).database.close()
            Issue.record("a store without its search trigger migrated")
        } catch StoreError.recordContradictsTables(_, _, let differences, _) {
            #expect(differences == ["table recipe: expected search trigger recipe_fts_update, found none"])
        }
    }

    @Test func searchStatementsAreOnlyInTheDDLOfTablesWithSearch() {
        let plain = SchemaTable(name: "recipe", columns: [Self.id, Self.title], primaryKey: ["id"])
        var searched = plain
        searched.search = SchemaSearch(columns: ["title"], tokenizer: "porter unicode61")
        #expect(plain.createStatements == [plain.createTableStatement()])
        #expect(searched.createStatements.count == 5)
        #expect(
            searched.createStatements[1]
                == #"CREATE VIRTUAL TABLE "recipe_fts" USING fts5("title", content = 'recipe', tokenize = 'porter unicode61')"#)
        #expect(!plain.json(indent: "").contains("search"))
        #expect(SchemaTable(json: searched.json(indent: "")) == searched)
        #expect(SchemaTable(json: plain.json(indent: "")) == plain)
    }
}
