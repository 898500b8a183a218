import Dispatch
import GRDB
import GRDBSQLite
@_spi(Generated) import LucidSchema

/// One prepared `INSERT` run once per row with values bound straight to SQLite, for the row-by-row
/// rebuilds (the rows-and-dictionaries path, and typed records wider than an SQL function's arguments).
///
/// GRDB's `StatementArguments` built from a sequence of values costs more per row than SQLite's insert
/// itself (it projects every value through a key path created at run time); binding each value with
/// `sqlite3_bind_*` costs nothing beyond SQLite's own copy. Errors are GRDB's `DatabaseError`, with the
/// statement's SQL, as `Statement.execute()` would throw them.
struct RowInserter {
    private let statement: Statement
    fileprivate let sqlite: SQLiteStatement
    private let connection: SQLiteConnection?
    /// How many `?` the statement has.
    let count: Int

    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        sqlite = statement.sqliteStatement
        connection = db.sqliteConnection
        count = Int(sqlite3_bind_parameter_count(sqlite))
    }

    /// Runs the statement with the values bound since the last call, then leaves every parameter NULL.
    func insert() throws {
        let code = sqlite3_step(sqlite)
        let failure = code == SQLITE_DONE ? nil : error(code)
        sqlite3_reset(sqlite)
        sqlite3_clear_bindings(sqlite)
        if let failure { throw failure }
    }

    fileprivate func error(_ code: Int32) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)), message: message, sql: statement.sql)
    }
}

/// New rows laid out by position as plain bytes, so that binding them allocates and frees nothing: per
/// value a kind and a number (the integer, the real's bits, or the byte count of a text or blob), and the
/// bytes of texts and blobs one after another.
struct EncodedRows: Sendable {
    enum Kind: UInt8 { case null, integer, real, text, blob }
    var kinds: [Kind] = []
    var numbers: [Int64] = []
    var bytes: [UInt8] = []
    /// Rows the transform dropped (returned nil for).
    var dropped = 0

    init(capacity: Int) {
        kinds.reserveCapacity(capacity)
        numbers.reserveCapacity(capacity)
    }

    /// Empties it for reuse, keeping its storage (a row-by-row path encodes every row into one value).
    mutating func removeAll() {
        kinds.removeAll(keepingCapacity: true)
        numbers.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        dropped = 0
    }

    mutating func append(_ value: DatabaseValue) {
        switch value.storage {
        case .null:
            kinds.append(.null)
            numbers.append(0)
        case .int64(let integer):
            kinds.append(.integer)
            numbers.append(integer)
        case .double(let real):
            kinds.append(.real)
            numbers.append(Int64(bitPattern: real.bitPattern))
        case .string(let text):
            kinds.append(.text)
            let before = bytes.count
            bytes.append(contentsOf: text.utf8)
            numbers.append(Int64(bytes.count - before))
        case .blob(let data):
            kinds.append(.blob)
            bytes.append(contentsOf: data)
            numbers.append(Int64(data.count))
        }
    }
}

extension RowInserter {
    /// Inserts every row of `rows` (`count` values per row), binding texts and blobs in place.
    func insert(_ rows: EncodedRows) throws {
        try rows.bytes.withUnsafeBufferPointer { buffer in
            // A non-nil base even when there are no bytes: an empty text or blob is not NULL.
            let base = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            var offset = 0
            var parameter: Int32 = 1
            for index in rows.kinds.indices {
                let number = rows.numbers[index]
                let code: Int32
                switch rows.kinds[index] {
                case .null:
                    code = sqlite3_bind_null(sqlite, parameter)
                case .integer:
                    code = sqlite3_bind_int64(sqlite, parameter, number)
                case .real:
                    code = sqlite3_bind_double(sqlite, parameter, Double(bitPattern: UInt64(bitPattern: number)))
                case .text:
                    // SQLITE_STATIC (no destructor): the bytes outlive the step that reads them.
                    code = sqlite3_bind_text64(
                        sqlite, parameter, (base + offset).assumingMemoryBound(to: CChar.self), sqlite3_uint64(number), nil,
                        UInt8(SQLITE_UTF8))
                    offset += Int(number)
                case .blob:
                    code =
                        number == 0
                        ? sqlite3_bind_zeroblob(sqlite, parameter, 0)
                        : sqlite3_bind_blob64(sqlite, parameter, base + offset, sqlite3_uint64(number), nil)
                    offset += Int(number)
                }
                if code != SQLITE_OK { throw error(code) }
                if Int(parameter) == count {
                    try insert()
                    parameter = 1
                } else {
                    parameter += 1
                }
            }
        }
    }
}

