import Foundation
import GRDB
import LucidGenCore
import LucidTestSupport
import Testing

/// `lucidgen import coredata`: real model histories (from the team's shared folder, `../shared/coredata`, read in
/// place and never committed) and a committed synthetic one (`CoreData/Shop.xcdatamodeld`) that has every
/// element the importer reads: a renamed entity and property (renaming identifiers), an ordered many-to-many,
/// a to-one with a cascading inverse, Decimal, UUID, URI, Transformable, external storage, a transient,
/// a fetched property, a fetch request, a configuration, a uniqueness constraint, a fetch index, a date default.
@Suite struct CoreDataImportTests {
    static let shop = CoreDataModels.shop

    static let sharedHistories = CoreDataModels.sharedHistories

    static var wikipedia: URL? { CoreDataModels.wikipedia }
    static var httpsUpgrade: URL? { CoreDataModels.httpsUpgrade }

    static let wikipediaMap = CoreDataModels.wikipediaMap

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func json(_ folder: URL, _ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(".entities/\(name).json"), encoding: .utf8)
    }

    // MARK: The synthetic history

    @Test func theShopHistoryBecomesDescriptionsWithItsRenamesAndNotes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(lucidgenBinary, ["import", "coredata", Self.shop.path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.contains(
                "order (the numbers in the model versions' names, .xccurrentversion names the last):\n  Shop → 1.0\n  Shop 2 → 2.0\n  Shop 3 → 3.0"
            ), "\(result.output)")
        let client = try Self.json(folder, "client")
        // The entity renamed by its renaming identifier, and a property too: renames, not a drop and an add.
        #expect(client.contains(#"{ "version": "2.0", "previous_name": "customer" }"#), "\(client)")
        // A history lists the versions where the entity changes (product never does after 1.0).
        #expect(try Self.json(folder, "product").contains("\"version_history\": [\n    { \"version\": \"1.0\" }\n  ]"))
        #expect(
            client.contains(
                #"{ "name": "mail", "property_type": "string", "nullable": true, "previous_name": "email", "renamed_at_version": "2.0" }"#),
            "\(client)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".entities/customer.json").path))
        // Types, defaults, a required property added later with its default.
        for line in [
            #"{ "name": "loyalty", "property_type": "decimal", "nullable": true, "default_value": "0.5" }"#,
            #"{ "name": "token", "property_type": "uuid", "nullable": true }"#,
            #"{ "name": "homepage", "property_type": "url", "nullable": true }"#,
            #"{ "name": "prefs", "property_type": "data", "nullable": true }"#,
            #"{ "name": "vip", "property_type": "bool", "default_value": false, "added_at_version": "2.0" }"#,
        ] {
            #expect(client.contains(line), "\(line) in \(client)")
        }
        #expect(!client.contains("cached_score"), "a transient attribute is not stored")
        let order = try Self.json(folder, "order")
        // The to-one owns its pair; the inverse's Cascade is its ON DELETE. The ordered many-to-many is
        // described once, on its ordered side. A nullability change is a type_history item.
        #expect(
            order.contains(
                #"{ "name": "customer", "property_type": { "entity_name": "client", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ), "\(order)")
        #expect(
            order.contains(
                #"{ "name": "items", "property_type": { "entity_name": "product", "association": "to_many", "ordered": true } }"#),
            "\(order)")
        #expect(order.contains(#""type_history": [{ "until_version": "3.0", "nullable": true, "default_value": null }]"#), "\(order)")
        let product = try Self.json(folder, "product")
        #expect(!product.contains("\"orders\""), "the inverse of order.items is not described twice: \(product)")
        #expect(
            product.contains(#"{ "properties": ["title"] }"#) && product.contains(#"{ "properties": ["sku"], "unique": true }"#),
            "\(product)")
        let coupon = try Self.json(folder, "coupon")
        #expect(coupon.contains(#""default_value": { "sql": "('2027-01-02 00:00:00.000')" }"#), "\(coupon)")
        // Every lossy or uncertain decision, located.
        let notes = result.output.split(separator: "\n").filter { $0.contains(": note: ") }.map {
            $0.components(separatedBy: ".xcdatamodeld/").last ?? ""
        }
        for expected in [
            "Shop.xcdatamodel/contents:35: note: the model's fetch request RecentOrders",
            "Shop.xcdatamodel/contents:36: note: the model's configuration Cloud",
            "Shop.xcdatamodel/contents:4: note: Customer.avatar allows external storage",
            "Shop.xcdatamodel/contents:5: note: Customer.cachedScore is transient",
            "Shop.xcdatamodel/contents:11: note: Customer.prefs is Transformable (NSDictionary): imported as data, the bytes its transformer NSSecureUnarchiveFromData wrote",
            "Shop 3.xcdatamodel/contents:41: note: entity Coupon: its renaming identifier Voucher names no entity of Shop 2",
            "Shop 3.xcdatamodel/contents:44: note: Coupon.sameCode is a fetched property",
            "Shop 3.xcdatamodel/contents:43: note: Coupon.expires: its default date",
        ] {
            #expect(notes.contains { $0.hasPrefix(expected) }, "\(expected) in\n\(notes.joined(separator: "\n"))")
        }
        #expect(
            notes.count == 8, "each note once, not again at each version (or after the entity's rename):\n\(notes.joined(separator: "\n"))")
        let config = try String(contentsOf: folder.appendingPathComponent(".lucid.yaml"), encoding: .utf8)
        #expect(config.contains("current_version: \"3.0\""), "\(config)")

        // The same package gives the same files: nothing is written again.
        let again = try run(lucidgenBinary, ["import", "coredata", Self.shop.path], in: folder)
        #expect(again.status == 0 && again.output.contains("(0 files written, 8 notes to review)"), "\(again.output)\(again.error)")
    }

    @Test func aModelVersionAddedLaterAppendsAVersionAndKeepsTheReleasedSnapshots() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The app as it was at Shop 2: imported and generated (1.0 released, 2.0 current).
        let early = folder.appendingPathComponent("Shop.xcdatamodeld")
        try FileManager.default.createDirectory(at: early, withIntermediateDirectories: true)
        for version in ["Shop", "Shop 2"] {
            try FileManager.default.copyItem(
                at: Self.shop.appendingPathComponent("\(version).xcdatamodel"), to: early.appendingPathComponent("\(version).xcdatamodel"))
        }
        let current = try String(contentsOf: Self.shop.appendingPathComponent(".xccurrentversion"), encoding: .utf8)
        try current.replacingOccurrences(of: "Shop 3", with: "Shop 2").write(
            to: early.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        let first = try run(lucidgenBinary, ["import", "coredata", early.path], in: folder)
        #expect(first.status == 0, "\(first.output)\(first.error)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let snapshot = folder.appendingPathComponent(".entities/.schema/1.0.json")
        let frozen = try Data(contentsOf: snapshot)

        // The app adds Shop 3: importing again appends 3.0; 1.0's snapshot is untouched and generate accepts it.
        try FileManager.default.copyItem(
            at: Self.shop.appendingPathComponent("Shop 3.xcdatamodel"), to: early.appendingPathComponent("Shop 3.xcdatamodel"))
        try current.write(to: early.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        let refused = try run(lucidgenBinary, ["import", "coredata", early.path], in: folder)
        #expect(
            refused.status == 1
                && refused.error.contains("order.json: error: a description exists already and differs (pass --force to replace it)"),
            "\(refused.error)")
        let second = try run(lucidgenBinary, ["import", "coredata", "--force", early.path], in: folder)
        #expect(
            second.status == 0 && second.output.contains("updated  .lucid.yaml: current_version 3.0"), "\(second.output)\(second.error)")
        #expect(
            second.output.contains("wrote    .entities/coupon.json") && second.output.contains("wrote    .entities/order.json")
                && !second.output.contains("product.json") && !second.output.contains("client.json"),
            "only what 3.0 changes is written: \(second.output)")
        let regenerated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(regenerated.status == 0, "\(regenerated.output)\(regenerated.error)")
        #expect(try Data(contentsOf: snapshot) == frozen)
    }

    /// What trying real histories by hand found (Wire, Mastodon): each decision as Core Data means it.
    @Test func relationshipsAreDescribedAsCoreDataMeansThem() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Chat.xcdatamodeld")
        func model(_ name: String, _ body: String) throws {
            let url = package.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try "<?xml version=\"1.0\"?>\n<model>\n\(body)\n</model>".write(
                to: url.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let account = """
            <entity name="Account">
                <attribute name="downloadedMessageIDs_data" optional="YES" attributeType="Binary"/>
                <attribute name="mutedStatus" attributeType="Integer 32" defaultValueString="NO"/>
                <attribute name="coder" optional="YES" attributeType="Transformable" valueTransformerName=""/>
                <relationship name="profile" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Profile" inverseName="account" inverseEntity="Profile"/>
                <relationship name="messages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="sender" inverseEntity="Message"/>
            </entity>
            <entity name="Profile">
                <relationship name="account" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="profile" inverseEntity="Account"/>
            </entity>
            """
        try model(
            "Chat",
            account + """
                <entity name="Conversation">
                    <relationship name="messages" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="conversation" inverseEntity="Message"/>
                </entity>
                <entity name="Message">
                    <relationship name="sender" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="messages" inverseEntity="Account"/>
                    <relationship name="conversation" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Conversation" inverseName="messages" inverseEntity="Conversation"/>
                </entity>
                """)
        try model(
            "Chat 2",
            account + """
                <entity name="Conversation">
                    <relationship name="allMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="visibleIn" inverseEntity="Message" elementID="messages"/>
                    <relationship name="pinned" toMany="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="pinnedIn" inverseEntity="Message"/>
                </entity>
                <entity name="Message">
                    <relationship name="sender" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="messages" inverseEntity="Account"/>
                    <relationship name="visibleIn" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Conversation" inverseName="allMessages" inverseEntity="Conversation"/>
                    <relationship name="pinnedIn" toMany="YES" deletionRule="Nullify" destinationEntity="Conversation" inverseName="pinned" inverseEntity="Conversation"/>
                </entity>
                """)
        let result = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        // An acronym's plural stays whole; a Boolean spelling on an integer is a number; an empty transformer name is none.
        let accountJSON = try Self.json(folder, "account")
        #expect(
            accountJSON.contains(#""name": "downloaded_message_ids_data""#)
                && accountJSON.contains(#""name": "muted_status", "property_type": "int", "default_value": 0"#), "\(accountJSON)")
        #expect(
            result.output.contains(
                "Account.coder is Transformable: imported as data, the bytes NSKeyedUnarchiveFromData (no valueTransformerName) wrote"),
            "\(result.output)")
        // One-to-one: the column is on the side the other's Cascade deletes (as Core Data cascades).
        #expect(
            try Self.json(folder, "profile").contains(
                #"{ "name": "account", "property_type": { "entity_name": "account", "association": "to_one" }, "nullable": true, "on_delete": "cascade" }"#
            ))
        #expect(!accountJSON.contains(#""name": "profile""#))
        // Required, nullified by its inverse: Core Data refuses the save, so the delete is restricted.
        #expect(
            try Self.json(folder, "message").contains(
                #"{ "name": "sender", "property_type": { "entity_name": "account", "association": "to_one" }, "on_delete": "restrict" }"#))
        // An ordered link table replaced by a to-one column: two relationships to lucidgen, said where it happens.
        #expect(
            result.output.contains(
                "Chat 2.xcdatamodel/contents:18: note: message.visible_in is added where conversation.messages is removed"),
            "\(result.output)")
        // A required to-many added later (Wire's addedUsers, labels) is a link table: existing rows need no value, so no stage.
        #expect(
            !result.output.contains("pinned is added as required") && !result.output.contains("pinnedIn is added as required"),
            "\(result.output)")
    }

    /// A user's store at the oldest model version, in one command: `lucidgen migrate --database` beside the
    /// imported descriptions converts it and migrates it to the newest version. The store is written as
    /// Core Data lays it out (DDL as real stores have it: STORE-LAYOUT-EVIDENCE.md).
    @Test func aUsersCoreDataStoreConvertsAndMigratesInOneCommand() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(lucidgenBinary, ["import", "coredata", Self.shop.path], in: folder).status == 0)
        #expect(try run(lucidgenBinary, ["generate"], in: folder).status == 0)
        let store = folder.appendingPathComponent("Shop.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(sql: CoreDataModels.shopDDL)
            try db.execute(
                sql: """
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Customer', 0, 4), (2, 'Order', 0, 1), (3, 'Product', 0, 2);
                    INSERT INTO ZCUSTOMER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZEMAIL, ZJOINED, ZLOYALTY) VALUES (4, 1, 2, 'Ada', 'ada@example.com', 700000000.25, 0.5);
                    INSERT INTO ZPRODUCT VALUES (1, 3, 1, 'A-1', 'Anvil'), (2, 3, 1, 'B-2', 'Bell');
                    INSERT INTO ZORDER VALUES (1, 2, 1, 7, 4, NULL, 9.5);
                    INSERT INTO Z_2ITEMS VALUES (1, 1, 2048), (1, 2, 1024);
                    """)
        }
        try queue.close()

        let plan = try run(lucidgenBinary, ["plan", "--database", "Shop.sqlite"], in: folder)
        #expect(
            plan.status == 0
                && plan.output.contains("Shop.sqlite: a Core Data store at model Shop: converts into lucidgen's tables at 1.0 first"),
            "\(plan.output)\(plan.error)")
        let migrate = try run(lucidgenBinary, ["migrate", "--database", "Shop.sqlite"], in: folder)
        #expect(
            migrate.status == 0 && migrate.output.contains("converted from Core Data (model Shop) at 1.0"),
            "\(migrate.output)\(migrate.error)")
        let converted = try DatabaseQueue(path: store)
        try converted.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "3.0")
            #expect(
                try Row.fetchOne(db, sql: "SELECT id, name, mail, joined, loyalty, vip FROM client") == [
                    "id": 4, "name": "Ada", "mail": "ada@example.com", "joined": "2023-03-08 20:26:40.250", "loyalty": "0.5", "vip": 0,
                ])
            #expect(try Int64.fetchAll(db, sql: "SELECT target_id FROM order_items WHERE source_id = 1 ORDER BY position") == [2, 1])
            #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'client'") == 4)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z%'").isEmpty)
        }
        try converted.close()
        #expect(FileManager.default.fileExists(atPath: store + ".coredata-backup"))
    }

    /// Two entities of a hierarchy with one property name (Wire's `text` in two sibling messages): one table
    /// in lucidgen, so the second is prefixed with its entity's name and keeps its Swift name, and said.
    @Test func aNameTwoEntitiesOfAHierarchyShareIsPrefixedAndNoted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = folder.appendingPathComponent("Chat.xcdatamodeld/Chat.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try """
        <?xml version="1.0"?>
        <model>
            <entity name="Message" isAbstract="YES"><attribute name="sent" optional="YES" attributeType="Date"/></entity>
            <entity name="TextMessage" parentEntity="Message"><attribute name="text" optional="YES" attributeType="String"/></entity>
            <entity name="SystemMessage" parentEntity="Message"><attribute name="text" optional="YES" attributeType="String"/></entity>
        </model>
        """.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", folder.appendingPathComponent("Chat.xcdatamodeld").path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(try Self.json(folder, "system_message").contains(#"{ "name": "text", "property_type": "string", "nullable": true }"#))
        #expect(
            try Self.json(folder, "text_message").contains(
                #"{ "name": "text_message_text", "swift_name": "text", "property_type": "string", "nullable": true }"#))
        #expect(try Self.json(folder, "message").contains(#""abstract": true"#))
        #expect(
            result.output.contains(
                "Chat.xcdatamodel/contents:4: note: TextMessage.text has the name of system_message's text in the hierarchy of message"),
            "\(result.output)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
    }

    /// The example a reader runs: `Examples/CoreDataShop/run` imports, generates, plans and migrates its
    /// user's Core Data store.
    @Test func theCoreDataExampleRuns() throws {
        let script = repositoryRoot.appendingPathComponent("Examples/CoreDataShop/run").path
        let result = try run("/bin/sh", [script, lucidgenBinary])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            result.output.contains("UserStore.sqlite: a Core Data store at model Shop: converts into lucidgen's tables at 1.0 first"),
            "\(result.output)")
        #expect(
            result.output.contains(
                "UserStore.sqlite: migrated from 1.0 to 3.0 in 2 steps: converted from Core Data (model Shop) at 1.0, 1.0 → 3.0 (inferred)."
            ), "\(result.output)")
        #expect(result.error.contains("Order.items → order_items: 4 links"), "progress, on standard error: \(result.error)")
    }

    /// A fleet of a Core Data app's users' stores: `status --stores` says each is converted when migrated, and
    /// `migrate --stores` converts and migrates each one as `migrate --database` does (with the project's
    /// `.coredata/origin.json`), a dry run changing nothing first.
    @Test func aFleetOfCoreDataStoresIsConvertedAndMigrated() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let example = repositoryRoot.appendingPathComponent("Examples/CoreDataShop")
        let imported = try run(
            lucidgenBinary, ["import", "coredata", example.appendingPathComponent("Shop.xcdatamodeld").path], in: folder)
        #expect(imported.status == 0, "\(imported.output)\(imported.error)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let stores = folder.appendingPathComponent("users")
        try FileManager.default.createDirectory(at: stores, withIntermediateDirectories: true)
        for name in ["a.sqlite", "b.sqlite"] {
            try FileManager.default.copyItem(
                at: example.appendingPathComponent("UserStore.sqlite"), to: stores.appendingPathComponent(name))
        }
        let before = try Data(contentsOf: stores.appendingPathComponent("a.sqlite"))
        let status = try run(lucidgenBinary, ["status", "--stores", "users"], in: folder)
        #expect(status.status == 0, "a store the project converts is no error: \(status.output)\(status.error)")
        #expect(
            status.output.contains("  Core Data stores, converted when migrated: 2\n    users/a.sqlite\n    users/b.sqlite"),
            "\(status.output)\(status.error)")
        let json = try run(lucidgenBinary, ["status", "--stores", "users", "--format", "json"], in: folder)
        #expect(json.output.contains(#""coreData" : ["#) && json.output.contains("users/b.sqlite"), "\(json.output)")
        let dry = try run(lucidgenBinary, ["migrate", "--stores", "users", "--dry-run"], in: folder)
        #expect(dry.status == 0 && dry.output.contains("Dry run: 2 stores: 2 migrated"), "\(dry.output)\(dry.error)")
        #expect(try Data(contentsOf: stores.appendingPathComponent("a.sqlite")) == before, "a dry run converts a copy")
        let migrated = try run(lucidgenBinary, ["migrate", "--stores", "users", "--report", "report.json"], in: folder)
        #expect(migrated.status == 0 && migrated.output.contains("2 stores: 2 migrated"), "\(migrated.output)\(migrated.error)")
        let single = folder.appendingPathComponent("single.sqlite").path
        try FileManager.default.copyItem(atPath: example.appendingPathComponent("UserStore.sqlite").path, toPath: single)
        let one = try run(lucidgenBinary, ["migrate", "--database", single], in: folder)
        #expect(one.status == 0, "\(one.output)\(one.error)")
        // Each fleet store holds what the one-store command makes of the same file.
        func rows(_ path: String) throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                let tables = try String.fetchAll(
                    db,
                    sql:
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'lucid%' AND name NOT LIKE 'sqlite%' ORDER BY name"
                )
                return try tables.flatMap { table in
                    try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1, 2").map { "\(table) \($0)" }
                }
            }
        }
        let expected = try rows(single)
        #expect(!expected.isEmpty)
        for name in ["a.sqlite", "b.sqlite"] {
            #expect(try rows(stores.appendingPathComponent(name).path) == expected, "\(name)")
            #expect(FileManager.default.fileExists(atPath: stores.appendingPathComponent(name + ".coredata-backup").path))
        }
        let after = try run(lucidgenBinary, ["status", "--stores", "users"], in: folder)
        #expect(after.status == 0 && after.output.contains("(current)"), "\(after.output)\(after.error)")
    }

    /// A hostile model file: a class name that would close a string, a default with a line break, `\#(`,
    /// quotes and a comment end, a name Swift cannot take. Everything stays data; generate accepts it.
    @Test func aHostileModelStaysData() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = folder.appendingPathComponent("H.xcdatamodeld/H.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try """
        <?xml version="1.0"?>
        <model>
            <entity name="Note" representedClassName="Note&quot;) { fatalError() }">
                <attribute name="body" attributeType="String" defaultValueString="line one&#10;\\#(evil) &quot;quoted&quot; */ //"/>
                <attribute name="bad name" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", folder.appendingPathComponent("H.xcdatamodeld").path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let note = try Self.json(folder, "note")
        #expect(!note.contains("swift_name"), "no Swift name a Swift identifier cannot be: \(note)")
        #expect(note.contains(##""default_value": "line one\n\\#(evil) \"quoted\" */ //""##), "\(note)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
        let record = try String(contentsOf: folder.appendingPathComponent("Sources/App/Generated/Entities/Note.swift"), encoding: .utf8)
        #expect(record.contains(##"body: Swift.String = "line one\n\\#(evil) \"quoted\" */ //","##), "\(record)")
        #expect(!record.contains("fatalError"))
    }

    /// Attributes named like lucidgen's identifier (`id`) and like SQLite's rowid (`rowid`, whose column would
    /// hide the rowid every rebuild copies rows by) are imported under other names, their Swift names kept, and
    /// said; a user's store converts with every row, a NULL `rowid` included.
    @Test func anAttributeNamedRowidIsImportedUnderAnotherColumn() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = folder.appendingPathComponent("R.xcdatamodeld/R.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try """
        <?xml version="1.0"?>
        <model>
            <entity name="Item" representedClassName="Item">
                <attribute name="id" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="rowid" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="title" attributeType="String"/>
            </entity>
        </model>
        """.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", folder.appendingPathComponent("R.xcdatamodeld").path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(
            (result.output + result.error).contains(
                "R.xcdatamodel/contents:5: note: Item.rowid is named like SQLite's rowid, which a column may not hide: imported as core_data_rowid (its Swift name stays rowid)"
            ),
            "\(result.output)\(result.error)")
        let item = try Self.json(folder, "item")
        #expect(
            item.contains(#"{ "name": "core_data_rowid", "swift_name": "rowid", "property_type": "int", "nullable": true }"#), "\(item)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")

        let store = folder.appendingPathComponent("R.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZID INTEGER, ZROWID INTEGER, ZTITLE VARCHAR );
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    INSERT INTO Z_METADATA VALUES (1, '3E1F5D8C-0000-4000-8000-000000000002', X'62706C6973743030');
                    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Item', 0, 3);
                    INSERT INTO ZITEM VALUES (1, 1, 1, 10, NULL, 'kettle'), (2, 1, 1, 20, 7, 'lamp'), (3, 1, 1, 30, 7, 'trunk');
                    """)
        }
        try queue.close()
        let migrate = try run(lucidgenBinary, ["migrate", "--database", "R.sqlite"], in: folder)
        #expect(migrate.status == 0, "\(migrate.output)\(migrate.error)")
        let converted = try DatabaseQueue(path: store)
        try converted.read { (db: Database) throws in
            let rows = try Row.fetchAll(db, sql: "SELECT id, core_data_id, core_data_rowid, title FROM item ORDER BY id")
            #expect(
                rows == [
                    ["id": 1, "core_data_id": 10, "core_data_rowid": nil, "title": "kettle"],
                    ["id": 2, "core_data_id": 20, "core_data_rowid": 7, "title": "lamp"],
                    ["id": 3, "core_data_id": 30, "core_data_rowid": 7, "title": "trunk"],
                ])
        }
        try converted.close()
    }

    // MARK: Refusals

    @Test func anOrderThatIsNotCertainIsAnErrorAskingForAVersionMap() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Model.xcdatamodeld")
        for name in ["Model", "Model 2", "Model final"] {
            try FileManager.default.createDirectory(
                at: package.appendingPathComponent("\(name).xcdatamodel"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Self.shop.appendingPathComponent("Shop.xcdatamodel/contents"),
                to: package.appendingPathComponent("\(name).xcdatamodel/contents"))
        }
        let result = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        #expect(
            result.status == 1
                && result.error.contains(
                    "the order of the model versions is not certain: 'Model final' has no number and no other model version is named like it"
                ), "\(result.error)")
        #expect(
            result.error.contains("import: nothing was written")
                && !FileManager.default.fileExists(atPath: folder.appendingPathComponent(".entities").path))

        // The map says the order; it may leave a version out, and it is checked.
        try "\"Model\": \"1.0\"\n\"Model final\": \"1.1\"\n".write(
            to: folder.appendingPathComponent("map.yaml"), atomically: true, encoding: .utf8)
        let mapped = try run(lucidgenBinary, ["import", "coredata", package.path, "--version-map", "map.yaml"], in: folder)
        #expect(
            mapped.status == 0
                && mapped.output.contains("  Model → 1.0\n  Model final → 1.1\n  Model 2: left out (not in the version map)"),
            "\(mapped.output)\(mapped.error)")
        for (map, error) in [
            ("\"Model 3\": \"1.0\"\n", "map.yaml:1: error: the package has no model version 'Model 3'"),
            ("\"Model\": \"2.0\"\n\"Model 2\": \"1.0\"\n", "map.yaml:2: error: 1.0 does not come after 2.0"),
            ("\"Model\": \"one\"\n", "map.yaml:1: error: 'one' is not a version"),
            ("- Model\n", "map.yaml: error: expected a mapping of model version names to lucidgen versions"),
        ] {
            try map.write(to: folder.appendingPathComponent("map.yaml"), atomically: true, encoding: .utf8)
            let refused = try run(lucidgenBinary, ["import", "coredata", package.path, "--version-map", "map.yaml", "--force"], in: folder)
            #expect(refused.status == 1 && refused.error.contains(error), "\(map) → \(refused.error)")
        }
    }

    @Test func theLegacyFormatAndMalformedModelsAreRefusedWithTheirPlace() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Notes.xcdatamodeld")
        let legacy = package.appendingPathComponent("Notes.xcdatamodel")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: legacy.appendingPathComponent("elements"))
        try Data().write(to: legacy.appendingPathComponent("layout"))
        let result = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        #expect(
            result.status == 1
                && result.error.contains(
                    "Notes.xcdatamodel/elements: error: this model version is in the legacy elements/layout format (Xcode 3)"),
            "\(result.error)")

        // Not XML; XML that is not a model; an entity without a name; an external entity (never read).
        try FileManager.default.removeItem(at: legacy.appendingPathComponent("elements"))
        for (contents, error) in [
            ("not xml", "Notes.xcdatamodel/contents:1: error: not well-formed XML"),
            ("<?xml version=\"1.0\"?>\n<plist/>", "Notes.xcdatamodel/contents:2: error: the root element is <plist>, not <model>"),
            (
                "<?xml version=\"1.0\"?>\n<model>\n<entity representedClassName=\"X\"/>\n</model>",
                "Notes.xcdatamodel/contents:3: error: <entity> without name"
            ),
        ] {
            try contents.write(to: legacy.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            let refused = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
            #expect(refused.status == 1 && refused.error.contains(error), "\(contents) → \(refused.error)")
        }
        let secret = folder.appendingPathComponent("secret.txt")
        try "Secret".write(to: secret, atomically: true, encoding: .utf8)
        try """
        <?xml version="1.0"?>
        <!DOCTYPE model [<!ENTITY leak SYSTEM "file://\(secret.path)">]>
        <model><entity name="Note"><attribute name="body" attributeType="String" defaultValueString="&leak;"/></entity></model>
        """.write(to: legacy.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let external = try run(lucidgenBinary, ["import", "coredata", package.path], in: folder)
        let written = (try? String(contentsOf: folder.appendingPathComponent(".entities/note.json"), encoding: .utf8)) ?? ""
        #expect(
            !written.contains("Secret") && !external.output.contains("Secret") && !external.error.contains("Secret"),
            "an external entity is never read: \(written)\(external.output)\(external.error)")
    }

    // MARK: The shared real histories

    @Test func wikipediasCurrentVersionIsReportedNotGuessedAndItsHistoryImports() throws {
        guard let wikipedia = Self.wikipedia else { return }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try run(lucidgenBinary, ["import", "coredata", wikipedia.path], in: folder)
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.error.contains(
                ".xccurrentversion: error: names 'Wikipedia 6' as the current model version, but 'Wikipedia 7', 'Wikipedia 8' order after it"
            ), "\(refused.error)")
        #expect(
            refused.error.contains("--version-map FILE:\n  \"Wikipedia\": \"1.0\"\n  \"Wikipedia 2\": \"2.0\""),
            "the error gives the map to start from: \(refused.error)")

        try Self.wikipediaMap.write(to: folder.appendingPathComponent("map.yaml"), atomically: true, encoding: .utf8)
        let result = try run(lucidgenBinary, ["import", "coredata", wikipedia.path, "--version-map", "map.yaml"], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("imported 10 entities over 8 model versions"), "\(result.output)")
        // Four entities added at 2 and removed at 7.
        for name in ["talk_page", "talk_page_reply", "talk_page_topic", "talk_page_topic_content"] {
            let text = try Self.json(folder, name)
            #expect(text.contains(#"{ "version": "2.0" }"#) && text.contains(#""removed_at_version": "7.0""#), "\(name): \(text)")
        }
        let list = try Self.json(folder, "reading_list")
        #expect(
            list.contains(
                #"{ "name": "preview_articles", "property_type": { "entity_name": "wmf_article", "association": "to_many", "ordered": true } }"#
            ), "\(list)")
        let article = try Self.json(folder, "wmf_article")
        #expect(article.contains(#""swift_name": "WMFArticle""#) && !article.contains("preview_reading_lists"), "\(article)")
        #expect(result.output.contains("note: WMFArticle.pageViews is Transformable"), "\(result.output)")
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0 && !generated.error.contains("warning"), "\(generated.output)\(generated.error)")
        // Core Data's Z_PK: ids SQLite assigns on insert and never hands out twice.
        #expect(list.contains(#""identifier": { "autoincrement": true }"#), "\(list)")
        let record = try String(
            contentsOf: folder.appendingPathComponent("Sources/App/Generated/Entities/ReadingList.swift"), encoding: .utf8)
        let schema = try String(contentsOf: folder.appendingPathComponent("Sources/App/Generated/AppSchema.swift"), encoding: .utf8)
        #expect(
            record.contains("public var id: Swift.Int64?")
                && schema.contains("/// CREATE TABLE \"reading_list\" (\n    ///     \"id\" INTEGER PRIMARY KEY AUTOINCREMENT,\n"),
            "\(schema)")
    }

    @Test func httpsUpgradesMisspelledRenamingIdentifierIsReported() throws {
        guard let https = Self.httpsUpgrade else { return }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(lucidgenBinary, ["import", "coredata", https.path], in: folder)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        // Its renaming identifier says HTTPSWhitelistedDomain; the previous version's entity is HTTPSWhitlistedDomain.
        #expect(
            result.output.contains(
                "HTTPSUpgrade 2.xcdatamodel/contents:3: note: entity HTTPSExcludedDomain: its renaming identifier HTTPSWhitelistedDomain names no entity of HTTPSUpgrade"
            ), "\(result.output)")
        #expect(
            result.output.contains("HTTPSUpgrade's HTTPSWhitlistedDomain, removed here, differs from it by a letter or two"),
            "\(result.output)")
        let stored = try Self.json(folder, "https_stored_bloom_filter_specification")
        #expect(
            stored.contains(#"{ "name": "bit_count", "property_type": "int", "default_value": 0, "added_at_version": "3.0" }"#), "\(stored)"
        )
        #expect(try Self.json(folder, "https_bloom_filter_specification").contains(#""removed_at_version": "2.0""#))
        let generated = try run(lucidgenBinary, ["generate"], in: folder)
        #expect(generated.status == 0, "\(generated.output)\(generated.error)")
    }
}
