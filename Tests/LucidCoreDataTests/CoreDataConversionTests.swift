import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

/// A Core Data store at each model version of the committed Shop history (`lucidgen import coredata`,
/// run in-process) converts in one step into lucidgen's tables and migrates to the newest version, every
/// value equal to what the Core Data rows held: ids and `Z_MAX`, dates to the millisecond, UUID bytes,
/// decimals, an ordered many-to-many's order, a blob stored inline and one stored in `_EXTERNAL_DATA`, with
/// history tracking's tables and a WAL not yet checkpointed. Stores that are not the model's are refused,
/// byte-identical.
@Suite struct CoreDataConversionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Shop {
        var versions: [Schema]
        var origin: CoreDataOrigin
    }

    /// A model package imported in-process (`lucidgen import coredata`), with the schemas its descriptions
    /// resolve to and the origin it writes.
    static func imported(_ path: String, versionMap: String? = nil, versionHashes: [String: [String: Data]] = [:]) throws -> Shop {
        let output = try CoreDataImporter.run(try CoreDataModelPackage.read(path, versionMap: versionMap), versionHashes: versionHashes)
        let versions = try resolveSchemas(
            Dictionary(uniqueKeysWithValues: output.files.map { ("\($0.name).json", $0.json) }), current: output.currentVersion.string)
        return Shop(versions: versions, origin: try CoreDataOrigin(json: Data(output.origin.utf8)))
    }

    static func shop() throws -> Shop {
        try imported(repository.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/Shop.xcdatamodeld").path)
    }

    static let token = Data((0..<16).map { UInt8($0 * 11) })
    static let externalName = "6F3CB2A1-5D4E-4F60-9A7B-1C2D3E4F5A6B"
    static let externalBytes = Data("an avatar kept in _EXTERNAL_DATA".utf8)

    /// A Shop store at `model` (`Shop`, `Shop 2`, `Shop 3`) written as Core Data would, its last rows in a WAL
    /// not yet checkpointed, with the external blob's file in its `_SUPPORT` folder.
    static func writeStore(_ shop: Shop, model: String, in folder: TemporaryFolder) throws -> String {
        let version = shop.origin.versions.first { $0.model == model }!
        let writer = CoreDataStoreWriter(version: version)
        let n = writer.numbers
        let customer = version.entities.contains { $0.name == "Client" } ? "Client" : "Customer"
        let mail = customer == "Client" ? "ZMAIL" : "ZEMAIL"
        let vip = customer == "Client" ? ", ZVIP" : ""
        let vipValue = customer == "Client" ? ", 1" : ""
        let note = version.entities.first { $0.name == "Order" }!.attributes.contains { $0.name == "note" }
        let working = folder.path("working")
        try FileManager.default.createDirectory(atPath: working, withIntermediateDirectories: true)
        let path = (working as NSString).appendingPathComponent("Shop.sqlite")
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            for statement in writer.ddl(historyTracking: true) { try db.execute(sql: statement) }
            try writer.bookkeeping(maxIDs: [customer: 5, "Order": 2, "Product": 3, "Coupon": 1], historyTracking: true, db)
            let c = n[customer]!, o = n["Order"]!, p = n["Product"]!
            // Ids 1 and 3 (2 was deleted; Z_MAX says 5 were handed out).
            try db.execute(
                sql: """
                    INSERT INTO Z\(customer.uppercased()) (Z_PK, Z_ENT, Z_OPT, ZNAME, \(mail), ZHOMEPAGE, ZJOINED, ZLOYALTY, ZPREFS, ZTOKEN, ZAVATAR\(vip)) \
                    VALUES (1, \(c), 3, 'Ada', 'ada@example.com', 'https://example.com/ada', 700000000.25, 12.5, X'62706C6973743030', ?, X'01696E6C696E65'\(vipValue))
                    """, arguments: [token])
            try db.execute(
                sql: "INSERT INTO Z\(customer.uppercased()) (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAVATAR) VALUES (3, \(c), 1, 'Bob', ?)",
                arguments: [Data([0x02]) + Data(externalName.utf8)])
            try db.execute(
                sql:
                    "INSERT INTO ZPRODUCT (Z_PK, Z_ENT, Z_OPT, ZSKU, ZTITLE) VALUES (1, \(p), 1, 'A-1', 'Anvil'), (2, \(p), 1, 'B-2', 'Bell'), (3, \(p), 1, 'C-3', NULL)"
            )
            try db.execute(
                sql: """
                    INSERT INTO ZORDER (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZPLACED, ZTOTAL, ZCUSTOMER\(note ? ", ZNOTE" : "")) \
                    VALUES (1, \(o), 1, 7, 700000100.5, 9.99, 1\(note ? ", 'gift'" : "")), (2, \(o), 1, 8, NULL, 0, 3\(note ? ", NULL" : ""))
                    """)
            // Order 1's items in Z_FOK order: product 3, then 1, then 2 (inserted in another order).
            try db.execute(
                sql:
                    "INSERT INTO Z_\(o)ITEMS (Z_\(o)ORDERS, Z_\(p)ITEMS, Z_FOK_\(p)ITEMS) VALUES (1, 2, 3072), (1, 3, 1024), (1, 1, 2048), (2, 1, 1024)"
            )
            if version.entities.contains(where: { $0.name == "Coupon" }) {
                try db.execute(
                    sql: "INSERT INTO ZCOUPON (Z_PK, Z_ENT, Z_OPT, ZCODE, ZEXPIRES) VALUES (1, \(n["Coupon"]!), 1, 'TEN', 820540800.999)")
            }
        }
        // The store as a crash leaves it: the WAL holds every row, not yet in the main file.
        let store = folder.path("Shop.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: store)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: store + "-wal")
        try queue.close()
        let external = folder.path(".Shop_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(atPath: external, withIntermediateDirectories: true)
        try externalBytes.write(to: URL(fileURLWithPath: (external as NSString).appendingPathComponent(externalName)))
        return store
    }

    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [MigrationProgress] = []
        func append(_ event: MigrationProgress) { lock.withLock { events.append(event) } }
        var all: [MigrationProgress] { lock.withLock { events } }
    }

    static func options(_ shop: Shop) -> StoreOptions {
        var options = StoreOptions()
        options.coreDataOrigin = shop.origin
        return options
    }

    /// `YYYY-MM-DD HH:MM:SS.SSS` of Core Data's seconds since 2001, to the nearest millisecond.
    static func text(coreDataSeconds seconds: Double) -> String {
        let milliseconds = ((seconds + 978_307_200) * 1000).rounded()
        let date = Date(timeIntervalSince1970: milliseconds / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!,
            Int(milliseconds.truncatingRemainder(dividingBy: 1000)))
    }

    @Test(arguments: ["Shop", "Shop 2", "Shop 3"])
    func aCoreDataStoreAtEachModelVersionConvertsAndMigratesWithEveryValue(model: String) throws {
        let shop = try Self.shop()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.writeStore(shop, model: model, in: folder)
        let version = shop.origin.versions.first { $0.model == model }!.version

        let events = Events()
        var options = Self.options(shop)
        options.progress = { events.append($0) }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: options)
        let outcome = opened.outcome
        // Progress reports the conversion (step 0, before the path's steps) like a step, entity by entity.
        let label = "converted from Core Data (model \(model)) at \(version)"
        let conversion = events.all.filter { $0.stepLabel == label }.map(\.operation)
        #expect(
            conversion.first == "starting" && conversion.last == "done"
                && conversion.contains { $0.hasPrefix("Product → product: 3 rows") }, "\(conversion)")
        #expect(events.all.contains { $0.step > 0 } == (version != "3.0"))
        #expect(outcome.start == .version(try SchemaVersion(parsing: version), adopted: true))
        #expect(outcome.steps.first?.label == "converted from Core Data (model \(model)) at \(version)", "\(outcome)")
        #expect(outcome.finalVersion == SchemaVersion("3.0"))
        try opened.database.write { db in
            // Ids kept; dates to the millisecond; text, URL, decimal, transformable bytes, UUID bytes.
            let ada = try Row.fetchOne(db, sql: "SELECT * FROM client WHERE id = 1")!
            #expect(
                ada["name"] as String == "Ada" && ada["mail"] as String == "ada@example.com"
                    && ada["homepage"] as String == "https://example.com/ada")
            #expect(ada["joined"] as String == Self.text(coreDataSeconds: 700000000.25))
            #expect(ada["joined"] as String == "2023-03-08 20:26:40.250")
            #expect(ada["loyalty"] as String == "12.5")
            #expect(ada["prefs"] as Data == Data("bplist00".utf8))
            #expect(ada["token"] as Data == Self.token)
            #expect(ada["vip"] as Int == (model == "Shop" ? 0 : 1))
            // A blob stored inline (tag 0x01) and one in _EXTERNAL_DATA (tag 0x02 and its file name).
            #expect(ada["avatar"] as Data == Data("inline".utf8))
            #expect(try Data.fetchOne(db, sql: "SELECT avatar FROM client WHERE id = 3") == Self.externalBytes)
            #expect(try Int64.fetchAll(db, sql: "SELECT id FROM client ORDER BY id") == [1, 3])
            // Orders and their customers; the ordered many-to-many in Z_FOK order.
            #expect(
                try Row.fetchAll(db, sql: "SELECT id, number, customer, placed FROM \"order\" ORDER BY id").map {
                    [$0[0], $0[1], $0[2], $0[3]] as [DatabaseValue]
                }
                    == [
                        [1.databaseValue, 7.databaseValue, 1.databaseValue, Self.text(coreDataSeconds: 700000100.5).databaseValue],
                        [2.databaseValue, 8.databaseValue, 3.databaseValue, .null],
                    ])
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") == [3, 1, 2])
            #expect(try Int64.fetchAll(db, sql: "SELECT position FROM order_items WHERE source_id = 1 ORDER BY position") == [0, 1, 2])
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 2") == [1])
            // Shop 3 made note required with a default: a NULL note became it.
            #expect(
                try String.fetchAll(db, sql: "SELECT note FROM \"order\" ORDER BY id")
                    == (model == "Shop" ? ["none", "none"] : ["gift", "none"]))
            if model == "Shop 3" {
                #expect(try String.fetchOne(db, sql: "SELECT expires FROM coupon") == Self.text(coreDataSeconds: 820540800.999))
            }
            // Z_MAX carried into AUTOINCREMENT: the next client is 6, never 4.
            #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'client'") == 5)
            try db.execute(sql: "INSERT INTO client (name, vip) VALUES ('Cy', 0)")
            #expect(db.lastInsertedRowID == 6)
            // Nothing of Core Data's is left.
            let left = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z%' OR name LIKE 'A%CHANGE' OR name LIKE 'ATRANSACTION%'")
            #expect(left.isEmpty, "\(left)")
        }
        try opened.database.close()
        // The original, kept beside it (with what its WAL held), and its _SUPPORT folder.
        let backup = try DatabaseQueue(path: path + ".coredata-backup")
        #expect(try backup.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPRODUCT") } == 3)
        try backup.close()
        #expect(FileManager.default.fileExists(atPath: folder.path(".Shop_SUPPORT.coredata-backup/_EXTERNAL_DATA/\(Self.externalName)")))
        // Opened again: a lucidgen store at 3.0, nothing to do.
        let again = try LucidStore.open(atPath: path, versions: shop.versions, options: Self.options(shop))
        #expect(again.outcome.steps.isEmpty && again.outcome.finalVersion == SchemaVersion("3.0"))
        try again.database.close()
    }

    /// An entity hierarchy as Core Data stores it (one root table, `Z_ENT` the entity, `Z_SUPER` the parent,
    /// `Z_MAX` on the root only: STORE-LAYOUT-EVIDENCE.md §6) converts into lucidgen's root table with each
    /// row's kind, its inherited and own columns, at each model version.
    @Test(arguments: ["Zoo", "Zoo 2"])
    func anEntityHierarchyConvertsWithEachRowsKind(model: String) throws {
        let zoo = try Self.imported(Self.repository.appendingPathComponent("Tests/LucidGenCoreTests/CoreData/Zoo.xcdatamodeld").path)
        let versions = zoo.versions
        var options = StoreOptions()
        options.coreDataOrigin = zoo.origin
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("Zoo.sqlite")
        let cats = model == "Zoo 2"
        try withDatabase(path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZANIMAL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBARKS INTEGER, ZKEEPER INTEGER,\(cats ? " ZLIVES INTEGER," : "") ZNAME VARCHAR );
                    CREATE TABLE ZKEEPER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE INDEX ZANIMAL_ZKEEPER_INDEX ON ZANIMAL (ZKEEPER);
                    CREATE INDEX ZANIMAL_Z_ENT_INDEX ON ZANIMAL (Z_ENT);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Animal', 0, 6), (2, 'Dog', 1, 0), (3, 'Keeper', 0, 1)\(cats ? ", (4, 'Cat', 1, 0)" : "");
                    INSERT INTO ZKEEPER VALUES (1, 3, 1, 'Kim');
                    INSERT INTO ZANIMAL (Z_PK, Z_ENT, Z_OPT, ZNAME, ZKEEPER, ZBARKS) VALUES (1, 1, 1, 'Generic', NULL, NULL), (2, 2, 1, 'Rex', 1, 1), (5, 2, 1, 'Fido', 1, 0);
                    """)
            if cats { try db.execute(sql: "INSERT INTO ZANIMAL (Z_PK, Z_ENT, Z_OPT, ZNAME, ZLIVES) VALUES (6, 4, 1, 'Tom', 7)") }
        }
        let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
        #expect(opened.outcome.steps.first?.label == "converted from Core Data (model \(model)) at \(cats ? "2.0" : "1.0")")
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.read { db in
            // Another kind's column holds its SQL default (as for any row of the hierarchy: see Descriptions, "Entity inheritance").
            let rows = try Row.fetchAll(db, sql: "SELECT id, kind, name, keeper, barks, lives FROM animal ORDER BY id").map { row in
                (0..<6).map { row[$0] as DatabaseValue }
            }
            let expected: [[DatabaseValueConvertible?]] =
                [[1, "animal", "Generic", nil, 0, 9], [2, "dog", "Rex", 1, 1, 9], [5, "dog", "Fido", 1, 0, 9]]
                + (cats ? [[6, "cat", "Tom", nil, 0, 7]] : [])
            #expect(rows == expected.map { $0.map { $0?.databaseValue ?? .null } })
            #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'animal'") == 6)
        }
        try opened.database.close()
    }

    /// Two model versions with one stored layout that mean different things (an attribute's type changed,
    /// its column's declared type the same): refused as ambiguous, unless the compiled model's version hashes were imported
    /// (`--momd`) and the store's metadata names one of them.
    @Test func versionHashesPickAmongVersionsWithTheSameLayout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.path("Notes.xcdatamodeld")
        // Binary, then Transformable: both BLOB columns, both lucidgen `data`, but not the same bytes' meaning.
        for (name, type) in [("Notes", "Binary"), ("Notes 2", "Transformable")] {
            try FileManager.default.createDirectory(atPath: package + "/\(name).xcdatamodel", withIntermediateDirectories: true)
            try """
            <?xml version="1.0"?>
            <model><entity name="Note"><attribute name="mood" optional="YES" attributeType="\(type)"/></entity></model>
            """.write(toFile: package + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
        }
        let hashes = ["Notes": ["Note": Data(repeating: 1, count: 32)], "Notes 2": ["Note": Data(repeating: 2, count: 32)]]
        let momd = folder.path("Notes.momd")
        try FileManager.default.createDirectory(atPath: momd, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_VersionHashes": hashes], format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: momd + "/VersionInfo.plist"))
        func store(hash: Data) throws -> String {
            let path = folder.path("Notes-\(UUID().uuidString).sqlite")
            try withDatabase(path) { db in
                try db.execute(
                    sql: """
                        CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZMOOD BLOB );
                        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 1);
                        INSERT INTO ZNOTE VALUES (1, 1, 1, X'05');
                        """)
                let plist = try PropertyListSerialization.data(
                    fromPropertyList: ["NSStoreModelVersionHashes": ["Note": hash]], format: .binary, options: 0)
                try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'x', ?)", arguments: [plist])
            }
            return path
        }
        func origin(withHashes: Bool) throws -> (CoreDataOrigin, [Schema]) {
            let notes = try Self.imported(package, versionHashes: withHashes ? try CoreDataImporter.versionHashes(momd: momd) : [:])
            return (notes.origin, notes.versions)
        }
        // Without hashes: the two versions' layouts match, their meanings differ: refused, unchanged.
        let (plain, versions) = try origin(withHashes: false)
        var options = StoreOptions()
        options.coreDataOrigin = plain
        let ambiguous = try store(hash: Data(repeating: 2, count: 32))
        #expect {
            try LucidStore.open(atPath: ambiguous, versions: versions, options: options).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains { $0.contains("model versions Notes, Notes 2, which store different things in it") }
        }
        // With them: the store's metadata names Notes 2 (2.0), or Notes (1.0).
        let (hashed, _) = try origin(withHashes: true)
        options.coreDataOrigin = hashed
        for (byte, version) in [(UInt8(2), "2.0"), (UInt8(1), "1.0")] {
            let path = try store(hash: Data(repeating: byte, count: 32))
            let opened = try LucidStore.open(atPath: path, versions: versions, options: options)
            #expect(
                opened.outcome.steps.first?.label
                    == "converted from Core Data (model \(version == "2.0" ? "Notes 2" : "Notes")) at \(version)", "\(opened.outcome)")
            try opened.database.close()
        }
    }

    /// The app's own connection (LucidMigrator, as a GRDB app that opens its DatabasePool itself uses it):
    /// the same conversion, then the path.
    @Test func lucidMigratorConvertsOnTheAppsConnection() throws {
        let shop = try Self.shop()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.writeStore(shop, model: "Shop 2", in: folder)
        let pool = try DatabasePool(path: path)
        let outcome = try LucidMigrator(versions: shop.versions, options: Self.options(shop)).migrate(pool)
        #expect(outcome.steps.map(\.label) == ["converted from Core Data (model Shop 2) at 2.0", "2.0 → 3.0 (inferred)"], "\(outcome)")
        #expect(
            try pool.read { db in try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") }
                == [3, 1, 2])
        try pool.close()
        #expect(FileManager.default.fileExists(atPath: path + ".coredata-backup"))
    }

    /// The origin's names end up in SQL: a name that is no identifier is refused when the file is read.
    @Test func anOriginWithANameThatIsNoIdentifierIsRefused() throws {
        let json =
            #"{ "format": 1, "versions": [{ "version": "1.0", "model": "M", "entities": [{ "name": "Note", "table": "note", "attributes": [{ "name": "x\"); DROP TABLE note; --", "type": "String", "column": "x" }], "relationships": [] }] }] }"#
        #expect(throws: CoreDataOriginError.self) { try CoreDataOrigin(json: Data(json.utf8)) }
        #expect(throws: CoreDataOriginError.self) { try CoreDataOrigin(json: Data(#"{ "format": 2, "versions": [] }"#.utf8)) }
        #expect(try CoreDataOrigin(json: Data(#"{ "format": 1, "versions": [] }"#.utf8)).modelVersions.isEmpty)
    }

    @Test func inspectSaysWhichModelVersionAStoreIsAndWritesNothing() throws {
        let shop = try Self.shop()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.writeStore(shop, model: "Shop 2", in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
        #expect(
            status.coreDataModel == "Shop 2" && status.version == SchemaVersion("2.0") && status.needsMigration
                && status.start == .version(SchemaVersion("2.0"), adopted: true))
        #expect(status.steps.map(\.to) == [SchemaVersion("3.0")])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// What is not one of the model's layouts is refused, the files as they were.
    @Test(arguments: [
        (
            "CREATE TABLE ZGADGET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER ); INSERT INTO Z_PRIMARYKEY VALUES (9, 'Gadget', 0, 1); INSERT INTO ZGADGET VALUES (1, 9, 1)",
            "the store has entity Gadget, which model"
        ),
        // A drift that is not inferable (CoreDataDriftTests takes those that are).
        ("ALTER TABLE ZCUSTOMER DROP COLUMN ZNAME", "ZCUSTOMER has no column ZNAME"),
        (
            "ALTER TABLE ZPRODUCT DROP COLUMN ZTITLE; ALTER TABLE ZPRODUCT ADD COLUMN ZTITLE INTEGER; ALTER TABLE ZPRODUCT ADD COLUMN ZCOLOR VARCHAR",
            "ZPRODUCT.ZTITLE is INTEGER, not VARCHAR; ZPRODUCT has column ZCOLOR, which model"
        ),
        ("UPDATE ZCUSTOMER SET ZAVATAR = X'0341' WHERE Z_PK = 1", "starts with byte 3, neither 0x01 (inline) nor 0x02 (a file)"),
        ("UPDATE ZCUSTOMER SET ZAVATAR = X'022E2E2F2E2E2F736563726574' WHERE Z_PK = 1", "which is not a file name"),
        ("CREATE VIEW names AS SELECT ZNAME FROM ZCUSTOMER", "the store's view names reads Core Data's tables"),
        // Bookkeeping of another type than Core Data writes: named, never a crash of the row decode.
        (
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_NAME = 'Customer'",
            "Z_PRIMARYKEY row 1: Z_MAX is the text 'many', not an integer"
        ),
        ("UPDATE Z_PRIMARYKEY SET Z_MAX = 1e300 WHERE Z_NAME = 'Order'", "Z_PRIMARYKEY row 2: Z_MAX is the real 1e+300, not an integer"),
        (
            "UPDATE Z_PRIMARYKEY SET Z_SUPER = X'00' WHERE Z_NAME = 'Order'",
            "Z_PRIMARYKEY row 2: Z_SUPER is a blob of 1 bytes, not an integer"
        ),
        ("UPDATE Z_PRIMARYKEY SET Z_NAME = X'4F72646572' WHERE Z_ENT = 2", "Z_PRIMARYKEY row 2: Z_NAME is a blob of 5 bytes, not a name"),
        (
            """
            CREATE TABLE Z_PK_COPY AS SELECT * FROM Z_PRIMARYKEY; DROP TABLE Z_PRIMARYKEY; CREATE TABLE Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX);
            INSERT INTO Z_PRIMARYKEY SELECT * FROM Z_PK_COPY; DROP TABLE Z_PK_COPY; UPDATE Z_PRIMARYKEY SET Z_ENT = 'three' WHERE Z_NAME = 'Product'
            """, "Z_ENT is the text 'three', not an integer"
        ),
        (
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Product'",
            "(Product): Z_MAX is 9223372036854775807, which leaves no id for a new row"
        ),
        (
            "UPDATE ZPRODUCT SET Z_PK = 9223372036854775807 WHERE Z_PK = 3",
            "ZPRODUCT has rows whose Z_PK is no id a new row can follow (first: 9223372036854775807)"
        ),
        // Dates GRDB's text cannot hold: never turned into another date, nor NULL.
        (
            "UPDATE ZCUSTOMER SET ZJOINED = 'yesterday' WHERE Z_PK = 1",
            "ZCUSTOMER.ZJOINED (Customer.joined, a date) holds values that are no date from year 1 to 9999, which is what a date column stores (first: row 1: the text 'yesterday')"
        ),
        ("UPDATE ZCUSTOMER SET ZJOINED = X'41' WHERE Z_PK = 3", "(first: row 3: a blob of 1 bytes)"),
        ("UPDATE ZCUSTOMER SET ZJOINED = 1e300 WHERE Z_PK = 1", "(first: row 1: the real 1e+300)"),
        ("UPDATE ZCUSTOMER SET ZJOINED = 9e999 WHERE Z_PK = 1", "(first: row 1: the real inf)"),
        ("UPDATE ZORDER SET ZPLACED = -70000000000 WHERE Z_PK = 2", "ZORDER.ZPLACED (Order.placed, a date) holds values that are no date"),
        // An externally stored attribute holding a number: named, never a crash.
        (
            "UPDATE ZCUSTOMER SET ZAVATAR = 5 WHERE Z_PK = 1",
            "ZCUSTOMER.ZAVATAR (Customer.avatar, which allows external storage) holds values that are not bytes (first: row 1: 5)"
        ),
        ("UPDATE ZCUSTOMER SET ZAVATAR = 2.5 WHERE Z_PK = 3", "holds values that are not bytes (first: row 3: the real 2.5)"),
        // A value of another storage class than Core Data reads its attribute's type by: named, never copied as it is.
        (
            "UPDATE ZORDER SET ZNUMBER = 'seven' WHERE Z_PK = 1",
            "ZORDER.ZNUMBER (Order.number, Integer 32) holds 1 value Core Data would not read as written (first: row 1: the text 'seven')"
        ),
        (
            "UPDATE ZORDER SET ZNUMBER = 2.5 WHERE Z_PK = 2",
            "ZORDER.ZNUMBER (Order.number, Integer 32) holds 1 value Core Data would not read as written (first: row 2: the real 2.5)"
        ),
        ("UPDATE ZORDER SET ZNUMBER = 1099511627776 WHERE Z_PK = 2", "(first: row 2: 1099511627776)"),
        ("UPDATE ZORDER SET ZTOTAL = 'ten' WHERE Z_PK = 1", "ZORDER.ZTOTAL (Order.total, Double) holds 1 value"),
        (
            "UPDATE ZPRODUCT SET ZTITLE = X'4142' WHERE Z_PK = 2",
            "ZPRODUCT.ZTITLE (Product.title, String) holds 1 value Core Data would not read as written (first: row 2: a blob of 2 bytes)"
        ),
        ("UPDATE ZCUSTOMER SET ZTOKEN = X'0102' WHERE Z_PK = 1", "ZCUSTOMER.ZTOKEN (Customer.token, UUID) holds 1 value"),
        ("UPDATE ZCUSTOMER SET ZLOYALTY = 'lots' WHERE Z_PK = 1", "ZCUSTOMER.ZLOYALTY (Customer.loyalty, Decimal) holds 1 value"),
        (
            "UPDATE ZORDER SET ZCUSTOMER = 'one' WHERE Z_PK = 1",
            "ZORDER.ZCUSTOMER (Order.customer, a to-one's id) holds 1 value Core Data would not read as written (first: row 1: the text 'one')"
        ),
        // A failure inside the conversion (two products with one SKU, which lucidgen's table keeps unique):
        // the store is still Core Data's, never "at 1.0".
        (
            "UPDATE ZPRODUCT SET ZSKU = 'A-1' WHERE Z_PK = 2",
            "failed and was rolled back: UNIQUE constraint failed: product.sku; the store is the Core Data store it was, unchanged"
        ),
        // An extra table of Core Data's join-table names with rows (a many-to-many without its join table
        // has no links: CoreDataDriftTests).
        (
            "CREATE TABLE Z_3TAGS ( Z_3PRODUCTS INTEGER, Z_9TAGS INTEGER ); INSERT INTO Z_3TAGS VALUES (1, 1)",
            "the store has table Z_3TAGS, which is no join table of a many-to-many of model Shop"
        ),
    ])
    func aStoreThatIsNotTheModelsIsRefusedByteIdentical(change: String, expected: String) throws {
        let shop = try Self.shop()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try Self.writeStore(shop, model: "Shop", in: folder)
        try withDatabase(path) { db in try db.execute(sql: change) }
        let files = [path, path + "-wal", path + "-shm"].filter { FileManager.default.fileExists(atPath: $0) }
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect {
            try LucidStore.open(atPath: path, versions: shop.versions, options: Self.options(shop)).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            #expect(!"\(error)".contains("stays at"), "\(error)")
            return differences.contains { $0.contains(expected) }
        }
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // `plan` (inspect) refuses it alike, or (a failure only writing finds) names what it would write.
        do {
            let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
            // Found only when the conversion writes: a value's file, a view, a constraint of lucidgen's table.
            let foundWhenWriting = ["starts with byte", "not a file name", "view names", "UNIQUE"]
            #expect(status.coreDataConversion != nil && foundWhenWriting.contains { expected.contains($0) }, "\(expected)")
        } catch {
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { Issue.record("\(error)"); return }
            #expect(differences.contains { $0.contains(expected) }, "\(differences)")
        }
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }
}
