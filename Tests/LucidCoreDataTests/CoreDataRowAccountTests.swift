import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every row of a Core Data store accounted for, placed as Core Data reads it: planted Shop and Zoo stores
/// (`CoreDataConversionTests.writeStore`) with rows Core Data keeps and lucidgen used to lose or refuse.
@Suite struct CoreDataRowAccountTests {
    typealias Shop = CoreDataConversionTests.Shop

    static func store(_ change: String, model: String = "Shop") throws -> (Shop, TemporaryFolder, String) {
        let shop = try CoreDataConversionTests.shop()
        let folder = try TemporaryFolder()
        let path = try CoreDataConversionTests.writeStore(shop, model: model, in: folder)
        try withDatabase(path) { db in try db.execute(sql: change) }
        return (shop, folder, path)
    }

    static func files(_ path: String) throws -> [Data] {
        try [path, path + "-wal", path + "-shm"].filter { FileManager.default.fileExists(atPath: $0) }.map {
            try Data(contentsOf: URL(fileURLWithPath: $0))
        }
    }

    /// A table that holds one entity and no subentities: Core Data reads each of its rows as that entity,
    /// whatever its `Z_ENT` (a row an older model wrote), and so does the conversion, counting them.
    @Test func aRowWithAnotherEntitysNumberInASingleEntityTableIsConvertedAndCounted() throws {
        let (shop, folder, path) = try Self.store(
            "INSERT INTO ZPRODUCT (Z_PK, Z_ENT, Z_OPT, ZSKU, ZTITLE) VALUES (4, 9, 1, 'D-4', 'Drum'), (5, NULL, 1, 'E-5', 'Easel')")
        defer { folder.remove() }
        let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
        #expect(status.coreDataConversion?.entities.first { $0.name == "Product" }?.rows == 5)
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(
            report.entities.map { "\($0.name) \($0.source) → \($0.table): \($0.rows)" } == [
                "Customer ZCUSTOMER → customer: 2", "Order ZORDER → order: 2", "Product ZPRODUCT → product: 5",
            ])
        #expect(report.links.map { "\($0.name) → \($0.table): \($0.rows)" } == ["Order.items → order_items: 4"])
        #expect(
            report.notes == [
                "ZPRODUCT: 1 row has Z_ENT NULL, not Product's 3: read as Product, as Core Data reads every row of ZPRODUCT",
                "ZPRODUCT: 1 row has Z_ENT 9, not Product's 3: read as Product, as Core Data reads every row of ZPRODUCT",
            ])
        #expect(report == status.coreDataConversion)
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT sku FROM product ORDER BY id") == ["A-1", "B-2", "C-3", "D-4", "E-5"])
        }
        try opened.database.close()
    }

    /// A hierarchy's table: a row whose `Z_ENT` is no entity of it (unknown, or NULL) is refused before any
    /// change, naming the table, the first ids and why.
    @Test(arguments: [
        ("9", "(Z_ENT 9: no entity of the store)"), ("NULL", "(Z_ENT NULL: no entity (NULL))"),
        ("3", "(Z_ENT 3: entity Keeper, which is not of this hierarchy)"),
    ])
    func aRowNoEntityOfAHierarchyClaimsIsRefusedByteIdentical(number: String, why: String) throws {
        let zoo = try CoreDataConversionTests.imported(
            CoreDataConversionTests.repository.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/Zoo.xcdatamodeld").path)
        var options = StoreOptions()
        options.coreDataOrigin = zoo.origin
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("Zoo.sqlite")
        try withDatabase(path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZANIMAL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBARKS INTEGER, ZKEEPER INTEGER, ZNAME VARCHAR );
                    CREATE TABLE ZKEEPER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Animal', 0, 7), (2, 'Dog', 1, 0), (3, 'Keeper', 0, 1);
                    INSERT INTO ZKEEPER VALUES (1, 3, 1, 'Kim');
                    INSERT INTO ZANIMAL (Z_PK, Z_ENT, Z_OPT, ZNAME, ZKEEPER, ZBARKS) VALUES (1, 1, 1, 'Generic', NULL, NULL), (2, 2, 1, 'Rex', 1, 1), (7, \(number), 1, 'Who', NULL, NULL);
                    """)
        }
        let before = try Self.files(path)
        for attempt in ["plan", "open"] {
            #expect {
                if attempt == "plan" {
                    _ = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: zoo.versions), coreDataOrigin: zoo.origin)
                } else {
                    _ = try LucidStore.open(atPath: path, versions: zoo.versions, options: options).database
                }
            } throws: { error in
                guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
                return differences.contains {
                    $0.contains("ZANIMAL has 1 row that no entity of model Zoo can claim (first: 7 \(why)): nothing was changed")
                }
            }
        }
        #expect(try Self.files(path) == before)
    }

    /// A to-one or join row naming a row that does not exist (Core Data keeps it, and faults when it is
    /// read): NULL / no link, each one listed; every other row and link converted.
    @Test func aDanglingToOneAndJoinRowBecomeNullAndNoLinkEachListed() throws {
        let (shop, folder, path) = try Self.store(
            "UPDATE ZORDER SET ZCUSTOMER = 77 WHERE Z_PK = 2; INSERT INTO Z_2ITEMS VALUES (2, 55, 2048), (66, 1, 1024)")
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.links.map(\.rows) == [4])
        #expect(
            report.notes == [
                "ZORDER row 2: ZCUSTOMER is 77, and no Customer has that id: order.customer NULL",
                "Z_2ITEMS row (Z_2ORDERS 2, Z_3ITEMS 55) names a row that does not exist (Order or Product): no link in order_items",
                "Z_2ITEMS row (Z_2ORDERS 66, Z_3ITEMS 1) names a row that does not exist (Order or Product): no link in order_items",
            ])
        try opened.database.read { (db: Database) throws in
            #expect(
                try Row.fetchAll(db, sql: "SELECT id, customer FROM \"order\" ORDER BY id").map { [$0[0], $0[1]] as [DatabaseValue] } == [
                    [1.databaseValue, 1.databaseValue], [2.databaseValue, .null],
                ])
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") == [3, 1, 2])
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 2") == [1])
        }
        try opened.database.close()
        // The copy kept beside it has the original.
        let backup = try DatabaseQueue(path: path + ".coredata-backup")
        #expect(try backup.read { db in try Int.fetchOne(db, sql: "SELECT ZCUSTOMER FROM ZORDER WHERE Z_PK = 2") } == 77)
        try backup.close()
    }

    /// Core Data names a join table's column with a number after it when another join table of the entity
    /// has the name (`Z_2ARTISTS1`, as Artsy Folio's store has): found by its columns, its order read.
    @Test func aJoinTableWhoseColumnsHaveANumberAfterTheNameIsFound() throws {
        let (shop, folder, path) = try Self.store(
            """
            ALTER TABLE Z_2ITEMS RENAME COLUMN Z_3ITEMS TO Z_3ITEMS1; ALTER TABLE Z_2ITEMS RENAME COLUMN Z_FOK_3ITEMS TO Z_FOK_3ITEMS1;
            ALTER TABLE Z_2ITEMS RENAME COLUMN Z_2ORDERS TO Z_2ORDERS2; ALTER TABLE Z_2ITEMS RENAME TO Z_3ORDERS
            """)
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        #expect(opened.outcome.coreDataConversion?.links.map { "\($0.source) → \($0.table): \($0.rows)" } == ["Z_3ORDERS → order_items: 4"])
        try opened.database.read { (db: Database) throws in
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") == [3, 1, 2])
            #expect(try !db.tableExists("Z_3ORDERS"))
        }
        try opened.database.close()
        #expect(
            CoreDataConverter.isJoinColumn("Z_2ARTISTS1", named: "Z_2ARTISTS")
                && CoreDataConverter.isJoinColumn("Z_2ARTISTS", named: "Z_2ARTISTS"))
        #expect(
            !CoreDataConverter.isJoinColumn("Z_2ARTISTSX", named: "Z_2ARTISTS")
                && !CoreDataConverter.isJoinColumn("Z_2ARTISTS01", named: "Z_2ARTISTS"))
    }

    /// `Z_MAX` -1 is "not recorded" (Artsy Folio's store has it for entities with rows): the next id follows
    /// the largest `Z_PK`.
    @Test func zMaxOfMinusOneMeansTheNextIdFollowsTheLargest() throws {
        let (shop, folder, path) = try Self.store("UPDATE Z_PRIMARYKEY SET Z_MAX = -1 WHERE Z_NAME IN ('Customer', 'Product')")
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        try opened.database.write { (db: Database) throws in
            try db.execute(sql: "INSERT INTO client (name, vip) VALUES ('Cy', 0)")
            #expect(db.lastInsertedRowID == 4)
            try db.execute(sql: "INSERT INTO product (sku) VALUES ('F-6')")
            #expect(db.lastInsertedRowID == 4)
        }
        try opened.database.close()
    }

    /// `Z_NAME` never selects a table of the app's: an entity number of Core Data's own range naming
    /// `APPLOG` leaves the app's APPLOG as it was.
    @Test func aZNameNamingAnAppTableNeverDropsIt() throws {
        let (shop, folder, path) = try Self.store(
            """
            CREATE TABLE APPLOG (line TEXT); INSERT INTO APPLOG VALUES ('kept');
            CREATE TABLE AAPPLOG (line TEXT); INSERT INTO AAPPLOG VALUES ('kept too');
            INSERT INTO Z_PRIMARYKEY VALUES (16010, 'APPLOG', 0, 1)
            """)
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT line FROM APPLOG") == ["kept"])
            #expect(try String.fetchAll(db, sql: "SELECT line FROM AAPPLOG") == ["kept too"])
        }
        try opened.database.close()
    }

    /// A project that never imported Core Data opening a store whose `Z_PRIMARYKEY` holds a value of
    /// another type: refused as a Core Data store, never a crash.
    @Test func aStoreWithBookkeepingOfAnotherTypeIsRefusedWithoutAnOrigin() throws {
        let (shop, folder, path) = try Self.store(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 'x', Z_SUPER = 2.5 WHERE Z_NAME = 'Customer'; UPDATE Z_PRIMARYKEY SET Z_NAME = X'00' WHERE Z_ENT = 2"
        )
        defer { folder.remove() }
        let before = try Self.files(path)
        #expect {
            _ = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions))
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains { $0.contains("it is a Core Data store (Z_PRIMARYKEY and Z_METADATA; entities Product)") }
                && differences.contains("its Z_PRIMARYKEY row 1: Z_MAX is the text 'x', not an integer")
        }
        #expect { _ = try LucidStore.open(atPath: path, versions: shop.versions).database } throws: { $0 is StoreError }
        #expect(try Self.files(path) == before)
    }

    /// No version's layout: the refusal names the version whose entities the store has and what of it
    /// differs, column by column (not the version with the fewest differences, which has other entities).
    /// (A drift that is not inferable: Client.name is required with no default.)
    @Test func aStoreThatIsNoVersionIsToldAboutTheVersionWithItsEntities() throws {
        let (shop, folder, path) = try Self.store(
            "ALTER TABLE ZORDER DROP COLUMN ZNOTE; ALTER TABLE ZCLIENT DROP COLUMN ZNAME", model: "Shop 3")
        defer { folder.remove() }
        #expect {
            _ = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop)).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains(
                    "the versions with the store's entities or named by its version hashes: model Shop 3 (3.0, the store has its entities): ZCLIENT has no column ZNAME; ZORDER has no column ZNOTE; the nearest is model Shop 3 (3.0, 2 differences), and not every difference can be taken without data of its own: ZCLIENT has no column ZNAME, which model Shop 3 has: Client.name (client.name) is required and has no default, and 2 rows of Client would need a value; nothing was changed"
                )
            }
        }
    }

    /// Externally stored values are read only from regular files inside the store's `_EXTERNAL_DATA`:
    /// a link (to a file outside, or the folder itself a link) or a FIFO is refused, never followed or opened.
    @Test(arguments: ["file link", "folder link", "fifo"])
    func anExternalValueIsReadOnlyFromARegularFileInItsFolder(kind: String) throws {
        let shop = try CoreDataConversionTests.shop()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try CoreDataConversionTests.writeStore(shop, model: "Shop", in: folder)
        try withDatabase(path) { _ in } // its WAL recovered, as any first open does
        let external = folder.path(".Shop_SUPPORT/_EXTERNAL_DATA")
        let file = (external as NSString).appendingPathComponent(CoreDataConversionTests.externalName)
        let secret = folder.path("secret")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: secret))
        switch kind {
        case "file link":
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: secret)
        case "folder link":
            let elsewhere = folder.path("elsewhere")
            try FileManager.default.moveItem(atPath: external, toPath: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: external, withDestinationPath: elsewhere)
        default:
            try FileManager.default.removeItem(atPath: file)
            #expect(mkfifo(file, 0o600) == 0)
        }
        let before = try Self.files(path)
        #expect {
            _ = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop)).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains("Customer 3: its value would be read from")
                    && $0.contains("only regular files inside the store's _EXTERNAL_DATA folder are read")
            }
        }
        #expect(try Self.files(path) == before)
    }

    /// Text in a Binary or Transformable column: Core Data reads its bytes, so the conversion keeps them as
    /// bytes (never the text as it is) and lists the row in the report.
    @Test func textInABinaryColumnIsKeptAsItsBytesAndListed() throws {
        let (shop, folder, path) = try Self.store("UPDATE ZCUSTOMER SET ZPREFS = 'plain' WHERE Z_PK = 3")
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        defer { try? opened.database.close() }
        #expect(
            opened.outcome.coreDataConversion?.notes == [
                "ZCUSTOMER row 3: ZPREFS (Customer.prefs, Transformable) is the text 'plain': kept as its bytes, as Core Data reads it"
            ])
        let stored = try opened.database.read { db in try Row.fetchOne(db, sql: "SELECT typeof(prefs), prefs FROM client WHERE id = 3") }
        #expect(stored?[0] == "blob")
        #expect(stored?[1] == Data("plain".utf8))
    }

    /// A binary property list in `Z_METADATA` is decoded within ``CoreDataMetadata/limits``: real metadata
    /// decodes; objects whose references expand to billions, a cycle, a trailer that lies do not, and the
    /// store's hashes are then unknown (they only pick among versions, so the conversion goes on).
    @Test func aMetadataPropertyListBombIsNotDecoded() throws {
        let real = try PropertyListSerialization.data(
            fromPropertyList: ["NSStoreModelVersionHashes": ["Note": Data(repeating: 1, count: 32)]], format: .binary, options: 0)
        #expect((try? BoundedPropertyList.decode(real, limits: CoreDataMetadata.limits)) != nil)
        // 60 arrays, each holding the next twice: 2^60 objects once decoded (BoundedPropertyListTests has
        // the other shapes).
        var bytes = Array("bplist00".utf8)
        for index in 1...60 { bytes += [0xA2, UInt8(index), UInt8(index)] }
        bytes += [0x08] // false
        let table = bytes.count
        bytes += (0...60).map { UInt8(8 + $0 * 3) }
        func bigEndian(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(61) + bigEndian(0) + bigEndian(table)
        let bomb = Data(bytes)
        #expect((try? BoundedPropertyList.decode(bomb, limits: CoreDataMetadata.limits)) == nil)
        // In a store: the bomb is not decoded, so the store's hashes are unknown; the conversion goes on.
        let (shop, folder, path) = try Self.store("DELETE FROM Z_METADATA")
        defer { folder.remove() }
        try withDatabase(path) { db in try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'x', ?)", arguments: [bomb]) }
        try withDatabase(path) { (db: Database) throws in #expect(try CoreDataMetadata.storedHashes(db) == nil) }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        #expect(opened.outcome.coreDataConversion?.entities.count == 3)
        try opened.database.close()
    }
}

extension CoreDataRowAccountTests {
    /// The refusal also names the version the store's `NSStoreModelVersionHashes` name (the compiled
    /// model's hashes imported with `--momd`), with its differences, though its entities are not the store's.
    @Test func aRefusalNamesTheVersionTheStoresHashesName() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.path("Notes.xcdatamodeld")
        let models = [
            ("Notes", #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity>"#),
            (
                "Notes 2",
                #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity><entity name="Tag"><attribute name="label" optional="YES" attributeType="String"/></entity>"#
            ),
        ]
        for (name, entities) in models {
            try FileManager.default.createDirectory(atPath: package + "/\(name).xcdatamodel", withIntermediateDirectories: true)
            try "<?xml version=\"1.0\"?>\n<model>\(entities)</model>".write(
                toFile: package + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
        }
        let hashes = [
            "Notes": ["Note": Data(repeating: 1, count: 32)],
            "Notes 2": ["Note": Data(repeating: 2, count: 32), "Tag": Data(repeating: 3, count: 32)],
        ]
        let momd = folder.path("Notes.momd")
        try FileManager.default.createDirectory(atPath: momd, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_VersionHashes": hashes], format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: momd + "/VersionInfo.plist"))
        let notes = try CoreDataConversionTests.imported(package, versionHashes: try CoreDataImporter.versionHashes(momd: momd))
        let path = folder.path("Notes.sqlite")
        try withDatabase(path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBODY INTEGER );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 1);
                    INSERT INTO ZNOTE VALUES (1, 1, 1, 'hello');
                    """)
            let plist = try PropertyListSerialization.data(
                fromPropertyList: ["NSStoreModelVersionHashes": hashes["Notes 2"]!], format: .binary, options: 0)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'x', ?)", arguments: [plist])
        }
        var options = StoreOptions()
        options.coreDataOrigin = notes.origin
        #expect {
            _ = try LucidStore.open(atPath: path, versions: notes.versions, options: options).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains(
                    "model Notes (1.0, the store has its entities): ZNOTE.ZBODY is INTEGER, not VARCHAR | model Notes 2 (2.0, the store has its version hashes): model Notes 2 has entity Tag, which the store does not; ZNOTE.ZBODY is INTEGER, not VARCHAR; the nearest is model Notes (1.0, 1 difference)"
                )
            }
        }
    }
}
