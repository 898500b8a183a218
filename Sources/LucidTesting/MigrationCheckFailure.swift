import Foundation
import GRDB
@_spi(Generated) import LucidRuntime
import LucidSchema
@_spi(Generated) import LucidSchema

/// One thing a migration test found wrong, worded so the failure alone says where to look: from which
/// version or fixture file, which entity, row and property, what was expected and what was found.
public struct MigrationCheckFailure: Sendable, CustomStringConvertible, Equatable {
    /// `from 1.0 (seeded rows)` or `from fixture FlightLog_1_0.sqlite (version 1.0)`.
    public var source: String
    /// The entity (and its table) concerned, if any.
    public var entity: String?
    /// The row, by its key.
    public var row: String?
    /// The property whose value differs.
    public var property: String?
    /// The value the oracle expected.
    public var expected: String?
    /// The value the migrated store holds.
    public var found: String?
    /// What went wrong, when it is not a value (a failed migration, a schema difference, …).
    public var message: String?

    /// A failure (the harness makes them; custom checks may too).
    ///
    /// ```swift
    /// MigrationCheckFailure(source: "from 1.0 (seeded rows)", entity: "Aircraft", row: "id=\"N1\"", property: "isFavorite", expected: "1", found: "0")
    /// ```
    package init(
        source: String, entity: String? = nil, row: String? = nil, property: String? = nil, expected: String? = nil, found: String? = nil,
        message: String? = nil
    ) {
        self.source = source
        self.entity = entity
        self.row = row
        self.property = property
        self.expected = expected
        self.found = found
        self.message = message
    }

    /// E.g. `from 3.0 (seeded rows): Shelf (table shelf), row code="id-9", property label: expected 42, found 0`.
    public var description: String {
        var parts: [String] = []
        if let entity { parts.append(entity) }
        if let row { parts.append("row \(row)") }
        if let property { parts.append("property \(property)") }
        var text = source + ": " + (parts.isEmpty ? "" : parts.joined(separator: ", ") + ": ")
        if let message { text += message }
        if let expected, let found { text += (message == nil ? "" : "; ") + "expected \(expected), found \(found)" }
        return text
    }

    /// A value as the messages show it: `NULL`, `42`, `1.5`, `"text"` (a Swift string literal, so a line
    /// break or a terminal escape in it shows as `\n` or `\u{1b}`; shortened), `X'00FF'`.
    package static func format(_ value: DatabaseValue?) -> String {
        guard let value else { return "no value" }
        switch value.storage {
        case .null: return "NULL"
        case .int64(let integer): return "\(integer)"
        case .double(let double): return "\(double)"
        case .string(let text):
            // Shortened before it is escaped, so that no escape is cut in two.
            return text.count > 80 ? String(swiftStringLiteral(String(text.prefix(77))).dropLast()) + "…\"" : swiftStringLiteral(text)
        case .blob(let data):
            let hex = data.prefix(16).map { String(format: "%02X", $0) }.joined()
            return "X'\(hex)\(data.count > 16 ? "…" : "")' (\(data.count) bytes)"
        }
    }
}
