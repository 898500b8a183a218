import Foundation
import GRDB
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

@_spi(Generated) @testable import LucidRuntime

/// The refusals' advice works: an older app that opens a newer store with
/// `.openReadOnly` reads it through its own records even where the newer app removed what they read.
@Suite struct ReadOnlyStandInTests {
    /// Version 2.0, by a newer app: pilot loses `nickname` and `rank` and gains `license`; `badge` is gone.
    static let v2_0 = Schema(
        version: SchemaVersion("2.0"),
        tables: [Logbook.pilot([SchemaColumn(name: "license", type: .text, notNull: false)]), Logbook.flight])

    /// A pilot as app 1.1's code knows it (`rank` has a default, `nickname` is optional).
    struct Pilot1_1: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "pilot"
        var id: Int64
        var name: String
        var nickname: String?
        var rank: Int
    }

    /// A badge as app 1.1's code knows it.
    struct Badge1_1: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "badge"
        var id: Int64
        var pilotId: Int64
        var title: String
        enum CodingKeys: String, CodingKey { case id, pilotId = "pilot_id", title }
    }

    /// Written by app 1.1, then migrated to 2.0 by the newer app.
    static func storeMigratedTo2_0(_ path: String) throws {
        try NewerStoreTests.storeMigratedBy1_1(path)
        try LucidStore.open(atPath: path, versions: [Logbook.v1_0, Logbook.v1_1, v2_0]).database.close()
        try withDatabase(path) { db in try db.execute(sql: "UPDATE pilot SET license = 'ATPL' WHERE id = 1") }
    }

    static func readOnlyOptions() -> StoreOptions {
        var options = StoreOptions()
        options.newerStorePolicy = .openReadOnly
        return options
    }

    @Test func theOlderAppsRecordsReadWhatTheNewerStoreNoLongerHas() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try Self.storeMigratedTo2_0(path)
        let before = try folder.files()

        let opened = try LucidStore.open(atPath: path, registry: LogbookApp1_1.self, options: Self.readOnlyOptions())

        let (database, outcome) = (opened.database, opened.outcome)
        #expect(outcome.openedReadOnly && outcome.finalVersion == SchemaVersion("2.0"))
        #expect(outcome.readOnlyStandIns == ["badge (no such table: no rows)", "pilot.nickname (NULL)", "pilot.rank (its default 1)"])
        #expect(
            outcome.description.hasSuffix(
                "what it lacks of this app's tables reads as: badge (no such table: no rows), pilot.nickname (NULL), pilot.rank (its default 1)"
            ))
        try database.read { (db: Database) throws in
            // Through a record type, as GRDB's requests build them.
            #expect(
                try Pilot1_1.order(Column("id")).fetchAll(db) == [
                    Pilot1_1(id: 1, name: "Ann", nickname: nil, rank: 1), Pilot1_1(id: 2, name: "Bo", nickname: nil, rank: 1),
                    Pilot1_1(id: 3, name: "Cy", nickname: nil, rank: 1), Pilot1_1(id: 5, name: "Eve", nickname: nil, rank: 1),
                ])
            #expect(try Pilot1_1.fetchOne(db, key: 2)?.name == "Bo", "GRDB finds the view's primary key")
            #expect(try Pilot1_1.filter(Column("rank") == 1).fetchCount(db) == 4)
            #expect(try Badge1_1.fetchAll(db).isEmpty)
            #expect(try Badge1_1.fetchOne(db, key: 100) == nil)
            // Through SQL: the app's columns in its order, then the store's newer ones.
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM pilot WHERE id = 1"))
            #expect(Array(row.columnNames) == ["id", "name", "nickname", "rank", "license"])
            #expect(row["nickname"] as String? == nil && row["rank"] as Int == 1 && row["license"] as String == "ATPL")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pilot JOIN flight ON flight.pilot_id = pilot.id") == 3)
            #expect(
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_temp_master WHERE type = 'view' ORDER BY name") == ["badge", "pilot"])
            #expect(
                try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'view'") == [],
                "nothing in the store's own schema")
        }
        // Writes are refused: SQLite does not write into a view, and the connection is read-only.
        for sql in ["INSERT INTO pilot (id, name) VALUES (9, 'Zed')", "UPDATE pilot SET name = 'x'", "DELETE FROM badge"] {
            let error = #expect(throws: DatabaseError.self) { try database.write { db in try db.execute(sql: sql) } }
            #expect(error?.message?.contains("because it is a view") == true, "\(sql): \(String(describing: error))")
        }
        let insert = #expect(throws: DatabaseError.self) {
            try database.write { db in try Pilot1_1(id: 9, name: "Zed", nickname: nil, rank: 2).insert(db) }
        }
        #expect(insert?.message?.contains("cannot modify pilot because it is a view") == true)
        for sql in ["UPDATE flight SET note = 'x'", "DELETE FROM main.pilot"] {
            let error = #expect(throws: DatabaseError.self) { try database.write { db in try db.execute(sql: sql) } }
            #expect(error?.resultCode == .SQLITE_READONLY, "\(sql)")
        }
        try database.close()

        #expect(try folder.files() == before, "the store's files are byte-identical")
        // The newer app still opens it as its own, on its launch path.
        let newer = try LucidStore.open(atPath: path, versions: [Logbook.v1_0, Logbook.v1_1, Self.v2_0]).database
        #expect(try newer.read { db in try String.fetchOne(db, sql: "SELECT license FROM pilot WHERE id = 1") } == "ATPL")
        try newer.close()
    }

    /// A newer store that lacks nothing the older app reads (additive) gets no view: the read-only
    /// connection is the plain one it always was.
    @Test func aStoreThatLacksNothingGetsNoView() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("logbook.sqlite")
        try NewerStoreTests.storeMigratedBy1_1(path)
        let before = try folder.files()
        let opened = try LucidStore.open(atPath: path, registry: LogbookApp1_0.self, options: Self.readOnlyOptions())
        let (database, outcome) = (opened.database, opened.outcome)
        #expect(outcome.openedReadOnly && outcome.readOnlyStandIns.isEmpty)
        #expect(outcome.description == "opened read-only at 1.1, unmigrated (the app's policy for a store it cannot migrate)")
        try database.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_temp_master") == 0)
            #expect(try Pilot1_0.order(Column("id")).fetchAll(db).map(\.name) == ["Ann", "Bo", "Cy", "Eve"])
        }
        try database.close()
        #expect(try folder.files() == before)
    }

    /// A required column without a default cannot be stood in for (NULL would not decode): what the app
    /// is told names it and says that its table's records cannot be read from this store.
    @Test func aRequiredColumnWithoutADefaultIsNamedAsUnreadable() throws {
        let app = Schema(
            version: SchemaVersion("1.0"),
            tables: [
                SchemaTable(
                    name: "item",
                    columns: [
                        SchemaColumn(name: "id", type: .integer, notNull: true),
                        SchemaColumn(name: "quantity", type: .integer, notNull: true),
                    ], primaryKey: ["id"])
            ])
        let queue = try DatabaseQueue()
        let standIns = try queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY NOT NULL)")
            return try ReadOnlyStandIns.create(for: app, db)
        }
        #expect(
            standIns == [
                "item.quantity (NULL, which this app requires: its records of item cannot be read from this store; a newer app can)"
            ])
    }
}
