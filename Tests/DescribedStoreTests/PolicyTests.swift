import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// What the app chooses for stores it cannot migrate, and the registry check.
@Suite struct PolicyTests {
    func newerStore(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("newer.sqlite")
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self).database
        try database.write { db in
            try db.execute(sql: "UPDATE lucid_store SET version = '9.0'")
            try Pilot(id: 1, name: "kept", ratings: []).insert(db)
        }
        try database.close()
        return path
    }

    @Test func newerStoreIsRefusedByDefault() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try newerStore(folder)
        #expect {
            try LucidStore.open(atPath: path, registry: FlightLogSchema.self).database
        } throws: { error in
            guard case StoreError.storeIsNewer(let store, let newest) = error else { return false }
            return store == SchemaVersion("9.0") && newest == SchemaVersion("4.0")
        }
    }

    @Test func newerStoreCanBeOpenedReadOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try newerStore(folder)
        var options = StoreOptions()
        options.newerStorePolicy = .openReadOnly
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: options).database
        #expect(try database.read { db in try Pilot.fetchCount(db) } == 1)
        #expect(throws: (any Error).self) { try database.write { db in try db.execute(sql: "DELETE FROM pilot") } }
    }

    @Test func eraseOnlyWhenAsked() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try newerStore(folder)
        var options = StoreOptions()
        options.newerStorePolicy = .eraseAndRecreate
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: options).database
        try database.read { (db: Database) throws in
            #expect(try Pilot.fetchCount(db) == 0)
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "4.0")
        }
    }

    @Test func storeWithoutRecordIsAdoptedWhenItsTablesMatchAVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("plain.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in
            for statement in FlightLogSchema.versions[1].ddl { try db.execute(sql: statement) }
            try db.execute(sql: "INSERT INTO pilot (id, name, ratings) VALUES (1, 'Ann', '[]')")
        }
        try plain.close()
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions()).database
        try database.read { (db: Database) throws in
            #expect(
                try String.fetchAll(db, sql: "SELECT kind || ' ' || to_version FROM lucid_migration_log ORDER BY id") == [
                    "adopt 1.1", "inferred 2.0", "stage 2.1", "inferred 4.0",
                ])
            #expect(try Pilot.fetchOne(db, key: 1)?.name == "Ann")
        }
    }

    /// A store without a record whose tables are the newest version's: the outcome says it was adopted (it once
    /// said "already at 4.0", as for a store lucidgen had opened before).
    @Test func aStoreAdoptedAtTheNewestVersionSaysSo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("plain.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in
            for statement in FlightLogSchema.versions.last!.ddl { try db.execute(sql: statement) }
        }
        try plain.close()
        let opened = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
        defer { try? opened.database.close() }
        #expect(opened.outcome.start == .version(SchemaVersion("4.0"), adopted: true))
        #expect("\(opened.outcome)" == "adopted the store at 4.0: its tables are 4.0's, and lucidgen's record of it is written")
        let again = try LucidStore.open(
            atPath: folder.path("plain.sqlite"), registry: FlightLogSchema.self, options: FlightLogStages.storeOptions())
        defer { try? again.database.close() }
        #expect("\(again.outcome)" == "already at 4.0")
    }

    /// A GRDB app's database that adds lucidgen: its tables are the app's, and the store is created beside them.
    @Test func theAppsOwnTablesStayWhenTheStoreIsCreatedBesideThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("app.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in
            try db.execute(
                sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1')")
            try db.execute(sql: "CREATE TABLE something (x); INSERT INTO something VALUES (42)")
        }
        try plain.close()
        let opened = try LucidStore.open(atPath: path, registry: FlightLogSchema.self)
        let (database, outcome) = (opened.database, opened.outcome)
        #expect(outcome.start == .emptyDatabase && outcome.created)
        try database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT x FROM something") == 42)
            #expect(try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations") == "v1")
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == FlightLogSchema.newestVersion.string)
        }
        try database.close()
    }

    /// Lucidgen's own tables in a shape no version has: refused, the file unchanged.
    @Test func describedTablesOfNoVersionAreUnrecognised() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("foreign.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in try db.execute(sql: "CREATE TABLE pilot (x); CREATE TABLE something (x)") }
        try plain.close()
        let before = fileBytes(path)
        #expect {
            try LucidStore.open(atPath: path, registry: FlightLogSchema.self).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains { $0.hasPrefix("table pilot: expected column") }
                && !differences.contains { $0.contains("something") }
        }
        #expect(fileBytes(path) == before)
    }

    /// A Core Data store (its DDL as Core Data writes it) has none of lucidgen's tables, yet it is no app
    /// database to initialise beside: refused as a Core Data store, the file unchanged, with its WAL.
    @Test func aCoreDataStoreIsRefusedNotInitialisedBeside() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("Notes.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 1);
                    INSERT INTO ZNOTE VALUES (1, 1, 1, 'Hello');
                    """)
        }
        try plain.close()
        let before = fileBytes(path)
        for options in [
            StoreOptions(),
            {
                var o = StoreOptions(); o.versionRecordCheck = .always; return o
            }(),
        ] {
            #expect {
                try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: options).database
            } throws: { error in
                guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
                return differences == [
                    "it is a Core Data store (Z_PRIMARYKEY and Z_METADATA; entities Note), which lucidgen does not convert yet: nothing was changed; import the app's model history with `lucidgen import coredata` (see \"Coming from Core Data\")"
                ]
            }
        }
        #expect(fileBytes(path) == before)
        #expect(
            !FileManager.default.fileExists(atPath: path + "-wal")
                || (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")).count) == 0)
    }
}

/// Several stores migrated together: all or none.
@Suite struct StoreGroupTests {
    @Test func allStoresMigrateOrNoneChanges() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let versions = FlightLogSchema.versions
        func store(_ name: String) throws -> String {
            let path = folder.path(name)
            let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
            try database.write { db in try Pilot_1_0(id: 1, name: name, ratings: []).insert(db) }
            try database.close()
            return path
        }
        let first = try store("first.sqlite")
        let second = try store("second.sqlite")
        // The second store cannot migrate: a newer version recorded.
        try withDatabase(second) { db in try db.execute(sql: "UPDATE lucid_store SET version = '7.0'") }
        let before = [fileBytes(first), fileBytes(second)]
        #expect(throws: StoreError.self) {
            try LucidStore.openTogether(
                [StoreSpec(path: first, registry: FlightLogSchema.self), StoreSpec(path: second, registry: FlightLogSchema.self)],
                options: FlightLogStages.storeOptions()
            ).map(\.database)
        }
        #expect([fileBytes(first), fileBytes(second)] == before, "a failure leaves every store unchanged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["first.sqlite", "second.sqlite"])

        try withDatabase(second) { db in try db.execute(sql: "UPDATE lucid_store SET version = '1.0'") }
        let queues = try LucidStore.openTogether(
            [StoreSpec(path: first, registry: FlightLogSchema.self), StoreSpec(path: second, registry: FlightLogSchema.self)],
            options: FlightLogStages.storeOptions()
        ).map(\.database)
        for (queue, name) in zip(queues, ["first.sqlite", "second.sqlite"]) {
            try queue.read { (db: Database) throws in
                #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "4.0")
                #expect(try Pilot.fetchOne(db, key: 1)?.name == name)
            }
            try queue.close()
        }
    }

    /// Two stores with their own registries, versions and stages of the same numbers: each is migrated with
    /// its own spec's options, so each stage runs on its own store only (with one shared options, a stage
    /// known by its versions would be planned on both).
    @Test func eachStoreMigratesWithItsOwnStages() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func versions(_ table: String, _ added: String) throws -> [Schema] {
            try resolveSchemas([
                "\(table).json": """
                { "name": "\(table)", "identifier": { "type": "int" },
                  "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
                  "properties": [
                    { "name": "title", "property_type": "string" },
                    { "name": "\(added)", "property_type": "int", "default_value": 0, "added_at_version": "2.0" } ] }
                """
            ])
        }
        let entries = try versions("entry", "score")
        let notes = try versions("note", "flag")
        func store(_ name: String, _ versions: [Schema], _ table: String) throws -> String {
            let path = folder.path(name)
            let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
            try database.write { db in try db.execute(sql: "INSERT INTO \(table) (id, title) VALUES (1, 'a')") }
            try database.close()
            return path
        }
        func options(_ label: String, _ sql: String) -> StoreOptions {
            var options = StoreOptions()
            options.stages = [
                MigrationStage(
                    from: SchemaVersion("1.0"), to: SchemaVersion("2.0"), label: label, didMigrate: { db in try db.execute(sql: sql) })
            ]
            return options
        }
        let first = try store("entries.sqlite", entries, "entry")
        let second = try store("notes.sqlite", notes, "note")
        // Both stages in the group's options: two stages for 1.0 → 2.0 on each store, refused with what to do.
        var shared = options("score entries", "UPDATE entry SET score = 7")
        shared.stages += options("flag notes", "UPDATE note SET flag = 1").stages
        #expect {
            try LucidStore.openTogether(
                [StoreSpec(path: first, versions: entries), StoreSpec(path: second, versions: notes)], options: shared
            ).map(\.database)
        } throws: { error in
            (error as? StoreError)?.nextStep.contains("give each StoreSpec its own options") == true
        }
        let queues = try LucidStore.openTogether([
            StoreSpec(path: first, versions: entries, options: options("score entries", "UPDATE entry SET score = 7")),
            StoreSpec(path: second, versions: notes, options: options("flag notes", "UPDATE note SET flag = 1")),
        ]).map(\.database)
        #expect(try queues[0].read { db in try Int.fetchOne(db, sql: "SELECT score FROM entry") } == 7)
        #expect(try queues[1].read { db in try Int.fetchOne(db, sql: "SELECT flag FROM note") } == 1)
        for queue in queues {
            #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT version FROM lucid_store") } == "2.0")
            try queue.close()
        }
    }
}
