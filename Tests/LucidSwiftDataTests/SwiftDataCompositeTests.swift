import Foundation
import GRDB
import LucidCoreData
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// SwiftData's Codable structs, which it stores as Core Data composite attributes (one column per member on
/// the entity's table), imported as lucidgen composites, and a user's store with them converted.
@Suite struct SwiftDataCompositeTests {
    /// Two schema versions of a places app whose model keeps an address (with a nested position and an
    /// enum) and an optional second one, plus structs that cannot be composites.
    static let files: [String: String] = [
        "Values.swift": """
        import Foundation
        enum Kind: String, Codable { case home, work }
        struct Position: Codable, Hashable { var latitude: Double; var longitude: Double }
        struct Address: Codable, Hashable {
            var street: String
            var postCode: String?
            var kind: Kind
            var position: Position
            var since: Date?
        }
        struct Loose: Codable { var note: String? }
        struct Bag: Codable { var items: [String] }
        """,
        "Schema.swift": """
        import SwiftData
        enum PlacesV1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Place.self] }
            @Model final class Place {
                var name: String = ""
                var address: Address
                var other: Address?
                var loose: Loose?
                var bag: Bag?
                init(address: Address) { self.address = address }
            }
        }
        enum PlacesV2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [Place.self] }
            @Model final class Place {
                var name: String = ""
                var address: Address
                var other: Address?
                var loose: Loose?
                var bag: Bag?
                var visits: Int = 0
                init(address: Address) { self.address = address }
            }
        }
        enum PlacesPlan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [PlacesV1.self, PlacesV2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: PlacesV1.self, toVersion: PlacesV2.self)] }
        }
        """,
    ]

    static func imported(_ files: [String: String] = files) throws -> SwiftDataApp.Imported {
        let app = try SwiftDataApp(files)
        defer { app.remove() }
        return try app.imported()
    }

