import Foundation
import LucidRuntime

/// What the app's code does to the data in the steps lucidgen cannot predict: the expected results of
/// row transforms, of will/did stages and of data migrations. The generated tests require one for each
/// (a generated protocol requirement, so a new stage without its expectation does not build), and a
/// data migration that runs without one fails the test that runs it.
public struct MigrationExpectations: Sendable {
    public var transforms: [TransformExpectation]
    public var stages: [StageExpectation]
    public var dataMigrations: [DataMigrationExpectation]

    public init(transforms: [TransformExpectation] = [], stages: [StageExpectation] = [], dataMigrations: [DataMigrationExpectation] = []) {
        self.transforms = transforms
        self.stages = stages
        self.dataMigrations = dataMigrations
    }
}

/// The row a row transform should make of an old row (nil: the row should be gone).
public struct TransformExpectation: Sendable {
    public var from: SchemaVersion
    public var to: SchemaVersion
    /// The table at `to`.
    public var table: String
    let expect: @Sendable (Row) throws -> [String: DatabaseValue]?

    public init(from: SchemaVersion, to: SchemaVersion, table: String, expect: @escaping @Sendable (Row) throws -> [String: DatabaseValue]?) {
        self.from = from
        self.to = to
        self.table = table
        self.expect = expect
    }

    /// Typed with the generated record types of both versions.
    public static func records<Old: FetchableRecord & Sendable, New: EncodableRecord>(
        from: SchemaVersion, to: SchemaVersion, table: String, _ expect: @escaping @Sendable (Old) throws -> New?
    ) -> TransformExpectation {
        TransformExpectation(from: from, to: to, table: table) { row in try expect(try Old(row: row)).map { try $0.databaseDictionary } }
    }
}

/// What a stage's will/did hooks should do: `before` holds the rows at `from`, `after` the rows at `to`
/// as SQL alone would leave them; the expectation changes `after` the way the hooks change the store.
public struct StageExpectation: Sendable {
    public var from: SchemaVersion
    public var to: SchemaVersion
    public var label: String
    let apply: @Sendable (_ before: ExpectedRows, _ after: inout ExpectedRows) throws -> Void

    public init(from: SchemaVersion, to: SchemaVersion, label: String, apply: @escaping @Sendable (_ before: ExpectedRows, _ after: inout ExpectedRows) throws -> Void) {
        self.from = from
        self.to = to
        self.label = label
        self.apply = apply
    }
}

/// What a data migration should do to the rows (at the schema of the step that runs it).
public struct DataMigrationExpectation: Sendable {
    public var version: SchemaVersion
    public var label: String
    let apply: @Sendable (inout ExpectedRows) throws -> Void

    public init(version: SchemaVersion, label: String, apply: @escaping @Sendable (inout ExpectedRows) throws -> Void) {
        self.version = version
        self.label = label
        self.apply = apply
    }
}
