import Foundation
import GRDB
@_spi(Generated) import LucidSchema

/// A record type of a superseded schema version (`Item_1_0` once `Item_2_0` exists): a GRDB record
/// (`FetchableRecord`, `PersistableRecord`) whose rows are read and written the way a row transform
/// reads and writes them, by ``MigrationRecord``, instead of through `Codable`.
///
/// `lucidgen generate` makes every record of an entity's older versions one of these, and the newest
/// version a `Codable` GRDB record. Both offer the same API to the app's stages, data migrations and
/// tests, so code written while `Item_2_0` was the newest version keeps compiling once `Item_3_0`
/// supersedes it: the memberwise initializer (parameters in the same order), the properties, `Columns`,
/// and GRDB's record API (`fetchAll`, `fetchOne`, `filter`, `order`, `insert`, `update`, `save`, `delete`,
/// `deleteAll`, `fetchCount`, `exists`…). Only the newest record is also `Codable` and `Hashable` (the
/// conformances that cost most of the build time of a long history): stage code does not rely on them.
///
/// ```swift
/// try Item_1_0(id: 1, name: "old").insert(db)                              // seed a store at 1.0
/// let items = try Item_1_0.filter(Item_1_0.Columns.name != "").fetchAll(db)
/// var item = items[0]; item.name = "new"; try item.update(db)
/// ```
///
/// Requests select the record's columns (``MigrationRecord/migrationColumns``), in its order, so a row
/// decodes by position; a row selected otherwise decodes by column name (a column it lacks reads as NULL).
///
/// Like the newest record, one with a local identifier (`id: Int64?`, assigned by SQLite) is a
/// `MutablePersistableRecord` whose `insert` sets `id`; every other one is also a `PersistableRecord`.
public protocol SupersededRecord: MigrationRecord, FetchableRecord, MutablePersistableRecord {}

extension SupersededRecord {
    /// The record's columns, in ``MigrationRecord/migrationColumns`` order.
    public static var databaseSelection: [any SQLSelectable] { migrationColumns.map { Column($0) } }

    /// Reads a fetched row: by position when it holds exactly the record's columns in order (what its
    /// requests select), else by column name. A value that does not fit its property throws a
    /// ``MigrationRowError``.
    public init(row: Row) throws {
        let columns = Self.migrationColumns
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count)
        if row.count == columns.count, zip(row.columnNames, columns).allSatisfy({ sameSQLName($0, $1) }) {
            for index in 0..<row.count { values.append(row[index] as DatabaseValue) }
        } else {
            for column in columns { values.append(row.hasColumn(column) ? row[column] as DatabaseValue : .null) }
        }
        try self.init(values: values, context: MigrationRecordCoding.readingContext(Self.self, table: Self.databaseTableName))
    }

    /// Writes the record's columns, with the values a row transform writes.
    public func encode(to container: inout PersistenceContainer) throws {
        for (column, value) in zip(Self.migrationColumns, try encodedValues()) { container[column] = value }
    }
}

extension MigrationRecord {
    /// Reads the record from column values by name, with GRDB's conversions (a column missing from
    /// `values` reads as NULL; a value that does not fit its property throws a ``MigrationRowError``).
    ///
    /// ```swift
    /// let item = try Item_1_0(databaseValues: ["id": 1.databaseValue, "name": "lamp".databaseValue])
    /// ```
    public init(databaseValues values: [String: DatabaseValue]) throws {
        let columns = Self.migrationColumns
        let ordered = columns.map { column in
            values[column] ?? values.first { sqlNameKey($0.key) == sqlNameKey(column) }?.value ?? .null
        }
        try self.init(
            values: ordered, context: MigrationRecordCoding.readingContext(Self.self, table: MigrationRecordCoding.tableName(Self.self)))
    }

    /// The record's column values by name, as a row transform writes them.
    public func databaseValues() throws -> [String: DatabaseValue] {
        Dictionary(uniqueKeysWithValues: zip(Self.migrationColumns, try encodedValues()))
    }

