import FlightLog
import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
import StoreTestSupport
import Testing

/// The example app's stores, migrated for real: every value checked afterwards.
@Suite struct FlightLogMigrationTests {
    let versions = FlightLogSchema.versions

    @Test func newFileIsCreatedAtTheNewestVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try LucidStore.open(atPath: folder.path("new.sqlite"), registry: FlightLogSchema.self).database
        try database.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "4.0")
            #expect(try String.fetchOne(db, sql: "SELECT checksum FROM lucid_store") == FlightLogSchema.current.checksum)
            #expect(try db.tableExists("log_entry"))
        }
    }

    @Test func flightDataMovesIntoItsOwnEntityThroughTheAppsStage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("v1_1.sqlite")
        do {
            let old = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.1"))
            try old.write { db in
                try Aircraft_1_1(
                    id: "N1", tailNumber: "N1", aircraftType: "C172", aircraftClass: .singleEngineLand, flightData: Data([1, 2, 3])
                ).insert(db)
                try Aircraft_1_1(id: "N2", tailNumber: "N2", aircraftType: "PA28", aircraftClass: .singleEngineLand).insert(db)
            }
            try old.close()
        }
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: FlightLogStages.storeOptions()).database
        try database.read { (db: Database) throws in
            let moved = try FlightData.fetchAll(db)
            #expect(moved.map(\.aircraft) == ["N1"])
            #expect(moved.map(\.data) == [Data([1, 2, 3])])
            #expect(try Aircraft.order(Aircraft.Columns.id).fetchAll(db).map(\.isFavorite) == [true, false], "the 3.0 data migration ran")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info('aircraft') WHERE name = 'flight_data'") == 0)
        }
        // Without the app's stages the store is not migrated: the stage's code is missing before the first step.
        let other = folder.path("no-stage.sqlite")
        try LucidStore.create(atPath: other, versions: versions, version: SchemaVersion("2.0")).close()
        #expect { try LucidStore.open(atPath: other, registry: FlightLogSchema.self).database } throws: { error in
            guard case StoreError.missingStages(_, let store, _, let missing, _) = error else { return false }
            return store == SchemaVersion("2.0") && missing.map(\.label) == ["moveFlightData"]
        }
    }

    @Test func migratesVersion1StoreToTheNewestWithEveryValue() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        let date = Date(timeIntervalSince1970: 1_600_000_000.25)
        do {
            let old = try LucidStore.create(atPath: path, versions: versions, version: SchemaVersion("1.0"))
            try old.write { db in
                try Aircraft_1_0(
                    id: "N1", tailNumber: "N1", aircraftType: "C172", aircraftClass: .singleEngineLand,
                    colorScheme: ColorScheme_1_0(primary: "red", secondary: "blue", tertiary: "gold")
                ).insert(db)
                try Pilot_1_0(id: 1, name: "Ünïcode ✈︎", ratings: ["ASEL"]).insert(db)
                try Flight_1_0(id: 10, date: date, departure: "KSFO", arrival: "KOAK", aircraft: "N1", remarks: "windy").insert(db)
                try Flight_1_0(id: 11, date: date, departure: "", arrival: "", aircraft: "N1", duration: 3600).insert(db)
            }
            try old.close()
        }
        let progress = ProgressRecorder()
        var options = FlightLogStages.storeOptions()
        options.progress = { progress.append($0) }
        let database = try LucidStore.open(atPath: path, registry: FlightLogSchema.self, options: options).database
        try database.read { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") == "4.0")
            let entries = try LogEntry.order(LogEntry.Columns.id).fetchAll(db)
            #expect(entries.map(\.id) == [10, 11])
            #expect(entries[0].notes == "windy")
            #expect(entries[1].notes == nil)
            #expect(entries.map(\.nightLandings) == [0, 0])
            #expect(entries.map(\.duration) == [0, 3600])
            #expect(entries.map(\.aircraft) == ["N1", "N1"])
            #expect((entries[0].date.timeIntervalSince1970 * 1000).rounded() == 1_600_000_000_250)
            let aircraft = try #require(try Aircraft.fetchOne(db, key: "N1"))
            #expect(aircraft.isFavorite == false)
            #expect(try FlightData.fetchCount(db) == 0)
            // 1.0 stored the color scheme as JSON (its third color named `tertiary`); 4.0 as a composite, each member
            // in its own column, the third renamed `accent` (struct member history).
            #expect(aircraft.colorScheme == ColorScheme(primary: "red", secondary: "blue", accent: "gold"))
            #expect(try Aircraft.filter(Aircraft.Columns.colorScheme.secondary == "blue").fetchCount(db) == 1)
            #expect(try Pilot.fetchOne(db, key: 1)?.name == "Ünïcode ✈︎")
            #expect(try LogEntry.CrewLink.fetchCount(db) == 0)
            #expect(try String.fetchAll(db, sql: "SELECT to_version FROM lucid_migration_log ORDER BY id") == ["1.0", "2.0", "2.1", "4.0"])
        }
        let steps = Set(progress.values.map(\.stepLabel))
        #expect(
            steps == ["1.0 → 2.0 (inferred)", "2.0 → 2.1 (moveFlightData)", "2.1 → 4.0 (inferred)"],
            "1.0 jumps to 2.0, takes the app's stage, then jumps to 4.0: \(steps)")
        #expect(progress.values.last?.operation == "done")
    }
}

final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [MigrationProgress] = []

    func append(_ value: MigrationProgress) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }

    var values: [MigrationProgress] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
