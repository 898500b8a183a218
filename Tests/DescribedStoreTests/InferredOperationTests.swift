import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// Every inferred operation, on a store with data, every value checked afterwards.
@Suite struct InferredOperationTests {
    /// One entity `item` with an int identifier, at the versions given.
    func item(_ history: [String], _ properties: String, extra: String = "") -> String {
        """
        { "name": "item", "identifier": { "type": "int" }, \(extra)
          "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
          "properties": [\(properties)] }
        """
    }

    /// Creates a store at the first version, runs `seed`, migrates to the newest, and returns the path.
    func migrate(_ versions: [Schema], options: StoreOptions = StoreOptions(), seed: (Database) throws -> Void) throws -> (
        path: String, folder: TemporaryFolder
    ) {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write(seed)
        try created.close()
        let migrated = try LucidStore.open(atPath: path, versions: versions, options: options).database
        try migrated.close()
        return (path, folder)
    }

    func rows(_ path: String, _ sql: String) throws -> [[String?]] {
        try withDatabase(path) { (db: Database) throws in
            try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { $0.isNull ? nil : String(describing: $0.storage.value!) } }
        }
    }

    func version(_ path: String) throws -> String? {
        try withDatabase(path) { (db: Database) throws in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") }
    }

    static let seedRows = "INSERT INTO item (id, name) VALUES (1, 'one'), (2, ''), (3, 'ünï ✈︎'), (9223372036854775807, 'max')"

    @Test func addNullableAndDefaultedColumns() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "nullable": true, "added_at_version": "2.0" },
                { "name": "count", "property_type": "int", "default_value": 7, "added_at_version": "2.0" },
                { "name": "seen", "property_type": "date", "default_value": "current_date", "added_at_version": "2.0" }
                """)
        ])
        let steps = try MigrationPlanner(versions: versions).plan(from: versions[0].version)
        #expect(steps.count == 1)
        let (path, folder) = try migrate(versions) { try $0.execute(sql: Self.seedRows) }
        defer { folder.remove() }
        #expect(try version(path) == "2.0")
        #expect(
            try rows(path, "SELECT id, name, note, count FROM item ORDER BY id") == [
                ["1", "one", nil, "7"], ["2", "", nil, "7"], ["3", "ünï ✈︎", nil, "7"], ["9223372036854775807", "max", nil, "7"],
            ])
        // current_date cannot be added with ALTER TABLE: the table was rebuilt and every row got a date.
        #expect(try rows(path, "SELECT count(*) FROM item WHERE seen LIKE '____-__-__ __:__:__.___'") == [["4"]])
    }

    @Test func removeAndRenameColumns() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "title", "property_type": "string", "nullable": true, "previous_name": "label", "renamed_at_version": "2.0" },
                { "name": "gone", "property_type": "int", "nullable": true, "removed_at_version": "2.0" }
                """)
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO item (id, name, label, gone) VALUES (1, 'a', 'first', 5), (2, 'b', NULL, NULL)")
        }
        defer { folder.remove() }
        #expect(try rows(path, "SELECT id, name, title FROM item ORDER BY id") == [["1", "a", "first"], ["2", "b", nil]])
        #expect(try rows(path, "SELECT count(*) FROM pragma_table_info('item') WHERE name IN ('gone', 'label')") == [["0"]])
    }

    @Test func optionalBecomesRequiredWithDefaultAndBack() throws {
        // 1.0: note optional, size required. 2.0: note required (default 'none'), size optional.
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "note", "property_type": "string", "default_value": "none",
                  "type_history": [{ "until_version": "2.0", "nullable": true, "default_value": null }] },
                { "name": "size", "property_type": "int", "nullable": true, "type_history": [{ "until_version": "2.0", "nullable": false }] }
                """)
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO item (id, name, note, size) VALUES (1, 'a', NULL, 10), (2, 'b', 'kept', 20)")
        }
        defer { folder.remove() }
        #expect(try rows(path, "SELECT id, note, size FROM item ORDER BY id") == [["1", "none", "10"], ["2", "kept", "20"]])
        try withDatabase(path) { (db: Database) throws in
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (3, 'c')")
            let row = try #require(try Row.fetchOne(db, sql: "SELECT note, size FROM item WHERE id = 3"))
            #expect(row["note"] as String? == "none")
            #expect(row["size"] as Int? == nil)
        }
    }

    @Test func defaultChangeAndConversions() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "level", "property_type": "double", "default_value": 2.5,
                  "type_history": [{ "until_version": "2.0", "property_type": "int", "default_value": 1, "lossy_conversion": true }] },
                { "name": "code", "property_type": "string", "type_history": [{ "until_version": "2.0", "property_type": "int" }] }
                """)
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO item (id, name, level, code) VALUES (1, 'a', 3, 42), (2, 'b', -9007199254740991, -1)")
        }
        defer { folder.remove() }
        let converted = try rows(path, "SELECT id, typeof(level), level, typeof(code), code FROM item ORDER BY id")
        #expect(converted == [["1", "real", "3.0", "text", "42"], ["2", "real", "-9007199254740991.0", "text", "-1"]], "\(converted)")
        try withDatabase(path) { (db: Database) throws in
            try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (3, 'c', 'x')")
            #expect(try Double.fetchOne(db, sql: "SELECT level FROM item WHERE id = 3") == 2.5)
        }
    }

    @Test func lossyTypeChangeNeedsTheAppsCode() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] }
                """)
        ])
        #expect(
            throws: PlanningError.noRoute(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"),
                blocked: [
                    NotInferable(
                        from: SchemaVersion("1.0"), to: SchemaVersion("2.0"),
                        reasons: ["item.code: string → int cannot convert every value exactly: not every text is a valid int"],
                        tables: ["item"])
                ])
        ) {
            try MigrationPlanner(versions: versions).plan(from: SchemaVersion("1.0"))
        }
    }

    @Test func addRemoveAndRenameEntities() throws {
        let versions = try resolveSchemas([
            "item.json": item(["1.0", "2.0"], #"{ "name": "name", "property_type": "string" }"#),
            "book.json": """
            { "name": "book", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0", "previous_name": "volume" }],
              "properties": [{ "name": "title", "property_type": "string" }] }
            """,
            "shelf.json": """
            { "name": "shelf", "identifier": { "type": "int" }, "version_history": [{ "version": "2.0" }],
              "properties": [{ "name": "label", "property_type": "string" }] }
            """,
            "old.json": """
            { "name": "old", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "removed_at_version": "2.0",
              "properties": [{ "name": "x", "property_type": "string" }] }
            """,
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO volume (id, title) VALUES (1, 'Dune'), (2, 'Emma')")
            try db.execute(sql: "INSERT INTO old (id, x) VALUES (1, 'bye')")
        }
        defer { folder.remove() }
        #expect(try rows(path, "SELECT id, title FROM book ORDER BY id") == [["1", "Dune"], ["2", "Emma"]])
        #expect(
            try rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'lucid%' ORDER BY name") == [
                ["book"], ["item"], ["shelf"],
            ])
    }

    static let owner = """
        { "name": "owner", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "name", "property_type": "string" }] }
        """

    @Test func relationshipsAddRemoveRenameAndToOneBecomesToMany() throws {
        // 2.0: holder becomes to-many; maker is renamed creator; seller is removed; buyer is added.
        let versions = try resolveSchemas([
            "owner.json": Self.owner,
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "holder", "property_type": { "entity_name": "owner", "association": "to_many" },
                  "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true }] },
                { "name": "creator", "previous_name": "maker", "renamed_at_version": "2.0", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true },
                { "name": "seller", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true, "removed_at_version": "2.0" },
                { "name": "buyer", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true, "added_at_version": "2.0" }
                """),
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob')")
            try db.execute(
                sql:
                    "INSERT INTO item (id, name, holder, maker, seller) VALUES (10, 'a', 1, 2, 1), (11, 'b', NULL, NULL, 2), (12, 'c', 2, 1, NULL)"
            )
        }
        defer { folder.remove() }
        #expect(try rows(path, "SELECT source_id, target_id FROM item_holder ORDER BY source_id") == [["10", "1"], ["12", "2"]])
        #expect(
            try rows(path, "SELECT id, creator, buyer FROM item ORDER BY id") == [["10", "2", nil], ["11", nil, nil], ["12", "1", nil]])
        #expect(try rows(path, "SELECT count(*) FROM pragma_table_info('item') WHERE name IN ('holder', 'maker', 'seller')") == [["0"]])
        #expect(
            try rows(path, "SELECT \"table\", \"from\" FROM pragma_foreign_key_list('item') ORDER BY \"from\"") == [
                ["owner", "buyer"], ["owner", "creator"],
            ])
    }

    @Test func toManyBecomesToOneKeepsSingleLinksAndRefusesToLoseData() throws {
        let versions = try resolveSchemas([
            "owner.json": Self.owner,
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "holder", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true,
                  "type_history": [{ "until_version": "2.0", "property_type": { "entity_name": "owner", "association": "to_many" } }] }
                """),
        ])
        let (path, folder) = try migrate(versions) { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob')")
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (10, 'a'), (11, 'b')")
            try db.execute(sql: "INSERT INTO item_holder (source_id, target_id) VALUES (10, 2)")
        }
        defer { folder.remove() }
        #expect(try rows(path, "SELECT id, holder FROM item ORDER BY id") == [["10", "2"], ["11", nil]])

        let lossy = try TemporaryFolder()
        defer { lossy.remove() }
        let lossyPath = lossy.path("store.sqlite")
        let store = try LucidStore.create(atPath: lossyPath, versions: versions, version: versions[0].version)
        try store.write { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ann'), (2, 'Bob')")
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (10, 'a')")
            try db.execute(sql: "INSERT INTO item_holder (source_id, target_id) VALUES (10, 1), (10, 2)")
        }
        try store.close()
        let before = fileBytes(lossyPath)
        #expect {
            try LucidStore.open(atPath: lossyPath, versions: versions).database
        } throws: { error in
            guard case StoreError.dataWouldBeLost(_, let message) = error else { return false }
            return message.contains("has 2 links in item_holder")
        }
        #expect(fileBytes(lossyPath) == before, "a refused migration leaves the file byte-identical")
    }

    @Test func deferredCleanupKeepsTheStoreUsableAndFinishesLater() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "gone", "property_type": "string", "nullable": true, "removed_at_version": "2.0" }
                """),
            "old.json": """
            { "name": "old", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "removed_at_version": "2.0",
              "properties": [{ "name": "x", "property_type": "string" }] }
            """,
        ])
        var options = StoreOptions()
        options.deferCleanup = true
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write { db in try db.execute(sql: "INSERT INTO item (id, name, gone) VALUES (1, 'a', 'x')") }
        try created.close()
        let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
        try database.write { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "2.0")
            #expect(try db.tableExists("old"), "the drop is deferred")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM lucid_pending_cleanup") == 2)
            // Fully usable meanwhile.
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (2, 'b')")
        }
        // Reopening validates with the pending items tolerated.
        try database.close()
        let reopened = try LucidStore.open(atPath: path, versions: versions, options: options).database
        #expect(try LucidStore.finishDeferredCleanup(reopened, history: SchemaHistory(versions: versions)) == 2)
        try reopened.read { (db: Database) throws in
            #expect(try !db.tableExists("old"))
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info('item') WHERE name = 'gone'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM lucid_pending_cleanup") == 0)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY id") == ["a", "b"])
        }
    }

    @Test func driftedStoreIsRefusedWithATableLevelDiffBeforeAnyStep() throws {
        let versions = try resolveSchemas([
            "item.json": item(
                ["1.0", "2.0"],
                """
                { "name": "name", "property_type": "string" },
                { "name": "count", "property_type": "int", "default_value": 0, "added_at_version": "2.0" }
                """)
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("drifted.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        // Someone changed the table behind lucidgen's back.
        try created.write { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN rogue TEXT")
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')")
        }
        try created.close()
        let before = fileBytes(path)
        #expect {
            try LucidStore.open(atPath: path, versions: versions).database
        } throws: { error in
            // The change behind lucidgen's back changed the schema cookie: the tables are checked against
            // the record before any step, and the drift is refused there.
            guard case StoreError.recordContradictsTables(_, let version, let differences, let tablesMatch) = error else { return false }
            return version == SchemaVersion("1.0") && differences == ["table item: expected no column rogue, found rogue TEXT"]
                && tablesMatch == nil
        }
        #expect(fileBytes(path) == before, "nothing was changed")
        #expect(try version(path) == "1.0")
    }
}