    /// Decodes from values in `migrationColumns` order.
    init(values: [DatabaseValue], context: TransformContext) throws {
        precondition(values.count == Self.migrationColumns.count)
        self = try values.withUnsafeBufferPointer { buffer in
            try Self(migrationRow: MigrationRow(databaseValues: buffer.baseAddress!, context: context))
        }
    }

    /// The values `encode(to:)` writes, in `migrationColumns` order.
    func encodedValues() throws -> [DatabaseValue] {
        let context = MigrationRecordCoding.writingContext(Self.self, table: MigrationRecordCoding.tableName(Self.self))
        var values = MigrationValues(context: context)
        try encode(to: &values)
        return (0..<Self.migrationColumns.count).map { context.slots[$0].databaseValue }
    }
}

/// The JSON coders and contexts of records read or written outside a transform.
@usableFromInline
enum MigrationRecordCoding {
    /// A GRDB record with GRDB's default JSON coders, for record types that are not GRDB records.
    private struct Defaults: FetchableRecord, EncodableRecord {
        init(row: Row) {}
        func encode(to container: inout PersistenceContainer) {}
    }

    /// The record type's JSON decoder for a column: its own when it is a GRDB record, else GRDB's default
    /// (what generated records used when every version was a GRDB record).
    @usableFromInline
    static func decoder<Record: MigrationRecord>(_ type: Record.Type) -> @Sendable (String) -> JSONDecoder {
        if let fetchable = type as? any (FetchableRecord & MigrationRecord).Type {
            return fetchableDecoder(fetchable)
        }
        return { Defaults.databaseJSONDecoder(for: $0) }
    }

    /// The record type's JSON encoder for a column (see ``decoder(_:)``).
    @usableFromInline
    static func encoder<Record: MigrationRecord>(_ type: Record.Type) -> @Sendable (String) -> JSONEncoder {
        if let encodable = type as? any (EncodableRecord & MigrationRecord).Type {
            return encodableEncoder(encodable)
        }
        return { Defaults.databaseJSONEncoder(for: $0) }
    }

    private static func fetchableDecoder<Record: FetchableRecord & MigrationRecord>(_: Record.Type) -> @Sendable (String) -> JSONDecoder {
        { Record.databaseJSONDecoder(for: $0) }
    }

    private static func encodableEncoder<Record: EncodableRecord & MigrationRecord>(_: Record.Type) -> @Sendable (String) -> JSONEncoder {
        { Record.databaseJSONEncoder(for: $0) }
    }

    static func tableName<Record>(_ type: Record.Type) -> String {
        (type as? any TableRecord.Type)?.databaseTableName ?? "\(type)"
    }

    static func readingContext<Record: MigrationRecord>(_ type: Record.Type, table: String) -> TransformContext {
        TransformContext(
            sourceTable: table, sourceColumns: Record.migrationColumns, targetTable: table, targetColumns: [],
            makeDecoder: decoder(type), makeEncoder: encoder(type))
    }

    static func writingContext<Record: MigrationRecord>(_ type: Record.Type, table: String) -> TransformContext {
        TransformContext(
            sourceTable: table, sourceColumns: [], targetTable: table, targetColumns: Record.migrationColumns,
            makeDecoder: decoder(type), makeEncoder: encoder(type))
    }
}

extension MigrationValues.Slot {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let integer): return integer.databaseValue
        case .real(let real): return real.databaseValue
        case .text(let text): return text.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }
}

extension MigrationRecord where Self: TableRecord {
    /// The key a generated `link…`/`unlink…` helper links with, for a record whose id SQLite assigns: nil
    /// (not inserted yet) throws ``UnsavedRecordError``.
    @_spi(Generated) public static func linkSourceID(_ id: Int64?) throws -> Int64 {
        guard let id else { throw UnsavedRecordError(table: databaseTableName) }
        return id
    }
}

/// A record whose id SQLite assigns was linked before it was inserted.
public struct UnsavedRecordError: Error, Sendable, CustomStringConvertible {
    public var table: String
    public var description: String { "a row of \(table) has no id yet: insert it before linking it" }
}
