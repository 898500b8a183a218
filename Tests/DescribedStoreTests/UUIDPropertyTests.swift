import Foundation
import GRDB
import LucidGenCore
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting
import StoreTestSupport
import Testing

/// `"property_type": "uuid"` at run time, with the generated records of `UUIDs/` (checked
/// against the generator by GoldenTests): a `UUID` GRDB wrote (through a record, or as a statement argument) is
/// the BLOB of its 16 bytes, reads back through the generated record, and survives 1.0 → 2.0, a table rebuild,
/// byte for byte.
@Suite struct UUIDPropertyTests {
    static let first = UUID(uuidString: "0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0")!
    static let second = UUID(uuidString: "018F3A2B-7C00-7E5F-8A01-0C1D2E3F4A00")!
    static let spare = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// The bytes GRDB stores for a `UUID`: `uuid.uuid`, in order.
    static func bytes(_ uuid: UUID) -> Data { withUnsafeBytes(of: uuid.uuid) { Data($0) } }

    /// Each row's `(id, typeof(token), token, spare)` as the file holds them.
    static func stored(_ db: Database) throws -> [[DatabaseValue]] {
        try Row.fetchAll(db, sql: "SELECT id, typeof(token), token, spare FROM keycard ORDER BY id").map { row in
            (0..<4).map { row[$0] as DatabaseValue }
        }
    }

    /// A row as ``stored(_:)`` reads it, with a blob token.
    static func row(_ id: Int, _ token: Data, _ spare: Data) -> [DatabaseValue] {
        [id.databaseValue, "blob".databaseValue, token.databaseValue, spare.databaseValue]
    }