    @Test func aCodableStructIsImportedAsACompositeWithItsSubtypes() throws {
        let imported = try Self.imported()
        #expect(imported.output.files.map(\.name) == ["Subtypes/address", "Subtypes/position", "place"])
        let place = imported.description("place")
        #expect(place.contains(#"{ "name": "address", "property_type": "address", "composite": true },"#), "\(place)")
        #expect(place.contains(#"{ "name": "other", "property_type": "address", "composite": true, "nullable": true },"#), "\(place)")
        #expect(place.contains(#"{ "name": "loose", "property_type": "data", "nullable": true },"#), "\(place)")
        #expect(place.contains(#"{ "name": "bag", "property_type": "data", "nullable": true },"#), "\(place)")
        #expect(
            imported.description("Subtypes/address") == """
                { "name": "address", "properties": [
                    { "name": "street", "property_type": "string" },
                    { "name": "post_code", "property_type": "string", "nullable": true },
                    { "name": "kind", "property_type": "string" },
                    { "name": "position", "property_type": "position" },
                    { "name": "since", "property_type": "date", "nullable": true }
                ] }

                """)
        #expect(
            imported.description("Subtypes/position") == """
                { "name": "position", "properties": [
                    { "name": "latitude", "property_type": "double" },
                    { "name": "longitude", "property_type": "double" }
                ] }

                """)
        // The origin lists each element: its member path, Core Data type and lucidgen column.
        let origin = try JSONDecoder().decode(CoreDataOriginDocument.self, from: Data(imported.output.origin.utf8))
        let address = try #require(origin.versions[0].entities[0].attributes.first { $0.name == "address" })
        #expect(address.type == "Composite" && address.column == "address")
        #expect(
            address.elements?.map { "\($0.path.joined(separator: ".")):\($0.type):\($0.column ?? "-")" } == [
                "street:String:address_street", "postCode:String:address_post_code", "kind:String:address_kind",
                "position.latitude:Double:address_position_latitude", "position.longitude:Double:address_position_longitude",
                "since:Date:address_since",
            ])
        for expected in [
            "Schema.swift:7: note: Place.address is the struct Address (street, postCode, kind, position.latitude, position.longitude, since): imported as a composite, one column per member, as SwiftData stores a Codable struct on the entity's table (published); the store's column of each member is found by its name when a store converts (inferred, see the SwiftData guide)",
            "Schema.swift:9: note: Place.loose is the optional struct Loose, whose members are all optional: nil and a Loose of nils would be the same NULL columns, which lucidgen refuses for a composite: imported as data, so a store that has it is refused when it converts, never converted with a loss (make one member required to import it as a composite)",
            "Schema.swift:10: note: Place.bag is the struct Bag, which SwiftData stores as a composite attribute, one column per member, but its member items is [String], a collection, which a composite element cannot be: imported as data, so a store that has it is refused when it converts, never converted with a loss (partial)",
        ] {
            #expect(imported.notes.contains(expected), "\(imported.notes)")
        }
        // The same sources give the same files.
        let again = try Self.imported()
        #expect(again.output.files.map(\.json) == imported.output.files.map(\.json) && again.output.origin == imported.output.origin)
    }

    @Test func theCompositeGeneratesColumnsAndAFixtureAtTheOldestVersionMigrates() throws {
        let generated = try GeneratedHistory(try Self.imported())
        #expect(generated.versions == ["1.0.0", "2.0.0"])
        let table = try #require(generated.result.model.schemas.first?.tables.first { $0.name == "place" })
        #expect(
            table.columns.map(\.name).sorted() == [
                "address_kind", "address_position_latitude", "address_position_longitude", "address_post_code", "address_since",
                "address_street", "bag", "id", "loose", "name", "other_kind", "other_position_latitude", "other_position_longitude",
                "other_post_code", "other_since", "other_street",
            ])
        #expect(table.columns.first { $0.name == "address_street" }?.notNull == true)
        #expect(table.columns.first { $0.name == "other_street" }?.notNull == false)
        let rows = try generated.migrate(
            from: "1.0.0",
            seed: [
                """
                INSERT INTO place (name, address_street, address_kind, address_position_latitude, address_position_longitude)
                VALUES ('Office', 'Main St 1', 'work', 52.5, 13.4)
                """
            ],
            query: "SELECT name, address_street, address_kind, address_position_latitude, other_street, visits FROM place")
        #expect(rows == [["Office", "Main St 1", "work", "52.5", "NULL", "0"]])
    }

    /// The sources without the two structs that are no composites: what the stores below were written by.
    static var convertible: [String: String] {
        var files = files
        files["Schema.swift"] = files["Schema.swift"]!.replacingOccurrences(of: "        var loose: Loose?\n", with: "")
            .replacingOccurrences(of: "        var bag: Bag?\n", with: "")
        return files
    }

    static func reference(_ iso: String) -> Double {
        ISO8601DateFormatter().date(from: iso)!.timeIntervalSinceReferenceDate
    }

    /// A user's store at 1.0.0 as SwiftData would write it: the composites' members as columns of `ZPLACE`
    /// (named the way `addressColumns` and `otherColumns` say: Core Data's naming of them is not published).
    static func writeStore(
        at path: String,
        addressColumns: [String] = [
            "ZADDRESS_STREET", "ZADDRESS_POSTCODE", "ZADDRESS_KIND", "ZADDRESS_POSITION_LATITUDE", "ZADDRESS_POSITION_LONGITUDE",
            "ZADDRESS_SINCE",
        ],
        otherColumns: [String] = [
            "ZOTHERSTREET", "ZOTHERPOSTCODE", "ZOTHERKIND", "ZOTHERPOSITIONLATITUDE", "ZOTHERPOSITIONLONGITUDE", "ZOTHERSINCE",
        ],
        extra: String = ""
    ) throws {
        let queue = try DatabaseQueue(path: path)
        let types = ["VARCHAR", "VARCHAR", "VARCHAR", "FLOAT", "FLOAT", "TIMESTAMP"]
        let columns = zip(addressColumns + otherColumns, types + types).map { "\($0) \($1)" }.joined(separator: ", ")
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, \(columns)\(extra) );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Place', 0, 2);
                    """)
            let plist: [String: Any] = [
                "NSStoreType": "SQLite", "NSStoreModelVersionIdentifiers": ["1.0.0"],
                "NSStoreUUID": "A1B2C3D4-0000-4000-8000-00000000000B",
                "NSStoreModelVersionHashes": ["Place": Data(repeating: 7, count: 32)],
            ]
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'A1B2C3D4-0000-4000-8000-00000000000B', ?)", arguments: [data])
            let names = (["ZNAME"] + addressColumns + otherColumns).joined(separator: ", ")
            try db.execute(
                sql: """
                    INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, \(names)) VALUES
                      (1, 1, 1, 'Home', 'Elm Row 4', NULL, 'home', 55.95, -3.19, ?, NULL, NULL, NULL, NULL, NULL, NULL),
                      (2, 1, 3, 'Office', 'Main St 1', '10115', 'work', 52.5, 13.4, NULL, 'Side St 2', NULL, 'work', 52.51, 13.41, ?)
                    """,
                arguments: [reference("2024-03-01T09:00:00Z"), reference("2025-01-02T03:04:05Z")])
        }
        try queue.close()
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftdata-composite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func open(_ path: String, _ imported: SwiftDataApp.Imported, _ generated: GeneratedHistory, origin: String? = nil) throws
        -> OpenedStore
    {
        var options = StoreOptions()
        options.coreDataOrigin = try CoreDataOrigin(json: Data((origin ?? imported.output.origin).utf8))
        return try LucidStore.open(atPath: path, history: SchemaHistory(versions: generated.result.model.schemas), options: options)
    }

    @Test func aStoreWithCompositeColumnsConvertsEveryMemberAndMigrates() throws {
        let imported = try Self.imported(Self.convertible)
        let generated = try GeneratedHistory(imported)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try Self.writeStore(at: path)
        let opened = try Self.open(path, imported, generated)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.first?.label == "converted from Core Data (model PlacesV1) at 1.0.0", "\(opened.outcome)")
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0.0"))
        let rows = try opened.database.read { db in
            let columns = """
                id, name, address_street, address_post_code, address_kind, address_position_latitude, address_position_longitude,
                address_since, other_street, other_post_code, other_kind, other_position_latitude, other_position_longitude,
                other_since, visits
                """
            return try Row.fetchAll(db, sql: "SELECT \(columns) FROM place ORDER BY id").map { row in
                Array(row.databaseValues.map { $0.isNull ? "NULL" : String(describing: $0.storage.value!) })
            }
        }
        #expect(
            rows == [
                [
                    "1", "Home", "Elm Row 4", "NULL", "home", "55.95", "-3.19", "2024-03-01 09:00:00.000",
                    "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "0",
                ],
                [
                    "2", "Office", "Main St 1", "10115", "work", "52.5", "13.4", "NULL",
                    "Side St 2", "NULL", "work", "52.51", "13.41", "2025-01-02 03:04:05.000", "0",
                ],
            ])
    }

    @Test func aStoreWhereAnElementsColumnIsNotOneIsRefusedUnchangedUntilTheOriginSaysWhich() throws {
        let imported = try Self.imported(Self.convertible)
        let generated = try GeneratedHistory(imported)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        // Two columns either of which could be address.street's.
        try Self.writeStore(at: path, extra: ", ZADDRESSSTREET VARCHAR")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try Self.open(path, imported, generated)
        } throws: { error in
            "\(error)".contains(
                "ZPLACE has 2 columns that could hold Place.address.street, a composite's element (ZADDRESSSTREET, ZADDRESS_STREET): which one is not guessed; write its store_column in the origin file"
            )
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // The origin file says which, by hand: the store converts, that column's values taken.
        var origin = try JSONDecoder().decode(CoreDataOriginDocument.self, from: Data(imported.output.origin.utf8))
        let a = try #require(origin.versions[0].entities[0].attributes.firstIndex { $0.name == "address" })
        origin.versions[0].entities[0].attributes[a].elements![0].storeColumn = "ZADDRESS_STREET"
        let opened = try Self.open(path, imported, generated, origin: origin.json())
        defer { try? opened.database.close() }
        #expect(opened.outcome.finalVersion == SchemaVersion("2.0.0"))
        #expect(
            try opened.database.read { db in try String.fetchAll(db, sql: "SELECT address_street FROM place ORDER BY id") } == [
                "Elm Row 4", "Main St 1",
            ])
    }

    @Test func aStoreWithoutAnElementsColumnIsRefusedUnchanged() throws {
        let imported = try Self.imported(Self.convertible)
        let generated = try GeneratedHistory(imported)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        // A member whose column is named otherwise than its path (no rule says how Core Data shortens one).
        var address = [
            "ZADDRESS_STREET", "ZADDRESS_POSTCODE", "ZADDRESS_KIND", "ZADDRESS_POSITION_LATITUDE", "ZADDRESS_POSITION_LONGITUDE",
            "ZADDRESS_SINCE",
        ]
        address[3] = "ZADDRESS_POSITION_LAT"
        try Self.writeStore(at: path, addressColumns: address)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try Self.open(path, imported, generated)
        } throws: { error in
            "\(error)".contains(
                "ZPLACE has no column for Place.address.position.latitude, a composite's element (looked for one named like ZADDRESS_POSITION_LATITUDE, underscores anywhere; if the store names it otherwise, write its store_column in the origin file)"
            )
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

extension SwiftDataCompositeTests {
    @Test func aStructThatDiffersBetweenVersionsIsImportedAsDataNoted() throws {
        func version(_ n: Int, _ members: String) -> String {
            """
            enum SchemaV\(n): VersionedSchema {
                static var versionIdentifier = Schema.Version(\(n), 0, 0)
                static var models: [any PersistentModel.Type] { [Trip.self] }
                struct Leg: Codable { \(members) }
                @Model final class Trip {
                    var leg: Leg
                    init(leg: Leg) { self.leg = leg }
                }
            }
            """
        }
        let source =
            "import SwiftData\n" + version(1, "var from: String") + "\n" + version(2, "var from: String; var to: String") + "\n"
        let imported = try Self.imported(["Schema.swift": source])
        let trip = imported.description("trip")
        #expect(trip.contains(#"{ "name": "leg", "property_type": "data" }"#), "\(trip)")
        #expect(!imported.output.files.contains { $0.name.hasPrefix("Subtypes/") })
        #expect(
            imported.notes.contains(
                "Schema.swift:7: note: Trip.leg is the struct Leg, but a struct of that name is not the same in every version, or a model has its name: one subtype cannot say both, so it is imported as data, and a store that has it is refused when it converts, never converted with a loss (partial)"
            ), "\(imported.notes)")
    }
}
