import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// What the app's code does to the data in the steps lucidgen cannot predict: the expected results of
/// row transforms, of will/did stages and of data migrations. The generated tests require one for each
/// (a generated protocol requirement, so a new stage without its expectation does not build), and a
/// data migration that runs without one fails the test that runs it.
public struct MigrationExpectations: Sendable {
    /// What each row transform should make of an old row.
    public var transforms: [TransformExpectation]
    /// What each stage's hooks do to the rows.
    public var stages: [StageExpectation]
    /// What each data migration does to the rows.
    public var dataMigrations: [DataMigrationExpectation]

    /// All of the app's expectations (the generated tests assemble them from the expectations provider).
    ///
    /// ```swift
    /// let expectations = MigrationExpectations(dataMigrations: [favouritesExpectation])
    /// ```
    public init(transforms: [TransformExpectation] = [], stages: [StageExpectation] = [], dataMigrations: [DataMigrationExpectation] = []) {
        self.transforms = transforms
        self.stages = stages
        self.dataMigrations = dataMigrations
    }
}

/// The row a row transform should make of an old row (nil: the row should be gone).
public struct TransformExpectation: Sendable {
    /// The step's start version.
    public var from: SchemaVersion
    /// The step's end version.
    public var to: SchemaVersion
    /// The table at `to`.
    public var table: String
    let expect: @Sendable (Row) throws -> [String: DatabaseValue]?

    /// The row expected from each old row (nil: dropped), from GRDB rows.
    ///
    /// ```swift
    /// TransformExpectation(from: SchemaVersion("3.0"), to: SchemaVersion("4.0"), table: "shelf") { old in
    ///     Int(old["label"] as String).map { ["code": old["code"], "label": $0.databaseValue] }
    /// }
    /// ```
    public init(from: SchemaVersion, to: SchemaVersion, table: String, expect: @escaping @Sendable (Row) throws -> [String: DatabaseValue]?)
    {
        self.from = from
        self.to = to
        self.table = table
        self.expect = expect
    }

    /// Typed with GRDB record types.
    public static func records<Old: FetchableRecord & Sendable, New: EncodableRecord>(
        from: SchemaVersion, to: SchemaVersion, table: String, _ expect: @escaping @Sendable (Old) throws -> New?
    ) -> TransformExpectation {
        TransformExpectation(from: from, to: to, table: table) { row in try expect(try Old(row: row)).map { try $0.databaseDictionary } }
    }

    /// Typed with the generated record types of both versions (superseded versions' records are
    /// `MigrationRecord`s only), read and written as a row transform reads and writes them.
    public static func records<Old: MigrationRecord, New: MigrationRecord>(
        from: SchemaVersion, to: SchemaVersion, table: String, _ expect: @escaping @Sendable (Old) throws -> New?
    ) -> TransformExpectation {
        TransformExpectation(from: from, to: to, table: table) { row in
            try expect(try Old(databaseValues: Dictionary(row, uniquingKeysWith: { first, _ in first }))).map { try $0.databaseValues() }
        }
    }

    /// Typed with record types that are both (this overload only settles which of the two above applies).
    public static func records<Old: FetchableRecord & MigrationRecord, New: EncodableRecord & MigrationRecord>(
        from: SchemaVersion, to: SchemaVersion, table: String, _ expect: @escaping @Sendable (Old) throws -> New?
    ) -> TransformExpectation {
        TransformExpectation(from: from, to: to, table: table) { row in
            try expect(try Old(databaseValues: Dictionary(row, uniquingKeysWith: { first, _ in first }))).map { try $0.databaseValues() }
        }
    }
}

/// What a stage's will/did hooks should do: `before` holds the rows at `from`, `after` the rows at `to`
/// as SQL alone would leave them; the expectation changes `after` the way the hooks change the store.
public struct StageExpectation: Sendable {
    /// The stage's start version.
    public var from: SchemaVersion
    /// The stage's end version.
    public var to: SchemaVersion
    /// The stage's label.
    public var label: String
    let apply: @Sendable (_ before: ExpectedRows, _ after: inout ExpectedRows) throws -> Void

    /// Changes `after` (the rows as SQL alone leaves them) the way the stage changes the store.
    ///
    /// ```swift
    /// StageExpectation(from: SchemaVersion("2.0"), to: SchemaVersion("2.1"), label: "moveFlightData") { before, after in
    ///     for aircraft in try after.all(Aircraft_1_1.self) where aircraft.flightData != nil {
    ///         try after.insert(FlightData_2_1(data: aircraft.flightData!, aircraft: aircraft.id))
    ///     }
    /// }
    /// ```
    public init(
        from: SchemaVersion, to: SchemaVersion, label: String,
        apply: @escaping @Sendable (_ before: ExpectedRows, _ after: inout ExpectedRows) throws -> Void
    ) {
        self.from = from
        self.to = to
        self.label = label
        self.apply = apply
    }
}

/// What a data migration should do to the rows (at the schema of the step that runs it).
public struct DataMigrationExpectation: Sendable {
    /// The data migration's version.
    public var version: SchemaVersion
    /// The data migration's label.
    public var label: String
    let apply: @Sendable (inout ExpectedRows) throws -> Void

    /// Changes the expected rows the way the data migration changes the store.
    ///
    /// ```swift
    /// DataMigrationExpectation(version: SchemaVersion("3.0"), label: "favourite aircraft with flight data") { rows in
    ///     try rows.updateAll(Aircraft_3_0.self) { $0.isFavorite = true }
    /// }
    /// ```
    public init(version: SchemaVersion, label: String, apply: @escaping @Sendable (inout ExpectedRows) throws -> Void) {
        self.version = version
        self.label = label
        self.apply = apply
    }
}
