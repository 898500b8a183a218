import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// The rows a store is expected to hold at one schema version: every table, every row, in rowid order.
///
/// The generated migration tests compute it step by step along the path the real migration takes, and
/// hand it to the app's expectations for the steps that run the app's code. Those read and change it
/// through the generated record types of the version:
///
/// ```swift
/// func moveFlightDataExpectation(before: ExpectedRows, after: inout ExpectedRows) throws {
///     for aircraft in try after.all(Aircraft_2_1.self) where aircraft.flightData != nil {
///         try after.insert(FlightData_2_1(id: nil, aircraft: aircraft.id, data: aircraft.flightData!))
///     }
/// }
/// ```
public struct ExpectedRows: Sendable {
    /// The schema the rows are at.
    public let schema: Schema
    var tables: [String: [[String: DatabaseValue]]]
    /// Columns whose value cannot be known in advance (a default such as the current date): only checked
    /// to be non-NULL.
    var volatile: [String: Set<String>] = [:]

    init(schema: Schema, tables: [String: [[String: DatabaseValue]]] = [:]) {
        self.schema = schema
        self.tables = tables
    }

    /// The version these rows are at.
    public var version: SchemaVersion { schema.version }

    /// The rows of a table, as GRDB rows (column name → value).
    public func rows(of table: String) throws -> [Row] {
        try storedRows(of: table).map { Row($0) }
    }

    /// Every row of a record type's table, decoded as that record (any generated record: the newest
    /// version's or a superseded one's).
    public func all<Record: MigrationRecord & TableRecord>(_ type: Record.Type) throws -> [Record] {
        try storedRows(of: Record.databaseTableName).map { try Record(databaseValues: $0) }
    }

    /// Adds a row. An integer primary key left nil gets the next rowid, as SQLite would assign it.
    public mutating func insert<Record: MigrationRecord & TableRecord>(_ record: Record) throws {
        let table = try tableName(Record.databaseTableName)
        tables[table, default: []].append(try record.databaseValues())
    }

    /// Changes every row of a record type's table.
    public mutating func updateAll<Record: MigrationRecord & TableRecord>(
        _ type: Record.Type, _ change: (inout Record) throws -> Void
    ) throws {
        let table = try tableName(Record.databaseTableName)
        tables[table] = try (tables[table] ?? []).map { values in
            var record = try Record(databaseValues: values)
            try change(&record)
            var updated = values
            for (column, value) in try record.databaseValues() { updated[column] = value }
            return updated
        }
    }

    /// Removes the rows of a record type's table that match.
    public mutating func removeAll<Record: MigrationRecord & TableRecord>(_ type: Record.Type, where predicate: (Record) throws -> Bool)
        throws
    {
        let table = try tableName(Record.databaseTableName)
        tables[table] = try (tables[table] ?? []).filter { try !predicate(Record(databaseValues: $0)) }
    }

    func storedRows(of table: String) throws -> [[String: DatabaseValue]] {
        tables[try tableName(table)] ?? []
    }

    func tableName(_ name: String) throws -> String {
        guard let table = schema.table(named: name) else {
            throw ExpectationError(
                "table \(name) does not exist at version \(schema.version) (tables: \(schema.tables.map(\.name).joined(separator: ", ")))")
        }
        return table.name
    }
}

/// A mistake in the expectations themselves (not in the migration).
public struct ExpectationError: Error, CustomStringConvertible {
    /// What was wrong.
    public var description: String

    /// An error thrown from an expectation.
    ///
    /// ```swift
    /// throw ExpectationError("aircraft \(id) has no flight data")
    /// ```
    public init(_ description: String) {
        self.description = description
    }
}
