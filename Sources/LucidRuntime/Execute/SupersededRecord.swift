import Foundation
import GRDB
import LucidSchema

/// A record type of a superseded schema version (`Item_1_0` once `Item_2_0` exists): a
/// ``MigrationRecord`` that knows its table, and no more. `lucidgen generate` makes every record of an
/// entity's older versions one of these, and only the newest version a full GRDB record (`Codable`,
/// `FetchableRecord`, `PersistableRecord`, `Columns`): older versions exist for migration stages and
/// tests, and the conformances GRDB needs for queries cost most of the build time of a long history.
///
/// It reads and writes its rows the way a row transform does, which is all a stage or a test needs:
///
/// ```swift
/// try Item_1_0(id: 1, name: "old").insert(db)          // seed a store at 1.0
/// let items = try Item_1_0.fetchAll(db)                 // read it back
/// let row = try Item_1_0(databaseValues: ["id": 1.databaseValue, "name": "x".databaseValue])
/// ```
///
/// `TableRecord` still gives `fetchCount`, `exists(_:key:)`, `deleteAll` and the query interface's
/// table; filtering by column goes through `Column("name")` (only the newest record has `Columns`).
public protocol SupersededRecord: MigrationRecord, TableRecord {}

extension SupersededRecord {
    /// Inserts the record as one row of its table, with the values a row transform would write
    /// (an integer primary key left nil gets the next rowid).
    public func insert(_ db: Database) throws {
        let columns = Self.migrationColumns
        let sql = "INSERT INTO \(quoteIdentifier(Self.databaseTableName)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(try encodedValues()))
    }

    /// Every row of the record's table, decoded as the record (in the table's order: rowid for a rowid table).
    /// A value that does not fit its property throws a ``MigrationRowError`` naming the row by its position.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        let sql = "SELECT \(migrationColumns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(databaseTableName))"
        let context = MigrationRecordCoding.readingContext(Self.self, table: databaseTableName)
        let rows = try Row.fetchCursor(db, sql: sql)
        var records: [Self] = []
        var values: [DatabaseValue] = []
        while let row = try rows.next() {
            values.removeAll(keepingCapacity: true)
            for index in 0..<row.count { values.append(row[index] as DatabaseValue) }
            context.state.pointee.rowid += 1
            records.append(try Self(values: values, context: context))
        }
        return records
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
            values[column] ?? values.first { $0.key.lowercased() == column.lowercased() }?.value ?? .null
        }
        try self.init(values: ordered, context: MigrationRecordCoding.readingContext(Self.self, table: MigrationRecordCoding.tableName(Self.self)))
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
