import Foundation
import GRDB
import GRDBSQLite

/// A typed row transform between two ``MigrationRecord`` types, erased to what the executor needs.
struct RecordTransform: Sendable {
    let sourceColumns: [String]
    let targetColumns: [String]
    let makeDecoder: @Sendable (String) -> JSONDecoder
    let makeEncoder: @Sendable (String) -> JSONEncoder
    /// Decodes the old record, runs the app's transform, encodes the new one; false drops the row.
    let convert: @Sendable (MigrationRow, inout MigrationValues) throws -> Bool

    init<Old: FetchableRecord & MigrationRecord, New: EncodableRecord & MigrationRecord>(_ transform: @escaping @Sendable (Old) throws -> New?) {
        sourceColumns = Old.migrationColumns
        targetColumns = New.migrationColumns
        makeDecoder = { Old.databaseJSONDecoder(for: $0) }
        makeEncoder = { New.databaseJSONEncoder(for: $0) }
        convert = { row, values in
            guard let new = try transform(Old(migrationRow: row)) else { return false }
            try new.encode(to: &values)
            return true
        }
    }
}

/// Runs a ``RecordTransform`` inside SQLite, as two SQL functions registered on the connection for the
/// duration of one table rebuild:
///
/// ```sql
/// INSERT INTO new (c1, …, ck) SELECT lucid_value(0), …, lucid_value(k - 1)
/// FROM old AS src WHERE src.rowid BETWEEN ? AND ? AND lucid_transform(src.rowid, src.o1, …, src.on)
/// ```
///
/// `lucid_transform` decodes the old record from its arguments, calls the app's code, encodes the new
/// record into a buffer reused for every row and returns 1 (keep) or 0 (drop); for a kept row, SQLite
/// then evaluates the result columns, each `lucid_value(i)` returning value `i` of the buffer. Both are
/// registered non-deterministic so that SQLite calls them for every row instead of factoring
/// `lucid_value(0)` out as a constant.
///
/// The pairing of a row's `lucid_transform` with its `lucid_value` calls is checked, never assumed: a
/// `lucid_value` out of order or without a kept row, or a kept row whose values were not all read when
/// the next row (or the end of the statement) comes, fails the statement.
final class RecordTransformRunner {
    static let transformFunction = "lucid_transform"
    static let valueFunction = "lucid_value"

    let columns: TransformColumns
    private let convert: @Sendable (MigrationRow, inout MigrationValues) throws -> Bool
    private var values: MigrationValues
    /// Old rows seen so far (kept or dropped), for progress.
    private(set) var rowsSeen = 0
    /// A kept row's values are waiting for `lucid_value`; `nextValue` is the next one expected.
    private var pending = false
    private var nextValue = 0
    /// The first error thrown in a callback (the app's own error, or a decoding error): the statement
    /// fails with its description, and the executor rethrows this error itself.
    private(set) var error: (any Error)?

    init(_ transform: RecordTransform, sourceTable: String, targetTable: String) {
        columns = TransformColumns(
            sourceTable: sourceTable, sourceColumns: transform.sourceColumns, targetTable: targetTable, targetColumns: transform.targetColumns,
            makeDecoder: transform.makeDecoder, makeEncoder: transform.makeEncoder)
        convert = transform.convert
        values = MigrationValues(columns: columns)
    }

    /// `INSERT INTO … SELECT …` with the rowid range as its two arguments.
    func insertSQL(into temporary: String, from source: String) -> String {
        let targets = columns.targetColumns.map(quoteIdentifier).joined(separator: ", ")
        let results = columns.targetColumns.indices.map { "\(Self.valueFunction)(\($0))" }.joined(separator: ", ")
        let arguments = (["src.rowid"] + columns.sourceColumns.map { "src.\(quoteIdentifier($0))" }).joined(separator: ", ")
        return "INSERT INTO \(quoteIdentifier(temporary)) (\(targets)) SELECT \(results) FROM \(quoteIdentifier(source)) AS src WHERE src.rowid BETWEEN ? AND ? AND \(Self.transformFunction)(\(arguments))"
    }

    var transformArgumentCount: Int32 { Int32(columns.sourceColumns.count + 1) }

