import Foundation
import GRDB
import GRDBSQLite
@_spi(Generated) import LucidSchema

/// A typed row transform between two ``MigrationRecord`` types, erased to what the executor needs.
///
/// Inlinable so that `convert` is specialized for the two record types where the app makes the transform
/// (direct calls per row instead of generic ones through witness tables and metadata lookups).
@usableFromInline
struct RecordTransform: Sendable {
    @usableFromInline let sourceColumns: [String]
    @usableFromInline let targetColumns: [String]
    @usableFromInline let makeDecoder: @Sendable (String) -> JSONDecoder
    @usableFromInline let makeEncoder: @Sendable (String) -> JSONEncoder
    /// Decodes the old record, runs the app's transform, encodes the new one; false drops the row.
    @usableFromInline let convert: @Sendable (MigrationRow, inout MigrationValues) throws -> Bool

    @inlinable
    init<Old: MigrationRecord, New: MigrationRecord>(_ transform: @escaping @Sendable (Old) throws -> New?) {
        sourceColumns = Old.migrationColumns
        targetColumns = New.migrationColumns
        makeDecoder = MigrationRecordCoding.decoder(Old.self)
        makeEncoder = MigrationRecordCoding.encoder(New.self)
        convert = { row, values in
            guard let new = try transform(Old(migrationRow: row)) else { return false }
            try new.encode(to: &values)
            return true
        }
    }
}

/// Runs a ``RecordTransform`` inside SQLite, as SQL functions registered on the connection for the
/// duration of one table rebuild:
///
/// ```sql
/// INSERT INTO new (c1, …, ck) SELECT lucid_value_0(), …, lucid_value_<k-1>()
/// FROM old AS src WHERE src.rowid BETWEEN ? AND ? AND lucid_transform(src.rowid, src.o1, …, src.on)
/// ```
///
/// `lucid_transform` decodes the old record from its arguments, calls the app's code, encodes the new
/// record into a buffer reused for every row and returns 1 (keep) or 0 (drop); for a kept row, SQLite
/// then evaluates the result columns, each `lucid_value_<i>()` returning value `i` of the buffer (one
/// function per value, which knows its index from its registration: no argument to evaluate and read
/// per value). All are registered non-deterministic so that SQLite calls them for every row instead of
/// factoring them out as constants.
///
/// The pairing of a row's `lucid_transform` with its value calls is checked, never assumed: a value
/// read out of order or without a kept row, or a kept row whose values were not all read when the next
/// row (or the end of the statement) comes, fails the statement.
final class RecordTransformRunner {
    static let transformFunction = "lucid_transform"
    static func valueFunction(_ index: Int) -> String { "lucid_value_\(index)" }

    /// What a value function's registration points to: its index, and the runner it holds.
    struct ValueFunction {
        let runner: Unmanaged<RecordTransformRunner>
        let index: Int
    }

    let context: TransformContext
    /// One per target column, owned by the runner (which every registration holds).
    private let valueFunctions: UnsafeMutablePointer<ValueFunction>
    private let convert: @Sendable (MigrationRow, inout MigrationValues) throws -> Bool
    /// The first error thrown in a callback (the app's own error, or a decoding error): the statement
    /// fails with its description, and the executor rethrows this error itself. Callbacks test
    /// `state.failed` instead (this property would cost an exclusivity check per call).
    private(set) var error: (any Error)?
    /// The kept row's text values, copied here when the row is converted so that `lucid_value_<i>()`
    /// can hand SQLite a pointer it need not copy (`SQLITE_STATIC`): the bytes stay put until the next
    /// row's `lucid_transform`, by which time SQLite has built the inserted record from them.
    private var arena: UnsafeMutableRawPointer
    private var arenaCapacity = 4096
    /// Where each target column's text starts in `arena`.
    private let textOffsets: UnsafeMutablePointer<Int>

    /// The target columns SQLite computes (generated columns): the record encodes them, no insert writes them.
    private let skipped: [Bool]

    init(_ transform: RecordTransform, sourceTable: String, targetTable: String, generatedColumns: Set<String> = []) {
        skipped = transform.targetColumns.map { generatedColumns.contains(sqlNameKey($0)) }
        context = TransformContext(
            sourceTable: sourceTable, sourceColumns: transform.sourceColumns, targetTable: targetTable,
            targetColumns: transform.targetColumns,
            makeDecoder: transform.makeDecoder, makeEncoder: transform.makeEncoder)
        convert = transform.convert
        arena = .allocate(byteCount: arenaCapacity, alignment: 1)
        textOffsets = .allocate(capacity: transform.targetColumns.count)
        textOffsets.initialize(repeating: 0, count: transform.targetColumns.count)
        valueFunctions = .allocate(capacity: transform.targetColumns.count)
        for index in transform.targetColumns.indices {
            (valueFunctions + index).initialize(to: ValueFunction(runner: Unmanaged.passUnretained(self), index: index))
        }
    }

