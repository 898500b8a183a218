import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// App stages with will/did hooks, taken where they apply, never skipped, rolled back on failure.
@Suite struct StageTests {
    /// 1.0: pilot(name). 2.0: adds `initials` (default ''). 3.0: adds `rank` (default 0).
    func versions() throws -> [Schema] {
        try resolveSchemas([
            "pilot.json": """
            { "name": "pilot", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }, { "version": "3.0" }],
              "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "initials", "property_type": "string", "default_value": "", "added_at_version": "2.0" },
                { "name": "rank", "property_type": "int", "default_value": 0, "added_at_version": "3.0" } ] }
            """
        ])
    }

    func store(_ versions: [Schema], at version: String, _ folder: TemporaryFolder) throws -> String {
        let path = folder.path("store-\(version).sqlite")
        let database = try LucidStore.create(atPath: path, versions: versions, version: try SchemaVersion(parsing: version))
        try database.write { db in
            try db.execute(sql: "INSERT INTO pilot (id, name) VALUES (1, ' amelia earhart '), (2, 'Bessie Coleman'), (3, 'bessie coleman')")
        }
        try database.close()
        return path
    }

    static let tidyAndInitials = MigrationStage(
        from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "tidy names, compute initials",
        willMigrate: { db in
            // At the old schema: no `initials` column yet.
            #expect(
                try !Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info('pilot')").contains { ($0["name"] as String) == "initials" })
            try db.execute(sql: "UPDATE pilot SET name = trim(name)")
            try db.execute(sql: "DELETE FROM pilot WHERE id NOT IN (SELECT min(id) FROM pilot GROUP BY lower(name))")
        },
        didMigrate: { db in
            // At the new schema.
            try db.execute(sql: "UPDATE pilot SET initials = upper(substr(name, 1, 1) || substr(name, instr(name, ' ') + 1, 1))")
        })

    @Test func willAndDidHooksRunAroundTheStepsSQL() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = try store(versions, at: "1.0", folder)
        var options = StoreOptions()
        options.stages = [Self.tidyAndInitials]
        let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
        try database.read { (db: Database) throws in
            let rows = try Row.fetchAll(db, sql: "SELECT id, name, initials, rank FROM pilot ORDER BY id")
            #expect(rows.map { $0["name"] as String } == ["amelia earhart", "Bessie Coleman"])
            #expect(rows.map { $0["initials"] as String } == ["AE", "BC"])
            #expect(rows.map { $0["rank"] as Int } == [0, 0])
            #expect(
                try String.fetchAll(db, sql: "SELECT kind || ' ' || label FROM lucid_migration_log WHERE kind != 'create' ORDER BY id") == [
                    "stage 1.0 → 2.0 (tidy names, compute initials)", "inferred 2.0 → 3.0 (inferred)",
                ])
        }
    }

    @Test func aStageIsNeverSkippedButASkippingStageIsTakenFromItsStartOnly() throws {
        let versions = try versions()
        let skip = MigrationStage(from: SchemaVersion("1.0"), to: SchemaVersion("3.0"), label: "large user base: straight to 3.0")
        let planner = try MigrationPlanner(versions: versions, stages: [Self.tidyAndInitials.explicit(), skip.explicit()])
        #expect(try planner.plan(from: SchemaVersion("1.0")).map(\.label) == ["1.0 → 3.0 (large user base: straight to 3.0)"])
        #expect(try planner.plan(from: SchemaVersion("2.0")).map(\.label) == ["2.0 → 3.0 (inferred)"])
        let withoutSkip = try MigrationPlanner(versions: versions, stages: [Self.tidyAndInitials.explicit()])
        #expect(
            try withoutSkip.plan(from: SchemaVersion("1.0")).map(\.label) == [
                "1.0 → 2.0 (tidy names, compute initials)", "2.0 → 3.0 (inferred)",
            ])
    }

    @Test func aFailingHookRollsTheStepBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = try store(versions, at: "1.0", folder)
        struct Refused: Error {}
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "fails",
                willMigrate: { db in try db.execute(sql: "DELETE FROM pilot") }, didMigrate: { _ in throw Refused() })
        ]
        let before = fileBytes(path)
        #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions, options: options).database }
        #expect(fileBytes(path) == before, "the store stays at 1.0 with every row")
    }
}

extension MigrationStage {
    func explicit() -> ExplicitStage { ExplicitStage(from: from, to: to, label: label) }
}

