import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `"property_type": "uuid"` in the generator: `Foundation.UUID` stored as GRDB stores it, a
/// BLOB of its 16 bytes; its default, its type changes, its sample rows and `describe --type …=uuid`. The
/// generated records at run time: `UUIDPropertyTests` (LucidRuntimeTests).
@Suite struct UUIDTypeTests {
    static let twoVersions = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"

    static func card(_ properties: String, history: String = #"{ "version": "1.0" }"#) -> String {
        """
        {
            "name": "card",
            "identifier": { "type": "int" },
            "version_history": [\(history)],
            "properties": [
                \(properties)
            ]
        }
        """
    }

    @Test func aUUIDIsFoundationUUIDInABlobWithItsDefaultAsABlobLiteral() throws {
        let project = try TestProject(files: [
            ".entities/card.json": Self.card(
                #"""
                { "name": "token", "property_type": "uuid", "unique": true },
                { "name": "spare", "property_type": "uuid", "nullable": true, "default_value": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f" },
                { "name": "keys", "property_type": "[uuid]" }
                """#)
        ])
        defer { project.remove() }
        let result = try project.generate()
        #expect(!result.diagnostics.contains { $0.severity != .note }, "\(result.diagnostics)")
        let table = try #require(result.model.schemas[0].table(named: "card"))
        #expect(
            table.createTableStatement()
                == #"CREATE TABLE "card" ("id" INTEGER PRIMARY KEY NOT NULL, "keys" TEXT NOT NULL, "spare" BLOB DEFAULT X'E621E1F8C36C495A93FC0C247A3E6E5F', "token" BLOB NOT NULL)"#
        )
        #expect(table.columns.map(\.valueType) == [.int, .array(.uuid), .uuid, .uuid])
        let shape = try #require(result.model.entities.first?.shapes.first)
        #expect(shape.properties.map(\.swiftType) == ["Foundation.UUID", "Foundation.UUID", "[Foundation.UUID]"])
        let record = try project.read("Sources/App/Generated/Entities/Card.swift")
        // The text as `UUID.uuidString` writes it (upper-case), whatever case the description used.
        #expect(
            record.contains(#"spare: Foundation.UUID? = Foundation.UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!"#), "\(record)"
        )
        #expect(record.contains("self.token = try row.decode(Foundation.UUID.self, at: 1)"), "\(record)")
    }

    @Test func aDefaultThatIsNoUUIDIsALocatedError() throws {
        for (value, message) in [
            (
                #""E621E1F8C36C495A93FC0C247A3E6E5F""#,
                "default_value 'E621E1F8C36C495A93FC0C247A3E6E5F' of 'token' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""
            ),
            (
                #""{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}""#,
                "default_value '{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}' of 'token' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""
            ),
            (
                #""G621E1F8-C36C-495A-93FC-0C247A3E6E5F""#,
                "default_value 'G621E1F8-C36C-495A-93FC-0C247A3E6E5F' of 'token' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""
            ),
            ("42", "default_value does not fit property 'token' of type uuid"),
            (#"".nil_uuid""#, "default_value does not fit property 'token' of type uuid"),
            (#""current_date""#, "default_value does not fit property 'token' of type uuid"),
        ] {
            let project = try TestProject(files: [
                ".entities/card.json": Self.card(
                    #"{ "name": "title", "property_type": "string" },"# + "\n"
                        + #"{ "name": "token", "property_type": "uuid", "default_value": \#(value) }"#)
            ])
            defer { project.remove() }
            let errors = try project.errors()
            #expect(errors.map(\.message) == [message])
            #expect(errors.first?.location?.file.hasSuffix(".entities/card.json") == true && errors.first?.location?.line == 7, "\(errors)")
            #expect(errors.first?.path == "$.properties[1].default_value")
            #expect(!project.exists("Sources/App/Generated/Entities/Card.swift"), "nothing written")
        }
    }

    /// A subtype named `uuid` could never be used: `"property_type": "uuid"` is the scalar.
    @Test func aSubtypeNamedUUIDIsAnError() throws {
        let project = try TestProject(files: [
            ".entities/card.json": Self.card(#"{ "name": "token", "property_type": "uuid" }"#),
            ".entities/Subtypes/uuid.json": #"{ "name": "UUID", "cases": ["a", "b"] }"#,
        ])
        defer { project.remove() }
        #expect(
            try project.errors().map(\.message) == [
                "subtype 'UUID' is named like the scalar type 'uuid', which a property_type \"UUID\" always means; rename the subtype"
            ])
    }

    /// Type changes: uuid → data keeps the bytes (inferred); string → uuid, uuid → string, data → uuid need the
    /// app's code, said at generate with the reason and the function to write.
    @Test(
        arguments: [
            ("string", "uuid", "card.token: string → uuid cannot convert every value exactly: not every text is a valid uuid"),
            (
                "uuid", "string",
                "card.token: uuid → string cannot convert every value exactly: a uuid is stored as its 16 bytes, which are no string value"
            ),
            ("data", "uuid", "card.token: data → uuid cannot convert every value exactly: not every blob is the 16 bytes of a UUID"),
            ("uuid", "data", nil),
        ] as [(String, String, String?)])
    func aTypeChangeToOrFromUUID(_ old: String, _ new: String, _ reason: String?) throws {
        let property =
            #"{ "name": "token", "property_type": "\#(new)", "type_history": [{ "until_version": "2.0", "property_type": "\#(old)" }] }"#
        let project = try TestProject(
            files: [".entities/card.json": Self.card(property, history: #"{ "version": "1.0" }, { "version": "2.0" }"#)],
            config: Self.twoVersions)
        defer { project.remove() }
        let result = try project.generate()
        let warnings = result.diagnostics.filter { $0.severity == .warning }
        if let reason {
            #expect(result.model.customSteps.map { "\($0.from) → \($0.to)" } == ["1.0 → 2.0"])
            let warning = try #require(warnings.first, "\(result.diagnostics)")
            #expect(
                warning.message.hasPrefix(
                    "1.0 → 2.0 cannot be inferred (\(reason)): implement `func migrate(_ old: Card_1_0) throws -> Card_2_0?`"),
                "\(warning.message)")
        } else {
            #expect(result.model.customSteps.isEmpty && warnings.isEmpty, "\(result.diagnostics)")
            let steps = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"))
            #expect(steps.flatMap(\.operations).isEmpty, "the same 16 bytes: \(steps)")
        }
    }

    /// A uuid default edited after a release is inferred from the snapshot like any default, its `type_history`
    /// item written with the UUID's text; writing that item by hand gives the same output.
    @Test func anEditedDefaultIsInferredWithItsUUIDText() throws {
        let property = { (uuid: String) in #"{ "name": "token", "property_type": "uuid", "default_value": "\#(uuid)" }"# }
        let released = try ReleasedProject(
            [".entities/card.json": Self.card(property("00000000-0000-0000-0000-000000000001"))], current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let edited = Self.card(property("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), history: #"{ "version": "1.0" }, { "version": "1.1" }"#)
        let result = try released.release("1.1", [".entities/card.json": edited])
        let item = #""type_history": [{ "until_version": "1.1", "default_value": "00000000-0000-0000-0000-000000000001" }]"#
        #expect(
            result.diagnostics.map(\.message).filter { $0.hasPrefix("inferred") } == [
                "inferred from the released snapshots: property 'token' of 'card' changed default from X'00000000000000000000000000000001' to X'E621E1F8C36C495A93FC0C247A3E6E5F' at 1.1; to say so in the description, add to the property "
                    + item
            ])
        #expect(
            result.model.schemas.map { $0.table(named: "card")?.column(named: "token")?.defaultSQL } == [
                "X'00000000000000000000000000000001'", "X'E621E1F8C36C495A93FC0C247A3E6E5F'",
            ])
        let handWritten = Self.card(
            #"{ "name": "token", "property_type": "uuid", "default_value": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "# + item + " }",
            history: #"{ "version": "1.0" }, { "version": "1.1" }"#)
        let explicit = try ReleasedProject([".entities/card.json": handWritten], current: "1.1")
        defer { explicit.remove() }
        let explicitResult = try explicit.release("1.1")
        #expect(explicitResult.model.schemas == result.model.schemas)
        #expect(try InferredTypeHistoryTests.outputs(of: explicit.project) == InferredTypeHistoryTests.outputs(of: released.project))
    }

    /// `lucidgen check` on sample rows: a uuid is its text (either case), stored as its 16 bytes by the trial
    /// insertion; anything else is an error at its line.
    @Test func sampleRowsGiveAUUIDAsItsText() throws {
        let project = try TestProject(files: [
            ".entities/card.json": Self.card(#"{ "name": "token", "property_type": "uuid", "unique": true }"#)
        ])
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try project.write(
            ".entities/.samples/1.0.json", #"{ "card": [ { "id": 1001, "token": "0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0" } ] }"#)
        let good = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(good.status == 0, "\(good.output)\(good.error)")
        // Stored as its bytes: the text of a UUID a seeded row has (an edge value) is that row's blob, which the
        // unique index refuses (as text it would be another value).
        try project.write(
            ".entities/.samples/1.0.json", #"{ "card": [ { "id": 1001, "token": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f" } ] }"#)
        let taken = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(taken.status == 1)
        #expect(
            taken.output.hasPrefix(
                ".entities/.samples/1.0.json:1:13: error: sample row refused by SQLite: table card, row id=1001 (the row at index 0 of the table): UNIQUE constraint failed: card.token"
            ), "\(taken.output)")
        try project.write(
            ".entities/.samples/1.0.json",
            """
            { "card": [ { "id": 1001, "token": "E621E1F8-C36C-495A-93FC-0C247A3E6E5" },
                        { "id": 1002, "token": 7 } ] }
            """)
        let bad = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(bad.status == 1)
        #expect(
            bad.output.split(separator: "\n").map(String.init) == [
                #".entities/.samples/1.0.json:1:36: error: table 'card', column 'token': 'E621E1F8-C36C-495A-93FC-0C247A3E6E5' is not a UUID: write its 32 hexadecimal digits as 8-4-4-4-12, e.g. "E621E1F8-C36C-495A-93FC-0C247A3E6E5F" (stored as its 16 bytes, as GRDB stores a UUID) (at $.card[0].token)"#,
                #".entities/.samples/1.0.json:2:36: error: table 'card', column 'token': expected a UUID (a string such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), found a number (at $.card[1].token)"#,
                "check: 2 errors, 0 warnings, 0 notes; failed (exit 1)",
            ], "\(bad.output)")
    }

    /// `describe --type item.token=uuid`: a BLOB of GRDB's UUIDs is described as uuid (its default, which GRDB
    /// writes as a blob literal, as the UUID's text); without the hint a BLOB stays data; a uuid hint on a TEXT
    /// column is a warning. The described store is adopted, and its UUIDs survive a rebuild.
    @Test func describeTakesAUUIDHint() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("keys.sqlite").path
        let spare = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let token = UUID()
        let queue = try DatabaseQueue(path: store)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("token", .blob).notNull()
                t.column("spare", .blob).defaults(to: spare)
                t.column("photo", .blob)
                t.column("code", .text)
            }
        }
        try migrator.migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO item (token, code) VALUES (?, ?)", arguments: [token, token.uuidString]) }
        try queue.close()
        let sql = try DatabaseQueue(path: store).read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'")
        }
        #expect(
            sql?.contains(#""spare" BLOB DEFAULT X'E621E1F8C36C495A93FC0C247A3E6E5F'"#) == true,
            "GRDB writes a UUID default as a blob literal: \(sql ?? "")")

        let hinted = try run(
            lucidgenBinary,
            [
                "describe", "--database", "keys.sqlite", "--type", "item.token=uuid", "--type", "item.spare=uuid", "--type",
                "item.code=uuid",
            ], in: project.root)
        #expect(
            hinted.error.contains(
                "item.code: described as uuid (--type), which lucidgen stores as a BLOB of its 16 bytes (as GRDB stores a UUID), but the store's column is TEXT; describe UUIDs stored as text as string"
            ), "\(hinted.output)\(hinted.error)")

        let described = try run(
            lucidgenBinary, ["describe", "--database", "keys.sqlite", "--force", "--type", "item.token=uuid", "--type", "item.spare=uuid"],
            in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let item = try project.read(".entities/item.json")
        #expect(item.contains(#"{ "name": "token", "property_type": "uuid" }"#), "\(item)")
        #expect(
            item.contains(
                #"{ "name": "spare", "property_type": "uuid", "nullable": true, "default_value": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F" }"#),
            "\(item)")
        #expect(item.contains(#"{ "name": "photo", "property_type": "data", "nullable": true }"#), "a BLOB without a hint is data: \(item)")
        #expect(item.contains(#"{ "name": "code", "property_type": "string", "nullable": true }"#), "\(item)")

        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)

        // 1.1 makes the token optional: a rebuild, which keeps its 16 bytes.
        try project.write(
            ".lucid.yaml",
            try project.read(".lucid.yaml").replacingOccurrences(of: #"current_version: "1.0""#, with: #"current_version: "1.1""#))
        try project.write(
            ".entities/item.json",
            item
                .replacingOccurrences(
                    of: #""version_history": [{ "version": "1.0" }]"#,
                    with: #""version_history": [{ "version": "1.0" }, { "version": "1.1" }]"#
                )
                .replacingOccurrences(
                    of: #"{ "name": "token", "property_type": "uuid" }"#,
                    with: #"{ "name": "token", "property_type": "uuid", "nullable": true }"#))
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let next = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        let opened = try LucidStore.open(atPath: store, versions: next)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 1.1 (inferred)"])
        let row = try #require(try opened.database.read { db in try Row.fetchOne(db, sql: "SELECT token, spare FROM item") })
        #expect((row["token"] as UUID?) == token && (row["spare"] as UUID?) == spare)
        #expect((row["token"] as DatabaseValue) == withUnsafeBytes(of: token.uuid) { Data($0) }.databaseValue)
    }
}