    deinit {
        valueFunctions.deinitialize(count: context.targetColumns.count)
        valueFunctions.deallocate()
        textOffsets.deallocate()
        arena.deallocate()
    }

    /// Old rows seen so far (kept or dropped), for progress.
    var rowsSeen: Int { context.state.pointee.rowsSeen }

    /// `INSERT INTO … SELECT …` with the rowid range as its two arguments. `filter` (over `src`) keeps the
    /// rows the app's code sees (moved rows of some kinds): a `CASE` decides first, since SQLite may
    /// evaluate the terms of an `AND` in any order, and the transform must never see another row.
    func insertSQL(into temporary: String, from source: String, filter: String? = nil) -> String {
        let inserted = context.targetColumns.indices.filter { !skipped[$0] }
        let targets = inserted.map { quoteIdentifier(context.targetColumns[$0]) }.joined(separator: ", ")
        let results = inserted.map { "\(Self.valueFunction($0))()" }.joined(separator: ", ")
        let arguments = (["src.rowid"] + context.sourceColumns.map { "src.\(quoteIdentifier($0))" }).joined(separator: ", ")
        // The rowid first: every row keeps it, and a column that is the rowid's alias, listed after it, still decides.
        let call = "\(Self.transformFunction)(\(arguments))"
        return
            "INSERT INTO \(quoteIdentifier(temporary)) (rowid, \(targets)) SELECT src.rowid, \(results) FROM \(quoteIdentifier(source)) AS src WHERE src.rowid BETWEEN ? AND ? AND "
            + (filter.map { "CASE WHEN \($0) THEN \(call) ELSE 0 END" } ?? call)
    }

    private var transformArgumentCount: Int32 { Int32(context.sourceColumns.count + 1) }