/// Data-only migrations keyed by version: exactly once per store, recorded with the step.
@Suite struct DataMigrationTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.lock(); value += 1; lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return value }
    }

    @Test func runsExactlyOnceAcrossReopenings() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try StageTests().versions()
        let path = try StageTests().store(versions, at: "1.0", folder)
        let runs = Counter()
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "capitalise") { db in
                runs.increment()
                try db.execute(sql: "UPDATE pilot SET initials = upper(substr(trim(name), 1, 1))")
            }
        ]
        for _ in 0..<3 { try LucidStore.open(atPath: path, versions: versions, options: options).database.close() }
        #expect(runs.count == 1)
        try withDatabase(path) { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT initials FROM pilot ORDER BY id") == ["A", "B", "B"])
            #expect(
                try String.fetchAll(db, sql: "SELECT version || ' ' || label || ' ' || outcome FROM lucid_data_migrations") == [
                    "2.0 capitalise applied"
                ])
        }
    }

    @Test func aFailingDataMigrationNeverAdvancesTheStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try StageTests().versions()
        let path = try StageTests().store(versions, at: "1.0", folder)
        struct Broken: Error {}
        var options = StoreOptions()
        options.dataMigrations = [DataMigration(version: SchemaVersion("2.0"), label: "broken") { _ in throw Broken() }]
        let before = fileBytes(path)
        #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions, options: options).database }
        #expect(fileBytes(path) == before, "the step and its version record were rolled back")
    }

    @Test func newStoresAndLateAdditions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try StageTests().versions()
        let runs = Counter()
        let migration = DataMigration(version: SchemaVersion("2.0"), label: "late") { _ in runs.increment() }
        var options = StoreOptions()
        options.dataMigrations = [migration]
        // Created at the newest version: never needed.
        try LucidStore.open(atPath: folder.path("new.sqlite"), versions: versions, options: options).database.close()
        try LucidStore.open(atPath: folder.path("new.sqlite"), versions: versions, options: options).database.close()
        #expect(runs.count == 0)
        // Migrated before the app shipped the data migration, then opened by the update: runs once.
        let old = try StageTests().store(versions, at: "1.0", folder)
        try LucidStore.open(atPath: old, versions: versions).database.close()
        try LucidStore.open(atPath: old, versions: versions, options: options).database.close()
        try LucidStore.open(atPath: old, versions: versions, options: options).database.close()
        #expect(runs.count == 1)
    }
}

/// Per-row transform stages for changes SQL cannot make.
@Suite struct RowTransformTests {
    /// 1.0: item.code is a string; 2.0: an int (not inferable).
    func versions() throws -> [Schema] {
        try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" },
              "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [
                { "name": "name", "property_type": "string" },
                { "name": "code", "property_type": "int", "type_history": [{ "until_version": "2.0", "property_type": "string" }] } ] }
            """
        ])
    }

    struct OldItem: Codable, Sendable, FetchableRecord { var id: Int; var name: String; var code: String }
    struct NewItem: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"; var id: Int; var name: String; var code: Int
    }

    func store(_ versions: [Schema], _ folder: TemporaryFolder) throws -> String {
        let path = folder.path("codes.sqlite")
        let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try database.write { db in
            try db.execute(sql: "INSERT INTO item (id, name, code) VALUES (1, 'a', ' 42'), (2, 'b', 'n/a'), (3, 'c', '-7')")
        }
        try database.close()
        return path
    }

    @Test func withoutATransformTheStepIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = try store(versions, folder)
        #expect {
            try LucidStore.open(atPath: path, versions: versions).database
        } throws: { error in
            guard case StoreError.planning(.noRoute(_, _, let blocked)) = error else { return false }
            return blocked.first?.tables == ["item"]
        }
    }

    @Test func typedTransformConvertsAndDropsRows() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = try store(versions, folder)
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "parse codes",
                transforms: [
                    .records(table: "item") { (old: OldItem) -> NewItem? in
                        guard let code = Int(old.code.trimmingCharacters(in: .whitespaces)) else { return nil }
                        return NewItem(id: old.id, name: old.name, code: code)
                    }
                ])
        ]
        let database = try LucidStore.open(atPath: path, versions: versions, options: options).database
        let items = try database.read { db in try NewItem.order(Column("id")).fetchAll(db) }
        #expect(items.map(\.code) == [42, -7])
        #expect(items.map(\.name) == ["a", "c"])
        try database.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT typeof(code) FROM item LIMIT 1") == "integer")
            #expect(try String.fetchAll(db, sql: "SELECT kind FROM lucid_migration_log ORDER BY id") == ["create", "stage"])
        }
    }

    @Test func aThrowingTransformRollsBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = try versions()
        let path = try store(versions, folder)
        struct Unparseable: Error {}
        var options = StoreOptions()
        options.stages = [
            MigrationStage(
                from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: "strict",
                transforms: [
                    RowTransform(table: "item") { row in
                        guard let code = Int((row["code"] as String).trimmingCharacters(in: .whitespaces)) else { throw Unparseable() }
                        return ["id": row["id"], "name": row["name"], "code": code.databaseValue]
                    }
                ])
        ]
        let before = fileBytes(path)
        #expect(throws: StoreError.self) { try LucidStore.open(atPath: path, versions: versions, options: options).database }
        #expect(fileBytes(path) == before)
    }
}
