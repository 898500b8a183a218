import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import Samples
import StoreTestSupport
import Testing

/// The generated records' relationships as GRDB associations: a to-one is `belongsTo`, a
/// to-many `hasMany` of its link records and `hasMany(_:through:using:)` the targets, so GRDB's requests
/// and eager loading work on a store the runtime made.
@Suite struct AssociationTests {
    struct EntryWithCrew: Decodable, FetchableRecord, Equatable {
        var logEntry: LogEntry
        var crew: [Pilot]
    }

    /// A record with composites (`Aircraft`) reads its columns in its own `init(row:)`, which a `Decodable`
    /// wrapper does not call: the wrapper reads it from the association's scope.
    struct EntryWithAircraft: FetchableRecord, Equatable {
        var logEntry: LogEntry
        var aircraft: Aircraft

        init(row: Row) throws {
            logEntry = try LogEntry(row: row)
            aircraft = try Aircraft(row: row.scopes["aircraft"]!)
        }
    }

    @Test func toOneAndToManyAreGRDBAssociations() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try LucidStore.open(atPath: folder.path("log.sqlite"), registry: FlightLogSchema.self).database
        defer { try? database.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        try database.write { db in
            try Aircraft(id: "N1", tailNumber: "N1", aircraftType: "C172", aircraftClass: .singleEngineLand).insert(db)
            try Pilot(id: 1, name: "Ann", ratings: []).insert(db)
            try Pilot(id: 2, name: "Bo", ratings: ["IR"]).insert(db)
            try Pilot(id: 3, name: "Cy", ratings: []).insert(db)
            try LogEntry(id: 10, date: day, departure: "KSFO", arrival: "KOAK", aircraft: "N1").insert(db)
            try LogEntry(id: 11, date: day, departure: "KOAK", arrival: "KSFO", aircraft: "N1").insert(db)
            try LogEntry.CrewLink(sourceID: 10, targetID: 1).insert(db)
            try LogEntry.CrewLink(sourceID: 10, targetID: 2).insert(db)
        }
        try database.read { db in
            let entry = try #require(try LogEntry.fetchOne(db, key: 10))
            #expect(try entry.request(for: LogEntry.aircraft).fetchOne(db)?.tailNumber == "N1")
            #expect(try entry.request(for: LogEntry.crew).order(Pilot.Columns.id).fetchAll(db).map(\.name) == ["Ann", "Bo"])
            #expect(try entry.request(for: LogEntry.crewLinks).fetchCount(db) == 2)
            let withCrew = try LogEntry.including(all: LogEntry.crew.order(Pilot.Columns.id)).order(LogEntry.Columns.id).asRequest(
                of: EntryWithCrew.self
            ).fetchAll(db)
            #expect(withCrew.map { $0.crew.map(\.id) } == [[1, 2], []])
            let withAircraft = try LogEntry.including(required: LogEntry.aircraft).asRequest(of: EntryWithAircraft.self).fetchAll(db)
            #expect(withAircraft.map(\.aircraft.id) == ["N1", "N1"])
            // A link's own ends.
            let link = try #require(try LogEntry.CrewLink.fetchOne(db))
            #expect(try link.request(for: LogEntry.CrewLink.target).fetchOne(db)?.id == link.targetID)
            #expect(try link.request(for: LogEntry.CrewLink.source).fetchOne(db)?.id == 10)
        }
        // Typed helpers link and unlink by the targets' keys; linking twice keeps one link.
        try database.write { db in
            let entry = try #require(try LogEntry.fetchOne(db, key: 10))
            try entry.linkCrew(db, ids: [3, 2])
            #expect(try entry.request(for: LogEntry.crew).order(Pilot.Columns.id).fetchAll(db).map(\.id) == [1, 2, 3])
            try entry.unlinkCrew(db, ids: [1, 3])
            #expect(try entry.request(for: LogEntry.crew).fetchAll(db).map(\.id) == [2])
            #expect(try LogEntry.CrewLink.fetchCount(db) == 1)
        }
        // A record whose id SQLite assigns cannot link before it is inserted.
        #expect(throws: UnsavedRecordError.self) { try Select_2_0.linkSourceID(nil) }
    }
}