    /// Registers both functions on `connection`; each registration holds the runner until SQLite
    /// destroys it (when ``unregister(from:)`` deletes the function, or the connection closes).
    func register(on connection: OpaquePointer) throws {
        let flags = SQLITE_UTF8 | SQLITE_DIRECTONLY
        for (name, count, function) in [
            (Self.transformFunction, transformArgumentCount, lucidTransform as SQLiteFunction),
            (Self.valueFunction, Int32(1), lucidValue as SQLiteFunction),
        ] {
            let box = Unmanaged.passRetained(self).toOpaque()
            let code = sqlite3_create_function_v2(connection, name, count, flags, box, function, nil, nil, releaseRunner)
            guard code == SQLITE_OK else {
                // On failure SQLite has already called the destructor.
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name): \(String(cString: sqlite3_errmsg(connection)))")
            }
        }
    }

    /// Deletes both functions (SQLite then releases the runner).
    func unregister(from connection: OpaquePointer) {
        sqlite3_create_function_v2(connection, Self.transformFunction, transformArgumentCount, SQLITE_UTF8, nil, nil, nil, nil, nil)
        sqlite3_create_function_v2(connection, Self.valueFunction, 1, SQLITE_UTF8, nil, nil, nil, nil, nil)
    }

    /// After each statement: the last kept row must have had all its values read.
    func checkComplete() throws {
        if let error { throw error }
        if pending { throw EvaluationOrderError(message: "row \(columns.rowid) was kept but only \(nextValue) of its \(columns.targetColumns.count) values were inserted") }
    }

    fileprivate func transform(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard error == nil else { return fail(context, error!) }
        guard !pending else {
            return fail(context, EvaluationOrderError(message: "row \(columns.rowid) was kept but only \(nextValue) of its \(columns.targetColumns.count) values were inserted"))
        }
        guard let arguments, count == transformArgumentCount else {
            return fail(context, EvaluationOrderError(message: "\(Self.transformFunction) called with \(count) arguments"))
        }
        columns.rowid = sqlite3_value_int64(arguments[0])
        rowsSeen += 1
        values.reset()
        do {
            if try convert(MigrationRow(arguments: arguments + 1, columns: columns), &values) {
                pending = true
                nextValue = 0
                sqlite3_result_int(context, 1)
            } else {
                sqlite3_result_int(context, 0)
            }
        } catch {
            fail(context, error)
        }
    }

    fileprivate func value(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard error == nil else { return fail(context, error!) }
        let index = arguments.map { Int(sqlite3_value_int64($0[0])) } ?? -1
        guard pending, index == nextValue else {
            return fail(context, EvaluationOrderError(message: "\(Self.valueFunction)(\(index)) evaluated \(pending ? "where value \(nextValue) was expected" : "with no kept row pending")"))
        }
        nextValue += 1
        if nextValue == values.slots.count { pending = false }
        switch values.slots[index] {
        case .null:
            sqlite3_result_null(context)
        case .integer(let integer):
            sqlite3_result_int64(context, integer)
        case .real(let real):
            sqlite3_result_double(context, real)
        case .text(var text):
            text.withUTF8 { bytes in
                if let base = bytes.baseAddress {
                    base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_result_text64(context, $0, sqlite3_uint64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
                    }
                } else {
                    sqlite3_result_text(context, "", 0, sqliteTransient)
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                // An empty blob is a blob, not NULL (a nil pointer would make it NULL).
                if let base = bytes.baseAddress, bytes.count > 0 {
                    sqlite3_result_blob64(context, base, sqlite3_uint64(bytes.count), sqliteTransient)
                } else {
                    sqlite3_result_zeroblob(context, 0)
                }
            }
        }
    }

    private func fail(_ context: OpaquePointer?, _ error: any Error) {
        if self.error == nil { self.error = error }
        sqlite3_result_error(context, "\(error)", -1)
    }
}

/// SQLite evaluated the transform's functions in an order the runner does not expect (a bug, reported
/// rather than letting values shift between columns or rows).
struct EvaluationOrderError: Error, CustomStringConvertible {
    var message: String
    var description: String { "row transform: \(message)" }
}

private typealias SQLiteFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

/// `SQLITE_TRANSIENT` (a C macro Swift does not import): SQLite copies the value before returning.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

private func runner(_ context: OpaquePointer?) -> RecordTransformRunner {
    Unmanaged<RecordTransformRunner>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
}

private func lucidTransform(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    runner(context).transform(context, count, arguments)
}

private func lucidValue(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    runner(context).value(context, count, arguments)
}

private func releaseRunner(_ box: UnsafeMutableRawPointer?) {
    if let box { Unmanaged<RecordTransformRunner>.fromOpaque(box).release() }
}