    @Test func aUUIDGRDBWroteReadsBackThroughTheRecordAndSurvivesTheRebuild() throws {
        // 1.0 → 2.0 makes `label` required: SQLite cannot ALTER that, the table is rebuilt.
        let steps = try MigrationPlanner(versions: UUIDsSchema.versions).plan(from: SchemaVersion("1.0"))
        #expect(steps.flatMap(\.operations).contains { if case .rebuildTable = $0 { true } else { false } }, "\(steps)")

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("keycards.sqlite")
        let created = try LucidStore.create(atPath: path, versions: UUIDsSchema.versions, version: SchemaVersion("1.0"))
        let random = UUID()
        try created.write { db in
            // GRDB writes each UUID: through the 1.0 record, and as statement arguments.
            try Keycard_1_0(id: 1, token: Self.first, keys: [Self.second, Self.spare], label: nil).insert(db)
            try db.execute(
                sql: "INSERT INTO keycard (id, token, spare, label) VALUES (?, ?, ?, ?)", arguments: [2, random, Self.second, "two"])
            try db.execute(
                sql: "INSERT INTO keycard (id, token) VALUES (?, ?)",
                arguments: [3, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))])
        }
        let before = try created.read(Self.stored)
        try created.close()
        let wanted: [[DatabaseValue]] = [
            Self.row(1, Self.bytes(Self.first), Self.bytes(Self.spare)),
            Self.row(2, Self.bytes(random), Self.bytes(Self.second)),
            Self.row(3, Data(count: 16), Self.bytes(Self.spare)),
        ]
        #expect(before == wanted, "GRDB's UUID is the BLOB of its 16 bytes; the column's default X'E621…' is the same blob")

        let opened = try LucidStore.open(atPath: path, registry: UUIDsSchema.self)
        defer { try? opened.database.close() }
        #expect(opened.outcome.steps.map(\.label) == ["1.0 → 2.0 (inferred)"])
        try opened.database.read { (db: Database) throws in
            #expect(try Self.stored(db) == before, "every byte kept by the rebuild")
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'keycard'") ?? ""
            #expect(sql.contains(#""label" TEXT NOT NULL DEFAULT 'none'"#) && sql.contains(#""token" BLOB NOT NULL"#), "\(sql)")
            let cards = try Keycard.order(Keycard.Columns.id).fetchAll(db)
            #expect(
                cards == [
                    Keycard(id: 1, token: Self.first, spare: Self.spare, keys: [Self.second, Self.spare], label: "none"),
                    Keycard(id: 2, token: random, spare: Self.second, keys: nil, label: "two"),
                    Keycard(
                        id: 3, token: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, spare: Self.spare, keys: nil, label: "none"
                    ),
                ])
            // GRDB binds a UUID as the same blob: a query by value finds its row.
            #expect(try Keycard.filter(Keycard.Columns.token == random).fetchOne(db)?.id == 2)
            // An array of UUIDs is JSON text of their upper-case strings.
            #expect(
                try String.fetchOne(db, sql: "SELECT keys FROM keycard WHERE id = 1")
                    == #"["018F3A2B-7C00-7E5F-8A01-0C1D2E3F4A00","E621E1F8-C36C-495A-93FC-0C247A3E6E5F"]"#)
        }
        // The newest record writes the same 16 bytes.
        let fourth = UUID()
        try opened.database.write { db in try Keycard(id: 4, token: fourth, spare: nil).insert(db) }
        let written = try opened.database.read { db in
            try String.fetchOne(db, sql: "SELECT hex(token) || ' ' || quote(spare) FROM keycard WHERE id = 4")
        }
        #expect(written == UUIDText.hex(Array(Self.bytes(fourth))) + " NULL")
    }

    /// GRDB also decodes a `UUID` from its text: a row another tool wrote with the UUID as text reads back
    /// through the record, but a query by value (GRDB binds the blob) does not find it.
    @Test func aUUIDStoredAsTextReadsBackButIsNotTheBlob() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try LucidStore.create(
            atPath: folder.path("text.sqlite"), versions: UUIDsSchema.versions, version: SchemaVersion("2.0"))
        defer { try? database.close() }
        try database.write { db in try db.execute(sql: "INSERT INTO keycard (id, token) VALUES (1, ?)", arguments: [Self.first.uuidString])
        }
        try database.read { (db: Database) throws in
            #expect(try Keycard.fetchOne(db, key: 1)?.token == Self.first)
            #expect(try Keycard.filter(Keycard.Columns.token == Self.first).fetchCount(db) == 0)
        }
    }

    /// A sample row gives a uuid as its text (either case); `SampleRows.insert` stores it as its 16 bytes, and
    /// text that is no UUID is an error naming the row and the column.
    @Test func aSampleRowsUUIDIsStoredAsItsBytes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let samples = folder.path("samples")
        try FileManager.default.createDirectory(atPath: samples, withIntermediateDirectories: true)
        let version = SchemaVersion("2.0")
        let schema = try #require(UUIDsSchema.versions.last)
        try
            #"{ "keycard": [{ "id": 1001, "token": "0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0", "keys": ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"] }] }"#
            .write(toFile: SampleRows.file(in: samples, version: version), atomically: true, encoding: .utf8)
        let database = try LucidStore.create(atPath: folder.path("samples.sqlite"), versions: UUIDsSchema.versions, version: version)
        defer { try? database.close() }
        try database.write { db in try SampleRows.insert(from: samples, version: version, schema: schema, db) }
        try database.read { (db: Database) throws in
            let wanted: [[DatabaseValue]] = [Self.row(1001, Self.bytes(Self.first), Self.bytes(Self.spare))]
            #expect(try Self.stored(db) == wanted)
            #expect(try Keycard.fetchOne(db, key: 1001)?.keys == [Self.spare])
        }

        try #"{ "keycard": [{ "id": 1002, "token": "0f1e2d3c4b5a49788796a5b4c3d2e1f0" }] }"#
            .write(toFile: SampleRows.file(in: samples, version: version), atomically: true, encoding: .utf8)
        #expect {
            try database.write { db in try SampleRows.insert(from: samples, version: version, schema: schema, db) }
        } throws: { error in
            let error = error as? SampleRowsError
            return error?.message
                == "table keycard, row id=1002 (the row at index 0 of the table): column token: '0f1e2d3c4b5a49788796a5b4c3d2e1f0' is not a UUID"
                && error?.table == "keycard" && error?.row == 0
        }
    }

    /// `lucidgen fixtures`' SQL (`FixtureRows`) and the generated tests' typed seeds (`UUID: DistinctSeedable`)
    /// store the same bytes: the edge UUIDs, then one per row where the column is unique (40 rows, all distinct).
    @Test func fixtureRowsAreTheTypedSeeds() throws {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("UUIDs/.lucid.yaml").path
        let model = try Resolver.resolve(try GeneratorPipeline(configPath: config).load())
        let version = SchemaVersion("2.0")
        let fixtures = FixtureRows(model: model)
        #expect(fixtures.seedPlans(at: version)["keycard"]?.rules == ["token": .distinct])
        let shape = try #require(fixtures.shapes(at: version).first)
        func salt(_ name: String) -> Int { FixtureRows.salt(ofPropertyAt: shape.properties.firstIndex { $0.name == name }!) }
        let rows = 40
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let untyped = try LucidStore.create(atPath: folder.path("untyped.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(untyped, statements: fixtures.insertStatements(at: version, rows: rows))
        let typed = try LucidStore.create(atPath: folder.path("typed.sqlite"), versions: model.schemas, version: version)
        try SeedWriter.write(typed) { db in
            for row in 1...rows {
                try Keycard(
                    id: Seed.identifier(row: row), token: .seedDistinct(row: row, salt: salt("token")),
                    spare: .seed(row: row, salt: salt("spare")),
                    keys: .seed(row: row, salt: salt("keys")), label: .seed(row: row, salt: salt("label"))
                ).insert(db)
            }
        }
        func read(_ queue: DatabaseQueue) throws -> [Row] {
            try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM keycard ORDER BY id") }
        }
        let expected = try read(typed)
        let found = try read(untyped)
        try typed.close()
        try untyped.close()
        #expect(expected.count == rows && found == expected)
        #expect(Set(found.map { $0["token"] as DatabaseValue }).count == rows)
        // The edge values come first: the nil UUID, the max UUID, a random one, a time-ordered one.
        let edges = Set(SeedValues.uuids.map { Data($0).databaseValue })
        #expect(Set(found.prefix(4).map { $0["token"] as DatabaseValue }) == edges)
        #expect(UUID.seed(row: 1, salt: 0) == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(UUID.seedDistinct(row: 7, salt: 3) == UUID(uuidString: "5EED0000-0000-4000-8000-000000000007"))
    }
}
