import GRDB
import LucidRuntime

/// The flight log's own migration code (hand-written; the generated `FlightLogMigrations` protocol says
/// what it must provide, and a missing function is a build error).
///
/// WWDC23's staged migration: `Aircraft.flightData` (a blob on every aircraft) becomes a `FlightData`
/// entity related to its aircraft. At 2.1 both exist, and ``moveFlightDataDidMigrate(_:)`` copies each
/// blob into its own row; 3.0 drops the old column, which SQL does alone.
public struct FlightLogStages: Sendable {
    public init() {}

    public func moveFlightDataWillMigrate(_ db: Database) throws {}

    public func moveFlightDataDidMigrate(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO flight_data (aircraft, data) SELECT id, flight_data FROM aircraft WHERE flight_data IS NOT NULL")
    }

    /// Data-only migrations: at 3.0, aircraft with recorded flight data become favourites (once per store).
    public static let dataMigrations = [
        DataMigration(version: SchemaVersion("3.0"), label: "favourite aircraft with flight data") { db in
            try db.execute(sql: "UPDATE aircraft SET is_favorite = 1 WHERE id IN (SELECT aircraft FROM flight_data)")
        }
    ]

    /// The options an app opens the flight log's store with.
    public static func storeOptions() -> StoreOptions {
        var options = StoreOptions()
        options.stages = FlightLogSchema.stages(using: FlightLogStages())
        options.dataMigrations = dataMigrations
        return options
    }
}
