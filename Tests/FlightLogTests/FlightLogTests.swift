import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Testing

/// The example app's generated records against real SQLite, at every version.
@Suite struct FlightLogRecordTests {
    func database(at schema: Schema) throws -> DatabaseQueue {
        let database = try DatabaseQueue()
        try database.write { db in
            for statement in schema.ddl { try db.execute(sql: statement) }
        }
        return database
    }

    @Test func registryListsEveryVersionWithItsChecksum() {
        #expect(FlightLogSchema.versions.map(\.version.string) == ["1.0", "1.1", "2.0", "2.1", "3.0", "4.0"])
        #expect(FlightLogSchema.versions.map(\.checksum) == FlightLogSchema.checksums)
        #expect(FlightLogSchema.current.version == SchemaVersion("4.0"))
        // What opening an up-to-date store compares, without building any version (the launch path).
        #expect(FlightLogSchema.newestVersion == FlightLogSchema.current.version)
        #expect(FlightLogSchema.newestChecksum == FlightLogSchema.current.checksum)
    }

    @Test func readmeExampleWorks() throws {
        let database = try database(at: FlightLogSchema.current)
        try database.write { db in
            try Aircraft(id: "N12345", tailNumber: "N12345", aircraftType: "C172", aircraftClass: .singleEngineLand).insert(db)
            let favorites = try Aircraft.filter(Aircraft.Columns.isFavorite == true).fetchAll(db)
            #expect(favorites.isEmpty)
            let all = try Aircraft.fetchAll(db)
            #expect(all.map(\.category) == [.airplane])
            let red = try Aircraft.filter(Aircraft.Columns.colorScheme.primary == "red").fetchAll(db)
            #expect(red.isEmpty)
        }
    }

    @Test func newestRecordsRoundTripEveryValue() throws {
        let database = try database(at: FlightLogSchema.current)
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let aircraft = Aircraft(
            id: "N-ünï", tailNumber: "", aircraftType: "Piper \"Cub\"", aircraftClass: .multiEngineSea, category: .lighterThanAir,
            colorScheme: ColorScheme(primary: "red", secondary: "white", accent: nil), photo: Data([0, 1, 2, 255]), isFavorite: true)
        let pilot = Pilot(id: Int.max, name: "Amelia 🛩", ratings: ["ASEL", ""], licenseNumber: nil)
        let entry = LogEntry(
            id: Int.min, date: date, departure: "KSFO", arrival: "KLAX", aircraft: aircraft.id, duration: 5400.5, notes: "first\nsolo",
            nightLandings: 2)
        try database.write { db in
            try aircraft.insert(db)
            try pilot.insert(db)
            try entry.insert(db)
            try LogEntry.CrewLink(sourceID: entry.id, targetID: pilot.id).insert(db)
        }
        try database.read { db in
            #expect(try Aircraft.fetchOne(db, key: aircraft.id) == aircraft)
            #expect(try Pilot.fetchOne(db, key: pilot.id) == pilot)
            let fetched = try #require(try LogEntry.fetchOne(db, key: entry.id))
            #expect((fetched.date.timeIntervalSince1970 * 1000).rounded() == 1_700_000_000_123)
            #expect(fetched.notes == entry.notes)
            #expect(try String.fetchOne(db, sql: "SELECT date FROM log_entry") == "2023-11-14 22:13:20.123")
            // 4.0 stores the color scheme as a composite: one column per element.
            #expect(
                try Row.fetchOne(db, sql: "SELECT color_scheme_primary, color_scheme_secondary, color_scheme_accent FROM aircraft") == [
                    "color_scheme_primary": "red", "color_scheme_secondary": "white", "color_scheme_accent": nil,
                ])
            #expect(try LogEntry.CrewLink.fetchAll(db) == [LogEntry.CrewLink(sourceID: Int.min, targetID: Int.max)])
        }
    }

    /// LucidRuntime.docc, "Composite attributes": a query by composite element, through the typed column reference, uses the element's index.
    @Test func queryByCompositeElementUsesItsIndex() throws {
        let database = try database(at: FlightLogSchema.current)
        try database.write { db in
            try Aircraft(
                id: "A", tailNumber: "A", aircraftType: "C172", aircraftClass: .singleEngineLand,
                colorScheme: ColorScheme(primary: "red", secondary: "white", accent: "blue")
            ).insert(db)
            try Aircraft(
                id: "B", tailNumber: "B", aircraftType: "PA28", aircraftClass: .singleEngineLand,
                colorScheme: ColorScheme(primary: "blue", secondary: "red", accent: nil)
            ).insert(db)
            try Aircraft(id: "C", tailNumber: "C", aircraftType: "SR22", aircraftClass: .singleEngineLand).insert(db)
        }
        try database.read { db in
            let request = Aircraft.filter(Aircraft.Columns.colorScheme.primary == "red")
            #expect(try request.fetchAll(db).map(\.id) == ["A"])
            #expect(
                try Aircraft.filter(Aircraft.Columns.colorScheme.accent == nil).order(Aircraft.Columns.id).fetchAll(db).map(\.id) == [
                    "B", "C",
                ])
            // An aircraft without a color scheme reads back as nil, one with an optional element nil keeps it nil.
            #expect(try Aircraft.fetchOne(db, key: "C")?.colorScheme == nil)
            #expect(try Aircraft.fetchOne(db, key: "B")?.colorScheme == ColorScheme(primary: "blue", secondary: "red", accent: nil))
            let statement = try request.makePreparedRequest(db).statement
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map {
                $0["detail"] as String
            }
            #expect(plan == ["SEARCH aircraft USING INDEX aircraft_color_scheme_primary_index (color_scheme_primary=?)"])
        }
    }

    @Test func deletingAnAircraftCascadesToItsLogEntries() throws {
        let database = try database(at: FlightLogSchema.current)
        try database.write { db in
            try Aircraft(id: "A", tailNumber: "A", aircraftType: "T", aircraftClass: .singleEngineLand).insert(db)
            try LogEntry(id: 1, date: Date(), departure: "X", arrival: "Y", aircraft: "A").insert(db)
            _ = try Aircraft.deleteOne(db, key: "A")
            #expect(try LogEntry.fetchCount(db) == 0)
        }
    }

    @Test func version1RecordsMatchVersion1Tables() throws {
        let database = try database(at: FlightLogSchema.versions[0])
        try database.write { db in
            try Aircraft_1_0(id: "B", tailNumber: "B", aircraftType: "T", aircraftClass: .singleEngineLand).insert(db)
            try Flight_1_0(id: 7, date: Date(), departure: "X", arrival: "Y", aircraft: "B", remarks: "old name").insert(db)
            #expect(try Flight_1_0.fetchAll(db).map(\.remarks) == ["old name"])
            #expect(try db.tableExists("flight"))
            #expect(try !db.tableExists("log_entry"))
        }
    }
}
