import Foundation
import GRDB
import GRDBSQLite
@_spi(Generated) import LucidSchema

/// A record that a row transform stage reads and writes column by column, by position, without GRDB's
/// `Codable` row machinery: what lets `RowTransform.records(table:_:)` between two such records run
/// inside chunked `INSERT … SELECT` statements instead of one `INSERT` per row.
///
/// `lucidgen generate` emits the conformance of every record type; the generated code reads and writes
/// every stored property in `migrationColumns` order:
///
/// ```swift
/// extension Item_2_0: MigrationRecord {
///     public static let migrationColumns: [String] = ["id", "name", "tags"]
///
///     public init(migrationRow row: MigrationRow) throws {
///         self.id = try row.decode(Int.self, at: 0)
///         self.name = try row.decode(String.self, at: 1)
///         self.tags = try row.decodeJSON([String].self, at: 2)
///     }
///
///     public func encode(to values: inout MigrationValues) throws {
///         values.encode(self.id, at: 0)
///         values.encode(self.name, at: 1)
///         try values.encodeJSON(self.tags, at: 2)
///     }
/// }
/// ```
///
/// Values are stored exactly as GRDB's `Codable` record persistence stores them (`DatabaseValueConvertible`
/// types as their `databaseValue`, other `Codable` values as JSON text written by the record type's
/// `databaseJSONEncoder(for:)`), so a record written through a migration reads back like one inserted
/// with `insert(_:)`. Reading is stricter than GRDB's row decoding: a value whose storage class does
/// not convert to the property's type (e.g. text in an INTEGER column, which GRDB reads as 0) fails
/// the step with a ``MigrationRowError`` naming the table, the row and the column.
public protocol MigrationRecord: Sendable {
    /// The record's columns, in the order `init(migrationRow:)` reads them and `encode(to:)` writes them.
    static var migrationColumns: [String] { get }
    /// Reads the record from a row of its table; value `i` is column `migrationColumns[i]`.
    init(migrationRow row: MigrationRow) throws
    /// Writes every column of the record; value `i` goes to column `migrationColumns[i]`.
    func encode(to values: inout MigrationValues) throws
}

/// A conversion that failed in a typed row transform: a value of the old row does not fit its record
/// property, or a new value cannot be encoded. Names the row by its rowid in the old table.
public struct MigrationRowError: Error, Sendable, CustomStringConvertible {
    /// The table being migrated.
    public var table: String
    /// The column whose value could not be read.
    public var column: String
    /// The old row's rowid.
    public var rowid: Int64
    /// What was wrong, e.g. `expected INTEGER, found TEXT 'abc'`.
    public var message: String

    /// E.g. `table item, row 7, column score: expected INTEGER, found TEXT 'abc'`.
    public var description: String { "table \(table), row \(rowid), column \(column): \(message)" }
}

/// The column values of one old row during a typed row transform, read by position (the order of the
/// record's ``MigrationRecord/migrationColumns``).
///
/// It points into SQLite's memory for the current row: it is valid only inside
/// ``MigrationRecord/init(migrationRow:)`` and must not be stored.
///
/// The readers of the common types are inlinable: the generated `init(migrationRow:)` reads each value
/// with a few C calls and no function call of its own.
public struct MigrationRow {
    /// The SQL function's arguments after the rowid: one `sqlite3_value` per column (nil when the row is
    /// read from GRDB values instead).
    @usableFromInline let values: UnsafeMutablePointer<OpaquePointer?>?
    /// The row's values when it is not read inside SQLite (``MigrationRecord/init(databaseValues:)``):
    /// every read then takes GRDB's conversions, which is what the fast readers fall back to anyway.
    @usableFromInline let databaseValues: UnsafePointer<DatabaseValue>?
    @usableFromInline let count: Int
    /// Owned by the transform's runner (or the caller of `init(databaseValues:)`), which outlives the row.
    private unowned(unsafe) let context: TransformContext

    init(arguments: UnsafeMutablePointer<OpaquePointer?>, context: TransformContext) {
        values = arguments
        databaseValues = nil
        count = context.sourceColumns.count
        self.context = context
    }

    init(databaseValues: UnsafePointer<DatabaseValue>, context: TransformContext) {
        values = nil
        self.databaseValues = databaseValues
        count = context.sourceColumns.count
        self.context = context
    }

    /// The `sqlite3_value` of column `index` (a bad index is a programming error, never a stray read).
    /// Only called when `databaseValues` is nil.
    @inlinable @inline(__always)
    func argument(_ index: Int) -> OpaquePointer? {
        precondition(UInt(bitPattern: index) < UInt(count), "column index \(index) out of range for \(count) columns")
        return values.unsafelyUnwrapped[index]
    }