/// The app's conversion of one batch of rows, run on another thread while the connection's thread reads
/// the next batch and inserts the previous one: the rows-and-dictionaries path uses both cores, and the
/// app's code still sees one row at a time, in rowid order (one batch in flight at a time).
///
/// The worker also lays each new row out by position as bytes (``EncodedRows``): the dictionary lookups,
/// and freeing the dictionaries, the values and the copied rows, are as much work as the app's code, and
/// all of it stays on the worker; the connection's thread only copies rows, binds bytes and steps
/// statements. The rows are copies (`Row.copy()`), independent of the statement that read them; the
/// results and the first error thrown are handed back through a dispatch group (which orders the
/// worker's writes before the caller's reads).
final class RowTransformBatch: @unchecked Sendable {
    /// Left once when the worker finishes: waiting on it again (after an error, say) returns at once.
    private let done = DispatchGroup()
    private var rows = EncodedRows(capacity: 0)
    private var error: (any Error)?

    /// Starts converting `rows` on a global queue; `columns` are the target table's columns. Each kept
    /// row is encoded as its rowid (from `rowids`, in step with `rows`) then its values.
    init(_ rows: [Row], rowids: [Int64], columns: [String], _ transform: @escaping @Sendable (Row) throws -> [String: DatabaseValue]?) {
        let copies = CopiedRows(rows: rows)
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do {
                var encoded = EncodedRows(capacity: copies.rows.count * columns.count)
                // The new row's values by position: a narrow table walks the dictionary once, matching each key
                // against the few column names (short names compare without hashing); a wide one looks up
                // each column. Either way exact names win over names that differ in ASCII case only, and a
                // column the dictionary lacks is NULL.
                let narrow = columns.count <= 16
                var slots = [DatabaseValue](repeating: .null, count: columns.count)
                var exact = [Bool](repeating: false, count: columns.count)
                for (row, rowid) in zip(copies.rows, rowids) {
                    guard let new = try transform(row) else {
                        encoded.dropped += 1
                        continue
                    }
                    encoded.append(rowid.databaseValue)
                    if narrow {
                        for index in slots.indices {
                            slots[index] = .null
                            exact[index] = false
                        }
                        for (key, value) in new {
                            if let index = columns.firstIndex(of: key) {
                                slots[index] = value
                                exact[index] = true
                            } else if let index = columns.firstIndex(where: { sameSQLName(key, $0) }), !exact[index] {
                                slots[index] = value
                            }
                        }
                        for value in slots { encoded.append(value) }
                    } else {
                        for column in columns {
                            encoded.append(new[column] ?? new.first { sameSQLName($0.key, column) }?.value ?? .null)
                        }
                    }
                }
                self.rows = encoded
            } catch {
                self.error = error
            }
            done.leave()
        }
    }

    /// Waits for the batch: the kept rows' values by position and how many rows were dropped, or the
    /// transform's error. Safe to call again (it then returns or throws the same at once).
    func wait() throws -> EncodedRows {
        done.wait()
        if let error { throw error }
        return rows
    }
}

/// Rows made by `Row.copy()`: their values and column names are immutable arrays, unlike the rows of a
/// cursor (which read the statement), so they cross threads safely; GRDB 7 marks every `Row` as not
/// `Sendable` because it does not tell the two kinds apart.
private struct CopiedRows: @unchecked Sendable {
    let rows: [Row]
}
