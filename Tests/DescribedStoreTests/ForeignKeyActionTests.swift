import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// What a GRDB app's `belongsTo(…, onDelete:)` and `.indexed()` made is describable: a to-one's
/// `on_delete` action, and its index's name through the entity's `indexes`; such a store is adopted as it is.
@Suite struct ForeignKeyActionTests {
    static let room =
        #"{ "name": "room", "identifier": { "type": "int", "autoincrement": true }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "name", "property_type": "string" }] }"#

    static func item(onDelete: String?, nullable: Bool = true, indexName: String? = "item_on_room_id") -> String {
        let action = onDelete.map { #", "on_delete": "\#($0)""# } ?? ""
        let indexes = indexName.map { #", "indexes": [{ "properties": ["room"], "name": "\#($0)" }]"# } ?? ""
        return #"""
            { "name": "item", "identifier": { "type": "int", "autoincrement": true }, "version_history": [{ "version": "1.0" }]\#(indexes),
              "properties": [
                { "name": "title", "property_type": "string" },
                { "name": "room", "property_type": { "entity_name": "room", "association": "to_one" }, "nullable": \#(nullable)\#(action) }
              ] }
            """#
    }

    func generate(item: String) throws -> Result<[Schema], GenerationFailed> {
        let project = try TestProjectFolder(files: [".entities/room.json": Self.room, ".entities/item.json": item])
        defer { project.remove() }
        do {
            return .success(try GeneratorPipeline(configPath: project.path(".lucid.yaml")).run(check: false).model.schemas)
        } catch {
            return .failure(error)
        }
    }

    @Test(
        arguments: [
            ("cascade", "CASCADE"), ("set_null", "SET NULL"), ("restrict", "RESTRICT"), ("no_action", "NO ACTION"),
            ("set_default", "SET DEFAULT"), (nil, "SET NULL"),
        ] as [(String?, String)])
    func theActionAndTheIndexNameAreTheDescribedOnes(_ action: String?, _ sql: String) throws {
        let schemas = try generate(item: Self.item(onDelete: action)).get()
        let table = try #require(schemas[0].table(named: "item"))
        #expect(
            table.createTableStatement().hasSuffix(#"FOREIGN KEY ("room") REFERENCES "room"("id") ON DELETE \#(sql))"#),
            "\(table.createTableStatement())")
        #expect(table.createIndexStatements == [#"CREATE INDEX "item_on_room_id" ON "item" ("room")"#])
    }

    /// As GRDB's migrator writes it: autoIncrementedPrimaryKey, belongsTo(onDelete: .cascade), its index named by the app.
    static func makeStore(at path: String) throws {
        let made = try DatabaseQueue(path: path)
        try made.write { db in
            try db.execute(sql: #"CREATE TABLE "room" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "name" TEXT NOT NULL)"#)
            try db.execute(
                sql:
                    #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "room" INTEGER, "title" TEXT NOT NULL, FOREIGN KEY ("room") REFERENCES "room"("id") ON DELETE CASCADE)"#
            )
            try db.execute(sql: #"CREATE INDEX "item_on_room_id" ON "item" ("room")"#)
            try db.execute(sql: "INSERT INTO room (name) VALUES ('kitchen'), ('attic')")
            try db.execute(sql: "INSERT INTO item (room, title) VALUES (1, 'kettle'), (2, 'trunk')")
        }
        try made.close()
    }

    @Test func aStoreGRDBMadeIsAdoptedAndItsActionsHold() throws {
        let schemas = try generate(item: Self.item(onDelete: "cascade")).get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("grdb.sqlite")
        try Self.makeStore(at: path)
        let opened = try LucidStore.open(atPath: path, versions: schemas)
        defer { try? opened.database.close() }
        #expect(opened.outcome.start == .version(SchemaVersion("1.0"), adopted: true))
        try opened.database.write { db in try db.execute(sql: "DELETE FROM room WHERE id = 2") }
        #expect(
            try opened.database.read { db in try String.fetchAll(db, sql: "SELECT title FROM item ORDER BY id") } == ["kettle"],
            "ON DELETE CASCADE")
    }

    @Test func theDefaultActionDiffersFromAStoresAndSaysSo() throws {
        // Undescribed, the action is the default (SET NULL for an optional to-one): a store with CASCADE is not 1.0.
        let schemas = try generate(item: Self.item(onDelete: nil)).get()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("grdb.sqlite")
        try Self.makeStore(at: path)
        #expect {
            _ = try LucidStore.open(atPath: path, versions: schemas)
        } throws: { error in
            "\(error)".contains("expected foreign key (room) → room(id) ON DELETE SET NULL, found none")
                && "\(error)".contains("ON DELETE CASCADE")
        }
    }

    @Test func aWrongActionIsALocatedError() throws {
        guard case .failure(let required) = try generate(item: Self.item(onDelete: "set_null", nullable: false)) else {
            Issue.record("set_null on a required to-one was accepted")
            return
        }
        #expect(
            required.errors.contains {
                $0.message.hasPrefix("on_delete \"set_null\" needs a nullable relationship: 'room' is required")
                    && $0.path?.hasSuffix(".on_delete") == true
            }, "\(required.errors)")
        guard case .failure(let unknown) = try generate(item: Self.item(onDelete: "explode")) else {
            Issue.record("an unknown action was accepted")
            return
        }
        #expect(
            unknown.errors.contains {
                $0.message.hasPrefix(
                    "on_delete 'explode' is not an action: use one of \"cascade\", \"no_action\", \"restrict\", \"set_default\", \"set_null\""
                )
            }, "\(unknown.errors)")
        let scalar =
            #"{ "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "title", "property_type": "string", "on_delete": "cascade" }] }"#
        guard case .failure(let notARelationship) = try generate(item: scalar) else {
            Issue.record("on_delete on a string was accepted")
            return
        }
        #expect(
            notARelationship.errors.contains {
                $0.message == "on_delete applies to a to-one relationship (its foreign key); 'title' is none"
            }, "\(notARelationship.errors)")
    }

    /// `column_type` lands in the DDL: a type name with an optional size, nothing else.
    @Test func aColumnTypeIsATypeNameAndNothingElse() throws {
        func item(_ columnType: String) -> String {
            #"{ "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }], "properties": [{ "name": "price", "property_type": "double", "column_type": \#(StoreDescriberJSON.quoted(columnType)) }] }"#
        }
        let schemas = try generate(item: item("decimal(10, 2)")).get()
        #expect(
            schemas[0].table(named: "item")?.createTableStatement()
                == #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL, "price" DECIMAL(10, 2) NOT NULL)"#)
        for hostile in ["REAL) ; DROP TABLE room; --", "TEXT DEFAULT 'x'", "INT\nEGER", ""] {
            guard case .failure(let failure) = try generate(item: item(hostile)) else {
                Issue.record("column_type \(hostile) was accepted")
                continue
            }
            #expect(
                failure.errors.contains {
                    $0.message.hasPrefix("column_type '")
                        && $0.message.hasSuffix(
                            "is not a SQL type name (letters, digits, spaces, and an optional size such as VARCHAR(10))")
                }, "\(failure.errors)")
        }
    }
}

/// JSON string literals for descriptions written in tests.
enum StoreDescriberJSON {
    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }
}
