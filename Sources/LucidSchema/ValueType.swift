/// The logical type of a column's values, as the descriptions give it (``SchemaColumn/valueType``): it
/// decides which conversions keep every value (``ValueConversion``), how a value reads back from JSON,
/// and what a search may cover.
///
/// Registries and snapshots write it as its text (``description``), which ``init(_:)`` reads back:
///
/// ```swift
/// ValueType.int.description                               // "int"
/// ValueType.enumeration("category").description           // "enum category"
/// ValueType.array(.structure("address")).description      // "[struct address]"
/// ValueType("option_set flags") == .optionSet("flags")    // true
/// ```
///
/// Text it does not know (written by a newer lucidgen) is kept as it was (``other(_:)``), so every
/// value type reads back and writes out as the same text.
package enum ValueType: Sendable, Hashable {
    case string, int, bool, double, float, seconds, milliseconds, date, url, color, data, uuid, decimal
    /// A value of the named enum subtype, stored as its case's text: `enum category`.
    case enumeration(String)
    /// A value of the named option set subtype, stored as its raw integer: `option_set flags`.
    case optionSet(String)
    /// A value of the named struct subtype, stored as JSON: `struct address`.
    case structure(String)
    /// A struct subtype stored as one column per element: `composite color_scheme` (its columns carry
    /// their elements' value types).
    case composite(String)
    /// An array, stored as JSON: `[string]`, `[struct address]`.
    indirect case array(ValueType)
    /// A to-one relationship's key: `to_one`. The target is not part of it (a foreign key names the
    /// target's table as named at each version, and a renamed target is the same entity), except in
    /// snapshots written by an early lucidgen, which said `to_one aircraft`.
    case toOne(target: String?)
    /// A to-many relationship (its links are in a join table): `to_many`.
    case toMany
    /// The column of an entity hierarchy's table that says which entity each row is (`kind`, Core Data's
    /// `Z_ENT`): its ``SchemaColumn/caseChanges`` are entities renamed and removed, not enum values.
    case kind
    /// Text no other case spells: a subtype the descriptions do not define, or a newer lucidgen's value type.
    case other(String)

    /// The value types of scalar properties.
    package static let scalars: [ValueType] = [
        .string, .int, .bool, .double, .float, .seconds, .milliseconds, .date, .url, .color, .data, .uuid, .decimal,
    ]

    private static let scalarsByText = Dictionary(uniqueKeysWithValues: scalars.map { ($0.description, $0) })

    /// The value type a registry or snapshot spells `text`.
    package init(_ text: String) {
        if let scalar = Self.scalarsByText[text] {
            self = scalar
            return
        }
        switch text {
        case "to_one": self = .toOne(target: nil)
        case "to_many": self = .toMany
        case "kind": self = .kind
        case _ where text.count >= 2 && text.first == "[" && text.last == "]":
            self = .array(ValueType(String(text.dropFirst().dropLast())))
        default:
            guard let space = text.firstIndex(of: " ") else {
                self = .other(text)
                return
            }
            let name = String(text[text.index(after: space)...])
            switch text[..<space] {
            case "enum": self = .enumeration(name)
            case "option_set": self = .optionSet(name)
            case "struct": self = .structure(name)
            case "composite": self = .composite(name)
            case "to_one": self = .toOne(target: name)
            default: self = .other(text)
            }
        }
    }

    /// Whether this is a to-one relationship's key (named with its target or not).
    package var isToOne: Bool {
        if case .toOne = self { true } else { false }
    }

    /// Whether the values are numbers SQLite's `CAST` converts between (with loss, when the description accepts it).
    package var isNumber: Bool {
        switch self {
        case .int, .double, .float, .decimal: true
        default: false
        }
    }
}

extension ValueType: CustomStringConvertible {
    /// The text registries and snapshots write.
    package var description: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .bool: "bool"
        case .double: "double"
        case .float: "float"
        case .seconds: "seconds"
        case .milliseconds: "milliseconds"
        case .date: "date"
        case .url: "url"
        case .color: "color"
        case .data: "data"
        case .uuid: "uuid"
        case .decimal: "decimal"
        case .enumeration(let name): "enum \(name)"
        case .optionSet(let name): "option_set \(name)"
        case .structure(let name): "struct \(name)"
        case .composite(let name): "composite \(name)"
        case .array(let element): "[\(element)]"
        case .toOne(let target?): "to_one \(target)"
        case .toOne(nil): "to_one"
        case .toMany: "to_many"
        case .kind: "kind"
        case .other(let text): text
        }
    }
}

extension ValueType: Codable {
    /// Decodes the text ``description`` writes.
    package init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes ``description``: registries and snapshots hold the same JSON as when this was a string.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
