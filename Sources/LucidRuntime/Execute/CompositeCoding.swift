import Foundation
import GRDB
@_spi(Generated) import LucidSchema

// What generated records with composite attributes call to read and write their columns by name: a
// composite is one column per element, so such a record spells out `init(row:)` and
// `encode(to:)` (GRDB's `Codable` support would store the composite as one JSON column).

extension Row {
    /// Whether every column named is NULL (or absent from the row): an optional composite stored in
    /// them is nil.
    @_spi(Generated) public func allNull(_ columns: String...) -> Bool {
        columns.allSatisfy { column in
            let value: (any DatabaseValueConvertible)? = self[column]
            return value == nil
        }
    }

    /// Reads JSON text (how GRDB stores `Codable` values that are not database values) decoded to `T`.
    @_spi(Generated) public func decodeJSON<T: Decodable>(_ type: T.Type, forColumn column: String, using decoder: JSONDecoder) throws -> T
    {
        guard let value = try decodeJSONIfPresent(type, forColumn: column, using: decoder) else {
            throw DecodingError.valueNotFound(
                T.self, DecodingError.Context(codingPath: [], debugDescription: "NULL in column \(column) where \(T.self) is required"))
        }
        return value
    }

    /// Reads optional JSON text decoded to `T` (NULL is nil).
    @_spi(Generated) public func decodeJSONIfPresent<T: Decodable>(_ type: T.Type, forColumn column: String, using decoder: JSONDecoder)
        throws -> T?
    {
        let value: (any DatabaseValueConvertible)? = self[column]
        let data: Data
        switch value?.databaseValue.storage {
        case nil, .null?: return nil
        case .string(let text)?: data = Data(text.utf8)
        case .blob(let blob)?: data = blob
        case .int64?, .double?:
            throw DecodingError.typeMismatch(
                T.self,
                DecodingError.Context(
                    codingPath: [], debugDescription: "expected JSON text in column \(column), found \(value!.databaseValue)"))
        }
        return try decoder.decode(T.self, from: data)
    }
}

extension PersistenceContainer {
    /// Stores `value` as JSON text, as GRDB stores `Codable` values that are not database values (nil is NULL).
    @_spi(Generated) public mutating func encodeJSON<T: Encodable>(_ value: T?, forColumn column: String, using encoder: JSONEncoder) throws
    {
        guard let value else {
            self[column] = nil
            return
        }
        let data = try encoder.encode(value)
        self[column] = String(decoding: data, as: UTF8.self)
    }
}

extension MigrationRow {
    /// Whether every column in `range` is NULL: an optional composite stored in them is nil.
    @_spi(Generated) public func allNull(_ range: Range<Int>) -> Bool {
        range.allSatisfy { isNull($0) }
    }
}
