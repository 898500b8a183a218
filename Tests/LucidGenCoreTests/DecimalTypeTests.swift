import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import Testing

/// `"property_type": "decimal"` in the generator (Core Data's Decimal attribute): `Foundation.Decimal` stored as
/// GRDB stores it, its text; its default kept exact, its type changes, its sample rows and `describe --type
/// …=decimal`. The generated records at run time: `DecimalPropertyTests` (LucidRuntimeTests).
@Suite struct DecimalTypeTests {
    static let twoVersions = TestProject.defaultConfig + "\ncurrent_version: \"2.0\"\n"

    static func item(_ properties: String, history: String = #"{ "version": "1.0" }"#) -> String {
        """
        {
            "name": "item",
            "identifier": { "type": "int" },
            "version_history": [\(history)],
            "properties": [
                \(properties)
            ]
        }
        """
    }

    /// A default as a string or a JSON number, never through a `Double`: the column's DEFAULT is the text GRDB
    /// stores for that `Decimal`, the initializer's default that `Decimal`.
    @Test(arguments: [
        (#""12.50""#, "'12.5'", #"Foundation.Decimal(string: "12.5")!"#),
        ("12.50", "'12.5'", #"Foundation.Decimal(string: "12.5")!"#),
        ("0.1", "'0.1'", #"Foundation.Decimal(string: "0.1")!"#),
        (
            "3.14159265358979323846264338327950288", "'3.14159265358979323846264338327950288'",
            #"Foundation.Decimal(string: "3.14159265358979323846264338327950288")!"#
        ),
        (#""-1e-3""#, "'-0.001'", #"Foundation.Decimal(string: "-0.001")!"#),
        ("12", "'12'", "Foundation.Decimal(12)"),
        ("9223372036854775807", "'9223372036854775807'", "Foundation.Decimal(9223372036854775807)"),
    ])
    func aDefaultIsKeptExactly(_ value: String, _ sql: String, _ swift: String) throws {
        let project = try TestProject(files: [
            ".entities/item.json": Self.item(
                #"{ "name": "price", "property_type": "decimal", "default_value": \#(value) }, { "name": "prices", "property_type": "[decimal]" }"#
            )
        ])
        defer { project.remove() }
        let result = try project.generate()
        #expect(!result.diagnostics.contains { $0.severity != .note }, "\(result.diagnostics)")
        let table = try #require(result.model.schemas[0].table(named: "item"))
        #expect(
            table.createTableStatement()
                == #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY NOT NULL, "price" TEXT NOT NULL DEFAULT \#(sql), "prices" TEXT NOT NULL)"#
        )
        #expect(table.columns.map(\.valueType) == [.int, .decimal, .array(.decimal)])
        let record = try project.read("Sources/App/Generated/Entities/Item.swift")
        #expect(record.contains("price: Foundation.Decimal = \(swift)"), "\(record)")
        #expect(record.contains("public var prices: [Foundation.Decimal]"), "\(record)")
        // What the initializer's default makes is the column's default, as GRDB writes it.
        #expect(DecimalText.stored(Decimal(string: String(sql.dropFirst().dropLast()))!) == String(sql.dropFirst().dropLast()))
    }

    @Test(arguments: [
        (
            #""12abc""#,
            "default_value '12abc' of 'price' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most 38 significant digits, e.g. \"12.50\""
        ),
        (
            #""1,5""#,
            "default_value '1,5' of 'price' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most 38 significant digits, e.g. \"12.50\""
        ),
        (
            "1.234567890123456789012345678901234567891",
            "default_value '1.234567890123456789012345678901234567891' of 'price' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most 38 significant digits, e.g. \"12.50\""
        ),
        (
            "1e200",
            "default_value '1e200' of 'price' is not a decimal number a Decimal holds exactly: write digits with an optional sign, fraction and exponent, at most 38 significant digits, e.g. \"12.50\""
        ),
        ("true", "default_value does not fit property 'price' of type decimal"),
        (#"".zero""#, "default_value does not fit property 'price' of type decimal"),
    ])
    func aDefaultThatIsNoDecimalIsALocatedError(_ value: String, _ message: String) throws {
        let project = try TestProject(files: [
            ".entities/item.json": Self.item(
                #"{ "name": "title", "property_type": "string" },"# + "\n"
                    + #"{ "name": "price", "property_type": "decimal", "default_value": \#(value) }"#)
        ])
        defer { project.remove() }
        let errors = try project.errors()
        #expect(errors.map(\.message) == [message])
        #expect(errors.first?.location?.file.hasSuffix(".entities/item.json") == true && errors.first?.location?.line == 7, "\(errors)")
        #expect(errors.first?.path == "$.properties[1].default_value")
    }

    /// A double's default written as a JSON number is what it was (the number's text is read as a Double).
    @Test func aDoublesNumberDefaultIsUnchanged() throws {
        let project = try TestProject(files: [
            ".entities/item.json": Self.item(
                #"{ "name": "ratio", "property_type": "double", "default_value": 0.1 }, { "name": "span", "property_type": "seconds", "default_value": 2.5 }"#
            )
        ])
        defer { project.remove() }
        let table = try #require(try project.generate().model.schemas[0].table(named: "item"))
        #expect(table.columns.map(\.defaultSQL) == [nil, "0.1", "2.5"])
    }

    /// Type changes: int → decimal (the integer's digits are GRDB's text for that Decimal) and decimal → string
    /// (the same text) are inferred; anything else needs the app's code, said with the reason, and a change
    /// between numbers may accept SQLite's CAST.
    @Test(
        arguments: [
            ("int", "decimal", nil),
            ("decimal", "string", nil),
            ("string", "decimal", "item.price: string → decimal cannot convert every value exactly: not every text is a valid decimal"),
            (
                "double", "decimal",
                "item.price: double → decimal cannot convert every value exactly: SQLite writes a REAL as text with 15 significant digits; add \"lossy_conversion\": true to its type_history item to accept SQLite's CAST"
            ),
            (
                "decimal", "double",
                "item.price: decimal → double cannot convert every value exactly: a decimal's digits beyond a Double's 15 to 17 are lost; add \"lossy_conversion\": true to its type_history item to accept SQLite's CAST"
            ),
            (
                "decimal", "int",
                "item.price: decimal → int cannot convert every value exactly: fractions are cut off; add \"lossy_conversion\": true to its type_history item to accept SQLite's CAST"
            ),
        ] as [(String, String, String?)])
    func aTypeChangeToOrFromDecimal(_ old: String, _ new: String, _ reason: String?) throws {
        let property =
            #"{ "name": "price", "property_type": "\#(new)", "type_history": [{ "until_version": "2.0", "property_type": "\#(old)" }] }"#
        let project = try TestProject(
            files: [".entities/item.json": Self.item(property, history: #"{ "version": "1.0" }, { "version": "2.0" }"#)],
            config: Self.twoVersions)
        defer { project.remove() }
        let result = try project.generate()
        let warnings = result.diagnostics.filter { $0.severity == .warning }
        if let reason {
            #expect(result.model.customSteps.map { "\($0.from) → \($0.to)" } == ["1.0 → 2.0"])
            let warning = try #require(warnings.first, "\(result.diagnostics)")
            #expect(
                warning.message.hasPrefix(
                    "1.0 → 2.0 cannot be inferred (\(reason)): implement `func migrate(_ old: Item_1_0) throws -> Item_2_0?`"),
                "\(warning.message)")
        } else {
            #expect(result.model.customSteps.isEmpty && warnings.isEmpty, "\(result.diagnostics)")
        }
    }

    @Test func aDecimalToDoubleMayAcceptItsLoss() throws {
        let property =
            #"{ "name": "price", "property_type": "double", "type_history": [{ "until_version": "2.0", "property_type": "decimal", "lossy_conversion": true }] }"#
        let project = try TestProject(
            files: [".entities/item.json": Self.item(property, history: #"{ "version": "1.0" }, { "version": "2.0" }"#)],
            config: Self.twoVersions)
        defer { project.remove() }
        let result = try project.generate()
        #expect(result.model.customSteps.isEmpty, "\(result.diagnostics)")
        let steps = try MigrationPlanner(versions: result.model.schemas).plan(from: SchemaVersion("1.0"))
        #expect(
            steps.flatMap(\.operations).map(\.description) == ["rebuild table item (item.price converts decimal to double (CAST AS REAL))"])
    }

    /// A JSON struct's decimal member is a JSON number, which SQLite reads as a REAL: made a composite element
    /// (TEXT, GRDB's digits), it needs the app's code.
    @Test func aJSONStructsDecimalMemberMadeCompositeNeedsTheAppsCode() throws {
        let money =
            #"{ "name": "money", "properties": [{ "name": "amount", "property_type": "decimal" }, { "name": "currency", "property_type": "string" }] }"#
        let property =
            #"{ "name": "cost", "property_type": "money", "composite": true, "type_history": [{ "until_version": "2.0", "property_type": "money" }] }"#
        let project = try TestProject(
            files: [
                ".entities/item.json": Self.item(property, history: #"{ "version": "1.0" }, { "version": "2.0" }"#),
                ".entities/Subtypes/money.json": money,
            ], config: Self.twoVersions)
        defer { project.remove() }
        let result = try project.generate()
        let warning = try #require(result.diagnostics.first { $0.severity == .warning }, "\(result.diagnostics)")
        #expect(
            warning.message.contains(
                "member $.amount of cost is a decimal, a JSON number that SQLite reads as a REAL (15 significant digits), not the text a column stores"
            ), "\(warning.message)")
    }

    /// A decimal default edited after a release is inferred from the snapshot like any default, its
    /// `type_history` item giving GRDB's text.
    @Test func anEditedDefaultIsInferredWithItsText() throws {
        let property = { (value: String) in #"{ "name": "price", "property_type": "decimal", "default_value": \#(value) }"# }
        let released = try ReleasedProject([".entities/item.json": Self.item(property("1.50"))], current: "1.0")
        defer { released.remove() }
        try released.release("1.0")
        let result = try released.release(
            "1.1", [".entities/item.json": Self.item(property(#""2.25""#), history: #"{ "version": "1.0" }, { "version": "1.1" }"#)])
        #expect(
            result.diagnostics.map(\.message).filter { $0.hasPrefix("inferred") } == [
                #"inferred from the released snapshots: property 'price' of 'item' changed default from '1.5' to '2.25' at 1.1; to say so in the description, add to the property "type_history": [{ "until_version": "1.1", "default_value": "1.5" }]"#
            ])
        #expect(result.model.schemas.map { $0.table(named: "item")?.column(named: "price")?.defaultSQL } == ["'1.5'", "'2.25'"])
    }

    /// `lucidgen check` on sample rows: a decimal is its text or an integer, stored as GRDB's text; a JSON number
    /// with a fraction (read as a Double) or text that is no decimal is an error at its line.
    @Test func sampleRowsGiveADecimalAsItsText() throws {
        let project = try TestProject(files: [
            ".entities/item.json": Self.item(#"{ "name": "price", "property_type": "decimal", "unique": true }"#)
        ])
        defer { project.remove() }
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        try project.write(".entities/.samples/1.0.json", #"{ "item": [ { "id": 1001, "price": "19.990" }, { "id": 1002, "price": 20 } ] }"#)
        let good = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(good.status == 0, "\(good.output)\(good.error)")
        // Stored as GRDB's text: "12.340" is the seeded row's "12.34", which the unique index refuses.
        try project.write(".entities/.samples/1.0.json", #"{ "item": [ { "id": 1001, "price": "12.340" } ] }"#)
        let taken = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(taken.status == 1)
        #expect(taken.output.contains("UNIQUE constraint failed: item.price"), "\(taken.output)")
        try project.write(
            ".entities/.samples/1.0.json",
            """
            { "item": [ { "id": 1001, "price": "12.5.0" },
                        { "id": 1002, "price": 12.5 } ] }
            """)
        let bad = try run(lucidgenBinary, ["check"], in: project.root)
        #expect(bad.status == 1)
        #expect(
            bad.output.split(separator: "\n").map(String.init) == [
                ".entities/.samples/1.0.json:1:36: error: table 'item', column 'price': '12.5.0' is not a decimal number a Decimal holds exactly (digits with an optional sign, fraction and exponent, at most 38 significant digits) (at $.item[0].price)",
                #".entities/.samples/1.0.json:2:36: error: table 'item', column 'price': 12.5 would be read as a Double: write a decimal with a fraction as a string, e.g. "12.5" (at $.item[1].price)"#,
                "check: 2 errors, 0 warnings, 0 notes; failed (exit 1)",
            ], "\(bad.output)")
    }

    /// `describe --type item.price=decimal`: a TEXT column of GRDB's Decimals is described as decimal (its
    /// default as its text); without the hint it is a string; a decimal hint on a DOUBLE column is a warning.
    @Test func describeTakesADecimalHint() throws {
        let project = try TestProject(config: nil)
        defer { project.remove() }
        let store = project.root.appendingPathComponent("shop.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("price", .text).notNull().defaults(to: Decimal(string: "12.50")!)
                t.column("code", .text)
                t.column("weight", .double)
            }
            try db.execute(sql: "INSERT INTO item (price) VALUES (?)", arguments: [Decimal(string: "0.1")!])
        }
        try queue.close()
        let sql = try DatabaseQueue(path: store).read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'")
        }
        #expect(sql?.contains(#""price" TEXT NOT NULL DEFAULT '12.5'"#) == true, "GRDB writes a Decimal default as its text: \(sql ?? "")")

        let warned = try run(lucidgenBinary, ["describe", "--database", "shop.sqlite", "--type", "item.weight=decimal"], in: project.root)
        #expect(
            warned.error.contains(
                "item.weight: described as decimal (--type), which lucidgen stores as TEXT (as GRDB stores a Decimal), but the store's column is DOUBLE"
            ), "\(warned.output)\(warned.error)")

        let described = try run(
            lucidgenBinary, ["describe", "--database", "shop.sqlite", "--force", "--type", "item.price=decimal"], in: project.root)
        #expect(described.status == 0 && !described.error.contains("warning:"), "\(described.output)\(described.error)")
        let item = try project.read(".entities/item.json")
        #expect(item.contains(#"{ "name": "price", "property_type": "decimal", "default_value": "12.5" }"#), "\(item)")
        #expect(item.contains(#"{ "name": "code", "property_type": "string", "nullable": true }"#), "\(item)")
        #expect(try run(lucidgenBinary, ["generate"], in: project.root).status == 0)
        let schemas = try GeneratorPipeline(configPath: project.configPath).run(check: false).model.schemas
        #expect(try LucidStore.inspect(atPath: store, versions: schemas).adopted)
    }
}