    /// Whether column `index` is NULL.
    @_spi(Generated) @inlinable @inline(__always)
    public func isNull(_ index: Int) -> Bool {
        if databaseValues != nil { return databaseValue(at: index).isNull }
        return sqlite3_value_type(argument(index)) == SQLITE_NULL
    }

    /// The value at `index` as GRDB sees it.
    @_spi(Generated) public func databaseValue(at index: Int) -> DatabaseValue {
        if let databaseValues {
            precondition(UInt(bitPattern: index) < UInt(count), "column index \(index) out of range for \(count) columns")
            return databaseValues[index]
        }
        let value = argument(index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value).databaseValue
        case SQLITE_FLOAT: return sqlite3_value_double(value).databaseValue
        case SQLITE_TEXT: return Self.text(value).databaseValue
        case SQLITE_BLOB: return Self.blob(value).databaseValue
        default: return .null
        }
    }

    // MARK: DatabaseValueConvertible values (GRDB's conversions; NULL only for optionals)

    /// Reads column `index` of the old row as `T`; a NULL or a value that is not a `T` throws a ``MigrationRowError`` naming table, row and column.
    @_spi(Generated) public func decode<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `T` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @_spi(Generated) public func decodeIfPresent<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T? {
        isNull(index) ? nil : try decode(type, at: index)
    }

    // The common types read their own storage class directly; any other storage class takes GRDB's
    // conversion above (e.g. an integer stored in a REAL column).

    /// Reads column `index` of the old row as `String`; a NULL or a value that is not a `String` throws a ``MigrationRowError`` naming table, row and column.
    @inlinable
    @_spi(Generated) public func decode(_ type: String.Type, at index: Int) throws -> String {
        if databaseValues != nil { return try convert(type, at: index) }
        let value = argument(index)
        return sqlite3_value_type(value) == SQLITE_TEXT ? Self.text(value) : try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `String` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @inlinable
    @_spi(Generated) public func decodeIfPresent(_ type: String.Type, at index: Int) throws -> String? {
        if databaseValues != nil { return try convertIfPresent(type, at: index) }
        let value = argument(index)
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT: return Self.text(value)
        case SQLITE_NULL: return nil
        default: return try convert(type, at: index)
        }
    }

    /// Reads column `index` of the old row as `Int64`; a NULL or a value that is not a `Int64` throws a ``MigrationRowError`` naming table, row and column.
    @inlinable
    @_spi(Generated) public func decode(_ type: Int64.Type, at index: Int) throws -> Int64 {
        if databaseValues != nil { return try convert(type, at: index) }
        let value = argument(index)
        return sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) : try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `Int64` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @inlinable
    @_spi(Generated) public func decodeIfPresent(_ type: Int64.Type, at index: Int) throws -> Int64? {
        if databaseValues != nil { return try convertIfPresent(type, at: index) }
        let value = argument(index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_NULL: return nil
        default: return try convert(type, at: index)
        }
    }

    /// Reads column `index` of the old row as `Int`; a NULL or a value that is not a `Int` throws a ``MigrationRowError`` naming table, row and column.
    @inlinable
    @_spi(Generated) public func decode(_ type: Int.Type, at index: Int) throws -> Int {
        if databaseValues != nil { return try convert(type, at: index) }
        let value = argument(index)
        if sqlite3_value_type(value) == SQLITE_INTEGER, let int = Int(exactly: sqlite3_value_int64(value)) { return int }
        return try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `Int` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @inlinable
    @_spi(Generated) public func decodeIfPresent(_ type: Int.Type, at index: Int) throws -> Int? {
        isNull(index) ? nil : try decode(type, at: index)
    }

    /// Reads column `index` of the old row as `Double`; a NULL or a value that is not a `Double` throws a ``MigrationRowError`` naming table, row and column.
    @inlinable
    @_spi(Generated) public func decode(_ type: Double.Type, at index: Int) throws -> Double {
        if databaseValues != nil { return try convert(type, at: index) }
        let value = argument(index)
        return sqlite3_value_type(value) == SQLITE_FLOAT ? sqlite3_value_double(value) : try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `Double` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @inlinable
    @_spi(Generated) public func decodeIfPresent(_ type: Double.Type, at index: Int) throws -> Double? {
        if databaseValues != nil { return try convertIfPresent(type, at: index) }
        let value = argument(index)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_NULL: return nil
        default: return try convert(type, at: index)
        }
    }

    /// Reads column `index` of the old row as `Bool`; a NULL or a value that is not a `Bool` throws a ``MigrationRowError`` naming table, row and column.
    @inlinable
    @_spi(Generated) public func decode(_ type: Bool.Type, at index: Int) throws -> Bool {
        if databaseValues != nil { return try convert(type, at: index) }
        let value = argument(index)
        return sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) != 0 : try convert(type, at: index)
    }

    /// Reads column `index` of the old row as an optional `Bool` (NULL is nil); any other mismatch throws a ``MigrationRowError``.
    @inlinable
    @_spi(Generated) public func decodeIfPresent(_ type: Bool.Type, at index: Int) throws -> Bool? {
        isNull(index) ? nil : try decode(type, at: index)
    }

    /// GRDB's conversion from the value's `DatabaseValue`, NULL as nil.
    @usableFromInline
    func convertIfPresent<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T? {
        isNull(index) ? nil : try convert(type, at: index)
    }

    /// GRDB's conversion from the value's `DatabaseValue`.
    @usableFromInline
    func convert<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let value = databaseValue(at: index)
        if let converted = T.fromDatabaseValue(value) { return converted }
        if !value.isNull, let enumType = T.self as? any StoredEnumeration.Type {
            throw UnknownEnumValueError(
                table: context.sourceTable, row: .rowid(context.state.pointee.rowid), column: context.sourceColumns[index], value: value,
                enumType: "\(T.self)", cases: enumType.rawValues)
        }
        throw error(at: index, value.isNull ? "NULL where \(T.self) is required" : "cannot convert \(value) to \(T.self)")
    }

    // MARK: Other Codable values (JSON text, as GRDB stores them)

    /// Reads column `index` as JSON text decoded to `T` (how GRDB stores other `Codable` values).
    @_spi(Generated) public func decodeJSON<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        guard let value = try decodeJSONIfPresent(type, at: index) else { throw error(at: index, "NULL where \(T.self) is required") }
        return value
    }

    /// Reads column `index` as optional JSON text decoded to `T` (NULL is nil).
    @_spi(Generated) public func decodeJSONIfPresent<T: Decodable>(_ type: T.Type, at index: Int) throws -> T? {
        if databaseValues != nil {
            let data: Data
            switch databaseValue(at: index).storage {
            case .null: return nil
            case .string(let text): data = Data(text.utf8)
            case .blob(let blob): data = blob
            default: throw error(at: index, "expected JSON text for \(T.self), found \(databaseValue(at: index))")
            }
            do {
                return try context.jsonDecoder(at: index).decode(T.self, from: data)
            } catch {
                throw self.error(at: index, "invalid JSON for \(T.self): \(error)")
            }
        }
        let value = argument(index)
        switch sqlite3_value_type(value) {
        case SQLITE_NULL:
            return nil
        case SQLITE_TEXT, SQLITE_BLOB:
            // sqlite3_value_blob gives the bytes of a text value too; the decoder only reads them here.
            let bytes = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            let data = bytes.map { Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: count, deallocator: .none) } ?? Data()
            do {
                return try context.jsonDecoder(at: index).decode(T.self, from: data)
            } catch {
                throw self.error(at: index, "invalid JSON for \(T.self): \(error)")
            }
        default:
            throw error(at: index, "expected JSON text for \(T.self), found \(databaseValue(at: index))")
        }
    }

    // MARK: Helpers

    private func error(at index: Int, _ message: String) -> MigrationRowError {
        MigrationRowError(
            table: context.sourceTable, column: context.sourceColumns[index], rowid: context.state.pointee.rowid, message: message)
    }

    @inlinable
    static func text(_ value: OpaquePointer?) -> String {
        guard let bytes = sqlite3_value_text(value) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    private static func blob(_ value: OpaquePointer?) -> Data {
        guard let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }
}

