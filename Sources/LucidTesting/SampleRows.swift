import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
@_spi(Generated) import LucidSchema

/// Rows a project keeps per version for its generated tests, beside the edge values they seed: data the
/// app's stages and data migrations react to (a title with " - " in it, a code in an old format), which
/// generated edge values never contain. One file per version, `.entities/.samples/<version>.json` (the
/// description loader does not read that folder), a JSON object of tables, each a list of rows by column
/// name, as the version stores them:
///
/// ```json
/// { "track": [ { "id": 1001, "title": "Artist - Title", "bpm": 120 } ] }
/// ```
///
/// Each row is inserted after the seeded rows, so give it keys the seeded rows do not use (they count from
/// 1 up to the rows seeded, 12 by default). A value is a JSON string, number, `true`/`false` (1/0), `null`,
/// or an array or object (stored as its JSON text, for JSON columns). Dates are GRDB's text
/// (`"2024-05-01 10:00:00.000"`); a `uuid` is its text (`"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"`), stored as its
/// 16 bytes, as GRDB stores a `UUID`; a `decimal` is its text (`"12.50"`) or an integer, stored as the text GRDB
/// stores for that `Decimal` (`"12.5"`). The rows go through every step the seeded rows go through and are checked
/// with the same expectations: a stage that mishandles them fails the tests.
@_spi(Generated) public enum SampleRows {
    /// The samples folder at `relativePath` from the folder of `file` (the generated tests pass `#filePath`).
    public static func folder(besideFile file: String, relativePath: String) -> String {
        (((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(relativePath) as NSString).standardizingPath
    }

    /// The file of `version`'s sample rows in `folder`.
    public static func file(in folder: String, version: SchemaVersion) -> String {
        (folder as NSString).appendingPathComponent("\(version.string).json")
    }

    /// Inserts `version`'s sample rows (none when its file does not exist). `schema` (the version's) says
    /// which columns are `uuid`s, whose text is stored as its 16 bytes, and `decimal`s, whose text is stored as
    /// GRDB stores that `Decimal`.
    public static func insert(from folder: String, version: SchemaVersion, schema: Schema?, _ db: Database) throws {
        let path = file(in: folder, version: version)
        guard let data = FileManager.default.contents(atPath: path) else { return }
        let tables: [String: [[String: Value]]]
        do {
            tables = try JSONDecoder().decode([String: [[String: Value]]].self, from: data)
        } catch {
            throw SampleRowsError(file: path, message: "expected a JSON object of tables, each a list of rows by column name: \(error)")
        }
        for table in tables.keys.sorted() {
            for (index, row) in tables[table]!.enumerated() {
                let columns = row.keys.sorted()
                let uuidColumns = Set(columns.filter { schema?.table(named: table)?.column(named: $0)?.valueType == .uuid })
                let decimalColumns = Set(columns.filter { schema?.table(named: table)?.column(named: $0)?.valueType == .decimal })
                let values = try columns.map { column in
                    let value = row[column]!
                    if decimalColumns.contains(column), case .text(let text) = value {
                        guard let stored = DecimalText.stored(text) else {
                            throw SampleRowsError(
                                file: path,
                                message:
                                    "table \(table), \(Self.name(ofRow: index, row)): column \(column): '\(text)' is not a decimal number",
                                table: table, row: index)
                        }
                        return stored.databaseValue
                    }
                    guard uuidColumns.contains(column), case .text(let text) = value else { return try value.databaseValue() }
                    guard let bytes = UUIDText.bytes(text) else {
                        throw SampleRowsError(
                            file: path,
                            message: "table \(table), \(Self.name(ofRow: index, row)): column \(column): '\(text)' is not a UUID",
                            table: table, row: index)
                    }
                    return Data(bytes).databaseValue
                }
                let sql =
                    "INSERT INTO \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
                do {
                    try db.execute(sql: sql, arguments: StatementArguments(values))
                } catch let error as DatabaseError {
                    // SQLite's words, without the statement; a key or unique value a seeded row has says so.
                    var message = error.message ?? "\(error)"
                    if error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY || error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                        message +=
                            " (the seeded rows come first and count from 1 up to the rows seeded: give sample rows keys and unique values they do not use, e.g. from 1001)"
                    }
                    throw SampleRowsError(
                        file: path, message: "table \(table), \(Self.name(ofRow: index, row)): \(message)", table: table, row: index)
                } catch {
                    throw SampleRowsError(
                        file: path, message: "table \(table), \(Self.name(ofRow: index, row)): \(error)", table: table, row: index)
                }
            }
        }
    }

    /// `row id=1007 (the 3rd of the table)`: a row by its id when it has one, as the file's reader looks for it.
    static func name(ofRow index: Int, _ row: [String: Value]) -> String {
        let position = "the row at index \(index) of the table"
        guard let key = row.keys.first(where: { sqlNameKey($0) == "id" }), let value = row[key] else { return position }
        switch value {
        case .integer(let id): return "row \(key)=\(id) (\(position))"
        case .text(let id): return "row \(key)=\(quoteLiteral(id)) (\(position))"
        default: return position
        }
    }

    /// A JSON value of a sample row.
    enum Value: Codable {
        case null, bool(Bool), integer(Int64), real(Double), text(String), array([Value]), object([String: Value])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null; return }
            if let value = try? container.decode(Bool.self) { self = .bool(value); return }
            if let value = try? container.decode(Int64.self) { self = .integer(value); return }
            if let value = try? container.decode(Double.self) { self = .real(value); return }
            if let value = try? container.decode(String.self) { self = .text(value); return }
            if let value = try? container.decode([Value].self) { self = .array(value); return }
            self = .object(try container.decode([String: Value].self))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .real(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }

        /// As a column stores it: booleans 1/0, arrays and objects as their JSON text.
        func databaseValue() throws -> DatabaseValue {
            switch self {
            case .null: return .null
            case .bool(let value): return (value ? 1 : 0).databaseValue
            case .integer(let value): return value.databaseValue
            case .real(let value): return value.databaseValue
            case .text(let value): return value.databaseValue
            case .array, .object:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return String(decoding: try encoder.encode(self), as: UTF8.self).databaseValue
            }
        }
    }
}

/// A sample rows file that cannot be read or inserted, with the file and what is wrong.
public struct SampleRowsError: Error, CustomStringConvertible {
    public var file: String
    public var message: String
    /// The table and the row's index in its list, when SQLite refused a row.
    public var table: String?
    public var row: Int?

    package init(file: String, message: String, table: String? = nil, row: Int? = nil) {
        self.file = file
        self.message = message
        self.table = table
        self.row = row
    }

    public var description: String { "sample rows \(file): \(message)" }
}
