// The flight-log app's launch, reduced to what matters here: open the store with the app's stages and
// data migrations, showing progress, then print what the store holds.
// Usage: flightlog-demo STORE
import FlightLog
import Foundation
import GRDB
import LucidRuntime

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: flightlog-demo STORE\n".utf8))
    exit(64)
}
var options = FlightLogStages.storeOptions()
options.logger.logLevel = .warning
options.progress = { progress in
    // Written at once, even to a pipe: tests kill the process right after a step's line.
    if progress.operation == "starting" {
        FileHandle.standardOutput.write(Data("  step \(progress.step)/\(progress.totalSteps): \(progress.stepLabel)\n".utf8))
    }
}
do {
    let database = try LucidStore.open(atPath: arguments[1], registry: FlightLogSchema.self, options: options).database
    try database.read { db in
        let aircraft = try Aircraft.order(Aircraft.Columns.id).fetchAll(db)
        let flightData = try FlightData.fetchAll(db)
        print(
            "version \(try String.fetchOne(db, sql: "SELECT version FROM lucid_store") ?? "?"): \(aircraft.count) aircraft, \(try LogEntry.fetchCount(db)) log entries, \(flightData.count) flight data rows"
        )
        for plane in aircraft.prefix(4) {
            let bytes = flightData.filter { $0.aircraft == plane.id }.map(\.data.count)
            let colors = plane.colorScheme.map { "\($0.primary)/\($0.secondary)/\($0.accent ?? "-")" } ?? "none"
            print(
                "  \(plane.id) \(plane.aircraftType.debugDescription) favourite: \(plane.isFavorite) colors: \(colors) flight data bytes: \(bytes)"
            )
        }
        // 4.0's composite attribute: each element is a column, queried by element through its index.
        if let primary = aircraft.lazy.compactMap(\.colorScheme).first?.primary {
            let request = Aircraft.filter(Aircraft.Columns.colorScheme.primary == primary)
            let statement = try request.makePreparedRequest(db).statement
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map {
                $0["detail"] as String
            }
            print(
                "  Aircraft.Columns.colorScheme.primary == \(primary.debugDescription): \(try request.fetchAll(db).map(\.id)) (\(plan.joined(separator: "; ")))"
            )
        }
        // 4.0's declared search: log entries whose departure, arrival or notes hold words starting with
        // those of the text, best match first, through the FTS5 index the migration built.
        if let word = try LogEntry.order(LogEntry.Columns.id).fetchOne(db)?.departure.split(separator: " ").first.map(String.init) {
            let found = try LogEntry.search(word).fetchAll(db)
            print(
                "  LogEntry.search(\(word.debugDescription)): \(found.count) of \(try LogEntry.fetchCount(db)) entries, first ids \(found.prefix(5).map(\.id))"
            )
        }
        // The tokenizer ignores diacritics: "unicode" finds "ünïcödé".
        print("  LogEntry.search(\"unicode\"): ids \(try LogEntry.search("unicode").fetchAll(db).prefix(5).map(\.id))")
        print(
            "applied steps: "
                + (try String.fetchAll(db, sql: "SELECT kind || ' ' || label FROM lucid_migration_log ORDER BY id")).joined(
                    separator: " | "))
        print(
            "data migrations: "
                + (try String.fetchAll(db, sql: "SELECT version || ' ' || label || ': ' || outcome FROM lucid_data_migrations")).joined(
                    separator: " | "))
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(3)
}
