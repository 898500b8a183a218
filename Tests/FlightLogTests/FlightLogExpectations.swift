import FlightLog
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema
@_spi(Generated) import LucidTesting

/// What the flight log's own migration code does to the data, written as expectations for the generated
/// migration tests (`Generated/FlightLogMigrationTests.swift`), independently of the code itself.
struct FlightLogExpectations {
    /// The tests migrate with exactly what the app opens its store with.
    func storeOptions() -> StoreOptions { FlightLogStages.storeOptions() }

    /// 2.0 → 2.1 (`moveFlightData`): every aircraft with flight data gets one `FlightData` row holding it,
    /// numbered in the order of the aircraft rows.
    func moveFlightDataExpectation(before: ExpectedRows, after: inout ExpectedRows) throws {
        for aircraft in try after.all(Aircraft_1_1.self) {
            guard let data = aircraft.flightData else { continue }
            try after.insert(FlightData_2_1(data: data, aircraft: aircraft.id))
        }
    }

    /// 3.0's data migration: aircraft with recorded flight data become favourites.
    var dataMigrationExpectations: [DataMigrationExpectation] {
        [
            DataMigrationExpectation(version: SchemaVersion("3.0"), label: "favourite aircraft with flight data") { rows in
                let withData = Set(try rows.all(FlightData_2_1.self).map(\.aircraft))
                try rows.updateAll(Aircraft_3_0.self) { aircraft in
                    if withData.contains(aircraft.id) { aircraft.isFavorite = true }
                }
            }
        ]
    }
}
