import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting
import StoreTestSupport
import Testing

/// `"property_type": "decimal"` at run time, with the generated records of `Decimals/` (checked against the
/// generator by GoldenTests): a `Decimal` GRDB wrote is the text GRDB 7 writes for it (`NSDecimalNumber`'s
/// en_US_POSIX description), reads back exactly equal through the generated record, keeps its digits
/// through 1.0 → 2.0 (a rebuild), and `int` → `decimal`, `decimal` → `string` are inferred.
@Suite struct DecimalPropertyTests {
    static func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

    /// Each row's `(id, typeof(total), total, typeof(rate), rate, discount, amounts, reference)` as the file holds
    /// them, as SQL literals (`quote`: text in quotes, numbers bare).
    static func stored(_ db: Database) throws -> [[String]] {
        let columns = ["id", "typeof(total)", "total", "typeof(rate)", "rate", "discount", "amounts", "reference"]
        return try Row.fetchAll(db, sql: "SELECT \(columns.map { "quote(\($0))" }.joined(separator: ", ")) FROM invoice ORDER BY id").map {
            row in
            (0..<columns.count).map { row[$0] as String }
        }
    }

    @Test func aDecimalGRDBWroteReadsBackExactlyAndSurvivesTheMigration() throws {
        // 1.0 → 2.0: total int → decimal (CAST AS TEXT), reference decimal → string (the same text): a rebuild.
        let steps = try MigrationPlanner(versions: DecimalsSchema.versions).plan(from: SchemaVersion("1.0"))
        #expect(
            steps.flatMap(\.operations).map(\.description) == [
                "rebuild table invoice (invoice.total converts int to decimal (CAST AS TEXT))"
            ])

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("invoices.sqlite")
        let created = try LucidStore.create(atPath: path, versions: DecimalsSchema.versions, version: SchemaVersion("1.0"))
        let long = Self.decimal("123456789012345678901234567890.12345678")
        try created.write { db in
            try Invoice_1_0(
                id: 1, total: 42, reference: long, rate: Self.decimal("0.1"), discount: nil,
                amounts: [Self.decimal("0.1"), Self.decimal("-12.340")]
            ).insert(db)
            // GRDB's Decimal as a statement argument, and the columns' defaults.
            try db.execute(
                sql: "INSERT INTO invoice (id, total, reference, rate) VALUES (?, ?, ?, ?)",
                arguments: [2, Int64.max, Self.decimal("-0.000001"), Self.decimal("9")])
            try db.execute(sql: "INSERT INTO invoice (id, total, reference) VALUES (3, -7, '1e3')")
        }
        let before = try created.read(Self.stored)
        try created.close()
        #expect(
            before == [
                ["1", "'integer'", "42", "'text'", "'0.1'", "NULL", "'[0.1,-12.34]'", "'123456789012345678901234567890.12345678'"],
                ["2", "'integer'", "9223372036854775807", "'text'", "'9'", "'0.05'", "NULL", "'-0.000001'"],
                ["3", "'integer'", "-7", "'text'", "'12.5'", "'0.05'", "NULL", "'1e3'"],
            ], "GRDB stores a Decimal as its text, without trailing zeros; the defaults are that text too")

        let opened = try LucidStore.open(atPath: path, registry: DecimalsSchema.self)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        try opened.database.write { (db: Database) throws in
            #expect(
                try Self.stored(db).map { [$0[1], $0[2], $0[7]] } == [
                    ["'text'", "'42'", "'123456789012345678901234567890.12345678'"], ["'text'", "'9223372036854775807'", "'-0.000001'"],
                    ["'text'", "'-7'", "'1e3'"],
                ], "the integers are their digits, the text GRDB stores for those Decimals; the string keeps the decimal's text")
            let invoices = try Invoice.order(Invoice.Columns.id).fetchAll(db)
            #expect(
                invoices == [
                    Invoice(
                        id: 1, total: 42, reference: "123456789012345678901234567890.12345678", rate: Self.decimal("0.1"), discount: nil,
                        amounts: [Self.decimal("0.1"), Self.decimal("-12.34")]),
                    Invoice(
                        id: 2, total: Self.decimal("9223372036854775807"), reference: "-0.000001", rate: 9, discount: Self.decimal("0.05")),
                    Invoice(id: 3, total: -7, reference: "1e3", rate: Self.decimal("12.50"), discount: Self.decimal("0.05")),
                ])
            #expect(invoices[0].rate == Self.decimal("0.1") && invoices[0].rate.description == "0.1")
            #expect(invoices[1].total == Decimal(Int64.max), "every digit of Int64.max, which no Double holds")
            // A query binds a Decimal as the same text: found by value.
            #expect(try Invoice.filter(Invoice.Columns.rate == Self.decimal("12.50")).fetchAll(db).map(\.id) == [3])
            // SQL compares the text, not the number: "12.5" sorts before "9".
            #expect(try Invoice.order(Invoice.Columns.rate).fetchAll(db).map(\.id) == [1, 3, 2])

            // The newest record: the initializer's default is exactly 12.50, written as GRDB writes it.
            try Invoice(id: 4, total: Self.decimal("0.30000000000000000001"), reference: "r").insert(db)
            #expect(
                try Row.fetchOne(db, sql: "SELECT total, rate, discount FROM invoice WHERE id = 4").map {
                    [$0[0], $0[1], $0[2]] as [String]
                } == ["0.30000000000000000001", "12.5", "0.05"])
            #expect(try Invoice.fetchOne(db, key: 4)?.total == Self.decimal("0.30000000000000000001"))
        }
    }

    /// `lucidgen fixtures`' SQL (`FixtureRows`) and the generated tests' typed seeds (`Decimal: DistinctSeedable`)
    /// store the same text.
    @Test func fixtureRowsAreTheTypedSeeds() throws {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Decimals/.lucid.yaml").path
        let model = try Resolver.resolve(try GeneratorPipeline(configPath: config).load())
        let version = SchemaVersion("2.0")
        let fixtures = FixtureRows(model: model)
        let shape = try #require(fixtures.shapes(at: version).first)
        func salt(_ name: String) -> Int { FixtureRows.salt(ofPropertyAt: shape.properties.firstIndex { $0.name == name }!) }
        let rows = 20
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let untyped = try LucidStore.create(atPath: folder.path("untyped.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(untyped, statements: fixtures.insertStatements(at: version, rows: rows))
        let typed = try LucidStore.create(atPath: folder.path("typed.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(typed) { db in
            for row in 1...rows {
                try Invoice(
                    id: Seed.identifier(row: row), total: .seed(row: row, salt: salt("total")),
                    reference: .seed(row: row, salt: salt("reference")),
                    rate: .seed(row: row, salt: salt("rate")), discount: .seed(row: row, salt: salt("discount")),
                    amounts: .seed(row: row, salt: salt("amounts"))
                ).insert(db)
            }
        }
        func read(_ queue: DatabaseQueue) throws -> [Row] {
            try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM invoice ORDER BY id") }
        }
        let expected = try read(typed)
        let found = try read(untyped)
        try typed.close()
        try untyped.close()
        #expect(expected.count == rows && found == expected)
        #expect(Set(found.map { $0["total"] as String }) == Set(SeedValues.decimals), "every edge decimal, as GRDB stores it")
        #expect(SeedValues.decimals.allSatisfy { DecimalText.stored($0) == $0 }, "the edge values are GRDB's text")
        #expect(
            (1...40).map { Decimal.seedDistinct(row: $0, salt: 3) }.count
                == Set((1...40).map { Decimal.seedDistinct(row: $0, salt: 3) }).count)
    }
}