/// The column values of one new row during a typed row transform, written by position (the order of
/// the record's ``MigrationRecord/migrationColumns``). Every value starts as NULL for each row.
///
/// It writes into a buffer that SQLite reads the row from: it is valid only inside
/// ``MigrationRecord/encode(to:)`` and must not be stored.
///
/// The writers of the common types are inlinable, like ``MigrationRow``'s readers.
public struct MigrationValues {
    @usableFromInline
    enum Slot {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)

        init(_ value: DatabaseValue) {
            switch value.storage {
            case .null: self = .null
            case .int64(let integer): self = .integer(integer)
            case .double(let real): self = .real(real)
            case .string(let text): self = .text(text)
            case .blob(let data): self = .blob(data)
            }
        }
    }

    @usableFromInline let slots: UnsafeMutablePointer<Slot>
    @usableFromInline let count: Int
    /// Owned by the transform's runner, which outlives every row.
    private unowned(unsafe) let context: TransformContext

    init(context: TransformContext) {
        slots = context.slots
        count = context.targetColumns.count
        self.context = context
    }

    @inlinable @inline(__always)
    func set(_ slot: Slot, at index: Int) {
        precondition(UInt(bitPattern: index) < UInt(count), "column index \(index) out of range for \(count) columns")
        slots[index] = slot
    }

    // MARK: DatabaseValueConvertible values (their `databaseValue`; nil is NULL)

    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) public mutating func encode<T: DatabaseValueConvertible>(_ value: T?, at index: Int) {
        set(value.map { Slot($0.databaseValue) } ?? .null, at: index)
    }

    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: String, at index: Int) { set(.text(value), at: index) }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: String?, at index: Int) {
        set(value.map(Slot.text) ?? .null, at: index)
    }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Int64, at index: Int) { set(.integer(value), at: index) }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Int64?, at index: Int) {
        set(value.map(Slot.integer) ?? .null, at: index)
    }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Int, at index: Int) { set(.integer(Int64(value)), at: index) }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Int?, at index: Int) {
        set(value.map { .integer(Int64($0)) } ?? .null, at: index)
    }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Double, at index: Int) { set(.real(value), at: index) }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Double?, at index: Int) {
        set(value.map(Slot.real) ?? .null, at: index)
    }
    /// Sets column `index` of the new row (nil is NULL).
    @_spi(Generated) @inlinable public mutating func encode(_ value: Bool, at index: Int) { set(.integer(value ? 1 : 0), at: index) }
    @_spi(Generated) @inlinable public mutating func encode(_ value: Bool?, at index: Int) {
        set(value.map { .integer($0 ? 1 : 0) } ?? .null, at: index)
    }

    // MARK: Other Codable values (JSON text, as GRDB stores them)

    /// Sets column `index` of the new row to `value` as JSON text, as GRDB stores `Codable` values (nil is NULL).
    @_spi(Generated) public mutating func encodeJSON<T: Encodable>(_ value: T?, at index: Int) throws {
        guard let value else {
            set(.null, at: index)
            return
        }
        let data: Data
        do {
            data = try context.jsonEncoder(at: index).encode(value)
        } catch {
            throw MigrationRowError(
                table: context.targetTable, column: context.targetColumns[index], rowid: context.state.pointee.rowid,
                message: "cannot encode \(T.self) as JSON: \(error)")
        }
        set(.text(String(decoding: data, as: UTF8.self)), at: index)
    }
}

