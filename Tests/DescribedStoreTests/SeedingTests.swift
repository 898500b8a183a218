import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import LucidTestSupport
@_spi(Generated) import LucidTesting
import Samples
import StoreTestSupport
import Testing

private func toOne(_ name: String, _ entity: String, nullable: Bool = false) -> String {
    #"{ "name": "\#(name)", "property_type": { "entity_name": "\#(entity)", "association": "to_one" }\#(nullable ? #", "nullable": true"# : "") }"#
}

private func toMany(_ name: String, _ entity: String) -> String {
    #"{ "name": "\#(name)", "property_type": { "entity_name": "\#(entity)", "association": "to_many" } }"#
}

private func entity(
    _ name: String, identifier: String? = #"{ "type": "int" }"#, versions: String = #"[{ "version": "1.0" }]"#, _ properties: [String]
) -> String {
    #"{ "name": "\#(name)", \#(identifier.map { #""identifier": \#($0), "# } ?? "")"version_history": \#(versions), "properties": [\#(properties.joined(separator: ", "))] }"#
}

/// Relationship graphs that an insert order alone cannot satisfy (issue #11, item 2).
enum SeedGraphs {
    static let labels = #"{ "name": "label", "property_type": "string" }"#

    /// `a.b → b`, with `a` described (and sorted) first.
    static let forward = ["a.json": entity("a", [labels, toOne("b", "b")]), "b.json": entity("b", [labels])]
    /// A nullable self-reference.
    static let selfReference = ["a.json": entity("a", [labels, toOne("parent", "a", nullable: true)])]
    /// A required self-reference.
    static let requiredSelfReference = ["node.json": entity("node", identifier: #"{ "type": "string" }"#, [labels, toOne("next", "node")])]
    /// `team.lead → employee`, `employee.team → team`, both required.
    static let requiredCycle = [
        "employee.json": entity("employee", [labels, toOne("team", "team")]),
        "team.json": entity("team", identifier: #"{ "type": "string" }"#, [labels, toOne("lead", "employee")]),
    ]
    /// The same cycle with one side nullable, plus to-many links both ways and to itself.
    static let mixedCycle = [
        "employee.json": entity("employee", [labels, toOne("team", "team", nullable: true), toMany("mentors", "employee")]),
        "team.json": entity("team", [labels, toOne("lead", "employee"), toMany("members", "employee")]),
    ]
    /// SQL keywords as table and column names, a property as the identifier, every scalar type,
    /// subtypes and arrays, and a relationship across a renamed entity's history.
    static let hostile: [String: String] = [
        "order.json": entity(
            "order", identifier: #"{ "type": "property", "property_name": "select" }"#,
            versions: #"[{ "version": "1.0" }, { "version": "2.0" }]"#,
            [
                #"{ "name": "select", "property_type": "string" }"#,
                #"{ "name": "group", "property_type": "int", "nullable": true }"#,
                #"{ "name": "from", "property_type": "date" }"#, #"{ "name": "where", "property_type": "double" }"#,
                #"{ "name": "float", "property_type": "float" }"#, #"{ "name": "bool", "property_type": "bool" }"#,
                #"{ "name": "url", "property_type": "url", "nullable": true }"#, #"{ "name": "data", "property_type": "data" }"#,
                #"{ "name": "color", "property_type": "color" }"#, #"{ "name": "seconds", "property_type": "seconds" }"#,
                #"{ "name": "ms", "property_type": "milliseconds" }"#, #"{ "name": "kind", "property_type": "kind" }"#,
                #"{ "name": "flags", "property_type": "flags" }"#, #"{ "name": "shape", "property_type": "shape", "nullable": true }"#,
                #"{ "name": "tags", "property_type": "[string]" }"#, #"{ "name": "stamps", "property_type": "[date]" }"#,
                #"{ "name": "uuid", "property_type": "uuid" }"#, #"{ "name": "keys", "property_type": "[uuid]" }"#,
                toOne("table", "table"), toOne("parent", "order", nullable: true), toMany("index", "table"),
            ]),
        "table.json": entity(
            "table", identifier: nil, versions: #"[{ "version": "1.0" }, { "version": "2.0", "previous_name": "values" }]"#,
            [
                labels, toOne("order", "order", nullable: true),
            ]),
        "Subtypes/kind.json": #"{ "name": "kind", "cases": ["primary", "key", "null"] }"#,
        "Subtypes/flags.json": #"{ "name": "flags", "options": ["a", "b", "c"] }"#,
        "Subtypes/shape.json":
            #"{ "name": "shape", "properties": [{ "name": "select", "property_type": "string" }, { "name": "at", "property_type": "date", "nullable": true }, { "name": "list", "property_type": "[int]" }, { "name": "kind", "property_type": "kind" }, { "name": "key", "property_type": "uuid", "nullable": true }] }"#,
    ]

    /// Unique indexes: one over each type that can take a distinct value per row, one over (bool,
    /// string), one over an enumeration alone (`tier`: 3 rows at most, which `member.tier` and the links
    /// point at) and one over a nullable enumeration and a bool (`slot`: NULL beyond the 14 pairs).
    static let unique: [String: String] = [
        "member.json": #"""
        { "name": "member", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "indexes": [{ "properties": ["active", "handle"], "unique": true }],
          "properties": [
            { "name": "email", "property_type": "string", "unique": true }, { "name": "number", "property_type": "int", "unique": true },
            { "name": "joined", "property_type": "date", "unique": true }, { "name": "active", "property_type": "bool" },
            { "name": "handle", "property_type": "string" }, { "name": "homepage", "property_type": "url", "nullable": true, "unique": true },
            { "name": "photo", "property_type": "data", "unique": true }, { "name": "ratio", "property_type": "double", "unique": true },
            { "name": "weight", "property_type": "float", "unique": true }, { "name": "color", "property_type": "color", "unique": true },
            { "name": "token", "property_type": "uuid", "unique": true },
            { "name": "tier", "property_type": { "entity_name": "tier", "association": "to_one" } },
            { "name": "tiers", "property_type": { "entity_name": "tier", "association": "to_many" } } ] }
        """#,
        "tier.json": #"""
        { "name": "tier", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "properties": [{ "name": "level", "property_type": "level", "unique": true }, { "name": "title", "property_type": "string" },
                         { "name": "members", "property_type": { "entity_name": "member", "association": "to_many" } }] }
        """#,
        "slot.json": #"""
        { "name": "slot", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }],
          "indexes": [{ "properties": ["day", "open"], "unique": true }],
          "properties": [{ "name": "day", "property_type": "weekday", "nullable": true }, { "name": "open", "property_type": "bool" },
                         { "name": "tier", "property_type": { "entity_name": "tier", "association": "to_one" }, "nullable": true }] }
        """#,
        "Subtypes/level.json": #"{ "name": "level", "cases": ["bronze", "silver", "gold"] }"#,
        "Subtypes/weekday.json": #"{ "name": "weekday", "cases": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }"#,
    ]

    static let all: [(String, [String: String])] = [
        ("forward", forward), ("selfReference", selfReference), ("requiredSelfReference", requiredSelfReference),
        ("requiredCycle", requiredCycle), ("mixedCycle", mixedCycle), ("hostile", hostile), ("unique", unique),
    ]
}

@Suite struct SeedingTests {
    /// `FixtureRows` seeds every graph at every version, for any row count, through `SeedWriter`; the
    /// store then holds every row and link, has no broken foreign key, and migrates to the newest version.
    @Test(arguments: SeedGraphs.all.map(\.0))
    func fixtureRowsSeedEveryGraph(_ name: String) throws {
        let model = try resolveModel(SeedGraphs.all.first { $0.0 == name }!.1)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fixtures = FixtureRows(model: model)
        for schema in model.schemas {
            let plans = fixtures.seedPlans(at: schema.version)
            for rows in [0, 1, 2, 3, 12, 40] {
                let path = folder.path("\(name)-\(schema.version)-\(rows).sqlite")
                let database = try LucidStore.create(atPath: path, versions: model.schemas, version: schema.version)
                let seeded = fixtures.rows(at: schema.version, rows: rows)
                #expect(Set(seeded.map(\.sql)).count == seeded.count, "no row or link twice")
                try SeedWriter.write(database, statements: seeded.map(\.sql))
                let (counts, broken) = try database.read { db throws -> ([Int], Int) in
                    let counts = try fixtures.shapes(at: schema.version).map { shape in
                        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoteIdentifier(shape.tableName))") ?? -1
                    }
                    return (counts, try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
                }
                let expected = fixtures.shapes(at: schema.version).map { plans[$0.entityName]?.rows(rows) ?? rows }
                #expect(counts == expected && broken == 0, "\(name) at \(schema.version), \(rows) rows")
                try database.close()
                let migrated = try LucidStore.open(atPath: path, versions: model.schemas).database
                let brokenAfter = try migrated.read { db throws -> Int in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count }
                #expect(brokenAfter == 0)
                try migrated.close()
            }
        }
    }

    /// The generated seeds' helpers are the shared rule, and the rule only points inside the seeded set.
    @Test func seedHelpersAreTheSharedRule() {
        for rows in 1...13 {
            for row in 1...rows {
                let reference: Int = Seed.reference(row: row, rows: rows) { $0 }
                #expect(reference == SeedValues.referencedRow(row: row, rows: rows) && (1...rows).contains(reference))
                let optional: Int? = Seed.optionalReference(row: row, rows: rows) { $0 }
                #expect(optional == SeedValues.optionalReferencedRow(row: row, rows: rows))
                for maxLinks in 1...2 {
                    let links = Seed.links(row: row, rows: rows, maxLinks: maxLinks)
                    #expect(links == SeedValues.linkedRows(row: row, rows: rows, maxLinks: maxLinks))
                    #expect(Set(links).count == links.count && links.count <= maxLinks && links.allSatisfy { (1...rows).contains($0) })
                }
            }
        }
        #expect(String.seed(row: 3, salt: 2) == SeedValues.pick(SeedValues.strings, row: 3, salt: 2))
        #expect(Date.seed(row: 4, salt: 1).timeIntervalSince1970 * 1000 == Double(SeedValues.dateMilliseconds(row: 4, salt: 1)))
    }

    /// The generated tests' path: `MigrationTestHarness.checkSeeded` with a seed closure inserting rows
    /// with `Seed.reference`/`optionalReference`/`links`, rows referencing rows inserted after them.
    @Test func harnessSeedsACycleWithTheSeedHelpers() throws {
        let model = try resolveModel(SeedGraphs.mixedCycle)
        let harness = MigrationTestHarness(versions: model.schemas, options: StoreOptions())
        let failures = harness.checkSeeded(from: SchemaVersion("1.0")) { db, rows in
            for row in 1...rows {
                let team: Int? = Seed.optionalReference(row: row, rows: rows) { $0 }
                try db.execute(
                    sql: #"INSERT INTO employee (id, label, team) VALUES (?, ?, ?)"#,
                    arguments: [row, String.seed(row: row, salt: 1), team])
                for target in Seed.links(row: row, rows: rows, maxLinks: 2) {
                    try db.execute(sql: "INSERT INTO employee_mentors (source_id, target_id) VALUES (?, ?)", arguments: [row, target])
                }
            }
            for row in 1...rows {
                let lead: Int = Seed.reference(row: row, rows: rows) { $0 }
                try db.execute(
                    sql: "INSERT INTO team (id, label, lead) VALUES (?, ?, ?)", arguments: [row, String.seed(row: row, salt: 1), lead])
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        // The untyped rows through the same harness, on every graph.
        for (_, graph) in SeedGraphs.all {
            let model = try resolveModel(graph)
            let harness = MigrationTestHarness(versions: model.schemas, options: StoreOptions())
            for schema in model.schemas {
                let failures = harness.checkSeeded(from: schema.version) { db, rows in
                    for statement in FixtureRows(model: model).insertStatements(at: schema.version, rows: rows) {
                        try db.execute(sql: statement)
                    }
                }
                #expect(failures.isEmpty, "\(failures)")
            }
        }
    }

    /// A reference to no row is reported by table, column, row and referenced table, and nothing is written.
    @Test func aBrokenReferenceIsLocated() throws {
        let model = try resolveModel(SeedGraphs.forward)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try LucidStore.create(atPath: folder.path("broken.sqlite"), versions: model.schemas, version: SchemaVersion("1.0"))
        defer { try? database.close() }
        #expect {
            try SeedWriter.write(
                database,
                statements: [
                    #"INSERT INTO "b" ("id", "label") VALUES (1, 'x')"#, #"INSERT INTO "a" ("id", "b", "label") VALUES (7, 99, 'y')"#,
                ])
        } throws: { error in
            let text = "\(error)"
            return text.contains("a.b of row id=7 is 99, but b has no such row")
        }
        let written = try database.read { db throws -> Int? in try Int.fetchOne(db, sql: "SELECT count(*) FROM b") }
        #expect(written == 0)
        // The harness reports the same located message.
        let harness = MigrationTestHarness(versions: model.schemas, options: StoreOptions())
        let failures = harness.checkSeeded(from: SchemaVersion("1.0")) { db, _ in
            try db.execute(sql: #"INSERT INTO "a" ("id", "b", "label") VALUES (3, 5, 'z')"#)
        }
        #expect(failures.map(\.description).joined().contains("a.b of row id=3 is 5, but b has no such row"))
    }
}

/// A migration step that leaves a dangling reference is rolled back with a message naming the table,
/// the column, the row and the referenced table.
@Suite struct MigrationForeignKeyMessageTests {
    @Test func aDanglingReferenceAfterAStepIsLocated() throws {
        let versions = try resolveSchemas([
            "item.json": """
            { "name": "item", "identifier": { "type": "int" }, "version_history": [{ "version": "1.0" }, { "version": "2.0" }],
              "properties": [{ "name": "name", "property_type": "string" },
                             { "name": "owner", "property_type": { "entity_name": "owner", "association": "to_one" }, "nullable": true, "added_at_version": "2.0" }] }
            """,
            "owner.json": entity("owner", [SeedGraphs.labels]),
        ])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("store.sqlite")
        let database = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
        try database.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (4, 'x')") }
        try database.close()
        var options = StoreOptions()
        options.dataMigrations = [
            DataMigration(version: SchemaVersion("2.0"), label: "dangle") { db in try db.execute(sql: "UPDATE item SET owner = 99") }
        ]
        #expect {
            try LucidStore.open(atPath: path, versions: versions, options: options).database.close()
        } throws: { error in
            "\(error)".contains("item.owner of row id=4 is 99, but owner has no such row")
        }
    }
}

// The conformances the generated tests write for Samples' subtypes (Templates/tests.mustache).
extension SampleKind: Seedable {}

extension SampleFormat: Seedable {
    public static func seed(row: Int, salt: Int) -> SampleFormat { SampleFormat(rawValue: Int64((row + salt) % (1 << 2))) }
}

extension SampleShape: Seedable {
    public static func seed(row: Int, salt: Int) -> SampleShape {
        SampleShape(width: .seed(row: row, salt: salt + 1), madeAt: .seed(row: row, salt: salt + 2), names: .seed(row: row, salt: salt + 3))
    }
}

/// `FixtureRows` (SQL from the resolved model) and the typed seeds (records built with `Seedable` and
/// the salts the generated seeds use) store the same values: one definition, two encoders.
@Suite struct FixtureRowsMatchTypedSeedsTests {
    @Test func samplesRowsAreTheTypedSeedsRows() throws {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Samples/.lucid.yaml"
        ).path
        let model = try Resolver.resolve(try GeneratorPipeline(configPath: config).load())
        let version = SchemaVersion("1.0")
        let fixtures = FixtureRows(model: model)
        let shape = try #require(fixtures.shapes(at: version).first)
        func salt(_ name: String) -> Int { FixtureRows.salt(ofPropertyAt: shape.properties.firstIndex { $0.name == name }!) }
        let rows = Seed.rows
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let untyped = try LucidStore.create(atPath: folder.path("untyped.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(untyped, statements: fixtures.insertStatements(at: version, rows: rows))
        let typed = try LucidStore.create(atPath: folder.path("typed.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(typed) { db in
            for row in 1...rows {
                try Sample_1_0(
                    id: Seed.identifier(row: row), big: .seed(row: row, salt: salt("big")), ratio: .seed(row: row, salt: salt("ratio")),
                    label: .seed(row: row, salt: salt("label")), stamp: .seed(row: row, salt: salt("stamp")),
                    flag: .seed(row: row, salt: salt("flag")),
                    kind: .seed(row: row, salt: salt("kind")), formats: .seed(row: row, salt: salt("formats")),
                    tags: .seed(row: row, salt: salt("tags")),
                    code: .seed(row: row, salt: salt("code")), weight: .seed(row: row, salt: salt("weight")),
                    note: .seed(row: row, salt: salt("note")),
                    payload: .seed(row: row, salt: salt("payload")), link: .seed(row: row, salt: salt("link")),
                    shape: .seed(row: row, salt: salt("shape"))
                ).insert(db)
            }
        }
        func read(_ queue: DatabaseQueue) throws -> [[String: DatabaseValue]] {
            try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM sample ORDER BY id").map { row in
                    Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
                }
            }
        }
        let expected = try read(typed)
        let found = try read(untyped)
        try typed.close()
        try untyped.close()
        #expect(expected.count == rows && found.count == rows)
        /// JSON compared as values: GRDB sorts keys, FixtureRows writes them in description order.
        func normalized(_ value: DatabaseValue?) -> String {
            guard let value, case .string(let text) = value.storage, text.hasPrefix("{") || text.hasPrefix("["),
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
                let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            else { return "\(value ?? .null)" }
            return String(decoding: data, as: UTF8.self)
        }
        for (typedRow, untypedRow) in zip(expected, found) {
            for column in typedRow.keys.sorted() {
                #expect(
                    normalized(typedRow[column]) == normalized(untypedRow[column]), "column \(column) of row \(typedRow["id"] ?? .null)")
            }
        }
    }
}

/// Unique indexes: one column of each is seeded with values distinct per row (`SeedValues.distinct…`,
/// `DistinctSeedable.seedDistinct`), or the index's columns count through the product of their values
/// (`SeedValues.productRow`, `Seed.product`): one rule, two encoders (see `SeedPlan`).
@Suite struct UniqueSeedTests {
    @Test func distinctValuesKeepTheEdgeValuesThenNeverRepeat() {
        let rows = Array(1...300)
        for salt in 0...13 {
            let strings = rows.map { String.seedDistinct(row: $0, salt: salt) }
            #expect(Set(strings).count == rows.count)
            #expect(Array(strings.prefix(12)) == (1...12).map { String.seed(row: $0, salt: salt) }, "the 12 edge strings first")
            #expect(strings == rows.map { SeedValues.distinctString(row: $0, salt: salt) })
            let ints = rows.map { Int.seedDistinct(row: $0, salt: salt) }
            #expect(Set(ints).count == rows.count && Array(ints.prefix(12)) == (1...12).map { Int.seed(row: $0, salt: salt) })
            #expect(rows.map { Int64.seedDistinct(row: $0, salt: salt) } == rows.map { SeedValues.distinctInteger(row: $0, salt: salt) })
            let doubles = rows.map { Double.seedDistinct(row: $0, salt: salt) }
            #expect(Set(doubles).count == rows.count && Array(doubles.prefix(12)) == (1...12).map { Double.seed(row: $0, salt: salt) })
            let floats = rows.map { Float.seedDistinct(row: $0, salt: salt) }
            #expect(Set(floats).count == rows.count && Array(floats.prefix(6)) == (1...6).map { Float.seed(row: $0, salt: salt) })
            let dates = rows.map { Date.seedDistinct(row: $0, salt: salt) }
            #expect(Set(dates).count == rows.count && Array(dates.prefix(11)) == (1...11).map { Date.seed(row: $0, salt: salt) })
            #expect(
                dates.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                    == rows.map { SeedValues.distinctDateMilliseconds(row: $0, salt: salt) })
            let urls = rows.map { URL.seedDistinct(row: $0, salt: salt).absoluteString }
            #expect(Set(urls).count == rows.count && Array(urls.prefix(4)) == (1...4).map { URL.seed(row: $0, salt: salt).absoluteString })
            let data = rows.map { Data.seedDistinct(row: $0, salt: salt) }
            #expect(Set(data).count == rows.count && Array(data.prefix(4)) == (1...4).map { Data.seed(row: $0, salt: salt) })
            // Optional: nil on the usual rows, distinct values on the others.
            let optional = rows.compactMap { String?.seedDistinct(row: $0, salt: salt) }
            #expect(Set(optional).count == optional.count && optional.count == rows.count { !SeedValues.isNull(row: $0, salt: salt) })
        }
    }

    /// `Seed.product`: the columns of a unique index over small types count through every combination.
    @Test func productCountsThroughEveryCombination() {
        let pairs = (1...4).map { row -> String in
            let kind: SampleKind = Seed.product(row: row, divisor: 1, count: 2)
            let flag: Bool = Seed.product(row: row, divisor: 2, count: 2)
            return "\(kind)/\(flag)"
        }
        #expect(Set(pairs).count == 4)
        let nullable: [SampleKind?] = (1...6).map { Seed.product(row: $0, divisor: 1, count: 2, total: 2) }
        #expect(nullable == [.largeOne, .small, nil, nil, nil, nil], "the cases in their declared (sorted) order, then NULL")
    }

    /// `FixtureRows`' SQL for the unique graph, 40 rows: the unique columns are distinct (SQLite's unique
    /// indexes accepted them) and hold exactly the typed seeds' values.
    @Test func fixtureRowsAndTypedSeedsAgreeOnUniqueColumns() throws {
        let model = try resolveModel(SeedGraphs.unique)
        let version = SchemaVersion("1.0")
        let fixtures = FixtureRows(model: model)
        let rows = 40
        let plans = fixtures.seedPlans(at: version)
        #expect(plans["tier"]?.rowLimit == 3 && plans["slot"]?.rowLimit == nil && plans["member"]?.rowLimit == nil)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let untyped = try LucidStore.create(atPath: folder.path("untyped.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(untyped, statements: fixtures.insertStatements(at: version, rows: rows))
        let member = try #require(fixtures.shapes(at: version).first { $0.entityName == "member" })
        func salt(_ name: String) -> Int { FixtureRows.salt(ofPropertyAt: member.properties.firstIndex { $0.name == name }!) }
        let columns = ["email", "number", "joined", "handle", "homepage", "photo", "ratio", "weight", "color"]
        let typed = try DatabaseQueue()
        try typed.write { db in
            try db.execute(sql: "CREATE TABLE member (id INTEGER, \(columns.joined(separator: ", ")))")
            for row in 1...rows {
                let values: [(any DatabaseValueConvertible)?] = [
                    row, String.seedDistinct(row: row, salt: salt("email")), Int.seedDistinct(row: row, salt: salt("number")),
                    Date.seedDistinct(row: row, salt: salt("joined")), String.seedDistinct(row: row, salt: salt("handle")),
                    URL?.seedDistinct(row: row, salt: salt("homepage")), Data.seedDistinct(row: row, salt: salt("photo")),
                    Double.seedDistinct(row: row, salt: salt("ratio")), Float.seedDistinct(row: row, salt: salt("weight")),
                    String.seedDistinct(row: row, salt: salt("color")),
                ]
                try db.execute(
                    sql: "INSERT INTO member VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))",
                    arguments: StatementArguments(values))
            }
        }
        let select = "SELECT id, \(columns.joined(separator: ", ")) FROM member ORDER BY id"
        let expected = try typed.read { db in try Row.fetchAll(db, sql: select) }
        let found = try untyped.read { db in try Row.fetchAll(db, sql: select) }
        #expect(expected.count == rows && found == expected)
        try untyped.read { db in
            for column in columns {
                let (distinct, nonNull) = try #require(
                    try Row.fetchOne(db, sql: "SELECT count(DISTINCT \(column)), count(\(column)) FROM member").map {
                        ($0[0] as Int, $0[1] as Int)
                    })
                #expect(
                    distinct == nonNull
                        && nonNull
                            == (column == "homepage" ? (1...rows).count { !SeedValues.isNull(row: $0, salt: salt("homepage")) } : rows),
                    "\(column)")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT active, handle FROM member)") == rows)
            // One row per tier level (3), and member.tier and the links point at those rows.
            let levels = try String.fetchAll(db, sql: "SELECT level FROM tier ORDER BY id")
            #expect(levels.count == 3 && Set(levels) == ["bronze", "silver", "gold"])
            #expect(try Int.fetchOne(db, sql: "SELECT max(tier) FROM member") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT max(target_id) FROM member_tiers") == 3)
            // slot: the 14 (day, open) pairs, then NULL days; `open` as the typed seeds make it.
            let slots = try Row.fetchAll(db, sql: "SELECT day, open FROM slot ORDER BY id")
            #expect(
                slots.count == rows
                    && slots.prefix(14).map { "\($0[0] as String)/\($0[1] as Bool)" }.count
                        == Set(slots.prefix(14).map { "\($0[0] as String)/\($0[1] as Bool)" }).count
            )
            #expect(slots.dropFirst(14).allSatisfy { ($0[0] as String?) == nil })
            #expect(
                slots.enumerated().allSatisfy {
                    ($0.element[1] as Bool) == (Seed.product(row: $0.offset + 1, divisor: 7, count: 2) as Bool)
                })
        }
        try untyped.close()
    }
}
