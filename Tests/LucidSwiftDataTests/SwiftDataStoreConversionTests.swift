import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// A SwiftData user's store converts as a Core Data store does, with the `.coredata/origin.json` that
/// `import swiftdata` writes. The store is written by hand in the layout published SwiftData stores show
/// (`Docs: Coming from SwiftData`, "What a SwiftData store holds"): one `Z<CLASS>` table per `@Model` class
/// with `Z_PK`, `Z_ENT`, `Z_OPT`; integers and Bools `INTEGER`, dates `TIMESTAMP` (seconds since 2001),
/// strings and URLs `VARCHAR`, UUIDs 16-byte `BLOB`s; a to-one `Z<NAME> INTEGER`; a many-to-many in a
/// `Z_<n><NAME>` join table; `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`; persistent history's tables, which
/// SwiftData turns on; named `default.store`, its last rows still in the WAL.
@Suite struct SwiftDataStoreConversionTests {
    static func reference(_ iso: String) -> Double {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: iso)!.timeIntervalSinceReferenceDate
    }

    /// The garden app's store at 2.0.0 (PlantSchemaV2), as SwiftData writes it.
    /// `secondNoteDate` nil writes a row the model contradicts (a non-optional date that is NULL).
    static func writeStore(in folder: URL, secondNoteDate: Double? = reference("2024-07-01T00:00:00Z")) throws -> String {
        let working = folder.appendingPathComponent("working")
        try FileManager.default.createDirectory(at: working, withIntermediateDirectories: true)
        let path = working.appendingPathComponent("default.store").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            // Entity numbers: Core Data numbers the model's entities by name (Note 1, Photo 2, Plant 3, Reminder 4).
            try db.execute(
                sql: """
                    CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLANT INTEGER, ZDATE TIMESTAMP, ZTITLE VARCHAR, ZID BLOB );
                    CREATE TABLE ZPHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLANT INTEGER, ZURL VARCHAR, ZID BLOB );
                    CREATE TABLE ZPLANT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPROFILEPIC INTEGER, ZDATEPURCHASED TIMESTAMP, ZDETAILS VARCHAR, ZNAME VARCHAR, ZTYPE VARCHAR, ZID BLOB );
                    CREATE TABLE ZREMINDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLANT INTEGER, ZDATE TIMESTAMP, ZTITLE VARCHAR, ZID BLOB );
                    CREATE TABLE Z_1PHOTOS ( Z_1NOTES INTEGER, Z_2PHOTOS INTEGER, PRIMARY KEY (Z_1NOTES, Z_2PHOTOS) );
                    CREATE INDEX Z_1PHOTOS_Z_2PHOTOS_INDEX ON Z_1PHOTOS (Z_2PHOTOS, Z_1NOTES);
                    CREATE INDEX ZNOTE_ZPLANT_INDEX ON ZNOTE (ZPLANT);
                    CREATE INDEX ZPHOTO_ZPLANT_INDEX ON ZPHOTO (ZPLANT);
                    CREATE INDEX ZPLANT_ZPROFILEPIC_INDEX ON ZPLANT (ZPROFILEPIC);
                    CREATE INDEX ZREMINDER_ZPLANT_INDEX ON ZREMINDER (ZPLANT);
                    CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
                    CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 2), (2, 'Photo', 0, 2), (3, 'Plant', 0, 1), (4, 'Reminder', 0, 1),
                      (16001, 'CHANGE', 0, 1), (16002, 'TRANSACTION', 0, 1), (16003, 'TRANSACTIONSTRING', 0, 1);
                    INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'NSCloudKitMirroringDelegate.import');
                    INSERT INTO ATRANSACTION VALUES (1, 16002, 1, 1, NULL, NULL, NULL, 760000000.5, NULL, NULL, NULL, NULL, NULL);
                    INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 3, 1, 1, NULL);
                    """)
            let plist: [String: Any] = [
                "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1522, "NSStoreModelVersionHashesVersion": 3,
                "NSStoreModelVersionIdentifiers": ["2.0.0"], "NSStoreUUID": "A1B2C3D4-0000-4000-8000-00000000000A",
                "NSStoreModelVersionHashes": Dictionary(
                    uniqueKeysWithValues: ["Note", "Photo", "Plant", "Reminder"].map { ($0, Data(repeating: 9, count: 32)) }),
            ]
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'A1B2C3D4-0000-4000-8000-00000000000A', ?)", arguments: [data])
            try db.execute(
                sql: """
                    INSERT INTO ZPHOTO VALUES (1, 2, 2, 1, 'file:///var/mobile/Documents/ficus-1.jpg', ?), (2, 2, 1, 1, 'file:///var/mobile/Documents/ficus-2.jpg', ?);
                    INSERT INTO ZPLANT VALUES (1, 3, 4, 1, ?, 'water weekly', 'Ficus', 'tree', ?);
                    INSERT INTO ZNOTE VALUES (1, 1, 1, 1, ?, 'Repotted', ?), (2, 1, 1, 1, ?, 'New leaf', ?);
                    INSERT INTO Z_1PHOTOS VALUES (1, 1), (1, 2), (2, 2);
                    INSERT INTO ZREMINDER VALUES (1, 4, 1, 1, ?, 'Water', ?);
                    """,
                arguments: [
                    Data(repeating: 0xA1, count: 16), Data(repeating: 0xA2, count: 16),
                    reference("2024-05-01T10:00:00Z") + 0.25, Data(repeating: 0xB1, count: 16),
                    reference("2024-06-02T08:30:00Z"), Data(repeating: 0xC1, count: 16), secondNoteDate,
                    Data(repeating: 0xC2, count: 16),
                    reference("2024-05-08T10:00:00Z"), Data(repeating: 0xD1, count: 16),
                ])
        }
        let store = folder.appendingPathComponent("default.store").path
        try FileManager.default.copyItem(atPath: path, toPath: store)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: store + "-wal")
        try queue.close()
        return store
    }

    /// The garden app's history imported and generated, and a folder for its store.
    static func garden() throws -> (SwiftDataApp.Imported, GeneratedHistory, URL) {
        let app = try SwiftDataApp(GardenHistoryTests.files)
        defer { app.remove() }
        let imported = try app.imported()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (imported, try GeneratedHistory(imported), folder)
    }

    @Test func aSwiftDataStoreConvertsWithItsLinksAndMigratesThroughTheCustomStage() throws {
        let (imported, generated, folder) = try Self.garden()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.writeStore(in: folder)

        // The custom stage ported: the photo's file name, which SwiftData's code took from its URL.
        let stage = MigrationStage(
            from: SchemaVersion("2.0.0"), to: SchemaVersion("3.0.0"), label: "migrateV2toV3",
            willMigrate: { db in
                try db.execute(
                    sql:
                        "CREATE TEMP TABLE photo_names AS SELECT id, replace(url, rtrim(url, replace(url, '/', '')), '') AS name FROM photo"
                )
            },
            didMigrate: { db in
                try db.execute(
                    sql: "UPDATE photo SET file_name = (SELECT name FROM photo_names n WHERE n.id = photo.id); DROP TABLE photo_names")
            })
        var options = StoreOptions()
        options.coreDataOrigin = try CoreDataOrigin(json: Data(imported.output.origin.utf8))
        options.stages = [stage]
        let explicit = generated.result.model.customSteps.map {
            ExplicitStage(from: $0.from, to: $0.to, label: $0.label, transformedTables: $0.tables.map(\.table))
        }
        let opened = try LucidStore.open(
            atPath: store, history: SchemaHistory(versions: generated.result.model.schemas, stages: explicit), options: options)
        defer { try? opened.database.close() }
        #expect(opened.outcome.start == .version(SchemaVersion("2.0.0"), adopted: true), "\(opened.outcome)")
        #expect(opened.outcome.steps.first?.label == "converted from Core Data (model PlantSchemaV2) at 2.0.0", "\(opened.outcome)")
        #expect(opened.outcome.finalVersion == SchemaVersion("4.0.0"))
        try opened.database.read { db in
            let plant = try #require(try Row.fetchOne(db, sql: "SELECT * FROM plant"))
            #expect(plant["id"] as Int64 == 1 && plant["name"] as String == "Ficus" && plant["details"] as String == "water weekly")
            #expect(plant["date_purchased"] as String == "2024-05-01 10:00:00.250")
            #expect(plant["core_data_id"] as Data == Data(repeating: 0xB1, count: 16))
            #expect(plant["profile_pic"] as Int64 == 1)
            #expect(
                try Row.fetchAll(db, sql: "SELECT id, identifier, plant, hex(core_data_id) FROM photo ORDER BY id").map {
                    [$0[0], $0[1], $0[2], $0[3]] as [DatabaseValue]
                }
                    == [
                        [1.databaseValue, "ficus-1.jpg".databaseValue, 1.databaseValue, String(repeating: "A1", count: 16).databaseValue],
                        [2.databaseValue, "ficus-2.jpg".databaseValue, 1.databaseValue, String(repeating: "A2", count: 16).databaseValue],
                    ])
            // The many-to-many's links, from SwiftData's join table.
            #expect(
                try Row.fetchAll(db, sql: "SELECT source_id, target_id FROM note_photos ORDER BY source_id, target_id").map {
                    [$0[0] as Int64, $0[1] as Int64]
                }
                    == [[1, 1], [1, 2], [2, 2]])
            #expect(try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY id") == ["Repotted", "New leaf"])
            let reminder = try #require(try Row.fetchOne(db, sql: "SELECT title, date, plant, frequency, monthly_interval FROM reminder"))
            #expect(reminder["title"] as String == "Water" && reminder["date"] as String == "2024-05-08 10:00:00.000")
            #expect(reminder["plant"] as Int64 == 1 && reminder["frequency"] as String == "" && reminder["monthly_interval"] as Int64 == 0)
            // Nothing of Core Data's is left.
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z%' OR name LIKE 'A%'").isEmpty)
        }
    }

    @Test func aStoreWhoseRowsContradictTheModelIsRefusedAndLeftAsItWas() throws {
        let (imported, generated, folder) = try Self.garden()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.writeStore(in: folder, secondNoteDate: nil)
        let before = try [store, store + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        var options = StoreOptions()
        options.coreDataOrigin = try CoreDataOrigin(json: Data(imported.output.origin.utf8))
        #expect {
            _ = try LucidStore.open(atPath: store, versions: generated.result.model.schemas, options: options)
        } throws: { error in
            "\(error)".contains("NOT NULL constraint failed: note.date; the store is the Core Data store it was, unchanged")
        }
        #expect(try [store, store + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }
}
