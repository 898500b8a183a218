import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// A Core Data store whose layout is none of the imported model versions' (a model edited after release,
/// a development build's store): the nearest version by meaning, and a conversion from it when
/// every difference is one Core Data's inferred mapping makes without data of its own, each difference in
/// the report; refused, byte-identical, when one is not. Planted on the Shop store
/// (`CoreDataConversionTests.writeStore`) and on a copy of Artsy Folio's real 1.4 store.
@Suite struct CoreDataDriftTests {
    typealias Shop = CoreDataConversionTests.Shop

    /// The store's files as they are now, and a reading of the same files later (a `-shm` or `-wal` SQLite
    /// makes when opening is not the store's bytes).
    static func bytes(_ path: String) throws -> () throws -> [Data] {
        let files = [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }
        return { try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } }
    }

    struct Drift: Sendable, CustomTestStringConvertible {
        var change: String
        var expected: [String]
        var testDescription: String { expected.first ?? change }
    }

    /// Each inferable kind, alone and together.
    static let inferable = [
        Drift(
            change: "ALTER TABLE ZPRODUCT ADD COLUMN ZCOLOR VARCHAR; UPDATE ZPRODUCT SET ZCOLOR = 'red' WHERE Z_PK = 1",
            expected: [
                "ZPRODUCT has column ZCOLOR, which model Shop does not: its 1 value is not converted (the .coredata-backup keeps them)"
            ]),
        Drift(
            change: "ALTER TABLE ZCUSTOMER ADD COLUMN ZNICKNAME VARCHAR",
            expected: ["ZCUSTOMER has column ZNICKNAME, which model Shop does not: it holds no value"]),
        Drift(
            change: "ALTER TABLE ZPRODUCT DROP COLUMN ZTITLE",
            expected: ["ZPRODUCT has no column ZTITLE, which model Shop has: Product.title (product.title) is NULL in its 3 rows"]),
        Drift(
            change: "ALTER TABLE ZORDER DROP COLUMN ZTOTAL",
            expected: ["ZORDER has no column ZTOTAL, which model Shop has: Order.total (order.total) gets its default 0.0 in its 2 rows"]),
        Drift(
            change: "DROP INDEX ZORDER_ZCUSTOMER_INDEX; ALTER TABLE ZORDER DROP COLUMN ZCUSTOMER",
            expected: ["ZORDER has no column ZCUSTOMER, which model Shop has: Order.customer (order.customer) is NULL in its 2 rows"]),
        Drift(
            change: "CREATE TABLE Z_3TAGS ( Z_3PRODUCTS INTEGER, Z_9TAGS INTEGER, PRIMARY KEY (Z_3PRODUCTS, Z_9TAGS) )",
            expected: [
                "the store has table Z_3TAGS, which is no join table of a many-to-many of model Shop: it is empty, and dropped with Core Data's tables"
            ]),
        Drift(
            change:
                "CREATE TABLE ZGADGET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR ); INSERT INTO Z_PRIMARYKEY VALUES (9, 'Gadget', 0, 0)",
            expected: [
                "the store has entity Gadget, which model Shop does not: its table ZGADGET is empty, and dropped with Core Data's tables"
            ]),
        Drift(
            change:
                "ALTER TABLE ZPRODUCT ADD COLUMN ZEDITEDAT TIMESTAMP; UPDATE ZPRODUCT SET ZEDITEDAT = 700000000; ALTER TABLE ZPRODUCT DROP COLUMN ZTITLE",
            expected: [
                "ZPRODUCT has no column ZTITLE, which model Shop has: Product.title (product.title) is NULL in its 3 rows",
                "ZPRODUCT has column ZEDITEDAT, which model Shop does not: its 3 values are not converted (the .coredata-backup keeps them)",
            ]),
    ]

    /// Taken by default (what Core Data does), each difference in the report and in `plan`'s status (which
    /// writes nothing), every other value as the undrifted conversion has it, migrated to the newest version.
    @Test(arguments: inferable)
    func inferableDriftIsTakenWithEveryValueAndListed(_ drift: Drift) throws {
        let (shop, folder, path) = try CoreDataRowAccountTests.store(drift.change)
        defer { folder.remove() }
        let files = try Self.bytes(path)
        let before = try files()
        let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
        #expect(status.coreDataModel == "Shop" && status.version == SchemaVersion("1.0"))
        #expect(status.coreDataConversion?.drift == drift.expected, "\(status.coreDataConversion?.drift ?? [])")
        #expect(try files() == before)

        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.drift == drift.expected, "\(report.drift)")
        #expect(report.model == "Shop")
        let s = drift.expected.count == 1 ? "" : "s"
        #expect(
            opened.outcome.steps.map(\.label) == [
                "converted from Core Data (model Shop, drifted: \(drift.expected.count) difference\(s)) at 1.0", "1.0 → 3.0 (inferred)",
            ],
            "\(opened.outcome.steps.map(\.label))")
        #expect(
            report.entities.map { "\($0.name) → \($0.table): \($0.rows)" } == [
                "Customer → customer: 2", "Order → order: 2", "Product → product: 3",
            ])
        #expect(report.links.map { "\($0.name) → \($0.table): \($0.rows)" } == ["Order.items → order_items: 4"])
        #expect(opened.outcome.finalVersion == SchemaVersion("3.0"))
        let dropsTitle = drift.change.contains("DROP COLUMN ZTITLE"), dropsTotal = drift.change.contains("DROP COLUMN ZTOTAL"),
            dropsCustomer = drift.change.contains("DROP COLUMN ZCUSTOMER")
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM client ORDER BY id") == ["Ada", "Bob"])
            #expect(try String.fetchOne(db, sql: "SELECT joined FROM client WHERE id = 1") == "2023-03-08 20:26:40.250")
            #expect(try String.fetchAll(db, sql: "SELECT sku FROM product ORDER BY id") == ["A-1", "B-2", "C-3"])
            #expect(
                try String?.fetchAll(db, sql: "SELECT title FROM product ORDER BY id")
                    == (dropsTitle ? [nil, nil, nil] : ["Anvil", "Bell", nil]))
            #expect(try Double.fetchAll(db, sql: "SELECT total FROM \"order\" ORDER BY id") == (dropsTotal ? [0, 0] : [9.99, 0]))
            #expect(try Int64?.fetchAll(db, sql: "SELECT customer FROM \"order\" ORDER BY id") == (dropsCustomer ? [nil, nil] : [1, 3]))
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") == [3, 1, 2])
            // Nothing of Core Data's is left, the extra join table neither.
            let left = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z%'")
            #expect(left.isEmpty, "\(left)")
        }
        try opened.database.close()
        // The original, with the drifted columns' values, kept beside it.
        let backup = try DatabaseQueue(path: path + ".coredata-backup")
        try backup.read { (db: Database) throws in
            if drift.change.contains("ZCOLOR") {
                #expect(try String.fetchOne(db, sql: "SELECT ZCOLOR FROM ZPRODUCT WHERE Z_PK = 1") == "red")
            }
            if drift.change.contains("ZEDITEDAT") { #expect(try Int.fetchOne(db, sql: "SELECT count(ZEDITEDAT) FROM ZPRODUCT") == 3) }
        }
        try backup.close()
    }

    /// A many-to-many whose join table the store lacks (the store's model did not have it yet: an edited
    /// model added it): taken as Core Data's inferred mapping takes it, no links, every row converted; with
    /// a table of Core Data's join-table names holding rows beside it, refused (those rows could be its links).
    @Test func aMissingJoinTableHasNoLinks() throws {
        let (shop, folder, path) = try CoreDataRowAccountTests.store("DROP TABLE Z_2ITEMS")
        defer { folder.remove() }
        let expected = [
            "no join table of Order.items ↔ Product.orders (columns Z_2ORDERS and Z_3ITEMS, or those names and a number), which model Shop has: it has no links in the store, and none after"
        ]
        let status = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
        #expect(status.coreDataConversion?.drift == expected, "\(status.coreDataConversion?.drift ?? [])")
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.drift == expected, "\(report.drift)")
        #expect(
            report.entities.map { "\($0.name) → \($0.table): \($0.rows)" } == [
                "Customer → customer: 2", "Order → order: 2", "Product → product: 3",
            ])
        #expect(report.links.isEmpty)
        #expect(opened.outcome.finalVersion == SchemaVersion("3.0"))
        try opened.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM order_items") == 0)
            #expect(try String.fetchAll(db, sql: "SELECT sku FROM product ORDER BY id") == ["A-1", "B-2", "C-3"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z%'") == [])
        }
        try opened.database.close()

        let (_, other, refusedPath) = try CoreDataRowAccountTests.store(
            "DROP TABLE Z_2ITEMS; CREATE TABLE Z_2ITEMZ ( Z_2ORDERS INTEGER, Z_3ITEM INTEGER ); INSERT INTO Z_2ITEMZ VALUES (1, 3)")
        defer { other.remove() }
        let files = try Self.bytes(refusedPath)
        let before = try files()
        #expect {
            _ = try LucidStore.open(atPath: refusedPath, versions: shop.versions, options: CoreDataConversionTests.options(shop)).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains(
                    "the store has table Z_2ITEMZ, which is no join table of a many-to-many of model Shop, and it holds 1 row, which nothing of lucidgen's would keep"
                )
            }
        }
        #expect(try files() == before)
    }

    /// An entity the store's own model did not have (an edited model added it): no table and no number in
    /// `Z_PRIMARYKEY`, nor the join table of its many-to-many. Taken as Core Data's inferred mapping takes
    /// it: no rows, no links, every other row converted. With an entity of the store's own beside it (a
    /// rename looks so), refused.
    @Test func anEntityTheStoreLacksHasNoRows() throws {
        let (shop, folder, path) = try CoreDataRowAccountTests.store(
            "DROP TABLE Z_2ITEMS; DROP TABLE ZPRODUCT; DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Product'")
        defer { folder.remove() }
        let expected = [
            "model Shop has entity Product, which the store does not: it has no rows in the store, and none after",
            "no join table of Order.items ↔ Product.orders (the store has no entity Product), which model Shop has: it has no links in the store, and none after",
        ]
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.drift == expected, "\(report.drift)")
        #expect(report.entities.map { "\($0.name) → \($0.table): \($0.rows)" } == ["Customer → customer: 2", "Order → order: 2"])
        #expect(report.links.isEmpty)
        #expect(opened.outcome.finalVersion == SchemaVersion("3.0"))
        try opened.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM product") == 0)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM client ORDER BY id") == ["Ada", "Bob"])
            #expect(try Double.fetchAll(db, sql: "SELECT total FROM \"order\" ORDER BY id") == [9.99, 0])
        }
        try opened.database.close()

        let (_, other, renamed) = try CoreDataRowAccountTests.store(
            "DROP TABLE Z_2ITEMS; ALTER TABLE ZPRODUCT RENAME TO ZARTICLE; UPDATE Z_PRIMARYKEY SET Z_NAME = 'Article' WHERE Z_NAME = 'Product'"
        )
        defer { other.remove() }
        let files = try Self.bytes(renamed)
        let before = try files()
        #expect(throws: StoreError.self) {
            _ = try LucidStore.open(atPath: renamed, versions: shop.versions, options: CoreDataConversionTests.options(shop)).database
        }
        #expect(try files() == before)
    }

    /// A subentity of the store's own inside a hierarchy of the model's (an edited model added `Bird` under `Animal`,
    /// its `wings` a column of `ZANIMAL`): with no row of its number in the root's table, left out as Core Data's
    /// inferred mapping leaves it, every other row converted with its kind; with one, refused, byte-identical.
    @Test(arguments: [false, true])
    func aSubentityOfTheStoresOwnWithNoRowsIsLeftOut(withABird: Bool) throws {
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
                    CREATE TABLE ZANIMAL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBARKS INTEGER, ZKEEPER INTEGER, ZNAME VARCHAR, ZWINGS INTEGER );
                    CREATE TABLE ZKEEPER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE INDEX ZANIMAL_ZKEEPER_INDEX ON ZANIMAL (ZKEEPER);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Animal', 0, 6), (2, 'Bird', 1, 0), (3, 'Dog', 1, 0), (4, 'Keeper', 0, 1);
                    INSERT INTO ZKEEPER VALUES (1, 4, 1, 'Kim');
                    INSERT INTO ZANIMAL (Z_PK, Z_ENT, Z_OPT, ZNAME, ZKEEPER, ZBARKS) VALUES (1, 1, 1, 'Generic', NULL, NULL), (2, 3, 1, 'Rex', 1, 1);
                    """)
            if withABird { try db.execute(sql: "INSERT INTO ZANIMAL (Z_PK, Z_ENT, Z_OPT, ZNAME, ZWINGS) VALUES (6, 2, 1, 'Tweety', 2)") }
        }
        let files = try Self.bytes(path)
        let before = try files()
        guard !withABird else {
            #expect {
                _ = try LucidStore.open(atPath: path, versions: zoo.versions, options: options).database
            } throws: { error in
                "\(error)".contains(
                    "the store has entity Bird, which model Zoo does not, and ZANIMAL holds 1 row of it (Z_ENT 2), which nothing of lucidgen's would keep"
                )
            }
            #expect(try files() == before)
            return
        }
        let opened = try LucidStore.open(atPath: path, versions: zoo.versions, options: options)
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.model == "Zoo", "\(report)")
        #expect(
            report.drift == [
                "the store has entity Bird, which model Zoo does not: a subentity of Animal with no rows in ZANIMAL (Z_ENT 2), left out",
                "ZANIMAL has column ZWINGS, which model Zoo does not: it holds no value",
            ], "\(report.drift)")
        try opened.database.read { (db: Database) throws in
            let rows = try String.fetchAll(db, sql: "SELECT id || ' ' || kind || ' ' || name FROM animal ORDER BY id")
            #expect(rows == ["1 animal Generic", "2 dog Rex"])
        }
        try opened.database.close()
    }

    /// An extra index is no difference: Core Data's indexes go with its tables (converted as the model's layout).
    @Test func anExtraIndexIsNoDifference() throws {
        let (shop, folder, path) = try CoreDataRowAccountTests.store("CREATE INDEX ZPRODUCT_BY_TITLE ON ZPRODUCT (ZTITLE, ZSKU)")
        defer { folder.remove() }
        let opened = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop))
        #expect(opened.outcome.coreDataConversion?.drift == [])
        #expect(opened.outcome.steps.first?.label == "converted from Core Data (model Shop) at 1.0")
        try opened.database.close()
    }

    /// Not inferable: a declared type that differs, a required column with no default missing while its
    /// entity has rows, a join-table-named table with rows: refused, the files byte-identical, the table-level
    /// differences and what to do said, by `open` and by `inspect` alike.
    @Test(arguments: [
        (
            "ALTER TABLE ZPRODUCT DROP COLUMN ZTITLE; ALTER TABLE ZPRODUCT ADD COLUMN ZTITLE INTEGER",
            "the nearest is model Shop (1.0, 1 difference), and not every difference can be taken without data of its own: ZPRODUCT.ZTITLE is INTEGER, not VARCHAR; nothing was changed; import the model version the store was written with"
        ),
        (
            "ALTER TABLE ZCUSTOMER DROP COLUMN ZNAME",
            "not every difference can be taken without data of its own: ZCUSTOMER has no column ZNAME, which model Shop has: Customer.name (customer.name) is required and has no default, and 2 rows of Customer would need a value; nothing was changed"
        ),
        (
            "CREATE TABLE Z_3TAGS ( Z_3PRODUCTS INTEGER, Z_9TAGS INTEGER ); INSERT INTO Z_3TAGS VALUES (1, 1); ALTER TABLE ZPRODUCT ADD COLUMN ZCOLOR VARCHAR",
            "not every difference can be taken without data of its own: the store has table Z_3TAGS, which is no join table of a many-to-many of model Shop, and it holds 1 row, which nothing of lucidgen's would keep; nothing was changed"
        ),
        (
            "CREATE TABLE ZGADGET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER ); INSERT INTO Z_PRIMARYKEY VALUES (9, 'Gadget', 0, 1); INSERT INTO ZGADGET VALUES (1, 9, 1)",
            "not every difference can be taken without data of its own: the store has entity Gadget, which model Shop does not, and its table ZGADGET holds 1 row, which nothing of lucidgen's would keep; nothing was changed"
        ),
    ])
    func driftThatIsNotInferableIsRefusedByteIdentical(change: String, expected: String) throws {
        let (shop, folder, path) = try CoreDataRowAccountTests.store(change)
        defer { folder.remove() }
        let files = try Self.bytes(path)
        let before = try files()
        func refused(_ error: any Error) -> Bool {
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            // The versions listed with every difference, then why the nearest is not taken.
            return differences.contains {
                $0.contains(expected)
                    && ($0.contains("model Shop (1.0, the store has its entities): ") || $0.contains("the nearest: model Shop (1.0): "))
            }
        }
        #expect {
            _ = try LucidStore.open(atPath: path, versions: shop.versions, options: CoreDataConversionTests.options(shop)).database
        } throws: { refused($0) }
        #expect(try files() == before)
        #expect {
            _ = try LucidStore.inspect(atPath: path, history: SchemaHistory(versions: shop.versions), coreDataOrigin: shop.origin)
        } throws: { refused($0) }
        #expect(try files() == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".coredata-backup"))
    }

    /// Two versions equally near a store, which store different things: which one it drifted from cannot
    /// be told, so it is refused, both named.
    @Test func aTieBetweenVersionsThatMeanDifferentThingsIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.path("Notes.xcdatamodeld")
        for (name, attribute) in [("Notes", "title"), ("Notes 2", "subtitle")] {
            try FileManager.default.createDirectory(atPath: package + "/\(name).xcdatamodel", withIntermediateDirectories: true)
            try """
            <?xml version="1.0"?>
            <model><entity name="Note"><attribute name="body" optional="YES" attributeType="String"/><attribute name="\(attribute)" optional="YES" attributeType="String"/></entity></model>
            """.write(toFile: package + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
        }
        let notes = try CoreDataConversionTests.imported(package)
        let path = folder.path("Notes.sqlite")
        try withDatabase(path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBODY VARCHAR );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 1);
                    INSERT INTO ZNOTE VALUES (1, 1, 1, 'hello');
                    """)
        }
        let files = try Self.bytes(path)
        let before = try files()
        var options = StoreOptions()
        options.coreDataOrigin = notes.origin
        #expect {
            _ = try LucidStore.open(atPath: path, versions: notes.versions, options: options).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains(
                    "model Notes (1.0, the store has its entities): ZNOTE has no column ZTITLE | model Notes 2 (2.0, the store has its entities): ZNOTE has no column ZSUBTITLE; models Notes, Notes 2 are equally near it (1 difference each) and store different things, so which one it drifted from cannot be told: nothing was changed"
                )
            }
        }
        #expect(try files() == before)
    }

    /// Mastodon's case (its model 7 shipped edited: model 8's `editedAt` on Status, Setting's columns fewer): the store
    /// is as near the version it was edited from as the next one, which adds an entity the store lacks. Of versions as
    /// near, one with a column for every value the store holds is nearer (Notes 2 when ZEDITEDAT holds a value: kept);
    /// then one with exactly the store's entities (Core Data writes a `Z_PRIMARYKEY` row for every entity of the
    /// model that creates the store): converted from it, each difference in the report, migrated on.
    @Test func ofVersionsAsNearTheOneKeepingEveryValueThenWithExactlyTheStoresEntitiesIsTaken() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = folder.path("Notes.xcdatamodeld")
        let note =
            #"<attribute name="body" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#
        for (name, entities) in [
            ("Notes", #"<entity name="Note">\#(note)</entity>"#),
            (
                "Notes 2",
                #"<entity name="Edit"><attribute name="text" optional="YES" attributeType="String"/></entity><entity name="Note">\#(note)<attribute name="editedAt" optional="YES" attributeType="Date"/></entity>"#
            ),
        ] {
            try FileManager.default.createDirectory(atPath: package + "/\(name).xcdatamodel", withIntermediateDirectories: true)
            try #"<?xml version="1.0"?><model>\#(entities)</model>"#.write(
                toFile: package + "/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
        }
        let notes = try CoreDataConversionTests.imported(package)
        // Model Notes edited toward Notes 2 before it shipped: no ZTITLE, Notes 2's ZEDITEDAT (`edited` in the second row).
        func store(_ name: String, edited: String) throws -> String {
            let path = folder.path(name)
            try withDatabase(path) { db in
                try db.execute(
                    sql: """
                        CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBODY VARCHAR, ZEDITEDAT TIMESTAMP );
                        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Note', 0, 2);
                        INSERT INTO ZNOTE VALUES (1, 1, 1, 'hello', NULL), (2, 1, 1, 'again', \(edited));
                        """)
            }
            return path
        }
        let path = try store("Notes.sqlite", edited: "NULL")
        var options = StoreOptions()
        options.coreDataOrigin = notes.origin
        let opened = try LucidStore.open(atPath: path, versions: notes.versions, options: options)
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.model == "Notes", "\(report)")
        #expect(
            report.drift == [
                "ZNOTE has no column ZTITLE, which model Notes has: Note.title (note.title) is NULL in its 2 rows",
                "ZNOTE has column ZEDITEDAT, which model Notes does not: it holds no value",
            ], "\(report.drift)")
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0"))
        try opened.database.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT body FROM note ORDER BY id") == ["hello", "again"])
        }
        try opened.database.close()

        // With a value in ZEDITEDAT, the version that has a column for it is the nearer: converted from Notes 2, the value kept.
        let held = try store("Held.sqlite", edited: "720000000.5")
        let kept = try LucidStore.open(atPath: held, versions: notes.versions, options: options)
        let keptReport = try #require(kept.outcome.coreDataConversion)
        #expect(keptReport.model == "Notes 2", "\(keptReport)")
        #expect(
            keptReport.drift == [
                "model Notes 2 has entity Edit, which the store does not: it has no rows in the store, and none after",
                "ZNOTE has no column ZTITLE, which model Notes 2 has: Note.title (note.title) is NULL in its 2 rows",
            ], "\(keptReport.drift)")
        try kept.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM note WHERE edited_at IS NOT NULL") == 1)
        }
        try kept.database.close()
    }

    /// Artsy Folio's real 1.4 store (copied; never kept) as a model edited after release leaves it: ZARTWORK
    /// has a column the model does not (`ZEDITEDAT`, five values) and lacks one it has (`ZINFO`, nullable):
    /// converted from model ArtsyFolio v1.4, both differences listed, and migrated to the newest version with
    /// its 68 artworks and every other row. The same store with a column of another declared type is refused,
    /// byte-identical.
    @Test(.enabled(if: CoreDataRealStoreTests.artsy != nil, "Artsy Folio's stores are absent"))
    func aRealStoreWithAPlantedDriftConvertsAndMigratesToTheNewestVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let history = try CoreDataRealStoreTests.history()
        let original = CoreDataRealStoreTests.artsy!.appendingPathComponent("stores/ArtsyPartner_1.4.sqlite").path
        let path = folder.path("Folio.sqlite")
        try FileManager.default.copyItem(atPath: original, toPath: path)
        try withDatabase(path) { db in
            try db.execute(
                sql:
                    "ALTER TABLE ZARTWORK ADD COLUMN ZEDITEDAT TIMESTAMP; UPDATE ZARTWORK SET ZEDITEDAT = 700000000 WHERE Z_PK <= 5; ALTER TABLE ZARTWORK DROP COLUMN ZINFO"
            )
        }
        let counts = try CoreDataRealStoreTests.coreDataCounts(path)
        #expect(counts["ZARTWORK"] == 68)
        var options = StoreOptions()
        options.coreDataOrigin = history.origin
        let opened = try LucidStore.open(atPath: path, versions: history.versions, options: options)
        let report = try #require(opened.outcome.coreDataConversion)
        #expect(report.model == "ArtsyFolio v1.4")
        #expect(
            report.drift == [
                "ZARTWORK has no column ZINFO, which model ArtsyFolio v1.4 has: Artwork.info (artwork.info) is NULL in its 68 rows",
                "ZARTWORK has column ZEDITEDAT, which model ArtsyFolio v1.4 does not: its 5 values are not converted (the .coredata-backup keeps them)",
            ])
        #expect(
            opened.outcome.steps.map(\.label) == [
                "converted from Core Data (model ArtsyFolio v1.4, drifted: 2 differences) at 6.0", "6.0 → 19.0 (inferred)",
            ])
        #expect(opened.outcome.finalVersion == history.versions.last!.version)
        #expect(report.notes.isEmpty, "\(report.notes)")
        try opened.database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM artwork") == 68)
            #expect(try Int.fetchOne(db, sql: "SELECT count(info) FROM artwork") == 0)
            #expect(
                try Row.fetchOne(db, sql: "SELECT height, width FROM artwork WHERE id = 41").map { [$0[0], $0[1]] as [String?] } == [
                    "11.2", "33.2",
                ])
            for (table, rows) in [
                "album": 10, "artist": 4, "document": 18, "image": 76, "show": 11, "user": 108, "album_artworks": 78, "artwork_shows": 30,
            ] {
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") == rows, "\(table)")
            }
        }
        try opened.database.close()
        #expect(try CoreDataRealStoreTests.coreDataCounts(path + ".coredata-backup") == counts)

        // A column of another declared type: refused, the file as it was.
        let refused = folder.path("Refused.sqlite")
        try FileManager.default.copyItem(atPath: original, toPath: refused)
        try withDatabase(refused) { db in
            try db.execute(sql: "ALTER TABLE ZARTWORK DROP COLUMN ZINFO; ALTER TABLE ZARTWORK ADD COLUMN ZINFO BLOB")
        }
        let files = try Self.bytes(refused)
        let before = try files()
        #expect {
            _ = try LucidStore.open(atPath: refused, versions: history.versions, options: options).database
        } throws: { error in
            guard case StoreError.unrecognizedSchema(_, let differences) = error else { return false }
            return differences.contains {
                $0.contains(
                    "the nearest is model ArtsyFolio v1.4 (6.0, 1 difference), and not every difference can be taken without data of its own: ZARTWORK.ZINFO is BLOB, not VARCHAR; nothing was changed"
                )
            }
        }
        #expect(try files() == before)
    }
}