    /// Registers the functions on `connection`; each registration holds the runner until SQLite destroys
    /// it (when ``unregister(from:)`` deletes the function, or the connection closes).
    func register(on connection: OpaquePointer) throws {
        let flags = SQLITE_UTF8 | SQLITE_DIRECTONLY
        func check(_ code: Int32, _ name: String) throws {
            // On failure SQLite has already called the destructor.
            guard code == SQLITE_OK else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: "cannot register \(name): \(String(cString: sqlite3_errmsg(connection)))")
            }
        }
        let runner = Unmanaged.passRetained(self).toOpaque()
        try check(
            sqlite3_create_function_v2(
                connection, Self.transformFunction, transformArgumentCount, flags, runner, lucidTransform, nil, nil, releaseRunner),
            Self.transformFunction)
        for index in context.targetColumns.indices where !skipped[index] {
            _ = Unmanaged.passRetained(self)
            let name = Self.valueFunction(index)
            try check(
                sqlite3_create_function_v2(connection, name, 0, flags, valueFunctions + index, lucidValue, nil, nil, releaseValueRunner),
                name)
        }
    }

    /// Deletes the functions (SQLite then releases the runner).
    func unregister(from connection: OpaquePointer) {
        sqlite3_create_function_v2(connection, Self.transformFunction, transformArgumentCount, SQLITE_UTF8, nil, nil, nil, nil, nil)
        for index in context.targetColumns.indices {
            sqlite3_create_function_v2(connection, Self.valueFunction(index), 0, SQLITE_UTF8, nil, nil, nil, nil, nil)
        }
    }

    /// After each statement: the last kept row must have had all its values read.
    func checkComplete() throws {
        if let error { throw error }
        if context.state.pointee.pending { throw unreadValues() }
    }

    private func unreadValues() -> EvaluationOrderError {
        let state = context.state.pointee
        return EvaluationOrderError(
            message: "row \(state.rowid) was kept but only \(state.nextValue) of its \(context.targetColumns.count) values were inserted")
    }

    fileprivate func transform(_ sqlite: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        let state = context.state
        if state.pointee.failed { return fail(sqlite, error!) }
        guard !state.pointee.pending else { return fail(sqlite, unreadValues()) }
        guard let arguments, count == transformArgumentCount else {
            return fail(sqlite, EvaluationOrderError(message: "\(Self.transformFunction) called with \(count) arguments"))
        }
        state.pointee.rowid = sqlite3_value_int64(arguments[0])
        state.pointee.rowsSeen &+= 1
        var values = MigrationValues(context: context)
        do {
            if try convert(MigrationRow(arguments: arguments + 1, context: context), &values) {
                for index in skipped.indices where skipped[index] { context.slots[index] = .null }
                stageTexts()
                state.pointee.nextValue = nextInserted(from: 0)
                state.pointee.pending = state.pointee.nextValue < context.targetColumns.count
                sqlite3_result_int(sqlite, 1)
            } else {
                sqlite3_result_int(sqlite, 0)
            }
        } catch {
            fail(sqlite, error)
        }
    }

    /// The first target column from `index` on that the insert writes (the count when none is left).
    private func nextInserted(from index: Int) -> Int {
        var next = index
        while next < skipped.count, skipped[next] { next += 1 }
        return next
    }

    /// Copies the kept row's texts into `arena` (no pointer into it is live: the previous row is inserted).
    private func stageTexts() {
        let count = context.targetColumns.count
        let slots = context.slots
        var total = 0
        for index in 0..<count {
            if case .text(let text) = slots[index] { total += text.utf8.count }
        }
        if total > arenaCapacity {
            arena.deallocate()
            arenaCapacity = max(total, arenaCapacity * 2)
            arena = .allocate(byteCount: arenaCapacity, alignment: 1)
        }
        var offset = 0
        for index in 0..<count {
            guard case .text(var text) = slots[index] else { continue }
            textOffsets[index] = offset
            text.withUTF8 { bytes in
                if let base = bytes.baseAddress, bytes.count > 0 { (arena + offset).copyMemory(from: base, byteCount: bytes.count) }
                offset += bytes.count
            }
        }
    }

    fileprivate func value(_ sqlite: OpaquePointer?, at index: Int) {
        let state = context.state
        if state.pointee.failed { return fail(sqlite, error!) }
        guard state.pointee.pending, index == state.pointee.nextValue else {
            let expected = state.pointee.pending ? "where value \(state.pointee.nextValue) was expected" : "with no kept row pending"
            return fail(sqlite, EvaluationOrderError(message: "\(Self.valueFunction(index))() evaluated \(expected)"))
        }
        state.pointee.nextValue = nextInserted(from: index + 1)
        if state.pointee.nextValue == context.targetColumns.count { state.pointee.pending = false }
        // Take the value, leaving NULL for the next row.
        let slot = (context.slots + index).move()
        (context.slots + index).initialize(to: .null)
        switch slot {
        case .null:
            sqlite3_result_null(sqlite)
        case .integer(let integer):
            sqlite3_result_int64(sqlite, integer)
        case .real(let real):
            sqlite3_result_double(sqlite, real)
        case .text(let text):
            let count = text.utf8.count
            if count > 0 {
                // SQLITE_STATIC (no destructor): the bytes in `arena` outlive this row's insert.
                sqlite3_result_text64(
                    sqlite, (arena + textOffsets[index]).assumingMemoryBound(to: CChar.self), sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8)
                )
            } else {
                sqlite3_result_text(sqlite, "", 0, sqliteTransient)
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                // An empty blob is a blob, not NULL (a nil pointer would make it NULL).
                if let base = bytes.baseAddress, bytes.count > 0 {
                    sqlite3_result_blob64(sqlite, base, sqlite3_uint64(bytes.count), sqliteTransient)
                } else {
                    sqlite3_result_zeroblob(sqlite, 0)
                }
            }
        }
    }

    private func fail(_ sqlite: OpaquePointer?, _ error: any Error) {
        if !context.state.pointee.failed {
            self.error = error
            context.state.pointee.failed = true
        }
        sqlite3_result_error(sqlite, "\(error)", -1)
    }
}

/// SQLite evaluated the transform's functions in an order the runner does not expect (a bug, reported
/// rather than letting values shift between columns or rows).
struct EvaluationOrderError: Error, CustomStringConvertible {
    var message: String
    var description: String { "row transform: \(message)" }
}

/// `SQLITE_TRANSIENT` (a C macro Swift does not import): SQLite copies the value before returning.
/// Computed (a global constant would cost a lazy-initialization check per value).
@inline(__always)
private var sqliteTransient: sqlite3_destructor_type { unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self) }

/// The runner registered with the function (held by the registration: no retain per call).
private func runner(_ sqlite: OpaquePointer?) -> Unmanaged<RecordTransformRunner> {
    Unmanaged<RecordTransformRunner>.fromOpaque(sqlite3_user_data(sqlite)!)
}

private func lucidTransform(_ sqlite: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    runner(sqlite)._withUnsafeGuaranteedRef { $0.transform(sqlite, count, arguments) }
}

private func lucidValue(_ sqlite: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    let function = sqlite3_user_data(sqlite)!.assumingMemoryBound(to: RecordTransformRunner.ValueFunction.self).pointee
    function.runner._withUnsafeGuaranteedRef { $0.value(sqlite, at: function.index) }
}

private func releaseRunner(_ box: UnsafeMutableRawPointer?) {
    if let box { Unmanaged<RecordTransformRunner>.fromOpaque(box).release() }
}

private func releaseValueRunner(_ box: UnsafeMutableRawPointer?) {
    // Read the runner before releasing it: the release may free the memory `box` points into.
    if let runner = box?.assumingMemoryBound(to: RecordTransformRunner.ValueFunction.self).pointee.runner { runner.release() }
}
