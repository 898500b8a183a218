import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidTesting

/// Type changes at the edges of their values, on real stores: only exact conversions are inferred, an
/// accepted loss is SQLite's CAST, and the migration oracle computes the converted values itself.
@Suite struct ValueConversionStoreTests {
    static let twoToThe53 = Int64(1) << 53

    /// Entity `item` (int identifier) at `history`, with one property `value` of `type` and the given type history.
    func versions(_ history: [String], type: String, typeHistory: String) throws -> [Schema] {
        try resolveSchemas(
            [
                "item.json": """
                { "name": "item", "identifier": { "type": "int" },
                  "version_history": [\(history.map { "{ \"version\": \"\($0)\" }" }.joined(separator: ", "))],
                  "properties": [{ "name": "value", "property_type": "\(type)", "nullable": true, "type_history": [\(typeHistory)] }] }
                """
            ], current: history.last)
    }

    func seed(_ values: [DatabaseValue]) -> (Database, Int) throws -> Void {
        { db, _ in
            for (index, value) in values.enumerated() {
                try db.execute(sql: "INSERT INTO item (id, value) VALUES (?, ?)", arguments: [index + 1, value])
            }
        }
    }

    /// Migrates a store seeded at the first version with the harness (the oracle checks every value) and
    /// returns the stored values, by id.
    func migrated(_ versions: [Schema], seeding values: [DatabaseValue]) throws -> (
        failures: [MigrationCheckFailure], values: [DatabaseValue]
    ) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let harness = MigrationTestHarness(versions: versions, options: StoreOptions())
        let failures = harness.checkSeeded(from: versions[0].version, seed: seed(values))
        // The same migration on a store of our own, to read the values.
        let path = folder.path("store.sqlite")
        let created = try LucidStore.create(atPath: path, versions: versions, version: versions[0].version)
        try created.write { db in try seed(values)(db, 0) }
        try created.close()
        try LucidStore.open(atPath: path, versions: versions, options: StoreOptions()).database.close()
        let stored = try withDatabase(path) { (db: Database) throws in
            try DatabaseValue.fetchAll(db, sql: "SELECT value FROM item ORDER BY id")
        }
        return (failures, stored)
    }

    func refusal(_ versions: [Schema]) -> [String] {
        do {
            _ = try MigrationPlanner(versions: versions).plan(from: versions[0].version)
            return []
        } catch {
            guard case .noRoute(_, _, let blocked) = error else { return ["\(error)"] }
            return blocked.flatMap(\.reasons)
        }
    }

    @Test func intToDoubleNeedsCodeUnlessTheLossIsAccepted() throws {
        let values: [DatabaseValue] = [
            (Self.twoToThe53 + 1).databaseValue, Int64.max.databaseValue, Int64.min.databaseValue, 42.databaseValue, .null,
        ]
        let refused = try versions(["1.0", "2.0"], type: "double", typeHistory: #"{ "until_version": "2.0", "property_type": "int" }"#)
        #expect(refusal(refused).count == 1)
        #expect(refusal(refused).first?.hasPrefix("item.value: int → double cannot convert every value exactly") == true)
        // A store at 1.0 does not open: nothing migrates it.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LucidStore.create(atPath: folder.path("refused.sqlite"), versions: refused, version: refused[0].version).close()
        #expect(throws: (any Error).self) { try LucidStore.open(atPath: folder.path("refused.sqlite"), versions: refused).database.close() }

        let accepted = try versions(
            ["1.0", "2.0"], type: "double", typeHistory: #"{ "until_version": "2.0", "property_type": "int", "lossyConversion": true }"#)
        #expect(accepted[1].table(named: "item")?.column(named: "value")?.lossyConversionFrom == .int)
        let (failures, stored) = try migrated(accepted, seeding: values)
        #expect(failures.isEmpty, "\(failures)")
        #expect(
            stored.map(\.storage)
                == [
                    Double(Self.twoToThe53 + 1).databaseValue, Double(Int64.max).databaseValue, Double(Int64.min).databaseValue,
                    Double(42).databaseValue, .null,
                ].map(\.storage))
        #expect(stored[0].storage == Double(9007199254740992).databaseValue.storage)
    }

    @Test func doubleToStringNeedsCodeUnlessTheLossIsAccepted() throws {
        let refused = try versions(["1.0", "2.0"], type: "string", typeHistory: #"{ "until_version": "2.0", "property_type": "double" }"#)
        #expect(
            refusal(refused).first?.hasPrefix(
                "item.value: double → string cannot convert every value exactly: SQLite writes a REAL as text with 15 significant digits")
                == true)

        let accepted = try versions(
            ["1.0", "2.0"], type: "string", typeHistory: #"{ "until_version": "2.0", "property_type": "double", "lossy_conversion": true }"#
        )
        let (failures, stored) = try migrated(
            accepted,
            seeding: [
                Double(0.30000000000000004).databaseValue, Double(1e300).databaseValue, Double(Self.twoToThe53 + 1).databaseValue,
                Double(-0.0).databaseValue,
            ])
        #expect(failures.isEmpty, "\(failures)")
        #expect(stored.map(\.storage) == ["0.3", "1.0e+300", "9.00719925474099e+15", "0.0"].map(\.databaseValue.storage))
    }

    @Test func intToStringKeepsEveryValue() throws {
        let schemas = try versions(["1.0", "2.0"], type: "string", typeHistory: #"{ "until_version": "2.0", "property_type": "int" }"#)
        let values: [Int64] = [.min, .max, 0, -1, Self.twoToThe53 + 1]
        let (failures, stored) = try migrated(schemas, seeding: values.map(\.databaseValue))
        #expect(failures.isEmpty, "\(failures)")
        #expect(stored.map(\.storage) == values.map { String($0).databaseValue.storage })
        #expect(stored.compactMap { String.fromDatabaseValue($0).flatMap { Int64($0) } } == values)
    }

    @Test func stringToDateOrEnumNeedsCode() throws {
        let toDate = try versions(
            ["1.0", "2.0"], type: "date", typeHistory: #"{ "until_version": "2.0", "property_type": "string", "lossy_conversion": true }"#)
        #expect(
            refusal(toDate) == [
                "item.value: string → date is no conversion SQLite's CAST can make, even with its loss accepted (lossy_conversion)"
            ])
        let toDateUnaccepted = try versions(
            ["1.0", "2.0"], type: "date", typeHistory: #"{ "until_version": "2.0", "property_type": "string" }"#)
        #expect(
            refusal(toDateUnaccepted) == ["item.value: string → date cannot convert every value exactly: not every text is a valid date"])
        let toSeconds = try versions(
            ["1.0", "2.0"], type: "milliseconds", typeHistory: #"{ "until_version": "2.0", "property_type": "seconds" }"#)
        #expect(
            refusal(toSeconds) == [
                "item.value: seconds → milliseconds cannot convert every value exactly: the unit changes, every value must be scaled"
            ])
    }

    /// 1.0 int → 1.1 double (loss accepted) → 1.2 string (loss accepted): a store at 1.0 jumps to 1.2 in one
    /// step, but its values go through the double as they would version by version.
    @Test func aJumpComposesTheConversionsOfEachVersion() throws {
        let schemas = try versions(
            ["1.0", "1.1", "1.2"], type: "string",
            typeHistory:
                #"{ "until_version": "1.1", "property_type": "int" }, { "until_version": "1.2", "property_type": "double", "lossy_conversion": true }"#
        )
        // The 1.1 item describes 1.1's type (double) and accepts the loss of 1.1 → 1.2; 1.0 → 1.1 (int → double) needs the same.
        #expect(!refusal(schemas).isEmpty)
        let accepted = try versions(
            ["1.0", "1.1", "1.2"], type: "string",
            typeHistory:
                #"{ "until_version": "1.1", "property_type": "int", "lossy_conversion": true }, { "until_version": "1.2", "property_type": "double", "lossy_conversion": true }"#
        )
        #expect(try MigrationPlanner(versions: accepted).plan(from: SchemaVersion("1.0")).map(\.label) == ["1.0 → 1.2 (inferred)"])
        let (failures, stored) = try migrated(accepted, seeding: [(Self.twoToThe53 + 1).databaseValue, 7.databaseValue])
        #expect(failures.isEmpty, "\(failures)")
        #expect(stored.map(\.storage) == ["9.00719925474099e+15", "7.0"].map(\.databaseValue.storage))
    }

    // MARK: The oracle's conversions against SQLite's

    static let edgeDoubles: [Double] = [
        0.1, 0.30000000000000004, 1e300, -1e-300, Double((Int64(1) << 53) + 1), 123456789.125, 1e15, 1e16, 1e14, 123456789012344.5,
        0.0001, 0.00001, 100, -2.5, 1.5e-7, 9.999999999999995, 99999999999999.95, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude,
        Double(Int64.max), 1 / 3, 2 / 3, 0.5, 1e-5, 123.456e20,
    ]

    @Test func realToTextIsSQLitesOwn() throws {
        var generator = SystemRandomNumberGenerator()
        let random =
            (0..<2000).map { _ in Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random() ? 1 : -1) }
            + (0..<2000).map { _ in Double.random(in: -1e6...1e6) }
        let queue = try DatabaseQueue()
        try queue.read { db in
            for value in Self.edgeDoubles + random {
                let sqlite = try String.fetchOne(db, sql: "SELECT CAST(? AS TEXT)", arguments: [value])
                #expect(SQLiteValues.text(of: value) == sqlite, "\(value) (bits \(String(value.bitPattern, radix: 16)))")
            }
            // SQLite 3.43+ renders from the exact value; on these edge values both rules agree.
            for value in Self.edgeDoubles {
                #expect(
                    SQLiteValues.exactText(of: value) == (try String.fetchOne(db, sql: "SELECT CAST(? AS TEXT)", arguments: [value])),
                    "\(value)")
            }
        }
    }

    @Test func castsAndAffinityAreSQLitesOwn() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)")
            let texts = [
                "42", " 42 ", "4.0", "4.5", "1e3", "abc", "12abc", "-0", "9223372036854775808", "", "-9223372036854775809", ".5", "5.",
            ]
            let values: [DatabaseValue] =
                texts.map(\.databaseValue) + [
                    Double(3.0).databaseValue, Double(3.5).databaseValue,
                    Double(1e300).databaseValue, 7.databaseValue, Int64.min.databaseValue, .null, Data([0x31, 0x32]).databaseValue,
                ]
            for value in values {
                try db.execute(sql: "DELETE FROM t")
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?)", arguments: [value, value, value, value])
                let row = try #require(try Row.fetchOne(db, sql: "SELECT i, r, s, b FROM t"))
                let found: [DatabaseValue] = [row[0], row[1], row[2], row[3]]
                #expect(SQLiteValues.stored(value, in: .integer).storage == found[0].storage, "\(value) into INTEGER")
                #expect(SQLiteValues.stored(value, in: .real).storage == found[1].storage, "\(value) into REAL")
                #expect(SQLiteValues.stored(value, in: .text).storage == found[2].storage, "\(value) into TEXT")
                #expect(SQLiteValues.stored(value, in: .blob).storage == found[3].storage, "\(value) into BLOB")
                for storage in [SchemaColumn.StorageType.integer, .real, .text] {
                    let cast = try DatabaseValue.fetchOne(db, sql: "SELECT CAST(? AS \(storage.rawValue))", arguments: [value])
                    #expect(SQLiteValues.cast(value, to: storage).storage == cast?.storage, "CAST(\(value) AS \(storage.rawValue))")
                }
            }
            for literal in ["NULL", "-3", "2.5", "'it''s'", "1e+20", "X'00ff'", "0"] {
                #expect(
                    SQLiteValues.literal(literal)?.storage == (try DatabaseValue.fetchOne(db, sql: "SELECT \(literal)"))?.storage,
                    "\(literal)")
            }
            #expect(SQLiteValues.literal("(strftime('%Y-%m-%d %H:%M:%f', 'now'))") == nil)
        }
    }
}