/// What a typed transform's callbacks share, for the duration of one table rebuild: the two column
/// lists, the record types' JSON coders (made once, on first use), the new row's value buffer, and
/// the per-row state. The buffer and the state are plain memory (no exclusivity checks per row).
final class TransformContext {
    struct State {
        /// The current old row.
        var rowid: Int64 = 0
        /// Old rows seen so far (kept or dropped), for progress.
        var rowsSeen = 0
        /// A kept row's values are waiting for `lucid_value`; `nextValue` is the next one expected.
        var pending = false
        var nextValue = 0
        /// A callback failed (the runner keeps the error).
        var failed = false
    }

    let sourceTable: String
    let sourceColumns: [String]
    let targetTable: String
    let targetColumns: [String]
    let state: UnsafeMutablePointer<State>
    /// One value per target column; each is taken (and reset to NULL) when SQLite reads it.
    let slots: UnsafeMutablePointer<MigrationValues.Slot>
    private let makeDecoder: (String) -> JSONDecoder
    private let makeEncoder: (String) -> JSONEncoder
    private var decoders: [JSONDecoder?]
    private var encoders: [JSONEncoder?]

    init(
        sourceTable: String, sourceColumns: [String], targetTable: String, targetColumns: [String],
        makeDecoder: @escaping (String) -> JSONDecoder, makeEncoder: @escaping (String) -> JSONEncoder
    ) {
        self.sourceTable = sourceTable
        self.sourceColumns = sourceColumns
        self.targetTable = targetTable
        self.targetColumns = targetColumns
        self.makeDecoder = makeDecoder
        self.makeEncoder = makeEncoder
        decoders = Array(repeating: nil, count: sourceColumns.count)
        encoders = Array(repeating: nil, count: targetColumns.count)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        slots = .allocate(capacity: targetColumns.count)
        slots.initialize(repeating: .null, count: targetColumns.count)
    }

    deinit {
        slots.deinitialize(count: targetColumns.count)
        slots.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func jsonDecoder(at index: Int) -> JSONDecoder {
        if let decoder = decoders[index] { return decoder }
        let decoder = makeDecoder(sourceColumns[index])
        decoders[index] = decoder
        return decoder
    }

    func jsonEncoder(at index: Int) -> JSONEncoder {
        if let encoder = encoders[index] { return encoder }
        let encoder = makeEncoder(targetColumns[index])
        encoders[index] = encoder
        return encoder
    }
}
